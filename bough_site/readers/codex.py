"""Codex CLI rollouts -> model.

A rollout is one thread's JSONL file. Forks and sub-agent spawns start their
file with a copy of the parent's history, so files must be read together.
Reading takes four steps:

1. ``_scan`` reads each file once for what links files together: its identity
   (the first ``session_meta``), a digest of every line's ``(type, payload)``
   (timestamps left out: copies carry rewritten ones), ordinals and counts.
2. ``_plan`` decides, for a fork or sub-agent, how many lines after its identity
   are history copied from its parent: by matching them against the parent's
   lines; if the parent is not among the inputs, by ordinals or, failing that,
   by the leading burst of copied lines (with a InputWarning either way).
3. ``_ThreadReader`` reads each file again: copied lines only move the token
   baseline and the current model; the thread's own lines become the timeline
   and the Tally.
4. Sub-agent threads are nested under their parent's spawning call (their
   counts added to the parent session's, like Claude sub-agents); sessions come
   out sorted.

The rules, with the evidence for each, are in docs/formats-codex.md and
docs/stats.md.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from ..inherit import Inheritance
from ..model import (
    SOURCE_CODEX,
    Content,
    Image,
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
from .lines import JsonlFile, open_regular, parse_line
from .reader import LabelFn, UnitFiles, WarnFn, labeller
from .values import (
    BAD_TIME,
    UNKNOWN_TOKENS,
    any_unknown,
    as_dict,
    as_int,
    as_str,
    bad_timestamp,
    first_reply_sentence,
    normalize_timestamp,
    one_line,
    untitled,
)


# Rollout line types of the envelope era (docs/formats-codex.md X3); anything else is ignored.
ENVELOPE_TYPES = frozenset({
    "session_meta", "response_item", "event_msg", "turn_context", "compacted",
    "inter_agent_communication", "inter_agent_communication_metadata", "world_state",
    "token_usage_record", "security_risk_score", "realtime_item",
})
# Bare ResponseItem shapes of the pre-envelope era (docs/formats-codex.md X2).
RESPONSE_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
    "tool_search_output", "image_generation_call", "agent_message", "compaction",
    "compaction_summary", "context_compaction", "ghost_snapshot", "other",
})
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
SHELL_TOOLS = frozenset({"shell", "exec_command", "local_shell", "container.exec", "shell_command", "unified_exec"})
_PEEK_LINES = 5
_PEEK_BYTES = 4 << 20
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BOM = b"\xef\xbb\xbf"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

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
# Multi-agent v2 sends task text as Fernet ciphertext (openai/codex #26210).
_FERNET = re.compile(r"gAAAAA[A-Za-z0-9_\-]{40,}={0,2}")
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.M)
_ENVELOPE_FIELD = re.compile(r"^(Message Type|Task name|Sender):\s*(.*)$", re.M)
_DATA_URL = re.compile(r"data:(image/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)")


# --- small, defensive accessors ----------------------------------------------


def is_fernet(text: str) -> bool:
    return bool(_FERNET.fullmatch(text.strip()))


# --- detection and discovery -----------------------------------------------------


def is_codex_rollout(path: Path) -> bool:
    """True when the first non-blank lines look like a Codex rollout: an envelope
    line (``{timestamp, type, payload}``), an intermediate ``record_type`` line,
    or a legacy bare meta first line ``{id, timestamp}``. Decided by content."""
    if path.name.endswith(".jsonl.zst"):
        return _starts_with(path, _ZSTD_MAGIC)
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return False
    with handle:
        seen = 0
        while seen < _PEEK_LINES:
            raw = handle.readline(_PEEK_BYTES)
            if not raw:
                break
            raw = raw.removeprefix(_BOM)
            if not raw.strip():
                continue
            seen += 1
            obj, _ = parse_line(raw)
            if obj is not None and _looks_like_rollout_line(obj, first=seen == 1):
                return True
    return False


def _looks_like_rollout_line(obj: dict[str, Any], *, first: bool) -> bool:
    if as_str(obj.get("type")) in ENVELOPE_TYPES and isinstance(obj.get("payload"), dict):
        return True
    if isinstance(obj.get("record_type"), str) and "timestamp" in obj:
        return True
    return first and _is_legacy_meta(obj)


def _is_legacy_meta(obj: dict[str, Any]) -> bool:
    # Claude lines always carry ``type``; their usage-only lines carry ``message``.
    return (
        isinstance(obj.get("id"), str)
        and "timestamp" in obj
        and not any(key in obj for key in ("type", "payload", "message", "sessionId", "uuid"))
    )


def _starts_with(path: Path, magic: bytes) -> bool:
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return False
    with handle:
        return handle.read(len(magic)) == magic


def find_rollouts(root: Path) -> list[Path]:
    """Every ``*.jsonl`` (and ``*.jsonl.zst``, which the reader reports as
    skipped) under a Codex sessions directory, dated or flat; regular files only
    (no symlinks, FIFOs or devices), sorted."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in files:
            if not (name.endswith(".jsonl") or name.endswith(".jsonl.zst")):
                continue
            path = Path(folder) / name
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                found.append(path)
    return sorted(found)


# --- step 1: scan each file ----------------------------------------------------


class _Line(NamedTuple):
    """What step 1 keeps of one parsed line (the payload itself is read again later)."""

    number: int
    kind: str  # envelope type, legacy lines mapped onto it; "" when unknown
    sub: str  # payload ``type`` (event and item kind)
    digest: bytes | None  # of (kind, payload): how copies are recognised
    ordinal: int | None
    second: str | None  # envelope timestamp to the second
    token_info: bool  # a token_count carrying totals


@dataclass
class _Scan:
    path: Path
    label: str
    id: str
    meta: dict[str, Any]
    meta_index: int  # index in ``lines`` of the identity line; -1 when none
    lines: list[_Line]
    line_count: int
    skipped: int
    size: int
    warnings: list[InputWarning]
    archived: bool

    def own_start(self) -> int:
        return self.meta_index + 1


def _normalize(obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(type, payload)`` for every era: envelope, intermediate ``record_type``
    lines, and the legacy bare meta and bare ResponseItem lines. Unknown shapes
    give ``("", {})`` and are ignored."""
    kind = obj.get("type")
    payload = obj.get("payload")
    if isinstance(kind, str) and isinstance(payload, dict):
        return kind, payload
    record_type = obj.get("record_type")
    if isinstance(record_type, str):
        flat = {k: v for k, v in obj.items() if k not in ("record_type", "timestamp")}
        mapped = {"session_meta": "session_meta", "response": "response_item", "event": "event_msg"}
        return mapped.get(record_type, ""), flat
    if _is_legacy_meta(obj):
        return "session_meta", obj
    if as_str(kind) in RESPONSE_TYPES and payload is None:
        return "response_item", obj
    return "", {}


def _digest(kind: str, payload: dict[str, Any]) -> bytes | None:
    try:
        raw = orjson.dumps([kind, payload], option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None  # e.g. an integer beyond 64 bits: such a line matches nothing
    return hashlib.blake2b(raw, digest_size=16).digest()


def _scan(path: Path, label: str, warn: WarnFn) -> _Scan | None:
    warnings: list[InputWarning] = []

    def note(warning: InputWarning) -> None:
        warnings.append(warning)
        warn(warning)

    reader = JsonlFile(path, label, note)
    lines: list[_Line] = []
    meta: dict[str, Any] = {}
    meta_index = -1
    known = False
    for number, obj in reader:
        kind, payload = _normalize(obj)
        known = known or bool(kind)
        if kind == "session_meta" and meta_index < 0:
            meta, meta_index = payload, len(lines)
        ordinal = obj.get("ordinal")
        stamp = obj.get("timestamp")
        if bad_timestamp(stamp):
            note(InputWarning(label, number, BAD_TIME))
        if kind and _unknown_counts(kind, payload):
            note(InputWarning(label, number, UNKNOWN_TOKENS))
        info = payload.get("info") if kind == "event_msg" else None
        lines.append(_Line(
            number,
            kind,
            as_str(payload.get("type")),
            _digest(kind, payload) if kind else None,
            ordinal if isinstance(ordinal, int) and not isinstance(ordinal, bool) else None,
            stamp[:19] if isinstance(stamp, str) else None,
            isinstance(info, dict),
        ))
    if not lines or not known:
        if lines:
            note(InputWarning(label, 0, "not a Codex rollout (no session_meta, response_item or event_msg line), skipped"))
        return None
    return _Scan(
        path, label, _thread_id(meta, path), meta, meta_index, lines,
        reader.lines, reader.skipped, reader.size, warnings, "archived_sessions" in path.parts,
    )


def rollout_identity(objects: Iterable[dict[str, Any]], path: Path) -> tuple[str, str | None, str | None, str]:
    """From a rollout's first lines (its identity line): its thread id, the thread it
    nests under when it is a sub-agent (None for a session of its own, a fork
    included: docs/formats-codex.md X10), when it started, and its cwd. What
    ``bough archive`` counts by, as the reader would (archive.Archive.summary)."""
    meta: dict[str, Any] = {}
    first_time: str | None = None
    for obj in objects:
        kind, payload = _normalize(obj)
        first_time = first_time or normalize_timestamp(obj.get("timestamp"))
        if kind == "session_meta":
            meta = payload
            break
    thread = _thread_id(meta, path)
    lineage = _lineage_of(meta, thread)
    started = normalize_timestamp(meta.get("timestamp")) or first_time
    return thread, lineage.parent if lineage.kind == "subagent" else None, started, as_str(meta.get("cwd"))


def thread_id_of(path: Path) -> str:
    """A rollout's thread id as its file name tells it (when its lines cannot be read)."""
    return _thread_id({}, path)


def _thread_id(meta: dict[str, Any], path: Path) -> str:
    """The identity line's ``id``; else the UUID in the file name (Codex names
    rollouts ``rollout-<time>-<uuid>.jsonl``); else the file name itself."""
    value = as_str(meta.get("id")).strip()
    if value:
        return value
    found = _UUID.findall(path.name)
    return found[-1] if found else path.name.removesuffix(".jsonl")


# --- step 2: lineage and the copied prefix ----------------------------------------


@dataclass
class _Lineage:
    kind: str  # "root" | "fork" | "subagent"
    parent: str | None  # fork: forked from; sub-agent: the thread that spawned it
    copied_from: str | None  # the thread whose history starts this file
    spawn: dict[str, Any] = field(default_factory=dict)  # source.subagent.thread_spawn
    role: str | None = None


def _lineage(scan: _Scan) -> _Lineage:
    return _lineage_of(scan.meta, scan.id)


def _lineage_of(meta: dict[str, Any], thread_id: str) -> _Lineage:
    source = meta.get("source")
    subagent = source.get("subagent") if isinstance(source, dict) else None
    spawn = as_dict(subagent.get("thread_spawn")) if isinstance(subagent, dict) else {}
    parent_thread = as_str(meta.get("parent_thread_id")) or as_str(spawn.get("parent_thread_id"))
    forked = as_str(meta.get("forked_from_id"))
    session = as_str(meta.get("session_id"))
    other_session = session if session and session != thread_id else ""
    role = as_str(spawn.get("agent_role")) or as_str(meta.get("agent_role")) or _subagent_kind(subagent)
    is_subagent = subagent is not None or meta.get("thread_source") == "subagent"
    if is_subagent or (parent_thread and not forked):
        parent = parent_thread or forked or other_session
        if parent and parent != thread_id:
            return _Lineage("subagent", parent, forked or parent, spawn, role or None)
    if forked and forked != thread_id:
        return _Lineage("fork", forked, forked)
    if other_session:
        # A sub-agent carries its root's session_id and its own id (docs/formats-codex.md X4).
        return _Lineage("subagent", other_session, other_session, spawn, role or None)
    return _Lineage("root", None, None)


def _subagent_kind(subagent: Any) -> str:
    if isinstance(subagent, str):
        return subagent  # "review", "compact", "memory_consolidation"
    if isinstance(subagent, dict) and subagent and "thread_spawn" not in subagent:
        return str(next(iter(subagent)))
    return ""


@dataclass
class _Plan:
    lineage: _Lineage
    inherited: int = 0  # lines after the identity line that were copied from the parent
    warning: str = ""


def _plan(scan: _Scan, scans: dict[str, _Scan]) -> _Plan:
    lineage = _lineage(scan)
    plan = _Plan(lineage)
    source_id = lineage.copied_from
    if lineage.kind == "root" or not source_id:
        return plan
    own = scan.lines[scan.own_start():]
    parent = scans.get(source_id)
    if parent is not None:
        plan.inherited = _matching_prefix(own, parent.lines)
        return plan
    count, how = _ordinal_prefix(own, scan.meta), "by ordinals"
    if not count:
        count, how = _burst_prefix(own), "from the leading burst of copied lines and their token totals"
    plan.inherited = count
    if count:
        plan.warning = (
            f"parent session {source_id} is not among the inputs; "
            f"its copied history ({count} lines) was told apart {how}"
        )
    else:
        plan.warning = f"parent session {source_id} is not among the inputs; no copied history could be told apart"
    return plan


def _matching_prefix(child: list[_Line], parent: list[_Line]) -> int:
    """The longest run at the start of ``child`` equal, line for line, to a
    contiguous run of ``parent`` (by type and payload, never by timestamp).
    One line is enough when the run holds the parent's ``session_meta``."""
    if not child or child[0].digest is None:
        return 0
    best = 0
    for start, line in enumerate(parent):
        if line.digest != child[0].digest:
            continue
        length = 0
        while (
            length < len(child)
            and start + length < len(parent)
            and child[length].digest is not None
            and child[length].digest == parent[start + length].digest
        ):
            length += 1
        strong = length >= 2 or any(l.kind == "session_meta" for l in child[:length])
        if strong and length > best:
            best = length
    return best


def _ordinal_prefix(own: list[_Line], meta: dict[str, Any]) -> int:
    """Lines whose ``ordinal`` is below the recorded start of the thread's own
    history were copied (docs/formats-codex.md X9)."""
    spawn = as_dict(as_dict(as_dict(meta.get("source")).get("subagent")).get("thread_spawn"))
    start = None
    for holder in (meta, spawn):
        for key in ("subagent_history_start_ordinal", "forked_from_ordinal_exclusive"):
            value = holder.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                start = value
                break
        if start is not None:
            break
    if start is None:
        return 0
    last = -1
    for index, line in enumerate(own):
        if line.ordinal is not None and line.ordinal < start:
            last = index
    return last + 1


def _burst_prefix(own: list[_Line]) -> int:
    """Copied history is written in one burst, all stamped alike, token_count
    lines included (docs/formats-codex.md X9). Taken only when the burst holds copied
    evidence: a parent's session_meta or cumulative token totals."""
    if not own or own[0].second is None:
        return 0
    length = 0
    while length < len(own) and own[length].second == own[0].second:
        length += 1
    burst = own[:length]
    if any(l.kind == "session_meta" or (l.sub == "token_count" and l.token_info) for l in burst):
        return length
    return 0


# --- tokens ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Counts:
    """One TokenUsage: cached and cache writes are parts of input, reasoning of output."""

    input: int = 0
    cached: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0
    total: int = 0
    unknown: bool = False  # a count there was not one (values.as_count)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> _Counts:
        details_in = as_dict(raw.get("input_tokens_details"))
        details_out = as_dict(raw.get("output_tokens_details"))
        given = [raw.get(name) for name in _COUNT_FIELDS] + [details_in.get("cached_tokens"),
                                                             details_out.get("reasoning_tokens")]
        input_, output = as_int(raw.get("input_tokens")), as_int(raw.get("output_tokens"))
        return cls(
            input_,
            as_int(raw.get("cached_input_tokens")) or as_int(details_in.get("cached_tokens")),
            as_int(raw.get("cache_write_input_tokens")),
            output,
            as_int(raw.get("reasoning_output_tokens")) or as_int(details_out.get("reasoning_tokens")),
            input_ + output or as_int(raw.get("total_tokens")),
            any_unknown(*given),
        )

    def minus(self, other: _Counts) -> _Counts:
        return _Counts(*(max(0, a - b) for a, b in zip(self._values(), other._values())), self.unknown)

    def _values(self) -> tuple[int, ...]:
        return (self.input, self.cached, self.cache_write, self.output, self.reasoning, self.total)

    def usage(self) -> Usage:
        # Fresh input excludes what was read from or written to the cache, so the
        # four Claude-style fields add up to what was sent (docs/formats-codex.md X8).
        return Usage(
            input_tokens=max(0, self.input - self.cached - self.cache_write),
            output_tokens=self.output,
            cache_creation_input_tokens=self.cache_write,
            cache_read_input_tokens=self.cached,
            reasoning_output_tokens=self.reasoning,
            unknown=self.unknown,
        )


_COUNT_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens",
                 "reasoning_output_tokens", "total_tokens")


def _unknown_counts(kind: str, payload: dict[str, Any]) -> bool:
    """Whether a line's token counts hold a value that is not a count (the scan says so at its line)."""
    if kind == "event_msg" and payload.get("type") == "token_count":
        info = as_dict(payload.get("info"))
        return any(_Counts.of(as_dict(info.get(name))).unknown for name in ("total_token_usage", "last_token_usage"))
    if kind == "token_usage_record":
        return _Counts.of(as_dict(payload.get("usage")) or as_dict(payload.get("last_token_usage"))).unknown
    return False


class _TokenMeter:
    """Cumulative ``total_token_usage`` snapshots in; one delta per model call out.

    A snapshot whose total did not move is a re-emit (about half of all
    token_count events, docs/formats-codex.md X8) and gives nothing. A total that went down
    means the counter restarted, so the delta is taken from zero."""

    def __init__(self) -> None:
        self.last = _Counts()
        self._last_call: Any = None

    def feed(self, info: dict[str, Any]) -> Usage | None:
        total = info.get("total_token_usage")
        if isinstance(total, dict):
            now = _Counts.of(total)
            if now.unknown:
                return None  # a total that cannot be read: the next one's delta counts this call too
            if now.total < self.last.total:
                self.last = _Counts()
            if now.total <= self.last.total:
                return None
            delta, self.last = now.minus(self.last), now
            return delta.usage()
        # No cumulative totals: the per-call figure, skipping identical repeats.
        call = info.get("last_token_usage")
        if not isinstance(call, dict) or call == self._last_call:
            return None
        self._last_call = call
        counts = _Counts.of(call)
        return counts.usage() if counts.total else None


# --- step 3: one thread's own lines -> timeline and tally ------------------------------


def typed_text(text: str) -> str:
    """What a person typed in a role-"user" text: injected context blocks
    (environment, AGENTS.md, user instructions, shell-command echoes...) cut out
    by their own tags, image wrapper tags dropped."""
    for pattern in _INJECTED_BLOCKS:
        text = pattern.sub("", text)
    text = _AGENTS_MD.sub("", text)
    text = _INJECTED_OPEN.sub("", text)
    return _IMAGE_TAG.sub("", text).strip()


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        return []
    return [p if isinstance(p, dict) else {"type": "text", "text": p} for p in content if isinstance(p, (dict, str))]


def _image(url: Any) -> Image | None:
    match = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
    return Image(media_type=match.group(1), data=match.group(2)) if match else None


@dataclass
class _Thread:
    """One rollout read into the model's pieces, before sessions are assembled."""

    scan: _Scan
    plan: _Plan
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


class _ThreadReader:
    """Reads one rollout's lines in order. Copied (inherited) lines only set the
    token baseline and the current model; own lines build the timeline and tally."""

    def __init__(self, scan: _Scan, plan: _Plan, titles: dict[str, str]):
        self.scan, self.plan = scan, plan
        self.tid = scan.id
        self.tally = Tally(has_reasoning=True)
        self.items: list[TimelineItem] = []
        self.reply: Reply | None = None
        self.calls: dict[str, ToolCall] = {}
        self.pending: dict[str, ToolResult] = {}
        self.event_errors: set[str] = set()
        self.meter = _TokenMeter()
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

    def read(self) -> _Thread:
        start, end = self.scan.own_start(), self.scan.own_start() + self.plan.inherited
        reader = JsonlFile(self.scan.path, self.scan.label, lambda warning: None, max_bytes=self.scan.size)
        for index, (number, obj) in enumerate(reader):
            kind, payload = _normalize(obj)
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
            self._marker(key, stamp, "notice", _inter_agent_text(_parts(payload.get("content")), payload))
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
            self._marker(key, stamp, "notice", _inter_agent_text(_parts(payload.get("content")), payload))
        elif kind == "image_generation_call":
            image = _image("data:image/png;base64," + as_str(payload.get("result"))) if payload.get("result") else None
            if image:
                self._open_reply(key, stamp).blocks.append(image)

    def _message(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        role = payload.get("role")
        parts = _parts(payload.get("content"))
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
                    image = _image(part.get("image_url"))
                    if image:
                        content.append(image)
            if content:
                self._prompt(key, stamp, content)
        # role user in event-era files is the user_message's mirror; developer and
        # system messages are instructions: neither is shown.

    def _reasoning(self, key: str, payload: dict[str, Any], stamp: str | None) -> None:
        # The summary only; encrypted_content is never read.
        text = "\n\n".join(t for p in _parts(payload.get("summary")) if (t := as_str(p.get("text")).strip()))
        if not text:
            text = "\n\n".join(t for p in _parts(payload.get("content")) if (t := as_str(p.get("text")).strip()))
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
        elif kind == "exec_command_end" and call_id and _exit_code(payload.get("exit_code")) not in (None, 0):
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
            image = _image(url)
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
        self._reply_done(f"codex:{self.tid}:response:{response}", _Counts.of(raw).usage())

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
        counters = {"p": 0, "r": 0}
        for item in self.items:
            if isinstance(item, (Prompt, Reply)):
                prefix = "p" if isinstance(item, Prompt) else "r"
                counters[prefix] += 1
                item.anchor = f"{prefix}{counters[prefix]}"
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

    def _result(self) -> _Thread:
        meta = self.scan.meta
        return _Thread(
            self.scan, self.plan, self.items, self.tally, self.models, self.calls,
            self.spawn_links, self.spawn_tasks, self.output_texts, self.first_prompt,
            self.thread_name, self.times[0] if self.times else normalize_timestamp(meta.get("timestamp")),
            self.times[-1] if self.times else normalize_timestamp(meta.get("timestamp")),
            as_str(meta.get("cwd")) or self.cwd,
        )


# --- tool calls and results ----------------------------------------------------------


def tool_call_input(payload: dict[str, Any]) -> tuple[str, Any]:
    """``(name, input)`` for any call item. Shell calls become
    ``{"command": "<one string>", "workdir": ...}``, patches ``{"patch": body}``,
    web searches ``{"query": ...}``; other arguments are parsed JSON, or the raw
    string when they are not JSON. Fernet ciphertext is never passed on."""
    kind = as_str(payload.get("type"))
    if kind == "web_search_call":
        return "web_search", _web_search_input(as_dict(payload.get("action")))
    if kind == "local_shell_call":
        action = as_dict(payload.get("action"))
        args = {"command": action.get("command"), "workdir": action.get("working_directory")}
        return _shell_input("local_shell", args)
    if kind == "tool_search_call":
        return "tool_search", _parse_json(payload.get("arguments"))
    name = as_str(payload.get("name")) or ("custom_tool" if kind == "custom_tool_call" else "function")
    raw = payload.get("input") if kind == "custom_tool_call" else payload.get("arguments")
    if name == "apply_patch":
        return "apply_patch", {"patch": _patch_body(raw)}
    value = _parse_json(raw)
    if name in SHELL_TOOLS and isinstance(value, dict):
        return _shell_input(name, value)
    return name, _without_ciphertext(value)


def _parse_json(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw


def _patch_body(raw: Any) -> str:
    value = _parse_json(raw)
    if isinstance(value, dict):
        return as_str(value.get("input")) or as_str(value.get("patch"))
    return raw if isinstance(raw, str) else ""


def _shell_input(name: str, args: dict[str, Any]) -> tuple[str, Any]:
    command = args.get("command", args.get("cmd"))
    script = _command_string(command)
    # Older Codex ran apply_patch through the shell (["apply_patch", body] or a heredoc).
    if isinstance(command, list) and command[:1] in (["apply_patch"], ["applypatch"]) and len(command) == 2:
        return "apply_patch", {"patch": as_str(command[1])}
    if script.lstrip().startswith("apply_patch") and "*** Begin Patch" in script:
        body = script[script.index("*** Begin Patch"):]
        end = body.find("*** End Patch")
        return "apply_patch", {"patch": body[: end + len("*** End Patch")] if end >= 0 else body}
    out: dict[str, Any] = {"command": script}
    workdir = args.get("workdir") or args.get("cwd") or args.get("working_directory")
    if isinstance(workdir, str) and workdir:
        out["workdir"] = workdir
    return name, out


def _command_string(command: Any) -> str:
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
        return "" if command is None else str(command)
    if len(command) == 3 and command[1] in ("-c", "-lc", "-lic", "-ic") and command[0].rsplit("/", 1)[-1] in (
        "bash", "sh", "zsh", "dash", "fish",
    ):
        return command[2]
    return shlex.join(command)


def _web_search_input(action: dict[str, Any]) -> dict[str, Any]:
    queries = action.get("queries")
    query = as_str(action.get("query")) or (as_str(queries[0]) if isinstance(queries, list) and queries else "")
    out: dict[str, Any] = {"query": query}
    for key in ("url", "pattern"):
        if as_str(action.get(key)):
            out[key] = action[key]
    return out


def _without_ciphertext(value: Any) -> Any:
    """Multi-agent v2 tool arguments carry the task as Fernet ciphertext: shown
    as the task name instead, never as text."""
    if not isinstance(value, dict):
        return value
    task = as_str(value.get("task_name"))
    return {
        key: (f"[encrypted message for task {task}]" if task else "[encrypted message]")
        if isinstance(item, str) and is_fernet(item) else item
        for key, item in value.items()
    }


def tool_result(payload: dict[str, Any], stamp: str | None) -> ToolResult:
    """A call's output: a string, a list of content items, or (old exec tools)
    JSON inside the string with ``metadata.exit_code``. A non-zero exit code or
    a reported failure makes it an error."""
    output = payload.get("output")
    if payload.get("type") == "tool_search_output":
        tools = payload.get("tools")
        names = [as_str(t.get("name")) for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
        return ToolResult([Text(", ".join(n for n in names if n) or "(no tools)")], False, stamp)
    detail: Any = None
    content: list[Content] = []
    exit_code: int | None = None
    parsed = _parse_json(output) if isinstance(output, str) and output.lstrip().startswith("{") else None
    if isinstance(parsed, dict) and "output" in parsed:
        detail = parsed.get("metadata")
        content.append(Text(as_str(parsed.get("output"))))
        exit_code = _exit_code(as_dict(detail).get("exit_code"))
    elif isinstance(output, str):
        content.append(Text(output))
    else:
        for part in _parts(output):
            image = _image(part.get("image_url")) if part.get("type") == "input_image" else None
            if image:
                content.append(image)
            elif as_str(part.get("text")):
                content.append(Text(part["text"]))
    if exit_code is None:
        exit_code = _exit_code_in(content)
    failed = payload.get("success") is False or payload.get("status") in ("failed", "error")
    return ToolResult(content, failed or bool(exit_code), stamp, detail)


def _exit_code(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _exit_code_in(content: list[Content]) -> int | None:
    """The exit code Codex writes at the head of a shell output (``Exit code: N``,
    or ``Process exited with code N`` after the chunk and wall-time lines).
    Only the head is read: a log further down may mention other exit codes."""
    for part in content:
        if isinstance(part, Text):
            match = _EXIT_CODE.search("\n".join(part.text[:2000].split("\n", 5)[:5]))
            if match:
                return int(match.group(1))
            parsed = _parse_json(part.text) if part.text.lstrip().startswith("{") else None
            if isinstance(parsed, dict) and _exit_code(parsed.get("exit_code")) is not None:
                return parsed["exit_code"]
    return None


def _inter_agent_text(parts: list[dict[str, Any]], payload: dict[str, Any]) -> str:
    """An inter-agent message: its plaintext envelope, or, when the payload is
    ciphertext, the envelope's task name instead (never the ciphertext)."""
    encrypted = False
    texts = []
    for part in parts:
        text = as_str(part.get("text"))
        if part.get("type") == "encrypted_content" or is_fernet(text):
            encrypted = True
        elif text.strip():
            texts.append(text)
    text = "\n".join(texts).strip()
    envelope = dict(_ENVELOPE_FIELD.findall(text))
    head, sep, body = text.partition("Payload:")
    if sep and is_fernet(body):
        encrypted, text = True, head.strip()
    if not encrypted:
        return text or "(empty inter-agent message)"
    task = envelope.get("Task name") or as_str(payload.get("recipient")) or "a task"
    kind = envelope.get("Message Type") or "Message"
    sender = envelope.get("Sender") or as_str(payload.get("author"))
    return f"{kind} for {task}" + (f" from {sender}" if sender else "") + " (payload encrypted, not shown)"


# --- step 4: sessions ------------------------------------------------------------------


def read_unit(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
    """The registry's reader: the Codex unit is every rollout of the build (a
    rollout never copies another session's history the way inherit.py means)."""
    return read_codex_sessions([Path(p) for p in unit.paths], warn, label=labeller(unit))


def read_codex_sessions(
    paths: list[Path],
    warn: WarnFn,
    *,
    label: LabelFn = str,
    codex_home: Path | None = None,
) -> list[Session]:
    """Every rollout of the build at once, so forks and spawns meet their parents.
    Sub-agent threads come back nested in their parent's session, not as sessions."""
    from ..config import codex_home as default_codex_home

    home = codex_home if codex_home is not None else default_codex_home()
    scans = _scan_all(paths, warn, label)
    scans = _drop_internal(scans, home, warn)
    titles = _session_index(codex_home, warn) if codex_home is not None else {}
    plans = {scan.id: _plan(scan, scans) for scan in scans.values()}
    threads = {tid: _ThreadReader(scans[tid], plans[tid], titles).read() for tid in sorted(scans)}
    sessions = _assemble(threads, warn)
    sessions.sort(key=lambda s: (s.started or "", s.id))
    return sessions


def _scan_all(paths: list[Path], warn: WarnFn, label: LabelFn) -> dict[str, _Scan]:
    """Scan every file; one thread kept per id (a rollout can be both in
    ``sessions/`` and ``archived_sessions/``: the longer copy, then the
    ``sessions/`` one, is kept)."""
    kept: dict[str, _Scan] = {}
    for path in sorted(set(paths), key=str):
        name = label(path)
        if path.name.endswith(".zst"):
            warn(InputWarning(name, 0, "compressed rollout (.jsonl.zst) skipped; bough reads plain .jsonl"))
            continue
        scan = _scan(path, name, warn)
        if scan is None:
            continue
        other = kept.get(scan.id)
        if other is None:
            kept[scan.id] = scan
            continue
        keep, drop = (scan, other) if _preferred(scan, other) else (other, scan)
        kept[scan.id] = keep
        warn(InputWarning(drop.label, 0, f"same thread ({scan.id}) as {keep.label}; counted once, from that file"))
    return kept


def _preferred(a: _Scan, b: _Scan) -> bool:
    return (a.line_count, not a.archived) > (b.line_count, not b.archived)


def _drop_internal(scans: dict[str, _Scan], home: Path, warn: WarnFn) -> dict[str, _Scan]:
    """Sessions Codex ran inside its own home (cwd under CODEX_HOME) are its
    internal work, not a project of the user's: skipped with a note."""
    root = os.path.normpath(str(home))
    out = {}
    for tid, scan in scans.items():
        cwd = _scan_cwd(scan)
        if cwd and (os.path.normpath(cwd) == root or os.path.normpath(cwd).startswith(root.rstrip("/") + "/")):
            warn(InputWarning(scan.label, 0, f"a session inside the Codex home ({cwd}), Codex's own; skipped"))
            continue
        out[tid] = scan
    return out


def _scan_cwd(scan: _Scan) -> str | None:
    cwd = as_str(scan.meta.get("cwd"))
    if cwd:
        return cwd
    if any(line.kind == "turn_context" for line in scan.lines):
        for _, obj in JsonlFile(scan.path, scan.label, lambda warning: None, max_bytes=scan.size):
            kind, payload = _normalize(obj)
            if kind == "turn_context" and as_str(payload.get("cwd")):
                return payload["cwd"]
    return None


def _session_index(codex_home: Path, warn: WarnFn) -> dict[str, str]:
    """Thread names from ``$CODEX_HOME/session_index.jsonl`` (the newest line wins)."""
    path = codex_home / "session_index.jsonl"
    if not path.is_file():
        return {}
    names: dict[str, str] = {}
    for _, obj in JsonlFile(path, str(path), warn):
        if isinstance(obj.get("id"), str) and as_str(obj.get("thread_name")).strip():
            names[obj["id"]] = obj["thread_name"].strip()
    return names


def _assemble(threads: dict[str, _Thread], warn: WarnFn) -> list[Session]:
    """Sub-agents nest under their parent (deepest first, so a grandchild's
    counts reach the root through its parent); everything else is a session."""
    roots = {tid: t for tid, t in threads.items() if _parent_in(t, threads) is None}
    nested = [t for tid, t in threads.items() if tid not in roots]
    nested.sort(key=lambda t: (-_depth(t, threads), t.scan.id))
    orphans: dict[str, list[SubagentRun]] = {}
    members: dict[str, list[_Thread]] = {}
    for thread in nested:
        parent = threads[_parent_in(thread, threads)]
        run = _subagent_run(thread)
        call = _spawning_call(thread, parent)
        root = _root_of(thread, threads)
        if call is not None and call.subagent is None:
            call.subagent = run
        else:
            orphans.setdefault(root, []).append(run)
        parent.tally.merge(thread.tally, prompts_and_commands=False)
        parent.tally.subagents.add(thread.scan.label)
        members.setdefault(root, []).append(thread)
    sessions = []
    for tid, thread in roots.items():
        children = sorted(members.get(tid, []), key=lambda t: t.scan.label)
        sessions.append(_session(thread, orphans.get(tid, []), children, warn))
    return sessions


def _parent_in(thread: _Thread, threads: dict[str, _Thread]) -> str | None:
    """The parent a sub-agent nests under, if it is here (and not a cycle)."""
    lineage = thread.plan.lineage
    if lineage.kind != "subagent" or lineage.parent not in threads:
        return None
    seen = {thread.scan.id}
    current = lineage.parent
    while current is not None:
        if current in seen:
            return None
        seen.add(current)
        step = threads[current].plan.lineage
        current = step.parent if step.kind == "subagent" and step.parent in threads else None
    return lineage.parent


def _ancestors(thread: _Thread, threads: dict[str, _Thread]) -> list[str]:
    out = []
    current = _parent_in(thread, threads)
    while current is not None:
        out.append(current)
        current = _parent_in(threads[current], threads)
    return out


def _depth(thread: _Thread, threads: dict[str, _Thread]) -> int:
    return len(_ancestors(thread, threads))


def _root_of(thread: _Thread, threads: dict[str, _Thread]) -> str:
    chain = _ancestors(thread, threads)
    return chain[-1] if chain else thread.scan.id


def _spawning_call(child: _Thread, parent: _Thread) -> ToolCall | None:
    """The parent's call that spawned ``child``, where it can be told: a call id
    recorded with the child, the parent's spawn events, the child's id in a
    call's output, or the child's agent path naming a spawn call's task."""
    cid = child.scan.id
    spawn = child.plan.lineage.spawn
    source = as_dict(child.scan.meta.get("source"))
    recorded = (spawn.get("spawn_call_id"), spawn.get("call_id"), spawn.get("item_id"), source.get("spawn_call_id"))
    for candidate in recorded:
        if isinstance(candidate, str) and candidate in parent.calls:
            return parent.calls[candidate]
    for call_id in parent.spawn_links.get(cid, ()):
        if call_id in parent.calls:
            return parent.calls[call_id]
    for call_id, text in parent.output_texts.items():
        if cid in text and call_id in parent.calls:
            return parent.calls[call_id]
    path = as_str(spawn.get("agent_path")) or as_str(child.scan.meta.get("agent_path"))
    task = path.rstrip("/").rsplit("/", 1)[-1] if path else ""
    matches = [c for c, name in parent.spawn_tasks.items() if task and name.strip("/").rsplit("/", 1)[-1] == task]
    return parent.calls[matches[0]] if len(matches) == 1 else None


def _subagent_run(thread: _Thread) -> SubagentRun:
    meta, spawn = thread.scan.meta, thread.plan.lineage.spawn
    description = (
        as_str(spawn.get("agent_nickname")) or as_str(meta.get("agent_nickname"))
        or as_str(spawn.get("agent_path")) or as_str(meta.get("agent_path")) or None
    )
    return SubagentRun(
        agent_id=thread.scan.id,
        agent_type=thread.plan.lineage.role,
        description=description,
        file=thread.scan.label,
        timeline=thread.timeline,
        stats=thread.tally.stats(),
        models=thread.models,
    )


def _session(thread: _Thread, orphans: list[SubagentRun], children: list[_Thread], warn: WarnFn) -> Session:
    scan, lineage = thread.scan, thread.plan.lineage
    warnings = list(scan.warnings)
    for child in children:
        warnings.extend(child.scan.warnings)
    for note in (thread.plan.warning, *(c.plan.warning for c in children), _orphan_note(lineage)):
        if note:
            warnings.append(InputWarning(scan.label, 0, note))
            warn(warnings[-1])
    models = list(thread.models)
    models += [m for child in children for m in child.models if m not in models]
    git = as_dict(scan.meta.get("git"))
    version = as_str(scan.meta.get("cli_version"))
    session = Session(
        id=scan.id,
        source=SOURCE_CODEX,
        cwd=thread.cwd,
        title=_title(thread),
        started=thread.started,
        ended=thread.ended,
        versions=[version] if version else [],
        models=list(dict.fromkeys(models)),
        git_branch=as_str(git.get("branch")) or None,
        files=[scan.label] + [c.scan.label for c in children],
        timeline=thread.timeline,
        stats=thread.tally.stats(),
        warnings=warnings,
        orphan_subagents=orphans,
        parent_id=lineage.parent if lineage.kind in ("fork", "subagent") else None,
    )
    session.tally = thread.tally
    return session


def _title(thread: _Thread) -> str:
    """The session's title (docs/formats-codex.md X13): the thread's name, else its
    first prompt, its first reply's first sentence, what a sub-agent was called,
    else when it started. Never the id alone."""
    for candidate in (thread.thread_name, thread.first_prompt, first_reply_sentence(thread.timeline)):
        line = one_line(candidate)
        if line:
            return line
    if thread.plan.lineage.kind == "subagent":
        run = _subagent_run(thread)
        return one_line(f"Sub-agent {run.description or run.agent_id}")
    return untitled(thread.started)


def _orphan_note(lineage: _Lineage) -> str:
    if lineage.kind != "subagent":
        return ""
    return f"sub-agent whose parent session {lineage.parent} is not here; shown as a session of its own"
