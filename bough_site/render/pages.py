"""Pages: what each template gets, and the Renderer the build calls.

The templates (themes/default/templates) write every piece of markup; this
module hands them plain values and the Markup our own renderers produced
(Markdown, Pygments, diffs, charts).  No transcript string becomes markup here
except through those renderers or Jinja's autoescape.

Index and project pages read only session *summaries* (never ``timeline``):
incremental builds render them without loading timelines.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from .. import __version__, urls
from ..config import DEFAULT_HIGHLIGHT_LIMIT
from ..readers.claude import strip_line_numbers
from ..model import (
    REASONING_KEY,
    SOURCE_LABELS,
    UNKNOWN_TOKENS_KEY,
    Image,
    Marker,
    Project,
    Prompt,
    Session,
    Site,
    SubagentRun,
    TimelineItem,
    ToolCall,
    ToolResult,
    Usage,
)
from . import charts
from .built import NO_WORK, project_work
from .env import default_theme_dir, is_default_template, make_env
from .timeline import Timeline, timeline
from .blockstore import BlockStore
from .highlight import (
    OUTPUT,
    WRITTEN,
    code_html,
    highlight,
    highlight_body,
    highlight_diff,
    highlight_hunks,
    highlight_patch,
    highlighting,
    stylesheet,
)
from .images import image_filename, sniff_image
from .links import safe_href
from .markdown import plain_line, render_markdown
from .times import parse_time
from .tool_results import (
    Link,
    cited_sources,
    duration_fact,
    found_files,
    search_links,
    web_fetch_facts,
)

# A session page is split when its HTML would pass this many bytes.
PAGE_LIMIT = 5_000_000

# Results and inputs longer than this are collapsed, the first lines left visible.
COLLAPSE_LINES = 14
COLLAPSE_CHARS = 2_400
PREVIEW_LINES = 6
# Diffs show whole up to this many lines, then collapse (no preview: a diff's
# first lines say little without the rest).
DIFF_COLLAPSE_LINES = 80
# One-line summaries of a tool's key input are cut here.
SUMMARY_CHARS = 160
# JSON parsed for display only up to this size (a guard, not a limit on output).
JSON_SNIFF_CHARS = 1_000_000

# Markup: our own constant, so its quotes are written as typed, not as &#39;.
CSP = Markup("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:")
# Pagefind runs WebAssembly; only pages built with search need to allow it.
CSP_SEARCH = Markup("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:")

MARKER_TYPES = ("compaction", "interruption", "error", "warning", "notice", "meta", "inherited")
MARKER_LABELS = {
    "compaction": "Context compacted",
    "interruption": "Interrupted",
    "error": "Error",
    "warning": "Warning",
    "notice": "Notice",
    "meta": "Note",
    "inherited": "Inherited history",
}
TODO_STATUSES = ("pending", "in_progress", "completed")

# (stats key, label) in the order pages show them.
STAT_LABELS: tuple[tuple[str, str], ...] = (
    ("prompts", "prompts"),
    ("replies", "replies"),
    ("commands", "commands"),
    ("tool_calls", "tool calls"),
    ("tool_errors", "tool errors"),
    ("subagents", "sub-agents"),
    ("commits", "commits"),
    ("files_changed", "files changed"),
    ("input_tokens", "input tokens"),
    ("output_tokens", "output tokens"),
    ("cache_creation_input_tokens", "cache writes"),
    ("cache_read_input_tokens", "cache reads"),
    (REASONING_KEY, "reasoning tokens"),
    (UNKNOWN_TOKENS_KEY, "replies of unknown tokens"),
    ("records", "records"),
    ("lines", "lines read"),
    ("skipped_lines", "lines skipped"),
)
TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")

# Asset kinds that get a content hash in their names (browsers cache them hard).
HASHED_SUFFIXES = (".css", ".js")
# Also hashed: only a page's <head> links these, never a stylesheet's url().
HASHED_NAMES = ("favicon.svg",)
GENERATED_CODE_CSS = "highlight.css"
SEARCH_SCRIPT = "search.js"


# --- small formatting helpers (template globals) -------------------------------


@dataclass(frozen=True)
class When:
    """A moment in UTC: ``iso`` for the ``datetime`` attribute, texts to show."""

    iso: str
    text: str  # 2025-01-02 14:03 UTC
    date: str  # 2025-01-02
    clock: str  # 14:03:22
    moment: datetime


def when(value: object) -> When | None:
    """``value`` (an ISO-8601 string) as a :class:`When`, or None."""
    if not isinstance(value, str):
        return None
    return _when(value)


@lru_cache(maxsize=4096)
def _when(value: str) -> When | None:
    # Every item of a page shows its time: one parse per timestamp, and the
    # texts made from the fields (strftime is 5x slower, and locale-dependent).
    moment = parse_time(value)
    if moment is None:
        return None
    date = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    minute = f"{moment.hour:02d}:{moment.minute:02d}"
    clock = f"{minute}:{moment.second:02d}"
    return When(iso=f"{date}T{clock}Z", text=f"{date} {minute} UTC", date=date, clock=clock, moment=moment)


def duration(start: object, end: object) -> str:
    """``1 h 05 min``, ``4 min``, ``35 s``; empty when unknown."""
    a, b = parse_time(start), parse_time(end)
    if a is None or b is None or b < a:
        return ""
    seconds = int((b - a).total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes:02d} min"
    return f"{hours // 24} d {hours % 24} h"


def num(value: object) -> str:
    """``12,345``; anything not an int shown as 0 (stats are ints by contract)."""
    return f"{value:,}" if isinstance(value, int) else "0"


def compact(value: object) -> str:
    """``1.2M``, ``34.5k``, ``999``: token counts at a glance."""
    if not isinstance(value, int):
        return "0"
    for size, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if abs(value) >= size:
            text = f"{value / size:.1f}".removesuffix(".0")
            return text + suffix
    return str(value)


def tokens(stats: dict[str, int]) -> int:
    """All four token kinds added up (what a bar in the token chart shows)."""
    return sum(stats.get(key, 0) for key in TOKEN_KEYS)


def source_label(source: str) -> str:
    return SOURCE_LABELS.get(source, source)


def one_line(text: object, limit: int = SUMMARY_CHARS) -> str:
    """The first non-blank line of ``text``, cut to ``limit`` characters."""
    if not isinstance(text, str):
        return ""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def excerpt(text: object, limit: int = SUMMARY_CHARS) -> str:
    """The first non-blank line of Markdown ``text`` as a reader sees it (no ``**``,
    no ``#``), cut to ``limit``: the one line a folded thinking block shows."""
    return one_line(plain_line(one_line(text, 4 * limit)), limit)


class ReplyTokens(NamedTuple):
    """A reply's tokens as its header shows them, quietly (issue #36 point 9). A tuple:
    one is made for every reply of every page."""

    total: int  # the four kinds added up: the <data> value
    text: str  # "in 5 · out 120 · cache 13.5k"
    title: str  # the exact counts
    unknown: bool = False


UNKNOWN_REPLY_TOKENS = ReplyTokens(
    0, "tokens unknown",
    "A token count in this reply's record was not a number: its tokens are unknown, and counted in no total",
    unknown=True,
)


def _few(n: int) -> str:
    """compact(n), without its loop for the small counts most replies have."""
    return str(n) if 0 <= n < 1000 else compact(n)


def reply_tokens(usage: object) -> ReplyTokens | None:
    """What a reply's header says of its tokens: input, output and cache (reads and
    writes together) in short, exact counts in the title; "tokens unknown" for a reply
    whose record held a count that is not one (docs/stats.md, "Counts that are not
    counts"); None when nothing was recorded (all zero, or no usage at all)."""
    if not isinstance(usage, Usage):
        return None
    if usage.unknown:
        return UNKNOWN_REPLY_TOKENS
    read, write = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    total = usage.input_tokens + usage.output_tokens + read + write
    if not total:
        return None
    text = f"in {_few(usage.input_tokens)} · out {_few(usage.output_tokens)}"
    title = f"Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out"
    if usage.reasoning_output_tokens:
        title += f" ({usage.reasoning_output_tokens:,} of them reasoning)"
    if read or write:
        text += f" · cache {_few(read + write)}"
    # Only the kinds there are: a page has a header per reply, and Codex writes no cache writes.
    if read:
        title += f", {read:,} cache read"
    if write:
        title += f", {write:,} cache write"
    return ReplyTokens(total, text, title)


def line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


# CSI and OSC escape sequences: terminal colours and titles in command output.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    """Terminal escape codes removed: they are noise on a page."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def is_long(text: object) -> bool:
    return isinstance(text, str) and ("\n" in text.strip() or len(text) > SUMMARY_CHARS)


# --- collapsible blocks ------------------------------------------------------------


@dataclass
class Block:
    """A block of rendered content, with a preview when it is long.

    ``full`` is the whole block; ``preview`` (its first lines, rendered the same
    way) is shown above a ``<details>`` holding ``full`` when the block is long.
    """

    full: Markup
    lines: int = 0
    preview: Markup | None = None
    kind: str = "code"  # "code" | "diff" | "markdown": a class for the theme

    @property
    def collapsed(self) -> bool:
        return self.preview is not None


def code_block(text: str, *, kind: str, filename: str | None = None, language: str | None = None) -> Block:
    """Highlighted text, collapsed with its first lines visible when long.

    ``kind`` says who wrote it (``WRITTEN`` or ``OUTPUT``: see highlight.Budget).
    The preview is the first lines of the highlighted block itself (the
    formatter's HTML splits into lines at "\\n"), not a second lexing.
    """
    lines = line_count(text)
    body = highlight_body(text, kind=kind, filename=filename, language=language)
    full = code_html(body)
    if lines <= COLLAPSE_LINES and len(text) <= COLLAPSE_CHARS:
        return Block(full, lines)
    head = "\n".join(text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES])
    if len(head) > COLLAPSE_CHARS:
        preview = highlight(head[:COLLAPSE_CHARS] + "…", kind=kind, filename=filename, language=language)
    else:
        preview = code_html("\n".join(body.split("\n", PREVIEW_LINES)[:PREVIEW_LINES]))
    return Block(full, lines, preview)


def diff_block(full: Markup, lines: int) -> Block:
    """A diff, collapsed (without preview lines) when very long."""
    block = Block(full, lines, kind="diff")
    if lines > DIFF_COLLAPSE_LINES:
        block.preview = Markup("")
    return block


def markdown_block(text: str, doc_id: str) -> Block:
    """Markdown (a sub-agent's report, a plan, a fetched page), its first lines
    rendered too when collapsed, so it reads as what it is, not as its source
    (issue #36 point 6). A cut can end a list or table early, or leave a fence
    open (markdown-it closes it at the end): a preview, not the document."""
    full = render_markdown(text, doc_id)
    lines = line_count(text)
    if lines <= COLLAPSE_LINES and len(text) <= COLLAPSE_CHARS:
        return Block(full, lines, kind="markdown")
    head = "\n".join(text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES])[:COLLAPSE_CHARS]
    # Its own doc_id: footnote ids in the preview must not repeat the full text's.
    return Block(full, lines, render_markdown(head, f"{doc_id}-head"), kind="markdown")


# --- tool calls: the one-line summary and the input --------------------------------


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


def _gemini_result(call: ToolCall, result: ResultView) -> None:
    """A Gemini call's result head: the shell's exit code, and a call the user
    cancelled (neither an error nor a success: docs/formats-gemini.md §3)."""
    detail = call.result.detail if call.result is not None else None
    if not isinstance(detail, dict):
        return
    code = detail.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        result.exit_code = code
    if detail.get("status") == "cancelled":
        result.note = result.status = "cancelled"


_SUMMARY_KEYS = ("command", "cmd", "file_path", "path", "pattern", "query", "url", "description", "prompt")


def tool_view(call: ToolCall) -> ToolView:
    """The summary line and input display for any tool call."""
    view = ToolView(name=call.name if isinstance(call.name, str) else "tool")
    args = _args(call)
    if _view_claude(view, call, args) or _view_codex(view, call, args) or _view_gemini(view, call, args):
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


# --- tool results --------------------------------------------------------------------


@dataclass
class ImageView:
    """An image block: ``src`` (page-relative) when it passed the sniff, else
    ``reason`` for the text shown instead."""

    src: str | None
    alt: str
    reason: str = ""
    kind: str = "image"


@dataclass
class FileList:
    """The files a search found (Grep, Glob, Gemini's glob and list_directory), shown
    as a list (blocks/files.html): ``head`` first, the ``rest`` folded when long."""

    paths: list[str]
    kind: str = "files"

    @property
    def head(self) -> list[str]:
        return self.paths if len(self.paths) <= COLLAPSE_LINES else self.paths[:PREVIEW_LINES]

    @property
    def rest(self) -> list[str]:
        return self.paths[len(self.head):]


@dataclass
class LinkList:
    """A web search's results (Claude Code's WebSearch, the sources Gemini CLI cites),
    shown as links (blocks/links.html); each ``Link`` has ``title``, ``url``, ``host``
    and ``href`` (through the allow-list; none when not a link we make)."""

    links: list[Link]
    kind: str = "links"


@dataclass
class ResultView:
    is_error: bool
    parts: list[Block | ImageView | FileList | LinkList] = field(default_factory=list)
    exit_code: int | None = None
    note: str = ""  # a sub-agent's run, from the trailer Claude Code adds to its report; a fetch's facts
    status: str = ""  # how it ended, when the record says more than done or failed: "cancelled", "200 OK"
    facts: list[str] = field(default_factory=list)  # what the record says of it: "268.0 KB", "5.2 s"

    @property
    def empty(self) -> bool:
        return not self.parts

    @property
    def size(self) -> str:
        """How much the result holds: ``12 lines``, ``3 files``, ``10 links``, ``1 image``."""
        counts = {"line": 0, "file": 0, "link": 0, "image": 0}
        for part in self.parts:
            if isinstance(part, FileList):
                counts["file"] += len(part.paths)
            elif isinstance(part, LinkList):
                counts["link"] += len(part.links)
            elif isinstance(part, ImageView):
                counts["image"] += 1
            else:
                counts["line"] += part.lines
        shown = [f"{num(n)} {word}{'' if n == 1 else 's'}" for word, n in counts.items() if n]
        return " · ".join(shown) or "no output"

    @property
    def brief(self) -> str:
        """The result in a few words, for its tool's one line: how it ended and how much
        it holds (``exit 1 · 40 lines``, ``200 OK · 268.0 KB · 5.2 s``, ``error · 2 lines``)."""
        words = [f"exit {self.exit_code}"] if self.exit_code is not None else ["error"] if self.is_error else []
        if self.status:
            words.append(self.status)
        words += self.facts or [self.size]
        return " · ".join(words)


# The block Claude Code appends to a sub-agent's report: its id, and what it used.
_AGENT_TRAILER = re.compile(r"\s*agentId: ([A-Za-z0-9_-]+)(?: \([^)\n]*\))?\s*(?:<usage>([^<]*)</usage>)?\s*")


def agent_trailer(text: str) -> str | None:
    """``sub-agent a881341 · 43,179 tokens · 2 tool uses · 32.9 s`` for a text that is
    only that trailer (``agentId: … <usage>…</usage>``), else None."""
    match = _AGENT_TRAILER.fullmatch(text)
    if match is None:
        return None
    usage = dict(line.split(":", 1) for line in (match.group(2) or "").splitlines() if ":" in line)
    tokens, uses, ms = (usage.get(key, "").strip() for key in ("total_tokens", "tool_uses", "duration_ms"))
    parts = [f"sub-agent {match.group(1)}"]
    if tokens.isdigit():
        parts.append(f"{int(tokens):,} tokens")
    if uses.isdigit():
        parts.append(f"{int(uses):,} tool use{'' if int(uses) == 1 else 's'}")
    if ms.isdigit():
        parts.append(f"{int(ms) / 1000:.1f} s")
    return " · ".join(parts)


def _looks_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or len(stripped) > JSON_SNIFF_CHARS:
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


def _codex_exec_output(text: str) -> tuple[str, int | None] | None:
    """Codex's ``{"output": …, "metadata": {"exit_code": n}}`` wrapper, unwrapped."""
    if not text.startswith('{"output"') or len(text) > JSON_SNIFF_CHARS:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("output"), str):
        return None
    meta = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    code = meta.get("exit_code")
    return value["output"], code if isinstance(code, int) and not isinstance(code, bool) else None


def _read_content(result: ToolResult) -> str | None:
    """The file text Claude recorded for a Read (``toolUseResult.file.content``)."""
    detail = result.detail
    file = detail.get("file") if isinstance(detail, dict) else None
    content = file.get("content") if isinstance(file, dict) else None
    return content if isinstance(content, str) else None


def result_text_block(call: ToolCall, view: ToolView, text: str, result: ResultView) -> Block:
    """One text part of a result, rendered for the tool that produced it."""
    if call.name == "Read" and view.file:
        return code_block(strip_line_numbers(text), kind=OUTPUT, filename=view.file)
    if call.name == "read_file" and view.file and not result.is_error:  # Gemini CLI: the file's text as is
        return code_block(text, kind=OUTPUT, filename=view.file)
    if call.name in ("Task", "Agent"):
        return markdown_block(text, f"result-{call.id}")
    unwrapped = _codex_exec_output(text)
    if unwrapped is not None:
        text, result.exit_code = unwrapped
    if _looks_json(text):
        return code_block(text, kind=OUTPUT, language="json")
    return code_block(strip_ansi(text), kind=OUTPUT)


# Tools whose result is Markdown someone wrote (a model summing up a page or a search),
# rendered as replies are (docs/safety.md S4, S5), not shown as its source.
MARKDOWN_RESULTS = frozenset({"WebFetch", "WebSearch", "web_fetch", "google_web_search"})
FILE_RESULTS = frozenset({"Glob", "Grep", "glob", "list_directory"})


def result_text_parts(call: ToolCall, view: ToolView, text: str, result: ResultView) -> list[Block | FileList | LinkList]:
    """One text part of a result as what it is (issue #36 point 6): the files a search
    found as a list, a web search's results as links, a fetched page's or a search's
    Markdown rendered; anything else, or an error, as :func:`result_text_block` shows it."""
    name = call.name
    if not result.is_error:
        if name in FILE_RESULTS and not any(isinstance(p, FileList) for p in result.parts):
            paths = found_files(name, text, call.result.detail if call.result is not None else None)
            if paths:
                return [FileList(paths)]
        if name in MARKDOWN_RESULTS:
            found = search_links(text) if name == "WebSearch" else cited_sources(text)
            links, prose = found if found is not None else ([], text)
            listed: list[Block | FileList | LinkList] = [LinkList(links)] if links else []
            written = [markdown_block(prose, f"result-{call.id}-{len(result.parts)}")] if prose.strip() else []
            # Claude's search lists its links first; Gemini's cite their sources after the answer.
            return listed + written if name == "WebSearch" else written + listed
    return [result_text_block(call, view, text, result)]


def _result_facts(call: ToolCall, result: ResultView) -> None:
    """What a web tool's record says beyond its text: a fetch's HTTP status, size and
    time (Claude Code's WebFetch), a search's time (WebSearch); shown on the tool's line
    and in the result's head."""
    detail = call.result.detail if call.result is not None else None
    if call.name == "WebFetch":
        result.status, result.facts = web_fetch_facts(detail)
    elif call.name == "WebSearch":
        found = sum(len(part.links) for part in result.parts if isinstance(part, LinkList))
        count = f"{num(found)} link{'' if found == 1 else 's'}" if found else result.size
        result.facts = [count, *duration_fact(detail)]
    else:
        return
    if not result.note:
        result.note = " · ".join(word for word in (result.status, *result.facts) if word)


# --- per-session state while rendering ------------------------------------------------


class SessionState:
    """What rendering one session collects and decides: the image files it
    writes, unique anchor prefixes for nested sub-agents, links to other sessions.
    Templates call its methods (``state.image(block)``)."""

    def __init__(self, page: str, session_links: dict[str, str],
                 tool_templates: Callable[[object], jinja2.Template] | None = None) -> None:
        self.page = page
        self.session_links = session_links
        self.images: dict[str, bytes] = {}
        self._prefixes: set[str] = set()
        self._tool_templates = tool_templates

    def image(self, block: Image) -> ImageView:
        sniffed = sniff_image(block.data)
        if sniffed is None:
            size = len(block.data) * 3 // 4 if isinstance(block.data, str) else 0
            reason = f"not a PNG, JPEG, GIF or WebP image ({num(size)} bytes)"
            return ImageView(None, "", reason)
        ext, raw = sniffed
        name = image_filename(raw, ext)
        self.images.setdefault(name, raw)
        alt = f"image ({ext.upper()}, {num(len(raw))} bytes)"
        return ImageView(link(self.page, urls.image_path(name)), alt)

    def text(self, text: str) -> Block:
        """Plain text (a command's output), collapsed when long."""
        return code_block(strip_ansi(text if isinstance(text, str) else ""), kind=OUTPUT)

    def is_long(self, text: object) -> bool:
        return is_long(text)

    def tool(self, call: ToolCall) -> ToolView:
        return tool_view(call)

    def tool_template(self, call: ToolCall) -> jinja2.Template:
        """The template that shows this call: ``tools/<name>.html`` when the
        theme has one for the tool's name, else ``tools/default.html``."""
        if self._tool_templates is None:
            raise jinja2.TemplateError("state.tool_template is only available while a session is rendered")
        return self._tool_templates(call.name)

    def result(self, call: ToolCall, view: ToolView) -> ResultView | None:
        if call.result is None:
            return None
        out = ResultView(is_error=bool(call.result.is_error))
        # A Read's recorded file text is the file itself: no line numbers, no
        # harness reminder appended. Prefer it to the text the model was shown.
        file_text = _read_content(call.result) if call.name == "Read" and not out.is_error else None
        if file_text is not None:
            out.parts.append(code_block(file_text, kind=OUTPUT, filename=view.file))
        for part in call.result.content:
            if isinstance(part, Image):
                out.parts.append(self.image(part))
            elif file_text is None and isinstance(getattr(part, "text", None), str) and part.text:
                note = agent_trailer(part.text) if call.name in ("Task", "Agent") else None
                if note is not None:
                    out.note = note
                else:
                    out.parts.extend(result_text_parts(call, view, part.text, out))
        _gemini_result(call, out)
        _result_facts(call, out)
        return out

    def subagent_prefix(self, run: SubagentRun, parent: str) -> str:
        """An id prefix for a sub-agent's anchors, unique on the page and stable
        across builds (from the agent id, only [A-Za-z0-9_-] kept)."""
        agent = re.sub(r"[^A-Za-z0-9_-]", "", str(run.agent_id))[:40] or "agent"
        base = f"{parent}a-{agent}-"
        prefix, n = base, 1
        while prefix in self._prefixes:
            n += 1
            prefix = f"{base}{n}-"
        self._prefixes.add(prefix)
        return prefix

    def session_link(self, session_id: object) -> str | None:
        """The link to another session's page, if the build knows it."""
        target = self.session_links.get(session_id) if isinstance(session_id, str) else None
        return link(self.page, target) if target else None

    def marker_type(self, marker: Marker) -> str:
        """The marker's type when it is one we know (it becomes a class name)."""
        return marker.type if marker.type in MARKER_TYPES else "notice"


# --- links ------------------------------------------------------------------------------


def link(page: str, target: str) -> str:
    """A page-relative link naming a file, percent-encoded so a stray ``#``,
    ``?`` or ``%`` in a name cannot change what it points to."""
    return quote(urls.relative(page, target), safe="/-._~")


@jinja2.pass_context
def _url(context: jinja2.runtime.Context, target: str) -> str:
    return link(context["page"], target)


def moment_path(project_id: str, session: Session, anchor: str | None) -> str:
    """The page (of a session split in parts, the part) holding a moment."""
    return urls.session_part_html(project_id, session.slug, (session.anchor_parts or {}).get(anchor or "", 1))


def _moment_link(page: str, project_id: str, session: Session, anchor: str | None) -> str:
    """A link from ``page`` to a moment of a session (``part#anchor``, or ``#anchor``
    on that very page), or to its page."""
    target = moment_path(project_id, session, anchor)
    if anchor and target == page:
        return f"#{anchor}"
    href = link(page, target)
    return f"{href}#{anchor}" if anchor else href


@jinja2.pass_context
def _moment(context: jinja2.runtime.Context, project_id: str, session: Session, anchor: str | None) -> str:
    return _moment_link(context["page"], project_id, session, anchor)


def linked_anchors(session: Session) -> set[str]:
    """The moments the summary links to: commits, edits, sub-agent runs, search items."""
    found = [c.get("anchor") for c in session.commits] + [a.get("anchor") for a in session.agents]
    found += [e.get("anchor") for change in session.file_changes for e in change.get("edits") or ()]
    found += [item[0] for item in session.search_items if item]
    return {anchor for anchor in found if isinstance(anchor, str) and anchor}


# An id attribute follows a space in its tag. Not written as a look-behind or a \b,
# which made the regex engine try every position of a part's megabytes (1.6 s
# against 0.09 over realcode's pages): each match's previous character is checked.
_ELEMENT_ID = re.compile(r'id="([^"]+)"')


def anchor_parts(parts: list[Part], wanted: set[str]) -> dict[str, int]:
    """Which part (2, 3 ...) holds each wanted anchor that is not on the first
    page: the ids in each part's HTML (anchors are plain [A-Za-z0-9_-] text)."""
    found: dict[str, int] = {}
    for part in parts[1:]:
        for chunk in part.chunks:
            for match in _ELEMENT_ID.finditer(chunk):
                if match.group(1) in wanted and chunk[match.start() - 1 : match.start()].isspace():
                    found.setdefault(match.group(1), part.number)
    return found


# --- assets -------------------------------------------------------------------------


def _static_files(theme: Path | None) -> dict[str, bytes]:
    """Name → bytes of every static file: the default theme's, the generated
    code stylesheet, then the user theme's (same name wins)."""
    files: dict[str, bytes] = {GENERATED_CODE_CSS: stylesheet().encode("utf-8")}
    roots = [default_theme_dir() / "static"]
    if theme is not None:
        roots.append(theme / "static")
    for root in roots:
        if root.is_dir():
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def asset_name(name: str, data: bytes) -> str:
    """``bough.css`` → ``assets/bough.3f2a9c1d.css`` for CSS, JS and the favicon;
    other files keep their names so a stylesheet's ``url(logo.svg)`` still finds them."""
    if not name.endswith(HASHED_SUFFIXES) and name not in HASHED_NAMES:
        return posixpath.join(urls.ASSETS_DIR, name)
    stem, ext = posixpath.splitext(name)
    digest = hashlib.sha256(data).hexdigest()[:8]
    return posixpath.join(urls.ASSETS_DIR, f"{stem}.{digest}{ext}")


# --- index and project summaries (never reading a timeline) ----------------------------


@dataclass
class Month:
    """The sessions of one calendar month (UTC) on a project page, newest first."""

    key: str  # 2026-02, or "" for sessions without a date
    label: str  # February 2026
    sessions: list[Session]


@dataclass
class ProjectSummary:
    project: Project
    sessions: list[Session]  # newest first
    first: When | None
    last: When | None
    sources: list[str]  # labels, sorted
    last_moment: datetime | None
    models: list[str] = field(default_factory=list)  # short names (short_model), sorted
    kept: int = 0  # sessions whose original is deleted (kept by bough's archive)

    @property
    def months(self) -> list[Month]:
        return by_month(self.sessions)

    @property
    def chart(self) -> Markup:
        """Sessions per week (the project page shows it; the index's rows do not)."""
        return charts.activity_chart(self.sessions)


_EPOCH = datetime.min.replace(tzinfo=UTC)
# Written out, not strftime("%B"): a page must not depend on the build's locale.
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")
_MODEL_DATE = re.compile(r"-(?:20\d{6}|\d{4}-\d{2}-\d{2})$")


def session_moment(session: Session) -> datetime:
    return parse_time(session.started) or parse_time(session.ended) or _EPOCH


def newest_first(sessions: Iterable[Session]) -> list[Session]:
    return sorted(sessions, key=lambda s: (session_moment(s), s.id, s.slug), reverse=True)


def short_model(name: str) -> str:
    """A model as a list row shows it: ``claude-sonnet-4-5-20250929`` → ``sonnet-4-5``
    (the vendor prefix and a release date say little in a column of them)."""
    short = _MODEL_DATE.sub("", name.removeprefix("claude-"))
    return short or name


def short_models(names: Iterable[str]) -> list[str]:
    """Short names, once each, in the order first seen."""
    return list(dict.fromkeys(short_model(n) for n in names if isinstance(n, str) and n))


def seconds(start: object, end: object) -> int:
    """A session's length in whole seconds; -1 when unknown (sorts first)."""
    a, b = parse_time(start), parse_time(end)
    return int((b - a).total_seconds()) if a is not None and b is not None and b >= a else -1


def by_month(sessions: list[Session]) -> list[Month]:
    """Sessions (newest first) grouped by the UTC month they started in; undated last."""
    months: dict[str, Month] = {}
    for session in sessions:
        moment = parse_time(session.started) or parse_time(session.ended)
        key = f"{moment.year:04d}-{moment.month:02d}" if moment else ""  # not strftime: glibc writes year 5 as "5"
        if key not in months:
            label = f"{MONTH_NAMES[moment.month - 1]} {moment.year}" if moment else "Undated"
            months[key] = Month(key, label, [])
        months[key].sessions.append(session)
    dated = [m for k, m in months.items() if k]
    return dated + ([months[""]] if "" in months else [])


def summarize(project: Project) -> ProjectSummary:
    sessions = newest_first(project.sessions)
    starts = [parse_time(s.started) for s in sessions]
    ends = [parse_time(s.ended) or parse_time(s.started) for s in sessions]
    first = min((t for t in starts if t), default=None)
    last = max((t for t in ends if t), default=None)
    return ProjectSummary(
        project=project,
        sessions=sessions,
        first=when(first.isoformat()) if first else None,
        last=when(last.isoformat()) if last else None,
        sources=sorted({source_label(s.source) for s in sessions}),
        last_moment=last,
        models=sorted(set(short_models(m for s in sessions for m in s.models or ()))),
        kept=sum(1 for s in sessions if s.kept_since),
    )


def by_recent_activity(projects: Iterable[Project]) -> list[ProjectSummary]:
    summaries = [summarize(p) for p in projects]
    return sorted(summaries, key=lambda s: (s.last_moment or _EPOCH, s.project.id), reverse=True)


def _render_shared(template: jinja2.Template, variables: dict[str, Any]) -> str:
    """``template.render(variables)`` for ``variables`` that already hold the
    globals: Jinja's render copies them (a ChainMap, ~30 names) on every call."""
    try:
        return template.environment.concat(  # type: ignore[attr-defined]
            template.root_render_func(template.new_context(variables, shared=True))
        )
    except Exception:
        return template.environment.handle_exception()


# A tool name that may name a template file (tools/<name>.html): no "/", no
# leading dot, nothing a loader would read as a path.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


# --- the renderer -----------------------------------------------------------------------


@dataclass
class Part:
    """One page of a (possibly split) session."""

    path: str
    number: int
    chunks: list[Markup] = field(default_factory=list)
    size: int = 0


# --- a session page's outline: every prompt, linked -------------------------------------

# An outline entry shows this many characters of its prompt.
OUTLINE_CHARS = 80


@dataclass(frozen=True)
class OutlineEntry:
    """A prompt as the outline lists it: its anchor, a short text, the link to it
    from the page that shows the outline, and the part of the session holding it."""

    anchor: str
    text: str
    href: str
    part: int
    here: bool  # on the page that shows the outline


def prompt_line(prompt: Prompt) -> str:
    """A prompt on one line: its first text's words, whitespace squeezed, cut to OUTLINE_CHARS."""
    for part in prompt.content:
        text = getattr(part, "text", None)
        if isinstance(text, str) and text.strip():
            words = " ".join(text.lstrip()[: OUTLINE_CHARS * 4].split())
            return words if len(words) <= OUTLINE_CHARS else words[: OUTLINE_CHARS - 1].rstrip() + "…"
    return "(image)" if any(isinstance(part, Image) for part in prompt.content) else "(no text)"


def session_prompts(session: Session, parts: list[Part]) -> list[tuple[str, str, int]]:
    """(anchor, text, part number) of every prompt of the session, in order: the
    parts hold a chunk per timeline item, in timeline order (Renderer._chunks)."""
    numbers = [part.number for part in parts for _ in part.chunks]
    return [(item.anchor, prompt_line(item), numbers[i] if i < len(numbers) else 1)
            for i, item in enumerate(session.timeline)
            if isinstance(item, Prompt) and isinstance(item.anchor, str) and item.anchor]


def outline(prompts: list[tuple[str, str, int]], parts: list[Part], part: Part) -> list[OutlineEntry]:
    """The outline as ``part``'s page shows it: a prompt on another part links to that part's page."""
    return [OutlineEntry(anchor, text, f"#{anchor}" if number == part.number
                         else f"{link(part.path, parts[number - 1].path)}#{anchor}", number, number == part.number)
            for anchor, text, number in prompts]


class Renderer:
    """Renders the pages of a site with one theme. The build calls this."""

    page_limit: int = PAGE_LIMIT

    def __init__(self, theme: Path | None = None, *, search: bool = False,
                 highlight_limit: int = DEFAULT_HIGHLIGHT_LIMIT, store: BlockStore | None = None,
                 compiled: Path | None = None) -> None:
        self.env = make_env(theme, compiled)
        self.search = search
        self.highlight_limit = highlight_limit  # --highlight-limit, in KB (highlight.Budget)
        self.store = store  # highlighted blocks across sessions and builds (None: this process's memory)
        self._tool_templates: dict[str, jinja2.Template] = {}
        self._item_templates: dict[str, jinja2.Template] = {}
        files = _static_files(theme)
        if not search:
            files.pop(SEARCH_SCRIPT, None)  # the search box's script: written only with the box
        self._assets = sorted((asset_name(name, data), data) for name, data in files.items())
        self._asset_paths = {name: asset_name(name, data) for name, data in files.items()}
        self.env.globals.update(self._globals())
        # macros.html once per renderer (the theme's, if it has one), rather than
        # an {% import %} per item: every template can call m.time(), m.block() ...
        self.env.globals["m"] = self.env.get_template("macros.html").module
        # The item templates joined into one when the theme uses the default's
        # (timeline.py: the same bytes); None: every item through its own files.
        self.timeline: Timeline | None = timeline(self.env, self.tool_template)

    def _globals(self) -> dict[str, Any]:
        return {
            "version": __version__,
            "search": self.search,
            "csp": CSP_SEARCH if self.search else CSP,
            "urls": urls,
            "url": _url,
            "moment": _moment,
            "asset": self._asset,
            "when": when,
            "duration": duration,
            "num": num,
            "compact": compact,
            "tokens": tokens,
            "seconds": seconds,
            "short_models": short_models,
            "source_label": source_label,
            "one_line": one_line,
            "excerpt": excerpt,
            "reply_tokens": reply_tokens,
            "markdown": render_markdown,
            "stat_labels": STAT_LABELS,
            "marker_labels": MARKER_LABELS,
            "token_keys": TOKEN_KEYS,
        }

    @jinja2.pass_context
    def _asset(self, context: jinja2.runtime.Context, name: str) -> str:
        # A missing asset is a theme bug: fail the build rather than ship a broken link.
        if name not in self._asset_paths:
            raise jinja2.TemplateError(f"no static file named {name!r} in the theme")
        return link(context["page"], self._asset_paths[name])

    def assets(self) -> list[tuple[str, bytes]]:
        """Every static file as (path under OUT, bytes), sorted by path."""
        return list(self._assets)

    def _render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(**context)

    def _page(self, template: str, **context: Any) -> bytes:
        """A whole page, as UTF-8: each piece the template yields is encoded as it
        comes. Joined first, a split session's 5 MB part was one str at up to four
        bytes a character (one emoji is enough), 18 MB beside its bytes, in a worker
        that holds the session too; encoding piece by piece takes the same time."""
        return b"".join([piece.encode("utf-8") for piece in self.env.get_template(template).generate(**context)])

    def index_page(self, site: Site, *, with_chart: bool = True) -> bytes:
        """The index; ``with_chart`` False leaves out the activity chart (the page a
        build falls back to when making the chart failed)."""
        projects = by_recent_activity(site.projects)
        return self._page(
            "index.html",
            page=urls.INDEX_HTML,
            site=site,
            projects=projects,
            sources=sorted({source for p in projects for source in p.sources}),
            session_count=sum(len(p.sessions) for p in site.projects),
            chart=charts.activity_chart(s for p in site.projects for s in p.sessions) if with_chart else Markup(""),
        )

    def project_page(self, project: Project, site: Site, *, with_work: bool = True) -> bytes:
        """A project's page; ``with_work`` False leaves out what its agents built
        (the page a build falls back to when making that part failed)."""
        page = urls.project_html(project.id)
        summary = summarize(project)
        work = project_work(project, summary.sessions, lambda s, anchor: _moment_link(page, project.id, s, anchor)) \
            if with_work else NO_WORK
        return self._page("project.html", page=page, site=site, project=project, summary=summary, work=work)

    def tool_template(self, name: object) -> jinja2.Template:
        """``tools/<name>.html`` if the theme has it, else ``tools/default.html``;
        looked up once per name (a name that is not a plain file name, such as
        one with a "/", always gets the default)."""
        key = name if isinstance(name, str) else ""
        template = self._tool_templates.get(key)
        if template is None:
            names = [f"tools/{key}.html"] if _TOOL_NAME.fullmatch(key) else []
            template = self.env.select_template([*names, "tools/default.html"])
            self._tool_templates[key] = template
        return template

    def _item_template(self, kind: object) -> jinja2.Template:
        """What renders a top-level timeline item: ``item.html`` when the theme
        replaces it; else what the default item.html would include for the
        kind (``items/<kind>.html`` or ``items/unknown.html``): the same bytes,
        one template render fewer per item."""
        key = kind if isinstance(kind, str) else ""
        template = self._item_templates.get(key)
        if template is None:
            if not is_default_template(self.env, "item.html"):
                template = self.env.get_template("item.html")
            else:
                template = self.env.select_template([f"items/{key}.html", "items/unknown.html"])
            self._item_templates[key] = template
        return template

    def session_pages(
        self, project: Project, session: Session, session_links: dict[str, str] | None = None,
        *, store_key: str | None = None,
    ) -> list[tuple[str, bytes]]:
        """The session's page(s), then the image files it shows.

        ``session_links`` maps a session id to its page's path under OUT, for
        links to a fork's parent and to the session inherited history came from.
        ``store_key`` names the session in the block store, which then records
        the blocks its pages use (what keeps them through a garbage collection).
        """
        first_page = urls.session_html(project.id, session.slug)
        state = SessionState(first_page, session_links or {}, self.tool_template)
        with highlighting(limit_kb=self.highlight_limit, store=self.store) as used:
            parts = self._split(project, session, self._chunks(project, session, state))
        if self.store is not None:
            self.store.record(store_key, used)
        # Links to a moment (here, on the project page, in search) must name its part.
        session.anchor_parts = anchor_parts(parts, linked_anchors(session)) if len(parts) > 1 else {}
        prompts = session_prompts(session, parts)
        # The session as its project's sessions.js names it (publish.sessions_script).
        session_ref = link(urls.project_html(project.id), first_page)
        out = []
        for part in parts:
            encoded = self._page(
                "session.html",
                page=part.path,
                project=project,
                session=session,
                state=state,
                part=part,
                parts=parts,
                chunks=part.chunks,
                outline=outline(prompts, parts, part),
                session_ref=session_ref,
            )
            out.append((part.path, encoded))
        out.extend((urls.image_path(name), raw) for name, raw in sorted(state.images.items()))
        return out

    def _chunks(self, project: Project, session: Session, state: SessionState) -> Iterator[Markup]:
        """Each timeline item rendered on its own, then the orphan sub-agents:
        the unit a split page is made of. Linear in the timeline's size."""
        context = {"page": state.page, "project": project, "session": session, "state": state, "prefix": ""}
        # What template.render(context, item=item) would see, the globals copied
        # once per session rather than once per item.
        shared = {**self.env.globals, **context}
        if self.timeline is not None:
            render = self.timeline.session(shared)
        else:
            def render(item: TimelineItem) -> str:
                return _render_shared(self._item_template(item.kind), {**shared, "item": item})
        for item in session.timeline:
            yield Markup(render(item))
        if session.orphan_subagents:
            yield Markup(self._render("orphans.html", **context, runs=session.orphan_subagents))

    def _split(self, project: Project, session: Session, chunks: Iterable[Markup]) -> list[Part]:
        """Group chunks into pages of at most ``page_limit`` bytes (a single item
        larger than that gets a page of its own)."""
        parts = [Part(urls.session_part_html(project.id, session.slug, 1), 1)]
        for chunk in chunks:
            size = len(chunk.encode("utf-8"))
            current = parts[-1]
            if current.chunks and current.size + size > self.page_limit:
                number = current.number + 1
                current = Part(urls.session_part_html(project.id, session.slug, number), number)
                parts.append(current)
            current.chunks.append(chunk)
            current.size += size
        return parts
