"""One Gemini CLI session file, read into its event view (docs/formats-gemini.md §3, §4).

A file is a legacy ``.json`` (one object, rewritten whole: its own final view) or
an append-only ``.jsonl`` log, replayed line by line: metadata, messages written
again as they change (the last copy wins, the first keeps its place), ``$set``
metadata and ``$set.messages`` snapshots, and ``$rewindTo``. The event view is
every message id ever written; the final view only says which were later taken
out, and why (``rewound`` or ``compacted``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..model import REMOVED_COMPACTED, REMOVED_REWOUND, InputWarning
from .lines import JsonlFile, open_regular, parse_line, printable_name
from .values import as_dict, as_str, normalize_timestamp

WarnFn = Callable[[InputWarning], None]

MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
SNAPSHOT_TAG = "<state_snapshot>"
_PEEK = 64 * 1024
_BOM = b"\xef\xbb\xbf"


@dataclass
class GeminiFile:
    """One session file, replayed (§4)."""

    path: Path
    label: str
    meta: dict[str, Any]  # the metadata line, with every $set merged in
    records: dict[str, dict[str, Any]]  # message id -> last copy, in first-seen order
    line_of: dict[str, int]  # message id -> the line of its last copy (0 in a legacy file)
    removed: dict[str, str]  # message id -> REMOVED_REWOUND | REMOVED_COMPACTED
    lines: int
    skipped: int
    warnings: list[InputWarning] = field(default_factory=list)

    @property
    def session_id(self) -> str:
        return as_str(self.meta.get("sessionId")).strip() or printable_name(self.path.name.rsplit(".", 1)[0])

    @property
    def is_subagent(self) -> bool:
        """A sub-agent's file: so marked, or kept in a parent's folder under chats/ (§5)."""
        return self.meta.get("kind") == "subagent" or self.path.parent.parent.name == "chats"

    @property
    def parent_id(self) -> str:
        """For a sub-agent: the session it belongs to (its folder's name from 0.37,
        before that the sessionId it shares with its parent)."""
        return self.path.parent.name if self.path.parent.parent.name == "chats" else self.session_id

    @cached_property
    def times(self) -> list[str]:
        """Its records' times, sorted."""
        return sorted(t for r in self.records.values() if (t := normalize_timestamp(r.get("timestamp"))))

    def first_time(self) -> str | None:
        return self.times[0] if self.times else normalize_timestamp(self.meta.get("startTime"))


def load_file(path: Path, label: str, warn: WarnFn) -> GeminiFile | None:
    """Read one session file, telling the format from its content: a first line
    that is a whole object without ``messages`` starts a JSONL log; anything else
    is one legacy JSON object (a ``.jsonl`` that is neither is read line by line)."""
    warnings: list[InputWarning] = []

    def note(warning: InputWarning) -> None:
        warnings.append(warning)
        warn(warning)

    head = _head(path, label, note)
    if head is None:
        return None
    first, newline, _ = head.lstrip().partition(b"\n")
    obj, _ = parse_line(first, shallow=True) if (newline or len(head) < _PEEK) else (None, "")
    if obj is not None and not isinstance(obj.get("messages"), list):
        loaded = _replay(path, label, note)
    elif obj is None and path.suffix == ".jsonl" and not _whole_object(path):
        loaded = _replay(path, label, note)
    else:
        loaded = _legacy(path, label, note)
    if loaded is not None:
        loaded.warnings = warnings
    return loaded


def _head(path: Path, label: str, warn: WarnFn) -> bytes | None:
    handle = open_regular(path, label, warn)
    if handle is None:
        return None
    with handle:
        head = handle.read(_PEEK).removeprefix(_BOM)
    if not head.strip():
        warn(InputWarning(label, 0, "empty file"))
        return None
    return head


def _whole_object(path: Path) -> bool:
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return False
    with handle:
        obj, _ = parse_line(handle.read().removeprefix(_BOM))
    return obj is not None and isinstance(obj.get("messages"), list)


def _legacy(path: Path, label: str, warn: WarnFn) -> GeminiFile | None:
    """A legacy ``.json``: one ConversationRecord, counted as one line (§3)."""
    handle = open_regular(path, label, warn)
    if handle is None:
        return None
    with handle:
        obj, reason = parse_line(handle.read().removeprefix(_BOM))
    if obj is None:
        warn(InputWarning(label, 0, f"not a Gemini session: {reason or 'not a JSON object'}; skipped"))
        return None
    if reason:
        warn(InputWarning(label, 0, reason))
    messages = obj.get("messages")
    if not isinstance(messages, list) or not isinstance(obj.get("sessionId"), str):
        warn(InputWarning(label, 0, "not a Gemini session (no sessionId and messages); skipped"))
        return None
    meta = {key: value for key, value in obj.items() if key != "messages"}
    records: dict[str, dict[str, Any]] = {}
    for index, message in enumerate(messages):
        if isinstance(message, dict):
            records[_message_id(message, label, index + 1)] = message
    return GeminiFile(path, label, meta, records, dict.fromkeys(records, 0), {}, 1, 0)


def _message_id(record: dict[str, Any], label: str, where: int | str) -> str:
    """A message's id; one without an id is a record of its own, named by its place."""
    rid = record.get("id")
    return rid if isinstance(rid, str) and rid else f"{label}#{where}"


class _Replay:
    """The replay of a JSONL log (§4): the event view and the final view."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.records: dict[str, dict[str, Any]] = {}
        self.line_of: dict[str, int] = {}
        self.final: list[str] = []
        self.in_final: set[str] = set()
        self.why: dict[str, str] = {}  # id -> why it left the final view, last time it did

    def message(self, rid: str, record: dict[str, Any], number: int) -> None:
        self.records[rid] = record  # the last copy wins; the first keeps its place
        self.line_of[rid] = number
        if rid not in self.in_final:
            self.final.append(rid)
            self.in_final.add(rid)

    def rewind(self, target: Any) -> None:
        """Remove ``target`` and everything after it; everything when it is unknown."""
        cut = self.final.index(target) if isinstance(target, str) and target in self.in_final else 0
        for rid in self.final[cut:]:
            self.why[rid] = REMOVED_REWOUND
            self.in_final.discard(rid)
        del self.final[cut:]

    def snapshot(self, messages: list[Any], number: int, label: str) -> None:
        """A ``$set.messages`` replaces the list. Records it drops were compressed away
        when it brings a ``<state_snapshot>`` summary, else rolled back. Notices are
        never in a snapshot: dropping them says nothing."""
        ids = []
        for index, message in enumerate(messages):
            if isinstance(message, dict):
                rid = _message_id(message, label, f"{number}.{index + 1}")
                self.records[rid] = message
                self.line_of[rid] = number
                ids.append(rid)
        kept = set(ids)
        compressed = any(is_summary(self.records[rid]) for rid in ids if rid not in self.in_final)
        for rid in self.final:
            if rid not in kept and self.records[rid].get("type") in ("user", "gemini"):
                self.why[rid] = REMOVED_COMPACTED if compressed else REMOVED_REWOUND
        self.final, self.in_final = ids, kept

    def removed(self) -> dict[str, str]:
        return {rid: why for rid, why in self.why.items() if rid not in self.in_final}


def _replay(path: Path, label: str, warn: WarnFn) -> GeminiFile | None:
    reader = JsonlFile(path, label, warn)
    replay = _Replay()
    for number, obj in reader:
        if "$rewindTo" in obj:
            replay.rewind(obj["$rewindTo"])
        elif "$set" in obj:
            update = as_dict(obj["$set"])
            if isinstance(update.get("messages"), list):
                replay.snapshot(update["messages"], number, label)
            replay.meta.update({key: value for key, value in update.items() if key != "messages"})
        elif isinstance(obj.get("id"), str) or obj.get("type") in MESSAGE_TYPES:
            replay.message(_message_id(obj, label, number), obj, number)
        elif "sessionId" in obj:
            for key, value in obj.items():
                replay.meta.setdefault(key, value)
        else:
            reader.warn(number, "neither metadata, a message, $set nor $rewindTo; ignored")
    if not replay.records and not replay.meta:
        if reader.lines:
            warn(InputWarning(label, 0, "not a Gemini session (no metadata or message line); skipped"))
        return None
    if not isinstance(replay.meta.get("sessionId"), str):
        warn(InputWarning(label, 0, "no session metadata line: the session is named by its file"))
    return GeminiFile(path, label, replay.meta, replay.records, replay.line_of, replay.removed(),
                      reader.lines, reader.skipped)


def is_summary(record: dict[str, Any]) -> bool:
    return record.get("type") == "user" and SNAPSHOT_TAG in text_of(parts_of(record.get("content")))


def parts_of(content: Any) -> list[dict[str, Any]]:
    """``content`` (a string, a Part or a Part list) as a Part list."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        return []
    return [p if isinstance(p, dict) else {"text": p} for p in content if isinstance(p, (dict, str))]


def text_of(parts: list[dict[str, Any]]) -> str:
    return "\n".join(as_str(p.get("text")) for p in parts if isinstance(p.get("text"), str) and not p.get("thought"))
