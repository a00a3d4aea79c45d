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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import __version__, failed, sidecars, urls
from .errors import OutputError
from .manifest import Manifest
from .model import Project, Session, Site, InputWarning
from .options import Options
from .search.offline import FALLBACK_PATH, fallback_script
from .search.shards import EarlyShards, start_shards
from .site import site_stats
from .stats import Tally
from .write import SiteWriter, Staged, discard, is_regular_file, json_bytes


@dataclass
class Outputs:
    """The build's files in OUT: each written or kept once (a content-addressed
    image two sessions show is written by the first)."""

    writer: SiteWriter
    claimed: set[str] = field(default_factory=set)

    def write(self, files: list[tuple[str, bytes]]) -> list[str]:
        paths = []
        for path, data in files:
            paths.append(path)
            if path not in self.claimed:
                self.claimed.add(path)
                self.writer.write(path, data)
        return paths

    def commit(self, files: list[Staged]) -> list[str]:
        """Files a worker staged (write.Stager): each put in place by the first session to give it."""
        paths = []
        for file in files:
            paths.append(file.relpath)
            if file.relpath in self.claimed:
                discard(file)
            else:
                self.claimed.add(file.relpath)
                self.writer.commit(file)
        return paths

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


def signatures(projects: list[Project], parts: Callable[[Session], list[Any]],
               warnings: list[InputWarning]) -> tuple[str, dict[str, str]]:
    """What the index and project pages are made of (``parts`` of each session),
    as one digest for the site and one per project."""
    site = hashlib.sha256()
    per_project = {}
    for project in projects:
        mine = hashlib.sha256(orjson.dumps(project.id))
        for session in project.sessions:
            mine.update(orjson.dumps(parts(session), option=orjson.OPT_SORT_KEYS))
        per_project[project.id] = mine.hexdigest()
        site.update(mine.digest())
    site.update(orjson.dumps([[w.file, w.line, w.reason] for w in warnings]))
    return site.hexdigest(), per_project


@dataclass(frozen=True)
class SiteParts:
    """What the site's own pages are made of."""

    projects: list[Project]
    tally: Callable[[Session], Tally | None]  # a session's counting identities (read only when something changed)
    warnings: list[InputWarning]
    signature: str  # of the whole (:func:`signatures`)
    project_signatures: dict[str, str]  # of each project


def publish(parts: SiteParts, *, previous: Manifest, same_options: bool, options: Options, outputs: Outputs,
            report: Callable[[str], None], workers: int = 1, early: EarlyShards | None = None) -> SitePages:
    """The site's own pages, rendered or kept."""
    projects, tally, warnings = parts.projects, parts.tally, parts.warnings
    signature, project_signatures = parts.signature, parts.project_signatures
    if same_options and previous.site_outputs and previous.site_signature == signature:
        try:
            for path in previous.site_outputs:
                outputs.keep(path)
            site = site_stats(projects, None, warnings, previous)
            return SitePages(site, list(previous.site_outputs), signature, project_signatures)
        except OutputError:
            pass  # a file went missing: render them all
    # Pagefind reads the session pages, all written by now: its runs (a bundle per
    # project) go on while the site's own pages are made, and are written after them.
    runs = start_shards(outputs.writer, previous.site_outputs, outputs.keep, report, workers=workers,
                               early=early, search_limit=options.search_limit) \
        if options.search else contextlib.nullcontext()
    with runs as shard_runs:
        site = site_stats(projects, tally, warnings, previous)
        made = _site_files(site, projects, project_signatures, previous, same_options, options, outputs)
        paths = sorted(made.paths)
        if shard_runs is not None:
            paths += shard_runs.finish(outputs.write)
    for line in made.warnings:
        report(f"warning: {line}")
    # A page made without a part that failed is made again by the next build.
    signatures_kept = {key: value for key, value in project_signatures.items() if key not in made.fell_back}
    return SitePages(site, paths, "" if made.warnings else signature, signatures_kept)


@dataclass
class _SiteFiles:
    paths: list[str]
    warnings: list[InputWarning] = field(default_factory=list)  # a part of a page bough failed to make
    fell_back: set[str] = field(default_factory=set)  # the projects whose page left that part out


def _site_files(site: Site, projects: list[Project], project_signatures: dict[str, str], previous: Manifest,
                same_options: bool, options: Options, outputs: Outputs) -> _SiteFiles:
    """The index, each project's page and sidecar (rendered, or kept when what they
    are made of is the same), the assets and search's fallback: their paths."""
    from .render.pages import Renderer

    renderer = Renderer(Path(options.theme) if options.theme else None, search=options.search,
                        compiled=options.compiled_templates())
    files: list[tuple[str, bytes]] = list(renderer.assets())
    kept: list[str] = []
    made = _SiteFiles([])
    for project in site.projects:
        unchanged = previous.project_signatures.get(project.id) == project_signatures[project.id]
        if not (same_options and unchanged and _keep_project(project, previous, outputs, kept)):
            page = _project_page(renderer, project, site, made)
            if page is not None:
                files.append((urls.project_html(project.id), page))
            files.append((urls.project_json(project.id), json_bytes(sidecars.project_json(project))))
            files.append((urls.project_sessions_js(project.id), sessions_script(project)))
    _add_warnings(site, made.warnings)
    files.append((urls.INDEX_HTML, _index_page(renderer, site, made)))
    files.append((urls.INDEX_JSON, json_bytes(sidecars.site_json(site))))
    if options.search:
        files.append((FALLBACK_PATH, fallback_script(site)))
    made.paths = kept + outputs.write(files)
    return made


def _index_page(renderer: Any, site: Site, made: _SiteFiles) -> bytes:
    """The index; should bough fail making its chart, the index without it, saying
    so. (An index that cannot be made at all is the site's failure: that is raised.)"""
    try:
        return renderer.index_page(site)
    except Exception as err:  # noqa: BLE001: contained as described
        if not failed.contained(err):
            raise
        made.warnings.append(_render_warning(urls.INDEX_HTML, "its activity chart", err))
        _add_warnings(site, made.warnings[-1:])
        return renderer.index_page(site, with_chart=False)


def _add_warnings(site: Site, warnings: list[InputWarning]) -> None:
    """Warnings of publishing join the site's, on the index and in index.json."""
    site.warnings = sorted([*site.warnings, *warnings], key=lambda w: (w.file, w.line, w.reason))


def _render_warning(page: str, part: str, err: Exception) -> InputWarning:
    return InputWarning(page, 0, f"bough could not render {part} ({failed.Failure('render', err).what}); left out. "
                            f"This is a bug in bough {__version__}: please report it")


def _project_page(renderer: Any, project: Project, site: Site, made: _SiteFiles) -> bytes | None:
    """A project's page; should bough fail making it, the page without what its
    agents built, and failing that none: a failure costs that page, never the
    site (docs/safety.md S11). Either is a warning that asks for a report."""
    for with_work in (True, False):
        try:
            return renderer.project_page(project, site, with_work=with_work)
        except Exception as err:  # noqa: BLE001: contained as described
            if not failed.contained(err):
                raise
            part = "what its agents built" if with_work else "its page"
            made.warnings.append(_render_warning(urls.project_html(project.id), part, err))
            made.fell_back.add(project.id)
    return None


def _keep_project(project: Project, previous: Manifest, outputs: Outputs, kept: list[str]) -> bool:
    """Keep a project's page and sidecar as the last build wrote them (what they
    are made of is the same): an append to one session must not render every
    project page again (a site may have hundreds)."""
    paths = [urls.project_html(project.id), urls.project_json(project.id), urls.project_sessions_js(project.id)]
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


def script_json(value: Any) -> bytes:
    """``value`` as JSON that is safe in a script: ``<``, ``>``, ``&``, U+2028 and
    U+2029 written as ``\\u`` escapes, so no string can end the script or a line
    (docs/safety.md S2; replaced in the UTF-8 bytes: none of these characters'
    encodings occurs inside another's)."""
    data = orjson.dumps(value)
    for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
                         ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
        data = data.replace(raw, escaped)
    return data
