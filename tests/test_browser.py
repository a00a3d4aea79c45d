"""The example site in a real browser: Debian's Chromium driven by Playwright.

The site is built from the bundled examples and opened two ways: from
``file://`` and from a local HTTP server that serves it under a sub-path
(``/archive/``) with the headers netlify.toml sets (the CSP among them). The
tests click through index -> project -> session, open a tool result and a
sub-agent run, follow anchors, run axe-core, and take screenshots of the three
page kinds in light and dark mode into test-artifacts/screenshots/.

Any console error, uncaught page error, CSP violation, failed request or HTTP
error fails a test. Without Chromium or Playwright the tests are skipped with
the reason, unless BOUGH_REQUIRE_BROWSER=1 (set by .ci/run): then they fail.
The site (``browser_site``), its ``server``, the ``browser`` and ``open_page`` are
fixtures in conftest.py, shared with the other browser tests; ``Watch`` and the
rest they share are in helpers.py.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from . import helpers
from .helpers import (
    SCREENSHOTS,
    SUBPATH,
    VIEWPORT,
    ExampleSite,
    Server,
    Tab,
    require_browser,
    start_url,
)

pytestmark = pytest.mark.browser

# Full-page screenshots of long sessions are cut here (pixels).
SCREENSHOT_MAX_HEIGHT = 6000
BLOCKING_IMPACTS = ("serious", "critical")


# --- the tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", ["file", "http"])
def test_click_through_the_site(browser_site: ExampleSite, server: Server, open_page, origin: str) -> None:
    s = open_page()
    page = s.page
    # Over HTTP, start at the sub-path itself, as a visitor of the published site would.
    page.goto(start_url(browser_site, server, origin, "" if origin == "http" else "index.html"))
    assert page.title().startswith("Projects")
    _assert_styled(page)

    # index -> project (by a text link, as a person would; charts link too)
    page.locator(f'a[href="{browser_site.project}"]:not(svg a)').first.click()
    page.wait_for_url(re.compile(re.escape(browser_site.project) + "$"))
    _assert_styled(page)

    # project -> session
    session_href = posixpath.relpath(browser_site.session, posixpath.dirname(browser_site.project))
    page.locator(f'a[href="{session_href}"]:not(svg a)').first.click()
    page.wait_for_url(re.compile(re.escape(browser_site.session) + "$"))
    _assert_styled(page)
    # bough.js ran (under the CSP): it reveals the toolbar.
    page.locator("[data-bough-toolbar]").wait_for(state="visible")

    # A sub-agent run opens on a click and shows its own items.
    run = page.locator("details.subagent").first
    assert not run.evaluate("d => d.open")
    inner = run.locator(".subagent-body .item").first
    assert not inner.is_visible()
    run.locator(":scope > summary").click()
    assert run.evaluate("d => d.open")
    inner.wait_for(state="visible")
    inner_id = inner.get_attribute("id")

    # A collapsed tool result (in the open run or beside it) opens on a click.
    more = page.locator(".tool-result details.more").filter(visible=True).first
    assert not more.evaluate("d => d.open")
    full = more.locator("pre").first
    assert not full.is_visible()
    more.locator(":scope > summary").click()
    assert more.evaluate("d => d.open")
    full.wait_for(state="visible")

    run.locator(":scope > summary").click()  # closed again, for the deep link below
    assert not inner.is_visible()

    # A self-link is an anchor on this page.
    first = page.locator(".timeline > .item a.self-link").first
    anchor = first.get_attribute("href")
    assert anchor and anchor.startswith("#")
    first.click()
    assert page.url.endswith(anchor)
    assert page.evaluate("location.hash") == anchor
    target = page.locator(f"[id='{anchor[1:]}']")
    assert target.evaluate("el => el.matches(':target')")

    # A link to a moment inside a closed sub-agent opens it (bough.js), also on a fresh load.
    assert inner_id
    page.evaluate("id => { location.hash = id; }", inner_id)
    page.locator(f"[id='{inner_id}']").wait_for(state="visible")
    assert page.evaluate("id => document.getElementById(id).closest('details.subagent').open", inner_id)
    page.goto(page.url.split("#")[0] + "#" + inner_id)
    page.reload()
    page.locator(f"[id='{inner_id}']").wait_for(state="visible")
    assert page.locator(f"[id='{inner_id}']").is_visible()

    # Expand all / collapse all.
    page.locator("[data-bough-expand]").click()
    assert page.evaluate("[...document.querySelectorAll('.timeline details')].every(d => d.open)")
    page.locator("[data-bough-collapse]").click()
    assert page.evaluate("[...document.querySelectorAll('.timeline details')].every(d => !d.open)")

    # Breadcrumbs lead back up.
    page.locator(".crumbs a").nth(1).click()
    page.wait_for_url(re.compile(re.escape(browser_site.project) + "$"))
    page.locator(".crumbs a").first.click()
    page.wait_for_url(re.compile(r"/index\.html$"))

    assert s.watch.problems == []
    assert server.errors == []


@pytest.mark.parametrize("origin", ["file", "http"])
def test_every_page_loads_cleanly_and_every_link_resolves(
    browser_site: ExampleSite, server: Server, open_page, origin: str
) -> None:
    s = open_page()
    page = s.page
    targets: dict[str, str] = {}  # a linked URL without its fragment -> the page that links it
    for path in browser_site.pages():
        page.goto(start_url(browser_site, server, origin, path))
        _assert_styled(page)
        # Attributes, resolved against the page: an SVG <a>'s .href is not a string.
        hrefs = page.evaluate(
            "[...document.querySelectorAll('[href], [src], [*|href]')]"
            ".map(el => el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('xlink:href'))"
            ".filter(v => v !== null).map(v => new URL(v, document.baseURI).href)"
        )
        for href in hrefs:
            if href.startswith(("file:", "http://127.0.0.1")):
                targets.setdefault(href.split("#")[0], path)
    assert len(targets) > len(browser_site.pages())
    broken = []
    for url, linked_from in sorted(targets.items()):
        if origin == "file":
            found = Path(unquote(urlsplit(url).path)).is_file()
        else:
            found = page.request.get(url).status == 200
        if not found:
            broken.append(f"{url} (linked from {linked_from})")
    assert broken == []
    assert s.watch.problems == []
    assert server.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_accessibility_and_screenshots(browser_site: ExampleSite, server: Server, open_page, scheme: str) -> None:
    """axe-core finds nothing serious or critical on any page (contrast differs by
    colour scheme, so both are checked); the three page kinds are photographed."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    s = open_page(color_scheme=scheme)
    page = s.page
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shots = {"index.html": "index", browser_site.project: "project", browser_site.session: "session"}
    blocking = []
    for path in browser_site.pages():
        page.goto(start_url(browser_site, server, "http", path))
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        if path in shots:
            height = min(page.evaluate("document.documentElement.scrollHeight"), SCREENSHOT_MAX_HEIGHT)
            page.screenshot(
                path=str(SCREENSHOTS / f"{shots[path]}-{scheme}.png"),
                full_page=True,
                clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height},
            )
        expand = page.locator("[data-bough-expand]")
        if expand.count():
            expand.click()  # check what is folded away too: sub-agents, long results, thinking
        for violation in axe.run(page).response["violations"]:
            if violation["impact"] in BLOCKING_IMPACTS:
                nodes = "; ".join(" ".join(n["target"]) for n in violation["nodes"][:5])
                blocking.append(
                    f"{path} ({scheme}): {violation['id']} ({violation['impact']}): {violation['help']} "
                    f"[{len(violation['nodes'])} nodes: {nodes}]"
                )
    for kind in shots.values():
        assert (SCREENSHOTS / f"{kind}-{scheme}.png").stat().st_size > 0
    assert blocking == []
    assert s.watch.problems == []
    assert server.errors == []


def test_the_server_sends_the_hosts_headers(browser_site: ExampleSite, server: Server, open_page) -> None:
    s = open_page()
    page = s.page
    response = page.goto(server.base + "index.html")
    assert response is not None
    csp = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    asset = next(p for p in browser_site.files if p.startswith("assets/") and p.endswith(".css"))
    cached = page.request.get(server.base + asset)
    assert cached.headers["cache-control"] == "public, max-age=31536000, immutable"
    # Outside the sub-path there is nothing: a root-absolute link would break.
    assert page.request.get(server.base.replace(SUBPATH, "/index.html")).status == 404
    server.errors.clear()


def test_injected_inline_script_is_blocked(browser_site: ExampleSite, server: Server, open_page) -> None:
    """The check itself works: an inline script is a CSP violation the watch reports."""
    s = open_page()
    page = s.page
    page.goto(server.base + "index.html")
    page.evaluate(
        "() => { const el = document.createElement('script'); el.textContent = 'window.__ran = 1';"
        " document.body.appendChild(el); }"
    )
    assert page.evaluate("window.__ran") is None
    for _ in range(100):  # the violation is reported asynchronously
        if any("script-src" in p for p in s.watch.problems):
            break
        page.wait_for_timeout(20)
    assert any("script-src" in p for p in s.watch.problems), s.watch.problems


def test_a_missing_browser_skips_or_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(helpers.browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv("BOUGH_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-chromium is missing"):
        require_browser()
    monkeypatch.setenv("BOUGH_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="required"):
        require_browser()


def _assert_styled(page: Any) -> None:
    """The theme's stylesheet and the highlight stylesheet loaded and apply."""
    # link.sheet is set once a stylesheet loaded (its rules are unreadable from file://).
    loaded = page.evaluate("[...document.querySelectorAll('link[rel=stylesheet]')].map(l => l.sheet !== null)")
    assert len(loaded) >= 2 and all(loaded), f"{page.url}: stylesheets did not load"
    skip_link = page.evaluate("getComputedStyle(document.querySelector('a.skip')).position")
    assert skip_link != "static", f"{page.url}: bough.css is not applied"


# --- the highlighting budget's marker ----------------------------------------------------------


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_the_plain_text_marker_shows_and_is_not_copied(
    tmp_path: Path, open_page: Callable[..., Tab], color_scheme: str
) -> None:
    """Past its budget a block goes on plain after a note drawn by the stylesheet
    (no inline style: the CSP holds); copying the block gives the text alone."""
    from bough_site import urls
    from bough_site.model import Project
    from bough_site.publish import sessions_script
    from bough_site.render.pages import Renderer

    from .helpers import READ_TEXT, page, read_session

    renderer = Renderer()
    session = read_session("s1")
    html = page(renderer, session).replace('<details class="more">', '<details class="more" open>')
    path = tmp_path / urls.session_html("p", "s1")
    path.parent.mkdir(parents=True)
    path.write_text(html, encoding="utf-8")
    project = Project(id="p", name="p", cwd="/w", sessions=[session], stats={})
    (tmp_path / urls.project_sessions_js("p")).write_bytes(sessions_script(project))
    for name, data in renderer.assets():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    tab = open_page(color_scheme)
    tab.page.goto(path.as_uri())
    marker = tab.page.locator(".hl-plain")
    assert marker.count() == 1 and marker.is_visible()
    shown = tab.page.evaluate(
        "() => { const s = getComputedStyle(document.querySelector('.hl-plain'), '::before');"
        " return [s.content, s.display, s.userSelect]; }"
    )
    assert shown == ['"plain text from line 201"', "block", "none"]
    assert tab.page.evaluate("document.querySelector('.hl-plain').dataset.line") == "201"
    copied = tab.page.evaluate(
        "() => { const c = document.querySelector('.hl-plain').closest('code'); const r = document.createRange();"
        " r.selectNodeContents(c); const s = getSelection(); s.removeAllRanges(); s.addRange(r);"
        " return s.toString(); }"
    )
    assert copied == READ_TEXT.removesuffix("\n")  # (a selection leaves out a <pre>'s last newline)
    assert tab.watch.problems == []
