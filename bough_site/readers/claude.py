"""Claude Code transcripts -> model.

One session is a top-level ``<sessionId>.jsonl`` plus the sub-agent transcripts
attached to it. Reading happens in two steps (and a third for resumes):

1. ``collect_records`` (claude_records.py) streams the lines once: copies of one
   ``uuid`` are merged into one record (later non-empty fields win, except
   ``promptId``; the record keeps the place of its first appearance), each copy
   of a reply offers its usage to the Tally (the largest copy wins), and
   title/version/cwd facts are noted.
2. ``_Timeline`` walks the merged records in order and builds prompts, replies
   (one per ``message.id``), tool calls with their results joined on id,
   commands and markers (their content blocks and harness notes:
   claude_blocks.py), counting prompts, commands and tools as it goes.
3. A resume whose file begins with a copy of an earlier session's records
   (inherit.py decides which) leaves out the items made only of those records,
   each run of them shown as one ``inherited`` marker; everything is still counted.

``scan_main_file`` (claude_records.py) is the build's pre-scan of a main file
for inherit.py: the same lines give the same records (``record_digest`` tells
them apart).

The rules, with the evidence for each, are in docs/formats-claude.md and
docs/stats.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..inherit import Inheritance
from ..line_numbers import strip_line_numbers
from ..model import (
    SOURCE_CLAUDE,
    Command,
    Content,
    Marker,
    Prompt,
    Reply,
    Session,
    SubagentRun,
    Text,
    Thinking,
    TimelineItem,
    ToolCall,
    ToolResult,
    Usage,
    InputWarning,
)
from ..stats import Tally
from .claude_blocks import (
    HARNESS_TAGS,
    agent_id_in,
    blocks_text,
    compaction_text,
    content_blocks,
    error_text,
    image_of,
    is_harness_block,
    tag_text,
    tool_result_content,
    unwrap_note,
    usage_of,
)
from .claude_records import SYNTHETIC_MODEL, Collected, collect_records
from .lines import printable_name
from .reader import LabelFn, UnitFiles, WarnFn, labeller
from .values import (
    recorded_cost,
    as_dict,
    as_str,
    first_command,
    first_reply_sentence,
    normalize_timestamp,
    untitled,
)


INTERRUPTION_PREFIX = "[Request interrupted by user"
WARMUP_TEXT = "Warmup"
TITLE_LENGTH = 100


def first_line(text: str, limit: int = TITLE_LENGTH) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


# toolUseResult keys that repeat what the record already holds: the result text
# (stdout, stderr, a Task's content), the call's input (Edit's strings, Write's
# content) or a whole copy of the file before an edit. Dropping them shrinks the
# sidecars (docs/performance.md) and spares the redactor a second pass over them.
_REPEATED_DETAIL = frozenset({"stdout", "stderr", "content", "oldString", "newString", "originalFile", "originalFileContents"})


def lean_detail(detail: Any, content: Any = None) -> Any:
    """A tool's structured result without the copies of what the record already holds.

    An MCP tool's ``toolUseResult`` is the very list its tool_result's content
    is: that copy is dropped whole. A Read's ``file.content`` is dropped when it
    is exactly the shown text without its line numbers, but for the reminder the
    harness may append. What each saves is in docs/performance.md.
    """
    if isinstance(detail, list) and detail == content:
        return None
    if not isinstance(detail, dict):
        return detail
    lean = {key: value for key, value in detail.items() if key not in _REPEATED_DETAIL}
    file = lean.get("file")
    if isinstance(file, dict) and _is_shown(file.get("content"), _shown_file(content)):
        lean["file"] = {key: value for key, value in file.items() if key != "content"}
    return lean


# What the harness appends to a Read's text after the file's lines (Claude Code
# writes a <system-reminder> there; docs/formats-claude.md C9).
_REMINDER_TAIL = re.compile(r"\s*<system-reminder>.*</system-reminder>\s*\Z", re.DOTALL)


def _is_shown(file_text: Any, shown: str | None) -> bool:
    """Whether the shown text is the file's text, with at most a harness reminder after it."""
    if not isinstance(file_text, str) or shown is None:
        return False
    if shown == file_text:
        return True
    return bool(file_text) and shown.startswith(file_text) and _REMINDER_TAIL.match(shown, len(file_text)) is not None


def _shown_file(content: Any) -> str | None:
    """The file text a Read result showed the model (one text, numbers removed)."""
    texts = [block for block in content_blocks(content) if block.get("type") == "text"]
    if len(texts) != 1 or not isinstance(texts[0].get("text"), str):
        return None
    return strip_line_numbers(texts[0]["text"])


# --- step 2: the timeline -----------------------------------------------------


class _Timeline:
    """Builds timeline items from merged records, counting as it goes.

    With ``inherited`` (the digests of records an earlier session file holds too:
    record_digest, inherit.py) it also notes which items a record of the session's own made
    or added to (``own``, by ``id(item)``): the others can be left out."""

    def __init__(self, tally: Tally, *, main: bool, inherited: frozenset[str] = frozenset()):
        self.tally = tally
        self.main = main  # prompts and commands count only in the main transcript
        self.inherited = inherited
        self.own: set[int] = set()
        self._own = True  # whether the record being added is the session's own
        self.call_replies: dict[str, Reply] = {}  # tool_use id -> the reply holding the call
        self.pending_own: dict[str, bool] = {}  # tool_use id -> its early result came from an own record
        self.sidechain_own: list[bool] = []  # per inline sidechain: it holds an own record
        self.items: list[TimelineItem] = []
        self.replies: dict[str, Reply] = {}
        self.calls: dict[str, ToolCall] = {}
        self.pending_results: dict[str, ToolResult] = {}
        self.prompt_keys: dict[str, Prompt] = {}
        self.agent_calls: dict[str, str] = {}  # agent id -> launching tool_use id
        self.models: list[str] = []
        self.first_prompt_text = ""
        self.sidechains: list[list[dict[str, Any]]] = []  # inline 1.0.x sub-agent runs
        self._boundaries: set[str] = set()  # compaction markers whose summary has not come yet
        self._counter = {"p": 0, "r": 0}

    def anchor(self, prefix: str) -> str:
        self._counter[prefix] += 1
        return f"{prefix}{self._counter[prefix]}"

    def add(self, record: dict[str, Any]) -> None:
        self._own = not self.inherited or record.get("_digest") not in self.inherited
        if self.main and record.get("isSidechain") is True:
            self._add_inline_sidechain(record)
            return
        before = len(self.items)
        kind = record.get("type")
        if kind == "assistant":
            self._assistant(record)
        elif kind == "user":
            self._user(record)
        elif kind == "system":
            self._system(record)
        if self.inherited and self._own:
            self.own.update(id(item) for item in self.items[before:])

    def _touch(self, item: TimelineItem) -> None:
        """An existing item the current record adds to: an own record keeps it whole."""
        if self.inherited and self._own:
            self.own.add(id(item))

    # assistant -------------------------------------------------------------

    def _assistant(self, record: dict[str, Any]) -> None:
        message = as_dict(record.get("message"))
        model = as_str(message.get("model")) or None
        blocks = content_blocks(message.get("content"))
        time = normalize_timestamp(record.get("timestamp"))
        if model == SYNTHETIC_MODEL:
            text = blocks_text(blocks)
            if text:
                kind = "error" if record.get("isApiErrorMessage") or record.get("error") else "notice"
                self.items.append(Marker(record["_key"], time, kind, text))
            return
        key = as_str(message.get("id")) or record["_key"]
        reply = self.replies.get(key)
        if reply is None:
            reply = Reply(key, self.anchor("r"), time, model, [], self.tally.replies.get(key, Usage()))
            reply.is_error = bool(record.get("isApiErrorMessage"))
            self.replies[key] = reply
            self.items.append(reply)
            if model and model not in self.models:
                self.models.append(model)
        self._touch(reply)
        recorded = recorded_cost(record.get("costUSD"))
        if recorded is not None and (reply.recorded_cost is None or recorded > reply.recorded_cost):
            reply.recorded_cost = recorded  # each record of a reply may say it: the largest, never a sum
        for block in blocks:
            self._reply_block(reply, block, time)

    def _reply_block(self, reply: Reply, block: dict[str, Any], time: str | None) -> None:
        kind = block.get("type")
        if kind == "text":
            self._add_unique(reply, Text(as_str(block.get("text"))))
        elif kind == "thinking":
            self._add_unique(reply, Thinking(as_str(block.get("thinking"))))
        elif kind == "redacted_thinking":
            self._add_unique(reply, Thinking("[thinking redacted by the API]"))
        elif kind in ("tool_use", "server_tool_use"):
            self._tool_use(reply, block, time)
        elif kind == "image":
            image = image_of(block)
            if image:
                reply.blocks.append(image)

    @staticmethod
    def _add_unique(reply: Reply, block: Text | Thinking) -> None:
        # Compaction and resume replays re-emit blocks under new uuids but the
        # same message.id: one reply must not show them twice.
        if not block.text.strip():
            return
        if any(type(b) is type(block) and b.text == block.text for b in reply.blocks):
            return
        reply.blocks.append(block)

    def _tool_use(self, reply: Reply, block: dict[str, Any], time: str | None) -> None:
        call_id = as_str(block.get("id"))
        if not call_id:
            return
        if call_id in self.calls:
            return
        call = ToolCall(call_id, as_str(block.get("name")) or "tool", block.get("input"), time)
        call.result = self.pending_results.pop(call_id, None)
        if self.pending_own.pop(call_id, False):
            self.own.add(id(reply))  # its result, written earlier, was the session's own
        self.calls[call_id] = call
        self.call_replies[call_id] = reply
        self.tally.tool_calls.add(call_id)
        reply.blocks.append(call)

    # user ----------------------------------------------------------------

    def _user(self, record: dict[str, Any]) -> None:
        message = as_dict(record.get("message"))
        blocks = content_blocks(message.get("content"))
        time = normalize_timestamp(record.get("timestamp"))
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for index, block in enumerate(results):
            detail = lean_detail(record.get("toolUseResult"), block.get("content")) if index == 0 else None
            self._tool_result(block, detail, time)
        rest = [b for b in blocks if b.get("type") != "tool_result"]
        if not rest:
            return
        text = blocks_text(rest)
        if record.get("isCompactSummary"):
            self._compact_summary(record["_key"], text, time)
        elif record.get("isMeta"):
            self.items.append(Marker(record["_key"], time, "meta", unwrap_note(text)))
        elif text.startswith(INTERRUPTION_PREFIX):
            self.items.append(Marker(record["_key"], time, "interruption", text))
        elif text.startswith(HARNESS_TAGS):
            self._harness_text(record, text, time)
        elif results or record.get("toolUseResult") is not None:
            # Text riding along with tool results (a reminder, a denial note).
            self.items.append(Marker(record["_key"], time, "meta", unwrap_note(text)))
        elif text == WARMUP_TEXT or (not text and not any(b.get("type") == "image" for b in rest)):
            self.items.append(Marker(record["_key"], time, "meta", text or "(empty message)"))
        else:
            self._prompt(record, rest, text, time)

    def _compact_summary(self, key: str, text: str, time: str | None) -> None:
        """A compaction's summary joins the marker its ``compact_boundary`` just made:
        one compaction, one marker, its first line the boundary's, the summary below
        (docs/formats-claude.md C10). A summary with no boundary before it is a marker alone."""
        last = self.items[-1] if self.items else None
        if isinstance(last, Marker) and last.type == "compaction" and last.id in self._boundaries:
            self._boundaries.discard(last.id)
            last.text = f"{last.text}\n\n{text}" if text else last.text
            self._touch(last)
            return
        self.items.append(Marker(key, time, "compaction", text))

    def _prompt(self, record: dict[str, Any], blocks: list[dict[str, Any]], text: str, time: str | None) -> None:
        content: list[Content] = []
        notes: list[str] = []  # harness text in blocks of its own: notes after the prompt, not its words
        for block in blocks:
            if block.get("type") == "text" and is_harness_block(as_str(block.get("text"))):
                notes.append(unwrap_note(as_str(block.get("text"))))
            elif block.get("type") == "text" and as_str(block.get("text")).strip():
                content.append(Text(as_str(block.get("text"))))
            elif block.get("type") == "image":
                image = image_of(block)
                if image:
                    content.append(image)
        prompt_id = as_str(record.get("promptId"))
        key = f"prompt:{prompt_id}" if prompt_id else record["_key"]
        if self.main:
            self.tally.prompts.add(key)
        existing = self.prompt_keys.get(key)
        if existing is not None and self.items and self.items[-1] is existing:
            existing.content.extend(content)  # one prompt written as several records
            self._touch(existing)
        else:
            prompt = Prompt(record["_key"], self.anchor("p"), time, content)
            self.prompt_keys[key] = prompt
            self.items.append(prompt)
            if not self.first_prompt_text and text:
                self.first_prompt_text = text
        for n, note in enumerate(notes, 1):
            self.items.append(Marker(f"{record['_key']}:note{n}", time, "meta", note))

    def _tool_result(self, block: dict[str, Any], detail: Any, time: str | None) -> None:
        call_id = as_str(block.get("tool_use_id"))
        if not call_id:
            return
        is_error = block.get("is_error") is True
        self.tally.tool_results.add(call_id)
        if is_error:
            self.tally.tool_errors.add(call_id)
        result = ToolResult(tool_result_content(block.get("content")), is_error, time, detail)
        agent = as_str(as_dict(detail).get("agentId")) or agent_id_in(result)
        if agent:
            self.agent_calls.setdefault(agent, call_id)
        call = self.calls.get(call_id)
        if call is None:
            # The result came before its call (or the call is in no file): keep it for later.
            self.pending_results.setdefault(call_id, result)
            if self.inherited and self._own:
                self.pending_own[call_id] = True
        else:
            self._touch(self.call_replies[call_id])
            if call.result is None:
                call.result = result

    def _harness_text(self, record: dict[str, Any], text: str, time: str | None) -> None:
        key = record["_key"]
        if "<command-name>" in text and text.startswith(("<command-name>", "<command-message>")):
            self._command(key, text, time)
        elif text.startswith(("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>")):
            self._command_output(key, text, time)
        elif text.startswith("<bash-input>"):
            # A shell command typed in bash mode (!cmd): shown, but neither a prompt
            # nor a slash command.
            self.items.append(Command(key, time, "!", tag_text(text, "bash-input")))
        else:
            kind = "notice" if text.startswith("<task-notification>") else "meta"
            self.items.append(Marker(key, time, kind, unwrap_note(text)))

    def _command(self, key: str, text: str, time: str | None) -> None:
        name = tag_text(text, "command-name") or tag_text(text, "command-message")
        self.items.append(Command(key, time, name.strip(), tag_text(text, "command-args").strip()))
        if self.main:
            self.tally.commands.add(key)

    def _command_output(self, key: str, text: str, time: str | None) -> None:
        output = "\n".join(
            part for tag in ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
            if (part := tag_text(text, tag).strip())
        )
        last = self.items[-1] if self.items else None
        if isinstance(last, Command) and not last.output:
            last.output = output
            self._touch(last)
        elif output:
            self.items.append(Marker(key, time, "notice", output))

    # system --------------------------------------------------------------

    def _system(self, record: dict[str, Any]) -> None:
        subtype = as_str(record.get("subtype"))
        key = record["_key"]
        time = normalize_timestamp(record.get("timestamp"))
        content = record.get("content")
        text = content if isinstance(content, str) else blocks_text(content_blocks(content))
        if subtype == "compact_boundary":
            self.items.append(Marker(key, time, "compaction", compaction_text(record)))
            self._boundaries.add(key)  # awaiting its summary (_compact_summary)
        elif subtype == "local_command":
            if "<command-name>" in text and text.lstrip().startswith(("<command-name>", "<command-message>")):
                self._command(key, text, time)
            else:
                self._command_output(key, text, time)
        elif subtype in ("api_error", "error", "api_refusal"):
            self.items.append(Marker(key, time, "error", text or error_text(record)))
        elif subtype in ("turn_duration", "stop_hook_summary", "session_start", "microcompact_boundary"):
            return  # bookkeeping, not conversation
        elif text:
            self.items.append(Marker(key, time, "notice", unwrap_note(text)))

    # inline sidechains (Claude Code 1.0.x kept sub-agent records in the main file)

    def _add_inline_sidechain(self, record: dict[str, Any]) -> None:
        if record.get("parentUuid") is None or not self.sidechains:
            self.sidechains.append([])
            self.sidechain_own.append(False)
        self.sidechains[-1].append(record)
        if self.inherited and self._own:
            self.sidechain_own[-1] = True


# --- sessions ------------------------------------------------------------------


@dataclass
class _Run:
    """A sub-agent run being read, with what can link it to its launching call."""

    run: SubagentRun
    tally: Tally
    links: dict[str, str] = field(default_factory=dict)  # agent id -> tool_use id
    prompt: str = ""  # inline sidechains: the Task prompt they answered
    own: bool = True  # inline sidechains: a record of it is the session's own (not inherited)


@dataclass
class ClaudeSource:
    """One session's files as discovered on disk."""

    main: Path
    subagents: list[Path] = field(default_factory=list)


def read_unit(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
    """The registry's reader: a Claude unit is one session, its main file first."""
    source = ClaudeSource(Path(unit.paths[0]), [Path(p) for p in unit.paths[1:]])
    return [read_claude_session(source, warn, labeller(unit), inherit)]


def read_claude_session(source: ClaudeSource, warn: WarnFn, label: LabelFn = str,
                        inherited: Inheritance | None = None) -> Session:
    """One session. With ``inherited`` (the history an earlier session file holds
    too: inherit.py), the timeline items made only of inherited records are left
    out (``Session.inherited_items``), each run of them shown as one ``inherited``
    marker naming that session; what is counted does not change."""
    warnings: list[InputWarning] = []

    def note(warning: InputWarning) -> None:
        warnings.append(warning)
        warn(warning)

    tally = Tally()
    records = inherited.records if inherited else frozenset()
    found = collect_records(source.main, label(source.main), note, tally, digests=bool(records))
    timeline = _Timeline(tally, main=True, inherited=records)
    for record in found.records:
        timeline.add(record)
    runs = [_read_subagent(path, label(path), note) for path in source.subagents]
    inline = [_inline_run(records, index, tally) for index, records in enumerate(timeline.sidechains)]
    for part, own in zip(inline, timeline.sidechain_own):
        part.own = own
    orphans = _attach_subagents(timeline, runs + inline, found.agent_links)
    for part in runs + inline:
        # Inline sidechains' records and replies are already the session's; merging
        # adds their tool calls and results (sets, so nothing counts twice).
        tally.merge(part.tally, prompts_and_commands=False)
    tally.subagents.update(part.run.file for part in runs)
    for pending_id, result in timeline.pending_results.items():
        # Its call is lost (a bad line, a missing file), but the output is still shown.
        shown = "\n".join(b.text for b in result.content if isinstance(b, Text)).strip()
        notice = "A tool result whose call is not in the transcript."
        timeline.items.append(Marker(f"result:{pending_id}", result.timestamp, "notice",
                                     f"{notice}\n\n{shown}" if shown else notice))
        if timeline.pending_own.get(pending_id):
            timeline.own.add(id(timeline.items[-1]))
    items, left_out = timeline.items, []
    if records:
        _keep_own_runs(timeline, inline)
        items, left_out = _leave_out_inherited(timeline, inherited.parent)
    models = list(timeline.models)
    for part in runs + inline:
        models.extend(m for m in part.run.models if m not in models)
    session = Session(
        id=printable_name(source.main.stem),
        source=SOURCE_CLAUDE,
        cwd=found.cwd,
        title=_title(found, timeline),
        started=found.first_time,
        ended=found.last_time,
        versions=found.versions,
        models=models,
        git_branch=found.git_branch,
        files=[label(source.main)] + [label(p) for p in source.subagents],
        timeline=items,
        stats=tally.stats(),
        warnings=warnings,
        orphan_subagents=orphans,
        inherited_items=left_out,
    )
    session.tally = tally
    return session


def _keep_own_runs(timeline: _Timeline, inline: list[_Run]) -> None:
    """A reply whose call launched an inline sidechain holding an own record is kept whole."""
    owned = {id(part.run) for part in inline if part.own}
    for call_id, call in timeline.calls.items():
        if call.subagent is not None and id(call.subagent) in owned:
            timeline.own.add(id(timeline.call_replies[call_id]))


def _leave_out_inherited(timeline: _Timeline, parent: str) -> tuple[list[TimelineItem], list[TimelineItem]]:
    """The items to show, each maximal run of items made only of inherited records
    replaced by one marker naming the session that holds them, and the items left
    out (the sub-agent runs under their calls go with them)."""
    shown: list[TimelineItem] = []
    left_out: list[TimelineItem] = []
    run: list[TimelineItem] = []
    for item in timeline.items:
        if id(item) not in timeline.own:
            run.append(item)
            continue
        if run:
            shown.append(_inherited_marker(run, parent))
            left_out += run
            run = []
        shown.append(item)
    if run:
        shown.append(_inherited_marker(run, parent))
        left_out += run
    return shown, left_out


def _inherited_marker(run: list[TimelineItem], parent: str) -> Marker:
    first = run[0]
    count = len(run)
    items = "item" if count == 1 else "items"
    return Marker(f"inherited:{first.id}", first.timestamp, "inherited",
                  f"{count} {items} of history inherited from session {parent}", ref_session=parent, count=count)


def _title(found: Collected, timeline: _Timeline) -> str:
    """The session's title (docs/formats-claude.md C12): the agent's own (the user's
    /rename, the AI title, a summary of this file's conversation), else the first
    prompt, the first slash command with its arguments, the first reply's first
    sentence; else when it started. Never the id alone."""
    for candidate in (found.custom_title, found.ai_title, _own_summary(found), timeline.first_prompt_text,
                      first_command(timeline.items), first_reply_sentence(timeline.items)):
        line = first_line(candidate)
        if line:
            return line
    return untitled(found.first_time)


def _own_summary(found: Collected) -> str:
    """The first summary whose leaf is a record of this file (or that names no leaf)."""
    own = {record["_key"] for record in found.records}
    for leaf, text in found.summaries:
        if not leaf or leaf in own:
            return text
    return ""


def _first_user_text(records: list[dict[str, Any]]) -> str:
    first = next((r for r in records if r.get("type") == "user"), None)
    return blocks_text(content_blocks(as_dict(first.get("message")).get("content"))) if first else ""


def _read_subagent(path: Path, label: str, warn: WarnFn) -> _Run:
    tally = Tally()
    found = collect_records(path, label, warn, tally)
    timeline = _Timeline(tally, main=False)
    for record in found.records:
        timeline.add(record)
    meta = _agent_meta(path)
    agent_id = found.agent_id or printable_name(path.stem.removeprefix("agent-"))
    run = SubagentRun(
        agent_id=agent_id,
        # The compaction call is logged as an agent "acompact-<hex>" (docs/formats-claude.md C10).
        agent_type=as_str(meta.get("agentType")) or ("compaction" if agent_id.startswith("acompact") else None),
        description=as_str(meta.get("description")) or None,
        file=label,
        timeline=timeline.items,
        stats=tally.stats(),
        models=timeline.models,
    )
    links = dict(found.agent_links)
    if isinstance(meta.get("toolUseId"), str):
        links[agent_id] = meta["toolUseId"]
    # 2.0.x Task results carry no agentId: the agent's first prompt is the Task prompt.
    return _Run(run, tally, links, prompt=_first_user_text(found.records))


def _inline_run(records: list[dict[str, Any]], index: int, tally: Tally) -> _Run:
    """A 1.0.x sidechain kept inline in the main file: its records already count
    for the session (they are in the session's tally); it only needs a timeline."""
    view = Tally()
    timeline = _Timeline(view, main=False)
    for record in records:
        timeline.add(record)
        message = as_dict(record.get("message"))
        if record.get("type") == "assistant" and as_str(message.get("model")) != SYNTHETIC_MODEL:
            key = as_str(message.get("id")) or record["_key"]
            view.add_reply(key, tally.replies.get(key, usage_of(message)))
        view.records.add(record["_key"])
    run = SubagentRun(
        agent_id=f"sidechain-{index + 1}",
        agent_type=None,
        description=None,
        file="(inline)",
        timeline=timeline.items,
        stats=view.stats(),
        models=timeline.models,
    )
    return _Run(run, view, prompt=_first_user_text(records))


def _agent_meta(path: Path) -> dict[str, Any]:
    meta_path = path.with_name(path.stem + ".meta.json")
    try:
        if meta_path.is_file() and meta_path.stat().st_size < 1_000_000:
            return as_dict(orjson.loads(meta_path.read_bytes()))
    except (OSError, orjson.JSONDecodeError):
        pass
    return {}


def _attach_subagents(timeline: _Timeline, runs: list[_Run], progress_links: dict[str, str]) -> list[SubagentRun]:
    """Nest each sub-agent run under the call that launched it, where that can be
    told: the Task result's agentId, agent_progress records, the meta.json sidecar,
    or (1.0.x inline sidechains) the Task prompt text. The rest are returned."""
    links = {**progress_links, **timeline.agent_calls}
    by_prompt = {
        as_str(as_dict(call.input).get("prompt")).strip(): call
        for call in timeline.calls.values()
        if call.name in ("Task", "Agent")
    }
    orphans: list[SubagentRun] = []
    for part in runs:
        run = part.run
        call_id = links.get(run.agent_id) or part.links.get(run.agent_id)
        if call_id:
            call = timeline.calls.get(call_id)
        else:
            call = by_prompt.get(part.prompt.strip()) if part.prompt.strip() else None
        if call is not None and call.subagent is None:
            call.subagent = run
            if not run.description:
                run.description = as_str(as_dict(call.input).get("description")) or None
            if not run.agent_type:
                run.agent_type = as_str(as_dict(call.input).get("subagent_type")) or None
        else:
            orphans.append(run)
    return orphans
