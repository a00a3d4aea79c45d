"""A model's prices on one day, as pricing.py computes a call's cost from them
(docs/cost.md): integers of pico-dollars per token, tiers and all. Apart from
pricing.py so that what keeps them between builds (kept_rates.py) needs nothing else."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Usage

# A price: (base rate, ((tier start, rate), ...) ascending), rates in pico-USD per token.
Price = tuple[int, tuple[tuple[int, int], ...]]


@dataclass(frozen=True)
class Rates:
    """One model's prices on one day, in pico-dollars per token."""

    input: Price
    output: Price
    cache_read: Price | None  # None: cache reads are priced as input (the table has no price for them)
    cache_write: Price | None
    cache_write_1h: Price | None = None  # None: one-hour cache writes at cache_write's rate

    def __post_init__(self) -> None:
        # Without tiers (most models), the rates as five plain integers: the fast path.
        prices = (self.input, self.output, self.cache_read, self.cache_write, self.cache_write_1h)
        flat = None
        if not any(price is not None and price[1] for price in prices):
            given = self.input[0]
            read = given if self.cache_read is None else self.cache_read[0]
            write = given if self.cache_write is None else self.cache_write[0]
            hour = write if self.cache_write_1h is None else self.cache_write_1h[0]
            flat = (given, self.output[0], read, write, hour)
        object.__setattr__(self, "_flat", flat)

    def pico(self, usage: Usage) -> int:
        """The cost of one model call in pico-dollars. genai-prices' ``input_tokens``
        is bough's fresh input plus cache reads and writes; a tier applies to every
        token of the call when that total is above the tier's start (its cliff model)."""
        fresh, read, write = usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens
        flat = self._flat  # type: ignore[attr-defined]
        if flat is not None:
            hour = usage.cache_creation_1h_input_tokens
            if hour > write:
                hour = write
            return (flat[0] * fresh + flat[1] * usage.output_tokens + flat[2] * read + flat[3] * (write - hour)
                    + flat[4] * hour)
        whole = fresh + read + write
        cost = _rate(self.output, whole) * usage.output_tokens
        input_rate = _rate(self.input, whole)
        cost += input_rate * fresh
        cost += (input_rate if self.cache_read is None else _rate(self.cache_read, whole)) * read
        write_rate = input_rate if self.cache_write is None else _rate(self.cache_write, whole)
        hour = min(usage.cache_creation_1h_input_tokens, write)
        cost += write_rate * (write - hour)
        if hour:
            cost += (write_rate if self.cache_write_1h is None else _rate(self.cache_write_1h, whole)) * hour
        return cost


def _rate(price: Price, whole: int) -> int:
    base, tiers = price
    for start, rate in reversed(tiers):
        if whole > start:
            return rate
    return base
