"""Times as the pages use them: transcript timestamps parsed defensively."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 string as an aware UTC datetime, or None."""
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # transcripts write UTC
    return moment.astimezone(UTC)
