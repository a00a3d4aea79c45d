"""What the index and project pages show of a project, made from its session
*summaries* (never ``timeline``): incremental builds render these pages without
loading timelines."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from datetime import UTC, date, datetime

import orjson
from markupsafe import Markup

from ..model import Project, Session
from . import charts
from .formats import When, short_models, source_label, when
from .months import Month, Paging, by_month, paging
from .times import parse_time


@dataclass
class ProjectSummary:
    project: Project
    sessions: list[Session]  # newest first
    first: When | None
    last: When | None
    sources: list[str]  # labels, sorted
    last_moment: datetime | None
    models: list[str] = field(default_factory=list)  # short names (short_model), sorted
    kept: int = 0  # sessions whose original is deleted (kept by bough's archive)

    @property
    def months(self) -> list[Month]:
        return by_month(self.sessions)

    @cached_property
    def paging(self) -> Paging | None:
        """A big project's pages (render/months.py); None for a project of one page."""
        return paging(self.sessions)

    @property
    def chart(self) -> Markup:
        """Sessions per week (the project page shows it; the index's rows do not)."""
        return charts.activity_chart(self.sessions)


_EPOCH = datetime.min.replace(tzinfo=UTC)


def session_moment(session: Session) -> datetime:
    return parse_time(session.started) or parse_time(session.ended) or _EPOCH


def newest_first(sessions: Iterable[Session]) -> list[Session]:
    return sorted(sessions, key=lambda s: (session_moment(s), s.id, s.slug), reverse=True)


def summarize_project(project: Project) -> ProjectSummary:
    sessions = newest_first(project.sessions)
    first, last = _first_and_last(sessions)
    return ProjectSummary(
        project=project,
        sessions=sessions,
        first=when(first.isoformat()) if first else None,
        last=when(last.isoformat()) if last else None,
        sources=_sources(sessions),
        last_moment=last,
        models=_models(sessions),
        kept=_kept(sessions),
    )


def _first_and_last(sessions: list[Session]) -> tuple[datetime | None, datetime | None]:
    """The first session's start and the last moment of any."""
    starts = [parse_time(s.started) for s in sessions]
    ends = [parse_time(s.ended) or parse_time(s.started) for s in sessions]
    return min((t for t in starts if t), default=None), max((t for t in ends if t), default=None)


def _sources(sessions: list[Session]) -> list[str]:
    return sorted({source_label(s.source) for s in sessions})


def _models(sessions: list[Session]) -> list[str]:
    return sorted(set(short_models(m for s in sessions for m in s.models or ())))


def _kept(sessions: list[Session]) -> int:
    return sum(1 for s in sessions if s.kept_since)


def by_recent_activity(projects: Iterable[Project],
                       facts: dict[str, ProjectFacts] | None = None) -> list[ProjectSummary]:
    """The projects' summaries, the one active last first; from ``facts`` for those it holds."""
    facts = facts or {}
    summaries = [facts[p.id].summary(p) if p.id in facts else summarize_project(p) for p in projects]
    return sorted(summaries, key=lambda s: (s.last_moment or _EPOCH, s.project.id), reverse=True)


@dataclass(frozen=True)
class ProjectFacts:
    """What the index takes of a project (its row, and its sessions per week for the
    activity chart) and search's fallback index its parts' names: made from every
    session of the project, and kept in OUT's state under what the project is made
    of (publish.py), so that a build goes through the sessions of the projects it
    changed only (at 18,000 sessions, the index and the fallback index went through
    them all: 0.2 s of an append)."""

    first: str | None  # ISO: the first session's start
    last: str | None  # ISO: the last moment of any
    sources: list[str]
    models: list[str]
    kept: int
    weeks: dict[str, int] | None  # Monday (ISO) -> sessions started that week; None: not told (the chart says why)
    parts: list[str]  # its search-index parts' digests, in their order (search/offline.project_parts)

    @classmethod
    def of(cls, project: Project, parts: list[str]) -> ProjectFacts:
        first, last = _first_and_last(project.sessions)
        try:
            weeks: dict[str, int] | None = {
                day.isoformat(): count for day, count in charts.weekly_totals(project.sessions).items()}
        except Exception:  # noqa: BLE001: the index's chart meets it again, and says so (publish._index_page)
            weeks = None
        return cls(first.isoformat() if first else None, last.isoformat() if last else None,
                   _sources(project.sessions), _models(project.sessions), _kept(project.sessions), weeks, parts)

    def summary(self, project: Project) -> ProjectSummary:
        """The project's summary as the index shows it (its sessions in no order)."""
        return ProjectSummary(project=project, sessions=project.sessions, first=when(self.first),
                              last=when(self.last), sources=list(self.sources),
                              last_moment=parse_time(self.last) if self.last else None, models=list(self.models),
                              kept=self.kept)

    def week_totals(self, project: Project) -> dict[date, int]:
        """Its sessions per week (charts.weekly_totals), told again when they were not."""
        if self.weeks is None:
            return charts.weekly_totals(project.sessions)
        return {date.fromisoformat(day): count for day, count in self.weeks.items()}

    def to_bytes(self) -> bytes:
        return orjson.dumps([self.first, self.last, self.sources, self.models, self.kept, self.weeks, self.parts])

    @classmethod
    def from_bytes(cls, data: bytes) -> ProjectFacts | None:
        """What :meth:`to_bytes` wrote; None for anything else."""
        try:
            first, last, sources, models, kept, weeks, parts = orjson.loads(data)
        except (orjson.JSONDecodeError, TypeError, ValueError):
            return None
        texts = [*sources, *models, *parts] if all(isinstance(v, list) for v in (sources, models, parts)) else None
        if texts is None or not all(isinstance(t, str) for t in texts) or type(kept) is not int or not all(
                v is None or (isinstance(v, str) and parse_time(v)) for v in (first, last)) or not (
                weeks is None or (isinstance(weeks, dict) and all(type(n) is int for n in weeks.values()))):
            return None
        try:
            for day in weeks or ():
                date.fromisoformat(day)
        except ValueError:
            return None
        return cls(first, last, sources, models, kept, weeks, parts)
