#!/usr/bin/env python3
"""Where a cold build's time goes: one project of a benchmark history, ``-j 1``.

    python3 benchmarks/profile.py --history realcode --project work-spotter
    python3 benchmarks/profile.py --history wide --project work-spotter --py-spy PATH

Takes one project directory of a history that benchmarks/bench.py generates (the
same seed, the same work directory), or the whole history, builds it cold (or,
``--rebuild``, builds it once and profiles the no-change rebuild) with all options
at their defaults but ``-j 1`` (everything in one process: reading, rendering, the
archive; Pagefind is a child the build waits for) under cProfile, and prints:

- the top entries by cumulative and by own ("self") time;
- the split by stage: each function's own time goes to the stage its file belongs
  to (STAGES); time in the standard library and in C functions (``re``,
  ``orjson``, ``subprocess`` waits) goes to the stages of its callers, in
  proportion to the time each caller spent in it (cProfile's per-caller times).

cProfile adds a fixed cost to every Python call, so call-heavy code (Jinja
templates, Pygments' token loop) looks larger under it than it is. With
``--py-spy PATH`` (py-spy, a sampling profiler: ``pip install py-spy`` in any
venv) the build runs a second time under it, and the same split is made from its
samples (each sample to the innermost frame whose file names a stage), which has
no such bias. Shares hold up on a shared machine; seconds do not.

The raw profiles go to ``--out`` (``NAME.pstats``, ``NAME.pyspy.txt``).
"""

from __future__ import annotations

import argparse
import io
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (benchmarks/bench.py: the histories and the environment)

# (stage, markers): a file whose path holds one of the markers belongs to the stage;
# the first stage that matches wins. A template's code runs under its own file name.
STAGES: list[tuple[str, tuple[str, ...]]] = [
    # render/lexing.py is Pygments' RegexLexer loop, narrowed (our copy of it).
    ("highlighting: Pygments (lexing)", ("/pygments/", "bough_site/render/lexing.py")),
    ("highlighting: ours (token loop, HTML, block cache, diffs)",
     ("bough_site/render/highlight.py", "bough_site/render/highlight_budget.py",
      "bough_site/render/lexer_choice.py", "bough_site/render/code_styles.py")),
    ("Markdown", ("bough_site/render/markdown.py", "/markdown_it/", "/mdurl/", "/linkify_it/", "/mdit_py_plugins/")),
    # markupsafe is no stage: its escape() runs for our formatter as for templates.
    ("Jinja templates", ("/jinja2/", "/templates/", ".html")),
    ("render helpers (pages.py, times, links, charts, built)", ("bough_site/render/",)),
    ("reading (readers)", ("bough_site/readers/",)),
    ("redaction", ("bough_site/redact", "bough_site/scrub.py")),  # redact.py, redact_*.py
    ("work summaries", ("bough_site/work.py", "bough_site/git_commands.py")),
    ("sidecars", ("bough_site/sidecars.py",)),
    ("writing", ("bough_site/write.py", "bough_site/slugs.py", "bough_site/out_place.py")),
    ("archive", ("bough_site/archive",)),  # archive.py, archive_sync.py
    ("search (Pagefind: stripping pages, the wait for it)", ("bough_site/search/",)),
    ("manifest, state, summaries", ("bough_site/manifest.py", "bough_site/state.py", "bough_site/summaries.py")),
    ("discovery, planning, resumes, jobs", ("bough_site/discover.py", "bough_site/plan/",
                                            "bough_site/inherit.py", "bough_site/build.py", "bough_site/stages.py",
                                            "bough_site/jobs.py",
                                            "bough_site/publish.py", "bough_site/options.py", "bough_site/config.py",
                                            "bough_site/urls.py")),
    ("model, stats", ("bough_site/model.py", "bough_site/stats.py")),
    ("CLI, start-up", ("bough_site/cli.py", "/click/", "cProfile.py", "runpy.py")),
]
# Module-level code (imports) is start-up whatever file it is in.
STARTUP = "CLI, start-up"


def stage_of(filename: str, function: str) -> str | None:
    if function == "<module>":
        return STARTUP
    if not filename.startswith(("/", "<", "~")):
        filename = "/" + filename  # py-spy names files from their sys.path entry: "pygments/lexer.py"
    for stage, markers in STAGES:
        if any(marker in filename for marker in markers):
            return stage
    return None


# --------------------------------------------------------------------------- cProfile


def cprofile_split(stats: pstats.Stats) -> Counter[str]:
    """Own time by stage; time of unclassified functions (stdlib, C) to their callers' stages."""
    table = stats.stats  # func -> (cc, nc, tt, ct, callers{caller: (cc, nc, tt, ct)})
    memo: dict[tuple, dict[str, float]] = {}

    def shares(func: tuple, seen: frozenset = frozenset()) -> dict[str, float]:
        stage = stage_of(func[0], func[2])
        if stage is not None:
            return {stage: 1.0}
        if func in memo:  # kept whatever the path: a caller on a cycle counts where the cycle is first met
            return memo[func]
        callers = table.get(func, (0, 0, 0, 0, {}))[4]
        callers = {c: v for c, v in callers.items() if c not in seen}
        if not callers or len(seen) > 40:
            return {"other (no stage above it)": 1.0}
        weights = {c: v[2] for c, v in callers.items()}  # the time func took when c called it
        total = sum(weights.values())
        if total <= 0:
            weights = {c: float(v[1]) for c, v in callers.items()}
            total = sum(weights.values()) or 1.0
        found: dict[str, float] = {}
        for caller, weight in weights.items():
            for stage, share in shares(caller, seen | {func}).items():
                found[stage] = found.get(stage, 0.0) + share * weight / total
        memo[func] = found
        return found

    split: Counter[str] = Counter()
    for func, (_cc, _nc, tt, _ct, _callers) in table.items():
        for stage, share in shares(func).items():
            split[stage] += tt * share
    return split


def top(profile: Path, key: str, count: int) -> str:
    stream = io.StringIO()
    pstats.Stats(str(profile), stream=stream).sort_stats(key).print_stats(count)
    text = stream.getvalue()
    return text[text.find("   ncalls"):].rstrip()


# --------------------------------------------------------------------------- py-spy


def pyspy_split(raw: Path) -> tuple[Counter[str], int]:
    """Samples by stage: each to the innermost frame whose file names a stage."""
    split: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        samples = int(count)
        total += samples
        stage = None
        for frame in reversed(stack.split(";")):
            function, _, where = frame.partition(" (")
            stage = stage_of(where.rsplit(":", 1)[0], function.strip())
            if stage is not None:
                break
        split[stage or "other (no stage in the stack)"] += samples
    return split, total


# --------------------------------------------------------------------------- running


def project_tree(projects: Path, project: str | None, place: Path) -> Path:
    """A source root holding only the project directory whose name ends with
    ``project`` (hard links), or (None) every project of the history."""
    root = place / "projects"
    if project is None:
        bench._link_tree(projects, root, set())
        return root
    names = sorted(p.name for p in projects.iterdir() if p.is_dir())
    matches = [name for name in names if name == project or name.endswith(project)]
    if len(matches) != 1:
        raise SystemExit(f"{project!r} names {len(matches)} project directories; the history has: {', '.join(names)}")
    bench._link_tree(projects / matches[0], root / matches[0], set())
    return root


def build_argv(source: Path, place: Path) -> tuple[list[str], Path, Path]:
    out, archive = place / "out", place / "archive"
    return ["-m", "bough_site.cli", "build", str(source), "-o", str(out), "-q", "--archive", str(archive),
            "-j", "1"], out, archive


def fresh(*folders: Path) -> None:
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def show(split: Counter[str], unit: str, total: float) -> str:
    rows = ["| stage | " + unit + " | share |", "|---|---|---|"]
    for stage, value in split.most_common():
        rows.append(f"| {stage} | {value:.2f} | {value / total:.1%} |" if unit == "s" else
                    f"| {stage} | {value:,.0f} | {value / total:.1%} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bough-bench")
    parser.add_argument("--history", choices=sorted(bench.HISTORIES), default="realcode")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--project", help="a project directory of the history (its mangled cwd), or how its name "
                                           "ends (default: the whole history)")
    parser.add_argument("--rebuild", action="store_true",
                        help="profile the no-change rebuild instead: a cold build first (-j 0, not profiled)")
    parser.add_argument("--out", type=Path, help="where the raw profiles go (default: profiles/ in the work directory)")
    parser.add_argument("--name", help="the profiles' file name (default: HISTORY-PROJECT)")
    parser.add_argument("--py-spy", type=Path, help="also sample the build with this py-spy")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--reuse", action="store_true", help="analyse the profiles already in --out, if there")
    args = parser.parse_args()

    work = args.work.resolve()
    args.out = args.out or work / "profiles"
    env = bench.environment(work)
    projects, _facts = bench.generate(work, args.history, tiny=args.tiny)
    name = args.name or "-".join([args.history + ("-tiny" if args.tiny else ""),
                                  *([args.project.strip("-")] if args.project else []),
                                  *(["rebuild"] if args.rebuild else [])])
    place = work / f"profile-{name}"
    source = project_tree(projects, args.project, place)
    facts = bench.describe(source)
    args.out.mkdir(parents=True, exist_ok=True)
    argv, out, archive = build_argv(source, place)

    def prepare() -> None:
        """Empty OUT and the archive; for a rebuild, build them once, cold."""
        fresh(out, archive)
        if args.rebuild:
            cold = [*argv[:-1], "0"]  # -j 0
            subprocess.run([sys.executable, *cold], env=env, check=True, stderr=subprocess.DEVNULL)
            time.sleep(0.05)

    what = "the no-change rebuild" if args.rebuild else "cold"
    pstats_file = args.out / f"{name}.pstats"
    profiled = 0.0
    if not (args.reuse and pstats_file.is_file()):
        prepare()
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(pstats_file), *argv], env=env, check=True)
        profiled = time.monotonic() - started
    stats = pstats.Stats(str(pstats_file))
    wall = stats.total_tt
    print(f"## {name}: {facts['mb']} MB, {facts['session_files']} sessions, {facts['files']} files; "
          f"`bough build -j 1`, {what}, under cProfile: {profiled:.1f} s wall ({wall:.1f} s profiled)\n")
    print(f"### top {args.top} by cumulative time\n\n```\n{top(pstats_file, 'cumulative', args.top)}\n```\n")
    print(f"### top {args.top} by own time\n\n```\n{top(pstats_file, 'tottime', args.top)}\n```\n")
    split = cprofile_split(stats)
    print(f"### the split (cProfile, own time by stage; stdlib and C to their callers)\n\n"
          f"{show(split, 's', sum(split.values()))}\n")

    if args.py_spy:
        raw = args.out / f"{name}.pyspy.txt"
        sampled = 0.0
        if not (args.reuse and raw.is_file()):
            prepare()
            started = time.monotonic()
            subprocess.run([str(args.py_spy), "record", "--idle", "-r", "250", "-f", "raw", "-o", str(raw), "--",
                            sys.executable, *argv], env=env, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            sampled = time.monotonic() - started
        samples, total = pyspy_split(raw)
        print(f"### the split (py-spy, {total:,} samples at 250 Hz, idle included; the build took {sampled:.1f} s "
              f"wall under it)\n\n{show(samples, 'samples', total)}\n")
    fresh(out, archive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
