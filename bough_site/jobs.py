"""The jobs of a build, run in worker processes: read, redact, render one unit.

A *unit* is what one reader call reads: a Claude session (its file and its
sub-agent files), every Codex rollout together (forks and sub-agents are
matched across files), or a Gemini CLI project folder. A worker runs one :class:`Job` for one unit and hands
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
(``SessionResult.links`` says which links a page holds: ``model.linked_sessions``,
known before the page is rendered). Units, their keys and page names are
plan/units.py's; what to read is the planner's (plan/).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from . import failed, sidecars, urls
from .inherit import FileSummary, Inheritance
from .kept_rates import Key
from .manifest import FileState, sha256_prefix
from .model import Project, Session, InputWarning, linked_sessions
from .options import Options
from .plan.units import Unit, file_size, optimistic_slug, project_identity
from .prepare import prepare
from .pricing import warm_prices
from .rates import Rates
from .summaries import split_summary, summarize, tally_to_json
from .write import Staged, Stager, discard

if TYPE_CHECKING:
    from .render.blockstore import BlockStore



# --------------------------------------------------------------------------- jobs and results


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
    files: list[Staged] | None  # written beside their place in OUT; None: left to the final pass
    # the links to other sessions' pages its pages hold: session id -> page (None: unknown)
    links: dict[str, str | None] = field(default_factory=dict)
    details: bytes = b"{}"  # the summary's details, as JSON (summaries.split_summary): not in ``summary``


@dataclass
class UnitResult:
    unit: Unit
    files: list[FileState]
    warnings: list[list[Any]]
    sessions: list[SessionResult]


_OPTIONS: Options | None = None
_RENDERERS: dict[tuple[str | None, bool], Any] = {}
# One Stager per OUT for the current run_jobs call: the folders it checked are
# checked again by the next build (a watching server builds again in its process).
_STAGERS: dict[str, Stager] = {}


def _init_worker(options: Options, parent: int) -> None:
    global _OPTIONS
    _OPTIONS = options
    gc.enable()  # forked from a build that paused it for its bookkeeping (collector.collecting)
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
    key = (options.theme, options.search, options.highlight_limit, options.out, options.prices_version())
    renderer = _RENDERERS.get(key)
    if renderer is None:
        from .render.pages import Renderer

        renderer = _RENDERERS[key] = Renderer(Path(options.theme) if options.theme else None, search=options.search,
                                              highlight_limit=options.highlight_limit, store=_store(options),
                                              compiled=options.compiled_templates(),
                                              prices=options.prices_version())
    return renderer


def _store(options: Options) -> BlockStore | None:
    """The store of highlighted blocks in OUT's state, shared by every worker
    (each opens its own connection on first use)."""
    if not options.out:
        return None
    from .render.blockstore import BlockStore, store_path

    return BlockStore(store_path(options.out))


def _stores() -> list[BlockStore]:
    """The block stores of this process's renderers."""
    return [renderer.store for renderer in _RENDERERS.values() if renderer.store is not None]


def _flush_stores() -> None:
    """Write what this process's block stores were given since the last flush."""
    for store in _stores():
        store.flush()


def _close_stores() -> None:
    """Close this process's connections to the block store (what they hold in memory
    stays): SQLite removes its -wal and -shm files when the last one closes, which
    must happen before the build records OUT's folder times (quick.py), not at exit."""
    for store in _stores():
        store.close()


def run_job(job: Job, options: Options | None = None) -> UnitResult:
    """Read one unit, redact and render its sessions (in a worker, or in-process).
    An error in bough while reading or rendering costs the session it happened in,
    never the unit or the build: that session's page says it could not be shown
    (:mod:`failed`), and a warning asks for a report (docs/safety.md S11)."""
    options = options or _OPTIONS
    assert options is not None, "worker not initialised"
    unit = job.unit
    before = unit.states()
    warnings: list[InputWarning] = []
    sessions = _read_contained(unit, warnings.append, job.inherit)
    files = []
    for path, state in zip(unit.paths, before):
        if state is None:
            continue
        state.sha256 = unit.known_sha256(path, state) or sha256_prefix(Path(path), state.size)
        files.append(state)
    since = dict(unit.since)
    prices = options.price_table()
    for index, session in enumerate(sessions):
        if session.files and session.files[0] in since:
            session.kept_since = since[session.files[0]]
        sessions[index] = _contained(session, "read", lambda one: prepare(one, options.redactor(), prices),
                                     options, warnings)
    sessions = [session for session in sessions if session is not None]
    counts = options.slug_count_map
    own = {s: job.own_slugs.count(s) for s in job.own_slugs}
    in_unit: dict[str, int] = {}
    for session in sessions:
        folded = optimistic_slug(session.id).casefold()
        in_unit[folded] = in_unit.get(folded, 0) + 1
    results = []
    sessions.reverse()
    while sessions:
        session = sessions.pop()  # in reading order; each session is dropped once rendered
        result = _contained(session, "render", lambda one: _session_result(job, one, options, counts, own, in_unit),
                            options, warnings)
        if result is not None:
            results.append(result)
        del session
    return UnitResult(unit, files, [[w.file, w.line, w.reason] for w in warnings], results)


def _read_contained(unit: Unit, warn: Callable[[InputWarning], None], inherit: Inheritance | None) -> list[Session]:
    """The unit's sessions; should its reader fail, each of its files read alone
    (forks and sub-agents are then not matched across files), and a file whose
    reading fails again stands for a session of its own that says so."""
    try:
        return _read(unit, warn, inherit)
    except Exception as err:  # noqa: BLE001: contained as described
        if not failed.contained(err):
            raise
        first = err
    sessions: list[Session] = []
    for path, label in failed.main_files(unit):
        alone = Unit(unit.key, unit.kind, (path,), (label,))
        try:
            sessions += _read(alone, warn)
        except Exception as err:  # noqa: BLE001
            if not failed.contained(err):
                raise
            sessions.append(failed.unreadable(unit.kind, Path(path), label, failed.Failure("read", err), warn))
    if not sessions:  # a unit with no file of its own left to blame
        raise first
    return sessions


def _contained(session: Session, stage: str, step: Callable[[Session], Any], options: Options,
               warnings: list[InputWarning]) -> Any:
    """``step(session)``; should bough fail in it, the same step for the session's
    stand-ins in turn (failed.py): a page that says the session could not be shown,
    and why. None when even the last stand-in fails: the session is left out."""
    try:
        return step(session)
    except Exception as err:  # noqa: BLE001: a bug in bough costs this session, not the unit
        if not failed.contained(err):
            raise
        failure = failed.Failure(stage, err)
    for shown in failed.stand_ins(session, failure, warnings.append):
        try:
            prepare(shown, options.redactor())
            return step(shown) if stage == "render" else shown
        except Exception as err:  # noqa: BLE001: the next stand-in, then none
            if not failed.contained(err):
                raise
    warnings.append(InputWarning(session.files[0] if session.files else session.id, 0,
                            "bough could not show even a note for this session: it is left out"))
    return None


def _session_result(job: Job, session: Session, options: Options, counts: dict[str, int], own: dict[str, int],
                    in_unit: dict[str, int]) -> SessionResult:
    """One session (redacted) summarized and, when its name and links are known, rendered."""
    key = job.unit.session_key(session.id)
    project = project_identity(session.cwd or "")
    tally = orjson.dumps(tally_to_json(session.tally), option=orjson.OPT_SORT_KEYS)
    out: list[Staged] | None = None
    known = job.links if job.final else _foreseen(job, project, options)
    # Each page this one links to, None where it is not known yet.
    links = {other: known.get(other) for other in linked_sessions(session)}
    if job.final:
        chosen = job.slugs.get(key, optimistic_slug(session.id))
        if key in (job.only or ()):
            out = _render(session, project, chosen, links, options, key)
    else:
        chosen = optimistic_slug(session.id)
        folded = chosen.casefold()
        clash = counts.get(folded, 0) - own.get(folded, 0) + in_unit.get(folded, 0) > 1
        if not clash and None not in links.values():  # else: a name or a link known only later
            out = _render(session, project, chosen, links, options, key)
    links = links if out is not None else {}
    summary, details = split_summary(summarize(session))
    return SessionResult(key, summary, project, chosen, tally, out, links, details)


def _foreseen(job: Job, project: dict[str, str], options: Options) -> dict[str, str]:
    """The link a resume's page will most likely need: its parent's page, as a
    session of the same project under its own name (the build checks it)."""
    if job.inherit is None:
        return {}
    parent = options.redactor().text(job.inherit.parent)  # ids are redacted, as the marker's is
    return {parent: urls.session_html(project["id"], optimistic_slug(parent))}


def _read(unit: Unit, warn: Callable[[InputWarning], None], inherit: Inheritance | None = None) -> list[Session]:
    from .readers.registry import read_unit

    return read_unit(unit, warn, inherit)


def _render(session: Session, identity: dict[str, str], chosen: str, links: dict[str, str | None],
            options: Options, key: str) -> list[Staged]:
    """The session's pages and sidecar, written beside their places in OUT for the
    build to rename: sent back through the pool's pipe (80 MB from each worker on
    wide), they cost the build about 2% of its time."""
    session.slug = chosen
    project = Project(id=identity["id"], name=identity["name"], cwd=identity["cwd"], sessions=[session], stats={})
    stager = _STAGERS.get(options.out) or _STAGERS.setdefault(options.out, Stager(options.out))
    # The pages are written (and let go) before the sidecar is made: a worker's peak
    # memory is its largest session, and both at once were 10-20 MB more of it.
    staged: list[Staged] = []
    try:
        for path, data in _renderer(options).session_pages(project, session, links, store_key=key):
            staged.append(stager.stage(path, data))
        staged.append(stager.stage(urls.session_json(project.id, chosen), sidecars.session_bytes(project, session, options.prices_version())))
    except BaseException:
        for file in staged:  # a session's files are put in place all together or not at all
            discard(file)
        raise
    return staged


# --------------------------------------------------------------------------- running jobs


# parallel_map sends each worker about this many batches: few enough that a round
# trip is paid per batch, enough that the workers end together.
_BATCHES_PER_WORKER = 16
# run_jobs sends a worker up to this many jobs at once, of up to this much input.
JOB_BATCH = 8
JOB_BATCH_BYTES = 1 << 20


def _pool(workers: int, options: Options | None) -> ProcessPoolExecutor:
    # fork (Linux): workers start at once, with bough already imported; elsewhere spawn.
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                               initargs=(options, os.getpid()))


def parallel_map(function: Callable[[Any], Any], items: list[Any], workers: int, *, sizes: list[int]) -> list[Any]:
    """``function`` over ``items`` in the worker pool (largest ``sizes`` first, so the
    pool ends together), the results in the order of ``items``; in this process
    with one worker or one item. ``function`` must be a module-level function.
    Items go to the workers in batches when there are many: a round trip to a
    worker costs more than probing a small file (1,800 files: 0.8 s one by one,
    0.4 s in batches)."""
    if workers <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    order = sorted(range(len(items)), key=lambda i: (-sizes[i], i))
    batch = max(1, len(items) // (workers * _BATCHES_PER_WORKER))
    with _pool(min(workers, len(items)), None) as pool:
        found = dict(zip(order, pool.map(function, [items[i] for i in order], chunksize=batch)))
    return [found[i] for i in range(len(items))]


def scan_files(files: list[tuple[str, str]], workers: int) -> list[FileSummary]:
    """inherit.py's summary of each Claude main file, (path, label) given, in
    that order: a streaming parse of each file, in the worker pool."""
    return parallel_map(_scan, files, workers, sizes=[file_size(path) for path, _label in files])


def _scan(file: tuple[str, str]) -> FileSummary:
    from .readers.claude_records import scan_main_file

    return scan_main_file(Path(file[0]), file[1])


# Below this many bytes the probe runs in the build's own process: it reads about
# 300 MB/s, and starting the pool and sending the results back costs as much (a
# one-turn append probes its project's directory: 20 MB on wide).
_PROBE_IN_PROCESS = 64 << 20


def probe_files(paths: list[str], workers: int) -> list[bytes | None]:
    """The uuids each Claude main file's records may carry (readers.claude_records.record_uuids,
    as plan.lineage.uuid_digests), in the order of ``paths``: a search of the raw
    bytes, in the worker pool when there are many."""
    sizes = [file_size(path) for path in paths]
    return parallel_map(_probe, paths, workers if sum(sizes) >= _PROBE_IN_PROCESS else 1, sizes=sizes)


def _probe(path: str) -> bytes | None:
    from .plan.lineage import uuid_digests
    from .readers.claude_records import record_uuids

    found = record_uuids(Path(path))
    return None if found is None else uuid_digests(found)


def workers_for(jobs: int) -> int:
    if jobs > 0:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def job_order(jobs: list[Job], sizes: list[int] | None = None) -> list[int]:
    """The order jobs start in: folder by folder (a Claude project's folder; the folder
    with the largest unit first), largest first within each. Largest first, so one big
    session does not start last and finish alone; folder by folder, so each project's
    pages are done early and search can index them while the rest renders. ``sizes``:
    each unit's size, when the caller has them already."""
    sizes = sizes if sizes is not None else [job.unit.size for job in jobs]
    folders: dict[str, int] = {}
    for i, job in enumerate(jobs):
        folder = job.unit.folder
        folders[folder] = max(folders.get(folder, 0), sizes[i])
    return sorted(range(len(jobs)), key=lambda i: (-folders[jobs[i].unit.folder], jobs[i].unit.folder, -sizes[i], i))


def job_batches(jobs: list[Job], workers: int) -> list[list[int]]:
    """The jobs in :func:`job_order`, cut into the batches a worker runs at once:
    consecutive jobs, up to JOB_BATCH of them (fewer, so that each worker still gets
    _BATCHES_PER_WORKER batches and the workers end together) or JOB_BATCH_BYTES of
    input (a larger unit alone). A job each, the round trips of 1,800 short sessions
    (the job sent, its result sent back, the next one waited for) were 1.3 s of each
    worker's 10 s on wide; in batches of eight, 0.7 s."""
    most = max(1, min(JOB_BATCH, len(jobs) // (workers * _BATCHES_PER_WORKER)))
    sizes = [job.unit.size for job in jobs]  # a stat per file: once
    batches: list[list[int]] = []
    size = 0
    for index in job_order(jobs, sizes):
        if not batches or len(batches[-1]) >= most or size + sizes[index] > JOB_BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(index)
        size += sizes[index]
    return batches


@dataclass
class Batch:
    """What a worker hands back for a batch of jobs: their results, and the prices
    it asked genai-prices for meanwhile (kept_rates.py: the build's process keeps them)."""

    results: list[UnitResult]
    rates: dict[Key, Rates | None]


def run_batch(jobs: list[Job]) -> Batch:
    """:func:`run_job` for each of ``jobs`` (in a worker), then what they gave the
    block store written at once."""
    results = [run_job(job) for job in jobs]
    _flush_stores()
    table = _OPTIONS.price_table() if _OPTIONS is not None else None
    return Batch(results, table.kept.take_new() if table is not None and table.kept is not None else {})


def run_jobs(jobs: list[Job], options: Options, workers: int,
             on_result: Callable[[int, UnitResult], None]) -> None:
    """Run every job, calling ``on_result(index, result)`` in the calling process
    as each finishes (in any order: callers file results by index). With one
    worker, or one job, everything runs in this process."""
    if not jobs:
        return
    _STAGERS.clear()  # before the pool forks
    if workers <= 1 or len(jobs) == 1:
        try:
            for index, job in enumerate(jobs):
                on_result(index, run_job(job, options))
                _flush_stores()
        finally:
            _close_stores()
            _STAGERS.clear()
        return
    # Imported before the pool forks: every worker inherits the renderer's modules
    # instead of importing them itself (0.15 s of CPU each; publish needs them too).
    from .render import pages  # noqa: F401

    table = options.price_table()
    if table is not None:
        warm_prices()  # genai-prices and its data, likewise: once here, not once per worker (0.1-0.4 s each)
    pool = _pool(min(workers, len(jobs)), options)
    try:
        # At most two batches queued per worker: finished results are handed over
        # and written at once, so they never pile up in this process.
        pending: dict[Future, list[int]] = {}
        queue = iter(job_batches(jobs, workers))
        limit = 2 * min(workers, len(jobs))

        def submit(batch: list[int]) -> None:
            pending[pool.submit(run_batch, [jobs[index] for index in batch])] = batch

        for batch in queue:
            submit(batch)
            if len(pending) >= limit:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                batch = future.result()
                if table is not None and table.kept is not None:
                    table.kept.learn(batch.rates)
                for index, result in zip(pending.pop(future), batch.results):
                    on_result(index, result)
                following = next(queue, None)
                if following is not None:
                    submit(following)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
