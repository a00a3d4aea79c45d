"""The browser: skip or fail when it is missing, the example site, and what a page
reports (console errors, page errors, CSP violations, failed requests).

Nothing here imports Playwright: the browser tests import it when they run, so a
machine without it still collects every other test (``require_browser``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .repo import REPO
from .server import Server


CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}


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


@dataclass
class ExampleSite:
    root: Path
    files: dict[str, bytes]
    project: str  # projects/<id>/index.html of the session below
    session: str  # a session page with a sub-agent run and a collapsed tool result

    def pages(self) -> list[str]:
        return sorted(p for p in self.files if p.endswith(".html"))


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


def start_url(site: ExampleSite, server: Server, origin: str, path: str = "index.html") -> str:
    if origin == "file":
        return (site.root / path).as_uri()
    return server.base + path
