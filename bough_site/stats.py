"""Counting: what each STATS key counts, kept as sets of identities.

A session's numbers could be plain integers, but a project must count a record
or reply once even when two files hold it (a resumed session copies its
parent's records). So every reader records *identities* in a Tally, and a
project's Tally is the union of its sessions'. Integers come out at the end.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from .model import REASONING_KEY, STAT_KEYS, TOKEN_STAT_KEYS, UNKNOWN_SESSIONS_PREFIX, UNKNOWN_TOKENS_KEY, Usage
from .pricing import CostSums, cost_stats_of, cost_sums


class Numbers(Protocol):
    """What :func:`stats_of` takes of a union besides its counts: its lines, whether
    it holds reasoning tokens, and the sessions of unknown figures by token key (a
    set, or how many: counts.Sums)."""

    lines: int
    skipped_lines: int
    has_reasoning: bool

    @property
    def unknown(self) -> Mapping[str, Collection[str] | int]: ...


class Union(Numbers, Protocol):
    """What a union of tallies holds as numbers, whether a Tally or packed (counts.Counts)."""

    totals: dict[str, Usage]
    unknown: dict[str, set[str]]  # type: ignore[assignment]


SET_KEYS = (
    "records",
    "prompts",
    "commands",
    "tool_calls",
    "tool_results",
    "tool_errors",
    "subagents",
    "commits",
    "files_changed",
)
# A reply's usage numbers, in the order summaries and counts.py keep them.
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                REASONING_KEY)


@dataclass
class Tally:
    records: set[str] = field(default_factory=set)
    prompts: set[str] = field(default_factory=set)
    commands: set[str] = field(default_factory=set)
    tool_calls: set[str] = field(default_factory=set)
    tool_results: set[str] = field(default_factory=set)
    tool_errors: set[str] = field(default_factory=set)
    subagents: set[str] = field(default_factory=set)
    # What the agent built (filled by bough_site/work.py, not by the readers):
    # commit identities, and "<cwd>\0<absolute path>" for each changed file, so
    # a project (one cwd) counts distinct paths and the site, the union over
    # projects, adds the projects' counts up.
    commits: set[str] = field(default_factory=set)
    files_changed: set[str] = field(default_factory=set)
    # reply identity -> the most complete usage seen for it
    replies: dict[str, Usage] = field(default_factory=dict)
    lines: int = 0
    skipped_lines: int = 0
    # Codex sessions report reasoning tokens; Claude ones do not.
    has_reasoning: bool = False
    # Tokens the files record for a session (or one of its legs) as a whole, not per
    # reply (Copilot CLI's shutdown metrics): identity -> usage. Added to the token
    # sums; not replies (``replies`` stays the number of model calls).
    totals: dict[str, Usage] = field(default_factory=dict)
    # Token key (model.TOKEN_STAT_KEYS) -> the sessions whose figure for it the files
    # do not hold. A reader that marks a key unknown for a session records nothing
    # for that key in the session's replies or totals, so every sum is a known sum.
    unknown: dict[str, set[str]] = field(default_factory=dict)
    # One session's tally (set by its reader): a figure unknown for it is null in
    # stats(). A project's or the site's gives the known sum and the number of sessions
    # it leaves out. Not merged: a union of tallies is never one session's.
    session: bool = False
    # What each reply cost (bough_site/pricing.py), by the identity a project counts it by:
    # (estimate, recorded by the transcript), each in pico-dollars or None. None: not
    # priced (--no-cost), and the stats carry no cost keys.
    costs: dict[str, tuple[int | None, int | None]] | None = None

    def add_reply(self, key: str, usage: Usage) -> None:
        """Count a reply once, keeping the copy with the largest token total
        (streamed copies of one reply rise; the first under-counts)."""
        seen = self.replies.get(key)
        if seen is None or usage.total() > seen.total():
            self.replies[key] = usage

    def merge(self, other: Tally, *, prompts_and_commands: bool = True) -> None:
        """Add another tally's identities to this one. A sub-agent's prompts and
        commands are not the session's (pass ``prompts_and_commands=False``)."""
        for key in SET_KEYS:
            if key in ("prompts", "commands") and not prompts_and_commands:
                continue
            getattr(self, key).update(getattr(other, key))
        if self.replies.keys().isdisjoint(other.replies):  # the usual case, at C speed
            self.replies.update(other.replies)
        else:
            for reply_key, usage in other.replies.items():
                self.add_reply(reply_key, usage)
        merge_common(self, other)
        if other.costs is not None:
            if self.costs is None:
                self.costs = {}
            for cost_key, pair in other.costs.items():
                self.costs.setdefault(cost_key, pair)

    def mark_unknown(self, session: str, *keys: str) -> None:
        """The files do not hold ``session``'s figure for these token keys."""
        for key in keys:
            self.unknown.setdefault(key, set()).add(session)

    def stats(self) -> dict[str, int | None]:
        usages = [*self.replies.values(), *self.totals.values()] if self.totals else self.replies.values()
        return stats_of(self, {key: len(getattr(self, key)) for key in SET_KEYS}, replies=len(self.replies),
                        sums={name: sum(getattr(u, name) for u in usages) for name in USAGE_FIELDS},
                        unknown_replies=sum(1 for u in self.replies.values() if u.unknown),
                        costs=None if self.costs is None else cost_sums(self.costs.values()), session=self.session)


def merge_common(into: Union, other: Union) -> None:
    """What a union of tallies adds up the same way whether held as a Tally or
    packed (counts.Counts): lines, whole-session totals (the largest copy of each),
    the sessions of unknown figures."""
    into.lines += other.lines
    into.skipped_lines += other.skipped_lines
    into.has_reasoning = into.has_reasoning or other.has_reasoning
    for total_key, usage in other.totals.items():
        seen = into.totals.get(total_key)
        if seen is None or usage.total() > seen.total():
            into.totals[total_key] = usage
    for token_key, sessions in other.unknown.items():
        into.unknown.setdefault(token_key, set()).update(sessions)


def stats_of(union: Numbers, sets: dict[str, int], *, replies: int, sums: dict[str, int], unknown_replies: int,
             costs: CostSums | None, session: bool) -> dict[str, int | None]:
    """A stats object (model.STAT_KEYS, then what applies) from a union's counts:
    its distinct identities by set, its replies, the sums of their usage (and of the
    whole-session totals) by field, the replies of unknown tokens, the sums of the
    replies' costs (pricing.cost_sums), and the rest ``union`` holds as numbers (lines,
    sessions of unknown tokens). Tally, counts.Counts and counts.Sums all count through it."""
    out: dict[str, int | None] = {**sets, "replies": replies}
    out.update({name: sums[name] for name in USAGE_FIELDS if name != REASONING_KEY})
    out["lines"] = union.lines
    out["skipped_lines"] = union.skipped_lines
    ordered = {key: out[key] for key in STAT_KEYS}
    if union.has_reasoning:
        ordered[REASONING_KEY] = sums[REASONING_KEY]
    if unknown_replies:
        ordered[UNKNOWN_TOKENS_KEY] = unknown_replies
    for key in TOKEN_STAT_KEYS:
        missing = union.unknown.get(key)
        if not missing or key not in ordered:
            continue
        if session:
            ordered[key] = None  # the files do not hold it: never 0, never estimated
        else:
            ordered[UNKNOWN_SESSIONS_PREFIX + key] = missing if isinstance(missing, int) else len(missing)
    if costs is not None:
        ordered.update(cost_stats_of(costs))
    return ordered
