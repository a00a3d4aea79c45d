"""Real GitHub Copilot CLI sessions from public repositories (../shared/fixtures/copilot),
read in place, never copied into the project. Skipped where this checkout has none beside it.

The tokens are checked against the CLI's own records: each session's ``session.shutdown``
``modelMetrics`` (docs/formats-copilot.md §8)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bough_site.model import Marker, Prompt, Reply, Session, ToolCall, InputWarning
from bough_site.plan.units import COPILOT, Unit
from bough_site.readers import copilot
from bough_site.readers.copilot_layout import LAYOUT
from bough_site.sidecars import session_json
from bough_site.site import site_from_sessions
from bough_site.work import summarize_work

from .helpers import fixtures_dir

VCT = "96ef38f0-9d09-45c3-8124-6448c36090ed"
LEGACY = "06141331-92e8-4e9e-8bbb-9b7a729eb01a"
LANTERN_EDIT = "049410b4-c1df-44ee-87a5-caa1c349091e"
LANTERN_GREP = "f27af309-ccf3-41da-8f07-b3dcbffd4c90"
ZOO = "copilot_stage0_small"


@pytest.fixture(scope="module")
def read() -> tuple[dict[str, Session], list[InputWarning], list[tuple[str, list]]]:
    folder = fixtures_dir("copilot")
    files: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if LAYOUT.claims(path):
            files += [f for f in LAYOUT.find(path) if f not in files]
    groups = LAYOUT.units([(LAYOUT.label(f), f) for f in files])
    warnings: list[InputWarning] = []
    sessions: dict[str, Session] = {}
    for key, group in groups:
        unit = Unit(key, COPILOT, tuple(str(p) for _, p in group), tuple(name for name, _ in group))
        for session in copilot.read_unit(unit, warnings.append, None):
            summarize_work(session)
            sessions[session.id] = session
    return sessions, warnings, groups


def replies(session: Session) -> list[Reply]:
    return [i for i in session.timeline if isinstance(i, Reply)]


def calls(session: Session) -> list[ToolCall]:
    return [b for r in replies(session) for b in r.blocks if isinstance(b, ToolCall)]


def shutdown(name: str) -> dict:
    """The fixture's own last session.shutdown, as the CLI wrote it."""
    path = next(p for p in fixtures_dir("copilot").rglob("*.jsonl") if name in str(p))
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return [r for r in lines if r.get("type") == "session.shutdown"][-1]["data"]


def test_every_form_is_found_once_in_its_own_unit(read) -> None:
    sessions, _, groups = read
    assert sorted(sessions) == sorted([VCT, LEGACY, LANTERN_EDIT, LANTERN_GREP, ZOO])
    labels = sorted(name for _, group in groups for name, _ in group)
    assert labels == [
        "history-session-state/vibecodingtracker__legacy-2025-10__test_conversation_copilot.json",
        f"session-state/{LANTERN_EDIT}/events.jsonl",
        f"session-state/{LANTERN_EDIT}/workspace.yaml",
        "session-state/agent-sessions__v1.0.x-zoo__small.jsonl",
        f"session-state/{LANTERN_GREP}/events.jsonl",
        "session-state/vibecodingtracker__v1.0.34__test_conversation_copilot.jsonl",
    ]


def test_vct_tokens_are_its_shutdown_metrics(read) -> None:
    """1.0.34: 6 requests, 186,809 input of which 151,738 cache reads, 2,848 output."""
    session = read[0][VCT]
    usage = shutdown("vibecodingtracker__v1.0.34")["modelMetrics"]["claude-sonnet-4.6"]["usage"]
    assert (usage["inputTokens"], usage["cacheReadTokens"], usage["outputTokens"]) == (186_809, 151_738, 2_848)
    stats = session.stats
    # §8.2: inputTokens includes the cache reads and writes; bough's input is the fresh part.
    assert stats["input_tokens"] == 186_809 - 151_738 - 0 == 35_071
    assert stats["cache_read_input_tokens"] == 151_738
    assert stats["cache_creation_input_tokens"] == 0
    assert stats["output_tokens"] == 2_848 == sum(r.usage.output_tokens for r in replies(session))
    assert stats["reasoning_output_tokens"] == 0
    assert stats["replies"] == 6 == shutdown("vibecodingtracker__v1.0.34")["modelMetrics"]["claude-sonnet-4.6"][
        "requests"]["count"]
    assert [r.usage.output_tokens for r in replies(session)] == [311, 170, 141, 153, 1379, 694]


def test_vct_prompts_calls_and_the_autopilot_nudge(read) -> None:
    session = read[0][VCT]
    # One typed prompt; the autopilot nudge (content "", text only in transformedContent) is a note.
    assert session.stats["prompts"] == 1
    prompts = [i for i in session.timeline if isinstance(i, Prompt)]
    assert prompts[0].content[0].text.startswith("請不要修改任何代碼")
    nudge = [i for i in session.timeline if isinstance(i, Marker) and "autopilot continuation" in i.text]
    assert len(nudge) == 1 and "task_complete" in nudge[0].text
    # 11 distinct toolCallIds (PROVENANCE.md says 13: the file has 11; docs/formats-copilot.md §12).
    assert session.stats["tool_calls"] == session.stats["tool_results"] == 11
    assert session.stats["tool_errors"] == 0
    names = [c.name for c in calls(session)]
    assert names.count("report_intent") == 1 and names.count("task_complete") == 1
    assert names.count("web_search") == 3 and names.count("view") == 4 and names.count("bash") == 2
    assert [c.result.detail["exit_code"] for c in calls(session) if c.name == "bash"] == [0, 0]
    # The system prompt, twice, is a note (never a prompt), 37,833 characters each.
    system = [i for i in session.timeline if isinstance(i, Marker) and i.text.startswith("System message")]
    assert len(system) == 2 and all(len(i.text) == len("System message:\n\n") + 37_833 for i in system)
    assert session.cwd == "/home/wei/repo/VibeCodingTracker"
    assert session.git_branch == "refactor/gemini-copilot-new-formats"
    assert session.versions == ["1.0.34"] and session.models == ["claude-sonnet-4.6"]
    assert all(r.model == "claude-sonnet-4.6" for r in replies(session))  # from session.model_change


def test_lantern_tokens_equal_their_shutdowns(read) -> None:
    for session_id, output, first in ((LANTERN_EDIT, 978, 470), (LANTERN_GREP, 431, 266)):
        session = read[0][session_id]
        recorded = shutdown(session_id)["modelMetrics"]["qwen3:0.6b"]
        assert recorded["usage"]["inputTokens"] == 4_100 and recorded["usage"]["outputTokens"] == output
        assert session.stats["input_tokens"] == 4_100  # no cache: all of it fresh
        assert session.stats["output_tokens"] == output
        assert session.stats["cache_read_input_tokens"] == session.stats["cache_creation_input_tokens"] == 0
        assert session.stats["replies"] == recorded["requests"]["count"] == 2
        assert replies(session)[0].usage.output_tokens == first


def test_lantern_failed_calls_are_errors_with_the_message(read) -> None:
    session = read[0][LANTERN_EDIT]
    assert (session.stats["tool_calls"], session.stats["tool_results"], session.stats["tool_errors"]) == (2, 2, 2)
    for call in calls(session):
        assert call.result is not None and call.result.is_error
        assert call.result.content[0].text == '"path": Required'
        assert call.result.detail == {"code": "failure"}
    # workspace.yaml names the session; cwd and branch agree with session.start.
    assert session.title == "In src/orders.py make average_item_price return 0 when the cart has no items."
    assert (session.cwd, session.git_branch) == ("/work", "master")
    assert session.files == [f"session-state/{LANTERN_EDIT}/events.jsonl", f"session-state/{LANTERN_EDIT}/workspace.yaml"]
    grep = read[0][LANTERN_GREP]
    assert (grep.stats["tool_calls"], grep.stats["tool_errors"]) == (1, 0)
    assert calls(grep)[0].result.content[0].text == "No matches found."


def test_legacy_session_counts_and_all_tokens_unknown(read) -> None:
    session = read[0][LEGACY]
    stats = session.stats
    assert (stats["records"], stats["prompts"], stats["replies"]) == (99, 1, 37)
    assert (stats["tool_calls"], stats["tool_results"], stats["tool_errors"]) == (59, 59, 0)
    for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                "reasoning_output_tokens"):
        assert stats[key] is None
    assert session.cwd == "/home/wei/repo/VibeCodingTracker"  # from its cd commands (§9)
    assert session.models == [] and session.versions == []


def test_zoo_has_no_usable_usage_so_its_input_is_unknown(read) -> None:
    session = read[0][ZOO]
    stats = session.stats
    # requests as a bare number and no usage (synthetic part): input, cache, reasoning unknown.
    assert stats["input_tokens"] is None and stats["cache_read_input_tokens"] is None
    assert stats["reasoning_output_tokens"] is None
    assert stats["output_tokens"] == 15  # 12 + 3 + the trimmed part's zeros
    assert stats["prompts"] == 2 and stats["subagents"] == 1
    # The trimmed sub-agent (parentToolCallId) is a run of its own; its parent call is not in the file.
    assert len(session.orphan_subagents) == 1
    run = session.orphan_subagents[0]
    assert run.stats["replies"] == 1 and run.stats["input_tokens"] is None
    assert any(isinstance(i, Marker) and i.type == "interruption" for i in session.timeline)
    assert sum(isinstance(i, Marker) and "resumed" in i.text for i in session.timeline) == 2


def test_sidecars_say_null_and_the_project_says_how_many_it_leaves_out(read) -> None:
    sessions = read[0]
    site = site_from_sessions([sessions[VCT], sessions[LEGACY]])
    (project,) = site.projects  # the legacy session's recovered directory is vct's
    assert project.stats["input_tokens"] == 35_071
    assert project.stats["output_tokens"] == 2_848
    assert project.stats["sessions_with_unknown_input_tokens"] == 1
    assert project.stats["sessions_with_unknown_output_tokens"] == 1
    assert site.stats["sessions_with_unknown_cache_read_input_tokens"] == 1
    legacy = next(s for s in project.sessions if s.id == LEGACY)
    data = orjson.loads(orjson.dumps(session_json(project, legacy)))
    assert data["stats"]["input_tokens"] is None
    first_reply = next(i for i in data["timeline"] if i["kind"] == "reply")
    assert first_reply["usage"]["output_tokens"] is None
    vct = next(s for s in project.sessions if s.id == VCT)
    reply = next(i for i in orjson.loads(orjson.dumps(session_json(project, vct)))["timeline"] if i["kind"] == "reply")
    assert reply["usage"] == {"input_tokens": None, "output_tokens": 311, "cache_creation_input_tokens": None,
                              "cache_read_input_tokens": None, "reasoning_output_tokens": None}


def test_no_unexpected_warnings(read) -> None:
    _, warnings, _ = read
    # Only the zoo's trimmed lines ("[trimmed for fixture]" timestamps) are damaged.
    assert {w.file for w in warnings} == {"session-state/agent-sessions__v1.0.x-zoo__small.jsonl"}
    assert sorted(w.line for w in warnings if "timestamp" in w.reason) == list(range(17, 33))
