"""OpenCode's Layout (readers/opencode_layout.py): where its files are, what is its,
how they are named, grouped and archived, on real files in tmp dirs
(docs/formats-opencode.md §1, §10)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bough_site.plan.units import OPENCODE, Unit
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import LAYOUT, claims, find, home, label, roots, snapshot, units
from corpus.opencode import Builder, Step, write_db, write_storage


def data_dir(tmp_path: Path) -> tuple[Path, Builder]:
    b = Builder(1)
    ses = b.session()
    b.user(ses, "hello")
    b.assistant(ses, [Step(fresh=10, output=5)])
    d = tmp_path / "share" / "opencode"
    d.mkdir(parents=True)
    write_db(d / "opencode.db", b.sessions)
    write_storage(d, b.sessions)
    return d, b


def test_home_and_roots_follow_xdg_and_opencode_db(tmp_path: Path) -> None:
    assert home({"HOME": "/home/ada"}) == Path("/home/ada/.local/share/opencode")
    assert home({"HOME": "/home/ada", "XDG_DATA_HOME": "/data"}) == Path("/data/opencode")
    assert home({"HOME": "/home/ada", "XDG_DATA_HOME": "relative"}) == Path("/home/ada/.local/share/opencode")
    assert roots({"HOME": "/h"}) == [Path("/h/.local/share/opencode")]
    # OPENCODE_DB: relative to the data dir; a name find() lists there is not given twice.
    assert roots({"HOME": "/h", "OPENCODE_DB": "mine.db"}) == [Path("/h/.local/share/opencode"),
                                                              Path("/h/.local/share/opencode/mine.db")]
    assert roots({"HOME": "/h", "OPENCODE_DB": "opencode-dev.db"}) == [Path("/h/.local/share/opencode")]
    assert roots({"HOME": "/h", "OPENCODE_DB": "/elsewhere/x.db"})[1] == Path("/elsewhere/x.db")
    assert roots({"HOME": "/h", "OPENCODE_DB": ":memory:"}) == [Path("/h/.local/share/opencode")]
    assert LAYOUT.kind == OPENCODE and LAYOUT.name == "OpenCode"


def test_claims_data_dir_storage_levels_and_databases(tmp_path: Path) -> None:
    d, b = data_dir(tmp_path)
    sid, mid = b.sessions[0].id, b.sessions[0].messages[0].id
    assert claims(d)
    assert claims(d / "storage") and claims(d / "storage" / "message") and claims(d / "storage" / "message" / sid)
    assert claims(d / "opencode.db")
    assert claims(d / "storage" / "message" / sid / f"{mid}.json")
    assert not claims(d.parent)  # "share" holds the data dir; discovery walks into it
    assert not claims(d / "storage" / "migration")
    # A database is claimed by its tables, not its name; -wal/-shm never on their own.
    other = tmp_path / "notes.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.close()
    assert not claims(other)
    renamed = tmp_path / "backup.db"
    renamed.write_bytes((d / "opencode.db").read_bytes())
    assert claims(renamed)
    (d / "opencode.db-wal").write_bytes(b"")
    assert not claims(d / "opencode.db-wal")
    junk = tmp_path / "opencode" / "opencode.db"
    junk.parent.mkdir()
    junk.write_bytes(b"not sqlite at all")
    assert not claims(junk)
    assert claims(junk.parent)  # a folder is told by names alone (cheap): the reader warns of the file
    plain = tmp_path / "docs"
    (plain / "session").mkdir(parents=True)
    assert not claims(plain)  # a session folder alone is no storage tree


def test_find_lists_databases_exports_and_storage_once_in_order(tmp_path: Path) -> None:
    d, b = data_dir(tmp_path)
    write_db(d / "opencode-beta.db", [])
    (d / "opencode.db-wal").write_bytes(b"")
    (d / "log").mkdir()
    (d / "auth.json").write_text("{}")
    found = find(d)
    names = [label(p) for p in found]
    # The WAL beside its database: listed (a change in it is a change), never read on its own.
    assert names[:3] == ["opencode/opencode.db", "opencode/opencode.db-wal", "opencode/opencode-beta.db"]
    assert len(names) == len(set(names))
    ses = b.sessions[0]
    parts = len(ses.messages[0].parts) + len(ses.messages[1].parts)
    assert len(names) == 3 + 1 + 2 + parts  # dbs and the WAL, session file, message files, part files
    assert "opencode/storage/session/global/" + ses.id + ".json" in names
    assert all(not n.endswith(("-shm", "auth.json", "migration")) for n in names)
    assert snapshot(d / "opencode.db-wal", "opencode/opencode.db-wal", tmp_path / "arch") == []
    assert [n for n, _ in units([(n, d / n) for n in names])[0][1]][:3] == names[:3]
    assert find(d / "storage" / "message") == [p for p in found if "/message/" in str(p)]


def test_labels_are_the_path_from_the_data_dir(tmp_path: Path) -> None:
    assert label(Path("/h/.local/share/opencode/opencode.db")) == "opencode/opencode.db"
    assert label(Path("/h/opencode/storage/message/ses_1/msg_1.json")) == "opencode/storage/message/ses_1/msg_1.json"
    assert label(Path("/h/opencode/storage/project/global.json")) == "opencode/storage/project/global.json"
    assert label(Path("/h/opencode/storage/part/prt_1.json")) == "opencode/storage/part/prt_1.json"
    assert label(Path("/arch/x/opencode/opencode.db.sessions/ses_1.jsonl")) == "opencode/opencode.db.sessions/ses_1.jsonl"


def test_units_one_per_data_dir_databases_first() -> None:
    listed = [("opencode/storage/session/g/s.json", Path("/a/s.json")), ("opencode/opencode-b.db", Path("/a/b.db")),
              ("opencode/opencode.db.sessions/s.jsonl", Path("/a/s.jsonl")), ("opencode/opencode.db", Path("/a/o.db")),
              ("other/opencode.db", Path("/b/o.db"))]
    grouped = units(listed)
    assert [len(files) for _, files in grouped] == [4, 1]
    assert [name for name, _ in grouped[0][1]] == ["opencode/opencode.db", "opencode/opencode-b.db",
                                                   "opencode/opencode.db.sessions/s.jsonl",
                                                   "opencode/storage/session/g/s.json"]
    assert grouped[0][0].startswith("opencode-") and grouped[0][0] != grouped[1][0]
    assert units(listed) == grouped  # stable


def test_snapshot_exports_each_session_and_reads_back_exactly(tmp_path: Path) -> None:
    b = Builder(3)
    root = b.session()
    b.user(root, "go")
    tool, child = b.task(root, "current")
    b.user(child, "Look.")
    b.assistant(child, [Step(fresh=7, output=3, reasoning=1, read=100, write=5)])
    b.assistant(root, [Step(fresh=10, output=20, reasoning=4), Step(fresh=11, output=2, read=50)], tools=[tool])
    d = tmp_path / "opencode"
    d.mkdir()
    db = write_db(d / "opencode.db", b.sessions)
    out = tmp_path / "archive"
    kept = snapshot(db, "opencode/opencode.db", out)
    assert sorted(name for name, _ in kept) == sorted(f"opencode/opencode.db.sessions/{s.id}.jsonl" for s in b.sessions)
    assert all(label(path) == name for name, path in kept)  # the reader's label of the copy is its own
    assert snapshot(db, "opencode/opencode.db", tmp_path / "again") != kept
    assert [p.read_bytes() for _, p in snapshot(db, "opencode/opencode.db", tmp_path / "again")] == \
        [p.read_bytes() for _, p in kept]  # the same database exports the same bytes
    from_db = read_unit(Unit("k", OPENCODE, (str(db),), ("opencode/opencode.db",)), [].append, None)
    paths = tuple(str(p) for _, p in kept)
    from_export = read_unit(Unit("k", OPENCODE, paths, tuple(n for n, _ in kept)), [].append, None)
    assert [s.id for s in from_db] == [s.id for s in from_export] == [root.id]
    a, e = from_db[0], from_export[0]
    assert a.stats == e.stats and a.stats["input_tokens"] == 28 and a.stats["subagents"] == 1
    assert (a.title, a.cwd, a.started, a.ended, a.models) == (e.title, e.cwd, e.started, e.ended, e.models)
    assert [(i.kind, i.id) for i in a.timeline] == [(i.kind, i.id) for i in e.timeline]
    assert a.tally.replies == e.tally.replies
    # Other files are kept as they are; every label is rewritten whole.
    assert snapshot(tmp_path / "x.json", "opencode/storage/session/g/x.json", out) == \
        [("opencode/storage/session/g/x.json", tmp_path / "x.json")]
    assert LAYOUT.rewritten_whole("opencode/opencode.db.sessions/s.jsonl")


def test_database_wins_over_export_over_json(tmp_path: Path) -> None:
    d, b = data_dir(tmp_path)
    ses = b.sessions[0]
    # An older export of the same session (no reply yet) and the frozen JSON copy.
    b2 = Builder(1)
    old = b2.session()
    b2.user(old, "hello")
    assert old.id == ses.id
    old_db = write_db(tmp_path / "old.db", b2.sessions)
    exported = snapshot(old_db, "opencode/opencode.db", tmp_path / "arch")
    listed = [("opencode/opencode.db", d / "opencode.db")] + exported
    listed += [(label(p), p) for p in find(d / "storage")]
    for files in (listed, listed[1:], [x for x in listed if not x[0].endswith(".db")]):
        (_, grouped), = units(files)
        unit = Unit("k", OPENCODE, tuple(str(p) for _, p in grouped), tuple(n for n, _ in grouped))
        sessions = read_unit(unit, [].append, None)
        assert [s.id for s in sessions] == [ses.id]
    (_, grouped), = units(listed)
    unit = Unit("k", OPENCODE, tuple(str(p) for _, p in grouped), tuple(n for n, _ in grouped))
    session = read_unit(unit, [].append, None)[0]
    assert session.stats["replies"] == 1 and session.files == ["opencode/opencode.db"]
    (_, grouped), = units([x for x in listed if not x[0].endswith(".db")])
    unit = Unit("k", OPENCODE, tuple(str(p) for _, p in grouped), tuple(n for n, _ in grouped))
    assert read_unit(unit, [].append, None)[0].stats["replies"] == 0  # the export over the JSON copy


def test_sessions_sniff_and_what_discovery_reads() -> None:
    assert LAYOUT.holds_session("opencode/opencode.db") and LAYOUT.holds_session("opencode/x.db.sessions/ses_1.jsonl")
    assert LAYOUT.holds_session("opencode/storage/session/global/ses_1.json")
    assert not LAYOUT.holds_session("opencode/storage/message/ses_1/msg_1.json")
    assert not LAYOUT.holds_session("opencode/storage/part/msg_1/prt_1.json")
    assert not LAYOUT.holds_session("opencode/opencode.db-wal")
    assert LAYOUT.sniff({"opencode_export": 1, "db": "opencode/opencode.db", "session": "ses_1"})
    assert not LAYOUT.sniff({"type": "user", "sessionId": "x"})
    assert LAYOUT.reads == frozenset({"storage"})  # not log/, snapshot/, tool-output/
