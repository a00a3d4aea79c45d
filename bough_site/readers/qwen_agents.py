"""Qwen Code's sub-agents (docs/formats-qwen.md §7): runs made from the parent
chat's telemetry, or from a sub-agent's own transcript file, nested under the
call that started them.

A sub-agent runs inside the CLI's process. Each of its API calls is an
``api_response`` event in the **parent** file whose ``prompt_id`` is
``<session>#<agent>-<id>#<n>`` (0.21: with ``subagent_name``), and each of its tool
calls a ``tool_call`` event: the parent file holds no ``functionCall`` for them. So
one run is made per agent key: a reply per API call (its text the event's
``response_text``), its tool calls from the events (name, arguments, status and
error; the output itself is not written anywhere). From 0.24 a run also has its own
transcript ``subagents/<session>/agent-<id>.jsonl``: its records are then the run's
timeline, and its tokens still the telemetry's (§8.6: never a sub-agent file's
``usageMetadata`` in addition).

A run nests under the ``agent``/``task`` call of the main chat during which it
started (after the call, before its result). Background agents (the memory
extractor, ``managed-auto-memory-extractor``) are started by no call: they are
the session's orphan runs, shown apart under the session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import (Content, InputWarning, Reply, SubagentRun, Text, TimelineItem, ToolCall, ToolResult,
                     number_anchors)
from ..stats import Tally
from .qwen_chat import ChatReader
from .qwen_lines import QwenFile
from .qwen_tokens import API_RESPONSE, TOOL_CALL, agent_name, parse_prompt_id, telemetry_usage
from .values import UNKNOWN_TOKENS, as_dict, as_str, normalize_timestamp, one_line

# §7: the main chat's calls that start a sub-agent.
AGENT_TOOLS = frozenset({"agent", "task", "Agent", "Task"})
_DESCRIPTION_KEYS = ("description", "task_description", "prompt", "task")
_TYPE_KEYS = ("subagent_type", "subagent_name", "agent_name", "name")


@dataclass
class Run:
    run: SubagentRun
    tally: Tally
    start: str | None
    end: str | None
    calls: list[ToolCall] = field(default_factory=list)


def agent_key(event: dict[str, Any]) -> str:
    """Which sub-agent an event is of: the ``<agent>-<id>`` of its prompt id, else
    ``subagent_id``, else its name."""
    return (parse_prompt_id(event.get("prompt_id")).agent or as_str(event.get("subagent_id"))
            or as_str(event.get("subagent_name")))


def telemetry_runs(reader: ChatReader, warn: Callable[[InputWarning], None]) -> dict[str, Run]:
    """One run per sub-agent key among the main file's sub-agent events, in the
    order each first appears."""
    groups: dict[str, list[tuple[int, dict[str, Any], dict[str, Any]]]] = {}
    for entry in reader.agent_events:
        groups.setdefault(agent_key(entry[2]) or "sub-agent", []).append(entry)
    return {key: _run(key, events, reader, warn) for key, events in groups.items()}


def _run(key: str, events: list[tuple[int, dict[str, Any], dict[str, Any]]], reader: ChatReader,
         warn: Callable[[InputWarning], None]) -> Run:
    tally = Tally(has_reasoning=True)
    items: list[TimelineItem] = []
    by_response: dict[str, Reply] = {}
    models: list[str] = []
    times = [t for _, record, _ in events if (t := normalize_timestamp(record.get("timestamp")))]
    calls: list[ToolCall] = []
    for line, record, event in events:
        time = normalize_timestamp(record.get("timestamp"))
        uid = reader.prefix + (as_str(record.get("uuid")) or f"line{line}")
        name = as_str(event.get("event.name"))
        if name == API_RESPONSE:
            reply = _reply(uid, event, time, tally)
            if reply.usage.unknown:
                warning = InputWarning(reader.file.label, line, UNKNOWN_TOKENS)
                reader.file.warnings.append(warning)
                warn(warning)
            if reply.model and reply.model not in models:
                models.append(reply.model)
            items.append(reply)
            by_response.setdefault(as_str(event.get("response_id")), reply)
        elif name == TOOL_CALL:
            call = _call(reader.prefix, line, event, time, tally)
            calls.append(call)
            holder = by_response.get(as_str(event.get("response_id"))) or _last_reply(items)
            if holder is None:  # a call before any reply: it still shows, in a reply of no tokens
                holder = Reply(uid + ":calls", "", time, None, [], telemetry_usage({}))
                holder.usage.unknown = False
                items.append(holder)
            holder.blocks.append(call)
    number_anchors(items)
    first = events[0][2]
    run = SubagentRun(key, agent_name(key, first) or None, None, reader.file.label, items, tally.stats(), models)
    return Run(run, tally, times[0] if times else None, times[-1] if times else None, calls)


def _reply(uid: str, event: dict[str, Any], time: str | None, tally: Tally) -> Reply:
    usage = telemetry_usage(event)
    tally.add_reply(uid, usage)
    text = as_str(event.get("response_text"))
    return Reply(uid, "", time, as_str(event.get("model")) or None, [Text(text)] if text.strip() else [], usage)


def _call(prefix: str, line: int, event: dict[str, Any], time: str | None, tally: Tally) -> ToolCall:
    name = as_str(event.get("function_name")) or "tool"
    call_id = as_str(event.get("call_id")) or f"{name}@{line}"
    call = ToolCall(call_id, name, event.get("function_args"), time)
    status = as_str(event.get("status"))
    failed = status == "error" or event.get("success") is False
    error = as_str(event.get("error"))
    content: list[Content] = [Text(error)] if error else []
    detail = {k: v for k, v in (("status", status), ("error_type", as_str(event.get("error_type")))) if v}
    call.result = ToolResult(content, failed, time, detail or None)
    key = prefix + call_id
    tally.tool_calls.add(key)
    tally.tool_results.add(key)  # the event is written once the call has finished
    if failed:
        tally.tool_errors.add(key)
    return call


def _last_reply(items: list[TimelineItem]) -> Reply | None:
    return next((i for i in reversed(items) if isinstance(i, Reply)), None)


def file_run(file: QwenFile, meta: dict[str, Any], telemetry: Run | None, warn: Callable[[InputWarning], None]) -> Run:
    """A run from a sub-agent's transcript file (0.24). Its timeline is the file's;
    its counts the file's, its tokens the telemetry's when the parent's telemetry has
    this agent (the file's ``usageMetadata`` only where it has none)."""
    tally = Tally(has_reasoning=True)
    reader = ChatReader(file, tally, warn, main=False).read()
    number_anchors(reader.items)
    if telemetry is not None:
        tally.replies = dict(telemetry.tally.replies)
        tally.tool_calls |= telemetry.tally.tool_calls
        tally.tool_results |= telemetry.tally.tool_results
        tally.tool_errors |= telemetry.tally.tool_errors
    stem = file.path.name.removesuffix(".jsonl").removeprefix("agent-")
    agent_type = as_str(meta.get("agentName")) or as_str(meta.get("agentType")) or as_str(meta.get("subagentType"))
    description = as_str(meta.get("description")) or as_str(meta.get("taskDescription"))
    run = SubagentRun(stem, agent_type or (telemetry.run.agent_type if telemetry else None),
                      one_line(description) if description else None, file.label, reader.items, tally.stats(),
                      reader.models or (telemetry.run.models if telemetry else []))
    times = sorted(reader.times + [t for t in (telemetry.start, telemetry.end) if t] if telemetry else reader.times)
    return Run(run, tally, times[0] if times else None, times[-1] if times else None,
               [call for call, _ in reader.call_times])


def matches(key: str, stem: str) -> bool:
    """Whether telemetry's agent key and a transcript file's ``agent-<id>`` are one agent."""
    return bool(stem) and (key == stem or key.endswith("-" + stem) or stem.endswith("-" + key))


def nest(runs: list[Run], calls: list[tuple[ToolCall, str | None]]) -> list[SubagentRun]:
    """Put each run under the agent call it started during (§7); the rest are orphans.
    A call takes one run: the first to start after it, before its result."""
    candidates = [(call, time) for call, time in calls if call.name in AGENT_TOOLS and call.subagent is None]
    orphans = []
    for run in sorted(runs, key=lambda r: r.start or ""):
        call = _starter(run, candidates)
        if call is None:
            orphans.append(run.run)
            continue
        call.subagent = run.run
        candidates = [(c, t) for c, t in candidates if c is not call]
        _describe(run.run, call)
    return orphans


def _starter(run: Run, candidates: list[tuple[ToolCall, str | None]]) -> ToolCall | None:
    if run.start is None:
        return None
    for call, time in candidates:
        done = call.result.timestamp if call.result is not None else None
        if time is not None and time <= run.start and (done is None or run.start <= done):
            return call
    return None


def _describe(run: SubagentRun, call: ToolCall) -> None:
    args = as_dict(call.input)
    kind = next((as_str(args[k]) for k in _TYPE_KEYS if as_str(args.get(k)).strip()), "")
    text = next((as_str(args[k]) for k in _DESCRIPTION_KEYS if as_str(args.get(k)).strip()), "")
    run.agent_type = kind or run.agent_type
    run.description = one_line(text) if text else run.description
