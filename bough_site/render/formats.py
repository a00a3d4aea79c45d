"""Values as pages show them: moments, durations, counts, token totals, one-line
texts and model names (template globals, and what the views write)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple

from ..model import SOURCE_LABELS, UNKNOWN_SESSIONS_PREFIX, Usage
from .markdown import plain_line
from .times import parse_time


# One-line summaries of a tool's key input are cut here.
SUMMARY_CHARS = 160
TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


@dataclass(frozen=True)
class When:
    """A moment in UTC: ``iso`` for the ``datetime`` attribute, texts to show."""

    iso: str
    text: str  # 2025-01-02 14:03 UTC
    date: str  # 2025-01-02
    clock: str  # 14:03:22
    moment: datetime


def when(value: object) -> When | None:
    """``value`` (an ISO-8601 string) as a :class:`When`, or None."""
    if not isinstance(value, str):
        return None
    return _when(value)


@lru_cache(maxsize=4096)
def _when(value: str) -> When | None:
    # Every item of a page shows its time: one parse per timestamp, and the
    # texts made from the fields (strftime is slower, docs/performance.md, and
    # locale-dependent).
    moment = parse_time(value)
    if moment is None:
        return None
    date = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    minute = f"{moment.hour:02d}:{moment.minute:02d}"
    clock = f"{minute}:{moment.second:02d}"
    return When(iso=f"{date}T{clock}Z", text=f"{date} {minute} UTC", date=date, clock=clock, moment=moment)


def duration(start: object, end: object) -> str:
    """``1 h 05 min``, ``4 min``, ``35 s``; empty when unknown."""
    a, b = parse_time(start), parse_time(end)
    if a is None or b is None or b < a:
        return ""
    seconds = int((b - a).total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes:02d} min"
    return f"{hours // 24} d {hours % 24} h"


def num(value: object) -> str:
    """``12,345``; anything not an int shown as 0 (stats are ints by contract)."""
    return f"{value:,}" if isinstance(value, int) else "0"


def compact(value: object) -> str:
    """``1.2M``, ``34.5k``, ``999``: token counts at a glance."""
    if not isinstance(value, int):
        return "0"
    for size, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if abs(value) >= size:
            text = f"{value / size:.1f}".removesuffix(".0")
            return text + suffix
    return str(value)


def tokens(stats: dict[str, int | None]) -> int:
    """All four token kinds added up (what a bar in the token chart shows): the known
    ones (a figure the files do not hold is null: :func:`tokens_unknown`)."""
    return sum(value for key in TOKEN_KEYS if isinstance(value := stats.get(key, 0), int))


def tokens_unknown(stats: dict[str, int | None]) -> bool:
    """Whether a token total leaves something out: a session's figure the files do
    not hold (null), or a project's or site's sessions of unknown figures."""
    return any(stats.get(key, 0) is None or stats.get(UNKNOWN_SESSIONS_PREFIX + key) for key in TOKEN_KEYS)


def source_label(source: str) -> str:
    return SOURCE_LABELS.get(source, source)


def one_line(text: object, limit: int = SUMMARY_CHARS) -> str:
    """The first non-blank line of ``text``, cut to ``limit`` characters."""
    if not isinstance(text, str):
        return ""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def excerpt(text: object, limit: int = SUMMARY_CHARS) -> str:
    """The first non-blank line of Markdown ``text`` as a reader sees it (no ``**``,
    no ``#``), cut to ``limit``: the one line a folded thinking block shows."""
    return one_line(plain_line(one_line(text, 4 * limit)), limit)


class ReplyTokens(NamedTuple):
    """A reply's tokens as its header shows them, quietly (issue #36 point 9). A tuple:
    one is made for every reply of every page."""

    total: int  # the four kinds added up: the <data> value
    text: str  # "in 5 · out 120 · cache 13.5k"
    title: str  # the exact counts
    unknown: bool = False


UNKNOWN_REPLY_TOKENS = ReplyTokens(
    0, "tokens unknown",
    "A token count in this reply's record was not a number: its tokens are unknown, and counted in no total",
    unknown=True,
)


def _few(n: int) -> str:
    """compact(n), without its loop for the small counts most replies have."""
    return str(n) if 0 <= n < 1000 else compact(n)


def reply_tokens(usage: object) -> ReplyTokens | None:
    """What a reply's header says of its tokens: input, output and cache (reads and
    writes together) in short, exact counts in the title; "tokens unknown" for a reply
    whose record held a count that is not one (docs/stats.md, "Counts that are not
    counts"); None when nothing was recorded (all zero, or no usage at all)."""
    if not isinstance(usage, Usage):
        return None
    if usage.unknown:
        return UNKNOWN_REPLY_TOKENS
    if usage.unknown_keys:
        return _partial_tokens(usage)
    read, write = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    total = usage.input_tokens + usage.output_tokens + read + write
    if not total:
        return None
    text = f"in {_few(usage.input_tokens)} · out {_few(usage.output_tokens)}"
    title = f"Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out"
    if usage.reasoning_output_tokens:
        title += f" ({usage.reasoning_output_tokens:,} of them reasoning)"
    if read or write:
        text += f" · cache {_few(read + write)}"
    # Only the kinds there are: a page has a header per reply, and Codex writes no cache writes.
    if read:
        title += f", {read:,} cache read"
    if write:
        title += f", {write:,} cache write"
    return ReplyTokens(total, text, title)


def _partial_tokens(usage: Usage) -> ReplyTokens | None:
    """A reply whose record holds only some kinds (Copilot CLI: its output): those,
    and a title saying the others are not recorded per reply."""
    known = [(key, getattr(usage, key)) for key in TOKEN_KEYS if key not in usage.unknown_keys]
    total = sum(value for _, value in known)
    if not known:
        return None
    names = {"input_tokens": ("in", "input"), "output_tokens": ("out", "output"),
             "cache_creation_input_tokens": ("cache", "cache write"), "cache_read_input_tokens": ("cache", "cache read")}
    text = " · ".join(f"{names[key][0]} {_few(value)}" for key, value in known)
    title = "Tokens: " + ", ".join(f"{value:,} {names[key][1]}" for key, value in known)
    if "output_tokens" not in usage.unknown_keys and usage.reasoning_output_tokens:
        title += f" ({usage.reasoning_output_tokens:,} of them reasoning)"
    missing = [names[key][1] for key in TOKEN_KEYS if key in usage.unknown_keys]
    title += f"; {', '.join(missing)}: not recorded per reply (the session's totals hold what the agent recorded)"
    return ReplyTokens(total, text, title)


def line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


# CSI and OSC escape sequences: terminal colours and titles in command output.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    """Terminal escape codes removed: they are noise on a page."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def is_long(text: object) -> bool:
    return isinstance(text, str) and ("\n" in text.strip() or len(text) > SUMMARY_CHARS)


_MODEL_DATE = re.compile(r"-(?:20\d{6}|\d{4}-\d{2}-\d{2})$")


def short_model(name: str) -> str:
    """A model as a list row shows it: ``claude-sonnet-4-5-20250929`` → ``sonnet-4-5``
    (the vendor prefix and a release date say little in a column of them)."""
    short = _MODEL_DATE.sub("", name.removeprefix("claude-"))
    return short or name


def short_models(names: Iterable[str]) -> list[str]:
    """Short names, once each, in the order first seen."""
    return list(dict.fromkeys(short_model(n) for n in names if isinstance(n, str) and n))


def seconds(start: object, end: object) -> int:
    """A session's length in whole seconds; -1 when unknown (sorts first)."""
    a, b = parse_time(start), parse_time(end)
    return int((b - a).total_seconds()) if a is not None and b is not None and b >= a else -1
