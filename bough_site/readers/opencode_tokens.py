"""OpenCode's token counts in bough's keys (docs/formats-opencode.md §6).

Usage is per model step: each ``step-finish`` part carries one API call's tokens.
The assistant message's own ``tokens`` holds only the last step's, so a reply's
usage is the sum over its message's ``step-finish`` parts. The meaning of
``output`` changed (#21047): it held the reasoning once and no longer does;
``total`` tells the two apart. Anthropic and Bedrock input was cache-inclusive
in 1.3.4-1.3.5 (#19757).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..model import Usage
from .values import as_count, as_dict, as_str

# §6: the releases whose Anthropic and Bedrock input counted the cache too, and those providers.
INFLATED_VERSIONS = frozenset({"1.3.4", "1.3.5"})
INFLATED_PROVIDERS = frozenset({"anthropic", "amazon-bedrock"})

NO_STEP_FINISH = ("a step began and has no step-finish (the reply did not finish): "
                  "its tokens are unknown")
ERA_UNCLEAR = ("tokens.total is neither input + output + reasoning + cache nor that without reasoning; "
               "reasoning taken as outside output")
INFLATED_NOTE = ("input tokens of OpenCode 1.3.4-1.3.5 for this provider include the cache reads and writes "
                 "(#19757): the cache was taken out")


@dataclass
class StepTokens:
    """One step's (or one message's) tokens as OpenCode wrote them, and what was
    found out reading them."""

    usage: Usage
    era_unclear: bool = False
    inflated: bool = False


def step_tokens(tokens: Any, version: str, provider: str) -> StepTokens:
    """§6 and §9.6: ``input`` fresh, ``cache.read``/``cache.write`` apart,
    ``output_tokens`` with reasoning inside, ``reasoning_output_tokens`` the reasoning.
    A count that is not one makes the usage unknown (values.as_count)."""
    raw = as_dict(tokens)
    cache = as_dict(raw.get("cache"))
    values = [as_count(raw.get(k)) for k in ("input", "output", "reasoning")]
    values += [as_count(cache.get(k)) for k in ("read", "write")]
    unknown = any(v is None for v in values) or (raw.get("cache") is not None and not isinstance(raw["cache"], dict))
    given, output, reasoning, read, write = (v or 0 for v in values)
    out = StepTokens(Usage())
    total = as_count(raw.get("total"))
    if raw.get("total") is not None and total is None:
        unknown = True
    outside = True  # current data: output without reasoning (#21047)
    if reasoning:
        parts = given + output + read + write
        if raw.get("total") is None or total == parts:
            outside = False  # older writers: output already holds the reasoning
        elif total != parts + reasoning:
            out.era_unclear = True
            outside = total is None or total > parts
    if version in INFLATED_VERSIONS and provider in INFLATED_PROVIDERS and given >= read + write > 0:
        given -= read + write
        out.inflated = True
    out.usage = Usage(
        input_tokens=given,
        output_tokens=output + reasoning if outside else output,
        cache_creation_input_tokens=write,
        cache_read_input_tokens=read,
        reasoning_output_tokens=reasoning,
        unknown=unknown,
    )
    return out


def has_tokens(tokens: Any) -> bool:
    """Whether a message-level ``tokens`` holds any count above 0 (§9.6: a message
    of an older writer without step parts)."""
    raw = as_dict(tokens)
    cache = as_dict(raw.get("cache"))
    return any((as_count(v) or 0) > 0 for v in (raw.get("input"), raw.get("output"), raw.get("reasoning"),
                                                 cache.get("read"), cache.get("write")))


def add(usages: Iterable[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total.input_tokens += usage.input_tokens
        total.output_tokens += usage.output_tokens
        total.cache_creation_input_tokens += usage.cache_creation_input_tokens
        total.cache_read_input_tokens += usage.cache_read_input_tokens
        total.reasoning_output_tokens += usage.reasoning_output_tokens
        total.unknown = total.unknown or usage.unknown
    return total


@dataclass
class MessageUsage:
    usage: Usage
    steps: int  # step-finish parts
    notes: list[str]
    calls: tuple[Usage, ...] = ()  # each step's own usage, when there are several (pricing is per call)


def message_usage(message: dict[str, Any], parts: list[dict[str, Any]], version: str) -> MessageUsage:
    """An assistant message's usage (§9.6): the sum over its ``step-finish`` parts;
    a step begun and not finished makes it unknown. With no step part at all, the
    message's own ``tokens`` when they hold a count (older writers); zero when it
    failed before any step began (an error and nothing else); else unknown."""
    provider = as_str(message.get("providerID")) or as_str(as_dict(message.get("model")).get("providerID"))
    finishes = [p for p in parts if p.get("type") == "step-finish"]
    starts = sum(1 for p in parts if p.get("type") == "step-start")
    notes: list[str] = []
    if finishes:
        steps = [step_tokens(p.get("tokens"), version, provider) for p in finishes]
        usage = add(step.usage for step in steps)
        if starts > len(finishes):
            usage.unknown = True
            notes.append(NO_STEP_FINISH)
        _notes(steps, notes)
        calls = tuple(step.usage for step in steps) if len(steps) > 1 else ()
        return MessageUsage(usage, len(finishes), notes, calls)
    if has_tokens(message.get("tokens")):
        step = step_tokens(message.get("tokens"), version, provider)
        _notes([step], notes)
        return MessageUsage(step.usage, 0, notes)
    if message.get("error") is not None and not starts:
        return MessageUsage(Usage(), 0, notes)  # no call was answered: nothing billed was written
    notes.append(NO_STEP_FINISH if starts else "no step-finish and no tokens (the reply did not finish): "
                                               "its tokens are unknown")
    return MessageUsage(Usage(unknown=True), 0, notes)


def _notes(steps: list[StepTokens], notes: list[str]) -> None:
    if any(step.era_unclear for step in steps):
        notes.append(ERA_UNCLEAR)
    if any(step.inflated for step in steps):
        notes.append(INFLATED_NOTE)
