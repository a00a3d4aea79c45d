"""Small activity charts as inline SVG, written by hand (no library).

Only numbers and dates we computed go into the SVG, and every text still passes
``escape``.  Elements carry class attributes only (no ``style``, no ``fill``):
the theme's CSS colours them, so light and dark mode both work and a strict
CSP holds.  The chart depends only on the data, never on today's date, so a
rebuild gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Literal

from markupsafe import Markup, escape

from ..model import Session
from .times import parse_time

Metric = Literal["sessions", "tokens"]

# Show at most this many weeks, ending with the week of the latest session, and
# at least MIN_WEEKS so a project of one busy week is one bar, not a slab.
MAX_WEEKS = 52
MIN_WEEKS = 26
_BAR = 8  # bar width in viewBox units
_GAP = 2
_HEIGHT = 40
_TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _started(session: Session) -> date | None:
    moment = parse_time(session.started) or parse_time(session.ended)
    return moment.date() if moment is not None else None


def _week(day: date) -> date:
    return day - timedelta(days=day.weekday())  # the Monday of its ISO week


def _amount(session: Session, metric: Metric) -> int:
    if metric == "sessions":
        return 1
    return sum(v for k, v in session.stats.items() if k in _TOKEN_KEYS and isinstance(v, int))


def weekly(
    sessions: Iterable[Session],
    metric: Metric = "sessions",
    max_weeks: int = MAX_WEEKS,
    min_weeks: int = MIN_WEEKS,
) -> list[tuple[date, int]]:
    """(Monday, amount) for every week from the first session's to the last's,
    at least ``min_weeks`` and at most ``max_weeks`` of them (the latest),
    weeks without activity as 0."""
    return weeks_of(weekly_totals(sessions, metric), max_weeks, min_weeks)


def weekly_totals(sessions: Iterable[Session], metric: Metric = "sessions") -> dict[date, int]:
    """The amount of each week (by its Monday) that has any: sessions' totals add up."""
    totals: dict[date, int] = {}
    for session in sessions:
        day = _started(session)
        if day is not None:
            week = _week(day)
            totals[week] = totals.get(week, 0) + _amount(session, metric)
    return totals


def weeks_of(totals: dict[date, int], max_weeks: int = MAX_WEEKS, min_weeks: int = MIN_WEEKS) -> list[tuple[date, int]]:
    """:func:`weekly`'s weeks from :func:`weekly_totals`."""
    if not totals:
        return []
    last = max(totals)
    first = max(min(totals), last - timedelta(weeks=max_weeks - 1))
    first = min(first, last - timedelta(weeks=min_weeks - 1))
    weeks = (last - first).days // 7 + 1
    return [(first + timedelta(weeks=i), totals.get(first + timedelta(weeks=i), 0)) for i in range(weeks)]


def _unit(metric: Metric, amount: int) -> str:
    if metric == "tokens":
        return f"{amount:,} tokens"
    return f"{amount:,} session" + ("" if amount == 1 else "s")


def activity_chart(sessions: Iterable[Session], metric: Metric = "sessions") -> Markup:
    """An SVG bar chart of ``metric`` per week, its dates below; empty Markup when nothing is dated."""
    return chart_of(weekly(sessions, metric), metric)


def chart_of(series: list[tuple[date, int]], metric: Metric = "sessions") -> Markup:
    """:func:`activity_chart` of the weeks :func:`weekly` gives."""
    if not series:
        return Markup("")
    peak = max(amount for _, amount in series) or 1
    width = len(series) * (_BAR + _GAP) - _GAP
    label = (
        f"{'Tokens' if metric == 'tokens' else 'Sessions'} per week, "
        f"week of {series[0][0].isoformat()} to week of {series[-1][0].isoformat()}, "
        f"peak {_unit(metric, peak)}"
    )
    parts = [
        f'<svg class="chart chart-{metric}" viewBox="0 0 {width} {_HEIGHT}" '
        f'preserveAspectRatio="none" role="img" aria-label="{escape(label)}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(label)}</title>",
        f'<rect class="chart-base" x="0" y="{_HEIGHT - 1}" width="{width}" height="1"></rect>',
    ]
    for i, (week, amount) in enumerate(series):
        if amount <= 0:
            continue
        # At least 2 units tall, so a week with a little activity still shows.
        height = max(2, round(amount / peak * (_HEIGHT - 2)))
        x = i * (_BAR + _GAP)
        tip = f"week of {week.isoformat()}: {_unit(metric, amount)}"
        parts.append(
            f'<rect class="chart-bar" x="{x}" y="{_HEIGHT - 1 - height}" width="{_BAR}" '
            f'height="{height}"><title>{escape(tip)}</title></rect>'
        )
    parts.append("</svg>")
    parts.append(_axis(series))
    return Markup("".join(parts))


def _axis(series: list[tuple[date, int]]) -> str:
    """The dates under the bars, in HTML (so they keep their size however the
    chart stretches): the first week's Monday at the left edge, the middle
    week's in the middle, the last week's at the right. Hidden from screen
    readers: the chart's label says the same."""
    weeks = [series[0][0], series[(len(series) - 1) // 2][0], series[-1][0]]
    labels = "".join(f"<span>{week.isoformat()}</span>" for week in weeks)
    return f'<div class="chart-axis" aria-hidden="true">{labels}</div>'
