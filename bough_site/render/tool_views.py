"""What a page shows of a tool call before its result, per agent: the one-line
summary of its key input, a note, and the input itself (``state.tool`` in the
templates).  Claude Code's, Codex CLI's and Gemini CLI's tools each have a
reader of their own input; any other tool shows its key input and its JSON."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..model import ToolCall
from .blocks import Block, code_block, diff_block, markdown_block
from .formats import SUMMARY_CHARS, is_long, line_count, one_line
from .highlight import highlight_diff, highlight_hunks, highlight_patch
from .highlight_budget import WRITTEN
from .links import safe_href
from .views_opencode import view_opencode
from .views_copilot import view_copilot
from .views_qwen import view_qwen


TODO_STATUSES = ("pending", "in_progress", "completed")


@dataclass
class TodoItem:
    text: str
    status: str  # one of TODO_STATUSES


@dataclass
class ToolView:
    """What a template shows for a tool call, before its result."""

    name: str  # the tool's name as written (escaped by the template)
    summary: str = ""  # the key input on one line: the command, the path...
    summary_href: str | None = None  # a link for the summary (WebFetch URL), via safe_href
    note: str = ""  # a secondary line (Bash description, sub-agent type)
    body: Block | None = None  # the input: code, diff, Markdown prompt
    todos: list[TodoItem] | None = None  # TodoWrite / update_plan checklist
    json: Block | None = None  # any other input, as JSON
    file: str | None = None  # the file the tool works on, for the result's lexer


def _args(call: ToolCall) -> dict[str, Any]:
    return call.input if isinstance(call.input, dict) else {}


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def shell_command(value: object) -> str:
    """A command as a person would type it: ``["bash", "-lc", "x"]`` → ``x``."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not all(isinstance(part, str) for part in value):
        return ""
    if len(value) == 3 and value[1] in ("-c", "-lc", "-lic", "-ic", "-Command", "/c"):
        return value[2]
    return shlex.join(value)


_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\+\+\+ (?:b/)?(.+)$", re.MULTILINE)


def patch_files(patch: str) -> list[str]:
    """The files an apply_patch body or unified diff touches, in order, once each."""
    seen: dict[str, None] = {}
    for match in _PATCH_FILE.finditer(patch):
        name = (match.group(1) or match.group(2) or "").strip()
        if name and name != "/dev/null":
            seen.setdefault(name, None)
    return list(seen)


def _json_block(value: object) -> Block | None:
    if value in (None, {}, [], ""):
        return None
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return code_block(text, kind=WRITTEN, language="json")


def _todos(items: object, text_key: str) -> list[TodoItem]:
    todos = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        status = _str(item.get("status"))
        todos.append(TodoItem(_str(item.get(text_key)), status if status in TODO_STATUSES else "pending"))
    return todos


def _todo_summary(todos: list[TodoItem]) -> str:
    done = sum(1 for todo in todos if todo.status == "completed")
    return f"{len(todos)} items, {done} done"


def _view_bash(view: ToolView, args: dict[str, Any], command: str) -> None:
    view.summary = one_line(command)
    workdir = _str(args.get("workdir"))
    view.note = _str(args.get("description")) or (f"in {workdir}" if workdir else "")
    if "\n" in command.strip() or len(command) > SUMMARY_CHARS:
        view.body = code_block(command, kind=WRITTEN, language="bash")


def _view_patch(view: ToolView, patch: str) -> None:
    files = patch_files(patch)
    view.summary = one_line(", ".join(files)) if files else "patch"
    lines = line_count(patch)
    view.body = diff_block(highlight_patch(patch), lines)


def _edit_diff(call: ToolCall, args: dict[str, Any], path: str) -> Block:
    """Edit/MultiEdit: the recorded structuredPatch if any, else a diff we compute."""
    detail = call.result.detail if call.result is not None else None
    hunks = detail.get("structuredPatch") if isinstance(detail, dict) else None
    if isinstance(hunks, list) and hunks:
        lines = sum(len(h.get("lines") or ()) + 1 for h in hunks if isinstance(h, dict))
        return diff_block(highlight_hunks(hunks), lines)
    edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
    parts, lines = [], 0
    for edit in edits:
        if isinstance(edit, dict):
            old, new = _str(edit.get("old_string")), _str(edit.get("new_string"))
            parts.append(highlight_diff(old, new, filename=path))
            lines += line_count(old) + line_count(new)
    return diff_block(Markup("").join(parts), lines)


def _view_claude(view: ToolView, call: ToolCall, args: dict[str, Any]) -> bool:
    """Claude Code's tools; False when the name is not one of them."""
    name = call.name
    path = one_line(_str(args.get("file_path")) or _str(args.get("notebook_path")))
    if name == "Bash":
        _view_bash(view, args, _str(args.get("command")))
    elif name == "Read":
        view.summary, view.file = path, path
        start, limit = args.get("offset"), args.get("limit")
        if isinstance(start, int) and isinstance(limit, int):
            view.note = f"lines {start}–{start + limit - 1}"
    elif name == "Write":
        view.summary, view.file = path, path
        view.body = code_block(_str(args.get("content")), kind=WRITTEN, filename=path)
    elif name in ("Edit", "MultiEdit"):
        view.summary, view.file = path, path
        view.body = _edit_diff(call, args, path)
    elif name == "TodoWrite":
        view.todos = _todos(args.get("todos"), "content")
        view.summary = _todo_summary(view.todos)
    elif name in ("Task", "Agent"):
        view.summary = one_line(_str(args.get("description")))
        view.note = _str(args.get("subagent_type"))
        prompt = _str(args.get("prompt"))
        view.body = markdown_block(prompt, f"task-{call.id}") if prompt else None
    elif name == "ExitPlanMode":
        plan = _str(args.get("plan"))
        view.summary = one_line(plan)
        view.body = markdown_block(plan, f"plan-{call.id}") if plan else None
    elif name in ("Glob", "Grep"):
        where = _str(args.get("path"))
        view.summary = one_line(_str(args.get("pattern")) + (f" in {where}" if where else ""))
        # Grep's options (glob filter, output mode, -i ...) change what it found.
        options = [f"{k}={v}" for k, v in args.items() if k not in ("pattern", "path") and isinstance(v, str | int)]
        view.note = one_line(", ".join(options))
    elif name == "WebFetch":
        url = _str(args.get("url"))
        view.summary, view.summary_href = one_line(url), safe_href(url)
        view.note = one_line(_str(args.get("prompt")))
    elif name == "WebSearch":
        view.summary = one_line(_str(args.get("query")))
    elif name == "NotebookEdit":
        view.summary = path
        view.body = code_block(_str(args.get("new_source")), kind=WRITTEN)
    else:
        return False
    return True


def _view_codex(view: ToolView, call: ToolCall, args: dict[str, Any]) -> bool:
    """Codex CLI's tools; False when the name is not one of them."""
    name = call.name
    if name in ("shell", "local_shell", "local_shell_call", "container.exec", "shell_command"):
        command = args.get("command")
        if isinstance(command, list) and command[:1] == ["apply_patch"] and len(command) > 1:
            _view_patch(view, _str(command[1]))  # Codex often runs apply_patch through shell
        else:
            _view_bash(view, args, shell_command(command))
    elif name in ("exec_command", "unified_exec"):
        _view_bash(view, args, shell_command(args.get("cmd") or args.get("command")))
    elif name == "apply_patch":
        patch = call.input if isinstance(call.input, str) else _str(args.get("input") or args.get("patch"))
        _view_patch(view, patch)
    elif name == "update_plan":
        view.todos = _todos(args.get("plan"), "step")
        view.summary = _todo_summary(view.todos)
        view.note = one_line(_str(args.get("explanation")))
    elif name in ("web_search", "web_search_call"):
        action = args.get("action") if isinstance(args.get("action"), dict) else {}
        view.summary = one_line(_str(args.get("query")) or _str(action.get("query")))
    elif name == "view_image":
        view.summary = one_line(_str(args.get("path")))
    elif name == "write_stdin":
        # Keys typed into a running exec_command session; none only waits for its output.
        chars = _str(args.get("chars"))
        view.summary = one_line(json.dumps(chars, ensure_ascii=False)) if chars else "(waits for output)"
        session = args.get("session_id")
        view.note = f"session {session}" if isinstance(session, int | str) and not isinstance(session, bool) else ""
    else:
        return False
    return True


def _view_gemini(view: ToolView, call: ToolCall, args: dict[str, Any]) -> bool:
    """Gemini CLI's tools (docs/formats-gemini.md §3, §8); False when the name is not one of them."""
    name = call.name
    path = one_line(_str(args.get("file_path")) or _str(args.get("absolute_path")))
    where = _str(args.get("dir_path")) or _str(args.get("path")) or _str(args.get("directory"))
    if name == "run_shell_command":
        _view_bash(view, args, _str(args.get("command")))
        if not view.note and where:
            view.note = f"in {where}"
    elif name == "read_file":
        view.summary, view.file = path, path
        start, end = args.get("start_line", args.get("offset")), args.get("end_line")
        if isinstance(start, int) and isinstance(end, int):
            view.note = f"lines {start}–{end}"
    elif name in ("write_file", "replace"):
        view.summary, view.file = path, path
        view.note = one_line(_str(args.get("instruction")))
        view.body = _gemini_diff(call, args, path)
    elif name in ("glob", "grep_search", "search_file_content"):
        view.summary = one_line(_str(args.get("pattern")) + (f" in {where}" if where else ""))
        view.note = one_line(_str(args.get("include")))
    elif name in ("list_directory", "read_many_files"):
        paths = args.get("paths") if isinstance(args.get("paths"), list) else []
        view.summary = one_line(where or ", ".join(p for p in paths if isinstance(p, str)))
    elif name in ("google_web_search", "web_fetch", "save_memory"):
        view.summary = one_line(_str(args.get("query")) or _str(args.get("prompt")) or _str(args.get("fact")))
    elif name == "write_todos":
        view.todos = _todos(args.get("todos"), "description")
        view.summary = _todo_summary(view.todos)
    elif name == "update_topic":
        view.summary = one_line(_str(args.get("title")) or _str(args.get("strategic_intent")))
        view.note = _str(args.get("summary")) or (_str(args.get("strategic_intent")) if args.get("title") else "")
    elif name in ("invoke_agent", "delegate_to_agent", "codebase_investigator"):
        task = next((_str(args.get(k)) for k in ("prompt", "objective", "task", "query") if _str(args.get(k))), "")
        view.summary = one_line(_str(args.get("description")) or task)
        view.note = _str(args.get("agent_name"))
        view.body = markdown_block(task, f"task-{call.id}") if is_long(task) else None
    else:
        return False
    return True


def _gemini_diff(call: ToolCall, args: dict[str, Any], path: str) -> Block:
    """write_file/replace: the diff Gemini CLI recorded (``resultDisplay.fileDiff``),
    else the edit's own strings (a cancelled or failed call recorded none)."""
    detail = call.result.detail if call.result is not None else None
    recorded = detail.get("fileDiff") if isinstance(detail, dict) else None
    if isinstance(recorded, str) and recorded.strip():
        return diff_block(highlight_patch(recorded), line_count(recorded))
    if call.name == "write_file":
        return code_block(_str(args.get("content")), kind=WRITTEN, filename=path)
    old, new = _str(args.get("old_string")), _str(args.get("new_string"))
    return diff_block(highlight_diff(old, new, filename=path), line_count(old) + line_count(new))


_SUMMARY_KEYS = ("command", "cmd", "file_path", "path", "pattern", "query", "url", "description", "prompt")


def tool_view(call: ToolCall) -> ToolView:
    """The summary line and input display for any tool call."""
    view = ToolView(name=call.name if isinstance(call.name, str) else "tool")
    args = _args(call)
    # OpenCode's before Codex's: both have an apply_patch, told apart by OpenCode's ``patchText``.
    if (_view_claude(view, call, args) or view_opencode(view, call, args) or _view_codex(view, call, args)
            or view_copilot(view, call, args)
            or _view_gemini(view, call, args) or view_qwen(view, call, args)):
        if not view.summary and not view.body and isinstance(call.input, str) and call.input:
            # Arguments that were not JSON (or were redacted whole): show them as written.
            view.summary = one_line(call.input)
            view.body = code_block(call.input, kind=WRITTEN) if is_long(call.input) else None
        return view
    # An unknown tool (MCP and the rest): its key input on one line, all of it as JSON.
    key = next((k for k in _SUMMARY_KEYS if isinstance(args.get(k), str) and args[k]), None)
    view.summary = one_line(args[key]) if key else ""
    view.json = _json_block(call.input) if not isinstance(call.input, str) else code_block(call.input, kind=WRITTEN)
    return view
