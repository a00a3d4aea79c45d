"""Which Claude session files begin with a copy of another's history.

On many Claude Code versions a resume writes a new session file that begins
with a copy of the earlier session's records (same ``uuid``s; docs/formats-claude.md C11), so
the two files share history that should be shown once. This module decides,
among the main session files of one project directory, which records of each
file are *inherited* (an earlier file holds them too) and which earlier file
the marker standing in their place names. It works on small per-file summaries
(:class:`FileSummary`) and nothing else: no transcript, no build state.

The rules (docs/sidecars.md):

- Files are ordered by their earliest record time, then the earliest time of a
  record carrying the file's own session id (none: last), then the latest
  record time, then the label. Two files that start at the same moment are
  usually a parent and its resume (the copy keeps the first record's time);
  between those:

  * a copy that kept the parent's ``sessionId`` tells which one is the copy
    (the second key);
  * otherwise, of two such files sharing records, the one whose own records
    (those the other lacks) start later comes first: a resume's own records
    start when it was made, its parent can only have gone on after that. The
    latest record time would put a parent that went on after its resume (and
    so ends later) after it, and a one-turn append to the parent would turn
    the two round.
- A record that appears in a file and in an earlier one is inherited in the
  later file. Records are told by their uuid *and* what they say (type, time,
  message or content; ``readers.claude_records.record_digest``): a copy may carry
  another ``sessionId``, but two files that reuse a uuid for different records
  share nothing.
- The later file's marker names the earlier file sharing the most of its
  inherited records; ties go to the latest of those files.
- Files with the same label are one session (a file read from a source and from
  bough's archive): never each other's parent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cmp_to_key
from itertools import groupby
from typing import Any

_NEVER = "\uffff"  # after every time: a file with no records the other lacks


@dataclass(frozen=True)
class FileSummary:
    """What the decision needs of one main session file."""

    session: str  # the session id the file's page is made for (its name)
    label: str  # stands for where the file is (a digest of its label); equal labels: one session
    first: str | None  # earliest chain record time (ISO, UTC), None when no record has one
    own_first: str | None  # earliest time of a record carrying the file's own session id
    last: str | None  # latest chain record time
    # A digest of each chain record with a uuid (its uuid and what it says:
    # readers.claude_records.record_digest), in first-appearance order, and its time (None if none).
    records: tuple[str, ...]
    times: tuple[str | None, ...]

    def start(self) -> tuple[str, str]:
        # A file none of whose records carries its own id holds only copies: after
        # a file starting at the same time whose records do.
        return (self.first or "", self.own_first or _NEVER)

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "label": self.label, "first": self.first, "own_first": self.own_first,
                "last": self.last, "records": list(self.records), "times": list(self.times)}

    @classmethod
    def from_json(cls, data: Any) -> FileSummary:
        """A stored summary; ValueError when it is not one."""
        data = data if isinstance(data, dict) else {}
        records, times = data.get("records"), data.get("times")
        spans = [data.get(key) for key in ("first", "own_first", "last")]
        if not (isinstance(data.get("session"), str) and isinstance(data.get("label"), str)
                and isinstance(records, list) and isinstance(times, list) and len(records) == len(times)
                and all(isinstance(r, str) for r in records)
                and all(t is None or isinstance(t, str) for t in [*spans, *times])):
            raise ValueError("not a file summary")
        return cls(data["session"], data["label"], *spans, tuple(records), tuple(times))


@dataclass(frozen=True)
class Inheritance:
    """The history one file inherited: the digests of its records an earlier file
    holds, and the session its marker names."""

    parent: str  # session id of the earlier file sharing the most of them
    records: frozenset[str]

    def digest(self) -> str:
        """Stands for the decision in the manifest: a unit is reused only when it is the same."""
        h = hashlib.sha256(self.parent.encode("utf-8", "surrogatepass") + b"\0")
        for record in sorted(self.records):
            h.update(record.encode("ascii", "replace"))
        return h.hexdigest()[:32]


def decide(files: Sequence[FileSummary]) -> dict[int, Inheritance]:
    """The inheritance of each file of one project directory that inherited
    anything, by its index in ``files``."""
    sets = [frozenset(f.records) for f in files]
    position: dict[int, int] = {}  # the files already met (indices into files) -> their place in order
    holders: dict[str, list[int]] = {}  # record digest -> the files met that hold it
    out: dict[int, Inheritance] = {}
    for index in _order(files, sets):
        found = _inheritance(index, files, sets, holders, position)
        if found is not None:
            out[index] = found
        for record in sets[index]:
            holders.setdefault(record, []).append(index)
        position[index] = len(position)
    return out


def _order(files: Sequence[FileSummary], sets: list[frozenset[str]]) -> list[int]:
    order = sorted(range(len(files)), key=lambda i: (files[i].start(), files[i].last or "", files[i].label))
    out: list[int] = []
    for _, together in groupby(order, key=lambda i: files[i].start()):
        block = list(together)
        if len(block) > 1:  # stable: files sharing nothing keep (latest time, label)
            block.sort(key=cmp_to_key(lambda a, b: _went_on_longer(files, sets, a, b)))
        out += block
    return out


def _went_on_longer(files: Sequence[FileSummary], sets: list[frozenset[str]], a: int, b: int) -> int:
    """Of two files that start together and share records, the one whose own
    records start later comes first (a resume's start when it was made)."""
    if sets[a].isdisjoint(sets[b]):
        return 0
    own_a, own_b = _own_start(files[a], sets[b]), _own_start(files[b], sets[a])
    return 0 if own_a == own_b else (-1 if own_a > own_b else 1)


def _own_start(summary: FileSummary, other: frozenset[str]) -> str:
    """The earliest time of the file's records the other file lacks."""
    return min((t for r, t in zip(summary.records, summary.times) if t and r not in other), default=_NEVER)


def _inheritance(index: int, files: Sequence[FileSummary], sets: list[frozenset[str]],
                 holders: dict[str, list[int]], position: dict[int, int]) -> Inheritance | None:
    mine = sets[index]
    inherited = [record for record in mine if record in holders]
    if not inherited:
        return None
    candidates: set[int] = set()
    for record in inherited:
        candidates.update(holders[record])
    label = files[index].label
    same = {i for i in candidates if files[i].label == label}
    if same:  # the same session read twice: what only its other copy holds is not inherited
        candidates -= same
        inherited = [record for record in inherited if any(i not in same for i in holders[record])]
        if not inherited:
            return None
    kept = frozenset(inherited)
    # The file sharing the most; ties go to the latest.
    parent = max(candidates, key=lambda i: (len(kept & sets[i]), position[i]))
    return Inheritance(files[parent].session, kept)
