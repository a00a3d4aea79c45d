"""The Qwen Code reader, one rule per test, on small chat files written here
(docs/formats-qwen.md names each rule's section)."""

from __future__ import annotations

from pathlib import Path

import orjson

from bough_site.model import (
    REASONING_KEY,
    REMOVED_REWOUND,
    SOURCE_QWEN,
    UNKNOWN_TOKENS_KEY,
    Command,
    InputWarning,
    Marker,
    Prompt,
    Reply,
    Session,
    Text,
    Thinking,
    ToolCall,
)
from bough_site.plan.units import QWEN, Unit
from bough_site.readers.qwen import read_qwen_sessions, read_unit, sanitized
from bough_site.readers.qwen_lines import GLUED
from bough_site.readers.qwen_tokens import metadata_usage, parse_prompt_id, telemetry_usage
from bough_site.readers.values import UNKNOWN_TOKENS
from corpus.qwen_records import Chat, call, text, thought, usage

SID = "3f2a9c1e-0b7d-4e55-9a10-5c2d8e7f6a41"
CWD = "/home/ada/src/kiln"


def chat(sid: str = SID, **kw) -> Chat:
    return Chat(sid, CWD, **kw)


def where(root: Path, sid: str = SID, cwd: str = CWD) -> Path:
    return root / "projects" / sanitized(cwd) / "chats" / f"{sid}.jsonl"


def read(*paths: Path) -> tuple[list[Session], list[InputWarning]]:
    warnings: list[InputWarning] = []
    sessions = read_qwen_sessions(list(paths), warnings.append)
    return sessions, warnings


def one(path: Path) -> tuple[Session, list[InputWarning]]:
    sessions, warnings = read(path)
    assert len(sessions) == 1
    return sessions[0], warnings


def replies(session: Session) -> list[Reply]:
    return [i for i in session.timeline if isinstance(i, Reply)]


def calls(items) -> list[ToolCall]:
    return [b for i in items if isinstance(i, Reply) for b in i.blocks if isinstance(b, ToolCall)]


def a_turn(c: Chat) -> None:
    c.prompt("Why does the kiln timer drift?")
    c.api_response(1000, 120, cached=400, thoughts=80)
    c.assistant([thought("Reading the timer."), call("c1", "read_file", {"absolute_path": "/k/timer.py"})],
                usage(1000, 120, cached=400, thoughts=80))
    c.tool_event("c1", "read_file", {"absolute_path": "/k/timer.py"})
    c.tool_result("c1", "read_file", "def tick(): ...")
    c.api_response(1300, 40, cached=1000)
    c.assistant([text("It uses the wall clock.")], usage(1300, 40, cached=1000))


# --- §6 tokens ----------------------------------------------------------------------------


def test_telemetry_maps_onto_bough_keys_cached_inside_prompt_thoughts_inside_output() -> None:
    u = telemetry_usage({"input_token_count": 1000, "output_token_count": 120, "cached_content_token_count": 400,
                         "thoughts_token_count": 80, "total_token_count": 1120})
    assert (u.input_tokens, u.cache_read_input_tokens, u.output_tokens, u.reasoning_output_tokens) == (600, 400, 120, 80)
    assert (u.cache_creation_input_tokens, u.unknown) == (0, False)


def test_a_gemini_native_total_keeps_thoughts_apart_and_they_are_added() -> None:
    u = metadata_usage({"promptTokenCount": 100, "candidatesTokenCount": 10, "thoughtsTokenCount": 30,
                        "totalTokenCount": 140})
    assert (u.output_tokens, u.reasoning_output_tokens) == (40, 30)


def test_a_missing_or_broken_count_is_unknown_never_zero() -> None:
    assert telemetry_usage({"output_token_count": 5}).unknown
    assert telemetry_usage({"input_token_count": "12", "output_token_count": 5}).unknown
    assert telemetry_usage({"input_token_count": 1, "output_token_count": -5}).unknown
    assert not telemetry_usage({"input_token_count": 1, "output_token_count": 5}).unknown  # 0.14: no thoughts


def test_each_api_call_is_one_reply_paired_with_its_record(tmp_path: Path) -> None:
    c = chat()
    a_turn(c)
    session, warnings = one(c.write(where(tmp_path)))
    assert warnings == []
    s = session.stats
    assert (s["replies"], s["prompts"], s["records"], s["lines"]) == (2, 1, 7, 7)
    assert (s["input_tokens"], s["cache_read_input_tokens"], s["output_tokens"], s[REASONING_KEY]) == (900, 1400, 160, 80)
    assert (s["tool_calls"], s["tool_results"], s["tool_errors"]) == (1, 1, 0)
    first, second = replies(session)
    assert [type(b) for b in first.blocks] == [Thinking, ToolCall]
    assert first.blocks[1].result.content == [Text("def tick(): ...")]
    assert second.usage.input_tokens == 300 and second.model == "qwen3-coder-plus"
    assert session.source == SOURCE_QWEN and session.id == SID and session.cwd == CWD


def test_a_retried_thought_only_call_is_a_reply_from_telemetry_alone(tmp_path: Path) -> None:
    """§6, trap 1: the CLI rejected a thought-only response and retried; only the
    telemetry holds it. Both calls count; the record pairs with the second."""
    c = chat()
    c.prompt("Go.")
    c.api_response(500, 300, thoughts=300)
    c.api_response(500, 20, response_text="Done.")
    c.assistant([text("Done.")], usage(500, 20))
    session, _ = one(c.write(where(tmp_path)))
    assert (session.stats["replies"], session.stats["output_tokens"], session.stats["input_tokens"]) == (2, 320, 1000)
    lone, paired = replies(session)
    assert lone.blocks == [] and lone.usage.output_tokens == 300
    assert paired.blocks == [Text("Done.")]
    assert [i.type for i in session.timeline if isinstance(i, Marker)] == ["notice"]


def test_usage_metadata_counts_only_where_there_is_no_telemetry_never_both(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Go.")
    c.assistant([text("One.")], usage(100, 10))
    c.assistant([text("Two.")], usage(200, 20))
    c.assistant([text("Three.")])  # no figures at all: unknown
    session, warnings = one(c.write(where(tmp_path)))
    assert (session.stats["replies"], session.stats["input_tokens"], session.stats["output_tokens"]) == (3, 300, 30)
    assert session.stats[UNKNOWN_TOKENS_KEY] == 1 and warnings == []


def test_a_broken_count_is_said_at_its_line(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Go.")
    c.api_response(100, 10, cached="lots")
    c.assistant([text("Hi.")], usage(100, 10))
    session, warnings = one(c.write(where(tmp_path)))
    assert session.stats[UNKNOWN_TOKENS_KEY] == 1
    assert [(w.line, w.reason) for w in warnings] == [(2, UNKNOWN_TOKENS)]  # the telemetry's line, which holds it


# --- §7 sub-agents ------------------------------------------------------------------------------------


def test_prompt_ids_name_the_main_chat_or_a_sub_agent() -> None:
    assert parse_prompt_id(f"{SID}########3").agent == ""
    parsed = parse_prompt_id(f"{SID}#managed-auto-memory-extractor-17ab3895#1")
    assert (parsed.session, parsed.agent, parsed.turn) == (SID, "managed-auto-memory-extractor-17ab3895", "1")


def test_a_sub_agent_nests_under_the_agent_call_that_started_it(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Survey the repo.")
    c.api_response(800, 30)
    c.assistant([call("a1", "agent", {"subagent_type": "explorer", "description": "Map the modules"})],
                usage(800, 30))
    c.api_response(300, 50, agent="explorer-9f1c", turn=0, response_text="Listing.")
    c.tool_event("t1", "list_directory", {"path": "/k"}, agent="explorer-9f1c", response_id="")
    c.tool_event("t2", "read_file", {"absolute_path": "x"}, agent="explorer-9f1c", error="must be absolute")
    c.api_response(400, 60, agent="explorer-9f1c", turn=1)
    c.tool_result("a1", "agent", "Three modules.")
    c.api_response(900, 20)
    c.assistant([text("Three modules.")], usage(900, 20))
    session, _ = one(c.write(where(tmp_path)))
    s = session.stats
    assert (s["replies"], s["subagents"], s["prompts"]) == (4, 1, 1)
    assert (s["input_tokens"], s["output_tokens"]) == (2400, 160)
    assert (s["tool_calls"], s["tool_results"], s["tool_errors"]) == (3, 3, 1)
    launcher = calls(session.timeline)[0]
    run = launcher.subagent
    assert run is not None and session.orphan_subagents == []
    assert (run.agent_id, run.agent_type, run.description) == ("explorer-9f1c", "explorer", "Map the modules")
    assert run.stats["replies"] == 2 and [c.name for c in calls(run.timeline)] == ["list_directory", "read_file"]
    assert calls(run.timeline)[1].result.is_error


def test_a_background_sub_agent_with_no_call_is_an_orphan(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Hi.")
    c.api_response(100, 5)
    c.assistant([text("Hello.")], usage(100, 5))
    c.api_response(200, 7, agent="managed-auto-memory-extractor-17ab3895")
    session, _ = one(c.write(where(tmp_path)))
    assert [r.agent_type for r in session.orphan_subagents] == ["managed-auto-memory-extractor"]
    assert (session.stats["replies"], session.stats["input_tokens"], session.stats["subagents"]) == (2, 300, 1)


def test_a_sub_agent_file_is_the_runs_timeline_its_tokens_still_the_telemetrys(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Survey.")
    c.api_response(800, 30)
    c.assistant([call("a1", "agent", {"subagent_type": "explorer", "prompt": "Map it"})], usage(800, 30))
    sub = Chat(SID, CWD, clock=c.clock, seed=1)
    c.api_response(300, 50, agent="explorer-9f1c")
    c.tool_result("a1", "agent", "Mapped.")
    main = c.write(where(tmp_path))
    sub.user([text("Map it")], isSidechain=True, agentId="9f1c")
    sub.assistant([text("Mapping.")], usage(300, 50), isSidechain=True)
    sub.assistant([call("s1", "list_directory", {"path": "/k"})], isSidechain=True)  # no usage: not a call
    folder = main.parent.parent / "subagents" / SID
    agent = sub.write(folder / "agent-9f1c.jsonl")
    (folder / "agent-9f1c.meta.json").write_bytes(orjson.dumps({"agentName": "explorer", "description": "Map"}))
    sessions, _ = read(main, agent, folder / "agent-9f1c.meta.json")
    session = sessions[0]
    assert (session.stats["replies"], session.stats["input_tokens"], session.stats["prompts"]) == (2, 1100, 1)
    run = calls(session.timeline)[0].subagent
    assert run is not None and run.file == str(agent)
    assert [type(i) for i in run.timeline] == [Prompt, Reply, Reply]
    assert (run.stats["replies"], run.stats["tool_calls"], UNKNOWN_TOKENS_KEY in session.stats) == (1, 1, False)


# --- §8 prompts, records, markers ------------------------------------------------------------------


def test_what_counts_as_a_prompt(tmp_path: Path) -> None:
    c = chat()
    c.user([text("Fix it."), text("<qwen:user-prompt-submit-context>\nhook says hi")], provenance="real_user")
    c.user([text("Background job finished.")], subtype="notification")
    c.user([text("nightly")], subtype="cron")
    c.user([text("Also check the tests.")], subtype="mid_turn_user_message")
    c.user([text("<qwen:user-prompt-submit-context>\nonly context")])
    c.user([text("a sidechain")], isSidechain=True)
    c.user([text("injected")], provenance="system")
    session, _ = one(c.write(where(tmp_path)))
    assert session.stats["prompts"] == 2
    prompts = [i for i in session.timeline if isinstance(i, Prompt)]
    assert [p.content for p in prompts] == [[Text("Fix it.")], [Text("Also check the tests.")]]
    assert [i.type for i in session.timeline if isinstance(i, Marker)] == ["notice", "meta", "meta", "meta", "meta"]
    assert session.title == "Fix it."


def test_tool_errors_and_cancelled_calls(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Go.")
    c.assistant([call("x", "write_file", {"file_path": "/a", "content": ""}),
                 call("y", "run_shell_command", {"command": "sleep 9"})], usage(10, 1))
    c.tool_result("x", "write_file", error="EACCES")
    c.tool_result("y", "run_shell_command", "", status="cancelled")
    session, _ = one(c.write(where(tmp_path)))
    assert (session.stats["tool_calls"], session.stats["tool_results"], session.stats["tool_errors"]) == (2, 2, 1)
    x, y = calls(session.timeline)
    assert x.result.is_error and x.result.content == [Text("EACCES")]
    assert not y.result.is_error and y.result.detail == {"status": "cancelled"}


def test_rewind_marks_the_undone_branch_shown_and_counted(tmp_path: Path) -> None:
    c = chat()
    root = c.prompt("Begin.")
    c.assistant([text("Dead answer.")], usage(50, 5))
    c.system("custom_title", {"customTitle": "Dead title"})
    c.system("rewind", {"targetUuid": root["uuid"]}, parent=root["uuid"])
    c.user([text("Try again.")], subtype="mid_turn_user_message")
    c.assistant([text("Live answer.")], usage(60, 6))
    c.system("custom_title", {"customTitle": "Live title"})
    session, _ = one(c.write(where(tmp_path)))
    dead, live = replies(session)
    assert dead.removed == REMOVED_REWOUND and live.removed is None
    assert (session.stats["replies"], session.stats["input_tokens"]) == (2, 110)
    assert session.title == "Live title"


def test_one_uuid_twice_is_one_record_and_one_reply(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Go.")
    first = c.assistant([thought("Thinking it over.")])
    c.assistant([text("Answer.")], usage(40, 4), uuid=first["uuid"])
    session, _ = one(c.write(where(tmp_path)))
    assert (session.stats["records"], session.stats["replies"], session.stats["lines"]) == (2, 1, 3)
    (reply,) = replies(session)
    assert reply.blocks == [Thinking("Thinking it over."), Text("Answer.")]


def test_glued_objects_are_both_read_and_warned(tmp_path: Path) -> None:
    c = chat()
    p = c.prompt("Glued.")
    a = c.assistant([text("Both.")], usage(5, 1))
    c.lines[-2:] = [c.lines[-2] + c.lines[-1]]
    session, warnings = one(c.write(where(tmp_path)))
    assert (session.stats["records"], session.stats["prompts"], session.stats["replies"]) == (2, 1, 1)
    assert [(w.line, w.reason) for w in warnings] == [(1, GLUED)]
    assert p["uuid"] != a["uuid"]


def test_reanchored_title_is_one_record(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Go.")
    c.system("custom_title", {"customTitle": "Kiln", "titleSource": "manual"})
    c.assistant([text("Ok.")], usage(1, 1))
    c.system("custom_title", {"customTitle": "Kiln", "titleSource": "manual"})
    session, _ = one(c.write(where(tmp_path)))
    assert (session.stats["records"], session.stats["lines"], session.title) == (3, 4, "Kiln")


def test_slash_commands_and_compression(tmp_path: Path) -> None:
    c = chat()
    c.system("slash_command", {"phase": "invocation", "rawCommand": "/about"})
    c.system("slash_command", {"phase": "result", "rawCommand": "/about",
                               "outputHistoryItems": [{"type": "info", "text": "Qwen Code 0.21"}]})
    c.system("chat_compression", {"info": {"originalTokenCount": 9000, "newTokenCount": 1200}})
    session, _ = one(c.write(where(tmp_path)))
    command = next(i for i in session.timeline if isinstance(i, Command))
    assert (command.name, command.output, session.stats["commands"]) == ("/about", "Qwen Code 0.21", 1)
    assert [i.type for i in session.timeline if isinstance(i, Marker)] == ["compaction"]
    assert session.title == "/about"


def test_branch_copies_are_inherited_not_counted(tmp_path: Path) -> None:
    c = chat()
    fork = {"sessionId": "0f0f0f0f-aaaa-4bbb-8ccc-000000000001", "messageUuid": "m"}
    c.prompt("Old prompt.", forkedFrom=fork)
    c.assistant([text("Old answer.")], usage(10, 1), forkedFrom=fork)
    c.prompt("New prompt.")
    c.assistant([text("New answer.")], usage(20, 2))
    session, _ = one(c.write(where(tmp_path)))
    assert (session.stats["prompts"], session.stats["replies"], session.stats["input_tokens"]) == (1, 1, 20)
    marker = session.timeline[0]
    assert isinstance(marker, Marker) and (marker.type, marker.count, marker.ref_session) == ("inherited", 2, fork["sessionId"])


def test_the_cwd_is_the_one_the_folder_is_named_for_and_others_are_said(tmp_path: Path) -> None:
    c = chat()
    c.prompt("Start.", cwd="/elsewhere")
    c.prompt("Then.")
    session, _ = one(c.write(where(tmp_path)))
    assert session.cwd == CWD
    assert isinstance(session.timeline[0], Marker) and "/elsewhere" in session.timeline[0].text


def test_the_live_copy_wins_over_the_archived_one(tmp_path: Path) -> None:
    c = chat()
    a_turn(c)
    live = c.write(where(tmp_path))
    archived = c.write(live.parent / "archive" / live.name)
    sessions, _ = read(live, archived)
    assert len(sessions) == 1 and sessions[0].files == [str(live)]
    alone, _ = read(archived)
    assert alone[0].stats["replies"] == 2


def test_bad_and_truncated_lines_cost_only_themselves(tmp_path: Path) -> None:
    c = chat()
    a_turn(c)
    c.raw(b"not json")
    c.raw(b'{"uuid": "cut", "type": "assi')
    session, warnings = one(c.write(where(tmp_path), newline_at_end=False))
    assert (session.stats["skipped_lines"], session.stats["lines"], session.stats["replies"]) == (2, 9, 2)
    assert [w.line for w in warnings] == [8, 9] and "truncated" in warnings[1].reason


def test_read_unit_reads_the_units_files_under_their_labels(tmp_path: Path) -> None:
    c = chat()
    a_turn(c)
    path = c.write(where(tmp_path))
    label = f"projects/{sanitized(CWD)}/chats/{SID}.jsonl"
    unit = Unit("qwen-x", QWEN, (str(path),), (label,))
    (session,) = read_unit(unit, lambda w: None, None)
    assert session.files == [label] and session.stats["replies"] == 2
