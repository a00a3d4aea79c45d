"""The site's model made from sessions: the one way to make a :class:`Site`.

Projects are the sessions of one working directory, newest first; the site is
its projects, the one with the latest session first. Their numbers are unions
of the sessions' counting identities (stats.Tally). Beside model.py, not in it:
the numbers need stats.py, which imports the model.

Every road to a Site ends in :func:`site_of`: :func:`site_from_sessions` (a
plain read, build.load_site), :func:`site_from_manifest` (what the last build
in OUT made, for a build that had nothing to do), :func:`site_stats` (a build's
assembled projects, with the last build's numbers) and :func:`site_counted` (the
same, counted: publish.py).
"""

from __future__ import annotations

import bisect
import functools
import operator
from array import array
from pathlib import Path
from typing import Protocol

from .counts import BUCKETS, Counts, ProjectSums, little_endian
from .manifest import Manifest
from .model import InputWarning, Project, Session, Site
from .plan.units import project_identity
from .stats import Tally
from .summaries import session_from_summary
from .slugs import unique_slugs


class ProjectCounts(Protocol):
    """A project's numbers, from its sessions (state_reads.Unions)."""

    def sums(self, sessions: list[Session]) -> ProjectSums:
        """Its sums and its identities' prefixes, named."""

    def union(self, sessions: list[Session]) -> Counts:
        """The union of its identities, packed."""


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


def site_stats(projects: list[Project], warnings: list[InputWarning], previous: Manifest) -> Site:
    """The site of ``projects`` with the last build's numbers (nothing changed since)."""
    out = [_counted(project, previous.project_stats.get(project.id, Tally().stats())) for project in projects]
    return site_of(out, warnings, dict(previous.site_stats) if previous.site_stats else Tally().stats())


def site_counted(projects: list[Project], counts: ProjectCounts, warnings: list[InputWarning],
                 previous: Manifest) -> tuple[Site, list[str]]:
    """Project and site numbers, unions of the sessions' identities. Each project's are
    its sums' (``counts``: kept, or made from its union). The site's are its projects'
    sums added up when no identity is in two projects (:func:`_apart`), else the union
    of every project's identities counted once (the numbers are the same: a union of
    unions that share nothing adds up). With them, the names of the projects' sums
    when they were found apart: the next build takes those as apart (``previous.apart``)
    and checks only the others, so that an append reads and counts its own project's
    identities, not the site's (0.43 s at 18,000 sessions)."""
    found = [counts.sums(project.sessions) for project in projects]
    out = [_counted(project, one.sums.stats()) for project, one in zip(projects, found)]
    if _apart(found, set(previous.apart)):
        return site_of(out, warnings, functools.reduce(operator.add, (one.sums for one in found),
                                                       Counts().sums()).stats()), [one.name for one in found]
    # Packed identities, counted once at the end: the site's union held as a Tally
    # was the largest part of a build's memory at 18,000 sessions (docs/performance.md).
    site_union = Counts()
    for project in projects:
        site_union.merge(counts.union(project.sessions))
    return site_of(out, warnings, site_union.stats()), []


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
    return site_stats(projects, warnings, previous)


def _counted(project: Project, stats: dict[str, int | None]) -> Project:
    return Project(id=project.id, name=project.name, cwd=project.cwd, sessions=project.sessions, stats=stats,
                   tally=Tally())


def _apart(found: list[ProjectSums], before: set[str]) -> bool:
    """Whether no two of these projects share an identity: none shares an identity's
    prefix (counts.Counts.prefixes; two identities of one prefix only cost the long
    way). Those whose sums are named in ``before`` were found apart by the last build,
    from one another: only the others are checked, against all. A sixteenth of the
    prefixes at a time: at 18,000 sessions all of them at once were 75 MB."""
    if len({one.name for one in found}) != len(found):
        return False  # two projects of the very same identities
    new = [_prefixes(one.prefixes) for one in found if one.name not in before]
    if not new:
        return True  # all as the last build found them
    known = [_prefixes(one.prefixes) for one in found if one.name in before]
    for low, high in zip(_BOUNDS, _BOUNDS[1:]):
        seen: set[int] = set()
        for prefixes in new:
            part = _between(prefixes, low, high)
            if not seen.isdisjoint(part):
                return False
            seen.update(part)
        if any(not seen.isdisjoint(_between(prefixes, low, high)) for prefixes in known):
            return False
    return True


def _between(prefixes: array, low: int, high: int) -> array:
    """The sorted ``prefixes`` from ``low`` up to ``high`` (not included)."""
    return prefixes[bisect.bisect_left(prefixes, low):bisect.bisect_left(prefixes, high)]


# The prefixes' buckets, by their top four bits (counts.BUCKETS).
_BOUNDS = [bucket << 60 for bucket in range(BUCKETS + 1)]


def _prefixes(data: bytes) -> array:
    values = array("Q")
    values.frombytes(data)
    return little_endian(values)
