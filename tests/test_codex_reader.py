"""The Codex reader, one rule per test, on small rollouts written here; then the
shared real rollouts (skipped where this checkout has no shared fixtures)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site.model import Marker, Prompt, Reply, Session, Text, Thinking, ToolCall, InputWarning
from bough_site.readers.codex import read_codex_sessions
from bough_site.readers.codex_rollouts import find_rollouts, is_codex_rollout
from bough_site.readers.values import BAD_TIME

from .helpers import fixtures_dir

CWD = "/home/ada/src/tidepool"
FERNET = "gAAAAABm" + "Q" * 120


# --- helpers: rollout lines ------------------------------------------------------------


def line(kind: str, payload: dict[str, Any], ts: str = "2026-03-01T10:00:00.000Z", **extra: Any) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload, **extra}


def meta(tid: str, cwd: str = CWD, ts: str = "2026-03-01T10:00:00.000Z", **extra: Any) -> dict[str, Any]:
    payload = {"id": tid, "timestamp": ts, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.128.0",
               "source": "cli", "git": {"branch": "main"}}
    return line("session_meta", {**payload, **extra}, ts)


def message(role: str, text: str, ts: str = "2026-03-01T10:00:01.000Z") -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return line("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}, ts)


def event(kind: str, ts: str = "2026-03-01T10:00:01.000Z", **fields: Any) -> dict[str, Any]:
    return line("event_msg", {"type": kind, **fields}, ts)


def user_turn(text: str, ts: str = "2026-03-01T10:00:02.000Z") -> list[dict[str, Any]]:
    """A typed prompt as event-era files hold it: the item and its event mirror."""
    return [message("user", text, ts), event("user_message", ts, message=text, images=[])]


def turn_context(model: str = "gpt-5.4", ts: str = "2026-03-01T10:00:02.500Z") -> dict[str, Any]:
    return line("turn_context", {"cwd": CWD, "model": model, "approval_policy": "on-request",
                                 "sandbox_policy": {"type": "workspace-write"}, "summary": "auto"}, ts)


def reasoning(text: str, ts: str = "2026-03-01T10:00:03.000Z") -> dict[str, Any]:
    return line("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
                                  "content": None, "encrypted_content": FERNET}, ts)


def usage(inp: int, cached: int = 0, out: int = 0, reason: int = 0, write: int = 0) -> dict[str, int]:
    return {"input_tokens": inp, "cached_input_tokens": cached, "cache_write_input_tokens": write,
            "output_tokens": out, "reasoning_output_tokens": reason, "total_tokens": inp + out}


def tokens(total: dict[str, int] | None, last: dict[str, int] | None = None, ts: str = "2026-03-01T10:00:04.000Z") -> dict[str, Any]:
    info = None if total is None else {"total_token_usage": total, "last_token_usage": last or total,
                                       "model_context_window": 272000}
    return event("token_count", ts, info=info, rate_limits={"primary": {"used_percent": 3.0}})


def call(call_id: str, name: str, arguments: Any, ts: str = "2026-03-01T10:00:05.000Z") -> dict[str, Any]:
    return line("response_item", {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id}, ts)


def output(call_id: str, text: Any, ts: str = "2026-03-01T10:00:06.000Z") -> dict[str, Any]:
    return line("response_item", {"type": "function_call_output", "call_id": call_id, "output": text}, ts)


def write(path: Path, lines: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in lines)
    path.write_text(text, encoding="utf-8")
    return path


def rollout(tmp: Path, tid: str, lines: list[Any], day: str = "2026/03/01") -> Path:
    return write(tmp / "sessions" / day / f"rollout-2026-03-01T10-00-00-{tid}.jsonl", lines)


def read(*paths: Path, codex_home: Path | None = None) -> tuple[list[Session], list[InputWarning]]:
    warnings: list[InputWarning] = []
    home = codex_home or Path("/nonexistent/.codex")
    sessions = read_codex_sessions(list(paths), warnings.append, label=lambda p: p.name, codex_home=home)
    return sessions, warnings


def only(*paths: Path, **kwargs: Any) -> Session:
    sessions, warnings = read(*paths, **kwargs)
    assert len(sessions) == 1, [s.id for s in sessions]
    return sessions[0]


def replies(session: Session) -> list[Reply]:
    return [item for item in session.timeline if isinstance(item, Reply)]


def prompts(session: Session) -> list[Prompt]:
    return [item for item in session.timeline if isinstance(item, Prompt)]


def calls(items: list[Any]) -> dict[str, ToolCall]:
    return {b.id: b for item in items if isinstance(item, Reply) for b in item.blocks if isinstance(b, ToolCall)}


# --- mirrors, tokens ------------------------------------------------------------------------


def test_each_mirrored_item_is_shown_and_counted_once(tmp_path: Path) -> None:
    path = rollout(tmp_path, "t1", [
        meta("t1"), *user_turn("Fix the tide table"), turn_context(),
        event("agent_reasoning", text="Looking"), reasoning("Looking"),
        event("agent_message", message="Done."), message("assistant", "Done.", "2026-03-01T10:00:03.500Z"),
        tokens(usage(100, 20, 10, 4)),
    ])
    session = only(path)
    assert session.stats["prompts"] == 1
    assert session.stats["records"] == 3  # user item, reasoning, assistant message; events are not records
    assert [p.content[0].text for p in prompts(session)] == ["Fix the tide table"]
    (reply,) = replies(session)
    assert [type(b) for b in reply.blocks] == [Thinking, Text]


def test_reemitted_token_counts_are_skipped_and_usage_is_the_delta(tmp_path: Path) -> None:
    first, second = usage(1000, 800, 50, 10), usage(2500, 2000, 130, 30)
    path = rollout(tmp_path, "t1", [
        meta("t1"), *user_turn("go"), turn_context(),
        reasoning("a"), tokens(first), tokens(first), tokens(first),  # two re-emits
        reasoning("b", "2026-03-01T10:00:07.000Z"), tokens(second, ts="2026-03-01T10:00:08.000Z"), tokens(second),
    ])
    session = only(path)
    stats = session.stats
    assert stats["replies"] == 2
    assert stats["input_tokens"] + stats["cache_read_input_tokens"] == 2500
    assert (stats["cache_read_input_tokens"], stats["output_tokens"], stats["reasoning_output_tokens"]) == (2000, 130, 30)
    assert [r.usage.input_tokens for r in replies(session)] == [200, 300]  # fresh input per call: (1000-800), (1500-1200)
    assert session.tally.has_reasoning


def test_first_token_event_with_null_info_is_no_reply(tmp_path: Path) -> None:
    path = rollout(tmp_path, "t1", [meta("t1"), *user_turn("go"), tokens(None), reasoning("a"), tokens(usage(10, 0, 2))])
    assert only(path).stats["replies"] == 1


def test_cache_writes_are_cache_creation_and_not_fresh_input(tmp_path: Path) -> None:
    path = rollout(tmp_path, "t1", [meta("t1"), reasoning("a"), tokens(usage(1000, 600, 10, 0, write=100))])
    stats = only(path).stats
    assert (stats["input_tokens"], stats["cache_read_input_tokens"], stats["cache_creation_input_tokens"]) == (300, 600, 100)


def test_token_usage_records_and_token_counts_never_both(tmp_path: Path) -> None:
    record = lambda rid, u: line("token_usage_record", {"thread_id": "t1", "response_id": rid, "usage": u})  # noqa: E731
    path = rollout(tmp_path, "t1", [
        meta("t1"), reasoning("a"), tokens(usage(100, 0, 5)), record("r1", usage(100, 0, 5)),
        reasoning("b"), tokens(usage(300, 0, 12)), record("r2", usage(200, 0, 7)),
        record("r0", usage(999, 0, 9)) | {"payload": {"thread_id": "parent", "response_id": "r0", "usage": usage(999)}},
    ])
    stats = only(path).stats
    assert stats["replies"] == 2  # by response_id; the copied record of another thread is not this one's
    assert (stats["input_tokens"], stats["output_tokens"]) == (300, 12)


# --- prompts -------------------------------------------------------------------------------------


def test_injected_context_is_cut_out_and_prompts_counted_exactly(tmp_path: Path) -> None:
    env = f"<environment_context>\n  <cwd>{CWD}</cwd>\n</environment_context>"
    agents = f"# AGENTS.md instructions for {CWD}\n\n<INSTRUCTIONS>\nRun tests.\n</INSTRUCTIONS>"
    path = rollout(tmp_path, "t1", [  # a newer file: no user_message events
        meta("t1"),
        message("user", agents),
        message("user", env),
        message("user", "<user_instructions>\nBe brief.\n</user_instructions>"),
        message("user", "<user_shell_command>\nls\n</user_shell_command>"),
        message("user", env + "\nPlease add a --dry-run flag."),
        message("user", agents + "\n" + env),
        message("user", "And document it."),
    ])
    session = only(path)
    assert session.stats["prompts"] == 2
    assert [p.content[0].text for p in prompts(session)] == ["Please add a --dry-run flag.", "And document it."]
    assert [p.anchor for p in prompts(session)] == ["p1", "p2"]


def test_developer_messages_are_instructions_not_prompts(tmp_path: Path) -> None:
    path = rollout(tmp_path, "t1", [meta("t1"), message("developer", "Always run the tests."), message("user", "Fix it")])
    session = only(path)
    assert session.stats["prompts"] == 1
    assert session.stats["records"] == 2


def test_files_with_user_message_events_take_prompts_from_them_only(tmp_path: Path) -> None:
    # Sanitized real files hide the injected tags; only the event marks a typed prompt.
    path = rollout(tmp_path, "t1", [
        meta("t1"), message("user", "[REDACTED_TEXT len=3017]"), message("user", "[REDACTED_TEXT len=108]"),
        *user_turn("[REDACTED_MESSAGE len=86]"),
    ])
    assert only(path).stats["prompts"] == 1


# --- tools ------------------------------------------------------------------------------------------


def test_calls_and_outputs_are_joined_on_call_id_in_any_order(tmp_path: Path) -> None:
    path = rollout(tmp_path, "t1", [
        meta("t1"), *user_turn("go"),
        output("c0", "early output"),  # an output before its call
        reasoning("parallel"),
        call("c1", "exec_command", json.dumps({"cmd": "pytest -q"})),
        call("c2", "exec_command", json.dumps({"cmd": "ls"})),
        call("c0", "exec_command", json.dumps({"cmd": "pwd"})),
        tokens(usage(10, 0, 1)),
        output("c2", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc"),
        output("c1", "Exit code: 0\nWall time: 0.4 seconds\nOutput:\n3 passed"),
    ])
    session = only(path)
    found = calls(session.timeline)
    assert found["c1"].result.content[0].text.endswith("3 passed")
    assert found["c2"].result.content[0].text.endswith("src")
    assert found["c0"].result.content[0].text == "early output"
    assert (session.stats["tool_calls"], session.stats["tool_results"], session.stats["tool_errors"]) == (3, 3, 0)


def test_tool_inputs_from_json_strings_garbage_and_each_tool_shape(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n"
    path = rollout(tmp_path, "t1", [
        meta("t1"),
        call("c1", "exec_command", json.dumps({"cmd": "pytest -q", "workdir": "/w"})),
        call("c2", "shell", json.dumps({"command": ["bash", "-lc", "rg -n foo src"], "workdir": "/w"})),
        call("c3", "my_tool", "{not json"),
        call("c4", "update_plan", json.dumps({"plan": [{"step": "a", "status": "pending"}]})),
        line("response_item", {"type": "custom_tool_call", "call_id": "c5", "name": "apply_patch", "input": patch}),
        line("response_item", {"type": "local_shell_call", "call_id": "c6", "status": "completed",
                               "action": {"type": "exec", "command": ["git", "status"], "working_directory": "/w"}}),
        line("response_item", {"type": "web_search_call", "id": "ws1", "status": "completed",
                               "action": {"type": "search", "query": "tide tables"}}),
        call("c7", "spawn_agent", json.dumps({"task_name": "audit", "message": FERNET})),
    ])
    found = calls(only(path).timeline)
    assert (found["c1"].name, found["c1"].input) == ("exec_command", {"command": "pytest -q", "workdir": "/w"})
    assert (found["c2"].name, found["c2"].input) == ("shell", {"command": "rg -n foo src", "workdir": "/w"})
    assert found["c3"].input == "{not json"
    assert found["c4"].input == {"plan": [{"step": "a", "status": "pending"}]}
    assert (found["c5"].name, found["c5"].input) == ("apply_patch", {"patch": patch})
    assert (found["c6"].name, found["c6"].input) == ("local_shell", {"command": "git status", "workdir": "/w"})
    assert (found["ws1"].name, found["ws1"].input) == ("web_search", {"query": "tide tables"})
    assert "gAAAA" not in json.dumps(found["c7"].input) and "audit" in found["c7"].input["message"]


def test_tool_errors_from_exit_codes_and_reported_failures(tmp_path: Path) -> None:
    path = rollout(tmp_path, "t1", [
        meta("t1"),
        *(call(f"c{i}", "shell", "{}") for i in range(1, 6)),
        output("c1", "Exit code: 2\nWall time: 0.2 seconds\nOutput:\nboom"),
        output("c2", json.dumps({"output": "E   fail", "metadata": {"exit_code": 1, "duration_seconds": 0.3}})),
        output("c3", "Chunk ID: ab12\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok"),
        output("c4", "ok, although the log says\n\n\n\n\nExit code: 1"),
        output("c5", [{"type": "input_text", "text": "Exit code: 127\nOutput:\nnot found"}]),
    ])
    session = only(path)
    assert session.stats["tool_errors"] == 3
    assert [c.result.is_error for c in calls(session.timeline).values()] == [True, True, False, False, True]


# --- forks and sub-agents ----------------------------------------------------------------------------


def parent_lines(tid: str = "P") -> list[dict[str, Any]]:
    return [
        meta(tid), message("developer", "sandbox rules"), *user_turn("Fix the tide table"), turn_context(),
        tokens(None), reasoning("Reading tides.py"),
        call("p1", "shell", json.dumps({"command": ["pytest", "-q"]})), tokens(usage(1000, 800, 40, 8)),
        output("p1", "Exit code: 0\nOutput:\nok"), tokens(usage(1000, 800, 40, 8)),
        message("assistant", "Fixed."), tokens(usage(2200, 1800, 70, 12)),
    ]


def copy_of(lines: list[dict[str, Any]], ts: str) -> list[dict[str, Any]]:
    """The parent's lines as a fork writes them: same payloads, new timestamps."""
    return [{**item, "timestamp": ts} for item in lines]


def test_fork_prefix_is_matched_by_content_despite_rewritten_times(tmp_path: Path) -> None:
    parent = parent_lines()
    later = [*user_turn("And the README", "2026-03-01T12:00:00.000Z"), reasoning("r"), tokens(usage(4000, 3000, 90, 20))]
    own = [
        message("developer", "sandbox rules", "2026-03-01T11:00:01.000Z"),
        *user_turn("Try another approach", "2026-03-01T11:00:02.000Z"), turn_context(),
        reasoning("Other idea", "2026-03-01T11:00:03.000Z"),
        call("f1", "shell", json.dumps({"command": ["ls"]}), "2026-03-01T11:00:04.000Z"),
        tokens(usage(3200, 2600, 100, 20), usage(1000, 800, 30, 8), "2026-03-01T11:00:05.000Z"),
        output("f1", "Exit code: 0\nOutput:\nsrc", "2026-03-01T11:00:06.000Z"),
    ]
    p = rollout(tmp_path, "P", parent + later)  # the parent went on after the fork
    f = rollout(tmp_path, "F", [meta("F", ts="2026-03-01T11:00:00.000Z", session_id="P", forked_from_id="P"),
                                *copy_of(parent, "2026-03-01T11:00:00.000Z"), *own])
    sessions, warnings = read(p, f)
    assert warnings == []
    fork = next(s for s in sessions if s.id == "F")
    first = fork.timeline[0]
    assert isinstance(first, Marker) and (first.type, first.ref_session, first.count) == ("inherited", "P", len(parent))
    assert fork.parent_id == "P"
    stats = fork.stats
    assert stats["records"] == 5  # developer, user, reasoning, call, output: the copy is not counted again
    assert (stats["prompts"], stats["replies"], stats["tool_calls"], stats["tool_results"]) == (1, 1, 1, 1)
    assert (stats["input_tokens"], stats["cache_read_input_tokens"], stats["output_tokens"]) == (200, 800, 30)
    assert stats["lines"] == 1 + len(parent) + len(own)
    assert fork.started == "2026-03-01T11:00:00.000Z"
    assert [p.content[0].text for p in prompts(fork)] == ["Try another approach"]
    original = next(s for s in sessions if s.id == "P")
    assert original.stats["prompts"] == 2 and original.stats["replies"] == 3


def test_fork_without_its_parent_uses_ordinals_and_says_so(tmp_path: Path) -> None:
    copied = [{**item, "ordinal": n} for n, item in enumerate(copy_of(parent_lines(), "2026-03-01T11:00:00.000Z"))]
    own = [{**item, "ordinal": 100 + n} for n, item in enumerate(
        [*user_turn("Again", "2026-03-01T11:00:00.000Z"), reasoning("x", "2026-03-01T11:00:00.000Z"),
         tokens(usage(2500, 1800, 80, 12), ts="2026-03-01T11:00:00.000Z")])]
    f = rollout(tmp_path, "F", [meta("F", forked_from_id="P", forked_from_ordinal_exclusive=len(copied)), *copied, *own])
    session, = read(f)[0]
    _, warnings = read(f)
    assert any("not among the inputs" in w.reason and "ordinals" in w.reason for w in warnings)
    assert (session.stats["records"], session.stats["prompts"], session.stats["replies"]) == (2, 1, 1)
    assert session.stats["input_tokens"] + session.stats["cache_read_input_tokens"] == 300


def test_fork_without_parent_or_ordinals_uses_the_token_baseline(tmp_path: Path) -> None:
    f = rollout(tmp_path, "F", [
        meta("F", forked_from_id="P"), *copy_of(parent_lines(), "2026-03-01T11:00:00.000Z"),
        *user_turn("Again", "2026-03-01T11:00:09.000Z"), reasoning("x", "2026-03-01T11:00:10.000Z"),
        tokens(usage(2500, 1800, 80, 12), ts="2026-03-01T11:00:11.000Z"),
    ])
    (session,), warnings = read(f)
    assert any("not among the inputs" in w.reason and "token totals" in w.reason for w in warnings)
    assert session.stats["replies"] == 1 and session.stats["output_tokens"] == 10


def subagent_lines(parent: list[dict[str, Any]], **source: Any) -> list[dict[str, Any]]:
    spawn = {"parent_thread_id": "P", "depth": 1, "agent_path": "/root/audit", "agent_nickname": "Hopper",
             "agent_role": "explorer", **source}
    envelope = "Message Type: NEW_TASK\nTask name: /root/audit\nSender: /root\nPayload:\n"
    return [
        meta("C", ts="2026-03-01T10:30:00.000Z", session_id="P", source={"subagent": {"thread_spawn": spawn}}),
        *copy_of(parent, "2026-03-01T10:30:00.000Z"),
        line("response_item", {"type": "agent_message", "author": "/root", "recipient": "/root/audit",
                               "content": [{"type": "input_text", "text": envelope},
                                           {"type": "encrypted_content", "encrypted_content": FERNET}]},
             "2026-03-01T10:30:01.000Z"),
        turn_context(ts="2026-03-01T10:30:01.500Z"), reasoning("auditing", "2026-03-01T10:30:02.000Z"),
        call("k1", "exec_command", json.dumps({"cmd": "rg sleep tests"}), "2026-03-01T10:30:03.000Z"),
        tokens(usage(3000, 2000, 90, 20), ts="2026-03-01T10:30:04.000Z"),
        output("k1", "Exit code: 0\nOutput:\ntests/a.py:3", "2026-03-01T10:30:05.000Z"),
        message("assistant", "One sleep found.", "2026-03-01T10:30:06.000Z"),
        tokens(usage(4000, 3000, 120, 30), ts="2026-03-01T10:30:07.000Z"),
    ]


def spawning_parent() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    before = [*parent_lines(), *user_turn("Audit the tests with a helper", "2026-03-01T10:29:00.000Z"),
              reasoning("spawning", "2026-03-01T10:29:30.000Z"),
              call("s1", "spawn_agent", json.dumps({"task_name": "audit", "message": FERNET}), "2026-03-01T10:29:59.000Z")]
    after = [tokens(usage(2600, 2000, 90, 15), ts="2026-03-01T10:30:00.100Z"),
             output("s1", json.dumps({"agent_id": "C", "nickname": "Hopper"}), "2026-03-01T10:30:00.200Z")]
    return before, after


def test_subagent_is_nested_under_its_spawn_call_and_counted_as_spend(tmp_path: Path) -> None:
    before, after = spawning_parent()
    p = rollout(tmp_path, "P", before + after)
    c = rollout(tmp_path, "C", subagent_lines(before))
    sessions, warnings = read(p, c)
    assert warnings == []
    (session,) = sessions  # the sub-agent is not a session of its own
    run = calls(session.timeline)["s1"].subagent
    assert run is not None and run.agent_id == "C" and run.agent_type == "explorer" and run.description == "Hopper"
    assert run.timeline[0].type == "inherited" and run.timeline[0].count == len(before)
    notice = run.timeline[1]
    assert "/root/audit" in notice.text and "gAAAA" not in notice.text
    own = run.stats
    assert (own["records"], own["replies"], own["tool_calls"], own["prompts"]) == (5, 2, 1, 0)
    # Baseline: the copied totals (2200 in, 1800 cached, 70 out); own calls end at 4000/3000/120.
    assert (own["input_tokens"], own["cache_read_input_tokens"], own["output_tokens"]) == (600, 1200, 50)
    stats = session.stats
    assert stats["subagents"] == 1
    assert stats["prompts"] == 2  # the sub-agent's are not the session's
    assert stats["replies"] == 3 + 2
    assert stats["records"] == 10 + own["records"]
    assert stats["lines"] == len(before) + len(after) + own["lines"]
    assert session.files == [p.name, c.name]


def test_subagent_whose_spawn_call_cannot_be_told_is_an_orphan(tmp_path: Path) -> None:
    before, _ = spawning_parent()
    p = rollout(tmp_path, "P", before)  # no output naming the child
    c = rollout(tmp_path, "C", subagent_lines(before, agent_path=None))
    (session,), _ = read(p, c)
    assert [run.agent_id for run in session.orphan_subagents] == ["C"]
    assert session.stats["subagents"] == 1


def test_subagent_found_by_spawn_call_id_in_its_source(tmp_path: Path) -> None:
    before, _ = spawning_parent()
    p = rollout(tmp_path, "P", before)
    c = rollout(tmp_path, "C", subagent_lines(before, agent_path=None, spawn_call_id="s1"))
    (session,), _ = read(p, c)
    assert calls(session.timeline)["s1"].subagent.agent_id == "C"


# --- eras and file-level rules ----------------------------------------------------------------------


def test_legacy_bare_first_line_file(tmp_path: Path) -> None:
    path = write(tmp_path / "sessions" / "rollout-2025-08-04-44444444-4444-4444-8444-444444444444.jsonl", [
        {"id": "44444444-4444-4444-8444-444444444444", "timestamp": "2025-08-04T05:06:07Z", "cwd": CWD},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Open the tide log."}]},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Opened."}]},
    ])
    assert is_codex_rollout(path)
    session = only(path)
    assert (session.id, session.cwd, session.started) == ("44444444-4444-4444-8444-444444444444", CWD, "2025-08-04T05:06:07.000Z")
    assert (session.stats["records"], session.stats["prompts"], session.stats["lines"]) == (2, 1, 4)


def test_first_session_meta_is_the_identity(tmp_path: Path) -> None:
    path = rollout(tmp_path, "A", [meta("A", cwd="/work/a"), meta("B", cwd="/work/b"), *user_turn("hi")])
    session = only(path)
    assert (session.id, session.cwd) == ("A", "/work/a")


def test_compressed_rollouts_are_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "rollout-2026-03-01T10-00-00-Z.jsonl.zst"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 16)
    sessions, warnings = read(path)
    assert sessions == [] and len(warnings) == 1 and "compressed" in warnings[0].reason
    assert is_codex_rollout(path)


def test_archived_copy_of_a_rollout_counts_once(tmp_path: Path) -> None:
    lines = [meta("T"), *user_turn("hi"), reasoning("r"), tokens(usage(10, 0, 1))]
    live = rollout(tmp_path, "T", lines)
    archived = write(tmp_path / "archived_sessions" / "2026/03/01" / live.name, lines)
    sessions, warnings = read(archived, live)
    assert len(sessions) == 1 and sessions[0].files == [live.name]
    assert sessions[0].stats["lines"] == len(lines) and sessions[0].stats["replies"] == 1
    assert len(warnings) == 1 and warnings[0].line == 0


def test_bad_line_is_warned_with_file_and_line_and_the_rest_is_read(tmp_path: Path) -> None:
    path = rollout(tmp_path, "T", [meta("T"), *user_turn("hi"), '{"timestamp": "x", "type": "respo', message("user", "more"),
                                   line("some_future_record", {"x": 1}), message("assistant", "ok") | {"extra_field": 1}])
    session, = read(path)[0]
    _, warnings = read(path)
    assert [(w.file, w.line) for w in warnings] == [(path.name, 4)]
    assert str(warnings[0]).startswith(f"{path.name}:4:")
    assert (session.stats["lines"], session.stats["skipped_lines"], session.stats["records"]) == (7, 1, 3)


def test_session_inside_the_codex_home_is_skipped(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    inside = rollout(tmp_path, "I", [meta("I", cwd=str(home / "memories")), *user_turn("consolidate")])
    outside = rollout(tmp_path, "O", [meta("O"), *user_turn("hi")])
    sessions, warnings = read(inside, outside, codex_home=home)
    assert [s.id for s in sessions] == ["O"]
    assert len(warnings) == 1 and "Codex home" in warnings[0].reason


def test_compaction_is_a_marker_and_replacement_history_is_not_replayed(tmp_path: Path) -> None:
    old = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "OLD PROMPT"}]}
    path = rollout(tmp_path, "T", [meta("T"), *user_turn("hi"), line("compacted", {"message": "", "replacement_history": [old]}),
                                   event("context_compacted"), event("turn_aborted", reason="interrupted")])
    session = only(path)
    assert [m.type for m in session.timeline if isinstance(m, Marker)] == ["compaction", "interruption"]
    assert session.stats["prompts"] == 1 and "OLD PROMPT" not in repr(session.timeline)


def test_reasoning_shows_the_summary_never_the_encrypted_content(tmp_path: Path) -> None:
    session = only(rollout(tmp_path, "T", [meta("T"), reasoning("Checking the tide table")]))
    assert "gAAAA" not in repr(session.timeline)
    assert replies(session)[0].blocks == [Thinking("Checking the tide table")]


def test_session_fields(tmp_path: Path) -> None:
    long_prompt = "Please " + "really " * 20 + "fix the tide table\nsecond line"
    path = rollout(tmp_path, "T", [
        meta("T", ts="2026-03-01T09:59:00.000Z"), *user_turn(long_prompt), turn_context("gpt-5.4"),
        reasoning("a"), tokens(usage(10, 0, 1)), turn_context("gpt-5.3-codex", "2026-03-01T11:05:00+01:00"),
    ])
    session = only(path)
    assert session.source == "codex" and session.versions == ["0.128.0"] and session.git_branch == "main"
    assert session.models == ["gpt-5.4", "gpt-5.3-codex"]
    assert len(session.title) <= 80 and "\n" not in session.title and session.title.startswith("Please really")
    assert (session.started, session.ended) == ("2026-03-01T09:59:00.000Z", "2026-03-01T10:05:00.000Z")
    assert session.tally is not None and session.stats == session.tally.stats()
    named = only(rollout(tmp_path, "N", [meta("N"), *user_turn("hi"), event("thread_name_updated", thread_name="Tide fix")]))
    assert named.title == "Tide fix"


def test_a_thread_with_no_prompt_is_titled_by_its_first_replys_first_sentence(tmp_path: Path) -> None:
    # Injected context only (no typed text), then a reply: never "Session <id>" (docs/formats-codex.md X13).
    injected = "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"
    path = rollout(tmp_path, "R", [meta("R"), message("user", injected), turn_context(),
                                   message("assistant", "**Looked** at the repo. It builds.")])
    assert only(path).title == "Looked at the repo."
    bare = only(rollout(tmp_path, "B", [meta("B", ts="2026-03-01T09:59:00.000Z")]))
    assert bare.title == "Session of 2026-03-01 09:59 UTC"


def test_sessions_come_out_sorted_by_start_then_id(tmp_path: Path) -> None:
    paths = [rollout(tmp_path, tid, [meta(tid, ts=ts)]) for tid, ts in
             (("b", "2026-03-02T00:00:00Z"), ("a", "2026-03-02T00:00:00Z"), ("c", "2026-03-01T00:00:00Z"))]
    assert [s.id for s in read(*paths)[0]] == ["c", "a", "b"]


# --- detection and discovery ----------------------------------------------------------------------------


def test_rollouts_are_detected_by_content(tmp_path: Path) -> None:
    envelope = write(tmp_path / "a.jsonl", [turn_context()])
    legacy = write(tmp_path / "b.jsonl", [{"id": "x", "timestamp": "2025-08-01T00:00:00Z"}])
    claude = write(tmp_path / "c.jsonl", [{"type": "user", "uuid": "u", "sessionId": "s", "message": {"role": "user", "content": "hi"}}])
    stream = write(tmp_path / "d.jsonl", [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.completed", "usage": {}}])
    assert [is_codex_rollout(p) for p in (envelope, legacy, claude, stream)] == [True, True, False, False]
    sessions, warnings = read(stream)
    assert sessions == [] and "not a Codex rollout" in warnings[0].reason


def test_find_rollouts_lists_regular_files_sorted(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    dated = write(root / "2026/03/02/rollout-b.jsonl", [turn_context()])
    flat = write(root / "rollout-a.jsonl", [turn_context()])
    packed = root / "2026/03/01/rollout-c.jsonl.zst"
    packed.parent.mkdir(parents=True)
    packed.write_bytes(b"\x28\xb5\x2f\xfd")
    (root / "notes.txt").write_text("x")
    (root / "link.jsonl").symlink_to(dated)
    os.mkfifo(root / "fifo.jsonl")
    assert find_rollouts(root) == sorted([dated, flat, packed])
    assert find_rollouts(tmp_path / "missing") == []


# --- the shared real rollouts ------------------------------------------------------------------------------


def _last_totals(path: Path) -> tuple[dict[str, int], int]:
    """The last cumulative totals and the number of token events whose total
    advanced, computed straight from the file (independent of the reader)."""
    last: dict[str, int] = {}
    advancing, previous = 0, -1
    for raw in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(raw) if raw.strip() else {}
        payload = obj.get("payload") or {}
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if isinstance(info, dict):
            total = info["total_token_usage"]
            if total["total_tokens"] > previous:
                advancing, previous = advancing + 1, total["total_tokens"]
            last = total
    return last, advancing


def test_shared_codex_fixtures_read_without_warnings() -> None:
    folder = fixtures_dir("codex")
    paths = sorted(folder.glob("*.jsonl"))
    assert all(is_codex_rollout(p) for p in paths)
    sessions, warnings = read(*paths)
    # One fixture's publisher replaced some times with "[trimmed for fixture]": those lines, and only they, warn.
    trimmed = {(path.name, number) for path in paths
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if '"timestamp":"[trimmed for fixture]"' in line}
    assert trimmed and {(w.file, w.line) for w in warnings} == trimmed
    assert {w.reason for w in warnings} == {BAD_TIME}
    assert len(sessions) == len(paths)


def test_localpush_totals_equal_the_last_cumulative_totals_exactly() -> None:
    folder = fixtures_dir("codex")
    paths = sorted(folder.glob("localpush__*.jsonl"))
    assert len(paths) == 6
    sessions, _ = read(*paths)
    by_file = {s.files[0]: s for s in sessions}
    for path in paths:
        total, advancing = _last_totals(path)
        stats = by_file[path.name].stats
        assert stats["input_tokens"] + stats["cache_read_input_tokens"] == total["input_tokens"], path.name
        assert stats["cache_read_input_tokens"] == total["cached_input_tokens"], path.name
        assert stats["output_tokens"] == total["output_tokens"], path.name
        assert stats["reasoning_output_tokens"] == total["reasoning_output_tokens"], path.name
        assert stats["replies"] == advancing, path.name


# --- never fatal -----------------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=12)
    | st.sampled_from(["gAAAAA" + "x" * 50, "data:image/png;base64,AAAA", "Exit code: 3", "{\"cmd\": 1}", "P"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_TEMPLATES = [
    meta("P"), meta("C", session_id="P", source={"subagent": {"thread_spawn": {"parent_thread_id": "P"}}}),
    meta("F", forked_from_id="P"), message("user", "hi"), message("assistant", "ok"), reasoning("r"),
    event("user_message", message="hi", images=[]), tokens(usage(10, 2, 3, 1)), tokens(None), turn_context(),
    call("c1", "shell", "{}"), call("c2", "spawn_agent", "{}"), output("c1", "x"), line("compacted", {"message": ""}),
    line("response_item", {"type": "local_shell_call", "call_id": "c3", "action": {"command": ["ls"]}}),
    line("response_item", {"type": "web_search_call", "action": {"query": "q"}}),
    line("response_item", {"type": "agent_message", "content": [{"type": "input_text", "text": "t"}]}),
    line("response_item", {"type": "tool_search_output", "call_id": "c4", "tools": []}),
    line("inter_agent_communication", {"content": "c"}), line("token_usage_record", {"response_id": "r", "usage": {}}),
    line("event_msg", {"type": "sub_agent_activity", "kind": "started", "agent_thread_id": "C", "id": "c2"}),
    event("turn_aborted"),
    {"id": "L", "timestamp": "2025-08-01T00:00:00Z"},
]


@st.composite
def _hostile_line(draw: st.DrawFn) -> dict[str, Any]:
    template = json.loads(json.dumps(draw(st.sampled_from(_TEMPLATES))))
    target = template.get("payload", template)
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(sorted(target) + ["info", "source", "content", "output", "arguments", "images"]))
        target[key] = draw(_json)
    if draw(st.booleans()):
        template["timestamp"] = draw(_json)
    return template


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.lists(_hostile_line(), min_size=1, max_size=8), min_size=1, max_size=3))
def test_hostile_shapes_are_never_fatal(tmp_path: Path, files: list[list[dict[str, Any]]]) -> None:
    folder = tmp_path / str(abs(hash(json.dumps(files, default=str))))
    paths = [write(folder / f"rollout-{n}.jsonl", [json.dumps(item, default=str) for item in lines])
             for n, lines in enumerate(files)]
    sessions, _ = read(*paths)
    for session in sessions:
        assert session.stats == session.tally.stats()
