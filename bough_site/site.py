"""The site's model made from sessions: the one way to make a :class:`Site`.

Projects are the sessions of one working directory, newest first; the site is
its projects, the one with the latest session first. Their numbers are unions
of the sessions' counting identities (stats.Tally). Beside model.py, not in it:
the numbers need stats.py, which imports the model.

Every road to a Site ends in :func:`site_of`: :func:`site_from_sessions` (a
plain read, build.load_site), :func:`site_from_manifest` (what the last build
in OUT made, for a build that had nothing to do) and :func:`site_stats` (a
build's assembled projects, publish.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .manifest import Manifest
from .model import InputWarning, Project, Session, Site
from .plan.units import project_identity
from .stats import Tally
from .summaries import session_from_summary
from .slugs import unique_slugs


def session_order(session: Session) -> tuple[str, str]:
    """A project's sessions sort by this, newest first (reverse)."""
    return (session.started or "", session.id)


def latest(sessions: list[Session]) -> str:
    return max((s.ended or s.started or "" for s in sessions), default="")


def project_of(identity: dict[str, str], sessions: list[Session], tallies: list[Tally | None]) -> Project:
    tally = Tally()
    for one in tallies:
        if one is not None:
            tally.merge(one)
    return Project(id=identity["id"], name=identity["name"], cwd=identity["cwd"], sessions=sessions,
                   stats=tally.stats(), tally=tally)


def site_of(projects: list[Project], warnings: list[InputWarning], tally: Tally | None = None) -> Site:
    """The site of ``projects``; ``tally``: the union of theirs, when made already."""
    projects.sort(key=lambda p: (latest(p.sessions), p.id), reverse=True)
    if tally is None:
        tally = Tally()
        for project in projects:
            tally.merge(project.tally)
    return Site(projects=projects, stats=tally.stats(), warnings=warnings)


def site_stats(projects: list[Project], union: Callable[[list[Session]], Tally] | None,
               warnings: list[InputWarning], previous: Manifest) -> Site:
    """Project and site numbers: unions of the sessions' identities (``union``: of a
    project's sessions). Without ``union`` (nothing changed) the last build's numbers
    are the numbers."""
    out = []
    site_tally = Tally()
    for project in projects:
        tally = union(project.sessions) if union else Tally()
        stats = tally.stats() if union else previous.project_stats.get(project.id, tally.stats())
        # Counted into the site's and let go: the projects' identities held at once were
        # the largest part of a build's memory at 18,000 sessions (docs/performance.md).
        site_tally.merge(tally)
        out.append(Project(id=project.id, name=project.name, cwd=project.cwd, sessions=project.sessions,
                           stats=stats, tally=Tally()))
    site = site_of(out, warnings, site_tally)
    if union is None and previous.site_stats:
        site.stats = dict(previous.site_stats)
    return site


def site_from_sessions(sessions: list[Session]) -> Site:
    """Group sessions into projects by working directory; count by identities."""
    by_cwd: dict[str, list[Session]] = {}
    for session in sessions:
        by_cwd.setdefault(session.cwd or "", []).append(session)
    projects = []
    for cwd, members in by_cwd.items():
        members.sort(key=session_order, reverse=True)
        for session, session_slug in zip(members, unique_slugs([s.id for s in members])):
            session.slug = session_slug
        projects.append(project_of(project_identity(cwd), members, [s.tally for s in members]))
    return site_of(projects, [])


def site_from_manifest(out: Path, warnings: list[InputWarning]) -> Site:
    """The site the last build in OUT made, from its manifest: what a build that
    reuses every session returns."""
    previous = Manifest.load(out)
    identities: dict[str, dict[str, str]] = {}
    members: dict[str, list[Session]] = {}
    for stored in previous.sessions.values():
        identities[stored.project["id"]] = stored.project
        members.setdefault(stored.project["id"], []).append(session_from_summary(stored.summary, stored.slug))
    projects = [project_of(identities[key], sorted(sessions, key=session_order, reverse=True), [])
                for key, sessions in members.items()]
    return site_stats(projects, None, warnings, previous)
