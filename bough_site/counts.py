"""A union of tallies counted without holding it as Python objects (issue #40).

A project's and the site's numbers are unions of their sessions' identities
(stats.py). At 18,000 sessions the site's union held as a :class:`~.stats.Tally`
(sets of strings, a Usage object per reply) was most of a build's memory, and
decoding it most of an append's publishing. :class:`Counts` keeps the same union
as packed 10-byte digests and arrays of integers, one run per union merged, in
the order ``Tally.merge`` would take them, and counted once, at the end: its
numbers are ``Tally.stats()``'s of the merged tally (tests/test_counts.py checks
it on random unions with repeats and ties). A run's identities are grouped by
their first byte into 16 buckets, so that counting across runs makes Python
objects of one bucket at a time: at 18,000 sessions, counting them all at once
cost 145 MB, the build's peak. OUT's state keeps a month's union in this form
(:func:`pack`, state_reads.Unions), read back without decoding an object per
identity.

The identities are the digests of summaries.tally_to_json (hidden.hide: 10 bytes
as 20 hex digits); anything else is packed as its own digest, which counts the
same.

A union's numbers are made of its :class:`Sums` (counts and sums, before they are a
stats object). Unions that share no identity have the sums of their union added up:
the site's numbers are its projects' sums added when no two projects share an
identity's first 8 bytes (:meth:`Counts.prefixes`, site.site_counted), and an append
then counts its own project's identities, not the site's.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import re
import struct
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from .model import Usage
from .pricing import CostSums, cost_sums
from .stats import SET_KEYS, USAGE_FIELDS, Tally, merge_common, stats_of
from .summaries import usage_from_numbers

DIGEST = 10  # bytes per identity
BUCKETS = 16  # identities grouped by their first byte: counted a group at a time
_HEX_DIGEST = re.compile(r"[0-9a-f]{20}")
FORMAT = b"bough.counts/2\n"  # the first line of a packed union; part of its name in the state
_NONE = -1  # a cost not known; costs are never negative (what is, goes in a list)
# Per reply: the usage numbers, then 1 for a reply of unknown tokens (Usage.unknown).
_REPLY_WIDTH = len(USAGE_FIELDS) + 1
_COST_WIDTH = 2  # estimate, recorded (pico-dollars)

Numbers = array | list  # array("q") unless a number does not fit one


def _numbers(values: Iterable[int | None]) -> Numbers:
    values = list(values)
    if all(value is None or value >= 0 for value in values):
        try:
            return array("q", [_NONE if value is None else value for value in values])
        except (OverflowError, TypeError):
            pass
    return values  # exact whatever they are


def _as_list(numbers: Numbers) -> list:
    return numbers if isinstance(numbers, list) else [None if value == _NONE else value for value in numbers]


def _packed_keys(keys: Sequence[str]) -> bytes:
    """Identities as 10-byte digests: a digest already is its bytes."""
    joined = "".join(keys)
    if len(joined) == 2 * DIGEST * len(keys):
        try:
            packed = bytes.fromhex(joined)
            if all(_HEX_DIGEST.fullmatch(key) for key in keys):
                return packed
        except ValueError:
            pass
    return b"".join(bytes.fromhex(key) if _HEX_DIGEST.fullmatch(key) else _digest(key) for key in keys)


def _digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=DIGEST).digest()


def _bucket(digest: bytes) -> int:
    return digest[0] * BUCKETS >> 8


@dataclass(frozen=True)
class Run:
    """One union's identities (none twice), grouped by bucket, each with ``width``
    numbers: bucket ``b`` is identities ``starts[b]`` to ``starts[b + 1]``."""

    keys: bytes
    numbers: Numbers
    starts: tuple[int, ...]

    @classmethod
    def of(cls, digests: list[bytes], rows: list[list[int | None]], width: int) -> Run:
        order = sorted(range(len(digests)), key=lambda index: _bucket(digests[index]))
        sizes = [0] * BUCKETS
        for digest in digests:
            sizes[_bucket(digest)] += 1
        starts = [0]
        for size in sizes:
            starts.append(starts[-1] + size)
        return cls(b"".join(digests[index] for index in order),
                   _numbers(number for index in order for number in rows[index][:width]), tuple(starts))

    def __len__(self) -> int:
        return len(self.keys) // DIGEST

    def cut(self, bucket: int) -> list[bytes]:
        start, end = self.starts[bucket] * DIGEST, self.starts[bucket + 1] * DIGEST
        return [self.keys[at:at + DIGEST] for at in range(start, end, DIGEST)]

    def total(self, index: int, width: int) -> int:
        start = index * width
        return sum(self.numbers[start:start + 4])  # Usage.total(): the four token counts


@dataclass
class Packed:
    """The identities of several unions (``runs``, in merge order), each with
    ``width`` numbers. An identity counts once: the numbers of its first copy (or,
    ``larger``, of the first of its copies with the largest token total) count."""

    width: int = 0
    runs: list[Run] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(run) for run in self.runs)

    def extend(self, other: Packed) -> None:
        self.runs.extend(run for run in other.runs if len(run))

    def distinct(self) -> int:
        if len(self.runs) <= 1:
            return len(self)
        return sum(len(set().union(*(run.cut(bucket) for run in self.runs))) for bucket in range(BUCKETS))

    def dropped(self, *, larger: bool = False) -> list[tuple[Run, int]]:
        """The copies that do not count, as (run, index). A bucket at a time, so
        that only a sixteenth of the identities are ever Python objects at once."""
        out: list[tuple[Run, int]] = []
        if len(self.runs) <= 1:
            return out
        for bucket in range(BUCKETS):
            cuts = [run.cut(bucket) for run in self.runs]
            if len(set().union(*cuts)) == sum(len(cut) for cut in cuts):
                continue  # nothing twice: the common case, at C speed
            kept: dict[bytes, tuple[Run, int]] = {}
            for run, cut in zip(self.runs, cuts):
                for index, key in enumerate(cut, run.starts[bucket]):
                    seen = kept.setdefault(key, (run, index))
                    if seen[0] is run:
                        continue  # the first copy (a run holds an identity once)
                    if larger and run.total(index, self.width) > seen[0].total(seen[1], self.width):
                        out.append(seen)
                        kept[key] = (run, index)
                    else:
                        out.append((run, index))
        return out

    def sum(self, offset: int, dropped: list[tuple[Run, int]]) -> int:
        """The ``offset``-th numbers of the copies that count, added up (numbers all known)."""
        total = sum(sum(run.numbers[offset::self.width]) for run in self.runs)
        return total - sum(run.numbers[index * self.width + offset] for run, index in dropped)

    def pairs(self, dropped: list[tuple[Run, int]]) -> Iterator[tuple[int | None, int | None]]:
        """Each counted copy's first two numbers (None: not known)."""
        skip = {(id(run), index) for run, index in dropped}
        for run in self.runs:
            values = _as_list(run.numbers)
            for index in range(len(run)):
                if (id(run), index) not in skip:
                    yield values[index * self.width], values[index * self.width + 1]


@dataclass
class Counts:
    """A union of tallies, packed: see the module's docstring."""

    sets: dict[str, Packed] = field(default_factory=lambda: {key: Packed() for key in SET_KEYS})
    replies: Packed = field(default_factory=lambda: Packed(_REPLY_WIDTH))
    costs: Packed | None = None  # None: not priced (--no-cost)
    totals: dict[str, Usage] = field(default_factory=dict)
    unknown: dict[str, set[str]] = field(default_factory=dict)
    lines: int = 0
    skipped_lines: int = 0
    has_reasoning: bool = False

    @classmethod
    def of(cls, tally: Tally) -> Counts:
        """A tally's identities, packed (a tally is one union: one run)."""
        counts = cls(lines=tally.lines, skipped_lines=tally.skipped_lines, has_reasoning=tally.has_reasoning,
                     totals=dict(tally.totals), unknown={key: set(items) for key, items in tally.unknown.items()})
        for key in SET_KEYS:
            counts.sets[key] = _packed(list(getattr(tally, key)), 0, [])
        counts.replies = _packed(list(tally.replies), _REPLY_WIDTH,
                                 [_reply_numbers(usage) for usage in tally.replies.values()])
        if tally.costs is not None:
            counts.costs = _packed(list(tally.costs), _COST_WIDTH, [list(pair) for pair in tally.costs.values()])
        return counts

    def merge(self, other: Counts) -> None:
        """``other``'s identities after these (stats.Tally.merge's order)."""
        for key in SET_KEYS:
            self.sets[key].extend(other.sets[key])
        self.replies.extend(other.replies)
        if other.costs is not None:
            if self.costs is None:
                self.costs = Packed(_COST_WIDTH)
            self.costs.extend(other.costs)
        merge_common(self, other)

    def stats(self) -> dict[str, int | None]:
        """stats.Tally.stats() of the tally these are the union of."""
        return self.sums().stats()

    def sums(self) -> Sums:
        """What the numbers are made of (:class:`Sums`): the identities counted once."""
        dropped = self.replies.dropped(larger=True)
        return Sums(
            sets={key: packed.distinct() for key, packed in self.sets.items()},
            replies=len(self.replies) - len(dropped),
            sums={name: self.replies.sum(offset, dropped) + sum(getattr(u, name) for u in self.totals.values())
                  for offset, name in enumerate(USAGE_FIELDS)},
            unknown_replies=self.replies.sum(len(USAGE_FIELDS), dropped),
            lines=self.lines, skipped_lines=self.skipped_lines, has_reasoning=self.has_reasoning,
            unknown={key: len(sessions) for key, sessions in self.unknown.items()},
            costs=None if self.costs is None else cost_sums(self.costs.pairs(self.costs.dropped())))

    def prefixes(self) -> bytes:
        """Each identity's first 8 bytes, and 8 of a digest of each whole-session total's
        name and each session of unknown figures, as big-endian integers, sorted, each
        once (kept as little-endian 64-bit integers): two unions whose prefixes share
        none share no identity, and the sums of their union are their sums added
        (:meth:`Sums.__add__`). Made a bucket at a time (a sixteenth of the values: a
        digest's bucket is its integer's top four bits), the values of a bucket made
        by C loops, not one Python step per identity."""
        names = [*self.totals, *(f"{key}\0{session}" for key, sessions in self.unknown.items() for session in sessions)]
        named = [int.from_bytes(_digest(name)[:8], "big") for name in names]
        runs = [run for packed in (*self.sets.values(), self.replies, *((self.costs,) if self.costs else ()))
                for run in packed.runs]
        out = array("Q")
        for bucket in range(BUCKETS):
            values = {value for value in named if value >> 60 == bucket}
            for run in runs:
                keys = memoryview(run.keys)[run.starts[bucket] * DIGEST:run.starts[bucket + 1] * DIGEST]
                values.update(map(_first, struct.iter_unpack(">Q2x", keys)))
            out.extend(sorted(values))
        return little_endian(out).tobytes()


_first = operator.itemgetter(0)


@dataclass(frozen=True)
class Sums:
    """A union's numbers before they are a stats object: what stats.stats_of takes,
    each a count or a sum (the costs as pricing.cost_sums). The sums of a union of
    unions that share no identity are theirs added up (``+``): a site's numbers are
    its projects' when no identity is in two of them (site.py; tests/test_counts.py)."""

    sets: dict[str, int]
    replies: int
    sums: dict[str, int]
    unknown_replies: int
    lines: int
    skipped_lines: int
    has_reasoning: bool
    unknown: dict[str, int]  # token key -> sessions of unknown figures
    costs: CostSums | None

    def stats(self) -> dict[str, int | None]:
        return stats_of(self, dict(self.sets), replies=self.replies, sums=self.sums,
                        unknown_replies=self.unknown_replies, costs=self.costs, session=False)

    def __add__(self, other: Sums) -> Sums:
        costs = None if self.costs is None and other.costs is None else \
            tuple(a + b for a, b in zip(self.costs or (0, 0, 0, 0), other.costs or (0, 0, 0, 0)))
        return Sums(_added(self.sets, other.sets), self.replies + other.replies, _added(self.sums, other.sums),
                    self.unknown_replies + other.unknown_replies, self.lines + other.lines,
                    self.skipped_lines + other.skipped_lines, self.has_reasoning or other.has_reasoning,
                    _added(self.unknown, other.unknown), costs)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        return {"sets": self.sets, "replies": self.replies, "sums": self.sums, "unknown_replies": self.unknown_replies,
                "lines": self.lines, "skipped_lines": self.skipped_lines, "has_reasoning": self.has_reasoning,
                "unknown": self.unknown, "costs": self.costs}

    @classmethod
    def from_json(cls, doc: Any) -> Sums:
        """ValueError (or TypeError, KeyError) when ``doc`` is not what :meth:`to_json` wrote."""
        sets, sums, unknown, costs = (_counts(doc["sets"], SET_KEYS), _counts(doc["sums"], USAGE_FIELDS),
                                      _counts(doc["unknown"]), doc["costs"])
        numbers = [doc[name] for name in ("replies", "unknown_replies", "lines", "skipped_lines")]
        if not all(_is_count(n) for n in numbers) or not isinstance(doc["has_reasoning"], bool) or not (
                costs is None or (isinstance(costs, list) and len(costs) == 4 and all(map(_is_count, costs)))):
            raise ValueError("not a union's sums")
        return cls(sets, numbers[0], sums, numbers[1], numbers[2], numbers[3], doc["has_reasoning"], unknown,
                   None if costs is None else tuple(costs))  # type: ignore[arg-type]


@dataclass(frozen=True)
class ProjectSums:
    """What the site's numbers take of a project when no identity is in two projects
    (site.site_counted): its :class:`Sums` and its identities' prefixes
    (:meth:`Counts.prefixes`), kept under ``name`` (state_reads.sums_key)."""

    name: str
    sums: Sums
    prefixes: bytes

    def to_bytes(self) -> bytes:
        return orjson.dumps(self.sums.to_json()) + b"\n" + self.prefixes

    @classmethod
    def from_bytes(cls, name: str, data: bytes) -> ProjectSums | None:
        head, _, prefixes = data.partition(b"\n")
        if len(prefixes) % 8:
            return None
        try:
            return cls(name, Sums.from_json(orjson.loads(head)), prefixes)
        except (orjson.JSONDecodeError, ValueError, TypeError, KeyError):
            return None


def _added(one: dict[str, int], other: dict[str, int]) -> dict[str, int]:
    return {key: one.get(key, 0) + other.get(key, 0) for key in {**one, **other}}


def _counts(doc: Any, keys: Sequence[str] | None = None) -> dict[str, int]:
    if not isinstance(doc, dict) or (keys is not None and list(doc) != list(keys)) or \
            not all(isinstance(key, str) and _is_count(value) for key, value in doc.items()):
        raise ValueError("not counts by key")
    return dict(doc)


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _reply_numbers(usage: Usage) -> list[int]:
    return [*(getattr(usage, name) for name in USAGE_FIELDS), 1 if usage.unknown else 0]


def _packed(keys: list[str], width: int, rows: list[list[int | None]]) -> Packed:
    if not keys:
        return Packed(width)
    packed = _packed_keys(keys)
    digests = [packed[at:at + DIGEST] for at in range(0, len(packed), DIGEST)]
    return Packed(width, [Run.of(digests, rows or [[]] * len(keys), width)])


def pack(counts: Counts) -> bytes:
    """A union as OUT's state keeps it: a line of JSON saying what follows (each
    bucket's size), then the packed digests and numbers (little-endian), read by
    :func:`unpack` without an object per identity. Only a union of one run
    (:meth:`Counts.of`)."""
    if any(len(packed.runs) > 1 for packed in (*counts.sets.values(), counts.replies, counts.costs) if packed):
        raise ValueError("pack() keeps a union of one run (Counts.of)")
    blocks: list[bytes] = []
    header: dict[str, Any] = {"sets": {}, "lines": counts.lines, "skipped_lines": counts.skipped_lines,
                              "has_reasoning": counts.has_reasoning,
                              "totals": [[key, *_reply_numbers(usage)] for key, usage in counts.totals.items()],
                              "unknown": {key: sorted(items) for key, items in counts.unknown.items()}}
    for key, packed in counts.sets.items():
        header["sets"][key] = _sizes(packed)
        blocks.extend(run.keys for run in packed.runs)
    for name, packed in (("replies", counts.replies), ("costs", counts.costs)):
        if packed is None:
            continue
        header[name] = _sizes(packed)
        for run in packed.runs:
            blocks.append(run.keys)
            if isinstance(run.numbers, list):  # a number an array cannot hold: kept in the JSON, as text
                header[f"{name}_numbers"] = [None if number is None else str(number) for number in run.numbers]
            else:
                blocks.append(little_endian(run.numbers).tobytes())
    return FORMAT + orjson.dumps(header) + b"\n" + b"".join(blocks)


def _sizes(packed: Packed) -> list[int]:
    if not packed.runs:
        return [0] * BUCKETS
    starts = packed.runs[0].starts
    return [end - start for start, end in zip(starts, starts[1:])]


def unpack(data: bytes) -> Counts | None:
    """What :func:`pack` kept; None when ``data`` is not that."""
    try:
        return _unpack(data)
    except (ValueError, TypeError, KeyError, AttributeError, orjson.JSONDecodeError):
        return None


def _unpack(data: bytes) -> Counts | None:
    if not data.startswith(FORMAT):
        return None
    end = data.index(b"\n", len(FORMAT))
    header = orjson.loads(data[len(FORMAT):end])
    view, at = memoryview(data), end + 1

    def take(size: int) -> bytes:
        nonlocal at
        if at + size > len(data):
            raise ValueError("short")
        block, at = bytes(view[at:at + size]), at + size
        return block

    def run(sizes: list[Any], width: int, numbers: Numbers | None = None) -> Packed:
        if len(sizes) != BUCKETS or not all(isinstance(size, int) and size >= 0 for size in sizes):
            raise ValueError("not a bucket's sizes")
        starts = (0, *itertools.accumulate(sizes))
        keys = take(starts[-1] * DIGEST)
        if numbers is None:
            numbers = array("q")
            if width:
                numbers.frombytes(take(starts[-1] * width * numbers.itemsize))
                numbers = little_endian(numbers)
        if len(numbers) != starts[-1] * width:
            raise ValueError("numbers of another size")
        return Packed(width, [Run(keys, numbers, starts)] if starts[-1] else [])

    counts = Counts(lines=int(header["lines"]), skipped_lines=int(header["skipped_lines"]),
                    has_reasoning=bool(header["has_reasoning"]),
                    totals={key: usage_from_numbers(numbers) for key, *numbers in header["totals"]},
                    unknown={key: set(items) for key, items in header["unknown"].items()})
    for key in SET_KEYS:
        counts.sets[key] = run(header["sets"][key], 0)
    for name, width in (("replies", _REPLY_WIDTH), ("costs", _COST_WIDTH)):
        if name in header:
            text = header.get(f"{name}_numbers")
            numbers = None if text is None else [None if number is None else int(number) for number in text]
            setattr(counts, name, run(header[name], width, numbers))
    return counts if at == len(data) else None


def little_endian(numbers: array) -> array:
    """The array in little-endian order, as the state keeps numbers (a no-op where the
    machine's is); read back, the machine's order again."""
    if sys.byteorder == "little":
        return numbers
    swapped = array(numbers.typecode, numbers)
    swapped.byteswap()
    return swapped
