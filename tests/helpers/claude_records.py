"""Hand-written Claude Code records: a test reads as the conversation it describes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


SESSION = "11111111-1111-4111-8111-111111111111"
CWD = "/home/ada/src/app"
_clock = [0]


def reset_clock() -> None:
    """Start the record times again at 10:00:01: every test does (conftest.py), so a
    test's times never depend on which tests ran before it."""
    _clock[0] = 0


def _time() -> str:
    _clock[0] += 1
    seconds = _clock[0]
    return f"2026-03-01T10:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000Z"


def base(kind: str, uuid: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SESSION,
        "cwd": CWD,
        "version": "2.1.80",
        "gitBranch": "main",
        "isSidechain": False,
        "userType": "external",
        "timestamp": _time(),
    }
    record.update(fields)
    return record


def prompt(uuid: str, content: Any, **fields: Any) -> dict[str, Any]:
    return base("user", uuid, message={"role": "user", "content": content}, **fields)


def reply(uuid: str, message_id: str, blocks: list[dict[str, Any]], *, output: int = 10, inp: int = 5,
          cache_write: int = 0, cache_read: int = 0, model: str = "claude-opus-4-6", **fields: Any) -> dict[str, Any]:
    usage = {"input_tokens": inp, "output_tokens": output, "cache_creation_input_tokens": cache_write,
             "cache_read_input_tokens": cache_read}
    message = {"id": message_id, "type": "message", "role": "assistant", "model": model,
               "content": blocks, "usage": usage}
    return base("assistant", uuid, message=message, requestId=f"req_{message_id}", **fields)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": inputs}


def tool_result(uuid: str, call_id: str, output: Any, *, error: bool = False, detail: Any = None,
                **fields: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": output}
    if error:
        block["is_error"] = True
    record = prompt(uuid, [block], **fields)
    if detail is not None:
        record["toolUseResult"] = detail
    return record


def system(uuid: str, subtype: str, content: str = "", **fields: Any) -> dict[str, Any]:
    return base("system", uuid, subtype=subtype, content=content, **fields)


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """Write records, one per line; a ``bytes`` item is written as that raw line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        for record in records:
            line = record if isinstance(record, bytes) else orjson.dumps(record)
            handle.write(line + b"\n")
    return path
