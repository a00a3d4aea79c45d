#!/usr/bin/env python3
"""Rendering alone: a history's session pages and sidecars, without reading or writing.

    python3 benchmarks/render.py                        # 300 sessions of wide
    python3 benchmarks/render.py --history realcode --sessions 6 --rounds 5

Reads and redacts ``--sessions`` session files of a bench history once (generated
by bench.py's generator, kept in ``--work``), then renders their pages
(``Renderer.session_pages``, search on, as a default build does) and their sidecars
(``sidecars.session_bytes``) ``--rounds`` times, and prints the best
``time.process_time`` of each, with a digest of every byte made: a change meant to
be faster only must leave the digest as it was. Highlighted blocks are kept in
the renderer's memory, as a build keeps them in its block store, so after the first
round this times the templates, Markdown and our own code, not Pygments.

Seconds depend on the machine and on what else runs on it (docs/performance.md,
"Templates' cost per item").
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench  # noqa: E402

from bough_site import sidecars  # noqa: E402
from bough_site.model import Project, Session  # noqa: E402
from bough_site.readers.claude import ClaudeSource, read_claude_session  # noqa: E402
from bough_site.redact import Redactor  # noqa: E402
from bough_site.render.pages import Renderer  # noqa: E402
from bough_site.scrub import scrub_session  # noqa: E402


def read_sessions(projects: Path, count: int) -> list[Session]:
    """The first ``count`` main session files (sorted by path), read and redacted."""
    files = sorted(path for path in projects.glob("*/*.jsonl") if not path.name.startswith("agent-"))[:count]
    redactor = Redactor(b"render-benchmark".ljust(32, b"."))
    sessions = []
    for path in files:
        session = read_claude_session(ClaudeSource(path, []), lambda warning: None, lambda p: p.name)
        scrub_session(session, redactor)
        session.slug = session.id
        sessions.append(session)
    return sessions


def _project(session: Session) -> Project:
    return Project(id="p", name="p", cwd="/p", sessions=[session], stats={})


def best_of(rounds: int, make: Callable[[Session], list[bytes]], sessions: list[Session]) -> tuple[float, str]:
    """The best process time of ``rounds`` passes over every session, and the digest of what one pass made."""
    times, digest = [], ""
    for _ in range(rounds):
        made = hashlib.sha256()
        started = time.process_time()
        for session in sessions:
            for data in make(session):
                made.update(data)
        times.append(time.process_time() - started)
        digest = made.hexdigest()[:16]
    return min(times), digest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bough-bench")
    parser.add_argument("--history", choices=sorted(bench.HISTORIES), default="wide")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    projects, _ = bench.generate(args.work, args.history, tiny=args.tiny)
    sessions = read_sessions(projects, args.sessions)
    renderer = Renderer(search=True)
    renderer.session_pages(_project(sessions[0]), sessions[0])  # templates compiled before timing

    def pages(session: Session) -> list[bytes]:
        return [path.encode() + data for path, data in renderer.session_pages(_project(session), session)]

    def sidecar(session: Session) -> list[bytes]:
        return [sidecars.session_bytes(_project(session), session)]

    print(f"{len(sessions)} sessions of {args.history}{' (tiny)' if args.tiny else ''}, best of {args.rounds}:")
    for name, make in (("pages", pages), ("sidecars", sidecar)):
        seconds, digest = best_of(args.rounds, make, sessions)
        print(f"{name}: {seconds * 1000:.0f} ms ({seconds * 1e6 / len(sessions):.0f} µs a session), digest {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
