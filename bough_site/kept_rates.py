"""genai-prices' rates, kept in OUT's state from one build to the next.

Pricing a session asks genai-prices for each model's rates (pricing.py). Importing
genai-prices costs 0.1 s, most of it the pydantic and httpx it imports itself.
That is a tenth of an append at 2,000 sessions (docs/performance.md), and every
build that reads a session in its own process pays it. This module keeps what
such a build learned: an append that prices models priced before need not import
genai-prices at all.

What is kept is genai-prices' answer as bough compiled it (rates.Rates, integers
of pico-dollars per token), or that it knows no such model. Each answer is kept
for the day it was asked for, or for every day when the model's prices do not
change with the date. A model is named as a transcript names it, which may hold
anything (a secret pasted where the model goes): the file keeps a digest of the
provider and model instead (hidden.hide), never the names. The file names the versions of bough and genai-prices that
made it, and a build of any other version does not read it. A file that cannot be
read, or that is not in the exact shape written here, counts as empty: this module
only saves time, it never changes a cost. Only the build's own process saves the
file; what its workers learn they hand back with their results (jobs.Batch), so a
cold build keeps every model and day its sessions were priced for, and an append
to a session on any of those days imports nothing.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import orjson

from . import __version__
from .errors import BoughError
from .hidden import hide
from .rates import Price, Rates
from .regular import read_regular
from .state import atomic_write, real_folders
from .state_paths import KEPT_RATES, STATE_DIR

FORMAT = 1
EVERY_DAY = "*"  # not a day: the model's prices are the same whatever the date
_MAX_FILE = 4 << 20

Key = tuple[str, str]  # hidden.hide of the provider and model, the day (or EVERY_DAY)


class KeptRates:
    """The rates kept in ``OUT/.bough-state`` for one genai-prices ``version``."""

    def __init__(self, out: Path, version: str) -> None:
        self._folder = Path(out) / STATE_DIR
        self._version = version
        self._known: dict[Key, Rates | None] | None = None  # read at the first question
        self._learned = False
        self._new: dict[Key, Rates | None] = {}  # what this process learned since taken (:meth:`take_new`)

    def get(self, provider: str, model: str, day: str) -> Rates | None:
        """The rates kept for ``model`` on ``day``; KeyError when none are."""
        known, name = self._read(), _name(provider, model)
        return known[(name, EVERY_DAY)] if (name, EVERY_DAY) in known else known[(name, day)]

    def add(self, provider: str, model: str, day: str, rates: Rates | None, *, every_day: bool) -> None:
        """genai-prices' answer for ``model`` on ``day`` (on every day, with ``every_day``)."""
        key = (_name(provider, model), EVERY_DAY if every_day else day)
        self._read()[key] = self._new[key] = rates
        self._learned = True

    def take_new(self) -> dict[Key, Rates | None]:
        """What this process learned since the last call (a worker's, handed back)."""
        new, self._new = self._new, {}
        return new

    def learn(self, answers: dict[Key, Rates | None]) -> None:
        """Answers another process learned (a worker's), saved with this one's."""
        if answers:
            self._read().update(answers)
            self._learned = True

    def save(self) -> None:
        """Write what this process learned, beside what was kept. A state that cannot
        be written keeps nothing (the next build asks genai-prices again)."""
        if not self._learned or not real_folders(self._folder, create=True):
            return
        self._learned = False
        with contextlib.suppress(BoughError):
            atomic_write(self._folder, KEPT_RATES, [to_bytes(self._read(), self._version)])

    def _read(self) -> dict[Key, Rates | None]:
        if self._known is None:
            data = read_regular(self._folder / KEPT_RATES, _MAX_FILE) if real_folders(self._folder, create=False) \
                else None
            self._known = from_bytes(data, self._version) if data is not None else {}
        return self._known


def _name(provider: str, model: str) -> str:
    return hide(f"{provider}\0{model}")


def to_bytes(known: dict[Key, Rates | None], version: str) -> bytes:
    """The file: its versions, then each answer as [model's digest, day, rates or null], sorted."""
    rows = [[*key, None if rates is None else [_price_json(p) for p in _prices(rates)]]
            for key, rates in sorted(known.items())]
    return orjson.dumps({"bough": __version__, "format": FORMAT, "genai-prices": version, "rates": rows},
                        option=orjson.OPT_SORT_KEYS) + b"\n"


def from_bytes(data: bytes, version: str) -> dict[Key, Rates | None]:
    """The answers a file holds; none when it is not one this bough and ``version`` wrote."""
    try:
        doc = orjson.loads(data)
        if doc.get("format") != FORMAT or doc.get("bough") != __version__ or doc.get("genai-prices") != version:
            return {}
        return dict(_row(row) for row in doc["rates"])
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return {}


def _row(row: Any) -> tuple[Key, Rates | None]:
    name, day, prices = row
    if not all(isinstance(text, str) and text for text in (name, day)):
        raise ValueError("not an answer")
    if prices is None:
        return (name, day), None
    given, output, read, write, hour = prices
    if given is None or output is None:
        raise ValueError("a model priced by its tokens has both prices")
    return (name, day), Rates(_price(given), _price(output), _optional(read), _optional(write), _optional(hour))


def _prices(rates: Rates) -> tuple[Price | None, ...]:
    return (rates.input, rates.output, rates.cache_read, rates.cache_write, rates.cache_write_1h)


def _price_json(price: Price | None) -> Any:
    return None if price is None else [price[0], [list(tier) for tier in price[1]]]


def _optional(value: Any) -> Price | None:
    return None if value is None else _price(value)


def _price(value: Any) -> Price:
    base, tiers = value
    pairs = tuple((start, rate) for start, rate in tiers)
    if not all(_count(number) for number in (base, *(n for pair in pairs for n in pair))):
        raise ValueError("a rate is a whole number of pico-dollars")
    return (base, pairs)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0
