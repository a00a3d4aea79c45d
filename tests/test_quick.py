"""The quick check (bough_site/quick.py): a rebuild with nothing changed says what
the last build said without planning; any change to what a build reads or keeps
sends it the whole way, to the bytes a fresh build makes.

Which way a build went shows in its result: after a quick rebuild the site is
read back from the manifest only when asked (``result.built`` is None).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from bough_site.archive import DATA_SUFFIX
from bough_site.archive_paths import FOLDER_TIMES
from bough_site.archive_restore import RESTORE_PREFIX
from bough_site.archive_entry import RECORD_SUFFIX
from bough_site.build import BuildResult, build
from bough_site.cli import summary
from bough_site.config import BuildConfig
from bough_site.errors import BoughError
from bough_site import discover as discover_module, quick
from bough_site.options import build_options
from bough_site.quick import RECORD

from .helpers import KEY, append_turn, main_file, make_history, prompt, reply, scandir_calls, text, tree, write_jsonl


def _build(src: Path, out: Path, archive: Path | None, lines: list[str] | None = None, **options) -> BuildResult:
    report = lines.append if lines is not None else (lambda _line: None)
    config = BuildConfig(sources=[src], out=out, archive=archive, jobs=1, report=report, **options)
    return build(config, redaction_key=b"k")


def _quick(result: BuildResult) -> bool:
    return result.built is None


@pytest.fixture()
def history(tmp_path: Path) -> Path:
    """Sessions with a damaged line and an orphan sub-agent: warnings from reading and from discovery."""
    src = make_history(tmp_path / "history")
    project = sorted(p for p in src.iterdir() if p.is_dir())[0]
    fields = {"sessionId": "11111111-2222-4333-8444-555555555555", "cwd": "/home/u/app"}
    write_jsonl(project / "11111111-2222-4333-8444-555555555555.jsonl", [
        prompt("aaaaaaaa-0000-4000-8000-00000000000a", "hello", **fields), b'{"type": "user", "cut off',
        reply("aaaaaaaa-0000-4000-8000-00000000000b", "msg_q1", [text("hi")], **fields),
    ])
    write_jsonl(project / "agent-0badc0de.jsonl", [
        prompt("aaaaaaaa-0000-4000-8000-00000000000c", "sub", isSidechain=True,
               sessionId="99999999-2222-4333-8444-555555555555", cwd="/home/u/app"),
    ])
    return src


def _said(result: BuildResult) -> tuple:
    return (result.projects, result.sessions, result.stats, result.warnings, result.rebuilt, result.reused,
            result.gone, result.archived_only, result.notes, result.written, result.unchanged + result.kept,
            result.pruned, result.used_examples)


@pytest.mark.parametrize("deleted", [False, True])
def test_nothing_changed_says_again_what_the_whole_way_says(history: Path, tmp_path: Path, deleted: bool) -> None:
    out, archive = tmp_path / "site", tmp_path / "archive"
    first = _build(history, out, archive)
    assert not _quick(first) and first.warnings
    if deleted:  # a session only the archive still has
        main_file(history, out)[0].unlink()
        assert _build(history, out, archive).archived_only == 1
    before = tree(out)
    quick_lines: list[str] = []
    again = _build(history, out, archive, quick_lines)
    assert _quick(again) and tree(out) == before
    (out / RECORD).write_bytes(b"")  # no record: the whole way, as before the quick check
    whole_lines: list[str] = []
    whole = _build(history, out, archive, whole_lines)
    assert not _quick(whole) and tree(out) == before
    assert _said(again) == _said(whole) and again.archived_only == deleted
    assert again.site == whole.site  # read back from the manifest when asked
    assert summary(again, BuildConfig(out=out)) == summary(whole, BuildConfig(out=out))
    assert quick_lines == whole_lines and any("sub-agent transcript" in line for line in quick_lines)


def _append(history: Path, out: Path, archive: Path) -> None:
    append_turn(main_file(history, out)[0])


def _touch(history: Path, out: Path, archive: Path) -> None:
    path = main_file(history, out)[0]
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def _unread_file(history: Path, out: Path, archive: Path) -> None:
    (next(history.iterdir()) / "notes.txt").write_text("not a transcript\n")


def _page_deleted(history: Path, out: Path, archive: Path) -> None:
    next(out.glob("projects/*/sessions/*.html")).unlink()


def _copy_deleted(history: Path, out: Path, archive: Path) -> None:
    next(p for p in archive.rglob("*" + DATA_SUFFIX) if p.is_file() and "claude" in p.parts).unlink()


def _record_deleted(history: Path, out: Path, archive: Path) -> None:
    next(p for p in archive.rglob("*" + RECORD_SUFFIX) if p.is_file() and "claude" in p.parts).unlink()


def _manifest_edited(history: Path, out: Path, archive: Path) -> None:
    manifest = out / ".bough-manifest.json"
    manifest.write_bytes(manifest.read_bytes())  # in place: no folder's time changes


def _settings_written(history: Path, out: Path, archive: Path) -> None:
    settings = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"cleanupPeriodDays": 7}))


@pytest.mark.parametrize("change", [_append, _touch, _unread_file, _page_deleted, _copy_deleted,
                                    _record_deleted, _manifest_edited, _settings_written])
def test_any_change_goes_the_whole_way_to_the_fresh_bytes(history: Path, tmp_path: Path, change) -> None:
    out, archive = tmp_path / "site", tmp_path / "archive"
    _build(history, out, archive)
    assert _quick(_build(history, out, archive))
    copies = sorted(p for p in archive.rglob("*") if p.is_file() and "claude" in p.parts)
    change(history, out, archive)
    changed = _build(history, out, archive)
    assert not _quick(changed)
    fresh = _build(history, tmp_path / "fresh", tmp_path / "archive")
    assert tree(out) == tree(tmp_path / "fresh")
    assert _said(changed)[:4] == _said(fresh)[:4] and changed.notes == fresh.notes
    if change is _settings_written:
        assert "after 7 days" in changed.notes[0]
    if change in (_copy_deleted, _record_deleted):  # made again
        assert sorted(p for p in archive.rglob("*") if p.is_file() and "claude" in p.parts) == copies
    assert _quick(_build(history, out, archive))  # and then quick again


def test_a_build_lists_each_archive_folder_it_did_not_write_in_once(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The archive is walked at a build's start (its copies found in the listing) and
    at its end (its times, for the record): the second walk lists only the folders
    the build wrote in (folder_walk.py)."""
    out, archive = tmp_path / "site", tmp_path / "archive"
    _build(history, out, archive)
    _append(history, out, archive)
    times = {str(path): path.stat().st_mtime_ns for path in archive.rglob("*") if path.is_dir()}
    with monkeypatch.context() as patched:
        listed = scandir_calls(patched)
        assert not _quick(_build(history, out, archive))
    written = {folder for folder, mtime in times.items() if os.lstat(folder).st_mtime_ns != mtime}
    assert written and len(times) > len(written)
    for folder in times:
        assert listed.count(folder) == (2 if folder in written else 1), folder
    assert _quick(_build(history, out, archive))


def test_a_build_that_changes_nothing_lists_no_archive_folder_below_its_top(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The archive keeps its folders' times as the last build left them
    (quick.keep_archive_times): the check asks each its time, and lists only the
    archive's top (for a folder added there, or a build's private one)."""
    out, archive = tmp_path / "site", tmp_path / "archive"
    _build(history, out, archive)
    assert (archive / FOLDER_TIMES).is_file()
    folders = [str(path) for path in archive.rglob("*") if path.is_dir()]
    assert len(folders) > 3
    with monkeypatch.context() as patched:
        listed = scandir_calls(patched)
        assert _quick(_build(history, out, archive))
    assert str(archive) in listed and not set(folders) & set(listed)


def _kept_times_deleted(archive: Path) -> None:
    (archive / FOLDER_TIMES).unlink(missing_ok=True)


def _kept_times_garbled(archive: Path) -> None:
    (archive / FOLDER_TIMES).write_bytes(b'[[".bough-index", 1, 2, 3], ["claude/.", "x"]')


def _kept_times_taken_since(archive: Path) -> None:
    """The times as they are now, which the record does not name once anything changed."""
    (archive / FOLDER_TIMES).write_bytes(orjson.dumps(quick.archive_times(archive)))


@pytest.mark.parametrize("spoil", [_kept_times_deleted, _kept_times_garbled, _kept_times_taken_since])
def test_the_archives_kept_times_are_trusted_only_as_the_record_names_them(
        history: Path, tmp_path: Path, spoil) -> None:
    """Times the archive keeps that are gone, do not parse or are not those the record
    names are not trusted: its folders are walked, as before there were any."""
    out, archive = tmp_path / "site", tmp_path / "archive"
    _build(history, out, archive)
    spoil(archive)
    assert _quick(_build(history, out, archive))
    _copy_deleted(history, out, archive)
    spoil(archive)
    assert not _quick(_build(history, out, archive))


def _folder_added_deep(archive: Path) -> None:
    project = next(p for p in (archive / "claude").iterdir() if p.is_dir())
    (project / "new" / "deeper").mkdir(parents=True)


def _folder_added_at_the_top(archive: Path) -> None:
    (archive / "elsewhere").mkdir()


def _private_folder_left(archive: Path) -> None:
    (archive / (RESTORE_PREFIX + "crashed")).mkdir()  # a build at work, or one that crashed


def _index_rewritten(archive: Path) -> None:
    index = archive / ".bough-index"
    data = index.read_bytes()
    index.unlink()
    index.write_bytes(data)  # the same bytes, another file


@pytest.mark.parametrize("change", [_folder_added_deep, _folder_added_at_the_top, _private_folder_left,
                                    _index_rewritten])
def test_a_change_to_the_archive_goes_the_whole_way(history: Path, tmp_path: Path, change) -> None:
    out, archive = tmp_path / "site", tmp_path / "archive"
    _build(history, out, archive)
    assert _quick(_build(history, out, archive))
    change(archive)
    assert not _quick(_build(history, out, archive))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_record_still_holds_once_the_build_process_has_exited(history: Path, tmp_path: Path, jobs: str) -> None:
    """What a build leaves behind when its process ends (SQLite removes its -wal
    file when the last connection closes) must not change what it recorded."""
    out, archive = tmp_path / "site", tmp_path / "archive"
    command = [sys.executable, "-m", "bough_site.cli", "build", str(history), "-o", str(out), "--archive",
               str(archive), "-j", jobs, "-q"]
    for change in (None, _append):
        if change is not None:
            change(history, out, archive)
        subprocess.run(command, check=True, capture_output=True, timeout=300)
        config = BuildConfig(sources=[history], out=out, archive=archive, report=lambda _line: None)
        assert _quick(build(config, redaction_key=KEY))


_MODULES_AT_EXIT = """
import atexit, runpy, sys
atexit.register(lambda: print(" ".join(sorted(name for name in sys.modules if name.startswith("bough_site")))))
sys.argv = ["bough"] + sys.argv[1:]
runpy.run_module("bough_site.cli", run_name="__main__")
"""


def test_a_build_that_changes_nothing_never_imports_the_stages(history: Path, tmp_path: Path) -> None:
    """``bough build`` with nothing changed is mostly Python starting: the stages
    (stages.py) and what only they use (discovery, the archive, the manifest,
    redaction, the readers) are imported only when there is work."""
    out, archive = tmp_path / "site", tmp_path / "archive"
    command = [sys.executable, "-c", _MODULES_AT_EXIT, "build", str(history), "-o", str(out), "--archive",
               str(archive), "-q"]
    whole = set(subprocess.run(command, check=True, capture_output=True, text=True, timeout=300).stdout.split())
    quick_way = set(subprocess.run(command, check=True, capture_output=True, text=True, timeout=300).stdout.split())
    pipeline = {"bough_site.stages", "bough_site.jobs", "bough_site.publish", "bough_site.render.pages",
                "bough_site.plan", "bough_site.assemble", "bough_site.archive_sync", "bough_site.site",
                "bough_site.discover", "bough_site.archive", "bough_site.manifest", "bough_site.redact",
                "bough_site.readers.claude"}
    assert pipeline <= whole and "bough_site.quick" in quick_way
    assert not pipeline & quick_way
    assert len(quick_way) < len(whole) / 2


def test_other_options_or_a_theme_go_the_whole_way(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(history, out, None)
    assert not _quick(_build(history, out, None, search=False))
    theme = tmp_path / "theme"
    (theme / "static").mkdir(parents=True)
    (theme / "static" / "extra.css").write_text("body { margin: 0 }\n")
    assert not _quick(_build(history, out, None, search=False, theme=theme))
    assert _quick(_build(history, out, None, search=False, theme=theme))
    (theme / "static" / "extra.css").write_text("body { margin: 1px }\n")
    assert not _quick(_build(history, out, None, search=False, theme=theme))


def test_another_pagefind_goes_the_whole_way(history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An upgraded Pagefind remakes every search shard: its installed files are part of
    what a build reads (a stand-in package here: the real one is shared)."""
    package = tmp_path / "packages" / "stand_in_pagefind"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "pagefind").write_bytes(b"v1")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setattr(quick, "_SEARCH_PACKAGES", (*quick._SEARCH_PACKAGES, "stand_in_pagefind"))
    out = tmp_path / "site"
    _build(history, out, None)
    assert _quick(_build(history, out, None))
    (package / "pagefind").write_bytes(b"v2")
    assert not _quick(_build(history, out, None))
    assert not _quick(_build(history, out, None, search=False))  # other options: the whole way
    assert _quick(_build(history, out, None, search=False))
    (package / "pagefind").write_bytes(b"v3")
    assert _quick(_build(history, out, None, search=False))  # without search, Pagefind is not read


def test_a_build_that_fails_leaves_nothing_to_trust(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(history, out, None)
    assert (out / RECORD).read_bytes()
    (out / "index.json").unlink()
    (out / "index.json").mkdir()  # the build cannot write its index
    with pytest.raises(BoughError):
        _build(history, out, None)
    assert (out / RECORD).read_bytes() == b""
    (out / "index.json").rmdir()
    assert not _quick(_build(history, out, None))
    assert _quick(_build(history, out, None))


def test_gemini_clis_restore_history_is_not_walked(tmp_path: Path, isolated_home: Path) -> None:
    """Of Gemini CLI's own directory, only what discovery reads counts: its files,
    tmp/ and chats/; history/ holds /restore's git repositories (thousands of files)."""
    gemini = isolated_home / ".gemini"
    _gemini_chats(gemini)
    (gemini / "history" / "app").mkdir(parents=True)
    config = BuildConfig(out=tmp_path / "site", archive=None, source_filter="gemini", jobs=1,
                         report=lambda _line: None)
    assert build(config, redaction_key=KEY).sessions == 1
    assert _quick(build(config, redaction_key=KEY))
    (gemini / "history" / "app" / "objects").write_bytes(b"a snapshot")
    assert _quick(build(config, redaction_key=KEY))
    (gemini / "tmp" / "app" / "logs.json").write_text("[]")
    assert not _quick(build(config, redaction_key=KEY))
    assert _quick(build(config, redaction_key=KEY))
    (gemini / "extensions").mkdir()
    assert not _quick(build(config, redaction_key=KEY))
    shutil.copytree(gemini / "tmp" / "app" / "chats", gemini / "chats")  # discovery reads that, not tmp/
    assert not _quick(build(config, redaction_key=KEY))
    assert _quick(build(config, redaction_key=KEY))
    (gemini / "chats" / "notes.txt").write_text("not a session\n")
    assert not _quick(build(config, redaction_key=KEY))


def _gemini_chats(root: Path) -> Path:
    """A Gemini CLI session in ``root``'s tmp/app/chats/, its project root beside."""
    chats = root / "tmp" / "app" / "chats"
    session = {"sessionId": "g1", "projectHash": "h", "startTime": "2026-03-01T10:00:00.000Z",
               "lastUpdated": "2026-03-01T10:01:00.000Z",
               "messages": [{"id": "m1", "timestamp": "2026-03-01T10:00:00.000Z", "type": "user",
                             "content": [{"text": "hello"}]}]}
    chats.mkdir(parents=True)
    (chats / "session-2026-03-01T10-00-g1.json").write_bytes(orjson.dumps(session))
    (chats.parent / ".project_root").write_text("/home/u/app")
    return chats


def test_builds_it_cannot_tell_have_no_quick_way(history: Path, tmp_path: Path) -> None:
    single = main_file(history, _build(history, tmp_path / "probe", None).out)[0]
    linked = tmp_path / "linked"
    linked.mkdir()
    project = sorted(p for p in history.iterdir() if p.is_dir())[-1]
    (linked / project.name).symlink_to(project, target_is_directory=True)
    cases = {
        "a file": (single, {}),
        "--prune": (history, {"prune": True}),
        "a link to a folder": (linked, {}),
        "a Gemini folder below its project": (_gemini_chats(tmp_path / "gemini"), {}),
    }
    for name, (src, options) in cases.items():
        out = tmp_path / name.replace(" ", "-")
        first = _build(src, out, None, **options)
        assert first.sessions, name
        assert not _quick(_build(src, out, None, **options)), name
    home = Path(os.environ["HOME"])
    shutil.rmtree(home / ".claude", ignore_errors=True)
    examples = BuildConfig(out=tmp_path / "examples", archive=None, jobs=1, report=lambda _line: None)
    assert build(examples, redaction_key=b"k").used_examples
    assert not _quick(build(examples, redaction_key=b"k"))


def test_the_walk_hands_its_stats_on_and_a_build_stats_each_file_once(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the quick check's walk saw of each file (its mode, size and mtime, of the
    file itself, never through a link) is what discovery and the archive take: a build
    of a long history asks the system once a file, not twice (docs/performance.md)."""
    out, archive = tmp_path / "site", tmp_path / "archive"
    config = BuildConfig(sources=[history], out=out, archive=archive, jobs=1, report=lambda _line: None)
    digest = build_options(config, False, b"k").digest()
    files = [path for path in history.rglob("*") if path.is_file()]
    look = quick.unchanged(config, digest)
    assert files and sorted(look.walked) == sorted(str(path.absolute()) for path in files)
    for path in files:
        info = os.lstat(path)
        assert look.walked[str(path.absolute())] == (info.st_mode, info.st_size, info.st_mtime_ns)
    # The build asks the system of no file again.
    asked: list[os.stat_result] = []
    real_of = discover_module.FileStat.of.__func__
    monkeypatch.setattr(discover_module.FileStat, "of", classmethod(
        lambda cls, info: asked.append(info) or real_of(cls, info)))
    assert _build(history, out, archive).sessions and asked == []
    # Nothing changed: the check says so, and hands nothing on.
    again = quick.unchanged(config, digest)
    assert again.said is not None and again.walked == {}
    # A link is not the file's own: the walk hands on nothing of it.
    link = files[0].with_name("link.jsonl")
    link.symlink_to(files[0])
    assert str(link.absolute()) not in quick.unchanged(config, digest).walked


def test_what_the_walk_saw_is_let_go_of_before_publishing(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery holds what the check's walk saw of every file and folder until the
    plan is made; the Look that build.build keeps while the stages run does not
    (at 18,000 sessions some 15 MB, held to the build's peak)."""
    from bough_site import stages

    out, archive = tmp_path / "site", tmp_path / "archive"
    _build(history, out, archive)
    _append(history, out, archive)
    looks: list[quick.Look] = []
    real_unchanged, real_publish = quick.unchanged, stages._publish

    def look(*args: object) -> quick.Look:
        looks.append(real_unchanged(*args))  # type: ignore[arg-type]
        return looks[-1]

    def publish(*args: object) -> object:
        assert looks[0].walked == {} and looks[0].listed == {}
        looks.append(looks[0])
        return real_publish(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(quick, "unchanged", look)
    monkeypatch.setattr(stages, "_publish", publish)
    assert not _quick(_build(history, out, archive))
    assert len(looks) == 2  # published once, after the check looked once
