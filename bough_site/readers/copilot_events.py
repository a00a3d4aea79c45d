"""A Copilot CLI event log (``events.jsonl``, or a bare ``<id>.jsonl``) -> timeline items
(docs/formats-copilot.md §2-§7).

The log is read in one pass. Each event belongs to the main agent or, when it
carries ``data.parentToolCallId`` or ``agentId``, to a sub-agent (§6), whose
items go to its own run, nested later under the call that started it. Replies
join their chunks by ``apiCallId`` (§4); tool calls meet their results by
``toolCallId`` (§5); the legs (first run and resumes) keep what the token
reckoning needs (copilot_tokens.py, §8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..model import (
    REASONING_KEY,
    Content,
    Marker,
    Prompt,
    Reply,
    Text,
    Thinking,
    TimelineItem,
    ToolCall,
    ToolResult,
    Usage,
)
from ..stats import Tally
from .copilot_tokens import Leg, metrics_of
from .values import (
    BAD_TIME,
    UNKNOWN_TOKENS,
    as_count,
    as_dict,
    as_int,
    as_str,
    bad_timestamp,
    normalize_timestamp,
)

# §8.1: a reply's record holds its output only.
PER_SESSION_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", REASONING_KEY)
# §5: the shell tools, and how their output says the exit code.
SHELL_TOOLS = frozenset({"bash", "shell", "write_bash", "read_bash"})
_EXIT_CODE = re.compile(r"<exited with exit code (-?\d+)>\s*$")
# §3: who wrote a user.message that nobody typed.
INJECTED_SOURCES = ("skill-", "agent-")
INJECTED_PREFIX = "<skill-context"
# §7: the events shown as a quiet note, by the marker type they become.
NOTE_TYPES = {"session.info": "notice", "session.warning": "warning", "session.error": "error",
              "system.notification": "notice", "session.context_cleared": "notice",
              "session.task_complete": "notice", "abort": "interruption", "session.truncation": "notice",
              "skill.invoked": "meta", "session.mode_changed": "meta"}


@dataclass
class Agent:
    """One agent's part of the log: the main agent, or one sub-agent run."""

    key: str  # "" for the main agent; else the parent's toolCallId (or the agentId)
    tally: Tally
    items: list[TimelineItem] = field(default_factory=list)
    replies: dict[str, Reply] = field(default_factory=dict)
    models: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)  # assistant.reasoning waiting for its reply
    first_prompt: str = ""


@dataclass
class SubagentInfo:
    """What ``subagent.started``/``completed``/``failed`` say of a run (§6)."""

    name: str = ""
    description: str = ""
    model: str = ""
    outcome: str = ""  # "", "completed", "failed"
    agent_id: str = ""


class EventLog:
    """Reads one event log's records, in file order (``feed``)."""

    def __init__(self, label: str, prefix: str, warn: Any):
        self.label = label
        self.prefix = prefix  # of every tally identity: the file's label
        self._warn = warn
        self.main = Agent("", Tally(has_reasoning=True, session=True))
        self.subs: dict[str, Agent] = {}
        self.sub_info: dict[str, SubagentInfo] = {}
        self.agent_calls: dict[str, str] = {}  # agentId -> the toolCallId that started it
        self.open_subs: list[str] = []  # started, not yet ended (toolCallIds)
        self.calls: dict[str, ToolCall] = {}  # toolCallId -> call, every agent's
        self.legs: list[Leg] = [Leg(0)]
        self.start: dict[str, Any] = {}  # session.start's data
        self.contexts: list[dict[str, Any]] = []
        self.versions: list[str] = []
        self.model = ""  # the model in use (session.model_change), for replies that name none
        self.times: list[str] = []
        self.shutdown_models: list[str] = []
        self._ids: set[str] = set()

    # --- the pass ---------------------------------------------------------------------

    def feed(self, line: int, record: dict[str, Any]) -> None:
        kind = as_str(record.get("type"))
        data = as_dict(record.get("data"))
        self.main.tally.records.add(f"{self.prefix}:{line}")
        stamp = record.get("timestamp")
        if bad_timestamp(stamp):
            self.warn(line, BAD_TIME)
        time = normalize_timestamp(stamp)
        if time:
            self.times.append(time)
        # subagent.* events speak of a run (by its parent's toolCallId), whoever wrote them.
        agent = self.main if kind.startswith("subagent.") else self._agent_of(record, data)
        item_id = self._item_id(record, line)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, agent, data, time, item_id, line)
        elif kind in NOTE_TYPES:
            self._note(agent, kind, data, time, item_id)

    def warn(self, line: int, reason: str) -> None:
        self._warn(line, reason)

    def _item_id(self, record: dict[str, Any], line: int) -> str:
        given = as_str(record.get("id"))
        if given and given not in self._ids:
            self._ids.add(given)
            return given
        return f"line-{line}"

    def _agent_of(self, record: dict[str, Any], data: dict[str, Any]) -> Agent:
        """§6: an event of a sub-agent names its parent call (``data.parentToolCallId``,
        older) or its agent (``agentId``, newer: matched to the call that started it,
        or to the one run open when it first speaks)."""
        parent = as_str(data.get("parentToolCallId"))
        agent_id = as_str(record.get("agentId"))
        if not parent and agent_id:
            parent = self.agent_calls.get(agent_id, "")
            if not parent and len(self.open_subs) == 1:
                parent = self.agent_calls[agent_id] = self.open_subs[0]
            parent = parent or agent_id
        if not parent:
            return self.main
        agent = self.subs.get(parent)
        if agent is None:
            agent = self.subs[parent] = Agent(parent, Tally(has_reasoning=True))
        return agent

    def _leg_call(self, line: int) -> None:
        leg = self.legs[-1]
        leg.calls += 1
        leg.last_call = line

    # --- session events ------------------------------------------------------------------

    def _start(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        if not self.start:
            self.start = data
            if not self.legs[0].calls:
                self.legs[0].line = line
        self._context(data)
        version = as_str(data.get("copilotVersion"))
        if version and version not in self.versions:
            self.versions.append(version)
        self.model = as_str(data.get("selectedModel")) or self.model

    def _context(self, data: dict[str, Any]) -> None:
        context = as_dict(data.get("context"))
        if context:
            self.contexts.append(context)

    def _resume(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        self.legs.append(Leg(line))
        self._context(data)
        self.model = as_str(data.get("selectedModel")) or self.model
        when = normalize_timestamp(data.get("resumeTime")) or time
        self.main.items.append(Marker(item_id, when, "notice", "Session resumed (copilot --resume)"))

    def _model_change(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        self.model = as_str(data.get("newModel")) or self.model

    def _shutdown(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        metrics = metrics_of(data, line)
        self.legs[-1].shutdown = metrics
        for model in metrics.models:
            if model not in self.shutdown_models:
                self.shutdown_models.append(model)
        kind = as_str(data.get("shutdownType")) or "routine"
        text = f"Copilot CLI exited ({kind}); {_metrics_text(metrics)}"
        self.main.items.append(Marker(item_id, time, "meta" if kind == "routine" else "error", text))

    def _system(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        # §3: the CLI's system prompt, written before each run: never a prompt.
        role = as_str(data.get("role")) or "system"
        content = as_str(data.get("content"))
        agent.items.append(Marker(item_id, time, "meta", f"{role.capitalize()} message:\n\n{content}"))

    def _compaction(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        summary = as_str(data.get("summaryContent"))
        if data.get("success") is not True:
            error = as_str(data.get("error")) or "compaction failed"
            agent.items.append(Marker(item_id, time, "warning", error))
            return
        agent.items.append(Marker(item_id, time, "compaction", summary or "History compacted"))
        # §4: the compaction is a model call with no assistant.message; its output is exact.
        used = as_dict(data.get("compactionTokensUsed"))
        output = as_count(used.get("outputTokens"))
        usage = Usage(output_tokens=output or 0, unknown=output is None, unknown_keys=PER_SESSION_KEYS)
        if output is None:
            self.warn(line, UNKNOWN_TOKENS)
        agent.tally.add_reply(f"{self.prefix}:compaction:{line}", usage)
        self._leg_call(line)
        self.legs[-1].compacted = True

    # --- prompts ------------------------------------------------------------------------

    def _user(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        typed = as_str(data.get("content"))
        sent = as_str(data.get("transformedContent"))
        why = _not_typed(data, typed)
        if why and agent is self.main:
            agent.items.append(Marker(item_id, time, "meta", f"{why}:\n\n{(typed or sent).strip()}"))
            return
        content: list[Content] = [Text(typed.strip() or sent.strip() or "(empty message)")]
        files = _attachments(data.get("attachments"))
        if files:
            content.append(Text("Attached: " + ", ".join(files)))
        agent.items.append(Prompt(item_id, "", time, content))
        agent.tally.prompts.add(f"{self.prefix}:{line}")
        if not agent.first_prompt:
            agent.first_prompt = typed
        if as_str(data.get("delivery")) == "steering":
            note = "Sent while the agent was working (steering): it joined the turn under way"
            agent.items.append(Marker(f"{item_id}:steering", time, "meta", note))

    # --- replies ------------------------------------------------------------------------

    def _reasoning(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        text = as_str(data.get("content")).strip()
        if text:
            agent.thinking.append(text)

    def _message(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        """§4: one model response, or a chunk of one (joined by ``apiCallId``)."""
        key = as_str(data.get("apiCallId")) or as_str(data.get("messageId")) or item_id
        reply = agent.replies.get(key)
        if reply is None:
            model = as_str(data.get("model")) or self._agent_model(agent) or None
            reply = Reply(key, "", time, model, [], Usage(unknown_keys=PER_SESSION_KEYS))
            agent.replies[key] = reply
            agent.items.append(reply)
            self._leg_call(line)
            if model and model not in agent.models:
                agent.models.append(model)
        else:
            self.legs[-1].last_call = line
        reasoning = as_str(data.get("reasoningText")).strip()
        shown = {b.text for b in reply.blocks if isinstance(b, Thinking)}
        for text in [*agent.thinking, reasoning]:
            if text and text not in shown:
                reply.blocks.append(Thinking(text))
                shown.add(text)
        agent.thinking.clear()
        text = as_str(data.get("content"))
        if text.strip():
            reply.blocks.append(Text(text))
        for request in _requests(data.get("toolRequests")):
            self._request(agent, reply, request, time)
        self._output(agent, reply, data, line)

    def _agent_model(self, agent: Agent) -> str:
        if agent is self.main:
            return self.model
        return self.sub_info.get(agent.key, SubagentInfo()).model or self.model

    def _output(self, agent: Agent, reply: Reply, data: dict[str, Any], line: int) -> None:
        """§8.1: ``outputTokens`` per response; chunks of one response carry the same
        count or only one of them does, so the largest is the response's."""
        if "outputTokens" not in data or data.get("outputTokens") is None:
            if not reply.usage.output_tokens and "output_tokens" not in reply.usage.unknown_keys:
                reply.usage.unknown_keys = (*PER_SESSION_KEYS, "output_tokens")
            self._count(agent, reply)
            return
        output = as_count(data.get("outputTokens"))
        if output is None:
            self.warn(line, UNKNOWN_TOKENS)
            reply.usage.unknown = True
        else:
            reply.usage.output_tokens = max(reply.usage.output_tokens, output)
            reply.usage.unknown_keys = PER_SESSION_KEYS
        self._count(agent, reply)

    def _count(self, agent: Agent, reply: Reply) -> None:
        agent.tally.replies[f"{self.prefix}:reply:{reply.id}"] = reply.usage

    # --- tools --------------------------------------------------------------------------

    def _request(self, agent: Agent, reply: Reply, request: dict[str, Any], time: str | None) -> None:
        call_id = as_str(request.get("toolCallId"))
        if not call_id:
            return
        call = self.calls.get(call_id)
        if call is None:
            name = as_str(request.get("name")) or "tool"
            call = self.calls[call_id] = ToolCall(call_id, name, _arguments(request.get("arguments")), time)
            reply.blocks.append(call)
        agent.tally.tool_calls.add(f"{self.prefix}:call:{call_id}")

    def _tool_start(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        call_id = as_str(data.get("toolCallId"))
        if not call_id:
            return
        call = self.calls.get(call_id)
        arguments = _arguments(data.get("arguments"))
        if call is None:  # a call no response requested (§5): shown on its own
            call = self.calls[call_id] = ToolCall(call_id, as_str(data.get("toolName")) or "tool", arguments, time)
            agent.items.append(Reply(f"tool:{call_id}", "", time, None, [call], Usage()))
        elif not isinstance(call.input, dict) and isinstance(arguments, dict):
            call.input = arguments  # the request's arguments were a JSON string
        agent.tally.tool_calls.add(f"{self.prefix}:call:{call_id}")

    def _tool_done(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        call_id = as_str(data.get("toolCallId"))
        if not call_id:
            return
        result = _result(data, time)
        key = f"{self.prefix}:call:{call_id}"
        agent.tally.tool_results.add(key)
        if result.is_error:
            agent.tally.tool_errors.add(key)
        call = self.calls.get(call_id)
        if call is not None:
            call.result = _with_exit_code(result) if call.name in SHELL_TOOLS else result
            return
        text = "\n".join(c.text for c in result.content if isinstance(c, Text))
        agent.items.append(Marker(item_id, time, "error" if result.is_error else "meta",
                                  f"Result of a tool call this file does not hold ({call_id}):\n\n{text}"))

    # --- sub-agents and notes -------------------------------------------------------------

    def _sub_started(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        call_id = as_str(data.get("toolCallId"))
        if not call_id:
            return
        info = self.sub_info.setdefault(call_id, SubagentInfo())
        info.name = as_str(data.get("agentName")) or as_str(data.get("agentDisplayName")) or info.name
        info.description = as_str(data.get("agentDescription")) or info.description
        info.model = as_str(data.get("model")) or info.model
        info.agent_id = as_str(data.get("agentId")) or info.agent_id
        if info.agent_id:
            self.agent_calls.setdefault(info.agent_id, call_id)
        self.open_subs.append(call_id)
        self.main.tally.subagents.add(f"{self.prefix}:agent:{call_id}")
        self.subs.setdefault(call_id, Agent(call_id, Tally(has_reasoning=True)))

    def _sub_ended(self, agent: Agent, data: dict[str, Any], time: str | None, item_id: str, line: int) -> None:
        call_id = as_str(data.get("toolCallId"))
        info = self.sub_info.setdefault(call_id, SubagentInfo())
        info.model = info.model or as_str(data.get("model"))
        failed = "error" in data or data.get("success") is False
        info.outcome = "failed" if failed else "completed"
        if call_id in self.open_subs:
            self.open_subs.remove(call_id)
        run = self.subs.setdefault(call_id, Agent(call_id, Tally(has_reasoning=True)))
        text = _ended_text(data, failed)
        run.items.append(Marker(item_id, time, "error" if failed else "meta", text))

    def _note(self, agent: Agent, kind: str, data: dict[str, Any], time: str | None, item_id: str) -> None:
        text = _note_text(kind, data)
        agent.items.append(Marker(item_id, time, NOTE_TYPES[kind], text))


def _not_typed(data: dict[str, Any], typed: str) -> str:
    """§3: why a main-agent user.message is not a prompt ("" when it is one)."""
    if not typed.strip():
        return "Sent by the CLI (autopilot continuation)"
    if data.get("isAutopilotContinuation") is True:
        return "Sent by the CLI (autopilot continuation)"
    source = as_str(data.get("source"))
    if source.startswith(INJECTED_SOURCES) or typed.lstrip().startswith(INJECTED_PREFIX):
        return f"Injected by the CLI ({source or 'skill context'})"
    return ""


def _attachments(value: Any) -> list[str]:
    out = []
    for item in value if isinstance(value, list) else ():
        item = as_dict(item)
        name = as_str(item.get("path")) or as_str(item.get("displayName"))
        if name:
            out.append(name)
    return out


def _requests(value: Any) -> list[dict[str, Any]]:
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _arguments(value: Any) -> Any:
    """A tool's arguments: an object; a JSON string of one (§5, seen in a synthetic file) read as it."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return value


def _result(data: dict[str, Any], time: str | None) -> ToolResult:
    """§5: ``success`` is the error flag; a failure carries ``error.message`` and no result."""
    raw = data.get("result")
    result = as_dict(raw)
    error = data.get("error")
    content = as_str(result.get("content")) if isinstance(raw, dict) else as_str(raw)
    message = as_str(as_dict(error).get("message")) or as_str(error)
    texts = [t for t in (content, message) if t]
    detailed = as_str(result.get("detailedContent"))
    detail: dict[str, Any] = {}
    if detailed and detailed != content:
        detail["detailedContent"] = detailed
    code = as_str(as_dict(error).get("code"))
    if code:
        detail["code"] = code
    failed = data.get("success") is False or (data.get("success") is not True and bool(message))
    return ToolResult([Text(t) for t in texts], failed, time, detail or None)


def _with_exit_code(result: ToolResult) -> ToolResult:
    """§5: a shell's output ends with ``<exited with exit code N>``: N is its exit code
    (the page's result head, and whether a commit in it succeeded)."""
    text = next((c.text for c in reversed(result.content) if isinstance(c, Text)), "")
    found = _EXIT_CODE.search(text[-200:])
    if found:
        result.detail = {**(result.detail or {}), "exit_code": int(found.group(1))}
    return result


def _ended_text(data: dict[str, Any], failed: bool) -> str:
    parts = ["Sub-agent failed" if failed else "Sub-agent finished"]
    calls, tokens = as_count(data.get("totalToolCalls")), as_count(data.get("totalTokens"))
    if calls:
        parts.append(f"{calls:,} tool calls")
    if tokens:
        parts.append(f"{tokens:,} tokens by its own count")
    error = as_str(data.get("error")) or as_str(as_dict(data.get("error")).get("message"))
    return ", ".join(parts) + (f": {error}" if error else "")


def _note_text(kind: str, data: dict[str, Any]) -> str:
    if kind == "session.truncation":
        removed = as_int(data.get("messagesRemovedDuringTruncation"))
        tokens = as_int(data.get("tokensRemovedDuringTruncation"))
        return f"History truncated: {removed:,} messages ({tokens:,} tokens) dropped, with no model call"
    if kind == "session.mode_changed":
        return f"Mode: {as_str(data.get('newMode')) or 'changed'}"
    if kind == "session.context_cleared":
        return "Context cleared (/clear)"
    if kind == "abort":
        return "Interrupted" + (f": {as_str(data.get('reason'))}" if as_str(data.get("reason")) else "")
    if kind == "skill.invoked":
        return f"Skill invoked: {as_str(data.get('name')) or as_str(data.get('skillName')) or '(unnamed)'}"
    if kind == "session.task_complete":
        return "Task complete" + (f": {as_str(data.get('summary'))}" if as_str(data.get("summary")) else "")
    text = as_str(data.get("message")) or as_str(data.get("content"))
    return text or kind


def _metrics_text(metrics: Any) -> str:
    parts = []
    for model, counts in metrics.models.items():
        if counts is None:
            parts.append(f"{model}: no usable usage")
            continue
        requests, given, output, read, write, reasoning = counts
        parts.append(f"{model}: {requests:,} requests, {given:,} input tokens ({read:,} cache reads, {write:,} cache "
                     f"writes), {output:,} output ({reasoning:,} reasoning)")
    return "its totals: " + "; ".join(parts) if parts else "no model metrics"


_HANDLERS = {
    "session.start": EventLog._start,
    "session.resume": EventLog._resume,
    "session.model_change": EventLog._model_change,
    "session.shutdown": EventLog._shutdown,
    "session.compaction_complete": EventLog._compaction,
    "system.message": EventLog._system,
    "user.message": EventLog._user,
    "assistant.reasoning": EventLog._reasoning,
    "assistant.message": EventLog._message,
    "tool.execution_start": EventLog._tool_start,
    "tool.user_requested": EventLog._tool_start,
    "tool.execution_complete": EventLog._tool_done,
    "subagent.started": EventLog._sub_started,
    "subagent.completed": EventLog._sub_ended,
    "subagent.failed": EventLog._sub_ended,
}
