"""The renderer: page structure, hostile input, links, determinism.

Small model objects built by hand (no readers involved), rendered, then parsed
with ``html.parser`` so assertions are about elements and attributes, not text.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from typing import Any

import pytest
from markupsafe import Markup

from bough_site import urls
from bough_site.publish import sessions_script
from bough_site.model import (
    Image,
    Project,
    Prompt,
    Reply,
    Site,
    Text,
    ToolCall,
    ToolResult,
    Usage,
    InputWarning,
)
from bough_site.render import formats, pages, result_views, tool_views
from bough_site.render.formats import short_model, short_models
from bough_site.render.months import by_month
from bough_site.render.pages import Renderer
from bough_site.render.parts import OUTLINE_CHARS, Part, anchor_parts, prompt_line
from bough_site.render.project_summary import newest_first

from .helpers import EVIL, EVIL_MEDIA, EVIL_URL, LINKS, Node, make_site, parse, png_bytes, result, session


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site() -> Site:
    return make_site()


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer()


@pytest.fixture(scope="module")
def rendered(site: Site, renderer: Renderer) -> dict[str, bytes]:
    """Every file one build would write, by path."""
    out: dict[str, bytes] = dict(renderer.assets())
    out[urls.INDEX_HTML] = renderer.index_page(site)
    for project in site.projects:
        out[urls.project_html(project.id)] = renderer.project_page(project, site)
        out[urls.project_sessions_js(project.id)] = sessions_script(project)
        for s in project.sessions:
            for path, data in renderer.session_pages(project, s, LINKS):
                out[path] = data
    return out


def html_pages(rendered: dict[str, bytes]) -> dict[str, bytes]:
    return {path: data for path, data in rendered.items() if path.endswith(".html")}


def s1_page(rendered: dict[str, bytes]) -> Node:
    return parse(rendered[urls.session_html("alpha", "s1")])


# --- structure ------------------------------------------------------------------------------


def test_pages_written(rendered: dict[str, bytes]) -> None:
    assert {urls.INDEX_HTML, urls.project_html("alpha"), urls.project_html("beta")} <= set(rendered)
    for slug in ("s1", "s2"):
        assert urls.session_html("alpha", slug) in rendered
    assert urls.session_html("beta", "s3") in rendered


def test_csp_first_in_head(rendered: dict[str, bytes]) -> None:
    for path, data in html_pages(rendered).items():
        head = parse(data).find_all("head")[0]
        first = head.children[0]
        assert first.tag == "meta" and first.attrs["http-equiv"] == "Content-Security-Policy", path
        assert "'unsafe-inline'" not in (first.attrs["content"] or "")
        assert first.attrs["content"] == pages.CSP


def test_prompt_and_reply_anchors(rendered: dict[str, bytes]) -> None:
    root = s1_page(rendered)
    ids = {n.attrs.get("id") for n in root.iter()}
    assert {"p1", "r1", "p2", "r2"} <= ids
    prompt = next(n for n in root.iter() if n.attrs.get("id") == "p1")
    assert "prompt" in prompt.classes
    self_links = [a for a in prompt.find_all("a", "self-link")]
    assert [a.attrs["href"] for a in self_links] == ["#p1"]
    # The person's words are kept as text, escaped.
    assert EVIL in prompt.find_all("div", "prompt-text")[0].all_text()


def test_ids_are_unique(rendered: dict[str, bytes]) -> None:
    for path, data in html_pages(rendered).items():
        ids = [n.attrs["id"] for n in parse(data).iter() if n.attrs.get("id")]
        assert len(ids) == len(set(ids)), path


def test_markdown_and_thinking(rendered: dict[str, bytes]) -> None:
    reply = next(n for n in s1_page(rendered).iter() if n.attrs.get("id") == "r1")
    assert reply.find_all("strong"), "assistant text is rendered as Markdown"
    thinking = reply.find_all("details", "thinking")
    assert thinking and "open" not in thinking[0].attrs


def tools(root: Node) -> dict[str, Node]:
    """Each .tool element by the tool name in its summary."""
    found = {}
    for node in root.find_all("details", "tool"):
        name = node.find_all("span", "tool-name")[0].all_text()
        found.setdefault(name, node)
    return found


def test_tool_call_summary_and_result_beside_it(rendered: dict[str, bytes]) -> None:
    by_name = tools(s1_page(rendered))
    bash = by_name["Bash"]
    head = bash.find_all("summary")[0].all_text()
    assert "Bash" in head and "pytest -q" in head
    # The call folds to its line (open in the HTML); the result is inside the same .tool element,
    # right after the call's input.
    kids = bash.children
    assert "open" in bash.attrs and kids[0].tag == "summary"
    assert "tool-note" in kids[1].classes and "tool-result" in kids[2].classes
    assert "ok " + EVIL in kids[2].all_text()
    assert "Read" in by_name and "src/" in by_name["Read"].find_all("summary")[0].all_text()
    assert "tool-error" in by_name["WebFetch"].classes
    assert by_name["Glob"].find_all("div", "missing"), "a call without a result says so"


def test_read_result_highlighted_by_file_name() -> None:
    call = ToolCall("r", "Read", {"file_path": "x.py"}, result=result("     1→import os\n     2→print(1)"))
    view = tool_views.tool_view(call)
    block = result_views.result_text_block(call, view, call.result.content[0].text, result_views.ResultView(False))
    assert "→" not in block.full and 'class="kn"' in block.full  # Python keyword, numbers stripped


def test_edit_diffs(rendered: dict[str, bytes]) -> None:
    edits = [
        t for t in s1_page(rendered).find_all("details", "tool") if t.find_all("span", "tool-name")[0].all_text() == "Edit"
    ]
    assert len(edits) == 2
    for edit in edits:
        lines = edit.find_all("span", "line")
        kinds = {c for line in lines for c in line.classes}
        assert {"add", "del"} <= kinds
    structured = edits[0].find_all("span", "add")[0].all_text()
    assert structured == "+new " + EVIL  # from structuredPatch, not the input strings


def test_write_and_patch(rendered: dict[str, bytes]) -> None:
    write = tools(s1_page(rendered))["Write"]
    assert write.find_all("pre", "code") and write.find_all("span", "k")  # `def` highlighted
    codex = tools(parse(rendered[urls.session_html("alpha", "s2")]))
    patch = codex["apply_patch"]
    assert "src/app.py" in patch.find_all("summary")[0].all_text()
    assert patch.find_all("span", "add") and patch.find_all("span", "del")
    assert "cargo test" in codex["shell"].find_all("summary")[0].all_text()
    assert "exit code 2" in codex["shell"].find_all("div", "result-head")[0].all_text()
    assert "rg foo" in codex["exec_command"].find_all("summary")[0].all_text()
    assert "pagefind" in codex["web_search"].find_all("summary")[0].all_text()
    assert len(codex["update_plan"].find_all("li", "todo")) == 2
    assert codex["list_mcp_resources"].find_all("span", "nt")  # JSON result highlighted (its keys)


def test_todo_checklist(rendered: dict[str, bytes]) -> None:
    todo = tools(s1_page(rendered))["TodoWrite"]
    items = todo.find_all("ul", "todos")[0].find_all("li")
    assert [sorted(i.classes - {"todo"}) for i in items] == [["todo-completed"], ["todo-in_progress"], ["todo-pending"]]
    assert EVIL in items[0].all_text()


def test_nested_subagents(rendered: dict[str, bytes]) -> None:
    task = tools(s1_page(rendered))["Task"]
    outer = [d for d in task.children if d.tag == "details" and "subagent" in d.classes]
    assert len(outer) == 1 and "open" not in outer[0].attrs
    inner = outer[0].find_all("details", "subagent")
    assert len(inner) == 2  # itself and the nested one
    nested_ids = {n.attrs.get("id") for n in outer[0].iter() if n.attrs.get("id")}
    assert nested_ids and all(i.startswith("a-") for i in nested_ids)


def test_a_subagent_report_trailer_becomes_a_note_in_the_result_head() -> None:
    trailer = ("agentId: a881341 (for resuming to continue this agent's work if needed)\n"
               "<usage>total_tokens: 43179\ntool_uses: 1\nduration_ms: 32855</usage>")
    task = ToolCall("t", "Task", {"description": "d", "prompt": "p"},
                    result=ToolResult(content=[Text("## Report"), Text(trailer)], is_error=False))
    state = pages.PageState("p.html", {})
    view = state.result(task, tool_views.tool_view(task))
    assert view is not None and view.note == "sub-agent a881341 · 43,179 tokens · 1 tool use · 32.9 s"
    assert [part.kind for part in view.parts] == ["markdown"]  # the report alone
    assert result_views.agent_trailer("Report\nagentId: x") is None  # inside a report: left as written
    bash = ToolCall("b", "Bash", {"command": "x"}, result=ToolResult(content=[Text(trailer)], is_error=False))
    shown = state.result(bash, tool_views.tool_view(bash))
    assert shown is not None and shown.note == "" and len(shown.parts) == 1  # only a sub-agent's result


def test_orphans_and_markers(rendered: dict[str, bytes]) -> None:
    root = s1_page(rendered)
    assert root.find_all("section", "orphans")[0].find_all("details", "subagent")
    markers = root.find_all(None, "marker")
    types = {c for m in markers for c in m.classes if c.startswith("marker-")}
    assert {f"marker-{t}" for t in pages.MARKER_TYPES} <= types
    assert not any(m.find_all(None, "prompt") for m in markers)
    inherited = next(m for m in markers if "marker-inherited" in m.classes)
    assert inherited.find_all("a")[0].attrs["href"] == "../../beta/sessions/s3.html"
    codex = parse(rendered[urls.session_html("alpha", "s2")])
    unknown = codex.find_all(None, "marker-inherited")[0]
    assert not unknown.find_all("a") and "unknown-session" in unknown.all_text()


def test_command(rendered: dict[str, bytes]) -> None:
    command = s1_page(rendered).find_all("section", "command")[0]
    assert command.find_all("code", "command-name")[0].all_text() == "/model" + EVIL
    assert "\x1b" not in command.all_text() and "Set model" in command.all_text()


def test_images(rendered: dict[str, bytes]) -> None:
    root = s1_page(rendered)
    imgs = root.find_all("img")
    assert imgs
    for img in imgs:
        assert img.attrs["src"].startswith("../../../images/") and img.attrs["src"].endswith(".png")
        assert "onerror" not in img.attrs and EVIL_MEDIA not in img.attrs.get("alt", "")
    missing = root.find_all("p", "image-missing")
    assert len(missing) == 2 and all(m.all_text().startswith("[image not shown: ") for m in missing)
    written = [path for path in rendered if path.startswith("images/")]
    assert len(written) == 1 and rendered[written[0]] == png_bytes()


def test_long_results_collapsed(rendered: dict[str, bytes]) -> None:
    long = [t for t in s1_page(rendered).find_all("details", "tool") if "seq 100" in t.all_text()][0]
    result = long.find_all("div", "tool-result")[0]
    collapsible = result.find_all("div", "collapsible")[0]
    assert collapsible.find_all("div", "preview")
    assert "1\n2\n3" in collapsible.find_all("div", "preview")[0].all_text()
    assert "100" in collapsible.find_all("details", "more")[0].all_text()


def test_session_header(rendered: dict[str, bytes]) -> None:
    root = s1_page(rendered)
    header = root.find_all("header", "session-header")[0]
    text = header.all_text()
    for needle in ("/home/" + EVIL, "feat/" + EVIL, "claude-" + EVIL, "2.1.0" + EVIL, "Claude Code", "s1-" + EVIL):
        assert needle in text
    assert "1\xa0h\xa005\xa0min" in text
    warnings = header.find_all("details", "warnings")[0]
    assert "2 warnings" in warnings.all_text() and "a.jsonl:3: not JSON " + EVIL in warnings.all_text()
    assert "github-token" in header.find_all("p", "redactions")[0].all_text()
    hrefs = [a.attrs["href"] for a in header.find_all("a")]
    assert "s1.json" in hrefs
    times = header.find_all("time")
    assert times[0].attrs["datetime"] == "2025-03-04T10:00:00Z" and times[0].all_text() == "2025-03-04 10:00 UTC"
    codex = parse(rendered[urls.session_html("alpha", "s2")]).find_all("header", "session-header")[0]
    assert "../../beta/sessions/s3.html" in [a.attrs["href"] for a in codex.find_all("a")]
    assert "reasoning tokens" in codex.all_text()


def test_the_facts_fit_a_line_and_the_rest_is_folded_under_details(rendered: dict[str, bytes]) -> None:
    """Issue #36, point 1: when, how long, models, agent, prompts and tokens on a line
    under the title (a fact never broken across lines); the stats, the directory, ids,
    versions, redactions, warnings and the data link in "Details"; bough's own counts
    (records, lines read and skipped) in the sidecar."""
    header = s1_page(rendered).find_all("header", "session-header")[0]
    line = header.find_all("p", "facts-line")[0]
    raw = re.search(r'<p class="facts-line">(.*?)</p>', rendered[urls.session_html("alpha", "s1")].decode(), re.S)
    assert html.unescape(re.sub(r"<[^>]+>", "", raw.group(1))) == ("Claude Code · 2025-03-04 10:00 UTC · 1\xa0h\xa005\xa0min · "
                               f"{EVIL} · 2\xa0prompts · 1.2M\xa0tokens")  # the model as rows name it
    assert [n.all_text() for n in line.find_all("span", "model-name")] == [EVIL]
    details = header.find_all("details", "session-details")[0]
    assert details.find_all("summary")[0].all_text() == "Details · 2 warnings"
    folded = details.all_text()
    for needle in ("prompts", "output tokens", "/home/" + EVIL, "s1-" + EVIL, "2.1.0" + EVIL,
                   "feat/" + EVIL, "github-token", "not JSON " + EVIL, "Session data (JSON)"):
        assert needle in folded, needle
    # What explains bough's own reading is in the sidecar alone.
    page = rendered[urls.session_html("alpha", "s1")].decode()
    assert not any(f"stat-{key}" in page for key in ("records", "lines", "skipped_lines"))
    assert details.find_all("dl", "stats") and details.find_all("dl", "facts")
    # Nothing of that outside it: the header's other parts are the title, the line and the folds.
    outside = [n for n in header.children if n.tag != "div"]
    assert [n.tag for n in outside] == ["h1", "p"]


def test_the_outline_lists_every_prompt_linked_to_its_anchor(rendered: dict[str, bytes]) -> None:
    """Issue #36, point 2: every prompt of the session, in order, a short text linked to it."""
    nav = s1_page(rendered).find_all("nav", "outline")[0]
    assert nav.find_all("summary")[0].all_text() == "2 prompts"
    links = [(a.attrs["href"], a.all_text()) for a in nav.find_all("a")]
    assert links == [("#p1", EVIL), ("#p2", "thanks")]
    # A session without prompts has no outline (its side holds the find box alone).
    empty = parse(rendered[urls.session_html("beta", "s3")])
    assert not empty.find_all("nav", "outline") and empty.find_all("div", "session-side")


def test_a_prompt_in_the_outline_is_its_words_on_one_line() -> None:
    def line(*content: Any) -> str:
        return prompt_line(Prompt("u", "p1", None, list(content)))

    assert line(Text("  fix\n\n  the   build\tplease ")) == "fix the build please"
    assert line(Text(""), Text("second block")) == "second block"
    long = line(Text("word " * 40))
    assert len(long) == OUTLINE_CHARS and long.endswith("word…")
    assert line(Image("image/png", "iVBORw0KGgo=")) == "(image)"
    assert line() == "(no text)"


def test_the_neighbours_nav_names_its_session_and_falls_back_to_the_list(rendered: dict[str, bytes]) -> None:
    """Issue #36, point 3: a nav above and below the timeline (session.js fills them
    from the project's sessions.js); without scripts each links the project's list."""
    root = s1_page(rendered)
    navs = root.find_all("nav", "neighbours")
    assert len(navs) == 2
    assert navs[0].attrs["data-bough-neighbours"] == "sessions/s1.html" and "data-bough-neighbours" not in navs[1].attrs
    for nav in navs:
        assert [(a.attrs["href"], a.all_text()) for a in nav.find_all("a")] == [
            ("../index.html#sessions", f"All sessions of alpha {EVIL}")]
    scripts = [n.attrs["src"] for n in root.find_all("script")]
    assert scripts.index("../sessions.js") < scripts.index(next(s for s in scripts if "/session." in s))


def test_sessions_js_lists_the_project_oldest_first_escaped_for_a_script(site: Site) -> None:
    """The neighbours' data: [page, title, date] oldest first, JSON in which nothing can
    end the script or a line (docs/safety.md S2)."""
    alpha = next(p for p in site.projects if p.id == "alpha")
    late = session("s9", "s9", "codex", [], title="late </script>\u2028\u2029 & <b>", started="2025-03-06T00:00:00Z")
    undated = session("s0", "s0", "codex", [], title="", started=None, ended=None)
    project = Project(id="alpha", name="alpha", cwd="/w", sessions=[late, *alpha.sessions, undated], stats={})
    script = sessions_script(project)
    head = b"/* bough: this project's sessions, oldest first: [page, title, date] (bough_site/publish.py) */\n" \
        b"window.BOUGH_SESSIONS = "
    assert script.startswith(head) and script.endswith(b";\n")
    data = script[len(head):-2]
    for raw in (b"<", b">", b"&", "\u2028".encode(), "\u2029".encode()):
        assert raw not in data
    assert json.loads(data) == [
        ["sessions/s0.html", "Untitled session", ""],
        ["sessions/s1.html", "Title " + EVIL, "2025-03-04"],
        ["sessions/s2.html", "Title " + EVIL, "2025-03-05"],
        ["sessions/s9.html", "late </script>\u2028\u2029 & <b>", "2025-03-06"],
    ]


def test_kept_since(rendered: dict[str, bytes]) -> None:
    root = parse(rendered[urls.session_html("beta", "s3")])
    kept = root.find_all("p", "kept")[0]
    assert kept.all_text() == "original deleted; kept by bough since 2025-02-01"
    assert root.find_all("p", "empty")


# --- index and project pages ------------------------------------------------------------------


class Untouchable(list):
    """A timeline the index and project pages must never read."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("index/project page read a session timeline")

    __iter__ = __len__ = __getitem__ = __bool__ = __contains__ = _refuse  # type: ignore[assignment]


def test_index_and_project_use_summaries_only(renderer: Renderer) -> None:
    site = make_site()
    for project in site.projects:
        for s in project.sessions:
            s.timeline = Untouchable()
            s.orphan_subagents = Untouchable()
    renderer.index_page(site)
    for project in site.projects:
        renderer.project_page(project, site)


def _cells(row: Node) -> list[Node]:
    return [c for c in row.children if c.tag == "td"]


def test_index_page(rendered: dict[str, bytes]) -> None:
    root = parse(rendered[urls.INDEX_HTML])
    (table,) = root.find_all("table", "rows")
    assert table.attrs["data-bough-rows"] == "projects"
    heads = [th.all_text() for th in table.find_all("th")]
    assert heads == ["Project", "Last active", "Sessions", "Models", "Prompts", "Tokens"]
    rows = table.find_all("tbody")[0].find_all("tr")
    # Most recent activity first: alpha (March) before beta (January).
    assert [r.find_all("a")[0].all_text() for r in rows] == ["alpha " + EVIL, "beta"]
    alpha, beta = rows
    assert alpha.find_all("a")[0].attrs["href"] == "projects/alpha/index.html"
    assert {b.all_text() for b in alpha.find_all("span", "badge")} == {"Claude Code", "Codex"}
    assert alpha.attrs["data-source"] == "Claude Code,Codex"
    assert alpha.attrs["data-from"] == "2025-03-04T10:00:00Z"  # the first session's start
    title, last, sessions, models, prompts, tokens = _cells(alpha)
    assert title.find_all("span", "path")[0].all_text() == "/work/" + EVIL
    assert last.find_all("time")[0].attrs["datetime"] == "2025-03-05T09:01:00Z"
    assert sessions.all_text() == "2" and prompts.all_text() == "2"
    assert models.all_text() == EVIL  # "claude-" + EVIL, shortened
    # All four token kinds: 1,200 + 3,400 + 5,600 + 1,234,567.
    assert tokens.find_all("data")[0].attrs["value"] == "1244767" and tokens.all_text() == "1.2M"
    assert beta.find_all("span", "badge-kept")[0].all_text() == "1 kept by bough"
    assert not alpha.find_all("svg")  # rows carry no chart; the page has one for the site
    chart = root.find_all("svg")[0]
    assert chart.find_all("rect", "chart-bar")
    assert all(
        set(n.attrs)
        <= {"class", "x", "y", "width", "height", "viewbox", "preserveaspectratio", "role", "aria-label", "xmlns"}
        for n in chart.iter()
    )
    # The rows come before the totals.
    html = rendered[urls.INDEX_HTML].decode()
    assert html.index('<table class="rows') < html.index('<dl class="stats">')
    assert "index.json" in [a.attrs["href"] for a in root.find_all("a")]
    # Under the bars, their dates (issue #36): the first, middle and last of the 26 weeks
    # shown, in HTML so they keep their size as the chart stretches.
    assert re.search(r'</svg><div class="chart-axis" aria-hidden="true"><span>2024-09-09</span>'
                     r'<span>2024-12-02</span><span>2025-03-03</span></div><figcaption>', html)


def test_index_rows_name_their_source_only_when_the_site_has_several(renderer: Renderer) -> None:
    site = make_site()
    site.projects = [p for p in site.projects if p.id == "beta"]  # Claude Code only
    root = parse(renderer.index_page(site))
    (row,) = root.find_all("tbody")[0].find_all("tr")
    assert [b.all_text() for b in row.find_all("span", "badge")] == ["1 kept by bough"]
    assert row.attrs["data-source"] == "Claude Code"


def test_project_page(rendered: dict[str, bytes]) -> None:
    root = parse(rendered[urls.project_html("alpha")])
    (table,) = root.find_all("table", "rows")
    assert table.attrs["data-bough-rows"] == "sessions"
    months = table.find_all("tbody", "month")
    assert [m.find_all("tr", "month-head")[0].all_text() for m in months] == ["March 2025 2 sessions"]
    rows = [r for r in months[0].find_all("tr") if "month-head" not in r.classes]
    # Newest first: s2 (March 5) before s1 (March 4).
    assert [r.find_all("a")[0].attrs["href"] for r in rows] == ["sessions/s2.html", "sessions/s1.html"]
    s2, s1 = rows
    title, started, length, models, prompts, tokens = _cells(s1)
    assert started.find_all("time")[0].attrs["datetime"] == "2025-03-04T10:00:00Z"
    assert length.all_text() == "1 h 05 min" and length.attrs["data-v"] == "3900"
    assert models.all_text() == EVIL and prompts.all_text() == "2" and tokens.all_text() == "1.2M"
    # Two sources in the project: each row says its own; a fork says so.
    assert [b.all_text() for b in s2.find_all("span", "badge")] == ["Codex", "fork"]
    assert s1.attrs["data-source"] == "Claude Code" and s2.attrs["data-source"] == "Codex"
    assert "project.json" in [a.attrs["href"] for a in root.find_all("a")]
    assert root.find_all("dl", "stats")
    # No form control: rows.js makes the filters (a page holds none that would do nothing without it).
    assert not root.find_all("input") and not root.find_all("select")
    # The sessions come before the totals and what was built.
    html = rendered[urls.project_html("alpha")].decode()
    assert html.index('<table class="rows') < html.index('<dl class="stats">')


def test_months_group_sessions_newest_first_undated_last() -> None:
    march = session("a", "a", "claude-code", [], started="2025-03-31T23:59:00Z")
    april = session("b", "b", "claude-code", [], started="2025-04-01T00:00:00+00:00")
    undated = session("c", "c", "claude-code", [], started=None, ended=None)
    # No page draws year 5: a session started then is placed by its end (the helper's, in March 2025).
    ancient = session("d", "d", "claude-code", [], started="0005-01-02T00:00:00Z")
    first = session("e", "e", "claude-code", [], started="1970-01-02T00:00:00Z")
    months = by_month(newest_first([march, undated, april, ancient, first]))
    assert [(m.key, m.label, [s.id for s in m.sessions]) for m in months] == [
        ("2025-04", "April 2025", ["b"]),
        ("2025-03", "March 2025", ["a", "d"]),
        ("1970-01", "January 1970", ["e"]),
        ("", "Undated", ["c"]),
    ]


def test_short_model_names() -> None:
    assert short_model("claude-sonnet-4-5-20250929") == "sonnet-4-5"
    assert short_model("claude-opus-4-6") == "opus-4-6"
    assert short_model("gpt-5.4") == "gpt-5.4"
    assert short_model("claude-") == "claude-"
    assert short_models(["claude-haiku-4-5-20251001", "claude-haiku-4-5", "gpt-5"]) == ["haiku-4-5", "gpt-5"]


def test_index_lists_the_first_hundred_warnings(renderer: Renderer) -> None:
    site = make_site()
    site.warnings = [InputWarning(f"f{n:03d}.jsonl", n, "not valid JSON") for n in range(150)]
    root = parse(renderer.index_page(site))
    (box,) = root.find_all("details", "warnings")
    assert box.find_all("summary")[0].all_text() == "150 warnings"
    assert len(box.find_all("li")) == 100
    assert box.find_all("p", "more-note")[0].all_text() == "The first 100 of 150. Each session's page lists its own."


# --- safety ------------------------------------------------------------------------------------


def test_no_live_markup_anywhere(rendered: dict[str, bytes]) -> None:
    for path, data in html_pages(rendered).items():
        root = parse(data)
        for node in root.iter():
            if node.tag == "script":
                assert node.attrs.get("src"), f"{path}: inline script"
                assert not node.all_text().strip(), f"{path}: script with a body"
            assert node.tag not in ("style", "iframe", "object", "embed", "base", "form"), f"{path}: <{node.tag}>"
            for name, value in getattr(node, "raw_attrs", []):
                assert not name.startswith("on"), f"{path}: {name}= on <{node.tag}>"
                assert name != "style", f"{path}: style= on <{node.tag}>"
                if name in ("href", "src", "action", "formaction", "xlink:href"):
                    low = (value or "").strip().lower()
                    assert not low.startswith(("javascript:", "data:", "vbscript:")), f"{path}: {name}={value}"
            if node.tag == "meta":
                assert node.attrs.get("http-equiv", "").lower() != "refresh"
        assert b"<script>alert" not in data and b"<img src=x" not in data, path


def test_internal_links_are_relative_and_name_files(rendered: dict[str, bytes]) -> None:
    for path, data in html_pages(rendered).items():
        for node in parse(data).iter():
            for name in ("href", "src"):
                value = node.attrs.get(name)
                if value is None or value.startswith(("#", "https://", "http://", "mailto:")):
                    continue
                assert not value.startswith("/") and "://" not in value, f"{path}: {value}"
                target = value.split("#")[0]
                assert target and not target.endswith("/"), f"{path}: {value} names no file"
                resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                if not resolved.startswith("pagefind/") and not resolved.endswith(".json"):
                    assert resolved in rendered, f"{path}: {value} -> {resolved} not written"


def test_assets_hashed_and_linked(renderer: Renderer, rendered: dict[str, bytes]) -> None:
    names = [name for name, _ in renderer.assets()]
    assert any(n.startswith("assets/bough.") and n.endswith(".css") and n != "assets/bough.css" for n in names)
    assert any(n.startswith("assets/bough.") and n.endswith(".js") for n in names)
    assert any(n.startswith("assets/highlight.") for n in names)
    index = parse(rendered[urls.INDEX_HTML])
    linked = {n.attrs.get("href") or n.attrs.get("src") for n in index.find_all("link") + index.find_all("script")}
    # session.js only where it serves: on session pages (three folders down).
    on_sessions = {n.attrs["src"].removeprefix("../../../") for n in s1_page(rendered).find_all("script")}
    session_js = {n for n in names if n.startswith("assets/session.") and n.endswith(".js")}
    assert len(session_js) == 1 and session_js <= on_sessions and not session_js & linked
    assert {f"{n}" for n in names if n.endswith((".css", ".js"))} - session_js <= linked


def test_footer_names_version(rendered: dict[str, bytes]) -> None:
    from bough_site import __version__

    footer = parse(rendered[urls.INDEX_HTML]).find_all("footer")[0]
    assert footer.all_text().strip() == f"made with bough {__version__}"


def test_hostile_webfetch_url_not_linked(rendered: dict[str, bytes]) -> None:
    fetch = tools(s1_page(rendered))["WebFetch"]
    assert not fetch.find_all("a") and EVIL_URL in fetch.all_text()
    ok = tool_views.tool_view(ToolCall("w", "WebFetch", {"url": "https://example.com/x"}))
    assert ok.summary_href == "https://example.com/x"


# --- determinism and splitting ---------------------------------------------------------------------


def test_rendering_twice_gives_identical_bytes(site: Site, rendered: dict[str, bytes]) -> None:
    again = Renderer()
    second: dict[str, bytes] = dict(again.assets())
    second[urls.INDEX_HTML] = again.index_page(make_site())
    for project in make_site().projects:
        second[urls.project_html(project.id)] = again.project_page(project, site)
        second[urls.project_sessions_js(project.id)] = sessions_script(project)
        for s in project.sessions:
            second.update(again.session_pages(project, s, LINKS))
    assert second == rendered


def test_large_session_split_into_linked_parts(site: Site) -> None:
    renderer = Renderer()
    renderer.page_limit = 4_000
    project = next(p for p in site.projects if p.id == "beta")
    timeline = []
    for i in range(1, 21):
        timeline.append(Prompt(f"u{i}", f"p{i}", None, [Text("question " + "x" * 300)]))
        timeline.append(Reply(f"m{i}", f"r{i}", None, None, [Text("answer " + "y" * 300)], Usage()))
    big = session("big", "big", "claude-code", timeline)
    out = renderer.session_pages(project, big)
    paths = [p for p, _ in out]
    assert paths[0] == urls.session_html("beta", "big") and len(paths) > 2
    assert paths[1] == urls.session_html("beta", "big-2")
    anchors = []
    for number, (_path, data) in enumerate(out, start=1):
        root = parse(data)
        nav = root.find_all("nav", "parts")[0]
        rels = {a.attrs.get("rel"): a.attrs["href"] for a in nav.find_all("a")}
        if number > 1:
            assert rels["prev"] == posixpath.basename(paths[number - 2])
        if number < len(out):
            assert rels["next"] == posixpath.basename(paths[number])
        anchors += [n.attrs["id"] for n in root.iter() if n.attrs.get("id", "").startswith(("p", "r"))]
        # The outline lists every prompt of the session; one on another part links to that part's page.
        here = {n.attrs["id"] for n in root.iter() if n.attrs.get("id", "").startswith("p")}
        hrefs = [a.attrs["href"] for a in root.find_all("nav", "outline")[0].find_all("a")]
        assert len(hrefs) == 20
        for i, href in enumerate(hrefs, start=1):
            page, _, anchor = href.partition("#")
            assert anchor == f"p{i}"
            if anchor in here:
                assert page == ""
            else:
                holder = next(p for p, d in out if f'id="p{i}"'.encode() in d)
                assert page == posixpath.basename(holder)
    assert anchors == [a for i in range(1, 21) for a in (f"p{i}", f"r{i}")]


def test_a_page_is_encoded_as_it_is_rendered(site: Site) -> None:
    """A session page is never held whole as a str: one emoji makes such a str four
    bytes a character, beside the page's bytes, in a worker that holds the session too.
    Rendering this 1.3 MB page peaked at 9.5 times its size that way, 6.7 times now."""
    import tracemalloc

    renderer = Renderer()
    project = next(p for p in site.projects if p.id == "beta")
    output = "".join(f"line {i} → of what the command printed\n" for i in range(30_000))
    call = ToolCall("c1", "Bash", {"command": "make"}, result=result(output))
    big = session("big", "big", "claude-code", [Prompt("u1", "p1", None, [Text("look 🙂")]),
                                                Reply("m1", "r1", None, None, [call], Usage())])
    renderer.session_pages(project, big)  # the templates compiled, the highlighted blocks stored
    tracemalloc.start()
    try:
        out = renderer.session_pages(project, big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = sum(len(data) for _path, data in out)
    assert size > 1_000_000 and "🙂".encode() in out[0][1]
    assert peak < 8 * size


def test_links_to_a_moment_name_the_part_that_holds_it(site: Site) -> None:
    from bough_site import sidecars
    from bough_site.model import Project
    from bough_site.search.offline import _items

    renderer = Renderer()
    renderer.page_limit = 4_000
    timeline = []
    for i in range(1, 21):
        timeline.append(Prompt(f"u{i}", f"p{i}", None, [Text("question " + "x" * 300)]))
        timeline.append(Reply(f"m{i}", f"r{i}", None, None, [Text("answer " + "y" * 300)], Usage()))
    commit = {"id": "sha:abc1234", "hash": "abc1234", "branch": None, "message": "late", "amend": False,
              "call_id": "c1", "anchor": "r18", "timestamp": "2025-03-04T10:30:00Z", "agent": None}
    edit = {"call_id": "c2", "tool": "Edit", "action": "update", "anchor": "r2", "timestamp": None,
            "lines_added": 1, "lines_removed": 0, "agent": None}
    big = session("big", "big", "claude-code", timeline, commits=[commit],
                  file_changes=[{"path": "/w/a.py", "edits": [edit], "lines_added": 1, "lines_removed": 0}],
                  search_items=[["p19", "question"], ["p1", "question"]])
    project = Project("beta", "beta", "/w", [big], {})
    out = dict(renderer.session_pages(project, big))
    holder = next(path for path, data in out.items() if b'id="r18"' in data)
    number = big.anchor_parts["r18"]
    assert holder == urls.session_html("beta", f"big-{number}") and number > 1
    assert big.anchor_parts.get("r2") is None  # on the first page: nothing to note
    first = out[urls.session_html("beta", "big")].decode()
    assert f'href="big-{number}.html#r18"' in first and 'href="#r2"' in first  # the session's own list
    project_page = renderer.project_page(project, make_site()).decode()
    assert f'href="sessions/big-{number}.html#r18"' in project_page
    assert 'href="sessions/big.html#r2"' in project_page
    items = _items("beta", big)
    assert items[1] == ["p1", "question"] and items[0][2] == urls.session_html("beta", f"big-{big.anchor_parts['p19']}")
    sidecar = sidecars.session_json(project, big)
    assert sidecar["anchor_pages"] == {a: urls.session_html("beta", f"big-{n}") for a, n in big.anchor_parts.items()}
    assert sidecars.project_json(project)["commits"][0]["html"] == f"{holder}#r18"


def test_an_anchor_is_found_in_an_id_attribute_only() -> None:
    parts = [Part("a.html", 1), Part("a-2.html", 2), Part("a-3.html", 3)]
    parts[0].chunks = [Markup('<section id="r1">')]
    parts[1].chunks = [Markup('<p uid="r2" data-id="r3">'), Markup('<a class="x"\nid="r4">'), Markup('id="r5"')]
    parts[2].chunks = [Markup('<p title="id=&#34;r6&#34;" id="r2">')]
    wanted = {"r1", "r2", "r3", "r4", "r5", "r6"}
    # r1 is on the first page; uid, data-id and text are not an element's id.
    assert anchor_parts(parts, wanted) == {"r4": 2, "r2": 3}


def test_time_and_number_helpers() -> None:
    assert formats.when("2025-03-04T10:00:00.123+02:00").iso == "2025-03-04T08:00:00Z"
    assert formats.when("not a time") is None and formats.when(None) is None
    assert formats.duration("2025-01-01T00:00:00Z", "2025-01-01T00:00:42Z") == "42 s"
    assert formats.duration("2025-01-01T00:00:00Z", "2025-01-03T05:00:00Z") == "2 d 5 h"
    assert formats.compact(1_234_567) == "1.2M" and formats.compact(999) == "999" and formats.num(12345) == "12,345"
    assert tool_views.shell_command(["bash", "-lc", "ls -la"]) == "ls -la"
    assert tool_views.shell_command(["git", "status", "a b"]) == "git status 'a b'"
    assert tool_views.patch_files("*** Begin Patch\n*** Add File: a.py\n+x\n*** Delete File: b.py\n") == ["a.py", "b.py"]


def test_search_mode_marks_pages_for_pagefind(site: Site) -> None:
    renderer = Renderer(search=True)
    project = next(p for p in site.projects if p.id == "alpha")
    page = parse(dict(renderer.session_pages(project, project.sessions[0], LINKS))[urls.session_html("alpha", "s1")])
    csp = page.find_all("meta")[0].attrs["content"]
    assert csp == pages.CSP_SEARCH and "'unsafe-inline'" not in csp
    # Only the conversation is indexed (bough_site/search/): the timeline, not the header.
    assert "data-pagefind-body" not in page.find_all("main")[0].attrs
    assert "data-pagefind-body" in page.find_all("div", "timeline")[0].attrs
    scripts = [n.attrs["src"] for n in page.find_all("script")]
    assert any(re.fullmatch(r"\.\./\.\./\.\./assets/search\.[0-9a-f]{8}\.js", s) for s in scripts), scripts
    index = parse(renderer.index_page(site))
    assert index.find_all("div", "search") and b"data-pagefind-body" not in renderer.index_page(site)
    # Without search: no Pagefind anywhere.
    plain = Renderer().index_page(site)
    assert b"pagefind" not in plain


def test_unknown_kinds_do_not_fail_the_build(site: Site) -> None:
    """A kind a newer reader adds shows as a quiet note until the theme knows it."""

    class Mystery:
        kind = "mystery"

    project = next(p for p in site.projects if p.id == "beta")
    odd = session("odd", "odd", "claude-code", [Mystery(), Reply("m", "r1", None, None, [Mystery()], Usage())])
    root = parse(Renderer().session_pages(project, odd)[0][1])
    assert "mystery" in root.find_all("div", "marker")[0].all_text()
    assert "[mystery not shown]" in root.find_all("section", "reply")[0].all_text()
