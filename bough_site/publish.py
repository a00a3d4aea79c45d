"""Publish: the pages of the site itself, made from the sessions' summaries.

The index, each project's page and sidecar, the static assets and the search
index, once every session of the build is assembled. What each is made of is
digested (a *signature*): when it is the last build's, the file the last build
wrote is kept instead of rendered again, so an append to one session renders
one project page however many projects there are.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from . import __version__, failed, sidecars, urls
from .errors import OutputError
from .manifest import Manifest
from .model import COST_KEY, UNKNOWN_COST_KEY, Project, Session, Site, InputWarning
from .options import Options
from .render.months import is_paged
from .search.offline import FALLBACK_PATH, DetailsName, HoldDetails, fallback_script, part_script, project_parts
from .search.shards import EarlyShards, shard_names, start_shards
from .site import ProjectCounts, site_counted, site_stats
from .summaries import details_at_hand
from .write import SiteWriter, Staged, discard, is_regular_file, json_bytes, script_json


@dataclass
class Outputs:
    """The build's files in OUT: each written or kept once (a content-addressed
    image two sessions show is written by the first)."""

    writer: SiteWriter
    claimed: set[str] = field(default_factory=set)
    # OUT's folders and their times as the last build left them (quick.Look.left)
    left: Mapping[str, int] = field(default_factory=dict)

    def write(self, files: list[tuple[str, bytes | Iterator[bytes]]]) -> list[str]:
        paths = []
        for path, data in files:
            paths.append(path)
            if path not in self.claimed:
                self.claimed.add(path)
                self.writer.write(path, data)
        return paths

    def commit(self, files: list[Staged], again: Collection[str] = ()) -> list[str]:
        """Files a worker staged (write.Stager): each put in place by the first session
        to give it; ``again``: the paths this session's own earlier render put in place
        in this build, replaced (the final pass's page, its links known); those of
        them it gives no more (a page split in fewer parts) are taken back."""
        paths = []
        for file in files:
            paths.append(file.relpath)
            if file.relpath in again and file.relpath in self.claimed:
                self.writer.recommit(file)
            elif file.relpath in self.claimed:
                discard(file)
            else:
                self.claimed.add(file.relpath)
                self.writer.commit(file)
        # An image may be another session's too (the first to give it put it in place): never taken back.
        for path in sorted(set(again).difference(paths)):
            if path in self.claimed and not path.startswith(urls.IMAGES_DIR + "/"):
                self.writer.withdraw(path)
                self.claimed.discard(path)
        return paths

    def as_left(self, folder: str) -> bool:
        """Whether this folder (a path under OUT) has the time the last build left it
        with (quick.Look.left): nothing was added to it, taken from it or renamed in
        it since, and bough puts every file in place by renaming a new one into its
        folder (as the quick check trusts: quick.py)."""
        recorded = self.left.get(os.path.join(".", folder))
        try:
            return recorded is not None and os.lstat(os.path.join(self.writer.out, folder)).st_mtime_ns == recorded
        except OSError:
            return False

    def untouched(self, files: Collection[str]) -> bool:
        """Whether these files (paths under OUT) are as the last build left them, told
        without reading them: each in a folder :meth:`as_left`, and none written since
        that build ended: its ctime, which no tool sets back, is before the last time
        that build recorded (strictly: the kernel's file times are as coarse as a few ms)."""
        if not self.left or not all(self.as_left(folder) for folder in {path.rpartition("/")[0] for path in files}):
            return False
        ended = max(self.left.values())
        try:
            return all(os.lstat(os.path.join(self.writer.out, path)).st_ctime_ns < ended for path in files)
        except OSError:
            return False

    def keep(self, path: str) -> None:
        """Own a file of the last build without writing it again (OutputError when it is gone)."""
        if path not in self.claimed:
            self.writer.keep(path)
            self.claimed.add(path)


@dataclass
class SitePages:
    """What publishing made, for the manifest."""

    site: Site
    outputs: list[str]
    signature: str
    project_signatures: dict[str, str]
    apart: list[str]  # the projects' sums, when no identity is in two of them (site.site_counted)


def signatures(projects: list[Project], parts: Callable[[Session], list[Any]], warnings: list[InputWarning],
               before: dict[str, str] | None = None, same: Collection[str] = ()) -> tuple[str, dict[str, str]]:
    """What the index and project pages are made of (``parts`` of each session),
    as one digest for the site and one per project; and, for a big project, one
    per month page, by its path (:func:`month_signatures`). The projects in
    ``same``, whose sessions' parts are what they were when the signatures
    ``before`` were made, have theirs (and their months') taken from there."""
    site = hashlib.sha256()
    per_project: dict[str, str] = {}
    before = before or {}
    months_before = _month_pages(before) if same else {}
    for project in projects:
        if project.id in same and _DIGEST.fullmatch(before.get(project.id, "")):
            per_project.update((key, before[key]) for key in [project.id, *months_before.get(project.id, [])])
            site.update(bytes.fromhex(before[project.id]))
            continue
        mine = hashlib.sha256(orjson.dumps(project.id))
        paged = is_paged(len(project.sessions))
        made: dict[int, bytes] = {}
        for session in project.sessions:
            data = orjson.dumps(parts(session), option=orjson.OPT_SORT_KEYS)
            mine.update(data)
            if paged:
                made[id(session)] = data
        per_project[project.id] = mine.hexdigest()
        site.update(mine.digest())
        if paged:
            per_project.update(month_signatures(project, lambda session: made[id(session)]))
    site.update(orjson.dumps([[w.file, w.line, w.reason] for w in warnings]))
    return site.hexdigest(), per_project


_DIGEST = re.compile(r"[0-9a-f]{64}")

# What a month page is made of besides its sessions; a change to the month
# pages' template or layout that the theme's digest does not see bumps it.
_MONTH_PAGE = b"bough month page 1"


def month_signatures(project: Project, parts: Callable[[Session], bytes]) -> dict[str, str]:
    """Each month page of a big project (render/months.py) by its path: a digest of
    its sessions' ``parts``, its name, its neighbours' names and what the page
    shows of the project (its name, folder, and whether a row names its source).
    A session added to the newest month changes that month's digest alone."""
    from .render.formats import source_label
    from .render.months import paging
    from .render.project_summary import newest_first

    pages = paging(newest_first(project.sessions))
    if pages is None:
        return {}
    several = len({source_label(s.source) for s in project.sessions}) > 1
    head = orjson.dumps([project.id, project.name, project.cwd, several])
    out = {}
    for page in pages.pages:
        newer, older = pages.around(page)
        digest = hashlib.sha256(_MONTH_PAGE)
        digest.update(head)
        digest.update(orjson.dumps([[p.name, p.title] if p else None for p in (page, newer, older)]))
        for session in page.sessions:
            digest.update(parts(session))
        out[urls.project_month_html(project.id, page.name)] = digest.hexdigest()
    return out


if TYPE_CHECKING:  # the pages' modules are imported when a page is made: a build that keeps them all needs none
    from .render.project_summary import ProjectFacts


class FactsKept(Protocol):
    """Each project's facts kept by what the project is made of (its signature)."""

    def get(self, signature: str) -> ProjectFacts | None: ...

    def add(self, signature: str, facts: ProjectFacts) -> None: ...


@dataclass(frozen=True)
class SiteParts:
    """What the site's own pages are made of."""

    projects: list[Project]
    # A project's numbers, from its sessions' counting identities (asked only when
    # something changed)
    tally: ProjectCounts
    warnings: list[InputWarning]
    signature: str  # of the whole (:func:`signatures`)
    project_signatures: dict[str, str]  # of each project
    # The sessions given their summaries' details meanwhile (summaries.DETAIL_FIELDS):
    # a build holds them a project at a time. None: the sessions have them.
    details: HoldDetails | None = None
    details_name: DetailsName | None = None  # what names a session's details (None: they are at hand)
    facts: FactsKept | None = None  # each project's facts, kept (state_reads.KeptFacts; None: none kept)


def publish(parts: SiteParts, *, previous: Manifest, same_options: bool, options: Options, outputs: Outputs,
            report: Callable[[str], None], workers: int = 1, early: EarlyShards | None = None) -> SitePages:
    """The site's own pages, rendered or kept."""
    projects, tally, warnings = parts.projects, parts.tally, parts.warnings
    signature, project_signatures = parts.signature, parts.project_signatures
    if same_options and previous.site_outputs and previous.site_signature == signature:
        try:
            for path in previous.site_outputs:
                outputs.keep(path)
            site = site_stats(projects, warnings, previous)
            return SitePages(site, list(previous.site_outputs), signature, project_signatures, list(previous.apart))
        except OutputError:
            pass  # a file went missing: render them all
    # Pagefind reads the session pages, all written by now: its runs (a bundle per
    # project, a big one's cut by months: search/shards.py) go on while the site's
    # own pages are made, and are written after them.
    shards = _shard_names(projects) if options.search else {}
    runs = start_shards(outputs, previous.site_outputs, report, workers=workers,
                        early=early, search_limit=options.search_limit, names=shards) \
        if options.search else contextlib.nullcontext()
    with runs as shard_runs:
        site, apart = site_counted(projects, tally, warnings, previous)
        made = _site_files(site, parts, _Before(previous, same_options, outputs), options, shards)
        paths = sorted(made.paths)
        if shard_runs is not None:
            paths += shard_runs.finish(outputs.write)
    for line in made.warnings:
        report(f"warning: {line}")
    # A page made without a part that failed is made again by the next build.
    signatures_kept = {key: value for key, value in project_signatures.items() if key not in made.fell_back}
    return SitePages(site, paths, "" if made.warnings else signature, signatures_kept, apart)


@dataclass
class _SiteFiles:
    paths: list[str]
    warnings: list[InputWarning] = field(default_factory=list)  # a part of a page bough failed to make
    fell_back: set[str] = field(default_factory=set)  # the projects whose page left that part out


def _shard_names(projects: list[Project]) -> dict[str, str]:
    """The search shard of every session's pages (search/shards.py: shard_names)."""
    return {stem: name for project in projects for stem, name in shard_names(project.id, project.sessions).items()}


def _site_files(site: Site, parts: SiteParts, before: _Before, options: Options,
                shards: dict[str, str]) -> _SiteFiles:
    """The index, each project's page and sidecar (rendered, or kept when what they
    are made of is the same), the assets and search's fallback (its parts by
    ``shards``: :func:`_shard_names`): their paths."""
    from .render.pages import Renderer

    project_signatures, details = parts.project_signatures, parts.details or details_at_hand
    previous, same_options, outputs = before.previous, before.same_options, before.outputs

    renderer = Renderer(Path(options.theme) if options.theme else None, search=options.search,
                        compiled=options.compiled_templates(), prices=options.prices_version())
    files: list[tuple[str, bytes | Iterator[bytes]]] = list(renderer.assets())
    kept: list[str] = []
    made = _SiteFiles([])
    month_pages = _month_pages(project_signatures)
    for project in site.projects:
        unchanged = previous.project_signatures.get(project.id) == project_signatures[project.id]
        mine = month_pages.get(project.id, [])
        if not (same_options and unchanged and _keep_project(project, mine, previous, outputs, kept)):
            with details(project.sessions):
                made.paths += outputs.write(_project_files(renderer, project, site, project_signatures, before,
                                                           kept, made, options))
    _add_warnings(site, made.warnings)
    facts = _project_facts(site, parts, shards, options.search)
    files.append((urls.INDEX_HTML, _index_page(renderer, site, made, facts)))
    files.append((urls.INDEX_JSON, json_bytes(sidecars.site_json(site, options.prices_version()))))
    if options.search:
        files.append((FALLBACK_PATH, _search_fallback(site, shards, before, kept, made, details, parts.details_name,
                                                      facts)))
    made.paths = kept + made.paths + outputs.write(files)
    return made


def _project_facts(site: Site, parts: SiteParts, shards: dict[str, str], search: bool) -> dict[str, ProjectFacts]:
    """What the index and search's fallback index take of each project: kept from an
    earlier build when the project is made of what it was then (its signature), else
    made from its sessions and kept. None made without a place to keep them."""
    from .render.project_summary import ProjectFacts

    if parts.facts is None:
        return {}
    out = {}
    for project in site.projects:
        signature = parts.project_signatures.get(project.id, "")
        facts = parts.facts.get(signature) if signature else None
        if facts is None:
            digests = [part.digest for part in project_parts(project, shards, parts.details_name)] if search else []
            facts = ProjectFacts.of(project, digests)
            if signature:
                parts.facts.add(signature, facts)
        out[project.id] = facts
    return out


def _search_fallback(site: Site, shards: dict[str, str], before: _Before, kept: list[str], made: _SiteFiles,
                     details: HoldDetails, details_name: DetailsName | None, facts: dict[str, ProjectFacts]) -> bytes:
    """search-index.js, and its parts: each kept when the last build wrote it (its name
    is the digest of what it is made of, ``facts`` tell for a project left alone), else
    made, its sessions given their details meanwhile (an append makes again the part of
    the grown session)."""
    parts = [part for project in site.projects for part in project_parts(
        project, shards, details_name, facts[project.id].parts if project.id in facts else None)]
    for part in parts:
        if before.keep_named(part.path):
            kept.append(part.path)
        else:
            made.paths += before.outputs.write([(part.path, part_script(part, details))])
    return fallback_script(parts)


def _project_files(renderer: Any, project: Project, site: Site, project_signatures: dict[str, str],
                   before: _Before, kept: list[str], made: _SiteFiles, options: Options) -> list[tuple[str, bytes]]:
    """A project's page, sidecar and sessions.js (a big one's rows.js and month pages too)."""
    files = []
    summary = _summary(project)
    page = _project_page(renderer, project, site, made, summary)
    if page is not None:
        files.append((urls.project_html(project.id), page))
    files.append((urls.project_json(project.id), json_bytes(sidecars.project_json(project, options.prices_version()))))
    files.append((urls.project_sessions_js(project.id), sessions_script(project)))
    if summary.paging is not None:
        files.append((urls.project_rows_js(project.id), rows_script(project, summary)))
        files += _month_files(renderer, project, summary, project_signatures, before, kept, made)
    return files


def _summary(project: Project) -> Any:
    from .render.project_summary import summarize_project

    return summarize_project(project)


def _month_pages(project_signatures: dict[str, str]) -> dict[str, list[str]]:
    """The month pages each big project has (the paths :func:`signatures` digested)."""
    found: dict[str, list[str]] = {}
    for key in project_signatures:
        if "/months/" in key:
            found.setdefault(key.split("/", 2)[1], []).append(key)
    return found


@dataclass
class _Before:
    """What the last build wrote, to keep a month page that is the same."""

    previous: Manifest
    same_options: bool
    outputs: Outputs
    paths: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.paths = set(self.previous.site_outputs)

    def keep(self, path: str, signature: str | None) -> bool:
        """Keep a page whose signature is the one the last build wrote it with."""
        return bool(signature) and self.previous.project_signatures.get(path) == signature and self.keep_named(path)

    def keep_named(self, path: str) -> bool:
        """Keep a file the last build wrote, whose name says what it is made of."""
        if not (self.same_options and path in self.paths and is_regular_file(self.outputs.writer.out / path)):
            return False
        try:
            self.outputs.keep(path)
        except OutputError:
            return False
        return True


def _month_files(renderer: Any, project: Project, summary: Any, project_signatures: dict[str, str],
                 before: _Before, kept: list[str], made: _SiteFiles) -> list[tuple[str, bytes]]:
    """A big project's month pages: each kept when what it is made of is the last
    build's (an older month's page, when a session joins the newest), else
    rendered. Should bough fail making one, that page alone is left out, saying so."""
    files = []
    for month in summary.paging.pages:
        path = urls.project_month_html(project.id, month.name)
        if before.keep(path, project_signatures.get(path)):
            kept.append(path)
            continue
        try:
            files.append((path, renderer.month_page(project, summary, month)))
        except Exception as err:  # noqa: BLE001: contained as described
            if not failed.contained(err):
                raise
            made.warnings.append(_render_warning(path, "its page", err))
            made.fell_back.add(path)
    return files


def _index_page(renderer: Any, site: Site, made: _SiteFiles, facts: dict[str, ProjectFacts]) -> bytes:
    """The index; should bough fail making its chart, the index without it, saying
    so. (An index that cannot be made at all is the site's failure: that is raised.)"""
    try:
        return renderer.index_page(site, facts=facts)
    except Exception as err:  # noqa: BLE001: contained as described
        if not failed.contained(err):
            raise
        made.warnings.append(_render_warning(urls.INDEX_HTML, "its activity chart", err))
        _add_warnings(site, made.warnings[-1:])
        return renderer.index_page(site, with_chart=False, facts=facts)


def _add_warnings(site: Site, warnings: list[InputWarning]) -> None:
    """Warnings of publishing join the site's, on the index and in index.json."""
    site.warnings = sorted([*site.warnings, *warnings], key=lambda w: (w.file, w.line, w.reason))


def _render_warning(page: str, part: str, err: Exception) -> InputWarning:
    return InputWarning(page, 0, f"bough could not render {part} ({failed.Failure('render', err).what}); left out. "
                            f"This is a bug in bough {__version__}: please report it")


def _project_page(renderer: Any, project: Project, site: Site, made: _SiteFiles, summary: Any = None) -> bytes | None:
    """A project's page; should bough fail making it, the page without what its
    agents built, and failing that none: a failure costs that page, never the
    site (docs/safety.md S11). Either is a warning that asks for a report."""
    for with_work in (True, False):
        try:
            return renderer.project_page(project, site, with_work=with_work, summary=summary)
        except Exception as err:  # noqa: BLE001: contained as described
            if not failed.contained(err):
                raise
            part = "what its agents built" if with_work else "its page"
            made.warnings.append(_render_warning(urls.project_html(project.id), part, err))
            made.fell_back.add(project.id)
    return None


def _keep_project(project: Project, month_pages: list[str], previous: Manifest, outputs: Outputs,
                  kept: list[str]) -> bool:
    """Keep a project's page and sidecar (and a big project's rows and month
    pages) as the last build wrote them (what they are made of is the same): an
    append to one session must not render every project page again (a site may
    have hundreds)."""
    paths = [urls.project_html(project.id), urls.project_json(project.id), urls.project_sessions_js(project.id)]
    if month_pages:
        paths += [urls.project_rows_js(project.id), *month_pages]
    root = outputs.writer.out
    if not all(path in previous.site_outputs and is_regular_file(root / path) for path in paths):
        return False
    for path in paths:
        outputs.keep(path)
    kept.extend(paths)
    return True


def sessions_script(project: Project) -> bytes:
    """``projects/<id>/sessions.js``: the project's sessions, oldest first, as
    ``[page, title, date]`` (the page relative to the project's folder), assigned
    to ``window.BOUGH_SESSIONS``. Each session page loads it to link the sessions
    before and after it (session.js): a page then depends on no other session's
    title, so adding a session rewrites this file and the project's page, never
    its neighbours' pages (written whenever the project page is: the same
    signature). The JSON is escaped as docs/safety.md S2 says for data handed to scripts."""
    from .render.formats import when
    from .render.page_links import link
    from .render.project_summary import newest_first

    home = urls.project_html(project.id)
    rows = []
    for session in reversed(newest_first(project.sessions)):
        started = when(session.started)
        rows.append([link(home, urls.session_html(project.id, session.slug)), session.title or "Untitled session",
                     started.date if started else ""])
    return b"/* bough: this project's sessions, oldest first: [page, title, date] (bough_site/publish.py) */\n" \
        b"window.BOUGH_SESSIONS = " + script_json(rows) + b";\n"


ROWS_SCHEMA = "bough.rows/2"


def rows_data(project: Project, summary: Any) -> dict[str, Any]:
    """A big project's session rows, newest first, as its pages show them: what
    rows.js sorts and filters across all its pages (docs/sidecars.md, bough.rows;
    docs/schema/rows.schema.json). Each row is a list, its fields named once in
    ``columns``; a page is relative to the project's folder."""
    from .render.formats import short_models, source_label, tokens, when
    from .render.formats import seconds as length

    home = urls.project_html(project.id)
    sources = sorted({source_label(s.source) for s in summary.sessions})
    where = {label: n for n, label in enumerate(sources)}
    rows = []
    # The cost columns where the sessions are priced (not with --no-cost): the
    # estimate in USD (null: none) and the calls of unknown price it leaves out.
    priced = any(COST_KEY in s.stats for s in summary.sessions)
    for s in summary.sessions:
        started = when(s.started)
        rows.append([
            urls.in_project(project.id, urls.session_html(project.id, s.slug)),
            s.title or "Untitled session",
            where[source_label(s.source)],
            started.iso if started else None,
            length(s.started, s.ended),
            short_models(s.models),
            s.stats.get("prompts", 0) if isinstance(s.stats.get("prompts", 0), int) else 0,
            tokens(s.stats),
            bool(s.parent_id),
            s.kept_since[:10] if s.kept_since else None,
            *((_row_cost(s.stats), s.stats.get(UNKNOWN_COST_KEY, 0)) if priced else ()),
        ])
    months = [[m.key or None, m.label, len(m.sessions),
               urls.relative(home, urls.project_month_html(project.id, summary.paging.own_page(m).name))]
              for m in summary.paging.months]
    return {"schema": ROWS_SCHEMA, "project": project.id, "sources": sources, "months": months,
            "columns": ["page", "title", "source", "started", "seconds", "models", "prompts", "tokens", "fork",
                        "kept_since", *(("cost", "unpriced") if priced else ())],
            "rows": rows}


def _row_cost(stats: dict[str, Any]) -> float | None:
    """A row's cost: the estimate, or null when no call has a known price (as the page's
    own rows say "unknown": cost_text.cost_facts)."""
    value = stats.get(COST_KEY)
    if not value and (stats.get(UNKNOWN_COST_KEY) or 0) >= (stats.get("replies") or 0) > 0:
        return None
    return value


def rows_script(project: Project, summary: Any) -> bytes:
    """``projects/<id>/rows.js``: :func:`rows_data` assigned to ``window.BOUGH_ROWS``,
    as a script so that it loads from ``file://`` too (a page cannot fetch a file
    there); the JSON escaped as docs/safety.md S2 says for data handed to scripts.
    Written only for a big project, with its pages (the same signature)."""
    return b"/* bough: this project's session rows, newest first (bough.rows/2: docs/sidecars.md) */\n" \
        b"window.BOUGH_ROWS = " + script_json(rows_data(project, summary)) + b";\n"
