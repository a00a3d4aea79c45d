"""Qwen Code records written the way the CLI writes them (docs/formats-qwen.md §3),
for the corpus generator, the bundled example and the reader's tests.

``Chat`` holds one chat file's lines: each method appends one record, chained by
``parentUuid`` to the one before (as the CLI's recorder does), on a clock that moves
a few seconds a record, and returns the record (its ``uuid`` for the next to name).
Nothing here reads a file or shares code with the reader.
"""

from __future__ import annotations

import hashlib
import uuid as uuidlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

START = datetime(2026, 6, 2, 9, 0, 0, tzinfo=timezone.utc)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def sanitized(cwd: str) -> str:
    """Qwen Code's ``sanitizeCwd``: every character not an ASCII letter or digit is ``-``."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


@dataclass
class Chat:
    session: str
    cwd: str
    version: str = "0.21.6"
    model: str = "qwen3-coder-plus"
    clock: datetime = START
    seed: int = 0
    lines: list[bytes] = field(default_factory=list)
    last: str | None = None
    _count: int = 0

    # --- plumbing ---------------------------------------------------------------------

    def new_uuid(self) -> str:
        self._count += 1
        base = int.from_bytes(hashlib.sha256(f"{self.session}:{self.seed}".encode()).digest()[:8], "big")
        return str(uuidlib.UUID(int=base << 64 | self._count))

    def tick(self, seconds: float = 2.0) -> str:
        self.clock += timedelta(seconds=seconds)
        return stamp(self.clock)

    def record(self, kind: str, *, parent: str | None | bool = True, **fields: Any) -> dict[str, Any]:
        rid = fields.pop("uuid", None) or self.new_uuid()
        record: dict[str, Any] = {
            "uuid": rid,
            "parentUuid": self.last if parent is True else (parent or None),
            "sessionId": self.session,
            "timestamp": fields.pop("timestamp", None) or self.tick(),
            "type": kind,
            "cwd": fields.pop("cwd", None) or self.cwd,
            "version": self.version,
        }
        record.update(fields)
        self.lines.append(orjson.dumps(record))
        self.last = rid
        return record

    def raw(self, line: bytes) -> None:
        """A line as it is (damaged, glued, truncated)."""
        self.lines.append(line)

    def write(self, path: Path, *, newline_at_end: bool = True) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        body = b"\n".join(self.lines) + (b"\n" if newline_at_end else b"")
        path.write_bytes(body)
        return path

    # --- records ----------------------------------------------------------------------------

    def prompt(self, text: str, **fields: Any) -> dict[str, Any]:
        fields.setdefault("provenance", "real_user")
        return self.record("user", message={"role": "user", "parts": [{"text": text}]}, **fields)

    def user(self, parts: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
        return self.record("user", message={"role": "user", "parts": parts}, **fields)

    def assistant(self, parts: list[dict[str, Any]], usage: dict[str, Any] | None = None,
                  **fields: Any) -> dict[str, Any]:
        fields.setdefault("model", self.model)
        if usage is not None:
            fields["usageMetadata"] = usage
        return self.record("assistant", message={"role": "model", "parts": parts}, **fields)

    def telemetry(self, event: dict[str, Any], **fields: Any) -> dict[str, Any]:
        event = {"event.timestamp": stamp(self.clock), **event}
        return self.record("system", subtype="ui_telemetry", systemPayload={"uiEvent": event}, **fields)

    def api_response(self, prompt: int, output: int, *, cached: int = 0, thoughts: int = 0,
                     total: int | None = None, agent: str = "", turn: int = 0, **extra: Any) -> dict[str, Any]:
        prompt_id = f"{self.session}#{agent}#{turn}" if agent else f"{self.session}########{turn}"
        event = {"event.name": "qwen-code.api_response", "response_id": f"chatcmpl-{self._count}",
                 "model": extra.pop("model", self.model), "status_code": 200, "duration_ms": 900,
                 "input_token_count": prompt, "output_token_count": output,
                 "cached_content_token_count": cached, "thoughts_token_count": thoughts,
                 "total_token_count": prompt + output if total is None else total,
                 "prompt_id": prompt_id, "auth_type": "openai", **extra}
        if agent:
            event.setdefault("subagent_name", agent.rpartition("-")[0] or agent)
        return self.telemetry(event)

    def tool_event(self, call_id: str | None, name: str, args: Any, *, error: str = "", agent: str = "",
                   turn: int = 0, response_id: str = "") -> dict[str, Any]:
        prompt_id = f"{self.session}#{agent}#{turn}" if agent else f"{self.session}########{turn}"
        event: dict[str, Any] = {"event.name": "qwen-code.tool_call", "function_name": name, "function_args": args,
                                 "duration_ms": 3, "status": "error" if error else "success",
                                 "success": not error, "prompt_id": prompt_id, "response_id": response_id}
        if call_id is not None:
            event["call_id"] = call_id
        if error:
            event.update(error=error, error_type="invalid_tool_params")
        return self.telemetry(event)

    def tool_result(self, call_id: str, name: str, output: str = "", *, error: str = "",
                    status: str | None = None, **fields: Any) -> dict[str, Any]:
        response = {"error": error} if error else {"output": output}
        status = status or ("error" if error else "success")
        fields.setdefault("provenance", "tool_result")
        return self.record(
            "tool_result",
            message={"role": "user", "parts": [{"functionResponse": {"id": call_id, "name": name,
                                                                     "response": response}}]},
            toolCallResult={"callId": call_id, "status": status, "resultDisplay": error or output[:80]},
            **fields)

    def system(self, subtype: str, payload: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
        return self.record("system", subtype=subtype, systemPayload=payload or {}, **fields)


def usage(prompt: int, output: int, *, cached: int = 0, thoughts: int = 0, total: int | None = None) -> dict[str, Any]:
    return {"promptTokenCount": prompt, "candidatesTokenCount": output, "thoughtsTokenCount": thoughts,
            "totalTokenCount": prompt + output if total is None else total, "cachedContentTokenCount": cached}


def call(call_id: str, name: str, args: Any) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


def thought(text: str) -> dict[str, Any]:
    return {"text": text, "thought": True}


def text(value: str) -> dict[str, Any]:
    return {"text": value}
