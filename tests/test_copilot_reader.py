"""The Copilot CLI reader, rule by rule, on small hand-written event logs
(docs/formats-copilot.md): each test writes the records to disk and reads them
as a build would, one unit per session."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import orjson

from bough_site.model import Marker, Prompt, Reply, Session, Text, Thinking, ToolCall, InputWarning
from bough_site.plan.units import COPILOT, Unit
from bough_site.readers import copilot
from bough_site.readers.copilot_layout import LAYOUT
from bough_site.site import site_from_sessions

_clock = itertools.count()
USAGE_KEYS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


def ev(kind: str, data: dict[str, Any] | None = None, **envelope: Any) -> dict[str, Any]:
    tick = next(_clock)
    record = {"type": kind, "data": data or {}, "id": f"ev-{tick}",
              "timestamp": f"2026-05-01T10:{tick // 60 % 60:02d}:{tick % 60:02d}.000Z", "parentId": None}
    record.update(envelope)
    return record


def start(session: str = "s1", cwd: str = "/src/kiln", model: str = "gpt-5") -> list[dict[str, Any]]:
    return [ev("session.start", {"sessionId": session, "copilotVersion": "1.0.80", "startTime": "2026-05-01T09:59:00.000Z",
                                 "context": {"cwd": cwd, "branch": "main"}}),
            ev("session.model_change", {"newModel": model})]


def user(text: str, **data: Any) -> dict[str, Any]:
    return ev("user.message", {"content": text, "transformedContent": f"<current_datetime/>\n{text}", **data})


def message(mid: str, text: str = "", output: Any = 10, tools: list[dict[str, Any]] = (), **data: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"messageId": mid, "content": text, "toolRequests": list(tools), **data}
    if output is not None:
        body["outputTokens"] = output
    return ev("assistant.message", body)


def request(call: str, name: str = "bash", **arguments: Any) -> dict[str, Any]:
    return {"toolCallId": call, "name": name, "arguments": arguments or {"command": "ls"}, "type": "function"}


def run_tool(call: str, name: str = "bash", ok: bool = True, output: str = "done", **extra: Any) -> list[dict[str, Any]]:
    done: dict[str, Any] = {"toolCallId": call, "success": ok, **extra}
    if ok:
        done["result"] = {"content": output, "detailedContent": output}
    else:
        done["error"] = {"message": output, "code": "failure"}
    return [ev("tool.execution_start", {"toolCallId": call, "toolName": name, "arguments": {"command": "ls"}}),
            ev("tool.execution_complete", done)]


def shutdown(*models: tuple[str, int, int, int, int, int, int]) -> dict[str, Any]:
    """(model, requests, input, output, cache read, cache write, reasoning) per model."""
    metrics = {m: {"requests": {"count": n, "cost": 1}, "usage": dict(zip(USAGE_KEYS, (i, o, r, w, z)))}
               for m, n, i, o, r, w, z in models}
    return ev("session.shutdown", {"shutdownType": "routine", "modelMetrics": metrics})


def write(root: Path, name: str, records: list[Any]) -> Path:
    path = root / ".copilot" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in records))
    return path


def read_all(root: Path) -> tuple[list[Session], list[InputWarning]]:
    files = LAYOUT.find(root / ".copilot")
    warnings: list[InputWarning] = []
    sessions: list[Session] = []
    for key, group in LAYOUT.units([(LAYOUT.label(f), f) for f in files]):
        unit = Unit(key, COPILOT, tuple(str(p) for _, p in group), tuple(n for n, _ in group))
        sessions += copilot.read_unit(unit, warnings.append, None)
    return sessions, warnings


def read_one(tmp_path: Path, records: list[Any], name: str = "session-state/s1/events.jsonl") -> tuple[Session, list[InputWarning]]:
    write(tmp_path, name, records)
    sessions, warnings = read_all(tmp_path)
    assert len(sessions) == 1
    return sessions[0], warnings


def replies(items: list[Any]) -> list[Reply]:
    return [i for i in items if isinstance(i, Reply)]


def notes(session: Session) -> list[str]:
    return [i.text for i in session.timeline if isinstance(i, Marker)]


# --- prompts (§3) ---------------------------------------------------------------------------------


def test_prompts_are_typed_messages_only(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(),
        user("Fix the timer."),
        user("", transformedContent="You have not yet marked the task as complete."),  # autopilot nudge
        user("Keep going.", isAutopilotContinuation=True),
        user("Skill text", source="skill-pdf"),
        user("<skill-context name='x'>…</skill-context>"),
        user("Also the README.", delivery="steering"),
        shutdown(),
    ])
    prompts = [i for i in session.timeline if isinstance(i, Prompt)]
    assert [p.content[0].text for p in prompts] == ["Fix the timer.", "Also the README."]
    assert session.stats["prompts"] == 2
    assert sum("autopilot continuation" in t for t in notes(session)) == 2
    assert sum(t.startswith("Injected by the CLI") for t in notes(session)) == 2
    assert any("steering" in t for t in notes(session))
    assert session.title == "Fix the timer."


def test_the_system_message_is_a_note_and_attachments_are_listed(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(),
        ev("system.message", {"role": "system", "content": "You are the GitHub Copilot CLI." * 100}),
        user("Look at this", attachments=[{"type": "file", "path": "/src/kiln/a.py", "displayName": "a.py"}]),
    ])
    (prompt,) = [i for i in session.timeline if isinstance(i, Prompt)]
    assert [c.text for c in prompt.content] == ["Look at this", "Attached: /src/kiln/a.py"]
    assert notes(session)[0].startswith("System message:\n\nYou are the GitHub Copilot CLI.")
    assert session.stats["prompts"] == 1


# --- replies and output tokens (§4, §8.1) ----------------------------------------------------------


def test_chunks_of_one_response_are_one_reply(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(),
        user("Go."),
        message("m1", "First part.", 40, apiCallId="call-A", chunkIndex=0, chunkCount=2, reasoningText="Thinking A"),
        message("m2", "Second part.", 40, apiCallId="call-A", chunkIndex=1, chunkCount=2),
        message("m3", "Another call.", 7, apiCallId="call-B", model="claude-sonnet-4.6"),
        shutdown(("gpt-5", 1, 100, 40, 0, 0, 0), ("claude-sonnet-4.6", 1, 50, 7, 20, 0, 0)),
    ])
    first, second = replies(session.timeline)
    assert first.id == "call-A" and [type(b) for b in first.blocks] == [Thinking, Text, Text]
    assert first.usage.output_tokens == 40  # the count of the response, not of each chunk
    assert (first.model, second.model) == ("gpt-5", "claude-sonnet-4.6")
    assert session.stats["replies"] == 2 and session.stats["output_tokens"] == 47
    # Fresh input: 100 + (50 - 20); cache reads 20.
    assert session.stats["input_tokens"] == 130 and session.stats["cache_read_input_tokens"] == 20
    assert session.models == ["gpt-5", "claude-sonnet-4.6"]


def test_reasoning_events_join_the_next_reply(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."),
        ev("assistant.reasoning", {"reasoningId": "r1", "content": "Weighing it up."}),
        message("m1", "Done.", 5, reasoningText="Weighing it up."),
        shutdown(("gpt-5", 1, 10, 5, 0, 0, 2)),
    ])
    (reply,) = replies(session.timeline)
    assert [b.text for b in reply.blocks] == ["Weighing it up.", "Done."]
    assert session.stats["reasoning_output_tokens"] == 2


def test_a_reply_without_output_tokens_takes_them_from_the_shutdown(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."), message("m1", "a", 30), message("m2", "b", None),
        shutdown(("gpt-5", 2, 100, 75, 0, 0, 0)),
    ])
    assert session.stats["output_tokens"] == 75  # 30 from m1, the other 45 from the shutdown's total
    assert replies(session.timeline)[1].usage.unknown_keys[-1] == "output_tokens"


def test_a_count_that_is_not_one_makes_the_reply_unknown(tmp_path: Path) -> None:
    session, warnings = read_one(tmp_path, [
        *start(), user("Go."), message("m1", "a", "lots"), message("m2", "b", 9),
        shutdown(("gpt-5", 2, 100, 20, 0, 0, 0)),
    ])
    assert session.stats["replies_with_unknown_tokens"] == 1
    assert session.stats["output_tokens"] == 9
    assert any("not a count" in w.reason for w in warnings)


# --- tools (§5) -----------------------------------------------------------------------------------


def test_tool_calls_results_and_errors(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."),
        message("m1", "", 10, [request("t1"), request("t2", "view", path="/src/kiln/a.py")]),
        *run_tool("t1", output="a.py\nb.py"),
        *run_tool("t2", "view", ok=False, output='"path": Required'),
        ev("tool.user_requested", {"toolCallId": "t3", "toolName": "bash", "arguments": {"command": "pwd"}}),
        ev("tool.execution_complete", {"toolCallId": "t3", "success": True, "result": {"content": "/src/kiln"}}),
        ev("tool.execution_complete", {"toolCallId": "t9", "success": False, "result": {"content": "lost"}}),
        shutdown(("gpt-5", 1, 10, 10, 0, 0, 0)),
    ])
    stats = session.stats
    assert (stats["tool_calls"], stats["tool_results"], stats["tool_errors"]) == (3, 4, 2)
    calls = {b.id: b for r in replies(session.timeline) for b in r.blocks if isinstance(b, ToolCall)}
    assert calls["t1"].result.content[0].text == "a.py\nb.py" and not calls["t1"].result.is_error
    assert calls["t2"].result.is_error and calls["t2"].result.content[0].text == '"path": Required'
    assert calls["t3"].input == {"command": "pwd"}
    assert stats["replies"] == 1  # the user's own tool run is shown, not counted as a model call
    assert any(t.startswith("Result of a tool call this file does not hold (t9)") for t in notes(session))


def test_arguments_written_as_a_json_string_are_read(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."),
        message("m1", "", 3, [{"toolCallId": "t1", "name": "shell", "arguments": '{"command":"ls -la"}'}]),
    ])
    (call,) = [b for r in replies(session.timeline) for b in r.blocks if isinstance(b, ToolCall)]
    assert call.input == {"command": "ls -la"}


# --- sub-agents (§6) ------------------------------------------------------------------------------


def test_a_sub_agent_nests_under_the_call_that_started_it(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Investigate."),
        message("m1", "", 10, [request("task-1", "task", description="Find the drift", prompt="Look")]),
        ev("tool.execution_start", {"toolCallId": "task-1", "toolName": "task", "arguments": {}}),
        ev("subagent.started", {"toolCallId": "task-1", "agentName": "explore", "agentDescription": "Explores"}),
        ev("user.message", {"content": "Look", "parentToolCallId": "task-1"}),
        message("s1", "Found it.", 25, [request("sub-t1", "grep", pattern="drift")], parentToolCallId="task-1"),
        ev("tool.execution_start", {"toolCallId": "sub-t1", "toolName": "grep", "arguments": {}, "parentToolCallId": "task-1"}),
        ev("tool.execution_complete", {"toolCallId": "sub-t1", "success": True, "result": {"content": "x"},
                                       "parentToolCallId": "task-1"}),
        ev("subagent.completed", {"toolCallId": "task-1", "agentName": "explore", "totalTokens": 900, "totalToolCalls": 1}),
        ev("tool.execution_complete", {"toolCallId": "task-1", "success": True, "result": {"content": "Found it."}}),
        message("m2", "The drift is fixed.", 12),
        shutdown(("gpt-5", 3, 500, 47, 100, 0, 0)),
    ])
    stats = session.stats
    assert (stats["prompts"], stats["replies"], stats["subagents"]) == (1, 3, 1)
    assert (stats["tool_calls"], stats["tool_results"]) == (2, 2)
    assert stats["output_tokens"] == 47 and stats["input_tokens"] == 400
    task = next(b for r in replies(session.timeline) for b in r.blocks if isinstance(b, ToolCall))
    run = task.subagent
    assert run is not None and run.agent_type == "explore" and run.description == "Find the drift"
    assert [i.kind for i in run.timeline] == ["prompt", "reply", "marker"]
    assert run.stats["output_tokens"] == 25 and run.stats["input_tokens"] is None
    assert session.orphan_subagents == []


def test_agent_id_events_join_the_run_open_when_they_start(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."),
        message("m1", "", 10, [request("task-2", "task", description="Check")]),
        ev("subagent.started", {"toolCallId": "task-2", "agentName": "general"}),
        {**message("s1", "Checked.", 5), "agentId": "agent-7"},  # newer: the agent, on the envelope
        ev("subagent.failed", {"toolCallId": "task-2", "error": "timed out"}),
        shutdown(("gpt-5", 2, 10, 15, 0, 0, 0)),
    ])
    task = next(b for r in replies(session.timeline) for b in r.blocks if isinstance(b, ToolCall))
    assert task.subagent is not None and [r.id for r in replies(task.subagent.timeline)] == ["s1"]
    assert task.subagent.timeline[-1].type == "error" and "timed out" in task.subagent.timeline[-1].text


def test_a_sub_agent_whose_call_is_missing_is_an_orphan(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."), message("s1", "alone", 5, parentToolCallId="gone"),
    ])
    assert len(session.orphan_subagents) == 1 and session.stats["subagents"] == 1


# --- legs, shutdowns, unknown tokens (§7, §8) ---------------------------------------------------------


def test_cumulative_shutdowns_of_a_resumed_session_are_not_added_twice(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("One."), message("m1", "a", 10), shutdown(("gpt-5", 1, 100, 10, 40, 0, 0)),
        ev("session.resume", {"resumeTime": "2026-05-01T11:00:00.000Z", "eventCount": 5}),
        user("Two."), message("m2", "b", 20), shutdown(("gpt-5", 2, 250, 30, 100, 0, 0)),
    ])
    # Running totals (requests 2 = both runs' calls): the last shutdown is the session's.
    assert (session.stats["input_tokens"], session.stats["cache_read_input_tokens"]) == (150, 100)
    assert session.stats["output_tokens"] == 30 and session.stats["prompts"] == 2
    assert sum(t.startswith("Session resumed") for t in notes(session)) == 1


def test_per_leg_shutdowns_are_added(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("One."), message("m1", "a", 10), shutdown(("gpt-5", 1, 100, 10, 40, 0, 0)),
        ev("session.resume", {"eventCount": 5}),
        user("Two."), message("m2", "b", 20), shutdown(("gpt-5", 1, 250, 20, 100, 0, 0)),
    ])
    # requests 1 = this run's calls alone: each run its own counters.
    assert (session.stats["input_tokens"], session.stats["cache_read_input_tokens"]) == (60 + 150, 140)


def test_a_killed_run_leaves_input_and_cache_unknown_never_zero(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("One."), message("m1", "a", 10), shutdown(("gpt-5", 1, 100, 10, 0, 0, 0)),
        ev("session.resume", {}), user("Two."), message("m2", "b", 20),  # no shutdown after it
    ])
    stats = session.stats
    assert stats["input_tokens"] is None and stats["cache_read_input_tokens"] is None
    assert stats["cache_creation_input_tokens"] is None and stats["reasoning_output_tokens"] is None
    assert stats["output_tokens"] == 30  # exact: every reply holds its own
    assert any(t.startswith("Input, cache and reasoning tokens unknown") for t in notes(session))


def test_a_compaction_is_a_model_call_and_leaves_input_unknown(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("One."), message("m1", "a", 10),
        ev("session.compaction_start", {}),
        ev("session.compaction_complete", {"success": True, "summaryContent": "We fixed the timer.",
                                           "compactionTokensUsed": {"inputTokens": 900, "outputTokens": 60}}),
        message("m2", "b", 5), shutdown(("gpt-5", 3, 300, 75, 0, 0, 0)),
    ])
    assert session.stats["replies"] == 3 and session.stats["output_tokens"] == 75
    assert session.stats["input_tokens"] is None
    assert any(isinstance(i, Marker) and i.type == "compaction" and i.text == "We fixed the timer."
               for i in session.timeline)


def test_a_session_with_no_model_call_has_known_zero_tokens(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [*start(), user("Hello?")])
    assert session.stats["input_tokens"] == 0 and session.stats["output_tokens"] == 0


def test_a_project_gives_the_known_sum_and_how_many_sessions_it_leaves_out(tmp_path: Path) -> None:
    write(tmp_path, "session-state/a/events.jsonl",
          [*start("a"), user("One."), message("m1", "a", 10), shutdown(("gpt-5", 1, 100, 10, 30, 5, 0))])
    write(tmp_path, "session-state/b/events.jsonl", [*start("b"), user("Two."), message("m2", "b", 20)])
    sessions, _ = read_all(tmp_path)
    (project,) = site_from_sessions(sessions).projects
    assert project.stats["input_tokens"] == 65 and project.stats["cache_read_input_tokens"] == 30
    assert project.stats["cache_creation_input_tokens"] == 5 and project.stats["output_tokens"] == 30
    assert project.stats["sessions_with_unknown_input_tokens"] == 1
    assert project.stats["sessions_with_unknown_cache_read_input_tokens"] == 1
    assert "sessions_with_unknown_output_tokens" not in project.stats
    assert project.stats["replies"] == 2


# --- files (§1, §9, §10) -------------------------------------------------------------------------------


def test_the_directory_form_wins_over_the_bare_one(tmp_path: Path) -> None:
    write(tmp_path, "session-state/s1.jsonl", [*start(), user("bare")])
    write(tmp_path, "session-state/s1/events.jsonl", [*start(), user("directory")])
    sessions, _ = read_all(tmp_path)
    (session,) = sessions
    assert session.files == ["session-state/s1/events.jsonl"] and session.title == "directory"


def test_workspace_yaml_names_the_session(tmp_path: Path) -> None:
    write(tmp_path, "session-state/s1/events.jsonl", [ev("session.start", {"sessionId": "s1"}), user("typed")])
    (tmp_path / ".copilot/session-state/s1/workspace.yaml").write_text(
        "id: s1\ncwd: /src/kiln\nbranch: 'feature/x'\nname: \"Kiln timer drift\"\nuser_named: true\n")
    sessions, _ = read_all(tmp_path)
    (session,) = sessions
    assert (session.title, session.cwd, session.git_branch) == ("Kiln timer drift", "/src/kiln", "feature/x")
    assert session.files[-1] == "session-state/s1/workspace.yaml"


def test_a_legacy_session(tmp_path: Path) -> None:
    path = tmp_path / ".copilot/history-session-state/old.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(orjson.dumps({"sessionId": "old", "startTime": "2025-10-01T10:00:00.000Z", "chatMessages": [],
                                   "timeline": [
        {"id": "1", "type": "info", "text": "Logged in", "timestamp": "2025-10-01T10:00:01.000Z"},
        {"id": "2", "type": "user", "text": "List it", "timestamp": "2025-10-01T10:00:02.000Z"},
        {"id": "3", "type": "tool_call_completed", "callId": "c0", "name": "bash", "arguments": {"command": "cd /src/kiln && ls"},
         "result": {"type": "success", "log": "a.py"}, "timestamp": "2025-10-01T10:00:03.000Z"},
        {"id": "4", "type": "copilot", "text": "Listed.", "timestamp": "2025-10-01T10:00:04.000Z"},
        {"id": "5", "type": "tool_call_completed", "callId": "c1", "name": "bash", "arguments": {"command": "false"},
         "result": {"type": "failure", "log": "exit 1"}, "timestamp": "2025-10-01T10:00:05.000Z"},
        "not an entry"]}))
    sessions, warnings = read_all(tmp_path)
    (session,) = sessions
    stats = session.stats
    assert (stats["records"], stats["prompts"], stats["replies"]) == (5, 1, 1)
    assert (stats["tool_calls"], stats["tool_results"], stats["tool_errors"]) == (2, 2, 1)
    assert stats["input_tokens"] is None and stats["output_tokens"] is None
    assert session.cwd == "/src/kiln"
    assert [w.reason for w in warnings] == ["timeline entry 5 is not an object, skipped"]


def test_a_shells_exit_code_is_read_from_its_output(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."), message("m1", "", 3, [request("t1"), request("t2", "view", path="/a")]),
        *run_tool("t1", output="1 failed\n<exited with exit code 1>"),
        *run_tool("t2", "view", output="<exited with exit code 1>"),
    ])
    calls = {b.id: b for r in replies(session.timeline) for b in r.blocks if isinstance(b, ToolCall)}
    assert calls["t1"].result.detail["exit_code"] == 1 and not calls["t1"].result.is_error
    assert "exit_code" not in (calls["t2"].result.detail or {})  # not a shell: its text is what the file held


def test_subagent_events_carrying_an_agent_id_make_no_run_of_their_own(tmp_path: Path) -> None:
    session, _ = read_one(tmp_path, [
        *start(), user("Go."),
        message("m1", "", 10, [request("task-3", "task", description="Check")]),
        ev("subagent.started", {"toolCallId": "task-3", "agentName": "general", "agentId": "agent-9"}, agentId="agent-9"),
        {**message("s1", "Checked.", 5), "agentId": "agent-9"},
        ev("subagent.completed", {"toolCallId": "task-3"}, agentId="agent-9"),
    ])
    task = next(b for r in replies(session.timeline) for b in r.blocks if isinstance(b, ToolCall))
    assert [r.id for r in replies(task.subagent.timeline)] == ["s1"]
    assert session.orphan_subagents == [] and session.stats["subagents"] == 1


def test_a_workspace_name_written_as_a_block(tmp_path: Path) -> None:
    write(tmp_path, "session-state/s1/events.jsonl", [ev("session.start", {"sessionId": "s1"}), user("typed")])
    (tmp_path / ".copilot/session-state/s1/workspace.yaml").write_text(
        "id: s1\nname: >-\n  Kiln timer\n  drift\nbranch: main\n")
    (session,), _ = read_all(tmp_path)
    assert (session.title, session.git_branch) == ("Kiln timer drift", "main")
