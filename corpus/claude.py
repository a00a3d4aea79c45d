"""A synthetic Claude Code history whose true counts are known.

This is the oracle the Claude reader is tested against, and the benchmark's
input. Every record is built here and its identities are booked the moment it
is written (``_Tally``), following docs/stats.md, so the expected numbers never
come from parsing the output. Each trap of the format (docs/formats-claude.md)
is written on purpose, with its effect on the counts booked next to it.

Layout written under ``root/projects/<mangled cwd>/``:

- ``<sid>.jsonl``: main transcripts;
- ``agent-<8hex>.jsonl`` beside them: 2.0.x sub-agents, attached by ``sessionId``;
- ``<sid>/subagents/agent-<id>.jsonl`` (+ ``.meta.json`` from 2.1.172): 2.1.x
  sub-agents, including the compaction agent ``agent-acompact-<hex>``;
- ``<sid>/tool-results/*.txt``: large tool outputs (not transcripts).

Session ``k`` of every project gets the era ``_ERAS[global index % len]``, so the
default 3x3 history covers every era; the second session of each project is a
resume of the first written into a new file.

Three options shape the benchmark's histories (benchmarks/bench.py) and leave the
default history byte for byte as it was when they are not given:

- ``real_files``: Read results are real source files (corpus/realcode.py) in Claude
  Code's Read format, about 40% of them re-reading a file the session read
  before, and Edits change lines of a file the session read;
- ``traps_every``: only every n-th session (by its index in the history) runs the
  trap events; the others are plain turns (no sub-agents, no truncated last line,
  no tool-results folder), as most short sessions are. 0: no session does.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from corpus.realcode import RealFiles

# docs/stats.md, in the order of bough_site.model.STAT_KEYS (kept separate on
# purpose: the oracle shares no code with the reader it checks).
STAT_KEYS: tuple[str, ...] = (
    "records",
    "replies",
    "prompts",
    "commands",
    "tool_calls",
    "tool_results",
    "tool_errors",
    "subagents",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "lines",
    "skipped_lines",
    "commits",
    "files_changed",
)


@dataclass
class Expected:
    sessions: dict[str, dict[str, int]] = field(default_factory=dict)
    projects: dict[str, dict[str, int]] = field(default_factory=dict)
    site: dict[str, int] = field(default_factory=dict)
    session_projects: dict[str, str] = field(default_factory=dict)
    bad_lines: list[tuple[str, int]] = field(default_factory=list)
    # Resumes written into a new file: resumed session id -> (the session it copied,
    # the uuids of the chain records it copied, whether the copies kept that session's id).
    resumes: dict[str, tuple[str, frozenset[str], bool]] = field(default_factory=dict)
    # With real files: the Read calls written (a resume's copies of its parent's
    # not counted again) and how many of them re-read a file their session read before.
    reads: int = 0
    rereads: int = 0


# --- counting -------------------------------------------------------------------

Usage4 = tuple[int, int, int, int]  # input, output, cache_creation, cache_read


@dataclass
class _Tally:
    """Identities booked while writing, unioned for projects and the site."""

    records: set[str] = field(default_factory=set)
    prompts: set[str] = field(default_factory=set)
    commands: set[str] = field(default_factory=set)
    tool_calls: set[str] = field(default_factory=set)
    tool_results: set[str] = field(default_factory=set)
    tool_errors: set[str] = field(default_factory=set)
    # Commit identities (the hash's first 7 hex digits, else the Bash call's id)
    # and "<cwd>\0<path>" of each file a file tool changed (docs/stats.md).
    commits: set[str] = field(default_factory=set)
    files_changed: set[str] = field(default_factory=set)
    replies: dict[str, Usage4] = field(default_factory=dict)
    subagents: int = 0
    lines: int = 0
    skipped: int = 0

    _SETS = ("records", "prompts", "commands", "tool_calls", "tool_results", "tool_errors", "commits", "files_changed")

    def reply(self, key: str, usage: Usage4) -> None:
        # docs/stats.md: the copy with the largest total is the reply's usage.
        seen = self.replies.get(key)
        if seen is None or sum(usage) > sum(seen):
            self.replies[key] = usage

    def union(self, other: _Tally, *, counts: bool = True) -> None:
        for name in self._SETS:
            getattr(self, name).update(getattr(other, name))
        for key, usage in other.replies.items():
            self.reply(key, usage)
        if counts:  # lines, skipped lines and sub-agent files add up
            self.subagents += other.subagents
            self.lines += other.lines
            self.skipped += other.skipped

    def stats(self) -> dict[str, int]:
        u = list(self.replies.values())
        out = {name: len(getattr(self, name)) for name in self._SETS}
        out.update(
            replies=len(self.replies),
            subagents=self.subagents,
            input_tokens=sum(x[0] for x in u),
            output_tokens=sum(x[1] for x in u),
            cache_creation_input_tokens=sum(x[2] for x in u),
            cache_read_input_tokens=sum(x[3] for x in u),
            lines=self.lines,
            skipped_lines=self.skipped,
        )
        return {key: out[key] for key in STAT_KEYS}


# --- files ------------------------------------------------------------------------

_FLUSH_BYTES = 8 << 20
_BAD_UTF8_MARK = b"~~INVALID-UTF8~~"
_BAD_UTF8_BYTES = b"\xff\xfe caf\xe9 "  # never valid UTF-8


class _File:
    """One JSONL file being written: bytes buffered, lines numbered, identities booked."""

    def __init__(self, root: Path, rel: str, *, keep: bool = False) -> None:
        self.path = root / rel
        self.rel = rel
        self.tally = _Tally()
        self.number = 0  # physical line number, blank lines included
        self.bad_lines: list[int] = []
        # Good lines kept for a later resume to copy (only for copy sources).
        self.kept: list[tuple[bytes, bool]] | None = [] if keep else None
        self._chunks: list[bytes] = []
        self._buffered = 0
        self._started = False
        self._ended = False  # a truncated last line was written

    def good(self, data: bytes, *, warned: bool = False) -> None:
        """A line that parses to an object (``warned``: it holds invalid UTF-8)."""
        self._line(data + b"\n")
        self.tally.lines += 1
        if warned:
            self.bad_lines.append(self.number)
        if self.kept is not None:
            self.kept.append((data, warned))

    def bad(self, data: bytes) -> None:
        """A non-blank line that gives no JSON object."""
        self._line(data + b"\n")
        self.tally.lines += 1
        self.tally.skipped += 1
        self.bad_lines.append(self.number)

    def blank(self) -> None:
        self._line(b"\n")

    def truncated(self, data: bytes) -> None:
        """A process killed mid-write: half a record, no newline, nothing after it."""
        self._line(data)
        self.tally.lines += 1
        self.tally.skipped += 1
        self.bad_lines.append(self.number)
        self._ended = True

    def _line(self, data: bytes) -> None:
        assert not self._ended, "nothing can follow a truncated last line"
        self.number += 1
        self._chunks.append(data)
        self._buffered += len(data)
        if self._buffered >= _FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._chunks and self._started:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab" if self._started else "wb") as handle:
            handle.writelines(self._chunks)
        self._started = True
        self._chunks = []
        self._buffered = 0


# --- eras -------------------------------------------------------------------------


def _vt(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@dataclass(frozen=True)
class _Era:
    version: str
    start: datetime

    def since(self, version: str) -> bool:
        return _vt(self.version) >= _vt(version)


_ERAS: tuple[_Era, ...] = (
    _Era("1.0.98", datetime(2025, 8, 28, 9)),
    _Era("1.0.108", datetime(2025, 9, 7, 9)),
    _Era("2.0.28", datetime(2025, 10, 25, 9)),
    _Era("2.0.65", datetime(2025, 12, 10, 9)),
    _Era("2.1.39", datetime(2026, 2, 11, 9)),
    _Era("2.1.90", datetime(2026, 4, 1, 9)),
    _Era("2.1.207", datetime(2026, 8, 1, 9)),
    _Era("2.1.252", datetime(2026, 10, 1, 9)),
)
# The build before promptId existed; newer sessions begin with a turn it wrote.
_PRE_PROMPT_ID = "2.1.59"

# Project cwds: the first two collide once mangled (one directory, two projects).
_CWDS = (
    "/home/u/my-app",
    "/home/u/my/app",
    "/home/u/work/spotter",
    "/home/u/src/bough site",
    "/home/u/repo/.worktrees/feat_x",
)


def mangle(cwd: str) -> str:
    """Claude Code's project directory name for ``cwd``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _cwd(index: int) -> str:
    return _CWDS[index] if index < len(_CWDS) else f"/home/u/proj-{index}"


# --- text ----------------------------------------------------------------------------

_WORDS = (
    "the of and to in is for on with that this def return import class self value error "
    "file test data line path config build render session project reply prompt token cache "
    "index json html page site output input stream record café → 日本語 naïve ✓"
).split()
_POOL: str = ""


def _pool() -> str:
    """1 MB of fixed filler text; tool outputs are slices of it (fast to make)."""
    global _POOL
    if not _POOL:
        r = random.Random(20250828)
        lines: list[str] = []
        size = 0
        while size < 1 << 20:
            line = " ".join(r.choices(_WORDS, k=r.randint(3, 14)))
            lines.append(line)
            size += len(line) + 1
        _POOL = "\n".join(lines)
    return _POOL


_PROMPTS = (
    "mix phx.server doesnt seem to start",
    "add a --verbose flag to the CLI and document it",
    "why does the test for <command-name> parsing fail?",  # a tag not at the start: a prompt
    "refactor the session loader, it is too slow on big files",
    "ユニットテストを追加してください",
    "the build is red on main 🙁 can you look",
    "rename `Tally` to `Counter` everywhere",
    "explain what this regex does: ^[A-Za-z0-9]+$",
    "write a migration for the new column",
    "ok, ship it",
)
_MODELS = ("claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-sonnet-4-20250514")
_AGENT_MODEL = "claude-haiku-4-5-20251001"
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_CAVEAT = (
    "<local-command-caveat>Caveat: The messages below were generated by the user while running "
    "local commands. DO NOT respond to these messages or otherwise consider them in your "
    "response unless the user explicitly asks you to.</local-command-caveat>"
)
_SUMMARY_TEXT = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis: the user asked for a faster loader."
)
_MODEL_CMD = (
    "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"
)
# 2.1.x local_command records indent the inner tags.
_MODEL_CMD_21 = _MODEL_CMD.replace("\n", "\n            ")
_COMPACT_CMD_21 = _MODEL_CMD_21.replace("/model", "/compact").replace(">model<", ">compact<")
_REVIEW_CMD = (
    "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n"
    "<command-args>src/</command-args>"
)
_TASK_NOTIFICATION = (
    "<task-notification>\n<task-id>b7f3</task-id>\n<status>completed</status>\n"
    "<summary>Background build finished</summary>\n</task-notification>"
)
_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how "
    "to proceed."
)
_TOOLS = ("Bash", "Read", "Edit", "Grep", "mcp__github__get_issue")
# With real files, Reads and Edits are most of what an agent does, as in real sessions.
_REAL_TOOL_WEIGHTS = (30, 35, 15, 10, 10)
_REREAD_SHARE = 0.4  # of Reads (after a session's first), a file the session read before
_PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
_ABSENT = object()  # "leave the field out", distinct from None (JSON null)


class _Gen:
    """Shared state of one history: the rng, sizes, where files go."""

    def __init__(self, root: Path, seed: int, output_kb: int, real: RealFiles | None = None) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.output_bytes = max(64, output_kb * 1024)
        self.pool = _pool()
        self.real = real
        self.reads = 0
        self.rereads = 0

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def token(self, prefix: str, n: int) -> str:
        return prefix + "".join(self.rng.choices(_ALPHABET, k=n))

    def hexid(self, n: int) -> str:
        return f"{self.rng.getrandbits(4 * n):0{n}x}"

    def text(self, size: int) -> str:
        pool = self.pool
        if size >= len(pool):
            return (pool * (size // len(pool) + 1))[:size]
        start = self.rng.randrange(len(pool) - size)
        return pool[start : start + size]

    def output(self) -> str:
        """A tool output of about ``output_kb`` KB."""
        return self.text(int(self.output_bytes * self.rng.uniform(0.5, 1.5)))


@dataclass
class _Stream:
    """Where records go: the main file, an inline 1.0.x sidechain, or an agent file."""

    file: _File
    sidechain: bool = False
    agent_id: str | None = None
    parent: str | None = None


# --- one session --------------------------------------------------------------------


class _Session:
    def __init__(self, gen: _Gen, cwd: str, era: _Era, index: int, *, copy_source: bool, traps: bool = True) -> None:
        self.g = gen
        self.rng = gen.rng
        self.cwd = cwd
        self.era = era
        self.index = index
        self.copy_source = copy_source
        self.traps = traps
        self.read_log: list[str] = []  # real files this session read (relative names), in order
        self.sid = gen.uid()
        self.dir = f"projects/{mangle(cwd)}"
        self.main = _File(gen.root, f"{self.dir}/{self.sid}.jsonl", keep=copy_source)
        self.s = _Stream(self.main)
        self.agents: list[_File] = []
        self.version = _PRE_PROMPT_ID if era.since("2.1.64") else era.version
        self.branch = "main" if index % 2 else "master"
        self.slug = "modular-petting-thompson" if era.since("2.0.50") else None
        self.model = _MODELS[index % len(_MODELS)]
        self.clock = era.start + timedelta(hours=index)
        self.turn_pid: str | None = None  # promptId of the turn in progress
        self.last_prompt: dict[str, Any] | None = None
        self.last_assistant: bytes | None = None

    # -- envelope ------------------------------------------------------------------

    @property
    def prompt_ids(self) -> bool:
        return _vt(self.version) >= _vt("2.1.64")

    def tick(self) -> str:
        self.clock += timedelta(milliseconds=self.rng.randint(40, 9000))
        return self.clock.isoformat(timespec="milliseconds") + "Z"

    def _record(
        self, s: _Stream, kind: str, body: dict[str, Any], parent: Any, extra: dict[str, Any]
    ) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "parentUuid": s.parent if parent is _ABSENT else parent,
            "isSidechain": s.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": self.version,
            "gitBranch": self.branch,
        }
        if s.agent_id:
            rec["agentId"] = s.agent_id
        if self.slug:
            rec["slug"] = self.slug
        rec["type"] = kind
        rec.update(body)
        rec["uuid"] = self.g.uid()
        rec["timestamp"] = self.tick()
        if self.era.since("2.1.144"):
            rec["entrypoint"] = "cli"
        rec.update(extra)
        return rec

    def _write(self, s: _Stream, rec: dict[str, Any], *, bad_utf8: bool = False) -> bytes:
        data = orjson.dumps(rec)
        if bad_utf8:
            data = data.replace(_BAD_UTF8_MARK, _BAD_UTF8_BYTES)
        s.file.good(data, warned=bad_utf8)
        return data

    def chain(
        self,
        s: _Stream,
        kind: str,
        body: dict[str, Any],
        *,
        counted: bool = True,
        bad_utf8: bool = False,
        parent: Any = _ABSENT,
        **extra: Any,
    ) -> dict[str, Any]:
        """Write a chain record; ``counted``: it is a user/assistant/system record."""
        rec = self._record(s, kind, body, parent, extra)
        data = self._write(s, rec, bad_utf8=bad_utf8)
        if counted:
            s.file.tally.records.add(rec["uuid"])
        if kind == "assistant" and s is self.s and not bad_utf8:
            self.last_assistant = data  # a candidate for a byte-identical replay
        s.parent = rec["uuid"]
        return rec

    def meta_line(self, s: _Stream, obj: dict[str, Any]) -> None:
        """A metadata line (no uuid, or not a chain type): a line, nothing more."""
        s.file.good(orjson.dumps(obj))

    # -- user records -----------------------------------------------------------------

    def prompt(self, s: _Stream, content: Any, *, pid: str | None = None, bad_utf8: bool = False) -> dict[str, Any]:
        """Something a person typed: one prompt, keyed by promptId or else by uuid."""
        extra: dict[str, Any] = {}
        if self.era.since("2.1.2"):
            extra["permissionMode"] = "default"
        if self.prompt_ids:
            pid = pid or self.g.uid()
            extra["promptId"] = pid
            if self.era.since("2.1.200"):
                extra["promptSource"] = "typed"
        self.turn_pid = pid
        rec = self.chain(s, "user", {"message": {"role": "user", "content": content}}, bad_utf8=bad_utf8, **extra)
        s.file.tally.prompts.add(pid or rec["uuid"])
        if not bad_utf8:
            self.last_prompt = rec
        return rec

    def user(self, s: _Stream, content: Any, **extra: Any) -> dict[str, Any]:
        """A user record nobody typed (harness text, meta, sidechain): a record only."""
        if self.prompt_ids and not s.sidechain and "promptId" not in extra:
            extra["promptId"] = self.turn_pid or self.g.uid()
        return self.chain(s, "user", {"message": {"role": "user", "content": content}}, **extra)

    def command_user(self, s: _Stream, text: str) -> None:
        """A slash command written as a user record (1.0.x/2.0.x, custom commands)."""
        rec = self.user(s, text, promptId=self.g.uid()) if self.prompt_ids else self.user(s, text)
        s.file.tally.commands.add(rec["uuid"])

    def local_command(self, s: _Stream, content: str, *, command: bool) -> None:
        """A 2.1.x ``system``/``local_command`` record (the command or its stdout)."""
        rec = self.chain(s, "system", {"subtype": "local_command", "content": content, "level": "info"}, isMeta=False)
        if command:
            s.file.tally.commands.add(rec["uuid"])

    def system(self, s: _Stream, subtype: str | None, *, parent: Any = _ABSENT, **fields: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"subtype": subtype} if subtype else {}
        body.update(fields)
        return self.chain(s, "system", body, parent=parent)

    # -- replies and tools ------------------------------------------------------------

    def _outputs(self, n: int, final: int) -> list[int]:
        """Streamed copies' output_tokens: rising, the last the largest."""
        if n == 1 or final <= n:
            return [final] * n
        early = sorted(self.rng.sample(range(1, final), n - 1))
        return early + [final]

    def reply(
        self,
        s: _Stream,
        blocks: list[dict[str, Any]],
        *,
        model: str | None = None,
        final_out: int | None = None,
        cache_read: int | None = None,
        request: bool = True,
    ) -> dict[str, str]:
        """One API reply, one record per content block (same message.id and
        requestId, different uuids). Returns tool_use id -> its record's uuid."""
        rng = self.rng
        mid = self.g.token("msg_01", 22)
        rid = self.g.token("req_011C", 20)
        inp = rng.randint(1, 12)
        cc = rng.choice((0, rng.randint(200, 6000)))
        cr = cache_read if cache_read is not None else rng.randint(9000, 160000)
        final = final_out if final_out is not None else rng.randint(20, 1500)
        outs = self._outputs(len(blocks), final)
        placed: dict[str, str] = {}
        for block, out in zip(blocks, outs):
            usage = {
                "input_tokens": inp,
                "cache_creation_input_tokens": cc,
                "cache_read_input_tokens": cr,
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cc},
                "output_tokens": out,
                "service_tier": "standard",
            }
            msg = {
                "model": model or self.model,
                "id": mid,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            }
            body: dict[str, Any] = {"message": msg}
            if request:
                body["requestId"] = rid
            rec = self.chain(s, "assistant", body)
            s.file.tally.reply(mid, (inp, out, cc, cr))
            if block["type"] == "tool_use":
                s.file.tally.tool_calls.add(block["id"])
                placed[block["id"]] = rec["uuid"]
        return placed

    def text_block(self, size: int = 200) -> dict[str, Any]:
        return {"type": "text", "text": self.g.text(self.rng.randint(size // 2, size))}

    def thinking_block(self) -> dict[str, Any]:
        text = self.g.text(self.rng.randint(80, 400))
        return {"type": "thinking", "thinking": text, "signature": self.g.token("Es", 60)}

    def tool_use(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_use", "id": self.g.token("toolu_01", 22), "name": name}
        block["input"] = tool_input
        if self.era.since("2.1.59"):
            block["caller"] = {"type": "direct"}
        return block

    def tool_result(
        self,
        s: _Stream,
        tool_id: str,
        content: Any,
        *,
        detail: Any = _ABSENT,
        error: bool = False,
        source: str | None = None,
        parent: Any = _ABSENT,
    ) -> dict[str, Any]:
        """A user record carrying one tool_result (``detail`` is toolUseResult)."""
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if error:
            block["is_error"] = True
        extra: dict[str, Any] = {}
        if detail is not _ABSENT:
            extra["toolUseResult"] = detail
        if source and self.era.since("2.1.1"):
            extra["sourceToolAssistantUUID"] = source
        if self.prompt_ids and not s.sidechain:
            extra["promptId"] = self.turn_pid or self.g.uid()  # a turn's results share its promptId
        rec = self.chain(s, "user", {"message": {"role": "user", "content": [block]}}, parent=parent, **extra)
        s.file.tally.tool_results.add(tool_id)
        if error:
            s.file.tally.tool_errors.add(tool_id)
        return rec

    def answer(self, s: _Stream, call: dict[str, Any], placed: dict[str, str], content: Any, **kw: Any) -> None:
        """The result of ``call``, threaded under the record that made the call."""
        where = placed[call["id"]]
        self.tool_result(s, call["id"], content, source=where, parent=where, **kw)

    def _tool(self, name: str) -> tuple[dict[str, Any], Any, Any]:
        """(input, tool_result content, toolUseResult) for one ordinary tool run."""
        if self.g.real is not None and (name == "Read" or (name == "Edit" and self.read_log)):
            return self._real_read() if name == "Read" else self._real_edit()
        out = self.g.output()
        if name == "Bash":
            return {"command": "pytest -q", "description": "Run tests"}, out, {
                "stdout": out, "stderr": "", "interrupted": False, "isImage": False}
        if name == "Read":
            path = f"{self.cwd}/src/loader.py"
            return {"file_path": path}, out, {"type": "text", "file": {
                "filePath": path, "content": out, "numLines": out.count("\n") + 1, "startLine": 1,
                "totalLines": out.count("\n") + 1}}
        if name == "Edit":
            path = f"{self.cwd}/src/loader.py"
            return {"file_path": path, "old_string": "a", "new_string": "b"}, "The file has been updated.", {
                "filePath": path, "oldString": "a", "newString": "b", "originalFile": out, "replaceAll": False,
                "structuredPatch": [
                    {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}
                ],
                "userModified": False}
        if name == "Grep":
            files = [f"src/m{i}.py" for i in range(self.rng.randint(1, 6))]
            detail = {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}
            return {"pattern": "TODO"}, "\n".join(files), detail
        # An MCP tool: the result content is a list and toolUseResult a list too.
        blocks = [{"type": "text", "text": out}]
        return {"issue": 42}, blocks, blocks

    def _real_read(self) -> tuple[dict[str, Any], Any, Any]:
        """A Read of a real file: a new one, or (``_REREAD_SHARE``) one this
        session read before, now and then only a window of its lines."""
        real = self.g.real
        assert real is not None
        again = bool(self.read_log) and self.rng.random() < _REREAD_SHARE
        name = self.rng.choice(self.read_log) if again else real.pick(self.rng)
        path = f"{self.cwd}/{name}"
        tool_input: dict[str, Any] = {"file_path": path}
        if again and self.rng.random() < 0.25:
            total = len(real.lines(name))
            tool_input["offset"] = self.rng.randint(1, max(1, total - 50))
            tool_input["limit"] = self.rng.randint(50, 400)
            read = real.read(name, tool_input["offset"], tool_input["limit"])
        else:
            read = real.read(name)
        if name not in self.read_log:
            self.read_log.append(name)
        self.g.reads += 1
        self.g.rereads += again
        detail = {"type": "text", "file": {"filePath": path, "content": read.content, "numLines": read.num_lines,
                                           "startLine": read.start_line, "totalLines": read.total_lines}}
        return tool_input, read.shown, detail

    def _real_edit(self) -> tuple[dict[str, Any], Any, Any]:
        """An Edit of a file this session read: a comment added after a few of
        its lines, with the structuredPatch and originalFile Claude Code records."""
        real = self.g.real
        assert real is not None
        name = self.rng.choice(self.read_log)
        lines = real.lines(name)
        at = self.rng.randrange(len(lines))
        while not lines[at].strip():  # old_string is never blank (a file is never all blank)
            at = (at + 1) % len(lines)
        count = min(self.rng.randint(1, 4), len(lines) - at)
        old = lines[at : at + count]
        indent = old[0][: len(old[0]) - len(old[0].lstrip())]
        new = [*old, f"{indent}# checked: see the benchmark notes"]
        first, last = max(0, at - 3), min(len(lines), at + count + 3)
        hunk = [" " + line for line in lines[first:at]] + ["-" + line for line in old] + [
            "+" + line for line in new] + [" " + line for line in lines[at + count : last]]
        path = f"{self.cwd}/{name}"
        old_text, new_text = "\n".join(old), "\n".join(new)
        return {"file_path": path, "old_string": old_text, "new_string": new_text}, "The file has been updated.", {
            "filePath": path, "oldString": old_text, "newString": new_text, "originalFile": "\n".join(lines) + "\n",
            "replaceAll": False, "structuredPatch": [{"oldStart": first + 1, "oldLines": last - first,
                                                      "newStart": first + 1, "newLines": last - first + 1,
                                                      "lines": hunk}],
            "userModified": False}

    def run_tool(self, s: _Stream, name: str, *, lead: list[dict[str, Any]] | None = None) -> None:
        """A reply ending in one tool call, progress, then the tool's result."""
        tool_input, content, detail = self._tool(name)
        block = self.tool_use(name, tool_input)
        placed = self.reply(s, (lead or []) + [block])
        self.progress(s, "bash_progress" if name == "Bash" else "hook_progress", block["id"])
        self.tool_result(s, block["id"], content, detail=detail, source=placed[block["id"]], parent=placed[block["id"]])
        if name == "Edit":
            self.changed(s, tool_input["file_path"])

    def changed(self, s: _Stream, path: str) -> None:
        """Book a file a file tool changed (docs/stats.md: distinct paths per project)."""
        s.file.tally.files_changed.add(f"{self.cwd}\0{path}")

    # -- noise ------------------------------------------------------------------------

    def progress(self, s: _Stream, kind: str, tool_id: str, **data: Any) -> None:
        """2.1.x progress records: chain fields and a uuid, yet never a record."""
        if not self.era.since("2.1.2"):
            return
        payload: dict[str, Any] = {"type": kind}
        if kind == "bash_progress":
            payload.update(output="collecting ...", fullOutput="collecting ...", elapsedTimeSeconds=2, totalLines=1)
        elif kind == "hook_progress":
            payload.update(hookEvent="PostToolUse", hookName="PostToolUse:Bash", command="./hooks/fmt.sh")
        payload.update(data)
        keep = s.parent
        self.chain(s, "progress", {"data": payload, "toolUseID": tool_id, "parentToolUseID": tool_id}, counted=False)
        s.parent = keep

    def end_of_turn(self, s: _Stream) -> None:
        if self.era.since("2.0.65") and self.rng.random() < 0.5:
            self.system(s, "stop_hook_summary", hookCount=1, hookInfos=[{"command": "./hooks/stop.sh"}], hookErrors=[],
                        preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion")
        if self.era.since("2.1.0"):
            self.system(s, "turn_duration", durationMs=self.rng.randint(2000, 90000), isMeta=False)
        elif not self.era.since("2.0.0") and self.rng.random() < 0.3:
            # 1.0.x system notice without a subtype
            self.system(s, None, content="Running \x1b[1mPostToolUse\x1b[22m hooks…", level="info", isMeta=False)

    # -- the session --------------------------------------------------------------------

    def head(self) -> None:
        s = self.s
        if not self.era.since("2.0.0"):
            self.meta_line(s, {"type": "summary", "summary": "Loader speed-up", "leafUuid": self.g.uid()})
        else:
            mid = self.g.uid()
            self.meta_line(s, {"type": "file-history-snapshot", "messageId": mid, "snapshot": {
                "messageId": mid, "trackedFileBackups": {}, "timestamp": self.tick()}, "isSnapshotUpdate": False})
        if self.era.since("2.1.97"):
            self.meta_line(s, {"type": "permission-mode", "permissionMode": "default", "sessionId": self.sid})
        self.progress(s, "hook_progress", self.g.uid(), hookEvent="SessionStart", hookName="SessionStart:startup")

    def copy_from(self, source: _Session, *, keep_session_id: bool) -> None:
        """A resume that wrote a new file: it begins with the earlier session's
        records (same uuids and message ids). Per session both count them; per
        project the union counts them once."""
        assert source.main.kept is not None
        self.main.tally.union(source.main.tally, counts=False)
        self.read_log = list(source.read_log)  # the replayed history read these
        old, new = f'"sessionId":"{source.sid}"'.encode(), f'"sessionId":"{self.sid}"'.encode()
        for data, warned in source.main.kept:
            self.main.good(data if keep_session_id else data.replace(old, new), warned=warned)
        self.s.parent = source.s.parent
        self.clock = max(self.clock, source.clock)

    def turn(self, t: int) -> None:
        s = self.s
        text = _PROMPTS[(self.index + t) % len(_PROMPTS)]
        shape = t % 3  # a string, one text block, or two text blocks
        if shape == 0:
            self.prompt(s, text)
        elif shape == 1:
            self.prompt(s, [{"type": "text", "text": text}])
        else:
            self.prompt(s, [{"type": "text", "text": text}, {"type": "text", "text": "(see above)"}])
        for _ in range(self.rng.randint(1, 3)):
            lead = []
            if self.rng.random() < 0.5:
                lead.append(self.thinking_block())
            if self.rng.random() < 0.6:
                lead.append(self.text_block())
            if self.g.real is None:
                name = self.rng.choice(_TOOLS)
            else:
                name = self.rng.choices(_TOOLS, weights=_REAL_TOOL_WEIGHTS)[0]
            self.run_tool(s, name, lead=lead)
        self.reply(s, [self.text_block(600)])
        self.end_of_turn(s)

    def events(self) -> list[Callable[[], None]]:
        """The traps, in the order they are spread over the turns."""
        if not self.traps:
            return []
        evs = [
            self.ev_commands,
            self.ev_parallel_tools,
            self.ev_prompt_shapes,
            self.ev_subagent,
            self.ev_harness_text,
            self.ev_interrupts,
            self.ev_work,
            self.ev_replays,
            self.ev_api_error,
            self.ev_noise,
            self.ev_bad_lines,
        ]
        if self.era.since("2.0.0"):
            evs.insert(7, self.ev_compaction)
        if not self.copy_source:
            # Per-line identities must not be copied into a resumed file.
            evs.append(self.ev_no_ids)
        return evs

    def run(self, turns: int) -> None:
        evs = self.events()
        at: dict[int, list[Callable[[], None]]] = {}
        for i, ev in enumerate(evs):
            at.setdefault(min(turns - 1, i * turns // len(evs)), []).append(ev)
        for t in range(turns):
            self.turn(t)
            if t == 0:
                self.version = self.era.version  # a newer build (with promptId) carries on
            for ev in at.get(t, []):
                ev()
        self.tail()

    def tail(self) -> None:
        s = self.s
        if self.era.since("2.1.64"):
            self.meta_line(s, {"type": "custom-title", "customTitle": "loader work", "sessionId": self.sid})
            self.meta_line(s, {"type": "last-prompt", "lastPrompt": _PROMPTS[0], "sessionId": self.sid})
        if self.era.since("2.1.97"):
            self.meta_line(s, {"type": "ai-title", "aiTitle": "Speed up the loader", "sessionId": self.sid})
        if self.traps and not self.copy_source and self.index % 2 == 0:
            # Killed mid-write: half of a reply record, no newline.
            rec = self._record(s, "assistant", {"message": {"id": self.g.token("msg_01", 22), "content": [
                self.text_block(400)]}}, _ABSENT, {})
            data = orjson.dumps(rec)
            s.file.truncated(data[: len(data) // 2])

    # -- traps ----------------------------------------------------------------------------

    def ev_commands(self) -> None:
        s = self.s
        self.user(s, _CAVEAT, isMeta=True)
        if not self.era.since("2.1.0"):
            # 1.0.x/2.0.x: local commands as user records, then their stdout.
            self.command_user(s, _MODEL_CMD)
            self.user(s, "<local-command-stdout>Set model to \x1b[1msonnet\x1b[22m</local-command-stdout>")
        else:
            self.local_command(s, _MODEL_CMD_21, command=True)
            stdout = "<local-command-stdout>Kept model as \x1b[1mDefault\x1b[22m</local-command-stdout>"
            self.local_command(s, stdout, command=False)
        # A custom command: <command-message> first, then its isMeta expansion and a reply.
        self.command_user(s, _REVIEW_CMD)
        expansion = "Review the code under src/ and list problems.\n" + self.g.text(300)
        self.user(s, [{"type": "text", "text": expansion}], isMeta=True)
        self.run_tool(s, "Grep")
        self.reply(s, [self.text_block(400)])

    def ev_parallel_tools(self) -> None:
        """Three calls in one reply; results arrive out of order, one is an error
        (toolUseResult a string), one from an MCP tool (toolUseResult a list)."""
        s = self.s
        self.prompt(s, "run the tests, read the loader and fetch issue 42 in parallel")
        # The Read's input names the file its result holds (a real source file in
        # the benchmark's histories: named .toml, it was lexed as TOML, all errors).
        read_input, read_content, read_detail = self._tool("Read")
        calls = [
            self.tool_use("Bash", {"command": "make test"}),
            self.tool_use("Read", read_input),
            self.tool_use("mcp__github__get_issue", {"issue": 42}),
        ]
        placed = self.reply(s, [self.text_block(120)] + calls)
        for call in calls:
            self.progress(s, "hook_progress", call["id"])
        bash, read, mcp = calls
        _, mcp_content, mcp_detail = self._tool("mcp")
        self.answer(s, mcp, placed, mcp_content, detail=mcp_detail)
        err = "Exit code 2\nmake: *** [test] Error 2\n" + self.g.text(200)
        self.answer(s, bash, placed, err, detail="Error: " + err, error=True)
        self.answer(s, read, placed, read_content, detail=read_detail)
        self.reply(s, [self.thinking_block(), self.text_block(500)])
        self.end_of_turn(s)

    def ev_prompt_shapes(self) -> None:
        s = self.s
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _PNG_1PX}}
        if self.prompt_ids:
            # The typed text and the pasted image: two records, one promptId, one prompt.
            pid = self.g.uid()
            self.prompt(s, "the layout is broken, see the screenshot", pid=pid)
            self.prompt(s, [image], pid=pid)
        else:
            self.prompt(s, [{"type": "text", "text": "the layout is broken, see the screenshot"}, image])
        self.reply(s, [self.text_block(300)])
        # One record whose text holds invalid UTF-8: kept (U+FFFD) with a warning.
        if self.index % 2 == 0:
            self.prompt(s, "why is caf" + _BAD_UTF8_MARK.decode() + " printed like that?", bad_utf8=True)
            self.reply(s, [self.text_block(200)])
        else:
            self.prompt(s, "show me the raw bytes of data.bin")
            tool = self.tool_use("Bash", {"command": "head -c 64 data.bin"})
            placed = self.reply(s, [tool])
            out = "caf" + _BAD_UTF8_MARK.decode() + "binary"
            rec = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
            block = {"tool_use_id": tool["id"], "type": "tool_result", "content": out}
            extra: dict[str, Any] = {"toolUseResult": rec}
            if self.prompt_ids:
                extra["promptId"] = self.turn_pid or self.g.uid()
            self.chain(s, "user", {"message": {"role": "user", "content": [block]}}, bad_utf8=True,
                       parent=placed[tool["id"]], **extra)
            s.file.tally.tool_results.add(tool["id"])
        # The same words typed twice are two prompts.
        for _ in range(2):
            self.prompt(s, "continue")
            self.reply(s, [self.text_block(200)])
        if self.index % 3 == 1:
            # A warm-up run's first message is not a prompt, its reply is a reply.
            self.user(s, "Warmup")
            self.reply(s, [self.text_block(80)])

    def ev_subagent(self) -> None:
        """A Task/Agent call, the agent's transcript (layout by era), then the
        call's result, whose toolUseResult names the agent from 2.1.x."""
        s = self.s
        self.prompt(s, "use an agent to find every TODO in the repo")
        name = "Agent" if self.era.since("2.1.63") else "Task"
        task = "Search the repository for TODO comments and list them with file:line."
        call = self.tool_use(name, {"description": "find TODOs", "prompt": task, "subagent_type": "general-purpose"})
        placed = self.reply(s, [self.text_block(100), call])
        summary = "Found 12 TODO comments:\n" + self.g.text(400)
        # usage/totalTokens describe the agent's last call only (never counted).
        usage = {"input_tokens": 6, "output_tokens": 997, "cache_creation_input_tokens": 20135,
                 "cache_read_input_tokens": 22041}
        detail: dict[str, Any] = {"content": [{"type": "text", "text": summary}], "totalDurationMs": 41234,
                                  "totalTokens": 43179, "totalToolUseCount": 3, "usage": usage}
        content: list[dict[str, Any]] = [{"type": "text", "text": summary}]
        aid = self.launch_agent(call, task)
        if aid:
            detail.update(agentId=aid, prompt=task, status="completed")
            tail = f"agentId: {aid} (for resuming to continue this agent's work if needed)\n"
            content.append({"type": "text", "text": tail + "<usage>total_tokens: 43179</usage>"})
        self.answer(s, call, placed, content, detail=detail)
        self.reply(s, [self.text_block(300)])
        self.end_of_turn(s)

    def launch_agent(self, call: dict[str, Any], task: str) -> str | None:
        """Write the agent's records where its era put them; the id when the
        result should name it (2.1.x)."""
        if not self.era.since("2.0.0"):
            # 1.0.x: the sidechain is inline in the main file, without agentId.
            self.run_agent(_Stream(self.main, sidechain=True), task)
            return None
        if not self.era.since("2.1.2"):
            # 2.0.x: agent-<8hex>.jsonl beside the sessions, found by sessionId; plus a warm-up agent.
            aid, warm = self.g.hexid(8), self.g.hexid(8)
            self.run_agent(self.agent_stream(f"{self.dir}/agent-{aid}.jsonl", aid), task)
            self.run_agent(self.agent_stream(f"{self.dir}/agent-{warm}.jsonl", warm), "Warmup", warmup=True)
            return None
        late = self.era.since("2.1.172")
        aid = "a" + self.g.hexid(16 if late else 6)
        agent = self.agent_stream(f"{self.dir}/{self.sid}/subagents/agent-{aid}.jsonl", aid)
        if late:
            self.write_meta(aid, {"agentType": "general-purpose", "toolUseId": call["id"], "spawnDepth": 1})
        self.progress(self.s, "agent_progress", call["id"], agentId=aid, prompt=task)
        self.run_agent(agent, task, nested=late)
        return aid

    def write_meta(self, aid: str, meta: dict[str, Any]) -> None:
        folder = self.g.root / self.dir / self.sid / "subagents"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"agent-{aid}.meta.json").write_bytes(orjson.dumps(meta))

    def agent_stream(self, rel: str, aid: str) -> _Stream:
        file = _File(self.g.root, rel)
        self.agents.append(file)
        return _Stream(file, sidechain=True, agent_id=aid)

    def run_agent(self, a: _Stream, task: str, *, warmup: bool = False, nested: bool = False) -> None:
        """A sub-agent's transcript: its user records are never prompts; its
        replies, tool calls and tokens are the session's."""
        a.parent = None
        self.user(a, task)
        if warmup:
            self.reply(a, [self.text_block(60)], model=_AGENT_MODEL)
            return
        # Output tokens stay at 1 in many real agent files (a lower bound).
        flat = self.rng.random() < 0.5
        for k in range(self.rng.randint(1, 2)):
            tool_input, content, detail = self._tool("Grep" if k else "Bash")
            call = self.tool_use("Grep" if k else "Bash", tool_input)
            placed = self.reply(a, [self.text_block(80), call], model=_AGENT_MODEL, final_out=1 if flat else None)
            # Nested (sub-agent) results often carry no toolUseResult.
            self.tool_result(a, call["id"], content, detail=_ABSENT if k else detail, source=placed[call["id"]])
        if a.file.number >= 2 and self.index % 2 == 1 and a.agent_id and len(self.agents) == 1:
            a.file.bad(b'{"type":"assistant","message":{"id":"msg_01')  # a torn line mid-file
            a.file.blank()
        if nested:
            self.nested_agent(a)
        # The agent edits a file too: its changes are the session's. Nested
        # results carry no toolUseResult (lines unknown), and it still counts.
        path = f"{self.cwd}/src/todo_index.py"
        edit = self.tool_use("Edit", {"file_path": path, "old_string": "TODO", "new_string": "DONE"})
        placed = self.reply(a, [edit], model=_AGENT_MODEL)
        self.tool_result(a, edit["id"], "The file has been updated.", source=placed[edit["id"]])
        self.changed(a, path)
        self.reply(a, [self.text_block(300)], model=_AGENT_MODEL, final_out=1 if flat else None)

    def nested_agent(self, a: _Stream) -> None:
        """2.1.172+: an agent spawning an agent; the files stay flat under subagents/."""
        task = "List failing tests."
        call = self.tool_use("Agent", {"description": "check tests", "prompt": task, "subagent_type": "Explore"})
        placed = self.reply(a, [call], model=_AGENT_MODEL)
        aid = "a" + self.g.hexid(16)
        child = self.agent_stream(f"{self.dir}/{self.sid}/subagents/agent-{aid}.jsonl", aid)
        meta = {"agentType": "Explore", "toolUseId": call["id"], "spawnDepth": 2}
        self.write_meta(aid, meta)
        keep = a.parent
        self.run_agent(child, task)
        a.parent = keep
        self.tool_result(a, call["id"], [{"type": "text", "text": "No failing tests."}], source=placed[call["id"]],
                         parent=placed[call["id"]])

    def ev_harness_text(self) -> None:
        """User records the harness wrote: none is a prompt."""
        s = self.s
        self.user(s, _CAVEAT, isMeta=True)
        self.user(s, "<bash-input>git status --short</bash-input>")
        self.user(s, "<bash-stdout> M src/loader.py\n?? notes.txt</bash-stdout><bash-stderr></bash-stderr>")
        reminder = "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>"
        self.user(s, [{"type": "text", "text": reminder}])
        self.user(s, "<user-prompt-submit-hook>lint passed</user-prompt-submit-hook>")
        self.user(s, "<local-command-stderr>permission denied</local-command-stderr>")
        self.user(s, [])  # empty content
        if self.era.since("2.1.0"):
            self.user(s, _TASK_NOTIFICATION)
        if self.era.since("2.1.172"):
            self.user(s, "<teammate-message teammate_id=\"reviewer\">LGTM</teammate-message>")
        self.reply(s, [self.text_block(150)])

    def ev_interrupts(self) -> None:
        s = self.s
        self.prompt(s, "delete the build directory")
        call = self.tool_use("Bash", {"command": "rm -rf build"})
        placed = self.reply(s, [call])
        self.answer(s, call, placed, _REJECTED, detail="User rejected tool use", error=True)
        self.user(s, [{"type": "text", "text": "[Request interrupted by user for tool use]"}])
        # A call that never gets a result.
        self.prompt(s, "ok then just list it")
        call = self.tool_use("Bash", {"command": "ls -R build"})
        self.reply(s, [self.text_block(60), call])
        self.user(s, [{"type": "text", "text": "[Request interrupted by user]"}])

    def ev_work(self) -> None:
        """What the agent builds: the file tools (one edit fails), and commits: with
        git's summary line, with a ``gitOperation``, quiet (``-q``, no output and
        no gitOperation), one that fails, and two commands that only mention
        ``git commit`` (a heredoc body, an echo)."""
        s = self.s
        self.prompt(s, "add the feature module, wire it up and commit")
        new = f"{self.cwd}/src/feature_{self.index}.py"
        body = "def feature():\n    return 42\n"
        write = self.tool_use("Write", {"file_path": new, "content": body})
        placed = self.reply(s, [self.text_block(80), write])
        self.answer(s, write, placed, f"File created successfully at: {new}",
                    detail={"type": "create", "filePath": new, "content": body, "structuredPatch": []})
        self.changed(s, new)
        loader = f"{self.cwd}/src/loader.py"
        edits = [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]
        multi = self.tool_use("MultiEdit", {"file_path": loader, "edits": edits})
        placed = self.reply(s, [multi])
        hunks = [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "lines": ["-a", "-c", "+b", "+d"]}]
        self.answer(s, multi, placed, f"Applied 2 edits to {loader}", detail={
            "filePath": loader, "edits": edits, "originalFileContents": "a\nc\n", "structuredPatch": hunks,
            "userModified": False})
        self.changed(s, loader)
        notebook = f"{self.cwd}/notebooks/explore.ipynb"
        cell = self.tool_use("NotebookEdit", {"notebook_path": notebook, "new_source": "print(1)", "cell_id": "c1"})
        placed = self.reply(s, [cell])
        self.answer(s, cell, placed, "Updated cell c1 with print(1)", detail={
            "new_source": "print(1)", "cell_id": "c1", "cell_type": "code", "language": "python",
            "edit_mode": "replace", "error": ""})
        self.changed(s, notebook)
        missing = f"{self.cwd}/src/missing.py"
        bad = self.tool_use("Edit", {"file_path": missing, "old_string": "x", "new_string": "y"})
        placed = self.reply(s, [bad])
        err = "<tool_use_error>File does not exist.</tool_use_error>"
        self.answer(s, bad, placed, err, detail="Error: File does not exist.", error=True)  # changed nothing
        subject = f"Add feature {self.index}"
        commands = [
            # (command, output, error, booked identity: "hash", "call" or None)
            (f'git add -A && git commit -m "{subject}"', "line", False, "hash"),
            ('git commit -m "Tune the loader"', "gitop", False, "hash"),
            ('git add -A && git commit -q -m "wip: loader"', "", False, "call"),
            ('git commit -m "again"', "On branch main\nnothing to commit, working tree clean", True, None),
            ("cat > NOTES.md <<'EOF'\nNext: git commit -m 'loader' once the tests pass\nEOF", "", False, None),
            ('echo "remember to git commit"', "remember to git commit", False, None),
        ]
        for command, output, error, booked in commands:
            call = self.tool_use("Bash", {"command": command, "description": "Commit"})
            placed = self.reply(s, [call])
            sha = f"{self.rng.getrandbits(160):040x}"
            detail: dict[str, Any] = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
            if output == "line":
                detail["stdout"] = output = f"[{self.branch} {sha[:7]}] {subject}\n 1 file changed, 2 insertions(+)"
            elif output == "gitop":
                detail["stdout"] = output = f"[{self.branch} {sha[:7]}] Tune the loader\n 1 file changed"
                detail["gitOperation"] = {"type": "commit", "sha": sha, "branch": self.branch,
                                          "message": "Tune the loader"}
            if error:
                self.answer(s, call, placed, "Exit code 1\n" + output, detail="Error: Exit code 1\n" + output, error=True)
            else:
                self.answer(s, call, placed, output or "(no output)", detail=detail)
            if booked == "hash":
                s.file.tally.commits.add(f"sha:{sha[:7]}")
            elif booked == "call":
                s.file.tally.commits.add(f"call:{call['id']}")
        self.reply(s, [self.text_block(200)])
        self.end_of_turn(s)

    def ev_replays(self) -> None:
        """The same uuid written again: byte-identical, with changed fields, and
        (promptId era) a user record whose copy has another promptId (first wins)."""
        s = self.s
        if self.last_assistant is not None:
            s.file.good(self.last_assistant)
        if self.last_prompt is not None:
            copy = dict(self.last_prompt)
            copy["gitBranch"] = "feature/faster-loader"
            copy["version"] = ".".join(self.era.version.split(".")[:2] + [str(_vt(self.era.version)[2] + 1)])
            copy["slug"] = "sunny-hopping-lark"
            s.file.good(orjson.dumps(copy))
            if "promptId" in copy:
                copy = dict(self.last_prompt)
                copy["promptId"] = self.g.uid()
                s.file.good(orjson.dumps(copy))

    def ev_compaction(self) -> None:
        s = self.s
        if self.era.since("2.1.0"):
            self.local_command(s, _COMPACT_CMD_21, command=True)
        last = s.parent
        if self.era.since("2.1.2"):
            # The compaction's own API call, logged as a sub-agent hanging off the main file.
            aid = "acompact-" + self.g.hexid(6)
            agent = self.agent_stream(f"{self.dir}/{self.sid}/subagents/agent-{aid}.jsonl", aid)
            agent.parent = last
            self.user(agent, "Your task is to create a detailed summary of the conversation so far.")
            self.reply(agent, [self.text_block(800)], model=self.model, cache_read=166758)
        self.system(s, "compact_boundary", parent=None, content="Conversation compacted", isMeta=False, level="info",
                    logicalParentUuid=last, compactMetadata={"trigger": "manual", "preTokens": 168012})
        self.user(s, _SUMMARY_TEXT, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def ev_api_error(self) -> None:
        s = self.s
        self.prompt(s, "try again")
        if self.era.since("2.1.0"):
            for attempt in (1, 2):
                self.system(s, "api_error", level="error", error={"status": 529, "headers": {}, "requestID": None,
                            "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}},
                            retryInMs=2000 * attempt, retryAttempt=attempt, maxRetries=10)
        # The harness's own placeholder reply: a record, not a reply, no usage.
        zero = {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        msg = {"id": self.g.uid(), "model": "<synthetic>", "role": "assistant", "type": "message",
               "stop_reason": "stop_sequence", "stop_sequence": "", "usage": zero,
               "content": [{"type": "text", "text": "API Error: 529 Overloaded"}]}
        self.chain(s, "assistant", {"message": msg}, isApiErrorMessage=True, error="overloaded")

    def ev_noise(self) -> None:
        """Lines that count as nothing but a line."""
        s = self.s
        if self.era.since("2.0.0"):
            text = "also check the tests"
            queue = {"type": "queue-operation", "operation": "enqueue", "sessionId": self.sid}
            self.meta_line(s, dict(queue, timestamp=self.tick(), content=text))
            # Up to 2.1.202 a ``remove`` (mid-turn steering) had content null.
            removed = text if self.era.since("2.1.205") else None
            self.meta_line(s, dict(queue, operation="remove", timestamp=self.tick(), content=removed))
            mid = self.g.uid()
            self.meta_line(s, {"type": "file-history-snapshot", "messageId": mid, "snapshot": {
                "messageId": mid, "trackedFileBackups": {"src/loader.py": {"backupFileName": "abc@v2", "version": 2,
                                                                           "backupTime": self.tick()}},
                "timestamp": self.tick()}, "isSnapshotUpdate": True})
        else:
            self.meta_line(s, {"type": "summary", "summary": "Fixing the loader", "leafUuid": s.parent})
        if self.era.since("2.1.97"):
            keep = s.parent
            hook = {"type": "hook_success", "hookName": "PostToolUse:Edit", "hookEvent": "PostToolUse", "exitCode": 0}
            self.chain(s, "attachment", {"attachment": hook}, counted=False)
            self.chain(s, "attachment", {"attachment": {"type": "queued_command", "prompt": "also check the tests",
                                                         "commandMode": "prompt"}}, counted=False)
            s.parent = keep
            self.meta_line(s, {"type": "ai-title", "aiTitle": "Loader work", "sessionId": self.sid})
            self.meta_line(s, {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": self.sid})
            self.meta_line(s, {"type": "mode", "mode": "normal", "sessionId": self.sid})
        if self.era.since("2.1.64"):
            self.meta_line(s, {"type": "custom-title", "customTitle": "loader", "sessionId": self.sid})
            self.meta_line(s, {"type": "agent-name", "agentName": "builder", "sessionId": self.sid})
        # Types from the future: one even has a uuid and a user-like message.
        keep = s.parent
        self.chain(s, "frame-link", {"frame": {"id": 7}}, counted=False)
        self.chain(s, "user-echo", {"message": {"role": "user", "content": "hello from the future"}}, counted=False)
        s.parent = keep
        self.meta_line(s, {"type": "worktree-state", "worktreeSession": None, "sessionId": self.sid})

    def ev_bad_lines(self) -> None:
        f = self.s.file
        f.blank()
        kind = self.index % 3
        if kind == 0:
            f.bad(b"this is not JSON {")
        elif kind == 1:
            f.bad(b'[{"type":"user","uuid":"not-an-object"}]')
        else:
            f.bad(b"<<<<<<< HEAD")
        f.blank()

    def ev_no_ids(self) -> None:
        """A system record with no uuid (counts once per line) and an assistant
        record with no message.id (its own reply, keyed by uuid)."""
        s = self.s
        body = {"subtype": "informational", "content": "Checking for updates", "level": "info"}
        rec = self._record(s, "system", body, _ABSENT, {})
        del rec["uuid"]
        self._write(s, rec)
        s.file.tally.records.add(f"line:{s.file.rel}:{s.file.number}")
        self.prompt(s, "summarize what we did")
        usage = {"input_tokens": 17, "output_tokens": 230, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 4100}
        msg = {"type": "message", "role": "assistant", "model": self.model, "content": [self.text_block(300)],
               "usage": usage}
        rec = self.chain(s, "assistant", {"message": msg})
        s.file.tally.reply("uuid:" + rec["uuid"], (17, 230, 0, 4100))

    # -- close ----------------------------------------------------------------------------

    def close(self) -> _Tally:
        """Write the files and return the session's tally (main + agents)."""
        tally = _Tally()
        for file in [self.main, *self.agents]:
            file.flush()
            tally.union(file.tally)
        tally.subagents = len(self.agents)
        return tally

    def bad_lines(self) -> list[tuple[str, int]]:
        return [(f.rel, n) for f in [self.main, *self.agents] for n in f.bad_lines]


def _tool_results_dir(session: _Session) -> None:
    """2.1.2+: big outputs stored beside the transcript; not a transcript."""
    if session.traps and session.era.since("2.1.2"):
        path = session.g.root / session.dir / session.sid / "tool-results"
        path.mkdir(parents=True, exist_ok=True)
        (path / "toolu_01big.txt").write_text(session.g.text(4096), encoding="utf-8")


def generate_claude_history(
    root: Path,
    *,
    seed: int = 0,
    projects: int = 3,
    sessions_per_project: int = 3,
    turns_per_session: int = 6,
    output_kb: int = 2,
    real_files: RealFiles | None = None,
    traps_every: int = 1,
) -> Expected:
    """Write a Claude Code history under ``root/projects`` and return its true counts.

    Size grows linearly with ``projects * sessions_per_project * turns_per_session``
    and, less than proportionally, with ``output_kb`` (the typical tool output;
    envelopes and assistant text do not grow with it). ``projects=10,
    sessions_per_project=10, turns_per_session=74, output_kb=8`` writes about
    275 MB in a couple of seconds. The defaults (3 x 3 x 6) hold every trap.
    ``real_files`` and ``traps_every``: see the module docstring.
    """
    if turns_per_session < 1:
        raise ValueError("turns_per_session must be at least 1")
    if traps_every < 0:
        raise ValueError("traps_every must be 0 or more")
    gen = _Gen(Path(root), seed, output_kb, real_files)
    expected = Expected()
    site = _Tally()
    for p in range(projects):
        cwd = _cwd(p)
        project = _Tally()
        source: _Session | None = None
        for k in range(sessions_per_project):
            index = p * sessions_per_project + k
            era = _ERAS[index % len(_ERAS)]
            resumed = k == 1 and source is not None
            if resumed and _vt(era.version) < _vt(source.era.version):
                era = source.era  # a resume never goes back to an older build
            session = _Session(gen, cwd, era, index, copy_source=(k == 0 and sessions_per_project > 1),
                               traps=traps_every > 0 and index % traps_every == 0)
            if resumed:
                session.copy_from(source, keep_session_id=p % 2 == 1)
                source.main.kept = None  # free it
                expected.resumes[session.sid] = (source.sid, frozenset(source.main.tally.records), p % 2 == 1)
            else:
                session.head()
            session.run(turns_per_session)
            tally = session.close()
            _tool_results_dir(session)
            expected.sessions[session.sid] = tally.stats()
            expected.session_projects[session.sid] = cwd
            expected.bad_lines.extend(session.bad_lines())
            project.union(tally)
            if k == 0:
                source = session
        expected.projects[cwd] = project.stats()
        site.union(project)
    expected.site = site.stats()
    expected.reads, expected.rereads = gen.reads, gen.rereads
    return expected
