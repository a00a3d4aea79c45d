"""The record of one archived file (:class:`Entry`) and what its label may be.

A record is the durable truth about a copy (archive.py: each copy's ``.gz.json`` and the
index of them all): which agent's file it is, its label, its size, mtime and sha256 when
copied, and the sessions and sub-agents it belongs with. It is read back from a file
bough wrote but that sits on the user's disk, so reading one checks every field, and a
label is checked as the path it becomes.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, fields
from typing import Any

from .write import json_bytes

KINDS = ("claude", "codex", "gemini", "opencode", "copilot", "qwen")
ENTRY_SCHEMA = "bough.archive-entry/1"
RECORD_SUFFIX = ".gz.json"


@dataclass(frozen=True)
class Copied:
    """A copy made and not yet in place: its record to be, and its temporary file
    (None when the archive already held these very bytes); with a temporary file,
    the record's own, written beside it by the same process."""

    entry: Entry
    temp: str | None
    record_temp: str | None = None


@dataclass(frozen=True)
class Entry:
    """The record of one archived file."""

    kind: str  # one of KINDS
    label: str
    role: str  # "session" | "subagent" | "meta" (Claude, Gemini); "rollout" (Codex)
    size: int  # bytes of the source copied
    mtime_ns: int  # the source's mtime when copied
    sha256: str  # of those bytes
    archived: str  # when bough first kept this file (ISO, UTC): "kept by bough since"
    updated: str  # when the copy was last replaced
    origins: tuple[str, ...] = ()  # absolute paths it was copied from, newest last
    session: str | None = None  # sub-agents and meta files: the label of their session's file
    subagents: tuple[str, ...] = ()  # Claude sessions: their sub-agents' labels, in reading order
    orphan: bool = False  # an old-layout sub-agent read as a session of its own

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.label)

    def is_session(self) -> bool:
        return self.role in ("session", "rollout")

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["origins"] = list(self.origins)
        data["subagents"] = list(self.subagents)
        return {"schema": ENTRY_SCHEMA, **data}

    def to_row(self) -> tuple[Any, ...]:
        """The record as one row, in field order (a JSON list): how the index holds it."""
        return _row_of(self)

    @classmethod
    def from_row(cls, row: Any) -> Entry:
        """A record from the index; ValueError when it is not one this bough writes.
        The index is bough's own (in a directory only its user reads): the kinds
        of the values are checked, and the label, as the path it becomes."""
        (kind, label, role, size, mtime_ns, sha256, archived, updated, origins, session, subagents,
         orphan) = row
        if kind not in KINDS or not isinstance(label, str) or label_problem(label) or \
                type(size) is not int or type(mtime_ns) is not int or size < 0 or \
                not all(isinstance(v, str) for v in (role, sha256, archived, updated)) or \
                not isinstance(origins, list) or not isinstance(subagents, list) or \
                not (session is None or isinstance(session, str)):
            raise ValueError("not a bough archive record")
        return cls(kind, label, role, size, mtime_ns, sha256, archived, updated, tuple(origins), session,
                   tuple(subagents), orphan is True)

    @classmethod
    def from_json(cls, data: Any) -> Entry:
        """An Entry from a parsed record; ValueError when it is not a valid one."""
        if not isinstance(data, dict) or data.get("schema") != ENTRY_SCHEMA:
            raise ValueError("not a bough archive record")
        strings = ("kind", "label", "role", "sha256", "archived", "updated")
        if not all(isinstance(data.get(name), str) for name in strings):
            raise ValueError("a field is missing")
        for name in ("size", "mtime_ns"):
            value = data.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} is not a count")
        origins, subagents = data.get("origins", []), data.get("subagents", [])
        if not all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in (origins, subagents)):
            raise ValueError("origins or subagents is not a list of strings")
        session = data.get("session")
        if session is not None and not isinstance(session, str):
            raise ValueError("session is not a string")
        if data["kind"] not in KINDS or label_problem(data["label"]):
            raise ValueError("kind or label is not one bough writes")
        return cls(
            kind=data["kind"], label=data["label"], role=data["role"], size=data["size"],
            mtime_ns=data["mtime_ns"], sha256=data["sha256"], archived=data["archived"],
            updated=data["updated"], origins=tuple(origins), session=session,
            subagents=tuple(subagents), orphan=data.get("orphan") is True,
        )


def rewritten_whole(kind: str, label: str) -> bool:
    """Whether the agent rewrites this file whole rather than appending to it: Gemini
    CLI's legacy ``.json`` sessions and the files naming its roots. Such a file may
    legitimately shrink (a ``/rewind`` of the JSON era takes records out, and the
    CLI no longer shows them either), so a changed one replaces its copy; every
    other transcript only grows, and a shorter one loses to its copy. A later
    agent's Layout says which of its files it rewrites."""
    if kind == "gemini":
        return not label.endswith(".jsonl")
    from .readers.layouts import LAYOUTS

    layout = LAYOUTS.get(kind)
    return layout is not None and layout.rewritten_whole(label)


# A label whose every name starts with a letter, digit, "_" or "-": none is empty, "."
# or "..", or the archive's own: told at once (the index holds tens of thousands).
_PLAIN_LABEL = re.compile(r"[\w-][^/\x00]*(?:/[\w-][^/\x00]*)*", re.ASCII)


def label_problem(label: str) -> str | None:
    """Why ``label`` cannot name a file in the archive, or None when it can."""
    if _PLAIN_LABEL.fullmatch(label):
        return None
    if not label or "\x00" in label or label.startswith("/"):
        return "it is empty, absolute or holds a NUL"
    parts = label.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "it has an empty, '.' or '..' component"
    if any(part.startswith(".bough-") for part in parts):
        return "names starting '.bough-' are the archive's own"
    return None


def _record_name(entry: Entry) -> str:
    return entry.label.rsplit("/", 1)[-1] + RECORD_SUFFIX


def _record_bytes(entry: Entry) -> bytes:
    return json_bytes(entry.to_json())


# Entry.to_row, for the index's tens of thousands of records: one C call each.
_row_of = operator.attrgetter(*(f.name for f in fields(Entry)))
