"""Running Pagefind: the binary found, a scratch copy of some pages made, Pagefind
run over it, and the bundle it wrote read back (made reproducible:
``pagefind_format.canonical_bundle``). What is done with the bundle (a shard,
kept or written) is ``shards``'.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import orjson

from ..aside import SetAside
from ..config import DEFAULT_SEARCH_LIMIT
from ..errors import BoughError
from .page_copier import PAGE_FAILED, copy_stripped
from .page_copy import output_chars
from .pagefind_format import canonical_bundle

# Where the bundles go under OUT (a shard is pagefind/<project id>/), and the
# scratch folder a run writes its bundle to.
PAGEFIND_DIR = "pagefind"
# Session pages only (the index and project pages have no data-pagefind-body); group 1: the project's id.
SESSION_PAGE = re.compile(r"^projects/([^/]+)/sessions/[^/]+\.html$")
# A page larger than this is left out of Pagefind's index (its prompts and replies
# stay in the fallback index): Pagefind's memory grows with the page it indexes
# (docs/performance.md).
MAX_INDEXED_PAGE = 8 << 20
PAGEFIND_TIMEOUT = 600


class SearchError(BoughError):
    """The Pagefind index could not be built."""


# The language Pagefind indexes every page as: one it has no stemmer for, so a word
# is indexed as it is written and "refused" never finds "refusing" (ISO 639-2's
# "no linguistic content"; docs/performance.md, Search).
INDEX_LANGUAGE = "zxx"
# Pagefind's own search interfaces and playground: bough's box is search.js, so
# they would only be copied into every shard for nothing.
UNUSED_FILES = re.compile(r"^(?:playground/|pagefind-(?:ui|modular-ui|component-ui|highlight)\.)")


def pagefind_binary() -> Path:
    """The Pagefind binary, looked up where the pagefind package looks: the file
    ``PAGEFIND_BINARY_PATH`` names, the one its ``bin`` extra installs
    (``pagefind_bin_extended``, then ``pagefind_bin``), else one on PATH. Not
    through the package itself: its lookup imports asyncio, which every build
    with search would pay for (docs/performance.md)."""
    named = os.environ.get("PAGEFIND_BINARY_PATH")
    if named:
        return Path(named)
    for module in ("pagefind_bin_extended", "pagefind_bin"):
        try:
            return Path(importlib.import_module(module).get_executable())
        except (ImportError, OSError, AttributeError):
            continue
    found = shutil.which("pagefind_extended") or shutil.which("pagefind")
    if found is None:
        raise SearchError("search needs Pagefind (pip install 'pagefind[bin]'), or build with --no-search")
    return Path(found)


def pagefind_version(binary: Path) -> str:
    """What ``pagefind --version`` says: a shard made by another Pagefind is made again
    (a merged index must match the version of the pagefind.js that loads it)."""
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SearchError(f"Pagefind could not run: {err}") from err
    return done.stdout.decode("utf-8", "replace").strip()


def pagefind_files(out: Path, pages: list[str], report: Callable[[str], None] = lambda line: None,
                   *, root: str = PAGEFIND_DIR, search_limit: int = DEFAULT_SEARCH_LIMIT) -> list[tuple[str, bytes]]:
    """Run Pagefind over the session pages among ``pages`` (paths under OUT) and
    return its bundle under ``root`` as (path under OUT, bytes), sorted."""
    pages = [p for p in pages if SESSION_PAGE.match(p)]
    return _pagefind_bundle(out, pages, report, root, pagefind_binary(), search_limit)


def _pagefind_bundle(out: Path, pages: list[str], report: Callable[[str], None], root: str, binary: Path,
                     search_limit: int = DEFAULT_SEARCH_LIMIT) -> list[tuple[str, bytes]]:
    """Pagefind's bundle of ``pages`` (session pages under OUT) under ``root``:
    :func:`prepare_pages`, then :meth:`PreparedPages.run`."""
    return prepare_pages(out, pages, root, search_limit).run(binary, report)


def prepare_pages(out: Path, pages: list[str], root: str, search_limit: int = DEFAULT_SEARCH_LIMIT) -> PreparedPages:
    """The temporary site Pagefind will read: copies of ``pages`` (session pages
    under OUT) as ``page_copy.pagefind_copy`` makes them (tool output within
    ``search_limit`` KB), so a page that is about to be pruned, or a file bough does
    not own, is never indexed. In memory when there is room (:func:`scratch_folder`);
    should that fail, on disk. Pages of more than COPIED_APART_ABOVE bytes together
    are copied by the run, in a process of their own (``page_copier``): neither in
    the build's main thread, which goes on with its work, nor in another of its
    threads, where each small read and write waited for the interpreter's lock
    (docs/performance.md). Fewer are copied now, in the calling thread: starting a
    process would cost more."""
    size = _pages_size(out, pages)
    prepared = PreparedPages(scratch_folder(size), out, pages, root, output_chars(search_limit))
    if size <= COPIED_APART_ABOVE:
        prepared.copy_now()
    return prepared


# The pages' bytes above which their copies are made by a process of their own: a
# process started costs some 0.04 s of CPU, the copies about 8 ms a MB (the main
# thread's 4 MB: 30 ms; an append's 571-page shard at 18,000 sessions: 0.38 s).
COPIED_APART_ABOVE = 4 << 20


class PreparedPages:
    """A temporary site of stripped pages for one Pagefind run (:meth:`run`, which
    may be in another thread), made by :meth:`copy_now` or else by that run, and
    removed after it, or by :meth:`close`."""

    def __init__(self, where: str | None, out: Path, pages: list[str], root: str, chars: int | None) -> None:
        self._where, self._out, self._pages, self._root, self._chars = where, out, pages, root, chars
        self._tmp = tempfile.TemporaryDirectory(prefix="bough-pagefind-", dir=where)
        self._site = Path(self._tmp.name) / "site"
        self._too_large: list[str] | None = None  # the pages too large to index, once copied

    def copy_now(self) -> None:
        """Copy the pages now, in this thread; should that fail, the run copies them
        (and says why it cannot)."""
        try:
            self._too_large = copy_stripped(self._out, self._pages, self._site, self._chars, MAX_INDEXED_PAGE)
        except OSError:
            shutil.rmtree(self._site, ignore_errors=True)

    def run(self, binary: Path, report: Callable[[str], None]) -> list[tuple[str, bytes]]:
        """Pagefind's bundle of the pages, the pages too large to index reported.
        The bundle is written in the temporary folder too (an absolute path: Pagefind
        resolves it against its working directory), so the site writer stays the one
        that writes into OUT. No bundle when no page is small enough to index."""
        try:
            too_large = self._too_large
            if too_large is None:
                too_large = _copy_apart(self._out, self._pages, self._site, self._chars)
            files = self._bundle(binary)
        except (OSError, SearchError) as err:
            self.close()
            if self._where is None or isinstance(err.__cause__, subprocess.TimeoutExpired):
                raise
            return PreparedPages(None, self._out, self._pages, self._root, self._chars).run(binary, report)
        self.close()
        for page in too_large:
            report(f"warning: {page} is over {MAX_INDEXED_PAGE >> 20} MB: left out of the Pagefind index")
        return files

    def start(self, pool: ThreadPoolExecutor, binary: Path,
              report: Callable[[str], None]) -> Future[SetAside]:
        """:meth:`run` in ``pool``, its bundle set aside until it is written (aside.py: the
        bundles made while others run or render were held until publishing, 90 MB at
        18,000 sessions); the temporary folder is removed even if it never runs (cancelled)."""
        run = pool.submit(lambda: SetAside(self.run(binary, report)))
        run.add_done_callback(lambda _run: self.close())
        return run

    def _bundle(self, binary: Path) -> list[tuple[str, bytes]]:
        tmp = Path(self._tmp.name)
        if not self._site.is_dir():
            return []
        files = _run_pagefind(binary, self._site, tmp / PAGEFIND_DIR, self._root, str(tmp))
        try:
            files = canonical_bundle(files, self._root)
        except (ValueError, TypeError, IndexError, KeyError, OSError, EOFError):
            pass  # a Pagefind whose files bough cannot read: its bundle works as written, only not reproducibly
        return sorted(files.items())

    def close(self) -> None:
        self._tmp.cleanup()


# Pagefind's scratch files (a copy of each page it reads, the bundle it writes, read
# back at once) need no disk: creating and deleting thousands of them on disk costs
# the system's time in a cold build (docs/performance.md).
MEMORY_SCRATCH = Path("/dev/shm")
_SCRATCH_MARGIN = 64 << 20


def scratch_folder(pages_size: int) -> str | None:
    """Where Pagefind's temporary site goes: ``/dev/shm`` (memory, on Linux) when it
    is a folder with room for twice the pages' bytes and a margin, and no TMPDIR
    says where temporary files go; else None (tempfile's default)."""
    if os.environ.get("TMPDIR"):
        return None
    try:
        free = os.statvfs(MEMORY_SCRATCH)
    except OSError:
        return None
    room = free.f_bavail * free.f_frsize >= 2 * pages_size + _SCRATCH_MARGIN
    return str(MEMORY_SCRATCH) if room and os.access(MEMORY_SCRATCH, os.W_OK | os.X_OK) else None


def _pages_size(out: Path, pages: list[str]) -> int:
    """The pages' bytes together; a page that cannot be found counts nothing
    (copying it says why)."""
    size = 0
    for page in pages:
        try:
            size += os.stat(out / page).st_size
        except OSError:
            continue
    return size


# The copier's process runs page_copier.main from this very bough_site (the
# package loaded from its folder, argv[1]: not another that PYTHONPATH or the
# working directory names), importing nothing else first. -I: neither the PYTHON*
# variables, the user's site folder nor the working directory count; -S: no
# site-packages either, which it does not need (a process started in 0.039 s of CPU
# instead of 0.059 s: one a shard of more than COPIED_APART_ABOVE bytes).
_COPIER = "; ".join([
    "import sys, importlib.util as u",
    "s = u.spec_from_file_location('bough_site', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])",
    "m = sys.modules['bough_site'] = u.module_from_spec(s)",
    "s.loader.exec_module(m)",
    "from bough_site.search.page_copier import main",
    "sys.exit(main())",
])
_PACKAGE = str(Path(__file__).resolve().parents[1])


def _copy_apart(out: Path, pages: list[str], site: Path, chars: int | None) -> list[str]:
    """``page_copier.copy_stripped`` in a process of its own: the pages too large to
    index; SearchError when a page could not be copied. Should that process not run
    (no interpreter to start, a bough that is not files on disk), the copies are
    made here: slower, never missing."""
    job = orjson.dumps({"out": str(out), "site": str(site), "pages": pages, "chars": chars,
                        "max_page": MAX_INDEXED_PAGE})
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _COPIER, _PACKAGE],
                              input=job, capture_output=True, timeout=PAGEFIND_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as err:
        raise SearchError(f"the pages could not be copied for Pagefind: {err}") from err
    except OSError:
        return _copy_here(out, pages, site, chars)
    if done.returncode == PAGE_FAILED:
        message = done.stderr.decode("utf-8", "replace").strip()[-2000:]
        raise SearchError(f"the pages could not be copied for Pagefind: {message}")
    try:
        too_large = orjson.loads(done.stdout) if done.returncode == 0 else None
    except orjson.JSONDecodeError:
        too_large = None
    if not isinstance(too_large, list):
        shutil.rmtree(site, ignore_errors=True)  # whatever it made before it stopped
        return _copy_here(out, pages, site, chars)
    return too_large


def _copy_here(out: Path, pages: list[str], site: Path, chars: int | None) -> list[str]:
    try:
        return copy_stripped(out, pages, site, chars, MAX_INDEXED_PAGE)
    except OSError as err:
        raise SearchError(f"the pages could not be copied for Pagefind: {err}") from err


# What Pagefind 1.5 says when the pages it was given hold no word to index.
_NOTHING_TO_INDEX = "Pagefind was not able to build an index"


def _run_pagefind(binary: Path, site: Path, bundle: Path, root: str, cwd: str) -> dict[str, bytes]:
    command = [str(binary), "--site", str(site.resolve()), "--output-path", str(bundle.resolve()), "--silent",
               "--force-language", INDEX_LANGUAGE]
    try:
        done = subprocess.run(command, capture_output=True, timeout=PAGEFIND_TIMEOUT, cwd=cwd,
                              env={**os.environ, "NO_COLOR": "1"}, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SearchError(f"Pagefind could not run: {err}") from err
    if done.returncode != 0:
        message = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
        if _NOTHING_TO_INDEX in message:
            return {}  # pages with no word to index (a session of usage lines only): no bundle, and no error
        raise SearchError(f"Pagefind failed (exit {done.returncode}): {message[-2000:]}")
    files = {}
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        rel = path.relative_to(bundle).as_posix()
        if not UNUSED_FILES.match(rel):
            files[f"{root}/{rel}"] = path.read_bytes()
    return files
