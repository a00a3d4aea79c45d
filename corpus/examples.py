"""The example Claude Code history bundled with bough.

``bough build`` on a machine with no Claude Code history builds these, and the
published demo (``example_output/``) is built from them. They have two jobs:
read like real, pleasant work sessions of one developer (``ada``) with an AI
coding agent, and hold every kind of record and every trap bough's reader has
to handle, so the demo shows them all.

Everything is written by this script, deterministically: ids come from
hashes of fixed seeds, timestamps from a clock the story advances by hand. Run
``python -m corpus.examples`` to regenerate
``bough_site/examples/claude/projects/``; tests/test_examples.py checks that
the bundled files are exactly what this script writes.

The sessions (project, Claude Code version, what each one shows):

tidepool  (/home/ada/src/tidepool, a small CLI printing NOAA tide predictions)
  T1 1.0.113  Show tide times in local time. 1.0.x shapes: ``/model`` as user
              records with an ``isMeta`` caveat, string prompts, no promptId,
              a Task sub-agent *inline* (``isSidechain`` records in the main
              file), Read/Grep/Edit/TodoWrite, thinking, a failing pytest run
              then the fix, replies split over records with rising output.
  T2 2.0.69   ``--days`` and an on-disk cache. Opens with a ``summary`` line
              naming T1's last record (a title that lives in another file);
              old sub-agent layout (``agent-<8hex>.jsonl`` beside the
              sessions); Write (create), an Edit that fails, Bash with
              stderr, a ``git commit``, ``file-history-snapshot`` noise.

notes-api (/home/ada/src/notes-api, a small FastAPI service)
  N1 2.1.42   A 401 from OpenAI. Reads ``.env`` holding a FAKE OpenAI key
              (redaction demo), the user rejects an edit
              (``[Request interrupted by user for tool use]``), an
              ``api_error`` retry, ``/model`` as ``system/local_command``, a
              ``<synthetic>`` API-error reply, ``progress`` noise.
  N2 2.1.51   ``--resume`` of N1 written to a new file: the file starts with
              copies of all of N1's records (same uuids), then new work.
  N3 2.1.196  Cursor pagination. ``Agent`` sub-agent in
              ``<session>/subagents/`` with ``.meta.json``, linked by
              ``toolUseResult.agentId``; ``agent_progress``; ``promptId``;
              an ``ai-title``; a manual ``/compact`` (``compact_boundary``,
              ``isCompactSummary``, ``agent-acompact-*.jsonl``).
  N4 2.1.228  Rate limiting. WebFetch, TodoWrite; the write of a tool result
              is cut off mid-file (one unparseable line, a call without a
              result), then ``claude --continue`` appends to the same file,
              replaying earlier uuids under a newer version and promptId.

dotfiles  (/home/ada/dotfiles)
  D1 2.1.118  A secrets check before going public: a Bash output holding an
              AWS key id (AWS's documented EXAMPLE id), a pasted image (an 8x8
              PNG colour swatch), Haiku as the main model; the last line is
              cut off with no newline.

Dates follow the versions, so the history reads as one person's year: the
1.0.x and 2.0.x sessions are from autumn 2025, the 2.1.x ones from 2026.

All keys and secrets in here are fake: ``sk-proj-EXAMPLE...`` and
``AKIAIOSFODNN7EXAMPLE`` (AWS's documentation example) exist to show
redaction.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import struct
import zlib
from base64 import b64encode
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

HOME = "/home/ada"

# Session ids, fixed so tests and docs can name them.
T1 = "6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35"
T2 = "b3e7a9d2-58c1-4f6b-a0d4-7c2e9f13b846"
N1 = "0d9a4f6e-2b7c-4e18-8f35-c1a6b2d7e904"
N2 = "e45b8c13-7f2a-4c69-b1d8-3a0e5f7c2b61"
N3 = "8a2d6e0f-c419-4b7a-9e53-d6f1b08a4c27"
N4 = "c7f03b91-6d2e-4a85-b4c9-1e8d2a6f5b03"
D1 = "4b8e1d27-a06f-4c3b-8d92-5f7a3c0e1b68"

# Sub-agent ids, in the shape each Claude Code era used.
T2_AGENT = "5e1d0c7a"  # 2.0.x: 8 hex, file beside the sessions
N3_AGENT = "a4f1c9e27b3d06e18"  # late 2.1.x: 17 chars, under <session>/subagents/
N3_COMPACT = "acompact-7d2e91"  # the compaction call's own transcript

OPUS_41 = "claude-opus-4-1-20250805"
SONNET_45 = "claude-sonnet-4-5-20250929"
OPUS_46 = "claude-opus-4-6"
HAIKU_45 = "claude-haiku-4-5-20251001"

FAKE_OPENAI_KEY = "sk-proj-EXAMPLEexampleEXAMPLEexampleEXAMPLEexampleEXAMPLE0000"
FAKE_AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"

TODO_ACK = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
CAVEAT = (
    "Caveat: The messages below were generated by the user while running local commands. DO NOT "
    "respond to these messages or otherwise consider them in your response unless the user "
    "explicitly asks you to."
)


# --- deterministic ids and time ------------------------------------------------

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class Ids:
    """Ids that look like Claude Code's but come from hashing a seed and a counter,
    so every run writes the same bytes."""

    def __init__(self, seed: str):
        self.seed = seed
        self.count = 0

    def _digest(self, kind: str) -> bytes:
        self.count += 1
        return hashlib.sha256(f"{self.seed}/{kind}/{self.count}".encode()).digest()

    def uuid(self) -> str:
        raw = bytearray(self._digest("uuid")[:16])
        raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
        raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
        return str(UUID(bytes=bytes(raw)))

    def token(self, prefix: str, length: int) -> str:
        number = int.from_bytes(self._digest(prefix), "big")
        chars = []
        for _ in range(length):
            number, digit = divmod(number, 62)
            chars.append(_BASE62[digit])
        return prefix + "".join(chars)

    def message(self) -> str:
        return self.token("msg_01", 22)

    def tool(self) -> str:
        return self.token("toolu_01", 22)

    def request(self) -> str:
        return self.token("req_011C", 20)

    def hex(self, length: int) -> str:
        return self._digest("hex").hex()[:length]


class Clock:
    """Story time. Advanced explicitly, in milliseconds, so timestamps are exact."""

    def __init__(self, start: str):
        self.now = datetime.fromisoformat(start).astimezone(UTC)

    def wait(self, seconds: float) -> None:
        self.now += timedelta(milliseconds=round(seconds * 1000))

    def stamp(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


# --- the files the agent works on ------------------------------------------------


class Workspace:
    """The project's files as the agent sees them, so Read shows what earlier
    Edits left behind and Grep's line numbers are right."""

    def __init__(self, cwd: str, files: dict[str, str]):
        self.cwd = cwd
        self.files = dict(files)

    def path(self, rel: str) -> str:
        return f"{self.cwd}/{rel}"

    def read(self, rel: str) -> str:
        return self.files[rel]

    def edit(self, rel: str, old: str, new: str) -> tuple[str, str]:
        before = self.files[rel]
        if before.count(old) != 1:
            raise ValueError(f"story bug: {old!r} is not unique in {rel}")
        self.files[rel] = before.replace(old, new)
        return before, self.files[rel]

    def grep(self, pattern: str, under: str = "", *, absolute: bool = False) -> list[str]:
        """``path:line:text`` for every matching line, like ``rg -n``. The Grep
        tool prints absolute paths; a shell ``grep`` in the cwd, relative ones."""
        regex = re.compile(pattern)
        hits = []
        for rel in sorted(self.files):
            if not rel.startswith(under):
                continue
            for number, line in enumerate(self.files[rel].splitlines(), 1):
                if regex.search(line):
                    hits.append(f"{self.path(rel) if absolute else rel}:{number}:{line}")
        return hits


def numbered(text: str, start: int = 1) -> str:
    """The Read tool's view of a file: ``cat -n`` with an arrow."""
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(text.splitlines(), start))


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """Edit's ``structuredPatch``: unified-diff hunks with three lines of context."""
    a, b = old.splitlines(), new.splitlines()
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[a1:a2]]
            else:
                lines += ["-" + line for line in a[a1:a2]] + ["+" + line for line in b[b1:b2]]
        a_start, a_end, b_start, b_end = group[0][1], group[-1][2], group[0][3], group[-1][4]
        hunks.append(
            {
                "oldStart": a_start + 1,
                "oldLines": a_end - a_start,
                "newStart": b_start + 1,
                "newLines": b_end - b_start,
                "lines": lines,
            }
        )
    return hunks


def swatch_png(rgb: tuple[int, int, int], size: int = 8) -> bytes:
    """A solid-colour PNG. The zlib stream uses a stored (uncompressed) block so
    the bytes do not depend on which zlib build Python links against."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = (b"\x00" + bytes(rgb) * size) * size  # filter byte 0, then RGB pixels
    stored = b"\x01" + struct.pack("<HH", len(raw), 0xFFFF ^ len(raw)) + raw
    stream = b"\x78\x01" + stored + struct.pack(">I", zlib.adler32(raw))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", stream) + chunk(b"IEND", b"")


# --- records ---------------------------------------------------------------------


@dataclass(frozen=True)
class Era:
    """What a Claude Code version writes, beyond the common envelope."""

    version: str
    slug: bool = False  # 2.0.5x+: a per-session plan slug on every record
    source_tool: bool = False  # 2.1.1+: sourceToolAssistantUUID on tool results
    prompt_ids: bool = False  # 2.1.6x+: promptId on user records
    caller: bool = False  # 2.1.59+: caller on tool_use blocks
    geo: bool = False  # 2.1.x: usage.inference_geo
    entrypoint: bool = False  # late 2.1.x
    cache_ttl: str = "5m"  # which ephemeral bucket cache writes land in
    short_edit_result: bool = False  # 2.1.x no longer echoes a cat -n snippet after Edit


ERA_1_0 = Era("1.0.113")
ERA_2_0 = Era("2.0.69", slug=True)
ERA_2_1_EARLY = Era("2.1.42", slug=True, source_tool=True, geo=True, cache_ttl="1h", short_edit_result=True)
ERA_2_1_RESUMED = Era("2.1.51", slug=True, source_tool=True, geo=True, cache_ttl="1h", short_edit_result=True)
ERA_2_1_MID = Era(
    "2.1.118", slug=True, source_tool=True, prompt_ids=True, caller=True, geo=True,
    entrypoint=True, cache_ttl="1h", short_edit_result=True,
)  # fmt: skip
ERA_2_1_LATE = Era(
    "2.1.196", slug=True, source_tool=True, prompt_ids=True, caller=True, geo=True,
    entrypoint=True, cache_ttl="1h", short_edit_result=True,
)  # fmt: skip
ERA_2_1_AUG = Era(
    "2.1.228", slug=True, source_tool=True, prompt_ids=True, caller=True, geo=True,
    entrypoint=True, cache_ttl="1h", short_edit_result=True,
)  # fmt: skip


@dataclass(frozen=True)
class Usage:
    """A reply's token spend. ``output`` is the final count; records written
    before the reply finished streaming carry ``early`` instead."""

    input: int
    write: int
    read: int
    output: int
    early: int = 2


@dataclass
class Call:
    """A tool_use block, and after ``reply`` the record that holds it."""

    name: str
    input: dict[str, Any]
    id: str = ""
    record: str = ""


def think(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": ""}


def say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def call(name: str, **tool_input: Any) -> Call:
    return Call(name, tool_input)


def dumps(record: dict[str, Any]) -> str:
    # Compact separators and raw UTF-8, as Claude Code's JSON.stringify writes them.
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


class Transcript:
    """One JSONL file being written: the envelope its records share, the parent
    chain, the clock, and the turn's promptId."""

    def __init__(
        self,
        *,
        session_id: str,
        cwd: str,
        era: Era,
        branch: str,
        clock: Clock,
        ids: Ids,
        model: str,
        slug: str | None = None,
        agent_id: str | None = None,
        sidechain: bool = False,
    ):
        self.session_id = session_id
        self.cwd = cwd
        self.era = era
        self.branch = branch
        self.clock = clock
        self.ids = ids
        self.model = model
        self.slug = slug if era.slug else None
        self.agent_id = agent_id
        self.sidechain = sidechain
        self.items: list[dict[str, Any] | str] = []  # records, or raw text for broken lines
        self.last: str | None = None  # the uuid the next chain record hangs off
        self.prompt_id: str | None = None
        self.final_newline = True

    # -- writing ----------------------------------------------------------------

    def text(self) -> str:
        lines = [item if isinstance(item, str) else dumps(item) for item in self.items]
        return "\n".join(lines) + ("\n" if self.final_newline else "")

    def _envelope(self, parent: str | None) -> dict[str, Any]:
        record: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.era.version,
            "gitBranch": self.branch,
        }
        if self.agent_id:
            record["agentId"] = self.agent_id
        if self.slug:
            record["slug"] = self.slug
        return record

    def _chain(self, kind: str, body: dict[str, Any], extra: dict[str, Any], parent: Any = ...) -> dict[str, Any]:
        record = self._envelope(self.last if parent is ... else parent)
        record["type"] = kind
        record.update(body)
        record["uuid"] = self.ids.uuid()
        record["timestamp"] = self.clock.stamp()
        if self.era.entrypoint:
            record["entrypoint"] = "cli"
        record.update(extra)
        self.items.append(record)
        self.last = record["uuid"]
        return record

    def _turn(self) -> dict[str, Any]:
        return {"promptId": self.prompt_id} if self.prompt_id and not self.sidechain else {}

    # -- what a person (or the harness, on their behalf) sends ------------------------

    def prompt(self, content: str | list[dict[str, Any]], *, wait: float = 0, parent: Any = ..., **extra: Any) -> str:
        """Something the person typed (or, in a sub-agent, the task it was given).
        Starts a new turn, and a new promptId where the version writes them."""
        self.clock.wait(wait)
        if self.era.prompt_ids and not self.sidechain:
            self.prompt_id = self.ids.uuid()
        body = {"message": {"role": "user", "content": content}}
        return self._chain("user", body, {**self._turn(), **extra}, parent)["uuid"]

    def user(self, content: str | list[dict[str, Any]], *, wait: float = 0.01, parent: Any = ..., **extra: Any) -> str:
        """A user record the harness wrote: command wrappers, caveats, markers."""
        self.clock.wait(wait)
        body = {"message": {"role": "user", "content": content}}
        return self._chain("user", body, {**self._turn(), **extra}, parent)["uuid"]

    def slash_command_as_user(self, name: str, args: str, output: str, *, wait: float = 0) -> None:
        """A slash command the 1.0.x way: a caveat, the command and its output,
        each a ``user`` record."""
        self.user(CAVEAT, wait=wait, isMeta=True)
        self.user(command_text(name, args), wait=0.004)
        self.user(f"<local-command-stdout>{output}</local-command-stdout>", wait=0.004)

    def slash_command_as_system(self, name: str, args: str, output: str, *, wait: float = 0) -> None:
        """A slash command the 2.1.x way: ``system/local_command`` records, after
        a ``<local-command-caveat>`` meta record."""
        self.user(f"<local-command-caveat>{CAVEAT}</local-command-caveat>", wait=wait, isMeta=True)
        self.system("local_command", command_text(name, args), wait=0.006, isMeta=False)
        self.system("local_command", f"<local-command-stdout>{output}</local-command-stdout>", wait=0, isMeta=False)

    # -- the model's side ---------------------------------------------------------

    def reply(self, blocks: list[dict[str, Any] | Call], usage: Usage, *, model: str | None = None, wait: float | None = None) -> list[Call]:
        """One API reply, written the way Claude Code streams it: one record per
        content block, all sharing ``message.id`` and ``requestId``. Only the last
        record carries the final ``output_tokens``."""
        message_id, request_id = self.ids.message(), self.ids.request()
        calls = []
        # Time to first token varies a little from call to call; then each block
        # is written when it has streamed, at roughly 250 characters a second.
        self.clock.wait(wait if wait is not None else 1.3 + (int(request_id[-4:], 36) % 17) / 10)
        for index, block in enumerate(blocks):
            self.clock.wait(0.05 + len(dumps(_block(block))) / 250)
            if isinstance(block, Call):
                block.id = self.ids.tool()
                calls.append(block)
            final = index == len(blocks) - 1
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model or self.model,
                "content": [self._tool_use(block) if isinstance(block, Call) else block],
                # Written mid-stream, so almost always null (docs/formats-claude.md C5).
                "stop_reason": None,
                "stop_sequence": None,
                "usage": self._usage(usage, usage.output if final else min(usage.early, usage.output)),
            }
            record = self._chain("assistant", {"message": message, "requestId": request_id}, {})
            if isinstance(block, Call):
                block.record = record["uuid"]
        return calls

    def _tool_use(self, tool: Call) -> dict[str, Any]:
        block = {"type": "tool_use", "id": tool.id, "name": tool.name, "input": tool.input}
        if self.era.caller:
            block["caller"] = {"type": "direct"}
        return block

    def _usage(self, usage: Usage, output: int) -> dict[str, Any]:
        write = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
        write[f"ephemeral_{self.era.cache_ttl}_input_tokens"] = usage.write
        out = {
            "input_tokens": usage.input,
            "cache_creation_input_tokens": usage.write,
            "cache_read_input_tokens": usage.read,
            "cache_creation": write,
            "output_tokens": output,
            "service_tier": "standard",
        }
        if self.era.geo:
            out["inference_geo"] = "not_available"
        return out

    def api_error_reply(self, text: str, *, wait: float = 1.0) -> None:
        """What Claude Code writes itself when the API gives up: an assistant
        record from model ``<synthetic>`` with zero usage."""
        self.clock.wait(wait)
        message = {
            "id": self.ids.uuid(),
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [say(text)],
            "stop_reason": "stop_sequence",
            "stop_sequence": "",
            "usage": self._usage(Usage(0, 0, 0, 0, 0), 0),
        }
        self._chain("assistant", {"message": message}, {"isApiErrorMessage": True})

    # -- tool results ---------------------------------------------------------------

    def result(
        self,
        tool: Call,
        content: str | list[dict[str, Any]],
        detail: Any = None,
        *,
        is_error: bool = False,
        took: float = 0.08,
    ) -> str:
        """The user record carrying a tool's result. It hangs off the record that
        made the call, which is not always the previous record."""
        self.clock.wait(took)
        block: dict[str, Any] = {"tool_use_id": tool.id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        extra: dict[str, Any] = self._turn()
        if detail is not None and not self.agent_id:
            # Sub-agent files (2.0+) keep the bare tool_result; the trunk gets toolUseResult.
            extra["toolUseResult"] = detail
        if self.era.source_tool:
            extra["sourceToolAssistantUUID"] = tool.record
        body = {"message": {"role": "user", "content": [block]}}
        return self._chain("user", body, extra, tool.record)["uuid"]

    # -- other records ------------------------------------------------------------

    def system(self, subtype: str, content: str | None = None, *, wait: float = 0.01, level: str | None = "info", parent: Any = ..., **fields: Any) -> str:
        self.clock.wait(wait)
        body: dict[str, Any] = {"subtype": subtype}
        if content is not None:
            body["content"] = content
        if level is not None:
            body["level"] = level
        return self._chain("system", body, fields, parent)["uuid"]

    def turn_done(self, prompt_uuid: str) -> None:
        """``system/turn_duration``: how long the turn since that prompt took."""
        stamp = next(i["timestamp"] for i in self.items if isinstance(i, dict) and i.get("uuid") == prompt_uuid)
        began = datetime.fromisoformat(stamp)
        self.system("turn_duration", level=None, wait=0.02, durationMs=int((self.clock.now - began).total_seconds() * 1000), isMeta=False)

    def progress(self, data: dict[str, Any], *, tool_use_id: str, parent_tool_use_id: str, wait: float = 0.02) -> None:
        """Streaming noise (2.1.x): part of the chain, never a message."""
        self.clock.wait(wait)
        self._chain("progress", {"data": data, "parentToolUseID": parent_tool_use_id, "toolUseID": tool_use_id}, {})

    def session_start_hook(self, command: str) -> None:
        hook_id = self.ids.uuid()
        data = {"type": "hook_progress", "hookEvent": "SessionStart", "hookName": "SessionStart:startup", "command": command}
        self.progress(data, tool_use_id=hook_id, parent_tool_use_id=hook_id, wait=0)

    def snapshot(self, message_id: str, backups: dict[str, int] | None = None, *, update: bool = False) -> None:
        """A file-history checkpoint: not conversation, no uuid."""
        tracked = {
            path: {"backupFileName": f"{hashlib.sha256(path.encode()).hexdigest()[:16]}@v{version}", "version": version, "backupTime": self.clock.stamp()}
            for path, version in (backups or {}).items()
        }
        snap = {"messageId": message_id, "trackedFileBackups": tracked, "timestamp": self.clock.stamp()}
        self.items.append({"type": "file-history-snapshot", "messageId": message_id, "snapshot": snap, "isSnapshotUpdate": update})

    def line(self, record: dict[str, Any]) -> None:
        """A metadata line (summary, ai-title ...): no uuid, not in the chain."""
        self.items.append(record)

    def cut_off_last(self, after: str) -> None:
        """The write of the last record stopped just after ``after``: the line
        stays, unparseable, and the record is lost."""
        text = dumps(self.items.pop())
        self.items.append(text[: text.index(after) + len(after)])

    def copy_from(self, other: Transcript, **changes: Any) -> None:
        """Re-append another file's conversation records, same uuids (a resume
        that copies history, or a replay after a crash)."""
        for item in other.items:
            if isinstance(item, dict) and item.get("type") in ("user", "assistant", "system"):
                self.items.append({**item, **changes})
        self.last = other.last

    def replay(self, uuids: list[str], **changes: Any) -> None:
        """Append copies of some of this file's own records, changed as given."""
        by_uuid = {item["uuid"]: item for item in self.items if isinstance(item, dict) and "uuid" in item}
        for uuid in uuids:
            self.items.append({**by_uuid[uuid], **changes})

    def subagent(self, *, agent_id: str | None, era: Era | None = None, model: str | None = None) -> Transcript:
        """A sub-agent's transcript: same session and clock, its own chain."""
        return Transcript(
            session_id=self.session_id, cwd=self.cwd, era=era or self.era, branch=self.branch,
            clock=self.clock, ids=self.ids, model=model or self.model, slug=self.slug,
            agent_id=agent_id, sidechain=True,
        )  # fmt: skip

    def inline_sidechain(self) -> Transcript:
        """1.0.x: the sub-agent's records go into this very file, marked
        ``isSidechain`` and without an agentId."""
        side = self.subagent(agent_id=None)
        side.items = self.items
        return side


def _block(block: dict[str, Any] | Call) -> dict[str, Any]:
    return {"name": block.name, "input": block.input} if isinstance(block, Call) else block


def command_text(name: str, args: str) -> str:
    # The indentation is what Claude Code writes between the three tags.
    return (
        f"<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n"
        f"            <command-args>{args}</command-args>"
    )


# --- tool results, shaped per tool ----------------------------------------------


def read_file(t: Transcript, ws: Workspace, tool: Call, rel: str) -> str:
    text = ws.read(rel)
    lines = text.splitlines()
    detail = {
        "type": "text",
        "file": {"filePath": ws.path(rel), "content": text, "numLines": len(lines), "startLine": 1, "totalLines": len(lines)},
    }
    return t.result(tool, numbered(text), detail, took=0.05)


def edit_file(t: Transcript, ws: Workspace, tool: Call) -> str:
    """Apply an Edit call to the workspace and record its result."""
    rel = tool.input["file_path"].removeprefix(ws.cwd + "/")
    old, new = tool.input["old_string"], tool.input["new_string"]
    before, after = ws.edit(rel, old, new)
    patch = structured_patch(before, after)
    detail = {
        "filePath": tool.input["file_path"],
        "oldString": old,
        "newString": new,
        "originalFile": before,
        "structuredPatch": patch,
        "userModified": False,
        "replaceAll": False,
    }
    if t.era.short_edit_result:
        text = f"The file {tool.input['file_path']} has been updated successfully."
    else:
        first = max(1, patch[0]["newStart"])
        last = min(len(after.splitlines()), patch[-1]["newStart"] + patch[-1]["newLines"] - 1)
        snippet = "\n".join(after.splitlines()[first - 1 : last])
        text = (
            f"The file {tool.input['file_path']} has been updated. Here's the result of running "
            f"`cat -n` on a snippet of the edited file:\n{numbered(snippet, first)}"
        )
    return t.result(tool, text, detail, took=0.06)


def write_file(t: Transcript, ws: Workspace, tool: Call) -> str:
    rel = tool.input["file_path"].removeprefix(ws.cwd + "/")
    ws.files[rel] = tool.input["content"]
    detail = {"type": "create", "filePath": tool.input["file_path"], "content": tool.input["content"], "structuredPatch": [], "originalFile": None}
    return t.result(tool, f"File created successfully at: {tool.input['file_path']}", detail, took=0.05)


def bash_ok(t: Transcript, tool: Call, stdout: str, stderr: str = "", *, took: float = 1.2) -> str:
    detail: dict[str, Any] = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False}
    if t.era.source_tool:  # 2.1.x added this flag along with sourceToolAssistantUUID
        detail["noOutputExpected"] = False
    shown = "\n".join(part for part in (stdout, stderr) if part)
    return t.result(tool, shown, detail, took=took)


def bash_failed(t: Transcript, tool: Call, code: int, output: str, *, took: float = 1.5) -> str:
    """A command that exited non-zero: an error result, and toolUseResult is a string."""
    return t.result(tool, f"Exit code {code}\n{output}", f"Error: Exit code {code}\n{output}", is_error=True, took=took)


def todos(t: Transcript, tool: Call, old: list[dict[str, str]]) -> str:
    return t.result(tool, TODO_ACK, {"oldTodos": old, "newTodos": tool.input["todos"]}, took=0.02)


def todo(content: str, status: str, active: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": active}


def grep_content(t: Transcript, tool: Call, hits: list[str], *, detail: bool = True) -> str:
    text = "\n".join(hits) if hits else "No matches found"
    files = sorted({hit.split(":", 1)[0] for hit in hits})
    info = {"mode": "content", "numFiles": len(files), "filenames": [], "content": text, "numLines": len(hits)}
    return t.result(tool, text, info if detail else None, took=0.12)


# --- the stories ------------------------------------------------------------------


@dataclass
class Project:
    cwd: str
    files: dict[str, Transcript | str] = field(default_factory=dict)  # relative path -> content

    @property
    def dirname(self) -> str:
        # Claude Code's directory name for a cwd: every non-alphanumeric becomes "-".
        return re.sub(r"[^A-Za-z0-9]", "-", self.cwd)


TIDEPOOL_FILES = {
    "tidepool/__init__.py": '"""tidepool: tide predictions in your terminal."""\n\n__version__ = "0.3.0"\n',
    "tidepool/noaa.py": '''"""Fetch tide predictions from NOAA CO-OPS."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import httpx

API = "https://api.tidesandcurrents.noaa.gov/api/prod/datagetter"


@dataclass(frozen=True)
class Tide:
    when: datetime
    height_ft: float
    kind: str  # "H" or "L"


def predictions(station: str, day: date) -> list[Tide]:
    params = {
        "product": "predictions",
        "application": "tidepool",
        "station": station,
        "begin_date": day.strftime("%Y%m%d"),
        "range": 24,
        "datum": "MLLW",
        "interval": "hilo",
        "units": "english",
        "time_zone": "gmt",
        "format": "json",
    }
    resp = httpx.get(API, params=params, timeout=10)
    resp.raise_for_status()
    return [parse(row) for row in resp.json()["predictions"]]


def parse(row: dict) -> Tide:
    return Tide(
        when=datetime.strptime(row["t"], "%Y-%m-%d %H:%M"),
        height_ft=float(row["v"]),
        kind=row["type"],
    )
''',
    "tidepool/format.py": '''"""Render tide predictions for the terminal."""

from __future__ import annotations

from .noaa import Tide

ARROWS = {"H": "▲ high", "L": "▼ low "}


def table(tides: list[Tide]) -> str:
    rows = [f"{t.when:%a %H:%M} UTC  {ARROWS[t.kind]}  {t.height_ft:5.2f} ft" for t in tides]
    return "\\n".join(rows)
''',
    "tidepool/cli.py": '''"""Command line entry point: `tidepool today`."""

from __future__ import annotations

import argparse
from datetime import date

from . import noaa
from .format import table

DEFAULT_STATION = "9414290"  # San Francisco, CA


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tidepool")
    sub = parser.add_subparsers(dest="command", required=True)
    today = sub.add_parser("today", help="high and low tides for today")
    today.add_argument("--station", default=DEFAULT_STATION)
    args = parser.parse_args(argv)

    tides = noaa.predictions(args.station, date.today())
    print(table(tides))
    return 0
''',
    "tests/test_noaa.py": '''from datetime import date, datetime

from tidepool.noaa import Tide, parse, predictions


def test_parse_high_tide():
    row = {"t": "2025-09-16 04:12", "v": "5.431", "type": "H"}
    assert parse(row) == Tide(datetime(2025, 9, 16, 4, 12), 5.431, "H")


def test_parse_low_tide():
    row = {"t": "2025-09-16 11:58", "v": "-0.214", "type": "L"}
    assert parse(row).height_ft == -0.214


def test_request_params(fake_get):
    predictions("9414290", date(2025, 9, 16))
    params = fake_get.calls[0]["params"]
    assert params["station"] == "9414290"
    assert params["time_zone"] == "gmt"
    assert params["interval"] == "hilo"
''',
}


def tidepool() -> Project:
    project = Project(f"{HOME}/src/tidepool")
    ws = Workspace(project.cwd, TIDEPOOL_FILES)
    t1 = tidepool_local_time(ws)
    project.files[f"{T1}.jsonl"] = t1
    t2, agent = tidepool_cache(ws, t1)
    project.files[f"{T2}.jsonl"] = t2
    project.files[f"agent-{T2_AGENT}.jsonl"] = agent
    return project


def tidepool_local_time(ws: Workspace) -> Transcript:
    """T1 (1.0.113): times in UTC -> local time. Inline sidechain, /model as user records."""
    clock = Clock("2025-09-16T20:31:07.412Z")
    t = Transcript(session_id=T1, cwd=ws.cwd, era=ERA_1_0, branch="main", clock=clock, ids=Ids("tidepool-1"), model=OPUS_41)
    t.slash_command_as_user("model", "opus", "Set model to \u001b[1mopus (claude-opus-4-1-20250805)\u001b[22m")
    t.prompt(
        "`tidepool today` prints the high/low times in UTC, so the 12:42 low this afternoon shows up as "
        "19:42. Can you make it show the station's local time instead?",
        wait=21.3,
    )
    (read,) = t.reply(
        [
            think(
                "The times come straight from NOAA's response. If the request asks for GMT, the simplest fix is "
                "to ask NOAA for local time (the API has a time_zone parameter) rather than converting with "
                "zoneinfo, which would need the station's timezone. Let me look at the request first."
            ),
            say("Let me look at how the predictions are requested."),
            call("Read", file_path=ws.path("tidepool/noaa.py")),
        ],
        Usage(4, 2210, 13408, 187, early=4),
    )
    read_file(t, ws, read, "tidepool/noaa.py")

    plan = [
        todo("Find every place that assumes UTC", "in_progress", "Finding every place that assumes UTC"),
        todo("Request local station time from NOAA", "pending", "Requesting local station time from NOAA"),
        todo("Run the tests", "pending", "Running the tests"),
    ]
    (todo_call,) = t.reply(
        [
            say(
                "The request pins `time_zone` to `gmt`. NOAA can return times in the station's own local "
                "time (`lst_ldt`, which follows daylight saving), so no timezone database is needed. "
                "Before changing it I'll check what else assumes UTC."
            ),
            call("TodoWrite", todos=plan),
        ],
        Usage(7, 812, 15618, 203, early=3),
    )
    todos(t, todo_call, [])

    sweep_prompt = (
        "In the Python package under /home/ada/src/tidepool/tidepool, find every place that assumes "
        "times are in UTC/GMT: request parameters, formatting, labels, tzinfo handling. Report file, "
        "line and what it does. Do not change anything."
    )
    (task,) = t.reply([call("Task", description="Find UTC assumptions", prompt=sweep_prompt, subagent_type="general-purpose")], Usage(6, 421, 16430, 118, early=118))
    side = t.inline_sidechain()
    side.prompt(sweep_prompt, wait=0.02, parent=None)
    (grep,) = side.reply(
        [
            say("I'll search the package for UTC and timezone handling."),
            call("Grep", pattern="gmt|utc|UTC|tzinfo|timezone", path=ws.path("tidepool"), output_mode="content", **{"-n": True}),
        ],
        Usage(4, 10244, 0, 96, early=3),
    )
    hits = ws.grep(r"gmt|utc|UTC|tzinfo|timezone", "tidepool/", absolute=True)
    grep_content(side, grep, hits)
    report = (
        "Two places assume UTC:\n\n"
        f"1. `tidepool/noaa.py:{_line(ws, 'tidepool/noaa.py', 'time_zone')}` asks NOAA for `\"time_zone\": \"gmt\"`, "
        "so every prediction comes back in GMT.\n"
        f"2. `tidepool/format.py:{_line(ws, 'tidepool/format.py', 'UTC')}` hard-codes a ` UTC` label after each time.\n\n"
        "Nothing uses `tzinfo` or `zoneinfo`; the datetimes are naive throughout."
    )
    side.reply([say(report)], Usage(6, 388, 10244, 142, early=142))
    task_detail = {
        "content": [say(report)],
        "totalDurationMs": 9412,
        "totalTokens": 6 + 388 + 10244 + 142,
        "totalToolUseCount": 1,
        "usage": t._usage(Usage(6, 388, 10244, 142), 142),
    }
    clock.wait(0.3)
    t.result(task, [say(report)], task_detail, took=0.01)

    fix_request = call(
        "Edit", file_path=ws.path("tidepool/noaa.py"), old_string='        "time_zone": "gmt",', new_string='        "time_zone": "lst_ldt",'
    )
    (edit,) = t.reply([say("Both are small. First the request:"), fix_request], Usage(6, 929, 16851, 164, early=5))
    edit_file(t, ws, edit)
    label_fix = call(
        "Edit",
        file_path=ws.path("tidepool/format.py"),
        old_string='{t.when:%a %H:%M} UTC  {ARROWS',
        new_string="{t.when:%a %H:%M}  {ARROWS",
    )
    plan2 = [
        todo("Find every place that assumes UTC", "completed", "Finding every place that assumes UTC"),
        todo("Request local station time from NOAA", "completed", "Requesting local station time from NOAA"),
        todo("Run the tests", "in_progress", "Running the tests"),
    ]
    edit2, todo2 = t.reply([label_fix, call("TodoWrite", todos=plan2)], Usage(6, 377, 17780, 231, early=4))
    edit_file(t, ws, edit2)
    todos(t, todo2, plan)

    (run,) = t.reply([call("Bash", command="python -m pytest -q", description="Run the test suite")], Usage(6, 402, 18157, 83, early=83))
    assert_line = _line(ws, "tests/test_noaa.py", 'params["time_zone"]')
    bash_failed(
        t,
        run,
        1,
        ".....F...                                                                [100%]\n"
        "=================================== FAILURES ===================================\n"
        "_____________________________ test_request_params ______________________________\n\n"
        "fake_get = <tests.conftest.FakeGet object at 0x7f3a9c2d5e50>\n\n"
        "    def test_request_params(fake_get):\n"
        '        predictions("9414290", date(2025, 9, 16))\n'
        '        params = fake_get.calls[0]["params"]\n'
        '        assert params["station"] == "9414290"\n'
        '>       assert params["time_zone"] == "gmt"\n'
        "E       AssertionError: assert 'lst_ldt' == 'gmt'\n"
        "E         \n"
        "E         - gmt\n"
        "E         + lst_ldt\n\n"
        f"tests/test_noaa.py:{assert_line}: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_noaa.py::test_request_params - AssertionError: assert 'lst_ldt' == 'gmt'\n"
        "1 failed, 8 passed in 0.41s",
        took=2.1,
    )
    (test_fix,) = t.reply(
        [
            say("That test pinned the old value, so it is expected to change with the fix. Updating it:"),
            call(
                "Edit",
                file_path=ws.path("tests/test_noaa.py"),
                old_string='    assert params["time_zone"] == "gmt"',
                new_string='    assert params["time_zone"] == "lst_ldt"',
            ),
        ],
        Usage(6, 1391, 18559, 152, early=6),
    )
    edit_file(t, ws, test_fix)
    (rerun,) = t.reply([call("Bash", command="python -m pytest -q", description="Run the test suite again")], Usage(6, 296, 19950, 79, early=79))
    bash_ok(t, rerun, ".........                                                                [100%]\n9 passed in 0.38s", took=1.9)
    t.reply(
        [
            say(
                "## Times are now local\n\n"
                "NOAA does the conversion for us: asking for `time_zone=lst_ldt` returns the station's local "
                "standard or daylight time, so there's no timezone database to ship.\n\n"
                "**Changed**\n"
                "- `tidepool/noaa.py`: request `lst_ldt` instead of `gmt`\n"
                "- `tidepool/format.py`: drop the hard-coded `UTC` label\n"
                "- `tests/test_noaa.py`: the parameter test pinned the old value\n\n"
                "All 9 tests pass, and this afternoon's low now prints as **12:42**.\n\n"
                "> One thing to know: on the night the clocks change, times are the station's wall clock, "
                "so you may see an hour repeat or vanish. That is correct for tides, just surprising."
            )
        ],
        Usage(6, 187, 20246, 226, early=3),
    )
    return t


def diffstat(before: dict[str, str], after: dict[str, str], paths: list[str]) -> str:
    """``git log --stat`` lines for the given files."""
    counts = {}
    for rel in paths:
        a, b = before.get(rel, "").splitlines(), after[rel].splitlines()
        added = removed = 0
        for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "equal":
                removed += a2 - a1
                added += b2 - b1
        counts[rel] = (added, removed)
    name_width = max(len(rel) for rel in paths)
    count_width = len(str(max(a + r for a, r in counts.values())))
    lines = [f" {rel:<{name_width}} | {a + r:>{count_width}} {'+' * a}{'-' * r}" for rel, (a, r) in counts.items()]
    total_a = sum(a for a, _ in counts.values())
    total_r = sum(r for _, r in counts.values())
    lines.append(f" {len(paths)} files changed, {total_a} insertions(+), {total_r} deletions(-)")
    return "\n".join(lines)


def function_source(ws: Workspace, rel: str, name: str) -> str:
    """A top-level function's text, from its ``def`` to the blank lines after it."""
    text = ws.read(rel)
    start = text.index(f"def {name}(")
    end = text.find("\n\n\n", start)
    return text[start : end if end >= 0 else len(text)].rstrip("\n")


def _line(ws: Workspace, rel: str, needle: str) -> int:
    return next(n for n, line in enumerate(ws.read(rel).splitlines(), 1) if needle in line)


def tidepool_cache(ws: Workspace, t1: Transcript) -> tuple[Transcript, Transcript]:
    """T2 (2.0.69): --days and an on-disk cache; old-layout sub-agent, a git commit."""
    committed = dict(ws.files)  # Ada committed T1's work herself; this is HEAD now
    clock = Clock("2025-12-10T09:02:44.150Z")
    t = Transcript(
        session_id=T2, cwd=ws.cwd, era=ERA_2_0, branch="main", clock=clock, ids=Ids("tidepool-2"),
        model=SONNET_45, slug="quiet-wading-heron",
    )  # fmt: skip
    # The startup summarizer titled the previous session; the line lands here,
    # naming a record in T1's file.
    t.line({"type": "summary", "summary": "Show tide times in station local time", "leafUuid": t1.last})
    first = t.prompt(
        "Two things for tidepool: a `--days N` option so I can see the week ahead, and caching. Every run "
        "hits NOAA and it's slow on the train. Predictions don't change, so cache them on disk."
    )
    t.snapshot(first)
    question = (
        "Look up the NOAA CO-OPS data API documentation (https://api.tidesandcurrents.noaa.gov/api/prod/) "
        "and answer briefly: for product=predictions with interval=hilo, what is the longest `range` (or "
        "begin/end span) allowed in one request, and are there documented rate limits?"
    )
    (task,) = t.reply(
        [
            think(
                "Two parts. For --days, the request's range parameter (hours) can grow, but I should check the "
                "API's limit on span so a week's request isn't rejected. A quick research sub-agent can do that "
                "while I read the code. For caching: key on the request params, store JSON under "
                "XDG_CACHE_HOME."
            ),
            say("I'll check NOAA's limits on request size first, then read the CLI."),
            call("Task", description="Check NOAA API limits", prompt=question, subagent_type="general-purpose"),
        ],
        Usage(3, 3472, 11012, 241, early=3),
    )

    agent = t.subagent(agent_id=T2_AGENT, model=HAIKU_45)
    agent.prompt(question, wait=0.03, parent=None)
    (fetch,) = agent.reply(
        [
            say("I'll check the CO-OPS API documentation."),
            call(
                "WebFetch",
                url="https://api.tidesandcurrents.noaa.gov/api/prod/",
                prompt="What is the maximum date range for tide predictions requests, and are there rate limits?",
            ),
        ],
        Usage(5, 9822, 0, 88, early=2),
        wait=1.6,
    )
    agent.result(
        fetch,
        "The API documentation's table of data length limits per request: 1-minute water level, 4 days; "
        "6-minute interval data, 1 month; hourly data, 1 year; **High/Low data, 1 year**. `range` is a "
        "number of hours, counted forward from `begin_date` when both are given. No numeric rate limit is "
        "published; CO-OPS may throttle clients that generate heavy load, and asks every request to carry "
        "an `application` parameter naming the client.",
        took=3.4,
    )
    summary = (
        "- **Span:** high/low requests may cover up to a year, so a week (`range=168`) is fine.\n"
        "- **`range`** is in hours, counted forward from `begin_date` when both are given.\n"
        "- **Rate limits:** no published number, but heavy clients can be throttled. NOAA asks for an "
        "`application` parameter (tidepool already sends one)."
    )
    agent.reply([say(summary)], Usage(5, 412, 9822, 117, early=117))
    clock.wait(0.2)
    detail = {
        "content": [say(summary)],
        "totalDurationMs": 8104,
        "totalTokens": 5 + 412 + 9822 + 117,
        "totalToolUseCount": 1,
        "usage": t._usage(Usage(5, 412, 9822, 117), 117),
    }
    t.result(task, [say(summary)], detail, took=0.01)

    (read,) = t.reply([call("Read", file_path=ws.path("tidepool/cli.py"))], Usage(6, 504, 14484, 71, early=71))
    read_file(t, ws, read, "tidepool/cli.py")

    cache_py = '''"""A small on-disk cache for NOAA responses, keyed by the request parameters."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

TTL_SECONDS = 6 * 3600  # predictions don't change, but refresh a few times a day anyway


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tidepool"


def _path(params: dict) -> Path:
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"{key}.json"


def load(params: dict) -> dict | None:
    path = _path(params)
    try:
        if time.time() - path.stat().st_mtime > TTL_SECONDS:
            return None
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def store(params: dict, payload: dict) -> None:
    path = _path(params)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload))
'''
    (write,) = t.reply(
        [
            say("A week is well within limits. Now the cache, as its own small module:"),
            call("Write", file_path=ws.path("tidepool/cache.py"), content=cache_py),
        ],
        Usage(6, 688, 14988, 498, early=6),
    )
    write_file(t, ws, write)
    t.snapshot(first, {"tidepool/cache.py": 1}, update=True)

    wrong_old = (
        "    resp = httpx.get(API, params=params, timeout=10.0)\n"
        "    resp.raise_for_status()\n"
        '    return [parse(row) for row in resp.json()["predictions"]]'
    )
    cached_fetch = (
        "    payload = cache.load(params)\n"
        "    if payload is None:\n"
        "        resp = httpx.get(API, params=params, timeout=10)\n"
        "        resp.raise_for_status()\n"
        "        payload = resp.json()\n"
        "        cache.store(params, payload)\n"
        '    return [parse(row) for row in payload["predictions"]]'
    )
    (miss,) = t.reply(
        [call("Edit", file_path=ws.path("tidepool/noaa.py"), old_string=wrong_old, new_string=cached_fetch)],
        Usage(6, 533, 15676, 236, early=236),
    )
    t.result(
        miss,
        f"<tool_use_error>String to replace not found in file.\nString: {wrong_old}</tool_use_error>",
        f"Error: String to replace not found in file.\nString: {wrong_old}",
        is_error=True,
        took=0.03,
    )
    (reread,) = t.reply(
        [say("I misremembered the exact text. Reading the file again:"), call("Read", file_path=ws.path("tidepool/noaa.py"))],
        Usage(6, 298, 16209, 54, early=4),
    )
    read_file(t, ws, reread, "tidepool/noaa.py")
    old_function = function_source(ws, "tidepool/noaa.py", "predictions")
    new_function = (
        old_function.replace("day: date)", "day: date, days: int = 1)")
        .replace('"range": 24,', '"range": 24 * days,')
        .replace(wrong_old.replace("timeout=10.0", "timeout=10"), cached_fetch)
    )
    (fix,) = t.reply(
        [
            say("The timeout is `10`, not `10.0`. Replacing the whole function, with `days` added while I'm here:"),
            call("Edit", file_path=ws.path("tidepool/noaa.py"), old_string=old_function, new_string=new_function),
        ],
        Usage(6, 644, 16507, 466, early=8),
    )
    edit_file(t, ws, fix)
    (imp,) = t.reply(
        [call("Edit", file_path=ws.path("tidepool/noaa.py"), old_string="import httpx\n", new_string="import httpx\n\nfrom . import cache\n")],
        Usage(6, 512, 17151, 112, early=112),
    )
    edit_file(t, ws, imp)
    (cli_edit,) = t.reply(
        [
            call(
                "Edit",
                file_path=ws.path("tidepool/cli.py"),
                old_string=(
                    '    today.add_argument("--station", default=DEFAULT_STATION)\n'
                    "    args = parser.parse_args(argv)\n\n"
                    "    tides = noaa.predictions(args.station, date.today())"
                ),
                new_string=(
                    '    today.add_argument("--station", default=DEFAULT_STATION)\n'
                    '    today.add_argument("--days", type=int, default=1, help="how many days to show (default 1)")\n'
                    "    args = parser.parse_args(argv)\n\n"
                    "    tides = noaa.predictions(args.station, date.today(), days=args.days)"
                ),
            )
        ],
        Usage(6, 731, 17663, 261, early=261),
    )
    edit_file(t, ws, cli_edit)
    t.snapshot(first, {"tidepool/cache.py": 1, "tidepool/noaa.py": 1, "tidepool/cli.py": 1}, update=True)

    (tests,) = t.reply([call("Bash", command="python -m pytest -q", description="Run the tests")], Usage(6, 409, 18394, 64, early=64))
    bash_ok(t, tests, ".........                                                                [100%]\n9 passed in 0.44s", took=2.0)
    (timing,) = t.reply(
        [
            say("Tests pass. Now a real check that the second run comes from the cache:"),
            call(
                "Bash",
                command="for i in 1 2; do /usr/bin/time -f '%es' python -m tidepool today --days 7 > /dev/null; done",
                description="Time a cold and a warm run",
            ),
        ],
        Usage(6, 166, 18803, 133, early=5),
    )
    bash_ok(t, timing, "", "1.12s\n0.09s", took=1.6)
    t.reply(
        [
            say(
                "Done. `tidepool today --days 7` shows the week ahead, and responses are cached under "
                "`~/.cache/tidepool/` (or `$XDG_CACHE_HOME/tidepool/`) for six hours.\n\n"
                "| run | time |\n|---|---|\n| first (network) | 1.12 s |\n| second (cache) | 0.09 s |\n\n"
                "Notes:\n"
                "- The cache key is a hash of the request parameters, so a different station or day never "
                "gets a stale answer.\n"
                "- A corrupt or unreadable cache file counts as a miss rather than an error.\n"
                "- NOAA serves up to a year of highs and lows per request, so `--days` up to 365 is a single "
                "call; beyond that it would need chunking."
            )
        ],
        Usage(6, 241, 18969, 264, early=3),
    )

    commit = t.prompt("great, commit it please", wait=48.7)
    t.snapshot(commit)
    (git,) = t.reply(
        [
            call(
                "Bash",
                command=(
                    "git add tidepool/cache.py tidepool/noaa.py tidepool/cli.py && git commit -q -m "
                    "\"Add --days and an on-disk response cache\" && git log --oneline -1 --stat"
                ),
                description="Commit the cache and --days",
            )
        ],
        Usage(3, 419, 19210, 118, early=118),
    )
    changed = ["tidepool/cache.py", "tidepool/cli.py", "tidepool/noaa.py"]
    bash_ok(t, git, "4c1e2a9 Add --days and an on-disk response cache\n" + diffstat(committed, ws.files, changed), took=0.4)
    t.reply([say("Committed as `4c1e2a9` on `main`.")], Usage(6, 301, 19629, 19, early=19))
    return t, agent


NOTES_FILES = {
    ".env": (
        "# Local development settings. Not committed (see .gitignore).\n"
        "NOTES_DB_PATH=dev.db\n"
        f"OPENAI_API_KEY={FAKE_OPENAI_KEY}\n"
    ),
    "README.md": """# notes-api

A small notes service: FastAPI and SQLite, with optional AI summaries.

## Running

    uv run fastapi dev app/main.py

## Configuration

Settings come from the environment, or from `.env` in development.

| variable | default | meaning |
|---|---|---|
| `NOTES_DB_PATH` | `notes.db` | SQLite file |
| `NOTES_OPENAI_API_KEY` | unset | enables `POST /notes/{id}/summary` |
| `NOTES_SUMMARY_MODEL` | `gpt-4o-mini` | model used for summaries |
""",
    "app/settings.py": '''"""Configuration, read from the environment (and from .env in development)."""

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NOTES_", env_file=".env")

    db_path: str = "notes.db"
    openai_api_key: SecretStr | None = None
    summary_model: str = "gpt-4o-mini"


settings = Settings()
''',
    "app/main.py": '''"""The notes-api application."""

from fastapi import FastAPI

from .routes import notes

app = FastAPI(title="notes-api", version="0.4.0")
app.include_router(notes.router)


@app.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok"}
''',
    "app/db.py": '''"""SQLite storage for notes."""

import sqlite3
from collections.abc import Iterator

from .models import Note, NoteIn
from .settings import settings

COLUMNS = "id, title, body, created_at"


class Database:
    def __init__(self, path: str):
        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.conn.row_factory = sqlite3.Row

    def all_notes(self) -> list[Note]:
        rows = self.conn.execute(f"SELECT {COLUMNS} FROM notes ORDER BY id DESC")
        return [Note(**row) for row in rows]

    def get_note(self, note_id: int) -> Note | None:
        row = self.conn.execute(f"SELECT {COLUMNS} FROM notes WHERE id = ?", (note_id,)).fetchone()
        return Note(**row) if row else None

    def insert_note(self, note: NoteIn) -> Note:
        cur = self.conn.execute("INSERT INTO notes (title, body) VALUES (?, ?)", (note.title, note.body))
        self.conn.commit()
        return self.get_note(cur.lastrowid)


def get_db() -> Iterator[Database]:
    db = Database(settings.db_path)
    try:
        yield db
    finally:
        db.conn.close()
''',
    "app/routes/notes.py": '''"""The /notes endpoints."""

from fastapi import APIRouter, Depends, HTTPException

from ..db import Database, get_db
from ..models import Note, NoteIn
from ..summarize import summarize

router = APIRouter(prefix="/notes", tags=["notes"])


@router.get("", response_model=list[Note])
def list_notes(db: Database = Depends(get_db)) -> list[Note]:
    return db.all_notes()


@router.post("", response_model=Note, status_code=201)
def create_note(note: NoteIn, db: Database = Depends(get_db)) -> Note:
    return db.insert_note(note)


@router.get("/{note_id}", response_model=Note)
def get_note(note_id: int, db: Database = Depends(get_db)) -> Note:
    note = db.get_note(note_id)
    if note is None:
        raise HTTPException(404, "note not found")
    return note


@router.post("/{note_id}/summary")
def summarize_note(note_id: int, db: Database = Depends(get_db)) -> dict[str, str]:
    note = get_note(note_id, db)
    return {"summary": summarize(note.body)}
''',
    "app/__init__.py": "",
    "app/routes/__init__.py": "",
    "app/models.py": '''from pydantic import BaseModel


class NoteIn(BaseModel):
    title: str
    body: str


class Note(NoteIn):
    id: int
    created_at: str
''',
    "app/summarize.py": '''"""One-paragraph summaries of a note, by an OpenAI model."""

from openai import OpenAI

from .settings import settings


def summarize(text: str) -> str:
    key = settings.openai_api_key
    client = OpenAI(api_key=key.get_secret_value() if key else "")
    reply = client.responses.create(model=settings.summary_model, input=f"Summarize in one paragraph:\\n\\n{text}")
    return reply.output_text
''',
    "tests/test_notes.py": '''def test_health(client):
    assert client.get("/health").json() == {"status": "ok"}


def test_empty_list(client):
    assert client.get("/notes").json() == []


def test_create_and_get(client):
    created = client.post("/notes", json={"title": "groceries", "body": "oat milk, lemons"})
    assert created.status_code == 201
    assert client.get(f"/notes/{created.json()['id']}").json()["title"] == "groceries"


def test_list_is_newest_first(client):
    for title in ("first", "second"):
        client.post("/notes", json={"title": title, "body": "."})
    assert [note["title"] for note in client.get("/notes").json()] == ["second", "first"]


def test_missing_note_is_404(client):
    assert client.get("/notes/999").status_code == 404


def test_title_is_required(client):
    assert client.post("/notes", json={"body": "no title"}).status_code == 422
''',
    "tests/conftest.py": '''import pytest
from fastapi.testclient import TestClient

from app.db import Database, get_db
from app.main import app

SCHEMA = """CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
)"""


@pytest.fixture
def client(tmp_path):
    db = Database(str(tmp_path / "test.db"))
    db.conn.execute(SCHEMA)
    app.dependency_overrides[get_db] = lambda: db
    yield TestClient(app)
    app.dependency_overrides.clear()
''',
    "tests/test_settings.py": '''from app.settings import Settings


def test_defaults(monkeypatch):
    monkeypatch.delenv("NOTES_DB_PATH", raising=False)
    settings = Settings(_env_file=None)
    assert settings.db_path == "notes.db"
    assert settings.summary_model == "gpt-4o-mini"


def test_prefixed_variables(monkeypatch):
    monkeypatch.setenv("NOTES_DB_PATH", "/tmp/x.db")
    assert Settings(_env_file=None).db_path == "/tmp/x.db"
''',
}


def notes_api() -> Project:
    project = Project(f"{HOME}/src/notes-api")
    ws = Workspace(project.cwd, NOTES_FILES)
    n1 = notes_openai_401(ws)
    project.files[f"{N1}.jsonl"] = n1
    project.files[f"{N2}.jsonl"] = notes_resumed_tests(ws, n1)
    n3, explorer, compactor, meta = notes_pagination(ws)
    project.files[f"{N3}.jsonl"] = n3
    project.files[f"{N3}/subagents/agent-{N3_AGENT}.jsonl"] = explorer
    project.files[f"{N3}/subagents/agent-{N3_AGENT}.meta.json"] = meta
    project.files[f"{N3}/subagents/agent-{N3_COMPACT}.jsonl"] = compactor
    project.files[f"{N4}.jsonl"] = notes_rate_limit(ws)
    return project


def notes_openai_401(ws: Workspace) -> Transcript:
    """N1 (2.1.42): a 401 from OpenAI. .env with a fake key, a rejected edit,
    /model as system records, an API error retried and one that was not."""
    clock = Clock("2026-02-19T17:12:03.318Z")
    t = Transcript(
        session_id=N1, cwd=ws.cwd, era=ERA_2_1_EARLY, branch="main", clock=clock, ids=Ids("notes-1"),
        model=OPUS_46, slug="brisk-humming-finch",
    )  # fmt: skip
    t.session_start_hook("$HOME/.claude/hooks/session-start.sh")
    first = t.prompt(
        "POST /notes/{id}/summary gives me a 401 from OpenAI when I run the API locally, but the same "
        "code works on the server. What's different?",
        wait=4.4,
        thinkingMetadata={"maxThinkingTokens": 31999},
        todos=[],
        permissionMode="default",
    )
    t.snapshot(first)
    settings_read, env_read = t.reply(
        [
            think(
                "A 401 from OpenAI means the key is missing or wrong. Same code works in production, so it's "
                "configuration: how settings load the key locally vs on the server. Read settings.py and .env."
            ),
            say("A 401 means OpenAI didn't get a key it accepts. Let me see how the key is loaded locally."),
            call("Read", file_path=ws.path("app/settings.py")),
            call("Read", file_path=ws.path(".env")),
        ],
        Usage(3, 4817, 12944, 322, early=9),
    )
    read_file(t, ws, settings_read, "app/settings.py")
    read_file(t, ws, env_read, ".env")
    (rename,) = t.reply(
        [
            say(
                "Found it. `Settings` uses `env_prefix=\"NOTES_\"`, so the field `openai_api_key` is read from "
                "**`NOTES_OPENAI_API_KEY`**. Your `.env` sets `OPENAI_API_KEY`, without the prefix, so locally "
                "the key is `None` and the request goes out unauthenticated. On the server the variable is "
                "presumably set with the prefix.\n\nThe smallest fix is to rename the variable in `.env`:"
            ),
            call(
                "Edit",
                file_path=ws.path(".env"),
                old_string=f"OPENAI_API_KEY={FAKE_OPENAI_KEY}",
                new_string=f"NOTES_OPENAI_API_KEY={FAKE_OPENAI_KEY}",
            ),
        ],
        Usage(6, 611, 17761, 287, early=6),
    )
    t.result(rename, REJECTED, "User rejected tool use", is_error=True, took=6.2)
    t.user([say("[Request interrupted by user for tool use]")], wait=0)

    both_names = t.prompt(
        "Please don't touch .env, other tools read OPENAI_API_KEY from it. Can the settings accept both names instead?",
        wait=31.5,
    )
    request_id = t.ids.request()
    t.system(
        "api_error",
        level="error",
        wait=2.9,
        error={
            "status": 529,
            "headers": {},
            "requestID": request_id,
            "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": request_id},
        },
        retryInMs=1136,
        retryAttempt=1,
        maxRetries=10,
    )
    old_settings = (
        "from pydantic import SecretStr\n"
        + ws.read("app/settings.py").split("from pydantic import SecretStr\n")[1].split("    summary_model")[0]
    )
    new_settings = old_settings.replace("import SecretStr", "import AliasChoices, Field, SecretStr").replace(
        "    openai_api_key: SecretStr | None = None\n",
        "    # Production sets the prefixed name; other local tools read the plain one from .env.\n"
        "    openai_api_key: SecretStr | None = Field(\n"
        "        default=None,\n"
        '        validation_alias=AliasChoices("NOTES_OPENAI_API_KEY", "OPENAI_API_KEY"),\n'
        "    )\n",
    )
    (both,) = t.reply(
        [
            say(
                "Sure. A `validation_alias` with `AliasChoices` lets the field accept either name; the "
                "prefixed one wins when both are set, so production behaves exactly as before."
            ),
            call("Edit", file_path=ws.path("app/settings.py"), old_string=old_settings, new_string=new_settings),
        ],
        Usage(6, 402, 18372, 341, early=5),
        wait=1.4,
    )
    edit_file(t, ws, both)
    (tests,) = t.reply([call("Bash", command="uv run pytest -q", description="Run the test suite")], Usage(6, 463, 18774, 71, early=71))
    bash_ok(t, tests, "........                                                                 [100%]\n8 passed in 0.61s", took=2.6)
    t.reply(
        [
            say(
                "Done, and the tests pass. Locally the key is now picked up from `OPENAI_API_KEY` in `.env`, "
                "so the summary endpoint should work after a restart of the dev server.\n\n"
                "Why production worked: the server sets `NOTES_OPENAI_API_KEY`, which was, and still is, "
                "the first name the field looks for."
            )
        ],
        Usage(6, 153, 19237, 118, early=4),
    )
    t.turn_done(both_names)

    t.slash_command_as_system("model", "sonnet", "Set model to \u001b[1msonnet (claude-sonnet-4-5-20250929)\u001b[22m", wait=52.0)
    t.model = SONNET_45
    t.prompt("Add a note about the two variable names to the README's configuration table", wait=14.8)
    t.api_error_reply(
        'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"},'
        f'"request_id":"{t.ids.request()}"}}',
        wait=11.7,
    )
    again = t.prompt("try again?", wait=9.3)
    (readme,) = t.reply([call("Read", file_path=ws.path("README.md"))], Usage(3, 6120, 13058, 64, early=64))
    read_file(t, ws, readme, "README.md")
    old_row = "| `NOTES_OPENAI_API_KEY` | unset | enables `POST /notes/{id}/summary` |"
    new_row = (
        "| `NOTES_OPENAI_API_KEY` or `OPENAI_API_KEY` | unset | enables `POST /notes/{id}/summary`; "
        "the prefixed name wins if both are set |"
    )
    (doc,) = t.reply(
        [call("Edit", file_path=ws.path("README.md"), old_string=old_row, new_string=new_row)],
        Usage(6, 689, 19178, 157, early=157),
    )
    edit_file(t, ws, doc)
    t.reply([say("Added to the configuration table in `README.md`.")], Usage(6, 221, 19867, 14, early=14))
    t.turn_done(again)
    return t


def notes_resumed_tests(ws: Workspace, n1: Transcript) -> Transcript:
    """N2 (2.1.51): ``claude --resume`` of N1 that starts a new file holding a
    copy of N1's records (same uuids, the new sessionId), then a new turn."""
    clock = Clock("2026-02-20T08:47:19.061Z")
    t = Transcript(
        session_id=N2, cwd=ws.cwd, era=ERA_2_1_RESUMED, branch="main", clock=clock, ids=Ids("notes-2"),
        model=OPUS_46, slug="brisk-humming-finch",
    )  # fmt: skip
    t.copy_from(n1, sessionId=N2)
    ask = t.prompt("Morning! Can you add a test that covers both variable names?", wait=0)
    t.snapshot(ask)
    (read,) = t.reply([call("Read", file_path=ws.path("tests/test_settings.py"))], Usage(3, 21094, 0, 72, early=72), wait=3.1)
    read_file(t, ws, read, "tests/test_settings.py")
    test = '''

def test_openai_key_under_either_name(monkeypatch):
    monkeypatch.delenv("NOTES_OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "test-plain")
    assert Settings(_env_file=None).openai_api_key.get_secret_value() == "test-plain"

    monkeypatch.setenv("NOTES_OPENAI_API_KEY", "test-prefixed")
    assert Settings(_env_file=None).openai_api_key.get_secret_value() == "test-prefixed"
'''
    tail = '    assert Settings(_env_file=None).db_path == "/tmp/x.db"\n'
    (add,) = t.reply(
        [
            say("One test for both names, including which wins when both are set:"),
            call("Edit", file_path=ws.path("tests/test_settings.py"), old_string=tail, new_string=tail + test),
        ],
        Usage(6, 517, 21094, 338, early=6),
    )
    edit_file(t, ws, add)
    t.snapshot(ask, {"tests/test_settings.py": 1}, update=True)
    (run,) = t.reply([call("Bash", command="uv run pytest -q tests/test_settings.py", description="Run the settings tests")], Usage(6, 392, 21611, 77, early=77))
    bash_ok(t, run, "...                                                                      [100%]\n3 passed in 0.09s", took=1.3)
    t.reply(
        [say("Added `test_openai_key_under_either_name`: it sets only the plain name, then both, and checks the prefixed one wins. All three settings tests pass.")],
        Usage(6, 140, 22003, 61, early=3),
    )
    return t


def notes_pagination(ws: Workspace) -> tuple[Transcript, Transcript, Transcript, str]:
    """N3 (2.1.196): cursor pagination. An Agent sub-agent in <session>/subagents/
    with a .meta.json, an ai-title, promptIds, and a manual /compact."""
    clock = Clock("2026-07-14T13:05:51.907Z")
    t = Transcript(
        session_id=N3, cwd=ws.cwd, era=ERA_2_1_LATE, branch="pagination", clock=clock, ids=Ids("notes-3"),
        model=OPUS_46, slug="steady-paging-lighthouse",
    )  # fmt: skip
    t.session_start_hook("$HOME/.claude/hooks/session-start.sh")
    first = t.prompt(
        "GET /notes returns every note at once and the mobile app chokes once someone has a few hundred. "
        "Add cursor pagination, newest first. Existing clients must keep working: they expect a plain list.",
        wait=6.0,
        permissionMode="acceptEdits",
    )
    t.snapshot(first)
    brief = (
        "In /home/ada/src/notes-api, find how notes are listed: the GET /notes route, the database method "
        "behind it, and the SQL it runs (ordering, indexes). Also note how tests create notes. Report file "
        "paths and line numbers. Read only; change nothing."
    )
    (explore,) = t.reply(
        [
            think(
                "Keyset pagination on id fits: ids are monotonic, and 'newest first' is ORDER BY id DESC. To keep "
                "the body a plain list, the cursor has to travel in a header. First, map the listing code."
            ),
            say("I'll have an explorer map the listing path while I think about the response shape."),
            call("Agent", description="Map how notes are listed", prompt=brief, subagent_type="Explore"),
        ],
        Usage(3, 5209, 13377, 286, early=11),
    )
    t.line({"type": "ai-title", "sessionId": N3, "aiTitle": "Cursor pagination for GET /notes"})

    agent = t.subagent(agent_id=N3_AGENT, model=HAIKU_45)
    root = agent.prompt(brief, wait=0.04, parent=None)
    t.progress(
        {
            "message": {"type": "user", "message": {"role": "user", "content": [say(brief)]}, "uuid": root, "timestamp": clock.stamp()},
            "normalizedMessages": [],
            "type": "agent_progress",
            "prompt": brief,
            "agentId": N3_AGENT,
        },
        tool_use_id=f"agent_{explore.id}",
        parent_tool_use_id=explore.id,
    )
    (glob,) = agent.reply([call("Glob", pattern="app/**/*.py", path=ws.cwd)], Usage(5, 11406, 0, 47, early=47), wait=1.8)
    agent.result(glob, "\n".join(ws.path(rel) for rel in sorted(ws.files) if rel.startswith("app/")), took=0.2)
    listing = r"all_notes|list_notes|ORDER BY|client\.post"
    (grep,) = agent.reply(
        [call("Grep", pattern=listing, path=ws.cwd, glob="*.py", output_mode="content", **{"-n": True})],
        Usage(5, 356, 11406, 61, early=61),
    )
    agent.result(grep, "\n".join(ws.grep(listing, absolute=True)), took=0.1)
    (read,) = agent.reply([call("Read", file_path=ws.path("app/db.py"))], Usage(5, 512, 11762, 58, early=58))
    agent.result(read, numbered(ws.read("app/db.py")), took=0.05)
    report = (
        "## How notes are listed\n\n"
        f"- **Route:** `app/routes/notes.py:{_line(ws, 'app/routes/notes.py', 'def list_notes')}` `list_notes()` "
        "returns `db.all_notes()` with `response_model=list[Note]`; no query parameters.\n"
        f"- **Query:** `app/db.py:{_line(ws, 'app/db.py', 'def all_notes')}` `Database.all_notes()` runs "
        "`SELECT id, title, body, created_at FROM notes ORDER BY id DESC`, with no `LIMIT`.\n"
        "- **Ordering:** by `id` descending. `id` is `INTEGER PRIMARY KEY` (the rowid), so it is indexed "
        "and increases with insertion; newest first is already the order.\n"
        "- **Tests** create notes through the API (`client.post(\"/notes\", ...)` in "
        "`tests/test_notes.py`)."
    )
    agent.reply([say(report)], Usage(5, 1187, 12274, 274, early=274))
    tail = (
        f"agentId: {N3_AGENT} (for resuming to continue this agent's work if needed)\n"
        f"<usage>total_tokens: {5 + 1187 + 12274 + 274}\ntool_uses: 3\nduration_ms: 11873</usage>"
    )
    detail = {
        "status": "completed",
        "prompt": brief,
        "agentId": N3_AGENT,
        "content": [say(report)],
        "totalDurationMs": 11873,
        "totalTokens": 5 + 1187 + 12274 + 274,
        "totalToolUseCount": 3,
        "usage": t._usage(Usage(5, 1187, 12274, 274), 274),
    }
    clock.wait(0.4)
    t.result(explore, [say(report), say(tail)], detail, took=0.01)
    meta = json.dumps({"agentType": "Explore", "toolUseId": explore.id, "spawnDepth": 1}, separators=(",", ":"))

    new_method = '''
    def notes_before(self, cursor: int | None, limit: int) -> list[Note]:
        """Newest first, starting below the note with id ``cursor`` (keyset pagination)."""
        if cursor is None:
            rows = self.conn.execute(f"SELECT {COLUMNS} FROM notes ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self.conn.execute(
                f"SELECT {COLUMNS} FROM notes WHERE id < ? ORDER BY id DESC LIMIT ?", (cursor, limit)
            )
        return [Note(**row) for row in rows]
'''
    anchor = "        return [Note(**row) for row in rows]\n\n    def get_note"  # the end of all_notes()
    (db_edit,) = t.reply(
        [
            say(
                "The plan:\n\n"
                "1. `Database.notes_before(cursor, limit)`: `WHERE id < cursor ORDER BY id DESC LIMIT n`. "
                "`id` is the rowid, so this is an index range scan, not an `OFFSET` that gets slower with depth.\n"
                "2. `GET /notes?limit=50&cursor=<id>`: the body stays a plain list, and the next cursor goes in "
                "an `X-Next-Cursor` header, so old clients see no change except a default page size.\n"
                "3. Tests that walk every page."
            ),
            call("Edit", file_path=ws.path("app/db.py"), old_string=anchor, new_string=anchor.replace("\n    def get_note", new_method + "\n    def get_note")),
        ],
        Usage(6, 2711, 18586, 602, early=7),
    )
    edit_file(t, ws, db_edit)
    old_route = function_source(ws, "app/routes/notes.py", "list_notes")
    new_route = '''def list_notes(
    response: Response,
    limit: int = Query(50, ge=1, le=200),
    cursor: int | None = Query(None, description="id of the last note on the previous page"),
    db: Database = Depends(get_db),
) -> list[Note]:
    notes = db.notes_before(cursor, limit + 1)  # one extra row tells us whether there is a next page
    if len(notes) > limit:
        notes = notes[:limit]
        response.headers["X-Next-Cursor"] = str(notes[-1].id)
    return notes'''
    (route,) = t.reply(
        [call("Edit", file_path=ws.path("app/routes/notes.py"), old_string=old_route, new_string=new_route)],
        Usage(6, 949, 21297, 318, early=318),
    )
    edit_file(t, ws, route)
    (imports,) = t.reply(
        [
            call(
                "Edit",
                file_path=ws.path("app/routes/notes.py"),
                old_string="from fastapi import APIRouter, Depends, HTTPException\n",
                new_string="from fastapi import APIRouter, Depends, HTTPException, Query, Response\n",
            )
        ],
        Usage(6, 377, 22246, 121, early=121),
    )
    edit_file(t, ws, imports)
    pagination_tests = '''def seed(client, count):
    for i in range(count):
        client.post("/notes", json={"title": f"note {i}", "body": "..."})


def test_first_page_is_newest_first(client):
    seed(client, 120)
    page = client.get("/notes", params={"limit": 50})
    assert page.status_code == 200
    assert [note["id"] for note in page.json()] == list(range(120, 70, -1))
    assert page.headers["X-Next-Cursor"] == "71"


def test_walks_every_page_once(client):
    seed(client, 120)
    seen, cursor = [], None
    while True:
        params = {"limit": 50} | ({"cursor": cursor} if cursor else {})
        page = client.get("/notes", params=params)
        seen += [note["id"] for note in page.json()]
        cursor = page.headers.get("X-Next-Cursor")
        if cursor is None:
            break
    assert seen == list(range(120, 0, -1))


def test_limit_is_capped(client):
    assert client.get("/notes", params={"limit": 500}).status_code == 422
'''
    (write,) = t.reply(
        [call("Write", file_path=ws.path("tests/test_pagination.py"), content=pagination_tests)],
        Usage(6, 498, 22623, 537, early=537),
    )
    write_file(t, ws, write)
    t.snapshot(first, {"app/db.py": 1, "app/routes/notes.py": 1, "tests/test_pagination.py": 1}, update=True)
    (run,) = t.reply([call("Bash", command="uv run pytest -q", description="Run the test suite")], Usage(6, 571, 23121, 66, early=66))
    bash_ok(t, run, "............                                                             [100%]\n12 passed in 1.38s", took=3.3)
    t.reply(
        [
            say(
                "Pagination is in, and all 12 tests pass.\n\n"
                "```http\nGET /notes?limit=2 HTTP/1.1\n\nHTTP/1.1 200 OK\nX-Next-Cursor: 118\n\n"
                '[{"id": 120, "title": "groceries", ...}, {"id": 119, "title": "standup", ...}]\n```\n\n'
                "- `limit` defaults to 50 and is capped at 200 (a larger value is a 422).\n"
                "- Pass `X-Next-Cursor` back as `?cursor=` to get the next page; no header means the last page.\n"
                "- Existing clients still get a plain list. The one visible change for them is that they now "
                "get the newest 50 notes instead of all of them, so the mobile app will need to follow the "
                "cursor before it can show older notes."
            )
        ],
        Usage(6, 683, 23692, 371, early=5),
    )
    t.turn_done(first)

    # A manual /compact: the summary is written by its own API call, logged as a sub-agent.
    compactor = t.subagent(agent_id=N3_COMPACT, model=OPUS_46)
    clock.wait(40.2)
    compactor.prompt(
        "Your task is to create a detailed summary of the conversation so far, paying close attention to "
        "the user's explicit requests and your previous actions. Wrap your analysis in <analysis> tags, then "
        "give the summary in <summary> tags with these sections: Primary Request and Intent, Key Technical "
        "Concepts, Files and Code Sections, Errors and fixes, Pending Tasks, Current Work.",
        parent=t.last,
    )
    summary = (
        "1. Primary Request and Intent:\n"
        "   Cursor pagination for GET /notes, newest first, without breaking clients that expect a plain list.\n\n"
        "2. Key Technical Concepts:\n"
        "   - Keyset pagination on `id` (`WHERE id < cursor ORDER BY id DESC LIMIT n+1`)\n"
        "   - The next cursor travels in an `X-Next-Cursor` response header; the body stays a list\n\n"
        "3. Files and Code Sections:\n"
        "   - app/db.py: new `Database.notes_before(cursor, limit)`\n"
        "   - app/routes/notes.py: `list_notes` takes `limit` (1-200, default 50) and `cursor`\n"
        "   - tests/test_pagination.py: new, three tests (first page, walk all pages, limit cap)\n\n"
        "4. Errors and fixes: none.\n\n"
        "5. Pending Tasks: none.\n\n"
        "6. Current Work:\n"
        "   Pagination is finished; all 12 tests pass."
    )
    compactor.reply(
        [say(f"<analysis>\nThe conversation covered one feature, completed and tested.\n</analysis>\n\n<summary>\n{summary}\n</summary>")],
        Usage(3, 1460, 24375, 512, early=512),
        wait=14.6,
    )
    leaf = t.last
    boundary = t.system(
        "compact_boundary",
        "Conversation compacted",
        wait=0.5,
        parent=None,
        isMeta=False,
        logicalParentUuid=leaf,
        compactMetadata={"trigger": "manual", "preTokens": 24752},
    )
    t.user(
        "This session is being continued from a previous conversation that ran out of context. The summary "
        f"below covers the earlier portion of the conversation.\n\nSummary:\n{summary}",
        wait=0,
        parent=boundary,
        isVisibleInTranscriptOnly=True,
        isCompactSummary=True,
    )
    t.user(command_text("compact", ""), wait=0.01)
    t.user("<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>", wait=0.01)

    link = t.prompt(
        'Also send a `Link: <...>; rel="next"` header so clients don\'t have to build the URL themselves.',
        wait=37.9,
    )
    t.snapshot(link)
    old_header = '        response.headers["X-Next-Cursor"] = str(notes[-1].id)\n'
    new_header = old_header + (
        '        response.headers["Link"] = f\'</notes?limit={limit}&cursor={notes[-1].id}>; rel="next"\'\n'
    )
    (header,) = t.reply(
        [
            say("A relative link is allowed (RFC 8288) and stays right behind a proxy that rewrites the host:"),
            call("Edit", file_path=ws.path("app/routes/notes.py"), old_string=old_header, new_string=new_header),
        ],
        Usage(3, 3304, 13377, 247, early=4),
        wait=3.6,
    )
    edit_file(t, ws, header)
    (run,) = t.reply([call("Bash", command="uv run pytest -q", description="Run the test suite")], Usage(6, 389, 16681, 66, early=66))
    bash_ok(t, run, "............                                                             [100%]\n12 passed in 1.41s", took=3.2)
    t.reply(
        [
            say(
                'Each page that has a successor now also carries `Link: </notes?limit=50&cursor=71>; rel="next"`, '
                "alongside `X-Next-Cursor`. Tests still pass. It might be worth a test for the header itself; "
                "say if you'd like one."
            )
        ],
        Usage(6, 231, 17070, 96, early=3),
    )
    t.turn_done(link)
    return t, agent, compactor, meta


def notes_rate_limit(ws: Workspace) -> Transcript:
    """N4 (2.1.228): rate limiting. The tool-result write is cut off (a crash);
    ``claude --continue`` appends to the same file and replays earlier records."""
    clock = Clock("2026-08-21T10:14:26.533Z")
    t = Transcript(
        session_id=N4, cwd=ws.cwd, era=ERA_2_1_AUG, branch="rate-limit", clock=clock, ids=Ids("notes-4"),
        model=OPUS_46, slug="patient-counting-kestrel",
    )  # fmt: skip
    first = t.prompt(
        "Add rate limiting to POST /notes: 30 requests a minute per API key. Use slowapi unless you think "
        "something else fits better.",
        permissionMode="default",
        promptSource="typed",
    )
    t.snapshot(first)
    plan = [
        todo("Check slowapi's API for per-key limits", "in_progress", "Checking slowapi's API for per-key limits"),
        todo("Add the limiter and apply it to POST /notes", "pending", "Adding the limiter to POST /notes"),
        todo("Test the limit and keep the other tests unaffected", "pending", "Testing the limit"),
    ]
    (plan_call,) = t.reply(
        [
            think(
                "slowapi wraps limits for Starlette/FastAPI; it keys on a function of the request, so an API-key "
                "key function is natural. Need: Limiter on app.state, exception handler for 429, decorator on the "
                "route (which then needs a `request` parameter). Check the docs for the current API."
            ),
            call("TodoWrite", todos=plan),
        ],
        Usage(3, 4411, 13980, 391, early=8),
    )
    todos(t, plan_call, [])
    (docs,) = t.reply(
        [
            call(
                "WebFetch",
                url="https://slowapi.readthedocs.io/en/latest/",
                prompt="How do I rate-limit a single FastAPI route with a custom key function? What must the endpoint signature include?",
            )
        ],
        Usage(6, 1088, 18391, 121, early=121),
    )
    answer = (
        "slowapi setup for FastAPI:\n\n"
        "1. Create `limiter = Limiter(key_func=...)`; the key function receives the `Request` and returns a string.\n"
        "2. Attach it: `app.state.limiter = limiter` and "
        "`app.add_exception_handler(RateLimitExceeded, _rate_limit_exceeded_handler)`.\n"
        "3. Decorate the route with `@limiter.limit(\"30/minute\")`. The endpoint **must** take a "
        "`request: Request` argument, or slowapi raises an error at import time.\n\n"
        "Limits are kept in memory by default; pass `storage_uri` (e.g. Redis) to share them across workers."
    )
    t.result(
        docs,
        answer,
        {"bytes": 48213, "code": 200, "codeText": "OK", "durationMs": 2874, "result": answer, "url": "https://slowapi.readthedocs.io/en/latest/"},
        took=6.1,
    )
    ratelimit_py = '''"""Per-API-key rate limits."""

from slowapi import Limiter
from slowapi.util import get_remote_address
from starlette.requests import Request


def api_key_or_address(request: Request) -> str:
    """Limit per API key; anonymous calls are limited per client address."""
    return request.headers.get("x-api-key") or get_remote_address(request)


limiter = Limiter(key_func=api_key_or_address)
'''
    (module,) = t.reply(
        [
            say("slowapi fits. The key function uses the `X-API-Key` header and falls back to the client address:"),
            call("Write", file_path=ws.path("app/ratelimit.py"), content=ratelimit_py),
        ],
        Usage(6, 1532, 19479, 298, early=6),
    )
    write_file(t, ws, module)
    (wire,) = t.reply(
        [
            call(
                "Edit",
                file_path=ws.path("app/main.py"),
                old_string='from fastapi import FastAPI\n\nfrom .routes import notes\n\napp = FastAPI(title="notes-api", version="0.4.0")\n',
                new_string=(
                    "from fastapi import FastAPI\nfrom slowapi import _rate_limit_exceeded_handler\n"
                    "from slowapi.errors import RateLimitExceeded\n\nfrom .ratelimit import limiter\n"
                    'from .routes import notes\n\napp = FastAPI(title="notes-api", version="0.4.0")\n'
                    "app.state.limiter = limiter\n"
                    "app.add_exception_handler(RateLimitExceeded, _rate_limit_exceeded_handler)\n"
                ),
            )
        ],
        Usage(6, 402, 21011, 236, early=236),
    )
    edit_file(t, ws, wire)
    (route,) = t.reply(
        [
            call(
                "Edit",
                file_path=ws.path("app/routes/notes.py"),
                old_string='@router.post("", response_model=Note, status_code=201)\ndef create_note(note: NoteIn, db',
                new_string='@router.post("", response_model=Note, status_code=201)\n@limiter.limit("30/minute")\ndef create_note(request: Request, note: NoteIn, db',
            )
        ],
        Usage(6, 311, 21413, 153, early=153),
    )
    edit_file(t, ws, route)
    old_imports = "Query, Response\n\nfrom ..db import Database, get_db\nfrom ..models import Note, NoteIn\n"
    (imp,) = t.reply(
        [
            call(
                "Edit",
                file_path=ws.path("app/routes/notes.py"),
                old_string=old_imports,
                new_string=old_imports.replace("Query, Response", "Query, Request, Response") + "from ..ratelimit import limiter\n",
            )
        ],
        Usage(6, 228, 21724, 109, early=109),
    )
    edit_file(t, ws, imp)
    test_py = '''def test_31st_note_in_a_minute_is_refused(client):
    headers = {"X-API-Key": "key-a"}
    for i in range(30):
        assert client.post("/notes", json={"title": f"n{i}", "body": "."}, headers=headers).status_code == 201
    refused = client.post("/notes", json={"title": "one too many", "body": "."}, headers=headers)
    assert refused.status_code == 429


def test_limits_are_per_key(client):
    for i in range(30):
        client.post("/notes", json={"title": f"n{i}", "body": "."}, headers={"X-API-Key": "key-a"})
    other = client.post("/notes", json={"title": "fine", "body": "."}, headers={"X-API-Key": "key-b"})
    assert other.status_code == 201
'''
    (tests,) = t.reply(
        [call("Write", file_path=ws.path("tests/test_ratelimit.py"), content=test_py)],
        Usage(6, 265, 21952, 402, early=402),
    )
    tests_written = write_file(t, ws, tests)
    t.snapshot(first, {"app/ratelimit.py": 1, "app/main.py": 1, "app/routes/notes.py": 1, "tests/test_ratelimit.py": 1}, update=True)
    (run,) = t.reply([call("Bash", command="uv run pytest -q", description="Run the test suite")], Usage(6, 672, 22217, 66, early=66))

    # The laptop slept and the terminal died while the tool result was being
    # written: the line stops part way (the next append starts a new line).
    t.result(run, "Exit code 1\n.FF...........", is_error=True, took=3.1)
    t.cut_off_last(".FF")

    # `claude --continue` an hour later, from a newer build: it re-appends a few
    # records it had already written (same uuids; the new version, and for the
    # prompt a new promptId), then carries on.
    clock.wait(3712.4)
    t.era = replace(ERA_2_1_AUG, version="2.1.229")
    t.replay([first], version="2.1.229", promptId=t.ids.uuid())
    t.replay([tests.record, tests_written], version="2.1.229")
    t.last = tests_written
    resumed = t.prompt(
        "Sorry, my laptop went to sleep and took the terminal with it. You were running the tests, carry on.",
        wait=14.2,
        permissionMode="default",
        promptSource="typed",
    )
    t.snapshot(resumed)
    (rerun,) = t.reply([call("Bash", command="uv run pytest -q", description="Run the test suite")], Usage(3, 9184, 13980, 71, early=71), wait=3.3)
    bash_failed(
        t,
        rerun,
        1,
        ".FF...........                                                           [100%]\n"
        "=================================== FAILURES ===================================\n"
        "_______________________ test_first_page_is_newest_first _______________________\n"
        f"tests/test_pagination.py:{_line(ws, 'tests/test_pagination.py', 'range(120, 70')}: in test_first_page_is_newest_first\n"
        "    assert [note[\"id\"] for note in page.json()] == list(range(120, 70, -1))\n"
        "E   assert [30, 29, 28, 27, 26, 25, ...] == [120, 119, 118, 117, 116, 115, ...]\n"
        "__________________________ test_walks_every_page_once __________________________\n"
        f"tests/test_pagination.py:{_line(ws, 'tests/test_pagination.py', 'assert seen ==')}: in test_walks_every_page_once\n"
        "    assert seen == list(range(120, 0, -1))\n"
        "E   assert [30, 29, 28, 27, 26, 25, ...] == [120, 119, 118, 117, 116, 115, ...]\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_pagination.py::test_first_page_is_newest_first - assert [30, 29, 28, ...\n"
        "FAILED tests/test_pagination.py::test_walks_every_page_once - assert [30, 29, 28, ...\n"
        "2 failed, 12 passed in 1.72s",
        took=3.5,
    )
    fixture = '''from app.ratelimit import limiter


@pytest.fixture(autouse=True)
def rate_limits(request):
    """Limits are off in tests, except in test_ratelimit.py; counters start empty."""
    limiter.reset()
    limiter.enabled = request.module.__name__.endswith("test_ratelimit")
    yield
    limiter.enabled = True
'''
    (conftest,) = t.reply(
        [
            say(
                "The limiter works a little too well: the pagination tests seed 120 notes through "
                "`POST /notes`, and everything after the 30th gets a 429. Counters must not leak between "
                "tests either, so in `tests/conftest.py`: limits off except in the rate-limit tests, and "
                "fresh counters for every test."
            ),
            call(
                "Edit",
                file_path=ws.path("tests/conftest.py"),
                old_string="from app.main import app\n",
                new_string="from app.main import app\n" + fixture,
            ),
        ],
        Usage(6, 1893, 23164, 431, early=5),
    )
    edit_file(t, ws, conftest)
    (final_run,) = t.reply([call("Bash", command="uv run pytest -q", description="Run the test suite again")], Usage(6, 597, 25057, 64, early=64))
    bash_ok(t, final_run, "..............                                                           [100%]\n14 passed in 1.66s", took=3.4)
    done = [todo(item["content"], "completed", item["activeForm"]) for item in plan]
    progress_so_far = [plan[0] | {"status": "completed"}, plan[1] | {"status": "completed"}, plan[2] | {"status": "in_progress"}]
    (finish,) = t.reply([call("TodoWrite", todos=done)], Usage(6, 352, 25654, 139, early=139))
    todos(t, finish, progress_so_far)
    t.reply(
        [
            say(
                "All 14 tests pass. Summary:\n\n"
                "| what | where |\n|---|---|\n"
                "| limiter, keyed on `X-API-Key` (else client address) | `app/ratelimit.py` |\n"
                "| 429 handler, `app.state.limiter` | `app/main.py` |\n"
                "| `30/minute` on `POST /notes` | `app/routes/notes.py` |\n"
                "| per-key tests | `tests/test_ratelimit.py` |\n"
                "| limits off in other tests, fresh counters per test | `tests/conftest.py` |\n\n"
                "One thing to decide before deploying: slowapi keeps counters **in memory**, per process. If "
                "the API runs with several workers, each allows 30 a minute. Sharing them needs a store:\n\n"
                "```python\nlimiter = Limiter(key_func=api_key_or_address, storage_uri=\"redis://localhost:6379\")\n```"
            )
        ],
        Usage(6, 611, 26006, 402, early=4),
    )
    t.turn_done(resumed)
    return t


DOTFILES_FILES = {
    "zsh/exports.zsh": f"""# Environment for interactive shells.
export EDITOR=nvim
export PAGER="less -R"
export LANG=en_US.UTF-8

# Go and Rust toolchains
export GOPATH="$HOME/.local/go"
path=("$HOME/.cargo/bin" "$GOPATH/bin" "$HOME/.local/bin" $path)

# AWS: personal account, used by the backup script
export AWS_PROFILE=personal
export AWS_ACCESS_KEY_ID={FAKE_AWS_KEY_ID}
export AWS_SECRET_ACCESS_KEY="$(pass show aws/personal/secret)"
export AWS_DEFAULT_REGION=us-west-2
""",
    "zsh/prompt.zsh": """# Two lines: directory and git branch, then the cursor.
autoload -Uz vcs_info
zstyle ':vcs_info:git:*' formats '%F{109} %b%f'
precmd() { vcs_info }
setopt PROMPT_SUBST
PROMPT='%F{180}%~%f ${vcs_info_msg_0_}
%F{245}❯%f '
""",
    "git/config": """[user]
\tname = Ada Quill
\temail = ada@example.org
[init]
\tdefaultBranch = main
[pull]
\trebase = true
[credential "https://github.com"]
\thelper = !pass show github/token
""",
}

SEA_GREEN = (0x2E, 0x8B, 0x57)


def dotfiles() -> Project:
    project = Project(f"{HOME}/dotfiles")
    ws = Workspace(project.cwd, DOTFILES_FILES)
    project.files[f"{D1}.jsonl"] = dotfiles_secrets(ws)
    return project


def dotfiles_secrets(ws: Workspace) -> Transcript:
    """D1 (2.1.118, Haiku): a secrets check before publishing, an AWS key id in
    a Bash output, a pasted colour swatch; the last line is cut off."""
    clock = Clock("2026-04-03T19:40:12.774Z")
    t = Transcript(
        session_id=D1, cwd=ws.cwd, era=ERA_2_1_MID, branch="main", clock=clock, ids=Ids("dotfiles-1"),
        model=HAIKU_45, slug="careful-sweeping-wren",
    )  # fmt: skip
    first = t.prompt(
        "I'm about to make my dotfiles repo public on GitHub. Can you check it for anything secret first? "
        "Keys, tokens, passwords, and the git history too.",
        permissionMode="default",
    )
    t.snapshot(first)
    pattern = r"AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{36}|password|secret|token"
    (grep,) = t.reply(
        [
            say("I'll search the working tree first, then the history."),
            call("Grep", pattern=pattern, path=ws.cwd, output_mode="files_with_matches", **{"-i": True}),
        ],
        Usage(10, 9217, 0, 129, early=3),
    )
    found = sorted({hit.split(":", 1)[0] for hit in ws.grep("(?i)" + pattern)})
    t.result(
        grep,
        f"Found {len(found)} files\n" + "\n".join(ws.path(rel) for rel in found),
        {"mode": "files_with_matches", "filenames": [ws.path(rel) for rel in found], "numFiles": len(found)},
        took=0.09,
    )
    (history,) = t.reply(
        [
            call(
                "Bash",
                command=(
                    "grep -nE 'AKIA|SECRET|token' zsh/exports.zsh git/config; "
                    "git log -p --format='%h %s' -S AKIA -- zsh/exports.zsh | grep -E '^[0-9a-f]{7} |^[+-]export AWS'"
                ),
                description="Show the matching lines and when the AWS key id was committed",
            )
        ],
        Usage(10, 297, 9217, 142, early=142),
    )
    matches = ws.grep(r"AKIA|SECRET|token", "zsh/") + ws.grep(r"AKIA|SECRET|token", "git/")
    aws_lines = [line for line in ws.read("zsh/exports.zsh").splitlines() if line.startswith("export AWS")]
    bash_ok(
        t,
        history,
        "\n".join(matches)
        + "\nb71e0c4 zsh: aws env for the backup script\n"
        + "\n".join("+" + line for line in aws_lines),
        took=0.3,
    )
    (read,) = t.reply([call("Read", file_path=ws.path("zsh/exports.zsh"))], Usage(10, 388, 9514, 61, early=61))
    read_file(t, ws, read, "zsh/exports.zsh")
    key_line = f"export AWS_ACCESS_KEY_ID={FAKE_AWS_KEY_ID}"
    (edit,) = t.reply(
        [
            say(
                "## One finding: an AWS access key id\n\n"
                f"| file | line | what | verdict |\n|---|---|---|---|\n"
                f"| `zsh/exports.zsh` | {_line(ws, 'zsh/exports.zsh', 'AWS_ACCESS_KEY_ID')} | AWS access key id, hard-coded | **fix** |\n"
                f"| `zsh/exports.zsh` | {_line(ws, 'zsh/exports.zsh', 'AWS_SECRET')} | secret key, read from `pass` | fine |\n"
                f"| `git/config` | {_line(ws, 'git/config', 'token')} | GitHub token, read from `pass` | fine |\n\n"
                "The key id was added in `b71e0c4` and is in the history. The secret half has always come "
                "from `pass`, so nobody can sign requests with what's in the repo. Still, a key id names "
                "your account and half a credential pair, so it shouldn't go public.\n\n"
                "What I'd do:\n\n"
                "1. Read the id from `pass` as well (doing that now).\n"
                "2. Rotate the key pair, which makes the id in history worthless:\n\n"
                "```sh\naws iam create-access-key --user-name ada\n"
                "aws iam update-access-key --access-key-id <old id> --status Inactive --user-name ada\n```\n\n"
                "3. If you'd rather the old id never appears publicly, rewrite that file's history before "
                "pushing: `git filter-repo --replace-text` with the id on one line."
            ),
            call(
                "Edit",
                file_path=ws.path("zsh/exports.zsh"),
                old_string=key_line,
                new_string='export AWS_ACCESS_KEY_ID="$(pass show aws/personal/key-id)"',
            ),
        ],
        Usage(10, 471, 9902, 583, early=6),
    )
    edit_file(t, ws, edit)
    t.reply(
        [say("Done: `zsh/exports.zsh` now reads the id from `pass show aws/personal/key-id`. Store it there before opening a new shell, then rotate the key.")],
        Usage(10, 702, 10373, 52, early=52),
    )

    swatch = b64encode(swatch_png(SEA_GREEN)).decode()
    colour = t.prompt(
        [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": swatch}},
            say(
                "unrelated: I want the git branch in my prompt to be this colour (swatch attached). "
                "What's the closest 256-colour code?"
            ),
        ],
        wait=96.4,
        imagePasteIds=[1],
        permissionMode="default",
    )
    t.snapshot(colour)
    (prompt_read,) = t.reply(
        [
            say(
                "That swatch is `#2E8B57` (CSS calls it *sea green*). On the xterm 256-colour cube the "
                "nearest match is **29**, which is `#00875F`: the channels round to 0, 135 and 95. Let me "
                "find where the branch colour is set."
            ),
            call("Read", file_path=ws.path("zsh/prompt.zsh")),
        ],
        Usage(10, 1291, 11075, 187, early=4),
    )
    read_file(t, ws, prompt_read, "zsh/prompt.zsh")
    (recolour,) = t.reply(
        [call("Edit", file_path=ws.path("zsh/prompt.zsh"), old_string="formats '%F{109} %b%f'", new_string="formats '%F{29} %b%f'")],
        Usage(10, 320, 12366, 96, early=96),
    )
    edit_file(t, ws, recolour)
    t.reply(
        [say("The branch is now `%F{29}`. Run `exec zsh` to see it; if it looks too dark on your background, **35** (`#00AF5F`) is the next step up.")],
        Usage(10, 210, 12686, 49, early=49),
    )
    # Claude Code was killed while writing the end-of-turn record: the file
    # ends in the middle of a line, with no newline.
    t.turn_done(colour)
    t.cut_off_last('"durationMs":')
    t.final_newline = False
    return t


# --- writing ----------------------------------------------------------------------


def example_files() -> dict[str, str]:
    """Every example file: path under ``projects/`` -> text."""
    out: dict[str, str] = {}
    for project in (tidepool(), notes_api(), dotfiles()):
        for rel, content in project.files.items():
            out[f"{project.dirname}/{rel}"] = content if isinstance(content, str) else content.text()
    return out


def write_claude_examples(root: Path) -> None:
    """Write the examples under ``root/projects/``, as Claude Code lays out
    ``~/.claude``. In the three project directories this writes, files an
    earlier version wrote but this one does not are removed, so regenerating
    gives exactly this set; nothing else under ``root`` is touched."""
    projects = Path(root) / "projects"
    files = example_files()
    for rel, text in files.items():
        path = projects / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    for project in {rel.split("/", 1)[0] for rel in files}:
        for path in sorted((projects / project).rglob("*"), reverse=True):
            rel = path.relative_to(projects).as_posix()
            if path.is_file() and rel not in files and path.suffix in (".jsonl", ".json"):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def bundled_root() -> Path:
    """Where the examples live inside the package."""
    return Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "claude"


if __name__ == "__main__":
    write_claude_examples(bundled_root())
    print(f"wrote {len(example_files())} files under {bundled_root() / 'projects'}")
