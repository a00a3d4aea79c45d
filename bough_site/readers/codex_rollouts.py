"""Codex CLI rollout files: telling one by its content, finding them, and the
first two steps of reading them (codex.py has the whole story):

1. ``scan_rollout`` reads each file once for what links files together: its
   identity (the first ``session_meta``), a digest of every line's
   ``(type, payload)`` (timestamps left out: copies carry rewritten ones),
   ordinals and counts.
2. ``plan_thread`` decides, for a fork or sub-agent, how many lines after its
   identity are history copied from its parent: by matching them against the
   parent's lines; if the parent is not among the inputs, by ordinals or,
   failing that, by the leading burst of copied lines (with a InputWarning
   either way).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from ..model import InputWarning
from .codex_tokens import unknown_counts
from .lines import JsonlFile, open_regular, parse_line
from .reader import WarnFn
from .values import BAD_TIME, UNKNOWN_TOKENS, as_dict, as_str, bad_timestamp, normalize_timestamp


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
_PEEK_LINES = 5
_PEEK_BYTES = 4 << 20
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BOM = b"\xef\xbb\xbf"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


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


class Line(NamedTuple):
    """What step 1 keeps of one parsed line (the payload itself is read again later)."""

    number: int
    kind: str  # envelope type, legacy lines mapped onto it; "" when unknown
    sub: str  # payload ``type`` (event and item kind)
    digest: bytes | None  # of (kind, payload): how copies are recognised
    ordinal: int | None
    second: str | None  # envelope timestamp to the second
    token_info: bool  # a token_count carrying totals


@dataclass
class Scan:
    path: Path
    label: str
    id: str
    meta: dict[str, Any]
    meta_index: int  # index in ``lines`` of the identity line; -1 when none
    lines: list[Line]
    line_count: int
    skipped: int
    size: int
    warnings: list[InputWarning]
    archived: bool

    def own_start(self) -> int:
        return self.meta_index + 1


def normalize(obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
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


def scan_rollout(path: Path, label: str, warn: WarnFn) -> Scan | None:
    warnings: list[InputWarning] = []

    def note(warning: InputWarning) -> None:
        warnings.append(warning)
        warn(warning)

    reader = JsonlFile(path, label, note)
    lines: list[Line] = []
    meta: dict[str, Any] = {}
    meta_index = -1
    known = False
    for number, obj in reader:
        kind, payload = normalize(obj)
        known = known or bool(kind)
        if kind == "session_meta" and meta_index < 0:
            meta, meta_index = payload, len(lines)
        ordinal = obj.get("ordinal")
        stamp = obj.get("timestamp")
        if bad_timestamp(stamp):
            note(InputWarning(label, number, BAD_TIME))
        if kind and unknown_counts(kind, payload):
            note(InputWarning(label, number, UNKNOWN_TOKENS))
        info = payload.get("info") if kind == "event_msg" else None
        lines.append(Line(
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
    return Scan(
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
        kind, payload = normalize(obj)
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
class Lineage:
    kind: str  # "root" | "fork" | "subagent"
    parent: str | None  # fork: forked from; sub-agent: the thread that spawned it
    copied_from: str | None  # the thread whose history starts this file
    spawn: dict[str, Any] = field(default_factory=dict)  # source.subagent.thread_spawn
    role: str | None = None


def _lineage(scan: Scan) -> Lineage:
    return _lineage_of(scan.meta, scan.id)


def _lineage_of(meta: dict[str, Any], thread_id: str) -> Lineage:
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
            return Lineage("subagent", parent, forked or parent, spawn, role or None)
    if forked and forked != thread_id:
        return Lineage("fork", forked, forked)
    if other_session:
        # A sub-agent carries its root's session_id and its own id (docs/formats-codex.md X4).
        return Lineage("subagent", other_session, other_session, spawn, role or None)
    return Lineage("root", None, None)


def _subagent_kind(subagent: Any) -> str:
    if isinstance(subagent, str):
        return subagent  # "review", "compact", "memory_consolidation"
    if isinstance(subagent, dict) and subagent and "thread_spawn" not in subagent:
        return str(next(iter(subagent)))
    return ""


@dataclass
class Plan:
    lineage: Lineage
    inherited: int = 0  # lines after the identity line that were copied from the parent
    warning: str = ""


def plan_thread(scan: Scan, scans: dict[str, Scan]) -> Plan:
    lineage = _lineage(scan)
    plan = Plan(lineage)
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


def _matching_prefix(child: list[Line], parent: list[Line]) -> int:
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


def _ordinal_prefix(own: list[Line], meta: dict[str, Any]) -> int:
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


def _burst_prefix(own: list[Line]) -> int:
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
