"""One OpenCode session's messages and parts as a timeline, counted as it goes
(docs/formats-opencode.md §3, §5, §8, §9).

A user message is a prompt, a compaction request or injected text; an assistant
message is one reply (one model turn, its steps' tokens summed: §6); its parts
become the reply's blocks in their order: reasoning, text, tool calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import orjson

from ..model import (
    Content,
    Image,
    InputWarning,
    Marker,
    Prompt,
    Reply,
    Text,
    Thinking,
    TimelineItem,
    ToolCall,
    ToolResult,
)
from ..stats import Tally
from .opencode_rows import RawMessage, RawSession
from .opencode_tokens import message_usage
from .values import BAD_TIME, UNKNOWN_TOKENS, as_count, as_dict, as_str, recorded_cost

WarnFn = Callable[[InputWarning], None]

# §5: the statuses a tool part moves through; a finished one carries the result.
DONE_STATUSES = frozenset({"completed", "error"})
LIVE_STATUSES = frozenset({"pending", "running"})
# §5: a malformed or unknown tool name becomes this tool, "completed".
INVALID_TOOL = "invalid"
TASK_TOOL = "task"
# §7: how a task call names its child session, newest form first.
_CHILD_IN_OUTPUT = (
    re.compile(r"^task_id: (ses_[A-Za-z0-9]+)", re.M),
    re.compile(r"<task\b[^>]*\bid=[\"']?(ses_[A-Za-z0-9]+)"),
    re.compile(r"session_id: (ses_[A-Za-z0-9]+)"),
)
# §8: errors that say the person stopped the reply, not that something failed.
ABORTED_ERRORS = frozenset({"MessageAbortedError"})
_IMAGE_URL = re.compile(r"^data:(image/[A-Za-z0-9.+-]+);base64,(.+)$", re.S)


def ms_time(value: Any) -> str | None:
    """OpenCode's times are ms since 1970: as ISO-8601 UTC with ms and "Z"
    (values.normalize_timestamp's form), None when not a time from 1970 to 2999."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    if not 0 <= value < 32503680000000:
        return None
    moment = datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)
    return moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def bad_ms(value: Any) -> bool:
    return value is not None and ms_time(value) is None


def key(*ids: str) -> str:
    """A Tally identity (OpenCode's message and part ids are unique across sessions)."""
    return "opencode:" + ":".join(ids)


class SessionTimeline:
    """One session's items, its counts in ``tally`` and what nesting needs: the
    task calls, and the child session each names (§7). ``root``: a session of
    its own (its typed user messages are prompts, §9.3)."""

    def __init__(self, raw: RawSession, tally: Tally, warn: WarnFn, *, root: bool):
        self.raw, self.tally, self.root = raw, tally, root
        self._sink = warn
        self.label = raw.files[0] if raw.files else "opencode"
        self.version = as_str(raw.info.get("version"))
        self.items: list[TimelineItem] = []
        self.task_calls: list[ToolCall] = []
        self.child_calls: dict[str, ToolCall] = {}
        self.models: list[str] = []
        self.agents: list[str] = []  # the agents its messages name (a child's type, §7)
        self.first_prompt = ""
        self.times: list[str] = []
        self._said: set[str] = set()

    def read(self) -> SessionTimeline:
        for message in self.raw.ordered_messages():
            self.tally.records.add(key(message.id))
            for part in message.parts.values():
                self.tally.records.add(key(part.id))
            data = message.data
            time = self._time(message)
            agent = as_str(data.get("agent"))
            if agent and agent not in self.agents:
                self.agents.append(agent)
            role = data.get("role")
            if role == "user":
                self._user(message, time)
            elif role == "assistant":
                self._assistant(message, time)
            elif data:
                self._warn(f"message {message.id}: role {role!r} is neither user nor assistant; shown as a note")
                self.items.append(Marker(message.id, time, "notice", f"(a message of role {as_str(role) or '?'})"))
        self.tally.lines += self.raw.lines
        self.tally.skipped_lines += self.raw.skipped
        return self

    def _time(self, message: RawMessage) -> str | None:
        created = as_dict(message.data.get("time")).get("created")
        if bad_ms(created):
            self._warn(f"message {message.id}: {BAD_TIME}")
        time = ms_time(message.created) if message.created else None
        if time:
            self.times.append(time)
        return time

    # user messages (§9.3) -------------------------------------------------------------------

    def _user(self, message: RawMessage, time: str | None) -> None:
        parts = [p.data for p in message.ordered_parts()]
        if any(p.get("type") == "compaction" for p in parts):
            auto = any(p.get("type") == "compaction" and p.get("auto") is True for p in parts)
            text = "The conversation was compacted" + (" (automatically)" if auto else "")
            self.items.append(Marker(message.id, time, "compaction", text))
            return
        typed = [as_str(p.get("text")) for p in parts if p.get("type") == "text" and _typed(p)]
        typed = [text for text in typed if text.strip()]
        injected = [as_str(p.get("text")) for p in parts if p.get("type") == "text" and not _typed(p)]
        injected = [text for text in injected if text.strip()]
        if injected:
            self.items.append(Marker(f"{message.id}:injected", time, "meta", "\n\n".join(injected)))
        content: list[Content] = [Text(text) for text in typed]
        content += [image for p in parts if (image := _image(p)) is not None]
        subtasks = [p for p in parts if p.get("type") == "subtask"]
        if not typed and subtasks:
            # §9.3: a command or @agent invocation delegated as a subtask: a prompt, said so.
            content = [Text(_subtask_text(p)) for p in subtasks] + content
        if not content:
            if not injected:
                self.items.append(Marker(message.id, time, "meta", "(empty message)"))
            return
        self.items.append(Prompt(message.id, "", time, content))
        if self.root:
            self.tally.prompts.add(key(message.id))
        if not self.first_prompt:
            self.first_prompt = next((c.text for c in content if isinstance(c, Text)), "")

    # assistant messages (§6, §9.4) -----------------------------------------------------------

    def _assistant(self, message: RawMessage, time: str | None) -> None:
        data = message.data
        parts = message.ordered_parts()
        blocks: list[Any] = []
        after: list[TimelineItem] = []
        for part in parts:
            kind = part.data.get("type")
            if kind == "reasoning" and as_str(part.data.get("text")).strip():
                blocks.append(Thinking(part.data["text"]))
            elif kind == "text" and as_str(part.data.get("text")).strip() and part.data.get("ignored") is not True:
                blocks.append(Text(part.data["text"]))
            elif kind == "tool":
                blocks.append(self._call(message, part.id, part.data, time))
            elif kind == "file" and (image := _image(part.data)) is not None:
                blocks.append(image)
            elif kind == "retry":
                error = as_dict(part.data.get("error"))
                what = as_str(as_dict(error.get("data")).get("message")) or as_str(error.get("name"))
                after.append(Marker(part.id, time, "warning", f"retried (attempt {part.data.get('attempt')}): {what}"))
        counted = message_usage(data, [p.data for p in parts], self.version)
        usage = counted.usage
        for note in counted.notes:
            self._warn(f"message {message.id}: {note}")
        if usage.unknown and any(_bad_counts(p.data.get("tokens")) for p in parts if p.data.get("type") == "step-finish"):
            self._warn(f"message {message.id}: {UNKNOWN_TOKENS}")
        model = as_str(data.get("modelID")) or as_str(as_dict(data.get("model")).get("modelID")) or None
        if model and model not in self.models:
            self.models.append(model)
        self.tally.add_reply(key(message.id), usage)
        provider = as_str(data.get("providerID")) or as_str(as_dict(data.get("model")).get("providerID")) or None
        # The message's cost is the sum over its steps (formats-opencode.md §6); OpenCode's
        # own estimate, shown beside bough's. Without it, the step-finish parts' costs added.
        cost = recorded_cost(data.get("cost"))
        if cost is None:
            steps = [recorded_cost(p.data.get("cost")) for p in parts if p.data.get("type") == "step-finish"]
            cost = sum(steps) if steps and None not in steps else None  # type: ignore[arg-type]
        self.items.append(Reply(message.id, "", time, model, blocks, usage, provider=provider, recorded_cost=cost,
                                calls=counted.calls))
        error = data.get("error")
        if error is not None:
            after.append(_error_marker(message.id, time, error))
        self.items += after

    def _call(self, message: RawMessage, part_id: str, data: dict[str, Any], reply_time: str | None) -> ToolCall:
        call_id = as_str(data.get("callID")) or part_id
        name = as_str(data.get("tool")) or "tool"
        state = as_dict(data.get("state"))
        times = as_dict(state.get("time"))
        call = ToolCall(call_id, name, state.get("input"), ms_time(times.get("start")) or reply_time)
        ident = key(self.raw.id, call_id)
        self.tally.tool_calls.add(ident)
        status = as_str(state.get("status"))
        call.result = _result(name, state, ms_time(times.get("end")) or call.timestamp)
        if call.result is not None:
            self.tally.tool_results.add(ident)
        if status == "error" or name == INVALID_TOOL:
            self.tally.tool_errors.add(ident)
        if status and status not in DONE_STATUSES and status not in LIVE_STATUSES:
            self._say_once(f"status:{status}", f"tool part {part_id}: status {status!r} is not one OpenCode "
                                               "writes; read as finished")
        if name == TASK_TOOL:
            self.task_calls.append(call)
            child = child_session(state)
            if child:
                self.child_calls.setdefault(child, call)
        return call

    def _warn(self, reason: str) -> None:
        warning = InputWarning(self.label, 0, reason)
        self.raw.warnings.append(warning)
        self._sink(warning)

    def _say_once(self, tag: str, reason: str) -> None:
        if tag not in self._said:
            self._said.add(tag)
            self._warn(reason)


def _typed(part: dict[str, Any]) -> bool:
    """§9.3: text a person typed, not OpenCode's (synthetic) nor kept out of the model's view (ignored)."""
    return part.get("synthetic") is not True and part.get("ignored") is not True


def _subtask_text(part: dict[str, Any]) -> str:
    agent = as_str(part.get("agent"))
    head = " ".join(x for x in (f"@{agent}" if agent else "", as_str(part.get("description"))) if x)
    body = as_str(part.get("prompt"))
    return f"{head}\n\n{body}".strip() if head else body


def _image(part: dict[str, Any]) -> Image | None:
    if part.get("type") != "file":
        return None
    match = _IMAGE_URL.match(as_str(part.get("url")))
    return Image(media_type=match.group(1), data=match.group(2)) if match else None


def _bad_counts(tokens: Any) -> bool:
    raw = as_dict(tokens)
    cache = raw.get("cache")
    values = [raw.get(k) for k in ("input", "output", "reasoning", "total")]
    values += [as_dict(cache).get(k) for k in ("read", "write")]
    return any(as_count(v) is None for v in values) or (cache is not None and not isinstance(cache, dict))


def _result(name: str, state: dict[str, Any], time: str | None) -> ToolResult | None:
    """§5: ``output`` when completed, ``error`` when failed; none while pending or
    running (the process died). A status OpenCode never writes ("success") with an
    output is read as completed."""
    status = as_str(state.get("status"))
    if status in LIVE_STATUSES:
        return None
    if status == "error":
        text = _text(state.get("error"))
        return ToolResult([Text(text)] if text else [], True, time, {"status": "error"})
    if "output" not in state and status != "completed":
        return None
    text = _text(state.get("output"))
    detail: dict[str, Any] = {}
    metadata = as_dict(state.get("metadata"))
    exit_code = metadata.get("exit")
    if isinstance(exit_code, int) and not isinstance(exit_code, bool):
        detail["exit_code"] = exit_code  # §5: a non-zero exit is still "completed"
    if isinstance(metadata.get("diff"), str):
        detail["diff"] = metadata["diff"]  # edit: the unified diff OpenCode recorded
    if isinstance(metadata.get("exists"), bool):
        detail["exists"] = metadata["exists"]  # write: whether the file was there before
    if as_str(state.get("title")):
        detail["title"] = state["title"]
    if as_dict(state.get("time")).get("compacted") is not None:
        detail["compacted"] = True  # §5: OpenCode pruned it from the model's context later
    if status and status != "completed":
        detail["status"] = status
    return ToolResult([Text(text)] if text else [], name == INVALID_TOOL, time, detail or None)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return orjson.dumps(value).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return str(value)


def child_session(state: dict[str, Any]) -> str:
    """The child session a task call started (§7): ``metadata.sessionId``, else the
    id its output names, else the ``task_id`` it resumed."""
    sid = as_str(as_dict(state.get("metadata")).get("sessionId"))
    if sid:
        return sid
    output = as_str(state.get("output"))
    for pattern in _CHILD_IN_OUTPUT:
        found = pattern.search(output)
        if found:
            return found.group(1)
    return as_str(as_dict(state.get("input")).get("task_id"))


def _error_marker(mid: str, time: str | None, error: Any) -> Marker:
    raw = as_dict(error)
    name = as_str(raw.get("name")) or "error"
    text = as_str(as_dict(raw.get("data")).get("message")) or as_str(raw.get("message")) or name
    if name in ABORTED_ERRORS:
        return Marker(f"{mid}:error", time, "interruption", text)
    return Marker(f"{mid}:error", time, "error", f"{name}: {text}" if text != name else name)
