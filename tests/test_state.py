"""OUT's state store (state.py): one sqlite3 file of content-named values, and
how a build uses it (a session's identities and a Claude file's resume summary)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from bough_site.assemble import Outcome, Status
from bough_site.model import Session
from bough_site.stats import Tally
from bough_site.summaries import tally_from_bytes
from bough_site.counts import ProjectSums
from bough_site.state_reads import Unions, sums_key, union_key
from bough_site.render.blockstore import BlockStore, store_path
from bough_site.errors import OutputError
from bough_site.manifest import Manifest
from bough_site.state import StateStore, StateWrites, atomic_write, state_name
from bough_site.state_paths import KEPT_RATES, STATE_DB, STATE_DIR

from .helpers import append_turn, main_file, make_history, run, tree

TALLY = b'{"records": ["r1"]}'
SCAN = b"\x78\x9c summary"


def store_file(out: Path) -> Path:
    return out / STATE_DIR / STATE_DB


def test_values_are_kept_across_connections_and_dropped_when_not_named(tmp_path: Path) -> None:
    tally, scan = state_name(TALLY, ".json"), state_name(SCAN, ".records")
    with StateStore(tmp_path) as state:
        assert state.names() == set() and state.get(tally) is None  # nothing yet: no file made
        assert not store_file(tmp_path).exists()
        state.add({tally: TALLY, scan: SCAN})
        state.add({tally: TALLY})  # the same name again: the same value
    with StateStore(tmp_path) as state:
        assert state.names() == {tally, scan}
        assert (state.get(tally), state.get(scan)) == (TALLY, SCAN)
        state.keep_only({scan, "never-stored"})
    with StateStore(tmp_path) as state:
        assert state.names() == {scan} and state.get(tally) is None


def test_many_values_are_read_in_one_call_past_the_names_one_query_binds(tmp_path: Path) -> None:
    values = {state_name(str(n).encode(), ".json"): str(n).encode() for n in range(2_000)}
    with StateStore(tmp_path) as state:
        assert state.get_many(values) == {}  # no store yet
        state.add(values)
    wanted = sorted(values)[::2] + ["never-stored"]  # 1,000 names: two queries
    with StateStore(tmp_path) as state:
        assert state.get_many(iter(wanted)) == {name: values[name] for name in wanted[:-1]}


def test_a_projects_union_of_identities_is_kept_and_read_back_whole(tmp_path: Path) -> None:
    """The build counts a project from the union of its sessions' identities, which it
    keeps in the state: a project none of whose sessions changed is one value read."""
    one = orjson.dumps({"records": ["r1", "r2"], "replies": [["m1", 1, 2, 3, 4, 0]], "lines": 5,
                        "costs": [["m1", 7, None]]})
    two = orjson.dumps({"records": ["r2", "r3"], "replies": [["m1", 1, 2, 3, 4, 0], ["m2", 0, 1, 0, 0, 0]],
                        "lines": 3, "unknown": {"input_tokens": ["s2"]}})
    names = [state_name(one, ".json"), state_name(two, ".json")]
    sessions = [Session(key, "claude-code", "/p", None, None, None, [], [], None, [], [], {}) for key in "ab"]
    outcomes = {id(s): Outcome(s.id, s.id, {"id": s.id}, {"id": "p"}, Status.REUSED, tally_file=name)
                for s, name in zip(sessions, names)}
    said: list[str] = []
    with StateStore(tmp_path) as state:
        state.add(dict(zip(names, (one, two))))
        writes = StateWrites(state)
        union = Unions(lambda s: outcomes[id(s)], writes, said.append).sums(sessions).sums.stats()
        straight = Tally()
        for data in (one, two):
            straight.merge(tally_from_bytes(data))
        assert union == straight.stats()
        assert (union["records"], union["lines"], union["replies"], union["input_tokens"]) == (3, 8, 2, 1)
        assert "replies_with_recorded_cost" not in union and union["sessions_with_unknown_input_tokens"] == 1
        writes.flush()
        kept = union_key([outcomes[id(s)] for s in sessions])
        numbers = sums_key([kept])  # the project's numbers, named by its months' unions
        stored = ProjectSums.from_bytes(numbers, state.get(numbers))
        assert state.names() == {*names, kept, numbers} and stored is not None and stored.sums.stats() == union
        state.keep_only([kept])  # the sessions' own values and the numbers gone: the union alone serves
        again = Unions(lambda s: outcomes[id(s)], StateWrites(state), said.append)
        assert again.union(sessions).stats() == again.sums(sessions).sums.stats() == union and said == []
        state.add({numbers: ProjectSums(numbers, replace(stored.sums, lines=99), stored.prefixes).to_bytes()})
        read = Unions(lambda s: outcomes[id(s)], StateWrites(state), said.append).sums(sessions)
        assert read.sums.stats()["lines"] == 99  # kept numbers are read, not counted again


def test_a_union_made_by_months_is_the_union_made_session_by_session(tmp_path: Path) -> None:
    """A project's union is merged from its months' (each kept): the same numbers as
    merging every session in order, ties included (the first of the largest copies of
    a reply, the first cost of it); a grown session makes its own month's union again."""
    def tally(records: list[str], replies: list[list], costs: list[list]) -> bytes:
        return orjson.dumps({"records": records, "replies": replies, "costs": costs, "lines": len(records)})

    values = [  # newest first, as a project's sessions are
        ("2026-03-02", tally(["r1", "r2"], [["m1", 1, 2, 0, 0, 0]], [["m1", 10, None]])),
        ("2026-03-01", tally(["r2", "r3"], [["m1", 2, 1, 0, 0, 0], ["m2", 0, 5, 0, 0, 0]], [["m1", 11, None]])),
        ("2026-02-20", tally(["r3", "r4"], [["m2", 0, 5, 0, 0, 0], ["m3", 0, 9, 0, 0, 0]], [["m2", 12, 3]])),
        (None, tally(["r9"], [["m1", 0, 3, 0, 0, 0]], [])),
    ]
    sessions = [Session(f"s{n}", "claude-code", "/p", None, started, None, [], [], None, [], [], {})
                for n, (started, _) in enumerate(values)]
    outcomes = {id(s): Outcome(s.id, s.id, {"id": s.id}, {"id": "p"}, Status.REUSED,
                               tally_file=state_name(data, ".json")) for s, (_, data) in zip(sessions, values)}
    straight = Tally()
    for _, data in values:
        straight.merge(tally_from_bytes(data))
    with StateStore(tmp_path) as state:
        state.add({state_name(data, ".json"): data for _, data in values})
        writes = StateWrites(state)
        unions = Unions(lambda s: outcomes[id(s)], writes, [].append)
        union, stats = unions.union(sessions), unions.sums(sessions).sums.stats()
        writes.flush()
        assert union.stats() == stats == straight.stats()
        assert straight.replies["m1"].output_tokens == 2 and straight.costs["m1"] == (10, None)
        by_month = [[outcomes[id(s)] for s in sessions[:2]], [outcomes[id(sessions[2])]], [outcomes[id(sessions[3])]]]
        assert state.names() - {o.tally_file for o in outcomes.values()} == {
            *(union_key(m) for m in by_month), sums_key([union_key(m) for m in by_month])}
        # One session grown: its month's union is made again, the others' are read.
        grown = tally(["r3", "r4", "r5"], [["m2", 0, 5, 0, 0, 0], ["m3", 0, 9, 0, 0, 0]], [["m2", 12, 3]])
        state.add({state_name(grown, ".json"): grown})
        outcomes[id(sessions[2])] = replace(outcomes[id(sessions[2])], tally_file=state_name(grown, ".json"))
        # Every session's own values gone but the grown one's: the other months' unions serve.
        state.keep_only({state_name(grown, ".json"), union_key(by_month[0]), union_key(by_month[2])})
        said: list[str] = []
        stats = Unions(lambda s: outcomes[id(s)], StateWrites(state), said.append).sums(sessions).sums.stats()
        assert (stats["records"], stats["lines"], said) == (6, 8, [])


def test_a_union_missing_a_sessions_identities_warns_and_is_not_kept(tmp_path: Path) -> None:
    data = orjson.dumps({"records": ["r1"], "lines": 1})
    sessions = [Session(key, "claude-code", "/p", None, None, None, [], [], None, [], [], {}) for key in "ab"]
    names = {"a": state_name(data, ".json"), "b": state_name(b"lost", ".json")}
    outcomes = {id(s): Outcome(s.id, s.id, {"id": s.id}, {"id": "p"}, Status.REUSED, tally_file=names[s.id])
                for s in sessions}
    said: list[str] = []
    with StateStore(tmp_path) as state:
        state.add({names["a"]: data})
        writes = StateWrites(state)
        stats = Unions(lambda s: outcomes[id(s)], writes, said.append).sums(sessions).sums.stats()
        writes.flush()
        assert stats["records"] == 1 and state.names() == {names["a"]}
    assert said == ["warning: the numbers of session b are missing from the last build's state; "
                    "its project's totals leave it out"]


def test_a_damaged_store_reads_as_empty_and_is_made_anew(tmp_path: Path) -> None:
    path = store_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database, " * 100)
    with StateStore(tmp_path) as state:
        assert state.names() == set() and state.get("x.json") is None
        state.add({"x.json": TALLY})
    with StateStore(tmp_path) as state:
        assert state.get("x.json") == TALLY


def test_a_symlink_in_place_of_the_store_is_never_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.sqlite"
    (tmp_path / "other").mkdir()
    with StateStore(tmp_path / "other") as state:
        state.add({"x.json": TALLY})
    os.replace(store_file(tmp_path / "other"), elsewhere)
    path = store_file(tmp_path / "out")
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    with StateStore(tmp_path / "out") as state:
        assert state.get("x.json") is None and state.names() == set()
        state.add({"y.json": TALLY})
    assert elsewhere.read_bytes() == before and path.is_symlink()


def test_values_a_build_makes_are_written_a_batch_at_a_time_and_read_back(tmp_path: Path) -> None:
    values = {state_name(str(n).encode(), ".json"): str(n).encode() * 100 for n in range(50)}
    with StateStore(tmp_path) as state:
        writes = StateWrites(state)
        writes.BATCH = 1_000  # a batch is written once it holds this many bytes
        for name, data in values.items():
            writes.add(name, data)
        values["tail.json"] = b"t"
        writes.add("tail.json", b"t")
        on_disk = state.names()
        assert len(on_disk) >= 40 and "tail.json" not in on_disk  # written as they came, the last batch held
        assert writes.get_many(list(values) + ["never-made"]) == values  # written first, then read
        assert state.names() == set(values)


def test_values_the_store_cannot_keep_stay_with_the_build(tmp_path: Path) -> None:
    path = store_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.symlink_to(tmp_path / "elsewhere.sqlite")  # a store bough never opens (docs/safety.md S8)
    with StateStore(tmp_path) as state:
        writes = StateWrites(state)
        writes.add("x.json", TALLY)
        writes.flush()
        assert state.names() == set() and writes.get_many(["x.json", "y.json"]) == {"x.json": TALLY}
    assert not (tmp_path / "elsewhere.sqlite").exists()


def test_the_state_files_of_an_older_bough_are_removed_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / STATE_DIR
    (folder / "blocks").mkdir(parents=True)
    old = [folder / f"{'a' * 32}.json", folder / f"{'b' * 32}.records"]
    others = [folder / "blocks" / f"{'c' * 32}.json", folder / "notes.json", folder / f"{'d' * 31}.json"]
    for path in old + others:
        path.write_bytes(b"{}")
    with StateStore(tmp_path) as state:
        state.keep_only(set())
    assert [p.exists() for p in old] == [False, False] and all(p.exists() for p in others)


def test_a_build_writes_one_state_file_whatever_the_number_of_sessions(tmp_path: Path) -> None:
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    built = run(history, out)
    assert built.sessions > 1
    assert sorted(p.name for p in (out / STATE_DIR).iterdir()) == ["blocks", KEPT_RATES, STATE_DB, "templates"]
    with StateStore(out) as state:
        names = state.names()
    # Every session's identities, and per Claude file compared for resumes its summary
    # and what the probe found (the history has one folder of Claude files).
    assert sum(n.endswith(".json") for n in names) == built.sessions
    assert all(n.endswith((".json", ".details", ".counts", ".sums", ".facts", ".records", ".uuids")) for n in names)
    # and each session's summary details (sessions whose details are the same share one),
    # and per project (and per month of it) the union of its sessions' identities
    details = {session.details for session in Manifest.load(out).sessions.values()}
    assert len(details) > 1 and details == {n for n in names if n.endswith(".details")}
    assert sum(n.endswith(".counts") for n in names) >= built.projects  # its own, and its months'
    assert sum(n.endswith(".sums") for n in names) == built.projects  # its sums, for the site's (site.py)
    assert sum(n.endswith(".facts") for n in names) == built.projects  # what the index takes of it (publish.py)
    assert sum(n.endswith(".uuids") for n in names) == len(list(history.glob("*/*-*-*.jsonl")))


def test_state_lost_since_the_last_build_is_made_again(tmp_path: Path) -> None:
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    first = run(history, out)
    with StateStore(out) as state:
        kept = state.names()
    store_file(out).unlink()
    second = run(history, out)
    assert second.rebuilt == first.rebuilt  # without their numbers, the sessions are read again
    with StateStore(out) as state:
        # Though the manifest is the same, the sessions' values are kept again (the
        # projects' unions of identities, their sums and facts are made again when next published).
        assert state.names() == {name for name in kept if not name.endswith((".counts", ".sums", ".facts"))}
    third = run(history, out)
    assert (third.rebuilt, third.reused) == (0, first.rebuilt)
    assert third.site.stats == first.site.stats


def test_the_unions_stay_when_a_build_keeps_the_site_pages(tmp_path: Path) -> None:
    """New times, the same bytes: the manifest changes, the site's pages are kept as they
    are (no number is counted again), and the projects' unions stay for the next change."""
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    first = run(history, out)
    with StateStore(out) as state:
        kept = state.names()
    assert sum(name.endswith(".counts") for name in kept) >= first.projects
    for path in history.rglob("*.jsonl"):
        os.utime(path, (1_900_000_000, 1_900_000_000))
    again = run(history, out)
    assert again.rebuilt == 0 and again.site.stats == first.site.stats
    with StateStore(out) as state:
        assert state.names() == kept


def test_an_append_keeps_the_new_identities_and_drops_the_old(tmp_path: Path) -> None:
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    with StateStore(out) as state:
        before = state.names()
    source, _summary = main_file(history, out)
    append_turn(source)
    grown = run(history, out)
    assert grown.rebuilt == 1
    with StateStore(out) as state:
        after = state.names()
    assert len(after) == len(before) and after != before  # one session's values replaced, none left behind
    fresh = tmp_path / "fresh"
    run(history, fresh)
    with StateStore(fresh) as state:
        assert state.names() == after
    assert tree(out) == tree(fresh)


@pytest.mark.parametrize("where", ["file", "folder", "state folder"])
def test_a_symlink_in_the_block_stores_path_is_never_followed(tmp_path: Path, where: str) -> None:
    # The block store opens its file through the same checks (state.sqlite_file_usable).
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    path = store_path(out)
    link = {"file": path, "folder": path.parent, "state folder": path.parent.parent}[where]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere / path.name if where == "file" else elsewhere, target_is_directory=where != "file")
    store = BlockStore(path)
    store.add(b"k" * 16, "<b>x</b>")
    store.record("session", [b"k" * 16])
    store.close()
    assert list(elsewhere.iterdir()) == [] and link.is_symlink()
    assert store.get(b"k" * 16) == "<b>x</b>"  # from memory: highlighting goes on without the file


# --- writing a file of OUT from chunks ------------------------------------------------------------


@pytest.mark.parametrize("before", [None, b"one two", b"one two three", b"one", b"one tw0"])
def test_a_file_written_from_chunks_is_replaced_only_when_its_bytes_differ(tmp_path: Path,
                                                                            before: bytes | None) -> None:
    path = tmp_path / "f.json"
    if before is not None:
        path.write_bytes(before)
    inode = os.stat(path).st_ino if before is not None else None
    atomic_write(tmp_path, "f.json", iter([b"one", b" two"]))
    assert path.read_bytes() == b"one two"
    assert (os.stat(path).st_ino == inode) == (before == b"one two")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]  # no temporary file left


def test_a_symlink_in_the_place_of_a_file_written_from_chunks_is_replaced(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"one two")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "f.json").symlink_to(outside)
    atomic_write(tmp_path / "out", "f.json", [b"one", b" three"])
    assert not (tmp_path / "out" / "f.json").is_symlink()
    assert (tmp_path / "out" / "f.json").read_bytes() == b"one three"
    assert outside.read_bytes() == b"one two"


def test_a_failure_while_the_chunks_are_made_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_bytes(b"old")

    def chunks():
        yield b"new"
        raise OSError("disk full")

    with pytest.raises(OutputError):
        atomic_write(tmp_path, "f.json", chunks())
    assert (tmp_path / "f.json").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]
