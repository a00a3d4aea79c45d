"""The timeline items of issue #36 as pages show them, parsed (no browser): tools that
fold to one line (point 4), results shown as what they are (point 6), a reply's tokens
on its header and a compaction once, its summary folded beneath it (point 9), and the
real spotter transcripts in ../shared/fixtures/claude (WebFetch, WebSearch, local
commands, sub-agents). What a browser does with them: tests/test_items_browser.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bough_site import urls
from bough_site.build import load_site
from bough_site.config import BuildConfig
from bough_site.model import Marker, Project, Prompt, Reply, Text, Thinking, ToolCall, Usage
from bough_site.render.pages import Renderer

from .helpers import EVIL, EVIL_URL, Node, fixtures_dir, parse, result, session


def page(timeline: list[Any], *, search: bool = False) -> Node:
    one = session("s", "s", "claude-code", timeline)
    project = Project(id="p", name="p", cwd="/w", sessions=[one], stats={})
    return parse(dict(Renderer(search=search).session_pages(project, one, {}))[urls.session_html("p", "s")])


def reply(*blocks: Any, usage: Usage | None = None, anchor: str = "r1") -> Reply:
    return Reply("m-" + anchor, anchor, "2025-03-04T10:00:10Z", "claude-x", list(blocks), usage or Usage())


def tool_elements(root: Node) -> list[Node]:
    return root.find_all("details", "tool")


def summary_of(tool: Node) -> Node:
    [summary] = [child for child in tool.children if child.tag == "summary"]
    return summary


# --- point 4: every tool call folds to one line, open in the HTML -----------------------------


def test_a_tool_call_is_an_open_details_whose_summary_is_its_line() -> None:
    calls = [
        ToolCall("b", "Bash", {"command": "pytest -q", "description": "run"}, result=result("1\n2\n3")),
        ToolCall("e", "Bash", {"command": "false"}, result=result("boom", is_error=True)),
        ToolCall("n", "Glob", {"pattern": "*.py"}),  # no result recorded
        ToolCall("x", "exec_command", {"cmd": "make " + EVIL},
                 result=result('{"output": "a\\nb", "metadata": {"exit_code": 2}}')),
    ]
    root = page([reply(*calls)])
    tools = tool_elements(root)
    assert len(tools) == 4 and all("open" in tool.attrs for tool in tools)  # readable without JavaScript
    lines = [(summary_of(t).find_all("span", "tool-name")[0].all_text(),
              summary_of(t).find_all(None, "tool-arg")[0].all_text(),
              summary_of(t).find_all("small")[0].all_text()) for t in tools]
    assert lines == [("Bash", "pytest -q", "3 lines"), ("Bash", "false", "error · 1 line"),
                     ("Glob", "*.py", "no result"), ("exec_command", "make " + EVIL, "exit 2 · 2 lines")]
    assert "tool-error" in tools[1].classes and "tool-error" not in tools[0].classes
    # The input and the result are inside the fold, after the line.
    assert [c.tag for c in tools[0].children][:1] == ["summary"]
    assert tools[0].find_all("p", "tool-note")[0].all_text() == "run"
    assert tools[0].find_all("div", "tool-result")[0].find_all("pre")


def test_sub_agents_fold_inside_their_call() -> None:
    from .helpers import subagent

    task = ToolCall("t", "Task", {"description": "look", "prompt": "go"}, result=result("done"),
                    subagent=subagent(1))
    [outer, *inner] = tool_elements(page([reply(task)]))
    run = [child for child in outer.children if child.tag == "details" and "subagent" in child.classes]
    assert len(run) == 1 and "open" not in run[0].attrs  # a sub-agent's run stays folded, as before
    assert inner and all("open" in t.attrs for t in inner)


def test_the_toolbar_offers_collapse_expand_and_wrap_hidden_until_the_script_runs() -> None:
    root = page([reply(Text("hi"))])
    [bar] = root.find_all("div", "toolbar")
    assert "hidden" in bar.attrs and "data-bough-toolbar" in bar.attrs
    buttons = {b.all_text(): b.attrs for b in bar.find_all("button")}
    assert set(buttons) == {"Expand all", "Collapse all", "Wrap lines"}
    assert "data-bough-wrap" in buttons["Wrap lines"] and buttons["Wrap lines"]["aria-pressed"] == "true"


# --- point 6: results shown as what they are --------------------------------------------------


def test_web_search_results_are_links_and_web_fetch_markdown() -> None:
    links = [{"title": "Pagefind " + EVIL, "url": "https://pagefind.app/"}, {"title": "bad", "url": EVIL_URL}]
    search = ToolCall("s", "WebSearch", {"query": "static search"},
                      result=result('Web search results for query: "static search"\n\nLinks: ' + json.dumps(links)
                                    + "\n\n**Pagefind** indexes static sites.",
                                    detail={"query": "q", "results": [], "durationSeconds": 2.04}))
    fetch = ToolCall("f", "WebFetch", {"url": "https://pagefind.app/docs", "prompt": "how"},
                     result=result("# Docs\n\n- **one**\n- two",
                                   detail={"code": 200, "codeText": "OK", "bytes": 5000, "durationMs": 812}))
    search_tool, fetch_tool = tool_elements(page([reply(search, fetch)]))
    [listed] = search_tool.find_all("ol", "link-list")
    anchors = listed.find_all("a")
    assert [(a.attrs["href"], a.attrs["rel"], a.all_text()) for a in anchors] == [
        ("https://pagefind.app/", "noopener noreferrer nofollow", "Pagefind " + EVIL)]
    hosts = [[h.all_text() for h in li.find_all("span", "link-host")] for li in listed.find_all("li")]
    assert hosts == [["pagefind.app"], []]
    assert "".join(listed.find_all("li")[1].text) == "bad"  # not a link we make: its title alone
    assert search_tool.find_all("strong")[0].all_text() == "Pagefind"
    assert summary_of(search_tool).find_all("small")[0].all_text() == "2 links · 2.0 s"
    result_div = fetch_tool.find_all("div", "tool-result")[0]
    assert result_div.find_all("h1")[0].all_text() == "Docs" and len(result_div.find_all("li")) == 2
    assert "200 OK · 4.9 KB · 812 ms" in result_div.find_all("div", "result-head")[0].all_text()
    assert summary_of(fetch_tool).find_all("small")[0].all_text() == "200 OK · 4.9 KB · 812 ms"


def test_file_searches_are_file_lists_folded_when_long() -> None:
    many = [f"src/m{i}.py" for i in range(30)]
    grep = ToolCall("g", "Grep", {"pattern": "x"}, result=result("Found 30 files\n" + "\n".join(many),
                                                                  detail={"mode": "files_with_matches",
                                                                          "filenames": many, "numFiles": 30}))
    glob = ToolCall("h", "Glob", {"pattern": "*.md"}, result=result("a.md\n" + EVIL,
                                                                    detail={"filenames": ["a.md", EVIL]}))
    grep_tool, glob_tool = tool_elements(page([reply(grep, glob)]))
    lists = grep_tool.find_all("ul", "file-list")
    assert [li.all_text() for li in lists[0].find_all("li")] == many[:6]
    more = grep_tool.find_all("details", "more")[0]
    assert "open" not in more.attrs and "Show 24 more files" in more.all_text()
    assert [li.all_text() for li in lists[1].find_all("li")] == many[6:]
    assert [li.all_text() for li in glob_tool.find_all("li")] == ["a.md", EVIL]
    assert summary_of(grep_tool).find_all("small")[0].all_text() == "30 files"


def test_checklists_for_todowrite_update_plan_and_write_todos() -> None:
    calls = [
        ToolCall("a", "TodoWrite", {"todos": [{"content": "one", "status": "completed"}]}, result=result("ok")),
        ToolCall("b", "update_plan", {"plan": [{"step": "two", "status": "in_progress"}]}, result=result("ok")),
        ToolCall("c", "write_todos", {"todos": [{"description": "three", "status": "pending"}]}, result=result("ok")),
    ]
    tools = tool_elements(page([reply(*calls)]))
    shown = [[(sorted(li.classes), "".join(li.text).strip()) for li in t.find_all("li", "todo")] for t in tools]
    assert shown == [[(["todo", "todo-completed"], "one")], [(["todo", "todo-in_progress"], "two")],
                     [(["todo", "todo-pending"], "three")]]


def test_thinking_summaries_show_their_first_line_as_text_and_the_rest_as_markdown() -> None:
    root = page([reply(Thinking("**Reading the phase code**\n\nI'm looking at `phase()`."))])
    [thinking] = root.find_all("details", "thinking")
    assert thinking.find_all("span", "excerpt")[0].all_text() == "Reading the phase code"
    assert thinking.find_all("strong")[0].all_text() == "Reading the phase code"
    assert thinking.find_all("code")[0].all_text() == "phase()"


# --- point 9: tokens on a reply's header; a compaction once, folded ---------------------------------


def test_a_replys_tokens_are_on_its_header() -> None:
    known = reply(Text("a"), usage=Usage(input_tokens=5, output_tokens=1234, cache_read_input_tokens=12345,
                                         cache_creation_input_tokens=1200))
    unknown = reply(Text("b"), usage=Usage(output_tokens=3, unknown=True), anchor="r2")
    none = reply(Text("c"), anchor="r3")
    root = page([known, unknown, none])
    heads = [r.find_all("header", "item-head")[0] for r in root.find_all("section", "reply")]
    [data] = heads[0].find_all("data", "tokens")
    assert data.attrs == {"class": "tokens", "value": "14784",
                          "title": "Tokens: 5 in, 1,234 out, 12,345 cache read, 1,200 cache write"}
    assert data.all_text() == "in 5 · out 1.2k · cache 13.5k"
    [odd] = heads[1].find_all("span", "tokens")
    assert odd.all_text() == "tokens unknown" and "not a number" in odd.attrs["title"]
    assert not heads[2].find_all(None, "tokens")  # nothing recorded, nothing said
    assert "cost" not in root.find_all("div", "timeline")[0].all_text().lower()  # not known yet (issue #41)


def test_a_compaction_is_one_marker_with_its_summary_folded_beneath() -> None:
    summary = "This session continues an earlier one.\n\n## Done\n\n- **parser** fixed"
    root = page([Prompt("u", "p1", None, [Text("go")]), Marker("k", "2025-03-04T10:00:05Z", "compaction", summary),
                 reply(Text("on"))])
    [marker] = root.find_all("div", "marker-compaction")
    assert marker.find_all("span", "marker-label")[0].all_text() == "Context compacted"
    [fold] = marker.find_all("details", "marker-more")
    assert "open" not in fold.attrs
    assert fold.find_all("summary")[0].all_text() == "This session continues an earlier one."
    assert fold.find_all("h2")[0].all_text() == "Done" and fold.find_all("strong")[0].all_text() == "parser"


# --- the spotter fixtures: real Claude Code transcripts (../shared/fixtures/claude) --------------------


@pytest.fixture(scope="module")
def spotter(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Node]:
    """Each spotter session's page, by the fixture's name."""
    folder = fixtures_dir("claude")
    projects = tmp_path_factory.mktemp("spotter") / "projects"
    for entry in sorted(folder.glob("spotter__*")):
        target = projects / "-home-marco-projects-spotter" / entry.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.is_dir():
            import shutil

            shutil.copytree(entry, projects / entry.name)
        else:
            target.write_bytes(entry.read_bytes())
    site = load_site(BuildConfig(sources=[projects]))
    renderer = Renderer(search=True)
    pages: dict[str, Node] = {}
    for project in site.projects:
        for one in project.sessions:
            files = dict(renderer.session_pages(project, one, {}))
            pages[one.id] = parse(files[urls.session_html(project.id, one.slug)])
    return pages


def by_name(root: Node, name: str) -> list[Node]:
    return [t for t in tool_elements(root) if summary_of(t).find_all("span", "tool-name")[0].all_text() == name]


def test_spotter_web_fetch_is_markdown_with_status_size_and_time(spotter: dict[str, Node]) -> None:
    [fetch] = by_name(spotter["spotter__v2.1.38__tool_heavy"], "WebFetch")
    assert summary_of(fetch).find_all("small")[0].all_text() == "200 OK · 268.0 KB · 5.2 s"
    answer = fetch.find_all("div", "tool-result")[0]
    assert answer.find_all("h1")[0].all_text() == "Scroll Issues in xterm.js - Solutions and Workarounds"
    assert "Small terminal" in [s.all_text() for s in answer.find_all("strong")]
    assert "# Scroll" not in answer.all_text() and "**" not in answer.all_text()


def test_spotter_web_search_is_a_list_of_links(spotter: dict[str, Node]) -> None:
    [search] = by_name(spotter["spotter__v2.1.38__tool_heavy"], "WebSearch")
    anchors = search.find_all("ol", "link-list")[0].find_all("a")
    assert len(anchors) == 10
    assert (anchors[0].attrs["href"], anchors[0].all_text()) == (
        "https://github.com/xtermjs/xterm.js/issues/657",
        "[Question] Listen for mouse and scroll events · Issue #657 · xtermjs/xterm.js")
    assert "Links: [" not in search.all_text() and '"url"' not in search.all_text()
    assert summary_of(search).find_all("small")[0].all_text() == "10 links · 6.5 s"
    # Every search of the sub-agent session too: links, never the raw JSON.
    searches = by_name(spotter["spotter__v2.1.38__subagent"], "WebSearch")
    assert len(searches) == 5 and all("Links: [" not in s.all_text() for s in searches)
    assert all(s.find_all("ol", "link-list") for s in searches if "tool-error" not in s.classes)


def test_spotter_local_commands_are_commands_with_their_output(spotter: dict[str, Node]) -> None:
    commands = spotter["spotter__v2.1.38__short"].find_all("section", "command")
    assert [(c.find_all("code", "command-name")[0].all_text(), c.find_all("pre")[0].all_text()) for c in commands] == [
        ("/model", "Kept model as Default (recommended)")]
    heavy = spotter["spotter__v2.1.38__tool_heavy"].find_all("section", "command")
    assert [c.find_all("pre")[0].all_text() for c in heavy] == ["Reconnected to tidewave.", "MCP dialog dismissed"]


def test_spotter_sub_agents_fold_under_their_call(spotter: dict[str, Node]) -> None:
    # The session directory's sub-agent file: its run nested under the Task call, folded.
    [task] = by_name(spotter["258c7280-ae70-4798-800f-63464d01a85d"], "Task")
    [run] = [c for c in task.children if c.tag == "details" and "subagent" in c.classes]
    assert "open" not in run.attrs and run.find_all("section", "reply")
    assert all("open" in t.attrs for t in tool_elements(run))
    # A run whose file is not included: the report (Markdown) and the trailer's figures.
    [agent] = by_name(spotter["spotter__v2.1.38__subagent"], "Task")
    head = agent.find_all("div", "result-head")[0].all_text()
    assert "sub-agent afb92ff · 33,894 tokens · 9 tool uses · 38.8 s" in head
    assert agent.find_all("div", "block-markdown")


# --- themes/default/README.md: its example of a tool template works as written ----------------------


def test_the_readme_example_of_a_tool_template_renders(tmp_path: Path) -> None:
    import re

    from bough_site.render import default_theme_dir

    readme = (default_theme_dir() / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```jinja\n(\{# DIR/templates/tools/mcp__db__query\.html.*?)```", readme, re.S)
    assert example is not None
    (tmp_path / "templates" / "tools").mkdir(parents=True)
    (tmp_path / "templates" / "tools" / "mcp__db__query.html").write_text(example.group(1))
    calls = [ToolCall("a", "mcp__db__query", {"sql": "select * from t where " + "x" * 100}, result=result("1")),
             ToolCall("b", "mcp__db__query", "not json", result=result("1"))]
    one = session("s", "s", "claude-code", [reply(*calls)])
    project = Project(id="p", name="p", cwd="/w", sessions=[one], stats={})
    root = parse(dict(Renderer(tmp_path).session_pages(project, one, {}))[urls.session_html("p", "s")])
    lines = [[n.all_text() for n in summary_of(t).find_all("code", "tool-arg")] for t in tool_elements(root)]
    assert lines == [["select * from t where..."], [""]]  # truncate cuts at a word


def test_a_web_fetch_link_is_in_the_calls_body_not_its_line() -> None:
    """A link inside a <summary> is a control inside a control (axe: nested-interactive)."""
    calls = [ToolCall("w", "WebFetch", {"url": "https://example.com/a?b=<c>", "prompt": "p"}, result=result("ok")),
             ToolCall("v", "WebFetch", {"url": EVIL_URL, "prompt": "p"}, result=result("ok"))]
    safe, hostile = tool_elements(page([reply(*calls)]))
    assert not summary_of(safe).find_all("a") and not summary_of(hostile).find_all("a")
    [link] = safe.find_all("a")
    assert (link.attrs["href"], link.attrs["rel"], link.all_text()) == (
        "https://example.com/a?b=<c>", "noopener noreferrer nofollow", "https://example.com/a?b=<c>")
    assert not hostile.find_all("a") and EVIL_URL in summary_of(hostile).all_text()
