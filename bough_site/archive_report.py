"""``bough archive``'s report and check: the sessions an archive holds, counted as a site
would show them (:class:`SessionCount`, into a :class:`Summary`), and whether a copy's
bytes parse as its agent's format (``_parse_problem``).

Apart from the store (archive.py) because it reads transcripts (each copy's first lines,
through the readers' own rules), which the store never does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .readers.lines import MAX_LINE_BYTES, parse_line

if TYPE_CHECKING:
    from .archive_entry import Entry


@dataclass
class Summary:
    root: Path
    files: int = 0
    sessions: int = 0  # as a site counts them (SessionCount)
    by_kind: dict[str, int] = field(default_factory=dict)
    bytes: int = 0  # of the transcripts, uncompressed
    disk_bytes: int = 0  # the compressed copies on disk
    gone: int = 0  # sessions none of whose files' source paths exist any more
    oldest: tuple[str, str] | None = None  # (ISO start, label) of the session that started first
    newest: tuple[str, str] | None = None  # (ISO start, label) of the one that started last
    kept_since: str | None = None  # when bough first kept one of them (ISO)
    problems: list[str] = field(default_factory=list)



@dataclass
class _Counted:
    """One session as a site shows it: its first file's label, when it started, and
    whether every one of its files is gone from where it was copied from."""

    kind: str
    label: str
    started: str | None
    gone: bool


class SessionCount:
    """The sessions an archive holds, counted as a build of it would show them (the
    readers' rules, told from each copy's first bytes): a Claude Code main file is
    one (an old sub-agent file read alone included: docs/formats-claude.md C2); a
    Codex rollout is one unless it is a sub-agent whose parent thread is here, or
    Codex's own work (docs/formats-codex.md X10), its copies under ``sessions/`` and
    ``archived_sessions/`` one; Gemini CLI's files sharing a ``sessionId`` are one,
    and a sub-agent's file is one only when its session is not here
    (docs/formats-gemini.md §2, §5)."""

    def __init__(self, codex_home: Path | None = None) -> None:
        self.codex_home = os.path.normpath(str(codex_home)).rstrip("/") if codex_home is not None else None
        self.claude: list[_Counted] = []
        self.codex: dict[str, tuple[_Counted, str | None]] = {}  # thread id -> (session, parent thread)
        self.gemini: dict[str, list[_Counted]] = {}  # sessionId -> its files
        self.gemini_agents: list[tuple[_Counted, str]] = []  # (a sub-agent's file, its session's id)
        self.others: list[_Counted] = []  # the agents a Layout describes (readers/layouts.py)

    def add(self, entry: Entry, head: bytes) -> None:
        gone = not any(os.path.lexists(origin) for origin in entry.origins)
        if entry.kind == "claude":
            self.claude.append(_Counted("claude", entry.label, _claude_start(head), gone))
        elif entry.kind == "codex":
            self._codex(entry, head, gone)
        elif entry.kind == "gemini":
            self._gemini(entry, head, gone)
        elif not _nested(entry.kind, head):  # an agent a Layout describes: a session file is one, but a sub-agent's
            self.others.append(_Counted(entry.kind, entry.label, None, gone))

    def _codex(self, entry: Entry, head: bytes, gone: bool) -> None:
        from .readers.codex_rollouts import rollout_identity

        thread, parent, started, cwd = rollout_identity(_head_objects(head), Path(entry.label))
        if self.codex_home and cwd and (os.path.normpath(cwd) + "/").startswith(self.codex_home + "/"):
            return  # Codex's own work, on no site (readers/codex.py: _drop_internal)
        counted = _Counted("codex", entry.label, started, gone)
        kept = self.codex.get(thread)
        if kept is not None:  # the same thread under sessions/ and archived_sessions/: named as it is live
            live = counted if kept[0].label.startswith("archived_sessions/") else kept[0]
            counted = replace(live, gone=kept[0].gone and gone)
        self.codex[thread] = (counted, parent)

    def _gemini(self, entry: Entry, head: bytes, gone: bool) -> None:
        from .readers.gemini_files import head_identity
        from .readers.values import normalize_timestamp

        session, start = head_identity(head)
        counted = _Counted("gemini", entry.label, normalize_timestamp(start), gone)
        session = session or entry.label
        if entry.role == "subagent":  # chats/<its session's id>/<file>
            self.gemini_agents.append((counted, entry.label.rsplit("/", 2)[-2] if "/" in entry.label else ""))
        else:
            self.gemini.setdefault(session, []).append(counted)

    def sessions(self) -> list[_Counted]:
        out = list(self.claude)
        out += [counted for counted, parent in self.codex.values() if parent is None or parent not in self.codex]
        for files in self.gemini.values():
            first = min(files, key=lambda f: (f.started or "9", f.label))
            out.append(replace(first, gone=all(f.gone for f in files)))
        out += [counted for counted, parent in self.gemini_agents if parent not in self.gemini]
        return out + self.others

    def tell(self, report: Summary) -> None:
        """Put the count, by agent, the gone and the first and last starts into ``report``."""
        for counted in self.sessions():
            report.sessions += 1
            report.by_kind[counted.kind] = report.by_kind.get(counted.kind, 0) + 1
            report.gone += counted.gone
            if counted.started is None:
                continue
            moment = (counted.started, counted.label)
            report.oldest = moment if report.oldest is None else min(report.oldest, moment)
            report.newest = moment if report.newest is None else max(report.newest, moment)


def _head_objects(head: bytes) -> Iterator[dict[str, Any]]:
    """The JSON objects of a copy's first whole lines."""
    lines = head.split(b"\n")[:-1] if b"\n" in head else [head]  # the last one may be cut by the head's end
    for line in lines:
        obj, _ = parse_line(line, shallow=True)
        if isinstance(obj, dict):
            yield obj


def _claude_start(head: bytes) -> str | None:
    """When a Claude Code session started, as its page says: its earliest record time,
    among its first lines (a resume's copied history comes first: docs/formats-claude.md C11)."""
    from .readers.values import normalize_timestamp

    times = [stamp for obj in _head_objects(head) if obj.get("type") in ("user", "assistant", "system")
             and (stamp := normalize_timestamp(obj.get("timestamp")))]
    return min(times) if times else None


def _parse_problem(entry: Entry, chunks: Iterable[bytes]) -> str:
    if entry.kind == "gemini" and not entry.label.endswith((".json", ".jsonl")):
        for _ in chunks:  # a .project_root: a path, as text (read to the end: the sha256 covers it)
            pass
        return ""
    if entry.label.endswith(".meta.json") or (entry.kind == "gemini" and entry.label.endswith(".json")):
        data = b"".join(chunks)
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError as err:
            return f"not valid JSON ({err})"
        return ""
    parsed = False
    rest = b""
    for chunk in chunks:  # read to the end even once a line parsed: the sha256 covers every byte
        if parsed:
            continue
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        parsed = any(line.strip() and parse_line(line)[0] is not None for line in lines)
        if len(rest) > MAX_LINE_BYTES:
            rest = b""  # a line the reader would skip too
    if not parsed and rest.strip():
        parsed = parse_line(rest)[0] is not None
    return "" if parsed or entry.size == 0 else "no line of it parses as a JSON object"


def _nested(kind: str, head: bytes) -> bool:
    from .readers.layouts import LAYOUTS

    layout = LAYOUTS.get(kind)
    return layout is not None and layout.nested(head)
