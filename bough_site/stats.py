"""Counting: what each STATS key counts, kept as sets of identities.

A session's numbers could be plain integers, but a project must count a record
or reply once even when two files hold it (a resumed session copies its
parent's records). So every reader records *identities* in a Tally, and a
project's Tally is the union of its sessions'. Integers come out at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import REASONING_KEY, STAT_KEYS, UNKNOWN_TOKENS_KEY, Usage

_SET_KEYS = (
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

    def add_reply(self, key: str, usage: Usage) -> None:
        """Count a reply once, keeping the copy with the largest token total
        (streamed copies of one reply rise; the first under-counts)."""
        seen = self.replies.get(key)
        if seen is None or usage.total() > seen.total():
            self.replies[key] = usage

    def merge(self, other: Tally, *, prompts_and_commands: bool = True) -> None:
        """Add another tally's identities to this one. A sub-agent's prompts and
        commands are not the session's (pass ``prompts_and_commands=False``)."""
        for key in _SET_KEYS:
            if key in ("prompts", "commands") and not prompts_and_commands:
                continue
            getattr(self, key).update(getattr(other, key))
        if self.replies.keys().isdisjoint(other.replies):  # the usual case, at C speed
            self.replies.update(other.replies)
        else:
            for reply_key, usage in other.replies.items():
                self.add_reply(reply_key, usage)
        self.lines += other.lines
        self.skipped_lines += other.skipped_lines
        self.has_reasoning = self.has_reasoning or other.has_reasoning

    def stats(self) -> dict[str, int]:
        usages = self.replies.values()
        out = {key: len(getattr(self, key)) for key in _SET_KEYS}
        out["replies"] = len(self.replies)
        out["input_tokens"] = sum(u.input_tokens for u in usages)
        out["output_tokens"] = sum(u.output_tokens for u in usages)
        out["cache_creation_input_tokens"] = sum(u.cache_creation_input_tokens for u in usages)
        out["cache_read_input_tokens"] = sum(u.cache_read_input_tokens for u in usages)
        out["lines"] = self.lines
        out["skipped_lines"] = self.skipped_lines
        ordered = {key: out[key] for key in STAT_KEYS}
        if self.has_reasoning:
            ordered[REASONING_KEY] = sum(u.reasoning_output_tokens for u in usages)
        unknown = sum(1 for u in usages if u.unknown)
        if unknown:
            ordered[UNKNOWN_TOKENS_KEY] = unknown
        return ordered
