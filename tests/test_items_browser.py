"""The timeline items of issue #36 in Chromium: tools and replies that fold (point 4),
output that wraps (point 5), results shown as what they are (point 6), a reply's tokens
on its header and a compaction folded (point 9), and the diff stripe beside its -/+.

Sites built for it: a generated Claude Code session of more than 100 tool calls, and
(when ../shared is beside the checkout) the real Codex session of 118 tool calls the
issue measured, with the spotter transcripts that show WebFetch and WebSearch. Pages
are opened from file:// (the folding must work there too) at 1280 and 390 px. Any
console error, page error or CSP violation fails a test (helpers.Watch)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from corpus.claude import generate_claude_history

from .helpers import FIXTURES, ExampleSite, Tab, Watch, require_browser

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
# "Collapse all" takes a session of 100+ tool calls to this share of its height or less.
COLLAPSED_SHARE = 0.40
CODEX_FIXTURE = "localpush__v0.104.0-alpha.1__rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
BLOCKING_IMPACTS = ("serious", "critical")

# Every <pre> and block in the timeline wider than its box (scrolling sideways), as text.
SIDEWAYS = """() => [...document.querySelectorAll('.timeline pre, .timeline .block, .timeline .tool, .timeline .md')]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map(e => e.className + ': ' + e.scrollWidth + ' > ' + e.clientWidth)"""


def build_site(sources: list[Path], out: Path) -> Path:
    build(BuildConfig(sources=sources, out=out, archive=None, jobs=1), redaction_key=b"k")
    return out


def session_pages(site: Path) -> list[Path]:
    return sorted(site.glob("projects/*/sessions/*.html"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated session of more than 100 tool calls (with edits, compactions, sub-agents)."""
    require_browser()
    root = tmp_path_factory.mktemp("items-generated")
    generate_claude_history(root / "claude", seed=7, projects=1, sessions_per_project=1, turns_per_session=45,
                            output_kb=1)
    site = build_site([root / "claude" / "projects"], root / "site")
    [page] = session_pages(site)
    return page


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The real transcripts' pages by name: the Codex session of 118 tool calls, spotter's tool_heavy."""
    require_browser()
    codex, spotter = FIXTURES / "codex" / CODEX_FIXTURE, FIXTURES / "claude" / "spotter__v2.1.38__tool_heavy.jsonl"
    if not codex.is_file() or not spotter.is_file():
        pytest.skip(f"{FIXTURES} is not here (the shared fixtures live beside the checkout)")
    root = tmp_path_factory.mktemp("items-real")
    (root / "codex").mkdir()
    shutil.copy2(codex, root / "codex" / codex.name)
    (root / "claude" / "-home-marco-projects-spotter").mkdir(parents=True)
    shutil.copy2(spotter, root / "claude" / "-home-marco-projects-spotter" / spotter.name)
    site = build_site([root / "claude", root / "codex" / codex.name], root / "site")
    pages = {path.stem: path for path in session_pages(site)}
    return {"codex": pages["019c8a4d-8f45-7010-8b5d-7fad920aa6f9"], "spotter": pages["spotter__v2.1.38__tool_heavy"]}


@pytest.fixture
def tab(browser: Any) -> Iterator[Callable[..., Tab]]:
    contexts = []

    def opener(width: str = "desktop", *, scheme: str = "light", script: bool = True, init: str = "") -> Tab:
        context = browser.new_context(viewport=WIDTHS[width], color_scheme=scheme, java_script_enabled=script)
        contexts.append(context)
        context.set_default_timeout(10_000)
        watch = Watch()
        watch.attach(context)
        if init:
            context.add_init_script(init)
        return Tab(context.new_page(), watch)

    yield opener
    for context in contexts:
        context.close()


def open_session(tab: Callable[..., Tab], path: Path, width: str = "desktop", **options: Any) -> Tab:
    s = tab(width, **options)
    s.page.goto(path.as_uri())
    if options.get("script", True):
        s.page.locator("[data-bough-toolbar]").wait_for(state="visible")
    return s


def height(s: Tab) -> int:
    return s.page.evaluate("document.documentElement.scrollHeight")


# --- point 4: tools fold; "Collapse all" makes a long session a list of turns ---------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_collapse_all_takes_a_session_of_100_tool_calls_to_40_percent(
        tab: Callable[..., Tab], generated: Path, width: str) -> None:
    s = open_session(tab, generated, width)
    page = s.page
    assert page.locator(".timeline details.tool").count() > 100
    unfolded = height(s)
    page.locator("[data-bough-collapse]").click()
    folded = height(s)
    assert folded <= COLLAPSED_SHARE * unfolded, (folded, unfolded)
    # Every tool call and reply is folded to its line; prompts stay.
    assert page.evaluate("[...document.querySelectorAll('.timeline details.tool')].every(d => !d.open)")
    assert page.evaluate("[...document.querySelectorAll('.timeline .reply')].every(r => r.classList.contains('folded'))")
    assert page.locator(".timeline > .prompt .prompt-text").first.is_visible()
    page.locator("[data-bough-expand]").click()
    assert height(s) >= unfolded  # everything open again (thinking and long outputs too)
    assert page.evaluate("[...document.querySelectorAll('.timeline .reply')].every(r => !r.classList.contains('folded'))")
    assert s.watch.problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_collapse_all_on_the_real_codex_session_of_118_tool_calls(
        tab: Callable[..., Tab], real: dict[str, Path], width: str) -> None:
    s = open_session(tab, real["codex"], width)
    assert s.page.locator(".timeline details.tool").count() == 118
    unfolded = height(s)
    s.page.locator("[data-bough-collapse]").click()
    assert height(s) <= COLLAPSED_SHARE * unfolded
    assert s.watch.problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_folded_tool_call_is_one_line(tab: Callable[..., Tab], generated: Path, width: str) -> None:
    s = open_session(tab, generated, width)
    page = s.page
    page.locator("[data-bough-collapse]").click()
    page.locator("[data-bough-expand]").click()  # replies unfolded,
    page.evaluate("document.querySelectorAll('.timeline details.tool').forEach(d => d.open = false)")  # tools not
    lines = page.evaluate("""[...document.querySelectorAll('.timeline details.tool')].filter(d => d.offsetParent)
      .map(d => { const s = d.querySelector(':scope > summary'), name = s.querySelector('.tool-name');
        return [s.getBoundingClientRect().height, parseFloat(getComputedStyle(name).lineHeight)]; })""")
    assert len(lines) > 100
    # One line: the summary's height is its line and its padding, never two lines.
    assert all(h < 2 * line for h, line in lines), max(lines)
    texts = page.evaluate("""[...document.querySelectorAll('.timeline details.tool > summary')]
      .map(s => s.querySelector(':scope > small').textContent)""")
    assert all(texts) and any(t.endswith(" lines") for t in texts)
    assert s.watch.problems == []


def test_the_choice_is_remembered_for_the_page(tab: Callable[..., Tab], generated: Path) -> None:
    s = open_session(tab, generated)
    page = s.page
    unfolded = height(s)
    page.locator("[data-bough-collapse]").click()
    folded = height(s)
    page.reload()
    page.locator("[data-bough-toolbar]").wait_for(state="visible")
    assert height(s) == folded  # still collapsed (file:// keeps localStorage in Chromium)
    page.locator("[data-bough-expand]").click()
    page.reload()
    page.locator("[data-bough-toolbar]").wait_for(state="visible")
    assert page.evaluate("[...document.querySelectorAll('.timeline details')].every(d => d.open)")
    assert height(s) >= unfolded
    assert s.watch.problems == []


def test_a_refused_storage_costs_the_memory_only(tab: Callable[..., Tab], generated: Path) -> None:
    refuse = "Storage.prototype.getItem = Storage.prototype.setItem = function () { throw new Error('refused'); };"
    s = open_session(tab, generated, init=refuse)
    unfolded = height(s)
    s.page.locator("[data-bough-collapse]").click()
    assert height(s) <= COLLAPSED_SHARE * unfolded
    s.page.reload()
    s.page.locator("[data-bough-toolbar]").wait_for(state="visible")
    assert height(s) == unfolded  # not remembered, and no error
    assert s.watch.problems == []


def test_without_javascript_everything_is_readable_and_unfolded(tab: Callable[..., Tab], generated: Path) -> None:
    s = open_session(tab, generated, script=False)
    page = s.page
    assert page.evaluate("[...document.querySelectorAll('.timeline details.tool')].every(d => d.open)")
    assert page.locator(".timeline details.tool .tool-result pre").first.is_visible()
    assert page.locator(".timeline > .reply > .md").first.is_visible()
    assert not page.locator("[data-bough-toolbar]").is_visible()  # buttons that would do nothing are hidden
    assert page.locator(".item-head .fold").count() == 0


def test_a_reply_folds_under_its_header_and_says_what_it_holds(tab: Callable[..., Tab], generated: Path) -> None:
    s = open_session(tab, generated)
    page = s.page
    reply = page.locator(".timeline > .reply").filter(has=page.locator(":scope > .md")).first
    button = reply.locator(":scope > .item-head > button.fold")
    assert button.get_attribute("aria-expanded") == "true"
    text = reply.locator(":scope > .md").first.inner_text()
    button.click()
    assert button.get_attribute("aria-expanded") == "false"
    assert not reply.locator(":scope > .md").first.is_visible()
    note = reply.locator(".fold-note")
    assert note.is_visible() and text.split()[0] in note.inner_text()
    button.click()
    assert reply.locator(":scope > .md").first.is_visible() and not note.is_visible()
    assert s.watch.problems == []


def test_a_link_to_a_folded_reply_unfolds_it(tab: Callable[..., Tab], generated: Path) -> None:
    s = open_session(tab, generated)
    page = s.page
    page.locator("[data-bough-collapse]").click()
    target = page.evaluate("document.querySelectorAll('.timeline > .reply')[5].id")
    assert page.evaluate("id => document.getElementById(id).classList.contains('folded')", target)
    assert not page.locator(f"[id='{target}'] > .md, [id='{target}'] > .tool").first.is_visible()
    page.evaluate("id => { location.hash = id; }", target)
    page.wait_for_function("id => !document.getElementById(id).classList.contains('folded')", arg=target)
    assert page.locator(f"[id='{target}'] > .md, [id='{target}'] > .tool").first.is_visible()
    assert s.watch.problems == []


def test_collapsed_page_passes_axe(tab: Callable[..., Tab], generated: Path) -> None:
    from axe_playwright_python.sync_playwright import Axe

    s = open_session(tab, generated)
    s.page.locator("[data-bough-collapse]").click()
    s.page.locator(".timeline .reply .item-head .fold").first.focus()
    blocking = [f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in Axe().run(s.page).response["violations"]
                if v["impact"] in BLOCKING_IMPACTS]
    assert blocking == []


# --- point 5: output wraps; no tool output scrolls sideways ----------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_no_tool_output_scrolls_sideways(tab: Callable[..., Tab], generated: Path, width: str) -> None:
    s = open_session(tab, generated, width)
    page = s.page
    page.locator("[data-bough-expand]").click()  # long outputs and thinking too
    assert page.evaluate(SIDEWAYS) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    style = page.evaluate("getComputedStyle(document.querySelector('.timeline .tool-result pre')).whiteSpace")
    assert style == "pre-wrap"  # spaces kept: indentation stays
    assert s.watch.problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_no_real_codex_output_scrolls_sideways(tab: Callable[..., Tab], real: dict[str, Path], width: str) -> None:
    s = open_session(tab, real["codex"], width)
    s.page.locator("[data-bough-expand]").click()
    assert s.page.evaluate(SIDEWAYS) == []


def test_wrap_lines_switches_to_no_wrap_and_is_remembered(tab: Callable[..., Tab], generated: Path) -> None:
    s = open_session(tab, generated, "phone")
    page = s.page
    wrap = page.locator("[data-bough-wrap]")
    assert wrap.get_attribute("aria-pressed") == "true"
    wrap.click()
    assert wrap.get_attribute("aria-pressed") == "false"
    assert page.evaluate("getComputedStyle(document.querySelector('.timeline pre')).whiteSpace") == "pre"
    assert page.evaluate(SIDEWAYS) != []  # long lines scroll in their block now
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # never the page
    page.reload()
    page.locator("[data-bough-toolbar]").wait_for(state="visible")
    assert page.locator("[data-bough-wrap]").get_attribute("aria-pressed") == "false"
    assert s.watch.problems == []


# --- the smaller defect: the diff's stripe beside the -/+, not over it --------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_diff_stripe_does_not_cover_the_marker(tab: Callable[..., Tab], generated: Path, scheme: str) -> None:
    s = open_session(tab, generated, scheme=scheme)
    gaps = s.page.evaluate("""[...document.querySelectorAll('.timeline .code .line.add, .timeline .code .line.del')]
      .filter(l => l.offsetParent).slice(0, 40).map(line => {
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let node = walker.nextNode();
        while (node && !node.data.length) node = walker.nextNode();
        const range = document.createRange();
        range.setStart(node, 0); range.setEnd(node, 1);
        const stripe = parseFloat(getComputedStyle(line).boxShadow.match(/(\\d+(\\.\\d+)?)px/)[1]);
        return [node.data[0], range.getBoundingClientRect().left - line.getBoundingClientRect().left - stripe];
      })""")
    assert len(gaps) >= 2 and {mark for mark, _ in gaps} <= {"+", "-"}
    assert all(gap >= 4 for _, gap in gaps), gaps  # the glyph starts clear of the stripe


# --- point 6: results as what they are -----------------------------------------------------------------


def test_web_search_links_and_web_fetch_markdown_in_the_browser(tab: Callable[..., Tab], real: dict[str, Path]) -> None:
    s = open_session(tab, real["spotter"], "phone")
    page = s.page
    links = page.locator(".tool .link-list a")
    assert links.count() == 10 and links.first.is_visible()
    assert links.first.get_attribute("href") == "https://github.com/xtermjs/xterm.js/issues/657"
    heading = page.locator(".tool .tool-result .block-markdown h1").first
    heading.scroll_into_view_if_needed()
    assert heading.is_visible()
    assert heading.inner_text() == "Scroll Issues in xterm.js - Solutions and Workarounds"
    assert page.evaluate(SIDEWAYS) == []
    assert s.watch.problems == []


# --- point 9: tokens on a reply's header, quietly; a compaction folded ----------------------------------


def test_tokens_on_a_replys_header_are_quiet(tab: Callable[..., Tab], generated: Path) -> None:
    s = open_session(tab, generated, "phone")
    page = s.page
    tokens = page.locator(".timeline > .reply > .item-head > data.tokens").first
    assert tokens.is_visible() and tokens.inner_text().startswith("in ")
    assert tokens.get_attribute("title").startswith("Tokens: ")
    size, who = page.evaluate("""[getComputedStyle(document.querySelector('.timeline .reply .tokens')).fontSize,
                                  getComputedStyle(document.querySelector('.timeline .reply .who')).fontSize]""")
    assert float(size[:-2]) <= float(who[:-2])  # no louder than the header's own label
    assert s.watch.problems == []


def test_a_compaction_shows_once_its_summary_folded(tab: Callable[..., Tab], browser_site: ExampleSite) -> None:
    [path] = [p for p in browser_site.pages() if b"marker-compaction" in browser_site.files[p]]
    s = open_session(tab, browser_site.root / path)
    page = s.page
    assert page.locator(".timeline .marker-compaction").count() == 1
    marker = page.locator(".timeline .marker-compaction")
    assert marker.locator(".marker-label").inner_text().lower() == "context compacted"
    fold = marker.locator("details.marker-more")
    assert not fold.evaluate("d => d.open")
    fold.locator(":scope > summary").click()
    assert fold.locator(".md").is_visible()
    assert s.watch.problems == []
