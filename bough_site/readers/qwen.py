"""Qwen Code chat recordings -> model (docs/formats-qwen.md).

A unit is one project folder, ``projects/<encoded cwd>/``: its chat files
(``chats/<sessionId>.jsonl``, and the CLI's archived copies ``chats/archive/``),
and its sub-agents' transcripts (``subagents/<sessionId>/agent-<id>.jsonl`` with a
``.meta.json`` beside each). Reading it takes three steps:

1. ``qwen_lines.load_file`` reads each file into records (glued lines apart,
   a uuid written twice taken once);
2. ``qwen_chat.ChatReader`` turns a chat's records into timeline items and counts;
3. ``qwen_agents`` makes the sub-agents' runs (from the parent's telemetry, or
   their own files) and nests them under the calls that started them.

A session is one ``sessionId``: its live file, else its archived copy (§8.1).
Its directory is the ``cwd`` its records stamp, never the folder's lossy name (§1).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from ..inherit import Inheritance
from ..model import SOURCE_QWEN, InputWarning, Marker, Session, TimelineItem, number_anchors
from ..stats import Tally
from .lines import open_regular
from .qwen_agents import Run, file_run, matches, nest, telemetry_runs
from .qwen_chat import ChatReader
from .qwen_lines import QwenFile, load_file
from .reader import LabelFn, UnitFiles, WarnFn, labeller
from .values import as_dict, first_command, first_reply_sentence, one_line, untitled

LEGACY_NOTE = ("a Qwen Code session in the single-JSON form of versions before late 2025: not read "
               "(Qwen Code itself no longer reads it; docs/formats-qwen.md §1)")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def read_unit(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
    """The registry's reader: a Qwen unit is one project folder's files (nothing is
    inherited the way inherit.py means: a /branch copy is marked by the CLI itself)."""
    return read_qwen_sessions([Path(p) for p in unit.paths], warn, label=labeller(unit))


def is_agent_file(path: Path) -> bool:
    return path.name.startswith("agent-") and path.name.endswith(".jsonl") and path.parent.parent.name == "subagents"


def is_archived(path: Path) -> bool:
    return path.parent.name == "archive" and path.parent.parent.name == "chats"


def read_qwen_sessions(paths: list[Path], warn: WarnFn, *, label: LabelFn = str) -> list[Session]:
    chats: list[QwenFile] = []
    agents: dict[str, list[Path]] = {}
    metas: dict[Path, dict[str, Any]] = {}
    # The layout is told from the labels (an archived copy keeps its live file's label).
    for path in sorted(set(paths), key=str):
        where = Path(label(path))
        if path.name.endswith(".meta.json"):
            metas[path.with_name(path.name.removesuffix(".meta.json") + ".jsonl")] = _meta(path)
        elif is_agent_file(where):
            agents.setdefault(where.parent.name, []).append(path)
        elif path.name.endswith(".json"):
            warn(InputWarning(label(path), 0, LEGACY_NOTE))
        elif (file := load_file(path, label(path), warn)).records:  # an empty or unreadable file: its warning
            chats.append(file)
    by_id: dict[str, list[QwenFile]] = {}
    for file in chats:
        by_id.setdefault(file.session_id(), []).append(file)
    sessions = []
    for sid, files in by_id.items():
        live = [f for f in files if not is_archived(Path(f.label))]
        agent_files = [(load_file(p, label(p), warn), metas.get(p, {})) for p in agents.pop(sid, [])]
        sessions.append(_session(sid, live or files, agent_files, warn))
    for sid, orphans in agents.items():  # sub-agent files whose session is not here
        for path in orphans:
            warn(InputWarning(label(path), 0, f"sub-agent of session {sid}, which is not here; not shown"))
    sessions.sort(key=lambda s: (s.started or "", s.id))
    return sessions


def _meta(path: Path) -> dict[str, Any]:
    handle = open_regular(path, path.name, lambda warning: None)
    if handle is None:
        return {}
    with handle:
        try:
            return as_dict(orjson.loads(handle.read(1 << 20)))
        except orjson.JSONDecodeError:
            return {}


def _session(sid: str, segments: list[QwenFile], agent_files: list[tuple[QwenFile, dict[str, Any]]],
             warn: WarnFn) -> Session:
    segments.sort(key=lambda f: (min((t for _, r in f.records if isinstance(t := r.get("timestamp"), str)),
                                     default=""), f.label))
    tally = Tally(has_reasoning=True)
    readers = [ChatReader(file, tally, warn, main=True).read() for file in segments]
    timeline: list[TimelineItem] = [item for reader in readers for item in reader.items]
    number_anchors(timeline)
    runs = _runs(readers, agent_files, warn)
    for run in runs:
        tally.merge(run.tally, prompts_and_commands=False)
        tally.subagents.add(f"qwen:{sid}:agent:{run.run.agent_id}")
    orphans = nest(runs, [pair for reader in readers for pair in reader.call_times])
    cwd, others = _working_directory(segments, readers)
    if others:
        note = "The records name more than one working directory: also " + ", ".join(others) + "."
        timeline.insert(0, Marker(f"qwen:{sid}:directories", timeline[0].timestamp if timeline else None,
                                  "notice", note))
    times = sorted(t for reader in readers for t in reader.times)
    models = [m for reader in readers for m in reader.models] + [m for run in runs for m in run.run.models]
    session = Session(
        id=sid,
        source=SOURCE_QWEN,
        cwd=cwd,
        title=_title(readers, timeline, times[0] if times else None),
        started=times[0] if times else None,
        ended=times[-1] if times else None,
        versions=list(dict.fromkeys(v for reader in readers for v in reader.versions)),
        models=list(dict.fromkeys(models)),
        git_branch=next((r.branch for r in reversed(readers) if r.branch), None),
        files=[f.label for f in segments] + [f.label for f, _ in agent_files],
        timeline=timeline,
        stats=tally.stats(),
        warnings=[w for f in [*segments, *(f for f, _ in agent_files)] for w in f.warnings],
        orphan_subagents=orphans,
    )
    session.tally = tally
    return session


def _runs(readers: list[ChatReader], agent_files: list[tuple[QwenFile, dict[str, Any]]], warn: WarnFn) -> list[Run]:
    """The session's sub-agent runs: one per agent its telemetry names, the
    transcript file of that agent standing in for the telemetry's view where there is
    one, and one per transcript file no telemetry names."""
    from_events: dict[str, Run] = {}
    for reader in readers:
        from_events.update(telemetry_runs(reader, warn))
    runs: list[Run] = []
    for file, meta in sorted(agent_files, key=lambda pair: pair[0].label):
        stem = file.path.name.removesuffix(".jsonl").removeprefix("agent-")
        key = next((k for k in from_events if matches(k, stem)), None)
        runs.append(file_run(file, meta, from_events.pop(key) if key is not None else None, warn))
    return list(from_events.values()) + runs


def sanitized(cwd: str) -> str:
    """Qwen Code's folder name for a directory (§1): every character that is not
    an ASCII letter or digit becomes ``-``."""
    return _NOT_ALNUM.sub("-", cwd)


def _working_directory(segments: list[QwenFile], readers: list[ChatReader]) -> tuple[str | None, list[str]]:
    """The session's directory (§1): of the ``cwd``s its records stamp, the one its
    project folder is named for, else the first; and the others."""
    cwds = list(dict.fromkeys(c for reader in readers for c in reader.cwds))
    if not cwds:
        return None, []
    folders = {_project_folder(Path(f.label)) for f in segments}
    chosen = next((c for c in cwds if sanitized(c) in folders or sanitized(c).lower() in folders), cwds[0])
    return chosen, [c for c in cwds if c != chosen]


def _project_folder(path: Path) -> str:
    """The ``projects/<enc>`` folder name of a chat file (or of an archived copy)."""
    chats = path.parent.parent if is_archived(path) else path.parent
    return chats.parent.name if chats.name == "chats" else ""


def _title(readers: list[ChatReader], timeline: list[TimelineItem], started: str | None) -> str:
    """The title the user or the CLI gave (the last ``custom_title`` not rewound),
    else the first prompt, the first command, the first reply's first sentence; else
    when it started (§3)."""
    custom = next((t for reader in reversed(readers) for t in reversed(reader.titles)), "")
    first = next((r.first_prompt for r in readers if r.first_prompt.strip()), "")
    for candidate in (custom, first, first_command(timeline), first_reply_sentence(timeline)):
        line = one_line(candidate)
        if line:
            return line
    return untitled(started)
