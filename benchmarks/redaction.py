#!/usr/bin/env python3
"""The redactor alone, over the strings a build of one benchmark project passes it.

    python3 benchmarks/redaction.py --history realcode --project work-spotter
    python3 benchmarks/redaction.py --history realcode --project work-spotter --expected /tmp/redaction-expected.json.gz
    python3 benchmarks/redaction.py --tiny --rounds 1

First (once per history and project, kept in the work directory) a build of the
project runs in this process at ``-j 1`` with rendering left out, and every call
the build makes into a session's ``Redactor`` (``text``, ``value``, ``file_text``,
from scrub.py and jobs.py) is recorded, per session. Then those calls are replayed,
one fresh ``Redactor`` per session as a build makes them, ``--rounds`` times, and
the best ``time.process_time`` of the replays is printed, with the number of
strings and characters. ``--expected FILE`` keeps what the calls returned (every
value and each session's counts, gzipped JSON): the first run writes it, each later
run compares its own with it and fails on the first call that differs, so a change
meant to make redaction cheaper can show it changed no output (record it before the
change, compare after). ``--tiny`` uses the history's small shape, a quick run.

Seconds depend on the machine and on what else runs on it (docs/performance.md,
"Redaction"); the recording does not.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench  # noqa: E402  (benchmarks/bench.py: the histories)

Call = tuple[str, tuple[Any, ...]]  # method name, arguments


def record(source: Path, place: Path) -> list[list[Call]]:
    """Every outermost call into a session's Redactor during a -j 1 build of ``source``, per Redactor."""
    from bough_site import jobs, options
    from bough_site.build import build
    from bough_site.config import BuildConfig
    from bough_site.redact import Redactor

    sessions: list[list[Call]] = []

    class Recording(Redactor):
        depth = 0

        def _call(self, name: str, *args: Any) -> Any:
            if self.depth == 0:
                self.log.append((name, args))
            self.depth += 1
            try:
                return getattr(Redactor, name)(self, *args)
            finally:
                self.depth -= 1

        def text(self, s: str) -> str:
            return self._call("text", s)

        def value(self, v: Any) -> Any:
            return self._call("value", v)

        def file_text(self, path: str, s: str) -> str:
            return self._call("file_text", path, s)

    def redactor(self: options.Options) -> Redactor:
        r = Recording(self.key, enabled=self.redact, home=self.home, user=self.user)
        r.log = []
        sessions.append(r.log)
        return r

    options.Options.redactor = redactor  # type: ignore[method-assign]
    jobs._render = lambda *args, **kwargs: []  # the redactor's calls come before rendering
    build(BuildConfig(sources=[source], out=place / "out", jobs=1, search=False, archive=None),
          redaction_key=b"benchmark")
    return [log for log in sessions if log]


def project_tree(projects: Path, project: str | None, place: Path) -> Path:
    """A source root holding the project directory whose name ends with ``project``
    (hard links), or every project of the history."""
    root = place / "projects"
    names = sorted(p.name for p in projects.iterdir() if p.is_dir())
    matches = [n for n in names if project is None or n == project or n.endswith(project)]
    if not matches or (project is not None and len(matches) != 1):
        raise SystemExit(f"{project!r} names {len(matches)} project directories; the history has: {', '.join(names)}")
    for n in matches:
        bench._link_tree(projects / n, root / n, set())
    return root


def replay(redactor_class: type, key: bytes, sessions: list[list[Call]]) -> tuple[float, list[Any]]:
    """Seconds of CPU for every call, one Redactor per session; what each call returned and the counts."""
    results: list[Any] = []
    sys.modules[redactor_class.__module__]._FOUND.clear()  # as in a new process
    gc.collect()
    started = time.process_time()
    for calls in sessions:
        r = redactor_class(key)
        for name, args in calls:
            results.append(getattr(r, name)(*args))
        results.append(dict(r.counts))
    return time.process_time() - started, results


def compare_expected(path: Path, calls: list[Call], results: list[Any]) -> bool:
    """Write ``path`` (what the calls returned, as JSON) if it is not there; else is it what they return now?"""
    now = json.loads(json.dumps(results))  # tuples as lists, as the file holds them (json: lone surrogates too)
    if not path.is_file():
        path.write_bytes(gzip.compress(json.dumps(now).encode()))
        print(f"wrote what the calls returned to {path}")
        return True
    expected = json.loads(gzip.decompress(path.read_bytes()))
    if len(expected) != len(now):
        print(f"{path}: {len(expected):,} results, this run {len(now):,}: not the same calls", file=sys.stderr)
        return False
    for i, (was, got) in enumerate(zip(expected, now)):
        if was != got:
            what = calls[i] if i < len(calls) else ("counts", ())
            print(f"result {i:,} DIFFERS from {path} ({what[0]} of {str(what[1])[:200]})", file=sys.stderr)
            return False
    print(f"same values and counts as {path}")
    return True


def strings_of(v: Any) -> list[str]:
    out, stack = [], [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bough-bench")
    parser.add_argument("--history", choices=sorted(bench.HISTORIES), default="realcode")
    parser.add_argument("--project", help="a project directory of the history, or how its name ends "
                                           "(default: the whole history)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tiny", action="store_true", help="the history's small shape (a quick run)")
    parser.add_argument("--expected", type=Path, help="what the calls return: written by the first run, "
                                                       "compared by the later ones (gzipped JSON)")
    args = parser.parse_args()

    work = args.work.resolve()
    os.environ.update(bench.environment(work))
    projects, _facts = bench.generate(work, args.history, tiny=args.tiny)
    name = "-".join([args.history, *(["tiny"] if args.tiny else []), *([args.project.strip("-")] if args.project else [])])
    recording = work / f"redaction-calls-{name}.pickle"
    stamp = projects.parent / ".params"  # rewritten whenever the history is generated again
    if not recording.is_file() or recording.stat().st_mtime < stamp.stat().st_mtime:
        place = Path(tempfile.mkdtemp(prefix="redaction-", dir=work))
        source = project_tree(projects, args.project, place)
        recording.write_bytes(pickle.dumps(record(source, place), protocol=pickle.HIGHEST_PROTOCOL))
        shutil.rmtree(place)
    sessions = pickle.loads(recording.read_bytes())

    from bough_site.redact import Redactor

    strings = [s for calls in sessions for _, call_args in calls for s in strings_of(list(call_args))]
    print(f"{name}: {len(sessions)} sessions, {sum(map(len, sessions)):,} calls, {len(strings):,} strings, "
          f"{sum(map(len, strings)) / 1e6:.1f} M characters")
    mine = [replay(Redactor, b"benchmark", sessions) for _ in range(args.rounds)]
    best, results = min(mine, key=lambda r: r[0])
    print(f"this redactor: best of {args.rounds}: {best:.3f} s of CPU")
    if args.expected is not None:
        calls = [call for session in sessions for call in [*session, ("counts", ())]]
        if not compare_expected(args.expected, calls, results):
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
