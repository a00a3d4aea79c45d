"""Tests for bough_site.write: safe names, the site writer, and OUT/input separation.

Everything runs on real files under tmp_path; the lock tests use a second process
because flock is what keeps two `bough build` processes apart.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st
import pytest

from bough_site.errors import BoughError, OutputError
from bough_site.publish import Outputs
from bough_site.out_place import check_separate
from bough_site.slugs import slug, unique_slugs
from bough_site.write import SiteWriter, Stager, json_bytes

from .helpers import REPO, finished_within, swapped_for_a_fifo_once_looked_at

SAFE = re.compile(r"[a-z0-9._-]+")
RESERVED = {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}


def marker_files(out: Path) -> list[str]:
    doc = orjson.loads((out / SiteWriter.MARKER).read_bytes())
    assert doc["generator"] == "bough"
    return doc["files"]


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob(".bough-tmp-*")]


def build(out: Path, files: dict[str, bytes], **kwargs: object) -> SiteWriter:
    with SiteWriter(out, **kwargs) as writer:  # type: ignore[arg-type]
        for relpath, data in files.items():
            writer.write(relpath, data)
    return writer


# --------------------------------------------------------------------------- slug


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0a1b2c3d-4e5f-6789-abcd-ef0123456789", "0a1b2c3d-4e5f-6789-abcd-ef0123456789"),
        ("plain_name.v2", "plain_name.v2"),
        ("../../etc/passwd", "etc-passwd-3754d6cb"),
        ("%2e%2e", "2e-2e-032f551e"),
        ("<img src=x onerror=alert(1)>", "img-src-x-onerror-alert-1-63b586b4"),
        ("a\nb", "a-b-7e18f737"),
        ("café", "cafe-850f7dc4"),
        ("日本", "cf2abf0c"),
        ("x" * 250, "x" * 39 + "-086d4a1c"),
        ("CON", "con-a3dbc4b6"),
        ("con", "con-1143da2b"),
        ("con.txt", "con-txt-d3bde286"),
        ("", "e3b0c442"),
        (".hidden", "hidden-16924190"),
        ("..", "5ec1f7e7"),
        ("a/b", "a-b-c14cddc0"),
        ("a:b", "a-b-6783a31e"),
        ("MyApp", "myapp-4de339ce"),
        ("-home-alice-app", "home-alice-app-9e3f4eb8"),
    ],
)
def test_slug_table(text: str, expected: str) -> None:
    assert slug(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "../../etc/passwd", "%2e%2e", "a..b", "a\x00b", "x" * 250, "日本",
        "", ".", "-", "LPT1.txt", "\ud800", "a" * 48 + ".",
    ],
)
def test_slug_is_always_a_safe_component(text: str) -> None:
    result = slug(text)
    assert SAFE.fullmatch(result)
    assert result[0] not in ".-"
    assert ".." not in result
    assert result.split(".")[0] not in RESERVED
    assert 0 < len(result) <= 48
    assert slug(text) == result  # deterministic


def test_slug_keeps_dropped_differences_apart() -> None:
    assert slug("a/b") != slug("a:b")
    assert slug("App") != slug("app")
    assert slug("x" * 250) != slug("x" * 251)


def test_slug_max_len() -> None:
    assert slug("abcdefgh", max_len=8) == "abcdefgh"
    assert slug("abcdefghi", max_len=8) == h("abcdefghi")
    assert slug("abcdefghijklmnop", max_len=12) == "abc-" + h("abcdefghijklmnop")
    with pytest.raises(ValueError):
        slug("a", max_len=7)


# --------------------------------------------------------------------------- unique_slugs


def test_unique_slugs_leaves_distinct_names_alone() -> None:
    assert unique_slugs(["alpha", "beta", "a/b"]) == ["alpha", "beta", "a-b-c14cddc0"]


def h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def test_unique_slugs_hashes_each_colliding_name() -> None:
    # A literal name that equals another name's hashed slug: both end up hashed by their own text.
    plain = "report-" + h("report!")
    assert slug(plain) == slug("report!")
    expected = ["report", f"{plain}-{h(plain)}", f"report-{h('report!')}"]
    assert unique_slugs(["report", plain, "report!"]) == expected


def test_unique_slugs_case_insensitive_collision() -> None:
    # "Project" folds to "project-<hash>"; a name spelling exactly that would share the file.
    other = "project-" + h("Project")
    result = unique_slugs(["Project", other])
    assert result == [f"project-{h('Project')}", f"{other}-{h(other)}"]
    assert len({s.casefold() for s in result}) == 2


def test_unique_slugs_equal_names_are_numbered() -> None:
    hashed = f"x.y-{h('x.y')}"
    assert unique_slugs(["x.y", "x.y", "x.y"]) == [hashed, f"{hashed}-2", f"{hashed}-3"]


def test_unique_slugs_is_deterministic_and_distinct() -> None:
    names = ["app", "app", "App", "APP", "a/b", "a:b", "", "", "日本", "本日", "x" * 300, "x" * 301]
    first = unique_slugs(names)
    assert first == unique_slugs(list(names))
    assert len({s.casefold() for s in first}) == len(names)
    assert all(SAFE.fullmatch(s) and s[0] not in ".-" for s in first)


# --------------------------------------------------------------------------- OUT ownership


def test_creates_missing_out_and_writes_marker(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "site"
    writer = build(out, {"index.html": b"<p>hi</p>", "s/a/page.html": b"A", "data.json": b"{}"})
    assert (out / "index.html").read_bytes() == b"<p>hi</p>"
    assert (out / "s" / "a" / "page.html").read_bytes() == b"A"
    assert marker_files(out) == ["data.json", "index.html", "s/a/page.html"]
    assert (out / SiteWriter.MARKER).read_bytes() == json_bytes(
        {"generator": "bough", "files": ["data.json", "index.html", "s/a/page.html"]}
    )
    assert writer.written == ["index.html", "s/a/page.html", "data.json"]
    assert writer.unchanged == []


def test_refuses_foreign_non_empty_dir(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not empty and was not made by bough"):
        with SiteWriter(out):
            pass
    assert sorted(os.listdir(out)) == ["thesis.tex"]  # not even a lock file left behind


def test_force_accepts_foreign_dir_and_owns_only_its_files(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    build(out, {"index.html": b"x"}, force=True)
    assert marker_files(out) == ["index.html"]
    with SiteWriter(out) as writer:  # now ours: no force needed
        assert writer.prune() == ["index.html"]
    assert (out / "thesis.tex").read_text() == "precious"


def test_empty_dir_and_lock_only_dir_are_accepted(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    (out / SiteWriter.LOCK).touch()
    build(out, {"a.html": b"a"})
    assert marker_files(out) == ["a.html"]


def test_marker_is_written_before_the_first_file(tmp_path: Path) -> None:
    # So a build killed half-way still leaves OUT recognisably ours.
    out = tmp_path / "site"
    with SiteWriter(out):
        assert marker_files(out) == []


def marker_identity(out: Path) -> tuple[int, int]:
    info = os.stat(out / SiteWriter.MARKER)
    return info.st_ino, info.st_mtime_ns


@pytest.mark.parametrize("seal", [False, True])
def test_a_build_that_owns_what_the_marker_says_leaves_it_alone(tmp_path: Path, seal: bool) -> None:
    """Every file kept: the marker is neither written again nor replaced (at 18,000
    sessions it is 55,000 paths, once when sealed and once at the end)."""
    out = tmp_path / "site"
    build(out, {"index.html": b"<p>hi</p>", "s/a/page.html": b"A"})
    before = marker_identity(out)
    with SiteWriter(out) as writer:
        writer.keep("index.html")
        writer.write("s/a/page.html", b"A")  # the same bytes: unchanged
        if seal:
            writer.seal()
    assert marker_identity(out) == before and marker_files(out) == ["index.html", "s/a/page.html"]


@pytest.mark.parametrize("change", ["a file added", "a file pruned", "the marker edited meanwhile",
                                    "a marker bough would not write", "a file gone when sealed, back at the end"])
def test_a_marker_that_would_say_otherwise_is_written_again(tmp_path: Path, change: str) -> None:
    out = tmp_path / "site"
    build(out, {"index.html": b"<p>hi</p>", "s/a/page.html": b"A"})
    if change == "a marker bough would not write":  # an entry it ignores: the list it keeps is shorter
        (out / SiteWriter.MARKER).write_bytes(json_bytes(
            {"generator": "bough", "files": ["../outside", "index.html", "s/a/page.html"]}))
    with SiteWriter(out) as writer:
        writer.keep("index.html")
        if change == "a file pruned":
            assert writer.prune() == ["s/a/page.html"]
        elif change == "a file gone when sealed, back at the end":  # still the last build's: owned again
            (out / "s" / "a" / "page.html").unlink()
            writer.seal()
            assert marker_files(out) == ["index.html"]
            (out / "s" / "a" / "page.html").write_bytes(b"A")
        else:
            writer.keep("s/a/page.html")
        if change == "a file added":
            writer.write("new.html", b"N")
        if change == "the marker edited meanwhile":
            (out / SiteWriter.MARKER).write_bytes(json_bytes({"generator": "bough", "files": ["index.html"]}))
    owned = {"a file added": ["index.html", "new.html", "s/a/page.html"], "a file pruned": ["index.html"]}.get(
        change, ["index.html", "s/a/page.html"])
    assert (out / SiteWriter.MARKER).read_bytes() == json_bytes({"generator": "bough", "files": owned})


def test_lock_file_does_not_make_a_foreign_dir_ours(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / SiteWriter.LOCK).touch()
    (out / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not made by bough"):
        with SiteWriter(out, lock_timeout=0):
            pass
    assert sorted(os.listdir(out)) == [SiteWriter.LOCK, "thesis.tex"]


def test_a_killed_builds_temporary_files_go_with_the_next_build(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"s/a/page.html": b"A"})
    outside = tmp_path / "outside.html"
    outside.write_bytes(b"not ours")
    # What a build killed mid-write leaves: its mark in the lock file, temporary files.
    with SiteWriter(out):
        assert (out / SiteWriter.LOCK).read_bytes() != b""  # the mark, while it runs
        killed_mark = (out / SiteWriter.LOCK).read_bytes()
    assert (out / SiteWriter.LOCK).read_bytes() == b""  # a build that ended says so
    (out / SiteWriter.LOCK).write_bytes(killed_mark)
    (out / "s" / "a" / ".bough-tmp-0123abcd").write_bytes(b"half a page")
    (out / ".bough-tmp-feedface").write_bytes(b"")
    (out / "s" / ".bough-tmp-link").symlink_to(outside)
    (out / "s" / "a" / "notes.txt").write_bytes(b"someone's")
    build(out, {"s/a/page.html": b"A"})
    assert temp_files(out) == [out / "s" / ".bough-tmp-link"]  # a symlink: neither followed nor removed
    assert outside.read_bytes() == b"not ours" and (out / "s" / "a" / "notes.txt").read_bytes() == b"someone's"
    assert (out / "s" / "a" / "page.html").read_bytes() == b"A"


def test_no_folder_is_searched_for_temporary_files_after_a_build_that_ended(tmp_path: Path) -> None:
    # The search walks all of OUT: only a build that follows a killed one pays for it.
    out = tmp_path / "site"
    build(out, {"a.html": b"a"})
    (out / ".bough-tmp-0123abcd").write_bytes(b"")
    build(out, {"a.html": b"b"})
    assert temp_files(out) == [out / ".bough-tmp-0123abcd"]


def test_refuses_out_that_is_a_file(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.write_text("not a dir")
    with pytest.raises(OutputError, match="not a directory"):
        with SiteWriter(out):
            pass


def test_refuses_unreadable_marker_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / SiteWriter.MARKER).write_text("{not json")
    (out / "x.html").write_text("x")
    with pytest.raises(OutputError, match="marker is unreadable"):
        with SiteWriter(out):
            pass
    build(out, {"a.html": b"a"}, force=True)
    assert marker_files(out) == ["a.html"]
    assert OutputError.__mro__[1] is BoughError


def test_used_outside_with_block(tmp_path: Path) -> None:
    writer = SiteWriter(tmp_path / "site")
    with pytest.raises(RuntimeError):
        writer.write("a.html", b"a")


# --------------------------------------------------------------------------- writing


def test_identical_bytes_are_not_rewritten(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"same", "b.html": b"old"})
    past = 1_000_000_000_000_000_000  # ns: 2001-09-09
    for name in ("a.html", "b.html"):
        os.utime(out / name, ns=(past, past))
    inode = (out / "a.html").stat().st_ino
    with SiteWriter(out) as writer:
        assert writer.write("a.html", b"same") is False
        assert writer.write("b.html", b"new") is True
    assert (out / "a.html").stat().st_mtime_ns == past
    assert (out / "a.html").stat().st_ino == inode
    assert (out / "b.html").stat().st_mtime_ns != past
    assert (out / "b.html").read_bytes() == b"new"
    assert writer.unchanged == ["a.html"]
    assert writer.written == ["b.html"]
    assert marker_files(out) == ["a.html", "b.html"]


def test_a_file_given_in_chunks_is_written_and_left_alone_when_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "site"
    with SiteWriter(out) as writer:
        assert writer.write("big.js", iter([b"one ", b"two"])) is True
    os.utime(out / "big.js", ns=(10**18, 10**18))
    with SiteWriter(out) as writer:
        assert writer.write("big.js", iter([b"one", b" two"])) is False  # the same bytes, cut elsewhere
        assert writer.unchanged == ["big.js"] and (out / "big.js").stat().st_mtime_ns == 10**18
    with SiteWriter(out) as writer:
        assert writer.write("big.js", iter([b"one ", b"two", b"!"])) is True
    assert (out / "big.js").read_bytes() == b"one two!"
    (out / "dir.js").mkdir()
    with SiteWriter(out) as writer, pytest.raises(OutputError, match="is a directory"):
        writer.write("dir.js", iter([b"x"]))


def test_write_needs_bytes(tmp_path: Path) -> None:
    with SiteWriter(tmp_path / "site") as writer, pytest.raises(TypeError):
        writer.write("a.html", "text")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "relpath",
    ["../x", "/abs", "/etc/passwd", "a/../../x", "a/../b", "a\\b", "..\\x", "", "a//b", "a/", "./a", "a/./b",
     "a\x00b", ".bough-site", ".bough-lock", "d/.bough-tmp-1"],
)
def test_traversal_and_bad_paths_refused(tmp_path: Path, relpath: str) -> None:
    out = tmp_path / "site"
    with SiteWriter(out) as writer:
        with pytest.raises(OutputError, match="refusing to write"):
            writer.write(relpath, b"evil")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert marker_files(out) == []


def site_with_link_outside(tmp_path: Path) -> tuple[Path, Path]:
    """A site whose folder ``link`` is a symlink to a folder outside it, and that folder."""
    out = tmp_path / "site"
    outside = tmp_path / "outside"
    outside.mkdir()
    build(out, {})
    (out / "link").symlink_to(outside, target_is_directory=True)
    return out, outside


def test_symlinked_dir_pointing_outside_is_refused(tmp_path: Path) -> None:
    out, outside = site_with_link_outside(tmp_path)
    with SiteWriter(out) as writer:
        with pytest.raises(OutputError, match="symlink"):
            writer.write("link/x.html", b"evil")
        with pytest.raises(OutputError, match="symlink"):
            writer.write("link/new/deeper/x.html", b"evil")
    assert list(outside.iterdir()) == []


def test_symlink_to_outside_file_is_replaced_not_followed(tmp_path: Path) -> None:
    out = tmp_path / "site"
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me")
    build(out, {})
    (out / "a.html").symlink_to(secret)
    with SiteWriter(out) as writer:
        assert writer.write("a.html", b"keep me") is True  # never compared through the link
    assert secret.read_text() == "keep me"
    assert not (out / "a.html").is_symlink()
    assert (out / "a.html").read_bytes() == b"keep me"


def test_a_file_swapped_for_a_fifo_after_its_look_is_rewritten_not_waited_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"same"})
    swapped_for_a_fifo_once_looked_at(monkeypatch, out / "a.html")
    assert finished_within(10, lambda: build(out, {"a.html": b"same"}), out / "a.html") is None
    assert (out / "a.html").read_bytes() == b"same" and marker_files(out) == ["a.html"]


def test_a_marker_swapped_for_a_fifo_is_never_waited_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whenever the FIFO comes, a build ends: one that reads the marker after it
    refuses it as unreadable; one that read it before leaves the FIFO to the next."""
    out = tmp_path / "site"
    build(out, {"a.html": b"a"})
    marker = out / SiteWriter.MARKER
    swapped_for_a_fifo_once_looked_at(monkeypatch, marker)
    for _ in range(2):
        raised = finished_within(10, lambda: build(out, {"a.html": b"a"}), marker)
        assert raised is None or "marker is unreadable" in str(raised)
    assert marker.is_fifo() and isinstance(raised, OutputError)


def test_symlinked_dir_inside_out_is_allowed_but_not_a_second_spelling(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"real/keep.txt": b"k"})
    (out / "alias").symlink_to(out / "real", target_is_directory=True)
    with SiteWriter(out) as writer:
        writer.write("alias/a.html", b"a")
        with pytest.raises(OutputError, match="twice"):
            writer.write("real/a.html", b"b")
    assert (out / "real" / "a.html").read_bytes() == b"a"


def test_duplicate_path_refused(tmp_path: Path) -> None:
    out = tmp_path / "site"
    with SiteWriter(out) as writer:
        writer.write("s/a.html", b"1")
        with pytest.raises(OutputError, match="twice"):
            writer.write("s/a.html", b"2")
        with pytest.raises(OutputError, match="twice"):
            writer.write("S/A.html", b"3")  # the same file where the file system folds case
    assert (out / "s" / "a.html").read_bytes() == b"1"


# --------------------------------------------------------------------------- files staged by workers


def test_a_staged_file_waits_beside_its_place_until_committed(tmp_path: Path) -> None:
    out = tmp_path / "site"
    with SiteWriter(out) as writer:
        staged = Stager(out).stage("p/s/a.html", b"page")
        assert staged.relpath == "p/s/a.html" and Path(staged.temp).parent == out / "p" / "s"
        assert not (out / "p" / "s" / "a.html").exists()  # a reader never sees half a page
        assert Path(staged.temp).read_bytes() == b"page"
        assert writer.commit(staged) is True
    assert (out / "p" / "s" / "a.html").read_bytes() == b"page"
    assert temp_files(out) == []
    assert writer.written == ["p/s/a.html"] and marker_files(out) == ["p/s/a.html"]


def test_a_staged_file_with_the_same_bytes_leaves_the_old_one(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"same"})
    past = 1_000_000_000_000_000_000
    os.utime(out / "a.html", ns=(past, past))
    with SiteWriter(out) as writer:
        staged = Stager(out).stage("a.html", b"same")
        assert staged.temp is None and temp_files(out) == []
        assert writer.commit(staged) is False
    assert (out / "a.html").stat().st_mtime_ns == past
    assert writer.unchanged == ["a.html"] and marker_files(out) == ["a.html"]


def test_staging_has_the_writers_checks(tmp_path: Path) -> None:
    out, outside = site_with_link_outside(tmp_path)
    with SiteWriter(out):
        stager = Stager(out)
        for relpath in ("../x.html", "link/x.html", "d/.bough-tmp-1"):
            with pytest.raises(OutputError):
                stager.stage(relpath, b"evil")
    assert list(outside.iterdir()) == [] and temp_files(out) == []


def test_a_path_staged_twice_is_committed_once_and_the_other_removed(tmp_path: Path) -> None:
    out = tmp_path / "site"
    with SiteWriter(out) as writer:
        outputs = Outputs(writer)
        first, second = Stager(out), Stager(out)  # two workers, one image both sessions show
        assert outputs.commit([first.stage("img/x.png", b"png")]) == ["img/x.png"]
        assert outputs.commit([second.stage("img/x.png", b"png")]) == ["img/x.png"]
    assert writer.written == ["img/x.png"] and temp_files(out) == []


@pytest.mark.parametrize("before", [{}, {"projects/p/sessions/s-2.html": b"last build's part 2"}])
def test_a_page_rendered_again_in_fewer_parts_takes_back_the_part_it_no_longer_has(
        tmp_path: Path, before: dict[str, bytes]) -> None:
    """The final pass renders a page the first pass wrote; split in fewer parts, the
    part left over is deleted and unlisted, as a build that rendered it once would
    leave OUT (a fresh build over nothing, and over a site that had that part). A
    shared image the second render no longer gives stays: another session may show it."""
    out = tmp_path / "site"
    build(out, before)
    first_render = {"projects/p/sessions/s.html": b"part 1", "projects/p/sessions/s-2.html": b"part 2",
                    "projects/p/sessions/s.json": b"{}", "images/x.png": b"png"}
    with SiteWriter(out) as writer:
        outputs = Outputs(writer)
        outputs.commit([Stager(out).stage(path, data) for path, data in first_render.items()])
        final_render = {"projects/p/sessions/s.html": b"whole", "projects/p/sessions/s.json": b"{}"}
        paths = outputs.commit([Stager(out).stage(path, data) for path, data in final_render.items()],
                               again=set(first_render))
        assert paths == list(final_render)
        assert writer.prune() == []
    assert not (out / "projects/p/sessions/s-2.html").exists() and (out / "images/x.png").is_file()
    assert marker_files(out) == sorted(["images/x.png", *final_render])
    assert sorted(writer.written) == sorted(["images/x.png", *final_render])
    assert (out / "projects/p/sessions/s.html").read_bytes() == b"whole" and temp_files(out) == []


def test_a_failed_build_removes_what_it_staged(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"p/a.html": b"old"})
    with pytest.raises(RuntimeError), SiteWriter(out) as writer:
        writer.commit(Stager(out).stage("p/a.html", b"new"))
        Stager(out).stage("p/b.html", b"never committed")
        raise RuntimeError("the build fails")
    assert temp_files(out) == []
    assert (out / "p" / "a.html").read_bytes() == b"new" and not (out / "p" / "b.html").exists()
    assert marker_files(out) == ["p/a.html"]


def test_file_and_directory_clash_refused(tmp_path: Path) -> None:
    with SiteWriter(tmp_path / "site") as writer:
        writer.write("a", b"file")
        with pytest.raises(OutputError, match="not a directory"):
            writer.write("a/b.html", b"x")
        writer.write("d/e.html", b"x")
        with pytest.raises(OutputError, match="is a directory"):
            writer.write("d", b"x")


def test_keep_owns_without_rewriting(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"a", "b.html": b"b"})
    before = (out / "a.html").stat().st_mtime_ns
    with SiteWriter(out) as writer:
        writer.keep("a.html")
        with pytest.raises(OutputError, match="twice"):
            writer.write("a.html", b"a2")
        with pytest.raises(OutputError, match="did not write it"):
            writer.keep("never.html")
        assert writer.prune() == ["b.html"]
    assert writer.kept == ["a.html"]
    assert (out / "a.html").stat().st_mtime_ns == before
    assert marker_files(out) == ["a.html"]


# --------------------------------------------------------------------------- prune


def test_prune_deletes_only_listed_files(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"a", "b.html": b"b", "sub/deep/c.html": b"c", "sub/d.html": b"d"})
    (out / "user.txt").write_text("mine")
    (out / "sub" / "notes.txt").write_text("mine too")
    with SiteWriter(out) as writer:
        writer.write("a.html", b"a")
        deleted = writer.prune()
    assert deleted == ["b.html", "sub/d.html", "sub/deep/c.html"]
    assert not (out / "sub" / "deep").exists()  # left empty, removed
    assert (out / "sub" / "notes.txt").read_text() == "mine too"  # so "sub" stays
    assert (out / "user.txt").read_text() == "mine"
    assert marker_files(out) == ["a.html"]


def test_without_prune_old_files_stay_owned(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"a", "old.html": b"o"})
    build(out, {"a.html": b"a2"})
    assert (out / "old.html").exists()
    assert marker_files(out) == ["a.html", "old.html"]
    with SiteWriter(out) as writer:
        writer.write("a.html", b"a2")
        assert writer.prune() == ["old.html"]


def test_prune_never_follows_symlinks_out(tmp_path: Path) -> None:
    out = tmp_path / "site"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.html").write_text("outside")
    (outside / "f.html").write_text("outside")
    build(out, {"sub/c.html": b"c", "f.html": b"f", "g.html": b"g"})
    (out / "sub" / "c.html").unlink()
    (out / "sub").rmdir()
    (out / "sub").symlink_to(outside, target_is_directory=True)  # a listed dir became a link out
    (out / "f.html").unlink()
    (out / "f.html").symlink_to(outside / "f.html")  # a listed file became a link out
    with SiteWriter(out) as writer:
        assert writer.prune() == ["g.html"]
    assert (outside / "c.html").read_text() == "outside"
    assert (outside / "f.html").read_text() == "outside"
    assert (out / "f.html").is_symlink()
    assert marker_files(out) == []


def test_prune_ignores_hostile_marker_entries(tmp_path: Path) -> None:
    out = tmp_path / "site"
    victim = tmp_path / "victim.txt"
    victim.write_text("safe")
    build(out, {"a.html": b"a"})
    (out / SiteWriter.MARKER).write_bytes(
        json_bytes(
            {"generator": "bough", "files": ["../victim.txt", str(victim), "a.html", 7, ".bough-lock"]}
        )
    )
    with SiteWriter(out) as writer:
        assert writer.prune() == ["a.html"]
    assert victim.read_text() == "safe"
    assert (out / SiteWriter.LOCK).exists()


# --------------------------------------------------------------------------- failure and atomicity


def test_failed_build_keeps_files_and_next_build_works(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"a1", "b.html": b"b1"})
    with pytest.raises(RuntimeError, match="render failed"):
        with SiteWriter(out) as writer:
            writer.write("a.html", b"a2")
            writer.write("c.html", b"c2")
            raise RuntimeError("render failed")
    assert (out / "a.html").read_bytes() == b"a2"
    assert (out / "b.html").read_bytes() == b"b1"  # nothing deleted
    assert marker_files(out) == ["a.html", "b.html", "c.html"]  # old list plus what was written
    assert temp_files(out) == []
    with SiteWriter(out, lock_timeout=0) as writer:  # lock was released
        writer.write("a.html", b"a3")
        assert writer.prune() == ["b.html", "c.html"]
    assert marker_files(out) == ["a.html"]


def test_failed_write_leaves_no_temp_file_and_old_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    build(out, {"a.html": b"old"})

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match=r"^no space left on the file system at /\S* \(which holds .*\) "
                                          r"while writing 'a\.html': nothing is half-written"):
        with SiteWriter(out) as writer:
            monkeypatch.setattr(os, "replace", broken_replace)
            try:
                writer.write("a.html", b"new")
            finally:
                monkeypatch.undo()
    assert (out / "a.html").read_bytes() == b"old"
    assert temp_files(out) == []
    assert marker_files(out) == ["a.html"]


def test_no_temp_files_after_success(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out, {f"d{i}/f{j}.html": b"x" * j for i in range(3) for j in range(5)})
    build(out, {f"d{i}/f{j}.html": b"y" * j for i in range(3) for j in range(5)})
    assert temp_files(out) == []
    assert sorted(os.listdir(out)) == [".bough-lock", ".bough-site", "d0", "d1", "d2"]


# --------------------------------------------------------------------------- the lock

HOLD_LOCK = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from bough_site.write import SiteWriter
    with SiteWriter(Path(sys.argv[1])) as writer:
        writer.write("from-child.html", b"child")
        print("locked", flush=True)
        time.sleep(float(sys.argv[2]))
    """
)

TRY_LOCK = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from bough_site.errors import OutputError
    from bough_site.write import SiteWriter
    try:
        with SiteWriter(Path(sys.argv[1]), lock_timeout=0.5) as writer:
            writer.write("from-child.html", b"child")
    except OutputError as err:
        print("refused:", err)
    else:
        print("acquired")
    """
)


def run_python(code: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, text=True, stdout=subprocess.PIPE)


def test_second_build_in_another_process_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "site"
    with SiteWriter(out) as writer:
        writer.write("a.html", b"a")
        child = run_python(TRY_LOCK, str(out))
        stdout, _ = child.communicate(timeout=30)
    assert stdout.startswith("refused: another bough build is writing to")
    assert not (out / "from-child.html").exists()
    assert marker_files(out) == ["a.html"]
    child = run_python(TRY_LOCK, str(out))  # free again once the first is done
    assert child.communicate(timeout=30)[0].strip() == "acquired"


def test_waiting_build_gets_the_lock_after_the_first_finishes(tmp_path: Path) -> None:
    out = tmp_path / "site"
    child = run_python(HOLD_LOCK, str(out), "1.0")
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "locked"
        start = time.monotonic()
        with SiteWriter(out, lock_timeout=20) as writer:
            waited = time.monotonic() - start
            # The child's build completed (marker written) before ours could begin.
            assert marker_files(out) == ["from-child.html"]
            writer.keep("from-child.html")
            writer.write("b.html", b"b")
    finally:
        child.wait(timeout=30)
    assert waited > 0.3
    assert marker_files(out) == ["b.html", "from-child.html"]


# --------------------------------------------------------------------------- check_separate


def test_check_separate(tmp_path: Path) -> None:
    claude = tmp_path / "home" / ".claude"
    codex = tmp_path / "home" / ".codex"
    (claude / "projects").mkdir(parents=True)
    codex.mkdir(parents=True)
    inputs = [claude / "projects", codex]
    check_separate(tmp_path / "site", inputs)
    check_separate(tmp_path / "home" / ".codex-site", inputs)  # a string prefix, not inside
    with pytest.raises(OutputError, match="inside the input"):
        check_separate(claude / "projects" / "site", inputs)
    with pytest.raises(OutputError, match="inside the input"):
        check_separate(codex, inputs)
    with pytest.raises(OutputError, match="inside the output"):
        check_separate(claude, inputs)
    with pytest.raises(OutputError, match="inside the output"):
        check_separate(tmp_path, inputs)


def test_check_separate_resolves_symlinks(tmp_path: Path) -> None:
    codex = tmp_path / "home" / ".codex"
    codex.mkdir(parents=True)
    sneaky = tmp_path / "sneaky"
    sneaky.symlink_to(codex, target_is_directory=True)
    with pytest.raises(OutputError, match="inside the input"):
        check_separate(sneaky / "site", [codex])  # OUT does not exist yet; its parent is a link
    with pytest.raises(OutputError, match="inside the input"):
        check_separate(sneaky, [codex])
    out = tmp_path / "site"
    out.mkdir()
    link_in = tmp_path / "input-link"
    link_in.symlink_to(out / "sessions", target_is_directory=True)
    with pytest.raises(OutputError, match="inside the output"):
        check_separate(out, [link_in])
    check_separate(tmp_path / "elsewhere", [sneaky])


def test_check_separate_relative_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "in").mkdir()
    monkeypatch.chdir(tmp_path / "in")
    with pytest.raises(OutputError):
        check_separate(Path("site"), [Path(".")])
    check_separate(Path("../site"), [Path(".")])


# --------------------------------------------------------------------------- json_bytes


def test_json_bytes() -> None:
    expected = '{\n  "a": [\n    1,\n    "é"\n  ],\n  "b": 1\n}\n'.encode()
    assert json_bytes({"b": 1, "a": [1, "é"]}) == expected


@given(st.from_regex(r"[a-z0-9._-]{1,60}", fullmatch=True) | st.text(max_size=60))
def test_the_quick_check_takes_only_names_folding_keeps(text: str) -> None:
    """slug() returns a name the quick check takes as it is: folding must keep it too."""
    from bough_site.slugs import _ALREADY_SAFE, _fold

    if _ALREADY_SAFE.fullmatch(text):
        assert _fold(text) == text


def test_the_quick_check_refuses_what_folding_changes() -> None:
    from bough_site.slugs import _ALREADY_SAFE

    for changed in ("a..b", "a--b", "a-", "a.", "-a", ".a", "A", "a b", "é", "a/b"):
        assert not _ALREADY_SAFE.fullmatch(changed), changed
    assert slug("con") != "con" and slug("0f3c2a9e-1b2c-4d5e-8f90-a1b2c3d4e5f6") == "0f3c2a9e-1b2c-4d5e-8f90-a1b2c3d4e5f6"
