"""What the index and project pages show of a project, made from its session
*summaries* (never ``timeline``): incremental builds render these pages without
loading timelines."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from datetime import UTC, datetime

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
    starts = [parse_time(s.started) for s in sessions]
    ends = [parse_time(s.ended) or parse_time(s.started) for s in sessions]
    first = min((t for t in starts if t), default=None)
    last = max((t for t in ends if t), default=None)
    return ProjectSummary(
        project=project,
        sessions=sessions,
        first=when(first.isoformat()) if first else None,
        last=when(last.isoformat()) if last else None,
        sources=sorted({source_label(s.source) for s in sessions}),
        last_moment=last,
        models=sorted(set(short_models(m for s in sessions for m in s.models or ()))),
        kept=sum(1 for s in sessions if s.kept_since),
    )


def by_recent_activity(projects: Iterable[Project]) -> list[ProjectSummary]:
    summaries = [summarize_project(p) for p in projects]
    return sorted(summaries, key=lambda s: (s.last_moment or _EPOCH, s.project.id), reverse=True)
