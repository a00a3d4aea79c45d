"""A session page read as a document (issue #36), in Chromium, from file:// and over HTTP:

1. the conversation first: the first prompt on the first screen at 1280 x 800 and
   390 x 844, on every session page of the examples, of a history made for these tests
   and (when ../shared is beside the checkout) of the real transcripts of all three agents;
2. the outline: every prompt listed and linked, a column beside the timeline on a
   desktop and a folded list on a phone, the prompt being read marked as you scroll,
   j / k to the next and previous prompt (to the next part on a split page);
3. the next and previous session of the project, by time, above and below the
   timeline, with their titles (from the project's sessions.js);
8. find in this session: the count, previous / next, the current match shown (its
   <details> opened), filters by kind, matches across highlighted tokens, and the
   page's HTML as it was once the box is emptied.

Without JavaScript the outline and a link to the project's sessions still work. Any
console error, page error, CSP violation or failed request fails a test (helpers.Watch).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bough_site import urls
from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.model import Project, Prompt, Reply, Text, Usage
from bough_site.publish import sessions_script
from bough_site.render.pages import Renderer

from .helpers import (
    ExampleSite,
    Watch,
    fixtures_dir,
    lay_out_as_config_dir,
    prompt,
    reply,
    require_browser,
    serving,
    session,
    text,
    tool_result,
    tool_use,
    write_jsonl,
)

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PROMPTS = 12  # in the long session made below
FOLDER = "-home-ada-src-reader"

# The top of the conversation's start: the page's first prompt or slash command (what
# the person typed first: a session may open with /init and the replies to it), or, in a
# session with neither, its first item; relative to the viewport, and the viewport's height.
FIRST = """() => {
  const first = document.querySelector('.timeline > .item.prompt, .timeline > .item.command') ||
    document.querySelector('.timeline > .item');
  return first ? [first.getBoundingClientRect().top, innerHeight, first.id] : null;
}"""
CURRENT = "() => [...document.querySelectorAll('nav.outline a[aria-current]')].map(a => a.getAttribute('href'))"


# --- the sites --------------------------------------------------------------------------------


def _session_file(root: Path, sid: str, prompts: list[str], *, word: bool = False) -> None:
    """A Claude Code session of these prompts, each answered at length (so the page is
    long). With ``word``, "zebra" is written once in a prompt, twice in replies, once in a
    thinking block and once in a tool's output, and a Write holds ``def zebra_count``."""
    fields = {"sessionId": sid}
    records: list[Any] = []
    for n, asked in enumerate(prompts, start=1):
        uid = f"{sid[:8]}-0000-4000-8000-{n:012d}"
        answer = f"Answer {n}. " + "This paragraph is here to make the page long enough to scroll. " * 12
        records.append(prompt(uid.replace("-0000-", "-1000-"), asked, **fields))
        records.append(reply(uid.replace("-0000-", "-2000-"), f"msg_{sid[:8]}_{n}", [text(answer)], **fields))
    if word:
        records += [
            prompt(f"{sid[:8]}-3000-4000-8000-000000000001", "Count the zebra in the data, please.", **fields),
            reply(f"{sid[:8]}-3000-4000-8000-000000000002", f"msg_{sid[:8]}_z1",
                  [{"type": "thinking", "thinking": "The zebra count needs a helper.", "signature": "s"},
                   text("I will write a zebra counter."),
                   tool_use("toolu_zebra_write", "Write", file_path="/home/ada/src/reader/count.py",
                            content="def zebra_count(rows):\n    return sum(1 for row in rows if row)\n")],
                  **fields),
            tool_result(f"{sid[:8]}-3000-4000-8000-000000000003", "toolu_zebra_write", "File created", **fields),
            reply(f"{sid[:8]}-3000-4000-8000-000000000004", f"msg_{sid[:8]}_z2",
                  [tool_use("toolu_zebra_run", "Bash", command="python3 count.py")], **fields),
            tool_result(f"{sid[:8]}-3000-4000-8000-000000000005", "toolu_zebra_run", "found 3 zebra rows",
                        **fields),
            reply(f"{sid[:8]}-3000-4000-8000-000000000006", f"msg_{sid[:8]}_z3",
                  [text("Done: the zebra rows are three.")], **fields),
        ]
    write_jsonl(root / FOLDER / f"{sid}.jsonl", records)


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One project of three sessions, in this order in time: a short one, a long one of
    PROMPTS prompts (then the zebra turn), a short one. Their pages by name."""
    require_browser()
    root = tmp_path_factory.mktemp("reader")
    sids = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
            "33333333-3333-4333-8333-333333333333"]
    _session_file(root / "projects", sids[0], ["The first session's only question"])
    _session_file(root / "projects", sids[1], [f"Question number {n} about the reader" for n in range(1, PROMPTS + 1)],
                  word=True)
    _session_file(root / "projects", sids[2], ["The last session's only question"])
    out = root / "site"
    build(BuildConfig(sources=[root / "projects"], out=out, archive=None, jobs=1, search=False), redaction_key=b"k")
    pages = {path.stem: path for path in out.glob("projects/*/sessions/*.html")}
    return {"first": pages[sids[0]], "long": pages[sids[1]], "last": pages[sids[2]], "root": out}


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A session of 20 prompts split in parts (rendered with a small page limit), with
    the assets and its project's sessions.js: the parts' paths, in order."""
    require_browser()
    out = tmp_path_factory.mktemp("split") / "site"
    renderer = Renderer()
    renderer.page_limit = 6_000
    timeline: list[Any] = []
    for i in range(1, 21):
        timeline.append(Prompt(f"u{i}", f"p{i}", None, [Text(f"question {i} " + "x" * 300)]))
        timeline.append(Reply(f"m{i}", f"r{i}", None, None, [Text(f"answer {i} " + "y " * 400)], Usage()))
    big = session("big", "big", "claude-code", timeline, title="A long one", cwd="/w")
    project = Project(id="p", name="p", cwd="/w", sessions=[big], stats={})
    files = [*renderer.assets(), *renderer.session_pages(project, big),
             (urls.project_sessions_js("p"), sessions_script(project)),
             (urls.project_html("p"), renderer.project_page(project, _site(project)))]
    for path, data in files:
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(data)
    parts = sorted(out.glob("projects/p/sessions/big*.html"), key=lambda p: (len(p.name), p.name))
    assert len(parts) >= 3
    return parts


def _site(project: Project) -> Any:
    from bough_site.model import Site

    return Site(projects=[project], stats={})


@pytest.fixture(scope="module")
def real_pages(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Every session page of a site built from the shared real transcripts of all three agents."""
    require_browser()
    root = tmp_path_factory.mktemp("real")
    claude = lay_out_as_config_dir(fixtures_dir("claude"), root / "claude")
    codex = root / "codex"
    shutil.copytree(fixtures_dir("codex"), codex)
    gemini = fixtures_dir("gemini")
    out = root / "site"
    for source, agent in ((claude, "claude"), (codex, "codex"), (gemini, "gemini")):
        build(BuildConfig(sources=[source], source_filter=agent, out=out / agent, archive=None, search=False),
              redaction_key=b"k")
    pages = sorted(out.glob("*/projects/*/sessions/*.html"))
    assert len(pages) > 20
    return pages


@pytest.fixture
def tab(browser: Any) -> Iterator[Callable[..., Any]]:
    """A page at a size (and with or without scripts); every problem it met is checked at the end."""
    contexts: list[tuple[Any, Watch]] = []

    def opener(size: str = "desktop", *, scripts: bool = True, scheme: str = "light") -> Any:
        context = browser.new_context(viewport=SIZES[size], java_script_enabled=scripts, color_scheme=scheme)
        context.set_default_timeout(10_000)
        watch = Watch()
        if scripts:
            watch.attach(context)
        contexts.append((context, watch))
        return context.new_page()

    yield opener
    problems = [problem for _, watch in contexts for problem in watch.problems]
    for context, _ in contexts:
        context.close()
    assert problems == []


def _settle(page: Any) -> None:
    """Two animation frames: the observer and the scroll handler have run."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_timeout(200)


# --- 1. the conversation first ------------------------------------------------------------------


def _first_prompts_off_screen(tab: Callable[..., Any], pages: list[Path]) -> list[str]:
    off = []
    for size in SIZES:
        page = tab(size)
        for path in pages:
            page.goto(path.as_uri())
            found = page.evaluate(FIRST)
            if found is None:
                continue  # a session with no item at all ("This session has no messages.")
            top, height, anchor = found
            if not top < height:
                off.append(f"{path.name} ({size}): #{anchor or 'the first item'} starts at {top:.0f} px of {height}")
    return off


@pytest.mark.parametrize("kind", ["examples", "reader"])
def test_the_first_prompt_is_on_the_first_screen(browser_site: ExampleSite, reader: dict[str, Path],
                                                 tab: Callable[..., Any], kind: str) -> None:
    if kind == "examples":
        pages = [browser_site.root / p for p in browser_site.pages() if re.fullmatch(r"projects/[^/]+/sessions/.+", p)]
    else:
        pages = [reader["first"], reader["long"], reader["last"]]
    assert len(pages) >= 3
    assert _first_prompts_off_screen(tab, pages) == []


def test_the_first_prompt_is_on_the_first_screen_of_every_real_session(real_pages: list[Path],
                                                                      tab: Callable[..., Any]) -> None:
    off = _first_prompts_off_screen(tab, real_pages)
    assert off == [], "\n".join(off)


def test_details_hold_the_bookkeeping_folded(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(reader["long"].as_uri())
    line = page.locator(".facts-line").inner_text()
    assert re.fullmatch(r"Claude Code · .+ · \d+\xa0(s|min) · opus-4-6 · 13\xa0prompts · [\d.]+k?\xa0tokens · \$[\d.]+",
                        line), line  # the estimate last: its title says so, Details say the rest
    details = page.locator("details.session-details")
    assert details.evaluate("d => d.open") is False
    assert not page.get_by_text("tool calls", exact=True).is_visible()
    details.locator("summary").click()
    assert page.get_by_text("tool calls", exact=True).is_visible()
    assert page.get_by_text("Session data (JSON)").is_visible()
    assert page.get_by_text("lines read").count() == 0  # bough's own counts: in the sidecar


# --- 2. the outline -------------------------------------------------------------------------------


def test_the_outline_lists_every_prompt_beside_the_timeline(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(reader["long"].as_uri())
    outline = page.locator("nav.outline")
    links = outline.locator("li > a")
    hrefs = links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    prompts = page.locator(".timeline > .item.prompt").evaluate_all("els => els.map(e => '#' + e.id)")
    assert hrefs == prompts == [f"#p{n}" for n in range(1, PROMPTS + 2)]
    assert links.first.inner_text() == "Question number 1 about the reader"
    # A column at the left of the timeline: open, in sight, never over it.
    assert outline.locator("details").evaluate("d => d.open") is True and links.nth(PROMPTS - 1).is_visible()
    side, timeline = page.locator(".session-side").bounding_box(), page.locator(".timeline").bounding_box()
    assert side["x"] + side["width"] <= timeline["x"]
    assert page.evaluate("document.documentElement.scrollWidth") == SIZES["desktop"]["width"]
    # The keys are written under the list.
    assert page.locator(".outline-keys").inner_text() == "j next prompt, k previous, f find"


# The width of an outline's last number as the list draws it ("1001. ", in the list's
# font), and the list's left padding, where the numbers stand.
LAST_NUMBER = """ol => {
    const style = getComputedStyle(ol);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return [context.measureText(`${ol.children.length}. `).width, parseFloat(style.paddingLeft)];
}"""


@pytest.mark.parametrize("prompts", [99, 100, 1001])
def test_every_number_of_a_long_outline_is_seen_whole(tmp_path: Path, tab: Callable[..., Any], prompts: int) -> None:
    """The outline's numbers stand in its list's padding: a session of hundreds or
    thousands of prompts has room for "1001." at every width (at desktop widths the
    side scrolls, and what stands outside it is cut: "200." read "00.")."""
    out = tmp_path / "site"
    timeline: list[Any] = [Prompt(f"u{i}", f"p{i}", None, [Text(f"question {i}")]) for i in range(1, prompts + 1)]
    many = session("many", "many", "claude-code", timeline, title="Many prompts", cwd="/w")
    project = Project(id="p", name="p", cwd="/w", sessions=[many], stats={})
    renderer = Renderer()
    for path, data in [*renderer.assets(), *renderer.session_pages(project, many),
                       (urls.project_sessions_js("p"), sessions_script(project))]:
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(data)
    for size in SIZES:
        page = tab(size)
        page.goto((out / urls.session_html("p", "many")).as_uri())
        outline = page.locator("nav.outline ol")
        assert outline.locator("li").count() == prompts
        number, room = outline.evaluate(LAST_NUMBER)
        assert 0 < number <= room, (size, number, room)


def test_the_outline_marks_the_prompt_being_read(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(reader["long"].as_uri())
    _settle(page)
    assert page.evaluate(CURRENT) == ["#p1"]
    page.locator("#p5").evaluate("e => e.scrollIntoView({block: 'start'})")
    _settle(page)
    assert page.evaluate(CURRENT) == ["#p5"]
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")  # one long jump
    _settle(page)
    assert page.evaluate(CURRENT) == [f"#p{PROMPTS + 1}"]
    # The sticky column stays in sight at the bottom of the page.
    box = page.locator("nav.outline a[aria-current]").bounding_box()
    assert 0 <= box["y"] < SIZES["desktop"]["height"]


def test_j_and_k_move_from_prompt_to_prompt(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(reader["long"].as_uri())
    # Where a prompt moved to lands: at the top, less its scroll margin (bough.css: 1rem).
    top = "id => Math.round(document.getElementById(id).getBoundingClientRect().top) === 16"
    _settle(page)
    assert page.evaluate(CURRENT) == ["#p1"]  # on the first screen: the one being read
    for n in (2, 3):
        page.keyboard.press("j")
        _settle(page)
        assert page.evaluate(top, f"p{n}") and page.evaluate(CURRENT) == [f"#p{n}"]
    assert page.evaluate("location.hash") == "#p3"
    page.keyboard.press("k")
    _settle(page)
    assert page.evaluate(top, "p2") and page.evaluate(CURRENT) == ["#p2"]
    # Scrolled a little into a turn, k goes back to the start of its prompt first.
    page.evaluate("window.scrollBy(0, 200)")
    _settle(page)
    page.keyboard.press("k")
    _settle(page)
    assert page.evaluate(top, "p2")
    page.keyboard.press("k")
    page.keyboard.press("k")  # past the first: stays
    _settle(page)
    assert page.evaluate(CURRENT) == ["#p1"]
    # Never while typing: j in the find box is a letter.
    page.locator(".find input[type=search]").click()
    page.keyboard.type("jj")
    _settle(page)
    assert page.evaluate(CURRENT) == ["#p1"] and page.locator(".find input[type=search]").input_value() == "jj"


def test_on_a_phone_the_outline_is_a_folded_list(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("phone")
    page.goto(reader["long"].as_uri())
    fold = page.locator("nav.outline details")
    assert fold.evaluate("d => d.open") is False
    assert page.locator("nav.outline summary").inner_text() == f"{PROMPTS + 1} prompts"
    page.locator("nav.outline summary").click()
    page.locator("nav.outline li > a").nth(6).click()
    _settle(page)
    assert page.evaluate("location.hash") == "#p7"
    assert abs(page.evaluate("Math.round(document.getElementById('p7').getBoundingClientRect().top)")) <= 20
    assert fold.evaluate("d => d.open") is False  # folded away again once a prompt is chosen
    assert page.evaluate("document.documentElement.scrollWidth") == SIZES["phone"]["width"]


def test_without_scripts_the_outline_and_the_sessions_list_are_links(reader: dict[str, Path],
                                                                    tab: Callable[..., Any]) -> None:
    page = tab("desktop", scripts=False)
    page.goto(reader["long"].as_uri())
    page.locator("nav.outline summary").click()
    page.locator("nav.outline li > a").nth(3).click()
    assert page.url.endswith("#p4")
    project = page.locator(".crumbs a").nth(1).inner_text()
    for nav in page.locator("nav.neighbours").all():
        assert nav.locator("a").evaluate_all("links => links.map(a => [a.getAttribute('href'), a.textContent])") == [
            ["../index.html#sessions", f"All sessions of {project}"]]
    assert page.locator(".find").count() == 0  # find needs the script: it is not drawn


def test_a_split_session_outlines_every_part(split: list[Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(split[1].as_uri())
    hrefs = page.locator("nav.outline li > a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert [h.partition("#")[2] for h in hrefs] == [f"p{n}" for n in range(1, 21)]
    here = set(page.locator(".timeline > .item.prompt").evaluate_all("els => els.map(e => e.id)"))
    assert here and all(h.startswith("#") == (h[1:] in here) for h in hrefs)
    assert page.locator(".find input[type=search]").get_attribute("placeholder") == "Find in this part"
    assert page.locator(".find-note").inner_text() == "Part 2: the other parts are their own pages."
    # p1 is on the first part: its link goes there.
    page.locator("nav.outline li > a").first.click()
    page.wait_for_load_state("load")
    assert page.url == split[0].as_uri() + "#p1"
    # k before this part's first prompt, j after its last: the part that holds the next one.
    page.goto(split[1].as_uri())
    first_here = min(int(anchor[1:]) for anchor in here)
    page.keyboard.press("k")
    page.wait_for_url(split[0].as_uri() + f"#p{first_here - 1}")
    # And j after the last prompt of a part.
    page.goto(split[1].as_uri())
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    _settle(page)
    last_here = max(int(anchor[1:]) for anchor in here)
    assert page.evaluate(CURRENT) == [f"#p{last_here}"]
    page.keyboard.press("j")
    page.wait_for_url(split[2].as_uri() + f"#p{last_here + 1}")


# --- 3. the neighbours ------------------------------------------------------------------------------


def _neighbours(page: Any) -> list[list[list[str]]]:
    return page.locator("nav.neighbours").evaluate_all(
        "navs => navs.map(nav => [...nav.querySelectorAll('.neighbour')].map(n => "
        "[n.className.replace('neighbour ', ''), n.href || '', n.textContent]))")


@pytest.mark.parametrize("origin", ["file", "http"])
def test_every_session_links_the_sessions_before_and_after_it(reader: dict[str, Path], tab: Callable[..., Any],
                                                               origin: str) -> None:
    page = tab("desktop")
    with serving(reader["root"]) as server:
        def url(path: Path) -> str:
            relative = path.relative_to(reader["root"]).as_posix()
            return path.as_uri() if origin == "file" else server.base + relative

        titles = {}
        for name in ("first", "long", "last"):
            page.goto(url(reader[name]))
            titles[name] = page.locator("h1").inner_text()
        page.goto(url(reader["first"]))
        first = _neighbours(page)
        page.goto(url(reader["long"]))
        middle = _neighbours(page)
        page.goto(url(reader["last"]))
        last = _neighbours(page)
        assert server.errors == []

    def link(name: str) -> str:
        return reader[name].as_uri() if origin == "file" else server.base + reader[name].relative_to(
            reader["root"]).as_posix()

    assert len(first) == len(middle) == len(last) == 2  # above and below the timeline, the same
    assert first[0] == first[1] and middle[0] == middle[1] and last[0] == last[1]
    assert first[0][0] == ["neighbour-prev neighbour-none", "", "The first session"]
    assert first[0][1][:2] == ["neighbour-next", link("long")] and first[0][1][2].endswith(titles["long"])
    assert middle[0][0][:2] == ["neighbour-prev", link("first")] and middle[0][0][2].endswith(titles["first"])
    assert middle[0][1][:2] == ["neighbour-next", link("last")] and middle[0][1][2].endswith(titles["last"])
    assert last[0][1] == ["neighbour-next neighbour-none", "", "The latest session"]
    # They go where they say.
    page.goto(reader["long"].as_uri())
    page.locator("nav.neighbours").first.locator(".neighbour-next").click()
    page.wait_for_load_state("load")
    assert page.locator("h1").inner_text() == titles["last"]


def test_the_only_session_of_a_project_links_its_list_below(browser_site: ExampleSite, tab: Callable[..., Any]) -> None:
    alone = [p for p in browser_site.pages()
             if re.fullmatch(r"projects/[^/]+/sessions/.+", p) and p.startswith("projects/almanac-")]
    assert len(alone) == 1  # the examples' Gemini project has one session
    page = tab("desktop")
    page.goto((browser_site.root / alone[0]).as_uri())
    top, bottom = page.locator("nav.neighbours").all()
    assert top.is_hidden() and bottom.is_visible()
    assert bottom.locator("a").evaluate_all("links => links.map(a => [a.getAttribute('href'), a.textContent])") == [
        ["../index.html#sessions", "All sessions of almanac"]]


# --- 8. find in this session ------------------------------------------------------------------------


def _find(page: Any, query: str) -> str:
    page.locator(".find input[type=search]").fill(query)
    page.wait_for_timeout(350)  # the box waits for typing to pause
    return page.locator(".find-count").inner_text()


def test_find_counts_marks_and_steps_through_the_matches(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(reader["long"].as_uri())
    before = page.locator(".timeline").inner_html()
    assert _find(page, "ZEBRA") == "6 matches"  # any case: a prompt, 2 replies' texts, a thinking, 2 in tools
    assert page.locator("mark.find-hit").count() == 6
    assert page.locator(".find-kind").all_inner_texts() == ["Prompts 1", "Replies 2", "Tool calls 2", "Thinking 1"]
    input_box = page.locator(".find input[type=search]")
    input_box.press("Enter")
    assert page.locator(".find-count").inner_text() == "1 of 6"
    input_box.press("Shift+Enter")
    assert page.locator(".find-count").inner_text() == "6 of 6"
    page.locator(".find-next").click()
    assert page.locator(".find-count").inner_text() == "1 of 6"
    # Only thinking: the match is in a folded <details>, opened to show it.
    for kind in ("prompt", "reply", "tool"):
        page.locator(f".find-kind input[value={kind}]").uncheck()
    page.wait_for_timeout(100)
    assert page.locator(".find-count").inner_text() == "1 match"
    page.locator(".find-next").click()
    current = page.locator("mark.find-current")
    assert current.count() == 1 and current.is_visible() and current.inner_text() == "zebra"
    assert current.evaluate("m => m.closest('details.thinking').open") is True
    box = current.bounding_box()
    assert 0 <= box["y"] < SIZES["desktop"]["height"]
    # Emptied, the box leaves the page's HTML as it was.
    for kind in ("prompt", "reply", "tool"):
        page.locator(f".find-kind input[value={kind}]").check()
    input_box.press("Escape")
    page.wait_for_timeout(100)
    assert page.locator("mark").count() == 0 and page.locator(".find-count").inner_text() == ""
    page.locator("details.thinking").evaluate_all("ds => ds.forEach(d => { d.open = false; })")
    assert page.locator(".timeline").inner_html() == before


def test_find_matches_across_highlighted_code(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("desktop")
    page.goto(reader["long"].as_uri())
    assert _find(page, "def zebra_count(rows)") == "1 match"
    marks = page.locator("mark.find-hit")
    assert marks.count() > 1  # one match over several highlighted tokens
    assert "".join(marks.all_inner_texts()) == "def zebra_count(rows)"
    page.locator(".find input[type=search]").press("Enter")
    assert page.locator("mark.find-current").count() == marks.count()
    assert _find(page, "no such words here") == "no match"


def test_f_focuses_find_and_the_box_stays_in_sight_on_a_phone(reader: dict[str, Path], tab: Callable[..., Any]) -> None:
    page = tab("phone")
    page.goto(reader["long"].as_uri())
    page.keyboard.press("f")
    assert page.evaluate("document.activeElement.matches('.find input')")
    page.keyboard.type("zebra")
    page.wait_for_timeout(350)
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    assert page.locator(".find-count").inner_text() == "2 of 6"
    box = page.locator(".find").bounding_box()
    assert box["y"] == 0  # held at the top while the page moved to the match
    assert page.evaluate("document.documentElement.scrollWidth") == SIZES["phone"]["width"]
