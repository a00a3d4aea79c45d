"""A synthetic GitHub Copilot CLI history with known true counts.

``generate_copilot_history`` writes a ``.copilot`` tree holding every trap of
docs/formats-copilot.md §11: resumed sessions whose
shutdown counters are running totals (summing them over-counts) and others
whose counters are each run's own; ``inputTokens`` that include the cache reads
and writes; runs killed before their shutdown (input and cache unknown, never 0)
and a compaction (the counters reset: unknown too); the system message, the
``transformedContent``, the autopilot nudge (``content: ""``), continuations,
skill injections and sub-agents' prompts, none of them typed; responses split
in chunks sharing an ``apiCallId``; sub-agents in the same file, told by
``data.parentToolCallId`` or by ``agentId``; failed tool calls (``success:
false``); a tool the user ran; an ``assistant.usage`` line (ephemeral in the
CLI: never a count); ``requests`` as a bare number and a model without
``usage``; a session both bare and in its directory; torn lines; and 2025
legacy ``.json`` sessions with no tokens at all.

The expected STATS are tallied as the records are written, by this module's own
bookkeeping; nothing here reads a file back or shares code with the reader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

CWDS = ("/home/ada/src/kiln", "/home/ada/src/loom")
MODELS = ("claude-sonnet-4.6", "gpt-5-mini")
TOKENS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
          "reasoning_output_tokens")
COUNTS = ("records", "replies", "prompts", "tool_calls", "tool_results", "tool_errors", "subagents", "lines",
          "skipped_lines")
USAGE = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


@dataclass
class Truth:
    """One session's true counts; a token key None when the files do not hold it."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    tokens: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(TOKENS, 0))

    def stats(self) -> dict[str, int | None]:
        return {**self.counts, **self.tokens}


@dataclass
class ExpectedCopilot:
    sessions: dict[str, Truth]  # session id -> truth
    cwd: dict[str, str]  # session id -> its working directory

    def project(self, cwd: str) -> dict[str, int]:
        """A project's known sums, and how many sessions each token key leaves out."""
        members = [t for sid, t in self.sessions.items() if self.cwd[sid] == cwd]
        out: dict[str, int] = {key: sum(t.counts[key] for t in members) for key in COUNTS}
        for key in TOKENS:
            out[key] = sum(t.tokens[key] or 0 for t in members)
            unknown = sum(1 for t in members if t.tokens[key] is None)
            if unknown:
                out[f"sessions_with_unknown_{key}"] = unknown
        return out


class _Log:
    """One event log being written, and its truth."""

    def __init__(self, rng: random.Random, session: str, start: datetime):
        self.rng, self.session, self.now = rng, session, start
        self.lines: list[bytes] = []
        self.truth = Truth()
        self.n = 0
        self.calls: list[tuple[int, str, list[int]]] = []  # (leg, model, [fresh, output, read, write, reasoning])
        self.leg = 0
        self.tainted = False  # a run made model calls and has no shutdown after them, or was compacted
        self.leg_calls = 0

    def stamp(self) -> str:
        self.now += timedelta(seconds=self.rng.randint(1, 40))
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def ident(self, what: str) -> str:
        self.n += 1
        return f"{self.session[:8]}-{what}-{self.n}"

    def event(self, kind: str, data: dict[str, Any], **envelope: Any) -> None:
        record = {"type": kind, "data": data, "id": self.ident("ev"), "timestamp": self.stamp(), "parentId": None,
                  **envelope}
        self.lines.append(orjson.dumps(record))
        self.truth.counts["records"] += 1
        self.truth.counts["lines"] += 1

    def torn(self) -> None:
        self.lines.append(b'{"type": "assistant.turn_end", "data": {"turnId": "')
        self.truth.counts["lines"] += 1
        self.truth.counts["skipped_lines"] += 1


def _prompts(log: _Log, cwd: str) -> None:
    """A typed prompt, and sometimes what the CLI sent that nobody typed."""
    rng = log.rng
    log.event("system.message", {"role": "system", "content": "You are the GitHub Copilot CLI." * 20})
    text = rng.choice(("Fix the kiln timer.", "Add a --json flag.", "Why does the test fail?"))
    log.event("user.message", {"content": text, "transformedContent": f"<current_datetime/>\n\n{text}",
                               "attachments": [], "delivery": rng.choice(("idle", "steering"))})
    log.truth.counts["prompts"] += 1
    for _ in range(rng.randint(0, 2)):
        shape = rng.choice(("nudge", "continuation", "skill", "skill-context"))
        data: dict[str, Any] = {"content": "Go on.", "transformedContent": "You have not marked the task complete."}
        if shape == "nudge":
            data["content"] = ""
        elif shape == "continuation":
            data["isAutopilotContinuation"] = True
        elif shape == "skill":
            data["source"] = "skill-pdf"
        else:
            data["content"] = "<skill-context name='pdf'>Read PDFs like this.</skill-context>"
        log.event("user.message", data)


def _call(log: _Log, model: str, agent: dict[str, Any]) -> None:
    """One model call (maybe in two chunks), its tool calls and their results."""
    rng = log.rng
    usage = [rng.randint(50, 3000), rng.randint(1, 900), rng.randint(0, 20000), rng.randint(0, 2000), 0]
    usage[4] = rng.randint(0, usage[1])
    log.calls.append((log.leg, model, usage))
    log.leg_calls += 1
    log.truth.counts["replies"] += 1
    log.truth.tokens["output_tokens"] += usage[1]  # type: ignore[operator]
    api = log.ident("api")
    tools = []
    for _ in range(rng.randint(0, 2)):
        tools.append({"toolCallId": log.ident("call"), "name": rng.choice(("view", "grep", "bash")),
                      "arguments": {"path": "/home/ada/src/kiln/timer.py"}, "type": "function"})
    chunks = 2 if rng.random() < 0.3 else 1
    for index in range(chunks):
        data: dict[str, Any] = {"messageId": log.ident("msg"), "content": f"Part {index}.",
                                "toolRequests": tools if index == chunks - 1 else [], "model": model,
                                "apiCallId": api, **agent.get("data", {})}
        if index == 0 or rng.random() < 0.5:  # a later chunk repeats the count, or carries none
            data["outputTokens"] = usage[1]
        if chunks > 1:
            data.update(chunkIndex=index, chunkCount=chunks)
        log.event("assistant.message", data, **agent.get("envelope", {}))
    if rng.random() < 0.2:  # ephemeral in the CLI; a file that holds one must not count it
        log.event("assistant.usage", {"inputTokens": 999_999, "outputTokens": 999_999, "model": model})
    for tool in tools:
        ok = rng.random() < 0.8
        log.event("tool.execution_start", {"toolCallId": tool["toolCallId"], "toolName": tool["name"],
                                           "arguments": tool["arguments"], **agent.get("data", {})},
                  **agent.get("envelope", {}))
        done: dict[str, Any] = {"toolCallId": tool["toolCallId"], "success": ok, **agent.get("data", {})}
        done.update({"result": {"content": "ok"}} if ok else {"error": {"message": "failed", "code": "failure"}})
        log.event("tool.execution_complete", done, **agent.get("envelope", {}))
        log.truth.counts["tool_calls"] += 1
        log.truth.counts["tool_results"] += 1
        log.truth.counts["tool_errors"] += 0 if ok else 1


def _subagent(log: _Log, model: str) -> None:
    """A ``task`` call whose sub-agent writes into the same file (§6)."""
    rng = log.rng
    call = log.ident("task")
    main_usage = [rng.randint(50, 500), rng.randint(1, 100), 0, 0, 0]
    log.calls.append((log.leg, model, main_usage))
    log.leg_calls += 1
    log.truth.counts["replies"] += 1
    log.truth.tokens["output_tokens"] += main_usage[1]  # type: ignore[operator]
    request = {"toolCallId": call, "name": "task", "arguments": {"description": "Look", "prompt": "Look."},
               "type": "function"}
    log.event("assistant.message", {"messageId": log.ident("msg"), "content": "", "toolRequests": [request],
                                    "model": model, "apiCallId": log.ident("api"), "outputTokens": main_usage[1]})
    log.event("tool.execution_start", {"toolCallId": call, "toolName": "task", "arguments": request["arguments"]})
    log.event("subagent.started", {"toolCallId": call, "agentName": "explore"})
    by_id = rng.random() < 0.5
    agent = {"envelope": {"agentId": log.ident("agent")}} if by_id else {"data": {"parentToolCallId": call}}
    log.event("user.message", {"content": "Look.", **agent.get("data", {})}, **agent.get("envelope", {}))
    for _ in range(rng.randint(1, 2)):
        _call(log, model, agent)
    log.event("subagent.completed", {"toolCallId": call, "agentName": "explore", "totalTokens": 1})
    log.event("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": "Found."}})
    log.truth.counts.update(tool_calls=log.truth.counts["tool_calls"] + 1,
                            tool_results=log.truth.counts["tool_results"] + 1,
                            subagents=log.truth.counts["subagents"] + 1)


def _shutdown(log: _Log, cumulative: bool, odd: bool) -> None:
    """The counters, per model: since the session began, or this run's alone."""
    per_model: dict[str, list[int]] = {}
    for leg, model, usage in log.calls:
        if cumulative or leg == log.leg:
            totals = per_model.setdefault(model, [0, 0, 0, 0, 0, 0])
            totals[0] += 1
            fresh, output, read, write, reasoning = usage
            for index, value in enumerate((fresh + read + write, output, read, write, reasoning)):
                totals[index + 1] += value
    metrics: dict[str, Any] = {}
    for model, (requests, *usage) in per_model.items():
        metrics[model] = {"requests": {"count": requests, "cost": 1}, "usage": dict(zip(USAGE, usage))}
    if odd and metrics:  # §8.2: requests as a bare number, and no usage: the figures are not there
        model = next(iter(metrics))
        metrics[model] = {"requests": metrics[model]["requests"]["count"]}
        log.tainted = True
    log.event("session.shutdown", {"shutdownType": "routine", "modelMetrics": metrics})


def _event_session(rng: random.Random, session: str, cwd: str, start: datetime) -> tuple[bytes, Truth]:
    log = _Log(rng, session, start)
    log.event("session.start", {"sessionId": session, "copilotVersion": rng.choice(("1.0.34", "1.0.80")),
                                "startTime": log.stamp(), "context": {"cwd": cwd, "branch": "main"}})
    cumulative = rng.random() < 0.5
    legs = rng.randint(1, 3)
    for leg in range(legs):
        log.leg, log.leg_calls = leg, 0
        if leg:
            log.event("session.resume", {"resumeTime": log.stamp(), "eventCount": len(log.lines)})
        model = rng.choice(MODELS)
        log.event("session.model_change", {"newModel": model})
        _prompts(log, cwd)
        for _ in range(rng.randint(1, 3)):
            _subagent(log, model) if rng.random() < 0.2 else _call(log, model, {})
        if rng.random() < 0.1:
            output = rng.randint(10, 200)
            log.event("session.compaction_complete", {"success": True, "summaryContent": "Summary.",
                                                      "compactionTokensUsed": {"inputTokens": 5000,
                                                                               "outputTokens": output}})
            log.calls.append((log.leg, model, [0, output, 0, 0, 0]))
            log.truth.counts["replies"] += 1
            log.truth.tokens["output_tokens"] += output  # type: ignore[operator]
            log.tainted = True
        if rng.random() < 0.15:
            log.event("tool.user_requested", {"toolCallId": log.ident("user-call"), "toolName": "bash",
                                              "arguments": {"command": "ls"}})
            log.truth.counts["tool_calls"] += 1
        if rng.random() < 0.1:
            log.torn()
        if rng.random() < 0.8:
            _shutdown(log, cumulative, odd=rng.random() < 0.1)
        elif log.leg_calls:
            log.tainted = True  # killed after model calls
    if not log.tainted:
        fresh = sum(u[0] for _, _, u in log.calls)
        log.truth.tokens.update(input_tokens=fresh, cache_read_input_tokens=sum(u[2] for _, _, u in log.calls),
                                cache_creation_input_tokens=sum(u[3] for _, _, u in log.calls),
                                reasoning_output_tokens=sum(u[4] for _, _, u in log.calls))
    else:
        for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                    "reasoning_output_tokens"):
            log.truth.tokens[key] = None
    return b"".join(line + b"\n" for line in log.lines), log.truth


def _legacy_session(rng: random.Random, session: str, cwd: str, start: datetime) -> tuple[bytes, Truth]:
    truth = Truth(tokens=dict.fromkeys(TOKENS, None))
    timeline: list[dict[str, Any]] = [{"id": "i0", "type": "info", "text": "Logged in", "timestamp": "2025-10-01T10:00:00Z"}]
    for turn in range(rng.randint(1, 3)):
        timeline.append({"id": f"u{turn}", "type": "user", "text": "Tidy the loom.", "timestamp": "2025-10-01T10:01:00Z"})
        truth.counts["prompts"] += 1
        for reply in range(rng.randint(1, 3)):
            timeline.append({"id": f"c{turn}-{reply}", "type": "copilot", "text": "On it.", "timestamp": "2025-10-01T10:02:00Z"})
            truth.counts["replies"] += 1
            for call in range(rng.randint(1 if turn == reply == 0 else 0, 2)):  # one cd at least: §9's cwd
                ok = rng.random() < 0.8
                timeline.append({"type": "tool_call_completed", "id": f"t{turn}-{reply}-{call}",
                                 "callId": f"toolu_{turn}{reply}{call}", "name": "bash",
                                 "arguments": {"command": f"cd {cwd} && ls"},
                                 "result": {"type": "success" if ok else "failure", "log": "ok"},
                                 "timestamp": "2025-10-01T10:03:00Z"})
                truth.counts["tool_calls"] += 1
                truth.counts["tool_results"] += 1
                truth.counts["tool_errors"] += 0 if ok else 1
    truth.counts.update(records=len(timeline), lines=1)
    data = {"sessionId": session, "startTime": "2025-10-01T10:00:00.000Z", "chatMessages": [], "timeline": timeline}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2), truth


def generate_copilot_history(root: Path, *, seed: int = 0, sessions: int = 8) -> ExpectedCopilot:
    """Write ``root/.copilot`` and return what a reader must count in it."""
    rng = random.Random(seed)
    base = Path(root) / ".copilot"
    expected = ExpectedCopilot({}, {})
    start = datetime(2026, 4, 1, 9, 0, tzinfo=timezone.utc)
    for index in range(sessions):
        session = f"{seed:04x}{index:04x}-1111-4222-a333-{rng.getrandbits(48):012x}"
        cwd = rng.choice(CWDS)
        start += timedelta(hours=rng.randint(1, 30))
        form = rng.choice(("directory", "directory", "bare", "legacy"))
        if form == "legacy":
            data, truth = _legacy_session(rng, session, cwd, start)
            _write(base / "history-session-state" / f"{session}.json", data)
        else:
            data, truth = _event_session(rng, session, cwd, start)
            if form == "bare":
                _write(base / "session-state" / f"{session}.jsonl", data)
            else:
                _write(base / "session-state" / session / "events.jsonl", data)
                if rng.random() < 0.3:  # the older bare form of the same session beside it: not read
                    _write(base / "session-state" / f"{session}.jsonl", data[: len(data) // 2])
        expected.sessions[session] = truth
        expected.cwd[session] = cwd
    return expected


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
