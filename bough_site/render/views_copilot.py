"""What a page shows of a Copilot CLI tool call's input (docs/formats-copilot.md §5).

``view_copilot`` is one link of the chain in ``tool_views.tool_view``: it claims a
call only when its name AND its argument keys are Copilot CLI's (``bash``,
``view``, ``edit`` … are names other agents use too). It fills the ToolView it is
given; it does not import tool_views (which imports it: no import cycle), so the
few lines a shell command's view takes are its own.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..model import ToolCall
from .blocks import code_block, diff_block, markdown_block
from .formats import SUMMARY_CHARS, is_long, line_count, one_line
from .highlight import highlight_diff, highlight_patch
from .highlight_budget import WRITTEN


class Todo(NamedTuple):
    """One line of ``update_todo``'s checklist, as blocks/todos.html shows it."""

    text: str
    status: str  # "pending" | "in_progress" | "completed"


# The argument keys that tell each Copilot CLI tool from another agent's of the same name.
_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # name: (keys it must have one of, keys it may have)
    "bash": (frozenset({"command"}), frozenset({"description", "sessionId", "async", "timeout", "mode",
                                                  "initial_wait", "detach"})),
    "view": (frozenset({"path"}), frozenset({"view_range", "forceReadLargeFiles"})),
    "create": (frozenset({"path"}), frozenset({"file_text"})),
    "edit": (frozenset({"path"}), frozenset({"old_str", "new_str"})),
    "str_replace_editor": (frozenset({"command"}), frozenset({"path", "old_str", "new_str", "file_text",
                                                              "view_range", "insert_line"})),
    "grep": (frozenset({"pattern"}), frozenset({"path", "glob", "output_mode", "type", "head_limit", "-i", "-n",
                                                "-A", "-B", "-C", "multiline"})),
    "glob": (frozenset({"pattern"}), frozenset({"path"})),
    "read_bash": (frozenset({"sessionId"}), frozenset({"delay"})),
    "write_bash": (frozenset({"sessionId"}), frozenset({"input", "delay"})),
    "stop_bash": (frozenset({"sessionId"}), frozenset()),
    "web_fetch": (frozenset({"url"}), frozenset({"max_length", "raw", "start_index"})),
    "update_todo": (frozenset({"todos"}), frozenset()),
    "report_intent": (frozenset({"intent"}), frozenset()),
    "task_complete": (frozenset({"summary"}), frozenset()),
    "task": (frozenset({"prompt", "description"}), frozenset({"agent_type", "name", "mode", "model"})),
}
_CHECK = re.compile(r"^\s*[-*]\s*\[([ xX~-])\]\s*(.+)$")
# ``view`` numbers a file's lines ``12. code`` (docs/formats-copilot.md §5).
_NUMBERED = re.compile(r"^\d+\. ?", re.M)


def view_copilot(view: Any, call: ToolCall, args: dict[str, Any]) -> bool:
    """Copilot CLI's tools; False when the name or the argument keys are not theirs."""
    keys = _KEYS.get(call.name)
    if keys is None or not args or not (keys[0] & args.keys()) or not args.keys() <= keys[0] | keys[1]:
        return False
    _VIEWS[call.name](view, call, args)
    return True


def viewed_text(text: str) -> str | None:
    """A ``view`` of a file as the file's text: every line numbered ``N. ``, the numbers
    taken off; None when it is not that (a directory's listing, a message)."""
    lines = text.rstrip("\n").split("\n")
    if not lines or not all(_NUMBERED.match(line) for line in lines):
        return None
    return _NUMBERED.sub("", text)


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _shell(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    command = _str(args.get("command"))
    view.summary = one_line(command)
    view.note = _str(args.get("description"))
    if "\n" in command.strip() or len(command) > SUMMARY_CHARS:
        view.body = code_block(command, kind=WRITTEN, language="bash")


def _session(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    """read_bash, write_bash, stop_bash: a running shell session by its id."""
    typed = _str(args.get("input"))
    view.summary = one_line(typed) if typed else f"session {_str(args.get('sessionId')) or '?'}"
    view.note = f"session {_str(args.get('sessionId'))}" if typed else ""


def _read(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    path = one_line(_str(args.get("path")))
    view.summary, view.file = path, path
    lines = args.get("view_range")
    if isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) for n in lines):
        view.note = f"lines {lines[0]}–{lines[1]}" if lines[1] != -1 else f"from line {lines[0]}"


def _recorded_diff(call: ToolCall) -> str:
    """The diff Copilot CLI recorded for an edit (``result.detailedContent``), if it is one."""
    detail = call.result.detail if call.result is not None else None
    text = _str(detail.get("detailedContent")) if isinstance(detail, dict) else ""
    return text if "\n@@ " in text or text.lstrip().startswith(("diff --git", "--- ")) else ""


def _write(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    path = one_line(_str(args.get("path")))
    view.summary, view.file = path, path
    content = _str(args.get("file_text"))
    view.body = code_block(content, kind=WRITTEN, filename=path)


def _edit(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    path = one_line(_str(args.get("path")))
    view.summary, view.file = path, path
    recorded = _recorded_diff(call)
    if recorded:
        view.body = diff_block(highlight_patch(recorded), line_count(recorded))
        return
    old, new = _str(args.get("old_str")), _str(args.get("new_str"))
    view.body = diff_block(highlight_diff(old, new, filename=path), line_count(old) + line_count(new))


def _editor(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    """The 2025 ``str_replace_editor``: one tool, its ``command`` says what it does."""
    command = _str(args.get("command"))
    if command == "view":
        _read(view, call, args)
    elif command == "create":
        _write(view, call, args)
    elif command in ("str_replace", "insert"):
        _edit(view, call, {**args, "old_str": _str(args.get("old_str")), "new_str": _str(args.get("new_str"))})
    else:
        view.summary = one_line(_str(args.get("path")))
    view.note = command


def _search(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    where = _str(args.get("path"))
    view.summary = one_line(_str(args.get("pattern")) + (f" in {where}" if where else ""))
    options = [f"{k}={v}" for k, v in args.items() if k not in ("pattern", "path") and isinstance(v, str | int)]
    view.note = one_line(", ".join(options))


def _fetch(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    view.summary = one_line(_str(args.get("url")))


def _todos(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    """update_todo: a Markdown checklist (``- [x] done``); any other text as Markdown."""
    text = _str(args.get("todos"))
    status = {" ": "pending", "~": "in_progress", "-": "in_progress", "x": "completed", "X": "completed"}
    todos = [Todo(m.group(2).strip(), status[m.group(1)]) for line in text.splitlines() if (m := _CHECK.match(line))]
    if todos:
        view.todos = todos
        done = sum(1 for todo in todos if todo.status == "completed")
        view.summary = f"{len(todos)} items, {done} done"
    elif text:
        view.body = markdown_block(text, f"todo-{call.id}")


def _note(key: str):
    def show(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
        text = _str(args.get(key))
        view.summary = one_line(text)
        if is_long(text):
            view.body = markdown_block(text, f"{call.name}-{call.id}")
    return show


def _task(view: Any, call: ToolCall, args: dict[str, Any]) -> None:
    prompt = _str(args.get("prompt"))
    view.summary = one_line(_str(args.get("description")) or prompt)
    view.note = _str(args.get("agent_type")) or _str(args.get("name"))
    view.body = markdown_block(prompt, f"task-{call.id}") if prompt else None


_VIEWS = {
    "bash": _shell, "read_bash": _session, "write_bash": _session, "stop_bash": _session,
    "view": _read, "create": _write, "edit": _edit, "str_replace_editor": _editor,
    "grep": _search, "glob": _search, "web_fetch": _fetch, "update_todo": _todos,
    "report_intent": _note("intent"), "task_complete": _note("summary"), "task": _task,
}
