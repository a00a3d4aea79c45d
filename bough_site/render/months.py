"""A project page's sessions grouped by calendar month (UTC)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Session
from .times import parse_time


@dataclass
class Month:
    """The sessions of one calendar month (UTC) on a project page, newest first."""

    key: str  # 2026-02, or "" for sessions without a date
    label: str  # February 2026
    sessions: list[Session]


# Written out, not strftime("%B"): a page must not depend on the build's locale.
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")


def by_month(sessions: list[Session]) -> list[Month]:
    """Sessions (newest first) grouped by the UTC month they started in; undated last."""
    months: dict[str, Month] = {}
    for session in sessions:
        moment = parse_time(session.started) or parse_time(session.ended)
        key = f"{moment.year:04d}-{moment.month:02d}" if moment else ""  # not strftime: glibc writes year 5 as "5"
        if key not in months:
            label = f"{MONTH_NAMES[moment.month - 1]} {moment.year}" if moment else "Undated"
            months[key] = Month(key, label, [])
        months[key].sessions.append(session)
    dated = [m for k, m in months.items() if k]
    return dated + ([months[""]] if "" in months else [])
