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

from .counts import Counts
from .manifest import Manifest
from .model import InputWarning, Project, Session, Site
from .plan.units import project_identity
from .stats import Tally
from .summaries import session_from_summary
from .slugs import unique_slugs


# A project's sessions -> the union of their identities, packed, and its numbers.
ProjectUnion = Callable[[list[Session]], tuple[Counts, dict[str, int | None]]]


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


def site_of(projects: list[Project], warnings: list[InputWarning], stats: dict[str, int | None] | None = None) -> Site:
    """The site of ``projects``; ``stats``: the numbers of the union of theirs, when
    counted already."""
    projects.sort(key=lambda p: (latest(p.sessions), p.id), reverse=True)
    if stats is None:
        tally = Tally()
        for project in projects:
            tally.merge(project.tally)
        stats = tally.stats()
    return Site(projects=projects, stats=stats, warnings=warnings)


def site_stats(projects: list[Project], union: ProjectUnion | None,
               warnings: list[InputWarning], previous: Manifest) -> Site:
    """Project and site numbers: unions of the sessions' identities (``union``: of a
    project's sessions, packed, and its numbers). Without ``union`` (nothing
    changed) the last build's numbers are the numbers."""
    out = []
    site_union = Counts()
    for project in projects:
        if union is None:
            stats = previous.project_stats.get(project.id, Tally().stats())
        else:
            counts, stats = union(project.sessions)
            # Packed identities, counted once at the end: the site's union held as a
            # Tally was the largest part of a build's memory at 18,000 sessions
            # (docs/performance.md).
            site_union.merge(counts)
        out.append(Project(id=project.id, name=project.name, cwd=project.cwd, sessions=project.sessions,
                           stats=stats, tally=Tally()))
    if union is None:
        return site_of(out, warnings, dict(previous.site_stats) if previous.site_stats else Tally().stats())
    return site_of(out, warnings, site_union.stats())


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
