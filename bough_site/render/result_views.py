"""What a page shows of a tool's result (``state.result`` in the templates): its
parts as what they are (code, Markdown, a list of files, a list of links, an
image) and its head (exit code, status, facts, size).  :mod:`.tool_results`
reads the recorded values; this module decides what becomes a block."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..line_numbers import strip_line_numbers
from ..model import ToolCall, ToolResult
from .blocks import COLLAPSE_LINES, PREVIEW_LINES, Block, code_block, markdown_block
from .formats import num, strip_ansi
from .highlight_budget import OUTPUT
from .tool_results import (
    Link,
    cited_sources,
    duration_fact,
    found_files,
    search_links,
    web_fetch_facts,
)
from .tool_views import ToolView
from .views_opencode import read_text as opencode_read_text
from .views_opencode import task_text as opencode_task_text
from .views_copilot import viewed_text


# JSON parsed for display only up to this size (a guard, not a limit on output).
JSON_SNIFF_CHARS = 1_000_000


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


def read_content(result: ToolResult) -> str | None:
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
    if call.name == "read" and view.file and not result.is_error and (own := opencode_read_text(text)) is not None:
        return code_block(own, kind=OUTPUT, filename=view.file)  # OpenCode: the file without its numbers
    if call.name in ("Task", "Agent"):
        return markdown_block(text, f"result-{call.id}")
    if call.name == "task" and (answer := opencode_task_text(text)) is not None:  # OpenCode's sub-agent
        return markdown_block(answer, f"result-{call.id}")
    if call.name == "view" and view.file and not result.is_error:  # Copilot CLI: lines numbered "N. "
        viewed = viewed_text(text)
        if viewed is not None:
            return code_block(viewed, kind=OUTPUT, filename=view.file)
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


def result_facts(call: ToolCall, result: ResultView) -> None:
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


def gemini_result(call: ToolCall, result: ResultView) -> None:
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
