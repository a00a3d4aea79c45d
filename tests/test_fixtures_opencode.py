"""Real OpenCode data (../shared/fixtures/opencode), read in place, never copied into
the project: the lantern 1.18.13 database and the two synthetic JSON-era trees of
agent-sessions. Skipped where this checkout has none beside it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from bough_site.model import REASONING_KEY, UNKNOWN_TOKENS_KEY, InputWarning, Marker, Prompt, Reply, Session, ToolCall
from bough_site.plan.units import OPENCODE, Unit
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import find, label
from bough_site.work import summarize_work

from .helpers import fixtures_dir

DB = "lantern__v1.18.13__opencode.db"


@pytest.fixture(scope="module")
def read() -> tuple[Path, dict[str, Session], list[InputWarning]]:
    folder = fixtures_dir("opencode")
    files = find(folder)
    warnings: list[InputWarning] = []
    unit = Unit("k", OPENCODE, tuple(str(p) for p in files), tuple(label(p) for p in files))
    sessions = read_unit(unit, warnings.append, None)
    for session in sessions:
        summarize_work(session)
    return folder, {s.id: s for s in sessions}, warnings


def step_sums(db: Path) -> dict[str, dict[str, int]]:
    """Σ over each session's step-finish parts, straight from SQLite (§6)."""
    out: dict[str, dict[str, int]] = {}
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    for sid, data in con.execute("SELECT session_id, data FROM part"):
        part = orjson.loads(data)
        if part.get("type") != "step-finish":
            continue
        tokens = part["tokens"]
        sums = out.setdefault(sid, {"input": 0, "output": 0, "reasoning": 0, "read": 0, "write": 0})
        for key in ("input", "output", "reasoning"):
            sums[key] += tokens[key]
        sums["read"] += tokens["cache"]["read"]
        sums["write"] += tokens["cache"]["write"]
    con.close()
    return out


def test_every_session_is_read_once(read) -> None:
    _, sessions, warnings = read
    assert sorted(sessions) == sorted([
        "ses_03156b771ffeANj3CiDnYkqmmr", "ses_031559a74ffe4reBgr5U6MnTO4", "ses_031541bf9ffeMiy2LOFii47rch",
        "s_stage0_small", "s_stage0_large", "s_stage0_drift"])
    # Warnings: the drifted status, and three replies that never got a step-finish.
    assert sorted(w.reason.split(": ", 1)[1] for w in warnings) == sorted([
        "status 'success' is not one OpenCode writes; read as finished",
        *["no step-finish and no tokens (the reply did not finish): its tokens are unknown"] * 3])


def test_lantern_tokens_equal_the_step_finish_sums_and_the_session_columns(read) -> None:
    folder, sessions, _ = read
    sums = step_sums(folder / DB)
    con = sqlite3.connect(f"{(folder / DB).resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    columns = {row[0]: row[1:] for row in con.execute(
        "SELECT id, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write FROM session")}
    con.close()
    assert len(sums) == 3
    for sid, want in sums.items():
        stats = sessions[sid].stats
        # §6: every row here has total = input + output + reasoning + cache: reasoning outside output.
        got = (stats["input_tokens"], stats["output_tokens"] - stats[REASONING_KEY], stats[REASONING_KEY],
               stats["cache_read_input_tokens"], stats["cache_creation_input_tokens"])
        assert got == (want["input"], want["output"], want["reasoning"], want["read"], want["write"])
        assert got == columns[sid]  # OpenCode's own totals agree on this database
        assert UNKNOWN_TOKENS_KEY not in stats


def test_lantern_exact_counts(read) -> None:
    _, sessions, _ = read
    expected = {  # records (7 messages and 19 parts in all), replies, prompts, tool_calls, tool_results, input, output
        "ses_03156b771ffeANj3CiDnYkqmmr": (7, 1, 1, 0, 0, 2050, 163),
        "ses_031559a74ffe4reBgr5U6MnTO4": (6, 1, 1, 0, 0, 2050, 867),
        "ses_031541bf9ffeMiy2LOFii47rch": (13, 2, 1, 1, 1, 4100, 955),
    }
    for sid, (records, replies, prompts, calls, results, given, output) in expected.items():
        s = sessions[sid].stats
        assert (s["records"], s["replies"], s["prompts"], s["tool_calls"], s["tool_results"], s["tool_errors"]) == \
            (records, replies, prompts, calls, results, 0)
        assert (s["input_tokens"], s["output_tokens"], s["subagents"]) == (given, output, 0)
        assert sessions[sid].cwd == "/work" and sessions[sid].versions == ["1.18.13"]
        assert sessions[sid].models == ["qwen3:0.6b"]
    fix = sessions["ses_031541bf9ffeMiy2LOFii47rch"]
    assert fix.title == "Fix average_item_price returns 0 when cart has no items"
    call = next(b for i in fix.timeline if isinstance(i, Reply) for b in i.blocks if isinstance(b, ToolCall))
    assert (call.name, call.input["filePath"]) == ("write", "src/orders.py")
    assert call.result.detail == {"title": "src/orders.py", "exists": True}
    assert fix.stats["files_changed"] == 1  # work.py: OpenCode's write names its file
    assert fix.started == "2026-08-04T21:26:39.367Z" and fix.ended == "2026-08-04T21:29:45.637Z"
    # A reasoning-only reply (no text part) is still a reply: a billed model turn (§9.4).
    quiet = sessions["ses_031559a74ffe4reBgr5U6MnTO4"]
    assert [b.kind for i in quiet.timeline if isinstance(i, Reply) for b in i.blocks] == ["thinking"]


def test_json_era_trees(read) -> None:
    _, sessions, _ = read
    large = sessions["s_stage0_large"]
    assert (large.stats["records"], large.stats["prompts"], large.stats["replies"]) == (15, 2, 2)
    assert (large.stats["input_tokens"], large.stats["output_tokens"], large.stats[UNKNOWN_TOKENS_KEY]) == (120, 16, 1)
    assert large.cwd == "/tmp/large" and large.versions == ["1.3.17"]
    # The aborted first reply: its message-level error becomes an interruption after it.
    assert [i.type for i in large.timeline if isinstance(i, Marker)] == ["interruption"]
    call = next(b for i in large.timeline if isinstance(i, Reply) for b in i.blocks if isinstance(b, ToolCall))
    assert call.result.detail["exit_code"] == 1 and not call.result.is_error  # §5: exit 1 is "completed"
    small = sessions["s_stage0_small"]
    assert (small.stats["records"], small.stats["tool_calls"], small.stats["tool_results"]) == (5, 1, 1)
    assert [type(i) for i in small.timeline] == [Prompt, Reply]  # parts without their ids: joined by folder
    drift = sessions["s_stage0_drift"]
    assert drift.stats["prompts"] == 0  # the user message has no text part: not a prompt (§9.3)
    assert (drift.stats["tool_calls"], drift.stats["tool_results"], drift.stats["tool_errors"]) == (1, 1, 0)
    assert drift.versions == ["0.1"] and drift.cwd == "/tmp/drift"
