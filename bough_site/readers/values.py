"""Small, defensive accessors shared by the readers: a field that arrives in an
unexpected shape is treated as absent, never as an error."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int:
    # bool is an int in Python; a token count of true is not a count.
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value == value and value >= 0:
        return int(value)
    return 0


# The form we write, Claude Code's own: UTC, milliseconds, "Z".
CANONICAL_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


def normalize_timestamp(value: Any) -> str | None:
    """ISO-8601 in UTC with milliseconds and ``Z``, or None when absent or
    unparsable. A time without a zone is taken as UTC (both agents write UTC)."""
    if not isinstance(value, str) or not value:
        return None
    if CANONICAL_TIME.fullmatch(value):  # already the form we write (Claude Code's): only check it is a date
        try:
            datetime.fromisoformat(value[:-1])
        except ValueError:
            return None
        return value
    try:
        moment = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        # OverflowError: year 1 at +01:00 (or 9999 at -01:00) is outside datetime in UTC.
        moment = moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None
    # isoformat, not strftime: glibc's %Y writes year 1 as "1", not "0001".
    return moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"
