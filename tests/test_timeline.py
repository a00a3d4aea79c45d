"""The default theme's item templates joined into one (bough_site/render/timeline.py):
the very bytes the templates write one include at a time, and used only with the
default's templates.

Each comparison renders a session twice, with the joined timeline and with it
forced off (``renderer.timeline = None``: every item through its own files, as a
theme that replaces an item template gets), and compares every page."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, ClassVar

import jinja2
import pytest
from markupsafe import Markup

from bough_site import urls
from bough_site.build import load_site
from bough_site.config import BuildConfig
from bough_site.model import (
    Command,
    Image,
    Marker,
    Project,
    Prompt,
    Reply,
    Session,
    Site,
    SubagentRun,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Usage,
)
from bough_site.plan.units import SOURCE_OF_KIND
from bough_site.readers.registry import READERS
from bough_site.render import default_theme_dir
from bough_site.render.env import make_env
from bough_site.render.timeline import JOINED, _extends_only, _inputs, joined_code, plain_tool, theme_is_default
from bough_site.render.pages import Renderer
from corpus.claude import generate_claude_history
from corpus.codex import generate_codex_history
from corpus.copilot import generate_copilot_history
from corpus.gemini import generate_gemini_history

from .helpers import (EVIL, PNG_B64, SVG_B64, claude_timeline, codex_timeline, fixtures_dir, lay_out_as_config_dir,
                      result, session, subagent)

DEFAULT_TEMPLATES = default_theme_dir() / "templates"


# --- rendering both ways ---------------------------------------------------------------------


def pages_both_ways(renderer: Renderer, project: Project, session: Session,
                    links: dict[str, str] | None = None) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The session's files one include at a time, then with the joined timeline."""
    fast = renderer.timeline
    assert fast is not None, "the joined timeline is off: the comparison would compare the includes with themselves"
    renderer.timeline = None
    try:
        slow = dict(renderer.session_pages(project, session, links or {}))
    finally:
        renderer.timeline = fast
    return slow, dict(renderer.session_pages(project, session, links or {}))


def assert_same(renderer: Renderer, project: Project, session: Session,
                links: dict[str, str] | None = None) -> str:
    """Every file the same both ways; the first page's text, for checks on what it shows."""
    slow, fast = pages_both_ways(renderer, project, session, links)
    assert list(slow) == list(fast)
    for path in slow:
        assert fast[path] == slow[path], f"{session.id}: {path} differs"
    return fast[urls.session_html(project.id, session.slug)].decode()


def assert_site_same(site: Site, *, search: bool) -> int:
    """Every session page of the site the same both ways; how many sessions."""
    renderer = Renderer(search=search)
    links = {s.id: urls.session_html(p.id, s.slug) for p in site.projects for s in p.sessions}
    count = 0
    for project in site.projects:
        for one in project.sessions:
            assert_same(renderer, project, one, links)
            count += 1
    return count


def sources(site: Site) -> set[str]:
    return {s.source for p in site.projects for s in p.sessions}


# --- (a) real histories: the bundled examples and the generated corpora -------------------------


@pytest.mark.parametrize("search", [True, False], ids=["search", "no-search"])
def test_bundled_examples_render_the_same(search: bool) -> None:
    site = load_site(BuildConfig(sources=[]))  # no history at home (conftest): the bundled examples
    assert sources(site) == {SOURCE_OF_KIND[kind] for kind in READERS}  # every agent's example
    assert assert_site_same(site, search=search) >= 10


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Site:
    root = tmp_path_factory.mktemp("corpora")
    generate_claude_history(root / "claude")
    generate_claude_history(root / "wide", seed=3, projects=3, sessions_per_project=3, turns_per_session=9)
    generate_codex_history(root / "codex")
    generate_gemini_history(root / "gemini", turns=3)
    generate_copilot_history(root / "copilot", seed=5, sessions=6)
    found = [root / "claude" / "projects", root / "wide" / "projects", root / "codex" / "sessions",
             root / "codex" / "archived_sessions", root / "gemini", root / "copilot" / ".copilot"]
    return load_site(BuildConfig(sources=found))


def test_generated_corpora_render_the_same(corpora: Site) -> None:
    assert sources(corpora) == {"claude-code", "codex", "gemini-cli", "copilot-cli"}
    assert assert_site_same(corpora, search=True) >= 25


def test_generated_corpora_render_the_same_split_in_parts(corpora: Site) -> None:
    # Small parts: every item boundary is a page boundary somewhere.
    renderer = Renderer(search=False)
    renderer.page_limit = 4_000
    parts = 0
    for project in corpora.projects:
        for one in project.sessions:
            slow, fast = pages_both_ways(renderer, project, one)
            assert fast == slow, one.id
            parts += sum(1 for path in fast if path.endswith(".html"))
    assert parts > 2 * sum(len(p.sessions) for p in corpora.projects)


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini", "copilot"])
def test_the_real_fixtures_render_the_same(kind: str, tmp_path: Path) -> None:
    """Transcripts from public repositories (../shared/fixtures): shapes no generator
    thought of."""
    folder = fixtures_dir(kind)
    if kind == "claude":
        found = [lay_out_as_config_dir(folder, tmp_path)]
    elif kind == "codex":
        found = sorted(folder.glob("*.jsonl"))
    elif kind == "copilot":  # a loose legacy .json is no folder walk's: given on its own
        found = [folder, *sorted(folder.glob("*.json"))]
    else:
        found = [folder]
    assert assert_site_same(load_site(BuildConfig(sources=found)), search=True) >= 5


# --- (b) hand-written items: every branch of the item templates ----------------------------------


@pytest.fixture(params=[True, False], ids=["search", "no-search"])
def renderer(request: pytest.FixtureRequest) -> Renderer:
    made = Renderer(search=request.param)
    assert made.timeline is not None
    return made


def render_timeline(renderer: Renderer, timeline: list[Any], **extra: Any) -> str:
    one = session("hand", "hand", "claude-code", timeline, **extra)
    project = Project(id="p", name="p", cwd="/w", sessions=[one], stats={})
    return assert_same(renderer, project, one, {"parent-session": urls.session_html("p", "parent")})


def test_helpers_timelines_with_hostile_text(renderer: Renderer) -> None:
    html = render_timeline(renderer, claude_timeline(), orphan_subagents=[subagent(1)])
    assert "&lt;script&gt;" in html and "<script>alert" not in html
    html = render_timeline(renderer, codex_timeline())
    assert "exit code 2" in html


class Widget:
    """A reply block of a kind no template knows: blocks/unknown.html, through Jinja."""

    kind: ClassVar[str] = "widget"


class Gadget:
    """A timeline item of a kind no template knows: items/unknown.html, through Jinja."""

    kind: ClassVar[str] = "gadget"
    id = "g1"
    timestamp = None


# A footnote's ids carry the Markdown's doc_id: the ids a block is rendered with show.
FOOTNOTE = "A claim.[^1]\n\n[^1]: Its source."


def trailer() -> str:
    return "agentId: a881341 (for resume)\n<usage>total_tokens: 43179\ntool_uses: 2\nduration_ms: 32900</usage>"


def todo_reply(depth: int) -> Reply:
    """A reply in a sub-agent with a tool the default theme shows through Jinja (TodoWrite)."""
    todo = ToolCall(f"todo-{depth}", "TodoWrite", {"todos": [{"content": "x", "status": "completed"}]},
                    result=result("ok"))
    return Reply(f"st{depth}", "r2", "2025-03-04T10:01:04Z", "m", [todo, Text("after")], Usage())


def nested_run(depth: int, agent_id: str = "deep") -> SubagentRun:
    """A run whose reply launches another, ``depth`` levels down; the last is empty."""
    if depth == 0:
        return SubagentRun(agent_id, None, None, "empty.jsonl", [], {})
    call = ToolCall(f"task-{depth}", "Agent", {"description": f"level {depth}", "prompt": "dig"},
                    result=result("done\n" + trailer()), subagent=nested_run(depth - 1, agent_id))
    timeline = [
        Prompt(f"sp{depth}", "p1", "2025-03-04T10:01:00Z", [Text(f"task {depth} " + EVIL)], removed="compacted"),
        Reply(f"sr{depth}", "r1", None, None, [Thinking("deep " + EVIL), call], Usage()),
        Marker(f"sk{depth}", "2025-03-04T10:01:02Z", "compaction", "Summary:\n" + EVIL + "\n" + FOOTNOTE),
        Command(f"sc{depth}", "2025-03-04T10:01:03Z", "/model", "x", "out"),
        todo_reply(depth),
    ]
    return SubagentRun(agent_id, "general" if depth % 2 else None, f"run {depth} " + EVIL, "a.jsonl", timeline,
                       {"replies": 1, "tool_calls": depth, "input_tokens": 1500 * depth})


def long_text(lines: int) -> str:
    return "\n".join(f"line {i} <{i}>" for i in range(lines))


def every_branch() -> list[Any]:
    calls = [
        ToolCall("c-none", "Grep", {"pattern": "x", "path": "src"}),  # no result
        ToolCall("c-empty", "Bash", {"command": "true"}, result=ToolResult([])),  # (no output)
        ToolCall("c-err", "Bash", {"command": "false", "description": "fails " + EVIL},
                 result=result("boom", is_error=True)),
        ToolCall("c-long", "Bash", {"command": "seq 200\necho done"}, result=result(long_text(200))),
        ToolCall("c-wide", "Bash", {"command": "cat x"}, result=result("y" * 5000)),  # long, one line
        ToolCall("c-write", "Write", {"file_path": "a.py", "content": long_text(40)}, result=result("ok")),
        ToolCall("c-diff", "Edit", {"file_path": "b.py", "old_string": long_text(60), "new_string": long_text(61)},
                 result=result("ok")),  # a diff of more than 80 lines: collapsed, no preview
        ToolCall("c-exit", "exec_command", {"cmd": "make"},
                 result=result('{"output": "built\\n", "metadata": {"exit_code": 0}}')),  # through tools/shell.html
        ToolCall("c-gem", "run_shell_command", {"command": "ls"},
                 result=result("x", detail={"exit_code": 1, "status": "cancelled"})),  # exit code and note
        ToolCall("c-task", "Task", {"description": "look", "prompt": long_text(30), "subagent_type": "Explore"},
                 result=result("## Found\n" + EVIL + "\n" + trailer()), subagent=nested_run(3)),
        ToolCall("c-empty-run", "Task", {"description": "nothing"}, result=result(trailer()),
                 subagent=SubagentRun("x/y", "t", "d", "f", [], {"replies": 1, "tool_calls": 1})),
        ToolCall("c-img", "mcp__shot", {"url": "https://x"},
                 result=ToolResult([Image("image/png", PNG_B64), Image("image/png", SVG_B64), Text("")])),
        ToolCall("c-json", "mcp__db", {"query": "select", "rows": list(range(30))}, result=result('{"a": [1, 2]}')),
        ToolCall("c-str", "mcp__raw", "not json " + EVIL, result=result("x")),
        ToolCall("c-fetch", "WebFetch", {"url": "https://example.com/a?b=<c>", "prompt": "p"}, result=result("ok")),
        ToolCall("c-plan", "update_plan", {"plan": [{"step": "s", "status": "pending"}], "explanation": "e"}),
        ToolCall("c-odd", "../../etc/passwd", {"a": 1}, result=result("x")),  # not a file name: default.html
        ToolCall("c-num", 42, {"a": 1}, result=result("x")),  # not even a string
        # Results shown as what they are (issue #36 point 6): files, folded past the first; links.
        ToolCall("c-files", "Glob", {"pattern": "*"}, result=result("(the paths)", detail={"filenames": [
            f"f{i}<{EVIL}>" for i in range(20)]})),
        ToolCall("c-few", "list_directory", {"dir_path": "."}, result=result("Directory listing for .:\n[DIR] d\nf")),
        ToolCall("c-links", "WebSearch", {"query": "q"}, result=result(
            'Links: [{"title": "t<1>", "url": "https://a.example/?x=<y>"}, {"title": "bad", "url": "javascript:x"}]'
            "\n\n**found** " + EVIL, detail={"durationSeconds": 1.5})),
        ToolCall("c-cited", "google_web_search", {"query": "q"},
                 result=result("Answer [1].\n\nSources:\n[1] Src " + EVIL + " (https://s.example/)")),
        ToolCall("c-web", "WebFetch", {"url": "https://x.example"},
                 result=result("# Page\n" + long_text(30), detail={"code": 200, "codeText": "OK", "bytes": 2048})),
        ToolCall("c-todo", "write_todos", {"todos": [{"description": "d", "status": "completed"}]}, result=result("")),
        ToolCall("c-stdin", "write_stdin", {"chars": "y\n", "session_id": 3}, result=result("ok")),
    ]
    return [
        Marker("k0", "2025-03-04T09:59:00Z", "inherited", "", ref_session="parent-session", count=1),
        Marker("k1", None, "inherited", "", ref_session=EVIL, count=3),
        Marker("k2", "2025-03-04T09:59:01Z", "inherited", long_text(3), count=0),
        Marker("k3", "2025-03-04T09:59:02Z", "compaction", long_text(5) + FOOTNOTE, removed="compacted"),
        Marker("k4", "2025-03-04T09:59:03Z", "error", "short " + EVIL, removed="rewound"),
        Marker("k5", "bad time", "no-such-type", "x" * 300),
        Marker("k6", "2025-03-04T09:59:04Z", "notice", ""),
        Prompt("u1", "p1", None, [Text(EVIL), Image("image/png", PNG_B64), Image("image/gif", "!!notbase64")],
               removed="rewound"),
        Prompt("u2", "p2", "2025-03-04T10:00:00Z", [], removed="compacted"),
        Prompt("u3", Markup("p<3>"), "2025-03-04T10:00:01Z", [Text("markup anchor")]),  # `~` keeps Markup as is
        Reply("m1", "r1", "2025-03-04T10:00:10Z", "claude-" + EVIL,
              [Thinking("hmm\n" + EVIL + FOOTNOTE), Text("**bold** " + EVIL + FOOTNOTE), *calls,
               Image("image/png", PNG_B64), Widget(), Text("")],
              Usage(), removed="rewound"),
        Reply("m2", "r2", None, None, [], Usage(), is_error=True, removed="odd<value>"),
        # Tokens on a reply's header (point 9): known, unknown.
        Reply("m3", "r3", None, "m", [Thinking("**Plan** " + EVIL + "\n\nsteps")],
              Usage(input_tokens=3, output_tokens=4500, cache_read_input_tokens=10**6, reasoning_output_tokens=9)),
        Reply("m4", "r4", None, "m", [Text("x")], Usage(output_tokens=1, unknown=True)),
        Command("c1", "2025-03-04T10:02:00Z", "/model", EVIL, "\x1b[1mSet\x1b[0m " + EVIL),
        Gadget(),
    ]


def test_every_branch_renders_the_same(renderer: Renderer) -> None:
    html = render_timeline(renderer, every_branch())
    # What the timeline was written to reach (the comparison alone would pass on empty pages).
    for shown in (
        "/rewind", "a compression", "odd&lt;value&gt;", "reply-error", "API error",  # removed badges, errors
        '<figure class="image">', "image-missing", "thinking-label", "collapsible", '<div class="preview">',
        "Show the diff (", "Show all 200 lines", "No result recorded.", "exit code 0", "exit code 1",
        '<span class="result-note">cancelled</span>', '<span class="result-note">sub-agent a881341',
        "(no output)", "transcript is empty", "agent-prompt", ">Task</span>", "[widget not shown]",
        'class="todos"', 'class="item command"', ">gadget</span>", "the parent session", "another session",
        "1 item copied", "3 items copied", "marker-more", 'id="p<3>"', "block-markdown",
        '<details class="tool" id="r1-3" open>', '<small>exit 0 · 2 lines</small>', "no result", "error · 1 line",
        "exit 0 · 2 lines", "Show 14 more files", '<ul class="file-list">', "<li>d/</li>", '<ol class="link-list">',
        'href="https://a.example/?x=&lt;y&gt;"', "<li>bad</li>", '<span class="link-host">s.example</span>',
        "200 OK · 2.0 KB", "2 links · 1.5 s", "<h1>Page</h1>", 'class="todo todo-completed"', "&#34;y\\n&#34;",
        '<data class="tokens" value="1004503"', "in 3 · out 4.5k · cache 1M", "(9 of them reasoning)",
        '<span class="tokens unknown"', '<span class="excerpt">Plan ',
    ):
        assert shown in html, shown
    for doc_id in ("m-k3", "r1-1", "r1-2", "a-deep-m-sk3", "a-deep-a-deep-m-sk2"):  # marker, thinking, text, nested
        assert f'id="fn-{doc_id}-1"' in html, doc_id
    assert html.count('<details class="subagent">') == 5  # four nested levels (the last empty), another empty run
    assert html.count("reply-error") == 1  # the API error reply alone
    assert ("data-pagefind-ignore" in html) == renderer.search


def test_a_sub_agent_prompt_uses_its_prefix(renderer: Renderer) -> None:
    run = nested_run(1, agent_id="same")
    calls = [ToolCall(f"t{i}", "Agent", {"description": "again"}, result=result("x"), subagent=nested_run(1, "same"))
             for i in range(3)]
    html = render_timeline(renderer, [Reply("m", "r1", None, "m", calls, Usage())], orphan_subagents=[run])
    # Three runs of one agent id: numbered apart, in the order the page shows them.
    for prefix in ("a-same-p1", "a-same-2-p1", "a-same-3-p1"):
        assert f'id="{prefix}"' in html, prefix


# --- (c) gating: a theme's own item templates are always rendered by Jinja ---------------------


def make_theme(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "templates" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def render_page(renderer: Renderer, timeline: list[Any]) -> str:
    one = session("g", "g", "claude-code", timeline)
    project = Project(id="p", name="p", cwd="/w", sessions=[one], stats={})
    return dict(renderer.session_pages(project, one, {}))[urls.session_html("p", "g")].decode()


def gating_timeline() -> list[Any]:
    foo = ToolCall("f1", "Foo", {"path": "x"}, result=result("ok"))
    return [
        Prompt("u1", "p1", "2025-03-04T10:00:00Z", [Text("hello")], removed="rewound"),
        Reply("m1", "r1", "2025-03-04T10:00:01Z", "m", [Text("hi"), foo], Usage()),
    ]


def test_a_theme_replacing_items_reply_is_rendered_by_jinja(tmp_path: Path) -> None:
    theme = make_theme(tmp_path, {"items/reply.html": "<p>MY-REPLY {{ item.anchor }}</p>\n"})
    renderer = Renderer(theme)
    assert renderer.timeline is None
    assert "<p>MY-REPLY r1</p>" in render_page(renderer, gating_timeline())


def test_a_theme_adding_a_tool_template_is_rendered_by_jinja(tmp_path: Path) -> None:
    theme = make_theme(tmp_path, {"tools/Foo.html": '{% extends "tools/default.html" %}'
                                                    "{% block tool_note %}<p>FOO-NOTE</p>{% endblock %}\n"})
    renderer = Renderer(theme)
    assert renderer.timeline is None
    assert "<p>FOO-NOTE</p>" in render_page(renderer, gating_timeline())


def test_a_theme_replacing_macros_is_rendered_by_jinja(tmp_path: Path) -> None:
    macros = (DEFAULT_TEMPLATES / "macros.html").read_text()
    assert "<time datetime=" in macros
    theme = make_theme(tmp_path, {"macros.html": macros.replace("<time datetime=", '<time class="mine" datetime=')})
    renderer = Renderer(theme)
    assert renderer.timeline is None
    html = render_page(renderer, gating_timeline())
    assert html.count('<time class="mine"') >= 2  # the prompt's and the reply's


@pytest.mark.parametrize("name", ["subagent.html", "item.html", "blocks/text.html", "tools/Bash.html",
                                  "tools/shell.html", "items/marker.html", "items/command.html"])
def test_a_theme_copying_any_item_template_turns_the_fast_path_off(tmp_path: Path, name: str) -> None:
    # Even an identical copy: the theme owns it now, and may edit it at any time.
    theme = make_theme(tmp_path, {name: (DEFAULT_TEMPLATES / name).read_text()})
    assert Renderer(theme).timeline is None


def test_a_theme_of_page_templates_or_static_files_keeps_the_fast_path(tmp_path: Path) -> None:
    header = (DEFAULT_TEMPLATES / "session_header.html").read_text()
    theme = make_theme(tmp_path, {"session_header.html": header + "<p>MY-HEADER</p>\n"})
    (theme / "static").mkdir()
    (theme / "static" / "extra.css").write_text("p{}")
    renderer = Renderer(theme)
    assert renderer.timeline is not None
    one = session("g", "g", "claude-code", every_branch())
    project = Project(id="p", name="p", cwd="/w", sessions=[one], stats={})
    assert "<p>MY-HEADER</p>" in assert_same(renderer, project, one)


def test_the_default_theme_named_as_a_theme_keeps_the_fast_path(tmp_path: Path) -> None:
    shutil.copytree(default_theme_dir(), tmp_path / "copy")  # a copy is another theme's files
    assert Renderer(default_theme_dir()).timeline is not None
    assert Renderer(tmp_path / "copy").timeline is None


# --- which tool templates are plain: read from their source ------------------------------------


def test_plain_tools_are_read_from_the_default_templates() -> None:
    env = make_env()
    assert theme_is_default(env)
    tools = sorted(p.name for p in (DEFAULT_TEMPLATES / "tools").glob("*.html"))
    plain = {name for name in tools if plain_tool(env, f"tools/{name}")}
    # Those with blocks of their own are not; Bash and the shells (through shell.html) are.
    assert {"TodoWrite.html", "update_plan.html", "write_todos.html", "todo_write.html", "update_todo.html",
            "WebFetch.html"}.isdisjoint(plain)
    assert {"default.html", "Bash.html", "shell.html", "exec_command.html", "Read.html", "Grep.html",
            "WebSearch.html", "glob.html"} <= plain
    assert len(plain) == len(tools) - 6


def test_extends_only_means_nothing_else_in_the_file() -> None:
    env = jinja2.Environment(loader=jinja2.DictLoader({
        "tools/A.html": '{#- about A -#}\n{% extends "tools/default.html" %}\n',
        "tools/B.html": '{% extends "tools/default.html" %}{% block tool_note %}x{% endblock %}',
        "tools/C.html": 'text {% extends "tools/default.html" %}',
        "tools/D.html": '{% extends name %}',
        "tools/E.html": '{% set x = 1 %}{% extends "tools/default.html" %}',
    }), trim_blocks=True, lstrip_blocks=True)
    assert _extends_only(env, "tools/A.html") == "tools/default.html"
    for name in ("B", "C", "D", "E", "missing"):
        assert _extends_only(env, f"tools/{name}.html") is None, name
    # Not the default theme's files: never plain, whatever they hold.
    assert not plain_tool(env, "tools/A.html")


def test_a_theme_template_that_is_only_an_extends_is_still_the_themes(tmp_path: Path) -> None:
    theme = make_theme(tmp_path, {"tools/default.html": "<p>MINE</p>\n"})
    env = make_env(theme)
    assert not theme_is_default(env)
    assert not plain_tool(env, "tools/Bash.html")  # it extends the theme's default.html


# --- joining: what the joined template is made of ----------------------------------------------


JOINABLE = {
    "item.html": '{#- dispatch -#}\n{% include ["items/" ~ item.kind ~ ".html", "items/unknown.html"] %}\n',
    "items/a.html": '{% set x = prefix ~ "a" %}<a id="{{ x }}">{{ m.tag(item.text) }}</a>\n'
                    '{% for item in item.children %}{% with prefix = x %}{% include "item.html" %}{% endwith %}'
                    '{% endfor %}\n',
    "items/b.html": "<b>{{ item.text }}{% include 'part.html' %}</b>\n",
    "items/unknown.html": "<i>{{ item.kind }}</i>\n",
    "part.html": "<{{ prefix }}>\n",
    "macros.html": "{% macro tag(text, how='em') -%}<{{ how }}>{{ text }}</{{ how }}>{%- endmacro %}\n",
}


def test_the_joined_template_writes_what_the_includes_write() -> None:
    """Nested items (item.html again, to any depth: entered with item and prefix, the
    context item.html documents), a kind with no file, a partial by name, a macro
    with a default: the same bytes joined as included, from templates this module
    has never seen (an edit to a template is in the joined one)."""
    env = jinja2.Environment(loader=jinja2.DictLoader(JOINABLE), autoescape=True, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.globals["m"] = env.get_template("macros.html").module
    # Rendered where only macros.html is found: an include left in it would fail.
    bare = jinja2.Environment(loader=jinja2.DictLoader({"macros.html": JOINABLE["macros.html"]}), autoescape=True,
                              undefined=jinja2.StrictUndefined)
    bare.globals["m"] = env.globals["m"]
    joined = bare.template_class.from_code(bare, joined_code(env), bare.make_globals(None))

    class Item:
        def __init__(self, kind: str, text: str, children: tuple[Any, ...] = ()) -> None:
            self.kind, self.text, self.children = kind, text, children

    known = Item("a", "<1>", (Item("b", "two"), Item("a", "3", (Item("b", "&"),))))
    included = env.get_template("item.html").render(item=known, prefix="p-")
    assert str(getattr(joined.make_module({"prefix": "p-"}), "timeline_item")(known, "p-")) == included
    assert '<a id="p-a"><em>&lt;1&gt;</em></a>' in included and "<b>two<p-a>\n</b>" in included
    assert "<b>&amp;<p-aa>\n</b>" in included
    # A kind with no file of its own keeps its include (items/unknown.html, found by it).
    unknown = Item("a", "1", (Item("zz", "?"),))
    joined = env.template_class.from_code(env, joined_code(env), env.make_globals(None))
    included = env.get_template("item.html").render(item=unknown, prefix="")
    assert str(getattr(joined.make_module({"prefix": ""}), "timeline_item")(unknown, "")) == included
    assert "<i>zz</i>" in included


def test_the_joined_template_is_kept_with_the_compiled_templates(tmp_path: Path) -> None:
    first = Renderer(compiled=tmp_path)
    assert first.timeline is not None
    env = first.env
    bucket = env.bytecode_cache.get_bucket(env, JOINED, None, _inputs(env))  # type: ignore[union-attr]
    assert bucket.code is None  # not made before a session is rendered
    first.timeline.template
    bucket = env.bytecode_cache.get_bucket(env, JOINED, None, _inputs(env))  # type: ignore[union-attr]
    assert bucket.code is not None
