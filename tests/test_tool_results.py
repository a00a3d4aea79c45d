"""Each tool's result shown as what it is (issue #36 point 6), and a reply's tokens on its
header (point 9): what pages.py and render/tool_results.py make of recorded results,
before any template. The pages themselves: tests/test_items.py."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site.model import Text, ToolCall, ToolResult, Usage
from bough_site.render import blocks, formats, pages, result_views, tool_views
from bough_site.render.markdown import plain_line
from bough_site.render.formats import excerpt, reply_tokens
from bough_site.render.result_views import FileList, LinkList, ResultView
from bough_site.render.tool_results import (
    Link,
    byte_size,
    cited_sources,
    found_files,
    search_links,
    web_fetch_facts,
)

from .helpers import EVIL, EVIL_URL, result

# Claude Code's WebSearch result, as the spotter fixture records it (shortened).
SEARCH_TEXT = (
    'Web search results for query: "xterm.js scroll"\n\n'
    'Links: [{"title":"Issue #657 · xtermjs/xterm.js","url":"https://github.com/xtermjs/xterm.js/issues/657"},'
    '{"title":"Arch forums","url":"https://bbs.archlinux.org/viewtopic.php?id=222271"}]\n\n'
    "Based on the search results, **scrolling** is captured by the terminal.\n\n\n"
    "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
)


def shown(name: str, args: dict, text: str, *, detail: object = None, is_error: bool = False) -> ResultView:
    call = ToolCall("c1", name, args, result=result(text, is_error=is_error, detail=detail))
    view = pages.PageState("p.html", {}).result(call, tool_views.tool_view(call))
    assert view is not None
    return view


# --- WebSearch: links, then what the search model wrote ---------------------------------------


def test_web_search_results_are_links_then_markdown() -> None:
    view = shown("WebSearch", {"query": "xterm.js scroll"}, SEARCH_TEXT,
                 detail={"query": "q", "results": [], "durationSeconds": 6.473839810000005})
    assert [part.kind for part in view.parts] == ["links", "markdown"]
    links = view.parts[0].links
    assert links == [
        Link("Issue #657 · xtermjs/xterm.js", "https://github.com/xtermjs/xterm.js/issues/657",
             "https://github.com/xtermjs/xterm.js/issues/657"),
        Link("Arch forums", "https://bbs.archlinux.org/viewtopic.php?id=222271",
             "https://bbs.archlinux.org/viewtopic.php?id=222271"),
    ]
    assert [link.host for link in links] == ["github.com", "bbs.archlinux.org"]
    prose = str(view.parts[1].full)
    assert "<strong>scrolling</strong>" in prose and "Links:" not in prose and "&quot;title&quot;" not in prose
    assert view.brief == "2 links · 6.5 s" and view.note == "2 links · 6.5 s"


def test_web_search_links_are_read_defensively() -> None:
    odd = ('Links: [{"title": "ok", "url": "https://a.example/"}, {"url": "' + EVIL_URL + '"}, '
           '{"title": 3, "url": "https://b.example/"}, "text", {"title": "no url"}]\nrest')
    links, rest = search_links(odd)
    assert [(link.title, link.href) for link in links] == [
        ("ok", "https://a.example/"), (EVIL_URL, None), ("https://b.example/", "https://b.example/")]
    assert rest == "rest"
    assert search_links("Links: [not json]\nx") is None  # shown as written
    assert search_links("Links: {\"a\": 1}") is None
    assert search_links("no links here") is None
    two, text = search_links('a\nLinks: [{"title":"1","url":"https://1.example"}]\nb\n'
                             'Links: [{"title":"2","url":"https://2.example"}]\nc')
    assert [link.title for link in two] == ["1", "2"] and text == "a\n\nb\n\nc"


def test_an_unsafe_link_is_shown_as_its_title_not_linked() -> None:
    view = shown("WebSearch", {"query": "q"}, "Links: " + json.dumps([{"title": EVIL, "url": EVIL_URL}]))
    [link] = view.parts[0].links
    assert link.href is None and link.title == EVIL and link.host == ""


# The project's style for property tests (tests/test_fuzz.py): a fixed set of examples.
PROPERTY = settings(max_examples=200, deadline=None, derandomize=True)


@PROPERTY
@given(st.text())
def test_search_links_never_fails_and_every_href_is_allowed(text: str) -> None:
    found = search_links("Links: " + text)
    if found is not None:
        for link in found[0]:
            assert link.href is None or link.href.lower().startswith(("http://", "https://", "mailto:"))


@PROPERTY
@given(st.lists(st.fixed_dictionaries({"title": st.text(), "url": st.text()}), max_size=5),
       st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=40))
def test_search_links_reads_back_what_was_written(items: list[dict[str, str]], after: str) -> None:
    text = "Links: " + json.dumps(items) + "\n" + after
    found = search_links(text)
    wanted = [item for item in items if item["url"]]
    if items and not wanted:
        assert found is None  # a list, but of no link: shown as written
        return
    assert found is not None
    links, rest = found
    assert [(link.url, link.title) for link in links] == [
        (item["url"], item["title"] if item["title"].strip() else item["url"]) for item in wanted]
    assert rest == after


# --- WebFetch: the page's Markdown, its status, size and time ---------------------------------


def test_web_fetch_shows_markdown_with_status_size_and_time() -> None:
    detail = {"bytes": 274387, "code": 200, "codeText": "OK", "durationMs": 5249, "result": "…", "url": "u"}
    view = shown("WebFetch", {"url": "https://github.com/x", "prompt": "p"},
                 "# Scroll Issues\n\n1. **Small terminal**: stuck", detail=detail)
    assert [part.kind for part in view.parts] == ["markdown"]
    html = str(view.parts[0].full)
    assert "<h1>Scroll Issues</h1>" in html and "<strong>Small terminal</strong>" in html
    assert view.brief == "200 OK · 268.0 KB · 5.2 s" and view.note == "200 OK · 268.0 KB · 5.2 s"


def test_web_fetch_markdown_is_safe() -> None:
    view = shown("WebFetch", {"url": "https://x"}, f"<script>alert(1)</script> [a]({EVIL_URL}) {EVIL}")
    html = str(view.parts[0].full)
    assert "<script>" not in html and 'href="javascript' not in html.lower()


def test_web_fetch_without_a_record_or_failed() -> None:
    assert shown("WebFetch", {"url": "https://x"}, "text").brief == "1 line"
    failed = shown("WebFetch", {"url": "https://x"}, "Request failed with status code 404", is_error=True)
    assert [part.kind for part in failed.parts] == ["code"] and failed.brief == "error · 1 line"
    assert web_fetch_facts({"code": "200", "bytes": -1, "durationMs": math.nan}) == ("", [])
    assert web_fetch_facts({"code": 404, "codeText": "Not Found", "bytes": 10, "durationMs": 300}) == (
        "404 Not Found", ["10 B", "300 ms"])
    assert web_fetch_facts(["not", "a", "dict"]) == ("", [])


def test_byte_sizes() -> None:
    assert [byte_size(n) for n in (0, 1023, 1024, 274387, 5 * 1024 * 1024)] == [
        "0 B", "1023 B", "1.0 KB", "268.0 KB", "5.0 MB"]


# --- Gemini's searches: the answer, then the sources it cites ---------------------------------


def test_gemini_web_search_answer_then_its_sources() -> None:
    text = ('Web search results for "pagefind":\n\nPagefind is a **static** search library [1].\n\n'
            "Sources:\n[1] Pagefind (https://pagefind.app/)\n[2] Its repository (https://github.com/x/y)")
    view = shown("google_web_search", {"query": "pagefind"}, text)
    assert [part.kind for part in view.parts] == ["markdown", "links"]
    assert "<strong>static</strong>" in str(view.parts[0].full) and "Sources:" not in str(view.parts[0].full)
    assert [(link.title, link.href) for link in view.parts[1].links] == [
        ("Pagefind", "https://pagefind.app/"), ("Its repository", "https://github.com/x/y")]
    assert cited_sources("Sources:\n[1] no url here") is None
    assert cited_sources("no sources") is None


# --- file searches: a list of paths --------------------------------------------------------------


def test_claude_glob_and_grep_results_are_file_lists() -> None:
    glob = shown("Glob", {"pattern": "*.py"}, "a.py\nb.py",
                 detail={"filenames": ["a.py", "b.py"], "numFiles": 2, "durationMs": 5, "truncated": False})
    assert [part.kind for part in glob.parts] == ["files"] and glob.parts[0].paths == ["a.py", "b.py"]
    assert glob.brief == "2 files"
    grep = shown("Grep", {"pattern": "x"}, "Found 1 file\nsrc/" + EVIL,
                 detail={"mode": "files_with_matches", "filenames": ["src/" + EVIL], "numFiles": 1})
    assert grep.parts[0].paths == ["src/" + EVIL] and grep.brief == "1 file"
    lines = shown("Grep", {"pattern": "x", "output_mode": "content"}, "a.py:3:x = 1",
                  detail={"mode": "content", "filenames": [], "content": "a.py:3:x = 1", "numLines": 1})
    assert [part.kind for part in lines.parts] == ["code"]  # matching lines stay text
    none = shown("Glob", {"pattern": "*.zz"}, "No files found", detail={"filenames": [], "numFiles": 0})
    assert [part.kind for part in none.parts] == ["code"] and none.brief == "1 line"
    rejected = shown("Glob", {"pattern": "*"}, "The user doesn't want to proceed", is_error=True)
    assert [part.kind for part in rejected.parts] == ["code"]


def test_file_lists_from_the_text_when_nothing_was_recorded() -> None:
    assert found_files("Glob", "/a/b.py\n/a/c.py\n", None) == ["/a/b.py", "/a/c.py"]
    assert found_files("Glob", "/a/b.py\n(Results are truncated. Consider a more specific path.)", None) == ["/a/b.py"]
    assert found_files("Glob", "No files found", None) is None
    assert found_files("Grep", "Found 2 files\nx.py\ny.py", None) == ["x.py", "y.py"]
    assert found_files("Grep", "x.py:1:match", None) is None
    assert found_files("Grep", "", {"filenames": "not a list"}) is None
    assert found_files("Glob", "", {"filenames": ["a", 3]}) is None  # not all paths: shown as text
    gemini = 'Found 2 file(s) matching "*.py" within /w, sorted by modification time (newest first):\n/w/a.py\n/w/b.py'
    assert found_files("glob", gemini, None) == ["/w/a.py", "/w/b.py"]
    assert found_files("glob", 'No files found matching pattern "*.zz" within /w', None) is None
    listing = "Directory listing for /w/.gemini:\n[DIR] tmp\nGEMINI.md"
    assert found_files("list_directory", listing, None) == ["tmp/", "GEMINI.md"]
    assert found_files("Bash", "a\nb", None) is None


def test_a_long_file_list_shows_its_head_and_folds_the_rest() -> None:
    short, long = FileList([f"f{i}" for i in range(blocks.COLLAPSE_LINES)]), FileList([f"f{i}" for i in range(40)])
    assert short.head == short.paths and short.rest == []
    assert long.head == [f"f{i}" for i in range(blocks.PREVIEW_LINES)] and len(long.rest) == 40 - blocks.PREVIEW_LINES


# --- the one line of a result: status and size -------------------------------------------------


def test_a_results_brief_says_how_it_ended_and_its_size() -> None:
    assert shown("Bash", {"command": "seq 3"}, "1\n2\n3").brief == "3 lines"
    assert shown("Bash", {"command": "x"}, "boom", is_error=True).brief == "error · 1 line"
    codex = shown("exec_command", {"cmd": "make"}, '{"output": "a\\nb\\n", "metadata": {"exit_code": 2}}')
    assert codex.brief == "exit 2 · 3 lines"
    gemini = shown("run_shell_command", {"command": "ls"}, "x", detail={"exit_code": 0, "status": "cancelled"})
    assert gemini.brief == "exit 0 · cancelled · 1 line"
    assert ResultView(False).brief == "no output"
    assert ResultView(False, [result_views.ImageView("x.png", "a"), FileList(["a"]), LinkList([])]).size == "1 file · 1 image"


# --- a reply's tokens ----------------------------------------------------------------------------------


def test_reply_tokens_input_output_and_cache() -> None:
    tokens = reply_tokens(Usage(input_tokens=5, output_tokens=1234, cache_creation_input_tokens=1200,
                                cache_read_input_tokens=12345))
    assert tokens == formats.ReplyTokens(
        14784, "in 5 · out 1.2k · cache 13.5k",
        "Tokens: 5 in, 1,234 out, 12,345 cache read, 1,200 cache write")
    plain = reply_tokens(Usage(input_tokens=7, output_tokens=30, reasoning_output_tokens=12))
    assert plain == formats.ReplyTokens(37, "in 7 · out 30", "Tokens: 7 in, 30 out (12 of them reasoning)")
    codex = reply_tokens(Usage(input_tokens=9, output_tokens=2, cache_read_input_tokens=1000))
    assert codex == formats.ReplyTokens(1011, "in 9 · out 2 · cache 1k", "Tokens: 9 in, 2 out, 1,000 cache read")


def test_reply_tokens_unknown_or_not_recorded() -> None:
    unknown = reply_tokens(Usage(output_tokens=3, unknown=True))
    assert unknown is not None and unknown.unknown and unknown.text == "tokens unknown"
    assert reply_tokens(Usage()) is None  # nothing recorded (an API error, a synthetic reply)
    assert reply_tokens(None) is None and reply_tokens({"input_tokens": 3}) is None


# --- excerpts of folded Markdown ----------------------------------------------------------------------


@pytest.mark.parametrize(("text", "line"), [
    ("**Beginning the Build**\n\nI'm starting.", "Beginning the Build"),
    ("\n\n## Plan: *do* it", "Plan: do it"),
    ("see [the docs](https://x.example) and `code`", "see the docs and code"),
    ("snake_case_name stays", "snake_case_name stays"),
    ("x < y & z", "x < y & z"),
    ("- item **one**", "item one"),
    ("", ""),
])
def test_excerpt_is_the_first_line_as_a_reader_sees_it(text: str, line: str) -> None:
    assert excerpt(text, 90) == line


def test_excerpt_is_cut_and_plain_line_takes_only_text() -> None:
    assert excerpt("**" + "a" * 200 + "**", 90) == "a" * 89 + "…"
    assert plain_line(None) == ""  # type: ignore[arg-type]
    # Text, not markup: the template escapes it (raw HTML is off, so tags stay as text).
    assert plain_line(f"**{EVIL}**") == EVIL


def test_results_of_other_tools_are_unchanged() -> None:
    call = ToolCall("r", "Read", {"file_path": "x.py"}, result=ToolResult([Text("     1→import os")]))
    view = pages.PageState("p.html", {}).result(call, tool_views.tool_view(call))
    assert view is not None and [p.kind for p in view.parts] == ["code"]
