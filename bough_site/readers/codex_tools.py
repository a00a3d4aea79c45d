"""Codex CLI tool calls and their results, and the content parts both are made
of: shell commands as one string, patches as their body, Fernet ciphertext never
passed on (docs/formats-codex.md)."""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from ..model import Content, Image, Text, ToolResult
from .values import as_dict, as_str


SHELL_TOOLS = frozenset({"shell", "exec_command", "local_shell", "container.exec", "shell_command", "unified_exec"})
# Multi-agent v2 sends task text as Fernet ciphertext (openai/codex #26210).
_FERNET = re.compile(r"gAAAAA[A-Za-z0-9_\-]{40,}={0,2}")
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.M)
_ENVELOPE_FIELD = re.compile(r"^(Message Type|Task name|Sender):\s*(.*)$", re.M)
_DATA_URL = re.compile(r"data:(image/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)")


def is_fernet(text: str) -> bool:
    return bool(_FERNET.fullmatch(text.strip()))


def content_parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        return []
    return [p if isinstance(p, dict) else {"type": "text", "text": p} for p in content if isinstance(p, (dict, str))]


def data_url_image(url: Any) -> Image | None:
    match = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
    return Image(media_type=match.group(1), data=match.group(2)) if match else None




def tool_call_input(payload: dict[str, Any]) -> tuple[str, Any]:
    """``(name, input)`` for any call item. Shell calls become
    ``{"command": "<one string>", "workdir": ...}``, patches ``{"patch": body}``,
    web searches ``{"query": ...}``; other arguments are parsed JSON, or the raw
    string when they are not JSON. Fernet ciphertext is never passed on."""
    kind = as_str(payload.get("type"))
    if kind == "web_search_call":
        return "web_search", _web_search_input(as_dict(payload.get("action")))
    if kind == "local_shell_call":
        action = as_dict(payload.get("action"))
        args = {"command": action.get("command"), "workdir": action.get("working_directory")}
        return _shell_input("local_shell", args)
    if kind == "tool_search_call":
        return "tool_search", _parse_json(payload.get("arguments"))
    name = as_str(payload.get("name")) or ("custom_tool" if kind == "custom_tool_call" else "function")
    raw = payload.get("input") if kind == "custom_tool_call" else payload.get("arguments")
    if name == "apply_patch":
        return "apply_patch", {"patch": _patch_body(raw)}
    value = _parse_json(raw)
    if name in SHELL_TOOLS and isinstance(value, dict):
        return _shell_input(name, value)
    return name, _without_ciphertext(value)


def _parse_json(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw


def _patch_body(raw: Any) -> str:
    value = _parse_json(raw)
    if isinstance(value, dict):
        return as_str(value.get("input")) or as_str(value.get("patch"))
    return raw if isinstance(raw, str) else ""


def _shell_input(name: str, args: dict[str, Any]) -> tuple[str, Any]:
    command = args.get("command", args.get("cmd"))
    script = _command_string(command)
    # Older Codex ran apply_patch through the shell (["apply_patch", body] or a heredoc).
    if isinstance(command, list) and command[:1] in (["apply_patch"], ["applypatch"]) and len(command) == 2:
        return "apply_patch", {"patch": as_str(command[1])}
    if script.lstrip().startswith("apply_patch") and "*** Begin Patch" in script:
        body = script[script.index("*** Begin Patch"):]
        end = body.find("*** End Patch")
        return "apply_patch", {"patch": body[: end + len("*** End Patch")] if end >= 0 else body}
    out: dict[str, Any] = {"command": script}
    workdir = args.get("workdir") or args.get("cwd") or args.get("working_directory")
    if isinstance(workdir, str) and workdir:
        out["workdir"] = workdir
    return name, out


def _command_string(command: Any) -> str:
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
        return "" if command is None else str(command)
    if len(command) == 3 and command[1] in ("-c", "-lc", "-lic", "-ic") and command[0].rsplit("/", 1)[-1] in (
        "bash", "sh", "zsh", "dash", "fish",
    ):
        return command[2]
    return shlex.join(command)


def _web_search_input(action: dict[str, Any]) -> dict[str, Any]:
    queries = action.get("queries")
    query = as_str(action.get("query")) or (as_str(queries[0]) if isinstance(queries, list) and queries else "")
    out: dict[str, Any] = {"query": query}
    for key in ("url", "pattern"):
        if as_str(action.get(key)):
            out[key] = action[key]
    return out


def _without_ciphertext(value: Any) -> Any:
    """Multi-agent v2 tool arguments carry the task as Fernet ciphertext: shown
    as the task name instead, never as text."""
    if not isinstance(value, dict):
        return value
    task = as_str(value.get("task_name"))
    return {
        key: (f"[encrypted message for task {task}]" if task else "[encrypted message]")
        if isinstance(item, str) and is_fernet(item) else item
        for key, item in value.items()
    }


def tool_result(payload: dict[str, Any], stamp: str | None) -> ToolResult:
    """A call's output: a string, a list of content items, or (old exec tools)
    JSON inside the string with ``metadata.exit_code``. A non-zero exit code or
    a reported failure makes it an error."""
    output = payload.get("output")
    if payload.get("type") == "tool_search_output":
        tools = payload.get("tools")
        names = [as_str(t.get("name")) for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
        return ToolResult([Text(", ".join(n for n in names if n) or "(no tools)")], False, stamp)
    detail: Any = None
    content: list[Content] = []
    exit_code: int | None = None
    parsed = _parse_json(output) if isinstance(output, str) and output.lstrip().startswith("{") else None
    if isinstance(parsed, dict) and "output" in parsed:
        detail = parsed.get("metadata")
        content.append(Text(as_str(parsed.get("output"))))
        exit_code = exit_code_of(as_dict(detail).get("exit_code"))
    elif isinstance(output, str):
        content.append(Text(output))
    else:
        for part in content_parts(output):
            image = data_url_image(part.get("image_url")) if part.get("type") == "input_image" else None
            if image:
                content.append(image)
            elif as_str(part.get("text")):
                content.append(Text(part["text"]))
    if exit_code is None:
        exit_code = _exit_code_in(content)
    failed = payload.get("success") is False or payload.get("status") in ("failed", "error")
    return ToolResult(content, failed or bool(exit_code), stamp, detail)


def exit_code_of(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _exit_code_in(content: list[Content]) -> int | None:
    """The exit code Codex writes at the head of a shell output (``Exit code: N``,
    or ``Process exited with code N`` after the chunk and wall-time lines).
    Only the head is read: a log further down may mention other exit codes."""
    for part in content:
        if isinstance(part, Text):
            match = _EXIT_CODE.search("\n".join(part.text[:2000].split("\n", 5)[:5]))
            if match:
                return int(match.group(1))
            parsed = _parse_json(part.text) if part.text.lstrip().startswith("{") else None
            if isinstance(parsed, dict) and exit_code_of(parsed.get("exit_code")) is not None:
                return parsed["exit_code"]
    return None


def inter_agent_text(parts: list[dict[str, Any]], payload: dict[str, Any]) -> str:
    """An inter-agent message: its plaintext envelope, or, when the payload is
    ciphertext, the envelope's task name instead (never the ciphertext)."""
    encrypted = False
    texts = []
    for part in parts:
        text = as_str(part.get("text"))
        if part.get("type") == "encrypted_content" or is_fernet(text):
            encrypted = True
        elif text.strip():
            texts.append(text)
    text = "\n".join(texts).strip()
    envelope = dict(_ENVELOPE_FIELD.findall(text))
    head, sep, body = text.partition("Payload:")
    if sep and is_fernet(body):
        encrypted, text = True, head.strip()
    if not encrypted:
        return text or "(empty inter-agent message)"
    task = envelope.get("Task name") or as_str(payload.get("recipient")) or "a task"
    kind = envelope.get("Message Type") or "Message"
    sender = envelope.get("Sender") or as_str(payload.get("author"))
    return f"{kind} for {task}" + (f" from {sender}" if sender else "") + " (payload encrypted, not shown)"
