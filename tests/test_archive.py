"""bough's archive: every transcript a build reads is kept, and a session whose file the
agent deleted is built from the copy with the same page, sidecar and STATS."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bough_site import gz
from bough_site.archive import Archive, ArchiveError, check_place
from bough_site.archive_paths import FOLDER_TIMES
from bough_site.archive_entry import Entry
from bough_site.agent_cleanup import claude_cleanup_days
from bough_site.archive_sync import sync_archive
from bough_site.build import BuildResult, build, load_site
from bough_site.cli import main, summary
from bough_site.config import BuildConfig, archive_dir
from bough_site.discover import EXAMPLES, discover
from bough_site.manifest import FileState, Manifest
from bough_site.model import InputWarning
from bough_site.plan.units import CLAUDE, Unit, with_digests

from .helpers import SESSION, file_tree, prompt, reply, text, write_jsonl

NOTES = "-home-ada-src-notes-api"
TIDEPOOL = "-home-ada-src-tidepool"  # with an old-layout sub-agent file
WITH_SUBAGENTS = "8a2d6e0f-c419-4b7a-9e53-d6f1b08a4c27"  # in notes-api, with sub-agents and a meta file
ROLLOUTS = EXAMPLES / "codex" / "sessions"
ROLLOUT = min(ROLLOUTS.rglob("rollout-*.jsonl")).name
# A session page's note; a row's badge on the index and project pages.
KEPT_HTML = re.compile(rb'<p class="kept">.*?</p>| <span class="badge badge-kept"[^>]*>[^<]*</span>')
KEPT_JSON = re.compile(rb'("kept_since": ?)"[^"]*"')  # indented (project) or compact (session) JSON


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """A home whose ~/.claude and ~/.codex hold copies of the bundled example transcripts
    (Claude sessions with new- and old-layout sub-agents, Codex rollouts)."""
    shutil.copytree(EXAMPLES / "claude" / "projects", isolated_home / ".claude" / "projects")
    shutil.copytree(EXAMPLES / "codex" / "sessions", isolated_home / ".codex" / "sessions")
    return isolated_home


def run(out: Path, **options) -> BuildResult:
    return build(BuildConfig(out=out, **options), redaction_key=b"test")


def files(out: Path) -> dict[str, bytes]:
    """The published files (not the writer's own ``.bough-*`` files and state)."""
    return file_tree(out, site_only=True)


def unmarked(data: bytes) -> bytes:
    """A page or sidecar without the "kept by bough" marker."""
    return KEPT_JSON.sub(rb"\1null", KEPT_HTML.sub(b"", data))


def sessions_by_id(result: BuildResult) -> dict:
    return {s.id: s for p in result.site.projects for s in p.sessions}


def delete_some(home: Path) -> set[str]:
    """What Claude Code's cleanup (and a person) might delete: a whole project
    directory, one session with its sub-agents, one Codex rollout. Returns the
    labels of the deleted transcripts."""
    projects = home / ".claude" / "projects"
    doomed = [*(projects / TIDEPOOL).glob("*.jsonl"), projects / NOTES / f"{WITH_SUBAGENTS}.jsonl"]
    labels = {p.relative_to(projects).as_posix() for p in doomed}
    shutil.rmtree(projects / TIDEPOOL)
    (projects / NOTES / f"{WITH_SUBAGENTS}.jsonl").unlink()
    shutil.rmtree(projects / NOTES / WITH_SUBAGENTS)
    rollout = next((home / ".codex" / "sessions").rglob(ROLLOUT))
    labels.add(rollout.relative_to(home / ".codex").as_posix())
    rollout.unlink()
    return labels


def read_files(home: Path) -> list[Path]:
    """Every file a build of ``home`` reads: transcripts and sub-agent meta files."""
    return [*home.glob(".claude/projects/**/*.jsonl"), *home.glob(".claude/projects/**/subagents/*.meta.json"),
            *home.glob(".codex/sessions/**/*.jsonl")]


def the_archive() -> Path:
    return archive_dir()


# --- the history survives ----------------------------------------------------------------


def test_deleted_sessions_are_built_from_the_archive(home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "one")
    first = files(tmp_path / "one")
    assert before.archived_only == 0 and before.notes
    deleted = delete_some(home)

    after = run(tmp_path / "two")
    second = files(tmp_path / "two")
    assert second.keys() == first.keys()
    assert after.site.stats == before.site.stats
    assert second["index.json"] == first["index.json"]  # STATS, projects and sessions: the same bytes
    for path in first:
        assert unmarked(second[path]) == first[path], path

    kept = {sid for sid, s in sessions_by_id(after).items() if s.kept_since}
    assert kept == {sid for sid, s in sessions_by_id(before).items() if s.files[0] in deleted}
    assert {WITH_SUBAGENTS, "6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35", "b3e7a9d2-58c1-4f6b-a0d4-7c2e9f13b846"} < kept
    assert after.archived_only == len(kept)
    for sid, session in sessions_by_id(after).items():
        assert session.stats == sessions_by_id(before)[sid].stats
        assert session.files == sessions_by_id(before)[sid].files
    page = next(v for k, v in second.items() if k.endswith(f"{WITH_SUBAGENTS}.html"))
    assert b"original deleted; kept by bough since" in page
    sidecar = json.loads(next(v for k, v in second.items() if k.endswith(f"{WITH_SUBAGENTS}.json")))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", sidecar["kept_since"])
    assert b"kept by bough" in second["index.html"]  # the project row counts them
    said = summary(after, BuildConfig(out=tmp_path / "two")).splitlines()
    assert f"Sessions: 9 rebuilt, {len(kept)} only in bough's archive (the original is deleted)." in said[2]
    # No copy is left decompressed once the build is done.
    assert not [p for p in the_archive().iterdir() if p.name.startswith(".bough-restore-")]


def test_the_sync_returns_what_to_read_and_leaves_what_discovery_found(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "one")
    delete_some(home)
    config = BuildConfig(out=tmp_path / "two")
    found = discover(config, lambda warning: None)
    before = copy.deepcopy(found)
    synced, archived = sync_archive(found, config, lambda warning: None)
    with archived:
        assert found == before  # discovery's value, as discovery made it
        # What the agents deleted is read again, from the archive.
        assert {synced.label(s.main) for s in synced.claude} > {found.label(s.main) for s in found.claude}
        assert len(synced.codex) == len(found.codex) + 1
        assert archived.since  # the sessions only the archive has, dated


def test_later_builds_give_the_same_bytes(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    delete_some(home)
    first = run(tmp_path / "site")
    marked = files(tmp_path / "site")
    pages = [p for p, data in marked.items() if b"original deleted; kept by bough since" in data]
    assert len([p for p in pages if "/sessions/" in p]) == first.archived_only > 0
    for _ in range(2):
        again = run(tmp_path / "site")
        assert again.written == 0, "the kept-since date is stored once, so nothing changes"
        assert again.rebuilt == 0, "sessions kept by the archive are not rendered again"
        assert again.reused == len(sessions_by_id(first))
        assert files(tmp_path / "site") == marked


def test_a_whole_agent_home_can_go(home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "one")
    shutil.rmtree(home / ".claude")
    shutil.rmtree(home / ".codex")
    after = run(tmp_path / "two")
    assert not after.used_examples
    assert after.site.stats == before.site.stats
    assert after.archived_only == sum(len(p.sessions) for p in after.site.projects)


def test_a_deleted_subagent_of_a_live_session_is_read_from_the_archive(home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "one")
    shutil.rmtree(home / ".claude" / "projects" / NOTES / WITH_SUBAGENTS)  # its sub-agents and meta file
    (home / ".claude" / "projects" / TIDEPOOL / "agent-5e1d0c7a.jsonl").unlink()  # an old-layout one
    after = run(tmp_path / "two")
    assert files(tmp_path / "two") == files(tmp_path / "one")
    assert after.archived_only == 0
    assert sessions_by_id(after)[WITH_SUBAGENTS].stats == sessions_by_id(before)[WITH_SUBAGENTS].stats


def test_a_grown_file_replaces_its_copy(home: Path, tmp_path: Path) -> None:
    live = home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"
    run(tmp_path / "site")
    copy = the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz"
    record = json.loads(copy.with_name(copy.name + ".json").read_bytes())
    with live.open("ab") as handle:
        handle.write(orjson.dumps(prompt("99999999-0000-4000-8000-000000000001", "one more thing")) + b"\n")
    run(tmp_path / "site")
    grown = json.loads(copy.with_name(copy.name + ".json").read_bytes())
    assert gzip.decompress(copy.read_bytes()) == live.read_bytes()
    assert grown["size"] == live.stat().st_size > record["size"]
    assert grown["archived"] == record["archived"]  # kept since: when it was first copied


def test_copies_are_made_durable_all_at_once_on_a_first_build_and_one_by_one_after(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bough_site.archive as archive_module

    calls: list[str] = []
    monkeypatch.setattr(archive_module, "_fsync", lambda path: calls.append("fsync"))
    monkeypatch.setattr(archive_module, "_sync_file_system", lambda root: calls.append("syncfs"))
    monkeypatch.setattr(archive_module, "_FSYNC_EACH", 4)
    assert len(read_files(home)) > 4
    run(tmp_path / "site")
    assert calls == ["syncfs"]  # one sync of the file system for every copy
    calls.clear()
    live = home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"
    with live.open("ab") as handle:
        handle.write(orjson.dumps(prompt("99999999-0000-4000-8000-000000000002", "one more thing")) + b"\n")
    run(tmp_path / "site")
    assert calls == ["fsync"]  # the grown file alone, not every dirty page of the file system
    calls.clear()
    run(tmp_path / "site")
    assert calls == []


def test_the_worker_pool_writes_the_records_of_its_copies(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each copy's record is written beside it by the worker that made it, and the
    # build's own process only renames it into place once the copy is: the same
    # records, none of them written by the build's process.
    import bough_site.archive as archive_module

    written: list[str] = []
    record = archive_module.Archive.write_record
    monkeypatch.setattr(archive_module.Archive, "write_record",
                        lambda self, entry: (written.append(entry.label), record(self, entry)))
    run(tmp_path / "site", jobs=2)
    root = the_archive()
    assert written == []
    assert not [p for p in root.rglob("*") if p.name.startswith(".bough-tmp-")]
    indexed, _ = Archive.open(root).entries()
    (root / ".bough-index").unlink()
    from_records, problems = Archive.open(root).entries()
    assert problems == [] and from_records == indexed and len(indexed) == len(read_files(home))


def test_copies_not_put_in_place_leave_neither_copy_nor_record(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bough_site.archive as archive_module

    def full(root: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(archive_module, "_sync_file_system", full)
    monkeypatch.setattr(archive_module, "_FSYNC_EACH", 0)
    warnings: list[str] = []
    run(tmp_path / "site", jobs=2, report=warnings.append)
    assert any("copies not put in place in the archive: No space left on device" in w for w in warnings)
    left = {p.name for p in the_archive().rglob("*") if p.is_file()}
    assert left == {".bough-archive", ".bough-lock", ".bough-index", FOLDER_TIMES}  # no copy, record or temporary file


def test_a_shorter_live_file_loses_to_its_copy(home: Path, tmp_path: Path) -> None:
    live = home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"
    before = run(tmp_path / "one")
    whole = live.read_bytes()
    live.write_bytes(b"".join(whole.splitlines(keepends=True)[:3]))
    after = run(tmp_path / "two")
    assert [w for w in after.warnings if w.file.endswith(f"{WITH_SUBAGENTS}.jsonl") and "shorter" in w.reason]
    assert sessions_by_id(after)[WITH_SUBAGENTS].stats == sessions_by_id(before)[WITH_SUBAGENTS].stats
    assert sessions_by_id(after)[WITH_SUBAGENTS].kept_since is None  # the original is still there
    copy = the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz"
    assert gzip.decompress(copy.read_bytes()) == whole


def test_unchanged_files_are_not_copied_again(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    copies = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in the_archive().rglob("*") if p.is_file()}
    run(tmp_path / "site")
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in the_archive().rglob("*") if p.is_file()} == copies


def test_a_file_the_archive_copied_is_not_hashed_again(home: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy's sha256 is the one the manifest records: a cold build hashed every
    file twice, once copying it and once reading it; a build without the archive
    hashes each file once, and the manifest is the same."""
    import bough_site.jobs as jobs

    hashed: list[str] = []
    real = jobs.sha256_prefix
    monkeypatch.setattr(jobs, "sha256_prefix", lambda path, size: hashed.append(str(path)) or real(path, size))
    run(tmp_path / "archived", jobs=1)
    assert hashed == []
    run(tmp_path / "plain", jobs=1, archive=None)
    archived, plain = Manifest.load(tmp_path / "archived"), Manifest.load(tmp_path / "plain")
    assert len(set(hashed)) == sum(len(unit.files) for unit in plain.units.values()) > 10
    states = {key: [f.as_list() for f in unit.files] for key, unit in plain.units.items()}
    assert {key: [f.as_list() for f in unit.files] for key, unit in archived.units.items()} == states
    assert all(len(f[3]) == 64 for files in states.values() for f in files)


def test_a_copy_s_digest_stands_only_for_the_size_and_time_it_was_made_at() -> None:
    digest = "5" * 64
    (unit,) = with_digests([Unit("k", CLAUDE, ("/a", "/b"), ("a", "b"))], {"/a": (10, 7, digest)})
    assert unit.known_sha256("/a", FileState("a", 10, 7, "")) == digest
    assert unit.known_sha256("/a", FileState("a", 11, 7, "")) is None  # grew since its copy
    assert unit.known_sha256("/a", FileState("a", 10, 8, "")) is None  # written again since
    assert unit.known_sha256("/b", FileState("b", 10, 7, "")) is None  # not copied


def test_codex_moving_a_rollout_to_archived_sessions_is_one_session(home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "one")
    codex = home / ".codex"
    (codex / "archived_sessions").mkdir()
    next((codex / "sessions").rglob(ROLLOUT)).rename(codex / "archived_sessions" / ROLLOUT)
    moved = run(tmp_path / "two")
    assert moved.site.stats == before.site.stats and moved.archived_only == 0
    (codex / "archived_sessions" / ROLLOUT).unlink()
    gone = run(tmp_path / "three")
    assert gone.site.stats == before.site.stats
    assert {s.files[0] for s in sessions_by_id(gone).values() if s.kept_since} <= {f"archived_sessions/{ROLLOUT}"}
    assert not [w for w in gone.warnings if "same thread" in w.reason]


# --- what the archive holds, and where -----------------------------------------------------


def test_the_archive_is_private_and_compressed(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    root = the_archive()
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    copies = sorted(root.rglob("*.gz"))
    assert len(copies) == len(read_files(home))  # with the sub-agents' transcripts and meta files
    for path in root.rglob("*"):
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), path
    live = home / ".claude" / "projects" / NOTES / WITH_SUBAGENTS / "subagents" / "agent-a4f1c9e27b3d06e18.jsonl"
    copy = root / "claude" / NOTES / WITH_SUBAGENTS / "subagents" / "agent-a4f1c9e27b3d06e18.jsonl.gz"
    assert gzip.decompress(copy.read_bytes()) == live.read_bytes()


def test_the_archive_is_never_published(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(out)
    delete_some(home)
    run(out)
    published = [p for p in out.rglob("*") if p.is_file()]
    assert not [p for p in published if p.suffix == ".gz" or p.name.endswith(".gz.json") or p.suffix == ".jsonl"]
    archive = the_archive().resolve()
    assert not out.resolve().is_relative_to(archive) and not archive.is_relative_to(out.resolve())


@pytest.mark.parametrize("where", ["archive inside out", "out inside archive", "archive is out"])
def test_archive_and_out_must_not_nest(home: Path, tmp_path: Path, where: str) -> None:
    out = tmp_path / "site"
    archive = {
        "archive inside out": out / "archive",
        "out inside archive": tmp_path,
        "archive is out": out,
    }[where]
    with pytest.raises(ArchiveError, match="inside"):
        run(out, archive=archive)
    assert not (archive / ".bough-archive").exists()
    assert not (out / "index.html").exists()


def test_the_archive_stays_out_of_the_agents_homes(home: Path, tmp_path: Path) -> None:
    for archive in (home / ".claude" / "bough", home / ".codex" / "keep", home / ".claude" / "projects" / "x"):
        with pytest.raises(ArchiveError, match="inside"):
            run(tmp_path / "site", archive=archive)
        assert not archive.exists()
    with pytest.raises(ArchiveError, match="inside the archive"):
        check_place(tmp_path, None, [tmp_path / "sources"])


def test_a_directory_that_is_not_an_archive_is_refused(home: Path, tmp_path: Path) -> None:
    stranger = tmp_path / "papers"
    stranger.mkdir()
    (stranger / "thesis.txt").write_text("mine")
    with pytest.raises(ArchiveError, match="not a bough archive"):
        run(tmp_path / "site", archive=stranger)
    assert sorted(p.name for p in stranger.iterdir()) == ["thesis.txt"]


def test_no_archive(home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "one", archive=None)
    assert not the_archive().exists()
    assert "the archive is off" in before.notes[0]
    delete_some(home)
    after = run(tmp_path / "two", archive=None)
    assert after.archived_only == 0
    assert len(sessions_by_id(after)) == len(sessions_by_id(before)) - 4


def test_sources_limit_what_comes_from_the_archive(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "all")  # the archive now holds every project
    projects = home / ".claude" / "projects"
    only = run(tmp_path / "one", sources=[projects / NOTES])
    assert {p.cwd for p in only.site.projects} == {"/home/ada/src/notes-api"}
    (projects / NOTES / f"{WITH_SUBAGENTS}.jsonl").unlink()
    only = run(tmp_path / "one", sources=[projects / NOTES])
    assert {p.cwd for p in only.site.projects} == {"/home/ada/src/notes-api"}
    assert only.archived_only == 1


def test_the_bundled_examples_are_not_archived(isolated_home: Path, tmp_path: Path) -> None:
    result = run(tmp_path / "site")
    assert result.used_examples and not result.notes
    assert not list(the_archive().rglob("*.gz"))


def test_load_site_reads_the_archive_too(home: Path, tmp_path: Path) -> None:
    before = load_site(BuildConfig())
    delete_some(home)
    assert load_site(BuildConfig()).stats == before.stats


# --- damaged copies ------------------------------------------------------------------------


def test_a_damaged_copy_is_skipped_with_a_warning_and_reported(home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "site")
    delete_some(home)
    copy = the_archive() / "claude" / TIDEPOOL / "6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35.jsonl.gz"
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))

    after = run(tmp_path / "fresh")  # a new OUT: nothing of the session's earlier pages to keep
    assert "6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35" not in sessions_by_id(after)
    assert len(sessions_by_id(after)) == len(sessions_by_id(before)) - 1
    damaged = [w for w in after.warnings if "damaged" in w.reason]
    assert [w.file for w in damaged] == [f"{TIDEPOOL}/6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35.jsonl"]

    result = CliRunner().invoke(main, ["archive", "--verify"])
    assert result.exit_code == 1
    assert f"claude/{TIDEPOOL}/6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35.jsonl.gz" in result.output
    assert "1 problem" in result.output


# --- copies decompressed only when read (a long history in the archive alone) -------------


DAMAGED = f"{TIDEPOOL}/6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35.jsonl"


def _synced(site: Path, warnings: list[InputWarning]):
    """What a build in ``site`` would read: the sync, told what the last build there read."""
    config = BuildConfig(out=site)
    known = Manifest.load(site).known_files()
    return sync_archive(discover(config, warnings.append, known), config, warnings.append, known=known)


def test_copies_the_last_build_read_are_named_and_written_out_when_asked(home: Path, tmp_path: Path) -> None:
    originals = {p.relative_to(home / ".claude" / "projects").as_posix(): p.read_bytes()
                 for p in (home / ".claude" / "projects").rglob("*.jsonl")}
    run(tmp_path / "site")
    deleted = delete_some(home)
    run(tmp_path / "site")  # the sessions only the archive has, read once (their pages say so)

    warnings: list[InputWarning] = []
    found, archived = _synced(tmp_path / "site", warnings)
    with archived:
        deferred = dict(archived.deferred)
        labels = {found.label(Path(path)) for path in deferred}
        assert deleted <= labels  # every session file the agents deleted, none decompressed
        assert not [path for path in deferred if os.path.lexists(path)]
        assert {s.main for s in found.claude if str(s.main) in deferred}  # and read from where they will be

        assert archived.decompress(list(deferred)) == set() and not archived.deferred
        for path in deferred:
            info = os.stat(path)
            assert (info.st_size, info.st_mtime_ns) == (found.stat(path).st_size, found.stat(path).st_mtime_ns)
            assert stat.S_ISREG(info.st_mode)
            label = found.label(Path(path))
            if label in originals:
                assert Path(path).read_bytes() == originals[label]
        assert archived.decompress(list(deferred)) == set()  # twice: nothing more to do
    assert warnings == []
    assert not [p for p in the_archive().iterdir() if p.name.startswith(".bough-restore-")]


def test_a_deferred_copy_found_damaged_when_read_keeps_its_session_as_it_was(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    delete_some(home)
    before = run(tmp_path / "site")
    copy = the_archive() / "claude" / f"{DAMAGED}.gz"
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))

    warnings: list[InputWarning] = []
    found, archived = _synced(tmp_path / "site", warnings)
    with archived:
        path = next(p for p in archived.deferred if found.label(Path(p)) == DAMAGED)
        assert archived.decompress([path]) == {path} and not os.path.lexists(path)
    assert [w.file for w in warnings if "damaged" in w.reason] == [DAMAGED]

    # Other options: every session is read again, and this one cannot be.
    after = run(tmp_path / "site", cost=False)
    assert [w.file for w in after.warnings if "damaged" in w.reason] == [DAMAGED]
    kept = sessions_by_id(after)["6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35"]
    assert kept.stats == sessions_by_id(before)["6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35"].stats
    assert after.gone == 1 and after.rebuilt == before.reused + before.rebuilt - 1


def test_a_session_to_name_again_whose_copy_is_found_damaged_keeps_its_page_and_name(home: Path,
                                                                                     tmp_path: Path) -> None:
    """A session only the archive has, whose page must be rendered again under a new
    name (another file of its project has its name now), and whose copy turns out
    damaged when read: it stays as the last build made it, under the name its page
    has, and that page is kept; the site links to it, build after build."""
    projects = home / ".claude" / "projects"
    original = (projects / DAMAGED).read_bytes()
    site = tmp_path / "site"
    run(site)
    delete_some(home)
    run(site)
    page = site / "projects" / "tidepool-4541f4cb" / "sessions" / f"{DAMAGED.split('/')[1][:-len('.jsonl')]}.html"
    kept_bytes = page.read_bytes()
    copy = the_archive() / "claude" / f"{DAMAGED}.gz"
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    (projects / "-home-ada-src-tidepool-2").mkdir()  # the same cwd: the same project, the same file name
    (projects / "-home-ada-src-tidepool-2" / DAMAGED.split("/")[1]).write_bytes(original)

    for _ in range(2):
        after = run(site)
        assert [w.file for w in after.warnings if "damaged" in w.reason] == [DAMAGED]
        assert page.read_bytes() == kept_bytes
        pages = sorted(s.slug for p in after.site.projects for s in p.sessions if s.id == page.stem)
        assert pages == [page.stem, f"{page.stem}-957f8743-2"]
        for entry in Manifest.load(site).sessions.values():
            assert all((site / path).is_file() for path in entry.outputs)
        project_page = (site / "projects" / "tidepool-4541f4cb" / "index.html").read_text()
        assert f'href="sessions/{page.stem}.html"' in project_page


def test_a_history_in_the_archive_alone_is_not_decompressed_by_a_build_that_reuses_it(home: Path,
                                                                                       tmp_path: Path) -> None:
    run(tmp_path / "site")
    deleted = delete_some(home)
    run(tmp_path / "site")
    for label in deleted:  # were a build to decompress any of them, it would fail, saying so
        copy = next(the_archive().glob(f"*/{label}.gz"))
        copy.write_bytes(gzip.compress(b"not what was archived\n"))
    live = next((home / ".claude" / "projects").rglob("*.jsonl"))
    os.utime(live, ns=(live.stat().st_atime_ns, live.stat().st_mtime_ns + 1_000_000_000))  # a build, not a quick one
    again = run(tmp_path / "site")
    assert not [w for w in again.warnings if "damaged" in w.reason]
    assert again.rebuilt == 0 and again.archived_only > 0


def test_verify_catches_a_truncated_copy_and_a_copy_that_does_not_parse(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    root = the_archive()
    truncated = root / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz"
    truncated.write_bytes(truncated.read_bytes()[:-20])
    # A copy whose record matches its bytes, but the bytes are no JSON Lines.
    noise = next((root / "codex").rglob(f"{ROLLOUT}.gz"))
    record_path = noise.with_name(noise.name + ".json")
    record = json.loads(record_path.read_bytes())
    junk = b"this is not json\n" * 10
    import hashlib

    record.update(size=len(junk), sha256=hashlib.sha256(junk).hexdigest())
    record_path.write_bytes(json.dumps(record).encode())
    noise.write_bytes(gzip.compress(junk))
    (root / "claude" / NOTES / "stray.jsonl.gz").write_bytes(gzip.compress(b"{}\n"))

    result = CliRunner().invoke(main, ["archive", "--verify"])
    assert result.exit_code == 1, result.output
    assert f"claude/{NOTES}/{WITH_SUBAGENTS}.jsonl.gz: it does not decompress" in result.output
    assert f"{ROLLOUT}.gz: no line of it parses as a JSON object" in result.output
    assert "stray.jsonl.gz: a compressed copy without a record" in result.output


def test_verify_passes_on_a_sound_archive(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    result = CliRunner().invoke(main, ["archive", "--verify"])
    assert result.exit_code == 0, result.output
    assert f"Verified {len(read_files(home))} archived files: every one decompresses" in result.output


def test_a_symlink_in_the_archive_is_not_followed(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    elsewhere = tmp_path / "elsewhere"
    folder = the_archive() / "claude" / NOTES
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    shutil.rmtree(home / ".claude" / "projects" / NOTES)
    result = run(tmp_path / "fresh")
    assert not [s for s in sessions_by_id(result).values() if s.cwd == "/home/ada/src/notes-api"]


# --- bough archive ---------------------------------------------------------------------------


def test_bough_archive_reports_what_it_holds(home: Path, tmp_path: Path) -> None:
    # It counts sessions as the site does, and dates them by when they started (issue #36).
    built = run(tmp_path / "site")
    held = len(read_files(home))
    deleted = delete_some(home)
    result = CliRunner().invoke(main, ["archive"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"Archive: {the_archive().resolve()}" in out
    on_site = [s for p in built.site.projects for s in p.sessions]
    claude, codex = (sum(s.source == source for s in on_site) for source in ("claude-code", "codex"))
    assert f"Sessions: {built.sessions} ({claude} Claude Code, {codex} Codex), in {held} files" in out
    assert re.search(r"Size on disk: [\d.,]+ KB compressed \([\d.,]+ KB of transcripts\)", out)
    first = min(on_site, key=lambda s: s.started)
    last = max(on_site, key=lambda s: s.started)
    assert f"Oldest session: started {first.started[:10]} ({first.files[0]})" in out
    assert f"Newest session: started {last.started[:10]} ({last.files[0]})" in out
    gone = [label for label in deleted if not label.rsplit("/", 1)[-1].startswith("agent-")]  # not sub-agents
    assert f"Gone from the sources (kept only here): {len(gone)} sessions" in out


def test_bough_archive_counts_a_codex_sub_agent_under_its_parent_and_one_thread_once(isolated_home: Path,
                                                                                     tmp_path: Path) -> None:
    # A spawned thread nests in its parent's session; a rollout copied to archived_sessions/
    # is the same thread; a rollout inside Codex's own home is Codex's work: one session.
    sessions = isolated_home / ".codex" / "sessions" / "2026" / "03" / "01"
    parent, child = "019c0000-0000-7000-8000-000000000001", "019c0000-0000-7000-8000-000000000002"
    internal = "019c0000-0000-7000-8000-000000000003"

    def rollout(tid: str, started: str, cwd: str = "/home/ada/app", **meta: object) -> None:
        lines = [{"timestamp": started, "type": "session_meta",
                  "payload": {"id": tid, "timestamp": started, "cwd": cwd, **meta}},
                 {"timestamp": started, "type": "event_msg", "payload": {"type": "user_message", "message": "hi"}}]
        write_jsonl(sessions / f"rollout-2026-03-01T10-00-00-{tid}.jsonl", lines)

    rollout(parent, "2026-03-01T10:00:00.000Z")
    rollout(child, "2026-03-01T11:00:00.000Z",
            source={"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}})
    rollout(internal, "2026-03-01T12:00:00.000Z", cwd=str(isolated_home / ".codex" / "memories"))
    built = run(tmp_path / "site")
    moved = isolated_home / ".codex" / "archived_sessions" / f"rollout-2026-03-01T10-00-00-{parent}.jsonl"
    moved.parent.mkdir(parents=True)
    shutil.copy(sessions / moved.name, moved)
    run(tmp_path / "site")
    out = CliRunner().invoke(main, ["archive"]).output
    assert built.sessions == 1
    assert "Sessions: 1 (1 Codex), in 4 files" in out
    assert "Oldest session: started 2026-03-01 (sessions/2026/03/01/rollout-2026-03-01T10-00-00-" in out


def test_bough_archive_without_an_archive(isolated_home: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["archive", "--archive", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert "no archive" in result.output
    assert not (tmp_path / "none").exists()


def test_build_options(home: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    chosen = tmp_path / "kept"
    result = runner.invoke(main, ["build", "-q", "-o", str(tmp_path / "site"), "--archive", str(chosen)])
    assert result.exit_code == 0, result.output
    assert (chosen / ".bough-archive").is_file() and not the_archive().exists()
    result = runner.invoke(main, ["build", "-q", "-o", str(tmp_path / "site"), "--no-archive", "--archive", "x"])
    assert result.exit_code == 2
    os.environ["BOUGH_ARCHIVE"] = str(tmp_path / "from-env")
    try:
        assert BuildConfig().archive == tmp_path / "from-env"
    finally:
        del os.environ["BOUGH_ARCHIVE"]


# --- Claude Code's cleanup setting ------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "days"),
    [
        (None, 30),
        ({"theme": "dark"}, 30),
        ({"cleanupPeriodDays": 30}, 30),
        ({"cleanupPeriodDays": 7}, 7),
        ({"cleanupPeriodDays": "3650"}, 30),  # not a number: Claude Code's default applies
        ({"cleanupPeriodDays": True}, 30),
        ({"cleanupPeriodDays": -5}, 30),
        ("{not json", 30),
        ("[1, 2]", 30),
        ({"cleanupPeriodDays": 0}, 0),
        ({"cleanupPeriodDays": 3650}, 3650),
    ],
)
def test_claude_cleanup_days(isolated_home: Path, settings, days: int) -> None:
    path = isolated_home / ".claude" / "settings.json"
    if settings is not None:
        path.parent.mkdir(parents=True)
        path.write_text(settings if isinstance(settings, str) else json.dumps(settings))
    found, why = claude_cleanup_days()
    assert found == days
    assert str(path) in why


@pytest.mark.parametrize(("settings", "says"), [
    (None, "after 30 days (its default: there is no"),
    ({"cleanupPeriodDays": 30}, "after 30 days (cleanupPeriodDays in"),
    ({"cleanupPeriodDays": 0}, "every time it starts"),
    ({"cleanupPeriodDays": 3650}, None),
])
def test_the_cleanup_notice(home: Path, tmp_path: Path, settings, says: str | None) -> None:
    path = home / ".claude" / "settings.json"
    if settings is not None:
        path.write_text(json.dumps(settings))
    before = path.read_bytes() if path.exists() else None
    result = run(tmp_path / "site")
    text = summary(result, BuildConfig(out=tmp_path / "site"))
    assert (path.read_bytes() if path.exists() else None) == before  # bough never edits it
    if says is None:
        assert result.notes == [] and "Claude Code deletes" not in text
        return
    assert len(result.notes) == 1 and text.count("Claude Code deletes") == 1
    assert result.notes[0].startswith(f"Claude Code deletes transcripts {says}")
    assert "bough's archive" in result.notes[0] and "keeps a copy" in result.notes[0]


def test_no_cleanup_notice_without_claude_sessions(isolated_home: Path, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "codex" / "sessions", isolated_home / ".codex" / "sessions")
    assert run(tmp_path / "site").notes == []


# --- hand-written sessions ------------------------------------------------------------------------


def test_hand_written_sessions_survive_with_their_warnings(isolated_home: Path, tmp_path: Path) -> None:
    projects = isolated_home / ".claude" / "projects"
    doomed = projects / "-home-ada-a" / f"{SESSION}.jsonl"
    other = "22222222-2222-4222-8222-222222222222"
    for path, cwd in ((doomed, "/home/ada/a"), (projects / "-home-ada-b" / f"{other}.jsonl", "/home/ada/b")):
        write_jsonl(path, [
            prompt("u1", "What is in the box?", cwd=cwd, sessionId=path.stem),
            reply("a1", "msg_1", [text("A cat.")], output=12, inp=3, cwd=cwd, sessionId=path.stem),
            b'{"type": "user", "truncated',  # a bad last line: the same warning from the copy
        ])
    before = run(tmp_path / "one")
    doomed.unlink()  # read first before, last now: the warnings keep their order all the same
    after = run(tmp_path / "two")
    assert sessions_by_id(after)[SESSION].stats == sessions_by_id(before)[SESSION].stats
    assert [str(w) for w in after.warnings] == [str(w) for w in before.warnings]
    assert len(before.warnings) == 2
    assert sessions_by_id(after)[SESSION].kept_since is not None
    assert sessions_by_id(after)[other].kept_since is None
    one, two = files(tmp_path / "one"), files(tmp_path / "two")
    assert {path: unmarked(data) for path, data in two.items()} == one


def test_open_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(ArchiveError, match="not a directory"):
        Archive.open(tmp_path / "f")


# --- more than one build ------------------------------------------------------------------------


def test_two_builds_at_once_share_a_new_archive(home: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    procs = [
        subprocess.Popen([sys.executable, "-m", "bough_site.cli", "build", "-q", "-o", str(tmp_path / f"site{i}")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for i in range(2)
    ]
    results = [(proc.wait(timeout=120), proc.stderr.read().decode()) for proc in procs]
    assert [code for code, _ in results] == [0, 0], results
    assert CliRunner().invoke(main, ["archive", "--verify"]).exit_code == 0


def test_a_crashed_builds_copies_are_removed_by_the_next(home: Path, tmp_path: Path) -> None:
    from bough_site.archive_restore import RestoreDir

    run(tmp_path / "site")
    root = the_archive()
    abandoned = root / ".bough-restore-crashed"
    (abandoned / "claude").mkdir(parents=True)
    (abandoned / ".lock").write_bytes(b"")
    (abandoned / "claude" / "x.jsonl").write_bytes(b"{}\n")
    busy = RestoreDir(root)  # a build still reading from its copies
    try:
        run(tmp_path / "site")
        assert not abandoned.exists()
        assert busy.path.is_dir()
    finally:
        busy.close()
    assert not busy.path.exists()


# --- the index and growing copies ------------------------------------------------------------


def records_of(root: Path) -> list[Path]:
    return sorted(root.rglob("*.gz.json"))


def test_a_build_reads_the_index_not_a_record_per_copy(home: Path, tmp_path: Path) -> None:
    first = run(tmp_path / "one")
    root = the_archive()
    assert (root / ".bough-index").is_file()
    records = records_of(root)
    assert len(records) == len(read_files(home))
    for record in records:  # were a build to read them, it would say so
        record.write_bytes(b"not a record")
    warnings: list[str] = []
    again = build(BuildConfig(out=tmp_path / "two", report=warnings.append), redaction_key=b"test")
    assert [w for w in warnings if "archive" in w] == []
    assert again.site.stats == first.site.stats
    # No index (a build that died while changing the archive): the records are read again.
    (root / ".bough-index").unlink()
    warnings.clear()
    build(BuildConfig(out=tmp_path / "three", report=warnings.append), redaction_key=b"test")
    assert len([w for w in warnings if "unreadable record" in w]) == len(records)


def test_a_grown_file_adds_to_its_copy_and_a_rewritten_one_is_copied_whole(home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    transcript = home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"
    copy = the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz"
    before = copy.read_bytes()
    with transcript.open("ab") as handle:
        handle.write(orjson.dumps(prompt("9d0c1f6e-0000-4000-8000-000000000001", "one more turn")) + b"\n")
    run(tmp_path / "site")
    grown = copy.read_bytes()
    assert grown.startswith(before) and len(grown) > len(before)  # one more gzip member
    assert gzip.decompress(grown) == transcript.read_bytes()
    # The same size, other first bytes: not a file that grew; its copy is made again whole.
    data = transcript.read_bytes()
    transcript.write_bytes(b"{" + data[1:].replace(b'"type"', b'"Type"', 1))
    run(tmp_path / "site")
    rewritten = copy.read_bytes()
    assert not rewritten.startswith(grown)  # not one more member added to the old copy
    assert gzip.decompress(rewritten) == transcript.read_bytes()


def test_copies_are_deflated_by_isal_where_it_has_a_wheel() -> None:
    # pyproject.toml installs isal on these machines; without it copies cost 4.5 times the CPU.
    if platform.machine() not in ("x86_64", "AMD64", "aarch64", "arm64"):
        pytest.skip(f"isal has no wheel for {platform.machine()}: zlib writes the copies")
    assert gz.WRITER == "isal.igzip"


def test_a_copy_the_standard_library_deflated_grows_and_reads_back_whole(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An archive written where isal was missing (or by an older bough) gets isal's members after its own.
    with monkeypatch.context() as patched:
        patched.setattr(gz, "_gzip", gzip)
        run(tmp_path / "site")
    transcript = home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"
    copy = the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz"
    before = copy.read_bytes()
    # What zlib wrote: the same deflated bytes after the header (whose OS byte differs).
    assert before[10:] == gzip.compress(transcript.read_bytes(), 1, mtime=0)[10:]
    with transcript.open("ab") as handle:
        handle.write(orjson.dumps(prompt("9d0c1f6e-0000-4000-8000-000000000002", "one more turn")) + b"\n")
    live = sessions_by_id(run(tmp_path / "site"))[WITH_SUBAGENTS]
    grown = copy.read_bytes()
    assert grown.startswith(before) and len(grown) > len(before)
    assert gzip.decompress(grown) == transcript.read_bytes()
    transcript.unlink()  # the session is now built from its copy of two codecs' members
    kept = sessions_by_id(run(tmp_path / "site"))[WITH_SUBAGENTS]
    assert kept.kept_since and kept.stats == live.stats and live.stats["prompts"] > 0


# --- one transcript, one entry (docs/safety.md S8) ---------------------------------------------


def session_pages(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.glob("projects/*/sessions/*.html"))


def archived_labels() -> list[str]:
    root = the_archive() / "claude"
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.gz"))


def test_a_record_takes_a_sub_agent_more_and_a_new_place_without_a_copy(home: Path, tmp_path: Path) -> None:
    """A live file as its copy (same size and time) is not copied again, but what its
    record says of it follows it: a session's sub-agents, and where it is now."""
    run(tmp_path / "site")
    projects = home / ".claude" / "projects"
    record_path = the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz.json"
    before = json.loads(record_path.read_bytes())
    # A sub-agent more beside the others: the session's file is as it was.
    subagents = projects / NOTES / WITH_SUBAGENTS / "subagents"
    shutil.copy2(next(subagents.glob("agent-a*.jsonl")), subagents / "agent-b0000000000000001.jsonl")
    run(tmp_path / "site")
    grown = json.loads(record_path.read_bytes())
    assert (grown["size"], grown["sha256"], grown["updated"]) == (before["size"], before["sha256"], before["updated"])
    assert grown["origins"] == before["origins"]
    assert grown["subagents"] == [*before["subagents"], f"{NOTES}/{WITH_SUBAGENTS}/subagents/agent-b0000000000000001.jsonl"]
    # The whole tree somewhere else (times kept): each record names the new place last.
    moved = tmp_path / "backup" / "projects"
    shutil.copytree(projects, moved)
    run(tmp_path / "other", sources=[moved])
    after = json.loads(record_path.read_bytes())
    assert after == {**grown, "origins": [*grown["origins"], str(moved / NOTES / f"{WITH_SUBAGENTS}.jsonl")]}
    agent = json.loads((the_archive() / "claude" / NOTES / WITH_SUBAGENTS / "subagents" /
                        "agent-acompact-7d2e91.jsonl.gz.json").read_bytes())
    assert agent["origins"][-1] == str(moved / NOTES / WITH_SUBAGENTS / "subagents" / "agent-acompact-7d2e91.jsonl")
    run(tmp_path / "other", sources=[moved])  # nothing new: the record stays as it is
    assert json.loads(record_path.read_bytes()) == after


def test_a_transcript_built_alone_stays_one_session(home: Path, tmp_path: Path) -> None:
    """The issue's steps: a site of everything, one session built on its own into
    another site, then the first site again."""
    first = run(tmp_path / "site")
    pages, held = session_pages(tmp_path / "site"), archived_labels()
    alone = run(tmp_path / "other", sources=[home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"])
    assert list(sessions_by_id(alone)) == [WITH_SUBAGENTS] and alone.archived_only == 0
    again = run(tmp_path / "site")
    assert archived_labels() == held
    assert (again.sessions, again.archived_only) == (first.sessions, 0)
    assert not [s for s in sessions_by_id(again).values() if s.kept_since]
    assert session_pages(tmp_path / "site") == pages


def archive_as_9425abe(path: Path, label: str, archived: str, role: str, kind: str = "claude", **facts) -> None:
    """What a build at 9425abe given a session file on its own left in the archive:
    a copy of ``path`` under ``label`` (the name its own folder gives it), its record, no index."""
    archive = Archive.open(the_archive())
    with archive.locked(exclusive=True):
        entry = Entry(kind=kind, label=label, role=role, size=0, mtime_ns=0, sha256="", archived=archived,
                      updated=archived, origins=(str(path),), **facts)
        archive.commit([archive.copy(path, None, entry)])
        archive.forget_index()


@pytest.mark.parametrize("index", ["none", "as 9425abe wrote it"])
def test_an_archive_holding_a_file_under_two_labels_is_made_one(home: Path, tmp_path: Path, index: str) -> None:
    first = run(tmp_path / "site")
    pages, held = session_pages(tmp_path / "site"), archived_labels()
    record = json.loads((the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz.json").read_bytes())
    # The session grows; then 9425abe, given the file alone, archived it under a second label.
    transcript = home / ".claude" / "projects" / NOTES / f"{WITH_SUBAGENTS}.jsonl"
    with transcript.open("ab") as handle:
        handle.write(orjson.dumps(prompt("9d0c1f6e-0000-4000-8000-00000000aaaa", "GROWN-AFTER-THE-FIRST-BUILD",
                                         sessionId=WITH_SUBAGENTS)) + b"\n")
    grown = transcript.read_bytes()
    later = "2099-01-01T00:00:00Z"
    agents = sorted((transcript.with_suffix("") / "subagents").glob("agent-*.jsonl"))
    archive_as_9425abe(transcript, transcript.name, later, "session",
                       subagents=tuple(f"{WITH_SUBAGENTS}/subagents/{a.name}" for a in agents))
    for agent in agents:
        archive_as_9425abe(agent, f"{WITH_SUBAGENTS}/subagents/{agent.name}", later, "subagent",
                           session=transcript.name)
    if index != "none":
        archive = Archive.open(the_archive())
        archive.save_index(archive.records()[0].values())  # not marked as looked over: bough.archive-index/2
        assert orjson.loads(__import__("zlib").decompress((the_archive() / ".bough-index").read_bytes()))[
            "schema"] == "bough.archive-index/2"
    # Then Claude Code's cleanup deletes the session: only the archive has it.
    transcript.unlink()
    shutil.rmtree(transcript.with_suffix(""))

    after = run(tmp_path / "site")
    assert archived_labels() == held  # one entry per file, under the label a build of everything gives it
    kept = json.loads((the_archive() / "claude" / NOTES / f"{WITH_SUBAGENTS}.jsonl.gz.json").read_bytes())
    assert (kept["size"], kept["sha256"]) == (len(grown), hashlib.sha256(grown).hexdigest())  # the longer copy
    assert kept["archived"] == record["archived"]  # kept since the first copy
    assert kept["origins"] == [str(transcript)]
    assert kept["subagents"] == [f"{NOTES}/{WITH_SUBAGENTS}/subagents/{a.name}" for a in agents]
    assert (after.sessions, after.archived_only) == (first.sessions, 1)
    session = sessions_by_id(after)[WITH_SUBAGENTS]
    assert (session.kept_since, session.stats["subagents"]) == (record["archived"], 2)
    assert session_pages(tmp_path / "site") == pages  # the URL it had before the second label
    page = next((tmp_path / "site" / "projects").glob(f"*/sessions/{WITH_SUBAGENTS}.html")).read_text()
    assert "GROWN-AFTER-THE-FIRST-BUILD" in page
    assert CliRunner().invoke(main, ["archive", "--verify"]).exit_code == 0


def test_a_rollout_archived_under_the_names_its_folders_gave_it_is_made_one(home: Path, tmp_path: Path) -> None:
    first = run(tmp_path / "site")
    codex = sorted(p.relative_to(the_archive() / "codex").as_posix() for p in (the_archive() / "codex").rglob("*.gz"))
    rollout = next((home / ".codex" / "sessions").rglob(ROLLOUT))
    archive_as_9425abe(rollout, ROLLOUT, "2099-01-01T00:00:00Z", "rollout", kind="codex")  # given alone
    archive_as_9425abe(rollout, f"09/{ROLLOUT}", "2099-01-01T00:00:00Z", "rollout", kind="codex")  # its day folder
    again = run(tmp_path / "site")
    assert sorted(p.relative_to(the_archive() / "codex").as_posix()
                  for p in (the_archive() / "codex").rglob("*.gz")) == codex
    assert (again.sessions, again.archived_only) == (first.sessions, 0)


# --- a read-only archive (docs/safety.md S8) ---------------------------------------------------

_READ_ONLY = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'


def read_only_mounts(tmp_path: Path) -> None:
    """Skip unless a folder can be mounted read-only in a mount namespace of its own:
    the tests run as root, whom no file mode keeps from writing."""
    probe = tmp_path / "probe"
    probe.mkdir()
    try:
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _READ_ONLY, str(probe),
                               "sh", "-c", 'touch "$0/x"', str(probe)], capture_output=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("no unshare(1) here: a read-only mount cannot be made")
    if b"Read-only file system" not in done.stderr:
        pytest.skip(f"a read-only bind mount cannot be made here: {done.stderr.decode(errors='replace').strip()}")


def read_only_bough(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """``bough ARGS`` in a mount namespace where ``folder`` is read-only, for everyone."""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _READ_ONLY, str(folder),
                           sys.executable, "-m", "bough_site.cli", *args], capture_output=True, text=True, timeout=300)


def build_read_only(folder: Path, out: Path) -> subprocess.CompletedProcess:
    return read_only_bough(folder, "build", "-q", "-j", "1", "-o", str(out))


def restore_dirs() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith(".bough-restore-")}


def test_a_read_only_archive_is_read_and_not_written(home: Path, tmp_path: Path) -> None:
    read_only_mounts(tmp_path)
    first = run(tmp_path / "site")
    delete_some(home)  # 4 sessions: a project's two, one with sub-agents, a rollout
    write_jsonl(home / ".claude" / "projects" / "-home-ada-new" / f"{SESSION}.jsonl",
                [prompt("u1", "a session newer than the archive"), reply("a1", "m1", [text("ok")])])
    before, restores = file_tree(the_archive()), restore_dirs()

    done = build_read_only(the_archive(), tmp_path / "fresh")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert [line for line in lines if "archive" in line and line.startswith("warning:")] == [
        f"warning: {the_archive()}: bough's archive cannot be written (Read-only file system): "
        "this build archives nothing, and reads the sessions it already holds"]
    said = "\n".join(line for line in lines if not line.startswith("warning:"))
    assert f"Built 4 projects and {first.sessions + 1} sessions: " in said
    assert "4 only in bough's archive (the original is deleted)" in said
    assert "cannot be written: sessions it deletes that the archive does not already hold" in said
    assert file_tree(the_archive()) == before  # nothing copied, nothing recorded
    assert restore_dirs() == restores  # its decompressed copies went with it
    pages = session_pages(tmp_path / "fresh")
    assert len(pages) == first.sessions + 1 and any(p.endswith(f"{WITH_SUBAGENTS}.html") for p in pages)
    report = read_only_bough(the_archive(), "archive", "--verify")  # read under no lock it would have to make
    copies = sum(name.endswith(".gz") for name in before)
    assert report.returncode == 0 and f"Verified {copies} archived files: every one" in report.stdout, \
        report.stderr


def test_an_archive_that_cannot_be_made_costs_the_copies_not_the_site(home: Path, tmp_path: Path) -> None:
    read_only_mounts(tmp_path)
    data = the_archive().parent.parent  # $XDG_DATA_HOME, with no bough/ in it yet
    data.mkdir(parents=True)
    done = build_read_only(data, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("warning:") and "archive" in line] == [
        f"warning: {the_archive()}: bough's archive cannot be written (Read-only file system): "
        "this build archives nothing, and reads the sessions it already holds"]
    assert len(session_pages(tmp_path / "site")) == 9  # the examples' 7 Claude Code sessions and 2 Codex rollouts
    assert not the_archive().exists()


@given(st.lists(st.sampled_from(["", ".", "..", "a", "b.jsonl", "\udcff", "é", "/", "//"]), max_size=6))
def test_where_a_file_is_recorded_is_its_absolute_path_made_printable(parts: list[str]) -> None:
    """archive_sync._origin takes a short way for a path that is absolute and
    normal already: the same as os.path.abspath then printable_name, whatever the path."""
    from bough_site.archive_sync import _origin
    from bough_site.readers.lines import printable_name

    for path in ("/".join(parts), "/" + "/".join(parts)):
        if path:
            assert _origin(path) == printable_name(os.path.abspath(path))


@given(st.lists(st.sampled_from(["", ".", "..", "a", "_x", "-y", ".bough-index", ".project_root", "b.jsonl", "é",
                                 "\x00", "\n", "\udcff", "/"]), max_size=6).map("".join))
def test_a_label_is_told_fit_the_short_way_only_when_the_rules_say_so(label: str) -> None:
    """archive_entry.label_problem takes a short way for the labels of tens of thousands of
    index rows: a label of plain names only. Whatever the label, it says what the rules say."""
    from bough_site.archive_entry import label_problem

    names = label.split("/")
    fit = bool(label) and "\x00" not in label and not label.startswith("/") and \
        all(name not in ("", ".", "..") and not name.startswith(".bough-") for name in names)
    assert (label_problem(label) is None) == fit
