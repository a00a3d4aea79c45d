"""The jobs of a build, run in worker processes: read, redact, render one unit.

A *unit* is what one reader call reads: a Claude session (its file and its
sub-agent files) or every Codex rollout together (forks and sub-agents are
matched across files). A worker runs one :class:`Job` for one unit and hands
back, for each session the unit made, a small summary, its counting
identities and the bytes of its page(s), images and sidecar. Only the summaries
travel further: the index and project pages are made from them, so no process
ever holds the whole history.

A session page depends on the session, its project's id and name, its slug and
(for Codex forks and Claude resumes) the pages of other sessions. The slug is
``slug(session id)`` unless two sessions would share it, and links are known
only once every session is read; so the first pass renders every session whose
slug is certainly its own and which links nowhere, and leaves the rest (rare:
name clashes, Codex forks) to a second pass that knows the final slugs and
links. A Claude resume links to its parent, almost always a session of its own
project under its own name: its page is rendered with that link foreseen, and
rendered again by the second pass only when the link turns out otherwise
(``SessionResult.links`` says which links a page holds).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import posixpath
import signal
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from . import sidecars, urls
from .config import DEFAULT_HIGHLIGHT_LIMIT
from .inherit import FileSummary, Inheritance
from .manifest import (
    FileState,
    file_state,
    hide,
    sha256_prefix,
    summarize,
    tally_to_json,
)
from .model import Project, Session, Warning
from .redact import Redactor
from .scrub import scrub_session
from .work import summarize_work
from .write import slug

if TYPE_CHECKING:
    from .render.blockstore import BlockStore

CLAUDE, CODEX = "claude", "codex"


# --------------------------------------------------------------------------- units


@dataclass(frozen=True)
class Unit:
    key: str  # "claude-<digest of the main file's label>" or "codex"
    kind: str  # CLAUDE | CODEX
    paths: tuple[str, ...]  # every file read; for Claude the main file first, then its sub-agents
    labels: tuple[str, ...]  # how warnings and sidecars name each of paths
    # The archive's dates: main-file label -> since when bough keeps it (Session.kept_since).
    since: tuple[tuple[str, str], ...] = ()

    @property
    def size(self) -> int:
        return sum(_size(path) for path in self.paths)

    def session_key(self, session_id: str) -> str:
        return f"{self.key}#{session_id}"

    def states(self) -> list[FileState | None]:
        return [file_state(Path(p), hide(label)) for p, label in zip(self.paths, self.labels)]


def units_of(claude: Iterable[Any], codex: list[Path], label: Callable[[Path], str],
             since: dict[str, str] | None = None) -> list[Unit]:
    """The units of a build, in discovery order (Codex last), with unique keys."""
    since = since or {}
    units: list[Unit] = []
    seen: dict[str, int] = {}
    for source in claude:
        paths = [source.main, *source.subagents]
        labels = tuple(label(p) for p in paths)
        key = f"{CLAUDE}-{hide(labels[0])}"  # labels hold directory names: never stored as is
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:  # the same label under two roots
            key = f"{key}-{seen[key]}"
        dates = ((labels[0], since[labels[0]]),) if labels[0] in since else ()
        units.append(Unit(key, CLAUDE, tuple(str(p) for p in paths), labels, dates))
    if codex:
        ordered = sorted(set(codex), key=str)
        labels = tuple(label(p) for p in ordered)
        dates = tuple(sorted((name, since[name]) for name in labels if name in since))
        units.append(Unit(CODEX, CODEX, tuple(str(p) for p in ordered), labels, dates))
    return units


def project_identity(cwd: str) -> dict[str, str]:
    """A project's id (a safe, stable slug with a hash of the full path, so two
    projects with the same last component stay apart), name and cwd."""
    name = posixpath.basename(cwd.rstrip("/")) or cwd or "(unknown directory)"
    project_id = f"{slug(name, max_len=40)}-{hashlib.sha256(cwd.encode('utf-8', 'replace')).hexdigest()[:8]}"
    return {"id": project_id, "name": name, "cwd": cwd}


def optimistic_slug(session_id: str) -> str:
    """The slug a session gets when no other session's slug clashes with it."""
    return slug(session_id)


# --------------------------------------------------------------------------- jobs and results


@dataclass(frozen=True)
class Options:
    """What every worker needs to read and render, the same for the whole build."""

    theme: str | None
    search: bool
    redact: bool
    key: bytes
    home: str | None = None  # set with --redact-paths
    user: str | None = None
    out: str = ""  # OUT, whose state holds the store of highlighted blocks (render/blockstore.py)
    highlight_limit: int = DEFAULT_HIGHLIGHT_LIMIT  # --highlight-limit: the tool-output budget in KB (0: no limit)
    # slug (case-folded) -> how many sessions known before reading may take it
    slug_counts: tuple[tuple[str, int], ...] = ()

    def digest_parts(self, key_digest: str) -> dict[str, Any]:
        return {"search": self.search, "redact": self.redact, "key": key_digest,
                "home": self.home, "user": self.user, "highlight_limit": self.highlight_limit}

    def redactor(self) -> Redactor:
        return Redactor(self.key, enabled=self.redact, home=self.home, user=self.user)


@dataclass
class Job:
    unit: Unit
    final: bool = False
    # first pass: slugs this unit itself counted in Options.slug_counts
    own_slugs: tuple[str, ...] = ()
    # final pass: session key -> slug, session id -> page, and which sessions to render
    slugs: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    only: frozenset[str] | None = None
    # Claude: the history an earlier session file holds too (resumes.py, inherit.py)
    inherit: Inheritance | None = None


@dataclass
class SessionResult:
    key: str
    summary: dict[str, Any]
    project: dict[str, str]
    slug: str
    tally: bytes  # JSON (manifest.tally_to_json)
    files: list[tuple[str, bytes]] | None  # None: left to the final pass
    # the links to other sessions' pages its pages hold: session id -> page (None: unknown)
    links: dict[str, str | None] = field(default_factory=dict)


@dataclass
class UnitResult:
    unit: Unit
    files: list[FileState]
    warnings: list[list[Any]]
    sessions: list[SessionResult]


class _Links(dict):
    """Session links that note which a page asked for, and what it got."""

    def __init__(self, links: dict[str, str] | None = None) -> None:
        super().__init__(links or {})
        self.asked: dict[str, str | None] = {}

    def get(self, key: Any, default: Any = None) -> Any:
        value = super().get(key, default)
        self.asked[key] = value
        return value

    def __bool__(self) -> bool:  # `links or {}` must keep this object
        return True


_OPTIONS: Options | None = None
_RENDERERS: dict[tuple[str | None, bool, int, str], Any] = {}


def _init_worker(options: Options, parent: int) -> None:
    global _OPTIONS
    _OPTIONS = options
    _die_with(parent)


def _die_with(parent: int) -> None:
    """A forked worker holds a copy of the build's fds, OUT's lock among them: if
    the build is killed, the worker must not live on holding it. On Linux the
    kernel kills the worker when its parent dies (PR_SET_PDEATHSIG)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before that took effect
        os._exit(1)


def _renderer(options: Options):
    key = (options.theme, options.search, options.highlight_limit, options.out)
    renderer = _RENDERERS.get(key)
    if renderer is None:
        from .render.pages import Renderer

        renderer = _RENDERERS[key] = Renderer(Path(options.theme) if options.theme else None, search=options.search,
                                              highlight_limit=options.highlight_limit, store=_store(options))
    return renderer


def _store(options: Options) -> BlockStore | None:
    """The store of highlighted blocks in OUT's state, shared by every worker
    (each opens its own connection on first use)."""
    if not options.out:
        return None
    from .render.blockstore import BlockStore, store_path

    return BlockStore(store_path(options.out))


def run_job(job: Job, options: Options | None = None) -> UnitResult:
    """Read one unit, redact and render its sessions (in a worker, or in-process)."""
    options = options or _OPTIONS
    assert options is not None, "worker not initialised"
    unit = job.unit
    before = unit.states()
    warnings: list[Warning] = []
    sessions = _read(unit, warnings.append, job.inherit)
    files = []
    for path, state in zip(unit.paths, before):
        if state is None:
            continue
        state.sha256 = sha256_prefix(Path(path), state.size)
        files.append(state)
    since = dict(unit.since)
    for session in sessions:
        if session.files and session.files[0] in since:
            session.kept_since = since[session.files[0]]
        # Ids are redacted too (a file name can hold a secret): the key, the slug
        # and everything stored are made from the redacted session.
        scrub_session(session, options.redactor())
        summarize_work(session)  # commits and changed files, from the redacted timeline
    counts = dict(options.slug_counts)
    own = {s: job.own_slugs.count(s) for s in job.own_slugs}
    in_unit: dict[str, int] = {}
    for session in sessions:
        folded = optimistic_slug(session.id).casefold()
        in_unit[folded] = in_unit.get(folded, 0) + 1
    results = []
    sessions.reverse()
    while sessions:
        session = sessions.pop()  # in reading order; each session is dropped once rendered
        key = unit.session_key(session.id)
        project = project_identity(session.cwd or "")
        tally = orjson.dumps(tally_to_json(session.tally), option=orjson.OPT_SORT_KEYS)
        out: list[tuple[str, bytes]] | None = None
        links = _Links(job.links if job.final else _foreseen(job, project, options))
        if job.final:
            chosen = job.slugs.get(key, optimistic_slug(session.id))
            if key in (job.only or ()):
                out = _render(session, project, chosen, links, options, key)
        else:
            chosen = optimistic_slug(session.id)
            folded = chosen.casefold()
            clash = counts.get(folded, 0) - own.get(folded, 0) + in_unit.get(folded, 0) > 1
            if not clash:
                out = _render(session, project, chosen, links, options, key)
                if None in links.asked.values():
                    out = None  # it links to a page not known yet
        asked = dict(links.asked) if out is not None else {}
        results.append(SessionResult(key, summarize(session), project, chosen, tally, out, asked))
        del session
    return UnitResult(unit, files, [[w.file, w.line, w.reason] for w in warnings], results)


def _foreseen(job: Job, project: dict[str, str], options: Options) -> dict[str, str]:
    """The link a resume's page will most likely need: its parent's page, as a
    session of the same project under its own name (the build checks it)."""
    if job.inherit is None:
        return {}
    parent = options.redactor().text(job.inherit.parent)  # ids are redacted, as the marker's is
    return {parent: urls.session_html(project["id"], optimistic_slug(parent))}


def _read(unit: Unit, warn: Callable[[Warning], None], inherit: Inheritance | None = None) -> list[Session]:
    labels = dict(zip(unit.paths, unit.labels))

    def label(path: Path) -> str:
        return labels.get(str(path), path.name)

    if unit.kind == CLAUDE:
        from .readers.claude import ClaudeSource, read_claude_session

        source = ClaudeSource(Path(unit.paths[0]), [Path(p) for p in unit.paths[1:]])
        return [read_claude_session(source, warn, label, inherit)]
    from .readers.codex import read_codex_sessions

    return read_codex_sessions([Path(p) for p in unit.paths], warn, label=label)


def _render(session: Session, identity: dict[str, str], chosen: str, links: dict[str, str],
            options: Options, key: str) -> list[tuple[str, bytes]]:
    session.slug = chosen
    project = Project(id=identity["id"], name=identity["name"], cwd=identity["cwd"], sessions=[session], stats={})
    files = _renderer(options).session_pages(project, session, links, store_key=key)
    files.append((urls.session_json(project.id, chosen), sidecars.session_bytes(project, session)))
    return files


# --------------------------------------------------------------------------- running jobs


def _pool(workers: int, options: Options | None) -> ProcessPoolExecutor:
    # fork (Linux): workers start at once, with bough already imported; elsewhere spawn.
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                               initargs=(options, os.getpid()))


def scan_files(files: list[tuple[str, str]], workers: int) -> list[FileSummary]:
    """inherit.py's summary of each Claude main file, (path, label) given, in
    that order: a streaming parse of each file, in the worker pool."""
    if workers <= 1 or len(files) <= 1:
        return [_scan(file) for file in files]
    # Largest first, so the pool ends together; read back in the order given.
    order = sorted(range(len(files)), key=lambda i: (-_size(files[i][0]), i))
    with _pool(min(workers, len(files)), None) as pool:
        found = pool.map(_scan, [files[i] for i in order])
        summaries: dict[int, FileSummary] = dict(zip(order, found))
    return [summaries[i] for i in range(len(files))]


def _scan(file: tuple[str, str]) -> FileSummary:
    from .readers.claude import scan_main_file

    return scan_main_file(Path(file[0]), file[1])


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def workers_for(jobs: int) -> int:
    if jobs > 0:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_jobs(jobs: list[Job], options: Options, workers: int,
             on_result: Callable[[int, UnitResult], None]) -> None:
    """Run every job, calling ``on_result(index, result)`` in the calling process
    as each finishes (in any order: callers file results by index). With one
    worker, or one job, everything runs in this process."""
    if not jobs:
        return
    if workers <= 1 or len(jobs) == 1:
        for index, job in enumerate(jobs):
            on_result(index, run_job(job, options))
        return
    # Largest first, so one big session does not start last and finish alone.
    sizes = [job.unit.size for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: (-sizes[i], i))
    pool = _pool(min(workers, len(jobs)), options)
    try:
        # At most two jobs queued per worker: finished results are handed over
        # and written at once, so they never pile up in this process.
        pending: dict[Future, int] = {}
        queue = iter(order)
        limit = 2 * min(workers, len(jobs))
        for index in queue:
            pending[pool.submit(run_job, jobs[index])] = index
            if len(pending) >= limit:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                on_result(index, future.result())
                following = next(queue, None)
                if following is not None:
                    pending[pool.submit(run_job, jobs[following])] = following
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
