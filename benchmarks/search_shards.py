#!/usr/bin/env python3
"""What a Pagefind shard costs the reader: the first search on sites of the same
sessions split into more or fewer projects (a shard each).

    python3 benchmarks/search_shards.py [--sessions 600] [--splits 6,24,60] [--runs 4] [--work DIR]

Generates, with bough's corpus generator (fixed seed, one turn a session,
real-file Reads), the same number of sessions split into each number of
projects; builds each with ``bough build --no-archive`` (search on: one Pagefind
shard per project; HOME in the work directory); serves each site from
127.0.0.1 and, in Chromium (``/usr/bin/chromium`` through playwright) with an
empty cache every run, times the first search: from typing a word into the
search box to the first result, the median of ``--runs``, with the number of
requests under ``pagefind/`` meanwhile. The numbers are in docs/performance.md
("Search": "What a shard costs the reader").
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpus.claude import generate_claude_history  # noqa: E402
from corpus.realcode import RealFiles  # noqa: E402

SEED = 20261201
QUERY = "cache"  # a word the generated replies hold
CHROMIUM = "/usr/bin/chromium"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=600, help="sessions in every site")
    parser.add_argument("--splits", default="6,24,60", help="comma-separated numbers of projects (shards)")
    parser.add_argument("--runs", type=int, default=4, help="searches per site, each with an empty cache")
    parser.add_argument("--work", type=Path, help="where to generate and build (default: a temporary directory)")
    args = parser.parse_args(argv)
    splits = [int(n) for n in args.splits.split(",") if n]
    print("| shards | first results (median) | runs | Pagefind requests | bundles' size |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bough-shards-") as scratch:
        work = args.work or Path(scratch)
        for projects in splits:
            site = build(work, projects, max(1, args.sessions // projects))
            times, requests = first_search(site, args.runs)
            size = sum(p.stat().st_size for p in (site / "pagefind").rglob("*") if p.is_file())
            print(f"| {projects} | {statistics.median(times) * 1000:.0f} ms | "
                  f"{', '.join(f'{t * 1000:.0f}' for t in times)} | {statistics.median(requests):.0f} | "
                  f"{size / 1e6:.1f} MB |", flush=True)
    return 0


def build(work: Path, projects: int, per_project: int) -> Path:
    """The site of ``projects`` x ``per_project`` generated sessions, built with search on."""
    history, site = work / f"history-{projects}", work / f"site-{projects}"
    shutil.rmtree(history, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    generate_claude_history(history, seed=SEED, projects=projects, sessions_per_project=per_project,
                            turns_per_session=1, output_kb=1, traps_every=0, real_files=RealFiles.stdlib())
    env = {**os.environ, "HOME": str(work / "home")}
    subprocess.run([sys.executable, "-m", "bough_site.cli", "build", str(history / "projects"), "-o", str(site),
                    "--no-archive", "-q"], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return site


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        pass


def first_search(site: Path, runs: int) -> tuple[list[float], list[int]]:
    """Seconds from typing :data:`QUERY` to the first result, and the requests
    under ``pagefind/`` meanwhile, for each run."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(site))
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        times, requests = [], []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for _ in range(runs):
                context = browser.new_context()  # an empty cache
                page = context.new_page()
                seen: list[str] = []
                page.goto(url)
                page.wait_for_load_state("load")
                page.on("request", lambda request: seen.append(request.url))
                started = time.perf_counter()
                page.fill("#bough-search-input", QUERY)
                page.locator(".search-results .search-result a.search-title").first.wait_for(timeout=120_000)
                times.append(time.perf_counter() - started)
                requests.append(sum("/pagefind/" in u for u in seen))
                context.close()
            browser.close()
        server.shutdown()
    return times, requests


if __name__ == "__main__":
    raise SystemExit(main())
