"""Times as the pages use them: transcript timestamps parsed defensively."""

from __future__ import annotations

from datetime import UTC, date, datetime
from functools import lru_cache

from ..readers.values import EARLIEST_YEAR, LATEST_YEAR


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 string as an aware UTC datetime, or None; None too outside the
    years the readers hand on (a summary an older bough stored may hold one), so
    no page's date arithmetic can step out of datetime's range (docs/safety.md S10)."""
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    return _parsed(value)


# The pages ask for the same session's times several times over (sorting, the
# project's first and last, the charts, the months): 18,000 sessions made 128,000
# parses, 1.6 s of an append (docs/performance.md). A datetime is immutable.
@lru_cache(maxsize=1 << 16)
def _parsed(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.strip())
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)  # transcripts write UTC
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return moment if drawable(moment.date()) else None


def drawable(day: date) -> bool:
    """Whether a page may draw this day (:func:`parse_time`)."""
    return EARLIEST_YEAR <= day.year <= LATEST_YEAR
