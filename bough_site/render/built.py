"""What a project's agents built, for its page: commits, changed files, sub-agent
runs, a timeline of its days and a tokens-per-day chart.

Reads only session summaries (``Session.commits``, ``file_changes``, ``agents``,
``prompt_times``, ``reply_usage``: see bough_site/work.py), never a timeline, so
incremental builds can render it from stored summaries.

The two charts are inline SVG written by hand (no library), like render/charts.py:
only numbers, dates and escaped text go in; elements carry class attributes
only (no ``style``, no ``fill``), so the theme's CSS colours them and a strict
CSP holds; nothing depends on today's date.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from markupsafe import Markup, escape

from ..model import Project, Session
from ..work import project_commits, project_files
from .times import parse_time

# The timeline shows at most this many days with activity (the latest).
TIMELINE_DAYS = 60
# The tokens chart shows at most this many days (the latest), empty days included.
TOKEN_DAYS = 90

_LABEL_W = 84  # the date column
_PLOT_W = 600  # 24 hours
_ROW_H = 16
_HEAD_H = 14
_BAR_H = 8
_MIN_BAR = 2.0


@dataclass
class ProjectWork:
    commits: list[tuple[dict[str, Any], Session]]  # oldest first
    files: list[dict[str, Any]]  # most edited first (work.project_files)
    agents: list[tuple[dict[str, Any], Session]]  # in session order, newest session first
    timeline: Markup
    tokens: Markup
    timeline_days: int  # days with activity shown
    active_days: int  # days with activity in all

    @property
    def empty(self) -> bool:
        return not (self.commits or self.files or self.agents or self.timeline)


# From the project page: the URL of a session's moment (``page#anchor``, on the part
# holding it), or of its page when the anchor is None.
MomentLink = Callable[[Session, str | None], str]


def project_work(project: Project, sessions: list[Session], link: MomentLink) -> ProjectWork:
    """``sessions`` newest first; ``link(session, anchor)`` links a moment from the project page."""
    oldest_first = list(reversed(sessions))
    commits = project_commits(oldest_first)
    timeline, shown, active = timeline_chart(sessions, commits, link)
    files = project_files(sessions)
    for change in files:
        change["display"] = display_path(change["path"], project.cwd)
    return ProjectWork(
        commits=commits,
        files=files,
        agents=[(agent, s) for s in sessions for agent in s.agents or ()],
        timeline=timeline,
        tokens=tokens_chart(sessions),
        timeline_days=shown,
        active_days=active,
    )


def display_path(path: str, cwd: str | None) -> str:
    """A path as the project page shows it: relative to the project's directory when inside it."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


# --- time helpers --------------------------------------------------------------------------


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _x(moment: datetime) -> float:
    seconds = moment.hour * 3600 + moment.minute * 60 + moment.second
    return _LABEL_W + seconds / 86400 * _PLOT_W


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _clock(moment: datetime) -> str:
    return moment.strftime("%H:%M")


# --- the timeline --------------------------------------------------------------------------------


def timeline_chart(
    sessions: list[Session], commits: list[tuple[dict[str, Any], Session]], link: MomentLink
) -> tuple[Markup, int, int]:
    """Days as rows (UTC), each session a bar from its start to its end (split at
    midnight), its prompts as ticks, commits as marks. Returns the SVG, the number
    of days shown and the number of days with activity."""
    bars: dict[date, list[tuple[float, float, Session, datetime, datetime]]] = {}
    for session in sessions:
        start = parse_time(session.started)
        end = parse_time(session.ended) or start
        if start is None or end is None:
            continue
        end = max(end, start)
        day = start.date()
        while True:
            row_start = max(start, _midnight(day))
            row_end = min(end, _midnight(day) + timedelta(days=1) - timedelta(seconds=1))
            x1, x2 = _x(row_start), _x(row_end)
            bars.setdefault(day, []).append((x1, max(x2 - x1, _MIN_BAR), session, start, end))
            if end.date() <= day:
                break
            day += timedelta(days=1)
    ticks: dict[date, list[float]] = {}
    for session in sessions:
        for value in session.prompt_times or ():
            moment = parse_time(value)
            if moment is not None:
                ticks.setdefault(moment.date(), []).append(_x(moment))
    marks: dict[date, list[tuple[float, dict[str, Any], Session]]] = {}
    for commit, session in commits:
        moment = parse_time(commit.get("timestamp"))
        if moment is not None:
            marks.setdefault(moment.date(), []).append((_x(moment), commit, session))
    days = sorted(set(bars) | set(ticks) | set(marks))
    if not days:
        return Markup(""), 0, 0
    shown = days[-TIMELINE_DAYS:]
    height = _HEAD_H + len(shown) * _ROW_H
    width = _LABEL_W + _PLOT_W
    label = (
        f"Timeline, {len(shown)} days with activity from {shown[0].isoformat()} to {shown[-1].isoformat()} "
        f"(UTC): sessions as bars, prompts as ticks, commits as dots"
    )
    out = [
        # A group, not an image: its bars and dots are links.
        (f'<svg class="timeline-chart" viewBox="0 0 {width} {height}" role="group" '
         f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'),
        f"<title>{escape(label)}</title>",
    ]
    for hour in (0, 6, 12, 18, 24):
        x = _LABEL_W + hour / 24 * _PLOT_W
        anchor = "start" if hour == 0 else "end" if hour == 24 else "middle"
        out.append(f'<text class="tl-hour" x="{_num(x)}" y="10" text-anchor="{anchor}">{hour:02d}:00</text>')
        out.append(f'<line class="tl-grid" x1="{_num(x)}" y1="{_HEAD_H - 2}" x2="{_num(x)}" y2="{height}"></line>')
    for row, day in enumerate(shown):
        y = _HEAD_H + row * _ROW_H
        mid = y + _ROW_H / 2
        out.append('<g class="tl-day-row">')
        out.append(f'<text class="tl-day" x="0" y="{_num(mid + 4)}">{day.isoformat()}</text>')
        out.append(f'<rect class="tl-lane" x="{_LABEL_W}" y="{_num(mid - _BAR_H / 2)}" width="{_PLOT_W}" height="{_BAR_H}"></rect>')
        for x, w, session, start, end in bars.get(day, ()):
            tip = f"{session.title or 'Untitled session'} ({_clock(start)}–{_clock(end)} UTC, {start.date().isoformat()})"
            out.append(
                f'<a href="{escape(link(session, None))}" aria-label="{escape(tip)}">'
                f'<rect class="tl-session tl-{escape(session.source)}" '
                f'x="{_num(x)}" y="{_num(mid - _BAR_H / 2)}" width="{_num(w)}" height="{_BAR_H}">'
                f"<title>{escape(tip)}</title></rect></a>"
            )
        for x in sorted(ticks.get(day, ())):
            out.append(f'<line class="tl-prompt" x1="{_num(x)}" y1="{_num(mid - _BAR_H / 2 - 2)}" '
                       f'x2="{_num(x)}" y2="{_num(mid + _BAR_H / 2 + 2)}"></line>')
        for x, commit, session in marks.get(day, ()):
            what = commit.get("message") or "commit"
            short = (commit.get("hash") or "")[:7]
            tip = f"commit {short} {what}".replace("  ", " ")
            href = link(session, commit.get("anchor") or None)
            out.append(
                f'<a href="{escape(href)}" aria-label="{escape(tip)}"><circle class="tl-commit" cx="{_num(x)}" cy="{_num(mid)}" r="3.5">'
                f"<title>{escape(tip)}</title></circle></a>"
            )
        out.append("</g>")
    out.append("</svg>")
    return Markup("".join(out)), len(shown), len(days)


# --- tokens per day ------------------------------------------------------------------------------

TOKEN_SERIES = (("input", "input tokens"), ("output", "output tokens"), ("cache_read", "cache reads"))
_TOKEN_BAR = 6
_TOKEN_GAP = 2
_TOKEN_ROW = 30
_TOKEN_LABEL = 84


def daily_tokens(sessions: list[Session]) -> list[tuple[date, int, int, int]]:
    """(day, input, output, cache reads) for every day from the first with spend to
    the last (at most TOKEN_DAYS), each reply counted once over the sessions (a
    resumed session holds its parent's replies too)."""
    seen: set[str] = set()
    totals: dict[date, list[int]] = {}
    for session in sessions:
        for key, day, inp, out, cache_read in session.reply_usage or ():
            if key in seen or not day:
                continue
            seen.add(key)
            try:
                when = date.fromisoformat(day)
            except ValueError:
                continue
            row = totals.setdefault(when, [0, 0, 0])
            row[0] += inp
            row[1] += out
            row[2] += cache_read
    if not totals:
        return []
    last = max(totals)
    first = max(min(totals), last - timedelta(days=TOKEN_DAYS - 1))
    span = (last - first).days + 1
    return [(first + timedelta(days=i), *totals.get(first + timedelta(days=i), [0, 0, 0])) for i in range(span)]


def tokens_chart(sessions: list[Session]) -> Markup:
    """Three small bar rows, one per kind (input, output, cache reads), each on its
    own scale: cache reads are often a hundred times the rest."""
    days = daily_tokens(sessions)
    if not any(sum(values) for _, *values in days):
        return Markup("")
    width = _TOKEN_LABEL + len(days) * (_TOKEN_BAR + _TOKEN_GAP)
    height = len(TOKEN_SERIES) * _TOKEN_ROW
    label = f"Tokens per day from {days[0][0].isoformat()} to {days[-1][0].isoformat()}: input, output, cache reads"
    out = [
        (f'<svg class="tokens-chart" viewBox="0 0 {width} {height}" role="img" '
         f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'),
        f"<title>{escape(label)}</title>",
    ]
    for row, (kind, name) in enumerate(TOKEN_SERIES):
        values = [day[1 + row] for day in days]
        peak = max(values) or 1
        top = row * _TOKEN_ROW
        base = top + _TOKEN_ROW - 4
        out.append(f'<g class="tk-series tk-{kind}">')
        out.append(f'<text class="tk-label" x="0" y="{top + 16}">{escape(name)}</text>')
        out.append(f'<rect class="chart-base" x="{_TOKEN_LABEL}" y="{base}" width="{width - _TOKEN_LABEL}" height="1"></rect>')
        for index, ((day, *_), value) in enumerate(zip(days, values)):
            if value <= 0:
                continue
            h = max(1.5, value / peak * (_TOKEN_ROW - 8))
            x = _TOKEN_LABEL + index * (_TOKEN_BAR + _TOKEN_GAP)
            tip = f"{day.isoformat()}: {value:,} {name}"
            out.append(f'<rect class="tk-bar" x="{x}" y="{_num(base - h)}" width="{_TOKEN_BAR}" height="{_num(h)}">'
                       f"<title>{escape(tip)}</title></rect>")
        out.append("</g>")
    out.append("</svg>")
    return Markup("".join(out))
