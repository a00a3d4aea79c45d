"""What a project's agents built, for its page: commits, changed files, sub-agent
runs, a timeline of its days and a tokens-per-day chart.

Reads only session summaries (``Session.commits``, ``file_changes``, ``agents``,
``prompt_times``, ``reply_usage``: see bough_site/work.py), never a timeline, so
incremental builds can render it from stored summaries. The lists are cut to
their latest (or most edited) ``LIST_LIMIT`` entries: a project of hundreds of
sessions keeps a light page, and project.json and each session's page hold the rest.

The charts are small HTML layouts around inline SVG written by hand (no library),
like render/charts.py: only numbers, dates and escaped text go in; elements carry
class attributes only (no ``style``, no ``fill``), so the theme's CSS colours
them and a strict CSP holds; nothing depends on today's date. Every label is
HTML or SVG text in an SVG without a viewBox, so no text grows or shrinks with
the chart's width; only the plots (bars, ticks, dots) stretch.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from markupsafe import Markup, escape

from ..model import Project, Session
from ..work import project_commits, project_files
from .times import drawable, parse_time

# The timeline shows at most this many days with activity (the latest), and
# fewer when their rows would pass TIMELINE_BYTES (a busy project's page stays light).
TIMELINE_DAYS = 60
TIMELINE_BYTES = 60_000
# The tokens chart shows at most this many days (the latest), empty days included,
# and at least TOKEN_MIN_DAYS, so a project of one busy day is one bar, not a slab.
TOKEN_DAYS = 90
TOKEN_MIN_DAYS = 30
# The commits, files and sub-agent runs the page lists (the latest, the most edited).
LIST_LIMIT = 20

_DAY_MINUTES = 24 * 60  # the timeline's plot: one unit a minute
_ROW_H = 16
_BAR_H = 8
_MIN_BAR = 4.0  # minutes: a short session still shows


@dataclass
class ProjectWork:
    commits: list[tuple[dict[str, Any], Session]]  # newest first, at most LIST_LIMIT
    files: list[dict[str, Any]]  # most edited first (work.project_files), at most LIST_LIMIT
    agents: list[tuple[dict[str, Any], Session]]  # newest session first, at most LIST_LIMIT
    timeline: Markup
    tokens: Markup
    timeline_days: int  # days with activity shown
    active_days: int  # days with activity in all
    commit_count: int = 0
    file_count: int = 0
    agent_count: int = 0

    @property
    def empty(self) -> bool:
        return not (self.commits or self.files or self.agents or self.timeline)


# What a project page shows when making what its agents built failed (publish.py).
NO_WORK = ProjectWork(commits=[], files=[], agents=[], timeline=Markup(""), tokens=Markup(""), timeline_days=0,
                      active_days=0)


# From the project page: the URL of a session's moment (``page#anchor``, on the part
# holding it), or of its page when the anchor is None.
MomentLink = Callable[[Session, str | None], str]


def project_work(project: Project, sessions: list[Session], link: MomentLink) -> ProjectWork:
    """``sessions`` newest first; ``link(session, anchor)`` links a moment from the project page."""
    oldest_first = list(reversed(sessions))
    commits = project_commits(oldest_first)
    timeline, shown, active = timeline_chart(sessions, commits, link)
    files = project_files(sessions)
    for change in files[:LIST_LIMIT]:
        change["display"] = display_path(change["path"], project.cwd)
        change["last"] = last_edit(change)
    agents = [(agent, s) for s in sessions for agent in s.agents or ()]
    return ProjectWork(
        commits=list(reversed(commits))[:LIST_LIMIT],
        files=files[:LIST_LIMIT],
        agents=agents[:LIST_LIMIT],
        timeline=timeline,
        tokens=tokens_chart(sessions),
        timeline_days=shown,
        active_days=active,
        commit_count=len(commits),
        file_count=len(files),
        agent_count=len(agents),
    )


def last_edit(change: dict[str, Any]) -> tuple[Session, dict[str, Any]] | None:
    """The latest edit of a changed file (work.project_files), with its session:
    the one the project page links to (each session's page lists all of its own)."""
    found = [(edit.get("timestamp") or "", session.started or "", n, session, edit)
             for n, (session, edits) in enumerate(change["sessions"]) for edit in edits]
    if not found:
        return None
    *_, session, edit = max(found, key=lambda f: (f[0], f[1], -f[2]))
    return session, edit


def display_path(path: str, cwd: str | None) -> str:
    """A path as the project page shows it: relative to the project's directory when inside it."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


# --- time helpers --------------------------------------------------------------------------


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _x(moment: datetime) -> float:
    """Minutes since midnight: the timeline plot's x."""
    return moment.hour * 60 + moment.minute + moment.second / 60


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _clock(moment: datetime) -> str:
    return moment.strftime("%H:%M")


# --- the timeline --------------------------------------------------------------------------------

# The hours above the plot: SVG text in an SVG without a viewBox, placed in
# percent of its width, so it keeps its CSS size at any width.
_HOURS = "".join(
    f'<text x="{hour * 100 // 24}%" y="10" text-anchor="{"start" if hour == 0 else "end" if hour == 24 else "middle"}">'
    f"{hour:02d}:00</text>"
    for hour in (0, 6, 12, 18, 24)
)


def timeline_chart(
    sessions: list[Session], commits: list[tuple[dict[str, Any], Session]], link: MomentLink
) -> tuple[Markup, int, int]:
    """Days as rows (UTC), each session a bar from its start to its end (split at
    midnight), its prompts as ticks, commits as dots. Returns the markup, the
    number of days shown and the number of days with activity.

    Each row is an HTML date beside an SVG plot of one day in minutes, stretched
    to the row's width (``preserveAspectRatio="none"``): bars stretch, ticks and
    dots keep their size (the theme draws them with non-scaling strokes)."""
    spans: list[tuple[date, date, Session, datetime, datetime]] = []
    for session in sessions:
        start = parse_time(session.started)
        end = parse_time(session.ended) or start
        if start is not None and end is not None:
            end = max(end, start)
            spans.append((start.date(), end.date(), session, start, end))
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
    active = _merged([(first, last) for first, last, *_ in spans] + [(day, day) for day in (*ticks, *marks)])
    days = _latest_days(active, TIMELINE_DAYS)
    if not days:
        return Markup(""), 0, 0
    bars = _bars(spans, days)
    rows: list[str] = []  # newest first
    size = 0
    for day in reversed(days):
        row = _timeline_row(day, bars.get(day, ()), ticks.get(day, ()), marks.get(day, ()), link)
        size += len(row.encode("utf-8"))
        if rows and size > TIMELINE_BYTES:
            break
        rows.append(row)
    shown = days[len(days) - len(rows):]
    label = (
        f"Timeline, {len(shown)} days with activity from {shown[0].isoformat()} to {shown[-1].isoformat()} "
        f"(UTC): sessions as bars, prompts as ticks, commits as dots"
    )
    out = [
        # A group, not an image: its bars and dots are links.
        f'<div class="timeline-chart" role="group" aria-label="{escape(label)}">',
        f'<div class="tl-head" aria-hidden="true"><svg class="tl-hours" width="100%" height="14">{_HOURS}</svg></div>',
        *reversed(rows),
    ]
    out.append("</div>")
    return Markup("".join(out)), len(shown), sum((last - first).days + 1 for first, last in active)


def _merged(spans: list[tuple[date, date]]) -> list[tuple[date, date]]:
    """The days these spans cover, as disjoint spans, oldest first."""
    merged: list[tuple[date, date]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1] + timedelta(days=1):
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _latest_days(active: list[tuple[date, date]], count: int) -> list[date]:
    """The latest ``count`` days the spans cover, oldest first: never every day
    between the first and the last (one session from year 2 to 9998 was 1.4 GB)."""
    days: list[date] = []
    for first, last in reversed(active):
        day = last
        while day >= first and len(days) < count:
            days.append(day)
            day -= timedelta(days=1)
    return days[::-1]


def _bars(spans: list[tuple[date, date, Session, datetime, datetime]],
          days: list[date]) -> dict[date, list[tuple[float, float, Session, datetime, datetime]]]:
    """Each session's bar on each of ``days`` it runs through (split at midnight), in session order."""
    bars: dict[date, list[tuple[float, float, Session, datetime, datetime]]] = {}
    for first, last, session, start, end in spans:
        for day in days[bisect_left(days, first):bisect_right(days, last)]:
            row_start = max(start, _midnight(day))
            row_end = min(end, _midnight(day) + timedelta(days=1) - timedelta(seconds=1))
            x1, x2 = _x(row_start), _x(row_end)
            bars.setdefault(day, []).append((x1, max(x2 - x1, _MIN_BAR), session, start, end))
    return bars


def _timeline_row(
    day: date,
    bars: Iterable[tuple[float, float, Session, datetime, datetime]],
    ticks: Iterable[float],
    marks: Iterable[tuple[float, dict[str, Any], Session]],
    link: MomentLink,
) -> str:
    """One day: its date, then its plot: session bars and commit dots (links), prompt ticks (one path)."""
    mid = _ROW_H / 2
    parts = [f'<div class="tl-row"><span class="tl-day">{day.isoformat()}</span>'
             f'<svg class="tl-plot" viewBox="0 0 {_DAY_MINUTES} {_ROW_H}" preserveAspectRatio="none">']
    for x, w, session, start, end in bars:
        tip = f"{session.title or 'Untitled session'} ({_clock(start)}–{_clock(end)} UTC, {start.date().isoformat()})"
        parts.append(
            f'<a href="{escape(link(session, None))}"><title>{escape(tip)}</title>'
            f'<rect class="tl-session tl-{escape(session.source)}" '
            f'x="{_num(x)}" y="{_num(mid - _BAR_H / 2)}" width="{_num(w)}" height="{_BAR_H}"></rect></a>'
        )
    path = "".join(f"M{_num(x)} 2v12" for x in sorted(ticks))
    if path:
        parts.append(f'<path class="tl-prompt" d="{path}"></path>')
    for x, commit, session in marks:
        what = commit.get("message") or "commit"
        short = (commit.get("hash") or "")[:7]
        tip = f"commit {short} {what}".replace("  ", " ")
        href = link(session, commit.get("anchor") or None)
        # A zero-length line with round caps: a dot, round at any width.
        parts.append(f'<a href="{escape(href)}"><title>{escape(tip)}</title>'
                     f'<path class="tl-commit" d="M{_num(x)} {_num(mid)}h0"></path></a>')
    parts.append("</svg></div>")
    return "".join(parts)


# --- tokens per day ------------------------------------------------------------------------------

TOKEN_SERIES = (("input", "input tokens"), ("output", "output tokens"), ("cache_read", "cache reads"))
_TOKEN_BAR = 6
_TOKEN_GAP = 2
_TOKEN_H = 24


def daily_tokens(sessions: list[Session]) -> list[tuple[date, int, int, int]]:
    """(day, input, output, cache reads) for every day from the first with spend to
    the last (at most TOKEN_DAYS, at least TOKEN_MIN_DAYS ending with the last),
    each reply counted once over the sessions (a resumed session holds its
    parent's replies too)."""
    return _token_days(_daily(sessions)[0])


def _token_days(totals: dict[date, list[int]]) -> list[tuple[date, int, int, int]]:
    if not totals:
        return []
    last = max(totals)
    first = max(min(totals), last - timedelta(days=TOKEN_DAYS - 1))
    first = min(first, last - timedelta(days=TOKEN_MIN_DAYS - 1))
    span = (last - first).days + 1
    return [(first + timedelta(days=i), *totals.get(first + timedelta(days=i), [0, 0, 0])) for i in range(span)]


def daily_costs(sessions: list[Session]) -> dict[date, int]:
    """The estimated cost per day in nano-dollars (pricing.py; each reply's sixth
    figure in ``reply_usage``, where it has a price), each reply counted once."""
    return _daily(sessions)[1]


def _daily(sessions: list[Session]) -> tuple[dict[date, list[int]], dict[date, int]]:
    """The tokens (input, output, cache reads) and the cost of each day, from each
    reply of ``reply_usage`` once over the sessions (a resumed session holds its
    parent's replies too), in one pass over them (a project of 3,000 sessions
    holds some 40,000 replies). A reply without a day is left out; one without
    a cost figure counts for its tokens, and a later copy of it holding the
    figure counts for the cost."""
    tokens: dict[date, list[int]] = {}
    costs: dict[date, int] = {}
    counted: set[str] = set()  # for the tokens
    costed: set[str] = set()
    days: dict[str, date | None] = {}  # each day's text read once
    for session in sessions:
        for key, day, *figures in session.reply_usage or ():
            if not day:
                continue
            count, cost = key not in counted, len(figures) >= 4 and key not in costed
            if not (count or cost):
                continue
            if not isinstance(day, str):
                when = None
            elif day in days:
                when = days[day]
            else:
                when = days[day] = _day(day)
            if count:
                counted.add(key)
                if when is not None and drawable(when):  # (a day an older bough stored may step out of range)
                    row = tokens.setdefault(when, [0, 0, 0])
                    row[0] += figures[0]
                    row[1] += figures[1]
                    row[2] += figures[2]
            if cost:
                costed.add(key)
                if when is not None:
                    costs[when] = costs.get(when, 0) + figures[3]
    return tokens, costs


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _money(nanos: int) -> str:
    from ..cost_text import money

    return money(nanos / 1_000_000_000)


def _compact(value: int) -> str:
    for size, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if value >= size:
            return f"{value / size:.1f}".removesuffix(".0") + suffix
    return str(value)


def tokens_chart(sessions: list[Session]) -> Markup:
    """Three small bar rows, one per kind (input, output, cache reads), each on its
    own scale (cache reads are often a hundred times the rest) and labelled in
    HTML with its peak; the first and last day below."""
    totals, costs = _daily(sessions)
    days = _token_days(totals)
    if not any(sum(values) for _, *values in days):
        return Markup("")
    width = len(days) * (_TOKEN_BAR + _TOKEN_GAP)
    series: list[tuple[str, str, list[int]]] = [(kind, name, [day[1 + row] for day in days])
                                                for row, (kind, name) in enumerate(TOKEN_SERIES)]
    if costs:
        series.append(("cost", "estimated cost", [costs.get(day[0], 0) for day in days]))
    label = (f"Tokens per day from {days[0][0].isoformat()} to {days[-1][0].isoformat()}: input, output, cache reads"
             + (", and the estimated cost" if costs else ""))
    out = [f'<div class="tokens-chart" role="group" aria-label="{escape(label)}">']
    for kind, name, values in series:
        peak = max(values)
        shown = _money if kind == "cost" else (lambda n: f"{n:,}")
        peak_text = _money(peak) if kind == "cost" else _compact(peak)
        out.append(f'<div class="tk-row tk-{kind}"><span class="tk-label">{escape(name)}</span>'
                   f'<svg class="tk-plot" viewBox="0 0 {width} {_TOKEN_H}" preserveAspectRatio="none" '
                   f'role="img" aria-label="{escape(name)} per day, peak {shown(peak)}">')
        for index, ((day, *_), value) in enumerate(zip(days, values)):
            if value <= 0:
                continue
            h = max(1.5, value / (peak or 1) * (_TOKEN_H - 1))
            x = index * (_TOKEN_BAR + _TOKEN_GAP)
            out.append(f'<rect class="tk-bar" x="{x}" y="{_num(_TOKEN_H - h)}" width="{_TOKEN_BAR}" height="{_num(h)}">'
                       f"<title>{day.isoformat()}: {shown(value)} {escape(name)}</title></rect>")
        out.append(f'</svg><span class="tk-peak" title="{shown(peak)} {escape(name)} on the busiest day">'
                   f"peak {peak_text}</span></div>")
    out.append(f'<div class="tk-axis" aria-hidden="true"><span>{days[0][0].isoformat()}</span>'
               f"<span>{days[-1][0].isoformat()}</span></div>")
    out.append("</div>")
    return Markup("".join(out))
