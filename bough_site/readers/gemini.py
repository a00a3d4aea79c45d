"""Gemini CLI chat recordings -> model.

A session file is either a legacy ``.json`` (one object, rewritten whole) or an
append-only ``.jsonl`` log that must be replayed (docs/formats-gemini.md §3, §4).
Reading takes three steps:

1. ``gemini_log.load_file`` reads one file into its *event view*: every message
   id ever written, its last copy, in the order ids first appeared. Replaying the
   log also gives the *final view* (what ``$set.messages`` snapshots and
   ``$rewindTo`` lines left), used only to mark records ``rewound`` or
   ``compacted``: they were written and billed, so they are shown and counted.
2. ``_FileReader`` turns one file's records into timeline items (prompts, replies
   with thoughts and tool calls, commands, notices), counting identities into a
   Tally as it goes (§7).
3. ``read_gemini_sessions`` groups the files: files sharing a ``sessionId`` are
   segments of one session, shown in time order; sub-agent files are nested under
   the call that launched them (§5). The working directory is recovered from
   ``projectHash`` (gemini_project.py, §6).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ..inherit import Inheritance
from ..model import (
    SOURCE_GEMINI,
    Command,
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
    number_anchors,
)
from ..stats import Tally
from .gemini_files import folder_roots, project_folder
from .gemini_log import SNAPSHOT_TAG, GeminiFile, load_file, parts_of, text_of
from .gemini_project import recover_root, strings_in, unknown_root_note
from .lines import printable_name
from .reader import LabelFn, UnitFiles, WarnFn, labeller
from .values import (
    BAD_TIME,
    UNKNOWN_TOKENS,
    any_unknown,
    as_dict,
    as_int,
    as_str,
    bad_timestamp,
    first_command,
    first_reply_sentence,
    normalize_timestamp,
    one_line,
    untitled,
)


# §3: the record types; the notices become markers of these types.
NOTICE_TYPES = {"info": "notice", "error": "error", "warning": "warning"}
# §7, prompts: what the CLI wrote as a user record without anyone typing it.
CONTINUE_TEXTS = frozenset({"Please continue.", "System: Please continue."})
CONTEXT_PREFIXES = ("<session_context>", "<hook_context>")
# §5: the calls that launch a sub-agent. Before 0.39 an agent was also called by its
# own name: the one seen in real files is below.
AGENT_TOOLS = frozenset({"invoke_agent", "delegate_to_agent"})
NAMED_AGENTS = frozenset({"codebase_investigator"})
SHELL_TOOL = "run_shell_command"
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)
_DETAIL_KEYS = ("fileDiff", "fileName", "filePath", "diffStat", "isNewFile")
_DESCRIPTION_KEYS = ("description", "objective", "prompt", "task", "query")


# --- content -------------------------------------------------------------------------------


def _image(part: dict[str, Any]) -> Image | None:
    data = as_dict(part.get("inlineData"))
    if isinstance(data.get("data"), str) and data["data"]:
        return Image(media_type=as_str(data.get("mimeType")), data=data["data"])
    return None


def _contents(parts: list[dict[str, Any]]) -> list[Content]:
    out: list[Content] = []
    for part in parts:
        text = part.get("text")
        if isinstance(text, str) and text.strip() and not part.get("thought"):
            out.append(Text(text))
        elif (image := _image(part)) is not None:
            out.append(image)
    return out


def usage_of(tokens: Any) -> Usage:
    """One model call's usage (§7): fresh input is ``input - cached``; Gemini keeps
    ``thoughts`` outside ``output``, and both are billed as output. ``total`` is never added."""
    raw = as_dict(tokens)
    given, cached, thoughts = as_int(raw.get("input")), as_int(raw.get("cached")), as_int(raw.get("thoughts"))
    return Usage(
        input_tokens=max(0, given - cached),
        output_tokens=as_int(raw.get("output")) + thoughts,
        cache_creation_input_tokens=0,
        cache_read_input_tokens=cached,
        reasoning_output_tokens=thoughts,
        unknown=any_unknown(*(raw.get(key) for key in ("input", "cached", "thoughts", "output"))),
    )


def _total_mismatch(tokens: Any) -> str:
    raw = as_dict(tokens)
    if "total" not in raw or any_unknown(*(raw.get(key) for key in ("total", "input", "output", "thoughts", "tool"))):
        return ""  # an unknown count is said as such (UNKNOWN_TOKENS)
    parts = sum(as_int(raw.get(key)) for key in ("input", "output", "thoughts", "tool"))
    total = as_int(raw.get("total"))
    if total == parts:
        return ""
    return f"tokens.total {total} is not input + output + thoughts + tool ({parts}); the parts are counted"


# --- step 2: one file's timeline --------------------------------------------------------


class _FileReader:
    """Timeline items and counts from one file's event view. ``main``: the file is
    the session's own (its user records can be prompts and commands)."""

    def __init__(self, file: GeminiFile, tally: Tally, warn: WarnFn, *, main: bool):
        self.file, self.tally, self.main = file, tally, main
        self._sink = warn
        self.prefix = f"gemini:{file.session_id}:"
        self.items: list[TimelineItem] = []
        self.calls: list[tuple[ToolCall, str | None]] = []  # (call, its reply's time)
        self.agent_links: dict[str, ToolCall] = {}  # toolCalls[].agentId -> the call
        self.models: list[str] = []
        self.first_prompt = ""
        self._mismatch = False

    def read(self) -> _FileReader:
        for rid, record in self.file.records.items():
            self.tally.records.add(self.prefix + rid)
            kind = record.get("type")
            if bad_timestamp(record.get("timestamp")):
                self._warn(self.file.line_of.get(rid, 0), BAD_TIME)
            before = len(self.items)
            if kind == "user":
                self._user(rid, record)
            elif kind == "gemini":
                self._gemini(rid, record)
            else:
                self._notice(rid, record)
            removed = self.file.removed.get(rid)
            for item in self.items[before:]:
                item.removed = removed
        self.tally.lines += self.file.lines
        self.tally.skipped_lines += self.file.skipped
        return self

    # user records ------------------------------------------------------------------

    def _user(self, rid: str, record: dict[str, Any]) -> None:
        time = normalize_timestamp(record.get("timestamp"))
        parts = parts_of(record.get("content"))
        if any(isinstance(p.get("functionResponse"), dict) for p in parts):
            return  # a tool's response (0.44+), shown with its call
        text = text_of(parts).strip()
        shown = parts_of(record.get("displayContent"))
        typed = text_of(shown).strip()
        if text in CONTINUE_TEXTS or text.startswith(CONTEXT_PREFIXES):
            self.items.append(Marker(rid, time, "meta", text))
        elif SNAPSHOT_TAG in text:
            self.items.append(Marker(rid, time, "compaction", text))
        elif typed.startswith("/"):
            name, _, args = typed.partition(" ")
            self.items.append(Command(rid, time, name, args.strip()))
            if self.main:
                self.tally.commands.add(self.prefix + rid)
        else:
            # What was typed, when the record keeps it apart (an @file reference
            # expanded in ``content``), with the images that were sent.
            own = shown if typed and not any("functionResponse" in p for p in shown) else parts
            content = _contents(own)
            if own is shown:
                content += [c for c in _contents(parts) if isinstance(c, Image)]
            if not content:
                self.items.append(Marker(rid, time, "meta", "(empty message)"))
                return
            self.items.append(Prompt(rid, "", time, content))
            if self.main:
                self.tally.prompts.add(self.prefix + rid)
            if not self.first_prompt:
                self.first_prompt = text_of(own)

    # model records -----------------------------------------------------------------

    def _gemini(self, rid: str, record: dict[str, Any]) -> None:
        time = normalize_timestamp(record.get("timestamp"))
        model = as_str(record.get("model")) or None
        tokens = record.get("tokens")
        counted = model is not None or isinstance(tokens, dict)
        parts = parts_of(record.get("content"))
        blocks: list[Any] = self._thoughts(record, parts)
        blocks += _contents(parts)
        calls = [call for raw in _tool_calls(record) if (call := self._call(raw, time)) is not None]
        blocks += calls
        if not counted and not calls:
            # A model-less record the CLI wrote itself (after compression, say): a note.
            text = "\n\n".join(b.text for b in blocks if isinstance(b, (Text, Thinking))) or "(empty response)"
            self.items.append(Marker(rid, time, "meta", text))
            return
        usage = usage_of(tokens)
        if usage.unknown:
            self._warn(self.file.line_of.get(rid, 0), UNKNOWN_TOKENS)
        if counted:
            self.tally.add_reply(self.prefix + rid, usage)
            if model and model not in self.models:
                self.models.append(model)
        mismatch = _total_mismatch(tokens)
        if mismatch and not self._mismatch:
            self._mismatch = True  # once per file
            self._warn(self.file.line_of.get(rid, 0), mismatch)
        self.items.append(Reply(rid, "", time, model, blocks, usage))

    @staticmethod
    def _thoughts(record: dict[str, Any], parts: list[dict[str, Any]]) -> list[Thinking]:
        out = []
        thoughts = record.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else ():
            thought = as_dict(thought)
            subject, description = as_str(thought.get("subject")).strip(), as_str(thought.get("description")).strip()
            text = f"**{subject}**\n\n{description}" if subject and description else subject or description
            if text:
                out.append(Thinking(text))
        if not out:  # snapshot copies carry thoughts as parts instead
            out = [Thinking(p["text"]) for p in parts if p.get("thought") and as_str(p.get("text")).strip()]
        return out

    def _call(self, raw: dict[str, Any], reply_time: str | None) -> ToolCall | None:
        call_id = as_str(raw.get("id"))
        if not call_id:
            return None
        name = as_str(raw.get("name")) or "tool"
        time = normalize_timestamp(raw.get("timestamp")) or reply_time
        call = ToolCall(call_id, name, raw.get("args"), time)
        key = self.prefix + call_id
        self.tally.tool_calls.add(key)
        call.result = _result(call_id, name, raw, time)
        if call.result is not None:
            self.tally.tool_results.add(key)
        if raw.get("status") == "error":
            self.tally.tool_errors.add(key)
        agent = as_str(raw.get("agentId"))
        if agent:
            self.agent_links.setdefault(agent, call)
        self.calls.append((call, reply_time))
        return call

    # notices -----------------------------------------------------------------------

    def _notice(self, rid: str, record: dict[str, Any]) -> None:
        time = normalize_timestamp(record.get("timestamp"))
        kind = NOTICE_TYPES.get(as_str(record.get("type")), "notice")
        text = text_of(parts_of(record.get("content"))).strip()
        self.items.append(Marker(rid, time, kind, text or as_str(record.get("type")) or "(notice)"))

    def _warn(self, line: int, reason: str) -> None:
        warning = InputWarning(self.file.label, line, reason)
        self.file.warnings.append(warning)
        self._sink(warning)


def _tool_calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    calls = record.get("toolCalls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _result(call_id: str, name: str, raw: dict[str, Any], time: str | None) -> ToolResult | None:
    """A call's result (§3): the ``functionResponse`` whose id is the call's. After a
    history sync ``result`` can also hold its siblings' responses: those are theirs."""
    result = raw.get("result")
    if result is None:
        return None
    parts = parts_of(result)
    responses = [p for p in parts if isinstance(p.get("functionResponse"), dict)]
    own = [p for p in responses if p["functionResponse"].get("id") == call_id]
    if not own:
        unnamed = [p for p in responses if not p["functionResponse"].get("id")]
        own = unnamed or (responses if len(responses) == 1 else [])
    content: list[Content] = []
    for part in own:
        content += function_response_content(part["functionResponse"].get("response"))
    if len(own) == len(responses):
        content += _contents([p for p in parts if "functionResponse" not in p])
    status = as_str(raw.get("status"))
    detail: dict[str, Any] = {}
    if status and status != "success":
        detail["status"] = status
    display = raw.get("resultDisplay")
    if isinstance(display, dict):
        detail.update({key: display[key] for key in _DETAIL_KEYS if key in display})
    if name == SHELL_TOOL:
        codes = _EXIT_CODE.findall("\n".join(c.text for c in content if isinstance(c, Text)))
        if codes:
            detail["exit_code"] = int(codes[-1])
    return ToolResult(content, status == "error", time, detail or None)


def function_response_content(response: Any) -> list[Content]:
    """What a ``functionResponse`` part's ``response`` holds, as the page shows it: its
    ``output`` (or ``error``) text, else the JSON (Qwen Code's parts are Gemini's too)."""
    if isinstance(response, str):
        return [Text(response)] if response else []
    response = as_dict(response)
    for key in ("output", "error"):
        value = response.get(key)
        if isinstance(value, str):
            return [Text(value)] if value else []
        if value is not None:
            return [Text(_dumps(value))]
    return [Text(_dumps(response))] if response else []


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return str(value)


# --- step 3: sessions ----------------------------------------------------------------------


def read_unit(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
    """The registry's reader: a Gemini unit is one project folder's files
    (Gemini CLI never copies another session's history the way inherit.py means)."""
    return read_gemini_sessions([Path(p) for p in unit.paths], warn, label=labeller(unit))


def read_gemini_sessions(
    paths: list[Path],
    warn: WarnFn,
    *,
    label: LabelFn = str,
    roots: Mapping[str, str] | None = None,
) -> list[Session]:
    """Every Gemini file of the build at once (segments and sub-agents meet their
    session). ``roots``: ``projectHash`` -> project root, from gemini_files; the
    roots written down beside each file are read as well."""
    files = [f for path in sorted(set(paths), key=str) if (f := load_file(path, label(path), warn)) is not None]
    known = dict(roots or {})
    for folder in sorted({project_folder(f.path) for f in files}, key=str):
        for key, root in folder_roots(folder).items():
            known.setdefault(key, root)
    mains: dict[str, list[GeminiFile]] = {}
    agents: dict[str, list[GeminiFile]] = {}
    for file in files:
        if file.is_subagent:
            agents.setdefault(file.parent_id, []).append(file)
        else:
            mains.setdefault(file.session_id, []).append(file)
    sessions = [_session(segments, agents.pop(sid, []), known, warn) for sid, segments in mains.items()]
    for parent, orphans in agents.items():
        for file in orphans:
            note = f"sub-agent of session {parent}, which is not here; shown as a session of its own"
            file.warnings.append(InputWarning(file.label, 0, note))
            warn(file.warnings[-1])
            sessions.append(_session([file], [], known, warn, main=False))
    sessions.sort(key=lambda s: (s.started or "", s.id))
    return sessions


def _session(segments: list[GeminiFile], agent_files: list[GeminiFile], roots: Mapping[str, str],
             warn: WarnFn, *, main: bool = True) -> Session:
    segments.sort(key=lambda f: (f.first_time() or "", f.label))
    tally = Tally(has_reasoning=True)
    readers = []
    timeline: list[TimelineItem] = []
    for index, file in enumerate(segments):
        reader = _reader(file, tally, warn, main=main)
        readers.append(reader)
        if index:
            timeline.append(_segment_marker(file))
        timeline += reader.items
    number_anchors(timeline)
    runs = []
    for file in sorted(agent_files, key=lambda f: (f.first_time() or "", f.label)):
        run_tally = Tally(has_reasoning=True)
        reader = _reader(file, run_tally, warn, main=False)
        number_anchors(reader.items)
        run = SubagentRun(file.session_id, None, None, file.label, reader.items, run_tally.stats(), reader.models)
        runs.append((run, reader))
        tally.merge(run_tally, prompts_and_commands=False)
        tally.subagents.add(file.label)
    orphans = _attach(runs, readers)
    sid = segments[0].session_id
    cwd, note = _working_directory(segments, [r for _, r in runs], roots)
    if note:
        timeline.insert(0, Marker(f"gemini:{sid}:directory", timeline[0].timestamp if timeline else None,
                                  "notice", note))
    models = [m for reader in readers for m in reader.models]
    models += [m for _, reader in runs for m in reader.models]
    times = sorted(t for f in segments for t in f.times)
    started = times[0] if times else normalize_timestamp(segments[0].meta.get("startTime"))
    session = Session(
        id=sid,
        source=SOURCE_GEMINI,
        cwd=cwd,
        title=_title(segments, readers, timeline, started),
        started=started,
        ended=times[-1] if times else normalize_timestamp(segments[-1].meta.get("lastUpdated")),
        versions=[],
        models=list(dict.fromkeys(models)),
        git_branch=None,
        files=[f.label for f in segments] + [run.file for run, _ in runs],
        timeline=timeline,
        stats=tally.stats(),
        warnings=[w for f in [*segments, *agent_files] for w in f.warnings],
        orphan_subagents=orphans,
    )
    session.tally = tally
    return session


def _reader(file: GeminiFile, tally: Tally, warn: WarnFn, *, main: bool) -> _FileReader:
    return _FileReader(file, tally, warn, main=main).read()


def _segment_marker(file: GeminiFile) -> Marker:
    text = (f"The session goes on in another file, {file.label}: before Gemini CLI 0.35, /clear started "
            "a new file under the same session id.")
    return Marker(f"gemini:segment:{file.label}", file.first_time(), "notice", text)


def _title(segments: list[GeminiFile], readers: list[_FileReader], timeline: list[TimelineItem],
           started: str | None) -> str:
    """The session's title (docs/formats-gemini.md §10): the summary Gemini CLI wrote
    (the last segment's first), else the first prompt, the first slash command with
    its arguments, the first reply's first sentence; else when it started. Never the
    id alone."""
    summary = next((text for file in reversed(segments) if (text := as_str(file.meta.get("summary")).strip())), "")
    first = next((r.first_prompt for r in readers if r.first_prompt.strip()), "")
    for candidate in (summary, first, first_command(timeline), first_reply_sentence(timeline)):
        line = one_line(candidate)
        if line:
            return line
    return untitled(started)


def _attach(runs: list[tuple[SubagentRun, _FileReader]], readers: list[_FileReader]) -> list[SubagentRun]:
    """Nest each sub-agent run under its launching call (§5): the call whose
    ``agentId`` is the run's session id (0.39+), else the agent call nearest in
    time. A run never nests under a call of its own or of a run inside it."""
    everyone = readers + [reader for _, reader in runs]
    links = {agent: call for reader in everyone for agent, call in reader.agent_links.items()}
    owner = {id(call): reader for reader in everyone for call, _ in reader.calls}
    run_of = {id(reader): run for run, reader in runs}
    parent: dict[int, ToolCall] = {}
    for run, _ in runs:
        call = links.get(run.agent_id)
        if call is not None and call.subagent is None and not _below(run, owner[id(call)], parent, run_of, owner):
            call.subagent = run
            parent[id(run)] = call
    taken = {id(call) for call in links.values()}  # a call naming its agent is that agent's only
    candidates = [(call, when) for reader in everyone for call, when in reader.calls
                  if call.name in AGENT_TOOLS or call.name in NAMED_AGENTS]
    orphans = []
    for run, reader in runs:
        if id(run) in parent:
            continue
        call = _nearest(run, reader, candidates, taken, lambda c: _below(run, owner[id(c)], parent, run_of, owner))
        if call is None:
            orphans.append(run)
            continue
        call.subagent = run
        parent[id(run)] = call
        taken.add(id(call))
    for run, _ in runs:
        call = parent.get(id(run))
        if call is not None:
            _describe(run, call)
    return orphans


def _below(run: SubagentRun, holder: _FileReader, parent: dict[int, ToolCall],
           run_of: dict[int, SubagentRun], owner: dict[int, _FileReader]) -> bool:
    """Whether ``holder`` (the reader of the file holding a call) is ``run`` itself
    or a run nested, at any depth, under it."""
    seen = set()
    current = run_of.get(id(holder))
    while current is not None and id(current) not in seen:
        if current is run:
            return True
        seen.add(id(current))
        call = parent.get(id(current))
        current = run_of.get(id(owner[id(call)])) if call is not None else None
    return False


def _nearest(run: SubagentRun, reader: _FileReader, candidates: list[tuple[ToolCall, str | None]],
             taken: set[int], excluded: Callable[[ToolCall], bool]) -> ToolCall | None:
    """Before 0.39 nothing names the launching call: the agent call closest in time
    to the run (0 when its time falls inside the run)."""
    times = reader.file.times
    if not times:
        return None
    best: tuple[float, str, ToolCall] | None = None
    for call, when in candidates:
        if id(call) in taken or excluded(call):
            continue
        stamps = [t for t in (call.timestamp, when) if t]
        if not stamps:
            continue
        distance = min(_distance(stamp, times[0], times[-1]) for stamp in stamps)
        if best is None or (distance, call.id) < best[:2]:
            best = (distance, call.id, call)
    return best[2] if best else None


def _distance(stamp: str, start: str, end: str) -> float:
    """Seconds from ``stamp`` to the span [start, end] (normalized times)."""
    moment, low, high = (_seconds(value) for value in (stamp, start, end))
    return 0.0 if low <= moment <= high else min(abs(moment - low), abs(moment - high))


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _describe(run: SubagentRun, call: ToolCall) -> None:
    args = as_dict(call.input)
    run.agent_type = as_str(args.get("agent_name")) or (call.name if call.name in NAMED_AGENTS else None) or None
    text = next((as_str(args[key]) for key in _DESCRIPTION_KEYS if as_str(args.get(key)).strip()), "")
    run.description = one_line(text) if text else None


def _working_directory(segments: list[GeminiFile], runs: list[_FileReader],
                       roots: Mapping[str, str]) -> tuple[str, str]:
    """The recovered root, or the Gemini folder's name and a note saying so (§6)."""
    wanted = next((as_str(f.meta.get("projectHash")) for f in segments if as_str(f.meta.get("projectHash"))), "")
    root = recover_root(wanted, _mentions(segments, runs), roots)
    if root:
        return root, ""
    folder = printable_name(project_folder(segments[0].path).name)
    return folder, unknown_root_note(folder, wanted)


def _mentions(segments: list[GeminiFile], runs: list[_FileReader]) -> Iterator[str]:
    """The texts a session's paths can be in, most telling first."""
    files = [*segments, *(r.file for r in runs)]
    for file in files:
        yield from strings_in(file.meta.get("directories"))
    for file in files:
        for record in file.records.values():
            for call in _tool_calls(record):
                yield from strings_in(call.get("args"))
                yield as_str(call.get("description"))
                yield as_str(as_dict(call.get("resultDisplay")).get("filePath"))
                yield from strings_in(call.get("result"), limit=20)
    for file in files:
        for record in file.records.values():
            if record.get("type") == "user":
                yield text_of(parts_of(record.get("content")))
