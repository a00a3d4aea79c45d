"""A synthetic Codex CLI history with known true counts, and the bundled examples.

``generate_codex_history`` writes a ``$CODEX_HOME``-like tree (``sessions/`` and
``archived_sessions/``) that holds every trap of docs/formats-codex.md:
mirrors, re-emitted token events, ``info: null``, injected context, developer
messages, parallel calls with interleaved outputs, a resume in the same file, a
fork and a sub-agent whose files start with a copy of the parent's history
(with rewritten timestamps), a compaction with ``replacement_history``, a legacy
bare-first-line file, an archived duplicate, ``token_usage_record`` lines beside
token_count events, and one bad line. The expected STATS are tallied while
lines are written, never by reading the output back.

``write_codex_examples`` writes the two small rollouts bough ships as its demo.
"""

from __future__ import annotations

import base64
import random
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from bough_site.model import REASONING_KEY, STAT_KEYS

CONTEXT_WINDOW = 272_000
CLI_VERSION = "0.128.0"
MODELS = ("gpt-5.3-codex", "gpt-5.4")
PROJECTS = ("tidepool", "ledger-sync", "kiln", "atlas-api", "fernbrook", "quarry")
PROMPTS = (
    "The retry loop in fetch_batch never gives up. Cap it at five attempts with backoff.",
    "Add a --dry-run flag to the import command and test it.",
    "Why does test_parse_dates fail on Windows line endings?",
    "Rename the Config.timeout field to request_timeout everywhere.",
    "Profile the CSV export; it takes 40 seconds on the sample file.",
    "Write a short README section about the cache directory.",
    "The nightly job logs a KeyError for missing 'region'. Make it skip such rows.",
    "Split utils.py into io.py and text.py without changing behaviour.",
)
COMMANDS = (
    "pytest -q", "rg -n 'timeout' src", "git status --short", "python -m mypy src", "ls src tests",
    "pytest tests/test_export.py -q",
)
AGENTS_MD = (
    "# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n"
    "Run the tests before you finish. Keep functions short.\n</INSTRUCTIONS>"
)
ENVIRONMENT = (
    "<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
    "  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n</environment_context>"
)
USER_INSTRUCTIONS = "<user_instructions>\nPrefer the standard library.\n</user_instructions>"
PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing: workspace-write. "
    "Approval policy: on-request.\n</permissions instructions>"
)
BAD_LINE = '{"timestamp":"2026-03-05T10:00:00.000Z","type":"response_item","payload":{"type":"mess'


Stats = dict[str, int]


def _zero() -> Stats:
    return {**{key: 0 for key in STAT_KEYS}, REASONING_KEY: 0}


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode("utf-8")


def _uuid7(rng: random.Random, moment: datetime) -> str:
    """A UUIDv7-like id (Codex's shape): the time in milliseconds, then random bits."""
    millis = int(moment.timestamp() * 1000) & ((1 << 48) - 1)
    rand_a, rand_b = rng.getrandbits(12), rng.getrandbits(62)
    value = (millis << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _fernet_like(rng: random.Random) -> str:
    """Looks like a Fernet token (version byte 0x80, base64url): what multi-agent
    v2 stores instead of a task's text. Random bytes, nothing encrypted."""
    return base64.urlsafe_b64encode(b"\x80\x00\x00\x00\x00" + rng.randbytes(91)).decode("ascii")


@dataclass
class ExpectedCodex:
    """The true counts of a generated history."""

    sessions: dict[str, Stats] = field(default_factory=dict)  # session id -> STATS (with reasoning tokens)
    subagents: dict[str, str] = field(default_factory=dict)  # sub-agent thread id -> parent session id
    forks: dict[str, str] = field(default_factory=dict)  # fork session id -> parent session id
    bad_lines: list[tuple[str, int]] = field(default_factory=list)  # (path under root, line number)
    archived: list[str] = field(default_factory=list)  # archived duplicates (paths under root)


# --- one thread's file, written line by line ------------------------------------------


class _Thread:
    """A rollout being written. Every ``emit`` of an own line updates ``stats``;
    copied lines (``own=False``) only add to ``lines``."""

    def __init__(self, rng: random.Random, tid: str, cwd: str, start: datetime, *, ordinals: bool = False):
        self.rng, self.tid, self.cwd = rng, tid, cwd
        self.clock = start
        self.created = start
        self.lines: list[str] = []
        self.items: list[tuple[str, dict[str, Any]]] = []  # (type, payload) for copies
        self.stats = _zero()
        self.totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0}
        self.ordinals = ordinals
        self.model = rng.choice(MODELS)
        self.turn_id = ""
        self.seen_null_token = False
        self.record_usage = False  # also write token_usage_record lines (newer builds)
        self.archive = False  # also copy the file to archived_sessions/
        self.tool_names: dict[str, str] = {}  # call id -> tool name (outputs differ by tool)
        # What the thread built (docs/stats.md): commit identities and changed
        # files' "<cwd>\0<absolute path>"; counted into stats by _History.settle.
        self.commits: set[str] = set()
        self.changed: set[str] = set()

    # time and raw lines -------------------------------------------------------

    def tick(self, low: float = 0.05, high: float = 2.0) -> str:
        self.clock += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return _stamp(self.clock)

    def emit(self, kind: str, payload: dict[str, Any], *, own: bool = True, at: str | None = None) -> None:
        obj: dict[str, Any] = {"timestamp": at or self.tick(), "type": kind, "payload": payload}
        if self.ordinals:
            obj["ordinal"] = len(self.items)
        self.lines.append(_dumps(obj))
        self.items.append((kind, payload))
        self.stats["lines"] += 1
        if own and kind == "response_item":
            self.stats["records"] += 1

    def bad_line(self) -> int:
        self.lines.append(BAD_LINE)
        self.stats["lines"] += 1
        self.stats["skipped_lines"] += 1
        return len(self.lines)

    def copy_from(self, parent: _Thread, upto: int, at: str) -> None:
        """Codex persists the parent's items as they are, in one burst stamped
        with the copy time (docs/formats-codex.md X9): same payloads, rewritten timestamps."""
        for kind, payload in parent.items[:upto]:
            self.emit(kind, payload, own=False, at=at)
        self.totals = dict(parent.totals)  # the copy's cumulative totals continue
        self.model = parent.model
        self.seen_null_token = True

    # envelope pieces ----------------------------------------------------------

    def meta(self, **extra: Any) -> None:
        payload = {
            "id": self.tid,
            "timestamp": _stamp(self.created),
            "cwd": self.cwd,
            "originator": "codex_cli_rs",
            "cli_version": CLI_VERSION,
            "source": "cli",
            "model_provider": "openai",
            "git": {"commit_hash": f"{self.rng.getrandbits(160):040x}", "branch": "main"},
        }
        payload.update(extra)
        self.emit("session_meta", payload)

    def message(self, role: str, text: str) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        payload: dict[str, Any] = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        self.emit("response_item", payload)

    def event(self, kind: str, **fields: Any) -> None:
        self.emit("event_msg", {"type": kind, **fields})

    def turn_context(self) -> None:
        self.emit("turn_context", {
            "turn_id": self.turn_id, "cwd": self.cwd, "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False},
            "model": self.model, "effort": "medium", "summary": "auto",
        })

    def initial_context(self) -> None:
        """What Codex writes before the first prompt: instructions, not prompts."""
        self.message("developer", PERMISSIONS)
        self.message("user", AGENTS_MD.format(cwd=self.cwd))
        self.message("user", ENVIRONMENT.format(cwd=self.cwd))

    # a turn -------------------------------------------------------------------

    def start_turn(self, text: str, *, mirrored: bool = True) -> None:
        self.clock += timedelta(seconds=self.rng.randint(20, 400))
        self.turn_id = _uuid7(self.rng, self.clock)
        self.event("task_started", turn_id=self.turn_id, model_context_window=CONTEXT_WINDOW)
        self.message("user", text)
        if mirrored:
            self.event("user_message", message=text, images=[], local_images=[], text_elements=[])
        self.stats["prompts"] += 1
        self.turn_context()
        if not self.seen_null_token:
            # The first token_count of a file carries rate limits only (docs/formats-codex.md X8).
            self.event("token_count", info=None, rate_limits=self._limits())
            self.seen_null_token = True

    def think(self, text: str) -> None:
        self.event("agent_reasoning", text=text)
        self.emit("response_item", {
            "type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
            "content": None, "encrypted_content": _fernet_like(self.rng),
        })

    def say(self, text: str, phase: str = "commentary") -> None:
        self.event("agent_message", message=text)
        content = [{"type": "output_text", "text": text}]
        payload = {"type": "message", "role": "assistant", "content": content, "phase": phase}
        self.emit("response_item", payload)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        call_id = f"call_{self.rng.getrandbits(96):024x}"
        payload = {"type": "function_call", "name": name, "arguments": _dumps(arguments), "call_id": call_id}
        self.emit("response_item", payload)
        self.stats["tool_calls"] += 1
        self.tool_names[call_id] = name
        return call_id

    def patch(self, body: str) -> str:
        call_id = f"call_{self.rng.getrandbits(96):024x}"
        self.emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                    "name": "apply_patch", "input": body})
        self.stats["tool_calls"] += 1
        return call_id

    def search(self, query: str) -> None:
        self.emit("response_item", {"type": "web_search_call", "status": "completed",
                                    "action": {"type": "search", "query": query}})
        self.stats["tool_calls"] += 1

    def output(self, call_id: str, text: str, *, exit_code: int = 0, custom: bool = False) -> None:
        """A call's output in the shape its tool writes (docs/formats-codex.md X6): exec_command's
        structured text, shell's ``Exit code:`` text, or JSON inside the string."""
        wall = f"{self.rng.uniform(0.1, 4):.1f}"
        if custom:
            body = _dumps({"output": text, "metadata": {"exit_code": exit_code, "duration_seconds": float(wall)}})
        elif self.tool_names.get(call_id) == "shell":
            body = f"Exit code: {exit_code}\nWall time: {wall} seconds\nOutput:\n{text}"
        else:
            body = (
                f"Chunk ID: {self.rng.getrandbits(24):06x}\nWall time: {wall} seconds\n"
                f"Process exited with code {exit_code}\nOriginal token count: {len(text) // 4}\nOutput:\n{text}"
            )
        kind = "custom_tool_call_output" if custom else "function_call_output"
        self.emit("response_item", {"type": kind, "call_id": call_id, "output": body})
        self.stats["tool_results"] += 1
        if exit_code:
            self.stats["tool_errors"] += 1

    def model_call(self) -> None:
        """The end of one model call: cumulative totals advance by one call's usage."""
        context = 9_000 + 1_400 * self.stats["replies"] + self.rng.randint(0, 3_000)
        cached = (context * self.rng.randint(70, 95) // 100) // 128 * 128
        output = self.rng.randint(60, 900)
        reasoning = self.rng.randint(0, output // 2)
        last = {
            "input_tokens": context, "cached_input_tokens": cached,
            "output_tokens": output, "reasoning_output_tokens": reasoning,
        }
        for key, value in last.items():
            self.totals[key] += value
        self.stats["replies"] += 1
        self.stats["input_tokens"] += context - cached
        self.stats["cache_read_input_tokens"] += cached
        self.stats["output_tokens"] += output
        self.stats[REASONING_KEY] += reasoning
        self._token_count(last)
        if self.record_usage:
            self.emit("token_usage_record", {
                "thread_id": self.tid, "turn_id": self.turn_id,
                "response_id": f"resp_{self.rng.getrandbits(96):024x}", "usage": self._usage(last),
            })

    def reemit(self) -> None:
        """Codex re-emits the same totals (UI and rate-limit refreshes): no call."""
        self.turn_context()
        last = {k: 0 for k in self.totals}
        self._token_count(last)

    def _token_count(self, last: dict[str, int]) -> None:
        info = {"total_token_usage": self._usage(self.totals), "last_token_usage": self._usage(last),
                "model_context_window": CONTEXT_WINDOW}
        self.event("token_count", info=info, rate_limits=self._limits())

    def _usage(self, raw: dict[str, int]) -> dict[str, int]:
        return {
            "input_tokens": raw["input_tokens"], "cached_input_tokens": raw["cached_input_tokens"],
            "cache_write_input_tokens": 0, "output_tokens": raw["output_tokens"],
            "reasoning_output_tokens": raw["reasoning_output_tokens"],
            "total_tokens": raw["input_tokens"] + raw["output_tokens"],
        }

    def _limits(self) -> dict[str, Any]:
        return {"limit_id": "codex", "primary": {"used_percent": float(self.rng.randint(1, 40)), "window_minutes": 300},
                "secondary": {"used_percent": float(self.rng.randint(1, 20)), "window_minutes": 10080}}

    def end_turn(self, text: str, thought: str = "Summarizing the change for the user.") -> None:
        self.think(thought)
        self.say(text, phase="final_answer")
        self.model_call()
        self.event("task_complete", turn_id=self.turn_id, last_agent_message=text)


def _bare_message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


# --- the history ----------------------------------------------------------------------------


class _History:
    def __init__(self, root: Path, seed: int, sessions: int, turns: int):
        self.root, self.rng = root, random.Random(seed)
        self.count, self.turns = max(1, sessions), max(1, turns)
        self.expected = ExpectedCodex()
        self.threads: list[_Thread] = []
        self.bad: dict[str, int] = {}  # thread id -> bad line number

    def new_thread(self, index: int, start: datetime, **options: Any) -> _Thread:
        cwd = f"/home/dev/src/{PROJECTS[index % len(PROJECTS)]}"
        thread = _Thread(self.rng, _uuid7(self.rng, start), cwd, start, **options)
        self.threads.append(thread)
        return thread

    def turn(self, thread: _Thread, number: int, *, mirrored: bool = True) -> None:
        """One realistic turn: a prompt, a few model calls with tools, an answer."""
        rng = self.rng
        thread.start_turn(PROMPTS[(number + rng.randint(0, 7)) % len(PROMPTS)], mirrored=mirrored)
        thread.think("Looking at the code involved first.")
        thread.say("I'll look at the relevant files and run the tests.")
        command = rng.choice(COMMANDS)
        first = thread.call("exec_command", {"cmd": command, "workdir": thread.cwd, "yield_time_ms": 10000})
        second = thread.call("exec_command", {"cmd": "rg -n 'def ' src | head -20", "workdir": thread.cwd})
        thread.model_call()
        # Parallel calls: the outputs arrive in the other order (docs/formats-codex.md X6).
        thread.output(second, "src/app.py:12:def main():\nsrc/io.py:3:def read_rows(path):")
        failed = rng.random() < 0.3
        summary = "1 failed, 11 passed in 0.84s" if failed else "12 passed in 0.81s"
        thread.output(first, summary, exit_code=1 if failed else 0)
        thread.reemit()
        thread.think("The fix belongs in one function.")
        patch = thread.patch(
            "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    retries = None\n+    retries = 5\n*** End Patch\n"
        )
        thread.model_call()
        thread.output(patch, "Success. Updated the following files:\nM src/app.py\n", custom=True)
        thread.changed.add(f"{thread.cwd}\0{thread.cwd}/src/app.py")
        thread.reemit()
        self.commit(thread, number)
        if number % 3 == 2:
            thread.search("python csv dialect sniffing line endings")
            thread.model_call()
            thread.reemit()
        thread.end_turn("Done: the change is in src/app.py and the tests pass.")

    def commit(self, thread: _Thread, number: int) -> None:
        """Commits by shell: with git's summary line (every second turn); a quiet
        one (``-q``: no output); one that fails; and commands that only mention
        ``git commit`` (a heredoc body, an echo). Only real, successful ones count."""
        if number % 2 == 0 and number % 3 != 2:
            return
        if number % 2 == 1:
            sha = f"{self.rng.getrandbits(28):07x}"
            call = thread.call("exec_command", {"cmd": 'git add -A && git commit -m "Cap the retries"',
                                                "workdir": thread.cwd})
            thread.model_call()
            thread.output(call, f"[main {sha}] Cap the retries\n 1 file changed, 1 insertion(+), 1 deletion(-)")
            thread.commits.add(f"sha:{sha}")
            return
        quiet = thread.call("exec_command", {"cmd": "git commit -qam 'wip: retries'", "workdir": thread.cwd})
        failed = thread.call("shell", {"command": ["bash", "-lc", "git commit -m 'again'"], "workdir": thread.cwd})
        note = thread.call("exec_command", {"cmd": "cat > NOTES.md <<'EOF'\ngit commit once green\nEOF\n"
                                                   "echo 'git commit later'", "workdir": thread.cwd})
        thread.model_call()
        thread.output(quiet, "")
        thread.commits.add(f"call:{quiet}")
        thread.output(failed, "On branch main\nnothing to commit, working tree clean", exit_code=1)
        thread.output(note, "git commit later")
        thread.reemit()

    def settle(self) -> None:
        """Commits and changed files into each session's stats (a sub-agent's are its parent's)."""
        for thread in self.threads:
            if thread.tid in self.expected.sessions:
                stats = self.expected.sessions[thread.tid]
                stats["commits"], stats["files_changed"] = len(thread.commits), len(thread.changed)

    # the sessions -----------------------------------------------------------------------

    def build(self) -> ExpectedCodex:
        base = datetime(2026, 3, 2, 9, 15, tzinfo=timezone.utc)
        for index in range(self.count):
            start = base + timedelta(days=index, minutes=self.rng.randint(0, 300))
            builder = (self.forked_session, self.spawning_session, self.legacy_session, self.newer_session)
            (builder[index] if index < len(builder) else self.plain_session)(index, start)
        self.settle()
        self.write()
        return self.expected

    def plain_session(self, index: int, start: datetime) -> _Thread:
        thread = self.new_thread(index, start)
        thread.meta()
        thread.initial_context()
        for number in range(self.turns):
            self.turn(thread, number)
        self.expected.sessions[thread.tid] = thread.stats
        return thread

    def forked_session(self, index: int, start: datetime) -> None:
        """A session that is compacted, forked, then resumed in the same file."""
        parent = self.new_thread(index, start)
        parent.meta()
        parent.initial_context()
        first_half = max(1, (self.turns + 1) // 2)
        for number in range(first_half):
            self.turn(parent, number)
            if number == 0:
                self.compaction(parent)
        fork = self.new_thread(index, parent.clock + timedelta(minutes=7))
        fork.meta(session_id=parent.tid, forked_from_id=parent.tid)
        fork.copy_from(parent, len(parent.items), fork.tick())
        fork.message("developer", PERMISSIONS)
        fork.message("user", ENVIRONMENT.format(cwd=fork.cwd))
        for number in range(2):
            self.turn(fork, number + 10)
        # Resume: the same file goes on, with a new turn_context and no new session_meta.
        parent.clock += timedelta(hours=3)
        for number in range(first_half, self.turns):
            self.turn(parent, number)
        self.expected.sessions[parent.tid] = parent.stats
        self.expected.sessions[fork.tid] = fork.stats
        self.expected.forks[fork.tid] = parent.tid

    def compaction(self, thread: _Thread) -> None:
        history = [payload for kind, payload in thread.items if kind == "response_item"][-6:]
        thread.emit("compacted", {"message": "", "replacement_history": history})
        thread.event("context_compacted")
        thread.reemit()  # totals unchanged after a compaction (docs/formats-codex.md X11)

    def spawning_session(self, index: int, start: datetime) -> None:
        """A session whose turn spawns a sub-agent that starts from a copy of it."""
        parent = self.new_thread(index, start)
        parent.meta()
        parent.initial_context()
        self.turn(parent, 0)
        parent.start_turn("Have a helper audit the tests for flaky sleeps while you fix the logging.")
        parent.think("A sub-agent can audit the tests in parallel.")
        task = "audit_sleeps"
        spawn = parent.call("spawn_agent", {"task_name": task, "message": _fernet_like(self.rng), "fork_turns": "all"})
        child = self.new_thread(index, parent.clock + timedelta(milliseconds=300))
        child.meta(session_id=parent.tid, source={"subagent": {"thread_spawn": {
            "parent_thread_id": parent.tid, "depth": 1, "agent_path": f"/root/{task}",
            "agent_nickname": "Hopper", "agent_role": "explorer"}}})
        # The child gets the history up to and including the spawn call.
        child.copy_from(parent, len(parent.items), child.tick())
        parent.model_call()
        self.subagent_work(child, task)
        parent.output(spawn, _dumps({"agent_id": child.tid, "nickname": "Hopper"}))
        parent.reemit()
        parent.end_turn("The helper found two sleeps; both are replaced by fake clocks.")
        for number in range(2, self.turns):
            self.turn(parent, number)
        self.expected.sessions[parent.tid] = parent.stats
        self.expected.subagents[child.tid] = parent.tid
        self.add_subagent(parent.stats, child.stats)
        parent.commits |= child.commits
        parent.changed |= child.changed

    def subagent_work(self, child: _Thread, task: str) -> None:
        child.message("developer", PERMISSIONS)
        envelope = f"Message Type: NEW_TASK\nTask name: /root/{task}\nSender: /root\nPayload:\n"
        content = [
            {"type": "input_text", "text": envelope},
            {"type": "encrypted_content", "encrypted_content": _fernet_like(self.rng)},
        ]
        payload = {"type": "agent_message", "author": "/root", "recipient": f"/root/{task}", "content": content}
        child.emit("response_item", payload)
        child.turn_id = _uuid7(self.rng, child.clock)
        child.turn_context()
        child.think("Searching the tests for sleep calls.")
        found = child.call("exec_command", {"cmd": "rg -n 'time.sleep' tests", "workdir": child.cwd})
        child.model_call()
        child.output(found, "tests/test_poll.py:41:    time.sleep(2)\ntests/test_retry.py:9:    time.sleep(0.5)")
        child.reemit()
        # The helper fixes one sleep itself: its change is its parent session's.
        fix = child.patch("*** Begin Patch\n*** Update File: tests/test_poll.py\n@@\n-    time.sleep(2)\n"
                          "+    clock.advance(2)\n*** End Patch\n")
        child.model_call()
        child.output(fix, "Success. Updated the following files:\nM tests/test_poll.py\n", custom=True)
        child.changed.add(f"{child.cwd}\0{child.cwd}/tests/test_poll.py")
        child.reemit()
        child.say("Two sleeps: tests/test_poll.py:41 and tests/test_retry.py:9.", phase="final_answer")
        child.model_call()

    @staticmethod
    def add_subagent(parent: Stats, child: Stats) -> None:
        """A sub-agent's spend and work are its parent session's; its prompts are not."""
        for key, value in child.items():
            if key != "prompts":
                parent[key] += value
        parent["subagents"] += 1

    def legacy_session(self, index: int, start: datetime) -> None:
        """The pre-envelope era (before September 2025): a bare meta first line,
        bare ResponseItem lines, no token_count. Also copied to archived_sessions/."""
        start = start.replace(year=2025, month=8)
        thread = self.new_thread(index, start)
        rng, cwd = self.rng, thread.cwd

        def bare(obj: dict[str, Any], record: bool = True) -> None:
            thread.lines.append(_dumps(obj))
            thread.stats["lines"] += 1
            thread.stats["records"] += record

        bare({"id": thread.tid, "timestamp": _stamp(start), "instructions": None, "cwd": cwd,
              "originator": "codex_cli_rs", "cli_version": "0.21.0", "git": {"branch": "legacy-import"}}, record=False)
        bare(_bare_message("user", ENVIRONMENT.format(cwd=cwd)))
        for number in range(self.turns):
            prompt = PROMPTS[(number + rng.randint(0, 7)) % len(PROMPTS)]
            bare(_bare_message("user", prompt))
            thread.stats["prompts"] += 1
            bare({"record_type": "state"}, record=False)
            bare({"type": "reasoning", "id": f"rs_{rng.getrandbits(64):016x}",
                  "summary": [{"type": "summary_text", "text": "Checking the tests first."}],
                  "encrypted_content": _fernet_like(rng)})
            call_id = f"call_{rng.getrandbits(96):024x}"
            bare({"type": "function_call", "name": "shell", "call_id": call_id,
                  "arguments": _dumps({"command": ["bash", "-lc", rng.choice(COMMANDS)], "workdir": cwd})})
            failed = number == 0
            result = {"output": "E   AssertionError" if failed else "ok",
                      "metadata": {"exit_code": int(failed), "duration_seconds": 0.4}}
            bare({"type": "function_call_output", "call_id": call_id, "output": _dumps(result)})
            thread.stats["tool_calls"] += 1
            thread.stats["tool_results"] += 1
            thread.stats["tool_errors"] += failed
            bare(_bare_message("assistant", "Fixed; the tests pass."))
        self.expected.sessions[thread.tid] = thread.stats
        thread.archive = True

    def newer_session(self, index: int, start: datetime) -> None:
        """A 2026 file: ordinals, no user_message events (the prompt is the
        response item), token_usage_record lines, typed text sharing a message
        with injected blocks, and one bad line."""
        thread = self.new_thread(index, start, ordinals=True)
        thread.record_usage = True
        thread.meta(session_id=thread.tid, history_mode="paginated")
        thread.message("developer", PERMISSIONS)
        thread.message("user", USER_INSTRUCTIONS + "\n" + ENVIRONMENT.format(cwd=thread.cwd))
        for number in range(self.turns):
            self.turn(thread, number, mirrored=False)
            if number == 0:
                self.bad[thread.tid] = thread.bad_line()
                # Typed text after an injected block in one message counts once.
                mixed = ENVIRONMENT.format(cwd=thread.cwd) + "\nAlso bump the version to 1.4.0."
                thread.start_turn(mixed, mirrored=False)
                thread.say("Bumped to 1.4.0.", phase="final_answer")
                thread.model_call()
        self.expected.sessions[thread.tid] = thread.stats

    # output -------------------------------------------------------------------------------

    def write(self) -> None:
        for thread in self.threads:
            relative = self.relative_path(thread)
            path = self.root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(thread.lines) + "\n", encoding="utf-8")
            if thread.tid in self.bad:
                self.expected.bad_lines.append((relative.as_posix(), self.bad[thread.tid]))
            if thread.archive:
                archived = Path("archived_sessions", *relative.parts[1:])
                (self.root / archived).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, self.root / archived)
                self.expected.archived.append(archived.as_posix())

    @staticmethod
    def relative_path(thread: _Thread) -> Path:
        moment = thread.created
        name = f"rollout-{moment.strftime('%Y-%m-%dT%H-%M-%S')}-{thread.tid}.jsonl"
        return Path("sessions", moment.strftime("%Y"), moment.strftime("%m"), moment.strftime("%d"), name)


def generate_codex_history(root: Path, *, seed: int = 0, sessions: int = 4, turns: int = 5) -> ExpectedCodex:
    """Write a Codex home under ``root`` (``sessions/`` and ``archived_sessions/``)
    and return its true counts. Deterministic for a given seed and sizes."""
    return _History(Path(root), seed, sessions, turns).build()


# --- the bundled examples ---------------------------------------------------------------------

EXAMPLE_CWD = "/home/ada/src/tidepool"
_EXAMPLE_PATCH = """*** Begin Patch
*** Update File: tidepool/tides.py
@@ def next_high_tide(readings):
-    peaks = [r for r in readings if r.height > r.previous.height]
+    # A reading with no predecessor (the first of the day) cannot be a peak.
+    peaks = [r for r in readings if r.previous and r.height > r.previous.height]
     return min(peaks, key=lambda r: r.time, default=None)
*** End Patch
"""


class _Example(_Thread):
    """A hand-written thread: fixed ids, times and token figures, no randomness in what is said."""

    def __init__(self, name: str, start: datetime):
        rng = random.Random(f"bough example {name}")
        super().__init__(rng, _uuid7(rng, start), EXAMPLE_CWD, start)
        self.model = "gpt-5.4"

    def tick(self, low: float = 0.05, high: float = 2.0) -> str:
        self.clock += timedelta(milliseconds=int((low + high) * 400))
        return _stamp(self.clock)


def write_codex_examples(root: Path) -> list[Path]:
    """The demo's two rollouts under ``root/sessions/2026/03/``: a session in
    tidepool (the same project as a Claude example) that runs the tests, applies
    a patch and explains itself, and a fork of it in a second file."""
    parent = _Example("tides", datetime(2026, 3, 9, 14, 2, 11, tzinfo=timezone.utc))
    parent.meta()
    parent.initial_context()
    parent.start_turn("`test_next_high_tide` fails on the first reading of the day. Can you find out why and fix it?")
    parent.think("Reproducing the failure before reading the code.")
    parent.say("Let me run that test first.")
    run = parent.call("shell", {"command": ["bash", "-lc", "pytest tests/test_tides.py -q"], "workdir": EXAMPLE_CWD})
    parent.model_call()
    failure = "F.....\nAttributeError: 'NoneType' object has no attribute 'height'\n1 failed, 5 passed in 0.31s"
    parent.output(run, failure, exit_code=1)
    parent.reemit()
    parent.think("The first reading has no `previous`, so the comparison dereferences None.")
    parent.say("The first reading of a day has no predecessor, and `next_high_tide` compares against it anyway.")
    fix = parent.patch(_EXAMPLE_PATCH)
    parent.model_call()
    parent.output(fix, "Success. Updated the following files:\nM tidepool/tides.py\n", custom=True)
    parent.reemit()
    rerun = parent.call("shell", {"command": ["bash", "-lc", "pytest -q"], "workdir": EXAMPLE_CWD})
    parent.model_call()
    parent.output(rerun, "......................\n22 passed in 0.58s")
    parent.reemit()
    commit = parent.call("shell", {
        "command": ["bash", "-lc", "git commit -am 'Skip readings without a predecessor in next_high_tide'"],
        "workdir": EXAMPLE_CWD,
    })
    parent.model_call()
    parent.output(commit, "[main 9c3e1f4] Skip readings without a predecessor in next_high_tide\n"
                          " 1 file changed, 2 insertions(+), 1 deletion(-)")
    parent.reemit()
    parent.end_turn(
        "Fixed and committed (`9c3e1f4` on `main`). `next_high_tide` now skips readings without a predecessor:\n\n"
        "- `tidepool/tides.py`: a reading needs a `previous` to count as a peak\n"
        "- all 22 tests pass (`pytest -q`)",
        thought="The whole suite passes; time to report what changed.",
    )

    fork = _Example("tides-fork", parent.clock + timedelta(minutes=12))
    fork.meta(session_id=parent.tid, forked_from_id=parent.tid)
    fork.copy_from(parent, len(parent.items), fork.tick())
    fork.message("developer", PERMISSIONS)
    fork.start_turn(
        "Different approach: instead of skipping it, compare the first reading with the last one of the previous day."
    )
    fork.think("That needs the previous day's readings, which `load_day` can already return.")
    fork.say("I'll look at how readings are loaded.")
    look = fork.call("shell", {"command": ["bash", "-lc", "rg -n 'def load_day' -A6 tidepool"], "workdir": EXAMPLE_CWD})
    fork.model_call()
    fork.output(look, "tidepool/io.py:14:def load_day(station, day, *, with_previous=False):")
    fork.reemit()
    fork.end_turn(
        "`load_day(..., with_previous=True)` already returns the last reading of the day before, so the first "
        "reading can be linked to it instead of being skipped. Shall I make that change?",
        thought="`with_previous` already exists, so the change is small.",
    )
    written = []
    for thread in (parent, fork):
        path = Path(root) / _History.relative_path(thread)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(thread.lines) + "\n", encoding="utf-8")
        written.append(path)
    return written
