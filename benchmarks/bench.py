#!/usr/bin/env python3
"""bough against its peers, on the same generated history, in one run.

    python3 benchmarks/bench.py [--install-peers] [--rounds 3] [--scale full]

Generates a Claude Code history with bough's corpus generator (fixed seed;
``--scale full`` is the shape of one measured heavy history: about 275 MB,
77k lines, 6 projects, 30 session files, resumed sessions that replay their
parent, large tool outputs), then, for several rounds, alternating the order:

- the floor: read and ``orjson``-parse every line of the input once;
- bough, cold (empty OUT), with every page feature on;
- ``claude-code-log`` 1.7.0 and ``claude-code-transcripts`` 0.6, when their
  virtual environments exist (``--install-peers`` makes them, from PyPI);
- bough again on its own output: no change, then one session grown by one turn
  (which files it rewrote is checked by their mtimes).

It prints the median wall time, the max RSS (the largest process, from
``wait4``) and the peak RSS of all the run's processes together (sampled from
/proc), the output size, and the ratios. ``--double`` also builds a history
twice as large (time and memory must scale at most linearly and stay flat);
``--big-session MB`` builds one session file of that size (mostly replayed
records and large outputs). ``--json FILE`` keeps the numbers.

Nothing here reads ~/.claude or ~/.codex: every tool runs with HOME pointed
into the work directory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED = 20260301
SCALES = {
    # name: (projects, sessions per project, turns per session, output KB)
    "full": (6, 5, 203, 9),  # ~267 MB, ~77k lines: the measured history's shape
    "double": (6, 10, 203, 9),  # twice the sessions of "full"
    "small": (3, 3, 60, 6),
    "tiny": (2, 2, 4, 1),
}
PEERS = {
    "claude-code-log": "claude-code-log==1.7.0",
    "claude-code-transcripts": "claude-code-transcripts==0.6",
}


@dataclass
class Run:
    tool: str
    wall: float
    max_rss_mb: float  # the largest single process
    peak_total_mb: float  # all the run's processes at once (sampled)
    out_mb: float  # the site (bough's own .bough-* files apart: state_mb)
    ok: bool
    note: str = ""
    stderr_tail: str = ""
    state_mb: float = 0.0


@dataclass
class Results:
    machine: dict
    history: dict
    runs: list[Run] = field(default_factory=list)
    incremental: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- inputs


def generate(work: Path, scale: str) -> Path:
    """The history for ``scale``, generated once (a stamp file says which)."""
    projects, sessions, turns, output_kb = SCALES[scale]
    root = work / f"history-{scale}"
    stamp = root / ".params"
    wanted = json.dumps([SEED, projects, sessions, turns, output_kb])
    if stamp.is_file() and stamp.read_text() == wanted:
        return root / "projects"
    shutil.rmtree(root, ignore_errors=True)
    from corpus.claude import generate_claude_history

    started = time.monotonic()
    generate_claude_history(root, seed=SEED, projects=projects, sessions_per_project=sessions,
                            turns_per_session=turns, output_kb=output_kb)
    stamp.write_text(wanted)
    print(f"generated {scale} history in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return root / "projects"


def describe(projects: Path) -> dict:
    files = sorted(projects.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in files)
    lines = 0
    for path in files:
        with open(path, "rb") as handle:
            lines += sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    mains = [p for p in files if p.parent.parent == projects and not p.name.startswith("agent-")]
    cwds = set()
    for path in mains:
        with open(path, "rb") as handle:
            for line in handle:
                if b'"cwd":"' in line:
                    cwds.add(line.split(b'"cwd":"', 1)[1].split(b'"', 1)[0])
                    break
    return {"bytes": size, "mb": round(size / 1e6, 1), "lines": lines, "files": len(files),
            "session_files": len(mains), "projects": len(cwds)}


FLOOR = """
import sys, orjson
from pathlib import Path
n = 0
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(path, "rb") as handle:
        for line in handle:
            try:
                orjson.loads(line)
                n += 1
            except orjson.JSONDecodeError:
                pass
print(n)
"""


# --------------------------------------------------------------------------- running


def measure(tool: str, argv: list[str], out: Path | None, env: dict[str, str]) -> Run:
    """Run argv, timing it and sampling the memory of its whole process tree."""
    if out is not None:
        shutil.rmtree(out, ignore_errors=True)
    peak = [0]
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()
    sampler = threading.Thread(target=_sample, args=(proc.pid, peak, stop), daemon=True)
    sampler.start()
    stderr_chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read()), daemon=True)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    sampler.join()
    reader.join()
    note = b"".join(stderr_chunks).decode("utf-8", "replace").strip().splitlines()
    size = _tree_size(out) if out is not None else 0
    state = _tree_size(out, state=True) if out is not None else 0
    return Run(tool, wall, usage.ru_maxrss / 1024, peak[0] / 1024, size / 1e6, proc.returncode == 0,
               "" if proc.returncode == 0 else (note[-1] if note else f"exit {proc.returncode}"),
               " / ".join(line.strip() for line in note[-2:])[:300], state / 1e6)


def _sample(pid: int, peak: list[int], stop: threading.Event) -> None:
    while not stop.is_set():
        total = sum(_rss_kb(p) for p in _tree(pid))
        peak[0] = max(peak[0], total)
        stop.wait(0.02)


def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _tree_size(folder: Path, *, state: bool = False) -> int:
    """Bytes of the site under folder, or (``state``) of bough's own files there:
    ``.bough-manifest.json`` and ``.bough-state/`` (summaries, digests, each
    session's highlighted blocks), which are not the site and need not be published."""
    total = 0
    for top, dirs, files in os.walk(folder):
        inside = os.path.relpath(top, folder).split(os.sep)[0].startswith(".bough-")
        for name in files:
            if (inside or name.startswith(".bough-")) == state:
                try:
                    total += os.lstat(os.path.join(top, name)).st_size
                except OSError:
                    pass
    return total


def environment(work: Path) -> dict[str, str]:
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "GEMINI", "BOUGH"))}
    # As installed: modules compiled once, not at every start (a no-change build is ~0.2 s).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"),
               CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"),
               BOUGH_REDACTION_KEY="benchmark", PYTHONPATH=str(ROOT))
    return env


def bough_argv(projects: Path, out: Path, jobs: int, extra: list[str] | None = None) -> list[str]:
    return [sys.executable, "-m", "bough_site.cli", "build", str(projects), "-o", str(out), "-q",
            "--no-archive", "-j", str(jobs), *(extra or [])]


def peer_argv(work: Path, peer: str, projects: Path, out: Path) -> list[str] | None:
    exe = work / "venvs" / peer / "bin" / peer
    if not exe.exists():
        return None
    if peer == "claude-code-log":
        return [str(exe), "--all-projects", "--projects-dir", str(projects), "-o", str(out), "--no-cache"]
    return [str(exe), "all", "-s", str(projects), "-o", str(out), "-q"]


def install_peers(work: Path) -> None:
    for peer, requirement in PEERS.items():
        venv = work / "venvs" / peer
        if (venv / "bin" / peer).exists():
            continue
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", requirement], check=True)


# --------------------------------------------------------------------------- incremental


def incremental(projects: Path, out: Path, jobs: int, env: dict[str, str], extra: list[str] | None = None) -> dict:
    """A cold build, a no-change rebuild, then one session grown by one turn
    (the largest session, then one of median size): times, and which files each
    rebuild rewrote (by mtime). Each grown file is put back as it was after."""
    result: dict = {}
    argv = bough_argv(projects, out, jobs, extra)
    result["cold_s"] = measure("bough cold", argv, out, env).wall
    mark = time.time()
    time.sleep(0.05)
    again = measure("bough no change", argv, None, env)
    result["no_change_s"] = again.wall
    result["no_change_max_rss_mb"] = again.max_rss_mb
    result["no_change_rewrote"] = sorted(_newer(out, mark))
    for which, target in _grow_targets(projects).items():
        size, stat = target.stat().st_size, target.stat()
        mark = time.time()
        time.sleep(0.05)
        try:
            with open(target, "ab") as handle:
                handle.write(_one_turn(target))
            grown = measure("bough one turn appended", argv, None, env)
        finally:
            with open(target, "r+b") as handle:
                handle.truncate(size)
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        result[f"append_{which}_s"] = grown.wall
        result[f"append_{which}_rewrote"] = sorted(_newer(out, mark))
        result[f"append_{which}_session"] = {"id": target.stem, "mb": round(size / 1e6, 1)}
        measure("bough (back as it was)", argv, None, env)
    return result


def _one_turn(target: Path) -> bytes:
    import orjson

    last = next(orjson.loads(line) for line in reversed(target.read_bytes().splitlines()[-50:])
                if line.startswith(b"{") and b'"cwd"' in line)
    common = {"parentUuid": None, "sessionId": last["sessionId"], "cwd": last["cwd"]}
    turn = [
        {"type": "user", "uuid": "bench0000-0000-4000-8000-000000000001", **common,
         "timestamp": "2027-01-01T00:00:00.000Z", "message": {"role": "user", "content": "one more thing"}},
        {"type": "assistant", "uuid": "bench0000-0000-4000-8000-000000000002", **common,
         "timestamp": "2027-01-01T00:00:01.000Z",
         "message": {"id": "msg_bench", "role": "assistant", "model": "claude-opus-4-6", "type": "message",
                     "content": [{"type": "text", "text": "Done."}],
                     "usage": {"input_tokens": 3, "output_tokens": 5}}},
    ]
    return b"".join(orjson.dumps(record) + b"\n" for record in turn)


def _grow_targets(projects: Path) -> dict[str, Path]:
    """Main session files that end with a complete line: the largest, and one of median size."""
    mains = []
    for path in sorted(p for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-")):
        with open(path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                mains.append(path)
    if not mains:
        raise SystemExit("no session file ends with a complete line")
    mains.sort(key=lambda p: (p.stat().st_size, p.name))
    return {"largest": mains[-1], "median": mains[len(mains) // 2]}


def _newer(out: Path, since: float) -> list[str]:
    found = []
    for top, _dirs, files in os.walk(out):
        for name in files:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, out)
            if not rel.split(os.sep)[0].startswith(".bough-") and os.lstat(path).st_mtime > since:
                found.append(rel.replace(os.sep, "/"))
    return found


# --------------------------------------------------------------------------- the big session


def big_session(work: Path, megabytes: int) -> Path:
    """One session file of about ``megabytes`` MB: a long session with large
    outputs, then its own records written again (replays), as Claude Code does
    when a session is resumed in place."""
    root = work / f"history-big-{megabytes}"
    stamp = root / ".params"
    if stamp.is_file() and stamp.read_text() == str(megabytes):
        return root / "projects"
    shutil.rmtree(root, ignore_errors=True)
    from corpus.claude import generate_claude_history

    turns = max(4, megabytes // 4)
    generate_claude_history(root, seed=SEED, projects=1, sessions_per_project=1, turns_per_session=turns,
                            output_kb=64)
    [main] = [p for p in (root / "projects").glob("*/*.jsonl") if not p.name.startswith("agent-")]
    data = main.read_bytes()
    body = data if data.endswith(b"\n") else data[: data.rfind(b"\n") + 1]
    copies = max(0, megabytes * 1_000_000 // max(len(body), 1) - 1)
    with open(main, "wb") as handle:
        handle.write(body)
        handle.writelines(body for _ in range(copies))
    stamp.write_text(str(megabytes))
    return root / "projects"


# --------------------------------------------------------------------------- report


def table(results: Results) -> str:
    by_tool: dict[str, list[Run]] = {}
    for run in results.runs:
        by_tool.setdefault(run.tool, []).append(run)
    rows = []
    bough = _median(by_tool.get("bough", []), "wall")
    for tool, runs in by_tool.items():
        ok = [r for r in runs if r.ok]
        if not ok:
            rows.append(f"| {tool} | failed: {runs[-1].note} | | | | | |")
            continue
        wall = _median(ok, "wall")
        ratio = f"{wall / bough:.1f}x bough" if bough and tool != "bough" else ""
        state = _median(ok, "state_mb")
        rows.append(f"| {tool} | {wall:.2f} s | {_median(ok, 'max_rss_mb'):.0f} MB | "
                    f"{_median(ok, 'peak_total_mb'):.0f} MB | {_median(ok, 'out_mb'):.0f} MB | "
                    f"{f'{state:.0f} MB' if state else ''} | {ratio} |")
    head = ("| tool | median wall | max RSS (largest process) | peak RSS (all processes) | output (site) "
            "| bough's state | vs bough |\n|---|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


def _median(runs: list[Run], name: str) -> float:
    values = [getattr(r, name) for r in runs]
    return statistics.median(values) if values else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bough-bench",
                        help="where histories, outputs and peer venvs go (default: a folder in the temp dir)")
    parser.add_argument("--scale", choices=sorted(SCALES), default="full")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-j", "--jobs", type=int, default=0, help="bough's -j (0: all cores)")
    parser.add_argument("--install-peers", action="store_true", help="pip-install the peers into their own venvs")
    parser.add_argument("--no-peers", action="store_true", help="run bough (and the floor) only")
    parser.add_argument("--no-incremental", action="store_true")
    parser.add_argument("--double", action="store_true", help="also build a history twice as large")
    parser.add_argument("--big-session", type=int, metavar="MB", default=0,
                        help="also build one session file of this size")
    parser.add_argument("--variant", action="append", default=[], metavar="ARGS",
                        help='also run bough with these extra options, e.g. --variant="--no-search" (repeatable)')
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.install_peers and not args.no_peers:
        install_peers(work)
    env = environment(work)
    projects = generate(work, args.scale)
    results = Results(
        machine={"date": time.strftime("%Y-%m-%d %H:%M %Z"), "cpus": os.cpu_count(), "python": platform.python_version(),
                 "platform": platform.platform(), "load_before": os.getloadavg()},
        history={"scale": args.scale, "seed": SEED, **describe(projects)},
    )
    print(f"history: {results.history}", file=sys.stderr)
    variants = {f"bough {v}": v.split() for v in args.variant}
    tools = ["floor", "bough", *variants]
    tools += [] if args.no_peers else [p for p in PEERS if peer_argv(work, p, projects, work)]
    for number in range(args.rounds):
        order = tools[number % len(tools):] + tools[: number % len(tools)]  # alternate who goes first
        for tool in order:
            out = work / "out" / tool
            if tool == "floor":
                run = measure("floor", [sys.executable, "-c", FLOOR, str(projects)], None, env)
            elif tool == "bough":
                run = measure("bough", bough_argv(projects, out, args.jobs), out, env)
            elif tool in variants:
                out = work / "out" / tool.replace(" ", "_").replace("-", "")
                run = measure(tool, bough_argv(projects, out, args.jobs, variants[tool]), out, env)
            else:
                run = measure(tool, peer_argv(work, tool, projects, out), out, env)
                if run.ok and run.out_mb < 0.01 * results.history["mb"]:
                    run.ok, run.note = False, "wrote almost nothing"
                    run.note += f" ({run.stderr_tail})" if run.stderr_tail else ""
            results.runs.append(run)
            print(f"round {number + 1}: {tool}: {run.wall:.2f} s, {run.max_rss_mb:.0f} MB, "
                  f"{run.out_mb:.0f} MB out{'' if run.ok else ' FAILED ' + run.note}", file=sys.stderr)
    if not args.no_incremental:
        results.incremental = incremental(projects, work / "out" / "incremental", args.jobs, env)
        for name, extra in variants.items():
            results.incremental[name] = incremental(projects, work / "out" / "incremental-variant", args.jobs,
                                                    env, extra)
    if args.double:
        doubled = generate(work, "double")
        runs = [measure("bough (double)", bough_argv(doubled, work / "out" / "double", args.jobs),
                        work / "out" / "double", env) for _ in range(max(1, args.rounds // 2))]
        results.runs.extend(runs)
        results.extra["double_history"] = describe(doubled)
    if args.big_session:
        big = big_session(work, args.big_session)
        run = measure("bough (one big session)", bough_argv(big, work / "out" / "big", args.jobs),
                      work / "out" / "big", env)
        results.runs.append(run)
        pages = sorted((work / "out" / "big").glob("projects/*/sessions/*.html"))
        results.extra["big_session"] = {**describe(big), "pages": len(pages)}

    print(table(results))
    floor = _median([r for r in results.runs if r.tool == "floor"], "wall")
    bough = _median([r for r in results.runs if r.tool == "bough" and r.ok], "wall")
    if floor and bough:
        print(f"\nbough / floor: {bough / floor:.1f}x (floor {floor:.2f} s); "
              f"output / input: {_median([r for r in results.runs if r.tool == 'bough'], 'out_mb') / results.history['mb']:.2f}")
    if results.incremental:
        for name, inc in [("bough", results.incremental),
                          *((k, v) for k, v in results.incremental.items() if k in variants)]:
            print(f"{name}: no-change rebuild: {inc['no_change_s']:.2f} s, rewrote {len(inc['no_change_rewrote'])} "
                  "files; one turn appended to the largest session "
                  f"({inc['append_largest_session']['mb']} MB): {inc['append_largest_s']:.2f} s, to a median one "
                  f"({inc['append_median_session']['mb']} MB): {inc['append_median_s']:.2f} s; rewrote "
                  f"{[n for n in inc['append_median_rewrote'] if not n.startswith('pagefind/')]} "
                  f"and {sum(n.startswith('pagefind/') for n in inc['append_median_rewrote'])} search index files")
    for name, value in results.extra.items():
        print(f"{name}: {value}")
    if args.json:
        args.json.write_text(json.dumps({**asdict(results)}, indent=2) + "\n")
    return 0 if all(r.ok for r in results.runs if r.tool in ("bough", "floor")) else 1


if __name__ == "__main__":
    sys.exit(main())
