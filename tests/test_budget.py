"""Issue #12's highlighting rules on session pages: the budget per block (who
wrote it decides), --highlight-limit, and the block store shared by sessions."""

from __future__ import annotations

import html
import re
from pathlib import Path

from markupsafe import escape

from bough_site.model import Reply, Session, ToolCall, Usage
from bough_site.render.blockstore import BlockStore, store_path
from bough_site.render.pages import Renderer

from .helpers import (
    READ_LINES,
    READ_TEXT,
    SESSION,
    page,
    prompt,
    read_session,
    reply,
    result,
    session,
    text,
    tool_result,
    tool_use,
    write_jsonl,
)

MARK = re.compile(r'<span class="hl-plain" data-line="(\d+)"></span>')
CODE = re.compile(r'<pre class="code"><code>(.*?)</code></pre>', re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def write_session(sid: str, content: str) -> Session:
    calls = [ToolCall(f"{sid}-write", "Write", {"file_path": "src/new.py", "content": content}, result=result("ok"))]
    reply = Reply("m1", "r1", "2025-03-04T10:00:10Z", "claude", [*calls], Usage())
    return session(sid, sid, "claude", [reply])


def code_blocks(html_page: str) -> list[str]:
    """The inner HTML of every code block (previews included)."""
    return CODE.findall(html_page)


def text_of(markup: str) -> str:
    return html.unescape(TAG.sub("", markup))


def read_block(html_page: str) -> str:
    """The whole Read result (not its preview)."""
    [block] = [b for b in code_blocks(html_page) if "# n300" in text_of(b)]
    return block


def test_a_300_line_read_is_highlighted_for_200_lines_then_plain() -> None:
    block = read_block(page(Renderer(), read_session("s1")))
    [mark] = MARK.findall(block)
    assert mark == "201"
    head, tail = MARK.split(block)[0], MARK.split(block)[2]
    assert text_of(head) == "".join(READ_LINES[:200])
    assert tail == str(escape("".join(READ_LINES[200:])))  # plain escaped text
    assert head.count('<span class="c1">') == 200 and "<span" not in tail
    assert text_of(block) == READ_TEXT  # every character is on the page


def test_a_60_kb_write_is_highlighted_whole() -> None:
    line = "value = compute('<&>', 42)  # comment\n"
    content = line * (60 * 1024 // len(line))
    blocks = [b for b in code_blocks(page(Renderer(), write_session("w1", content))) if text_of(b) == content]
    assert len(blocks) == 1 and "hl-plain" not in blocks[0]
    assert blocks[0].count('<span class="c1">') == content.count("\n")


def test_highlight_limit_0_highlights_everything() -> None:
    block = read_block(page(Renderer(highlight_limit=0), read_session("s1")))
    assert "hl-plain" not in block and block.count('<span class="c1">') == 300


def test_a_larger_limit_moves_the_marker() -> None:
    block = read_block(page(Renderer(highlight_limit=10), read_session("s1")))  # 250 lines or 10 KB
    [mark] = MARK.findall(block)
    assert mark == "251"


def test_the_same_text_in_two_sessions_is_lexed_once(lexing: list[str], tmp_path: Path) -> None:
    path = store_path(tmp_path)
    first = page(Renderer(store=BlockStore(path)), read_session("a"), "a")
    read_lexed = [t for t in lexing if t.startswith("v1 = ")]
    assert len(read_lexed) == 1
    # Another process (a new renderer and store, nothing in memory) renders another session.
    second = page(Renderer(store=BlockStore(path)), read_session("b"), "b")
    assert [t for t in lexing if t.startswith("v1 = ")] == read_lexed
    assert read_block(first) == read_block(second)


def test_pages_are_the_same_with_or_without_the_store(tmp_path: Path) -> None:
    path = store_path(tmp_path)
    fresh = page(Renderer(), read_session("a"))
    page(Renderer(store=BlockStore(path)), read_session("a"), "a")
    assert page(Renderer(store=BlockStore(path)), read_session("a"), "a") == fresh


def test_the_cli_option_enters_the_options_digest(tmp_path: Path) -> None:
    """--highlight-limit changes pages, so a build with another limit renders every page again."""
    from click.testing import CliRunner

    from bough_site.cli import main

    write_jsonl(tmp_path / "src" / "-home-ada-src-app" / f"{SESSION}.jsonl", [
        prompt("u1", "read it"),
        reply("a1", "m1", [text("Reading."), tool_use("t1", "Read", file_path="src/big.py")]),
        tool_result("u2", "t1", READ_TEXT),
    ])
    out = tmp_path / "site"

    def build(*extra: str) -> str:
        args = ["build", str(tmp_path / "src"), "-o", str(out), "--no-archive", "--no-search", "-j", "1", "-q", *extra]
        outcome = CliRunner().invoke(main, args, env={"BOUGH_REDACTION_KEY": "k"})
        assert outcome.exit_code == 0, outcome.output
        return outcome.output

    build()
    [page_path] = list(out.glob("projects/*/sessions/*.html"))
    assert MARK.findall(page_path.read_text()) == ["201"]
    assert "1 rebuilt" in build("--highlight-limit", "0")
    assert MARK.findall(page_path.read_text()) == []
    assert "1 reused" in build("--highlight-limit", "0")
    assert "1 rebuilt" in build("--highlight-limit", "2")
    assert MARK.findall(page_path.read_text()) == ["51"]
