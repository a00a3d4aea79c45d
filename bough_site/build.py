"""``build(config)``: the stages of a build, in order, each taking the values
the ones before it made.

1. discover (discover.py): the transcripts under the sources;
2. sync the archive (archive_sync.py): copy them in, and add what only the
   archive still has (what the agents deleted);
3. plan (plan/): the last build's manifest and the files as they are now say
   what to read, what to reuse, which page names are known in advance, and
   which Claude sessions resume another;
4. render (jobs.py): read, redact and render each unit to read, in parallel;
   each session comes back as a summary, its counting identities and its
   files, written at once: no process holds more than a few sessions;
5. assemble: the sessions the last build had and this one did not make (gone)
   join, projects are made from the summaries, page names and links become
   final, the few pages that needed them are rendered again (the second pass)
   and the pages of reused sessions are kept;
6. publish (publish.py): the index, the project pages, their sidecars and search;
7. save: prune if asked, then the manifest and the state it names.

``load_site`` is the plain sequential path to the whole model, timelines
included, for tests and tools that want the numbers without a site.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from . import quick, search, urls
from .archive_sync import Kept, cleanup_notes, sync_archive
from .config import BuildConfig
from .discover import Discovered, Known, add_examples, discover
from .errors import BoughError, OutputError
from .jobs import Job, SessionResult, UnitResult, probe_files, run_jobs, scan_files, workers_for
from .manifest import MANIFEST, Manifest, SessionState, UnitState, sha256_prefix
from .model import Project, Session, Site, InputWarning
from .options import Options, build_options
from .plan import Plan, gone_sessions, make_plan
from .plan.lineage import decisions, in_state
from .plan.units import CLAUDE, Unit, project_identity, units_of, with_digests
from .render.blockstore import collect as collect_blocks
from .publish import Outputs, SitePages, latest, project_of, publish, signatures, site_of, site_stats
from .readers.gemini_files import root_candidates
from .scrub import scrub_session, scrub_warnings
from .state import StateStore, state_name
from .stats import Tally
from .summaries import session_from_summary, tally_from_bytes, tally_from_json
from .work import summarize_work
from .out_place import check_outside_agent_homes, check_separate
from .slugs import unique_slugs
from .write import SiteWriter, is_regular_file, locked


@dataclass
class BuildResult:
    out: Path
    projects: int = 0
    sessions: int = 0
    stats: dict[str, int] = field(default_factory=dict)  # the site's numbers
    used_examples: bool = False
    written: int = 0
    unchanged: int = 0
    warnings: list[InputWarning] = field(default_factory=list)
    archived_only: int = 0  # sessions whose original is deleted, read from bough's archive
    notes: list[str] = field(default_factory=list)  # said once in the summary (the agents' cleanup)
    rebuilt: int = 0  # sessions read and rendered by this build
    reused: int = 0  # sessions whose source had not changed: their pages were kept as they were
    gone: int = 0  # sessions whose source is gone, kept from an earlier build (until --prune)
    pruned: int = 0  # files --prune deleted
    kept: int = 0  # files kept without being rendered again
    built: Site | None = field(default=None, repr=False)  # None after a quick rebuild: read when asked

    @property
    def site(self) -> Site:
        """The site the build made, its sessions without timelines."""
        if self.built is None:
            self.built = built_site(self.out, self.warnings)
        return self.built


@dataclass
class Progress:
    """Where a build is, for a progress bar: sessions done of total, the last project."""

    done: int
    total: int
    project: str
    rebuilt: int
    reused: int
    elapsed: float


class NothingToRead(BoughError):
    """No transcript could be read at all."""


# --------------------------------------------------------------------------- load_site


def _collector(config: BuildConfig) -> tuple[list[InputWarning], Callable[[InputWarning], None]]:
    """A list of warnings and the callback that fills it, reporting each as it comes."""
    warnings: list[InputWarning] = []

    def warn(warning: InputWarning) -> None:
        warnings.append(warning)
        config.report(f"warning: {warning}")

    return warnings, warn


def _sources(config: BuildConfig, warn: Callable[[InputWarning], None],
             known: Known | None = None) -> tuple[Discovered, Kept]:
    """Stages 1 and 2: what there is to read, live or only in the archive; the
    bundled examples when there is nothing at all. Close the Kept when done."""
    found = discover(config, warn, known)
    kept = sync_archive(found, config, warn, workers=workers_for(config.jobs))
    if not config.sources and found.empty():
        add_examples(found, config, warn)
    return found, kept


def load_site(config: BuildConfig, *, redaction_key: bytes | None = None) -> Site:
    """Read every source into the model (no output is written)."""
    warnings, warn = _collector(config)
    found, kept = _sources(config, warn)
    with kept:
        sessions = _read_sessions(found, warn)
    kept.mark(sessions)
    options = build_options(config, found.used_examples, redaction_key)
    for session in sessions:
        scrub_session(session, options.redactor())
        summarize_work(session)  # commits and changed files, from the redacted timeline
    site = assemble(sessions)
    site.warnings = _sorted_warnings(scrub_warnings(warnings, options.redactor()))
    return site


def _read_sessions(found: Discovered, warn: Callable[[InputWarning], None]) -> list[Session]:
    from .readers.claude import read_claude_session

    inherit = decisions([(source.main, found.label(source.main)) for source in found.claude],
                        lambda files: scan_files(files, 1), lambda paths: probe_files(paths, 1))
    sessions = [read_claude_session(source, warn, found.label, inherit.get(source.main)) for source in found.claude]
    if found.codex:
        from .readers.codex import read_codex_sessions

        sessions += read_codex_sessions(found.codex, warn, label=found.label)
    if found.gemini:
        from .plan.units import gemini_units
        from .readers.gemini import read_gemini_sessions

        for unit in gemini_units(found.gemini, found.label, {}):  # one reader call per folder, as a build makes
            sessions += read_gemini_sessions([Path(p) for p in unit.paths], warn, label=found.label)
    return sessions


def assemble(sessions: list[Session]) -> Site:
    """Group sessions into projects by working directory; count by identities."""
    by_cwd: dict[str, list[Session]] = {}
    for session in sessions:
        by_cwd.setdefault(session.cwd or "", []).append(session)
    projects = []
    for cwd, members in by_cwd.items():
        members.sort(key=_session_order, reverse=True)
        for session, session_slug in zip(members, unique_slugs([s.id for s in members])):
            session.slug = session_slug
        projects.append(project_of(project_identity(cwd), members, [s.tally for s in members]))
    return site_of(projects, [])


def _session_order(session: Session) -> tuple[str, str]:
    return (session.started or "", session.id)


def _sorted_warnings(warnings: list[InputWarning]) -> list[InputWarning]:
    # By file and line: the same whatever order the files were read in (live,
    # archived, or by parallel workers); redacted, since labels name directories.
    return sorted(warnings, key=lambda w: (w.file, w.line, w.reason))


# --------------------------------------------------------------------------- build


@dataclass
class Entry:
    """One session of the site being built: read now, reused, or gone."""

    key: str
    unit: str
    summary: dict[str, Any]
    project: dict[str, str]
    status: str  # "rebuilt" | "reused" | "gone"
    slug: str = ""  # final, once assembled
    written_slug: str | None = None  # the slug its files were written or kept under
    outputs: list[str] = field(default_factory=list)
    tally_json: bytes | None = None  # rebuilt: its identities, to store
    tally_file: str = ""
    session: Session | None = None  # the summary as a Session, once assembled
    links: dict[str, str | None] = field(default_factory=dict)  # other sessions' pages its pages link to
    scan: str = ""  # gone: its stored summary for the resume pre-scan, and its directory
    group: str = ""
    uuids: str = ""  # reused or gone: its file's stored record uuids (plan/lineage.py)

    @classmethod
    def stored(cls, state: SessionState, status: str) -> Entry:
        """A session the last build made, as its manifest entry has it."""
        # Shared, not copied: an entry's lists are replaced, never changed in place.
        return cls(state.key, state.unit, state.summary, state.project, status, written_slug=state.slug,
                   outputs=state.outputs, tally_file=state.tally, links=state.links, scan=state.scan, group=state.group,
                   uuids=state.uuids)


class _Progress:
    """Counts sessions as they are done, for the progress bar."""

    def __init__(self, config: BuildConfig) -> None:
        self.report = config.progress
        self.started = time.monotonic()
        self.done = self.total = self.rebuilt = self.reused = 0
        self.project = ""

    def step(self, project: str) -> None:
        self.done += 1
        self.project = project or self.project
        if self.report is not None:
            self.report(Progress(self.done, max(self.total, self.done), self.project, self.rebuilt, self.reused,
                                 time.monotonic() - self.started))


def build(config: BuildConfig, *, redaction_key: bytes | None = None) -> BuildResult:
    """Build the site in ``config.out``, reusing what the last build there made
    from sources that have not changed since; when nothing has (quick.py), saying
    again what it said."""
    check_outside_agent_homes(config.out)  # before anything is read or written (docs/safety.md S8)
    digest = build_options(config, False, redaction_key).digest()  # the examples' differs: see _build
    inputs = quick.inputs_digest(config, digest)
    again = _said_again(config, inputs) if inputs is not None else None
    if again is not None:
        return again
    with _collecting(False):
        return _build(config, redaction_key, digest, inputs)


def _said_again(config: BuildConfig, inputs: str) -> BuildResult | None:
    """The last build's result, when the quick check finds nothing changed since."""
    if not os.path.isfile(Path(config.out) / quick.RECORD):
        return None  # (and OUT is not locked: it may not be bough's)
    with locked(config.out):
        said = quick.recall(config.out, inputs, config.archive)
    if said is None:
        return None
    for warning in said.reported:
        config.report(f"warning: {warning}")
    notes = cleanup_notes(config, claude=said.claude, gemini=said.gemini)
    if config.progress is not None:
        config.progress(Progress(said.sessions_live, said.sessions_live, "", 0, said.sessions_live, 0.0))
    return BuildResult(config.out, said.projects, said.sessions, said.stats, warnings=said.warnings,
                       archived_only=said.archived_only, notes=notes, reused=said.sessions_live,
                       gone=said.gone, kept=said.files)


def built_site(out: Path, warnings: list[InputWarning]) -> Site:
    """The site the last build in OUT made, from its manifest: what a build that
    reuses every session returns."""
    previous = Manifest.load(out)
    identities: dict[str, dict[str, str]] = {}
    members: dict[str, list[Session]] = {}
    for stored in previous.sessions.values():
        identities[stored.project["id"]] = stored.project
        members.setdefault(stored.project["id"], []).append(session_from_summary(stored.summary, stored.slug))
    projects = [project_of(identities[key], sorted(sessions, key=_session_order, reverse=True), [])
                for key, sessions in members.items()]
    return site_stats(projects, None, warnings, previous)


@contextlib.contextmanager
def _collecting(on: bool) -> Iterator[None]:
    """Python's cyclic garbage collector on or off meanwhile, then as it was. Off
    for the build's own bookkeeping: the manifest, the archive's index, units,
    plans and summaries are hundreds of thousands of objects without a cycle,
    which it would otherwise walk again and again (a third of a no-change build of
    20,000 sessions). On while reading and rendering, which do make cycles (the
    workers too)."""
    was = gc.isenabled()
    (gc.enable if on else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


def _build(config: BuildConfig, redaction_key: bytes | None, digest: str, inputs: str | None) -> BuildResult:
    """The whole way; ``digest``: the options digest of a build of the user's own
    sessions (the bundled examples have a key of their own)."""
    warnings, warn = _collector(config)
    # Read before OUT is locked: only as a hint (which files are unchanged need not
    # be opened to tell their format); read again under the lock if it changed since.
    early = Manifest.load(config.out)
    found, kept = _sources(config, warn, early.known_files())
    with kept:
        notes = cleanup_notes(config, claude=found.shows("claude"), gemini=found.shows("gemini"))
        options = build_options(config, found.used_examples, redaction_key)
        digest = options.digest() if found.used_examples else digest
        units = with_digests(units_of(found.claude, found.codex, found.label, kept.since, found.gemini), kept.digests)
        if found.empty():
            if not early.sessions:
                raise NothingToRead("no transcript could be read from the sources given")
        else:
            check_separate(config.out, found.inputs)
        with SiteWriter(config.out, force=config.force) as writer:
            quick.forget(writer.out)  # emptied in place until this build has ended
            previous = early if early.stamp is not None and early.stamp == Manifest.stamp_of(writer.out) \
                else Manifest.load(writer.out)
            reported = scrub_warnings(warnings, options.redactor())
            with StateStore(writer.out) as state, _early_shards(writer, config, options) as early:
                result = _build_in(writer, state, config, options, digest, units, reported, previous, found.stat,
                                   early)
            result.written, result.unchanged, result.kept = len(writer.written), len(writer.unchanged), len(writer.kept)
            result.used_examples, result.notes = found.used_examples, notes
            if inputs is not None and not found.used_examples \
                    and not quick.outside_sources(config, root_candidates(found.gemini)):
                writer.seal()
                _remember(writer.out, inputs, kept.times, result, reported, found)
    return result


def _early_shards(writer: SiteWriter, config: BuildConfig,
                  options: Options) -> contextlib.AbstractContextManager[search.EarlyShards | None]:
    """With search on and workers to spare, a project new to OUT is indexed as soon
    as its pages are written, beside the rendering of the others."""
    if options.search and workers_for(config.jobs) > 1:
        return search.EarlyShards(writer, config.report, options.search_limit)
    return contextlib.nullcontext()


def _remember(out: Path, inputs: str, archive_times: list[list[Any]], result: BuildResult,
              reported: list[InputWarning], found: Discovered) -> None:
    """What this build said, for the next one's quick check (quick.py)."""
    quick.prepare(out)
    said = quick.Said(result.projects, result.sessions, result.stats, result.warnings, reported,
                      found.shows("claude"), found.shows("gemini"), result.rebuilt + result.reused, result.gone,
                      result.archived_only, result.written + result.unchanged + result.kept)
    times = quick.out_times(out, [MANIFEST, SiteWriter.MARKER])
    quick.remember(out, inputs, times, archive_times, said)


def _build_in(writer: SiteWriter, state: StateStore, config: BuildConfig, options: Options, digest: str,
              units: list[Unit], discovery_warnings: list[InputWarning], previous: Manifest,
              stat_of: Callable[[Any], os.stat_result], early: search.EarlyShards | None) -> BuildResult:
    """Stages 3 to 7, with OUT held; ``digest`` is ``options``' digest, ``previous``
    the last build's manifest, ``stat_of`` what discovery saw of each file, ``early``
    where projects' search shards start while the rest renders (None: at the end)."""
    out = writer.out
    workers = workers_for(config.jobs)
    progress = _Progress(config)
    redactor = options.redactor()
    plan = make_plan(previous, units, {unit.key: unit.states(stat_of) for unit in units}, digest,
                     name=redactor.text, checksum=lambda path, size: sha256_prefix(Path(path), size),
                     present=_presence(writer, state), scan=lambda files: scan_files(files, workers),
                     probe=lambda paths: probe_files(paths, workers),
                     state=state, prune=config.prune)
    progress.total = len(plan.reused) + sum(plan.estimates.values())
    entries = _reused(plan, progress)
    outputs = Outputs(writer)
    options = replace(options, slug_counts=plan.slug_counts)
    unit_states = dict(plan.kept)
    jobs = [Job(unit, own_slugs=plan.own_slugs[unit.key], inherit=plan.lineage.decision(unit.key))
            for unit in plan.read]

    indexing = _EarlyIndexing(jobs, previous, early) if early is not None else None

    def take_first(_index: int, result: UnitResult) -> None:
        unit_states[result.unit.key] = _unit_state(result, plan, redactor, config.report)
        _take_first(result, entries, outputs, progress, plan.estimates)
        if indexing is not None:
            indexing.done(result, entries)

    with _collecting(True):
        run_jobs(jobs, options, workers, take_first)
    gone = gone_sessions(previous, set(entries), _live(entries), prune=config.prune)
    entries.update((stored.key, Entry.stored(stored, "gone")) for stored in gone)
    projects, links = _assemble(entries)
    if not projects:
        raise NothingToRead("no transcript could be read from the sources given")
    # Each session of the projects by its entry (an entry dropped below keeps its place in its project).
    by_session = {id(entry.session): entry for entry in entries.values()}
    redo = _keep_unchanged(entries, links, outputs, config.report)
    _final_pass(redo, entries, links, units, plan, previous, options, outputs, workers)
    warnings = _site_warnings(discovery_warnings, units, unit_states)
    signature, project_signatures = signatures(
        projects, lambda s: _signature_parts(by_session[id(s)]), warnings)
    with _collecting(True):
        tallies = _Tallies(by_session, state, config.report)
        pages = publish(projects, lambda s: tallies.of(by_session[id(s)]), warnings,
                        signature=signature, project_signatures=project_signatures, previous=previous,
                        same_options=plan.same_options, options=options, outputs=outputs, report=config.report,
                        workers=workers, early=early)
    pruned = _prune(outputs, previous, config.prune)
    _save(out, state, digest, unit_states, entries, plan, pages, previous)
    site = pages.site
    archived_only = sum(1 for p in site.projects for s in p.sessions if s.kept_since)
    return BuildResult(config.out, len(site.projects), sum(len(p.sessions) for p in site.projects), site.stats,
                       warnings=site.warnings, archived_only=archived_only, rebuilt=progress.rebuilt,
                       reused=progress.reused, gone=len(gone), pruned=len(pruned), built=site)


class _EarlyIndexing:
    """Tells :class:`search.EarlyShards` when a project's pages are all written: when
    every unit of the folders its sessions came from is done (jobs start folder by
    folder: jobs.job_order). Only projects the last build did not have: another's
    shard also indexes the pages kept from before, known only at the end."""

    def __init__(self, jobs: list[Job], previous: Manifest, shards: search.EarlyShards) -> None:
        self._left: dict[str, int] = {}
        for job in jobs:
            self._left[job.unit.folder] = self._left.get(job.unit.folder, 0) + 1
        self._known = {stored.project.get("id") for stored in previous.sessions.values()}
        self._folders: dict[str, set[str]] = {}  # project id -> the folders its sessions came from
        self._pages: dict[str, list[str]] = {}  # project id -> its session pages written
        self._shards = shards

    def done(self, result: UnitResult, entries: dict[str, Entry]) -> None:
        folder = result.unit.folder
        self._left[folder] -= 1
        for one in result.sessions:
            project = one.project["id"]
            self._folders.setdefault(project, set()).add(folder)
            self._pages.setdefault(project, []).extend(
                path for path in entries[one.key].outputs if search.SESSION_PAGE.match(path))
        if self._left[folder]:
            return
        for project, folders in self._folders.items():
            if folder in folders and project not in self._known and not any(self._left[f] for f in folders):
                self._known.add(project)  # started once
                self._shards.start(project, self._pages[project])


def _presence(writer: SiteWriter, state: StateStore) -> Callable[[SessionState], bool]:
    """Whether everything a session of the last build owns is still in OUT."""
    states = state.names()

    def present(stored: SessionState) -> bool:
        if stored.tally not in states or (in_state(stored.scan) and stored.scan not in states):
            return False
        return all(writer.has_file(path) for path in stored.outputs)

    return present


def _reused(plan: Plan, progress: _Progress) -> dict[str, Entry]:
    entries = {}
    for stored in plan.reused:
        entries[stored.key] = Entry.stored(stored, "reused")
        progress.reused += 1
        progress.step(stored.project.get("name", ""))
    return entries


def _unit_state(result: UnitResult, plan: Plan, redactor: Any, report: Callable[[str], None]) -> UnitState:
    """What the manifest keeps of a unit read now; its warnings are reported as they come."""
    for line in result.warnings:
        report(f"warning: {InputWarning(*line)}")
    warnings = scrub_warnings([InputWarning(*w) for w in result.warnings], redactor)
    unit = result.unit
    names = list(plan.own_slugs[unit.key]) if unit.kind == CLAUDE else []
    return UnitState(unit.kind, result.files, [s.key for s in result.sessions],
                     [[w.file, w.line, w.reason] for w in warnings], unit.since_digest(),
                     plan.lineage.digest(unit.key), names)


def _take_first(result: UnitResult, entries: dict[str, Entry], outputs: Outputs, progress: _Progress,
                estimates: dict[str, int]) -> None:
    """A unit's sessions as a worker gave them in the first pass: files written at once."""
    for one in result.sessions:
        entry = entries[one.key] = Entry(one.key, result.unit.key, one.summary, one.project, "rebuilt",
                                         tally_json=one.tally, tally_file=state_name(one.tally, ".json"))
        progress.rebuilt += 1
        if one.files is not None:
            _written(entry, one, outputs)
            progress.step(one.project["name"])
    progress.total += len(result.sessions) - estimates.get(result.unit.key, len(result.sessions))


def _written(entry: Entry, one: SessionResult, outputs: Outputs) -> None:
    entry.outputs = outputs.commit(one.files or [])
    entry.written_slug = one.slug
    entry.links = one.links


def _live(entries: dict[str, Entry]) -> set[tuple[object, object]]:
    return {(e.summary.get("source"), e.summary.get("id")) for e in entries.values()}


def _assemble(entries: dict[str, Entry]) -> tuple[list[Project], dict[str, str]]:
    """Projects from the summaries, sessions newest first, with final page names;
    and every session's page by its id. A gone session keeps the name its pages
    have; when a live session now owns that name, the gone one drops out."""
    by_project: dict[str, list[Entry]] = {}
    for entry in entries.values():
        by_project.setdefault(entry.project["id"], []).append(entry)
    projects = []
    for members in by_project.values():
        for entry in members:
            entry.session = session_from_summary(entry.summary, "")
        members.sort(key=lambda e: _session_order(e.session), reverse=True)
        slugs = unique_slugs([e.session.id for e in members])
        taken = {s.casefold() for e, s in zip(members, slugs) if e.status != "gone"}
        kept = []
        for entry, chosen in zip(members, slugs):
            if entry.status == "gone" and chosen != entry.written_slug:
                chosen = entry.written_slug or chosen  # its page cannot be made again: keep its name
                if chosen.casefold() in taken:
                    del entries[entry.key]
                    continue
            entry.slug = entry.session.slug = chosen
            kept.append(entry)
        if kept:
            projects.append(project_of(kept[0].project, [e.session for e in kept], [None] * len(kept)))
    projects.sort(key=lambda p: (latest(p.sessions), p.id), reverse=True)  # as site_of orders them
    links = {session.id: urls.session_html(project.id, session.slug)
             for project in projects for session in project.sessions}
    return projects, links


def _keep_unchanged(entries: dict[str, Entry], links: dict[str, str], outputs: Outputs,
                    report: Callable[[str], None]) -> list[Entry]:
    """Keep the files of sessions that were not rendered again; return the ones
    that must be (a new page name, a link to a page that moved, a file gone)."""
    redo = []
    for entry in list(entries.values()):
        moved = entry.status != "gone" and any(links.get(k) != v for k, v in entry.links.items())
        if entry.written_slug != entry.slug or moved:
            redo.append(entry)
            continue
        if entry.status == "rebuilt":
            continue  # its files were written by the first pass
        try:
            for path in entry.outputs:
                outputs.keep(path)
        except OutputError:
            if entry.status == "gone":
                report(f"warning: the pages of session {entry.key} are gone and its source too")
                del entries[entry.key]
                continue
            redo.append(entry)
    return redo


def _final_pass(redo: list[Entry], entries: dict[str, Entry], links: dict[str, str], units: list[Unit],
                plan: Plan, previous: Manifest, options: Options, outputs: Outputs, workers: int) -> None:
    """Render again, knowing every page name and link, the sessions that needed them."""
    by_key = {unit.key: unit for unit in units}
    by_unit: dict[str, set[str]] = {}
    for entry in redo:
        if entry.unit in by_key:
            by_unit.setdefault(entry.unit, set()).add(entry.key)
    if not by_unit:
        return
    slugs = {e.key: e.slug for e in entries.values()}
    jobs = [Job(by_key[key], final=True, slugs={k: s for k, s in slugs.items() if k.startswith(key + "#")},
                links=links, only=frozenset(keys), inherit=plan.lineage.decision(key))
            for key, keys in by_unit.items()]

    def take_final(_index: int, result: UnitResult) -> None:
        for one in result.sessions:
            entry = entries.get(one.key)
            if entry is not None and one.files is not None:
                _written(entry, one, outputs)
                _note_parts(entry, one.summary)

    with _collecting(True):
        run_jobs(jobs, options, workers, take_final)


def _note_parts(entry: Entry, summary: dict[str, Any]) -> None:
    """A page rendered again by the second pass (other links, another name) may
    split at other places: where its linked moments landed is its latest render's."""
    parts = dict(summary.get("anchor_parts") or {})
    entry.summary = {**entry.summary, "anchor_parts": parts}
    if entry.session is not None:
        entry.session.anchor_parts = parts


def _site_warnings(discovery: list[InputWarning], units: list[Unit], states: dict[str, UnitState]) -> list[InputWarning]:
    warnings = list(discovery)
    for unit in units:
        state = states.get(unit.key)
        if state is not None:
            warnings += [InputWarning(*w) for w in state.warnings]
    return _sorted_warnings(warnings)


def _signature_parts(entry: Entry) -> list[Any]:
    return [entry.key, entry.slug, entry.project, entry.summary, entry.tally_file]


class _Tallies:
    """Each session's counting identities, for the project and site numbers: a
    session read now has them in hand; the others' are read from OUT's state, all
    at once when the first is asked for (at thousands of sessions, a query each was
    a fifth of a one-turn append), and decoded with the cyclic collector off (tens
    of thousands of objects and no cycle: with it on, it walked the whole heap again
    and again, a third of the site's numbers in a one-turn append)."""

    def __init__(self, entries: dict[int, Entry], state: StateStore, report: Callable[[str], None]) -> None:
        self._entries = entries
        self._state = state
        self._report = report
        self._stored: dict[str, Tally | None] | None = None

    def of(self, entry: Entry) -> Tally | None:
        if entry.tally_json is not None:
            return tally_from_json(orjson.loads(entry.tally_json))
        if self._stored is None:
            with _collecting(False):
                found = self._state.get_many(
                    e.tally_file for e in self._entries.values() if e.tally_json is None and e.tally_file)
                self._stored = {name: tally_from_bytes(data) for name, data in found.items()}
        tally = self._stored.get(entry.tally_file)
        if tally is None:
            self._report(f"warning: the numbers of session {entry.summary.get('id')} are missing "
                         "from the last build's state; its project's totals leave it out")
        return tally


def _prune(outputs: Outputs, previous: Manifest, prune: bool) -> list[str]:
    """Delete what the last build wrote and this one did not: with ``--prune``
    everything (the pages of sessions whose source is gone among them); else
    only files that something newer replaced (a search bundle, the parts of a
    page split otherwise), and only when the last manifest says whose each
    file was. Assets stay: the pages of a session whose source is gone may
    still name the ones they were built with."""
    if not prune:
        if not previous.valid:
            return []
        for path in previous.site_outputs:
            if path.startswith(urls.ASSETS_DIR + "/") and is_regular_file(outputs.writer.out / path):
                outputs.keep(path)
    return outputs.writer.prune()


def _save(out: Path, state: StateStore, digest: str, unit_states: dict[str, UnitState], entries: dict[str, Entry],
          plan: Plan, pages: SitePages, previous: Manifest) -> None:
    manifest = Manifest(options=digest)
    manifest.units = {key: unit_states[key] for key in sorted(unit_states)}
    lineage = plan.lineage
    values: dict[str, bytes] = {}
    for key in sorted(entries):
        entry = entries[key]
        if entry.tally_json is not None:
            values[entry.tally_file] = entry.tally_json
        scan = lineage.scans.get(entry.unit, entry.scan)
        uuids = lineage.uuids.get(entry.unit, entry.uuids)
        values.update((name, lineage.new[name]) for name in (scan, uuids) if name in lineage.new)
        manifest.sessions[key] = SessionState(key, entry.unit, entry.slug, entry.project, entry.summary,
                                              entry.outputs, entry.tally_file, scan,
                                              lineage.groups.get(entry.unit, entry.group), uuids, entry.links)
    state.add(values)  # before the manifest is compared: a value lost since the last build is kept again
    manifest.site_outputs = pages.outputs
    manifest.site_signature = pages.signature
    manifest.project_stats = {p.id: p.stats for p in pages.site.projects}
    manifest.project_signatures = pages.project_signatures
    manifest.site_stats = pages.site.stats
    if manifest.same_as(previous):
        return  # nothing changed: neither the state nor the manifest (20,000 sessions: tens of MB)
    state.keep_only({s.tally for s in manifest.sessions.values()}
                    | {s.scan for s in manifest.sessions.values() if in_state(s.scan)}
                    | {s.uuids for s in manifest.sessions.values() if s.uuids})
    collect_blocks(out, manifest.sessions)  # highlighted blocks no session of the manifest uses go
    manifest.save(out)


