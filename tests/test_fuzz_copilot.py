"""Bad input for the Copilot CLI reader: wrong types in every field, truncated files,
binary junk, damaged lines. ``read_unit`` never raises, keeps what was good, and
what it gives is a session the rest of the build can count, summarize and write."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.model import Prompt, Session, InputWarning
from bough_site.plan.units import COPILOT, Unit
from bough_site.readers import copilot
from bough_site.site import site_from_sessions
from bough_site.sidecars import session_json
from bough_site.work import summarize_work
from corpus import copilot_examples as cx

WRONG: tuple[Any, ...] = (None, 12, -3, 2.5, "text", True, [1, "x"], {"k": {"deeper": [None]}}, "", [])
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture],
                derandomize=True)


def lines_of(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if line]


def read_files(folder: Path, files: dict[str, bytes]) -> tuple[list[Session], list[InputWarning]]:
    paths, labels = [], []
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        paths.append(str(path))
        labels.append(name)
    warnings: list[InputWarning] = []
    sessions = copilot.read_unit(Unit("copilot-x", COPILOT, tuple(paths), tuple(labels)), warnings.append, None)
    for session in sessions:
        summarize_work(session)
        site = site_from_sessions([session])
        orjson.dumps(session_json(site.projects[0], session))  # a sidecar can be written
        assert all(value is None or (isinstance(value, int) and value >= 0) for value in session.stats.values())
    return sessions, warnings


def read_log(folder: Path, data: bytes) -> tuple[list[Session], list[InputWarning]]:
    return read_files(folder, {"session-state/s/events.jsonl": data})


def with_value(record: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    copy = orjson.loads(orjson.dumps(record))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


def fields(record: dict[str, Any]) -> list[tuple[str, ...]]:
    """Every field of a record, and of its data and of the objects in it, one level down."""
    found = [(key,) for key in record]
    data = record.get("data")
    if isinstance(data, dict):
        for key, value in data.items():
            found.append(("data", key))
            if isinstance(value, dict):
                found += [("data", key, inner) for inner in value]
    return found


def test_wrong_types_in_every_field_cost_only_their_record(tmp_path: Path) -> None:
    lines = lines_of(cx.c1_events())
    parsed = [orjson.loads(line) if line.startswith(b"{") and line.endswith(b"}") else None for line in lines]
    tried = 0
    for index, record in enumerate(parsed):
        if record is None:
            continue
        for path in fields(record):
            for value in WRONG:
                mutated = list(lines)
                mutated[index] = orjson.dumps(with_value(record, path, value))
                sessions, _ = read_log(tmp_path / f"m{tried}", b"\n".join(mutated) + b"\n")
                tried += 1
                assert len(sessions) <= 1
                if sessions and not (path[0] == "data" and record["type"] == "user.message"):
                    # The typed prompt is in another record: it is still there.
                    prompts = [i for i in sessions[0].timeline if isinstance(i, Prompt)]
                    assert any("--json" in c.text for p in prompts for c in p.content) or index == 3
    assert tried > 1000


def test_every_truncation_of_a_log_reads(tmp_path: Path) -> None:
    data = cx.c2_events()
    for cut in range(0, len(data), 23):
        sessions, warnings = read_log(tmp_path / f"t{cut}", data[:cut])
        if cut and data[:cut].count(b"\n") >= 1:
            assert sessions and sessions[0].id == cx.C2
        if cut and not data[:cut].endswith(b"\n"):
            assert any("truncated" in w.reason or "empty" in w.reason for w in warnings) or cut < 2


def test_binary_junk_everywhere(tmp_path: Path) -> None:
    junk = random.Random(7).randbytes(4096)
    alone, warnings = read_log(tmp_path / "a", junk)
    assert len(alone) <= 1 and warnings  # each bad line said
    sessions, warnings = read_files(tmp_path / "b", {"session-state/s/events.jsonl": cx.c2_events(),
                                                     "session-state/s/workspace.yaml": junk})
    assert sessions[0].id == cx.C2
    for name in ("history-session-state/old.json",):
        for data in (junk, b"[1, 2]", b'{"sessionId": 5, "timeline": {"not": "a list"}}', b"{", b"",
                     b'{"sessionId": "o", "timeline": [null, 1, {"type": 7}, {"type": "copilot", "text": 9},'
                     b' {"type": "tool_call_completed", "callId": [], "result": "x"}]}'):
            read_files(tmp_path / f"c{len(data)}", {name: data})


@st.composite
def damage(draw: st.DrawFn) -> list[tuple[str, int, bytes]]:
    ops = st.sampled_from(["keep"] * 5 + ["cut", "flip", "splice", "join", "duplicate", "blank", "shape"])
    count = len(lines_of(cx.c1_events()))
    return draw(st.lists(st.tuples(ops, st.integers(0, 10**6), st.binary(min_size=1, max_size=6)),
                         min_size=count, max_size=count))


def damaged(lines: list[bytes], plan: list[tuple[str, int, bytes]]) -> tuple[bytes, set[int]]:
    """The damaged file, and the lines left intact."""
    out, intact = [], set()
    for index, (line, (op, at, junk)) in enumerate(zip(lines, plan)):
        where = at % max(1, len(line))
        if op == "keep":
            out.append(line)
            intact.add(index)
        elif op == "cut":
            out.append(line[:where])
        elif op == "flip":
            out.append(line[:where] + bytes([line[where] ^ 0x41]) + line[where + 1:])
        elif op == "splice":
            out.append(line[:where] + junk + line[where:])
        elif op == "join" and out:
            out[-1] += line
        elif op == "duplicate":
            out += [line, line]
            intact.add(index)
        elif op == "blank":
            out += [b"   ", line]
            intact.add(index)
        elif op == "shape":
            record = orjson.loads(line) if line.endswith(b"}") and line.startswith(b"{") else {}
            out.append(orjson.dumps({**record, "data": [junk.hex()]}) if record else line)
        else:
            out.append(line)
    return b"\n".join(out) + b"\n", intact


@FUZZ
@given(plan=damage())
def test_damaged_logs_never_break_the_reader(tmp_path: Path, plan: list[tuple[str, int, bytes]]) -> None:
    lines = lines_of(cx.c1_events())
    data, intact = damaged(lines, plan)
    sessions, _ = read_log(tmp_path / f"d{abs(hash(data))}", data)
    if 3 in intact and sessions:  # the prompt's line: its text is on the timeline
        assert any(isinstance(i, Prompt) for i in sessions[0].timeline)


def test_a_build_over_damaged_files_never_raises(tmp_path: Path) -> None:
    home = tmp_path / ".copilot" / "session-state"
    rng = random.Random(3)
    for n in range(6):
        lines = lines_of(cx.c1_events())
        plan = [(rng.choice(["keep", "cut", "flip", "splice", "join"]), rng.randrange(10**6), b"\x00\xff")
                for _ in lines]
        data, _ = damaged(lines, plan)
        (home / f"s{n}").mkdir(parents=True)
        (home / f"s{n}" / "events.jsonl").write_bytes(data)
    (home / "junk.jsonl").write_bytes(b'{"type": "session.start", "data": {}}\n' + random.Random(1).randbytes(2000))
    result = build(BuildConfig(sources=[tmp_path / ".copilot"], out=tmp_path / "site", archive=None, jobs=1),
                   redaction_key=b"k")
    assert result.sessions >= 1


LEGACY = {"sessionId": "old", "startTime": "2025-10-01T10:00:00.000Z", "chatMessages": [
    {"role": "user", "content": "List it"}], "timeline": [
    {"id": "1", "type": "info", "text": "Logged in", "timestamp": "2025-10-01T10:00:01.000Z"},
    {"id": "2", "type": "user", "text": "List it", "timestamp": "2025-10-01T10:00:02.000Z"},
    {"id": "3", "type": "copilot", "text": "Listing.", "timestamp": "2025-10-01T10:00:03.000Z"},
    {"type": "tool_call_completed", "id": "4", "callId": "c1", "name": "bash", "toolTitle": "bash",
     "arguments": {"command": "cd /src && ls"}, "result": {"type": "success", "log": "a.py"},
     "timestamp": "2025-10-01T10:00:04.000Z"}]}


def test_wrong_types_in_every_field_of_a_legacy_session(tmp_path: Path) -> None:
    paths = [(key,) for key in LEGACY] + [("timeline", i, key) for i, entry in enumerate(LEGACY["timeline"])
                                          for key in entry]
    paths += [("timeline", 3, "result", "type"), ("timeline", 3, "result", "log"), ("timeline", 3, "arguments", "command")]
    for n, path in enumerate(paths):
        for m, value in enumerate(WRONG):
            data = orjson.loads(orjson.dumps(LEGACY))
            target = data
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            sessions, _ = read_files(tmp_path / f"l{n}-{m}", {"history-session-state/old.json": orjson.dumps(data)})
            assert len(sessions) == 1
            stats = sessions[0].stats
            assert stats["input_tokens"] is None and stats["output_tokens"] is None


def test_odd_workspace_files(tmp_path: Path) -> None:
    for n, text in enumerate((b"", b"name:", b"- a list\n- of things\n", b"name: 'unclosed\n", b"\xff\xfe\x00name: x",
                              b"name: |\n  a block\n", b"cwd: ~\nname: null\n", b"a" * 5_000_000)):
        sessions, _ = read_files(tmp_path / f"w{n}", {"session-state/s/events.jsonl": cx.c2_events(),
                                                      "session-state/s/workspace.yaml": text})
        assert sessions[0].id == cx.C2 and sessions[0].cwd == cx.TIDEPOOL and sessions[0].title
