"""A synthetic Qwen Code history with known true counts.

``generate_qwen_history`` writes a ``~/.qwen`` tree (``projects/<enc cwd>/chats/``)
holding every trap of docs/formats-qwen.md §10 (the reference's Q10): telemetry
and ``usageMetadata`` for the same calls (counted once), retried thought-only
responses only the telemetry holds, sub-agent calls only the telemetry holds
(started by an ``agent`` call, or in the background by none), cache reads inside
the prompt count, OpenAI-style output with thoughts inside and Gemini-native output
with thoughts apart, a file with no telemetry (``usageMetadata`` counts), a broken
count (unknown, not 0), tool results, errors and cancelled calls, prompts beside
notifications, cron, hook-context-only and sidechain user records, a steering
message, slash commands, a compression, a rewind (its dead branch counted), a
``uuid`` written twice, ``custom_title`` re-anchored, a ``/branch`` copy
(``forkedFrom``: counted in the session it came from only), an archived copy beside
its live file, a ``cwd`` change, glued, bad and truncated lines.

The expected STATS are tallied as the records are written, by this module's own
bookkeeping; nothing here reads a file back or shares code with the reader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from .qwen_records import START, Chat, call, sanitized, text, thought, usage

Stats = dict[str, int]
KEYS = ("records", "replies", "prompts", "commands", "tool_calls", "tool_results", "tool_errors", "subagents",
        "input_tokens", "output_tokens", "cache_read_input_tokens", "reasoning_output_tokens", "lines",
        "skipped_lines", "replies_with_unknown_tokens")
CWDS = ("/home/ada/src/kiln", "/home/ada/src/glaze", "/srv/work/kiln-docs")
PROMPTS = ("The kiln timer drifts by a second an hour. Find out why.", "Add a pause button to the schedule view.",
           "Why does test_ramp_rate fail on CI only?", "Rename Schedule.steps to Schedule.segments.")
TOOLS = (("read_file", {"absolute_path": "/k/kiln/timer.py"}), ("run_shell_command", {"command": "pytest -q"}),
         ("grep_search", {"pattern": "time\\.time", "path": "/k"}),
         ("edit", {"file_path": "/k/kiln/timer.py", "old_string": "time.time()", "new_string": "time.monotonic()"}))
MODES = ("openai", "native", "none")


@dataclass
class ExpectedQwen:
    sessions: dict[str, Stats]  # session id -> its STATS
    orphans: dict[str, int]  # session id -> sub-agent runs no call started
    cwds: dict[str, str]  # session id -> its working directory
    site: Stats = field(default_factory=dict)


class _Session:
    """One session's chat and its truth, written turn by turn."""

    def __init__(self, sid: str, cwd: str, rng: random.Random, mode: str, start):
        self.chat = Chat(sid, cwd, clock=start, seed=rng.randrange(1 << 30))
        self.rng, self.mode = rng, mode
        self.truth: Stats = {key: 0 for key in KEYS}
        self.orphans = 0
        self.calls = 0

    # --- bookkeeping -------------------------------------------------------------------

    def add(self, **counts: int) -> None:
        for key, value in counts.items():
            self.truth[key] += value

    def written(self, records: int = 1, lines: int = 1) -> None:
        self.add(records=records, lines=lines)

    def reply(self, prompt: int, output: int, cached: int, thoughts: int, *, unknown: bool = False) -> None:
        self.add(replies=1, cache_read_input_tokens=cached, reasoning_output_tokens=thoughts)
        self.add(input_tokens=0 if unknown else prompt - cached)
        self.add(output_tokens=output + thoughts if self.mode == "native" else output)
        if unknown:
            self.add(replies_with_unknown_tokens=1)

    # --- an API call ------------------------------------------------------------------------

    def figures(self) -> tuple[int, int, int, int]:
        prompt = self.rng.randrange(800, 20_000)
        cached = self.rng.choice((0, prompt // 2, prompt - 10))
        thoughts = self.rng.randrange(0, 200)
        output = self.rng.randrange(5, 400) + (0 if self.mode == "native" else thoughts)
        return prompt, output, cached, thoughts

    def event(self, prompt: int, output: int, cached: int, thoughts: int, **extra: Any) -> dict[str, Any]:
        total = prompt + output + thoughts if self.mode == "native" else prompt + output
        record = self.chat.api_response(prompt, output, cached=cached, thoughts=thoughts, total=total, **extra)
        self.written()
        return record

    def call(self, parts: list[dict[str, Any]], *, retried: bool = False, broken: bool = False) -> None:
        """One main-chat API call: its telemetry (unless the file has none) and its
        record; first, sometimes, a thought-only response the CLI retried."""
        if retried and self.mode != "none":
            p, o, c, t = self.figures()
            self.event(p, o, c, t)
            self.reply(p, o, c, t)
        p, o, c, t = self.figures()
        if broken and self.mode != "none":  # a prompt count that is not one: the call's tokens are unknown
            c = 0
            self.chat.api_response("n/a", o, cached=0, thoughts=t, total=p + o)  # type: ignore[arg-type]
            self.written()
            self.reply(p, o, 0, t, unknown=True)
        elif self.mode != "none":
            self.event(p, o, c, t)
            self.reply(p, o, c, t)
        else:
            self.reply(p, o, c, t)
        total = p + o + t if self.mode == "native" else p + o
        self.chat.assistant(parts, usage(p, o, cached=c, thoughts=t, total=total))
        self.written()

    # --- a turn -----------------------------------------------------------------------------------

    def turn(self, text_: str) -> None:
        self.chat.prompt(text_)
        self.written()
        self.add(prompts=1)
        for _ in range(self.rng.randrange(1, 3)):
            self.tools()
        if self.rng.random() < 0.5:
            self.agent()
        self.call([thought("Checking the result."), text("Done: the change is in place.")],
                  retried=self.rng.random() < 0.4)

    def tools(self) -> None:
        picked = self.rng.sample(TOOLS, self.rng.randrange(1, 3))
        ids = []
        for name, args in picked:
            self.calls += 1
            ids.append((f"call_{self.calls}", name, args))
        self.call([thought("I'll look first.")] + [call(i, n, a) for i, n, a in ids])
        for call_id, name, args in ids:
            outcome = self.rng.choice(("success", "success", "error", "cancelled"))
            if self.mode != "none":
                self.chat.tool_event(call_id, name, args, error="failed" if outcome == "error" else "")
                self.written()
            if outcome == "error":
                self.chat.tool_result(call_id, name, error="EACCES: permission denied")
                self.add(tool_errors=1)
            else:
                self.chat.tool_result(call_id, name, "ok", status=outcome)
            self.written()
            self.add(tool_calls=1, tool_results=1)

    def agent(self, *, background: bool = False) -> None:
        """A sub-agent: its calls only in telemetry (a file without telemetry has none)."""
        if self.mode == "none":
            return
        self.calls += 1
        launcher = f"call_{self.calls}"
        key = f"{'managed-auto-memory-extractor' if background else 'explorer'}-{self.rng.randrange(16**8):08x}"
        if not background:
            self.call([call(launcher, "agent", {"description": "Map the modules", "prompt": "List the modules.",
                                                "subagent_type": "explorer"})])
            self.add(tool_calls=1)
        for turn in range(self.rng.randrange(1, 4)):
            p, o, c, t = self.figures()
            self.event(p, o, c, t, agent=key, turn=turn, response_id=f"resp-{key}-{turn}")
            self.reply(p, o, c, t)
            if self.rng.random() < 0.6:
                self.calls += 1
                error = "params must have required property 'path'" if self.rng.random() < 0.5 else ""
                self.chat.tool_event(f"call_{self.calls}", "list_directory", {"path": "/k"}, error=error,
                                     agent=key, turn=turn, response_id=f"resp-{key}-{turn}")
                self.written()
                self.add(tool_calls=1, tool_results=1, tool_errors=1 if error else 0)
        self.add(subagents=1)
        if background:
            self.orphans += 1
        else:
            self.chat.tool_result(launcher, "agent", "Three modules: timer, schedule, ui.")
            self.written()
            self.add(tool_results=1)

    # --- the odd records ----------------------------------------------------------------------------

    def noise(self) -> None:
        """User and system records that are not prompts, and a command."""
        c = self.chat
        c.user([text("Background task finished.")], subtype="notification")
        c.user([text("<qwen:user-prompt-submit-context>\nhook output")], provenance="real_user")
        c.user([text("nightly check")], subtype="cron")
        c.system("slash_command", {"phase": "invocation", "rawCommand": "/stats"})
        c.system("slash_command", {"phase": "result", "rawCommand": "/stats",
                                   "outputHistoryItems": [{"type": "info", "text": "3 requests"}]})
        c.system("attribution_snapshot", {"snapshot": {}})
        self.written(records=6, lines=6)
        self.add(commands=1)

    def steering(self) -> None:
        self.chat.user([text("Also keep the old name as an alias.")], subtype="mid_turn_user_message")
        self.written()
        self.add(prompts=1)

    def rewind(self) -> None:
        """A branch undone: its records stay in the file and count (they were billed)."""
        root = self.chat.prompt("Try the other approach.")
        self.written()
        self.add(prompts=1)
        self.call([text("Dead-end answer.")])
        self.chat.system("rewind", {"targetUuid": root["uuid"]}, parent=root["uuid"])
        self.written()

    def duplicate(self) -> None:
        """One uuid twice (a thought-only copy, then the full record): one record, one reply."""
        first = self.chat.assistant([thought("Weighing it.")])
        self.written()
        p, o, c, t = self.figures()
        if self.mode != "none":
            self.event(p, o, c, t)
        self.chat.assistant([text("Weighed.")], usage(p, o, cached=c, thoughts=t, total=self._total(p, o, t)),
                            uuid=first["uuid"])
        self.add(lines=1)
        self.reply(p, o, c, t)

    def _total(self, p: int, o: int, t: int) -> int:
        return p + o + t if self.mode == "native" else p + o

    def title(self) -> None:
        for _ in range(2):  # the second is the CLI's re-anchored copy: no new record
            self.chat.system("custom_title", {"customTitle": "Kiln timer drift", "titleSource": "manual"})
        self.written(records=1, lines=2)

    def compression(self) -> None:
        self.chat.system("chat_compression", {"info": {"originalTokenCount": 90_000, "newTokenCount": 9_000}})
        self.written()

    def glue(self) -> None:
        """The last two lines written as one."""
        self.chat.lines[-2:] = [self.chat.lines[-2] + self.chat.lines[-1]]
        self.add(lines=-1)

    def damage(self) -> None:
        self.chat.raw(b"{not json at all")
        self.add(lines=1, skipped_lines=1)


def generate_qwen_history(root: Path, *, seed: int = 0, sessions: int = 9) -> ExpectedQwen:
    """Write the tree under ``root`` (a ``~/.qwen``) and say what it counts."""
    rng = random.Random(seed)
    expected = ExpectedQwen({}, {}, {})
    made: list[_Session] = []
    for index in range(sessions):
        sid = f"{rng.randrange(16**8):08x}-{index:04x}-4{rng.randrange(16**3):03x}-8000-{rng.randrange(16**12):012x}"
        cwd = CWDS[index % len(CWDS)]
        session = _Session(sid, cwd, rng, MODES[index % len(MODES)], START + timedelta(hours=index))
        _write_session(session, rng, index)
        made.append(session)
        path = root / "projects" / sanitized(cwd) / "chats" / f"{sid}.jsonl"
        session.chat.write(path, newline_at_end=not index % 4 == 3)
        if index % 4 == 3:  # a truncated last line: a record cut short
            session.add(skipped_lines=1)
        if index == 1:  # the CLI's archived copy beside the live file: read once
            session.chat.write(path.parent / "archive" / path.name)
        expected.sessions[sid] = dict(session.truth)
        expected.orphans[sid] = session.orphans
        expected.cwds[sid] = cwd
    _branch(root, made[0], rng, expected)
    expected.site = {key: sum(s[key] for s in expected.sessions.values()) for key in KEYS}
    return expected


def _write_session(session: _Session, rng: random.Random, index: int) -> None:
    if index % 3 == 0:
        session.noise()
    for turn in range(rng.randrange(1, 4)):
        session.turn(PROMPTS[(index + turn) % len(PROMPTS)])
        if turn == 0 and index % 2:
            session.steering()
    if index % 3 == 1:
        session.rewind()
    if index % 3 == 2:
        session.duplicate()
        session.title()
    if index % 4 == 0:
        session.compression()
        session.agent(background=True)
    if index == 3:
        session.call([text("Odd figures.")], broken=True)
    if index == 4:
        session.chat.prompt("And in the docs folder?", cwd="/srv/elsewhere")
        session.written()
        session.add(prompts=1)
    if index % 5 == 1:
        session.glue()
    if index % 5 == 2:
        session.damage()
    if index % 4 == 3:
        session.chat.raw(b'{"uuid": "cut-short", "type": "assis')
        session.add(lines=1)


def _branch(root: Path, source: _Session, rng: random.Random, expected: ExpectedQwen) -> None:
    """A /branch of the first session: its records copied with ``forkedFrom``, then new work."""
    sid = f"b{rng.randrange(16**7):07x}-0000-4000-8000-{rng.randrange(16**12):012x}"
    branch = _Session(sid, source.chat.cwd, rng, "openai", source.chat.clock + timedelta(minutes=5))
    stamp = {"sessionId": source.chat.session, "messageUuid": source.chat.last}
    copied = 0
    for line in source.chat.lines:
        if not line.startswith(b"{") or b'"uuid"' not in line or line.count(b'"sessionId"') != 1:
            continue
        record = orjson.loads(line)
        record.update(sessionId=sid, forkedFrom=stamp)
        branch.chat.raw(orjson.dumps(record))
        copied += 1
    branch.add(lines=copied)
    branch.turn("Now try it on the branch.")
    path = root / "projects" / sanitized(branch.chat.cwd) / "chats" / f"{sid}.jsonl"
    branch.chat.write(path)
    expected.sessions[sid] = dict(branch.truth)
    expected.orphans[sid] = 0
    expected.cwds[sid] = branch.chat.cwd
