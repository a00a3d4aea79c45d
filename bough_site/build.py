"""``build(config)``: the stages, in order, and nothing else.

1. discover: the sources (and, through the archive, what the agents deleted);
2. plan: the manifest of the last build (manifest.py) says which units of
   reading are unchanged; resumes.py says which Claude sessions resume another
   (a unit whose decision changed is read again); the others' pages are kept;
3. read, redact and render each changed unit, in parallel (jobs.py); each
   session comes back as a summary, its counting identities and its files,
   written at once: no process holds more than a few sessions;
4. assemble projects and the site from the summaries (final slugs, links) and
   render what the first pass could not (jobs.py explains which);
5. render the index and project pages from the summaries, prune if asked,
   save the manifest.

``load_site`` is the plain sequential path to the whole model, timelines
included, for tests and tools that want the numbers without a site.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from . import search, sidecars, urls
from .config import BuildConfig
from .discover import Discovered, discover
from .errors import BoughError, OutputError
from .jobs import (
    CLAUDE,
    Job,
    Options,
    Unit,
    UnitResult,
    optimistic_slug,
    project_identity,
    run_jobs,
    scan_files,
    units_of,
    workers_for,
)
from .manifest import (
    STATE_DIR,
    FileState,
    Manifest,
    SessionState,
    UnitState,
    hide,
    key_digest,
    options_digest,
    remove_states,
    save_state,
    session_from_summary,
    sha256_prefix,
    tally_from_json,
    tally_name,
)
from .model import Project, Session, Site, Warning
from .render.blockstore import collect as collect_blocks
from .resumes import Lineage, decisions, plan_lineage
from .scrub import scrub_session, scrub_warnings
from .stats import Tally
from .work import summarize_work
from .write import SiteWriter, check_separate, is_regular_file, json_bytes, unique_slugs

# The bundled examples hold only fake secrets; a fixed key keeps their pages reproducible.
EXAMPLES_REDACTION_KEY = b"bough-examples"


@dataclass
class BuildResult:
    site: Site
    out: Path
    used_examples: bool = False
    written: int = 0
    unchanged: int = 0
    warnings: list[Warning] = field(default_factory=list)
    archived_only: int = 0  # sessions whose original is deleted, read from bough's archive
    notes: list[str] = field(default_factory=list)  # said once in the summary (Claude's cleanup)
    rebuilt: int = 0  # sessions read and rendered by this build
    reused: int = 0  # sessions whose source had not changed: their pages were kept as they were
    gone: int = 0  # sessions whose source is gone, kept from an earlier build (until --prune)
    pruned: int = 0  # files --prune deleted
    kept: int = 0  # files kept without being rendered again


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


def _collector(config: BuildConfig) -> tuple[list[Warning], Callable[[Warning], None]]:
    """A list of warnings and the callback that fills it, reporting each as it comes."""
    warnings: list[Warning] = []

    def warn(warning: Warning) -> None:
        warnings.append(warning)
        config.report(f"warning: {warning}")

    return warnings, warn


def load_site(config: BuildConfig, *, redaction_key: bytes | None = None) -> Site:
    """Read every source into the model (no output is written)."""
    warnings, warn = _collector(config)
    found = discover(config, warn)
    try:
        sessions = _read_sessions(found, warn)
    finally:
        found.kept.close()  # the private copies decompressed from the archive
    found.kept.mark(sessions)
    options = _options(config, found, redaction_key)
    for session in sessions:
        scrub_session(session, options.redactor())
        summarize_work(session)  # commits and changed files, from the redacted timeline
    site = assemble(sessions)
    site.warnings = _site_warnings(warnings, options)
    return site


def _read_sessions(found: Discovered, warn: Callable[[Warning], None]) -> list[Session]:
    from .readers.claude import read_claude_session

    inherit = decisions([(source.main, found.label(source.main)) for source in found.claude],
                        lambda files: scan_files(files, 1))
    sessions = [read_claude_session(source, warn, found.label, inherit.get(source.main)) for source in found.claude]
    if found.codex:
        from .readers.codex import read_codex_sessions

        sessions += read_codex_sessions(found.codex, warn, label=found.label)
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
        projects.append(_project(project_identity(cwd), members, [s.tally for s in members]))
    return _site(projects, [])


def _project(identity: dict[str, str], sessions: list[Session], tallies: list[Tally | None]) -> Project:
    tally = Tally()
    for one in tallies:
        if one is not None:
            tally.merge(one)
    return Project(id=identity["id"], name=identity["name"], cwd=identity["cwd"], sessions=sessions,
                   stats=tally.stats(), tally=tally)


def _site(projects: list[Project], warnings: list[Warning]) -> Site:
    projects.sort(key=lambda p: (_latest(p.sessions), p.id), reverse=True)
    site_tally = Tally()
    for project in projects:
        site_tally.merge(project.tally)
    return Site(projects=projects, stats=site_tally.stats(), warnings=warnings)


def _session_order(session: Session) -> tuple[str, str]:
    return (session.started or "", session.id)


def _latest(sessions: list[Session]) -> str:
    return max((s.ended or s.started or "" for s in sessions), default="")


def _options(config: BuildConfig, found: Discovered, redaction_key: bytes | None) -> Options:
    key = EXAMPLES_REDACTION_KEY if found.used_examples else (redaction_key or b"")
    home = user = None
    if config.redact_paths:
        home = str(Path(os.environ.get("HOME") or Path.home()))
        user = os.path.basename(home.rstrip("/")) or None
    return Options(theme=str(config.theme) if config.theme else None, search=config.search, redact=config.redact,
                   key=key, home=home, user=user, out=str(config.out), highlight_limit=config.highlight_limit)


def _site_warnings(warnings: list[Warning], options: Options) -> list[Warning]:
    # By file and line: the same whatever order the files were read in (live,
    # archived, or by parallel workers); redacted, since labels name directories.
    return sorted(scrub_warnings(warnings, options.redactor()), key=lambda w: (w.file, w.line, w.reason))


# --------------------------------------------------------------------------- build


def build(config: BuildConfig, *, redaction_key: bytes | None = None) -> BuildResult:
    """Build the site in ``config.out``, reusing what the last build there made
    from sources that have not changed since."""
    warnings, warn = _collector(config)
    found = discover(config, warn)  # the archive adds what only it still has (found.kept)
    try:
        return _Build(config, found, warnings, redaction_key).run()
    finally:
        found.kept.close()  # the private copies decompressed from the archive


@dataclass
class _Entry:
    """One session of the site being built."""

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
    scan: str = ""  # gone: its stored summary for resumes.py, and its directory
    group: str = ""


class _Build:
    def __init__(self, config: BuildConfig, found: Discovered, warnings: list[Warning],
                 redaction_key: bytes | None) -> None:
        self.config = config
        self.found = found
        self.discovery_warnings = warnings
        self.options = _options(config, found, redaction_key)
        self.digest = options_digest(self.options.digest_parts(key_digest(self.options.key)), config.theme)
        self.units = units_of(found.claude, found.codex, found.label, found.kept.since)
        self.workers = workers_for(config.jobs)
        self.entries: dict[str, _Entry] = {}
        self.unit_states: dict[str, UnitState] = {}
        self.claimed: set[str] = set()
        self.started = time.monotonic()
        self.done = 0
        self.total = 0
        self.rebuilt = 0
        self.reused = 0
        self.last_project = ""
        self.estimates: dict[str, int] = {}
        self.session_entry: dict[int, _Entry] = {}  # id(Session) -> its entry

    # ---------------------------------------------------------------- the stages

    def run(self) -> BuildResult:
        config = self.config
        if self.found.empty():
            if not Manifest.load(config.out).sessions:
                raise NothingToRead("no transcript could be read from the sources given")
        else:
            check_separate(config.out, self.found.inputs)
        with SiteWriter(config.out, force=config.force) as writer:
            self.writer = writer
            self.previous = Manifest.load(writer.out)
            same = self.previous.options == self.digest
            changed = self._plan(same)
            self._first_pass(changed)
            gone = self._gone()
            projects = self._assemble()
            if not projects:
                raise NothingToRead("no transcript could be read from the sources given")
            redo = self._keep_unchanged()
            self._final_pass(redo)
            site = self._site_pages(projects, same)
            pruned = self._prune()
            self._save()
            written, unchanged, kept = len(writer.written), len(writer.unchanged), len(writer.kept)
        archived_only = sum(1 for p in site.projects for s in p.sessions if s.kept_since)
        return BuildResult(
            site, config.out, self.found.used_examples, written, unchanged, site.warnings, archived_only,
            self.found.notes, rebuilt=self.rebuilt, reused=self.reused, gone=gone, pruned=len(pruned), kept=kept,
        )

    def _plan(self, same_options: bool) -> list[Unit]:
        """The units to read; the others' sessions are taken from the manifest."""
        same_files: dict[str, list[FileState]] = {}
        for unit in self.units:
            old = self.previous.units.get(unit.key)
            states = self._unchanged(unit, old) if old is not None else None
            if states is not None:
                same_files[unit.key] = states
        reusable = {key for key in same_files
                    if same_options and self._outputs_present(self.previous.units[key])}
        self.lineage = self._lineage(same_files, reusable)
        changed = []
        for unit in self.units:
            old = self.previous.units.get(unit.key)
            if unit.key not in reusable or old.inherit != self.lineage.digest(unit.key):
                changed.append(unit)
                self.estimates[unit.key] = 1 if unit.kind == CLAUDE or old is None else max(1, len(old.sessions))
                self.total += self.estimates[unit.key]
                continue
            self.unit_states[unit.key] = UnitState(old.kind, same_files[unit.key], old.sessions, old.warnings,
                                                   old.since, old.inherit)
            for key in old.sessions:
                stored = self.previous.sessions[key]
                self.entries[key] = _Entry(key, unit.key, stored.summary, stored.project, "reused",
                                           written_slug=stored.slug, outputs=list(stored.outputs),
                                           tally_file=stored.tally, links=dict(stored.links))
                self.reused += 1
                self.total += 1
                self._progress(stored.project.get("name", ""))
        return changed

    def _lineage(self, same_files: dict[str, list[FileState]], reusable: set[str]) -> Lineage:
        """Which Claude sessions resume another (resumes.py), scanning in the worker pool."""
        claude = [(unit.key, unit.paths[0], unit.labels[0]) for unit in self.units if unit.kind == CLAUDE]
        return plan_lineage(claude, self.previous, same_files, reusable, out=self.writer.out,
                            prune=self.config.prune, scan=lambda files: scan_files(files, self.workers))

    def _unchanged(self, unit: Unit, old: UnitState) -> list[FileState] | None:
        """The unit's files now, when they hold what was read last time; else None.
        Size and mtime first; the checksum only when they differ (a touched file)."""
        if old.kind != unit.kind or old.since != _since_digest(unit) or len(old.files) != len(unit.paths):
            return None
        now = unit.states()
        for path, state, before in zip(unit.paths, now, old.files):
            if state is None or state.label != before.label or state.size != before.size:
                return None
            if state.mtime_ns != before.mtime_ns:
                state.sha256 = sha256_prefix(Path(path), state.size)
                if state.sha256 != before.sha256:
                    return None
            state.sha256 = before.sha256
        return now  # type: ignore[return-value]

    def _outputs_present(self, old: UnitState) -> bool:
        root = self.writer.out
        for key in old.sessions:
            stored = self.previous.sessions.get(key)
            if stored is None or not is_regular_file(root / STATE_DIR / stored.tally):
                return False
            if not all(is_regular_file(root / path) for path in stored.outputs):
                return False
            if stored.scan and not is_regular_file(root / STATE_DIR / stored.scan):
                return False
        return True

    def _first_pass(self, units: list[Unit]) -> None:
        counts: Counter[str] = Counter()
        own: dict[str, tuple[str, ...]] = {}
        redactor = self.options.redactor()  # a Claude session's id is its file's name, redacted
        for unit in self.units:
            if unit.kind == CLAUDE:
                mine = (optimistic_slug(redactor.text(Path(unit.paths[0]).stem)).casefold(),)
            else:
                old = self.previous.units.get(unit.key)
                mine = tuple(self.previous.sessions[k].slug.casefold() for k in (old.sessions if old else ())
                             if k in self.previous.sessions)
            own[unit.key] = mine
            counts.update(mine)
        current = {unit.key for unit in self.units}
        for stored in self.previous.sessions.values():
            if stored.unit not in current:  # gone: it keeps its slug
                counts[stored.slug.casefold()] += 1
        self.options = replace(self.options, slug_counts=tuple(sorted(counts.items())))
        jobs = [Job(unit, own_slugs=own[unit.key], inherit=self.lineage.decision(unit.key)) for unit in units]
        run_jobs(jobs, self.options, self.workers, lambda i, result: self._take(result, first=True))

    def _take(self, result: UnitResult, *, first: bool) -> None:
        """A unit's sessions, as a worker gave them: write their files now."""
        unit = result.unit
        if first:
            for line in result.warnings:
                self.config.report(f"warning: {Warning(*line)}")
            self.unit_states[unit.key] = UnitState(
                unit.kind, result.files, [s.key for s in result.sessions],
                [[w.file, w.line, w.reason] for w in scrub_warnings([Warning(*w) for w in result.warnings],
                                                                   self.options.redactor())],
                _since_digest(unit), self.lineage.digest(unit.key),
            )
        for one in result.sessions:
            entry = self.entries.get(one.key)
            if first:
                entry = self.entries[one.key] = _Entry(one.key, unit.key, one.summary, one.project, "rebuilt",
                                                       tally_json=one.tally, tally_file=tally_name(one.tally))
                self.rebuilt += 1
            if entry is None or one.files is None:
                continue
            entry.outputs = self._write(one.files)
            entry.written_slug = one.slug
            if not first:
                self._note_parts(entry, one.summary)
            entry.links = one.links
            if first:
                self._progress(one.project["name"])
        if first:
            self.total += len(result.sessions) - self.estimates.get(unit.key, len(result.sessions))

    @staticmethod
    def _note_parts(entry: _Entry, summary: dict[str, Any]) -> None:
        """A page rendered again by the second pass (other links, another name) may
        split at other places: where its linked moments landed is its latest render's."""
        parts = dict(summary.get("anchor_parts") or {})
        entry.summary = {**entry.summary, "anchor_parts": parts}
        if entry.session is not None:
            entry.session.anchor_parts = parts

    def _write(self, files: list[tuple[str, bytes]]) -> list[str]:
        paths = []
        for path, data in files:
            paths.append(path)
            if path in self.claimed:
                continue  # an image two sessions show (content-addressed), or a file kept already
            self.claimed.add(path)
            self.writer.write(path, data)
        return paths

    def _keep(self, path: str) -> None:
        """Own a file of the last build without writing it again (once per build)."""
        if path not in self.claimed:
            self.writer.keep(path)
            self.claimed.add(path)

    def _gone(self) -> int:
        """Sessions of the last build whose source is gone: kept, with their pages
        and summaries, until ``--prune`` (the archive can bring their source back)."""
        live = {(e.summary.get("source"), e.summary.get("id")) for e in self.entries.values()}
        count = 0
        for key, stored in self.previous.sessions.items():
            if key in self.entries:
                continue  # read again, or reused
            if self.config.prune or (stored.summary.get("source"), stored.summary.get("id")) in live:
                continue  # pruned, or back under another name (that copy wins)
            self.entries[key] = _Entry(key, stored.unit, stored.summary, stored.project, "gone",
                                       written_slug=stored.slug, outputs=list(stored.outputs),
                                       tally_file=stored.tally, links=dict(stored.links), scan=stored.scan,
                                       group=stored.group)
            count += 1
        return count

    def _assemble(self) -> list[Project]:
        """Projects from the summaries: sessions newest first, final slugs."""
        by_project: dict[str, list[_Entry]] = {}
        for entry in self.entries.values():
            by_project.setdefault(entry.project["id"], []).append(entry)
        projects = []
        for members in by_project.values():
            for entry in members:
                entry.session = session_from_summary(entry.summary, "")
                self.session_entry[id(entry.session)] = entry
            members.sort(key=lambda e: _session_order(e.session), reverse=True)
            slugs = unique_slugs([e.session.id for e in members])
            taken = {s.casefold() for e, s in zip(members, slugs) if e.status != "gone"}
            kept = []
            for entry, chosen in zip(members, slugs):
                if entry.status == "gone" and chosen != entry.written_slug:
                    chosen = entry.written_slug or chosen  # its page cannot be made again: keep its name
                    if chosen.casefold() in taken:
                        del self.entries[entry.key]  # a live session now owns that name
                        continue
                entry.slug = entry.session.slug = chosen
                kept.append(entry)
            if kept:
                projects.append(_project(kept[0].project, [e.session for e in kept], [None] * len(kept)))
        projects.sort(key=lambda p: (_latest(p.sessions), p.id), reverse=True)
        self.links = {
            session.id: urls.session_html(project.id, session.slug)
            for project in projects for session in project.sessions
        }
        return projects

    def _keep_unchanged(self) -> list[_Entry]:
        """Keep the files of sessions that were not rendered again; the ones that
        must be (a new slug, a link to a page that moved, a file gone missing)
        are returned."""
        redo = []
        for entry in self.entries.values():
            moved = entry.status != "gone" and any(self.links.get(k) != v for k, v in entry.links.items())
            if entry.written_slug != entry.slug or moved:
                redo.append(entry)
                continue
            if entry.status == "rebuilt":
                continue  # its files were written by the first pass
            try:
                for path in entry.outputs:
                    self._keep(path)
            except OutputError:
                if entry.status == "gone":
                    self.config.report(f"warning: the pages of session {entry.key} are gone and its source too")
                    del self.entries[entry.key]
                    continue
                redo.append(entry)
        return redo

    def _final_pass(self, redo: list[_Entry]) -> None:
        units = {unit.key: unit for unit in self.units}
        by_unit: dict[str, set[str]] = {}
        for entry in redo:
            if entry.unit in units:
                by_unit.setdefault(entry.unit, set()).add(entry.key)
        if not by_unit:
            return
        slugs = {e.key: e.slug for e in self.entries.values()}
        jobs = [Job(units[key], final=True, slugs={k: s for k, s in slugs.items() if k.startswith(key + "#")},
                    links=self.links, only=frozenset(keys), inherit=self.lineage.decision(key))
                for key, keys in by_unit.items()]
        run_jobs(jobs, self.options, self.workers, lambda i, result: self._take(result, first=False))

    def _site_pages(self, projects: list[Project], same_options: bool) -> Site:
        """The index and project pages with their sidecars, from the summaries."""
        warnings = list(scrub_warnings(self.discovery_warnings, self.options.redactor()))
        for unit in self.units:
            state = self.unit_states.get(unit.key)
            if state is not None:
                warnings += [Warning(*w) for w in state.warnings]
        warnings.sort(key=lambda w: (w.file, w.line, w.reason))
        signature = self._signature(projects, warnings)
        previous = self.previous
        if same_options and previous.site_outputs and previous.site_signature == signature:
            try:
                for path in previous.site_outputs:
                    self._keep(path)
                self.site_outputs, self.signature = list(previous.site_outputs), signature
                return self._stats(projects, warnings, lazy=True)
            except OutputError:
                pass  # a file went missing: render them all
        site = self._stats(projects, warnings, lazy=False)
        from .render.pages import Renderer

        renderer = Renderer(Path(self.options.theme) if self.options.theme else None, search=self.options.search)
        files: list[tuple[str, bytes]] = list(renderer.assets())
        kept: list[str] = []
        for project in site.projects:
            if not (same_options and self._keep_project(project, kept)):
                files.append((urls.project_html(project.id), renderer.project_page(project, site)))
                files.append((urls.project_json(project.id), json_bytes(sidecars.project_json(project))))
        files.append((urls.INDEX_HTML, renderer.index_page(site)))
        files.append((urls.INDEX_JSON, json_bytes(sidecars.site_json(site))))
        if self.options.search:
            files.append((search.FALLBACK_PATH, search.fallback_script(site)))
        self.site_outputs = sorted(kept + self._write(files))
        if self.options.search:  # after the session pages, which Pagefind reads from OUT; a bundle per project
            self.site_outputs += search.pagefind_shards(self.writer, previous.site_outputs, self._write, self._keep,
                                                        self.config.report)
        self.signature = signature
        return site

    def _prune(self) -> list[str]:
        """Delete what the last build wrote and this one did not: with ``--prune``
        everything (the pages of sessions whose source is gone among them); else
        only files that something newer replaced (a search bundle, the parts of a
        page split otherwise), and only when the last manifest says whose each
        file was. Assets stay: the pages of a session whose source is gone may
        still name the ones they were built with."""
        if not self.config.prune:
            if not self.previous.valid:
                return []
            for path in self.previous.site_outputs:
                if path.startswith(urls.ASSETS_DIR + "/") and is_regular_file(self.writer.out / path):
                    self._keep(path)
        return self.writer.prune()

    def _keep_project(self, project: Project, kept: list[str]) -> bool:
        """Keep a project's page and sidecar as the last build wrote them when
        what they are made of is the same: an append to one session must not
        render every project page again (a site may have hundreds)."""
        paths = [urls.project_html(project.id), urls.project_json(project.id)]
        if self.previous.project_signatures.get(project.id) != self.project_signatures[project.id]:
            return False
        if not all(path in self.previous.site_outputs and is_regular_file(self.writer.out / path) for path in paths):
            return False
        for path in paths:
            self._keep(path)
        kept.extend(paths)
        return True

    def _signature(self, projects: list[Project], warnings: list[Warning]) -> str:
        """What the index and project pages are made of: when it is the same as
        last time, they are too (the options digest is checked apart). Each
        project's own part is kept in ``project_signatures``."""
        h = hashlib.sha256()
        self.project_signatures = {}
        for project in projects:
            mine = hashlib.sha256(orjson.dumps(project.id))
            for session in project.sessions:
                entry = self.session_entry[id(session)]
                mine.update(orjson.dumps([entry.key, entry.slug, entry.project, entry.summary, entry.tally_file],
                                         option=orjson.OPT_SORT_KEYS))
            self.project_signatures[project.id] = mine.hexdigest()
            h.update(mine.digest())
        h.update(orjson.dumps([[w.file, w.line, w.reason] for w in warnings]))
        return h.hexdigest()

    def _stats(self, projects: list[Project], warnings: list[Warning], *, lazy: bool) -> Site:
        """Project and site numbers: unions of the sessions' identities. With
        ``lazy`` (nothing changed) the stored numbers are enough for the result."""
        out = []
        for project in projects:
            tallies = []
            for session in project.sessions:
                entry = self.session_entry[id(session)]
                tallies.append(None if lazy else self._tally(entry))
            rebuilt = _project({"id": project.id, "name": project.name, "cwd": project.cwd}, project.sessions,
                               tallies)
            if lazy:
                rebuilt.stats = self.previous.project_stats.get(project.id, rebuilt.stats)
            out.append(rebuilt)
        site = _site(out, warnings)
        if lazy and self.previous.site_stats:
            site.stats = dict(self.previous.site_stats)
        self.project_stats = {p.id: p.stats for p in site.projects}
        self.site_stats = site.stats
        return site

    def _tally(self, entry: _Entry) -> Tally | None:
        if entry.tally_json is not None:
            return tally_from_json(orjson.loads(entry.tally_json))
        tally = self.previous.tally_file(self.writer.out, entry.tally_file)
        if tally is None:
            self.config.report(f"warning: the numbers of session {entry.summary.get('id')} are missing "
                               "from the last build's state; its project's totals leave it out")
        return tally

    def _save(self) -> None:
        manifest = Manifest(options=self.digest)
        manifest.units = {key: self.unit_states[key] for key in sorted(self.unit_states)}
        out = self.writer.out
        for key in sorted(self.entries):
            entry = self.entries[key]
            if entry.tally_json is not None:
                save_state(out, entry.tally_file, entry.tally_json)
            scan = self.lineage.scans.get(entry.unit, entry.scan)
            if scan in self.lineage.new:
                save_state(out, scan, self.lineage.new[scan])
            manifest.sessions[key] = SessionState(key, entry.unit, entry.slug, entry.project, entry.summary,
                                                  entry.outputs, entry.tally_file, scan,
                                                  self.lineage.groups.get(entry.unit, entry.group), entry.links)
        manifest.site_outputs = self.site_outputs
        manifest.site_signature = self.signature
        manifest.project_stats = self.project_stats
        manifest.project_signatures = self.project_signatures
        manifest.site_stats = self.site_stats
        remove_states(out, {s.tally for s in manifest.sessions.values()}
                      | {s.scan for s in manifest.sessions.values() if s.scan})
        # Highlighted blocks no session of this manifest uses go (render/blockstore.py).
        collect_blocks(out, manifest.sessions)
        manifest.save(out)

    def _progress(self, project: str) -> None:
        self.done += 1
        self.last_project = project or self.last_project
        if self.config.progress is not None:
            self.config.progress(Progress(self.done, max(self.total, self.done), self.last_project,
                                          self.rebuilt, self.reused, time.monotonic() - self.started))


def _since_digest(unit: Unit) -> str:
    return hide(repr(unit.since)) if unit.since else ""


