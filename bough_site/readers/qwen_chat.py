"""One Qwen Code chat file's records -> timeline items and counts
(docs/formats-qwen.md §3 to §8).

A ``ChatReader`` walks a file's records once, in order:

- ``user`` records a person typed are prompts (§8.3); notices, hook context,
  cron and goal records are quiet markers;
- ``assistant`` records are replies (thoughts, text, tool calls), each one API
  call; ``tool_result`` records are the results of those calls (§5);
- ``system`` records: ``ui_telemetry`` carries each API call's tokens (§6) and the
  sub-agents' calls (§7, qwen_agents.py), ``slash_command`` commands,
  ``chat_compression`` and ``rewind`` markers, ``custom_title`` the title.

Tokens (§6, §8.6): every main-chat ``api_response`` event is one reply. It is
paired with the assistant record written for it (the record after it whose
``usageMetadata`` has its counts); a call with no such record (a thought-only
response the CLI retried) is a reply of its own, its text the event's
``response_text`` when there is one. A file with no ``api_response`` at all
(telemetry off, an older CLI) counts each assistant record's ``usageMetadata``.
Never both.

A ``rewind`` leaves the records it undid in the file (§4): they are shown, marked
``rewound``, and counted (they were billed). Records a ``/branch`` copied from
another session (``forkedFrom``) are that session's: one ``inherited`` marker
stands for them here and they count nowhere in this session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import (
    REMOVED_REWOUND,
    Command,
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
    Usage,
)
from ..stats import Tally
from .gemini import function_response_content
from .qwen_lines import QwenFile
from .qwen_tokens import API_ERROR, API_RESPONSE, metadata_usage, parse_prompt_id, telemetry_usage, uievent
from .values import BAD_TIME, UNKNOWN_TOKENS, as_dict, as_str, bad_timestamp, normalize_timestamp

# §8.3: the hook's context Qwen Code adds to a typed prompt, as a part of its own.
HOOK_TAG = "<qwen:user-prompt-submit-context>"
# §3: user records nobody typed, and how they show.
QUIET_USERS = {"notification": "notice", "cron": "meta", "goal_runtime": "meta", "realtime_message": "meta"}
STEERING = "mid_turn_user_message"
# §5: what a file tool's ``resultDisplay`` object holds that its view shows.
DISPLAY_KEYS = ("fileDiff", "fileName", "filePath", "diffStat", "isNewFile")
# §3: system records that are bookkeeping: counted as records, not shown.
SILENT_SYSTEM = frozenset({
    "attribution_snapshot", "file_history_snapshot", "session_source", "session_model",
    "session_approval_mode", "session_artifact_snapshot", "branch_checkpoint", "turn_result",
    "at_command",
})


def parts_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    parts = as_dict(record.get("message")).get("parts")
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _content(parts: list[dict[str, Any]]) -> list[Content]:
    out: list[Content] = []
    for part in parts:
        text = part.get("text")
        if isinstance(text, str) and text.strip() and part.get("thought") is not True:
            out.append(Text(text))
        data = as_dict(part.get("inlineData"))
        if isinstance(data.get("data"), str) and data["data"]:
            out.append(Image(as_str(data.get("mimeType")), data["data"]))
    return out


def rewound(records: list[tuple[int, dict[str, Any]]]) -> set[str]:
    """The uuids a ``rewind`` undid (§4): the records written after the point it
    went back to (its ``parentUuid``, else its ``targetUuid``) and before it, that
    are not on its own line of ancestors."""
    position = {as_str(r.get("uuid")): i for i, (_, r) in enumerate(records) if as_str(r.get("uuid"))}
    parent = {as_str(r.get("uuid")): as_str(r.get("parentUuid")) for _, r in records}
    dead: set[str] = set()
    for index, (_, record) in enumerate(records):
        if record.get("subtype") != "rewind":
            continue
        target = as_str(record.get("parentUuid")) or as_str(as_dict(record.get("systemPayload")).get("targetUuid"))
        if target not in position:
            continue
        ancestors, node = set(), as_str(record.get("uuid"))
        while node and node not in ancestors:
            ancestors.add(node)
            node = parent.get(node, "")
        for _, later in records[position[target] + 1:index]:
            uid = as_str(later.get("uuid"))
            if uid and uid not in ancestors:
                dead.add(uid)
    return dead


def pairs(records: list[tuple[int, dict[str, Any]]], wanted: Callable[[dict[str, Any]], bool]) -> dict[str, str]:
    """assistant uuid -> the uuid of the ``api_response`` event written for it (§6):
    of the events since the last pairing, the latest whose prompt and output counts
    are the record's ``usageMetadata``'s, else the latest; when none came before, the
    next event before the next assistant record. ``wanted``: which events are this
    chat's (the main chat's, or one sub-agent's)."""
    out: dict[str, str] = {}
    pending: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # assistant records that found no event before them
    for _, record in records:
        if isinstance(record.get("forkedFrom"), dict):
            continue  # a /branch copy: the session it came from counts it
        event = uievent(record) if record.get("subtype") == "ui_telemetry" else {}
        if event.get("event.name") == API_RESPONSE and wanted(event):
            if waiting:
                out[as_str(waiting.pop(0).get("uuid"))] = as_str(record.get("uuid"))
            else:
                pending.append(record)
        elif record.get("type") == "assistant" and as_str(record.get("uuid")):
            waiting.clear()
            if not pending:
                waiting.append(record)
                continue
            chosen = _matching(record, pending) or pending[-1]
            out[as_str(record.get("uuid"))] = as_str(chosen.get("uuid"))
            pending.clear()
    return out


def _matching(record: dict[str, Any], pending: list[dict[str, Any]]) -> dict[str, Any] | None:
    metadata = as_dict(record.get("usageMetadata"))
    want = (metadata.get("promptTokenCount"), metadata.get("candidatesTokenCount"))
    for event_record in reversed(pending):
        event = uievent(event_record)
        if (event.get("input_token_count"), event.get("output_token_count")) == want:
            return event_record
    return None


class ChatReader:
    """Timeline items and counts from one file's records. ``main``: the session's
    own chat file (its user records can be prompts, its telemetry holds the
    sub-agents'); a sub-agent's transcript file is read with ``main`` False."""

    def __init__(self, file: QwenFile, tally: Tally, warn: Callable[[InputWarning], None], *, main: bool):
        self.file, self.tally, self.main = file, tally, main
        self._sink = warn
        self.prefix = f"qwen:{file.session_id()}:"
        self.items: list[TimelineItem] = []
        self.calls: dict[str, ToolCall] = {}  # call id -> call
        self.call_times: list[tuple[ToolCall, str | None]] = []
        self.models: list[str] = []
        self.versions: list[str] = []
        self.cwds: list[str] = []
        self.branch: str | None = None
        self.titles: list[str] = []  # custom titles, in order (the active one last)
        self.first_prompt = ""
        self.agent_events: list[tuple[int, dict[str, Any], dict[str, Any]]] = []  # (line, record, event)
        self.times: list[str] = []
        self._dead: set[str] = set()
        self._pairs: dict[str, str] = {}
        self._paired_events: set[str] = set()
        self._by_uuid: dict[str, tuple[int, dict[str, Any]]] = {}  # uuid -> its line and record
        self._inherited: Marker | None = None
        self._commands: dict[str, Command] = {}

    def read(self) -> ChatReader:
        records = self.file.records
        self._dead = rewound(records)
        self._pairs = pairs(records, self._own)
        self._paired_events = set(self._pairs.values())
        self._by_uuid = {as_str(r.get("uuid")): (number, r) for number, r in records if as_str(r.get("uuid"))}
        for line, record in records:
            self._record(line, record)
        self.tally.lines += self.file.lines
        self.tally.skipped_lines += self.file.skipped
        return self

    def _own(self, event: dict[str, Any]) -> bool:
        """An event of this file's own chat: the main chat's in a main file (not a
        sub-agent's); in a sub-agent's file, any."""
        return not self.main or not (parse_prompt_id(event.get("prompt_id")).agent or event.get("subagent_name"))

    # --- dispatch ---------------------------------------------------------------------

    def _record(self, line: int, record: dict[str, Any]) -> None:
        uid = as_str(record.get("uuid"))
        key = self.prefix + (uid or f"line{line}")
        if bad_timestamp(record.get("timestamp")):
            self._warn(line, BAD_TIME)
        time = normalize_timestamp(record.get("timestamp"))
        if isinstance(record.get("forkedFrom"), dict):
            self._inherit(record, time)
            return
        self.tally.records.add(key)
        if time:
            self.times.append(time)
        self._stamp(record)
        before = len(self.items)
        kind = record.get("type")
        if kind == "user":
            self._user(key, record, time)
        elif kind == "assistant":
            self._assistant(line, key, record, time)
        elif kind == "tool_result":
            self._tool_result(record, time)
        elif kind == "system":
            self._system(line, key, record, time)
        if uid in self._dead:
            for item in self.items[before:]:
                item.removed = REMOVED_REWOUND

    def _stamp(self, record: dict[str, Any]) -> None:
        for value, seen in ((as_str(record.get("version")), self.versions), (as_str(record.get("cwd")), self.cwds)):
            if value and value not in seen:
                seen.append(value)
        branch = as_str(record.get("gitBranch"))
        if branch:
            self.branch = branch

    def _inherit(self, record: dict[str, Any], time: str | None) -> None:
        if self._inherited is None:
            source = as_str(as_dict(record.get("forkedFrom")).get("sessionId")) or None
            self._inherited = Marker(self.prefix + "forked", time, "inherited", ref_session=source)
            self.items.append(self._inherited)
        self._inherited.count += 1

    # --- user ---------------------------------------------------------------------------

    def _user(self, key: str, record: dict[str, Any], time: str | None) -> None:
        subtype = as_str(record.get("subtype"))
        parts = parts_of(record)
        if any(isinstance(p.get("functionResponse"), dict) for p in parts):
            self._tool_result(record, time)  # an older writer's result under type "user"
            return
        typed = [p for p in parts if not as_str(p.get("text")).lstrip().startswith(HOOK_TAG)]
        content = _content(typed)
        display = as_str(as_dict(record.get("systemPayload")).get("displayText"))
        if not content and display.strip() and subtype != "notification":
            content = [Text(display)]
        if subtype in QUIET_USERS or (self.main and record.get("isSidechain") is True):
            text = "\n\n".join(c.text for c in content if isinstance(c, Text)) or display or subtype or "(message)"
            self.items.append(Marker(key, time, QUIET_USERS.get(subtype, "meta"), text))
            return
        provenance = record.get("provenance")
        if not content or (provenance is not None and provenance != "real_user") or (subtype and subtype != STEERING):
            text = "\n\n".join(as_str(p.get("text")) for p in parts if as_str(p.get("text"))) or "(empty message)"
            self.items.append(Marker(key, time, "meta", text))
            return
        self.items.append(Prompt(key, "", time, content))
        self.tally.prompts.add(key)
        if not self.first_prompt:
            self.first_prompt = "\n".join(c.text for c in content if isinstance(c, Text))

    # --- assistant ------------------------------------------------------------------------

    def _assistant(self, line: int, key: str, record: dict[str, Any], time: str | None) -> None:
        model = as_str(record.get("model")) or None
        if model and model not in self.models:
            self.models.append(model)
        blocks: list[Any] = []
        for part in parts_of(record):
            text = part.get("text")
            if isinstance(text, str) and text.strip():
                blocks.append(Thinking(text) if part.get("thought") is True else Text(text))
            elif (call := self._call(part, time)) is not None:
                blocks.append(call)
            elif isinstance(as_dict(part.get("inlineData")).get("data"), str):
                blocks += _content([part])
        event_uid = self._pairs.get(as_str(record.get("uuid")))
        if event_uid is not None:
            return self._paired(line, key, record, blocks, time, event_uid)
        metadata = record.get("usageMetadata")
        if not self.main and not isinstance(metadata, dict):
            # A sub-agent's file writes each tool call as an assistant record of its
            # own, without usage (§7): part of a call counted elsewhere, not a call.
            self.items.append(Reply(key, "", time, model, blocks, Usage()))
            return
        usage = metadata_usage(metadata) if isinstance(metadata, dict) else Usage(unknown=True)
        # No event is this record's (telemetry off, or an event we could not pair): its
        # own figures stand for the call, and no event counts it a second time.
        if usage.unknown and isinstance(metadata, dict):
            self._warn(line, UNKNOWN_TOKENS)
        self.tally.add_reply(key, usage)
        self.items.append(Reply(key, "", time, model, blocks, usage))

    def _paired(self, line: int, key: str, record: dict[str, Any], blocks: list[Any], time: str | None,
                event_uid: str) -> None:
        event_line, event_record = self._by_uuid.get(event_uid, (line, {}))
        event = uievent(event_record)
        usage = telemetry_usage(event)
        if usage.unknown:  # said where the count is: the event's line, not the reply's
            self._warn(event_line, UNKNOWN_TOKENS)
        self.tally.add_reply(key, usage)
        model = as_str(record.get("model")) or as_str(event.get("model")) or None
        self.items.append(Reply(key, "", time, model, blocks, usage))

    def _call(self, part: dict[str, Any], time: str | None) -> ToolCall | None:
        raw = part.get("functionCall")
        if not isinstance(raw, dict):
            return None
        call_id = as_str(raw.get("id")) or f"{as_str(raw.get('name')) or 'tool'}@{time or len(self.calls)}"
        call = ToolCall(call_id, as_str(raw.get("name")) or "tool", raw.get("args"), time)
        if call_id not in self.calls:
            self.calls[call_id] = call
            self.call_times.append((call, time))
            self.tally.tool_calls.add(self.prefix + call_id)
        return call

    # --- tool results ---------------------------------------------------------------------

    def _tool_result(self, record: dict[str, Any], time: str | None) -> None:
        result = as_dict(record.get("toolCallResult"))
        responses = [as_dict(p.get("functionResponse")) for p in parts_of(record)
                     if isinstance(p.get("functionResponse"), dict)]
        call_id = as_str(result.get("callId")) or next((as_str(r.get("id")) for r in responses if r.get("id")), "")
        if not call_id:
            return
        status = as_str(result.get("status"))
        content: list[Content] = []
        failed = status == "error"
        for response in responses:
            if response.get("id") not in (None, call_id):
                continue
            body = response.get("response")
            failed = failed or (isinstance(body, dict) and body.get("error") not in (None, ""))
            content += function_response_content(body)
        if not content and as_str(result.get("resultDisplay")).strip():
            content = [Text(as_str(result["resultDisplay"]))]
        detail: dict[str, Any] = {}
        if status and status != "success":
            detail["status"] = status
        if as_str(result.get("errorType")):
            detail["errorType"] = result["errorType"]
        display = result.get("resultDisplay")
        if isinstance(display, dict):  # a file tool's diff, as Gemini CLI records it (render/views_qwen.py)
            detail.update({name: display[name] for name in DISPLAY_KEYS if name in display})
        key = self.prefix + call_id
        self.tally.tool_results.add(key)
        if failed:
            self.tally.tool_errors.add(key)
        call = self.calls.get(call_id)
        if call is not None:
            call.result = ToolResult(content, failed, time, detail or None)

    # --- system ------------------------------------------------------------------------------

    def _system(self, line: int, key: str, record: dict[str, Any], time: str | None) -> None:
        subtype = as_str(record.get("subtype"))
        payload = as_dict(record.get("systemPayload"))
        if subtype == "ui_telemetry":
            self._telemetry_event(line, key, record, time)
        elif subtype == "slash_command":
            self._command(key, payload, time)
        elif subtype == "chat_compression":
            self.items.append(Marker(key, time, "compaction", _compression_text(payload)))
        elif subtype == "custom_title":
            title = as_str(payload.get("customTitle")).strip()
            if title and as_str(record.get("uuid")) not in self._dead:
                self.titles.append(title)
        elif subtype == "rewind":
            self.items.append(Marker(key, time, "notice", "Rewound: the conversation went back to an earlier "
                                     "point; what was written since is marked rewound."))
        elif subtype and subtype not in SILENT_SYSTEM and not subtype.startswith(("managed_session_", "goal_")):
            text = as_str(payload.get("displayText")) or as_str(payload.get("message")) or subtype
            self.items.append(Marker(key, time, "meta", text))

    def _telemetry_event(self, line: int, key: str, record: dict[str, Any], time: str | None) -> None:
        event = uievent(record)
        name = as_str(event.get("event.name"))
        if self.main and not self._own(event):
            self.agent_events.append((line, record, event))
            return
        if name == API_RESPONSE and self._own(event) and as_str(record.get("uuid")) not in self._paired_events:
            self._unpaired_call(line, key, event, time)
        elif name == API_ERROR:
            text = as_str(event.get("error_message")) or as_str(event.get("error")) or "API error"
            self.items.append(Marker(key, time, "error", text))

    def _unpaired_call(self, line: int, key: str, event: dict[str, Any], time: str | None) -> None:
        """An API call with no assistant record (§6): a retried thought-only or empty
        response. Its tokens count; its text is the event's, when it kept one."""
        usage = telemetry_usage(event)
        if usage.unknown:
            self._warn(line, UNKNOWN_TOKENS)
        self.tally.add_reply(key, usage)
        model = as_str(event.get("model")) or None
        if model and model not in self.models:
            self.models.append(model)
        text = as_str(event.get("response_text"))
        note = ("An API call Qwen Code wrote no message for (a response it retried, or one with no "
                "text): its tokens are from the CLI's telemetry.")
        self.items.append(Marker(key + ":note", time, "notice", note))
        self.items.append(Reply(key, "", time, model, [Text(text)] if text.strip() else [], usage))

    def _command(self, key: str, payload: dict[str, Any], time: str | None) -> None:
        raw = as_str(payload.get("rawCommand")).strip()
        phase = as_str(payload.get("phase"))
        if phase == "result":
            command = self._commands.get(raw)
            if command is not None:
                command.output = _command_output(payload.get("outputHistoryItems"))
            return
        name, _, args = (raw or "/?").partition(" ")
        command = Command(key, time, name, args.strip())
        self._commands[raw] = command
        self.items.append(command)
        if self.main:
            self.tally.commands.add(key)

    def _warn(self, line: int, reason: str) -> None:
        warning = InputWarning(self.file.label, line, reason)
        self.file.warnings.append(warning)
        self._sink(warning)


def _command_output(items: Any) -> str:
    texts = [as_str(as_dict(i).get("text")) for i in items] if isinstance(items, list) else []
    return "\n".join(t for t in texts if t)


def _compression_text(payload: dict[str, Any]) -> str:
    info = as_dict(payload.get("info"))
    before, after = info.get("originalTokenCount"), info.get("newTokenCount")
    if isinstance(before, int) and isinstance(after, int):
        return f"The history was compressed ({before:,} → {after:,} tokens)."
    return "The history was compressed."
