"""What a reader sees: the pages in Chromium at a desktop and a phone width, light
and dark, checked for what no markup test sees, and photographed.

Two sites: the bundled examples, and a wide generated history (one project of
300 sessions beside the examples, Claude Code and Codex). On every page looked at:

- no text is rendered taller than the page's largest heading, or smaller than
  MIN_TEXT_PX;
- no SVG text scales with its chart (its transform to the screen is 1:1);
- the page never scrolls sideways;
- the site header, the page header's parts, the stats grid and the charts'
  parts do not overlap, nor a session page's outline and its timeline;
- on a session page, the conversation starts on the first screen (its first prompt,
  or slash command, above the fold: issue #36) and the outline never scrolls sideways;
- no console error, page error, CSP violation or failed request (helpers.Watch).

Screenshots of the index, a project and a session page of each site, at both
widths in both colour schemes, go to test-artifacts/screenshots/visual/.

The page weight of a 300-session project page is asserted without a browser.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.discover import EXAMPLES
from corpus.claude import generate_claude_history

from .helpers import KEY, SCREENSHOTS, Watch, be
from .helpers.looks import CHECK, NO_OVERLAP, SCHEMES, VIEWPORTS

SHOTS = SCREENSHOTS / "visual"
SCREENSHOT_MAX_HEIGHT = 6000
# The budget for a project page of 300 sessions (docs/performance.md).
PROJECT_PAGE_BUDGET = 300_000
WIDE_SESSIONS = 300


@dataclass
class Site:
    name: str  # "examples" or "wide"
    root: Path
    project: str  # the project page photographed (and, for "wide", weighed)
    session: str  # the session page photographed

    def pages(self) -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*.html"))


def _biggest_project(root: Path) -> str:
    pages = sorted(root.glob("projects/*/index.html"), key=lambda p: (-len(list(p.parent.glob("sessions/*.html"))), p))
    return pages[0].relative_to(root).as_posix()


def _a_session(root: Path, project: str) -> str:
    sessions = sorted((root / posixpath.dirname(project) / "sessions").glob("*.html"))
    return sessions[0].relative_to(root).as_posix()


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Site:
    root = tmp_path_factory.mktemp("visual") / "examples"
    files = be.build_example_site(root)
    session = next(
        path for path, data in sorted(files.items())
        if re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", path) and b'<details class="subagent">' in data
    )
    project = posixpath.join(posixpath.dirname(posixpath.dirname(session)), "index.html")
    return Site("examples", root, project, session)


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """One generated project of 300 sessions beside the bundled examples (both agents)."""
    tmp = tmp_path_factory.mktemp("wide")
    generate_claude_history(tmp / "history", projects=1, sessions_per_project=WIDE_SESSIONS, turns_per_session=1,
                            output_kb=1)
    sources = [tmp / "history" / "projects", EXAMPLES / "claude" / "projects", EXAMPLES / "codex" / "sessions"]
    root = tmp / "site"
    with pytest.MonkeyPatch.context() as env:  # module-scoped: conftest's isolated_home is not there yet
        env.setenv("HOME", str(tmp / "home"))
        env.setenv("CLAUDE_CONFIG_DIR", str(tmp / "home" / ".claude"))
        env.setenv("CODEX_HOME", str(tmp / "home" / ".codex"))
        build(BuildConfig(sources=sources, out=root, archive=None, search=False), redaction_key=KEY)
    project = _biggest_project(root)
    return Site("wide", root, project, _a_session(root, project))



def look(browser: Any, site: Site, viewport: str, scheme: str, pages: list[str]) -> list[str]:
    """Open each page at one size and colour scheme: every problem found, and the screenshots."""
    context = browser.new_context(viewport=VIEWPORTS[viewport], color_scheme=scheme)
    context.set_default_timeout(20_000)
    watch = Watch()
    watch.attach(context)
    problems: list[str] = []
    shots = {"index.html": "index", site.project: "project", site.session: "session"}
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        page = context.new_page()
        for path in pages:
            page.goto((site.root / path).as_uri())
            page.wait_for_load_state("load")
            problems += [f"{path} ({viewport}, {scheme}): {p}" for p in page.evaluate(CHECK, list(NO_OVERLAP))]
            if path in shots:
                height = min(page.evaluate("document.documentElement.scrollHeight"), SCREENSHOT_MAX_HEIGHT)
                width = VIEWPORTS[viewport]["width"]
                shot = SHOTS / f"{site.name}-{shots[path]}-{viewport}-{scheme}.png"
                page.screenshot(path=str(shot), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height})
                assert shot.stat().st_size > 0
    finally:
        context.close()
    return problems + [f"({viewport}, {scheme}): {p}" for p in watch.problems]


@pytest.mark.browser
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_examples_look_right(browser: Any, examples: Site, viewport: str, scheme: str) -> None:
    assert look(browser, examples, viewport, scheme, examples.pages()) == []


@pytest.mark.browser
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_wide_history_looks_right(browser: Any, wide: Site, viewport: str, scheme: str) -> None:
    pages = ["index.html", wide.project, wide.session]
    assert look(browser, wide, viewport, scheme, pages) == []


@pytest.mark.browser
def test_the_checks_catch_what_they_look_for(browser: Any, tmp_path: Path) -> None:
    """Each check fails on a page made to break it."""
    broken = tmp_path / "broken.html"
    broken.write_text(
        '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"></head><body>'
        '<header class="site-header"><a>bough</a></header>'
        '<main><header class="page-header"><h1>Title</h1>'
        '<p id="under">under the chart</p>'
        '<svg viewBox="0 0 100 20" width="1000" height="200" id="big"><text x="0" y="15">giant label</text></svg>'
        '<p><span style="font-size:5px">tiny</span></p>'
        '<div style="width:3000px">wide</div>'
        '<p style="margin-top:-260px">on top</p>'
        '</header>'
        '<div class="timeline"><div style="height:2000px"></div><section class="item prompt" id="p1">late</section></div>'
        '</main>'
        '<script>console.error("broken on purpose")</script></body></html>'
    )
    site = Site("broken", tmp_path, "none", "none")
    found = "\n".join(look(browser, site, "desktop", "light", ["broken.html"]))
    assert "SVG text scaled 10.00x" in found
    assert "taller than the largest heading" in found
    assert "text 5.0px, too small to read" in found
    assert "the page scrolls sideways: 3008px wide in 1280px (div)" in found
    assert "overlap (.page-header > *)" in found
    assert "console error: broken on purpose" in found
    assert "the first prompt starts at " in found and "below the first screen (800px)" in found


def test_separators_have_space_around_them(examples: Site) -> None:
    """A "·" between two facts, with a space each side (a template's line break
    that Jinja trims can glue them: "3 tool calls· in")."""
    glued = []
    for path in examples.pages():
        page = re.sub(r"<(script|style|pre|code)\b.*?</\1>", " ", (examples.root / path).read_text(), flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        glued += [f"{path}: {m.group(0)!r}" for m in re.finditer(r".{0,20}(?:\S·|·\S).{0,20}", text)]
    assert glued == []


def test_a_project_of_300_sessions_weighs_under_300_kb(wide: Site) -> None:
    page = wide.root / wide.project
    sessions = len(list(page.parent.glob("sessions/*.html")))
    assert sessions == WIDE_SESSIONS
    size = page.stat().st_size
    print(f"{wide.project}: {size:,} bytes for {sessions} sessions")
    assert size <= PROJECT_PAGE_BUDGET, f"{size:,} bytes"
    html = page.read_text()
    # Every session is a row, and the rows come before what was built.
    assert html.count("<tr") - html.count('<tr class="month-head"') - 1 == WIDE_SESSIONS
    assert html.index('<table class="rows') < html.index('<section class="built"')
