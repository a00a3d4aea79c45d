"""The bundled OpenCode example (bough_site/examples/opencode/, written by
corpus/opencode_examples.py): its rows are what the module writes, it is small,
its counts are the story's (derived by hand below), and a bare build shows it in
tidepool beside the other agents."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bough_site.model import Reply, ToolCall
from bough_site.plan.units import OPENCODE, Unit
from bough_site.readers import layouts, registry
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import LAYOUT, find, label
from corpus import opencode_examples as ox

from .helpers import uncosted


# By hand from the story: the root's two messages with 22 parts less the odd one, the
# child's two with 4; the three steps' tokens plus the child's one step (§6).
O1_STATS = {
    "records": 27, "replies": 2, "prompts": 1, "commands": 0, "tool_calls": 9, "tool_results": 9, "tool_errors": 0,
    "subagents": 1, "input_tokens": 2412 + 508 + 233 + 1890, "output_tokens": 311 + 38 + 402 + 87 + 96,
    "cache_creation_input_tokens": 14880 + 2100 + 610, "cache_read_input_tokens": 14880 + 16980 + 11200,
    "lines": 30, "skipped_lines": 1, "commits": 0, "files_changed": 1, "reasoning_output_tokens": 38,
}


def rows(db: Path) -> dict[str, list[tuple]]:
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return {t: sorted(con.execute(f"SELECT * FROM {t}")) for t in ("project", "session", "message", "part")}
    finally:
        con.close()


def test_the_bundled_rows_are_what_the_module_writes(tmp_path: Path) -> None:
    made = ox.write_opencode_examples(tmp_path / "opencode")
    assert rows(made) == rows(ox.ROOT / "opencode.db")
    assert sorted(p.name for p in ox.ROOT.iterdir()) == ["opencode.db"]
    assert (ox.ROOT / "opencode.db").stat().st_size < 64 * 1024


def test_the_example_reads_as_the_story_says() -> None:
    files = find(ox.ROOT)
    warnings = []
    sessions = read_unit(Unit("k", OPENCODE, tuple(map(str, files)), tuple(map(label, files))), warnings.append, None)
    from bough_site.work import summarize_work

    assert [s.id for s in sessions] == [ox.O1]
    session = sessions[0]
    summarize_work(session)
    assert uncosted(session.stats) == O1_STATS
    assert session.cwd == ox.TIDEPOOL and session.title == "Add a --json flag to tidepool today"
    assert [w.reason.split(":")[0] for w in warnings] == [f"part {ox.ODD_PART}"]
    reply = next(i for i in session.timeline if isinstance(i, Reply))
    calls = [b for b in reply.blocks if isinstance(b, ToolCall)]
    assert [c.name for c in calls] == ["todowrite", "read", "grep", "task", "edit", "bash", "edit", "bash"]
    assert calls[3].subagent is not None and calls[3].subagent.agent_id == ox.O1_CHILD
    assert calls[5].result.detail["exit_code"] == 1


@pytest.fixture
def registered() -> None:
    assert layouts.LAYOUTS[OPENCODE] is LAYOUT and registry.READERS[OPENCODE] is read_unit


def test_a_bare_build_shows_opencode_in_tidepool(registered: None) -> None:
    from bough_site.build import load_site
    from bough_site.config import BuildConfig

    site = load_site(BuildConfig())  # no history in the isolated HOME: the bundled examples
    by_cwd = {p.cwd: p for p in site.projects}
    assert {"claude-code", "codex", "gemini-cli", "opencode"} <= {s.source for s in by_cwd[ox.TIDEPOOL].sessions}
    opencode = [s for p in site.projects for s in p.sessions if s.source == "opencode"]
    assert [uncosted(s.stats) for s in opencode] == [O1_STATS]
