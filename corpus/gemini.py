"""A synthetic Gemini CLI history with known true counts.

``generate_gemini_history`` writes a Gemini directory (``projects.json``,
``tmp/<slug>/`` and ``tmp/<hash>/`` folders) holding every trap of
docs/formats-gemini.md §9: records written again as they change, ``$set``
metadata and ``$set.messages`` snapshots (at resume, after a compression, after a
rolled-back turn), ``$rewindTo``, legacy ``.json`` files and a ``.json`` resumed
into a ``.jsonl``, a hash folder that migration left beside its slug folder,
segments sharing a ``sessionId``, sub-agents of three eras (linked by ``agentId``,
by time beside their parent, by time in their parent's folder, and one nested in
another), tool results stored as user records, sibling results, injected context,
slash commands, the CLI's "Please continue.", notices, cancelled and failed calls,
tokens absent, ``null``, all zero and inconsistent, bad lines, a damaged legacy
file, file-name times that are not the start time, ``logs.json`` and checkpoints,
and projects whose root is written down, found only by hashing, or lost.

The expected STATS are tallied as the records are written, by this module's own
bookkeeping (identities in sets, per session, project and site); nothing here
reads a file back or shares code with the reader.
"""

from __future__ import annotations

import hashlib
import posixpath
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from bough_site.model import REASONING_KEY, STAT_KEYS

Stats = dict[str, int]
MODELS = ("gemini-2.5-pro", "gemini-3-flash-preview", "gemini-3.1-pro-preview")
PROMPTS = (
    "The kiln timer drifts by a second every hour. Find out why.",
    "Add a pause button to the firing schedule view.",
    "Why does test_ramp_rate fail on the CI runner only?",
    "Rename Schedule.steps to Schedule.segments everywhere.",
    "Write a short README section about the config file.",
    "The CSV export drops the last row. Fix it and add a test.",
)
REPLIES = (
    "I'll start by reading the module that owns this.",
    "The loop compares against the wrong clock; I'll switch it to a monotonic one.",
    "Done: the change is in place and the tests pass.",
    "Here is what I found, and what I changed.",
)
THOUGHTS = (
    ("Locating the code", "I'm looking for where the timer is driven from."),
    ("Checking the tests", "I'm reading the failing test to see what it expects."),
    ("Planning the edit", "I'll change one function and leave the interface alone."),
)
EXPANSION = "\nLook through this directory and write a GEMINI.md that tells later sessions what it holds.\n"
SESSION_CONTEXT = "<session_context>\nWorkspace directories: {root}\nOS: linux\n</session_context>"
SUMMARY = "<state_snapshot>\n<overall_goal>Make the kiln timer exact.</overall_goal>\n</state_snapshot>"
ACK = "Understood; going on from the summary."


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


# --- the truth ---------------------------------------------------------------------------------


@dataclass
class _Truth:
    """What one session, project or site counts, as sets of identities."""

    records: set[tuple[str, str]] = field(default_factory=set)
    replies: dict[tuple[str, str], tuple[int, int, int, int]] = field(default_factory=dict)  # in, out, cached, thoughts
    prompts: set[tuple[str, str]] = field(default_factory=set)
    commands: set[tuple[str, str]] = field(default_factory=set)
    tool_calls: set[tuple[str, str]] = field(default_factory=set)
    tool_results: set[tuple[str, str]] = field(default_factory=set)
    tool_errors: set[tuple[str, str]] = field(default_factory=set)
    subagents: set[str] = field(default_factory=set)
    commits: set[str] = field(default_factory=set)
    files_changed: set[tuple[str, str]] = field(default_factory=set)  # (cwd, absolute path)
    lines: int = 0
    skipped_lines: int = 0

    def add(self, other: _Truth) -> None:
        for name in ("records", "prompts", "commands", "tool_calls", "tool_results", "tool_errors", "subagents",
                     "commits", "files_changed"):
            getattr(self, name).update(getattr(other, name))
        self.replies.update(other.replies)
        self.lines += other.lines
        self.skipped_lines += other.skipped_lines

    def stats(self) -> Stats:
        spent = list(self.replies.values())
        out = {
            "records": len(self.records),
            "replies": len(self.replies),
            "prompts": len(self.prompts),
            "commands": len(self.commands),
            "tool_calls": len(self.tool_calls),
            "tool_results": len(self.tool_results),
            "tool_errors": len(self.tool_errors),
            "subagents": len(self.subagents),
            "input_tokens": sum(i - c for i, _, c, _ in spent),
            "output_tokens": sum(o + t for _, o, _, t in spent),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": sum(c for _, _, c, _ in spent),
            "lines": self.lines,
            "skipped_lines": self.skipped_lines,
            "commits": len(self.commits),
            "files_changed": len(self.files_changed),
        }
        return {**{key: out[key] for key in STAT_KEYS}, REASONING_KEY: sum(t for *_, t in spent)}


@dataclass
class ExpectedGemini:
    """The true counts and shapes of a generated history. Paths are relative to the root."""

    sessions: dict[str, Stats] = field(default_factory=dict)  # session id -> STATS
    session_projects: dict[str, str] = field(default_factory=dict)  # session id -> its project's cwd
    projects: dict[str, Stats] = field(default_factory=dict)  # cwd -> STATS
    site: Stats = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # what the read-once rules keep
    left_out: list[str] = field(default_factory=list)  # what they pass over
    warnings: list[tuple[str, int]] = field(default_factory=list)  # (file, line), 0 for a whole file
    removed: dict[str, dict[str, str]] = field(default_factory=dict)  # session id -> record id -> why
    nested: dict[str, str] = field(default_factory=dict)  # sub-agent id -> the call id that launched it
    segments: dict[str, list[str]] = field(default_factory=dict)  # session id -> its main files, in time order
    unknown_roots: list[str] = field(default_factory=list)  # session ids filed under their folder


# --- one session file being written ---------------------------------------------------------------


class _File:
    """A session file: a log (``.jsonl``, written line by line) or a legacy
    ``.json`` (its final list written at the end). Semantic methods write records
    and count them into the session's truth; ``raw`` writes without counting."""

    def __init__(self, history: _History, session: _Session, rel: str, sid: str, *, log: bool, main: bool = True,
                 kind: str | None = None, start: datetime | None = None):
        self.history, self.session = history, session
        self.rng = history.rng
        self.rel, self.sid, self.log, self.main = rel, sid, log, main
        self.clock = start or session.clock
        self.meta: dict[str, Any] = {"sessionId": sid, "projectHash": session.project_hash,
                                     "startTime": _stamp(self.clock), "lastUpdated": _stamp(self.clock)}
        if kind:
            self.meta["kind"] = kind
        self.out: list[bytes] = []
        self.view: dict[str, dict[str, Any]] = {}  # the final view: id -> record, in order
        self.truncated = False
        self.last_line = 0  # the line of the last reply written (a log's)
        if log:
            self.raw(self.meta)

    @property
    def truth(self) -> _Truth:
        return self.session.truth

    def tick(self, low: float = 1.0, high: float = 20.0) -> str:
        self.clock += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        self.session.clock = max(self.session.clock, self.clock)
        return _stamp(self.clock)

    def key(self, rid: str) -> tuple[str, str]:
        return (self.sid, rid)

    # writing -------------------------------------------------------------------------------

    def raw(self, obj: Any) -> int:
        """One line of a log, not counted; its line number."""
        self.out.append(_dumps(obj))
        return len(self.out)

    def write(self, record: dict[str, Any]) -> int:
        self.view[record["id"]] = record
        if self.log:
            return self.raw(record)
        return 0

    def set(self, **fields: Any) -> None:
        self.meta.update({k: v for k, v in fields.items() if k != "messages"})
        self.raw({"$set": fields})

    def bad_line(self, text: bytes) -> None:
        self.out.append(text)
        self.truth.skipped_lines += 1
        self.history.warn(self.rel, len(self.out))

    # records ---------------------------------------------------------------------------------

    def _new_id(self) -> str:
        return self.history.uuid()

    def user(self, content: Any, **extra: Any) -> dict[str, Any]:
        record = self.unwritten("user", content, **extra)
        self.write(record)
        return record

    def unwritten(self, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
        """A record counted now and written by a later snapshot (a compression's summary)."""
        record = {"id": self._new_id(), "timestamp": self.tick(), "type": kind, "content": content, **extra}
        self.truth.records.add(self.key(record["id"]))
        return record

    def prompt(self, text: str | None = None, *, parts: bool = True) -> dict[str, Any]:
        text = text or self.rng.choice(PROMPTS)
        record = self.user([{"text": text}] if parts else text)
        if self.main:
            self.truth.prompts.add(self.key(record["id"]))
        return record

    def command(self, name: str, expansion: str) -> dict[str, Any]:
        record = self.user([{"text": expansion}], displayContent=[{"text": name}])
        if self.main:
            self.truth.commands.add(self.key(record["id"]))
        return record

    def notice(self, kind: str, text: str) -> dict[str, Any]:
        record = {"id": self._new_id(), "timestamp": self.tick(), "type": kind, "content": text}
        self.write(record)
        self.truth.records.add(self.key(record["id"]))
        return record

    def tokens(self, *, cached: bool = True) -> dict[str, int]:
        given = self.rng.randint(4000, 40000)
        out, thoughts = self.rng.randint(10, 900), self.rng.randint(0, 600)
        hit = self.rng.randint(0, given // 2) if cached and self.rng.random() < 0.7 else 0
        return {"input": given, "output": out, "cached": hit, "thoughts": thoughts, "tool": 0,
                "total": given + out + thoughts}

    def reply(self, calls: list[dict[str, Any]] | None = None, *, text: str | None = None,
              usage: Any = "random", model: str | None = "default", again: bool = True,
              first_tokens: Any = "same") -> dict[str, Any]:
        """A model response. Written first without its calls (and, with
        ``first_tokens``, other tokens), then again whole, as the CLI does."""
        stamp = self.tick()
        record: dict[str, Any] = {"id": self._new_id(), "timestamp": stamp, "type": "gemini",
                                  "content": self.rng.choice(REPLIES) if text is None else text}
        subject, description = self.rng.choice(THOUGHTS)
        record["thoughts"] = [{"subject": subject, "description": description, "timestamp": stamp}]
        tokens = self.tokens() if usage == "random" else usage
        if tokens is not ...:
            record["tokens"] = tokens
        record["model"] = self.session.model if model == "default" else model
        if record["model"] is None:
            del record["model"]
        if calls and again and self.log:
            first = {k: v for k, v in record.items()}
            if first_tokens != "same":
                first["tokens"] = first_tokens
            self.write(first)
        if calls:
            record["toolCalls"] = calls
        self.last_line = self.write(record)
        self._count_reply(record)
        return record

    def _count_reply(self, record: dict[str, Any]) -> None:
        self.truth.records.add(self.key(record["id"]))
        tokens = record.get("tokens")
        if record.get("model") or isinstance(tokens, dict):
            spent = tokens if isinstance(tokens, dict) else {}
            self.truth.replies[self.key(record["id"])] = (
                spent.get("input", 0), spent.get("output", 0), spent.get("cached", 0), spent.get("thoughts", 0))
        for call in record.get("toolCalls", ()):
            self._count_call(call)

    def _count_call(self, call: dict[str, Any]) -> None:
        key = self.key(call["id"])
        self.truth.tool_calls.add(key)
        if call.get("result") is not None:
            self.truth.tool_results.add(key)
        if call["status"] == "error":
            self.truth.tool_errors.add(key)

    # tool calls (not yet written: they go into a reply) ------------------------------------------------

    def call_id(self, name: str) -> str:
        era = self.history.era
        if era < 31:
            return f"{name}-{int(self.clock.timestamp() * 1000)}-{self.rng.getrandbits(48):012x}"
        if era < 39:
            self.history.calls_made += 1
            return f"{name}_{int(self.clock.timestamp() * 1000)}_{self.history.calls_made}"
        return "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))

    def call(self, name: str, args: dict[str, Any], output: str | None, *, status: str = "success",
             error: str | None = None, display: Any = None, cid: str | None = None, **extra: Any) -> dict[str, Any]:
        cid = cid or self.call_id(name)
        response: dict[str, Any] = {"error": error} if error is not None else {"output": output}
        call = {"id": cid, "name": name, "args": args, "status": status, "timestamp": self.tick(0.2, 3.0),
                "result": None if output is None and error is None else
                [{"functionResponse": {"id": cid, "name": name, "response": response}}]}
        if display is not None:
            call["resultDisplay"] = display
        call.update(extra)
        return call

    def shell(self, command: str, output: str, exit_code: int = 0, **extra: Any) -> dict[str, Any]:
        if self.history.era < 31:
            text = (f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\n"
                    f"Exit Code: {exit_code}\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 4242")
        else:
            text = f"Output: {output}" + (f"\nExit Code: {exit_code}" if exit_code else "") + "\nProcess Group PGID: 4242"
        return self.call("run_shell_command", {"command": command, "description": "Run it."}, text,
                         display=output, **extra)

    def commit(self, message: str) -> dict[str, Any]:
        sha = f"{self.rng.getrandbits(28):07x}"
        self.session.commits_made.add(f"sha:{sha}")
        return self.shell(f"git add -A && git commit -m '{message}'", f"[main {sha}] {message}\n 1 file changed")

    def edit(self, name: str, path: str, *, new: bool = False, ok: bool = True) -> dict[str, Any]:
        """A ``write_file`` or ``replace``; a successful one changes ``path``."""
        added, removed = self.rng.randint(1, 30), 0 if new else self.rng.randint(0, 10)
        diff = (f"Index: {posixpath.basename(path)}\n===\n--- a\tOriginal\n+++ b\tWritten\n"
                f"@@ -1,{removed} +1,{added} @@\n" + "".join(f"-old {i}\n" for i in range(removed))
                + "".join(f"+new {i}\n" for i in range(added)))
        args = {"file_path": path, "content": "x\n" * added} if name == "write_file" else {
            "file_path": path, "old_string": "old", "new_string": "new"}
        if not ok:
            return self.call(name, args, None, status="error", error="Failed to edit: 0 occurrences found.")
        self.session.changed(path)
        display = {"fileDiff": diff, "fileName": posixpath.basename(path), "filePath": path,
                   "originalContent": "" if new else "old\n", "newContent": "new\n",
                   "diffStat": {"model_added_lines": added, "model_removed_lines": removed}, "isNewFile": new}
        return self.call(name, args, f"Successfully modified file: {path}.", display=display)

    # log-only lines ------------------------------------------------------------------------------------

    def tool_responses(self, calls: list[dict[str, Any]]) -> None:
        """0.44: the results sent back, stored as a user record (never a prompt)."""
        parts = [part for call in calls for part in call["result"] or ()]
        self.user(parts)

    def rewind(self, rid: str) -> None:
        ids = list(self.view)
        for gone in ids[ids.index(rid):]:
            self.session.removed[gone] = "rewound"
            del self.view[gone]
        self.raw({"$rewindTo": rid})

    def snapshot(self, records: list[dict[str, Any]], *, why: str) -> None:
        """A ``$set.messages``: copies carry full part lists; notices are dropped
        (and not marked); user and model records left out are marked ``why``."""
        kept = {r["id"] for r in records}
        for rid, record in list(self.view.items()):
            if rid not in kept and record["type"] in ("user", "gemini"):
                self.session.removed[rid] = why
        copies = [self._as_parts(r) for r in records]
        self.view = {r["id"]: r for r in copies}
        self.raw({"$set": {"messages": copies}})

    @staticmethod
    def _as_parts(record: dict[str, Any]) -> dict[str, Any]:
        copy = dict(record)
        if isinstance(copy.get("content"), str):
            copy["content"] = [{"text": copy["content"]}] if copy["content"] else []
        if copy["type"] == "gemini":
            thoughts = [{"text": t["description"], "thought": True, "thoughtSignature": "c2ln"}
                        for t in copy.get("thoughts", ())]
            calls = [{"functionCall": {"id": c["id"], "name": c["name"], "args": c["args"]}}
                     for c in copy.get("toolCalls", ())]
            copy["content"] = thoughts + copy["content"] + calls
        return copy

    # the file on disk -------------------------------------------------------------------------------------

    def finish(self, *, counted: bool = True) -> Path:
        path = self.history.root / self.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.log:
            data = b"\n".join(self.out) + (b"" if self.truncated else b"\n")
            lines = sum(1 for line in self.out if line.strip())
        else:
            data = orjson.dumps({**self.meta, "messages": list(self.view.values())}, option=orjson.OPT_INDENT_2)
            lines = 1
        path.write_bytes(data)
        if counted:
            self.truth.lines += lines
            self.history.keep(self.rel)
        return path


class _Session:
    """One session: its truth, the files it writes and what it builds."""

    def __init__(self, history: _History, project: _Project, sid: str, start: datetime):
        self.history, self.project, self.sid = history, project, sid
        self.truth = _Truth()
        self.clock = start
        self.model = history.rng.choice(MODELS)
        self.project_hash = project.hash
        self.removed: dict[str, str] = {}
        self.commits_made: set[str] = set()

    def changed(self, path: str) -> None:
        full = path if path.startswith("/") else posixpath.normpath(posixpath.join(self.project.cwd, path))
        self.truth.files_changed.add((self.project.cwd, full))

    def file(self, rel: str, *, log: bool, **options: Any) -> _File:
        return _File(self.history, self, rel, self.sid, log=log, **options)

    def subagent(self, rel: str, agent_id: str, *, log: bool, start: datetime) -> _File:
        """A sub-agent's file: its records count for this session, its user records are no prompts."""
        self.truth.subagents.add(rel)
        return _File(self.history, self, rel, agent_id, log=log, main=False, kind="subagent", start=start)


@dataclass
class _Project:
    root: str  # where the CLI was started
    folder: str  # its folder under tmp/: a slug, or the hash before 0.29
    known: bool = True  # whether the reader can find the root (else the folder names the project)

    @property
    def hash(self) -> str:
        return _sha(self.root)

    @property
    def chats(self) -> str:
        return f"tmp/{self.folder}/chats"

    @property
    def cwd(self) -> str:
        return self.root if self.known else self.folder


# --- the history ---------------------------------------------------------------------------------------


class _History:
    def __init__(self, root: Path, seed: int, turns: int):
        self.root = root
        self.rng = random.Random(f"bough gemini corpus {seed}")
        self.turns = turns
        self.era = 44
        self.sessions: list[_Session] = []
        self.calls_made = 0
        self.projects_json: dict[str, str] = {}  # root -> slug, as Gemini CLI keeps it
        self.expected = ExpectedGemini()
        self.clock = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)

    def uuid(self) -> str:
        value = self.rng.getrandbits(128)
        text = f"{value:032x}"
        return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-a{text[17:20]}-{text[20:32]}"

    def warn(self, rel: str, line: int) -> None:
        self.expected.warnings.append((rel, line))

    def keep(self, rel: str) -> None:
        self.expected.files.append(rel)

    def leave(self, rel: str) -> None:
        self.expected.left_out.append(rel)

    def session(self, project: _Project, start: datetime) -> _Session:
        made = _Session(self, project, self.uuid(), start)
        self.sessions.append(made)
        if project.cwd != project.root:
            self.expected.unknown_roots.append(made.sid)
        return made

    @staticmethod
    def name(start: datetime, sid: str, suffix: str) -> str:
        return f"session-{start.strftime('%Y-%m-%dT%H-%M')}-{sid[:8]}.{suffix}"

    def turn(self, file: _File, root: str, *, count: int = 1) -> None:
        """An ordinary turn: a prompt, a reply reading a file, a reply answering."""
        for _ in range(count):
            file.prompt()
            path = posixpath.join(root, "src", self.rng.choice(("timer.py", "schedule.py", "export.py")))
            read = file.call("read_file", {"file_path": path}, "def tick():\n    ...\n")
            file.reply([read])
            if file.log and self.era >= 44:
                file.tool_responses([read])
            file.reply()

    # --- kiln: slug folder with .project_root, its hash folder, logs of 0.39-0.44 ------------------------

    def kiln(self) -> None:
        project = _Project("/home/ada/src/kiln", "kiln")
        self.projects_json[project.root] = project.folder
        tmp = self.root / "tmp"
        (tmp / "kiln").mkdir(parents=True, exist_ok=True)
        (tmp / "kiln" / ".project_root").write_text(project.root + "\n")
        self._not_sessions(tmp / "kiln")
        self._kiln_legacy_pair(project)
        self._kiln_resumed(project)
        self._kiln_init(project)
        self._kiln_newest(project)

    def _not_sessions(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "logs.json").write_bytes(orjson.dumps(
            [{"sessionId": self.uuid(), "messageId": 0, "timestamp": _stamp(self.clock), "type": "user",
              "message": "/init"}], option=orjson.OPT_INDENT_2))
        (folder / "checkpoint-before-refactor.json").write_bytes(orjson.dumps(
            {"history": [{"role": "user", "parts": [{"text": "hello"}]}], "authType": "oauth-personal"}))
        (folder / "checkpoints").mkdir(exist_ok=True)
        (folder / "checkpoints" / "2026-05-04T09-00-00_000Z-kiln.py-replace.json").write_bytes(orjson.dumps(
            {"history": [], "clientHistory": [], "toolCall": {"name": "replace"}}))

    def _kiln_legacy_pair(self, project: _Project) -> None:
        """A 0.25 legacy session, copied to the slug folder at migration (and grown
        after): the hash folder keeps the shorter copy, which is not read."""
        self.era = 25
        start = self.clock = self.clock + timedelta(hours=1)
        session = self.session(project, start)
        name = self.name(start, session.sid, "json")
        file = session.file(f"{project.chats}/{name}", log=False)
        self.turn(file, project.root, count=max(1, self.turns - 1))
        frozen = dict(file.view)
        file.prompt("Now the ramp rate.")
        file.reply([file.edit("replace", "src/ramp.py")])
        file.finish()
        old = _File(self, _Session(self, project, session.sid, start), f"tmp/{project.hash}/chats/{name}",
                    session.sid, log=False)
        old.view = frozen
        old.finish(counted=False)
        self.leave(old.rel)
        self.expected.segments[session.sid] = [file.rel]

    def _kiln_resumed(self, project: _Project) -> None:
        """A 0.38 legacy session resumed by 0.40: the .jsonl begins with a copy of it."""
        self.era = 38
        start = self.clock = self.clock + timedelta(hours=3)
        session = self.session(project, start)
        legacy = session.file(f"{project.chats}/{self.name(start, session.sid, 'json')}", log=False)
        self.turn(legacy, project.root)
        legacy.finish(counted=False)
        self.leave(legacy.rel)
        self.era = 40
        log = session.file(f"{project.chats}/{self.name(start, session.sid, 'jsonl')}", log=True)
        for record in legacy.view.values():
            log.write(record)
        log.set(lastUpdated=log.tick())
        self.turn(log, project.root, count=self.turns)
        log.reply([log.commit("Make the timer monotonic")])
        log.finish()
        self.expected.segments[session.sid] = [log.rel]

    def _kiln_init(self, project: _Project) -> None:
        """0.40: /init, the CLI's "System: Please continue.", a model switch, a bad
        line, a total that is not its parts, a first copy with null tokens."""
        self.era = 40
        start = self.clock = self.clock + timedelta(hours=5)
        session = self.session(project, start)
        log = session.file(f"{project.chats}/{self.name(start, session.sid, 'jsonl')}", log=True)
        log.notice("info", "GEMINI.md started; reading the project to fill it in.")
        log.set(lastUpdated=log.tick())
        log.command("/init", EXPANSION)
        reads = [log.call("read_file", {"file_path": f"{project.root}/{name}"}, "text") for name in ("README.md", "pyproject.toml")]
        log.reply(reads, first_tokens=None)
        log.reply([log.edit("write_file", "GEMINI.md", new=True)])
        log.bad_line(b'{"id": "torn-write", "timestamp": "2026-05')
        topic = log.call("update_topic", {"title": "GEMINI.md"}, "Strategic Intent: done")
        log.reply([topic])
        log.user([{"text": "System: Please continue."}],
                 displayContent=[{"functionResponse": {"id": topic["id"], "name": "update_topic",
                                                       "response": {"output": "done"}}}])
        log.reply()
        session.model = "gemini-3.1-pro-preview"
        log.prompt()
        odd = log.tokens()
        odd["total"] += 7  # total is not input + output + thoughts + tool: warned, never used
        log.reply(usage=odd)
        self.warn(log.rel, log.last_line)
        log.reply([log.call("replace", {"file_path": "GEMINI.md"}, None, status="cancelled",
                            error="[Operation Cancelled] stopped by the user")])
        log.notice("info", "Request cancelled.")
        log.finish()
        self.expected.segments[session.sid] = [log.rel]

    def _kiln_newest(self, project: _Project) -> None:
        """0.44: session context, tool results as user records, sibling results, a
        rewind, a compression, a rolled-back turn, a resume snapshot, sub-agents
        linked by agentId (one nested in another), and a resume stub (a segment)."""
        self.era = 44
        start = self.clock = self.clock + timedelta(hours=7)
        session = self.session(project, start)
        name = self.name(start, session.sid, "jsonl")
        log = session.file(f"{project.chats}/{name}", log=True)
        log.raw({"$set": {"messages": []}})
        log.user([{"text": SESSION_CONTEXT.format(root=project.root)}])
        self.turn(log, project.root, count=self.turns)
        log.notice("warning", "Approaching the context window limit.")
        log.snapshot([r for r in log.view.values() if r["type"] != "warning"], why="rewound")  # a resume: nothing lost
        log.set(sessionId=session.sid)
        # siblings: each result holds both responses
        first, second = (log.call("read_file", {"file_path": f"{project.root}/src/{n}"}, f"{n} text")
                         for n in ("a.py", "b.py"))
        both = first["result"] + second["result"]
        first["result"], second["result"] = both, list(both)
        log.prompt("Compare a.py and b.py.")
        log.reply([first, second])
        log.tool_responses([first])
        log.reply()
        # a turn that is rewound: its edit still happened, and counts
        undone = log.prompt("Try the scratch approach.")
        log.reply([log.edit("replace", "src/scratch.py")])
        log.reply()
        log.rewind(undone["id"])
        # the sub-agent, with its own sub-agent
        outer_id, inner_id = self.uuid(), self.uuid()
        launch = log.call("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "Map the timer code."},
                          "Report: the timer lives in src/timer.py.", agentId=outer_id)
        log.prompt("Where does the timer live?")
        log.reply([launch])
        self.expected.nested[outer_id] = launch["id"]
        outer = session.subagent(f"{project.chats}/{session.sid}/{outer_id}.jsonl", outer_id, log=True,
                                 start=log.clock - timedelta(seconds=30))
        outer.user([{"text": "Map the timer code."}])
        deeper = outer.call("invoke_agent", {"agent_name": "cli_help", "prompt": "Which flag sets the model?"},
                            "Use --model.", agentId=inner_id)
        outer.reply([deeper])
        outer.reply([outer.edit("write_file", "docs/timer.md", new=True)])
        outer.reply()
        outer.finish()
        self.expected.nested[inner_id] = deeper["id"]
        inner = session.subagent(f"{project.chats}/{session.sid}/{inner_id}.jsonl", inner_id, log=True,
                                 start=outer.clock)
        inner.user([{"text": "Which flag sets the model?"}])
        inner.reply([inner.call("grep_search", {"pattern": "--model"}, "cli.py:12")])
        inner.reply(usage=None)
        inner.finish()
        # a compression (its summary and the model-less acknowledgement come only in
        # the snapshot), then a turn, then a turn rolled back
        log.snapshot([log.unwritten("user", [{"text": SUMMARY}]), log.unwritten("gemini", ACK)], why="compacted")
        log.prompt()
        answer = log.reply([log.edit("write_file", "src/alarm.py", new=True)])
        log.tool_responses(answer["toolCalls"])
        log.reply([log.commit("Add the alarm")])
        kept = list(log.view.values())
        log.prompt("Also log each tick.")
        log.reply(usage=...)
        log.snapshot(kept, why="rewound")
        log.prompt()
        log.reply(usage=log.tokens() | {"input": 0, "output": 0, "cached": 0, "thoughts": 0, "total": 0})
        log.notice("info", "Request cancelled.")
        log.bad_line(b'{"id": "cut-off", "type": "gemini", "content": "I will now')
        log.truncated = True
        log.finish()
        # a resume stub (#28036): metadata and session context only, the same id
        stub_start = start + timedelta(hours=2)
        stub = session.file(f"{project.chats}/{self.name(stub_start, session.sid, 'jsonl')}", log=True,
                            start=stub_start)
        stub.user([{"text": SESSION_CONTEXT.format(root=project.root)}])
        stub.finish()
        self.expected.segments[session.sid] = [log.rel, stub.rel]
        self.expected.removed[session.sid] = dict(session.removed)

    # --- atlas: slug folder whose root is only in projects.json; 0.31-0.38 sub-agents ---------------------------

    def atlas(self) -> None:
        project = _Project("/home/ada/src/atlas", "atlas")
        self.projects_json[project.root] = project.folder  # and no .project_root
        self.era = 33
        start = self.clock = self.clock + timedelta(days=1)
        session = self.session(project, start)
        sid = session.sid
        main = session.file(f"{project.chats}/{self.name(start, sid, 'json')}", log=False, kind="main")
        main.meta["startTime"] = _stamp(start + timedelta(minutes=1))  # the name's minute is not the start
        main.prompt("Where is the retry policy defined?")
        investigate = main.call("codebase_investigator", {"objective": "Find the retry policy"},
                                "Report: atlas/retry.py defines it.")
        launch_time = main.clock
        main.reply([investigate])
        self.expected.nested[sid] = investigate["id"]  # this era's sub-agent shares its parent's id
        # 0.33: the sub-agent's file sits beside its parent and shares its session id
        agent = session.subagent(f"{project.chats}/{self.name(start, sid, 'json')[:-5]}-agent.json", sid,
                                 log=False, start=launch_time - timedelta(seconds=40))
        agent.user([{"text": "Find the retry policy"}])
        agent.reply([agent.call("grep_search", {"pattern": "retry"}, "atlas/retry.py:3")])
        agent.reply()
        agent.finish()
        main.reply([main.edit("replace", "atlas/retry.py", ok=False)])
        main.reply([main.edit("write_file", f"{project.root}/atlas/backoff.py", new=True)])
        main.reply()
        main.finish()
        self.expected.segments[sid] = [main.rel]
        # 0.37: a later session's sub-agent in chats/<sessionId>/, linked by time only
        self.era = 37
        start = self.clock = self.clock + timedelta(hours=2)
        later = self.session(project, start)
        parent = later.file(f"{project.chats}/{self.name(start, later.sid, 'json')}", log=False, kind="main")
        parent.prompt("Summarize the open TODOs.")
        parent.reply([parent.call("read_file", {"file_path": "TODO.md"}, "- retries\n- docs")])
        parent.clock += timedelta(minutes=30)
        delegate = parent.call("codebase_investigator", {"objective": "List the TODO comments"}, "Three TODOs.")
        run_start = parent.clock - timedelta(seconds=20)
        parent.reply([delegate])
        parent.reply()
        parent.finish()
        agent_id = self.uuid()[:6]
        self.expected.nested[agent_id] = delegate["id"]
        nested = later.subagent(f"{project.chats}/{later.sid}/{agent_id}.json", agent_id, log=False,
                                start=run_start)
        nested.user([{"text": "List the TODO comments"}])
        nested.reply([nested.call("grep_search", {"pattern": "TODO"}, "3 matches")])
        nested.finish()
        self.expected.segments[later.sid] = [parent.rel]

    # --- quarry: only a hash folder (before slugs); its root found by hashing; /clear segments --------------

    def quarry(self) -> None:
        project = _Project("/home/ada/src/quarry", _sha("/home/ada/src/quarry"))
        self.era = 22
        start = self.clock = self.clock + timedelta(days=1)
        session = self.session(project, start)
        folder = project.chats
        first = session.file(f"{folder}/{self.name(start, session.sid, 'json')}", log=False)
        first.notice("error", "The update did not install; update by hand.")
        first.notice("info", "A newer Gemini CLI is out.")
        first.prompt("Why is the quarry import slow?", parts=False)
        first.reply([first.call("read_file", {"absolute_path": f"{project.root}/quarry/load.py"}, "...")],
                    usage=first.tokens() | {"input": 0, "output": 0, "cached": 0, "thoughts": 0, "total": 0})
        first.reply([first.shell("pacman -Q quarry", "", exit_code=1),
                     first.call("run_shell_command", {"command": "sleep 100"}, None, status="cancelled",
                                error="[Operation Cancelled] stopped by the user")])
        first.notice("info", "Request cancelled.")
        first.prompt("clear", parts=False)
        first.reply(usage=...)
        first.finish()
        # /clear before 0.35: a new file, the same session id
        second_start = first.clock + timedelta(minutes=20)
        second = session.file(f"{folder}/{self.name(second_start, session.sid, 'json')}", log=False,
                              start=second_start)
        second.meta["summary"] = "Speed up the quarry import"
        second.prompt("Batch the inserts in load.py.", parts=False)
        second.reply([second.edit("replace", "quarry/load.py")])
        second.reply([second.commit("Batch the inserts")])
        second.reply()
        second.finish()
        self.expected.segments[session.sid] = [first.rel, second.rel]
        # a legacy file cut off mid-write: no session, one warning
        broken = self.root / folder / "session-2026-05-06T12-00-0badf11e.json"
        broken.write_bytes(b'{\n  "sessionId": "0badf11e-0000-4000-8000-000000000000",\n  "projectHash": "ab')
        self.keep(broken.relative_to(self.root).as_posix())
        self.warn(broken.relative_to(self.root).as_posix(), 0)

    # --- mill: moved after its sessions; the hash matches nothing it mentions ---------------------------------

    def mill(self) -> None:
        root = "/home/ada/old/mill"
        project = _Project(root, _sha(root), known=False)
        self.era = 26
        start = self.clock = self.clock + timedelta(days=1)
        session = self.session(project, start)
        file = session.file(f"{project.chats}/{self.name(start, session.sid, 'json')}", log=False)
        file.prompt("Tidy the grinder module.", parts=False)
        file.reply([file.call("read_file", {"absolute_path": "/home/ada/src/mill/grinder.py"}, "...")])
        file.reply([file.edit("write_file", "/home/ada/src/mill/grinder.py")])
        file.reply()
        file.finish()
        self.expected.segments[session.sid] = [file.rel]

    # --- the expected truth ---------------------------------------------------------------------------------

    def build(self) -> ExpectedGemini:
        self.kiln()
        self.atlas()
        self.quarry()
        self.mill()
        (self.root / "projects.json").write_bytes(orjson.dumps({"projects": self.projects_json}))
        expected = self.expected
        projects: dict[str, _Truth] = {}
        for session in self.sessions:
            session.truth.commits.update(session.commits_made)
            expected.sessions[session.sid] = session.truth.stats()
            expected.session_projects[session.sid] = session.project.cwd
            projects.setdefault(session.project.cwd, _Truth()).add(session.truth)
        site = _Truth()
        for cwd, truth in projects.items():
            expected.projects[cwd] = truth.stats()
            site.add(truth)
        expected.site = site.stats()
        expected.files.sort()
        expected.left_out.sort()
        expected.warnings.sort()
        return expected


def generate_gemini_history(root: Path, *, seed: int = 0, turns: int = 2) -> ExpectedGemini:
    """Write a Gemini directory under ``root`` (as ``~/.gemini`` is laid out) and
    return its true counts. Deterministic for a seed and a number of turns."""
    return _History(Path(root), seed, max(1, turns)).build()
