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
"""

from __future__ import annotations

import os
import posixpath
import re
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

import pytest

from .test_example_output import REPO, be

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SUBPATH = "/archive/"
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}
# Full-page screenshots of long sessions are cut here (pixels).
SCREENSHOT_MAX_HEIGHT = 6000
BLOCKING_IMPACTS = ("serious", "critical")


# --- skip or fail ---------------------------------------------------------------------


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    for module, package in (("playwright.sync_api", "playwright"), ("axe_playwright_python", "axe-playwright-python")):
        try:
            __import__(module)
        except ImportError:
            return f"the {package} package is not installed (pip install -e '.[test]')"
    return None


def require_browser() -> None:
    """Skip with the reason when no browser is here; fail instead when BOUGH_REQUIRE_BROWSER=1."""
    reason = browser_unavailable()
    if reason is None:
        return
    if os.environ.get("BOUGH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests are required (BOUGH_REQUIRE_BROWSER=1) but {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")


# --- the site and a server for it ------------------------------------------------------


@dataclass
class ExampleSite:
    root: Path
    files: dict[str, bytes]
    project: str  # projects/<id>/index.html of the session below
    session: str  # a session page with a sub-agent run and a collapsed tool result

    def pages(self) -> list[str]:
        return sorted(p for p in self.files if p.endswith(".html"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> ExampleSite:
    require_browser()  # before building anything
    root = tmp_path_factory.mktemp("browser") / "site"
    files = be.build_example_site(root)
    rich = [
        path
        for path, data in sorted(files.items())
        if re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", path)
        and b'<details class="subagent">' in data
        and b'<details class="more">' in data
    ]
    assert rich, "no example session has both a sub-agent run and a collapsed tool result"
    session = rich[0]
    project = posixpath.join(posixpath.dirname(posixpath.dirname(session)), "index.html")
    return ExampleSite(root, files, project, session)


def netlify_headers() -> list[tuple[str, dict[str, str]]]:
    with (REPO / "netlify.toml").open("rb") as handle:
        rules = tomllib.load(handle)["headers"]
    return [(rule["for"], rule["values"]) for rule in rules]


def _matches(pattern: str, path: str) -> bool:
    return path.startswith(pattern[:-1]) if pattern.endswith("*") else path == pattern


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site under SUBPATH only, with netlify.toml's headers; remembers every 4xx/5xx."""

    rules: ClassVar[list[tuple[str, dict[str, str]]]] = []
    errors: ClassVar[list[str]] = []

    def send_head(self):  # type: ignore[no-untyped-def]
        if not urlsplit(self.path).path.startswith(SUBPATH):
            self.send_error(404, "outside the site's sub-path")
            return None
        return super().send_head()

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        return super().translate_path("/" + path[len(SUBPATH) :] if path.startswith(SUBPATH) else path)

    def end_headers(self) -> None:
        site_path = "/" + urlsplit(self.path).path[len(SUBPATH) :]
        for pattern, values in self.rules:
            if _matches(pattern, site_path):
                for name, value in values.items():
                    self.send_header(name, value)
        super().end_headers()

    def send_response(self, code: int, message: str | None = None) -> None:
        if code >= 400:
            self.errors.append(f"HTTP {code} for {self.path}")
        super().send_response(code, message)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Server:
    base: str  # http://127.0.0.1:PORT/archive/
    errors: list[str]


@pytest.fixture(scope="module")
def server(site: ExampleSite) -> Iterator[Server]:
    errors: list[str] = []
    handler = type("Handler", (_SiteHandler,), {"rules": netlify_headers(), "errors": errors})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(site.root)))
    thread = threading.Thread(target=httpd.serve_forever, name="bough-test-http", daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}{SUBPATH}", errors)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


# --- the browser and what it reports ------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# Runs before any page script; Playwright injects it outside the page's CSP.
_REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (e) {
  window.__boughViolation(e.violatedDirective + " blocked " + (e.blockedURI || "inline") +
    " in " + e.sourceFile + ":" + e.lineNumber);
});
"""


@dataclass
class Watch:
    """Everything that went wrong in a browser context, as text lines."""

    problems: list[str] = field(default_factory=list)

    def attach(self, context: Any) -> None:
        context.expose_function("__boughViolation", lambda text: self.problems.append(f"CSP violation: {text}"))
        context.add_init_script(_REPORT_VIOLATIONS)
        context.on("page", self._attach_page)

    def _attach_page(self, page: Any) -> None:
        page.on("console", lambda msg: self._console(msg))
        page.on("pageerror", lambda err: self.problems.append(f"page error: {err}"))
        page.on("requestfailed", self._request_failed)
        page.on("response", self._response)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.problems.append(f"console error: {msg.text} at {msg.location}")

    def _request_failed(self, request: Any) -> None:
        # ERR_ABORTED: a request cut short because the test navigated on; a missing
        # file fails with ERR_FILE_NOT_FOUND, a missing page over HTTP with a status.
        if "ERR_ABORTED" not in (request.failure or ""):
            self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")


@dataclass
class Tab:
    page: Any
    watch: Watch


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[..., Tab]]:
    contexts = []

    def opener(color_scheme: str = "light") -> Tab:
        context = browser.new_context(viewport=VIEWPORT, color_scheme=color_scheme)
        contexts.append(context)
        context.set_default_timeout(10_000)  # a local static site: 10 s means it is stuck
        watch = Watch()
        watch.attach(context)
        return Tab(context.new_page(), watch)

    yield opener
    for context in contexts:
        context.close()


def start_url(site: ExampleSite, server: Server, origin: str, path: str = "index.html") -> str:
    if origin == "file":
        return (site.root / path).as_uri()
    return server.base + path


# --- the tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", ["file", "http"])
def test_click_through_the_site(site: ExampleSite, server: Server, open_page, origin: str) -> None:
    s = open_page()
    page = s.page
    # Over HTTP, start at the sub-path itself, as a visitor of the published site would.
    page.goto(start_url(site, server, origin, "" if origin == "http" else "index.html"))
    assert page.title().startswith("Projects")
    _assert_styled(page)

    # index -> project (by a text link, as a person would; charts link too)
    page.locator(f'a[href="{site.project}"]:not(svg a)').first.click()
    page.wait_for_url(re.compile(re.escape(site.project) + "$"))
    _assert_styled(page)

    # project -> session
    session_href = posixpath.relpath(site.session, posixpath.dirname(site.project))
    page.locator(f'a[href="{session_href}"]:not(svg a)').first.click()
    page.wait_for_url(re.compile(re.escape(site.session) + "$"))
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
    page.wait_for_url(re.compile(re.escape(site.project) + "$"))
    page.locator(".crumbs a").first.click()
    page.wait_for_url(re.compile(r"/index\.html$"))

    assert s.watch.problems == []
    assert server.errors == []


@pytest.mark.parametrize("origin", ["file", "http"])
def test_every_page_loads_cleanly_and_every_link_resolves(
    site: ExampleSite, server: Server, open_page, origin: str
) -> None:
    s = open_page()
    page = s.page
    targets: dict[str, str] = {}  # a linked URL without its fragment -> the page that links it
    for path in site.pages():
        page.goto(start_url(site, server, origin, path))
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
    assert len(targets) > len(site.pages())
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
def test_accessibility_and_screenshots(site: ExampleSite, server: Server, open_page, scheme: str) -> None:
    """axe-core finds nothing serious or critical on any page (contrast differs by
    colour scheme, so both are checked); the three page kinds are photographed."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    s = open_page(color_scheme=scheme)
    page = s.page
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shots = {"index.html": "index", site.project: "project", site.session: "session"}
    blocking = []
    for path in site.pages():
        page.goto(start_url(site, server, "http", path))
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


def test_the_server_sends_the_hosts_headers(site: ExampleSite, server: Server, open_page) -> None:
    s = open_page()
    page = s.page
    response = page.goto(server.base + "index.html")
    assert response is not None
    csp = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    asset = next(p for p in site.files if p.startswith("assets/") and p.endswith(".css"))
    cached = page.request.get(server.base + asset)
    assert cached.headers["cache-control"] == "public, max-age=31536000, immutable"
    # Outside the sub-path there is nothing: a root-absolute link would break.
    assert page.request.get(server.base.replace(SUBPATH, "/index.html")).status == 404
    server.errors.clear()


def test_injected_inline_script_is_blocked(site: ExampleSite, server: Server, open_page) -> None:
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
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
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
    from bough_site.render.pages import Renderer

    from .test_budget import READ_TEXT, page, read_session

    renderer = Renderer()
    html = page(renderer, read_session("s1")).replace('<details class="more">', '<details class="more" open>')
    path = tmp_path / urls.session_html("p", "s1")
    path.parent.mkdir(parents=True)
    path.write_text(html, encoding="utf-8")
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
