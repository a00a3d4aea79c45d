"""The stages of a build that goes the whole way, in order, each taking the
values the ones before it made (docs/architecture.md: the stages and the values
between them). ``build.build`` runs them (:func:`run_stages`) when its quick
check (quick.py) found something changed since the last build.

1. discover (discover.py): the transcripts under the sources;
2. sync the archive (archive_sync.py): copy them in, and add what only the
   archive still has (what the agents deleted);
3. plan (plan/): the last build's manifest and the files as they are now say
   what to read, what to reuse, which page names are known in advance, and
   which Claude sessions resume another;
4. render (jobs.py): read, redact and render each unit to read, in parallel;
   each session comes back as a summary, its counting identities and its
   files, written at once: no process holds more than a few sessions;
5. assemble (assemble.py, plain functions of values): the sessions the last
   build had and this one did not make (gone) join, projects are made from the
   summaries, page names and links become final; then the pages of reused
   sessions are kept, and the few pages that needed the final names are
   rendered again (the final pass);
6. publish (publish.py): the index, the project pages, their sidecars and search;
7. save: prune if asked, then the manifest and the state it names.

:func:`read_site` is the plain sequential path to the whole model
(``build.load_site``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import quick, urls
from .agent_cleanup import cleanup_notes
from .archive_sync import Archived, sync_archive
from .assemble import Assembled, Outcome, Status, assemble, final_jobs, renamed_or_moved, with_final
from .build_result import BuildResult, Progress
from .collector import collecting
from .config import BuildConfig
from .discover import Discovered, Known, add_examples, discover
from .errors import BoughError, OutputError
from .hidden import hide_label
from .inherit import FileSummary
from .jobs import Job, SessionResult, UnitResult, probe_files, run_jobs, scan_files, workers_for
from .manifest import Manifest, SessionState, UnitState, sha256_prefix
from .model import Session, Site, InputWarning
from .options import Options, build_options
from .plan import DiskAnswers, Plan, make_plan
from .plan.lineage import decisions, in_state
from .plan.units import CLAUDE, Unit, units_of, with_digests
from .prepare import prepare
from .render.blockstore import collect as collect_blocks
from .publish import Outputs, SiteParts, SitePages, publish, signatures
from .readers.gemini_files import root_candidates
from .scrub import scrub_warnings
from .search.pagefind_run import SESSION_PAGE
from .search.shards import EarlyShards, shard_names
from .site import session_order, site_from_sessions
from .state import StateStore, StateWrites
from .state_reads import Details, KeptFacts, Unions, facts_name, union_keys
from .summaries import session_from_summary
from .out_place import check_separate
from .write import SiteWriter, is_regular_file


class NothingToRead(BoughError):
    """No transcript could be read at all."""


# --------------------------------------------------------------------------- read_site


def _collector(config: BuildConfig) -> tuple[list[InputWarning], Callable[[InputWarning], None]]:
    """A list of warnings and the callback that fills it, reporting each as it comes."""
    warnings: list[InputWarning] = []

    def warn(warning: InputWarning) -> None:
        warnings.append(warning)
        config.report(f"warning: {warning}")

    return warnings, warn


def _sources(config: BuildConfig, warn: Callable[[InputWarning], None],
             known: Known | None = None, look: quick.Look | None = None,
             ) -> tuple[Discovered, Archived]:
    """Stages 1 and 2: what there is to read, live or only in the archive; the
    bundled examples when there is nothing at all. Close the Archived when done.
    ``known`` and ``look``: what the last build and the quick check saw (discover.py);
    what its walk saw is discovery's from then on (quick.Look.hand_over)."""
    walked, listed = look.hand_over() if look is not None else (None, None)
    found, archived = sync_archive(discover(config, warn, known, walked, listed), config, warn,
                                   workers=workers_for(config.jobs), known=known)
    if not config.sources and found.empty():
        add_examples(found, config, warn)
    return found, archived


def read_site(config: BuildConfig, *, redaction_key: bytes | None = None) -> Site:
    """Read every source into the model (no output is written)."""
    warnings, warn = _collector(config)
    found, archived = _sources(config, warn)
    with archived:
        sessions = _read_sessions(found, warn)
    archived.mark(sessions)
    options = build_options(config, found.used_examples, redaction_key)
    for session in sessions:
        prepare(session, options.redactor(), options.price_table())
    site = site_from_sessions(sessions)
    site.warnings = _sorted_warnings(scrub_warnings(warnings, options.redactor()))
    return site


def _read_sessions(found: Discovered, warn: Callable[[InputWarning], None]) -> list[Session]:
    from .readers.registry import read_unit

    # One reader call per unit, as a build makes them.
    units = units_of(found.claude, found.codex, found.label, gemini=found.gemini, agents=found.agents)
    inherit = decisions([(Path(unit.paths[0]), unit.labels[0]) for unit in units if unit.kind == CLAUDE],
                        lambda files: scan_files(files, 1), lambda paths: probe_files(paths, 1))
    return [session for unit in units for session in read_unit(unit, warn, inherit.get(Path(unit.paths[0])))]


def _sorted_warnings(warnings: list[InputWarning]) -> list[InputWarning]:
    # By file and line: the same whatever order the files were read in (live,
    # archived, or by parallel workers); redacted, since labels name directories.
    return sorted(warnings, key=lambda w: (w.file, w.line, w.reason))


# --------------------------------------------------------------------------- build


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


def run_stages(config: BuildConfig, look: quick.Look, redaction_key: bytes | None) -> BuildResult:
    """Build the site in ``config.out``, stage by stage; ``look``: what the quick
    check saw (its inputs digest, and the files and folders its walk listed)."""
    with collecting(False):
        warnings, warn = _collector(config)
        hint = Manifest.load(config.out)  # before OUT is locked: a hint only (see _previous)
        found, archived = _sources(config, warn, hint.known_files(), look)
        with archived:
            inputs = _inputs(config, found, archived, warnings, hint, look.options_digest, redaction_key)
            del found  # inputs holds it, until every file is read (_Inputs.all_read)
            with SiteWriter(config.out, force=config.force) as writer:
                quick.forget(writer.out)  # emptied in place until this build has ended
                previous = _previous(writer.out, hint)
                del hint  # when it changed since, the one read again replaces it: not both held
                with StateStore(writer.out) as state, _early_shards(writer, config, inputs.options) as shards:
                    out = _Out(writer, state, StateWrites(state), Outputs(writer, left=look.left), shards)
                    plan = _plan(config, inputs, previous, out)
                    first = _first_pass(config, inputs, plan, previous, out)
                    assembled = _nonempty(assemble(first.made, previous, prune=config.prune))
                    assembled, again = _keep_unchanged(assembled, out.outputs, config.report)
                    assembled, jobs = _final_jobs(config, inputs, plan, first, previous, assembled, again, out)
                    assembled = _final_pass(config, first, assembled, jobs, out)
                    inputs = inputs.all_read()
                    pages = _publish(config, inputs, plan, first, assembled, previous, out)
                    pruned = _prune(out.outputs, previous, config.prune, _keeps_old_pages(assembled))
                    _save(inputs, first, assembled, plan, pages, previous, out)
                result = _result(config, inputs, first, assembled, pages, pruned, writer)
                _remember(config, look, inputs, result, writer)
    return result



@dataclass(frozen=True)
class _Inputs:
    """What the build reads and how, settled before OUT is locked."""

    found: Discovered
    options: Options
    digest: str  # the options' digest
    units: list[Unit]
    reported: list[InputWarning]  # discovery's and the archive's warnings, redacted
    notes: list[str]  # the agents' cleanup, said once in the summary
    archived: Archived  # the archive's copies, some written out only when read (Archived.decompress)
    shows: tuple[bool, bool]  # whether the site shows the user's own Claude Code and Gemini CLI sessions

    def all_read(self) -> _Inputs:
        """These inputs once the passes have read every file: what was found, the
        units and the archive's deferred copies are let go (at 18,000 sessions some
        30 MB, at publishing's peak), and so are the digests of their labels
        (hidden.hide_label); what the build's summary and the quick check's record
        say of them stays."""
        self.archived.read_all()
        hide_label.cache_clear()
        found = Discovered(used_examples=self.found.used_examples, gemini=self.found.gemini)
        return replace(self, found=found, units=[])

    def readable(self, jobs: list[Job]) -> list[Job]:
        """``jobs`` whose files are all there to read: the archive's deferred copies
        written out, a job that needs one that cannot be left out (its sessions are
        kept as the last build made them)."""
        failed = self.archived.decompress(path for job in jobs for path in job.unit.paths)
        return [job for job in jobs if failed.isdisjoint(job.unit.paths)]

    def said(self) -> list[InputWarning]:
        """The warnings of discovery and the archive, redacted: those of the copies
        decompressed after the plan too."""
        return self.reported + scrub_warnings(self.archived.late, self.options.redactor())


def _inputs(config: BuildConfig, found: Discovered, archived: Archived, warnings: list[InputWarning],
            hint: Manifest, digest: str, redaction_key: bytes | None) -> _Inputs:
    """The units to plan and the options; ``digest``: the options digest of a build
    of the user's own sessions (the bundled examples have a key of their own)."""
    shows = (found.shows("claude"), found.shows("gemini"))
    notes = cleanup_notes(config, claude=shows[0], gemini=shows[1])
    options = build_options(config, found.used_examples, redaction_key)
    digest = options.digest() if found.used_examples else digest
    units = with_digests(units_of(found.claude, found.codex, found.label, archived.since, found.gemini, found.agents),
                         archived.digests)
    if found.empty():
        if not hint.sessions:
            raise NothingToRead("no transcript could be read from the sources given")
    else:
        check_separate(config.out, found.inputs)
    return _Inputs(found, options, digest, units, scrub_warnings(warnings, options.redactor()), notes, archived,
                   shows)


def _previous(out: Path, hint: Manifest) -> Manifest:
    """The last build's manifest, now that OUT is held: the one read before as a
    hint (which files are unchanged need not be opened to tell their format),
    unless it changed since."""
    return hint if hint.stamp is not None and hint.stamp == Manifest.stamp_of(out) else Manifest.load(out)


@dataclass(frozen=True)
class _Out:
    """OUT as this build holds it."""

    writer: SiteWriter
    state: StateStore
    values: StateWrites  # what the passes add to the state, written as they go
    outputs: Outputs
    shards: EarlyShards | None  # where projects' search shards start while the rest renders (None: at the end)


def _early_shards(writer: SiteWriter, config: BuildConfig,
                  options: Options) -> contextlib.AbstractContextManager[EarlyShards | None]:
    """With search on and workers to spare, a project new to OUT is indexed as soon
    as its pages are written, beside the rendering of the others."""
    if options.search and workers_for(config.jobs) > 1:
        return EarlyShards(writer, config.report, options.search_limit)
    return contextlib.nullcontext()


def _plan(config: BuildConfig, inputs: _Inputs, previous: Manifest, out: _Out) -> Plan:
    """Stage 3: what to read, reuse and keep as gone (plan/), its questions to the disk answered here."""
    workers = workers_for(config.jobs)
    units = inputs.units
    written = inputs.archived.decompress  # what the plan opens is there (an archived copy may be deferred)

    def checksum(path: str, size: int) -> str:
        written([path])
        return sha256_prefix(Path(path), size)

    def scan(files: list[tuple[str, str]]) -> list[FileSummary]:
        written(path for path, _label in files)
        return scan_files(files, workers)

    def probe(paths: list[str]) -> list[bytes | None]:
        written(paths)
        return probe_files(paths, workers)

    disk = DiskAnswers(checksum=checksum, present=_presence(out), scan=scan, probe=probe,
                       state=out.state)
    now = {unit.key: unit.states(inputs.found.stat) for unit in units}
    inputs.found.walked = {}  # the quick check's stats: this was their last use
    return make_plan(previous, units, now, inputs.digest, name=inputs.options.redactor().text, disk=disk,
                     prune=config.prune)


@dataclass(frozen=True)
class _FirstPass:
    """What the first pass made: each session read or reused, each unit's state."""

    made: dict[str, Outcome]
    unit_states: dict[str, UnitState]
    options: Options  # the build's, with the page names known in advance (Options.slug_counts)
    rebuilt: int
    reused: int


def _first_pass(config: BuildConfig, inputs: _Inputs, plan: Plan, previous: Manifest, out: _Out) -> _FirstPass:
    """Stage 4: read, redact and render each unit the plan reads, in parallel; the
    files of each session whose page name is certain are written at once."""
    progress = _Progress(config)
    progress.total = len(plan.reused) + sum(plan.estimates.values())
    made = _reused(plan, progress)
    options = replace(inputs.options, slug_counts=plan.slug_counts)
    redactor = inputs.options.redactor()
    unit_states = dict(plan.reused_units)
    jobs = inputs.readable([Job(unit, own_slugs=plan.own_slugs[unit.key], inherit=plan.lineage.decision(unit.key))
                            for unit in plan.read])
    indexing = _EarlyIndexing(jobs, previous, out.shards) if out.shards is not None else None

    def take_first(_index: int, result: UnitResult) -> None:
        unit_states[result.unit.key] = _unit_state(result, plan, redactor, config.report)
        _take_first(result, made, out, progress, plan.estimates)
        # The last build's entries of what was just read are not read again (assemble
        # takes only the sessions this build did not make from it): let go of them now,
        # not once every session is read. A build that reads every session again (its
        # options changed, most sources deleted) held both manifests at its peak.
        previous.forget([one.key for one in result.sessions], [result.unit.key])
        if indexing is not None:
            indexing.done(result, made)

    with collecting(True):
        run_jobs(jobs, options, workers_for(config.jobs), take_first)
    if out.shards is not None:
        out.shards.again(out.writer.written + out.writer.unchanged, previous.site_outputs)
    return _FirstPass(made, unit_states, options, progress.rebuilt, progress.reused)


def _nonempty(assembled: Assembled) -> Assembled:
    if not assembled.projects:
        raise NothingToRead("no transcript could be read from the sources given")
    return assembled


def _publish(config: BuildConfig, inputs: _Inputs, plan: Plan, first: _FirstPass, assembled: Assembled,
             previous: Manifest, out: _Out) -> SitePages:
    """Stage 6: the site's own pages (publish.py), from the assembled sessions."""
    warnings = _site_warnings(inputs.said(), first.unit_states)
    signature, project_signatures = signatures(
        assembled.projects, lambda s: _signature_parts(assembled, assembled.outcome(s)), warnings,
        previous.project_signatures, _same_projects(assembled, previous))
    with collecting(True):
        unions = Unions(assembled.outcome, out.values, config.report)
        details = Details(assembled.outcome, out.values)
        parts = SiteParts(assembled.projects, unions, warnings, signature, project_signatures, details.held,
                          details.name, KeptFacts(out.values, first.options.search))
        return publish(parts, previous=previous, same_options=plan.same_options, options=first.options,
                       outputs=out.outputs, report=config.report, workers=workers_for(config.jobs), early=out.shards)


def _result(config: BuildConfig, inputs: _Inputs, first: _FirstPass, assembled: Assembled, pages: SitePages,
            pruned: list[str], writer: SiteWriter) -> BuildResult:
    """What the build says, once OUT's files are all in place."""
    site = pages.site
    archived_only = sum(1 for p in site.projects for s in p.sessions if s.kept_since)
    return BuildResult(config.out, len(site.projects), sum(len(p.sessions) for p in site.projects), site.stats,
                       used_examples=inputs.found.used_examples, written=len(writer.written),
                       unchanged=len(writer.unchanged), warnings=site.warnings, archived_only=archived_only,
                       notes=inputs.notes, rebuilt=first.rebuilt, reused=first.reused, gone=assembled.gone,
                       pruned=len(pruned), kept=len(writer.kept), built=site)


def _remember(config: BuildConfig, look: quick.Look, inputs: _Inputs, result: BuildResult,
              writer: SiteWriter) -> None:
    """What this build said, for the next one's quick check (quick.py), when it can be told that way."""
    found = inputs.found
    if look.inputs is None or found.used_examples or quick.outside_sources(config, root_candidates(found.gemini)):
        return
    writer.seal()
    said = quick.Said(result.projects, result.sessions, result.stats, result.warnings, inputs.said(),
                      *inputs.shows, result.rebuilt + result.reused, result.gone,
                      result.archived_only, result.written + result.unchanged + result.kept)
    quick.remember(writer.out, look.inputs, inputs.archived.times, said)


class _EarlyIndexing:
    """Tells :class:`EarlyShards` when a project's pages are all written: when
    every unit of the folders its sessions came from is done (jobs start folder by
    folder: jobs.job_order). Only projects the last build did not have: another's
    shard also indexes pages kept from before, which its stamp names once the first
    pass is done (EarlyShards.again)."""

    def __init__(self, jobs: list[Job], previous: Manifest, shards: EarlyShards) -> None:
        self._left: dict[str, int] = {}
        for job in jobs:
            self._left[job.unit.folder] = self._left.get(job.unit.folder, 0) + 1
        self._known = {stored.project.get("id") for stored in previous.sessions.values()}
        self._folders: dict[str, set[str]] = {}  # project id -> the folders its sessions came from
        self._pages: dict[str, list[str]] = {}  # project id -> its session pages written
        self._sessions: dict[str, list[Session]] = {}  # project id -> its sessions (their summaries)
        self._shards = shards

    def done(self, result: UnitResult, made: dict[str, Outcome]) -> None:
        folder = result.unit.folder
        self._left[folder] -= 1
        for one in result.sessions:
            project = one.project["id"]
            self._folders.setdefault(project, set()).add(folder)
            self._pages.setdefault(project, []).extend(
                path for path in made[one.key].outputs if SESSION_PAGE.match(path))
            self._sessions.setdefault(project, []).append(session_from_summary(one.summary, one.slug))
        if self._left[folder]:
            return
        for project, folders in self._folders.items():
            if folder in folders and project not in self._known and not any(self._left[f] for f in folders):
                self._known.add(project)  # started once
                sessions = sorted(self._sessions.pop(project), key=session_order, reverse=True)
                self._shards.start(self._pages[project], shard_names(project, sessions))


def _presence(out: _Out) -> Callable[[SessionState], bool]:
    """Whether everything a session of the last build owns is still in OUT: its
    values in the state, and its files, each found in OUT or in a folder as the last
    build left it (Outputs.as_left: at 18,000 sessions, looking for 36,000 files
    took an append 0.15-0.2 s). A file taken for there that is not fails the keep
    stage, which renders its session again."""
    states = out.state.names()
    as_left: dict[str, bool] = {}

    def there(path: str) -> bool:
        folder = path.rpartition("/")[0]
        if folder not in as_left:
            as_left[folder] = out.outputs.as_left(folder)
        return as_left[folder] or out.writer.has_file(path)

    def present(stored: SessionState) -> bool:
        if stored.tally not in states or stored.details not in states or (
                in_state(stored.scan) and stored.scan not in states):
            return False
        return all(there(path) for path in stored.outputs)

    return present


def _reused(plan: Plan, progress: _Progress) -> dict[str, Outcome]:
    made = {}
    for stored in plan.reused:
        made[stored.key] = Outcome.stored(stored, Status.REUSED)
        progress.reused += 1
        progress.step(stored.project.get("name", ""))
    return made


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


def _take_first(result: UnitResult, made: dict[str, Outcome], out: _Out, progress: _Progress,
                estimates: dict[str, int]) -> None:
    """A unit's sessions as a worker gave them in the first pass: files written at
    once, identities and summary details to OUT's state."""
    for one in result.sessions:
        outcome = made[one.key] = Outcome.read(one, result.unit.key)
        _keep_values(one, outcome, out.values)
        progress.rebuilt += 1
        if one.files is not None:
            made[one.key] = outcome.written(one, out.outputs.commit(one.files))
            progress.step(one.project["name"])
    progress.total += len(result.sessions) - estimates.get(result.unit.key, len(result.sessions))


def _keep_values(one: SessionResult, outcome: Outcome, values: StateWrites) -> None:
    """A session's identities and summary details, read now, to OUT's state under the names its outcome has."""
    values.add(outcome.tally_file, one.tally)
    values.add(outcome.details, one.details)


def _keep_unchanged(assembled: Assembled, outputs: Outputs,
                    report: Callable[[str], None]) -> tuple[Assembled, list[str]]:
    """Stage 5, its first half: keep the files of sessions that were not rendered
    again; return the ones that must be (a new page name, a link to a page that
    moved, a file gone), and ``assembled`` with the gone ones whose files are gone
    too (Assembled.lost)."""
    again: list[str] = []
    lost: set[str] = set()
    for outcome in assembled.outcomes.values():
        if renamed_or_moved(outcome, assembled):
            again.append(outcome.key)
            continue
        if outcome.status is Status.REBUILT:
            continue  # its files were written by the first pass
        try:
            for path in outcome.outputs:
                outputs.keep(path)
        except OutputError:
            if outcome.status is Status.GONE:
                report(f"warning: the pages of session {outcome.key} are gone and its source too")
                lost.add(outcome.key)
                continue
            again.append(outcome.key)
    return replace(assembled, lost=frozenset(lost)), again


def _final_jobs(config: BuildConfig, inputs: _Inputs, plan: Plan, first: _FirstPass, previous: Manifest,
                assembled: Assembled, again: list[str], out: _Out) -> tuple[Assembled, list[Job]]:
    """The final pass's jobs: those rendering the sessions ``again`` whose files can
    be read. A session whose files cannot (an archived copy found damaged only now)
    stays as the last build made it, as a gone one does: under the name its pages
    have, which are kept (else they were deleted, and the site linked to a page
    that was never made)."""
    made, unreadable = first.made, set()
    while True:
        jobs = final_jobs(again, assembled, inputs.units, plan.lineage.decision)
        readable = [job for job in inputs.readable(jobs) if unreadable.isdisjoint(job.unit.paths)]
        kept = {id(job) for job in readable}
        stuck = [job for job in jobs if id(job) not in kept]
        pinned = {key for job in stuck for key in job.only if key in made and made[key].status is not Status.GONE}
        if not pinned:  # (each round pins one session more, or ends)
            return assembled, readable
        # Pinned, those sessions keep their names: the pages linking to them may
        # have to be rendered again, which the next round finds out.
        unreadable.update(path for job in stuck for path in job.unit.paths)
        made = {key: replace(outcome, status=Status.GONE) if key in pinned else outcome
                for key, outcome in made.items()}
        assembled, again = _keep_unchanged(_nonempty(assemble(made, previous, prune=config.prune)), out.outputs,
                                           config.report)


def _final_pass(config: BuildConfig, first: _FirstPass, assembled: Assembled, jobs: list[Job],
                out: _Out) -> Assembled:
    """Stage 5, its second half: render again, knowing every page name and link,
    the sessions that needed them (``jobs``: :func:`_final_jobs`)."""
    final: dict[str, Outcome] = {}

    def take_final(_index: int, result: UnitResult) -> None:
        for one in result.sessions:
            outcome = final.get(one.key) or assembled.outcomes.get(one.key)
            if outcome is not None and one.key not in assembled.lost and one.files is not None:
                _keep_values(one, outcome, out.values)
                # A page the first pass wrote with a link it foresaw that turned out otherwise is replaced.
                again = set(outcome.outputs) if outcome.status is Status.REBUILT else set()
                paths = out.outputs.commit(one.files, again)
                final[one.key] = outcome.written(one, paths).with_parts(one.summary)

    if jobs:
        with collecting(True):
            run_jobs(jobs, first.options, workers_for(config.jobs), take_final)
    return with_final(assembled, final)


def _site_warnings(discovery: list[InputWarning], states: dict[str, UnitState]) -> list[InputWarning]:
    warnings = list(discovery)
    for state in states.values():
        warnings += [InputWarning(*w) for w in state.warnings]
    return _sorted_warnings(warnings)


def _signature_parts(assembled: Assembled, outcome: Outcome) -> list[Any]:
    return [outcome.key, assembled.slugs[outcome.key], outcome.project, outcome.summary, outcome.tally_file,
            outcome.details]


def _same_projects(assembled: Assembled, previous: Manifest) -> set[str]:
    """The projects of the last build whose sessions are the same and each made of
    what it was made of then (:func:`_signature_parts`): their signatures are the
    last build's (publish.signatures), an append computes again only its project's."""
    stored_in: dict[str, int] = {}
    for stored in previous.sessions.values():  # the sessions read again are forgotten by now
        project = stored.project.get("id", "")
        stored_in[project] = stored_in.get(project, 0) + 1
    return {project.id for project in assembled.projects
            if stored_in.get(project.id) == len(project.sessions)
            and all(_as_stored(assembled, session, previous) for session in project.sessions)}


def _as_stored(assembled: Assembled, session: Session, previous: Manifest) -> bool:
    """Whether the parts of ``session``'s signature are its last manifest entry's."""
    outcome = assembled.outcome(session)
    stored = previous.sessions.get(outcome.key)
    return stored is not None and outcome.summary is stored.summary and outcome.project is stored.project and (
        outcome.tally_file, outcome.details, assembled.slugs[outcome.key]) == (stored.tally, stored.details,
                                                                               stored.slug)


def _prune(outputs: Outputs, previous: Manifest, prune: bool, old_pages: bool) -> list[str]:
    """Delete what the last build wrote and this one did not: with ``--prune``
    everything (the pages of sessions whose source is gone among them); else
    only files that something newer replaced (a search bundle, the parts of a
    page split otherwise, an asset no page names), and only when the last
    manifest says whose each file was. The last build's assets stay while
    ``old_pages`` are kept: the pages of a session whose source is gone may still
    name the ones they were built with (another theme's, search's script)."""
    if not prune:
        if not previous.valid:
            return []
        for path in previous.site_outputs if old_pages else ():
            if path.startswith(urls.ASSETS_DIR + "/") and is_regular_file(outputs.writer.out / path):
                outputs.keep(path)
    return outputs.writer.prune()


def _keeps_old_pages(assembled: Assembled) -> bool:
    """Whether the site keeps pages an earlier build made that this one could not
    make again (a gone session's): every other page is this build's options' own,
    and names only this build's assets."""
    return any(outcome.status is Status.GONE for outcome in assembled.saved().values())


def _save(inputs: _Inputs, first: _FirstPass, assembled: Assembled, plan: Plan, pages: SitePages,
          previous: Manifest, out: _Out) -> None:
    """Stage 7: the manifest and the state it names, for the next build."""
    table = inputs.options.price_table()
    if table is not None and table.kept is not None:
        table.kept.save()  # what pricing asked genai-prices in this process (kept_rates.py)
    digest, unit_states, state = inputs.digest, first.unit_states, out.state
    out.values.flush()
    manifest = Manifest(options=digest)
    manifest.units = {key: unit_states[key] for key in sorted(unit_states)}
    lineage = plan.lineage
    values: dict[str, bytes] = {}
    saved = assembled.saved()
    for key in sorted(saved):
        outcome = saved[key]
        scan = lineage.scans.get(outcome.unit, outcome.scan)
        uuids = lineage.uuids.get(outcome.unit, outcome.uuids)
        values.update((name, lineage.new[name]) for name in (scan, uuids) if name in lineage.new)
        manifest.sessions[key] = SessionState(
            key, outcome.unit, assembled.slugs[key], outcome.project, outcome.summary, outcome.outputs,
            outcome.tally_file, details=outcome.details, scan=scan,
            group=lineage.groups.get(outcome.unit, outcome.group), uuids=uuids, links=outcome.links)
    state.add(values)  # before the manifest is compared: a value lost since the last build is kept again
    manifest.site_outputs = pages.outputs
    manifest.site_signature = pages.signature
    manifest.project_stats = {p.id: p.stats for p in pages.site.projects}
    manifest.project_signatures = pages.project_signatures
    manifest.site_stats = pages.site.stats
    manifest.apart = pages.apart
    if manifest.same_as(previous):
        return  # nothing changed: neither the state nor the manifest (20,000 sessions: tens of MB)
    state.keep_only({s.tally for s in manifest.sessions.values()}
                    | {s.details for s in manifest.sessions.values()}
                    | {key for p in assembled.projects
                       for key in union_keys([assembled.outcome(s) for s in p.sessions], p.sessions)}
                    | {facts_name(pages.project_signatures[p.id], inputs.options.search)
                       for p in pages.site.projects if pages.project_signatures.get(p.id)}
                    | {s.scan for s in manifest.sessions.values() if in_state(s.scan)}
                    | {s.uuids for s in manifest.sessions.values() if s.uuids})
    collect_blocks(out.writer.out, manifest.sessions)  # highlighted blocks no session of the manifest uses go
    manifest.save(out.writer.out, previous)


