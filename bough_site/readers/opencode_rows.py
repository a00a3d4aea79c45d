"""OpenCode's three on-disk forms, read into one shape (docs/formats-opencode.md §3, §4, §10).

A session is its ``session`` row, its ``message`` rows and their ``part`` rows.
OpenCode's SQLite database holds them as rows whose ``data`` column is the JSON of
the message or part less its ids; bough's archive export (§10) holds the same rows
as JSON lines; the JSON era (before 1.2.0) holds one file per object. Each is read
here into ``RawSession``s: the session's info in the JSON era's shape, its
messages with their parts, and the file it came from. Which copy of a session
wins is ``merge``'s: the database over an export over the JSON files (§9).

Nothing here raises for bad input: a row or file that cannot be read is one
warning naming it, and the rest is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..model import InputWarning
from .lines import JsonlFile, open_regular, parse_line
from .values import as_dict, as_str

WarnFn = Callable[[InputWarning], None]

# Where a copy of a session comes from, best first (§9): the live database, an
# export of it in bough's archive, the frozen JSON files.
RANK_DB, RANK_EXPORT, RANK_JSON = 0, 1, 2
# The first line of an export (§10) says what it is.
EXPORT_TAG = "opencode_export"
EXPORT_VERSION = 1
# A JSON-era object file larger than this is not read (none comes near it).
MAX_JSON_BYTES = 64 * 1024 * 1024
# The JSON era's folders (§1): storage/<kind>/…
JSON_KINDS = ("session", "message", "part", "project")


@dataclass
class RawPart:
    id: str
    message_id: str
    data: dict[str, Any]


@dataclass
class RawMessage:
    id: str
    session_id: str
    data: dict[str, Any]
    created: int  # ms since 1970: data.time.created, else the row's time_created, else 0
    parts: dict[str, RawPart] = field(default_factory=dict)

    def ordered_parts(self) -> list[RawPart]:
        return [self.parts[key] for key in sorted(self.parts)]  # ids sort by time (§1)


@dataclass
class RawSession:
    id: str
    info: dict[str, Any]  # the JSON era's Session.Info shape (§3), whatever the source
    rank: int
    files: list[str] = field(default_factory=list)  # labels read for it, its own first
    messages: dict[str, RawMessage] = field(default_factory=dict)
    lines: int = 0  # rows or files read for it (§9: the records)
    skipped: int = 0  # of those, the ones that gave no object
    warnings: list[InputWarning] = field(default_factory=list)

    def ordered_messages(self) -> list[RawMessage]:
        return sorted(self.messages.values(), key=lambda m: (m.created, m.id))

    @property
    def parent_id(self) -> str:
        return as_str(self.info.get("parentID"))


@dataclass
class Found:
    """What one source held: its sessions and the projects' worktrees (§1)."""

    sessions: dict[str, RawSession] = field(default_factory=dict)
    worktrees: dict[str, str] = field(default_factory=dict)


# --- rows (the database and its exports) ---------------------------------------------------

# (the row's columns, the export line it came from or 0)
Located = tuple[dict[str, Any], int]


class _RowReader:
    """Rows of one database or export into sessions (§4)."""

    def __init__(self, label: str, rank: int, warn: WarnFn):
        self.label, self.rank, self._warn = label, rank, warn
        self.found = Found()
        self.orphans = 0

    def read(self, tables: dict[str, list[Located]]) -> Found:
        for row, _line in tables.get("project", ()):
            if isinstance(row.get("id"), str) and isinstance(row.get("worktree"), str):
                self.found.worktrees[row["id"]] = row["worktree"]
        for row, line in tables.get("session", ()):
            self._session(row, line)
        messages: dict[str, RawMessage] = {}
        for row, line in tables.get("message", ()):
            message = self._message(row, line)
            if message is not None:
                messages[message.id] = message
        for row, line in tables.get("part", ()):
            self._part(row, line, messages)
        if self.orphans:
            self.warn(None, 0, f"{self.orphans} parts of messages that are not here: not read")
        return self.found

    def warn(self, session: RawSession | None, line: int, reason: str) -> None:
        warning = InputWarning(self.label, line, reason)
        if session is not None:
            session.warnings.append(warning)
        self._warn(warning)

    def _holder(self, sid: str) -> RawSession:
        session = self.found.sessions.get(sid)
        if session is None:  # messages of a session whose row is not here (§4: a damaged database)
            session = RawSession(sid, {"id": sid}, self.rank, [self.label])
            self.found.sessions[sid] = session
            self.warn(session, 0, f"session {sid}: messages without a session row; read without it")
        return session

    def _session(self, row: dict[str, Any], line: int) -> None:
        sid = row.get("id")
        if not isinstance(sid, str) or not sid:
            self.warn(None, line, "a session row without a text id: skipped")
            return
        session = self.found.sessions.get(sid)
        if session is None:
            session = self.found.sessions[sid] = RawSession(sid, {}, self.rank, [self.label])
        session.info = session_info(row)
        session.lines += 1

    def _message(self, row: dict[str, Any], line: int) -> RawMessage | None:
        mid, sid = row.get("id"), row.get("session_id")
        if not isinstance(mid, str) or not mid or not isinstance(sid, str) or not sid:
            self.warn(None, line, "a message row without a text id or session_id: skipped")
            return None
        session = self._holder(sid)
        session.lines += 1
        data = self._data(session, line, f"message {mid}", row.get("data"))
        if data is None:  # no message to show or count; its parts go with it
            session.skipped += 1
            return None
        created = as_dict(data.get("time")).get("created")
        message = RawMessage(mid, sid, data, _ms(created) if _ms(created) else _ms(row.get("time_created")))
        session.messages.setdefault(mid, message)
        return message

    def _part(self, row: dict[str, Any], line: int, messages: dict[str, RawMessage]) -> None:
        pid, mid = row.get("id"), row.get("message_id")
        message = messages.get(mid) if isinstance(mid, str) else None
        if not isinstance(pid, str) or not pid or message is None:
            self.orphans += 1
            return
        session = self.found.sessions[message.session_id]
        session.lines += 1
        data = self._data(session, line, f"part {pid}", row.get("data"))
        if data is None:
            session.skipped += 1
            return
        message.parts.setdefault(pid, RawPart(pid, mid, data))

    def _data(self, session: RawSession, line: int, what: str, value: Any) -> dict[str, Any] | None:
        """The JSON object a ``data`` column holds (§4), or None, warned."""
        if isinstance(value, str):
            value = value.encode("utf-8", "surrogatepass")
        if not isinstance(value, bytes):
            self.warn(session, line, f"{what}: data is not JSON text ({type(value).__name__}); not read")
            return None
        obj, reason = parse_line(value)
        if obj is None:
            self.warn(session, line, f"{what}: data is {reason or 'not a JSON object'}; not read")
        elif reason:
            self.warn(session, line, f"{what}: {reason}")
        return obj


def session_info(row: dict[str, Any]) -> dict[str, Any]:
    """A ``session`` row in the JSON era's shape (§3, §4); the token columns (1.16.0+)
    as ``tokens``, a cross-check only."""
    info: dict[str, Any] = {
        "id": row.get("id"),
        "projectID": row.get("project_id"),
        "parentID": row.get("parent_id"),
        "slug": row.get("slug"),
        "directory": row.get("directory"),
        "title": row.get("title"),
        "version": row.get("version"),
        "time": {"created": row.get("time_created"), "updated": row.get("time_updated")},
    }
    if "tokens_input" in row:
        info["tokens"] = {key: row.get(f"tokens_{key}") for key in
                          ("input", "output", "reasoning", "cache_read", "cache_write")}
    return info


def from_database(tables: dict[str, list[dict[str, Any]]], label: str, warn: WarnFn) -> Found:
    located = {table: [(row, 0) for row in rows] for table, rows in tables.items()}
    return _RowReader(label, RANK_DB, warn).read(located)


def read_export(path: Path, label: str, warn: WarnFn) -> Found:
    """An export file of bough's archive (§10): a header line, then one line per row."""
    file = JsonlFile(path, label, warn)
    tables: dict[str, list[Located]] = {}
    first = True
    for number, obj in file:
        if first:
            first = False
            if obj.get(EXPORT_TAG) is not None:
                continue
            warn(InputWarning(label, number, "no export header on the first line; read as rows all the same"))
        table, row = obj.get("table"), obj.get("row")
        if not isinstance(table, str) or not isinstance(row, dict):
            warn(InputWarning(label, number, "not a row of the export (no table or row): skipped"))
            continue
        tables.setdefault(table, []).append((row, number))
    found = _RowReader(label, RANK_EXPORT, warn).read(tables)
    for session in found.sessions.values():  # a line that gave no row is a row lost (§9.8)
        session.lines += file.skipped
        session.skipped += file.skipped
    return found


class Exporter:
    """A database's rows as one export per session (§10), indexed once: a session's
    rows are found by its id, not by a pass over every row."""

    def __init__(self, db_label: str, tables: dict[str, list[dict[str, Any]]]):
        self.db_label = db_label
        self.projects = {row.get("id"): row for row in tables.get("project", ())}
        self.sessions: dict[Any, list[dict[str, Any]]] = {}
        for row in tables.get("session", ()):
            self.sessions.setdefault(row.get("id"), []).append(row)
        self.messages: dict[Any, list[dict[str, Any]]] = {}
        for row in tables.get("message", ()):
            self.messages.setdefault(row.get("session_id"), []).append(row)
        self.parts: dict[Any, list[dict[str, Any]]] = {}
        for row in tables.get("part", ()):
            self.parts.setdefault(row.get("message_id"), []).append(row)

    def lines(self, sid: str) -> list[bytes]:
        """The header, the project row, the session row, its message rows (by time
        then id), each message's part rows (by id), as the columns hold them:
        ``data`` as its text."""
        rows = self.sessions.get(sid, [])
        messages = sorted(self.messages.get(sid, ()), key=lambda row: (_ms(row.get("time_created")),
                                                                        as_str(row.get("id"))))
        header: dict[str, Any] = {EXPORT_TAG: EXPORT_VERSION, "db": self.db_label, "session": sid}
        parent = next((row["parent_id"] for row in rows if isinstance(row.get("parent_id"), str) and row["parent_id"]),
                      None)
        if parent:  # a child session (a sub-agent): `bough archive` counts it with its root (opencode_layout.nested)
            header["parent"] = parent
        out = [orjson.dumps(header)]
        for project in dict.fromkeys(row.get("project_id") for row in rows):
            if project in self.projects:
                out.append(_line("project", self.projects[project]))
        out += [_line("session", row) for row in rows]
        out += [_line("message", row) for row in messages]
        for message in messages:
            parts = sorted(self.parts.get(message.get("id"), ()), key=lambda row: as_str(row.get("id")))
            out += [_line("part", row) for row in parts]
        return out


def _line(table: str, row: dict[str, Any]) -> bytes:
    clean = {key: (value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
             for key, value in row.items()}
    return orjson.dumps({"table": table, "row": clean})


# --- the JSON era ------------------------------------------------------------------------


def json_kind(path: Path) -> tuple[str, str]:
    """(kind, the folder name under it) of a JSON-era file by where it sits (§1):
    ``session/<project>/<id>.json``, ``message/<session>/<id>.json``,
    ``part/<message>/<id>.json`` (or ``part/<id>.json``, seen in a drifted tree),
    ``project/<id>.json``; ("", "") for anything else."""
    parts = path.parts
    if path.suffix != ".json" or len(parts) < 2:
        return "", ""
    if len(parts) >= 3 and parts[-3] in ("session", "message", "part"):
        return parts[-3], parts[-2]
    if parts[-2] in ("project", "part"):
        return parts[-2], ""
    return "", ""


class JsonTree:
    """The JSON era's files of one unit, gathered into sessions (§4): each file is
    one object; the session file, its messages' files and their parts' files join
    on their ids (or, where an id is missing, the folder's name)."""

    def __init__(self, warn: WarnFn):
        self._warn = warn
        self.found = Found()
        self._messages: dict[str, RawMessage] = {}
        self._labels: dict[str, str] = {}  # message id -> its file's label
        self._parts: list[tuple[dict[str, Any], str, str]] = []  # (object, folder, label)

    def add(self, path: Path, label: str) -> None:
        kind, folder = json_kind(path)
        if not kind:
            return
        obj = self._load(path, label)
        if kind == "project":
            if obj is not None and isinstance(obj.get("worktree"), str):
                self.found.worktrees[as_str(obj.get("id")) or path.stem] = obj["worktree"]
        elif kind == "session":
            self._session(obj, path, label)
        elif kind == "message":
            self._message(obj, path, folder, label)
        else:
            self._parts.append((obj if obj is not None else {}, folder, label))

    def finish(self) -> Found:
        orphans = 0
        for obj, folder, label in self._parts:
            mid = as_str(obj.get("messageID")) or folder
            message = self._messages.get(mid)
            pid = as_str(obj.get("id"))
            if message is None or not pid:
                orphans += 1
                continue
            session = self.found.sessions[message.session_id]
            session.lines += 1
            if not obj:
                session.skipped += 1
                continue
            message.parts.setdefault(pid, RawPart(pid, mid, obj))
        if orphans:
            self._warn(InputWarning(self._parts[0][2].rsplit("/part/", 1)[0] + "/part", 0,
                                    f"{orphans} part files of messages that are not here (or without an id): not read"))
        return self.found

    def _load(self, path: Path, label: str) -> dict[str, Any] | None:
        handle = open_regular(path, label, self._warn)
        if handle is None:
            return None
        with handle:
            raw = handle.read(MAX_JSON_BYTES + 1)
        if len(raw) > MAX_JSON_BYTES:
            self._warn(InputWarning(label, 0, "larger than any OpenCode object file; not read"))
            return None
        if not raw.strip():
            self._warn(InputWarning(label, 0, "empty file"))
            return None
        obj, reason = parse_line(raw.removeprefix(b"\xef\xbb\xbf"))
        if obj is None or reason:
            self._warn(InputWarning(label, 0 if obj is None else 1, reason or "not a JSON object"))
        return obj

    def _holder(self, sid: str, _label: str) -> RawSession:
        session = self.found.sessions.get(sid)
        if session is None:
            session = RawSession(sid, {"id": sid}, RANK_JSON, [])
            self.found.sessions[sid] = session
        return session

    def _session(self, obj: dict[str, Any] | None, path: Path, label: str) -> None:
        sid = as_str((obj or {}).get("id")) or path.stem
        session = self._holder(sid, label)
        session.files[:] = [label]  # a session is named by its own file (the message files are many)
        session.lines += 1
        if obj is None:
            session.skipped += 1
            return
        session.info = obj

    def _message(self, obj: dict[str, Any] | None, path: Path, folder: str, label: str) -> None:
        sid = as_str((obj or {}).get("sessionID")) or folder
        mid = as_str((obj or {}).get("id")) or path.stem
        session = self._holder(sid, label)
        if not session.files:  # named by its session file; without one, by a message's file
            session.files.append(label)
        session.lines += 1
        if obj is None:
            session.skipped += 1
            return
        created = _ms(as_dict(obj.get("time")).get("created"))
        message = RawMessage(mid, sid, obj, created)
        session.messages.setdefault(mid, message)
        self._messages.setdefault(mid, message)


def read_json_files(files: Iterable[tuple[Path, str]], warn: WarnFn) -> Found:
    tree = JsonTree(warn)
    for path, label in files:
        tree.add(path, label)
    found = tree.finish()
    for session in found.sessions.values():
        if not session.info.get("title") and not session.info.get("directory") and "time" not in session.info:
            note = InputWarning(session.files[0] if session.files else "storage", 0,
                                f"session {session.id}: no session file; read from its messages")
            session.warnings.append(note)
            warn(note)
    return found


# --- which copy wins ---------------------------------------------------------------------


def merge(found: list[Found]) -> tuple[dict[str, RawSession], dict[str, str]]:
    """Every session once (§9): the copy of the best rank (database, export, JSON),
    the first of that rank in the unit's order."""
    sessions: dict[str, RawSession] = {}
    worktrees: dict[str, str] = {}
    for each in found:
        for key, value in each.worktrees.items():
            worktrees.setdefault(key, value)
        for sid, session in each.sessions.items():
            kept = sessions.get(sid)
            if kept is None or session.rank < kept.rank:
                sessions[sid] = session
    return sessions, worktrees


def _ms(value: Any) -> int:
    """A time in ms since 1970 as OpenCode writes it; 0 when it is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return 0
    return int(value) if 0 <= value <= 32503680000000 else 0  # to year 3000
