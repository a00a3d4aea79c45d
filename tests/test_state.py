"""OUT's state store (state.py): one sqlite3 file of content-named values, and
how a build uses it (a session's identities and a Claude file's resume summary)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from bough_site.assemble import Outcome, Status
from bough_site.build import _Tallies
from bough_site.render.blockstore import BlockStore, store_path
from bough_site.state import StateStore, state_name
from bough_site.state_paths import STATE_DB, STATE_DIR

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


def test_the_build_reads_every_kept_tally_at_once_and_warns_of_a_missing_one(tmp_path: Path) -> None:
    tally = {"records": ["r1", "r2"], "replies": [["m1", 1, 2, 3, 4, 0]], "lines": 5}
    data = orjson.dumps(tally)
    kept, lost = state_name(data, ".json"), state_name(b"lost", ".json")
    entries = [Outcome(key, key, {"id": key}, {}, Status.REUSED, tally_file=name)
               for key, name in (("a", kept), ("b", lost))]
    entries.append(Outcome("c", "c", {"id": "c"}, {}, Status.REBUILT, tally_json=data, tally_file=kept))
    said: list[str] = []
    with StateStore(tmp_path) as state:
        state.add({kept: data})
        tallies = _Tallies({e.key: e for e in entries}, state, said.append)
        first = tallies.of(entries[0])
        state.keep_only([])  # read once: what the first call read serves the others
        assert first is not None and tallies.of(entries[0]) == first
        assert (first.records, first.lines, first.replies["m1"].output_tokens) == ({"r1", "r2"}, 5, 2)
        assert tallies.of(entries[2]) == first  # a session read now: its own identities, not the store's
        assert said == []
        assert tallies.of(entries[1]) is None
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
    assert sorted(p.name for p in (out / STATE_DIR).iterdir()) == ["blocks", STATE_DB, "templates"]
    with StateStore(out) as state:
        names = state.names()
    # Every session's identities, and per Claude file compared for resumes its summary
    # and what the probe found (the history has one folder of Claude files).
    assert sum(n.endswith(".json") for n in names) == built.sessions
    assert all(n.endswith((".json", ".records", ".uuids")) for n in names)
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
        assert state.names() == kept  # though the manifest is the same, the values are kept again
    third = run(history, out)
    assert (third.rebuilt, third.reused) == (0, first.rebuilt)
    assert third.site.stats == first.site.stats


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
