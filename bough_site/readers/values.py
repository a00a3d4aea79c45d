"""Small, defensive accessors shared by the readers: a field that arrives in an
unexpected shape is treated as absent, never as an error."""

from __future__ import annotations

import math

import re
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


# The largest count a reader hands on. No model call, turn or context comes near
# it (the largest contexts are about 10**7 tokens), and a site's sums of such
# counts stay far inside the 64 bits JSON writers and readers hold exactly
# (docs/safety.md S10).
MAX_COUNT = 10**12


# What a reader says, at the record's file:line, of a value it made unknown.
UNKNOWN_TOKENS = "a token count that is not a count (Infinity, text, a negative, too large); the reply's tokens are unknown"
BAD_TIME = "unparsable timestamp (or before 1970, or after 2999); the record is kept without a time"


def as_count(value: Any) -> int | None:
    """A count as a reader hands it on: absent (missing or null) is 0; a number
    from 0 to MAX_COUNT is itself (a fraction cut off); anything else is unknown,
    None: Infinity, NaN, a negative, a count beyond any model's, text, true. The
    reader says so with the record's file:line (docs/safety.md S10)."""
    if value is None:
        return 0
    if isinstance(value, bool):  # an int in Python; a count of true is not a count
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_COUNT else None
    if isinstance(value, float) and 0 <= value <= MAX_COUNT:  # NaN and infinities fail both tests
        return int(value)
    return None


def as_int(value: Any) -> int:
    """:func:`as_count`, an unknown count as 0: for numbers only shown in passing
    (a turn count in a notice), whose readers need not say more."""
    return as_count(value) or 0


def any_unknown(*values: Any) -> bool:
    """Whether any of these values is there but is not a count (:func:`as_count`)."""
    return any(as_count(value) is None for value in values)


# The times a reader hands on: from the first year any transcript could carry
# (a clock reset to zero) to a year no renderer's date arithmetic reaches the
# end of (a day after the last, 90 days before the first). A time outside is
# unknown, as an unparsable one is (docs/safety.md S10).
EARLIEST_YEAR = 1970
LATEST_YEAR = 2999

# The form we write, Claude Code's own: UTC, milliseconds, "Z".
CANONICAL_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


def normalize_timestamp(value: Any) -> str | None:
    """ISO-8601 in UTC with milliseconds and ``Z``, or None when absent,
    unparsable or outside EARLIEST_YEAR to LATEST_YEAR. A time without a zone is
    taken as UTC (the agents write UTC)."""
    if not isinstance(value, str) or not value:
        return None
    if CANONICAL_TIME.fullmatch(value):  # already the form we write (Claude Code's): only check it is a date
        try:
            datetime.fromisoformat(value[:-1])
        except ValueError:
            return None
        return value if EARLIEST_YEAR <= int(value[:4]) <= LATEST_YEAR else None
    try:
        moment = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        # OverflowError: year 1 at +01:00 (or 9999 at -01:00) is outside datetime in UTC.
        moment = moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        return None
    # isoformat, not strftime: glibc's %Y writes year 1 as "1", not "0001".
    return moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def bad_timestamp(value: Any) -> bool:
    """A timestamp that is there but gives no time (:func:`normalize_timestamp`;
    absent, null or "" is no news: some records never carry one). Such a record
    still counts; it just has no time, and the reader says so at its line."""
    return value is not None and value != "" and normalize_timestamp(value) is None


# --- a session's title (docs/formats-claude.md C12, formats-codex.md X13, formats-gemini.md §10) ---

# Where a reply's first sentence ends: ., ! or ? followed by a space or the end.
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s|$)")
# Markdown that would read as noise in a title: a heading's or quote's or list
# item's mark at the start, emphasis and code marks anywhere.
_LEADING_MARK = re.compile(r"^(?:#{1,6}|>|[-*+]|\d+[.)])\s+")
_INLINE_MARKS = re.compile(r"\*\*|__|`")


# How long a Codex or Gemini CLI title, or a sub-agent's description, may be.
TITLE_LENGTH = 80


def one_line(text: str, limit: int = TITLE_LENGTH) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def first_command(items: Iterable[Any]) -> str:
    """The first slash command among timeline items, with its arguments (``/init``,
    ``/review src/``); a shell-mode ``!`` command is no slash command. "" when none."""
    for item in items:
        if getattr(item, "kind", None) == "command" and item.name and item.name != "!":
            return f"{item.name} {item.args}".strip()
    return ""


def first_reply_sentence(items: Iterable[Any]) -> str:
    """The first sentence of the first reply that wrote text, its Markdown marks
    taken out. "" when no reply wrote any."""
    for item in items:
        if getattr(item, "kind", None) != "reply":
            continue
        for block in item.blocks:
            if getattr(block, "kind", None) == "text" and block.text.strip():
                return _sentence(block.text)
    return ""


def _sentence(text: str) -> str:
    line = next(line.strip() for line in text.splitlines() if line.strip())
    line = _INLINE_MARKS.sub("", _LEADING_MARK.sub("", line)).strip()
    end = _SENTENCE_END.search(line)
    return line[: end.start()] if end else line


def untitled(started: str | None) -> str:
    """The title of a session in which nothing gives one (no title, prompt, command or
    reply text): when it started, never its id alone."""
    if not started:
        return "Untitled session"
    return f"Session of {started[:10]} {started[11:16]} UTC"


def recorded_cost(value: Any) -> float | None:
    """A cost in USD a transcript recorded (Claude Code's ``costUSD``, OpenCode's
    ``cost``): a finite number, not negative and below a million; else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value < 0 or value >= 1_000_000:
        return None
    return float(value)
