"""Search: the Pagefind index for hosted sites, and a compact index for ``file://``.

Hosted (http and https): Pagefind (the ``pagefind`` package with its ``bin``
extra) indexes the session pages after they are written, while the build
makes the index and project pages (``start_shards``); a project new to OUT,
as soon as the first pass has written its pages, while the others still
render (``EarlyShards``, with two workers or more). Only the conversation
is indexed (the element with ``data-pagefind-body``: the timeline, sub-agents
and tool calls included), and only what was said in it: each item's heading
(who, model, clock time), a tool call's status and the summaries that repeat a
block's first words are ``data-pagefind-ignore`` in the theme. What a tool
returned (``data-bough-output``) is indexed for its first ``--search-limit`` KB
of text, an error whole (:func:`outputs_as_text`). The session title is
``title``, with filters for project, source and model (``data-pagefind-filter``
in the page header).

Pagefind is told to index every page as a language it has no stemmer for
(``INDEX_LANGUAGE``): a word is found as it is written. search.js asks it for
each word exactly (its whole, and its parts: "load_table" inside
"load_table(path)") and checks each candidate's indexed text for the words,
whole; docs/performance.md, Search, says why (merged shards, stemming, prefixes).

- One bundle per project, ``pagefind/<project id>/``, listed in
  ``pagefind/shards.js``; search.js loads the first and merges the others
  into it. A build runs Pagefind only for the projects whose session pages it
  rendered again (or that gained or lost pages) and keeps the other shards as
  they are (each shard's ``bough-shard.json`` names its pages, the budget and
  its files' digests), so an append re-indexes one project, and Pagefind's
  memory follows the largest project, not the site.
- Pagefind reads copies of the pages (:func:`pagefind_copy`): the content of
  every ``data-pagefind-ignore`` element and every preview removed, each tool's
  output as plain text within the budget, code without its highlighting, and
  before the body only what it reads there (``before_body_trimmed``). The
  copies and the bundle Pagefind writes are scratch: in memory (``/dev/shm``)
  when there is room, not on disk.
- Each shard is made reproducible (``canonical_bundle``: Pagefind numbers pages
  in the order the file system lists its scratch folder; bough numbers them in the
  order of their URLs) and written through the site writer like any file.

From ``file://`` a browser will not run Pagefind (no ``fetch``, no modules), so
the search box falls back to ``search-index.js``: a classic script that sets
``window.BOUGH_SEARCH_INDEX`` to every session's title, project, source, models
and the text of its prompts, replies and tool calls (a call's input, and the
start of its error; each item capped, and each session capped in all), loaded
by a ``<script src>`` the box adds when first used; the box says what it holds.
Its name carries no hash on purpose: every page would name it, so a hash would
change every page whenever any session changed (incremental builds rewrite only
what changed); it is read only where nothing caches it (``file://``) or when
Pagefind could not load.

Both are made from redacted text only: session pages and the session models
(summaries) after redaction.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson

from . import gz, urls
from .config import DEFAULT_SEARCH_LIMIT
from .errors import BoughError
from .model import SOURCE_LABELS, Prompt, Reply, Session, Site, Text, ToolCall
from .plan.units import file_size
from .write import SiteWriter, is_regular_file, json_bytes

FALLBACK_PATH = "search-index.js"
PAGEFIND_DIR = "pagefind"
# What the fallback index keeps of a session: each prompt or reply text cut at
# ITEM_CHARS, each tool call's input (its text values: the command, the path, the
# pattern...) at CALL_CHARS and a failed call's error at ERROR_CHARS more; at most
# SESSION_CHARS in all: prompts first, then replies, then tool calls.
ITEM_CHARS = 600
CALL_CHARS = 200
ERROR_CHARS = 300
SESSION_CHARS = 6000
# Session pages only (the index and project pages have no data-pagefind-body); group 1: the project's id.
SESSION_PAGE = re.compile(r"^projects/([^/]+)/sessions/[^/]+\.html$")
# A page larger than this is left out of Pagefind's index (its prompts and replies
# stay in the fallback index): indexing one 60 MB page takes Pagefind a gigabyte.
MAX_INDEXED_PAGE = 8 << 20
PAGEFIND_TIMEOUT = 600


class SearchError(BoughError):
    """The Pagefind index could not be built."""


# --- per session (in the worker, from the redacted timeline) --------------------------------


# The kinds of entries, in the order the session's budget goes to them.
_PROMPT, _REPLY, _CALL = range(3)


def session_entries(session: Session) -> list[list[str]]:
    """``[anchor, text]`` for the session's prompts, replies and tool calls (a call's
    anchor is its reply's and its block's number, as on the page: tools/default.html),
    in timeline order: each text at most ITEM_CHARS (a call's CALL_CHARS and
    ERROR_CHARS), all together at most SESSION_CHARS, prompts kept before replies
    and replies before calls when the session is over its budget."""
    items: list[tuple[int, int, str, str, int]] = []  # (item, block, anchor, text, kind)
    for index, item in enumerate(session.timeline):
        if isinstance(item, Prompt):
            text = " ".join(part.text for part in item.content if isinstance(part, Text))
            items.append((index, 0, item.anchor, _squeeze(text)[:ITEM_CHARS], _PROMPT))
        elif isinstance(item, Reply):
            text = " ".join(block.text for block in item.blocks if isinstance(block, Text))
            items.append((index, 0, item.anchor, _squeeze(text)[:ITEM_CHARS], _REPLY))
            items += [(index, number, f"{item.anchor}-{number}", _call_text(block), _CALL)
                      for number, block in enumerate(item.blocks, 1) if isinstance(block, ToolCall)]
    budget = SESSION_CHARS
    kept: list[tuple[int, int, str, str]] = []
    for kind in (_PROMPT, _REPLY, _CALL):
        for index, number, anchor, text, of_kind in items:
            if of_kind != kind or not text or budget <= 0:
                continue
            text = text[:budget]
            budget -= len(text)
            kept.append((index, number, anchor, text))
    kept.sort()
    return [[anchor, text] for _, _, anchor, text in kept]


def _call_text(call: ToolCall) -> str:
    """A tool call as the fallback index keeps it: its name and the text values of
    its input, cut at CALL_CHARS; for a call that failed, the start of its error."""
    words = [call.name]
    size = len(call.name)
    for value in _strings(call.input):
        if size > CALL_CHARS:
            break
        value = _squeeze(value[: CALL_CHARS * 2])
        words.append(value)
        size += len(value) + 1
    text = " ".join(words)[:CALL_CHARS]
    result = call.result
    if result is not None and result.is_error:
        said = " ".join(part.text for part in result.content if isinstance(part, Text))
        text += " " + _squeeze(said[: ERROR_CHARS * 2])[:ERROR_CHARS]
    return text.strip()


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """The strings in a JSON value (keys left out), in order; nothing below 8 levels."""
    if isinstance(value, str):
        yield value
    elif depth < 8 and isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth < 8 and isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


# --- the fallback index ----------------------------------------------------------------------


def fallback_index(site: Site) -> dict[str, Any]:
    """The data of ``search-index.js``: sessions newest first, projects, sources and
    models named once and referred to by position."""
    projects: list[str] = []
    sources: list[str] = []
    models: list[str] = []

    def position(values: list[str], value: str) -> int:
        if value not in values:
            values.append(value)
        return values.index(value)

    sessions = []
    for project in site.projects:
        for session in project.sessions:
            sessions.append({
                "u": urls.session_html(project.id, session.slug),
                "t": session.title or "Untitled session",
                "p": position(projects, project.name),
                "s": position(sources, SOURCE_LABELS.get(session.source, session.source)),
                "m": [position(models, model) for model in session.models or ()],
                "d": (session.started or "")[:10],
                "i": _items(project.id, session),
            })
    sessions.sort(key=lambda s: (s["d"], s["u"]), reverse=True)
    return {"v": 1, "projects": projects, "sources": sources, "models": models, "sessions": sessions}


def _items(project_id: str, session: Session) -> list[list[str]]:
    """``[anchor, text]`` per item, ``[anchor, text, page]`` for one on a later
    part of a session page split in parts."""
    items = session.search_items or []
    parts = session.anchor_parts
    if not parts:  # one page, as almost every session: the items as they are (orjson writes them)
        return items
    return [[*item, urls.session_part_html(project_id, session.slug, parts[item[0]])]
            if item and item[0] in parts else item for item in items]


def fallback_script(site: Site) -> bytes:
    """``search-index.js``: one statement assigning the index to a global."""
    data = orjson.dumps(fallback_index(site), option=orjson.OPT_SORT_KEYS)
    # Safe in any context a script's text may be read in; \u2028 and \u2029 end lines in old engines.
    # (Replaced in the UTF-8 bytes: neither character's encoding occurs inside another's.)
    for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
                         ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
        data = data.replace(raw, escaped)
    return b"/* bough search index for file:// (see bough_site/search.py) */\nwindow.BOUGH_SEARCH_INDEX = " \
        + data + b";\n"


# --- Pagefind: one bundle per project ----------------------------------------------------------
#
# Each project's session pages get a bundle of their own under pagefind/<project id>/
# (a "shard"), and pagefind/shards.js lists them; search.js loads the first and
# merges the others into it (Pagefind's mergeIndex), so a search covers them all,
# ranked together. A build runs Pagefind only for projects whose session pages it
# rendered, and over one project's pages at a time, so neither its time nor its
# memory grows with the rest of the site. Each shard holds a stamp
# (bough-shard.json: Pagefind's version, SHARD_FORMAT, its pages, its files'
# digests), which is how a later build tells that the shard is still current.

# The list of shards: a module (search.js imports it, as it imports pagefind.js) that
# exports their paths under the site's root, sorted.
SHARDS_PATH = f"{PAGEFIND_DIR}/shards.js"
SHARD_STAMP = "bough-shard.json"
# Bump when what a shard is made of changes (the stripping below, canonical_bundle,
# the files kept): shards stamped otherwise are then made again.
SHARD_FORMAT = 4  # 2: pages numbered in the order of their URLs; 3: chunks compressed at level 6;
# 4: tool output indexed (within the budget), code as plain text, no stemming
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
    through the package itself: its lookup imports asyncio, a tenth of a second
    of every build with search."""
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


class ShardRuns:
    """The shards of a build: those kept, and the Pagefind runs making the others,
    started by :func:`start_shards` and written by :meth:`finish`. Use it as a
    context manager: leaving it waits for the runs still going."""

    def __init__(self, owned: dict[str, list[str]], to_make: list[tuple[str, dict[str, Any]]],
                 start: Callable[[ThreadPoolExecutor, str, list[str]], Future[list[tuple[str, bytes]]]],
                 workers: int, started: dict[str, Future[list[tuple[str, bytes]]]] | None = None,
                 report: Callable[[str], None] = lambda line: None) -> None:
        self._owned = owned
        self._report = report
        self._to_make = to_make
        started = started or {}
        left = [job for job in to_make if job[0] not in started]
        self._pool = ThreadPoolExecutor(max_workers=max(1, min(workers, len(left) or 1)))
        # Every run started now (its pages prepared in this thread), but those the
        # rendering already started.
        try:
            self._bundles = [started.get(root) or start(self._pool, root, made["pages"]) for root, made in to_make]
        except BaseException:
            self._pool.shutdown(wait=True, cancel_futures=True)
            raise

    def finish(self, write: Callable[[list[tuple[str, bytes]]], list[str]]) -> list[str]:
        """Write each shard, in project order, as soon as it and those before it are
        made (the main process holds a few at a time), then ``shards.js``; every
        path written or kept."""
        for (root, made), bundle in zip(self._to_make, self._bundles):
            self._owned[root] = _write_shard(root, made, self._made(root, bundle), write)
        paths: list[str] = []
        shards = []
        for root in sorted(self._owned):
            paths += self._owned[root]
            if self._owned[root]:
                shards.append(f"{root}/")
        return paths + write([(SHARDS_PATH, shards_module(shards))])

    def _made(self, root: str, bundle: Future[list[tuple[str, bytes]]]) -> list[tuple[str, bytes]]:
        """A shard's files; none when Pagefind failed on it: that costs its project's
        search, not the site (docs/safety.md S11), and the next build tries again."""
        try:
            return bundle.result()
        except SearchError as err:
            project = root.removeprefix(PAGEFIND_DIR + "/")
            self._report(f"warning: search: the sessions of project {project} are left out of the search index: {err}")
            return []

    def __enter__(self) -> ShardRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def start_shards(writer: SiteWriter, previous: list[str], keep: Callable[[str], None],
                 report: Callable[[str], None] = lambda line: None, *, workers: int = 1,
                 early: EarlyShards | None = None, search_limit: int = DEFAULT_SEARCH_LIMIT) -> ShardRuns:
    """Keep each project's shard that still holds, and start Pagefind for the others,
    up to ``workers`` runs at once in threads (each run is a process of its own), so
    that the build renders the index and project pages meanwhile. ``writer`` (the
    build's SiteWriter, its session pages all written) tells the pages this build owns
    and which of them it rendered; ``previous`` is what the last build's site pages
    were (its shards among them); ``keep`` is the build's, so what is kept is neither
    written again nor pruned. Only this thread uses ``writer`` and ``keep``.
    ``search_limit`` is the budget of each tool result in KB (:func:`output_chars`);
    with ``early``, the one it was made with counts."""
    out = Path(writer.out)
    rendered = set(writer.written) | set(writer.unchanged)
    by_project: dict[str, list[str]] = {}
    for page in writer.written + writer.unchanged + writer.kept:
        match = SESSION_PAGE.match(page)
        if match:
            by_project.setdefault(match.group(1), []).append(page)
    binary, stamp = early.identity() if early is not None else pagefind_identity(search_limit)
    owned_before = set(previous)
    owned: dict[str, list[str]] = {}
    to_make: list[tuple[str, dict[str, Any]]] = []
    started: dict[str, Future[list[tuple[str, bytes]]]] = {}
    for project in sorted(by_project):
        pages = sorted(by_project[project])
        root = f"{PAGEFIND_DIR}/{project}"
        made = {**stamp, "pages": pages}
        kept = None if rendered.intersection(pages) else _keep_shard(out, root, made, owned_before, keep)
        if kept is None:
            to_make.append((root, made))
            run = early.take(root, made) if early is not None else None
            if run is not None:
                started[root] = run
        else:
            owned[root] = kept
    return ShardRuns(owned, to_make,
                     lambda pool, root, pages: prepare_pages(out, pages, root, stamp["output_kb"])
                     .start(pool, binary, report),
                     workers, started, report)


class EarlyShards:
    """Pagefind runs started while the build still renders: once the first pass has
    written every page of a project new to OUT, that project is indexed beside the
    rendering of the others (one run at a time), instead of after all of it. A run is
    used (:meth:`take`) only when it was made from what the shard would be made from
    at the end: the same stamp (Pagefind, SHARD_FORMAT, the very pages) and none of
    its pages written again since it started (the second pass); otherwise the shard
    is made again as any other. Use it as a context manager: leaving it waits for the
    run still going."""

    def __init__(self, writer: SiteWriter, report: Callable[[str], None],
                 search_limit: int = DEFAULT_SEARCH_LIMIT) -> None:
        self._writer = writer
        self._report = report
        self._search_limit = search_limit
        self._pool = ThreadPoolExecutor(max_workers=1)
        self._runs: dict[str, tuple[dict[str, Any], int, list[str], Future[list[tuple[str, bytes]]]]] = {}
        self._identity: tuple[Path, dict[str, Any]] | None = None

    def identity(self) -> tuple[Path, dict[str, Any]]:
        """:func:`pagefind_identity`, found once for the build (publishing asks too)."""
        if self._identity is None:
            self._identity = pagefind_identity(self._search_limit)
        return self._identity

    def start(self, project: str, pages: list[str]) -> None:
        """Index ``pages`` (the project's session pages, all written) as its shard."""
        root = f"{PAGEFIND_DIR}/{project}"
        if root in self._runs:
            return
        try:
            binary, stamp = self.identity()
        except SearchError:
            return  # publishing says why
        made = {**stamp, "pages": sorted(pages)}
        try:
            prepared = prepare_pages(Path(self._writer.out), made["pages"], root, made["output_kb"])
        except OSError:
            return  # publishing makes it, and says why it cannot
        lines: list[str] = []  # its warnings, said when it is taken
        run = prepared.start(self._pool, binary, lines.append)
        self._runs[root] = (made, len(self._writer.written), lines, run)

    def take(self, root: str, made: dict[str, Any]) -> Future[list[tuple[str, bytes]]] | None:
        """The run that made ``root``'s shard from ``made``, when there is one."""
        if root not in self._runs:
            return None
        started, mark, lines, run = self._runs.pop(root)
        if started != made or not set(self._writer.written[mark:]).isdisjoint(made["pages"]):
            run.cancel()
            return None
        # Its warnings are said once it is done (now, if it is), as any shard's are.
        run.add_done_callback(lambda _run: [self._report(line) for line in lines])
        return run

    def __enter__(self) -> EarlyShards:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def pagefind_identity(search_limit: int = DEFAULT_SEARCH_LIMIT) -> tuple[Path, dict[str, Any]]:
    """The Pagefind binary, and what every shard's stamp says but its pages and files
    (SearchError when there is no Pagefind to run): a shard made with another budget
    for tool output is made again."""
    binary = pagefind_binary()
    return binary, {"format": SHARD_FORMAT, "max_page": MAX_INDEXED_PAGE, "pagefind": pagefind_version(binary),
                    "language": INDEX_LANGUAGE, "output_kb": max(0, search_limit)}


def shards_module(shards: list[str]) -> bytes:
    """``pagefind/shards.js``: ``export default`` the shards' paths (project ids are
    slugs: the JSON of the list is safe as it is)."""
    listed = orjson.dumps(shards, option=orjson.OPT_INDENT_2).decode()
    return f"/* bough: the Pagefind bundles, one per project (bough_site/search.py) */\nexport default {listed};\n".encode()


# A shard is kept only when none of its pages was rendered by this build: a page
# rendered with the very bytes it already had may still differ from what the shard
# was made from (an earlier build that failed before its shard wrote it), and digests
# of the pages cannot be published (a kept-by-bough page differs from its original
# by a note Pagefind does not index: both must give the same search files). Its stamp
# names its pages and the digest of each of its files: it is kept whole, and only
# when every file is still the last successful build's own, with those bytes.


def _keep_shard(out: Path, root: str, made: dict[str, Any], owned_before: set[str],
                keep: Callable[[str], None]) -> list[str] | None:
    """Keep the shard the last build made from these pages (``made``: the stamp it
    would have, but its files); None when it must be made again."""
    stamp_path = f"{root}/{SHARD_STAMP}"
    if stamp_path not in owned_before or not is_regular_file(out / stamp_path):
        return None
    try:
        stamp = orjson.loads((out / stamp_path).read_bytes())
        files = stamp.pop("files")
    except (OSError, orjson.JSONDecodeError, AttributeError, KeyError, TypeError):
        return None
    if stamp != made or not isinstance(files, dict):
        return None
    names = sorted(files)
    paths = [f"{root}/{name}" for name in names]
    for name, path in zip(names, paths):
        if path not in owned_before or _digest_of(out / path) != files[name]:
            return None
    for path in [*paths, stamp_path]:  # all checked first: a shard is kept whole or made again whole
        keep(path)
    return [*paths, stamp_path]


def _write_shard(root: str, made: dict[str, Any], files: list[tuple[str, bytes]],
                 write: Callable[[list[tuple[str, bytes]]], list[str]]) -> list[str]:
    """Write a shard Pagefind made from the pages ``made`` names, its stamp last (so
    a stamp never names files that were not written); nothing when none of the
    pages could be indexed."""
    if not files:
        return []
    stamp = {**made, "files": {path.removeprefix(root + "/"): _digest(data) for path, data in files}}
    return write(files) + write([(f"{root}/{SHARD_STAMP}", json_bytes(stamp))])


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
    """The temporary site Pagefind reads: copies of ``pages`` (session pages under
    OUT) as :func:`pagefind_copy` makes them (tool output within ``search_limit``
    KB), so a page that is about to be pruned, or a file bough does not own, is never
    indexed. In memory when there is room (:func:`scratch_folder`); should that fail,
    on disk.

    Made in the calling thread: made in a thread of its own beside the build's Python
    work, its hundreds of small reads and writes each waited for the interpreter's
    lock, and a 300-page shard took 0.37 s instead of 0.08 (docs/performance.md)."""
    where = scratch_folder(sum(file_size(str(out / page)) for page in pages))
    chars = output_chars(search_limit)
    try:
        return PreparedPages(where, out, pages, root, chars)
    except OSError:
        if where is None:
            raise
        return PreparedPages(None, out, pages, root, chars)  # memory ran short: on disk


class PreparedPages:
    """A temporary site of stripped pages, ready for one Pagefind run (:meth:`run`,
    which may be in another thread), removed after it or by :meth:`close`."""

    def __init__(self, where: str | None, out: Path, pages: list[str], root: str, chars: int | None) -> None:
        self._where, self._out, self._pages, self._root, self._chars = where, out, pages, root, chars
        self._tmp = tempfile.TemporaryDirectory(prefix="bough-pagefind-", dir=where)
        try:
            self._too_large = _copy_stripped(out, pages, Path(self._tmp.name) / "site", chars)
        except BaseException:
            self.close()
            raise

    def run(self, binary: Path, report: Callable[[str], None]) -> list[tuple[str, bytes]]:
        """Pagefind's bundle of the pages, the pages too large to index reported.
        The bundle is written in the temporary folder too (an absolute path: Pagefind
        resolves it against its working directory), so the site writer stays the one
        that writes into OUT. No bundle when no page is small enough to index."""
        try:
            files = self._bundle(binary)
        except (OSError, SearchError) as err:
            self.close()
            if self._where is None or isinstance(err.__cause__, subprocess.TimeoutExpired):
                raise
            return PreparedPages(None, self._out, self._pages, self._root, self._chars).run(binary, report)
        self.close()
        for page in self._too_large:
            report(f"warning: {page} is over {MAX_INDEXED_PAGE >> 20} MB: left out of the Pagefind index")
        return files

    def start(self, pool: ThreadPoolExecutor, binary: Path,
              report: Callable[[str], None]) -> Future[list[tuple[str, bytes]]]:
        """:meth:`run` in ``pool``; the pages are removed even if it never runs (cancelled)."""
        run = pool.submit(self.run, binary, report)
        run.add_done_callback(lambda _run: self.close())
        return run

    def _bundle(self, binary: Path) -> list[tuple[str, bytes]]:
        tmp = Path(self._tmp.name)
        if not (tmp / "site").is_dir():
            return []
        files = _run_pagefind(binary, tmp / "site", tmp / PAGEFIND_DIR, self._root, str(tmp))
        try:
            files = canonical_bundle(files, self._root)
        except (ValueError, TypeError, IndexError, KeyError, OSError, EOFError):
            pass  # a Pagefind whose files bough cannot read: its bundle works as written, only not reproducibly
        return sorted(files.items())

    def close(self) -> None:
        self._tmp.cleanup()


# Pagefind's scratch files (a copy of each page it reads, the bundle it writes, read
# back at once) need no disk: on wide, creating and deleting those 3,600 files in /tmp
# on disk was 4-5 s of the system's time in a cold build (docs/performance.md).
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


def _copy_stripped(out: Path, pages: list[str], site: Path, chars: int | None) -> list[str]:
    """Each page small enough to index, stripped, into ``site``; the others."""
    too_large = []
    # In reverse: a tmpfs lists the last made first, and Pagefind numbers pages in
    # the order it finds them, so its numbers are then already canonical_bundle's.
    for page in sorted(pages, reverse=True):
        data = (out / page).read_bytes()
        if len(data) > MAX_INDEXED_PAGE:
            too_large.insert(0, page)
            continue
        target = site / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pagefind_copy(data, chars))
    return too_large


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


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _digest_of(path: Path) -> str | None:
    """The digest of a regular file's bytes (never through a symlink); None when there is none."""
    if not is_regular_file(path):
        return None
    try:
        return _digest(path.read_bytes())
    except OSError:
        return None


# --- what Pagefind reads: a copy of each page ------------------------------------------------------
#
# Pagefind leaves out what is inside a data-pagefind-ignore element but must still
# parse it. The copy Pagefind reads has those elements emptied (the element stays,
# so the words on either side stay apart), and a collapsed block's preview too (the
# block's first lines, again above the whole: macros.html). What a tool returned
# (each data-bough-output element) becomes its plain text within the budget, and
# every other code block its plain text (a highlighted block is a <span> per token;
# docs/performance.md, Search). bough's HTML is well-formed and all text in it is escaped (Jinja, Pygments and
# markdown-it turn < and > into entities, in attribute values too; no inline script
# or style: the CSP forbids them), so counting the element's own start and end tags
# from its start tag finds its end. Whatever is not plainly so is left whole:
# leaving an element whole costs time, removing too much would lose words.

IGNORE = b"data-pagefind-ignore"
# A start tag, to the first ">" outside a quoted attribute value: its name, then its attributes.
_START_TAG = re.compile(rb"""<([A-Za-z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""")
_ATTRIBUTE = re.compile(rb"""([^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?""")
# Elements without content or end tag.
_VOID = frozenset(b"area base br col embed hr img input link meta param source track wbr".split())


# The elements whose content the copy leaves out: (what their start tag holds, the
# attribute's name there).
_EMPTIED = ((IGNORE, IGNORE), (b'class="preview"', b"class"))
# A tool call's one line ends in its result's status and size ("exit 1 · 40 lines",
# tools/default.html's <small>): the same few words on every call, no word it said.
_TOOL_BRIEF = re.compile(rb"(<small>)[^<]*(</small>\s*</summary>)")


def output_chars(search_limit: int) -> int | None:
    """``--search-limit KB`` as the characters of each tool result indexed; None (0): all."""
    return search_limit * 1024 if search_limit > 0 else None


def pagefind_copy(page: bytes, chars: int | None = output_chars(DEFAULT_SEARCH_LIMIT)) -> bytes:
    """What Pagefind reads of ``page``: :func:`strip_ignored`, each tool's output as
    the first ``chars`` characters of its text (:func:`outputs_as_text`), code as
    plain text (:func:`code_as_text`), then :func:`before_body_trimmed`."""
    return before_body_trimmed(code_as_text(outputs_as_text(strip_ignored(page), chars)))


def strip_ignored(page: bytes) -> bytes:
    """``page`` with the content of every ``data-pagefind-ignore`` element removed,
    of every collapsed block's preview (``class="preview"``) and of each tool call's
    status (:data:`_TOOL_BRIEF`).

    Left whole: an element whose end is not found, a self-closing one (``<div/>``
    opens a div in HTML but closes one in SVG), and one holding another Pagefind
    attribute (a filter or metadata: Pagefind reads those even in ignored content)."""
    for marker, name in _EMPTIED:
        page = _emptied(page, marker, name)
    return _TOOL_BRIEF.sub(rb"\1\2", page) if b"<small>" in page else page


def _emptied(page: bytes, marker: bytes, name: bytes) -> bytes:
    """``page`` with the content of each element whose start tag has ``marker`` (in
    its attribute ``name``) removed."""
    parts = []
    done = 0  # page[:done] is in parts
    at = page.find(marker)
    while at >= 0:
        tag = _attribute_at(page, at, done)
        end = _end_of(page, tag[0]) if tag is not None and tag[1] == name else None
        if tag is None or end is None:
            at = page.find(marker, at + len(marker))
            continue
        parts.append(page[done : tag[0].end()])
        done = end  # the end tag, kept; an ignored element inside went with the content
        at = page.find(marker, end)
    parts.append(page[done:])
    return b"".join(parts)


# --- what a tool returned: its plain text, within the budget ------------------------------------
#
# Each data-bough-output element (blocks/tool_result.html) is replaced, in the copy,
# by a <pre> of its text: the first ``chars`` characters as the unfolded result
# shows them (its head and a collapsed block's preview left out), cut after the
# last whole word within them; an error's ("error") whole. Inline tags go without
# a trace (a highlighted token is one), any other tag is a line break (the words of
# two paragraphs stay apart). An output the page showed before (a file read again,
# a command run again) adds nothing: its words are in the index already, and
# Pagefind's time goes with the words it reads (docs/performance.md, Search). Text
# is escaped everywhere in bough's HTML, so every "<" starts a tag.

OUTPUT = b"data-bough-output"
_ERROR_OUTPUT = b'data-bough-output="error"'
_INLINE_TAG = re.compile(rb"</?(?:a|abbr|b|bdi|bdo|cite|code|data|del|dfn|em|i|ins|kbd|mark|q|s|samp|small|span"
                         rb"|strong|sub|sup|time|u|var|wbr)(?=[\s/>])[^>]*>", re.IGNORECASE)
_ANY_TAG = re.compile(rb"<[^>]*>")
_SPAN_TAG = re.compile(rb"<span(?:\s[^>]*)?>|</span>")  # the most of them: highlighted tokens
# An escaped line end or tab written out in text ("\n" in JSON or a log line): it
# would glue the words on either side into one ("name\nvalue" is indexed "namenvalue")
# and show as "\n" in an excerpt. Left as it is: a doubled backslash (a backslash),
# and one quoted on its own, which is code ('"\n".join(lines)'); bough's HTML writes
# quotes as &#34; and &#39;.
_ESCAPED_BREAK = re.compile(rb"""(?<!\\)(?<!&#34;)(?<!&#39;)(?<!&quot;)(?<!["'])\\[nrt](?!&#34;|&#39;|&quot;|["'])""")
# How much of an output's HTML is read at first for ``chars`` characters of text
# (highlighted HTML is two to four times its text); doubled until that is enough.
_HTML_PER_CHAR = 4


def outputs_as_text(page: bytes, chars: int | None) -> bytes:
    """``page`` with each tool output's content replaced by ``<pre>`` and its text,
    the first ``chars`` characters (None: all of it; an error's all of it), or
    nothing for an output whose text the page had before."""
    parts = []
    seen: set[bytes] = set()
    done = 0
    at = page.find(OUTPUT)
    while at >= 0:
        tag = _attribute_at(page, at, done)
        end = _div_end(page, tag[0]) if tag is not None and tag[1] == OUTPUT else None
        if tag is None or end is None:
            at = page.find(OUTPUT, at + len(OUTPUT))
            continue
        whole = chars is None or _ERROR_OUTPUT in tag[0].group(0)
        text = output_text(page[tag[0].end() : end], None if whole else chars)
        key = hashlib.sha256(text).digest()
        parts += [page[done : tag[0].end()], b"<pre>", b"" if key in seen else text, b"</pre>"]
        seen.add(key)
        done = end
        at = page.find(OUTPUT, end)
    parts.append(page[done:])
    return b"".join(parts)


def _div_end(page: bytes, tag: re.Match[bytes]) -> int | None:
    """Where the end tag of the ``<div>`` ``tag`` opens starts (None: not a div, or not
    plainly found). Output is most of a page's bytes: two ``find`` calls a nested
    div, not a regular expression over every tag; a comment (none in bough's HTML)
    hands it to :func:`_end_tag_of`."""
    if tag.group(1).lower() != b"div" or _self_closing(tag):
        return None
    depth, at = 1, tag.end()
    while True:
        close = page.find(b"</div>", at)
        if close < 0:
            return None
        opened = page.find(b"<div", at, close)
        while opened >= 0 and page[opened + 4 : opened + 5] not in (b" ", b">", b"\t", b"\n"):
            opened = page.find(b"<div", opened + 4, close)
        if opened >= 0:
            depth += 1
            at = opened + 4
            continue
        depth -= 1
        if depth == 0:
            return _end_tag_of(page, tag) if page.find(b"<!--", tag.end(), close) >= 0 else close
        at = close + 6


def output_text(fragment: bytes, chars: int | None) -> bytes:
    """The text of an output's HTML, still escaped: the first ``chars`` characters
    it shows (None: all), cut after the last whole word within them."""
    size = len(fragment) if chars is None else min(len(fragment), max(chars * _HTML_PER_CHAR, 4096))
    while True:
        text = _text_of(fragment if size >= len(fragment) else fragment[: max(fragment.rfind(b"<", 0, size), 0)])
        if chars is None or len(text) > chars or size >= len(fragment):
            break
        size *= 2
    if chars is None or len(text) <= chars:  # bytes: no fewer than the characters they show
        return text
    shown = text.decode("utf-8", "replace")
    return shown[: _cut(shown, chars)].encode("utf-8")


def _text_of(fragment: bytes) -> bytes:
    """The text some HTML shows (its ignored elements and previews already emptied:
    :func:`strip_ignored`), escaped as it is there, its tags gone (a line break for
    each that is no inline tag), blank lines dropped; never longer than the text it
    shows, up to any point (but for its entities)."""
    text = _ANY_TAG.sub(b"\n", _INLINE_TAG.sub(b"", _SPAN_TAG.sub(b"", fragment)))
    return _BLANK_LINES.sub(b"\n", _unescaped_breaks(text)).strip()


def _unescaped_breaks(text: bytes) -> bytes:
    """:data:`_ESCAPED_BREAK` as spaces (looked for only where there is a backslash:
    a pattern that starts by looking behind is slow to search)."""
    return _ESCAPED_BREAK.sub(b" ", text) if b"\\" in text else text


_BLANK_LINES = re.compile(rb"\n\s*\n")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _cut(text: str, chars: int) -> int:
    """Where escaped ``text`` is cut to show at most ``chars`` characters (an entity
    is one) and no word in part: after the last whitespace within them; in a single
    giant word, at the last character within them (never inside an entity)."""
    shown = done = 0  # text[:done] shows ``shown`` characters
    for entity in _ENTITY.finditer(text):
        gap = entity.start() - done
        if shown + gap >= chars:
            break  # the budget ends in the text before it
        shown += gap + 1
        done = entity.end()
        if shown >= chars:
            break
    end = min(len(text), done + max(0, chars - shown))
    if end >= len(text):
        return len(text)
    space = max(text.rfind(" ", 0, end + 1), text.rfind("\n", 0, end + 1), text.rfind("\t", 0, end + 1))
    return space if space > 0 else end


# --- code as plain text ---------------------------------------------------------------------------
#
# A highlighted block (a command, a file an agent wrote, a diff, code in a reply) is a
# <span> per token inside a <pre>, which Pagefind parses one by one for the same
# words: the copy keeps the <pre> and its text, without the spans (a <pre> holds
# no other element that splits a word), and writes escaped line ends as spaces.

_PRE_TAG = re.compile(rb"<pre[\s>]")


def code_as_text(page: bytes) -> bytes:
    """``page`` with every ``<pre>``'s spans removed and escaped line ends spaced."""
    parts = []
    done = 0
    at = _PRE_TAG.search(page)
    while at is not None:
        close = page.find(b"</pre>", at.start())
        if close < 0:
            break
        parts += [page[done : at.start()], _unescaped_breaks(_SPAN_TAG.sub(b"", page[at.start() : close]))]
        done = close
        at = _PRE_TAG.search(page, close)
    parts.append(page[done:])
    return b"".join(parts)


def _attribute_at(page: bytes, at: int, floor: int) -> tuple[re.Match[bytes], bytes] | None:
    """The start tag in which an attribute begins at ``at`` (not before ``floor``),
    and the attribute's name; None when the bytes there are text or part of a value."""
    lt = page.rfind(b"<", floor, at)
    tag = _START_TAG.match(page, lt) if lt >= 0 else None
    if tag is None or tag.end() <= at:
        return None
    offset = tag.start(2)
    for attribute in _ATTRIBUTE.finditer(tag.group(2)):
        if offset + attribute.start(1) == at:
            return tag, attribute.group(1)
    return None


def _empty_by_its_tag(tag: re.Match[bytes]) -> bool:
    """A void element or a self-closing tag: no content, no end tag to look for."""
    return tag.group(1).lower() in _VOID or _self_closing(tag)


def _self_closing(tag: re.Match[bytes]) -> bool:
    return tag.group(2).rstrip().endswith(b"/")


def _end_of(page: bytes, tag: re.Match[bytes]) -> int | None:
    """Where the end tag of ``tag``'s element starts, when its content may go."""
    if _empty_by_its_tag(tag):
        return None
    end = _end_tag_of(page, tag)
    return None if end is None or _holds_pagefind_attributes(page, tag.end(), end) else end


def _end_tag_of(page: bytes, tag: re.Match[bytes]) -> int | None:
    """Where the end tag of ``tag``'s element (not a void one) starts; None when not plainly found."""
    depth = 1
    for found in _tags_named(tag.group(1).lower()).finditer(page, tag.end()):
        if found.group(1) is None:
            continue  # a comment
        if found.group(1) == b"/":
            depth -= 1
            if depth == 0:
                return found.start()
            continue
        inner = _START_TAG.match(page, found.start())
        if inner is None or _self_closing(inner):
            return None  # not plainly a start tag
        depth += 1
    return None


# --- giving Pagefind less to read: before the body -------------------------------------------------------
#
# A page with a data-pagefind-body element has only that element's content
# indexed; outside it Pagefind reads the page's language (the <html> tag), the
# elements that carry a data-pagefind- attribute (the title's metadata, the
# filters) and, for its default metadata, the <title>, the first <h1> and <img>.
# The rest of what comes before the body (the head's links and scripts, the
# session's facts and figures, the navigation) it parses for nothing: a third of
# a short session's copy, and an eighth of Pagefind's time on wide. The copy
# keeps those, in the page's order, and the page from the body on as it is (the
# end of a body is found only by counting its elements, which costs more than
# the little after it saves). tests/test_search.py checks that every shard is
# the same bytes as one made from the whole pages.

BODY = b"data-pagefind-body"
_PAGEFIND = b"data-pagefind-"
_HTML_TAG = re.compile(rb"<!doctype[^>]*>\s*(<html\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>)", re.IGNORECASE)
_BODY_TAG = re.compile(rb"<body\b", re.IGNORECASE)


def before_body_trimmed(page: bytes) -> bytes:
    """``page`` with only what Pagefind reads before its first ``data-pagefind-body``
    element; ``page`` itself when it has none, or anything is not plainly so (an
    attribute of Pagefind's spelt in capitals, an element whose end is not found)."""
    html, body, first = _HTML_TAG.match(page), _BODY_TAG.search(page), _first_body(page)
    if html is None or body is None or first is None or body.start() > first \
            or page.count(_PAGEFIND, 0, first) != page[:first].lower().count(_PAGEFIND):
        return page
    starts = [*_tags_with(page, _PAGEFIND, first, exact=False)]
    starts += [found.start() for name in (b"title", b"h1", b"img")
               for found in _tags_named(name).finditer(page, 0, first) if found.group(1) == b""]
    head: list[bytes] = []
    rest: list[bytes] = []
    done = 0
    for start in sorted(starts):
        if start < done:
            continue  # inside an element already kept
        span = _element_span(page, start)
        if span is None or span[1] > first:
            return page  # its end not found, or the body inside it
        (head if start < body.start() else rest).append(page[start : span[1]])
        done = span[1]
    return b"".join([b"<!DOCTYPE html>\n", html.group(1), b"\n<head>\n", b"\n".join(head),
                     b"\n</head>\n<body>\n", b"\n".join(rest), b"\n", page[first:]])


def _first_body(page: bytes) -> int | None:
    """Where the start tag of the first element with ``data-pagefind-body`` begins."""
    return next(_tags_with(page, BODY, len(page), exact=True), None)


def _tags_with(page: bytes, attribute: bytes, end: int, *, exact: bool) -> Iterator[int]:
    """Where each start tag before ``end`` with an attribute named ``attribute``
    (or, not ``exact``, a name beginning with it) begins."""
    at = page.find(attribute, 0, end)
    while at >= 0:
        tag = _attribute_at(page, at, 0)
        if tag is not None and (tag[1] == attribute if exact else tag[1].startswith(attribute)):
            yield tag[0].start()
            at = tag[0].end()
        else:
            at += len(attribute)
        at = page.find(attribute, at, end)


def _element_span(page: bytes, start: int) -> tuple[int, int] | None:
    """The span of the element whose start tag begins at ``start``, to the end of its end tag."""
    tag = _START_TAG.match(page, start)
    if tag is None:
        return None
    if _empty_by_its_tag(tag):
        return start, tag.end()
    end = _end_tag_of(page, tag)
    if end is None:
        return None
    close = page.find(b">", end)
    return None if close < 0 else (start, close + 1)


@functools.lru_cache(maxsize=32)
def _tags_named(name: bytes) -> re.Pattern[bytes]:
    """Start and end tags of elements called ``name``, in any case, and comments (group 1 None)."""
    return re.compile(rb"<!--.*?-->|<(/?)" + re.escape(name) + rb"(?=[\s/>])", re.IGNORECASE | re.DOTALL)


def _holds_pagefind_attributes(page: bytes, start: int, end: int) -> bool:
    """Whether an element in page[start:end] has a ``data-pagefind-`` attribute other
    than ``data-pagefind-ignore`` (an ignored element inside goes with the rest)."""
    content = page[start:end].lower()  # attribute names are not case-sensitive
    at = content.find(_PAGEFIND)
    while at >= 0:
        found = _attribute_at(page, start + at, start)
        if found is not None and found[1].lower() != IGNORE:
            return True
        at = content.find(_PAGEFIND, at + 1)
    return False


# --- making Pagefind's bundle reproducible ---------------------------------------------------------
#
# Pagefind 1.5 writes its filter files with the values in hash-map order, which
# changes from run to run, and their names (content hashes) with them, and so
# the names in the meta file and in pagefind-entry.json. Everything else it
# writes is the same for the same pages. ``canonical_bundle`` sorts each filter
# file's values, renames it by its new content, and rewrites the references, so
# two builds of the same site give the same bytes (example_output/ is compared
# byte for byte). The files are gzip'd "pagefind_dcd" + CBOR; the small CBOR
# codec below handles what they hold (integers, strings, arrays, maps).

_DCD = b"pagefind_dcd"


def _cbor_decode(data: bytes, at: int = 0) -> tuple[Any, int]:
    head = data[at]
    major, info = head >> 5, head & 31
    at += 1
    if info < 24:
        value = info
    elif info in (24, 25, 26, 27):
        size = 1 << (info - 24)
        value = int.from_bytes(data[at : at + size], "big")
        at += size
    else:
        raise ValueError(f"CBOR item {head:#x} not supported")
    if major == 0:
        return value, at
    if major == 1:
        return -1 - value, at
    if major == 2:
        return bytes(data[at : at + value]), at + value
    if major == 3:
        return data[at : at + value].decode("utf-8"), at + value
    if major == 4:
        items = []
        for _ in range(value):
            item, at = _cbor_decode(data, at)
            items.append(item)
        return items, at
    if major == 5:
        pairs = []
        for _ in range(value):
            key, at = _cbor_decode(data, at)
            item, at = _cbor_decode(data, at)
            pairs.append((key, item))
        return _Map(pairs), at
    if major == 7 and info in (20, 21, 22):
        return {20: False, 21: True, 22: None}[info], at
    raise ValueError(f"CBOR item {head:#x} not supported")


class _Map(list):
    """A CBOR map, its pairs kept in their order."""


def _cbor_head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * size):
            return bytes([major << 5 | info]) + value.to_bytes(size, "big")
    raise ValueError("integer too large for CBOR")


def _cbor_encode(value: Any) -> bytes:
    if value is False or value is True or value is None:
        return bytes([0xF4 if value is False else 0xF5 if value is True else 0xF6])
    if isinstance(value, int):
        return _cbor_head(0, value) if value >= 0 else _cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return _cbor_head(2, len(value)) + value
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _cbor_head(3, len(raw)) + raw
    if isinstance(value, _Map):
        return _cbor_head(5, len(value)) + b"".join(_cbor_encode(k) + _cbor_encode(v) for k, v in value)
    if isinstance(value, list):
        return _cbor_head(4, len(value)) + b"".join(_cbor_encode(item) for item in value)
    raise TypeError(f"cannot encode {type(value).__name__} as CBOR")


def _dcd_raw(data: bytes) -> bytes:
    """A Pagefind file (gzip: ``pagefind_dcd`` and its content) decompressed, the marker kept."""
    raw = gzip.decompress(data)
    if not raw.startswith(_DCD):
        raise ValueError("not a Pagefind data file")
    return raw


def _dcd_read(data: bytes) -> Any:
    raw = _dcd_raw(data)
    value, end = _cbor_decode(raw, len(_DCD))
    if end != len(raw):
        raise ValueError("trailing bytes in a Pagefind data file")
    return value


def _dcd_write(value: Any) -> bytes:
    return _dcd_pack(_DCD + _cbor_encode(value))


def _dcd_pack(raw: bytes) -> bytes:
    """A Pagefind data file's bytes (``pagefind_dcd`` and CBOR), compressed as bough does:
    at ISA-L's level 3, which on wide's files took a sixth of the time of zlib's 6
    (0.05 s against 0.30 s) for files 2.4% larger (zlib's 6 where isal is missing)."""
    return gz.compress(raw, gz.SMALL)


def _renamed(old: str, data: bytes) -> str:
    """A file's hash name (``en_1a2b3c4``) for new content: the language kept, the
    hash replaced by one as long."""
    language, digest = old.rsplit("_", 1)  # ValueError for a name without one, as for any unknown file
    return f"{language}_{hashlib.sha256(data).hexdigest()[:len(digest)]}"


def _replace_strings(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, _Map):
        return _Map((_replace_strings(k, names), _replace_strings(v, names)) for k, v in value)
    if isinstance(value, list):
        return [_replace_strings(item, names) for item in value]
    return value


def canonical_bundle(files: dict[str, bytes], root: str = PAGEFIND_DIR) -> dict[str, bytes]:
    """Pagefind's bundle (path -> bytes, under ``root``) made reproducible: its pages
    numbered in a fixed order (:func:`_pages_in_order`) and its filter files' values
    in order."""
    files, renumber = _pages_in_order(files, root)
    out = dict(files)
    names: dict[str, str] = {}  # old hash name -> new
    filter_re = re.compile(rf"^{re.escape(root)}/filter/(.+)\.pf_filter$")
    for path in sorted(files):
        match = filter_re.match(path)
        if not match:
            continue
        name, values = _dcd_read(files[path])
        values = sorted(([v, sorted(renumber[p] for p in pages) if renumber else sorted(pages)]
                         for v, pages in values), key=lambda pair: pair[0])
        data = _dcd_write([name, values])
        new = names[match.group(1)] = _renamed(match.group(1), data)
        del out[path]
        out[f"{root}/filter/{new}.pf_filter"] = data
    meta_re = re.compile(rf"^{re.escape(root)}/pagefind\.(.+)\.pf_meta$")
    entry_path = f"{root}/pagefind-entry.json"
    for path in sorted(files):
        match = meta_re.match(path)
        if not match:
            continue
        meta = _replace_strings(_dcd_read(files[path]), names)
        # The list of [filter name, filter file] pairs, in hash-map order too.
        meta = [sorted(part, key=lambda pair: pair[0]) if _is_filter_list(part, names) else part for part in meta]
        data = _dcd_write(meta)
        new = _renamed(match.group(1), data)
        del out[path]
        out[f"{root}/pagefind.{new}.pf_meta"] = data
        if entry_path in out:
            out[entry_path] = out[entry_path].replace(f'"{match.group(1)}"'.encode(), f'"{new}"'.encode())
    return out


def _pages_in_order(files: dict[str, bytes], root: str) -> tuple[dict[str, bytes], dict[int, int]]:
    """The bundle with its pages numbered in the order of their URLs, and each
    page's new number (empty when none changed), which the filters' page lists follow.

    Pagefind numbers pages in the order its site folder lists them, which the file
    system decides (a tmpfs lists the file made last first, which is why
    _copy_stripped makes them in reverse; ext4, in a hash order). A bundle already in
    order only has its index chunks compressed again, as the others are written.
    Otherwise the meta file's page list ([fragment, word count] by number) is put
    in order, and every page number changed to match in the index chunks: each
    word's and each of its variants' postings (``[number, locations, ...]``, the
    number given as the difference from the previous one, in ascending order). A
    chunk holds the same words (its bounds are words), under a name for its new
    content. ValueError (or IndexError, KeyError, TypeError) when the files
    are not as Pagefind 1.x writes them."""
    metas = [path for path in files if re.fullmatch(rf"{re.escape(root)}/pagefind\.[^/]+\.pf_meta", path)]
    if len(metas) != 1:
        raise ValueError("not one meta file")
    meta = _dcd_read(files[metas[0]])
    pages, chunks = meta[1], meta[2]
    urls = [_fragment_url(files[f"{root}/fragment/{fragment}.pf_fragment"]) for fragment, _ in pages]
    order = sorted(range(len(pages)), key=lambda number: (urls[number], pages[number][0]))
    # None: already in order. bough's CBOR writing gives Pagefind's bytes back, so
    # a chunk in order is only compressed again (as bough compresses: the same bytes
    # as a chunk put in order), not decoded.
    renumber = None if order == list(range(len(pages))) else {old: new for new, old in enumerate(order)}
    out = dict(files)
    names: dict[str, str] = {}
    for path in sorted(files):
        match = re.fullmatch(rf"{re.escape(root)}/index/([^/]+)\.pf_index", path)
        if match:
            data = _dcd_pack(_dcd_raw(files[path])) if renumber is None else \
                _dcd_write(_chunk_renumbered(_dcd_read(files[path]), renumber))
            names[match.group(1)] = new = _renamed(match.group(1), data)
            del out[path]
            out[f"{root}/index/{new}.pf_index"] = data
    meta[1] = [pages[number] for number in order]
    meta[2] = [[first, last, names[name]] for first, last, name in chunks]
    out[metas[0]] = _dcd_write(meta)
    return out, renumber or {}


def _chunk_renumbered(chunk: Any, renumber: dict[int, int]) -> Any:
    """An index chunk's words (and their variants) with their postings' pages renumbered."""
    for word in chunk[0]:
        word[1] = _renumbered(word[1], renumber)
        for variant in word[2]:
            variant[1] = _renumbered(variant[1], renumber)
    return chunk


def _fragment_url(data: bytes) -> str:
    """The URL a Pagefind fragment (gzip: ``pagefind_dcd`` and JSON) is of."""
    url = orjson.loads(_dcd_raw(data)[len(_DCD):]).get("url")
    if not isinstance(url, str):
        raise ValueError("a fragment without its URL")
    return url


def _renumbered(postings: list[Any], renumber: dict[int, int]) -> list[Any]:
    """Postings (``[number, ...]``, numbers as differences, ascending) with their pages renumbered."""
    numbered = []
    number = 0
    for posting in postings:
        if not isinstance(posting, list) or type(posting[0]) is not int:
            raise ValueError("not a Pagefind posting")
        number += posting[0]
        numbered.append((renumber[number], posting[1:]))
    numbered.sort(key=lambda pair: pair[0])
    out, previous = [], 0
    for new, rest in numbered:
        out.append([new - previous, *rest])
        previous = new
    return out


def _is_filter_list(part: Any, names: dict[str, str]) -> bool:
    new = set(names.values())
    return isinstance(part, list) and bool(part) and all(
        isinstance(pair, list) and len(pair) == 2 and pair[1] in new for pair in part
    )
