"""A 2025 Copilot CLI session, ``history-session-state/<id>.json`` -> timeline items
(docs/formats-copilot.md §9).

One JSON object, ``{sessionId, startTime, chatMessages[], timeline[]}``, rewritten
whole. The ``timeline`` is the session: ``user`` (a prompt), ``copilot`` (a reply),
``tool_call_completed`` (a call with its result, placed in the reply before it),
``info`` (a notice). It records no tokens and no model: every token figure is
unknown. ``chatMessages`` is read only when there is no ``timeline``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..model import TOKEN_STAT_KEYS, Marker, Prompt, Reply, Text, TimelineItem, ToolCall, ToolResult, Usage
from ..stats import Tally
from .values import BAD_TIME, as_dict, as_str, bad_timestamp, normalize_timestamp

# §9: nothing here holds a token count.
ALL_UNKNOWN = TOKEN_STAT_KEYS


@dataclass
class Legacy:
    session_id: str
    started: str | None
    items: list[TimelineItem] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    first_prompt: str = ""


def read_legacy(data: dict[str, Any], prefix: str, tally: Tally, warn: Any) -> Legacy:
    """``warn(line, reason)``; line 0: the file is one object."""
    out = Legacy(as_str(data.get("sessionId")), normalize_timestamp(data.get("startTime")))
    entries = data.get("timeline")
    if not isinstance(entries, list):
        entries = [_from_chat(m) for m in data.get("chatMessages") or () if isinstance(m, dict)]
        if not isinstance(data.get("chatMessages"), list):
            entries = []
    reply: Reply | None = None
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            warn(0, f"timeline entry {index} is not an object, skipped")
            continue
        tally.records.add(f"{prefix}:{index}")
        if bad_timestamp(entry.get("timestamp")):
            warn(0, f"timeline entry {index}: {BAD_TIME}")
        time = normalize_timestamp(entry.get("timestamp"))
        if time:
            out.times.append(time)
        item_id = as_str(entry.get("id")) or f"entry-{index}"
        reply = _entry(entry, item_id, time, reply, out, prefix, tally)
    return out


# §9: a shell command that starts by entering a directory, ``cd /abs/dir && …``.
_CD = re.compile(r"""^\s*cd\s+("[^"]+"|'[^']+'|[^\s;&|]+)\s*(?:&&|;)""")


def guess_cwd(items: list[TimelineItem]) -> str:
    """§9: the file records no working directory. The absolute directory its shell
    commands most often ``cd`` into first (the first of equals), else ""."""
    seen: Counter[str] = Counter()
    for item in items:
        for block in item.blocks if isinstance(item, Reply) else ():
            if not isinstance(block, ToolCall) or block.name != "bash":
                continue
            match = _CD.match(as_str(as_dict(block.input).get("command")))
            target = match.group(1).strip("'\"") if match else ""
            if target.startswith("/"):
                seen[target.rstrip("/") or "/"] += 1
    return seen.most_common(1)[0][0] if seen else ""


def _from_chat(message: dict[str, Any]) -> dict[str, Any]:
    kinds = {"user": "user", "assistant": "copilot"}
    return {"type": kinds.get(as_str(message.get("role")), "info"), "text": message.get("content")}


def _entry(entry: dict[str, Any], item_id: str, time: str | None, reply: Reply | None, out: Legacy,
           prefix: str, tally: Tally) -> Reply | None:
    """One timeline entry; gives the reply a following tool call joins."""
    kind = as_str(entry.get("type"))
    text = as_str(entry.get("text"))
    if kind == "user":
        out.items.append(Prompt(item_id, "", time, [Text(text.strip() or "(empty message)")]))
        tally.prompts.add(f"{prefix}:{item_id}")
        out.first_prompt = out.first_prompt or text
        return None
    if kind == "copilot":
        reply = Reply(item_id, "", time, None, [Text(text)] if text.strip() else [], Usage(unknown_keys=ALL_UNKNOWN))
        out.items.append(reply)
        tally.replies[f"{prefix}:reply:{item_id}"] = reply.usage
        return reply
    if kind == "tool_call_completed":
        call = _call(entry, item_id, time, prefix, tally)
        if reply is None:  # a call before any reply: shown on its own, no model call counted
            reply = Reply(f"tool:{call.id}", "", time, None, [], Usage())
            out.items.append(reply)
        reply.blocks.append(call)
        return reply
    out.items.append(Marker(item_id, time, "notice", text or kind or "(notice)"))
    return reply


def _call(entry: dict[str, Any], item_id: str, time: str | None, prefix: str, tally: Tally) -> ToolCall:
    call_id = as_str(entry.get("callId")) or item_id
    name = as_str(entry.get("name")) or as_str(entry.get("toolTitle")) or "tool"
    call = ToolCall(call_id, name, entry.get("arguments"), time)
    key = f"{prefix}:call:{call_id}"
    tally.tool_calls.add(key)
    raw = entry.get("result")
    if raw is None:
        return call
    result = as_dict(raw)
    status = as_str(result.get("type"))
    log = as_str(result.get("log")) if isinstance(raw, dict) else as_str(raw)
    failed = bool(status) and status != "success"
    call.result = ToolResult([Text(log)] if log else [], failed, time, {"status": status} if failed else None)
    tally.tool_results.add(key)
    if failed:
        tally.tool_errors.add(key)
    return call
