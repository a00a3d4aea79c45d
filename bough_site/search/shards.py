"""The shards: one Pagefind bundle per project (a big or heavy project's cut by
months), and ``pagefind/shards.js``.

Each project's session pages get a bundle of their own under pagefind/<project id>/
(a "shard"); a project of more than NEWEST_APART_ABOVE sessions, or of more items than
NEWEST_WEIGHT (long sessions), gets several, each of consecutive months
(render/months.py), under pagefind/<project id>/<its oldest month's page name>/, and a
month of long sessions in pieces (.../<month>/1/, .../2/), so that an append indexes again
the newest month, or its piece, not the project's hundreds or thousands of sessions
(shard_names). pagefind/shards.js lists them; search.js loads the
first and merges the others into it (Pagefind's mergeIndex), so a search covers them
all, ranked together. A build runs Pagefind only for shards whose session pages it
rendered, and over one shard's pages at a time, so neither its time nor its
memory grows with the rest of the site. Each shard holds a stamp
(bough-shard.json: Pagefind's version, SHARD_FORMAT, its pages, its files'
digests), which is how a later build tells that the shard is still current.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import orjson

from ..aside import SetAside
from ..config import DEFAULT_SEARCH_LIMIT
from ..model import Session
from ..render.months import UNDATED, by_month, paging
from ..urls import session_stem
from ..regular import read_regular
from ..write import SiteWriter, json_bytes
from . import pagefind_run
from .pagefind_run import PAGEFIND_DIR, SESSION_PAGE, SearchError, pagefind_binary, pagefind_version, prepare_pages

# The list of shards: a module (search.js imports it, as it imports pagefind.js) that
# exports their paths under the site's root, sorted.
SHARDS_PATH = f"{PAGEFIND_DIR}/shards.js"
SHARD_STAMP = "bough-shard.json"
# Bump when what a shard is made of changes (page_copy, canonical_bundle,
# the files kept): shards stamped otherwise are then made again.
SHARD_FORMAT = 5  # 2: pages numbered in the order of their URLs; 3: chunks compressed at level 6;
# 4: tool output indexed (within the budget), code as plain text, no stemming; 5: packed by zlib, not
# ISA-L (gz.compress_published: a shard kept from before would not be a fresh build's bytes)
_MAX_FILE = 1 << 30  # a shard's stamp or one of its files (far smaller): more is not bough's


class ShardRuns:
    """The shards of a build: those kept, and the Pagefind runs making the others,
    started by :func:`start_shards` and written by :meth:`finish`. Use it as a
    context manager: leaving it waits for the runs still going."""

    def __init__(self, owned: dict[str, list[str]],
                 start: Callable[[ThreadPoolExecutor, str, list[str]], Future[SetAside]],
                 workers: int, report: Callable[[str], None] = lambda line: None) -> None:
        self._owned = owned
        self._start = start
        self._report = report
        self._to_make: list[tuple[str, dict[str, Any]]] = []
        self._bundles: list[Future[SetAside]] = []
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers))  # its threads start as runs do

    def make(self, root: str, made: dict[str, Any], started: Future[SetAside] | None = None) -> None:
        """Make the shard ``root`` from the pages ``made`` names: by ``started`` (a
        run the rendering started), else by a run started now (its pages prepared
        in this thread)."""
        self._bundles.append(started or self._start(self._pool, root, made["pages"]))
        self._to_make.append((root, made))

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

    def _made(self, root: str, bundle: Future[SetAside]) -> Iterable[tuple[str, bytes]]:
        """A shard's files; none when Pagefind failed on it: that costs its project's
        search, not the site (docs/safety.md S11), and the next build tries again."""
        try:
            return bundle.result()
        except SearchError as err:
            project, _, month = root.removeprefix(PAGEFIND_DIR + "/").partition("/")
            which = f"project {project}" + (f", month page {month}," if month else "")
            self._report(f"warning: search: the sessions of {which} are left out of the search index: {err}")
            return []

    def __enter__(self) -> ShardRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class ShardOutputs(Protocol):
    """What the shards need of the build's outputs (publish.Outputs)."""

    writer: SiteWriter

    def keep(self, path: str) -> None: ...

    def untouched(self, files: list[str]) -> bool: ...


def start_shards(outputs: ShardOutputs, previous: list[str],
                 report: Callable[[str], None] = lambda line: None, *, workers: int = 1,
                 early: EarlyShards | None = None, search_limit: int = DEFAULT_SEARCH_LIMIT,
                 names: dict[str, str] | None = None) -> ShardRuns:
    """Keep each shard that still holds, and start Pagefind for the others,
    up to ``workers`` runs at once in threads (each run is a process of its own), so
    that the build renders the index and project pages meanwhile. ``outputs.writer``
    (the build's SiteWriter, its session pages all written) tells the pages this build
    owns and which of them it rendered; ``previous`` is what the last build's site pages
    were (its shards among them); ``outputs.keep`` is the build's, so what is kept is
    neither written again nor pruned, and a shard whose files ``outputs.untouched``
    says are as the last build left them is not read again. Only this thread uses
    ``outputs``. ``search_limit`` is the budget of each tool result in KB
    (``page_copy.output_chars``); with ``early``, the one it was made with counts.
    ``names``: the shard of each session's pages (:func:`shard_names`); a page it does
    not name goes in its project's."""
    writer = outputs.writer
    out = Path(writer.out)
    rendered = set(writer.written) | set(writer.unchanged)
    by_shard = _by_shard(writer.written + writer.unchanged + writer.kept, names or {})
    binary, stamp = early.identity() if early is not None else pagefind_identity(search_limit)
    owned_before = set(previous)
    owned: dict[str, list[str]] = {}
    runs = ShardRuns(owned, lambda pool, root, pages: prepare_pages(out, pages, root, stamp["output_kb"])
                     .start(pool, binary, report), workers, report)
    try:
        to_check: list[tuple[str, dict[str, Any]]] = []
        for shard in sorted(by_shard):
            root, made = f"{PAGEFIND_DIR}/{shard}", {**stamp, "pages": sorted(by_shard[shard])}
            if rendered.intersection(made["pages"]):
                runs.make(root, made, early.take(root, made) if early is not None else None)
            else:
                to_check.append((root, made))
        # The shards this build rendered a page of are started first: checking the
        # others (0.3-0.6 s at 18,000 sessions) goes on beside their runs.
        for root, made in to_check:
            kept = _keep_shard(out, root, made, owned_before, outputs)
            if kept is None:
                runs.make(root, made, early.take(root, made) if early is not None else None)
            else:
                owned[root] = kept
    except BaseException:
        runs.__exit__()
        raise
    return runs


# The most sessions a shard of a project cut by month holds (render/months.py):
# more shards make an append cheaper (Pagefind indexes one again) and the first
# search of every visit dearer (the browser merges them all: 36 at 18,000 sessions
# took it from 1.43 to 1.93 s, some 15 ms a shard).
SHARD_SESSIONS = 600
# A project of more sessions than this has its newest month in a shard of its own:
# an append, which goes to the newest month, then indexes that month again (at 2,000
# sessions some 40 sessions, 0.1 s), not the project's up to 600 (0.5 s). A smaller
# project is one shard, as many projects are: each more would cost the first search.
NEWEST_APART_ABOVE = 100
# What Pagefind reads of a session's page grows with its items (its prompts, replies
# and tool calls: session_weight), not with the count of sessions: indexing a shard
# and copying its pages cost some 0.1-0.15 ms an item. A project heavier than
# NEWEST_WEIGHT has its newest month apart whatever its count of sessions, and a
# newest month heavier than that is cut, from its oldest session, into pieces of at
# most NEWEST_WEIGHT items: an append to a project of 40 long sessions (15,500 items)
# waited 2.3 s for its one shard. The older shards, made again only when an older
# session changes, are bounded by OLDER_WEIGHT: as many items as SHARD_SESSIONS short
# sessions hold (wide18k's 600 hold some 16,000), so that long sessions do not make
# the older shards heavier than short ones make them.
NEWEST_WEIGHT = 2_000
OLDER_WEIGHT = 20_000


_ITEMS = ("prompts", "replies", "tool_calls")


def session_weight(session: Session) -> int:
    """The items of a session's pages Pagefind reads: its prompts, replies and tool
    calls (a count that is not one counts for none)."""
    stats = session.stats
    try:  # (one call a session of every project, each build: 18,000 at a time)
        return max(0, stats.get("prompts", 0) + stats.get("replies", 0) + stats.get("tool_calls", 0))
    except (TypeError, AttributeError):
        found = [stats.get(name) for name in _ITEMS] if isinstance(stats, dict) else []
        return sum(value for value in found if type(value) is int and value > 0)


def shard_names(project_id: str, sessions: list[Session]) -> dict[str, str]:
    """The shard of each session's pages, by its page's stem (urls.session_stem). A
    project of NEWEST_APART_ABOVE sessions or fewer and of NEWEST_WEIGHT items or fewer,
    or of one month, is one shard, named by its id (one month of more items in pieces).
    A bigger one (its sessions newest first) is cut by month: by its month pages when it
    is paged (render/months.paging), else by calendar month. Its newest month is a shard
    of its own, and its other months are cut, from the oldest, into shards of at most
    SHARD_SESSIONS sessions and OLDER_WEIGHT items; each is named ``<project id>/<its
    oldest month's page name>``. The older shards' bounds do not move as sessions are
    added, so an append to the newest month, where work goes on, indexes again that
    month's sessions, not up to SHARD_SESSIONS of them, nor the project (at 3,000
    sessions Pagefind's memory grew with them all: 788 MB); when a new month starts, the
    one before joins the older shards (the newest of them made again, or one more). A
    shard heavier than its bound (a month of long sessions) is cut in pieces
    (:func:`_pieces`)."""
    # A small project's items decide whether it is cut, and are its one shard's.
    total = None if len(sessions) > min(NEWEST_APART_ABOVE, SHARD_SESSIONS) else _weight(sessions)
    months = _months(sessions) if total is None or total > NEWEST_WEIGHT else []
    groups: list[tuple[str, list[Session]]] = []
    if len(months) < 2:
        groups += _pieces(project_id, sessions, NEWEST_WEIGHT, total)
    else:
        (newest, newest_sessions), *older = months
        cut: list[tuple[str, list[Session]]] = []
        weights: list[int] = []  # each one's items
        for name, members in reversed(older):  # the oldest first
            weight = _weight(members)
            if not cut or len(cut[-1][1]) + len(members) > SHARD_SESSIONS or weights[-1] + weight > OLDER_WEIGHT:
                cut.append((f"{project_id}/{name}", []))
                weights.append(0)
            cut[-1][1].extend(members)
            weights[-1] += weight
        for (name, members), weight in zip(cut, weights):
            groups += _pieces(name, members, OLDER_WEIGHT, weight)
        groups += _pieces(f"{project_id}/{newest}", newest_sessions, NEWEST_WEIGHT)
    return {session_stem(project_id, session.slug): name
            for name, members in groups for session in members}


def _weight(sessions: list[Session]) -> int:
    return sum(map(session_weight, sessions))


def _pieces(name: str, sessions: list[Session], bound: int, weight: int | None = None,
            ) -> list[tuple[str, list[Session]]]:
    """The shard ``name`` of ``sessions`` (newest first; ``weight``: their items, when
    counted already), whole when they weigh ``bound`` items or fewer; else cut, from
    the oldest session, into pieces of at most ``bound`` items (a session heavier than
    that alone), named ``<name>/1``, ``<name>/2`` ...: a session added to them, the
    newest, joins the last piece or starts one, and the pieces before it do not move."""
    if (_weight(sessions) if weight is None else weight) <= bound:
        return [(name, sessions)]
    pieces: list[list[Session]] = []
    load = 0
    for session in reversed(sessions):  # the oldest first
        items = session_weight(session)
        if not pieces or load + items > bound:
            pieces.append([])
            load = 0
        pieces[-1].append(session)
        load += items
    if len(pieces) < 2:  # one session heavier than the bound
        return [(name, sessions)]
    return [(f"{name}/{number}", members[::-1]) for number, members in enumerate(pieces, start=1)]


def _months(sessions: list[Session]) -> list[tuple[str, list[Session]]]:
    """A project's sessions by month, newest first, each named as its page is: a paged
    project's month pages (a big month's pieces apart), else its calendar months."""
    paged = paging(sessions)
    if paged is not None:
        return [(page.name, page.sessions) for page in paged.pages]
    return [(month.key or UNDATED, month.sessions) for month in by_month(sessions)]


def _by_shard(paths: list[str], names: dict[str, str]) -> dict[str, list[str]]:
    """The session pages among ``paths`` by shard: as ``names`` says (a part of a
    session page, ``<stem>-<n>.html``, with its session's first page), else their project's."""
    found: dict[str, list[str]] = {}
    for page in paths:
        match = SESSION_PAGE.match(page)
        if not match:
            continue
        stem = page.removesuffix(".html")
        base, _, number = stem.rpartition("-")
        shard = names.get(stem) or (names.get(base) if number.isdigit() else None) or match.group(1)
        found.setdefault(shard, []).append(page)
    return found


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
        self._runs: dict[str, tuple[dict[str, Any], int, list[str], Future[SetAside]]] = {}
        self._identity: tuple[Path, dict[str, Any]] | None = None

    def identity(self) -> tuple[Path, dict[str, Any]]:
        """:func:`pagefind_identity`, found once for the build (publishing asks too)."""
        if self._identity is None:
            self._identity = pagefind_identity(self._search_limit)
        return self._identity

    def start(self, pages: list[str], names: dict[str, str]) -> None:
        """Index ``pages`` (a project's session pages, all written) as its shards
        (``names``: :func:`shard_names`)."""
        for shard, members in sorted(_by_shard(pages, names).items()):
            self._start(f"{PAGEFIND_DIR}/{shard}", members)

    def again(self, rendered: list[str], owned_before: list[str]) -> None:
        """Index again at once the last build's shards that hold a session page
        among ``rendered`` (what the first pass wrote, or found the same bytes),
        each from the pages it held then (its stamp's): an append makes its
        session's shard again while the build assembles and publishes, not after.
        At most AGAIN_AT_MOST of them: more (options changed, a project read again)
        wait for publishing, which runs them side by side; and a shard whose pages
        end otherwise (a session more, or its page written again) is not taken."""
        matches = [match for match in map(SESSION_PAGE.match, rendered) if match]
        pages = {match.group(0) for match in matches}
        projects = {match.group(1) for match in matches}
        held: list[tuple[str, list[str]]] = []
        for path in owned_before:
            root, _, name = path.rpartition("/")
            if name == SHARD_STAMP and root.startswith(PAGEFIND_DIR + "/") and root.split("/")[1] in projects:
                members = _stamped_pages(Path(self._writer.out) / path)
                if not pages.isdisjoint(members):
                    held.append((root, members))
                    if len(held) > AGAIN_AT_MOST:
                        return
        for root, members in held:
            self._start(root, members)

    def _start(self, root: str, pages: list[str]) -> None:
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

    def take(self, root: str, made: dict[str, Any]) -> Future[SetAside] | None:
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


# The most shards of the last build EarlyShards.again starts: an append's one, or a few.
AGAIN_AT_MOST = 2


def _stamped_pages(stamp_path: Path) -> list[str]:
    """The pages a shard's stamp says it was made from; none when it cannot be read."""
    pages = (_read_stamp(stamp_path) or {}).get("pages")
    if not isinstance(pages, list) or not all(isinstance(page, str) and SESSION_PAGE.match(page) for page in pages):
        return []  # not a stamp bough wrote: publishing finds out why
    return pages


def _read_stamp(stamp_path: Path) -> dict[str, Any] | None:
    """A shard's stamp (a regular file holding a JSON object); None when there is none."""
    data = read_regular(stamp_path, _MAX_FILE)
    try:
        stamp = orjson.loads(data) if data is not None else None
    except orjson.JSONDecodeError:
        return None
    return stamp if isinstance(stamp, dict) else None


def pagefind_identity(search_limit: int = DEFAULT_SEARCH_LIMIT) -> tuple[Path, dict[str, Any]]:
    """The Pagefind binary, and what every shard's stamp says but its pages and files
    (SearchError when there is no Pagefind to run): a shard made with another budget
    for tool output is made again."""
    binary = pagefind_binary()
    return binary, {"format": SHARD_FORMAT, "max_page": pagefind_run.MAX_INDEXED_PAGE,
                    "pagefind": pagefind_version(binary), "language": pagefind_run.INDEX_LANGUAGE,
                    "output_kb": max(0, search_limit)}


def shards_module(shards: list[str]) -> bytes:
    """``pagefind/shards.js``: ``export default`` the shards' paths (project ids are
    slugs: the JSON of the list is safe as it is)."""
    listed = orjson.dumps(shards, option=orjson.OPT_INDENT_2).decode()
    # The comment names search.py, the module this was in: kept, so the output stays the same bytes.
    return f"/* bough: the Pagefind bundles, one per project (bough_site/search.py) */\nexport default {listed};\n".encode()


# A shard is kept only when none of its pages was rendered by this build: a page
# rendered with the very bytes it already had may still differ from what the shard
# was made from (an earlier build that failed before its shard wrote it), and digests
# of the pages cannot be published (a kept-by-bough page differs from its original
# by a note Pagefind does not index: both must give the same search files). Its stamp
# names its pages and the digest of each of its files: it is kept whole, and only
# when every file is still the last successful build's own, with those bytes. Its
# files are read to tell, unless their folders and times say they are as the last
# build left them: at 18,000 sessions, reading the 19,500 files of 36 shards took an
# append 0.3-0.6 s.


def _keep_shard(out: Path, root: str, made: dict[str, Any], owned_before: set[str],
                outputs: ShardOutputs) -> list[str] | None:
    """Keep the shard the last build made from these pages (``made``: the stamp it
    would have, but its files); None when it must be made again."""
    stamp_path = f"{root}/{SHARD_STAMP}"
    stamp = _read_stamp(out / stamp_path) if stamp_path in owned_before else None
    files = stamp.pop("files", None) if stamp is not None else None
    if stamp != made or not isinstance(files, dict):
        return None
    names = sorted(files)
    paths = [f"{root}/{name}" for name in names]
    if any(path not in owned_before for path in paths):
        return None
    if not outputs.untouched(paths):
        if any(_digest_of(out / path) != files[name] for name, path in zip(names, paths)):
            return None
    for path in [*paths, stamp_path]:  # all checked first: a shard is kept whole or made again whole
        outputs.keep(path)
    return [*paths, stamp_path]


def _write_shard(root: str, made: dict[str, Any], files: Iterable[tuple[str, bytes]],
                 write: Callable[[list[tuple[str, bytes]]], list[str]]) -> list[str]:
    """Write a shard Pagefind made from the pages ``made`` names, a file at a time,
    its stamp last (so a stamp never names files that were not written); nothing
    when none of the pages could be indexed."""
    written: list[str] = []
    digests: dict[str, str] = {}
    for path, data in files:
        digests[path.removeprefix(root + "/")] = _digest(data)
        written += write([(path, data)])
    if not digests:
        return []
    return written + write([(f"{root}/{SHARD_STAMP}", json_bytes({**made, "files": digests}))])


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _digest_of(path: Path) -> str | None:
    """The digest of a regular file's bytes (never through a symlink); None when there is none."""
    data = read_regular(path, _MAX_FILE)
    return _digest(data) if data is not None else None
