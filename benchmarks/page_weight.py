#!/usr/bin/env python3
"""The weight of the index and project pages for a heavy user's history.

    python3 benchmarks/page_weight.py [--projects 100] [--sessions 300] [--work DIR]
    python3 benchmarks/page_weight.py --copies [--projects 100] [--sessions 300]

Generates a Claude Code history with bough's corpus generator (fixed seed; one
turn a session, small tool outputs: the pages measured here are made from the
sessions' summaries, so the size of a transcript hardly matters), builds it with
``bough build --no-search --no-archive`` (HOME pointed into the work directory)
and prints the size of the index page and of every project page: the smallest,
the median and the largest, with their number of sessions.

``--copies`` builds one project of ``--sessions`` sessions only, then renders
the index and project pages of ``--projects`` copies of it (each its own id,
name and directory) from the build's stored summaries, as an incremental build
renders them: the same pages at a fraction of the cost (a full build of 30,000
generated sessions takes hours on two cores).

The numbers are in docs/performance.md ("Page weight"); tests/test_visual.py
asserts the budget on one project of 300 sessions in every test run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bough_site.manifest import Manifest  # noqa: E402
from bough_site.summaries import session_from_summary  # noqa: E402
from bough_site.model import Project, Site  # noqa: E402
from bough_site.render.pages import Renderer  # noqa: E402
from corpus.claude import generate_claude_history  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=300, help="sessions per project")
    parser.add_argument("--copies", action="store_true", help="build one project, render the pages of copies of it")
    parser.add_argument("--work", type=Path, help="where to generate and build (default: a temporary directory)")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="bough's worker processes (0: all cores)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bough-weight-") as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        history, out = work / "history", work / "site"
        generate(history, 1 if args.copies else args.projects, args.sessions)
        build(history, out, work / "home", args.jobs)
        if args.copies:
            copies(out, args.projects)
        report(out)
    return 0


def generate(history: Path, projects: int, sessions: int) -> None:
    if history.exists():
        return
    started = time.monotonic()
    generate_claude_history(history, projects=projects, sessions_per_project=sessions, turns_per_session=1,
                            output_kb=1)
    print(f"generated {projects} x {sessions} sessions in {time.monotonic() - started:.0f} s", file=sys.stderr)


def build(history: Path, out: Path, home: Path, jobs: int) -> None:
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "CODEX_HOME": str(home / ".codex"), "XDG_DATA_HOME": str(home / ".local" / "share")}
    env.pop("BOUGH_ARCHIVE", None)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "bough_site.cli", "build", str(history / "projects"), "-o", str(out),
                    "--no-search", "--no-archive", "-q", "-j", str(jobs), "--force"],
                   env=env, check=True, stderr=subprocess.DEVNULL)
    print(f"built in {time.monotonic() - started:.0f} s", file=sys.stderr)


def copies(out: Path, count: int) -> None:
    """Write the index and project pages of ``count`` copies of the one project in ``out``."""
    manifest = Manifest.load(out)
    states = sorted(manifest.sessions.values(), key=lambda state: state.key)
    ((project_id, stats),) = manifest.project_stats.items()
    sessions = [session_from_summary(state.summary, state.slug) for state in states]
    projects = []
    for n in range(count):
        cwd = f"/home/u/src/project-{n:03d}"
        mine = [dataclasses.replace(s, cwd=cwd) for s in sessions]
        projects.append(Project(id=f"project-{n:03d}", name=f"project-{n:03d}", cwd=cwd, sessions=mine,
                                stats=dict(stats)))
    site_stats = {key: value * count for key, value in stats.items()}
    site = Site(projects=projects, stats=site_stats, warnings=[])
    renderer = Renderer(search=False)
    (out / "index.html").write_bytes(renderer.index_page(site))
    for project in projects:
        page = out / "projects" / project.id / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        (page.parent / "sessions").mkdir(exist_ok=True)
        for state in states:  # one sidecar a session: what report() counts
            (page.parent / "sessions" / f"{state.slug}.json").touch()
        page.write_bytes(renderer.project_page(project, site))
    (out / "projects" / project_id / "index.html").unlink()


def report(out: Path) -> None:
    pages = []
    for page in sorted(out.glob("projects/*/index.html")):
        sessions = len(list(page.parent.glob("sessions/*.json")))  # one sidecar a session, however many parts
        pages.append((page.stat().st_size, sessions, page.parent.name))
    sizes = sorted(size for size, _, _ in pages)
    print(f"index.html: {(out / 'index.html').stat().st_size:,} bytes for {len(pages)} projects")
    print(f"project pages: {len(pages)}; median {statistics.median(sizes):,.0f} bytes")
    for label, (size, sessions, name) in (("smallest", min(pages)), ("largest", max(pages))):
        print(f"  {label}: {size:,} bytes, {sessions} sessions ({name})")


if __name__ == "__main__":
    sys.exit(main())
