"""Codex CLI rollouts -> model.

A rollout is one thread's JSONL file. Forks and sub-agent spawns start their
file with a copy of the parent's history, so files must be read together.
Reading takes four steps:

1. ``scan_rollout`` (codex_rollouts.py) reads each file once for what links
   files together: its identity (the first ``session_meta``), a digest of every
   line's ``(type, payload)`` (timestamps left out: copies carry rewritten
   ones), ordinals and counts.
2. ``plan_thread`` (codex_rollouts.py) decides, for a fork or sub-agent, how
   many lines after its identity are history copied from its parent: by
   matching them against the parent's lines; if the parent is not among the
   inputs, by ordinals or, failing that, by the leading burst of copied lines
   (with a InputWarning either way).
3. ``ThreadReader`` (codex_thread.py) reads each file again: copied lines only
   move the token baseline (codex_tokens.py) and the current model; the
   thread's own lines become the timeline (tool calls and results:
   codex_tools.py) and the Tally.
4. Here: sub-agent threads are nested under their parent's spawning call (their
   counts added to the parent session's, like Claude sub-agents); sessions come
   out sorted.

The rules, with the evidence for each, are in docs/formats-codex.md and
docs/stats.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..inherit import Inheritance
from ..model import SOURCE_CODEX, Session, SubagentRun, ToolCall, InputWarning
from .codex_rollouts import Lineage, Scan, normalize, plan_thread, scan_rollout
from .codex_thread import Thread, ThreadReader
from .lines import JsonlFile
from .reader import LabelFn, UnitFiles, WarnFn, labeller
from .values import as_dict, as_str, first_reply_sentence, one_line, untitled


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
    plans = {scan.id: plan_thread(scan, scans) for scan in scans.values()}
    threads = {tid: ThreadReader(scans[tid], plans[tid], titles).read() for tid in sorted(scans)}
    sessions = _assemble(threads, warn)
    sessions.sort(key=lambda s: (s.started or "", s.id))
    return sessions


def _scan_all(paths: list[Path], warn: WarnFn, label: LabelFn) -> dict[str, Scan]:
    """Scan every file; one thread kept per id (a rollout can be both in
    ``sessions/`` and ``archived_sessions/``: the longer copy, then the
    ``sessions/`` one, is kept)."""
    kept: dict[str, Scan] = {}
    for path in sorted(set(paths), key=str):
        name = label(path)
        if path.name.endswith(".zst"):
            warn(InputWarning(name, 0, "compressed rollout (.jsonl.zst) skipped; bough reads plain .jsonl"))
            continue
        scan = scan_rollout(path, name, warn)
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


def _preferred(a: Scan, b: Scan) -> bool:
    return (a.line_count, not a.archived) > (b.line_count, not b.archived)


def _drop_internal(scans: dict[str, Scan], home: Path, warn: WarnFn) -> dict[str, Scan]:
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


def _scan_cwd(scan: Scan) -> str | None:
    cwd = as_str(scan.meta.get("cwd"))
    if cwd:
        return cwd
    if any(line.kind == "turn_context" for line in scan.lines):
        for _, obj in JsonlFile(scan.path, scan.label, lambda warning: None, max_bytes=scan.size):
            kind, payload = normalize(obj)
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


def _assemble(threads: dict[str, Thread], warn: WarnFn) -> list[Session]:
    """Sub-agents nest under their parent (deepest first, so a grandchild's
    counts reach the root through its parent); everything else is a session."""
    roots = {tid: t for tid, t in threads.items() if _parent_in(t, threads) is None}
    nested = [t for tid, t in threads.items() if tid not in roots]
    nested.sort(key=lambda t: (-_depth(t, threads), t.scan.id))
    orphans: dict[str, list[SubagentRun]] = {}
    members: dict[str, list[Thread]] = {}
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


def _parent_in(thread: Thread, threads: dict[str, Thread]) -> str | None:
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


def _ancestors(thread: Thread, threads: dict[str, Thread]) -> list[str]:
    out = []
    current = _parent_in(thread, threads)
    while current is not None:
        out.append(current)
        current = _parent_in(threads[current], threads)
    return out


def _depth(thread: Thread, threads: dict[str, Thread]) -> int:
    return len(_ancestors(thread, threads))


def _root_of(thread: Thread, threads: dict[str, Thread]) -> str:
    chain = _ancestors(thread, threads)
    return chain[-1] if chain else thread.scan.id


def _spawning_call(child: Thread, parent: Thread) -> ToolCall | None:
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


def _subagent_run(thread: Thread) -> SubagentRun:
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


def _session(thread: Thread, orphans: list[SubagentRun], children: list[Thread], warn: WarnFn) -> Session:
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


def _title(thread: Thread) -> str:
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


def _orphan_note(lineage: Lineage) -> str:
    if lineage.kind != "subagent":
        return ""
    return f"sub-agent whose parent session {lineage.parent} is not here; shown as a session of its own"
