"""Qwen Code's token counts (docs/formats-qwen.md §6): the ``api_response``
telemetry event of each API call, and an assistant record's ``usageMetadata``,
mapped onto bough's keys.

Both carriers hold the same figures under different names. The prompt count
includes the cached part, so fresh input is ``prompt - cached``. Whether the
output count holds the thoughts depends on the provider: OpenAI-compatible ones
(the CLI's default, and every real file seen) report ``total = prompt + output``
with reasoning inside output; Gemini-native ones keep thoughts apart and report
``total = prompt + output + thoughts``. The total tells which (§6). No cache-write
count is ever stored: it is 0, as for Gemini CLI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Usage
from .values import any_unknown, as_count, as_dict, as_str

API_RESPONSE = "qwen-code.api_response"
TOOL_CALL = "qwen-code.tool_call"
API_ERROR = "qwen-code.api_error"

# (prompt, output, cached, thoughts, total) under each carrier's names.
TELEMETRY_KEYS = ("input_token_count", "output_token_count", "cached_content_token_count",
                  "thoughts_token_count", "total_token_count")
METADATA_KEYS = ("promptTokenCount", "candidatesTokenCount", "cachedContentTokenCount",
                 "thoughtsTokenCount", "totalTokenCount")


def usage_from(raw: Any, keys: tuple[str, str, str, str, str]) -> Usage:
    """One call's usage. A prompt or output count that is missing, or any count
    that is not one (text, a negative, Infinity), makes the call's tokens unknown
    (the other counts still as they were): a call without figures is not a free one."""
    raw = as_dict(raw)
    prompt_key, output_key, cached_key, thoughts_key, total_key = keys
    values = [raw.get(key) for key in keys]
    prompt, output, cached, thoughts, total = (as_count(v) or 0 for v in values)
    missing = prompt_key not in raw or output_key not in raw
    separate = total_key in raw and as_count(raw.get(total_key)) is not None and thoughts > 0 \
        and total == prompt + output + thoughts and total != prompt + output
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=output + thoughts if separate else output,
        cache_creation_input_tokens=0,
        cache_read_input_tokens=cached,
        reasoning_output_tokens=thoughts,
        unknown=missing or any_unknown(*values),
    )


def telemetry_usage(event: dict[str, Any]) -> Usage:
    return usage_from(event, TELEMETRY_KEYS)


def metadata_usage(metadata: Any) -> Usage:
    return usage_from(metadata, METADATA_KEYS)


@dataclass(frozen=True)
class PromptId:
    """What a telemetry ``prompt_id`` names: ``<session>########<n>`` is the main
    chat's turn n; ``<session>#<agent>-<id>#<n>`` a sub-agent's (§7)."""

    session: str
    agent: str  # "" for the main chat: "<name>-<id>" for a sub-agent
    turn: str


def parse_prompt_id(value: Any) -> PromptId:
    text = as_str(value)
    if "########" in text:
        session, _, turn = text.partition("########")
        return PromptId(session, "", turn)
    parts = text.split("#")
    if len(parts) >= 3 and parts[1]:
        return PromptId(parts[0], "#".join(parts[1:-1]), parts[-1])
    return PromptId(text, "", "")


def agent_name(agent: str, event: dict[str, Any]) -> str:
    """A sub-agent's name: ``subagent_name`` where written, else the agent key
    less its ``-<id>`` tail."""
    name = as_str(event.get("subagent_name"))
    if name:
        return name
    head, dash, _ = agent.rpartition("-")
    return head if dash else agent


def uievent(record: dict[str, Any]) -> dict[str, Any]:
    """A ``ui_telemetry`` record's event (``systemPayload.uiEvent``), else {}."""
    return as_dict(as_dict(record.get("systemPayload")).get("uiEvent"))
