#!/usr/bin/env python3
"""bough against its peers, on generated Claude Code histories, in one run.

    python3 benchmarks/bench.py --install-peers        # once: the peers' venvs, from PyPI
    python3 benchmarks/bench.py --history realcode,wide,many2k,many20k --rounds 3 \\
        --variant="--highlight-limit 0" --json results.json

Each history (``--history``, several at once; see HISTORIES and docs/performance.md,
"The benchmark") is generated once with bough's corpus generator (fixed seed) and
kept in the work directory. On a history that is built (every one but the
``many*`` ones), for several rounds, alternating who goes first:

- the floor: read and ``orjson``-parse every line of the input once;
- bough, cold (empty OUT, empty archive), all options at their defaults (search
  and archive on, all cores), and each ``--variant`` (bough with extra options);
- ``claude-code-log`` 1.7.0 as a user runs it, its cache on and empty (its
  ``claude-code-log-cache.db`` in the projects folder is removed before and after
  each run): its default (a combined page per project and the session pages), and
  ``--combined no``, the same pages as bough's, the reference the targets are
  stated against (``--no-cache`` writes no session pages at all: not the same
  work); and ``claude-code-transcripts`` 0.6; when their virtual environments
  exist (``--install-peers`` makes them).

Then, for bough and each variant, on a copy of the history (hard links but for the
files that grow): a cold build, the no-change rebuild (``--rounds`` times), and one
turn appended to a session of median size, then to the largest, then to the one
that started last (which files each rewrote, by mtime). ``--check-bytes`` then builds the grown copy fresh, at the
default ``-j`` and at ``-j 1``, and compares the sites' bytes with the incremental
one. Last, the history as Claude Code's cleanup leaves it after years: nine in ten
session files deleted from the copy, a build reading them from bough's archive, and
one more turn appended to the median session. On a ``many*`` history (thousands of
tiny sessions) only that sequence runs, without the appends: one cold build
(information) and the no-change rebuilds.

Per run, taken by a small process that forks the tool and waits for it (so that
nothing of this one's memory is counted): wall time; CPU time, user + system of
the tool's process and all its descendants (``os.wait4``'s rusage includes every
descendant it waited for: bough's worker pool and Pagefind); the max RSS (the
largest single process, from the same rusage); the peak RSS of all the run's processes together
and, as a check of the CPU figure, the CPU time of every process seen, both
sampled from /proc; the size of the output (the site, and bough's own state
apart). A run that fails (an option bough does not know) is reported as failed.

It prints one Markdown table per history, ready for docs/performance.md, and how
each measures up to the targets of issues #12 and #40. ``--json FILE`` keeps everything.
Nothing here reads ~/.claude, ~/.codex or bough's real archive: every tool runs
with HOME in the work directory, and bough with an archive of its own per run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED = 20260301
PEERS = {
    "claude-code-log": "claude-code-log==1.7.0",
    "claude-code-transcripts": "claude-code-transcripts==0.6",
}
# Each peer run: (its venv, its options). The cache file claude-code-log writes
# into the projects folder is removed before and after each of its runs.
PEER_RUNS = {
    "claude-code-log": ("claude-code-log", []),
    "claude-code-log --combined no": ("claude-code-log", ["--combined", "no"]),
    "claude-code-transcripts": ("claude-code-transcripts", []),
}
REFERENCE_PEER = "claude-code-log --combined no"  # the same pages: the targets are stated against it
PEER_CACHE = "claude-code-log-cache.db"


@dataclass(frozen=True)
class History:
    """A generated history: ``shape`` is corpus.claude.generate_claude_history's
    keywords, ``tiny`` the same at a size that only proves the plumbing."""

    about: str
    shape: dict[str, int]
    tiny: dict[str, int]
    real: bool = False  # Read results are real files (corpus/realcode.py)
    rebuild_only: bool = False  # measured: one cold build and the no-change rebuild
    no_change_target: float = 0.5  # seconds (issue #12)
    append_target: float = 1.0  # seconds, search on (issue #12; #40 at 18,000 sessions)


_TINY = {"projects": 2, "sessions_per_project": 2, "turns_per_session": 4, "output_kb": 1}
HISTORIES: dict[str, History] = {
    "realcode": History(
        "the one to judge by: 6 projects x 3 long sessions (the second of each a resume that replays the "
        "first); Read results are real standard-library files, about 40% re-reads",
        {"projects": 6, "sessions_per_project": 3, "turns_per_session": 200, "output_kb": 9},
        {**_TINY, "turns_per_session": 6}, real=True),
    "wide": History(
        "1,800 short sessions in 6 projects (one in three with sub-agents, compaction and the other "
        "traps); real-file Reads",
        {"projects": 6, "sessions_per_project": 300, "turns_per_session": 1, "output_kb": 1, "traps_every": 3},
        {"projects": 6, "sessions_per_project": 4, "turns_per_session": 1, "output_kb": 1, "traps_every": 3},
        real=True),
    "wide18k": History(
        "years of history: 18,000 short sessions in 6 projects of 3,000 (wide's shape, ten times over)",
        {"projects": 6, "sessions_per_project": 3000, "turns_per_session": 1, "output_kb": 1, "traps_every": 3},
        {"projects": 2, "sessions_per_project": 30, "turns_per_session": 1, "output_kb": 1, "traps_every": 3},
        real=True, no_change_target=1.0, append_target=2.0),
    "heavy": History(
        "one project of 40 long sessions (60 turns, five a month): search bundles cut by items, not by "
        "sessions; real-file Reads",
        {"projects": 1, "sessions_per_project": 40, "turns_per_session": 60, "output_kb": 6, "traps_every": 3},
        {"projects": 1, "sessions_per_project": 4, "turns_per_session": 6, "output_kb": 1, "traps_every": 3},
        real=True),
    "many2k": History(
        "2,000 tiny sessions (one turn, a few records) in 10 projects: the no-change rebuild",
        {"projects": 10, "sessions_per_project": 200, "turns_per_session": 1, "output_kb": 0, "traps_every": 0},
        {"projects": 2, "sessions_per_project": 10, "turns_per_session": 1, "output_kb": 0, "traps_every": 0},
        rebuild_only=True),
    "many20k": History(
        "20,000 tiny sessions in 10 projects: the no-change rebuild",
        {"projects": 10, "sessions_per_project": 2000, "turns_per_session": 1, "output_kb": 0, "traps_every": 0},
        {"projects": 2, "sessions_per_project": 40, "turns_per_session": 1, "output_kb": 0, "traps_every": 0},
        rebuild_only=True, no_change_target=2.0),
    "full": History(
        "generated text in every tool output (Reads too): 6 projects x 5 sessions x 203 turns, "
        "outputs of about 9 KB; the second session of each project a resume",
        {"projects": 6, "sessions_per_project": 5, "turns_per_session": 203, "output_kb": 9}, _TINY),
    "double": History("twice the sessions of full",
                      {"projects": 6, "sessions_per_project": 10, "turns_per_session": 203, "output_kb": 9},
                      {**_TINY, "sessions_per_project": 4}),
    "small": History("full, smaller", {"projects": 3, "sessions_per_project": 3, "turns_per_session": 60,
                                        "output_kb": 6}, _TINY),
    "tiny": History("full at its tiny size", _TINY, _TINY),
}
BUILT = ("realcode", "wide", "wide18k", "heavy", "full", "double", "small", "tiny")


@dataclass
class Run:
    tool: str
    wall: float
    cpu: float  # user + system of the process and every descendant it waited for (wait4)
    cpu_sampled: float  # the same summed over every process seen in /proc (a check; misses the last ~20 ms of each)
    processes: int  # how many processes of the run the sampler saw
    max_rss_mb: float  # the largest single process
    peak_total_mb: float  # all the run's processes at once (sampled)
    out_mb: float  # the site (bough's own .bough-* files apart: state_mb)
    ok: bool
    note: str = ""
    stderr_tail: str = ""
    state_mb: float = 0.0
    files: int = 0  # files of the site
    seen: dict[str, int] = field(default_factory=dict)  # command name -> processes of the run with it


@dataclass
class HistoryResults:
    name: str
    about: str
    facts: dict
    runs: list[Run] = field(default_factory=list)
    incremental: dict[str, dict] = field(default_factory=dict)  # tool -> its sequence


@dataclass
class Results:
    machine: dict
    command: list[str]
    histories: dict[str, HistoryResults] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- inputs


def _generator_digest() -> str:
    """A history is made again when the generator's code changed."""
    h = hashlib.sha256()
    for name in ("claude.py", "realcode.py"):
        h.update((ROOT / "corpus" / name).read_bytes())
    return h.hexdigest()[:16]


def generate(work: Path, name: str, *, tiny: bool) -> tuple[Path, dict]:
    """The history ``name`` (generated once; a stamp file says with what) and
    what the generator knows of it."""
    from corpus.claude import generate_claude_history
    from corpus.realcode import RealFiles

    history = HISTORIES[name]
    shape = history.tiny if tiny else history.shape
    real = RealFiles.stdlib() if history.real else None
    root = work / f"history-{name}{'-tiny' if tiny else ''}"
    stamp, facts_file = root / ".params", root / ".facts.json"
    wanted = json.dumps([SEED, shape, _generator_digest(), real.digest() if real else None])
    if stamp.is_file() and stamp.read_text() == wanted and facts_file.is_file():
        return root / "projects", {**json.loads(facts_file.read_text()), "tiny": tiny}
    shutil.rmtree(root, ignore_errors=True)
    started = time.monotonic()
    expected = generate_claude_history(root, seed=SEED, real_files=real, **shape)
    facts = {"seed": SEED, "shape": shape, "tiny": tiny, "sessions": len(expected.sessions), "reads": expected.reads,
             "rereads": expected.rereads, "real_files": len(real.names) if real else 0,
             "real_root": str(real.root) if real else None}
    facts_file.write_text(json.dumps(facts))
    stamp.write_text(wanted)
    print(f"generated {name} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return root / "projects", facts


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


# The run, forked from a small process of its own that times it and reports its
# rusage: subprocess starts a command by vfork and exec, and exec keeps the largest
# resident size of the memory it replaced, so wait4 here would report this
# process's own peak (a history generated here: hundreds of MB) for every tool.
_MEASURED = """
import os, sys, time
started = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_pid, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{time.monotonic() - started} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def measure(tool: str, argv: list[str], out: Path | None, env: dict[str, str], *,
            fresh: list[Path] = ()) -> Run:
    """Run argv, timing it and sampling its whole process tree; ``out`` and the
    ``fresh`` folders are emptied first."""
    for folder in [*([out] if out is not None else []), *fresh]:
        shutil.rmtree(folder, ignore_errors=True)
    with tempfile.NamedTemporaryFile(prefix="bench-rusage-") as told:
        proc = subprocess.Popen([sys.executable, "-c", _MEASURED, told.name, *argv], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        sampler = _Sampler(proc.pid)
        sampler.start()
        stderr_chunks: list[bytes] = []
        reader = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read()), daemon=True)
        reader.start()
        proc.wait()
        sampler.stop.set()
        sampler.join()
        reader.join()
        wall, cpu, max_rss_kb = (float(v) for v in (Path(told.name).read_text() or "0 0 0").split())
    note = b"".join(stderr_chunks).decode("utf-8", "replace").strip().splitlines()
    size, files = _tree_size(out) if out is not None else (0, 0)
    state, _ = _tree_size(out, state=True) if out is not None else (0, 0)
    ok = proc.returncode == 0
    return Run(tool, wall, cpu, sampler.cpu_seconds(), len(sampler.cpu),
               max_rss_kb / 1024, sampler.peak_kb / 1024, size / 1e6, ok,
               "" if ok else (note[-1] if note else f"exit {proc.returncode}"),
               " / ".join(line.strip() for line in note[-2:])[:300], state / 1e6, files, sampler.seen())


_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


class _Sampler(threading.Thread):
    """Every 20 ms, the RSS of the run's processes together and each one's CPU
    time; every 200 ms, which processes the run has (a scan of all /proc: about
    4 ms with 170 processes, so the sampler costs some 2% of one core)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.stop = threading.Event()
        self.peak_kb = 0
        self.cpu: dict[int, int] = {}  # pid -> the last utime + stime seen, in ticks
        self.names: dict[int, str] = {}  # pid -> its command name (Pagefind, python3...)

    def run(self) -> None:
        known, tick = [self.pid], 0
        while not self.stop.is_set():
            if tick % 10 == 0:
                known = _tree(self.pid)
            total = 0
            for pid in known:
                stat = _stat(pid)
                if stat is not None:
                    total += stat[0]
                    self.cpu[pid] = max(self.cpu.get(pid, 0), stat[1])
                    if pid not in self.names:
                        self.names[pid] = _command_name(pid)
            self.peak_kb = max(self.peak_kb, total)
            tick += 1
            self.stop.wait(0.02)

    def cpu_seconds(self) -> float:
        return sum(self.cpu.values()) / _TICKS

    def seen(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for name in self.names.values():
            counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items()))


def _command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", "rb") as handle:
            return handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return "?"


def _stat(pid: int) -> tuple[int, int] | None:
    """(RSS in KB, utime + stime in ticks) of one process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[21]) * _PAGE_KB, int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


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


def _site_files(folder: Path, *, state: bool = False):
    """(relative path, full path) of the site's files under folder, or
    (``state``) of bough's own: ``.bough-manifest.json`` and ``.bough-state/``
    (summaries, digests, each session's highlighted blocks), not the site."""
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        rel_top = os.path.relpath(top, folder)
        inside = rel_top.split(os.sep)[0].startswith(".bough-")
        for name in sorted(files):
            if (inside or name.startswith(".bough-")) == state:
                yield os.path.normpath(os.path.join(rel_top, name)), os.path.join(top, name)


def _tree_size(folder: Path, *, state: bool = False) -> tuple[int, int]:
    total = count = 0
    for _, path in _site_files(folder, state=state):
        try:
            total += os.lstat(path).st_size
            count += 1
        except OSError:
            pass
    return total, count


def site_digest(folder: Path) -> str:
    """The site's bytes (names and contents), bough's own state apart."""
    h = hashlib.sha256()
    for rel, path in _site_files(folder):
        h.update(rel.encode() + b"\0")
        with open(path, "rb") as handle:
            h.update(hashlib.sha256(handle.read()).digest())
    return h.hexdigest()[:16]


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


def bough_argv(projects: Path, out: Path, archive: Path, jobs: int, extra: list[str] | None = None) -> list[str]:
    """bough with its defaults (search and archive on), an archive of its own
    (none for a ``--no-archive`` variant: bough refuses both options at once)."""
    extra = extra or []
    place = [] if "--no-archive" in extra else ["--archive", str(archive)]
    return [sys.executable, "-m", "bough_site.cli", "build", str(projects), "-o", str(out), "-q",
            *place, "-j", str(jobs), *extra]


def peer_argv(work: Path, peer: str, projects: Path, out: Path) -> list[str] | None:
    venv, options = PEER_RUNS[peer]
    exe = work / "venvs" / venv / "bin" / venv
    if not exe.exists():
        return None
    if venv == "claude-code-log":
        return [str(exe), "--all-projects", "--projects-dir", str(projects), "-o", str(out), *options]
    return [str(exe), "all", "-s", str(projects), "-o", str(out), "-q", *options]


def _without_peer_cache(projects: Path) -> None:
    """claude-code-log's cache, empty for each run as on a first use, and gone after
    (the history is shared by every run)."""
    for path in projects.glob(PEER_CACHE + "*"):
        path.unlink()


def install_peers(work: Path) -> None:
    for peer, requirement in PEERS.items():
        venv = work / "venvs" / peer
        if (venv / "bin" / peer).exists():
            continue
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", requirement], check=True)


def _remove_runs(work: Path, name: str) -> None:
    """Remove a history's built sites (runs-NAME/). Only before the first run and after
    the last: on ext4, files made within a minute or more of deleting thousands are
    made slowly (the inode allocator passes over each recently deleted inode, its
    table block read for it), which made a run right after another's deletion
    10-20 s slower in system time (docs/performance.md, "Files created")."""
    shutil.rmtree(work / f"runs-{name}", ignore_errors=True)


def slug(tool: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", tool).strip("_") or "tool"


# --------------------------------------------------------------------------- incremental


def incremental(projects: Path, work: Path, tool: str, jobs: int, env: dict[str, str], extra: list[str], *,
                rounds: int, appends: bool, check_bytes: bool) -> dict:
    """On a copy of the history: a cold build, the no-change rebuild (``rounds``
    times), then (``appends``) one turn appended to a session of median size, to
    the largest and to the one that started last; which files each rewrote (by mtime). The copy is hard links
    but for the files that grow, so the history itself never changes."""
    targets = _grow_targets(projects) if appends else {}
    place = work / "incremental" / slug(tool)
    tree, out, archive = place / "projects", place / "out", place / "archive"
    _link_tree(projects, tree, set(targets.values()))
    argv = bough_argv(tree, out, archive, jobs, extra)
    cold = measure(f"{tool} cold", argv, out, env, fresh=[archive])
    result: dict[str, Any] = {"cold": asdict(cold)}
    if not cold.ok:
        result["failed"] = cold.note
        return result
    cold_digest = site_digest(out)
    changes = []
    for number in range(max(1, rounds)):
        mark = _mark()
        again = measure(f"{tool} no change", argv, None, env)
        changes.append({"wall": again.wall, "cpu": again.cpu, "max_rss_mb": again.max_rss_mb, "ok": again.ok,
                        "rewrote": _newer(out, mark), "note": again.note})
    result["no_change"] = {"runs": changes, "wall": statistics.median(c["wall"] for c in changes),
                           "cpu": statistics.median(c["cpu"] for c in changes),
                           "max_rss_mb": max(c["max_rss_mb"] for c in changes),
                           "ok": all(c["ok"] for c in changes),
                           "rewrote": sorted({n for c in changes for n in c["rewrote"]}),
                           "same_site": site_digest(out) == cold_digest}
    for which, original in targets.items():
        result[f"append_{which}"] = _append(tree / original.relative_to(projects), which, argv, tool, out, env)
    if check_bytes:
        result["check"] = _check_bytes(tree, out, place, tool, jobs, env, extra)
    if targets:
        result.update(_after_cleanup(tree, tree / targets["median"].relative_to(projects), argv, tool, out, env))
    return result


# The appends measured, by their key in the results.
APPENDS = {"median": "a median session", "largest": "the largest session",
           "newest": "the session that started last",
           "cleanup": "a median session, 90% of sessions in the archive alone"}


def _append(target: Path, which: str, argv: list[str], tool: str, out: Path, env: dict[str, str]) -> dict:
    """One turn appended to ``target``, and the build after it: its time, memory and the files it rewrote."""
    size = target.stat().st_size
    mark = _mark()
    with open(target, "ab") as handle:
        handle.write(_one_turn(target, which))
    grown = measure(f"{tool} one turn appended", argv, None, env)
    rewrote = _newer(out, mark)
    return {"session": target.stem, "mb": round(size / 1e6, 2), "wall": grown.wall, "cpu": grown.cpu,
            "max_rss_mb": grown.max_rss_mb, "ok": grown.ok, "note": grown.note, "rewrote": rewrote,
            "rewrote_pages": [n for n in rewrote if not n.startswith("pagefind/")],
            "rewrote_search_files": sum(n.startswith("pagefind/") for n in rewrote)}


def _after_cleanup(tree: Path, target: Path, argv: list[str], tool: str, out: Path, env: dict[str, str]) -> dict:
    """A history of years as Claude Code leaves it (it deletes sessions after 30 days):
    the copy's session files but the newest tenth (and ``target``) deleted, a build
    that reads those from bough's archive, then one turn appended to ``target``
    again: an append when most sessions are in the archive alone."""
    mains = sorted((p for p in tree.glob("*/*.jsonl") if not p.name.startswith("agent-") and p != target),
                   key=lambda p: (p.stat().st_mtime_ns, p.name))
    doomed = mains[: len(mains) * 9 // 10]
    for path in doomed:
        path.unlink()
        shutil.rmtree(path.with_suffix(""), ignore_errors=True)  # its sub-agents
    settled = measure(f"{tool} after the cleanup", argv, None, env)
    return {"cleanup": {"deleted": len(doomed), "wall": settled.wall, "cpu": settled.cpu,
                        "max_rss_mb": settled.max_rss_mb, "ok": settled.ok, "note": settled.note},
            "append_cleanup": _append(target, "cleanup", argv, tool, out, env)}


def _check_bytes(tree: Path, out: Path, place: Path, tool: str, jobs: int, env: dict[str, str],
                 extra: list[str]) -> dict:
    """The incremental site against fresh builds of the same input, at the default
    ``-j`` and at ``-j 1``: the same bytes?"""
    incremental_digest = site_digest(out)
    found: dict[str, Any] = {"incremental": incremental_digest}
    for name, j in (("fresh", jobs), ("fresh_j1", 1)):
        fresh_out, fresh_archive = place / f"out-{name}", place / f"archive-{name}"
        run = measure(f"{tool} {name}", bough_argv(tree, fresh_out, fresh_archive, j, extra), fresh_out, env,
                      fresh=[fresh_archive])
        found[name] = site_digest(fresh_out) if run.ok else f"failed: {run.note}"
        found[f"{name}_wall"] = run.wall
    found["same"] = found["fresh"] == found["fresh_j1"] == incremental_digest
    return found


def _mark() -> float:
    """A time before which every file now in OUT was written (mtimes are coarse)."""
    mark = time.time()
    time.sleep(0.05)
    return mark


def _link_tree(source: Path, copy: Path, grown: set[Path]) -> None:
    """``copy`` as ``source``: hard links (copies where links fail), real copies for ``grown``."""
    shutil.rmtree(copy, ignore_errors=True)
    for top, _dirs, files in os.walk(source):
        into = copy / os.path.relpath(top, source)
        into.mkdir(parents=True, exist_ok=True)
        for name in files:
            src, dst = Path(top) / name, into / name
            if src in grown:
                shutil.copy2(src, dst)
                continue
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)


def _one_turn(target: Path, which: str) -> bytes:
    """A prompt and its reply appended to ``target``'s session, a second and two after
    its last record (as a turn is: a turn dated before the session's start moved the
    session to another month, and its page and search shard with it)."""
    import orjson

    records = []
    for line in target.read_bytes().splitlines()[-50:]:
        try:
            records.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue  # the traps' torn and damaged lines
    last = next(record for record in reversed(records) if isinstance(record, dict) and "cwd" in record)
    common = {"sessionId": last["sessionId"], "cwd": last["cwd"]}
    tag = hashlib.sha256(f"{target.name}/{which}".encode()).hexdigest()[:12]
    prompt, reply = f"bench000-0000-4000-8000-{tag}", f"bench001-0000-4000-8000-{tag}"
    stamps = [r["timestamp"] for r in records if isinstance(r, dict) and isinstance(r.get("timestamp"), str)]
    ended = datetime.fromisoformat(max(stamps).replace("Z", "+00:00")) if stamps else datetime(2027, 1, 1, tzinfo=UTC)
    asked, answered = (f"{(ended + timedelta(seconds=n)).strftime('%Y-%m-%dT%H:%M:%S')}.000Z" for n in (1, 2))
    turn = [
        {"type": "user", "uuid": prompt, "parentUuid": last.get("uuid"), **common,
         "timestamp": asked, "message": {"role": "user", "content": "one more thing"}},
        {"type": "assistant", "uuid": reply, "parentUuid": prompt, **common,
         "timestamp": answered,
         "message": {"id": f"msg_bench{tag}", "role": "assistant", "model": "claude-opus-4-6", "type": "message",
                     "content": [{"type": "text", "text": "Done."}],
                     "usage": {"input_tokens": 3, "output_tokens": 5}}},
    ]
    return b"".join(orjson.dumps(record) + b"\n" for record in turn)


def _grow_targets(projects: Path) -> dict[str, Path]:
    """Main session files that end with a complete line: one of median size, the
    largest, and the one that started last (where work goes on: in its project's
    newest month)."""
    mains = []
    for path in sorted(p for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-")):
        with open(path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                mains.append(path)
    if not mains:
        raise SystemExit("no session file ends with a complete line")
    newest = max(mains, key=lambda p: (_started(p), p.name))
    mains.sort(key=lambda p: (p.stat().st_size, p.name))
    return {"median": mains[len(mains) // 2], "largest": mains[-1], "newest": newest}


_TIMESTAMP = re.compile(rb'"timestamp":\s*"([^"]+)"')


def _started(path: Path) -> bytes:
    """The first timestamp of a session file ("" without one): when it started."""
    with open(path, "rb") as handle:
        found = _TIMESTAMP.search(handle.read(16384))
    return found.group(1) if found else b""


def _newer(out: Path, since: float) -> list[str]:
    found = []
    for rel, path in _site_files(out):
        if os.lstat(path).st_mtime > since:
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


# --------------------------------------------------------------------------- one history


def bench_history(name: str, args: argparse.Namespace, work: Path, env: dict[str, str]) -> HistoryResults:
    history = HISTORIES[name]
    projects, facts = generate(work, name, tiny=args.tiny)
    results = HistoryResults(name, history.about, {**facts, **describe(projects)})
    print(f"{name}: {results.facts}", file=sys.stderr)
    variants = {f"bough {v}": v.split() for v in args.variant}
    if not history.rebuild_only:
        tools = ["floor", "bough", *variants]
        tools += [] if args.no_peers else [p for p in PEER_RUNS if peer_argv(work, p, projects, work)]
        for number in range(args.rounds):
            order = tools[number % len(tools):] + tools[: number % len(tools)]  # alternate who goes first
            for tool in order:
                place = work / f"runs-{name}" / "cold" / f"{number + 1}-{slug(tool)}"
                run = _cold_run(tool, place, projects, work, env, args.jobs, variants, results.facts["mb"])
                results.runs.append(run)
                print(f"{name} round {number + 1}: {tool}: {run.wall:.2f} s, {run.cpu:.2f} s CPU, "
                      f"{run.max_rss_mb:.0f} MB, {run.out_mb:.0f} MB out{'' if run.ok else ' FAILED ' + run.note}",
                      file=sys.stderr)
    if history.rebuild_only or not args.no_incremental:
        for tool, extra in {"bough": [], **variants}.items():
            print(f"{name}: incremental, {tool}", file=sys.stderr)
            results.incremental[tool] = incremental(
                projects, work / f"runs-{name}", tool, args.jobs, env, extra, rounds=args.rounds,
                appends=not history.rebuild_only, check_bytes=args.check_bytes)
    return results


def _cold_run(tool: str, place: Path, projects: Path, work: Path, env: dict[str, str], jobs: int,
              variants: dict[str, list[str]], input_mb: float) -> Run:
    out, archive = place / "out", place / "archive"
    if tool == "floor":
        return measure("floor", [sys.executable, "-c", FLOOR, str(projects)], None, env)
    if tool == "bough" or tool in variants:
        return measure(tool, bough_argv(projects, out, archive, jobs, variants.get(tool)), out, env, fresh=[archive])
    _without_peer_cache(projects)
    try:
        run = measure(tool, peer_argv(work, tool, projects, out), out, env)
    finally:
        _without_peer_cache(projects)
    if run.ok and run.out_mb < 0.01 * input_mb:
        run.ok, run.note = False, "wrote almost nothing"
        run.note += f" ({run.stderr_tail})" if run.stderr_tail else ""
    return run


# --------------------------------------------------------------------------- report


def report(results: HistoryResults) -> str:
    """The Markdown for one history: its facts, the cold builds, the incremental
    builds, and the targets."""
    facts = results.facts
    tiny = " (tiny: the plumbing only)" if facts.get("tiny") else ""
    lines = [f"### {results.name}{tiny}: {facts['mb']} MB, {facts['lines']:,} lines, {facts['files']:,} files, "
             f"{facts['session_files']:,} session files, {facts['projects']} projects", "",
             f"{results.about}.", ""]
    if facts.get("reads"):
        lines += [f"{facts['reads']:,} Reads of {facts['real_files']:,} real files, "
                  f"{facts['rereads'] / facts['reads']:.0%} of them re-reads.", ""]
    if results.runs:
        lines += [cold_table(results), ""]
    if results.incremental:
        lines += [incremental_table(results), ""]
    lines += [targets_table(results)]
    return "\n".join(lines)


def _by_tool(results: HistoryResults) -> dict[str, list[Run]]:
    by_tool: dict[str, list[Run]] = {}
    for run in results.runs:
        by_tool.setdefault(run.tool, []).append(run)
    return by_tool


def _median(runs: list[Run], name: str) -> float:
    values = [getattr(r, name) for r in runs]
    return statistics.median(values) if values else 0.0


def cold_table(results: HistoryResults) -> str:
    by_tool = _by_tool(results)
    reference = [r for r in by_tool.get(REFERENCE_PEER, []) if r.ok]
    ref_wall, ref_cpu = _median(reference, "wall"), _median(reference, "cpu")
    rows = []
    for tool, runs in by_tool.items():
        ok = [r for r in runs if r.ok]
        if not ok:
            rows.append(f"| {tool} | failed: {runs[-1].note} | | | | | | |")
            continue
        wall, cpu = _median(ok, "wall"), _median(ok, "cpu")
        state = _median(ok, "state_mb")
        versus = ""
        if ref_wall and tool != REFERENCE_PEER and tool != "floor":
            versus = f"{ref_wall / wall:.2f}x faster, {cpu / ref_cpu:.2f} of its CPU"
        out = f"{_median(ok, 'out_mb'):.0f} MB" if tool != "floor" else "–"
        rows.append(f"| {tool} | {wall:.2f} s | {cpu:.2f} s | {_median(ok, 'max_rss_mb'):.0f} MB | "
                    f"{_median(ok, 'peak_total_mb'):.0f} MB | {out} | {f'{state:.0f} MB' if state else ''} | "
                    f"{versus} |")
    head = (f"| tool | median wall | CPU (user+sys, all processes) | max RSS (largest process) | peak RSS (all "
            f"processes) | output (site) | bough's state | vs {REFERENCE_PEER} |\n|---|---|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


def incremental_table(results: HistoryResults) -> str:
    tools = list(results.incremental)
    rows = [("cold build (the copy)", lambda inc: _cell(inc["cold"], inc["cold"].get("files")))]
    rows.append(("no change", lambda inc: _no_change_cell(inc)))
    for which, label in APPENDS.items():
        if any(f"append_{which}" in inc for inc in results.incremental.values()):
            rows.append((f"one turn appended to {label}", lambda inc, w=which: _append_cell(inc, w)))
    if any("check" in inc for inc in results.incremental.values()):
        rows.append(("same bytes: incremental = fresh = fresh `-j 1`", lambda inc: _check_cell(inc)))
    head = "| | " + " | ".join(tools) + " |\n|---|" + "---|" * len(tools)
    body = []
    for label, cell in rows:
        body.append(f"| {label} | " + " | ".join(
            cell(results.incremental[t]) if "failed" not in results.incremental[t] or label.startswith("cold")
            else "" for t in tools) + " |")
    return head + "\n" + "\n".join(body)


def _cell(run: dict, files: int | None = None) -> str:
    if not run["ok"]:
        return f"failed: {run['note']}"
    return f"{run['wall']:.2f} s ({run['cpu']:.2f} s CPU)" + (f", {files:,} files" if files else "")


def _no_change_cell(inc: dict) -> str:
    change = inc["no_change"]
    if not change["ok"]:
        return "failed: " + next(c["note"] for c in change["runs"] if not c["ok"])
    rewrote = len(change["rewrote"])
    return (f"{change['wall']:.2f} s ({change['cpu']:.2f} s CPU), "
            f"{'nothing' if not rewrote else f'{rewrote} files'} rewritten")


def _append_cell(inc: dict, which: str) -> str:
    grown = inc.get(f"append_{which}")
    if grown is None:
        return ""
    if not grown["ok"]:
        return f"failed: {grown['note']}"
    return (f"{grown['wall']:.2f} s ({grown['cpu']:.2f} s CPU; {grown['mb']} MB), rewrote "
            f"{len(grown['rewrote_pages'])} files and {grown['rewrote_search_files']} search files")


def _check_cell(inc: dict) -> str:
    check = inc.get("check")
    if check is None:
        return ""
    return "yes" if check["same"] else (f"NO: incremental {check['incremental']}, fresh {check['fresh']}, "
                                        f"-j 1 {check['fresh_j1']}")


def targets_table(results: HistoryResults) -> str:
    """Issue #12's targets, as far as this run measured them."""
    history = HISTORIES[results.name]
    rows: list[tuple[str, str, bool | None]] = []
    by_tool = _by_tool(results)
    bough = [r for r in by_tool.get("bough", []) if r.ok]
    reference = [r for r in by_tool.get(REFERENCE_PEER, []) if r.ok]
    if bough and reference:
        ratio = _median(reference, "wall") / _median(bough, "wall")
        share = _median(bough, "cpu") / _median(reference, "cpu")
        rows.append((f"cold build ≥ 3× faster than {REFERENCE_PEER}", f"{ratio:.2f}×", ratio >= 3))
        rows.append((f"CPU time ≤ 0.4 of {REFERENCE_PEER}'s", f"{share:.2f}", share <= 0.4))
    if bough:
        rss = max(r.max_rss_mb for r in bough)
        rows.append(("max RSS ≤ 400 MB", f"{rss:.0f} MB (all processes at once: "
                                         f"{max(r.peak_total_mb for r in bough):.0f} MB)", rss <= 400))
        out = _median(bough, "out_mb")
        rows.append(("output ≤ 1.5× the input", f"{out:.0f} MB of {results.facts['mb']} MB",
                     out <= 1.5 * results.facts["mb"]))
        if reference:
            theirs = _median(reference, "out_mb")
            rows.append((f"output ≤ a quarter of {REFERENCE_PEER}'s", f"{out:.0f} MB of {theirs:.0f} MB",
                         out <= theirs / 4))
        for option, label in (("--no-archive", "archive adds ≤ 10% to a cold build"),
                              ("--no-search", "search (Pagefind) adds ≤ 10% to a cold build")):
            without = [r for r in by_tool.get(f"bough {option}", []) if r.ok]
            if without:
                extra = _median(bough, "wall") / _median(without, "wall") - 1
                extra_cpu = _median(bough, "cpu") / _median(without, "cpu") - 1  # work added, or waiting?
                rows.append((label, f"{extra:+.0%} (its CPU time: {extra_cpu:+.0%})", extra <= 0.10))
    inc = results.incremental.get("bough")
    if inc and "failed" not in inc:
        wall = inc["no_change"]["wall"]
        rows.append((f"no-change rebuild ≤ {history.no_change_target} s", f"{wall:.2f} s",
                     wall <= history.no_change_target and inc["no_change"]["ok"]))
        for which, label in APPENDS.items():
            grown = inc.get(f"append_{which}")
            if grown:
                rows.append((f"one turn appended to {label} ≤ {history.append_target:g} s",
                             f"{grown['wall']:.2f} s", grown["ok"] and grown["wall"] <= history.append_target))
                rows.append((f"one turn appended to {label}: largest process ≤ 400 MB",
                             f"{grown['max_rss_mb']:.0f} MB", grown["max_rss_mb"] <= 400))
        if "check" in inc:
            rows.append(("same bytes for any `-j`, fresh or incremental", "yes" if inc["check"]["same"] else "no",
                         inc["check"]["same"]))
    head = "| target | measured | met |\n|---|---|---|"
    return head + "\n" + "\n".join(f"| {t} | {m} | {'yes' if ok else 'no'} |" for t, m, ok in rows)


def cpu_check(results: Results) -> list[str]:
    """Runs whose CPU time from wait4 is below what /proc saw its processes use:
    then some descendant was not waited for, and the figure would be too low."""
    found = []
    for history in results.histories.values():
        for run in history.runs:
            if run.ok and run.cpu_sampled > run.cpu * 1.05 + 0.1:
                found.append(f"{history.name}/{run.tool}: wait4 {run.cpu:.2f} s < sampled {run.cpu_sampled:.2f} s")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bough-bench",
                        help="where histories, outputs and peer venvs go (default: a folder in the temp dir)")
    parser.add_argument("--history", action="append", default=[], metavar="NAMES",
                        help=f"comma-separated, repeatable: {', '.join(HISTORIES)} (default: realcode)")
    parser.add_argument("--scale", choices=sorted(HISTORIES), help="the same as --history (kept for old scripts)")
    parser.add_argument("--tiny", action="store_true", help="every history at a tiny size: proves the plumbing only")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-j", "--jobs", type=int, default=0, help="bough's -j (0: all cores)")
    parser.add_argument("--install-peers", action="store_true", help="pip-install the peers into their own venvs")
    parser.add_argument("--no-peers", action="store_true", help="run bough (and the floor) only")
    parser.add_argument("--no-incremental", action="store_true", help="no incremental runs on built histories")
    parser.add_argument("--check-bytes", action="store_true",
                        help="after the incremental runs, build fresh (default -j and -j 1) and compare the bytes")
    parser.add_argument("--double", action="store_true", help="also the 'double' history (twice 'full')")
    parser.add_argument("--big-session", type=int, metavar="MB", default=0,
                        help="also build one session file of this size")
    parser.add_argument("--variant", action="append", default=[], metavar="ARGS",
                        help='also run bough with these extra options (write it with "="), e.g. '
                             '--variant="--highlight-limit 0" (repeatable)')
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--keep-outputs", action="store_true",
                        help="keep every site built (runs-HISTORY/ in the work directory; default: removed after the "
                             "last run, so the work directory needs room for all of them: about 6 GB for realcode "
                             "and wide with peers and two variants)")
    args = parser.parse_args()

    names = [n for value in args.history for n in value.split(",") if n] + ([args.scale] if args.scale else [])
    names += ["double"] if args.double else []
    names = list(dict.fromkeys(names or ["realcode"]))
    unknown = [n for n in names if n not in HISTORIES]
    if unknown:
        parser.error(f"unknown history {', '.join(unknown)}; known: {', '.join(HISTORIES)}")
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.install_peers and not args.no_peers:
        install_peers(work)
    env = environment(work)
    results = Results(
        machine={"date": time.strftime("%Y-%m-%d %H:%M %Z"), "cpus": os.cpu_count(), "python": platform.python_version(),
                 "platform": platform.platform(), "load_before": os.getloadavg(), "commit": _commit()},
        command=sys.argv[1:],
    )
    for name in names:
        _remove_runs(work, name)
    for name in names:
        results.histories[name] = bench_history(name, args, work, env)
    if args.big_session:
        big = big_session(work, args.big_session)
        out = work / "out-big"
        run = measure("bough (one big session)", bough_argv(big, out, work / "archive-big", args.jobs), out, env,
                      fresh=[work / "archive-big"])
        pages = sorted(out.glob("projects/*/sessions/*.html"))
        results.extra["big_session"] = {**describe(big), "pages": len(pages), "run": asdict(run)}

    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"commit {results.machine['commit']}, load average before {results.machine['load_before'][0]:.2f}\n")
    for history in results.histories.values():
        print(report(history) + "\n")
    for name, value in results.extra.items():
        print(f"{name}: {value}")
    suspicious = cpu_check(results)
    seen: dict[str, int] = {}
    for history in results.histories.values():
        for run in history.runs:
            if run.tool.startswith("bough"):
                for name, count in run.seen.items():
                    seen[name] = max(seen.get(name, 0), count)
    results.extra["cpu_check"] = {"below_sampled": suspicious, "bough_processes_seen": seen}
    print(f"CPU check: {'FAILED ' + '; '.join(suspicious) if suspicious else 'wait4 >= /proc samples on every run'};"
          f" a bough run had at most these processes: {seen}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(asdict(results), indent=2) + "\n")
    if not args.keep_outputs:
        for name in names:
            _remove_runs(work, name)
    failed = [f"{h.name}/{r.tool}" for h in results.histories.values() for r in h.runs
              if r.tool in ("bough", "floor") and not r.ok]
    failed += [f"{h.name}/bough incremental" for h in results.histories.values()
               if "failed" in h.incremental.get("bough", {})]
    return 1 if failed else 0


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
