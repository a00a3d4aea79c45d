"""``build(config)``: the stages, in order, and nothing else.

discover -> read (one reader per format) -> redact -> assemble projects and
stats -> render and write. ``load_site`` runs the stages up to the model, for
tests and tools that want the numbers without a site.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import sidecars, urls
from .config import BuildConfig
from .discover import Discovered, discover
from .errors import BoughError
from .model import Project, Session, Site, Warning
from .readers.claude import read_claude_session
from .redact import Redactor
from .scrub import scrub_session
from .stats import Tally
from .write import SiteWriter, check_separate, json_bytes, slug, unique_slugs
from .work import summarize_work

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


class NothingToRead(BoughError):
    """No transcript could be read at all."""


def load_site(config: BuildConfig, *, redaction_key: bytes | None = None) -> Site:
    """Read every source into the model (no output is written)."""
    site, _ = _load(config, redaction_key)
    return site


def _load(config: BuildConfig, redaction_key: bytes | None) -> tuple[Site, Discovered]:
    warnings: list[Warning] = []

    def warn(warning: Warning) -> None:
        warnings.append(warning)
        config.report(f"warning: {warning}")

    found = discover(config, warn)
    try:
        sessions = _read_sessions(found, config, warn)
    finally:
        found.kept.close()  # the private copies decompressed from the archive
    found.kept.mark(sessions)
    key = EXAMPLES_REDACTION_KEY if found.used_examples else (redaction_key or b"")
    for session in sessions:
        scrub_session(session, _redactor(config, key))
        summarize_work(session)  # commits and changed files, from the redacted timeline
    site = assemble(sessions)
    # By file and line: the same whatever order the files were read in (live or archived).
    site.warnings = sorted(warnings, key=lambda w: (w.file, w.line))
    return site, found


def _read_sessions(found: Discovered, config: BuildConfig, warn: Callable[[Warning], None]) -> list[Session]:
    sessions = [read_claude_session(source, warn, found.label) for source in found.claude]
    if found.codex:
        from .readers.codex import read_codex_sessions

        sessions += read_codex_sessions(found.codex, warn, label=found.label)
    return sessions


def _redactor(config: BuildConfig, key: bytes) -> Redactor:
    home = user = None
    if config.redact_paths:
        home = str(Path(os.environ.get("HOME") or Path.home()))
        user = os.path.basename(home.rstrip("/")) or None
    return Redactor(key, enabled=config.redact, home=home, user=user)


def assemble(sessions: list[Session]) -> Site:
    """Group sessions into projects by working directory; count by identities."""
    by_cwd: dict[str, list[Session]] = {}
    for session in sessions:
        by_cwd.setdefault(session.cwd or "", []).append(session)
    projects = [_project(cwd, members) for cwd, members in by_cwd.items()]
    projects.sort(key=lambda p: (_latest(p), p.id), reverse=True)
    site_tally = Tally()
    for project in projects:
        site_tally.merge(project.tally)
    return Site(projects=projects, stats=site_tally.stats())


def _project(cwd: str, sessions: list[Session]) -> Project:
    name = posixpath.basename(cwd.rstrip("/")) or cwd or "(unknown directory)"
    # The cwd hash keeps two projects with the same last path component apart.
    project_id = f"{slug(name, max_len=40)}-{hashlib.sha256(cwd.encode('utf-8', 'replace')).hexdigest()[:8]}"
    sessions.sort(key=lambda s: (s.started or "", s.id), reverse=True)
    for session, session_slug in zip(sessions, unique_slugs([s.id for s in sessions])):
        session.slug = session_slug
    tally = Tally()
    for session in sessions:
        tally.merge(session.tally)
    return Project(id=project_id, name=name, cwd=cwd, sessions=sessions, stats=tally.stats(), tally=tally)


def _latest(project: Project) -> str:
    return max((s.ended or s.started or "" for s in project.sessions), default="")


def build(config: BuildConfig, *, redaction_key: bytes | None = None) -> BuildResult:
    site, found = _load(config, redaction_key)
    if found.empty() or not site.projects:
        raise NothingToRead("no transcript could be read from the sources given")
    check_separate(config.out, found.inputs)
    from .render.pages import Renderer

    # The search index is not built yet: pages must not link a Pagefind bundle that is not there.
    renderer = Renderer(config.theme, search=False)
    with SiteWriter(config.out, force=config.force) as writer:
        _write_site(writer, renderer, site, config)
        if config.prune:
            writer.prune()
        written, unchanged = len(writer.written), len(writer.unchanged)
    archived_only = sum(1 for p in site.projects for s in p.sessions if s.kept_since)
    return BuildResult(site, config.out, found.used_examples, written, unchanged, site.warnings,
                       archived_only, found.notes)


def _write_site(writer: SiteWriter, renderer, site: Site, config: BuildConfig) -> None:
    for path, data in renderer.assets():
        writer.write(path, data)
    links = {
        session.id: urls.session_html(project.id, session.slug)
        for project in site.projects
        for session in project.sessions
    }
    images: set[str] = set()
    total = sum(len(p.sessions) for p in site.projects)
    done = 0
    for project in site.projects:
        for session in project.sessions:
            for path, data in renderer.session_pages(project, session, links):
                if path.startswith(urls.IMAGES_DIR + "/"):
                    if path in images:
                        continue  # content-addressed: the same image is written once
                    images.add(path)
                writer.write(path, data)
            writer.write(urls.session_json(project.id, session.slug), json_bytes(sidecars.session_json(project, session)))
            done += 1
        writer.write(urls.project_html(project.id), renderer.project_page(project, site))
        writer.write(urls.project_json(project.id), json_bytes(sidecars.project_json(project)))
        config.report(f"progress: {done}/{total} sessions ({project.name})")
    writer.write(urls.INDEX_HTML, renderer.index_page(site))
    writer.write(urls.INDEX_JSON, json_bytes(sidecars.site_json(site)))
