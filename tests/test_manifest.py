"""The manifest alone (bough_site/manifest.py): what an incremental build remembers in
OUT/.bough-manifest.json and the parts it names in OUT/.bough-manifest.sqlite. Hand-written manifests
on disk: one bough would write is read back field by field and written again byte for
byte; one that is damaged, of another schema, names a part that is not kept, or is not a
regular file reads as none (so everything is rebuilt, never half-trusted)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bough_site import __version__
from bough_site import manifest as manifest_module
from bough_site.manifest import (PARTS, SCHEMA, FileState, Manifest, SessionState, UnitState, file_state, part_of,
                                 sha256_prefix)
from bough_site.discover import KnownFile
from bough_site.state import StateStore, StateWrites
from bough_site.state_paths import MANIFEST, MANIFEST_PARTS

from .helpers import deadline

UNIT = "claude:c1d2e3"
SESSION_KEY = "claude:0a1b2c"
SUMMARY = {"id": "s-1", "title": "Fix the parser", "started": "2026-03-01T10:00:01Z", "stats": {"prompts": 2}}


def written_by_bough() -> dict[str, Any]:
    """A manifest as a build of one Claude session writes it: every field set."""
    return {
        "schema": SCHEMA,
        "generator": f"bough {__version__}",
        "options": "options-digest",
        "units": {
            UNIT: {"kind": "claude", "files": [["-home-ada-app/s-1.jsonl", 2048, 1_700_000_000_123_456_789, "ab" * 32]],
                   "sessions": [SESSION_KEY], "warnings": [["-home-ada-app/s-1.jsonl", 7, "not JSON"]],
                   "since": "since-digest", "inherit": "inherit-digest", "names": ["s-1"]},
        },
        "sessions": {
            SESSION_KEY: {"unit": UNIT, "slug": "s-1", "project": {"id": "app", "name": "app", "cwd": "/home/ada/app"},
                          "summary": SUMMARY, "outputs": ["projects/app/s-1.html", "projects/app/s-1.json"],
                          "tally": "tally-name", "details": "details-name", "scan": "scan-name", "group": "group-digest", "uuids": "uuids-name",
                          "links": {"parent": "projects/app/s-0.html", "gone": None}},
        },
        "site": {"outputs": ["index.html", "projects/app/index.html"], "signature": "site-signature",
                 "project_stats": {"app": {"sessions": 1}}, "project_signatures": {"app": "project-signature"},
                 "stats": {"sessions": 1, "prompts": 2}, "apart": ["app-sums"]},
    }


def canonical(doc: dict[str, Any]) -> bytes:
    """The bytes Manifest.to_bytes gives: sorted keys, one line."""
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) + b"\n"


def put(out: Path, data: bytes) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).write_bytes(data)
    return out


def parts_store(out: Path) -> StateStore:
    return StateStore(out, out / MANIFEST_PARTS)


def kept_values(out: Path) -> dict[str, bytes]:
    with parts_store(out) as store:
        return store.get_many(store.names())


def in_parts(out: Path, doc: dict[str, Any] | None = None) -> Path:
    """OUT with the manifest ``doc`` (written_by_bough's) saved as a build saves it: in parts."""
    Manifest.load(put(out / "inline", canonical(doc or written_by_bough()))).save(out)
    return out


# --- a manifest bough wrote ---------------------------------------------------------------------


def test_every_field_is_read_back_as_it_was_written(tmp_path: Path) -> None:
    out = put(tmp_path / "out", canonical(written_by_bough()))
    info = os.stat(out / MANIFEST)
    manifest = Manifest.load(out)
    assert manifest.valid and manifest.options == "options-digest"
    assert manifest.stamp == (info.st_ino, info.st_size, info.st_mtime_ns) == Manifest.stamp_of(out)
    [(key, unit)] = manifest.units.items()
    assert key == UNIT and unit.kind == "claude" and unit.sessions == [SESSION_KEY]
    assert unit.files == [FileState("-home-ada-app/s-1.jsonl", 2048, 1_700_000_000_123_456_789, "ab" * 32)]
    assert unit.warnings == [["-home-ada-app/s-1.jsonl", 7, "not JSON"]]
    assert (unit.since, unit.inherit, unit.names) == ("since-digest", "inherit-digest", ["s-1"])
    session = manifest.sessions[SESSION_KEY]
    assert (session.key, session.unit, session.slug, session.tally, session.details) == (
        SESSION_KEY, UNIT, "s-1", "tally-name", "details-name")
    assert session.project == {"id": "app", "name": "app", "cwd": "/home/ada/app"} and session.summary == SUMMARY
    assert session.outputs == ["projects/app/s-1.html", "projects/app/s-1.json"]
    assert (session.scan, session.group, session.uuids) == ("scan-name", "group-digest", "uuids-name")
    assert session.links == {"parent": "projects/app/s-0.html", "gone": None}
    assert manifest.site_outputs == ["index.html", "projects/app/index.html"]
    assert (manifest.site_signature, manifest.site_stats) == ("site-signature", {"sessions": 1, "prompts": 2})
    assert manifest.project_stats == {"app": {"sessions": 1}}
    assert manifest.project_signatures == {"app": "project-signature"}
    assert manifest.known_files() == {("-home-ada-app/s-1.jsonl", 2048, 1_700_000_000_123_456_789): KnownFile("claude")}


def test_the_files_read_last_time_say_their_kind_and_a_claude_sub_agents_session() -> None:
    """A Claude unit's other files (its sub-agents) name its first file (the session's
    own); no other agent's files name one."""
    manifest = Manifest()
    manifest.units["c"] = UnitState(kind="claude", sessions=[], warnings=[],
                                    files=[FileState("main", 10, 1, ""), FileState("agent", 20, 2, "")])
    manifest.units["x"] = UnitState(kind="codex", sessions=[], warnings=[],
                                    files=[FileState("rollout", 30, 3, ""), FileState("more", 40, 4, "")])
    assert manifest.known_files() == {("main", 10, 1): KnownFile("claude"),
                                      ("agent", 20, 2): KnownFile("claude", "main"),
                                      ("rollout", 30, 3): KnownFile("codex"), ("more", 40, 4): KnownFile("codex")}


def test_a_manifest_read_and_saved_again_is_the_same_bytes(tmp_path: Path) -> None:
    """Saved, the units and sessions are a part in .bough-manifest.sqlite, and the file names it:
    read back, saved elsewhere, the same file and the same part."""
    data = canonical(written_by_bough())
    manifest = Manifest.load(put(tmp_path / "first", data))
    assert manifest.to_bytes() == data  # read from a file that holds them: they are written in it
    (tmp_path / "second").mkdir()
    manifest.save(tmp_path / "second")
    [(name, part)] = kept_values(tmp_path / "second").items()
    doc = written_by_bough()
    assert orjson.loads(part) == {"sessions": doc.pop("sessions"), "units": doc.pop("units")}
    assert name.endswith(".manifest") and name[:32] == hashlib.sha256(part).hexdigest()[:32]
    assert (tmp_path / "second" / MANIFEST).read_bytes() == canonical({**doc, "parts": {f"{part_of(UNIT):02x}": name}})
    assert sorted(p.name for p in (tmp_path / "second").iterdir()) == [MANIFEST, MANIFEST_PARTS]  # no temporary file left
    again = Manifest.load(tmp_path / "second")
    assert again.same_as(manifest) and again.parts == {part_of(UNIT): name} and again.parts_kept() == {name}
    (tmp_path / "third").mkdir()
    again.save(tmp_path / "third")
    assert (tmp_path / "third" / MANIFEST).read_bytes() == (tmp_path / "second" / MANIFEST).read_bytes()


def other_unit(unit: str) -> str:
    """A unit key whose part is not ``unit``'s."""
    return next(key for n in range(PARTS) if part_of(key := f"claude:{n:06x}") != part_of(unit))


def two_parts() -> dict[str, Any]:
    """written_by_bough with a second unit and session, in another part."""
    doc = written_by_bough()
    other = other_unit(UNIT)
    doc["units"][other] = {**doc["units"][UNIT], "sessions": ["claude:other"]}
    doc["sessions"]["claude:other"] = {**doc["sessions"][SESSION_KEY], "unit": other, "slug": "s-2"}
    return doc


def test_a_save_writes_again_only_the_parts_whose_entries_changed(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An append changes one unit and its session: the other parts keep their values,
    which the save neither makes nor writes again; the last part of the changed
    unit is dropped once the file names the new one."""
    doc = two_parts()
    other = other_unit(UNIT)
    out = in_parts(tmp_path / "out", doc)
    previous = Manifest.load(out)
    assert set(previous.parts) == {part_of(UNIT), part_of(other)}
    now = Manifest.load(out)
    now.units[UNIT] = UnitState(**{**vars(now.units[UNIT]), "since": "another-digest"})
    before = kept_values(out)
    made: list[dict[str, Any]] = []
    real_part_bytes = manifest_module._part_bytes
    monkeypatch.setattr(manifest_module, "_part_bytes", lambda sessions, units: made.append(units)
                        or real_part_bytes(sessions, units))
    now.save(out, previous)
    assert [list(units) for units in made] == [[UNIT]]  # the other part is not made again
    after = kept_values(out)
    assert now.parts[part_of(other)] == previous.parts[part_of(other)]
    assert now.parts[part_of(UNIT)] != previous.parts[part_of(UNIT)]
    assert after[now.parts[part_of(other)]] == before[previous.parts[part_of(other)]]
    assert set(after) == now.parts_kept() == set(before) - {previous.parts[part_of(UNIT)]} | {now.parts[part_of(UNIT)]}
    assert Manifest.load(out).units[UNIT].since == "another-digest" and Manifest.load(out).same_as(now)


@pytest.mark.parametrize("refused", [None, 2])
def test_new_parts_are_added_a_few_mb_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  refused: int | None) -> None:
    """A first build makes every part: they go to the store in batches (here, a part
    each). A batch the store cannot keep has the file hold the entries instead, and
    the parts already added are dropped."""
    monkeypatch.setattr(StateWrites, "BATCH", 1)
    adds: list[int] = []
    real_add = StateStore.add

    def add(store: StateStore, values: dict[str, bytes]) -> bool:
        adds.append(len(values))
        return len(adds) != refused and real_add(store, values)

    monkeypatch.setattr(StateStore, "add", add)
    manifest = Manifest.load(put(tmp_path / "first", canonical(two_parts())))
    out = tmp_path / "out"
    out.mkdir()
    manifest.save(out)
    assert adds == [1, 1]
    assert Manifest.load(out).same_as(manifest)
    if refused:
        assert manifest.parts == {} and kept_values(out) == {}
        assert (out / MANIFEST).read_bytes() == canonical(two_parts())
    else:
        assert len(manifest.parts) == 2 and set(kept_values(out)) == manifest.parts_kept()


def test_a_part_an_entry_was_let_go_of_is_written_again(tmp_path: Path) -> None:
    """A build lets go of the entries it reads again (forget): their part is made
    anew even when what is left of it looks the same."""
    out = in_parts(tmp_path / "out")
    previous = Manifest.load(out)
    now = Manifest.load(out)
    del now.units[UNIT]
    previous.forget([], [UNIT])  # the unit is gone from both: only forget tells
    assert previous.forgotten == {part_of(UNIT)}
    now.save(out, previous)
    assert now.parts[part_of(UNIT)] != previous.parts[part_of(UNIT)]
    assert Manifest.load(out).units == {} and SESSION_KEY in Manifest.load(out).sessions


def test_same_as_sees_a_change_in_any_part(tmp_path: Path) -> None:
    out = put(tmp_path / "out", canonical(written_by_bough()))
    last = Manifest.load(out)
    changed = Manifest.load(out)
    assert changed.same_as(last)
    changed.stamp, changed.valid = None, False  # how it was read is not what it holds
    assert changed.same_as(last)
    changed.sessions[SESSION_KEY].summary = {**SUMMARY, "title": "Fix the lexer"}
    assert not changed.same_as(last)
    changed = Manifest.load(out)
    changed.site_stats = {"sessions": 2}
    assert not changed.same_as(last)


def test_forgotten_entries_are_let_go_and_the_manifest_is_no_longer_the_same(tmp_path: Path) -> None:
    """A build lets go of the last manifest's entries of what it read again: a
    manifest holding them is then never the same as it (the next one is saved)."""
    out = put(tmp_path / "out", canonical(written_by_bough()))
    last, now = Manifest.load(out), Manifest.load(out)
    last.forget([SESSION_KEY, "claude:not-there"], [])
    assert last.sessions == {} and UNIT in last.units and not now.same_as(last)
    last = Manifest.load(out)
    last.forget([], [UNIT])
    assert last.units == {} and SESSION_KEY in last.sessions and not now.same_as(last)


def test_a_save_with_nothing_new_leaves_the_file_alone(tmp_path: Path) -> None:
    out = in_parts(tmp_path / "out")
    os.utime(out / MANIFEST, ns=(1_000_000_000 * 10**9, 1_000_000_000 * 10**9))
    before = os.stat(out / MANIFEST)
    Manifest.load(out).save(out, Manifest.load(out))
    after = os.stat(out / MANIFEST)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize("replaced", [True, False])
def test_a_manifest_replaced_while_it_is_read_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            replaced: bool) -> None:
    """A reader without OUT's lock reads the file, and before it reads the parts a build
    saves another manifest and drops the last one's parts: the reader reads the new one.
    Parts missing from a file that was not replaced make it unusable, as ever."""
    out = in_parts(tmp_path / "out")
    other = Manifest.load(out)
    other.site_signature = "another-signature"
    for key in list(other.sessions):  # another entry: another part
        other.sessions[key] = SessionState(**{**vars(other.sessions[key]), "slug": "s-1-again"})
    real_get_many = StateStore.get_many
    reads: list[int] = []

    def get_many(store: StateStore, names: Iterable[str]) -> dict[str, bytes]:
        reads.append(1)
        if len(reads) == 1:
            if replaced:
                other.save(out, Manifest.load(out))
            else:
                with parts_store(out) as parts:
                    parts.keep_only([])
        return real_get_many(store, names)

    monkeypatch.setattr(StateStore, "get_many", get_many)
    read = Manifest.load(out)
    if replaced:
        assert read.same_as(other) and read.site_signature == "another-signature"
    else:
        assert read == Manifest()


def test_parts_that_cannot_be_kept_leave_the_file_holding_the_entries(tmp_path: Path) -> None:
    """A folder is where the parts' file should be (and it cannot be made anew): the
    manifest holds the units and sessions itself, and is read back whole."""
    out = tmp_path / "out"
    (out / MANIFEST_PARTS).mkdir(parents=True)
    manifest = Manifest.load(put(tmp_path / "first", canonical(written_by_bough())))
    manifest.save(out)
    assert manifest.parts == {} and (out / MANIFEST).read_bytes() == canonical(written_by_bough())
    assert Manifest.load(out).same_as(manifest)


# --- what a manifest keeps ----------------------------------------------------------------------


def test_fields_an_older_manifest_lacks_read_as_empty(tmp_path: Path) -> None:
    """The same schema before a field was added: the entry is kept, the field empty
    (the planner then compares it as changed where that matters)."""
    doc = written_by_bough()
    for name in ("since", "inherit", "names", "warnings"):
        del doc["units"][UNIT][name]
    for name in ("scan", "group", "uuids", "links"):
        del doc["sessions"][SESSION_KEY][name]
    del doc["site"]
    manifest = Manifest.load(put(tmp_path / "out", canonical(doc)))
    unit, session = manifest.units[UNIT], manifest.sessions[SESSION_KEY]
    assert manifest.valid and unit.files[0].label == "-home-ada-app/s-1.jsonl"
    assert (unit.since, unit.inherit, unit.names, unit.warnings) == ("", "", [], [])
    assert (session.scan, session.group, session.uuids, session.links) == ("", "", "", {})
    assert session.summary == SUMMARY
    assert (manifest.site_outputs, manifest.site_signature, manifest.site_stats) == ([], "", {})


def test_a_key_bough_does_not_know_is_dropped_at_the_next_save(tmp_path: Path) -> None:
    doc = written_by_bough()
    doc["units"][UNIT]["later"] = 1
    doc["sessions"][SESSION_KEY]["later"] = 2
    doc["later"] = 3
    manifest = Manifest.load(put(tmp_path / "out", canonical(doc)))
    assert manifest.valid
    assert manifest.to_bytes() == canonical(written_by_bough())


def test_the_generator_line_is_not_read(tmp_path: Path) -> None:
    """bough's version is in the options digest (options.py), which decides a rebuild:
    the generator is for a reader of the file."""
    doc = {**written_by_bough(), "generator": "bough 0.0.1"}
    manifest = Manifest.load(put(tmp_path / "out", canonical(doc)))
    assert manifest.valid and manifest.to_bytes() == canonical(written_by_bough())


# --- a manifest that cannot be used reads as none -----------------------------------------------


def damaged(change: str) -> bytes:
    doc = written_by_bough()
    good = canonical(doc)
    if change == "cut in half":
        return good[: len(good) // 2]
    if change == "not JSON":
        return b"\x00\xff not json"
    if change == "empty":
        return b""
    if change == "a list":
        return b"[]\n"
    if change == "an older schema":
        doc["schema"] = "bough.manifest/0"
    elif change == "no schema":
        del doc["schema"]
    elif change == "no units":
        del doc["units"]
    elif change == "a file of three fields":
        doc["units"][UNIT]["files"][0].pop()
    elif change == "a size that is no number":
        doc["units"][UNIT]["files"][0][1] = "big"
    elif change == "a slug that is no string":
        doc["sessions"][SESSION_KEY]["slug"] = 7
    elif change == "outputs that are no list":
        doc["sessions"][SESSION_KEY]["outputs"] = "projects/app/s-1.html"
    elif change == "an output that is no string":
        doc["sessions"][SESSION_KEY]["outputs"] = [None]
    elif change == "a session without its summary":
        del doc["sessions"][SESSION_KEY]["summary"]
    elif change == "units that are a list":
        doc["units"] = [doc["units"][UNIT]]
    else:
        raise AssertionError(change)
    return canonical(doc)


CHANGES = ["cut in half", "not JSON", "empty", "a list", "an older schema", "no schema", "no units",
           "a file of three fields", "a size that is no number", "a slug that is no string", "outputs that are no list",
           "an output that is no string", "a session without its summary", "units that are a list"]


def damaged_parts(out: Path, change: str) -> None:
    """A manifest saved in parts, then one of them lost or one of their names changed."""
    data = (out / MANIFEST).read_bytes()
    doc = orjson.loads(data)
    [(index, name)] = doc["parts"].items()
    if change == "a part not kept":
        with parts_store(out) as store:
            store.keep_only([])
    elif change == "the parts' file gone":
        (out / MANIFEST_PARTS).unlink()
    elif change == "a part name bough does not give":
        doc["parts"][index] = "../" + name
    elif change == "a part number past the last":
        doc["parts"] = {f"{PARTS:02x}": name}
    elif change == "a part number that is no number":
        doc["parts"] = {"zz": name}
    elif change == "a part that is no JSON":
        with parts_store(out) as store:
            store.keep_only([])
            store.add({name: b"\x00 not json"})
    else:
        raise AssertionError(change)
    (out / MANIFEST).write_bytes(canonical(doc))


PART_CHANGES = ["a part not kept", "the parts' file gone", "a part name bough does not give",
                "a part number past the last", "a part number that is no number", "a part that is no JSON"]


@pytest.mark.parametrize("change", PART_CHANGES)
def test_a_manifest_whose_parts_cannot_all_be_read_reads_as_none(tmp_path: Path, change: str) -> None:
    out = in_parts(tmp_path / "out")
    assert Manifest.load(out).valid
    damaged_parts(out, change)
    manifest = Manifest.load(out)
    assert manifest == Manifest() and not manifest.valid


@pytest.mark.parametrize("change", CHANGES)
def test_a_damaged_or_other_schema_manifest_reads_as_none(tmp_path: Path, change: str) -> None:
    data = damaged(change)
    assert data != canonical(written_by_bough())
    manifest = Manifest.load(put(tmp_path / "out", data))
    assert manifest == Manifest() and not manifest.valid


def test_no_manifest_reads_as_none(tmp_path: Path) -> None:
    assert Manifest.load(tmp_path) == Manifest()
    assert Manifest.stamp_of(tmp_path) is None


@pytest.mark.parametrize("kind", ["symlink", "folder", "fifo"])
def test_a_manifest_that_is_no_regular_file_reads_as_none(tmp_path: Path, kind: str) -> None:
    """A link is not followed (it could lead out of OUT) and a FIFO is not waited on."""
    good = put(tmp_path / "elsewhere", canonical(written_by_bough())) / MANIFEST
    out = tmp_path / "out"
    out.mkdir()
    if kind == "symlink":
        (out / MANIFEST).symlink_to(good)
    elif kind == "folder":
        (out / MANIFEST).mkdir()
    else:
        os.mkfifo(out / MANIFEST)
    with deadline(10):
        assert Manifest.load(out) == Manifest()


def test_a_save_replaces_a_symlink_and_never_writes_through_it(tmp_path: Path) -> None:
    target = tmp_path / "outside.json"
    target.write_bytes(b"theirs\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).symlink_to(target)
    manifest = Manifest.load(put(tmp_path / "first", canonical(written_by_bough())))
    manifest.save(out)
    assert target.read_bytes() == b"theirs\n"
    assert not (out / MANIFEST).is_symlink() and Manifest.load(out).same_as(manifest)


# --- a file as the manifest records it ----------------------------------------------------------


def test_file_state_is_size_and_mtime_of_a_regular_file_only(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    os.utime(path, ns=(1_700_000_000_000_000_007, 1_700_000_000_000_000_007))
    assert file_state(path, "p/s.jsonl") == FileState("p/s.jsonl", 9, 1_700_000_000_000_000_007, "")
    assert file_state(tmp_path / "gone.jsonl", "p/gone.jsonl") is None
    assert file_state(tmp_path, "p") is None
    os.mkfifo(tmp_path / "fifo.jsonl")
    assert file_state(tmp_path / "fifo.jsonl", "p/fifo.jsonl") is None


def test_sha256_prefix_hashes_what_a_reader_read(tmp_path: Path) -> None:
    """The bytes up to the size taken before reading: a file that grew since has the
    same prefix hash; asked for more than the file holds, the whole file."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"line one\nline two\n")
    assert sha256_prefix(path, 9) == hashlib.sha256(b"line one\n").hexdigest()
    assert sha256_prefix(path, 18) == hashlib.sha256(b"line one\nline two\n").hexdigest()
    assert sha256_prefix(path, 100) == sha256_prefix(path, 18)
    assert sha256_prefix(path, 0) == hashlib.sha256(b"").hexdigest()
    assert sha256_prefix(tmp_path / "gone.jsonl", 9) == ""
    os.mkfifo(tmp_path / "fifo.jsonl")
    with deadline(10):
        assert sha256_prefix(tmp_path / "fifo.jsonl", 9) == ""


# --- parts, over any change -----------------------------------------------------------------------


def manifest_of(entries: dict[str, list[int]], version: int, scratch: Path) -> Manifest:
    """A manifest of units (each key's sessions numbered), a field of each entry
    carrying ``version``; read from a file written in ``scratch``."""
    doc = written_by_bough()
    unit_doc, session_doc = doc["units"][UNIT], doc["sessions"][SESSION_KEY]
    doc["units"] = {unit: {**unit_doc, "sessions": [f"{unit}/{n}" for n in sessions], "since": f"v{version}"}
                    for unit, sessions in entries.items()}
    doc["sessions"] = {f"{unit}/{n}": {**session_doc, "unit": unit, "slug": f"s-{n}-v{version}"}
                       for unit, sessions in entries.items() for n in sessions}
    return Manifest.load(put(scratch, canonical(doc)))


UNITS = st.dictionaries(st.sampled_from([f"claude:{n:03x}" for n in range(40)]),
                        st.lists(st.integers(0, 3), max_size=3, unique=True), max_size=25)


@given(before=UNITS, after=UNITS, forgotten=st.sets(st.sampled_from([f"claude:{n:03x}" for n in range(40)])))
def test_a_manifest_saved_over_any_last_one_reads_back_and_is_what_a_fresh_save_writes(
    tmp_path_factory: pytest.TempPathFactory, before: dict[str, list[int]], after: dict[str, list[int]],
    forgotten: set[str],
) -> None:
    """Units kept, changed, added, dropped and let go of between two saves: the
    manifest reads back as it was saved, its file and parts are those a save with
    no last manifest writes, and the parts' file keeps only the parts it names."""
    root = tmp_path_factory.mktemp("parts")
    out, fresh = root / "out", root / "fresh"
    out.mkdir()
    fresh.mkdir()
    manifest_of(before, 1, root / "doc").save(out)
    previous = Manifest.load(out)
    now = Manifest.load(out)
    for unit in set(after) - set(before) | {u for u in after if after[u] != before.get(u)}:
        changed = manifest_of({unit: after[unit]}, 2, root / "doc")  # a unit read again: new entries
        now.units.update(changed.units)
        now.sessions = {k: s for k, s in now.sessions.items() if s.unit != unit} | changed.sessions
    for unit in set(before) - set(after):
        del now.units[unit]
        now.sessions = {k: s for k, s in now.sessions.items() if s.unit != unit}
    previous.forget([k for k, s in previous.sessions.items() if s.unit in forgotten], forgotten)
    touched = {part_of(u) for u in set(before) ^ set(after) | forgotten | {u for u in after if after[u] != before.get(u)}}
    made: list[int] = []
    real_part_bytes = manifest_module._part_bytes
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_module, "_part_bytes", lambda sessions, units: made.append(part_of(next(iter(
            units or {s.unit: 0 for s in sessions.values()})))) or real_part_bytes(sessions, units))
        now.save(out, previous)
    assert set(made) <= touched and len(made) == len(set(made))  # a part none of whose units changed is not made
    now.save(fresh)
    assert (out / MANIFEST).read_bytes() == (fresh / MANIFEST).read_bytes()
    assert kept_values(out) == kept_values(fresh) and set(kept_values(out)) == now.parts_kept()
    assert Manifest.load(out).same_as(now) and len(now.parts) <= PARTS
