"""Bad input for the OpenCode reader: a wrong type in every column and every JSON
field of a message and a part, a damaged or truncated database, junk in the JSON
era's files and in the archive's exports. ``read_unit`` never raises, and a session
the damage did not touch is read exactly as before."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site.model import Session
from bough_site.plan.units import OPENCODE, Unit
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import find, label, snapshot
from corpus.opencode import Builder, Step, write_db, write_storage

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
WRONG: list[Any] = [None, 7, -1, 3.5, 10**30, "x", "", [], {}, [1, "a"], {"a": {}}, True, "NaN", "\ud800"]


def two_sessions() -> tuple[Builder, str, str]:
    """A session to damage and one to leave alone, each with a prompt, a multi-step
    reply with a tool call and a task child."""
    b = Builder(11)
    ids = []
    for _ in range(2):
        ses = b.session()
        b.user(ses, "go", synthetic="ctx")
        tool, child = b.task(ses, "current")
        b.user(child, "Look.")
        b.assistant(child, [Step(fresh=3, output=2)])
        b.assistant(ses, [Step(fresh=10, output=5, reasoning=2, read=9), Step(fresh=1, output=1)],
                    tools=[tool, b.tool("bash", {"command": "ls"}, metadata={"exit": 0}, output="a")])
        ids.append(ses.id)
    return b, ids[0], ids[1]


def read(paths: list[Path]) -> list[Session]:
    unit = Unit("k", OPENCODE, tuple(str(p) for p in paths), tuple(label(p) for p in paths))
    return read_unit(unit, [].append, None)


def stats_of(sessions: list[Session], sid: str) -> dict[str, int]:
    return next(s.stats for s in sessions if s.id == sid)


def baseline() -> dict[str, int]:
    b, _, keep = two_sessions()
    with tempfile.TemporaryDirectory() as tmp:
        return stats_of(read([write_db(Path(tmp) / "opencode.db", b.sessions)]), keep)


BASE = baseline()


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths_in(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths_in(item, prefix + (index,))
    return out


def put(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


@FUZZ
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(WRONG))
def test_a_wrong_type_in_any_json_field(choice: int, wrong: Any) -> None:
    b, hit, keep = two_sessions()
    ses = next(s for s in b.sessions if s.id == hit)
    targets = [(m.data, p) for m in ses.messages for p in paths_in(m.data)]
    targets += [(part, p) for m in ses.messages for _, part in m.parts for p in paths_in(part)]
    data, path = targets[choice % len(targets)]
    put(data, path, wrong)
    with tempfile.TemporaryDirectory() as tmp:
        sessions = read([write_db(Path(tmp) / "opencode.db", b.sessions)])
        assert stats_of(sessions, keep) == BASE
        assert hit in {s.id for s in sessions}


COLUMNS = {"session": ["project_id", "parent_id", "slug", "directory", "title", "version", "time_created",
                       "time_updated"],
           "message": ["id", "session_id", "time_created", "time_updated", "data"],
           "part": ["id", "message_id", "session_id", "time_created", "time_updated", "data"]}
SQL_WRONG = [7, -1, 3.5, "x", "", b"\xff\xfe", "{", "[]", "null", 10**18]


@FUZZ
@given(st.sampled_from([(t, c) for t, cs in COLUMNS.items() for c in cs]), st.sampled_from(SQL_WRONG),
       st.integers(min_value=0, max_value=100))
def test_a_wrong_type_in_any_column(column: tuple[str, str], wrong: Any, row: int) -> None:
    b, hit, keep = two_sessions()
    table, name = column
    with tempfile.TemporaryDirectory() as tmp:
        db = write_db(Path(tmp) / "opencode.db", b.sessions)
        con = sqlite3.connect(db)
        key = "id" if table == "session" else "session_id"
        rowids = [r for (r,) in con.execute(f"SELECT rowid FROM {table} WHERE {key} = ?", (hit,))]
        con.execute(f"UPDATE {table} SET {name} = ? WHERE rowid = ?", (wrong, rowids[row % len(rowids)]))
        con.commit()
        con.close()
        sessions = read([db])
        if not (table == "session" and name == "parent_id"):  # a new parent can be the kept session
            assert stats_of(sessions, keep) == BASE


@FUZZ
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["cut", "flip", "junk"]))
def test_a_damaged_database_never_raises(seed: int, how: str) -> None:
    b, _, _ = two_sessions()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        db = write_db(Path(tmp) / "opencode.db", b.sessions)
        data = bytearray(db.read_bytes())
        if how == "cut":
            data = data[: rng.randrange(len(data))]
        elif how == "flip":
            for _ in range(rng.randint(1, 40)):
                data[rng.randrange(100, len(data))] = rng.randrange(256)
        else:
            start = rng.randrange(len(data))
            data[start:start + 4096] = rng.randbytes(4096)
        db.write_bytes(bytes(data))
        assert isinstance(read([db]), list)


@FUZZ
@given(st.integers(min_value=0, max_value=10**6))
def test_junk_in_json_era_files_and_exports_costs_only_those_files(seed: int) -> None:
    b, hit, keep = two_sessions()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "opencode"
        write_storage(data, b.sessions)
        db = write_db(Path(tmp) / "src.db", b.sessions)
        exported = snapshot(db, "opencode/opencode.db", Path(tmp) / "archive")
        files = [p for p in find(data) if hit in str(p) or any(m.id in str(p) for s in b.sessions if s.id == hit
                                                               for m in s.messages)]
        victims = rng.sample(files, k=min(len(files), rng.randint(1, 4)))
        for victim in victims:
            raw = victim.read_bytes()
            choice = rng.randrange(4)
            victim.write_bytes([raw[: rng.randrange(len(raw))], rng.randbytes(64), b"", b"\x00" * 10][choice])
        export = next(p for n, p in exported if hit in n)
        lines = export.read_bytes().split(b"\n")
        lines[rng.randrange(len(lines))] = rng.choice([b"{", b"[1]", b'{"table": 5, "row": []}', rng.randbytes(20)])
        export.write_bytes(b"\n".join(lines))
        assert stats_of(read(find(data)), keep) == BASE
        assert stats_of(read([p for _, p in exported]), keep) == BASE
