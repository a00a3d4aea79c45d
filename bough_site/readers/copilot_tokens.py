"""A Copilot CLI session's input, cache and reasoning tokens, from its shutdown records
(docs/formats-copilot.md §8).

Only a reply's output is on disk per reply (``assistant.message.outputTokens``).
Input, cache and reasoning tokens are per-model totals in ``session.shutdown``,
written when the CLI exits cleanly. A session is one or more *legs*: the first
run and each ``--resume`` (``session.resume``), all in one file. Older CLIs wrote
each leg's own counters, newer ones the running total since the session began:
a leg's ``requests.count`` tells which (§8.3). The figures are known only when
every leg that made a model call ended in a shutdown after its last call and
held no compaction (which resets the counters, §8.4); else they are unknown,
never estimated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import REASONING_KEY, Usage
from .values import as_count, as_dict

# The counters of one model in a shutdown's ``modelMetrics[model].usage`` (§8.2).
COUNTERS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")
# The keys a session's totals fill; output is the replies' own (§8.1).
TOTAL_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", REASONING_KEY)


@dataclass
class Metrics:
    """One shutdown's per-model counters: model -> (requests, *COUNTERS); None
    where a model's usage is missing or holds a value that is not a count."""

    line: int
    models: dict[str, tuple[int, ...] | None]

    def requests(self) -> int:
        return sum(counts[0] for counts in self.models.values() if counts is not None)

    @property
    def whole(self) -> bool:
        return all(counts is not None for counts in self.models.values())


@dataclass
class Leg:
    """The first run of a session, or one resume of it (§7)."""

    line: int  # where it starts
    calls: int = 0  # model calls: replies (by apiCallId) and compactions
    last_call: int = 0  # the line of its last model call
    compacted: bool = False  # a successful compaction in it (§8.4)
    shutdown: Metrics | None = None  # its last shutdown


def _requests(value: Any) -> int | None:
    """``requests`` is ``{count, cost}``, or (§8.2, a synthetic file) a bare number."""
    if isinstance(value, dict):
        return as_count(value.get("count"))
    return as_count(value)


def metrics_of(data: dict[str, Any], line: int) -> Metrics:
    models: dict[str, tuple[int, ...] | None] = {}
    for model, raw in as_dict(data.get("modelMetrics")).items():
        raw = as_dict(raw)
        usage = raw.get("usage")
        requests = _requests(raw.get("requests"))
        if not isinstance(usage, dict) or requests is None:
            models[model] = None
            continue
        counts = [as_count(usage.get(name)) for name in COUNTERS]
        models[model] = None if any(c is None for c in counts) else (requests, *counts)  # type: ignore[misc]
    return Metrics(line, models)


@dataclass
class Tokens:
    """What the shutdowns give a session: its totals (``usage``: fresh input, cache
    reads and writes, reasoning; output 0, the replies hold it) and the output they
    record (for a check), or None when unknown with ``why``; and notes to show."""

    usage: Usage | None
    output: int | None = None
    why: str = ""
    notes: list[tuple[int, str]] = field(default_factory=list)  # (line, warning)


def session_tokens(legs: list[Leg]) -> Tokens:
    """§8.3: walk the legs' shutdowns in order, each leg's own share per model."""
    notes: list[tuple[int, str]] = []
    for leg in legs:
        if leg.calls and (leg.shutdown is None or leg.shutdown.line < leg.last_call):
            return Tokens(None, why=_no_shutdown(leg))
        if leg.calls and leg.compacted:
            return Tokens(None, why=(f"a compaction in the run from line {leg.line} reset the CLI's counters: "
                                     "the requests before it are in no shutdown record"))
        if leg.shutdown is not None and not leg.shutdown.whole:
            return Tokens(None, why=f"the shutdown record at line {leg.shutdown.line} holds no usable usage")
    totals = [0, 0, 0, 0, 0]
    previous: dict[str, tuple[int, ...]] = {}
    calls_so_far = 0
    for leg in legs:
        calls_so_far += leg.calls
        if leg.shutdown is None:
            continue
        now = {model: counts for model, counts in leg.shutdown.models.items() if counts is not None}
        share, note = _share(now, previous, leg, calls_so_far)
        if note:
            notes.append((leg.shutdown.line, note))
        for index in range(5):
            totals[index] += share[index]
        previous = now
    given, output, read, write, reasoning = totals
    usage = Usage(input_tokens=max(0, given - read - write), output_tokens=0, cache_creation_input_tokens=write,
                  cache_read_input_tokens=read, reasoning_output_tokens=reasoning)
    return Tokens(usage, output, notes=notes)


def _no_shutdown(leg: Leg) -> str:
    return (f"the run from line {leg.line} made model calls but has no shutdown record after them "
            "(the CLI did not exit cleanly)")


def _share(now: dict[str, tuple[int, ...]], previous: dict[str, tuple[int, ...]], leg: Leg,
           calls_so_far: int) -> tuple[list[int], str]:
    """One shutdown's own counters (§8.3): the whole of them where it counts its leg
    alone, what they grew by since the last shutdown where it counts the session so
    far. ``requests`` tells which; where it matches neither, a counter that fell
    starts a new count, else the growth is taken, and a note says so."""
    reported = sum(counts[0] for counts in now.values())
    note = ""
    if not previous or (reported == leg.calls and reported != calls_so_far):
        cumulative = False
    elif reported == calls_so_far:
        cumulative = True
    else:
        cumulative = not _fell(now, previous)
        note = (f"requests.count {reported} matches neither this run's model calls ({leg.calls}) nor the "
                f"session's so far ({calls_so_far}); counted as {'a running total' if cumulative else 'this run alone'}")
    expected = calls_so_far if cumulative else leg.calls
    if not note and reported != expected:
        note = f"requests.count {reported}, but the file holds {expected} model calls for it (§8.3)"
    share = [0, 0, 0, 0, 0]
    for model, counts in now.items():
        before = previous.get(model) if cumulative else None
        for index in range(5):
            value = counts[index + 1] - (before[index + 1] if before else 0)
            share[index] += max(0, value)
    return share, note


def _fell(now: dict[str, tuple[int, ...]], previous: dict[str, tuple[int, ...]]) -> bool:
    return any(counts[i] < previous[model][i] for model, counts in now.items() if model in previous
               for i in range(len(counts)))
