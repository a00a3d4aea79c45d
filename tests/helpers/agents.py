"""Small sessions of each agent (Claude Code, Codex CLI, Gemini CLI), laid out as the
agent does: whole builds of odd values, one builder per agent's record format."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from .claude_records import prompt, reply, text, tool_result, tool_use, write_jsonl


AGENTS = ("claude", "codex", "gemini", "copilot", "qwen")


def agent_id(tag: int) -> str:
    """A session id of its own for each tag (a uuid, as all three agents write them)."""
    return f"{tag:08x}-0000-4000-8000-{tag:012x}"


def agent_time(second: int) -> str:
    return f"2026-03-01T10:{second // 60 % 60:02d}:{second % 60:02d}.000Z"


def agent_records(agent: str, tag: int, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    """One session's records in ``agent``'s format: for each text a prompt, the
    reply to it with a Bash call, and the call's output (each reply counts 5 in, 10 out)."""
    made = {"claude": _claude_turns, "codex": _codex_turns, "gemini": _gemini_turns, "copilot": _copilot_turns,
            "qwen": _qwen_turns}[agent]
    return made(agent_id(tag), cwd, prompts)


def _claude_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    parent = None
    for n, ask in enumerate(prompts):
        ids = [f"{sid[:-3]}{n:01x}{k:02x}" for k in range(3)]
        call = f"toolu_{sid[:8]}{n:04d}"
        fields = {"sessionId": sid, "cwd": cwd}
        turn = [prompt(ids[0], ask, parentUuid=parent, timestamp=agent_time(3 * n), **fields),
                reply(ids[1], f"msg_{sid[:8]}{n:04d}", [text(f"On it: {ask}"), tool_use(call, "Bash", command="ls")],
                      parentUuid=ids[0], timestamp=agent_time(3 * n + 1), **fields),
                tool_result(ids[2], call, f"output of turn {n}", parentUuid=ids[1], timestamp=agent_time(3 * n + 2),
                            **fields)]
        records += turn
        parent = ids[2]
    return records


def _codex_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    def line(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": agent_time(second), "type": kind, "payload": payload}

    records = [line(0, "session_meta", {"id": sid, "timestamp": agent_time(0), "cwd": cwd, "originator": "codex_cli_rs",
                                        "cli_version": "0.128.0", "source": "cli"})]
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0,
             "total_tokens": 0}
    for n, ask in enumerate(prompts):
        second, call = 4 * n + 1, f"call_{sid[:8]}{n:04d}"
        last = {"input_tokens": 5, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0,
                "total_tokens": 15}
        total = {key: total[key] + last[key] for key in total}
        records += [
            line(second, "turn_context", {"cwd": cwd, "model": "gpt-5.2-codex"}),
            line(second, "event_msg", {"type": "user_message", "message": ask}),
            line(second + 1, "response_item", {"type": "message", "role": "assistant",
                                               "content": [{"type": "output_text", "text": f"On it: {ask}"}]}),
            line(second + 1, "response_item", {"type": "function_call", "name": "shell", "call_id": call,
                                               "arguments": '{"command": ["ls"]}'}),
            line(second + 2, "response_item", {"type": "function_call_output", "call_id": call,
                                               "output": f"output of turn {n}"}),
            line(second + 3, "event_msg", {"type": "token_count", "info": {"total_token_usage": dict(total),
                                                                          "last_token_usage": last}}),
        ]
    return records


def _gemini_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [{"sessionId": sid, "projectHash": hashlib.sha256(cwd.encode()).hexdigest(),
                                      "startTime": agent_time(0), "lastUpdated": agent_time(0), "kind": "main"}]
    for n, ask in enumerate(prompts):
        call = f"call-{sid[:8]}-{n}"
        records += [
            {"id": f"{sid[:-4]}{n:02x}01", "timestamp": agent_time(3 * n), "type": "user", "content": [{"text": ask}]},
            {"id": f"{sid[:-4]}{n:02x}02", "timestamp": agent_time(3 * n + 1), "type": "gemini",
             "content": f"On it: {ask}", "model": "gemini-3-pro-preview",
             "tokens": {"input": 5, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 15},
             "toolCalls": [{"id": call, "name": "run_shell_command", "args": {"command": "ls"}, "status": "success",
                            "timestamp": agent_time(3 * n + 2),
                            "result": [{"functionResponse": {"id": call, "name": "run_shell_command",
                                                             "response": {"output": f"output of turn {n}"}}}]}]},
        ]
    return records


def _copilot_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    """Copilot CLI's event log (docs/formats-copilot.md): the start with its working
    directory, then per prompt a reply calling a shell and its result, and the
    shutdown record a clean exit writes with the session's input tokens."""
    def event(n: int, kind: str, data: dict[str, Any], second: int) -> dict[str, Any]:
        return {"type": kind, "data": data, "id": f"{sid[:-4]}{n:04x}", "timestamp": agent_time(second),
                "parentId": None}

    records = [event(0, "session.start", {"sessionId": sid, "copilotVersion": "1.0.82", "startTime": agent_time(0),
                                          "context": {"cwd": cwd}}, 0)]
    for n, ask in enumerate(prompts):
        call, base = f"toolu_{sid[:8]}{n:04d}", 10 * n + 1
        records += [
            event(base, "user.message", {"content": ask, "transformedContent": ask}, 3 * n),
            event(base + 1, "assistant.message", {"messageId": f"m-{sid[:8]}-{n}", "content": f"On it: {ask}",
                                                  "toolRequests": [{"toolCallId": call, "name": "bash",
                                                                    "arguments": {"command": "ls"}}],
                                                  "outputTokens": 10, "model": "claude-sonnet-4.6"}, 3 * n + 1),
            event(base + 2, "tool.execution_start", {"toolCallId": call, "toolName": "bash",
                                                     "arguments": {"command": "ls"}}, 3 * n + 1),
            event(base + 3, "tool.execution_complete", {"toolCallId": call, "success": True,
                                                        "result": {"content": f"output of turn {n}"}}, 3 * n + 2),
        ]
    usage = {"inputTokens": 5 * len(prompts), "outputTokens": 10 * len(prompts), "cacheReadTokens": 0,
             "cacheWriteTokens": 0}
    records.append(event(0xFFF, "session.shutdown", {"shutdownType": "routine", "modelMetrics": {
        "claude-sonnet-4.6": {"requests": {"count": len(prompts), "cost": 1}, "usage": usage}}}, 3 * len(prompts)))
    return records


def _qwen_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    """Qwen Code's chat recording (docs/formats-qwen.md): per prompt the API call's
    telemetry (its tokens), the reply calling a shell, and the tool's result."""
    records: list[dict[str, Any]] = []

    def record(n: int, kind: str, second: int, **fields: Any) -> None:
        records.append({"uuid": f"{sid[:-4]}{n:04x}", "parentUuid": records[-1]["uuid"] if records else None,
                        "sessionId": sid, "timestamp": agent_time(second), "type": kind, "cwd": cwd,
                        "version": "0.21.6", **fields})

    for n, ask in enumerate(prompts):
        call, base = f"call_{sid[:8]}{n:04d}", 10 * n + 1
        record(base, "user", 3 * n, message={"role": "user", "parts": [{"text": ask}]})
        record(base + 1, "system", 3 * n + 1, subtype="ui_telemetry", systemPayload={"uiEvent": {
            "event.name": "qwen-code.api_response", "event.timestamp": agent_time(3 * n + 1),
            "response_id": f"chatcmpl-{sid[:8]}-{n}", "model": "qwen3-coder-plus", "prompt_id": f"{sid}#{n}",
            "input_token_count": 5, "output_token_count": 10, "cached_content_token_count": 0,
            "thoughts_token_count": 0}})
        record(base + 2, "assistant", 3 * n + 1, model="qwen3-coder-plus", message={"role": "model", "parts": [
            {"text": f"On it: {ask}"}, {"functionCall": {"id": call, "name": "run_shell_command",
                                                       "args": {"command": "ls"}}}]})
        record(base + 3, "tool_result", 3 * n + 2, message={"role": "user", "parts": [{"functionResponse": {
            "id": call, "name": "run_shell_command", "response": {"output": f"output of turn {n}"}}}]},
            toolCallResult={"callId": call, "status": "success"})
    return records


def write_agent_session(root: Path, agent: str, tag: int, cwd: str, lines: list[Any]) -> Path:
    """``lines`` (records, or raw ``bytes`` lines) where ``agent`` keeps a session,
    under ``root/<agent>``; returns the source to build (the agent's folder)."""
    sid = agent_id(tag)
    if agent == "claude":
        source = root / "claude" / "projects"
        write_jsonl(source / ("-" + cwd.strip("/").replace("/", "-")) / f"{sid}.jsonl", lines)
    elif agent == "codex":
        source = root / "codex" / "sessions"
        write_jsonl(source / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{sid}.jsonl", lines)
    elif agent == "copilot":
        source = root / "copilot" / ".copilot"
        write_jsonl(source / "session-state" / sid / "events.jsonl", lines)
    elif agent == "qwen":
        source = root / "qwen" / ".qwen"
        write_jsonl(source / "projects" / ("-" + cwd.strip("/").replace("/", "-")) / "chats" / f"{sid}.jsonl", lines)
    else:
        source = root / "gemini" / ".gemini"
        name = f"p{tag}"
        projects = source / "projects.json"
        known = orjson.loads(projects.read_bytes())["projects"] if projects.exists() else {}
        source.mkdir(parents=True, exist_ok=True)
        projects.write_bytes(orjson.dumps({"projects": {**known, cwd: name}}))
        write_jsonl(source / "tmp" / name / "chats" / f"session-2026-03-01T10-00-{sid[:8]}.jsonl", lines)
    return source
