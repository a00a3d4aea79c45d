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


UNDATED = "undated"  # the name of the sessions without a date, as a month's

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


# --- a big project's pages (docs/paging.md) ------------------------------------------

# A project of more sessions than this is paged: its page shows the newest
# LANDING_ROWS sessions and each month gets a page of its own. A project of this
# many or fewer is one page, as it always was (300 sessions: about 230 KB).
PAGED_ABOVE = 300
# The project page of a paged project: its newest sessions, whatever their month.
LANDING_ROWS = 200
# At most this many rows on a month's page: a bigger month is cut in pieces of
# this many from its oldest session, so a piece, once full, never changes.
MONTH_ROWS = 300


@dataclass
class MonthPage:
    """One page of a paged project's sessions: a month, or a piece of a big one.

    A month's own page (``piece`` 0) holds its newest sessions; the pieces before
    them (``piece`` 1, 2 … from the month's oldest session) are full, MONTH_ROWS
    each, and never change once full (a new session joins the month's own page)."""

    key: str  # 2026-02, or "" (undated)
    label: str  # February 2026
    piece: int  # 0: the month's own page; 1, 2 …: its full pieces, oldest first
    part: int  # the part this page is of the month, oldest first (1 when the month is whole)
    parts: int  # how many the month has
    month_size: int  # the month's sessions, all pages together
    sessions: list[Session]  # newest first

    @property
    def name(self) -> str:
        """The file name's stem: ``2026-02``, ``2026-02-1`` (a piece), ``undated``."""
        stem = self.key or UNDATED
        return f"{stem}-{self.piece}" if self.piece else stem

    @property
    def title(self) -> str:
        return f"{self.label}, part {self.part}" if self.parts > 1 else self.label


@dataclass
class Paging:
    """A paged project's pages: what its own page (the *landing*) shows and each month's page."""

    landing: list[Month]  # its newest sessions by month (the oldest of them may be a month's newest only)
    pages: list[MonthPage]  # newest first: each month's own page, then its pieces, newest first
    months: list[Month]  # every month, newest first, whole
    total: int  # the project's sessions

    def own_page(self, month: Month) -> MonthPage:
        """A month's own page (the one its newest sessions are on)."""
        return next(page for page in self.pages if page.key == month.key and page.piece == 0)

    def years(self) -> list[tuple[str, list[tuple[str, MonthPage]]]]:
        """Every month by year, newest first, as (short name, its own page): the
        project page's index of months ("Undated" last, a year of its own)."""
        years: dict[str, list[tuple[str, MonthPage]]] = {}
        for page in self.pages:
            if page.piece == 0:
                year = page.key[:4] if page.key else "Undated"
                short = MONTH_NAMES[int(page.key[5:7]) - 1][:3] if page.key else "Undated"
                years.setdefault(year, []).append((short, page))
        return list(years.items())

    def around(self, page: MonthPage) -> tuple[MonthPage | None, MonthPage | None]:
        """The pages before (newer) and after (older) ``page``: None when there is none
        (the newer of the newest is the project's own page)."""
        at = self.pages.index(page)
        return (self.pages[at - 1] if at else None), (self.pages[at + 1] if at + 1 < len(self.pages) else None)


def is_paged(count: int) -> bool:
    return count > PAGED_ABOVE


def paging(sessions: list[Session]) -> Paging | None:
    """A project's pages, from its sessions newest first; None when it is not paged."""
    if not is_paged(len(sessions)):
        return None
    months = by_month(sessions)
    pages: list[MonthPage] = []
    for month in months:
        size = len(month.sessions)
        full = (size - 1) // MONTH_ROWS  # full pieces, from the oldest session
        own = size - full * MONTH_ROWS  # 1 to MONTH_ROWS: the month's newest
        parts = full + 1
        pages.append(MonthPage(month.key, month.label, 0, parts, parts, size, month.sessions[:own]))
        for piece in range(full, 0, -1):
            start = own + (full - piece) * MONTH_ROWS
            pages.append(MonthPage(month.key, month.label, piece, piece, parts, size,
                                   month.sessions[start:start + MONTH_ROWS]))
    return Paging(landing=by_month(sessions[:LANDING_ROWS]), pages=pages, months=months, total=len(sessions))
