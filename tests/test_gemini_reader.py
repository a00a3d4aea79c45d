"""The Gemini CLI reader, one rule per test, on small session files written here
(docs/formats-gemini.md names each rule's section)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from bough_site.model import (
    REASONING_KEY,
    STAT_KEYS,
    UNKNOWN_TOKENS_KEY,
    Command,
    Image,
    Marker,
    Prompt,
    Reply,
    Session,
    Text,
    Thinking,
    ToolCall,
    InputWarning,
)
from bough_site.readers.gemini import read_gemini_sessions, usage_of
from bough_site.readers.gemini_files import (
    LEFT_HASH_COPY,
    LEFT_JSON_COPY,
    find_gemini_files,
    is_gemini_file,
    folder_roots,
    project_folder,
    project_hash,
)
from bough_site.readers.gemini_project import recover_root
from bough_site.readers.values import UNKNOWN_TOKENS
from bough_site.work import summarize_work

SID = "5b2c7d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5e"
ROOT = "/home/ada/src/kiln"
HASH = project_hash(ROOT)
MODEL = "gemini-2.5-pro"


# --- helpers: records and files --------------------------------------------------------------


def ts(second: int, minute: int = 0) -> str:
    return f"2026-05-04T10:{minute:02d}:{second:02d}.000Z"


def meta(sid: str = SID, project: str = HASH, **extra: Any) -> dict[str, Any]:
    return {"sessionId": sid, "projectHash": project, "startTime": ts(0), "lastUpdated": ts(0), **extra}


def user(rid: str, content: Any, second: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": rid, "timestamp": ts(second), "type": "user", "content": content, **extra}


def tokens(inp: int, out: int, cached: int = 0, thoughts: int = 0, tool: int = 0, total: int | None = None) -> dict:
    return {"input": inp, "output": out, "cached": cached, "thoughts": thoughts, "tool": tool,
            "total": inp + out + thoughts + tool if total is None else total}


def gemini(rid: str, text: str = "", second: int = 2, *, model: str | None = MODEL, usage: Any = "default",
           calls: list[dict[str, Any]] | None = None, thoughts: list[dict[str, Any]] | None = None,
           **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"id": rid, "timestamp": ts(second), "type": "gemini", "content": text}
    if thoughts is not None:
        record["thoughts"] = thoughts
    if usage == "default":
        record["tokens"] = tokens(100, 10)
    elif usage is not ...:
        record["tokens"] = usage
    if model is not None:
        record["model"] = model
    if calls is not None:
        record["toolCalls"] = calls
    record.update(extra)
    return record


def response(cid: str, name: str, output: str | None = None, error: str | None = None) -> dict[str, Any]:
    body = {"output": output} if error is None else {"error": error}
    return {"functionResponse": {"id": cid, "name": name, "response": body}}


def call(cid: str, name: str, args: dict[str, Any] | None = None, output: str | None = "ok", *,
         status: str = "success", result: Any = "default", second: int = 3, **extra: Any) -> dict[str, Any]:
    record = {"id": cid, "name": name, "args": args or {}, "status": status, "timestamp": ts(second)}
    record["result"] = [response(cid, name, output)] if result == "default" else result
    record.update(extra)
    return record


def notice(rid: str, kind: str, text: str, second: int = 4) -> dict[str, Any]:
    return {"id": rid, "timestamp": ts(second), "type": kind, "content": text}


def home(tmp: Path) -> Path:
    return tmp / ".gemini"


def chats(tmp: Path, folder: str = "kiln") -> Path:
    path = home(tmp) / "tmp" / folder / "chats"
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = [line if isinstance(line, bytes) else orjson.dumps(line) for line in lines]
    path.write_bytes(b"\n".join(raw) + b"\n")
    return path


def write_legacy(path: Path, head: dict[str, Any], messages: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps({**head, "messages": messages}, option=orjson.OPT_INDENT_2))
    return path


def read(*paths: Path, roots: dict[str, str] | None = None) -> tuple[list[Session], list[InputWarning]]:
    warnings: list[InputWarning] = []
    sessions = read_gemini_sessions(list(paths), warnings.append, label=lambda p: p.name, roots=roots)
    for session in sessions:
        summarize_work(session)
    return sessions, warnings


def one(*paths: Path, roots: dict[str, str] | None = None) -> Session:
    sessions, warnings = read(*paths, roots=roots)
    assert warnings == [] and len(sessions) == 1, (warnings, sessions)
    return sessions[0]


def known() -> dict[str, str]:
    return {HASH: ROOT}


def session_file(tmp: Path, lines: list[Any], name: str = "session-2026-05-04T10-00-5b2c7d1e.jsonl") -> Path:
    return write_jsonl(chats(tmp) / name, [meta(), *lines])


def replies(session: Session) -> list[Reply]:
    return [item for item in session.timeline if isinstance(item, Reply)]


def calls_of(items: list) -> list[ToolCall]:
    return [b for item in items if isinstance(item, Reply) for b in item.blocks if isinstance(b, ToolCall)]


# --- §2: the format from the content, and the files to read ---------------------------------------


def test_a_gemini_file_is_told_from_its_first_bytes(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "a.jsonl", [meta(), user("u1", "hi")])
    legacy = write_legacy(tmp_path / "b.json", meta(), [user("u1", "hi")])
    claude = write_jsonl(tmp_path / "c.jsonl", [{"type": "user", "sessionId": SID, "uuid": "x", "projectHash": "y"}])
    codex = write_jsonl(tmp_path / "d.jsonl", [{"timestamp": ts(0), "type": "session_meta", "payload": {"id": "z"}}])
    logs = write_jsonl(tmp_path / "logs.json", [[{"sessionId": SID, "messageId": 0, "type": "user"}]])
    checkpoint = tmp_path / "checkpoint-x.json"
    checkpoint.write_bytes(orjson.dumps({"history": [{"role": "user", "parts": [{"text": "hi"}]}]}))
    assert [is_gemini_file(p) for p in (log, legacy, claude, codex, logs, checkpoint)] == [
        True, True, False, False, False, False]


def _tree(tmp: Path) -> Path:
    """A Gemini directory: a slug folder and the hash folder migration left, a
    resumed .json beside its .jsonl, a sub-agent folder, and what is no session."""
    root = home(tmp)
    slug = chats(tmp, "kiln")
    old = chats(tmp, HASH)
    write_legacy(old / "session-2026-01-01T09-00-aaaaaaaa.json", meta("aaaaaaaa-1"), [user("u1", "old")])
    write_legacy(slug / "session-2026-01-01T09-00-aaaaaaaa.json", meta("aaaaaaaa-1"), [user("u1", "old")])
    write_legacy(slug / "session-2026-02-01T09-00-bbbbbbbb.json", meta("bbbbbbbb-1"), [user("u1", "b")])
    write_jsonl(slug / "session-2026-02-01T09-00-bbbbbbbb.jsonl", [meta("bbbbbbbb-1"), user("u1", "b")])
    write_jsonl(slug / "bbbbbbbb-1" / "agent-1.jsonl", [meta("agent-1", kind="subagent"), user("a1", "task")])
    write_jsonl(root / "tmp" / "kiln" / "checkpoint-save.json", [{"history": []}])
    write_jsonl(root / "tmp" / "kiln" / "checkpoints" / "x.json", [meta("cccccccc-1")])
    write_jsonl(root / "tmp" / "kiln" / "logs.json", [[{"sessionId": SID}]])
    write_jsonl(slug / "logs.json", [meta("dddddddd-1")])
    (root / "tmp" / "kiln" / ".project_root").write_text(ROOT + "\n")
    (root / "projects.json").write_bytes(orjson.dumps({"projects": {"/home/ada/src/atlas": "atlas"}}))
    (slug / "link.json").symlink_to(slug / "session-2026-02-01T09-00-bbbbbbbb.json")
    return root


def test_files_are_read_once_slug_over_hash_and_jsonl_over_json(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    found = find_gemini_files(root)
    names = [p.relative_to(root).as_posix() for p in found.files]
    assert names == [
        "tmp/kiln/chats/bbbbbbbb-1/agent-1.jsonl",
        "tmp/kiln/chats/session-2026-01-01T09-00-aaaaaaaa.json",
        "tmp/kiln/chats/session-2026-02-01T09-00-bbbbbbbb.jsonl",
    ]
    left = {p.relative_to(root).as_posix(): why for p, why in found.left_out}
    assert left == {
        f"tmp/{HASH}/chats/session-2026-01-01T09-00-aaaaaaaa.json": LEFT_HASH_COPY,
        "tmp/kiln/chats/session-2026-02-01T09-00-bbbbbbbb.json": LEFT_JSON_COPY,
    }
    roots = {k: v for path in found.files for k, v in folder_roots(project_folder(path)).items()}
    assert roots == {HASH: ROOT, project_hash("/home/ada/src/atlas"): "/home/ada/src/atlas"}


def test_every_level_of_the_tree_is_a_source(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    everything = find_gemini_files(root).files
    assert find_gemini_files(root / "tmp").files == everything
    assert find_gemini_files(root / "tmp" / "kiln").files == everything
    assert find_gemini_files(root / "tmp" / "kiln" / "chats").files == everything
    single = find_gemini_files(root / "tmp" / "kiln" / "chats" / "session-2026-02-01T09-00-bbbbbbbb.jsonl")
    assert [p.name for p in single.files] == ["session-2026-02-01T09-00-bbbbbbbb.jsonl", "agent-1.jsonl"]
    assert folder_roots(project_folder(single.files[0]))[HASH] == ROOT


def test_a_gemini_directory_without_sessions_has_nothing_to_read(tmp_path: Path) -> None:
    (home(tmp_path) / "tmp" / "kiln").mkdir(parents=True)
    write_jsonl(home(tmp_path) / "stray.json", [meta(), user("u1", "hi")])  # beside tmp/, not in a chats/
    assert find_gemini_files(home(tmp_path)).files == []


def test_a_folder_of_loose_files_keeps_only_gemini_sessions(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "one.jsonl", [meta(), user("u1", "hi")])
    write_jsonl(tmp_path / "claude.jsonl", [{"type": "user", "uuid": "x", "sessionId": SID}])
    write_jsonl(tmp_path / "logs.json", [meta()])
    assert [p.name for p in find_gemini_files(tmp_path).files] == ["one.jsonl"]


# --- §4: replaying a log ------------------------------------------------------------------------------


def test_a_record_written_again_counts_once_with_its_last_copy_in_its_first_place(tmp_path: Path) -> None:
    path = session_file(tmp_path, [
        user("u1", "Fix the kiln timer."),
        gemini("g1", "Looking.", usage=tokens(1000, 50, cached=400, thoughts=30)),
        {"$set": {"lastUpdated": ts(5)}},
        gemini("g2", "Done.", second=6, usage=tokens(2000, 20, cached=1500)),
        gemini("g1", "Looking.", usage=tokens(1000, 50, cached=400, thoughts=30),
               calls=[call("c1", "read_file", {"file_path": "kiln/timer.py"})]),
    ])
    session = one(path, roots=known())
    assert [r.id for r in replies(session)] == ["g1", "g2"]
    assert [c.id for c in calls_of(session.timeline)] == ["c1"]
    stats = session.stats
    assert (stats["records"], stats["replies"], stats["tool_calls"], stats["lines"]) == (3, 2, 1, 6)
    assert (stats["input_tokens"], stats["cache_read_input_tokens"]) == (600 + 500, 400 + 1500)
    assert (stats["output_tokens"], stats[REASONING_KEY]) == (80 + 20, 30)
    assert stats["cache_creation_input_tokens"] == 0


def test_set_merges_metadata_and_its_summary_is_the_title(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", "hi"), {"$set": {"summary": "Tune the kiln"}}])
    assert one(path, roots=known()).title == "Tune the kiln"


def test_a_session_of_one_slash_command_is_titled_by_it_and_shows_it_first(tmp_path: Path) -> None:
    # /init typed (displayContent), its expansion sent (content): a command, not a prompt (§7, §10).
    path = session_file(tmp_path, [
        user("u1", [{"text": "Analyze this project and write GEMINI.md …"}], displayContent=[{"text": "/init  now"}]),
        gemini("g1", "I will look around first. Then write it."),
    ])
    session = one(path, roots=known())
    assert session.title == "/init now"
    assert (session.stats["prompts"], session.stats["commands"]) == (0, 1)
    assert isinstance(session.timeline[0], Command) and session.timeline[0].name == "/init"


def test_without_summary_prompt_or_command_the_first_replys_first_sentence_is_the_title(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", "Please continue."), gemini("g1", "# Done? Yes, all of it.")])
    assert one(path, roots=known()).title == "Done?"
    bare = session_file(tmp_path, [notice("n1", "info", "Update available")], name="session-2026-05-04T10-00-aaaa.jsonl")
    sessions, _ = read(bare, roots=known())
    assert [s.title for s in sessions] == ["Session of 2026-05-04 10:00 UTC"]


def test_a_rewind_marks_what_it_took_out_and_everything_still_counts(tmp_path: Path) -> None:
    path = session_file(tmp_path, [
        user("u1", "First try."),
        gemini("g1", "One.", usage=tokens(100, 10)),
        user("u2", "Second try.", second=3),
        gemini("g2", "Two.", second=4, usage=tokens(200, 20)),
        {"$rewindTo": "u2"},
        user("u3", "Third try.", second=5),
        gemini("g3", "Three.", second=6, usage=tokens(300, 30)),
    ])
    session = one(path, roots=known())
    removed = {item.id: item.removed for item in session.timeline}
    assert removed == {"u1": None, "g1": None, "u2": "rewound", "g2": "rewound", "u3": None, "g3": None}
    assert (session.stats["prompts"], session.stats["replies"], session.stats["input_tokens"]) == (3, 3, 600)


def test_a_rewind_to_an_unknown_id_takes_out_everything(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", "a"), gemini("g1", "b"), {"$rewindTo": "nope"}, user("u2", "c", 5)])
    assert [i.removed for i in one(path, roots=known()).timeline] == ["rewound", "rewound", None]


def test_a_compression_snapshot_marks_the_dropped_records_compacted_and_later_turns_count(tmp_path: Path) -> None:
    summary = user("s1", [{"text": "<state_snapshot>\nThe timer work so far.\n</state_snapshot>"}], 7)
    ack = gemini("s2", "Understood; going on from the summary.", 8, model=None, usage=...)
    path = session_file(tmp_path, [
        {"$set": {"messages": []}},
        user("u1", "Fix the timer."),
        gemini("g1", "Fixed.", usage=tokens(100, 10)),
        notice("n1", "info", "Update available."),
        {"$set": {"messages": [summary, ack]}},
        user("u2", "Now the alarm.", second=9),
        gemini("g2", "Done.", second=10, usage=tokens(300, 5)),
    ])
    session = one(path, roots=known())
    kinds = [(item.id, type(item).__name__, getattr(item, "type", ""), item.removed) for item in session.timeline]
    assert kinds == [
        ("u1", "Prompt", "", "compacted"), ("g1", "Reply", "", "compacted"), ("n1", "Marker", "notice", None),
        ("s1", "Marker", "compaction", None), ("s2", "Marker", "meta", None),
        ("u2", "Prompt", "", None), ("g2", "Reply", "", None),
    ]
    stats = session.stats
    assert (stats["records"], stats["prompts"], stats["replies"], stats["input_tokens"]) == (7, 2, 2, 400)


def test_a_snapshot_without_a_summary_is_a_rolled_back_turn(tmp_path: Path) -> None:
    first, reply = user("u1", "a"), gemini("g1", "b")
    path = session_file(tmp_path, [first, reply, user("u2", "c", 3), gemini("g2", "d", 4),
                                   {"$set": {"messages": [first, reply]}}])
    assert [i.removed for i in one(path, roots=known()).timeline] == [None, None, "rewound", "rewound"]


def test_bad_lines_are_skipped_and_named(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", "hi"), b"{not json", b"", b"[1, 2]", gemini("g1", "ok")])
    sessions, warnings = read(path, roots=known())
    assert [(w.file, w.line) for w in warnings] == [(path.name, 3), (path.name, 5)]
    assert (sessions[0].stats["lines"], sessions[0].stats["skipped_lines"], sessions[0].stats["records"]) == (5, 2, 2)


def test_a_legacy_file_is_one_line_and_a_damaged_one_is_skipped_with_a_warning(tmp_path: Path) -> None:
    good = write_legacy(chats(tmp_path) / "session-2026-05-04T10-00-5b2c7d1e.json", meta(), [user("u1", "hi")])
    bad = chats(tmp_path) / "session-2026-05-04T11-00-99999999.json"
    bad.write_bytes(good.read_bytes()[:40])
    sessions, warnings = read(good, bad, roots=known())
    assert [s.stats["lines"] for s in sessions] == [1]
    assert [(w.file, w.line) for w in warnings] == [(bad.name, 0)] and "not a Gemini session" in warnings[0].reason


def test_a_jsonl_name_holding_one_legacy_object_is_read_as_legacy(tmp_path: Path) -> None:
    path = write_legacy(chats(tmp_path) / "session-x.jsonl", meta(), [user("u1", "hi"), gemini("g1", "yo")])
    session = one(path, roots=known())
    assert (session.stats["records"], session.stats["lines"]) == (2, 1)


def test_a_log_without_metadata_is_named_by_its_file_and_warned(tmp_path: Path) -> None:
    path = write_jsonl(chats(tmp_path) / "session-x.jsonl", [user("u1", "hi")])
    sessions, warnings = read(path)
    assert sessions[0].id == "session-x" and len(warnings) == 1 and "metadata" in warnings[0].reason


# --- §7: what counts --------------------------------------------------------------------------------


def test_only_typed_user_records_are_prompts(tmp_path: Path) -> None:
    path = session_file(tmp_path, [
        user("u1", [{"text": "<session_context>\ncwd: /home/ada/src/kiln\n</session_context>"}]),
        user("u2", [{"text": "<hook_context>lint passed</hook_context>"}]),
        user("u3", "Please continue."),
        user("u4", [{"text": "System: Please continue."}], displayContent=[response("c0", "update_topic", "x")]),
        user("u5", [response("c1", "read_file", "text")]),
        user("u6", [{"text": "Summary: <state_snapshot>all</state_snapshot>"}]),
        user("u7", [{"text": ""}]),
        user("u8", [{"text": "Analyze this project and write GEMINI.md …"}], displayContent=[{"text": "/init"}]),
        user("u9", [{"text": "Make the timer pause."}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0K"}}]),
    ])
    session = one(path, roots=known())
    items = session.timeline
    assert [type(i).__name__ for i in items] == ["Marker"] * 4 + ["Marker", "Marker", "Command", "Prompt"]
    assert [i.type for i in items[:6]] == ["meta", "meta", "meta", "meta", "compaction", "meta"]
    command = items[6]
    assert isinstance(command, Command) and (command.name, command.args) == ("/init", "")
    prompt = items[7]
    assert isinstance(prompt, Prompt) and prompt.anchor == "p1"
    assert [type(c) for c in prompt.content] == [Text, Image] and prompt.content[0].text == "Make the timer pause."
    assert (session.stats["records"], session.stats["prompts"], session.stats["commands"]) == (9, 1, 1)


def test_a_prompt_shows_what_was_typed(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", [{"text": "Read @kiln.py\n--- kiln.py ---\ncode"}],
                                        displayContent=[{"text": "Read @kiln.py"}])])
    prompt = one(path, roots=known()).timeline[0]
    assert isinstance(prompt, Prompt) and [c.text for c in prompt.content] == ["Read @kiln.py"]


def test_replies_are_gemini_records_with_a_model_or_tokens(tmp_path: Path) -> None:
    path = session_file(tmp_path, [
        gemini("g1", "with both"),
        gemini("g2", "model only", usage=...),
        gemini("g3", "tokens only", model=None),
        gemini("g4", "Understood; going on from the summary.", model=None, usage=...),
        gemini("g5", "null tokens, no model", model=None, usage=None),
    ])
    session = one(path, roots=known())
    assert [type(i).__name__ for i in session.timeline] == ["Reply", "Reply", "Reply", "Marker", "Marker"]
    assert [r.anchor for r in replies(session)] == ["r1", "r2", "r3"]
    assert (session.stats["records"], session.stats["replies"]) == (5, 3)


def test_tokens_absent_null_or_zero_add_nothing_and_total_is_never_added(tmp_path: Path) -> None:
    assert usage_of(None).output_tokens == 0 and usage_of({}).input_tokens == 0
    usage = usage_of(tokens(7269, 46, cached=5811, thoughts=58))
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens,
            usage.reasoning_output_tokens, usage.cache_creation_input_tokens) == (1458, 5811, 104, 58, 0)
    path = session_file(tmp_path, [gemini("g1", usage=None), gemini("g2", usage=tokens(0, 0)),
                                   gemini("g3", usage={"input": True, "output": "7", "total": -3})])
    sessions, warnings = read(path, roots=known())
    stats = sessions[0].stats
    assert sum(stats[k] for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", REASONING_KEY)) == 0
    # g3's counts are there but are no counts: its tokens are unknown, and said so at its line.
    assert stats["replies"] == 3 and stats[UNKNOWN_TOKENS_KEY] == 1
    assert [(w.line, w.reason) for w in warnings] == [(4, UNKNOWN_TOKENS)]  # line 1 is the meta line
    assert [r.usage.unknown for r in replies(sessions[0])] == [False, False, True]


def test_a_total_that_is_not_the_sum_of_its_parts_is_warned_once_per_file(tmp_path: Path) -> None:
    path = session_file(tmp_path, [gemini("g1", usage=tokens(100, 10, total=999)),
                                   gemini("g2", usage=tokens(100, 10, total=5))])
    sessions, warnings = read(path, roots=known())
    assert [(w.file, w.line) for w in warnings] == [(path.name, 2)]
    assert "999" in warnings[0].reason and sessions[0].stats["input_tokens"] == 200


def test_calls_results_errors_and_cancellations(tmp_path: Path) -> None:
    path = session_file(tmp_path, [gemini("g1", calls=[
        call("c1", "read_file", {"file_path": "a.py"}, "print(1)"),
        call("c2", "run_shell_command", {"command": "pytest"}, result=None),
        call("c3", "replace", {"file_path": "b.py"}, result=[response("c3", "replace", error="no match")],
             status="error"),
        call("c4", "run_shell_command", {"command": "sleep 9"}, status="cancelled",
             result=[response("c4", "run_shell_command", error="[Operation Cancelled] stopped by the user")]),
        call("c5", "run_shell_command", {"command": "false"}, "Command: false\nOutput: \nExit Code: 1"),
    ])])
    session = one(path, roots=known())
    c1, c2, c3, c4, c5 = calls_of(session.timeline)
    assert c1.result is not None and [t.text for t in c1.result.content] == ["print(1)"] and c1.result.detail is None
    assert c2.result is None
    assert c3.result.is_error and c3.result.detail == {"status": "error"} and c3.result.content[0].text == "no match"
    assert not c4.result.is_error and c4.result.detail == {"status": "cancelled"}
    assert not c5.result.is_error and c5.result.detail == {"exit_code": 1}
    stats = session.stats
    assert (stats["tool_calls"], stats["tool_results"], stats["tool_errors"]) == (5, 4, 1)


def test_a_synced_result_shows_only_the_calls_own_response(tmp_path: Path) -> None:
    both = [response("c1", "read_file", "one"), response("c2", "read_file", "two")]
    path = session_file(tmp_path, [gemini("g1", calls=[call("c1", "read_file", result=both),
                                                       call("c2", "read_file", result=both)])])
    first, second = calls_of(one(path, roots=known()).timeline)
    assert [t.text for t in first.result.content] == ["one"] and [t.text for t in second.result.content] == ["two"]


def test_function_call_parts_and_function_response_records_are_no_extra_calls(tmp_path: Path) -> None:
    path = session_file(tmp_path, [
        gemini("g1", [{"functionCall": {"id": "c1", "name": "read_file", "args": {}}}],
               calls=[call("c1", "read_file")]),
        user("u1", [response("c1", "read_file", "ok")], 4),
    ])
    session = one(path, roots=known())
    assert (session.stats["tool_calls"], session.stats["tool_results"], session.stats["prompts"]) == (1, 1, 0)
    assert [type(i).__name__ for i in session.timeline] == ["Reply"]


def test_thoughts_are_thinking_and_the_edit_diff_is_kept(tmp_path: Path) -> None:
    diff = "Index: kiln.py\n===\n--- kiln.py\tOriginal\n+++ kiln.py\tWritten\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b\n"
    display = {"fileDiff": diff, "fileName": "kiln.py", "filePath": ROOT + "/kiln.py", "originalContent": "a = 1\nb\n",
               "newContent": "a = 2\nb\n", "diffStat": {"model_added_lines": 1}, "isNewFile": False}
    path = session_file(tmp_path, [gemini(
        "g1", "Editing.",
        thoughts=[{"subject": "Planning", "description": "Change a.", "timestamp": ts(2)}],
        calls=[call("c1", "replace", {"file_path": "kiln.py", "old_string": "a = 1", "new_string": "a = 2"},
                    resultDisplay=display)],
    ), gemini("g2", [{"text": "Weighing it.", "thought": True}, {"text": "Shown."}], 5)])
    session = one(path, roots=known())
    first, second = replies(session)
    assert isinstance(first.blocks[0], Thinking) and first.blocks[0].text == "**Planning**\n\nChange a."
    assert isinstance(first.blocks[1], Text) and first.blocks[1].text == "Editing."
    edit = first.blocks[2]
    assert edit.result.detail == {key: display[key] for key in ("fileDiff", "fileName", "filePath", "diffStat",
                                                                 "isNewFile")}
    assert [type(b) for b in second.blocks] == [Thinking, Text]
    assert session.file_changes[0]["path"] == ROOT + "/kiln.py"
    assert (session.file_changes[0]["lines_added"], session.file_changes[0]["lines_removed"]) == (1, 1)


def test_notices_are_markers_of_their_type(tmp_path: Path) -> None:
    path = session_file(tmp_path, [notice("n1", "info", "Request cancelled."), notice("n2", "error", "Update failed"),
                                   notice("n3", "warning", "Low disk")])
    session = one(path, roots=known())
    assert [(m.type, m.text) for m in session.timeline] == [
        ("notice", "Request cancelled."), ("error", "Update failed"), ("warning", "Low disk")]
    assert session.stats["records"] == 3 and session.stats["replies"] == 0


def test_commits_and_files_from_gemini_tools(tmp_path: Path) -> None:
    created = {"fileDiff": "--- a\n+++ b\n@@ -0,0 +1,3 @@\n+x\n+y\n+z\n", "isNewFile": True}
    path = session_file(tmp_path, [gemini("g1", calls=[
        call("c1", "write_file", {"file_path": "alarm.py", "content": "x\ny\nz\n"}, "ok", resultDisplay=created),
        call("c2", "write_file", {"file_path": "/home/ada/src/kiln/old.py", "content": "q\n"},
             "Successfully created and wrote to new file: /home/ada/src/kiln/old.py."),
        call("c3", "replace", {"file_path": "bad.py"}, status="error", result=[response("c3", "replace", error="x")]),
        call("c4", "run_shell_command", {"command": "git add -A && git commit -m 'Add the alarm'"},
             "Command: git add -A && git commit -m 'Add the alarm'\nDirectory: (root)\n"
             "Output: [main 3f2a1bc] Add the alarm\n 1 file changed\nError: (none)\nExit Code: 0"),
        call("c5", "run_shell_command", {"command": "git commit -qm 'nothing'"}, "Output: \nExit Code: 1"),
        call("c6", "run_shell_command", {"command": "git commit -qm 'stopped'"}, status="cancelled",
             result=[response("c6", "run_shell_command", error="[Operation Cancelled]")]),
        call("c7", "replace", {"file_path": "stopped.py"}, status="cancelled",
             result=[response("c7", "replace", error="[Operation Cancelled]")]),
    ])])
    session = one(path, roots=known())
    files = {f["path"]: (f["lines_added"], f["lines_removed"], [e["action"] for e in f["edits"]])
             for f in session.file_changes}
    assert files == {ROOT + "/alarm.py": (3, 0, ["create"]), ROOT + "/old.py": (1, 0, ["create"])}
    assert [(c["hash"], c["message"]) for c in session.commits] == [("3f2a1bc", "Add the alarm")]
    assert (session.stats["commits"], session.stats["files_changed"]) == (1, 2)


# --- §5: segments and sub-agents ------------------------------------------------------------------------


def test_files_sharing_a_session_id_are_segments_of_one_session(tmp_path: Path) -> None:
    folder = chats(tmp_path)
    later = write_legacy(folder / "session-2026-05-04T10-44-5b2c7d1e.json", meta(summary="The alarm"),
                         [user("u2", "Second.", 40), gemini("g2", "B", 41, usage=tokens(50, 5))])
    earlier = write_legacy(folder / "session-2026-05-04T10-24-5b2c7d1e.json", meta(),
                           [user("u1", "First.", 10), gemini("g1", "A", 11, usage=tokens(70, 7))])
    session = one(later, earlier, roots=known())
    assert session.files == [earlier.name, later.name] and session.title == "The alarm"
    kinds = [(type(i).__name__, i.id) for i in session.timeline]
    assert kinds == [("Prompt", "u1"), ("Reply", "g1"), ("Marker", f"gemini:segment:{later.name}"),
                     ("Prompt", "u2"), ("Reply", "g2")]
    assert [i.anchor for i in session.timeline if isinstance(i, (Prompt, Reply))] == ["p1", "r1", "p2", "r2"]
    stats = session.stats
    assert (stats["records"], stats["prompts"], stats["replies"], stats["input_tokens"], stats["lines"]) == (
        4, 2, 2, 120, 2)


def _agent_call(cid: str, agent: str, second: int = 3, **extra: Any) -> dict[str, Any]:
    return call(cid, "invoke_agent", {"agent_name": "codebase_investigator", "prompt": "Map the timer module."},
                "Report: the timer lives in kiln/timer.py.", second=second, **extra)


def test_a_jsonl_sub_agent_nests_under_the_call_naming_it(tmp_path: Path) -> None:
    agent = "7c1e0b8a-aaaa-4bbb-8ccc-000000000001"
    main = session_file(tmp_path, [user("u1", "Where is the timer?"),
                                   gemini("g1", calls=[_agent_call("c1", agent, agentId=agent)])])
    sub = write_jsonl(chats(tmp_path) / SID / f"{agent}.jsonl", [
        meta(agent, kind="subagent"),
        user("a1", "Map the timer module."),
        gemini("a2", "Found it.", usage=tokens(500, 40, cached=100),
               calls=[call("a3", "read_file", {"file_path": "kiln/timer.py"})]),
    ])
    session = one(main, sub, roots=known())
    launched = calls_of(session.timeline)[0]
    run = launched.subagent
    assert run is not None and run.agent_id == agent and run.file == sub.name
    assert (run.agent_type, run.description) == ("codebase_investigator", "Map the timer module.")
    assert [type(i).__name__ for i in run.timeline] == ["Prompt", "Reply"] and run.timeline[1].anchor == "r1"
    stats = session.stats
    assert (stats["subagents"], stats["records"], stats["replies"], stats["prompts"], stats["tool_calls"]) == (
        1, 4, 2, 1, 2)
    assert stats["input_tokens"] == 100 + 400 and run.stats["records"] == 2 and run.stats["prompts"] == 0
    assert session.orphan_subagents == [] and session.files == [main.name, sub.name]


def test_an_older_sub_agent_sharing_the_session_id_nests_by_time(tmp_path: Path) -> None:
    folder = chats(tmp_path)
    main = write_legacy(folder / "session-2026-05-04T10-00-5b2c7d1e.json", meta(kind="main"), [
        user("u1", "Where is the timer?", 1),
        gemini("g1", second=2, calls=[call("c1", "codebase_investigator", {"objective": "Find the timer"},
                                           second=30)]),
        gemini("g2", "Later.", 50, calls=[call("c2", "codebase_investigator", {"objective": "Later"}, second=55)]),
    ])
    sub = write_legacy(folder / "session-2026-05-04T10-00-5b2c7d1e-agent.json", meta(kind="subagent"),
                       [user("a1", "Find the timer", 5), gemini("a2", "kiln/timer.py", 20)])
    session = one(main, sub, roots=known())
    first, second = calls_of(session.timeline)
    assert first.subagent is not None and second.subagent is None
    assert (first.subagent.agent_type, first.subagent.description) == ("codebase_investigator", "Find the timer")
    assert session.files == [main.name, sub.name] and session.stats["subagents"] == 1


def test_a_sub_agents_own_sub_agent_nests_under_it(tmp_path: Path) -> None:
    outer, inner = "agent-outer", "agent-inner"
    main = session_file(tmp_path, [gemini("g1", calls=[_agent_call("c1", outer, agentId=outer)])])
    first = write_jsonl(chats(tmp_path) / SID / f"{outer}.jsonl", [
        meta(outer, kind="subagent"), gemini("a1", calls=[_agent_call("c2", inner, agentId=inner)])])
    second = write_jsonl(chats(tmp_path) / SID / f"{inner}.jsonl", [meta(inner, kind="subagent"), gemini("b1", "hi")])
    session = one(main, first, second, roots=known())
    run = calls_of(session.timeline)[0].subagent
    assert run.agent_id == outer and calls_of(run.timeline)[0].subagent.agent_id == inner
    assert session.stats["subagents"] == 2 and session.stats["replies"] == 3


def test_a_sub_agent_whose_session_is_missing_is_a_session_of_its_own(tmp_path: Path) -> None:
    sub = write_jsonl(chats(tmp_path) / "gone-session" / "agent-1.jsonl",
                      [meta("agent-1", kind="subagent"), user("a1", "task"), gemini("a2", "done")])
    sessions, warnings = read(sub, roots=known())
    assert [s.id for s in sessions] == ["agent-1"] and sessions[0].stats["prompts"] == 0
    assert len(warnings) == 1 and "gone-session" in warnings[0].reason


# --- §6: the working directory ------------------------------------------------------------------------------


def test_the_root_comes_from_project_root_or_projects_json(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", "hi")])
    (path.parent.parent / ".project_root").write_text(ROOT)
    assert one(path).cwd == ROOT
    (path.parent.parent / ".project_root").unlink()
    (home(tmp_path) / "projects.json").write_bytes(orjson.dumps({"projects": {ROOT: "kiln"}}))
    assert one(path).cwd == ROOT


def test_the_root_is_recovered_by_hashing_the_paths_a_session_mentions(tmp_path: Path) -> None:
    path = session_file(tmp_path, [gemini("g1", calls=[
        call("c1", "read_file", {"absolute_path": ROOT + "/kiln/timer.py"})])])
    session = one(path)
    assert session.cwd == ROOT and not any(isinstance(i, Marker) for i in session.timeline)


def test_windows_roots_hash_as_typed() -> None:
    root = "C:\\Users\\ada\\kiln"
    assert recover_root(project_hash(root), ["Wrote C:\\Users\\ada\\kiln\\src\\a.py."], {}) == root
    assert recover_root(project_hash("/srv/app"), ["see /srv/app/x.py", "/srv"], {}) == "/srv/app"
    assert recover_root(project_hash("/srv/app"), ["/srv/other/x.py"], {}) is None


def test_an_unrecoverable_root_files_the_session_under_its_folder_and_says_so(tmp_path: Path) -> None:
    path = session_file(tmp_path, [user("u1", "hi", 3), gemini("g1", calls=[
        call("c1", "read_file", {"file_path": "/home/ada/elsewhere/a.py"})])])
    session = one(path)
    assert session.cwd == "kiln"
    marker = session.timeline[0]
    assert isinstance(marker, Marker) and marker.type == "notice" and "kiln" in marker.text
    assert HASH[:12] in marker.text and marker.timestamp == ts(3)
    assert session.stats["records"] == 2  # the note is no record


# --- the shape of every session -------------------------------------------------------------------------------


def test_every_session_carries_every_stats_key_and_the_reasoning_key(tmp_path: Path) -> None:
    session = one(session_file(tmp_path, [user("u1", "hi")]), roots=known())
    assert list(session.stats) == [*STAT_KEYS, REASONING_KEY]
    assert session.source == "gemini-cli" and session.versions == [] and session.tally is not None


@pytest.mark.parametrize("content", [None, 7, {"text": "a dict"}, ["bare", {"text": "mixed"}]])
def test_odd_content_shapes_are_read_defensively(tmp_path: Path, content: Any) -> None:
    path = session_file(tmp_path, [user("u1", content), gemini("g1", content), notice("n1", "info", content)])
    session = one(path, roots=known())
    assert session.stats["records"] == 3


def test_removed_is_in_the_sidecar_only_when_set() -> None:
    from bough_site.sidecars import to_json

    assert "removed" not in to_json(Prompt("u1", "p1", None, [Text("hi")]))
    assert to_json(Reply("g1", "r1", None, MODEL, [], usage_of(None), removed="rewound"))["removed"] == "rewound"
    assert to_json(Marker("n1", None, "warning", "Low disk", removed="compacted"))["removed"] == "compacted"
