"""GitHub Copilot CLI sessions -> model (docs/formats-copilot.md).

A unit is one session (copilot_layout.py): its event log with ``workspace.yaml``
beside it, a bare event log, or a 2025 ``history-session-state/<id>.json``. The
log's events become the timeline (copilot_events.py); sub-agent runs nest under
the calls that started them (§6); the tokens are the replies' output and the
shutdown records' input, cache and reasoning (copilot_tokens.py, §8), unknown
(null, never 0) where the files do not hold them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..inherit import Inheritance
from ..model import (
    SOURCE_COPILOT,
    TOKEN_STAT_KEYS,
    InputWarning,
    Marker,
    Reply,
    Session,
    SubagentRun,
    TimelineItem,
    number_anchors,
)
from ..stats import Tally
from .copilot_events import PER_SESSION_KEYS, Agent, EventLog
from .copilot_layout import EVENTS, WORKSPACE
from .copilot_legacy import guess_cwd, read_legacy
from .copilot_tokens import session_tokens
from .lines import JsonlFile, open_regular
from .reader import UnitFiles, WarnFn, labeller
from .values import as_dict, as_str, first_reply_sentence, normalize_timestamp, one_line, untitled

# The largest legacy .json read (one object, parsed whole).
MAX_LEGACY_BYTES = 256 * 1024 * 1024
_DESCRIPTION_KEYS = ("description", "prompt", "task", "query")


def read_unit(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
    """The registry's reader: one session's files (Copilot CLI copies no history)."""
    name_of = labeller(unit)
    paths = [Path(p) for p in unit.paths]
    main = next((p for p in paths if p.name != WORKSPACE), None)
    if main is None:
        return []
    workspace = next((p for p in paths if p.name == WORKSPACE), None)
    notes: list[InputWarning] = []

    def sink(warning: InputWarning) -> None:
        notes.append(warning)
        warn(warning)

    meta = read_workspace(workspace, name_of(workspace), sink) if workspace is not None else {}
    label = name_of(main)
    if main.suffix == ".json":
        session = _legacy_session(main, label, sink)
    else:
        session = _event_session(main, label, meta, sink)
    if session is None:
        return []
    if workspace is not None:
        session.files.append(name_of(workspace))
    session.warnings = notes
    return [session]


# --- workspace.yaml (§10) ------------------------------------------------------------------------


def read_workspace(path: Path, label: str, warn: WarnFn) -> dict[str, str]:
    """The flat ``key: value`` lines of ``workspace.yaml``, read by hand (§10: no
    nesting is written); quotes taken off, anything else skipped."""
    handle = open_regular(path, label, warn)
    if handle is None:
        return {}
    with handle:
        raw = handle.read(1024 * 1024)
    out: dict[str, str] = {}
    block: tuple[str, str, list[str]] | None = None  # a ``key: |`` or ``key: >`` value being read
    for line in raw.decode("utf-8", "replace").splitlines():
        if block is not None and (line.startswith((" ", "\t")) or not line.strip()):
            block[2].append(line.strip())
            continue
        if block is not None:
            key, style, lines = block
            out[key] = ("\n" if style == "|" else " ").join(lines).strip()
            block = None
        if not line.strip() or line.startswith((" ", "\t", "#", "-")):
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip():
            continue
        if value.strip().rstrip("+-") in ("|", ">"):
            block = (key.strip(), value.strip()[0], [])
        else:
            out[key.strip()] = _scalar(value.strip())
    if block is not None:
        out[block[0]] = ("\n" if block[1] == "|" else " ").join(block[2]).strip()
    return out


def _scalar(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"').replace("\\\\", "\\")
    if value in ("~", "null"):
        return ""
    return value.split(" #", 1)[0].strip()


# --- event logs ---------------------------------------------------------------------------------


def _event_session(path: Path, label: str, meta: dict[str, str], warn: WarnFn) -> Session | None:
    log = EventLog(label, f"copilot:{label}", lambda line, reason: warn(InputWarning(label, line, reason)))
    file = JsonlFile(path, label, warn)
    for line, record in file:
        log.feed(line, record)
    tally = log.main.tally
    tally.lines += file.lines
    tally.skipped_lines += file.skipped
    if not file.lines:
        return None
    start = log.start
    session_id = as_str(start.get("sessionId")) or as_str(meta.get("id")) or _id_from_label(label)
    runs, orphans, run_models = _runs(log, label)
    _tokens(log, session_id, label, warn)
    items = log.main.items
    number_anchors(items)
    context = log.contexts[0] if log.contexts else {}
    started = normalize_timestamp(start.get("startTime")) or (min(log.times) if log.times else None)
    models = [*log.main.models, *run_models, *log.shutdown_models]
    session = Session(
        id=session_id,
        source=SOURCE_COPILOT,
        cwd=as_str(context.get("cwd")) or meta.get("cwd") or _later_cwd(log) or None,
        title=_title(meta.get("name", ""), log.main.first_prompt, items, started),
        started=started,
        ended=max(log.times) if log.times else started,
        versions=list(log.versions),
        models=list(dict.fromkeys(m for m in models if m)),
        git_branch=as_str(context.get("branch")) or meta.get("branch") or None,
        files=[label],
        timeline=items,
        stats={},
        orphan_subagents=orphans,
    )
    session.tally = tally
    session.stats = tally.stats()
    return session


def _id_from_label(label: str) -> str:
    parts = label.split("/")
    if parts[-1] == EVENTS and len(parts) >= 2:
        return parts[-2]
    return parts[-1].rsplit(".", 1)[0]


def _later_cwd(log: EventLog) -> str:
    return next((as_str(c.get("cwd")) for c in log.contexts if as_str(c.get("cwd"))), "")


def _runs(log: EventLog, label: str) -> tuple[list[SubagentRun], list[SubagentRun], list[str]]:
    """§6: each sub-agent's run, under the call that started it (else an orphan);
    its counts join the session's, its prompts do not."""
    placed, orphans, models = [], [], []
    for key, agent in log.subs.items():
        info = log.sub_info.get(key)
        call = log.calls.get(key)
        number_anchors(agent.items)
        stats = {**agent.tally.stats(), **{k: None for k in PER_SESSION_KEYS}}  # §8.1: only output is per reply
        described = _description(call.input if call is not None else None) or (info.description if info else "")
        run = SubagentRun(agent_id=(info.agent_id if info and info.agent_id else key),
                          agent_type=(info.name if info and info.name else None),
                          description=one_line(described) if described else None,
                          file=label, timeline=agent.items, stats=stats, models=list(agent.models))
        log.main.tally.merge(agent.tally, prompts_and_commands=False)
        log.main.tally.subagents.add(f"{log.prefix}:agent:{key}")
        models += agent.models
        if call is not None and call.subagent is None and not _inside(call, agent):
            call.subagent = run
            placed.append(run)
        else:
            orphans.append(run)
    return placed, orphans, models


def _inside(call: Any, agent: Agent) -> bool:
    """Whether ``call`` is one of the run's own (a run never nests under itself)."""
    return any(isinstance(item, Reply) and call in item.blocks for item in agent.items)


def _description(args: Any) -> str:
    args = as_dict(args)
    return next((as_str(args[key]) for key in _DESCRIPTION_KEYS if as_str(args.get(key)).strip()), "")


def _tokens(log: EventLog, session_id: str, label: str, warn: WarnFn) -> None:
    """§8: the shutdowns' input, cache and reasoning as the session's totals, or
    those figures unknown; output from the replies (or, where a reply's record
    lacks it, from the shutdowns)."""
    tally = log.main.tally
    tokens = session_tokens(log.legs)
    for line, note in tokens.notes:
        warn(InputWarning(label, line, note))
    usages = list(tally.replies.values())
    lacking = [u for u in usages if "output_tokens" in u.unknown_keys and not u.unknown]
    known_output = sum(u.output_tokens for u in usages if not u.unknown)
    identity = f"{SOURCE_COPILOT}:{session_id}"
    if tokens.usage is None:
        tally.mark_unknown(identity, *PER_SESSION_KEYS)
        if lacking:
            tally.mark_unknown(identity, "output_tokens")
        text = f"Input, cache and reasoning tokens unknown: {tokens.why}."
        log.main.items.append(Marker(f"{session_id}:tokens", max(log.times) if log.times else None, "notice", text))
        return
    if lacking and tokens.output is not None:
        tokens.usage.output_tokens = max(0, tokens.output - known_output)
    elif tokens.output is not None and tokens.output != known_output and not any(u.unknown for u in usages):
        warn(InputWarning(label, 0, f"the shutdown records count {tokens.output:,} output tokens, the replies "
                                    f"{known_output:,}; the replies' are counted (§8.1)"))
    tally.totals[f"{log.prefix}:shutdowns"] = tokens.usage


def _title(name: str, first_prompt: str, items: list[TimelineItem], started: str | None) -> str:
    """§10: the name the CLI gave the session (workspace.yaml), else the first
    prompt, the first reply's first sentence; else when it started."""
    for candidate in (name, first_prompt, first_reply_sentence(items)):
        line = one_line(candidate)
        if line:
            return line
    return untitled(started)


# --- legacy .json (§9) ----------------------------------------------------------------------------


def _legacy_session(path: Path, label: str, warn: WarnFn) -> Session | None:
    data = _load_json(path, label, warn)
    if data is None:
        return None
    prefix = f"copilot:{label}"
    tally = Tally(has_reasoning=True, session=True)
    legacy = read_legacy(data, prefix, tally, lambda line, reason: warn(InputWarning(label, line, reason)))
    tally.lines += 1
    session_id = legacy.session_id or path.stem
    tally.mark_unknown(f"{SOURCE_COPILOT}:{session_id}", *TOKEN_STAT_KEYS)
    number_anchors(legacy.items)
    started = legacy.started or (min(legacy.times) if legacy.times else None)
    cwd = guess_cwd(legacy.items)
    if cwd:
        note = ("Copilot CLI's 2025 sessions record no working directory: this is the one its shell "
                "commands most often began by entering (cd).")
        legacy.items.insert(0, Marker(f"{session_id}:directory", started, "notice", note))
    session = Session(
        id=session_id, source=SOURCE_COPILOT, cwd=cwd or None,
        title=_title("", legacy.first_prompt, legacy.items, started), started=started,
        ended=max(legacy.times) if legacy.times else started, versions=[], models=[], git_branch=None,
        files=[label], timeline=legacy.items, stats={},
    )
    session.tally = tally
    session.stats = tally.stats()
    return session


def _load_json(path: Path, label: str, warn: WarnFn) -> dict[str, Any] | None:
    handle = open_regular(path, label, warn)
    if handle is None:
        return None
    with handle:
        raw = handle.read(MAX_LEGACY_BYTES + 1)
    if len(raw) > MAX_LEGACY_BYTES:
        warn(InputWarning(label, 0, f"larger than {MAX_LEGACY_BYTES} bytes, skipped"))
        return None
    try:
        data = orjson.loads(raw.lstrip(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError as err:
        warn(InputWarning(label, 0, f"not JSON ({err.msg}), skipped"))
        return None
    if not isinstance(data, dict):
        warn(InputWarning(label, 0, "not a JSON object, skipped"))
        return None
    return data
