"""A full disk under OUT, for real: a small tmpfs mounted for the test and filled to
the last page. Every way a build can meet it (a session page written by a worker
process or, with -j 1, by the build itself; the index and project pages; the
manifest; the state store; the compiled templates) ends in one line on stderr that
names the file system and says the previous site is intact, a non-zero exit and
no traceback, as a read-only OUT does (docs/safety.md S8); and the site is as it
was, nothing half-written, until a build with room finishes the job.

Mounting needs root (CI runs as root); elsewhere these tests skip and say why."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.errors import OutputError
from bough_site.render.env import make_env
from bough_site.state import StateStore

from .helpers import KEY, file_tree, prompt, reply, text, write_jsonl

PAGE = 4096  # tmpfs gives a file its room a page at a time


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system of its own, mounted at a folder of tmp_path."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small file system to fill (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def fill(disk: Path) -> Path:
    """Take every free page of the disk; the file that holds them, to free them again."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * PAGE)
        except OSError as err:
            assert err.errno == errno.ENOSPC, err
    assert os.statvfs(disk).f_bavail == 0
    return filler


def full_line(disk: Path, out: Path, name: str) -> str:
    return (f"bough: no space left on the file system at {disk} (which holds {out}) while writing {name}: "
            "nothing is half-written and the previous site there is intact; free some space and build again")


# --------------------------------------------------------------------------- a whole build


SESSIONS = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")


def history(root: Path, turns: int) -> Path:
    """Two sessions in one project, ``turns`` turns each: two units of reading, so
    with -j 2 their pages are written by the worker processes. The first has a line
    that is not JSON: its warning is on the index page while its transcript is there."""
    projects = root / "projects"
    for sid in SESSIONS:
        records: list = [b"{not json"] if sid == SESSIONS[0] else []
        for turn in range(turns):
            records += [prompt(f"{sid[:8]}-p{turn}", f"question {turn} of {sid[:8]}", sessionId=sid),
                        reply(f"{sid[:8]}-r{turn}", f"m{sid[:8]}{turn}", [text(f"answer {turn}")], sessionId=sid)]
        write_jsonl(projects / "-home-ada-app" / f"{sid}.jsonl", records)
    return projects


def library_build(projects: Path, out: Path) -> None:
    build(BuildConfig(sources=[projects], out=out, archive=None, search=False, jobs=1), redaction_key=KEY)


def cli_build(projects: Path, out: Path, jobs: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bough_site.cli", "build", str(projects), "-o", str(out), "-q",
                           "--no-archive", "--no-search", "-j", jobs],
                          capture_output=True, text=True, timeout=180, check=False)


def append_turns(projects: Path) -> None:
    """A change to every session: their pages are written again, first of all."""
    history(projects.parent, 3)


def delete_one(projects: Path) -> None:
    """A session whose transcript is gone: nothing is read or rendered; its warning
    leaves the index page, which the build's own process writes."""
    (projects / "-home-ada-app" / f"{SESSIONS[0]}.jsonl").unlink()


def touch_all(projects: Path) -> None:
    """New times, the same bytes: no page changes, only the manifest (its parts)."""
    for path in projects.rglob("*.jsonl"):
        os.utime(path, (1_900_000_000, 1_900_000_000))


SESSION_PAGE = r"'projects/[a-z0-9.-]+/sessions/[a-z0-9.-]+\.(html|json)'"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(("change", "first_write"), [
    (append_turns, SESSION_PAGE),  # -j 2: the workers (write.Stager); -j 1: the build's own process
    (delete_one, re.escape("'index.html'")),  # the build's own process (publish)
    # the build's own process (manifest.save): the manifest's parts come first
    (touch_all, re.escape(".bough-manifest.sqlite")),
], ids=["session-pages", "index-pages", "manifest"])
def test_a_full_disk_is_one_line_and_the_previous_site_stays_whole(
    disk: Path, tmp_path: Path, jobs: str, change, first_write: str
) -> None:
    projects = history(tmp_path / "src", 2)
    out = disk / "site"
    library_build(projects, out)
    library_build(projects, tmp_path / "reference")
    before = file_tree(out, site_only=True)
    change(projects)
    # The quick check's record: the build empties it first, which would free its room.
    (out / ".bough-quick").unlink()
    filler = fill(disk)

    done = cli_build(projects, out, jobs)

    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(re.escape(full_line(disk, out, "NAME")).replace("NAME", first_write), lines[0]), lines[0]
    assert file_tree(out, site_only=True) == before  # nothing half-written, nothing replaced
    assert sorted(p.name for p in disk.rglob(".bough-tmp-*")) == []
    # With room again, the next build finishes the job: the site a build with room all along makes.
    filler.unlink()
    again = cli_build(projects, out, jobs)
    assert again.returncode == 0, again.stderr
    library_build(projects, tmp_path / "reference")
    assert file_tree(out, site_only=True) == file_tree(tmp_path / "reference", site_only=True)


def test_a_worker_that_meets_a_full_disk_says_so_in_the_same_line(disk: Path, tmp_path: Path) -> None:
    """-j 2: the session pages are written by the worker processes (write.Stager), and
    the error that comes back from one is the line a full disk gets anywhere."""
    projects = history(tmp_path / "src", 2)
    out = disk / "site"
    library_build(projects, out)
    append_turns(projects)
    fill(disk)
    with pytest.raises(OutputError) as raised:
        build(BuildConfig(sources=[projects], out=out, archive=None, search=False, jobs=2), redaction_key=KEY)
    assert re.fullmatch(re.escape(full_line(disk, out, "NAME")).replace("NAME", SESSION_PAGE), f"bough: {raised.value}")
    # The pool hands back a worker's exception with the worker's traceback as its cause.
    worker = raised.value.__cause__
    assert type(worker).__name__ == "_RemoteTraceback" and ", in stage\n" in str(worker), worker


def test_a_first_build_on_a_full_disk_is_one_line_and_leaves_nothing(disk: Path, tmp_path: Path) -> None:
    projects = history(tmp_path / "src", 2)
    fill(disk)
    done = cli_build(projects, disk / "site", "2")
    assert (done.returncode, done.stderr.splitlines()) == (1, [full_line(disk, disk / "site", ".bough-site")])
    assert sorted(p.name for p in (disk / "site").iterdir()) == [".bough-lock"]


# --------------------------------------------------------------------------- OUT's state


def test_a_full_disk_fails_the_state_store_and_keeps_what_it_held(disk: Path) -> None:
    out = disk / "site"
    out.mkdir()
    with StateStore(out) as state:
        state.add({"kept.json": b"the numbers of a session whose transcript is gone"})
    fill(disk)
    with StateStore(out) as state, pytest.raises(OutputError) as raised:
        state.add({f"{n:032x}.json": os.urandom(3000) for n in range(20)})
    assert f"bough: {raised.value}" == full_line(disk, out, ".bough-state/state.sqlite")
    # Not made anew (that would lose the values of sessions no transcript backs any more).
    with StateStore(out) as state:
        assert state.get("kept.json") == b"the numbers of a session whose transcript is gone"


def test_compiled_templates_on_a_full_disk_are_compiled_and_not_kept(disk: Path) -> None:
    folder = disk / "site" / ".bough-state" / "templates"
    folder.mkdir(parents=True)
    fill(disk)
    page = make_env(compiled=folder).get_template("base.html")  # a cache only: compiling is always right
    assert page.name == "base.html"
    assert os.listdir(folder) == []
