"""Codex CLI token counts: a TokenUsage read defensively, and the meter that
turns cumulative snapshots into one spend per model call (docs/formats-codex.md X8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Usage
from .values import any_unknown, as_dict, as_int


@dataclass(frozen=True)
class Counts:
    """One TokenUsage: cached and cache writes are parts of input, reasoning of output."""

    input: int = 0
    cached: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0
    total: int = 0
    unknown: bool = False  # a count there was not one (values.as_count)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Counts:
        details_in = as_dict(raw.get("input_tokens_details"))
        details_out = as_dict(raw.get("output_tokens_details"))
        given = [raw.get(name) for name in _COUNT_FIELDS] + [details_in.get("cached_tokens"),
                                                             details_out.get("reasoning_tokens")]
        input_, output = as_int(raw.get("input_tokens")), as_int(raw.get("output_tokens"))
        return cls(
            input_,
            as_int(raw.get("cached_input_tokens")) or as_int(details_in.get("cached_tokens")),
            as_int(raw.get("cache_write_input_tokens")),
            output,
            as_int(raw.get("reasoning_output_tokens")) or as_int(details_out.get("reasoning_tokens")),
            input_ + output or as_int(raw.get("total_tokens")),
            any_unknown(*given),
        )

    def minus(self, other: Counts) -> Counts:
        return Counts(*(max(0, a - b) for a, b in zip(self._values(), other._values())), self.unknown)

    def _values(self) -> tuple[int, ...]:
        return (self.input, self.cached, self.cache_write, self.output, self.reasoning, self.total)

    def usage(self) -> Usage:
        # Fresh input excludes what was read from or written to the cache, so the
        # four Claude-style fields add up to what was sent (docs/formats-codex.md X8).
        return Usage(
            input_tokens=max(0, self.input - self.cached - self.cache_write),
            output_tokens=self.output,
            cache_creation_input_tokens=self.cache_write,
            cache_read_input_tokens=self.cached,
            reasoning_output_tokens=self.reasoning,
            unknown=self.unknown,
        )


_COUNT_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens",
                 "reasoning_output_tokens", "total_tokens")


def unknown_counts(kind: str, payload: dict[str, Any]) -> bool:
    """Whether a line's token counts hold a value that is not a count (the scan says so at its line)."""
    if kind == "event_msg" and payload.get("type") == "token_count":
        info = as_dict(payload.get("info"))
        return any(Counts.of(as_dict(info.get(name))).unknown for name in ("total_token_usage", "last_token_usage"))
    if kind == "token_usage_record":
        return Counts.of(as_dict(payload.get("usage")) or as_dict(payload.get("last_token_usage"))).unknown
    return False


class TokenMeter:
    """Cumulative ``total_token_usage`` snapshots in; one delta per model call out.

    A snapshot whose total did not move is a re-emit (about half of all
    token_count events, docs/formats-codex.md X8) and gives nothing. A total that went down
    means the counter restarted, so the delta is taken from zero."""

    def __init__(self) -> None:
        self.last = Counts()
        self._last_call: Any = None

    def feed(self, info: dict[str, Any]) -> Usage | None:
        total = info.get("total_token_usage")
        if isinstance(total, dict):
            now = Counts.of(total)
            if now.unknown:
                return None  # a total that cannot be read: the next one's delta counts this call too
            if now.total < self.last.total:
                self.last = Counts()
            if now.total <= self.last.total:
                return None
            delta, self.last = now.minus(self.last), now
            return delta.usage()
        # No cumulative totals: the per-call figure, skipping identical repeats.
        call = info.get("last_token_usage")
        if not isinstance(call, dict) or call == self._last_call:
            return None
        self._last_call = call
        counts = Counts.of(call)
        return counts.usage() if counts.total else None
