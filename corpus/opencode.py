"""OpenCode histories with known true counts (docs/formats-opencode.md §9, §11).

``history(seed)`` makes a few root sessions (with child sessions started by
``task`` calls) and what bough must count for each. ``write_db`` lays them out as
OpenCode's SQLite database (the columns of a real 1.18.13 ``opencode.db``, with
the ``event`` sync log repeating every update) and ``write_storage`` as the JSON
era's ``storage/`` tree. Every trap of §11 is there: multi-step messages whose
message-level ``tokens`` hold only the last step, the two meanings of ``output``
(reasoning inside before #21047, outside after), the cache-inclusive input of
1.3.4-1.3.5 Anthropic sessions, unfinished steps (unknown, never 0), child
sessions' prompts (not prompts) and tokens (counted), ``event`` rows (never
counted), a frozen JSON copy of a session the database also holds (read once),
shell exits and the ``invalid`` tool, compaction, synthetic user text.
"""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The tables bough reads, with the columns a 1.18.13 database has (trimmed of the
# tables bough never reads but ``event``, which it must not count).
DDL = """
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
  `icon_url` text, `icon_url_override` text, `icon_color` text, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL, `commands` text);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL,
  `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
  `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL,
  `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL,
  `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text,
  `permission` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `time_compacting` integer, `time_archived` integer);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `event_sequence` (`aggregate_id` text PRIMARY KEY, `seq` integer NOT NULL, `owner_id` text);
CREATE TABLE `event` (`id` text PRIMARY KEY, `aggregate_id` text NOT NULL, `seq` integer NOT NULL,
  `type` text NOT NULL, `data` text NOT NULL);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
"""

T0 = 1785878600000  # ms, 2026-08-04
COUNTED = ("records", "replies", "prompts", "tool_calls", "tool_results", "tool_errors", "subagents",
           "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
           "reasoning_output_tokens")


@dataclass
class Msg:
    id: str
    role: str
    created: int
    data: dict[str, Any]  # without id and sessionID (the row's data column)
    parts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (id, data without ids)


@dataclass
class Ses:
    id: str
    info: dict[str, Any]  # the JSON era's Session.Info
    messages: list[Msg] = field(default_factory=list)


@dataclass
class Step:
    """One model call's true spend, and how the era writes it."""

    fresh: int
    output: int  # reasoning inside
    reasoning: int = 0
    read: int = 0
    write: int = 0

    def written(self, era: str) -> dict[str, Any]:
        if era == "current":  # after #21047: output without reasoning; total adds all
            out = self.output - self.reasoning
            return {"total": self.fresh + out + self.reasoning + self.read + self.write, "input": self.fresh,
                    "output": out, "reasoning": self.reasoning, "cache": {"read": self.read, "write": self.write}}
        given = self.fresh + (self.read + self.write if era == "inflated" else 0)
        tokens: dict[str, Any] = {"input": given, "output": self.output, "reasoning": self.reasoning,
                                  "cache": {"read": self.read, "write": self.write}}
        if era == "old-total":
            tokens["total"] = given + self.output + self.read + self.write  # reasoning not added: inside
        return tokens


class Ids:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:012d}corpus"


class Builder:
    """Sessions and their truth, made by hand or at random."""

    def __init__(self, seed: int = 0, cwd: str = "/home/ada/src/orchard"):
        self.rng = random.Random(seed)
        self.ids = Ids()
        self.cwd = cwd
        self.clock = T0
        self.sessions: list[Ses] = []
        self.truth: dict[str, dict[str, int]] = {}

    def tick(self, ms: int = 1000) -> int:
        self.clock += ms
        return self.clock

    def session(self, era: str = "current", parent: Ses | None = None, title: str = "",
                version: str = "") -> Ses:
        sid = self.ids("ses")
        version = version or {"current": "1.18.13", "old": "1.0.20", "old-total": "1.1.10",
                              "inflated": "1.3.4"}[era]
        info = {"id": sid, "slug": f"slug-{sid[-14:-6]}", "version": version, "projectID": "global",
                "directory": self.cwd, "title": title or f"Session {sid[-10:]}",
                "time": {"created": self.tick(), "updated": self.clock}}
        if parent is not None:
            info["parentID"] = parent.id
        ses = Ses(sid, info)
        self.sessions.append(ses)
        root = parent.id if parent is not None else sid
        while root in self._parents:
            root = self._parents[root]
        if parent is not None:
            self._parents[sid] = parent.id
        self.truth.setdefault(root, {key: 0 for key in COUNTED} | {"unknown": 0})
        if parent is not None:
            self.truth[root]["subagents"] += 1
        ses.info["era"] = era  # taken out when written
        return ses

    @property
    def _parents(self) -> dict[str, str]:
        if not hasattr(self, "_parent_map"):
            self._parent_map: dict[str, str] = {}
        return self._parent_map

    def _root(self, ses: Ses) -> dict[str, int]:
        sid = ses.id
        while sid in self._parents:
            sid = self._parents[sid]
        return self.truth[sid]

    def _add(self, ses: Ses, msg: Msg) -> Msg:
        ses.messages.append(msg)
        ses.info["time"]["updated"] = self.clock
        self._root(ses)["records"] += 1 + len(msg.parts)
        return msg

    def user(self, ses: Ses, text: str, *, synthetic: str = "", compaction: bool = False) -> Msg:
        msg = Msg(self.ids("msg"), "user", self.tick(), {"role": "user", "time": {"created": self.clock},
                                                         "agent": "build",
                                                         "model": {"providerID": "anthropic", "modelID": "m"}})
        if compaction:
            msg.parts.append((self.ids("prt"), {"type": "compaction", "auto": True}))
        if text:
            msg.parts.append((self.ids("prt"), {"type": "text", "text": text}))
        if synthetic:
            msg.parts.append((self.ids("prt"), {"type": "text", "text": synthetic, "synthetic": True}))
        if text.strip() and not compaction and ses.info.get("parentID") is None:
            self._root(ses)["prompts"] += 1
        return self._add(ses, msg)

    def assistant(self, ses: Ses, steps: list[Step], *, text: str = "done", tools: list[dict[str, Any]] = (),
                  unfinished: bool = False, summary: bool = False, error: dict[str, Any] | None = None) -> Msg:
        era = ses.info["era"]
        provider = "anthropic"
        msg = Msg(self.ids("msg"), "assistant", self.tick(), {
            "role": "assistant", "time": {"created": self.clock}, "parentID": ses.messages[-1].id if ses.messages else "",
            "modelID": "claude-x", "providerID": provider, "mode": "build", "agent": "build",
            "path": {"cwd": self.cwd, "root": self.cwd}, "cost": 0})
        truth = self._root(ses)
        for step in steps:
            msg.parts.append((self.ids("prt"), {"type": "step-start"}))
            if step.reasoning:
                msg.parts.append((self.ids("prt"), {"type": "reasoning", "text": "thinking…", "time": {}}))
            msg.parts.append((self.ids("prt"), {"type": "step-finish", "reason": "stop", "cost": 0,
                                                "tokens": step.written(era)}))
            truth["input_tokens"] += step.fresh
            truth["output_tokens"] += step.output
            truth["reasoning_output_tokens"] += step.reasoning
            truth["cache_read_input_tokens"] += step.read
            truth["cache_creation_input_tokens"] += step.write
        for tool in tools:
            msg.parts.append((self.ids("prt"), tool))
            truth["tool_calls"] += 1
            status = tool["state"]["status"]
            truth["tool_results"] += status in ("completed", "error")
            truth["tool_errors"] += status == "error" or tool["tool"] == "invalid"
        if text:
            msg.parts.append((self.ids("prt"), {"type": "text", "text": text}))
        if unfinished:
            msg.parts.append((self.ids("prt"), {"type": "step-start"}))
            truth["unknown"] += 1
        if steps:  # §6: the message's tokens are the last step's (the trap)
            msg.data["tokens"] = steps[-1].written(era)
            msg.data["finish"] = "stop"
            msg.data["time"]["completed"] = self.tick(10)
        if summary:
            msg.data["summary"] = True
        if error is not None:
            msg.data["error"] = error
        truth["replies"] += 1
        return self._add(ses, msg)

    def tool(self, name: str, args: dict[str, Any], status: str = "completed", output: str = "ok",
             metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        state: dict[str, Any] = {"status": status, "input": args}
        if status == "completed":
            state |= {"output": output, "title": name, "metadata": metadata or {},
                      "time": {"start": self.tick(5), "end": self.tick(5)}}
        elif status == "error":
            state |= {"error": output, "time": {"start": self.tick(5), "end": self.tick(5)}}
        elif status == "running":
            state |= {"time": {"start": self.tick(5)}}
        return {"type": "tool", "callID": self.ids("call"), "tool": name, "state": state}

    def task(self, parent: Ses, child_era: str, *, link: str = "metadata") -> tuple[dict[str, Any], Ses]:
        """A task call and the child session it starts, named the way ``link`` says (§7)."""
        description = f"look around {self.ids('d')[-12:-6]}"
        child = self.session(child_era, parent=parent, title=f"{description} (@explore subagent)")
        tool = self.tool("task", {"description": description, "prompt": "Look.", "subagent_type": "explore"},
                         output=f"task_id: {child.id} (for resuming)\n\n<task_result>\nfound\n</task_result>")
        if link == "metadata":
            tool["state"]["metadata"] = {"sessionId": child.id}
        elif link == "legacy":
            tool["state"]["output"] = f"found\n\n<task_metadata>\nsession_id: {child.id}\n</task_metadata>"
        elif link == "title":
            tool["state"]["output"] = "found"
        return tool, child


def random_step(rng: random.Random, era: str) -> Step:
    reasoning = rng.choice([0, 0, rng.randint(1, 400)])
    cache = era in ("inflated",) or rng.random() < 0.5
    return Step(fresh=rng.randint(1, 3000), output=reasoning + rng.randint(1, 900), reasoning=reasoning,
                read=rng.randint(1, 20000) if cache else 0, write=rng.randint(0, 5000) if cache else 0)


def history(seed: int, roots: int = 3) -> Builder:
    """Root sessions of every era with children, every trap of §11, their truth."""
    b = Builder(seed)
    rng = b.rng
    for _ in range(roots):
        era = rng.choice(["current", "current", "old", "old-total", "inflated"])
        ses = b.session(era)
        for turn in range(rng.randint(1, 4)):
            kind = rng.random()
            if kind < 0.1 and turn:
                b.user(ses, "", compaction=True)
                b.assistant(ses, [random_step(rng, era)], text="summary of the work", summary=True)
                continue
            b.user(ses, f"please do thing {turn}", synthetic="<file contents>" if kind < 0.3 else "")
            if kind > 0.9:
                b.user(ses, "", synthetic="Called the Read tool")  # synthetic only: no prompt
            tools = []
            for _ in range(rng.randint(0, 3)):
                choice = rng.random()
                if choice < 0.15:
                    tools.append(b.tool("bash", {"command": "false"}, metadata={"exit": 1}, output=""))
                elif choice < 0.25:
                    tools.append(b.tool("invalid", {"tool": "bassh", "error": "no such tool"}))
                elif choice < 0.35:
                    tools.append(b.tool("edit", {"filePath": "/x.py", "oldString": "a", "newString": "b"},
                                        status="error", output="oldString not found"))
                elif choice < 0.4:
                    tools.append(b.tool("read", {"filePath": "/x.py"}, status="running"))
                elif choice < 0.6:
                    tool, child = b.task(ses, rng.choice(["current", era]),
                                         link=rng.choice(["metadata", "legacy", "title"]))
                    tools.append(tool)
                    b.user(child, "Look.")  # the task prompt: not a prompt of the root
                    b.assistant(child, [random_step(rng, child.info["era"]) for _ in range(rng.randint(1, 2))],
                                tools=[b.tool("grep", {"pattern": "TODO", "path": "/src"})])
                else:
                    tools.append(b.tool("read", {"filePath": "/x.py"}, output="1: x = 1"))
            steps = [random_step(rng, era) for _ in range(rng.randint(1, 3))]  # multi-step: the trap
            b.assistant(ses, steps, tools=tools, unfinished=rng.random() < 0.15,
                        text=rng.choice(["done", "", "all good"]))
    return b


# --- writing -----------------------------------------------------------------------------------


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def session_row(ses: Ses) -> dict[str, Any]:
    info = ses.info
    return {"id": ses.id, "project_id": info.get("projectID", "global"), "parent_id": info.get("parentID"),
            "slug": info.get("slug", ""), "directory": info.get("directory", ""), "title": info.get("title", ""),
            "version": info.get("version", ""), "time_created": info["time"]["created"],
            "time_updated": info["time"]["updated"]}


def write_db(path: Path, sessions: list[Ses], *, events: bool = True, worktree: str = "/home/ada/src/orchard",
             wal: bool = False) -> Path:
    """The sessions as OpenCode's database: rows, the ``event`` log repeating each
    message and part (twice: as OpenCode writes an update per state), a project."""
    db = sqlite3.connect(path)
    try:
        if wal:
            db.execute("PRAGMA journal_mode=wal")
        db.executescript(DDL)
        db.execute("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) "
                   "VALUES ('global', ?, 'git', ?, ?, '[]')", (worktree, T0, T0))
        seq = 0
        for ses in sessions:
            row = session_row(ses)
            db.execute(f"INSERT INTO session ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
            db.execute("INSERT INTO event_sequence VALUES (?, 0, NULL)", (ses.id,))
            for msg in ses.messages:
                db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (msg.id, ses.id, msg.created, msg.created,
                                                                       _dump(msg.data)))
                for pid, part in msg.parts:
                    db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (pid, msg.id, ses.id, msg.created,
                                                                           msg.created, _dump(part)))
                    for _ in range(2 if events else 0):
                        seq += 1
                        db.execute("INSERT INTO event VALUES (?, ?, ?, 'message.part.updated.1', ?)",
                                   (f"evt_{seq:08d}", ses.id, seq, _dump({"part": part | {"id": pid}})))
                for _ in range(2 if events else 0):
                    seq += 1
                    db.execute("INSERT INTO event VALUES (?, ?, ?, 'message.updated.1', ?)",
                               (f"evt_{seq:08d}", ses.id, seq, _dump({"info": msg.data | {"id": msg.id}})))
        db.commit()
    finally:
        db.close()
    return path


def write_storage(data_dir: Path, sessions: list[Ses], *, keep: int | None = None) -> Path:
    """The sessions as the JSON era's ``storage/`` tree (§1). ``keep``: only the first
    messages of each (a frozen copy, older than the database)."""
    storage = data_dir / "storage"
    (storage / "migration").parent.mkdir(parents=True, exist_ok=True)
    (storage / "migration").write_text("2")
    for ses in sessions:
        info = {k: v for k, v in ses.info.items() if k != "era"}
        _write(storage / "session" / info.get("projectID", "global") / f"{ses.id}.json", info)
        for msg in ses.messages[:keep]:
            _write(storage / "message" / ses.id / f"{msg.id}.json", {"id": msg.id, "sessionID": ses.id} | msg.data)
            for pid, part in msg.parts:
                _write(storage / "part" / msg.id / f"{pid}.json",
                       {"id": pid, "sessionID": ses.id, "messageID": msg.id} | part)
    return storage


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
