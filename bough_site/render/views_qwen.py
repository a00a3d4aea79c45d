"""Qwen Code's own tools, as a page shows their input (docs/formats-qwen.md §5).

Qwen Code forked Gemini CLI and kept most of its tools under their names and
arguments (``run_shell_command``, ``read_file``, ``write_file``, ``glob``,
``grep_search``, ``list_directory``): Gemini CLI's view (tool_views.py) reads those.
This module claims the tools Qwen Code added or renamed, and only when the
arguments are Qwen's as well (names like ``edit`` and ``task`` are other agents'
too): ``edit`` (Gemini's ``replace``) with ``file_path``/``old_string``/``new_string``,
``todo_write``, the sub-agent call ``agent``/``task``, ``web_search``,
``exit_plan_mode`` and ``skill``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import ToolCall
from .blocks import diff_block, markdown_block
from .formats import is_long, line_count, one_line
from .highlight import highlight_diff, highlight_patch

# The argument keys each tool has had (0.5 to 0.24); a call with any other key is not Qwen's.
EDIT_KEYS = frozenset({"file_path", "old_string", "new_string", "replace_all", "expected_replacements"})
TODO_KEYS = frozenset({"todos"})
AGENT_KEYS = frozenset({"description", "prompt", "subagent_type", "run_in_background"})
SEARCH_KEYS = frozenset({"query", "provider"})
PLAN_KEYS = frozenset({"plan"})
SKILL_KEYS = frozenset({"skill", "args"})
TODO_STATES = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _only(args: dict[str, Any], keys: frozenset[str], needed: str) -> bool:
    return needed in args and set(args) <= keys


def view_qwen(view: Any, call: ToolCall, args: dict[str, Any]) -> bool:
    """Fill ``view`` (a tool_views.ToolView) for a Qwen Code call; False when the
    call is not one of the tools above with Qwen's arguments."""
    name = call.name
    if name == "edit" and _only(args, EDIT_KEYS, "file_path"):
        _edit(view, call, args)
    elif name == "todo_write" and _only(args, TODO_KEYS, "todos"):
        _todo(view, args)
    elif name in ("agent", "task") and _only(args, AGENT_KEYS, "prompt"):
        prompt = _str(args.get("prompt"))
        view.summary = one_line(_str(args.get("description")) or prompt)
        view.note = _str(args.get("subagent_type"))
        view.body = markdown_block(prompt, f"task-{call.id}") if is_long(prompt) else None
    elif name == "web_search" and _only(args, SEARCH_KEYS, "query"):
        view.summary = one_line(_str(args.get("query")))
    elif name == "exit_plan_mode" and _only(args, PLAN_KEYS, "plan"):
        plan = _str(args.get("plan"))
        view.summary = one_line(plan)
        view.body = markdown_block(plan, f"plan-{call.id}") if is_long(plan) else None
    elif name == "skill" and _only(args, SKILL_KEYS, "skill"):
        view.summary = one_line(_str(args.get("skill")))
        view.note = one_line(_str(args.get("args")))
    else:
        return False
    return True


def _edit(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    """The diff Qwen Code recorded (``resultDisplay.fileDiff``), else one made from
    the edit's own strings (a failed or cancelled edit recorded none)."""
    path = one_line(_str(args.get("file_path")))
    view.summary, view.file = path, path
    if args.get("replace_all") is True:
        view.note = "every occurrence"
    detail = call.result.detail if call.result is not None else None
    recorded = detail.get("fileDiff") if isinstance(detail, dict) else None
    if isinstance(recorded, str) and recorded.strip():
        view.body = diff_block(highlight_patch(recorded), line_count(recorded))
        return
    old, new = _str(args.get("old_string")), _str(args.get("new_string"))
    view.body = diff_block(highlight_diff(old, new, filename=path), line_count(old) + line_count(new))


@dataclass
class Todo:
    """One item of a checklist, as blocks/todos.html reads it (the shape of
    tool_views.TodoItem, which this module cannot import: tool_views imports it)."""

    text: str
    status: str


def _todo(view: Any, args: dict[str, Any]) -> None:
    items = args.get("todos") if isinstance(args.get("todos"), list) else []
    view.todos = [Todo(_str(item.get("content")), TODO_STATES.get(_str(item.get("status")), "pending"))
                  for item in items if isinstance(item, dict)]
    done = sum(1 for todo in view.todos if todo.status == "completed")
    view.summary = f"{len(view.todos)} items, {done} done"
