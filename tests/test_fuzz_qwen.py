"""Bad input for the Qwen Code reader: a wrong type in every field of every record,
files cut at every length, binary junk, hostile mutations (Hypothesis). Whatever
the damage, ``read_unit`` never raises, and what was good is kept."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site.model import Prompt, Session
from bough_site.plan.units import QWEN, Unit
from bough_site.readers.qwen import read_unit, sanitized
from bough_site.sidecars import to_json
from corpus.qwen_records import Chat, call, text, thought, usage

SID = "3f2a9c1e-0b7d-4e55-9a10-5c2d8e7f6a41"
CWD = "/home/ada/src/kiln"
WRONG: tuple[Any, ...] = (None, 7, -3, 2.5, "text", "", True, [], [1, "x"], {}, {"x": {"y": []}}, "Infinity")


def session_records() -> list[dict[str, Any]]:
    """A session with every record shape the reader looks into."""
    c = Chat(SID, CWD)
    c.prompt("PROMPT-ONE fix the timer", gitBranch="main")
    c.api_response(1000, 50, cached=10, thoughts=20)
    c.assistant([thought("Look first."), text("Reading."), call("c1", "edit", {"file_path": "/a", "old_string": "x",
                                                                                "new_string": "y"}),
                 call("a1", "agent", {"prompt": "map", "subagent_type": "explorer"})],
                usage(1000, 50, cached=10, thoughts=20))
    c.tool_event("c1", "edit", {"file_path": "/a"})
    c.tool_result("c1", "edit", "ok")
    c.api_response(200, 10, agent="explorer-1", response_text="sub")
    c.tool_event("s1", "read_file", {"absolute_path": "/a"}, agent="explorer-1", error="bad")
    c.tool_result("a1", "agent", "mapped")
    c.user([text("note")], subtype="notification")
    c.system("slash_command", {"phase": "invocation", "rawCommand": "/about"})
    c.system("slash_command", {"phase": "result", "rawCommand": "/about", "outputHistoryItems": [{"text": "v"}]})
    c.system("custom_title", {"customTitle": "Timer"})
    c.system("chat_compression", {"info": {"originalTokenCount": 10, "newTokenCount": 2}})
    c.system("rewind", {"targetUuid": "nope"})
    c.user([text("PROMPT-TWO also the docs")], subtype="mid_turn_user_message")
    c.assistant([text("Done.")], usage(5, 1), forkedFrom={"sessionId": "other", "messageUuid": "m"})
    return [orjson.loads(line) for line in c.lines]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside a record (keys and list indexes)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, prefix + (index,))
    return found


def replaced(record: Any, path: tuple, new: Any) -> Any:
    copy = orjson.loads(orjson.dumps(record))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return copy


def read_lines(folder: Path, lines: list[bytes], name: str = f"{SID}.jsonl") -> list[Session]:
    path = folder / "projects" / sanitized(CWD) / "chats" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    unit = Unit("qwen-fuzz", QWEN, (str(path),), (f"projects/{sanitized(CWD)}/chats/{name}",))
    sessions = read_unit(unit, lambda warning: None, None)
    for session in sessions:
        to_json(session)  # whatever was read can be written out
    return sessions


def prompts(sessions: list[Session]) -> list[str]:
    return [c.text for s in sessions for i in s.timeline if isinstance(i, Prompt) for c in i.content
            if hasattr(c, "text")]


def test_a_wrong_type_in_every_field_of_every_record(tmp_path: Path) -> None:
    records = session_records()
    lines = [orjson.dumps(r) for r in records]
    reads = 0
    for index, record in enumerate(records):
        for path in paths(record):
            for wrong in WRONG:
                damaged = lines[:index] + [orjson.dumps(replaced(record, path, wrong))] + lines[index + 1:]
                sessions = read_lines(tmp_path, damaged)
                reads += 1
                if index != 0:  # the first prompt's record is intact: it is read
                    assert "PROMPT-ONE fix the timer" in prompts(sessions), (index, path, wrong)
    assert reads > 1500


def test_a_file_cut_at_every_length_keeps_what_came_before(tmp_path: Path) -> None:
    body = b"\n".join(orjson.dumps(r) for r in session_records())
    first = body.index(b"\n") + 1
    for size in range(0, len(body), 97):
        sessions = read_lines(tmp_path, [body[:size]] if size else [])
        if size > first:
            assert prompts(sessions)[:1] == ["PROMPT-ONE fix the timer"]


def test_binary_junk_and_a_whole_records_wrong_type(tmp_path: Path) -> None:
    rng = random.Random(7)
    junk = [bytes(rng.randrange(256) for _ in range(200)) for _ in range(5)]
    good = [orjson.dumps(r) for r in session_records()]
    shapes = [b"[]", b"null", b"1", b'"x"', b"{}", b'{"type": "assistant"}', b'{"uuid": 5, "type": ["user"]}']
    sessions = read_lines(tmp_path, junk + good[:1] + shapes + good[1:])
    assert prompts(sessions) == ["PROMPT-ONE fix the timer", "PROMPT-TWO also the docs"]
    assert sessions[0].stats["skipped_lines"] >= 9


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_mutations_never_raise(tmp_path: Path, data: st.DataObject) -> None:
    lines = [orjson.dumps(r) for r in session_records()]
    for _ in range(data.draw(st.integers(1, 6))):
        index = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(("cut", "flip", "glue", "dup", "splice")))
        line = lines[index]
        if how == "cut":
            lines[index] = line[: data.draw(st.integers(0, len(line)))]
        elif how == "flip" and line:
            at = data.draw(st.integers(0, len(line) - 1))
            lines[index] = line[:at] + bytes([line[at] ^ data.draw(st.integers(1, 255))]) + line[at + 1:]
        elif how == "glue" and index + 1 < len(lines):
            lines[index:index + 2] = [line + lines[index + 1]]
        elif how == "dup":
            lines.insert(index, line)
        else:
            lines.insert(index, data.draw(st.binary(max_size=80)).replace(b"\n", b" "))
    read_lines(tmp_path, lines)


def test_missing_unreadable_and_odd_files_are_warnings(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    meta = tmp_path / "agent-x.meta.json"
    meta.write_bytes(b"\xff\xfe not json")
    legacy = tmp_path / "session-2025-01-01T10-00-abcd1234.json"
    legacy.write_text('{"sessionId": "x", "messages": []}')
    names = [tmp_path / "missing.jsonl", fifo, folder, empty, meta, legacy]
    warnings: list = []
    unit = Unit("qwen-odd", QWEN, tuple(map(str, names)), tuple(p.name for p in names))
    assert read_unit(unit, warnings.append, None) == []
    reasons = " | ".join(w.reason for w in warnings)
    assert "cannot read" in reasons and "not a regular file" in reasons and "empty file" in reasons
    assert "single-JSON" in reasons
