"""OpenCode sessions -> model (docs/formats-opencode.md).

A unit is one OpenCode data directory: its databases (``opencode*.db``), the
exports of them bough's archive keeps (§10), and the JSON-era files under
``storage/`` (§1). Reading takes three steps:

1. each source is read into raw sessions (opencode_rows, opencode_sqlite): rows
   or files, joined by id;
2. every session is kept once: the database's copy over an export's over the
   frozen JSON copy (§9.1);
3. each session becomes a timeline (opencode_timeline), and child sessions (the
   ``task`` tool's sub-agents, §7) nest under the call that started them, their
   counts rolled into the root (§9.7); a root is a session without a parent here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..inherit import Inheritance
from ..model import SOURCE_OPENCODE, InputWarning, Session, SubagentRun, ToolCall, number_anchors
from ..stats import Tally
from .opencode_rows import (
    Found,
    RawSession,
    from_database,
    merge,
    read_export,
    read_json_files,
)
from .opencode_sqlite import is_sqlite, read_tables
from .opencode_timeline import SessionTimeline, key, ms_time
from .reader import UnitFiles, WarnFn, labeller
from .values import as_dict, as_str, first_reply_sentence, one_line, untitled

# §1: beside a database, never read as files of their own.
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")
# §7: the titles OpenCode gives a session before it has one of its own.
DEFAULT_TITLES = ("New session - ", "Child session - ")
_SUBAGENT_SUFFIX = " subagent)"
# Nesting deeper than this is a loop in the parent ids, not sub-agents.
MAX_DEPTH = 64


def file_kind(path: Path) -> str:
    """``db``, ``export`` (§10), ``json`` (the JSON era, §1) or "" (not read)."""
    name = path.name
    if name.endswith(COMPANION_SUFFIXES):
        return ""
    if path.suffix == ".jsonl":
        return "export"
    if path.suffix == ".json":
        return "json"
    if path.suffix == ".db" or is_sqlite(path):
        return "db"
    return ""


def read_unit(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
    """The registry's reader: one data directory's files (OpenCode copies no history
    from one session into another, so ``inherit`` is never used)."""
    label = labeller(unit)
    return read_opencode([(Path(p), label(Path(p))) for p in unit.paths], warn)


def read_opencode(files: list[tuple[Path, str]], warn: WarnFn) -> list[Session]:
    found: list[Found] = []
    json_files: list[tuple[Path, str]] = []
    for path, label in files:
        kind = file_kind(path)
        if kind == "db":
            found.append(from_database(read_tables(path, label, warn), label, warn))
        elif kind == "export":
            found.append(read_export(path, label, warn))
        elif kind == "json":
            json_files.append((path, label))
    if json_files:
        found.append(read_json_files(json_files, warn))
    sessions, worktrees = merge(found)
    return _Sessions(sessions, worktrees, warn).build()


class _Sessions:
    def __init__(self, raw: dict[str, RawSession], worktrees: dict[str, str], warn: WarnFn):
        self.raw, self.worktrees, self.warn = raw, worktrees, warn
        self.children: dict[str, list[str]] = {}
        for sid, session in raw.items():
            parent = session.parent_id
            if parent and parent in raw and parent != sid:
                self.children.setdefault(parent, []).append(sid)
        for kids in self.children.values():
            kids.sort(key=lambda sid: (_created(raw[sid]), sid))
        self.placed: set[str] = set()

    def build(self) -> list[Session]:
        roots = [sid for sid, s in self.raw.items() if not s.parent_id or s.parent_id not in self.raw
                 or s.parent_id == sid]
        sessions = [self._session(sid) for sid in roots]
        # Sessions in a loop of parent ids (damaged data) belong to no root: each stands alone.
        for sid in sorted(set(self.raw) - self.placed):
            note = InputWarning(self._label(sid), 0, f"session {sid}: its parents form a loop; shown on its own")
            self.raw[sid].warnings.append(note)
            self.warn(note)
            sessions.append(self._session(sid, lone=True))
        sessions.sort(key=lambda s: (s.started or "", s.id))
        return sessions

    def _label(self, sid: str) -> str:
        files = self.raw[sid].files
        return files[0] if files else "opencode"

    def _session(self, sid: str, *, lone: bool = False) -> Session:
        raw = self.raw[sid]
        self.placed.add(sid)
        parent = raw.parent_id
        if parent and parent not in self.raw:
            note = InputWarning(self._label(sid), 0, f"sub-agent of session {parent}, which is not here; "
                                                     "shown as a session of its own")
            raw.warnings.append(note)
            self.warn(note)
        tally = Tally(has_reasoning=True)
        timeline = SessionTimeline(raw, tally, self.warn, root=True).read()
        orphans: list[SubagentRun] = []
        warnings = list(raw.warnings)
        models = list(timeline.models)
        if not lone:
            self._nest(timeline, orphans, warnings, models, depth=0)
        number_anchors(timeline.items)
        info = raw.info
        started = ms_time(as_dict(info.get("time")).get("created")) or (min(timeline.times) if timeline.times else None)
        ended = ms_time(as_dict(info.get("time")).get("updated")) or (max(timeline.times) if timeline.times else None)
        session = Session(
            id=sid,
            source=SOURCE_OPENCODE,
            cwd=self._cwd(raw) or None,
            title=_title(info, timeline, started),
            started=started,
            ended=ended,
            versions=[as_str(info.get("version"))] if as_str(info.get("version")) else [],
            models=list(dict.fromkeys(models)),
            git_branch=None,
            files=list(dict.fromkeys(raw.files)),
            timeline=timeline.items,
            stats=tally.stats(),
            warnings=warnings,
            orphan_subagents=orphans,
        )
        session.tally = tally
        return session

    def _nest(self, parent: SessionTimeline, orphans: list[SubagentRun], warnings: list[InputWarning],
              models: list[str], depth: int) -> None:
        """Each child session under the task call that started it (§7), its counts
        rolled into ``parent``'s tally (not its prompts: §9.3), grandchildren first."""
        taken: set[int] = set()
        for cid in self.children.get(parent.raw.id, ()):
            if cid in self.placed or depth >= MAX_DEPTH:
                continue
            self.placed.add(cid)
            raw = self.raw[cid]
            child = SessionTimeline(raw, Tally(has_reasoning=True), self.warn, root=False).read()
            self._nest(child, orphans, warnings, models, depth + 1)
            number_anchors(child.items)
            warnings += raw.warnings
            models += child.models
            run = SubagentRun(cid, _agent_type(raw, child), _description(raw), self._label(cid), child.items,
                              child.tally.stats(), list(child.models))
            parent.tally.merge(child.tally, prompts_and_commands=False)
            parent.tally.subagents.add(key(cid))
            call = parent.child_calls.get(cid)
            if call is None or call.subagent is not None:
                call = _by_description(parent, run, taken)
            if call is None or call.subagent is not None:
                orphans.append(run)
                continue
            taken.add(id(call))
            call.subagent = run

    def _cwd(self, raw: RawSession) -> str:
        """§1: the session's ``directory``; else its project's worktree; else the
        first assistant message's ``path.cwd``."""
        directory = as_str(raw.info.get("directory"))
        if directory:
            return directory
        worktree = self.worktrees.get(as_str(raw.info.get("projectID")), "")
        if worktree and worktree != "/":
            return worktree
        for message in raw.ordered_messages():
            path = message.data.get("path")
            cwd = as_str(as_dict(path).get("cwd")) or as_str(path)
            if cwd:
                return cwd
        return ""


def _created(raw: RawSession) -> int:
    value = as_dict(raw.info.get("time")).get("created")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _by_description(parent: SessionTimeline, run: SubagentRun, taken: set[int]) -> ToolCall | None:
    """A task call that names no child: the first free one whose description the
    child's title starts with (§7: "<description> (@<agent> subagent)")."""
    for call in parent.task_calls:
        if id(call) in taken or call.subagent is not None or call in parent.child_calls.values():
            continue
        description = as_str(as_dict(call.input).get("description")).strip()
        if description and run.description and run.description.startswith(description):
            return call
    return None


def _description(raw: RawSession) -> str | None:
    title = as_str(raw.info.get("title")).strip()
    if not title or title.startswith(DEFAULT_TITLES):
        return None
    if title.endswith(_SUBAGENT_SUFFIX) and " (@" in title:
        title = title[: title.rindex(" (@")]
    return one_line(title) or None


def _agent_type(raw: RawSession, child: SessionTimeline) -> str | None:
    title = as_str(raw.info.get("title"))
    if title.endswith(_SUBAGENT_SUFFIX) and " (@" in title:
        return title[title.rindex(" (@") + 3: -len(_SUBAGENT_SUFFIX)] or None
    return child.agents[0] if child.agents else None


def _title(info: dict[str, Any], timeline: SessionTimeline, started: str | None) -> str:
    """The title OpenCode gave the session, unless it is still the default one;
    else the first prompt, the first reply's first sentence, when it started."""
    title = as_str(info.get("title")).strip()
    if title.startswith(DEFAULT_TITLES):
        title = ""
    for candidate in (title, timeline.first_prompt, first_reply_sentence(timeline.items)):
        line = one_line(candidate)
        if line:
            return line
    return untitled(started)
