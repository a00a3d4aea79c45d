"""Assemble: from what the first pass made, what the plan reused and what the
last build had and this one did not make (gone), the site's projects, each
session's final page name and every session's page. Then the final pass: which
sessions must be rendered again now that every name and link is known, its jobs,
and what its results change.

Plain functions of values, as plan/ is: no writer, no file, tested without a
site (tests/test_assemble.py). stages.py does the I/O between them (rendering,
keeping the files of the last build).

A session's outcome is an :class:`Outcome`, frozen: a stage that learns more of
it makes a new one (:meth:`Outcome.written`, :meth:`Outcome.with_parts`), so no
stage changes what another holds.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from . import urls
from .inherit import Inheritance
from .jobs import Job, SessionResult
from .manifest import Manifest, SessionState
from .model import Project, Session
from .plan import gone_sessions
from .plan.units import Unit
from .site import latest, project_of, session_order
from .state import state_name
from .summaries import session_from_summary
from .slugs import unique_slugs


class Status(enum.Enum):
    """How a session came into this build."""

    REBUILT = "rebuilt"  # read and rendered by this build
    REUSED = "reused"  # its source unchanged: its pages are the last build's
    GONE = "gone"  # its source gone: its pages and summary are an earlier build's (until --prune)


@dataclass(frozen=True)
class Outcome:
    """One session of the site being built, as far as the build has got. Its
    lists and dicts are shared with the manifest it came from: replaced, never
    changed in place."""

    key: str
    unit: str
    summary: dict[str, Any]
    project: dict[str, str]
    status: Status
    written_slug: str | None = None  # the page name its files were written or kept under
    outputs: list[str] = field(default_factory=list)
    tally_file: str = ""  # the state value of its identities (a session read now: state.StateWrites)
    links: dict[str, str | None] = field(default_factory=dict)  # other sessions' pages its pages link to
    scan: str = ""  # reused or gone: its stored summary for the resume pre-scan, and its directory
    group: str = ""
    uuids: str = ""  # reused or gone: its file's stored record uuids (plan/lineage.py)
    details: str = ""  # the state value of its summary's details (summaries.split_summary)

    @classmethod
    def stored(cls, state: SessionState, status: Status) -> Outcome:
        """A session the last build made, as its manifest entry has it."""
        return cls(state.key, state.unit, state.summary, state.project, status, written_slug=state.slug,
                   outputs=state.outputs, tally_file=state.tally, links=state.links, scan=state.scan,
                   group=state.group, uuids=state.uuids, details=state.details)

    @classmethod
    def read(cls, one: SessionResult, unit: str) -> Outcome:
        """A session the first pass read (its files, when it wrote them: :meth:`written`;
        its identities and details go to OUT's state: stages.py, state.StateWrites)."""
        return cls(one.key, unit, one.summary, one.project, Status.REBUILT,
                   tally_file=state_name(one.tally, ".json"), details=state_name(one.details, ".details"))

    def written(self, one: SessionResult, outputs: list[str]) -> Outcome:
        """Its files as a pass wrote them (``outputs``: their paths in OUT)."""
        return replace(self, outputs=outputs, written_slug=one.slug, links=one.links)

    def with_parts(self, summary: dict[str, Any]) -> Outcome:
        """A page rendered again by the final pass (other links, another name) may
        split at other places: where its linked moments landed is its latest render's."""
        return replace(self, summary={**self.summary, "anchor_parts": dict(summary.get("anchor_parts") or {})})


@dataclass(frozen=True)
class Assembled:
    """The site's sessions with their final names: what the final pass, publishing
    and the manifest are made from."""

    outcomes: dict[str, Outcome]  # by key: read, reused, then gone (a gone one that lost its name left out)
    projects: list[Project]  # newest first, each its sessions newest first, no numbers yet
    slugs: dict[str, str]  # session key -> its page name
    links: dict[str, str]  # session id -> its page
    gone: int  # the last build's sessions this build did not make, kept
    keys: dict[int, str] = field(default_factory=dict, repr=False)  # id(Session) -> its key
    # Gone sessions whose pages are gone too: still listed in their project, no longer kept in the manifest
    lost: frozenset[str] = frozenset()

    def outcome(self, session: Session) -> Outcome:
        """The outcome of one of the projects' sessions."""
        return self.outcomes[self.keys[id(session)]]

    def saved(self) -> dict[str, Outcome]:
        """The outcomes the manifest keeps."""
        return {key: outcome for key, outcome in self.outcomes.items() if key not in self.lost}


def assemble(made: Mapping[str, Outcome], previous: Manifest, *, prune: bool) -> Assembled:
    """The sessions this build ``made`` (read or reused) and the last build's it did
    not (gone, unless ``prune``), grouped into projects with final page names. A
    gone session keeps the name its pages have; when a live session now owns that
    name, the gone one drops out."""
    gone = gone_sessions(previous, set(made), _live(made.values()), prune=prune)
    everyone = {**made, **{stored.key: Outcome.stored(stored, Status.GONE) for stored in gone}}
    by_project: dict[str, list[tuple[Outcome, Session]]] = {}
    for outcome in everyone.values():
        by_project.setdefault(outcome.project["id"], []).append((outcome, session_from_summary(outcome.summary, "")))
    slugs: dict[str, str] = {}
    keys: dict[int, str] = {}
    projects = []
    for members in by_project.values():
        # Sessions that start together under one id (one file copied into another folder
        # of the project) are told apart by their keys: page names are given in this
        # order, the same in a fresh build as in one that reused some of them.
        members.sort(key=lambda pair: (session_order(pair[1]), pair[0].key), reverse=True)
        named = _names(members)
        for outcome, session in named:
            slugs[outcome.key] = session.slug
            keys[id(session)] = outcome.key  # held by the projects: the id stays theirs
        if named:
            projects.append(project_of(named[0][0].project, [s for _, s in named], [None] * len(named)))
    projects.sort(key=lambda p: (latest(p.sessions), p.id), reverse=True)  # as site.site_of orders them
    links = {session.id: urls.session_html(project.id, session.slug)
             for project in projects for session in project.sessions}
    outcomes = {key: outcome for key, outcome in everyone.items() if key in slugs}
    return Assembled(outcomes, projects, slugs, links, len(gone), keys)


def _live(outcomes: Iterable[Outcome]) -> set[tuple[object, object]]:
    return {(o.summary.get("source"), o.summary.get("id")) for o in outcomes}


def _names(members: list[tuple[Outcome, Session]]) -> list[tuple[Outcome, Session]]:
    """A project's sessions (newest first) with their page names set; without the
    gone ones whose name a live session now has."""
    chosen_names = unique_slugs([session.id for _, session in members])
    taken = {s.casefold() for (o, _), s in zip(members, chosen_names) if o.status is not Status.GONE}
    named = []
    for (outcome, session), chosen in zip(members, chosen_names):
        if outcome.status is Status.GONE and chosen != outcome.written_slug:
            chosen = outcome.written_slug or chosen  # its page cannot be made again: keep its name
            if chosen.casefold() in taken:
                continue
        session.slug = chosen  # a Session made here, for the projects: not anyone else's
        named.append((outcome, session))
    return named


# --------------------------------------------------------------------------- the final pass


def renamed_or_moved(outcome: Outcome, assembled: Assembled) -> bool:
    """Whether a session's files must be rendered again: its page has another name,
    or a page it links to moved (a gone session's pages cannot be made again)."""
    moved = outcome.status is not Status.GONE and any(assembled.links.get(k) != v for k, v in outcome.links.items())
    return outcome.written_slug != assembled.slugs[outcome.key] or moved


def final_jobs(again: list[str], assembled: Assembled, units: list[Unit],
               inherit: Callable[[str], Inheritance | None]) -> list[Job]:
    """The jobs that render the sessions ``again`` (keys) knowing every page name
    and link: one per unit, those whose unit this build still has; ``inherit``
    gives what a unit inherits (plan.lineage.decision)."""
    by_key = {unit.key: unit for unit in units}
    by_unit: dict[str, set[str]] = {}
    for key in again:
        unit = assembled.outcomes[key].unit
        if unit in by_key:
            by_unit.setdefault(unit, set()).add(key)
    if not by_unit:
        return []
    slugs = {key: slug for key, slug in assembled.slugs.items() if key not in assembled.lost}
    return [Job(by_key[unit], final=True, slugs={k: s for k, s in slugs.items() if k.startswith(unit + "#")},
                links=assembled.links, only=frozenset(keys), inherit=inherit(unit))
            for unit, keys in by_unit.items()]


def with_final(assembled: Assembled, outcomes: Mapping[str, Outcome]) -> Assembled:
    """``assembled`` with the ``outcomes`` the final pass made: their sessions made
    again from the new summaries (their pages' parts), under the same names."""
    if not outcomes:
        return assembled
    keys: dict[int, str] = {}
    projects = []
    for project in assembled.projects:
        sessions = []
        for session in project.sessions:
            key = assembled.keys[id(session)]
            if key in outcomes:
                session = session_from_summary(outcomes[key].summary, session.slug)
            keys[id(session)] = key
            sessions.append(session)
        projects.append(project_of({"id": project.id, "name": project.name, "cwd": project.cwd}, sessions,
                                   [None] * len(sessions)))
    return replace(assembled, outcomes={**assembled.outcomes, **outcomes}, projects=projects, keys=keys)
