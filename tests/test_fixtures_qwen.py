"""Real Qwen Code files from public repositories (../shared/fixtures/qwen), read in
place, never copied into the project. Skipped where this checkout has none beside it.

The lantern tree is a real ``~/.qwen`` (Qwen Code 0.21.6): its ``usage_record.jsonl``
is the CLI's own roll-up of each finished session, and every session's tokens must
equal its line (docs/formats-qwen.md §8.8)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bough_site.model import REASONING_KEY, InputWarning, Marker, Prompt, Reply, Session, ToolCall
from bough_site.readers.qwen import read_qwen_sessions
from bough_site.readers.qwen_layout import LAYOUT
from bough_site.readers.qwen_lines import GLUED
from bough_site.site import site_from_sessions

from .helpers import fixtures_dir

LANTERN = "lantern__v0.21.6__qwen-home"


@pytest.fixture(scope="module")
def folder() -> Path:
    return fixtures_dir("qwen")


@pytest.fixture(scope="module")
def lantern(folder: Path) -> tuple[list[Session], list[InputWarning]]:
    root = folder / LANTERN
    warnings: list[InputWarning] = []
    sessions = read_qwen_sessions(LAYOUT.find(root), warnings.append, label=LAYOUT.label)
    return sessions, warnings


@pytest.fixture(scope="module")
def singles(folder: Path) -> tuple[dict[str, Session], list[InputWarning]]:
    warnings: list[InputWarning] = []
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(".jsonl"))
    sessions = read_qwen_sessions(files, warnings.append, label=lambda p: p.name)
    return {s.id: s for s in sessions}, warnings


def usage_records(folder: Path) -> dict[str, dict]:
    lines = (folder / LANTERN / "usage_record.jsonl").read_bytes().splitlines()
    return {r["sessionId"]: r for r in map(orjson.loads, lines)}


def test_the_tree_is_found_labelled_and_grouped(folder: Path) -> None:
    root = folder / LANTERN
    assert LAYOUT.claims(root) and LAYOUT.claims(root / "projects") and LAYOUT.claims(root / "projects" / "-work")
    files = LAYOUT.find(root)
    labels = [LAYOUT.label(p) for p in files]
    assert labels == sorted(f"projects/-work/chats/{sid}.jsonl" for sid in
                            ("27d495d1-de2d-449d-af11-d42d4d6ef80d", "85aa748a-9159-4a4f-9f9b-1b2cea32fd5b",
                             "a719f84a-209d-406a-8e6c-dc671c9c0192", "c190cd9d-544a-49d6-ab6c-f38d501ca4b8"))
    units = LAYOUT.units(list(zip(labels, files)))
    assert len(units) == 1 and [name for name, _ in units[0][1]] == labels


def test_every_fixture_file_is_claimed_as_qwen(folder: Path) -> None:
    files = [p for p in folder.rglob("*.jsonl") if p.name != "usage_record.jsonl"]
    assert len(files) == 9 and all(LAYOUT.claims(p) for p in files)
    assert not LAYOUT.claims(folder / LANTERN / "usage_record.jsonl")


def test_every_sessions_tokens_equal_its_usage_record_line(folder: Path, lantern) -> None:
    """§8.8: the CLI's own totals. Rule 6 before the input − cached subtraction:
    input = fresh + cache reads; output with thoughts inside."""
    sessions, warnings = lantern
    records = usage_records(folder)
    assert warnings == [] and len(sessions) == 4
    for session in sessions:
        (model, figures), = records[session.id]["models"].items()
        s = session.stats
        assert session.models == [model]
        assert s["input_tokens"] + s["cache_read_input_tokens"] == figures["inputTokens"]
        assert s["cache_read_input_tokens"] == figures["cachedTokens"]
        assert s["output_tokens"] == figures["outputTokens"]
        assert s[REASONING_KEY] == figures["thoughtsTokens"]
        assert s["replies"] == figures["requests"]
        assert s["input_tokens"] + s["cache_read_input_tokens"] + s["output_tokens"] == figures["totalTokens"]
        tools = records[session.id]["tools"]
        assert (s["tool_calls"], s["tool_errors"]) == (tools["totalCalls"], tools["totalFail"])


def test_the_exact_numbers_of_each_lantern_session(lantern) -> None:
    sessions, _ = lantern
    got = {s.id[:8]: tuple(s.stats[k] for k in ("records", "prompts", "replies", "tool_calls", "tool_results",
                                                 "tool_errors", "subagents", "input_tokens", "output_tokens",
                                                 REASONING_KEY))
           for s in sessions}
    assert got == {
        "a719f84a": (9, 1, 3, 3, 3, 2, 1, 6150, 884, 883),
        "c190cd9d": (16, 1, 4, 3, 3, 3, 0, 8200, 1375, 1356),
        "85aa748a": (8, 1, 2, 1, 1, 1, 0, 4100, 1296, 1138),
        "27d495d1": (13, 1, 4, 2, 2, 1, 0, 8200, 2098, 2047),
    }
    assert {s.cwd for s in sessions} == {"/work"} and {tuple(s.versions) for s in sessions} == {("0.21.6",)}


def test_the_retried_response_shows_with_its_tokens(lantern) -> None:
    """27d495d1: four calls, three assistant records; the third call's 767 output
    tokens are only in its telemetry (a thought-only response, retried)."""
    sessions, _ = lantern
    session = next(s for s in sessions if s.id.startswith("27d495d1"))
    replies = [i for i in session.timeline if isinstance(i, Reply)]
    assert [r.usage.output_tokens for r in replies] == [846, 194, 767, 291]
    assert replies[2].blocks == []
    assert sum(isinstance(i, Marker) for i in session.timeline) == 1


def test_the_background_sub_agent_is_an_orphan_run(lantern) -> None:
    """a719f84a: the memory extractor's two calls and three tool calls are only
    telemetry; no call of the main chat started it."""
    sessions, _ = lantern
    session = next(s for s in sessions if s.id.startswith("a719f84a"))
    (run,) = session.orphan_subagents
    assert (run.agent_id, run.agent_type) == ("managed-auto-memory-extractor-17ab3895", "managed-auto-memory-extractor")
    assert (run.stats["replies"], run.stats["input_tokens"], run.stats["output_tokens"]) == (2, 4100, 755)
    names = [b.name for i in run.timeline if isinstance(i, Reply) for b in i.blocks if isinstance(b, ToolCall)]
    assert names == ["list_directory", "read_file", "list_directory"]


def test_splitrail_mock_session_counts_cache_inside_the_prompt(singles) -> None:
    sessions, _ = singles
    s = sessions["69f0814a-8bfc-4c8e-93d3-05757f17b96f"].stats
    assert (s["input_tokens"], s["cache_read_input_tokens"], s["output_tokens"], s["replies"]) == (1050, 50, 25, 2)
    assert (s["tool_calls"], s["tool_results"], s["tool_errors"], s["prompts"]) == (1, 1, 1, 1)


def test_the_synthetic_traps(singles) -> None:
    sessions, warnings = singles
    hook = sessions["019f0000-0000-7000-8000-000000000001"]
    prompt = next(i for i in hook.timeline if isinstance(i, Prompt))
    assert [c.text for c in prompt.content] == ["Inspect the synthetic fixture."]
    assert (hook.stats["prompts"], hook.stats["replies"], hook.stats["tool_calls"], hook.stats["tool_results"]) == (1, 2, 1, 1)
    assert hook.git_branch == "fixture-branch"
    chain = sessions["019f0000-0000-7000-8000-000000000004"]
    assert (chain.title, chain.stats["prompts"], chain.stats["replies"], chain.stats["records"]) == (
        "Active branch title", 2, 2, 8)
    replies = [i for i in chain.timeline if isinstance(i, Reply)]
    assert [r.removed for r in replies] == ["rewound", None]
    assert (chain.stats["input_tokens"], chain.stats["output_tokens"]) == (12, 4)
    glued = sessions["019f0000-0000-7000-8000-000000000005"]
    assert (glued.stats["records"], glued.stats["lines"], glued.stats["prompts"], glued.stats["replies"]) == (2, 1, 1, 1)
    assert any(w.reason == GLUED for w in warnings)


def test_the_site_adds_the_sessions_up(lantern) -> None:
    sessions, _ = lantern
    site = site_from_sessions(sessions)
    assert site.stats["input_tokens"] == 26_650 and site.stats["output_tokens"] == 5_653
    assert len(site.projects) == 1 and site.projects[0].cwd == "/work"
