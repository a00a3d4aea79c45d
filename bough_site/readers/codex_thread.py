"""Codex CLI, step 3 of reading (codex.py has the whole story): ``ThreadReader``
reads each rollout again; copied lines only move the token baseline and the
current model; the thread's own lines become the timeline and the Tally."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..model import (Content, Marker, Prompt, Reply, Text, Thinking, TimelineItem, ToolCall, ToolResult, Usage,
                     number_anchors)
from ..stats import Tally
from .codex_rollouts import Plan, Scan, normalize
from .codex_tokens import Counts, TokenMeter
from .codex_tools import content_parts, data_url_image, exit_code_of, inter_agent_text, tool_call_input, tool_result
from .lines import JsonlFile
from .values import as_dict, as_int, as_str, normalize_timestamp


CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})

# Context the harness injects as role-"user" text (docs/formats-codex.md X7). Each block is
# cut by its own tags; a block opened and never closed runs to the end of the part.
_INJECTED_TAGS = (
    "environment_context", "user_instructions", "user_shell_command", "turn_aborted",
    "subagent_notification", "recommended_plugins", "skill", "goal_context", "codex_internal_context",
)
_INJECTED_BLOCKS = [re.compile(rf"<{tag}(?:\s[^>]*)?>.*?</{tag}>", re.S) for tag in _INJECTED_TAGS]
_INJECTED_OPEN = re.compile(rf"<(?:{'|'.join(_INJECTED_TAGS)})(?:\s[^>]*)?>.*\Z", re.S)
_AGENTS_MD = re.compile(r"#\s*AGENTS\.md instructions for[^\n]*(?:.*?</INSTRUCTIONS>|.*\Z)", re.S)
_IMAGE_TAG = re.compile(r"</?image(?:\s[^>]*)?>", re.I)


def typed_text(text: str) -> str:
    """What a person typed in a role-"user" text: injected context blocks
    (environment, AGENTS.md, user instructions, shell-command echoes...) cut out
    by their own tags, image wrapper tags dropped."""
    for pattern in _INJECTED_BLOCKS:
        text = pattern.sub("", text)
    text = _AGENTS_MD.sub("", text)
    text = _INJECTED_OPEN.sub("", text)
    return _IMAGE_TAG.sub("", text).strip()




@dataclass
class Thread:
    """One rollout read into the model's pieces, before sessions are assembled."""

    scan: Scan
    plan: Plan
    timeline: list[TimelineItem]
    tally: Tally
    models: list[str]
    calls: dict[str, ToolCall]
    spawn_links: dict[str, list[str]]  # child thread id -> candidate spawning call ids
    spawn_tasks: dict[str, str]  # spawning call id -> task name
    output_texts: dict[str, str]  # call id -> output text (to find a child's id in it)
    first_prompt: str
    thread_name: str
    started: str | None
    ended: str | None
    cwd: str | None


class ThreadReader:
    """Reads one rollout's lines in order. Copied (inherited) lines only set the
    token baseline and the current model; own lines build the timeline and tally."""

    def __init__(self, scan: Scan, plan: Plan, titles: dict[str, str]):
        self.scan, self.plan = scan, plan
        self.tid = scan.id
        self.tally = Tally(has_reasoning=True)
        self.items: list[TimelineItem] = []
        self.reply: Reply | None = None
        self.calls: dict[str, ToolCall] = {}
        self.pending: dict[str, ToolResult] = {}
        self.event_errors: set[str] = set()
        self.meter = TokenMeter()
        self.model: str | None = None
        self.models: list[str] = []
        self.spawn_links: dict[str, list[str]] = {}
        self.spawn_tasks: dict[str, str] = {}
        self.output_texts: dict[str, str] = {}
        self.first_prompt = ""
        self.thread_name = titles.get(scan.id, "")
        self.times: list[str] = []
        self.cwd: str | None = None
        start, end = scan.own_start(), scan.own_start() + plan.inherited
        own = [line for i, line in enumerate(scan.lines) if not start <= i < end]
        self.event_era = any(l.kind == "event_msg" and l.sub == "user_message" for l in own)
        self.has_compacted = any(l.kind == "compacted" for l in own)
        self.by_record = any(l.kind == "token_usage_record" for l in own)

    def read(self) -> Thread:
        start, end = self.scan.own_start(), self.scan.own_start() + self.plan.inherited
        reader = JsonlFile(self.scan.path, self.scan.label, lambda warning: None, max_bytes=self.scan.size)
        for index, (number, obj) in enumerate(reader):
            kind, payload = normalize(obj)
            if start <= index < end:
                self._inherited(kind, payload)
                continue
            stamp = normalize_timestamp(obj.get("timestamp"))
            if stamp:
                self.times.append(stamp)
            self._own(number, kind, payload, stamp)
        self._close_reply()
        self._finish()
        return self._result()

    # copied history: state only -------------------------------------------------

    def _inherited(self, kind: str, payload: dict[str, Any]) -> None:
        if kind == "turn_context":
            self.model = as_str(payload.get("model")) or self.model
            self.cwd = self.cwd or as_str(payload.get("cwd")) or None
        elif kind == "event_msg" and payload.get("type") == "token_count" and not self.by_record:
            info = payload.get("info")
            if isinstance(info, dict):
                self.meter.feed(info)  # the copied totals become the baseline

    # own lines ------------------------------------------------------------------

    def _own(self, number: int, kind: str, payload: dict[str, Any], stamp: str | None) -> None:
        key = f"{self.tid}:{number}"
        if kind == "response_item":
            self.tally.records.add(f"codex:{key}")
            self._item(key, payload, stamp)
        elif kind == "event_msg":
            self._event(key, payload, stamp)
        elif kind == "turn_context":
            self._turn_context(payload)
        elif kind == "compacted":
            # replacement_history repeats earlier items: never new messages (docs/formats-codex.md X11).
            self._marker(key, stamp, "compaction", as_str(payload.get("message")).strip() or "Conversation compacted")
        elif kind == "inter_agent_communication":
            self._marker(key, stamp, "notice", inter_agent_text(content_parts(payload.get("content")), payload))
        elif kind == "token_usage_record":
            self._usage_record(key, payload)

    def _turn_context(self, payload: dict[str, Any]) -> None:
        model = as_str(payload.get("model"))
        if model:
            self.model = model
            if model not in self.models:
                self.models.append(model)
        self.cwd = self.cwd or as_str(payload.get("cwd")) or None

    def _item(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        kind = as_str(payload.get("type"))
        if kind == "message":
            self._message(key, payload, stamp)
        elif kind == "reasoning":
            self._reasoning(key, payload, stamp)
        elif kind in CALL_TYPES:
            self._call(key, payload, stamp)
        elif kind in OUTPUT_TYPES:
            self._output(payload, stamp)
        elif kind == "agent_message":
            self._marker(key, stamp, "notice", inter_agent_text(content_parts(payload.get("content")), payload))
        elif kind == "image_generation_call":
            image = data_url_image("data:image/png;base64," + as_str(payload.get("result"))) if payload.get("result") else None
            if image:
                self._open_reply(key, stamp).blocks.append(image)

    def _message(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        role = payload.get("role")
        parts = content_parts(payload.get("content"))
        if role == "assistant":
            reply = self._open_reply(as_str(payload.get("id")) or key, stamp)
            for part in parts:
                text = as_str(part.get("text"))
                if part.get("type") in ("output_text", "text", "input_text") and text.strip():
                    reply.blocks.append(Text(text))
        elif role == "user" and not self.event_era:
            # Newer files have no user_message event: the item is the prompt,
            # once the injected context is cut out (docs/formats-codex.md X7).
            content: list[Content] = []
            for part in parts:
                if part.get("type") in ("input_text", "text"):
                    text = typed_text(as_str(part.get("text")))
                    if text:
                        content.append(Text(text))
                elif part.get("type") == "input_image":
                    image = data_url_image(part.get("image_url"))
                    if image:
                        content.append(image)
            if content:
                self._prompt(key, stamp, content)
        # role user in event-era files is the user_message's mirror; developer and
        # system messages are instructions: neither is shown.

    def _reasoning(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        # The summary only; encrypted_content is never read.
        text = "\n\n".join(t for p in content_parts(payload.get("summary")) if (t := as_str(p.get("text")).strip()))
        if not text:
            text = "\n\n".join(t for p in content_parts(payload.get("content")) if (t := as_str(p.get("text")).strip()))
        if text:
            self._open_reply(as_str(payload.get("id")) or key, stamp).blocks.append(Thinking(text))

    def _call(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        call_id = as_str(payload.get("call_id")) or as_str(payload.get("id")) or key
        if call_id in self.calls:
            return
        name, tool_input = tool_call_input(payload)
        call = ToolCall(call_id, name, tool_input, stamp)
        call.result = self.pending.pop(call_id, None)
        self.calls[call_id] = call
        self.tally.tool_calls.add(f"codex:{self.tid}:{call_id}")
        if isinstance(tool_input, dict) and isinstance(tool_input.get("task_name"), str):
            self.spawn_tasks[call_id] = tool_input["task_name"]
        self._open_reply(key, stamp).blocks.append(call)

    def _output(self, payload: dict[str, Any], stamp: str | None) -> None:
        call_id = as_str(payload.get("call_id"))
        if not call_id:
            return
        result = tool_result(payload, stamp)
        self.tally.tool_results.add(f"codex:{self.tid}:{call_id}")
        if result.is_error:
            self.tally.tool_errors.add(f"codex:{self.tid}:{call_id}")
        self.output_texts.setdefault(call_id, "\n".join(p.text for p in result.content if isinstance(p, Text))[:4096])
        call = self.calls.get(call_id)
        if call is None:
            self.pending.setdefault(call_id, result)  # outputs can arrive before their call
        elif call.result is None:
            call.result = result

    def _event(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        kind = as_str(payload.get("type"))
        if kind == "user_message":
            self._user_message(key, payload, stamp)
        elif kind == "token_count":
            info = payload.get("info")
            if isinstance(info, dict) and not self.by_record:
                usage = self.meter.feed(info)
                if usage is not None:
                    self._reply_done(f"codex:{key}", usage)
        elif kind in ("task_started", "turn_started"):
            self._close_reply()
        elif kind == "turn_aborted":
            reason = as_str(payload.get("reason")) or "interrupted"
            self._marker(key, stamp, "interruption", f"Turn {reason}")
        elif kind == "context_compacted" and not self.has_compacted:
            self._marker(key, stamp, "compaction", "Conversation compacted")
        elif kind == "error":
            self._marker(key, stamp, "error", as_str(payload.get("message")) or "Error")
        elif kind == "thread_rolled_back":
            self._marker(key, stamp, "notice", f"Rolled back {as_int(payload.get('num_turns'))} turn(s)")
        elif kind == "thread_name_updated":
            self.thread_name = as_str(payload.get("thread_name")).strip() or self.thread_name
        else:
            self._side_event(kind, payload)

    def _side_event(self, kind: str, payload: dict[str, Any]) -> None:
        """Events that say which call spawned a thread, or that a call failed."""
        call_id = as_str(payload.get("call_id"))
        if kind == "collab_agent_spawn_end" and call_id and as_str(payload.get("new_thread_id")):
            self.spawn_links.setdefault(payload["new_thread_id"], []).append(call_id)
        elif kind == "sub_agent_activity" and payload.get("kind") == "started":
            # Which field holds the spawn call id has varied; only a known call counts.
            child = as_str(payload.get("agent_thread_id"))
            for candidate in (payload.get("call_id"), payload.get("id"), payload.get("event_id")):
                if child and isinstance(candidate, str) and candidate:
                    self.spawn_links.setdefault(child, []).append(candidate)
        elif kind == "exec_command_end" and call_id and exit_code_of(payload.get("exit_code")) not in (None, 0):
            self.event_errors.add(call_id)
        elif kind == "patch_apply_end" and call_id and payload.get("success") is False:
            self.event_errors.add(call_id)
        elif kind == "mcp_tool_call_end" and call_id:
            result = as_dict(payload.get("result"))
            if "Err" in result or as_dict(result.get("Ok")).get("isError") is True:
                self.event_errors.add(call_id)

    def _user_message(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        content: list[Content] = []
        text = typed_text(as_str(payload.get("message")))
        if text:
            content.append(Text(text))
        images = payload.get("images")
        for url in images if isinstance(images, list) else ():
            image = data_url_image(url)
            if image:
                content.append(image)
        if content:
            self._prompt(key, stamp, content)

    def _usage_record(self, key: str, payload: dict[str, Any]) -> None:
        """``token_usage_record``: one per model response, keyed by response_id;
        a copy naming another thread is not this thread's spend."""
        response = as_str(payload.get("response_id"))
        thread = as_str(payload.get("thread_id"))
        if not response or (thread and thread != self.tid):
            return
        raw = as_dict(payload.get("usage")) or as_dict(payload.get("last_token_usage"))
        self._reply_done(f"codex:{self.tid}:response:{response}", Counts.of(raw).usage())

    # timeline helpers ----------------------------------------------------------------

    def _prompt(self, key: str, stamp: str | None, content: list[Content]) -> None:
        self._close_reply()
        self.tally.prompts.add(f"codex:{key}")
        self.items.append(Prompt(key, "", stamp, content))
        if not self.first_prompt:
            self.first_prompt = next((c.text for c in content if isinstance(c, Text)), "")

    def _open_reply(self, reply_id: str, stamp: str | None) -> Reply:
        if self.reply is None:
            self.reply = Reply(reply_id, "", stamp, self.model, [], Usage())
            self.items.append(self.reply)
            if self.model and self.model not in self.models:
                self.models.append(self.model)
        return self.reply

    def _reply_done(self, reply_key: str, usage: Usage) -> None:
        """A model call ended: count it, and give its spend to the reply it wrote."""
        self.tally.add_reply(reply_key, usage)
        if self.reply is not None:
            self.reply.usage = usage
        self.reply = None

    def _close_reply(self) -> None:
        self.reply = None

    def _marker(self, key: str, stamp: str | None, kind: str, text: str) -> None:
        self._close_reply()
        self.items.append(Marker(key, stamp, kind, text))

    def _finish(self) -> None:
        for call_id in self.event_errors:
            call = self.calls.get(call_id)
            if call is not None and call.result is not None:
                call.result.is_error = True
                self.tally.tool_errors.add(f"codex:{self.tid}:{call_id}")
        for call_id, result in self.pending.items():
            self.items.append(Marker(f"result:{call_id}", result.timestamp, "notice",
                                     "A tool result whose call is not in this thread's own history."))
        number_anchors(self.items)
        if self.plan.inherited:
            self.items.insert(0, self._inherited_marker())
        self.tally.lines += self.scan.line_count
        self.tally.skipped_lines += self.scan.skipped

    def _inherited_marker(self) -> Marker:
        parent = self.plan.lineage.copied_from or ""
        count = self.plan.inherited
        stamp = normalize_timestamp(self.scan.meta.get("timestamp"))
        return Marker(f"{self.tid}:inherited", stamp, "inherited",
                      f"{count} lines of history inherited from session {parent}", ref_session=parent, count=count)

    def _result(self) -> Thread:
        meta = self.scan.meta
        return Thread(
            self.scan, self.plan, self.items, self.tally, self.models, self.calls,
            self.spawn_links, self.spawn_tasks, self.output_texts, self.first_prompt,
            self.thread_name, self.times[0] if self.times else normalize_timestamp(meta.get("timestamp")),
            self.times[-1] if self.times else normalize_timestamp(meta.get("timestamp")),
            as_str(meta.get("cwd")) or self.cwd,
        )
