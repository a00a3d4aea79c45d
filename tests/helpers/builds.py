"""Whole builds on disk, and what a rebuild wrote again (incremental builds)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from bough_site.build import BuildResult, build
from bough_site.config import BuildConfig
from bough_site.search.pagefind_run import SESSION_PAGE
from bough_site.search.shards import EarlyShards
from corpus.claude import generate_claude_history

from .claude_records import prompt, reply, text
from .repo import file_tree


OLD = 1_000_000_000  # 2001: any file written by a build is newer


def make_history(root: Path) -> Path:
    generate_claude_history(root, seed=11, projects=2, sessions_per_project=3, turns_per_session=3, output_kb=1)
    return root / "projects"


def run(src: Path, out: Path, **options) -> BuildResult:
    config = BuildConfig(sources=[src], out=out, archive=None, jobs=options.pop("jobs", 1), **options)
    return build(config, redaction_key=b"k")


def tree(out: Path) -> dict[str, bytes]:
    """Every output file by path, without bough's own state (.bough-*)."""
    return file_tree(out, site_only=True)


def age(out: Path) -> None:
    for name in tree(out):
        os.utime(out / name, ns=(OLD * 10**9, OLD * 10**9))


def rewritten(out: Path) -> set[str]:
    return {name for name in tree(out) if (out / name).stat().st_mtime_ns != OLD * 10**9}


def sessions_of(out: Path) -> dict[str, dict]:
    """session id -> its summary in the project sidecars."""
    index = orjson.loads((out / "index.json").read_bytes())
    found = {}
    for project in index["projects"]:
        for summary in orjson.loads((out / project["json"]).read_bytes())["sessions"]:
            found[summary["id"]] = summary
    return found


def main_file(src: Path, out: Path) -> tuple[Path, dict]:
    """A main transcript without sub-agents that ends with a complete line, and its summary."""
    summaries = sessions_of(out)
    for path in sorted(src.glob("*/*.jsonl")):
        summary = summaries.get(path.stem)
        if summary is None or not path.read_bytes().endswith(b"\n") or path.name.startswith("agent-"):
            continue
        if len(orjson.loads((out / summary["json"]).read_bytes())["files"]) == 1:
            return path, summary
    raise AssertionError("no main transcript without sub-agents ends with a newline")


def append_turn(path: Path) -> None:
    """One more turn (a prompt and its reply) at the end of a session file."""
    last = next(orjson.loads(line) for line in reversed(path.read_bytes().splitlines())
                if line.strip().startswith(b"{") and b'"cwd"' in line)
    fields = {"cwd": last["cwd"], "sessionId": last["sessionId"], "timestamp": "2027-01-01T00:00:00.000Z"}
    records = [
        prompt("aaaaaaaa-0000-4000-8000-000000000001", "one more thing", **fields),
        reply("aaaaaaaa-0000-4000-8000-000000000002", "msg_appended", [text("Done: one more thing.")], **fields),
    ]
    with open(path, "ab") as handle:
        handle.writelines(orjson.dumps(record) + b"\n" for record in records)


def spy_early_shards(monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, int]], list[tuple[str, bool]]]:
    """Which shards EarlyShards started (without ``pagefind/``, with how many session
    pages were written then) and whether publishing took each run (its root); the
    class does its work as ever."""
    started: list[tuple[str, int]] = []
    taken: list[tuple[str, bool]] = []
    start, take = EarlyShards._start, EarlyShards.take

    def spy_start(self: EarlyShards, root: str, pages: list[str]) -> None:
        written = [p for p in self._writer.written if SESSION_PAGE.match(p)]
        started.append((root.removeprefix("pagefind/"), len(written)))
        start(self, root, pages)

    def spy_take(self: EarlyShards, root: str, made: dict[str, Any]) -> Any:
        run = take(self, root, made)
        taken.append((root, run is not None))
        return run

    monkeypatch.setattr(EarlyShards, "_start", spy_start)
    monkeypatch.setattr(EarlyShards, "take", spy_take)
    return started, taken
