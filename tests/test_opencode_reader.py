"""The OpenCode reader, one rule per test, on small databases and files written here
(docs/formats-opencode.md names each rule's section)."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from bough_site.model import (
    REASONING_KEY,
    UNKNOWN_TOKENS_KEY,
    Image,
    InputWarning,
    Marker,
    Prompt,
    Reply,
    Session,
    Text,
    Thinking,
    ToolCall,
)
from bough_site.plan.units import OPENCODE, Unit
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import find, label
from bough_site.readers.opencode_timeline import child_session, ms_time
from bough_site.readers.opencode_tokens import step_tokens
from corpus.opencode import Builder, Msg, Ses, Step, write_db, write_storage


def read_dir(folder: Path) -> tuple[list[Session], list[InputWarning]]:
    files = find(folder)
    warnings: list[InputWarning] = []
    unit = Unit("k", OPENCODE, tuple(str(p) for p in files), tuple(label(p) for p in files))
    return read_unit(unit, warnings.append, None), warnings


def read_db(tmp_path: Path, b: Builder) -> tuple[list[Session], list[InputWarning]]:
    d = tmp_path / "opencode"
    d.mkdir(exist_ok=True)
    write_db(d / "opencode.db", b.sessions)
    return read_dir(d)


def one(tmp_path: Path, b: Builder) -> Session:
    sessions, _ = read_db(tmp_path, b)
    assert len(sessions) == 1
    return sessions[0]


# --- §9.3 prompts ------------------------------------------------------------------------------


def test_prompts_are_typed_text_of_root_sessions(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "fix the bug", synthetic="<contents of a.py>")  # typed + synthetic: a prompt
    b.user(ses, "", synthetic="Called the Read tool")  # synthetic only: not a prompt
    ignored = b.user(ses, "")
    ignored.parts.append(("prt_ign", {"type": "text", "text": "hidden", "ignored": True}))
    b.user(ses, "", compaction=True)  # compaction request: not a prompt
    b.assistant(ses, [Step(fresh=1, output=1)], summary=True)
    session = one(tmp_path, b)
    prompts = [i for i in session.timeline if isinstance(i, Prompt)]
    assert [p.content for p in prompts] == [[Text("fix the bug")]]
    assert session.stats["prompts"] == 1 and session.stats["replies"] == 1
    kinds = [(i.kind, getattr(i, "type", "")) for i in session.timeline]
    assert kinds == [("marker", "meta"), ("prompt", ""), ("marker", "meta"), ("marker", "meta"),
                     ("marker", "compaction"), ("reply", "")]
    assert session.title == ses.info["title"]


def test_subtask_only_user_message_is_a_prompt_said_so(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    msg = b.user(ses, "")
    msg.parts.append(("prt_sub", {"type": "subtask", "agent": "review", "description": "review the diff",
                                  "prompt": "Review it."}))
    session = one(tmp_path, b)
    prompt = next(i for i in session.timeline if isinstance(i, Prompt))
    assert prompt.content == [Text("@review review the diff\n\nReview it.")]
    assert session.stats["prompts"] == 1


def test_default_title_gives_way_to_the_first_prompt(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session(title="New session - 2026-08-04T10:00:00.000Z")
    b.user(ses, "Make   the tests pass\nplease")
    assert one(tmp_path, b).title == "Make the tests pass please"


# --- §6 tokens ---------------------------------------------------------------------------------


def test_a_multi_step_message_sums_its_step_finish_parts_not_its_tokens(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    msg = b.assistant(ses, [Step(fresh=100, output=10, read=1000), Step(fresh=5, output=50, read=1100, write=7)])
    assert msg.data["tokens"]["input"] == 5  # the trap: the message holds the last step only
    session = one(tmp_path, b)
    reply = next(i for i in session.timeline if isinstance(i, Reply))
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (105, 60)
    assert (reply.usage.cache_read_input_tokens, reply.usage.cache_creation_input_tokens) == (2100, 7)
    assert session.stats["replies"] == 1  # a reply is a message (one model turn), its steps summed


@pytest.mark.parametrize("era", ["current", "old", "old-total", "inflated"])
def test_each_era_maps_onto_boughs_keys(tmp_path: Path, era: str) -> None:
    b = Builder()
    ses = b.session(era)
    b.user(ses, "go")
    b.assistant(ses, [Step(fresh=30, output=90, reasoning=40, read=500, write=20)])
    stats = one(tmp_path, b).stats
    assert (stats["input_tokens"], stats["output_tokens"], stats[REASONING_KEY]) == (30, 90, 40)
    assert (stats["cache_read_input_tokens"], stats["cache_creation_input_tokens"]) == (500, 20)


def test_step_tokens_rules() -> None:
    current = {"total": 100, "input": 10, "output": 20, "reasoning": 30, "cache": {"read": 40, "write": 0}}
    assert step_tokens(current, "1.18.13", "openai").usage.output_tokens == 50
    old = {"input": 10, "output": 50, "reasoning": 30, "cache": {"read": 40, "write": 0}}
    assert step_tokens(old, "1.0.0", "openai").usage.output_tokens == 50
    old_total = old | {"total": 100}
    assert step_tokens(old_total, "1.1.0", "openai").usage.output_tokens == 50
    odd = current | {"total": 7}
    assert step_tokens(odd, "1.18.13", "x").era_unclear
    inflated = {"input": 541, "output": 5, "reasoning": 0, "cache": {"read": 500, "write": 40}}
    assert step_tokens(inflated, "1.3.4", "anthropic").usage.input_tokens == 1
    assert step_tokens(inflated, "1.3.4", "openai").usage.input_tokens == 541  # only Anthropic and Bedrock
    assert step_tokens(inflated, "1.3.6", "anthropic").usage.input_tokens == 541
    assert step_tokens({"input": "x"}, "", "").usage.unknown
    assert step_tokens({"input": 1, "cache": 5}, "", "").usage.unknown
    assert not step_tokens(None, "", "").usage.unknown


def test_an_unfinished_step_is_unknown_never_zero(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    b.assistant(ses, [Step(fresh=10, output=5)], unfinished=True)  # a second step began, never finished
    b.assistant(ses, [], text="")  # no step at all, no tokens
    b.assistant(ses, [], text="", error={"name": "APIError", "data": {"message": "503"}})  # failed before a step
    sessions, warnings = read_db(tmp_path, b)
    stats = sessions[0].stats
    assert stats[UNKNOWN_TOKENS_KEY] == 2 and stats["replies"] == 3
    assert stats["input_tokens"] == 10  # the finished step still counts
    assert sum("its tokens are unknown" in w.reason for w in warnings) == 2
    marker = sessions[0].timeline[-1]
    assert isinstance(marker, Marker) and (marker.type, marker.text) == ("error", "APIError: 503")


def test_older_writer_message_tokens_without_steps_count(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session("old")
    b.user(ses, "go")
    msg = b.assistant(ses, [], text="hi")
    msg.data["tokens"] = {"input": 12, "output": 3, "reasoning": 0, "cache": {"read": 4, "write": 0}}
    stats = one(tmp_path, b).stats
    assert (stats["input_tokens"], stats["output_tokens"], stats["cache_read_input_tokens"]) == (12, 3, 4)
    assert UNKNOWN_TOKENS_KEY not in stats


def test_the_event_log_is_never_counted(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    b.assistant(ses, [Step(fresh=10, output=5)])
    stats = one(tmp_path, b).stats
    db = sqlite3.connect(tmp_path / "opencode" / "opencode.db")
    assert db.execute("SELECT count(*) FROM event").fetchone()[0] > 0
    db.close()
    assert (stats["records"], stats["replies"], stats["input_tokens"]) == (2 + 1 + 3, 1, 10)


# --- §5 tool calls -------------------------------------------------------------------------------


def test_tool_statuses_errors_invalid_and_shell_exit(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    tools = [b.tool("bash", {"command": "false"}, metadata={"exit": 1}, output=""),
             b.tool("invalid", {"tool": "bassh"}, output="no such tool"),
             b.tool("edit", {"filePath": "/a", "oldString": "x", "newString": "y"}, status="error", output="nope"),
             b.tool("read", {"filePath": "/a"}, status="running")]
    b.assistant(ses, [Step(fresh=1, output=1)], tools=tools)
    session = one(tmp_path, b)
    stats = session.stats
    assert (stats["tool_calls"], stats["tool_results"], stats["tool_errors"]) == (4, 3, 2)
    calls = [blk for blk in session.timeline[-1].blocks if isinstance(blk, ToolCall)]
    assert calls[0].result.detail == {"exit_code": 1, "title": "bash"} and not calls[0].result.is_error
    assert calls[1].result.is_error and calls[2].result.is_error
    assert calls[2].result.content == [Text("nope")] and calls[3].result is None
    assert calls[0].input == {"command": "false"}


def test_a_drifted_status_with_output_reads_as_finished(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    tool = b.tool("bash", {"command": "ls"}, output="a\n")
    tool["state"]["status"] = "success"
    b.assistant(ses, [Step(fresh=1, output=1)], tools=[tool])
    sessions, warnings = read_db(tmp_path, b)
    call = sessions[0].timeline[-1].blocks[0]
    assert call.result.content == [Text("a\n")] and call.result.detail["status"] == "success"
    assert sessions[0].stats["tool_results"] == 1
    assert any("'success'" in w.reason for w in warnings)


def test_reply_blocks_in_part_order(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    msg = b.assistant(ses, [Step(fresh=1, output=9, reasoning=4)], text="answer",
                      tools=[b.tool("read", {"filePath": "/a"})])
    msg.parts.append(("prt_zimg", {"type": "file", "mime": "image/png", "url": "data:image/png;base64,iVBOR"}))
    reply = one(tmp_path, b).timeline[-1]
    assert [type(blk) for blk in reply.blocks] == [Thinking, ToolCall, Text, Image]
    assert reply.model == "claude-x"


# --- §7 child sessions ---------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["metadata", "legacy", "title", "output"])
def test_a_child_session_nests_under_its_task_call(tmp_path: Path, link: str) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    tool, child = b.task(ses, "current", link="metadata" if link == "output" else link)
    if link == "output":
        del tool["state"]["metadata"]  # the current output's "task_id: ses_…" names it
    b.user(child, "Look.")
    b.assistant(child, [Step(fresh=7, output=3)], tools=[b.tool("grep", {"pattern": "x"})])
    b.assistant(ses, [Step(fresh=10, output=5)], tools=[tool])
    sessions, _ = read_db(tmp_path, b)
    assert [s.id for s in sessions] == [ses.id]  # a child is no session of its own
    session = sessions[0]
    call = session.timeline[-1].blocks[0]
    run = call.subagent
    assert run is not None and run.agent_id == child.id and not session.orphan_subagents
    assert (run.agent_type, run.description) == ("explore", child.info["title"].split(" (@")[0])
    assert run.stats["prompts"] == 0 and session.stats["prompts"] == 1  # a task prompt is no prompt (§9.3)
    assert (session.stats["subagents"], session.stats["tool_calls"], session.stats["input_tokens"]) == (1, 2, 17)
    assert [i.kind for i in run.timeline] == ["prompt", "reply"]


def test_children_nest_at_depth_and_unmatched_ones_are_orphans(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    tool, child = b.task(ses, "current")
    inner, grandchild = b.task(child, "current")
    b.assistant(grandchild, [Step(fresh=1, output=1)])
    b.assistant(child, [Step(fresh=2, output=2)], tools=[inner])
    stray = b.session(parent=ses, title="Child session - 2026")
    b.assistant(stray, [Step(fresh=4, output=4)])
    b.assistant(ses, [Step(fresh=8, output=8)], tools=[tool])
    session = one(tmp_path, b)
    run = session.timeline[-1].blocks[0].subagent
    assert run.agent_id == child.id and run.timeline[0].blocks[0].subagent.agent_id == grandchild.id
    assert run.stats["subagents"] == 1
    assert [r.agent_id for r in session.orphan_subagents] == [stray.id]
    assert (session.stats["subagents"], session.stats["input_tokens"]) == (3, 15)


def test_a_child_whose_parent_is_missing_stands_alone_and_loops_do_not_hang(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    ses.info["parentID"] = "ses_gone"
    b.user(ses, "Look.")
    a, c = b.session(), b.session()
    a.info["parentID"], c.info["parentID"] = c.id, a.id
    sessions, warnings = read_db(tmp_path, b)
    assert sorted(s.id for s in sessions) == sorted([ses.id, a.id, c.id])
    assert any("ses_gone, which is not here" in w.reason for w in warnings)
    assert sum("form a loop" in w.reason for w in warnings) == 2
    assert next(s for s in sessions if s.id == ses.id).stats["prompts"] == 1


def test_child_session_in_task_output_forms() -> None:
    assert child_session({"metadata": {"sessionId": "ses_a"}}) == "ses_a"
    assert child_session({"output": "task_id: ses_b (for resuming)"}) == "ses_b"
    assert child_session({"output": '<task id="ses_c" state="done"><task_result>x</task_result></task>'}) == "ses_c"
    assert child_session({"output": "x\n<task_metadata>\nsession_id: ses_d\n</task_metadata>"}) == "ses_d"
    assert child_session({"input": {"task_id": "ses_e"}}) == "ses_e"
    assert child_session({"metadata": 5, "output": 5, "input": []}) == ""


# --- the database, read safely (§4, §11) -----------------------------------------------------------


def small(tmp_path: Path) -> tuple[Path, Builder]:
    b = Builder()
    for n in range(3):
        ses = b.session()
        b.user(ses, f"prompt {n}")
        b.assistant(ses, [Step(fresh=10 + n, output=5)])
    d = tmp_path / "opencode"
    d.mkdir()
    write_db(d / "opencode.db", b.sessions)
    return d, b


def test_a_database_locked_by_a_writer_is_read_without_waiting_or_blocking(tmp_path: Path) -> None:
    d, b = small(tmp_path)
    writer = sqlite3.connect(d / "opencode.db", isolation_level=None, timeout=0)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("DELETE FROM part")  # uncommitted: the reader sees the committed rows
    before = sorted(os.listdir(d))
    sessions, warnings = read_dir(d)
    assert [s.stats["input_tokens"] for s in sessions] == [10, 11, 12] and warnings == []
    assert sorted(os.listdir(d)) == before  # nothing created beside the user's files
    writer.execute("COMMIT")  # the writer was never blocked by bough
    writer.close()
    sessions, _ = read_dir(d)
    assert [s.stats["records"] for s in sessions] == [2, 2, 2]  # now without their parts


def test_a_hot_journal_is_rolled_back_in_the_copy_only(tmp_path: Path) -> None:
    d, b = small(tmp_path)
    db = sqlite3.connect(d / "opencode.db", isolation_level=None)
    db.execute("PRAGMA cache_size=1")  # spill the uncommitted pages into the file
    db.execute("BEGIN EXCLUSIVE")
    db.execute("UPDATE part SET data = 'x' || data")
    db.execute("INSERT INTO event SELECT id || 'z', aggregate_id, seq + 100000, type, data FROM event")
    journal = d / "opencode.db-journal"
    assert journal.exists()
    original = journal.read_bytes()
    sessions, warnings = read_dir(d)
    assert [s.stats["input_tokens"] for s in sessions] == [10, 11, 12] and warnings == []
    assert journal.read_bytes() == original
    db.execute("ROLLBACK")
    db.close()


def test_a_wal_database_reads_its_uncheckpointed_writes_and_leaves_no_files(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    d = tmp_path / "opencode"
    d.mkdir()
    write_db(d / "opencode.db", b.sessions, wal=True)
    writer = sqlite3.connect(d / "opencode.db")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO message VALUES ('msg_late', ?, 1785878700000, 1785878700000, ?)",
                   (ses.id, '{"role":"user","time":{"created":1785878700000}}'))
    writer.execute("INSERT INTO part VALUES ('prt_late', 'msg_late', ?, 1, 1, ?)",
                   (ses.id, '{"type":"text","text":"later"}'))
    writer.commit()
    before = sorted(os.listdir(d))
    assert "opencode.db-wal" in before
    sessions, _ = read_dir(d)
    assert sessions[0].stats["prompts"] == 2
    assert sorted(os.listdir(d)) == before
    writer.close()


def test_a_truncated_database_keeps_what_could_be_read(tmp_path: Path) -> None:
    d, b = small(tmp_path)
    data = (d / "opencode.db").read_bytes()
    for size in (100, 4096, len(data) // 2, len(data) - 4096):
        (d / "opencode.db").write_bytes(data[:size])
        warnings: list[InputWarning] = []
        unit = Unit("k", OPENCODE, (str(d / "opencode.db"),), ("opencode/opencode.db",))
        sessions = read_unit(unit, warnings.append, None)  # never raises
        assert isinstance(sessions, list)
        assert warnings and all(w.file == "opencode/opencode.db" for w in warnings)


def test_a_missing_table_is_a_warning_and_the_rest_is_read(tmp_path: Path) -> None:
    d, b = small(tmp_path)
    db = sqlite3.connect(d / "opencode.db")
    db.execute("DROP TABLE part")
    db.commit()
    db.close()
    sessions, warnings = read_dir(d)
    assert len(sessions) == 3 and all(s.stats["prompts"] == 0 for s in sessions)
    assert [w.reason for w in warnings if "table" in w.reason] == ["no table 'part': not read"]
    # No step parts: the message's own tokens (§9.6), as for an older writer.
    assert [s.stats["input_tokens"] for s in sessions] == [10, 11, 12]


def test_older_databases_without_the_token_columns(tmp_path: Path) -> None:
    d, b = small(tmp_path)
    db = sqlite3.connect(d / "opencode.db")
    for column in ("tokens_input", "tokens_output", "cost", "workspace_id"):
        db.execute(f"ALTER TABLE session DROP COLUMN {column}")
    db.commit()
    db.close()
    sessions, warnings = read_dir(d)
    assert [s.stats["input_tokens"] for s in sessions] == [10, 11, 12] and warnings == []


def test_times_are_ms_since_1970() -> None:
    assert ms_time(1785878628494) == "2026-08-04T21:23:48.494Z"
    assert ms_time(-1) is None and ms_time("1") is None and ms_time(True) is None and ms_time(float("nan")) is None
    assert ms_time(10**17) is None


def test_json_era_tree_reads_like_the_database(tmp_path: Path) -> None:
    b = Builder(5)
    ses = b.session()
    b.user(ses, "go")
    tool, child = b.task(ses, "current")
    b.assistant(child, [Step(fresh=3, output=1)])
    b.assistant(ses, [Step(fresh=10, output=5, reasoning=2)], tools=[tool])
    d = tmp_path / "opencode"
    write_storage(d, b.sessions)
    from_json, warnings = read_dir(d)
    from_db, _ = read_db(tmp_path / "db", b) if (tmp_path / "db").mkdir() is None else ([], [])
    assert warnings == []
    assert [s.stats for s in from_json] == [s.stats for s in from_db]
    assert from_json[0].stats["lines"] == from_db[0].stats["lines"]  # one object, one line (§9)
    assert from_json[0].files[0] == f"opencode/storage/session/global/{ses.id}.json"


def test_json_era_gaps_are_warned_and_skipped(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    storage = write_storage(tmp_path / "opencode", b.sessions)
    (storage / "session" / "global" / f"{ses.id}.json").unlink()
    (storage / "part" / "msg_nobody").mkdir()
    (storage / "part" / "msg_nobody" / "prt_1.json").write_text('{"id": "prt_1", "type": "text", "text": "x"}')
    (storage / "message" / ses.id / "msg_broken.json").write_text('{"id": ')
    sessions, warnings = read_dir(tmp_path / "opencode")
    assert [s.id for s in sessions] == [ses.id] and sessions[0].stats["prompts"] == 1
    assert sessions[0].stats["skipped_lines"] == 1
    reasons = " | ".join(w.reason for w in warnings)
    assert "no session file" in reasons and "part files of messages that are not here" in reasons
    assert "not valid JSON" in reasons


def hand_session(sid: str, messages: list[Msg]) -> Ses:
    return Ses(sid, {"id": sid, "directory": "/w", "title": "t", "version": "1.18.13",
                     "time": {"created": 1785878600000, "updated": 1785878600000}}, messages)


def test_wrong_types_in_rows_cost_only_themselves(tmp_path: Path) -> None:
    d = tmp_path / "opencode"
    d.mkdir()
    good = Msg("msg_2", "user", 2, {"role": "user", "time": {"created": 2}}, [("prt_2", {"type": "text", "text": "ok"})])
    write_db(d / "opencode.db", [hand_session("ses_1", [good])])
    db = sqlite3.connect(d / "opencode.db")
    rows: list[tuple[Any, ...]] = [
        ("msg_3", "ses_1", 3, 3, 42), ("msg_4", "ses_1", 4, 4, "[1]"), ("msg_5", "ses_1", 5, 5, "{bad"),
        (7, "ses_1", 6, 6, "{}"), ("msg_6", 8, 6, 6, "{}"), ("msg_7", "ses_1", "x", b"y", b'{"role":"user"}'),
    ]
    db.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", rows)
    db.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", [
        ("prt_3", "msg_2", "ses_1", 1, 1, 3.5), ("prt_4", 9, "ses_1", 1, 1, "{}"),
        ("prt_5", "msg_2", "ses_1", 1, 1, '{"type": "text", "text": 5, "synthetic": "yes"}'),
        ("prt_6", "msg_2", "ses_1", 1, 1, '{"type": "tool", "callID": 1, "tool": [], "state": "done"}'),
    ])
    db.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
               "VALUES (X'00', 1, 2, 3, 4, 5, 'x', 'y')")
    db.commit()
    db.close()
    sessions, warnings = read_dir(d)
    session = next(s for s in sessions if s.id == "ses_1")
    assert session.stats["prompts"] == 1 and session.stats["records"] == 3 + 3  # msg_2, "7", msg_7 and their parts
    reasons = [w.reason for w in warnings]
    # TEXT affinity stores 42 and 3.5 as text: JSON, but no object.
    assert "message msg_3: data is not a JSON object (a JSON number); not read" in reasons
    assert "message msg_4: data is not a JSON object (a JSON array); not read" in reasons
    assert any(r.startswith("message msg_5: data is not valid JSON") for r in reasons)
    assert "a session row without a text id: skipped" in reasons  # the blob id
    assert "1 parts of messages that are not here: not read" in reasons
    assert session.stats["skipped_lines"] == 4
    kinds = [(i.kind, getattr(i, "text", "")) for i in session.timeline]
    assert ("marker", "(empty message)") in kinds  # msg_7: its data was a BLOB of JSON


def test_reading_twice_gives_the_same(tmp_path: Path) -> None:
    d, _ = small(tmp_path)
    first, _ = read_dir(d)
    second, _ = read_dir(d)
    assert [s.stats for s in first] == [s.stats for s in second]


def test_reading_while_a_writer_commits_never_fails(tmp_path: Path) -> None:
    d, b = small(tmp_path)
    stop = threading.Event()

    def write() -> None:
        db = sqlite3.connect(d / "opencode.db", timeout=5)
        n = 0
        while not stop.is_set():
            n += 1
            db.execute("INSERT INTO event VALUES (?, 'a', ?, 't', '{}')", (f"evt_x{n}", 10**6 + n))
            db.commit()
        db.close()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        for _ in range(5):
            sessions, warnings = read_dir(d)
            assert [s.stats["input_tokens"] for s in sessions] == [10, 11, 12]
            assert all("database" in w.reason for w in warnings)
    finally:
        stop.set()
        thread.join()


def test_telling_and_reading_a_wal_database_create_nothing_beside_it(tmp_path: Path) -> None:
    from bough_site.readers.opencode_layout import claims

    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    d = tmp_path / "data"
    d.mkdir()
    write_db(d / "renamed.db", b.sessions, wal=True)  # closed cleanly: no -wal or -shm left
    assert sorted(os.listdir(d)) == ["renamed.db"]
    assert claims(d / "renamed.db")  # by its tables (immutable: no lock, no file)
    sessions, _ = read_dir(d)
    assert [s.id for s in sessions] == [ses.id]
    assert sorted(os.listdir(d)) == ["renamed.db"]


def test_json_sessions_the_database_lacks_are_read_beside_it(tmp_path: Path) -> None:
    b = Builder(9)
    both, only_json = b.session(), b.session()
    for ses in (both, only_json):
        b.user(ses, "go")
        b.assistant(ses, [Step(fresh=10, output=5)])
    d = tmp_path / "opencode"
    d.mkdir()
    write_db(d / "opencode.db", [both])
    write_storage(d, [both, only_json], keep=1)  # the frozen copy: the prompt, not the reply
    sessions, _ = read_dir(d)
    got = {s.id: s for s in sessions}
    assert got[both.id].files == ["opencode/opencode.db"] and got[both.id].stats["replies"] == 1
    assert got[only_json.id].files == [f"opencode/storage/session/global/{only_json.id}.json"]
    assert got[only_json.id].stats["prompts"] == 1 and got[only_json.id].stats["replies"] == 0


def test_compaction_summary_is_a_reply_and_retries_are_said(tmp_path: Path) -> None:
    b = Builder()
    ses = b.session()
    b.user(ses, "go")
    msg = b.assistant(ses, [Step(fresh=5, output=5)])
    msg.parts.append(("prt_zretry", {"type": "retry", "attempt": 2, "error": {"name": "APIError",
                                                                              "data": {"message": "overloaded"}}}))
    b.user(ses, "", compaction=True)
    b.assistant(ses, [Step(fresh=900, output=60)], text="Summary: …", summary=True)
    session = one(tmp_path, b)
    kinds = [(i.kind, getattr(i, "type", "")) for i in session.timeline]
    assert kinds == [("prompt", ""), ("reply", ""), ("marker", "warning"), ("marker", "compaction"), ("reply", "")]
    assert session.timeline[2].text == "retried (attempt 2): overloaded"
    assert (session.stats["replies"], session.stats["input_tokens"], session.stats["prompts"]) == (2, 905, 1)
