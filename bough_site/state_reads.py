"""What publishing reads back from OUT's state (state.py), a project at a time, so
that a build never holds every session's at once (docs/performance.md, "What the
build holds"):

- :class:`Unions`: the union of a project's sessions' counting identities, for its
  numbers and the site's, itself kept in the state;
- :class:`Details`: the details of its sessions' summaries (summaries.split_summary),
  while its files and search's fallback index are made.

Decoded with the cyclic collector off (collector.py).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .assemble import Outcome
from .collector import collecting
from .counts import FORMAT, Counts, ProjectSums, pack, unpack
from . import __version__
from .model import Session
from .state import StateWrites, state_name
from .stats import Tally
from .summaries import add_details, drop_details, tally_from_bytes

if TYPE_CHECKING:
    from .render.project_summary import ProjectFacts


def union_key(outcomes: list[Outcome]) -> str:
    """The name a union of these sessions' identities is kept under: a digest of the
    names of their identities' values, in order (a union depends on nothing else),
    and of the form it is packed in (a union packed otherwise is not read again)."""
    return state_name(FORMAT + "\n".join(outcome.tally_file for outcome in outcomes).encode(), ".counts")


def months(outcomes: list[Outcome], sessions: list[Session]) -> list[list[Outcome]]:
    """A project's sessions (newest first) cut where their month changes: the parts
    whose unions are kept, so a session added or grown costs its month's union, not
    its project's (a project's sessions are in order of their start, so a month's
    are together)."""
    return [[outcome for _, outcome in run]
            for _, run in itertools.groupby(zip(sessions, outcomes), key=lambda pair: (pair[0].started or "")[:7])]


def union_keys(outcomes: list[Outcome], sessions: list[Session]) -> set[str]:
    """Every value :class:`Unions` keeps for a project: its months' unions and its sums."""
    keys = [union_key(month) for month in months(outcomes, sessions)]
    return {*keys, sums_key(keys)}


def sums_key(month_keys: list[str]) -> str:
    """The name a project's counts.ProjectSums (its numbers, and its identities'
    prefixes) are kept under: a digest of its months' unions' names, and of the form
    they are kept in."""
    return state_name(SUMS_FORMAT + "\n".join(month_keys).encode(), ".sums")


SUMS_FORMAT = b"bough.sums/1\n"


class Unions:
    """The union of a project's sessions' identities (counts.Counts), merged from its
    months' unions, each kept in the state: a month none of whose sessions changed
    is one value read, and an append makes its own month's again (at 18,000
    sessions, decoding and merging every session's identities was most of an
    append's publishing, and holding them all at once most of a build's memory; a
    project's own union, kept too, cost more to write again than its months to
    read). Merging is the same in any grouping (stats.Tally.merge: unions, and the
    first of the largest copies), so the numbers are those of merging every session
    in order."""

    def __init__(self, outcome: Callable[[Session], Outcome], state: StateWrites,
                 report: Callable[[str], None]) -> None:
        self._outcome = outcome
        self._state = state
        self._report = report
        self._kept: dict[str, bool] = {}  # a month's union made by this build: whether it is kept

    def sums(self, sessions: list[Session]) -> ProjectSums:
        """The project's numbers (its sums) and its identities' prefixes, kept too
        (named by its months' unions): a project an append left alone is one value
        read, neither its months' unions nor its identities counted (at 18,000
        sessions, reading and counting every project's identities was an append's
        site numbers: 0.43 s)."""
        parts = self._months(sessions)
        keys = [key for key, _ in parts]
        name = sums_key(keys)
        data = self._state.get_many([name]).get(name)
        kept = ProjectSums.from_bytes(name, data) if data is not None else None
        if kept is not None:
            return kept
        union = self._merged(parts)
        made = ProjectSums(name, union.sums(), union.prefixes())
        if all(self._kept.get(key, True) for key in keys):
            with contextlib.suppress(TypeError):  # a sum past 64 bits (orjson): counted again next time
                self._state.add(name, made.to_bytes())
        return made

    def union(self, sessions: list[Session]) -> Counts:
        """The project's union, merged from its months' (made and kept when they are not)."""
        return self._merged(self._months(sessions))

    def _months(self, sessions: list[Session]) -> list[tuple[str, list[Outcome]]]:
        """The project's months: each one's sessions and the name of their union."""
        return [(union_key(month), month) for month in months([self._outcome(s) for s in sessions], sessions)]

    def _merged(self, parts: list[tuple[str, list[Outcome]]]) -> Counts:
        union = Counts()
        with collecting(False):
            for key, month in parts:
                union.merge(self._month(key, month))
        return union

    def _month(self, key: str, outcomes: list[Outcome]) -> Counts:
        data = self._state.get_many([key]).get(key)
        stored = unpack(data) if data is not None else None
        if stored is not None:
            return stored
        union, whole = Tally(), True
        found = self._state.get_many(outcome.tally_file for outcome in outcomes)
        for outcome in outcomes:
            tally = tally_from_bytes(found[outcome.tally_file]) if outcome.tally_file in found else None
            if tally is None:
                whole = False
                self._report(f"warning: the numbers of session {outcome.summary.get('id')} are missing "
                             "from the last build's state; its project's totals leave it out")
                continue
            union.merge(tally)
        self._kept[key] = whole
        counts = Counts.of(union)
        if whole:  # a union that leaves a session out is never kept: the next build makes it again
            self._state.add(key, pack(counts))
        return counts


def facts_name(signature: str, search: bool) -> str:
    """The name a project's facts are kept under: a digest of what the project is made
    of (publish.signatures), of bough's version and whether search is on (its shards
    are cut as this bough cuts them, and only with search are its parts named)."""
    return state_name(b"\n".join([FACTS_FORMAT, __version__.encode(), b"search" if search else b"",
                                   signature.encode()]), ".facts")


FACTS_FORMAT = b"bough.project-facts/1"


class KeptFacts:
    """Each project's facts (render.project_summary.ProjectFacts) kept in the state,
    under what the project is made of: a project a build left alone is one value read."""

    def __init__(self, state: StateWrites, search: bool) -> None:
        self._state = state
        self._search = search

    def get(self, signature: str) -> ProjectFacts | None:
        from .render.project_summary import ProjectFacts  # (publishing a page imports the pages' modules)

        name = facts_name(signature, self._search)
        data = self._state.get_many([name]).get(name)
        return ProjectFacts.from_bytes(data) if data is not None else None

    def add(self, signature: str, facts: ProjectFacts) -> None:
        self._state.add(facts_name(signature, self._search), facts.to_bytes())


class Details:
    """The details of the sessions' summaries, read from OUT's state a project at a
    time and held only while the files that read them are made."""

    def __init__(self, outcome: Callable[[Session], Outcome], state: StateWrites) -> None:
        self._outcome = outcome
        self._state = state

    def name(self, session: Session) -> str:
        """The name OUT's state keeps the session's details under: a digest of their bytes."""
        return self._outcome(session).details

    @contextlib.contextmanager
    def held(self, sessions: list[Session]) -> Iterator[None]:
        outcomes = [self._outcome(session) for session in sessions]
        with collecting(False):
            stored = self._state.get_many(o.details for o in outcomes)
            for session, outcome in zip(sessions, outcomes):
                add_details(session, stored.get(outcome.details))
        try:
            yield
        finally:
            for session in sessions:
                drop_details(session)
