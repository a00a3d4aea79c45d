"""OpenCode's own tools, as a page shows their input (docs/formats-opencode.md §5).

OpenCode names its tools in lower case (``bash``, ``read``, ``write``, ``edit``,
``grep`` …), as other agents do some of theirs; its arguments are its own:
camelCase (``filePath``, ``oldString``, ``patchText``). A call is claimed only
when its name is OpenCode's and every argument key is one OpenCode's tool takes
(and the key it needs is there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..model import ToolCall
from .blocks import code_block, diff_block, markdown_block
from .formats import SUMMARY_CHARS, is_long, line_count, one_line
from .highlight import highlight_diff, highlight_patch
from .highlight_budget import WRITTEN
from .links import safe_href

# name -> (the argument keys the tool has had, the one it needs).
TOOL_KEYS: dict[str, tuple[frozenset[str], str]] = {
    "bash": (frozenset({"command", "timeout", "workdir", "description"}), "command"),
    "read": (frozenset({"filePath", "offset", "limit"}), "filePath"),
    "write": (frozenset({"filePath", "content"}), "filePath"),
    "edit": (frozenset({"filePath", "oldString", "newString", "replaceAll"}), "filePath"),
    "multiedit": (frozenset({"filePath", "edits"}), "edits"),
    "apply_patch": (frozenset({"patchText"}), "patchText"),
    "patch": (frozenset({"patchText"}), "patchText"),
    "grep": (frozenset({"pattern", "path", "include"}), "pattern"),
    "glob": (frozenset({"pattern", "path"}), "pattern"),
    "list": (frozenset({"path", "ignore"}), ""),
    "todowrite": (frozenset({"todos"}), "todos"),
    "task": (frozenset({"description", "prompt", "subagent_type", "task_id", "command"}), "prompt"),
    "webfetch": (frozenset({"url", "format", "timeout"}), "url"),
    "websearch": (frozenset({"query", "numResults", "livecrawl", "type", "contextMaxCharacters"}), "query"),
    "codesearch": (frozenset({"query", "tokensNum"}), "query"),
    "skill": (frozenset({"name"}), "name"),
    "invalid": (frozenset({"tool", "error"}), "tool"),
}
TODO_STATES = ("pending", "in_progress", "completed")


@dataclass
class Todo:
    """One item of a ``todowrite`` list (what tool_views.TodoItem is to the template)."""

    text: str
    status: str


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def is_opencode_call(name: str, args: dict[str, Any]) -> bool:
    keys = TOOL_KEYS.get(name)
    if keys is None:
        return False
    allowed, needed = keys
    return set(args) <= allowed and (not needed or needed in args)


def view_opencode(view: Any, call: ToolCall, args: dict[str, Any]) -> bool:
    """Fill ``view`` (a tool_views.ToolView) for an OpenCode call; False when the
    call is not one of the tools above with OpenCode's arguments."""
    name = call.name
    if not isinstance(name, str) or not is_opencode_call(name, args):
        return False
    path = one_line(_str(args.get("filePath")))
    if name == "bash":
        _shell(view, args)
    elif name == "read":
        view.summary, view.file = path, path
        start, limit = args.get("offset"), args.get("limit")
        if isinstance(start, int) and isinstance(limit, int):
            view.note = f"lines {start + 1}–{start + limit}"  # offset counts from 0
    elif name == "write":
        view.summary, view.file = path, path
        view.body = code_block(_str(args.get("content")), kind=WRITTEN, filename=path)
    elif name in ("edit", "multiedit"):
        _edit(view, call, args, path)
    elif name in ("apply_patch", "patch"):
        patch = _str(args.get("patchText"))
        files = [line.split(":", 1)[1].strip() for line in patch.splitlines()
                 if line.startswith(("*** Add File:", "*** Update File:", "*** Delete File:"))]
        view.summary = one_line(", ".join(files)) if files else "patch"
        view.body = diff_block(highlight_patch(patch), line_count(patch))
    elif name in ("grep", "glob", "list"):
        where = _str(args.get("path"))
        pattern = _str(args.get("pattern"))
        view.summary = one_line(f"{pattern} in {where}" if pattern and where else pattern or where or ".")
        view.note = one_line(_str(args.get("include")))
    elif name == "todowrite":
        _todos(view, args)
    elif name == "task":
        prompt = _str(args.get("prompt"))
        view.summary = one_line(_str(args.get("description")) or prompt)
        view.note = _str(args.get("subagent_type"))
        view.body = markdown_block(prompt, f"task-{call.id}") if is_long(prompt) else None
    elif name == "webfetch":
        url = _str(args.get("url"))
        view.summary, view.summary_href = one_line(url), safe_href(url)
        view.note = _str(args.get("format"))
    elif name in ("websearch", "codesearch"):
        view.summary = one_line(_str(args.get("query")))
    elif name == "skill":
        view.summary = one_line(_str(args.get("name")))
    else:  # invalid: the call OpenCode could not make (§5)
        view.summary = one_line(_str(args.get("tool")))
        view.note = one_line(_str(args.get("error")))
    return True


def _shell(view: Any, args: dict[str, Any]) -> None:
    command = _str(args.get("command"))
    view.summary = one_line(command)
    workdir = _str(args.get("workdir"))
    view.note = _str(args.get("description")) or (f"in {workdir}" if workdir else "")
    if "\n" in command.strip() or len(command) > SUMMARY_CHARS:
        view.body = code_block(command, kind=WRITTEN, language="bash")


def _edit(view: Any, call: ToolCall, args: dict[str, Any], path: str) -> None:
    """The diff OpenCode recorded (the result's ``metadata.diff``), else one made from
    the edits' own strings (a failed edit recorded none)."""
    view.summary, view.file = path, path
    if args.get("replaceAll") is True:
        view.note = "every occurrence"
    detail = call.result.detail if call.result is not None else None
    recorded = detail.get("diff") if isinstance(detail, dict) else None
    if isinstance(recorded, str) and recorded.strip():
        view.body = diff_block(highlight_patch(recorded), line_count(recorded))
        return
    edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
    parts, lines = [], 0
    for edit in edits:
        if isinstance(edit, dict):
            old, new = _str(edit.get("oldString")), _str(edit.get("newString"))
            parts.append(highlight_diff(old, new, filename=path))
            lines += line_count(old) + line_count(new)
    if not path and edits and isinstance(edits[0], dict):
        view.summary = view.file = one_line(_str(edits[0].get("filePath")))
    view.body = diff_block(Markup("").join(parts), lines)


def _todos(view: Any, args: dict[str, Any]) -> None:
    items = args.get("todos")
    view.todos = [Todo(_str(item.get("content")), status if (status := _str(item.get("status"))) in TODO_STATES
                       else "pending")
                  for item in (items if isinstance(items, list) else ()) if isinstance(item, dict)]
    done = sum(1 for todo in view.todos if todo.status == "completed")
    view.summary = f"{len(view.todos)} items, {done} done"


# §5: ``read`` gives the model the file inside ``<file>`` … ``</file>``, each line
# numbered ``00012| `` (or ``12: `` in later builds), and a closing note.
_READ_LINE = re.compile(r"^(?:\d{5}\| |\d+: )")
_READ_NOTE = re.compile(r"^\((?:End of file|File has more lines)[^)]*\)$")


def read_text(text: str) -> str | None:
    """The file's own text of an OpenCode ``read`` result, its wrapper, numbers and
    note taken off; None when the text is not in that form (shown as it is)."""
    lines = text.strip("\n").split("\n")
    if len(lines) < 2 or lines[0] not in ("<file>", "<content>") or lines[-1] not in ("</file>", "</content>"):
        return None
    body = lines[1:-1]
    while body and (not body[-1].strip() or _READ_NOTE.match(body[-1].strip())):
        body.pop()
    if not all(_READ_LINE.match(line) for line in body):
        return None
    return "\n".join(_READ_LINE.sub("", line, count=1) for line in body)


_TASK_RESULT = re.compile(r"<task_result>\n?(.*?)\n?</task_result>", re.S)


def task_text(text: str) -> str | None:
    """What a ``task`` call's child session answered (§7: inside ``<task_result>``),
    the resuming id and metadata around it left out; None when not in that form."""
    found = _TASK_RESULT.search(text)
    return found.group(1) if found else None
