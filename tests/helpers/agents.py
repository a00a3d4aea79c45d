"""Small sessions of each agent (Claude Code, Codex CLI, Gemini CLI), laid out as the
agent does: whole builds of odd values, one builder per agent's record format."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from .claude_records import prompt, reply, text, tool_result, tool_use, write_jsonl


AGENTS = ("claude", "codex", "gemini")


def agent_id(tag: int) -> str:
    """A session id of its own for each tag (a uuid, as all three agents write them)."""
    return f"{tag:08x}-0000-4000-8000-{tag:012x}"


def agent_time(second: int) -> str:
    return f"2026-03-01T10:{second // 60 % 60:02d}:{second % 60:02d}.000Z"


def agent_records(agent: str, tag: int, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    """One session's records in ``agent``'s format: for each text a prompt, the
    reply to it with a Bash call, and the call's output (each reply counts 5 in, 10 out)."""
    made = {"claude": _claude_turns, "codex": _codex_turns, "gemini": _gemini_turns}[agent]
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
    else:
        source = root / "gemini" / ".gemini"
        name = f"p{tag}"
        projects = source / "projects.json"
        known = orjson.loads(projects.read_bytes())["projects"] if projects.exists() else {}
        source.mkdir(parents=True, exist_ok=True)
        projects.write_bytes(orjson.dumps({"projects": {**known, cwd: name}}))
        write_jsonl(source / "tmp" / name / "chats" / f"session-2026-03-01T10-00-{sid[:8]}.jsonl", lines)
    return source
