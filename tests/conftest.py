"""Shared test setup: no test ever touches the real ~/.claude, ~/.codex, ~/.gemini or data dirs.

Also the fixtures more than one test module uses: pytest finds them here, so no test
module imports another (tests/test_layout.py checks). Plain helpers are in the helpers package."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygments.lexer
import pytest
from hypothesis import settings

from bough_site.render import highlight as highlight_module
from bough_site.render.blockstore import BlockStore

from .helpers import (
    CHROMIUM,
    KEY,
    LAUNCH_ARGS,
    VIEWPORT,
    ExampleSite,
    Server,
    Tab,
    Watch,
    be,
    require_browser,
    reset_clock,
    serving,
)

# In CI the property tests run a fixed, reproducible set of examples (a red CI run can be
# replayed exactly); locally they keep exploring new random ones.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def fresh_record_clock() -> None:
    reset_clock()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))  # Gemini CLI's directory is $GEMINI_CLI_HOME/.gemini
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("BOUGH_REDACTION_KEY", KEY.decode())
    monkeypatch.delenv("BOUGH_ARCHIVE", raising=False)
    # The later agents' places (each in its HOME or XDG_DATA_HOME unless these say otherwise).
    for name in ("COPILOT_HOME", "QWEN_HOME", "QWEN_RUNTIME_DIR", "OPENCODE_DB"):
        monkeypatch.delenv(name, raising=False)
    return home


# --- highlighting ------------------------------------------------------------------------------


@pytest.fixture
def lexing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the texts Pygments lexes; the process's default store starts empty."""
    monkeypatch.setattr(highlight_module._DEFAULT, "store", BlockStore(None))
    calls: list[str] = []
    real = pygments.lexer.Lexer.get_tokens

    def counting(self: pygments.lexer.Lexer, text: str, unfiltered: bool = False) -> object:
        calls.append(text)
        return real(self, text, unfiltered)

    monkeypatch.setattr(pygments.lexer.Lexer, "get_tokens", counting)
    return calls


# --- the browser: each module that asks builds the site and starts the browser once -------------


@pytest.fixture(scope="module")
def browser_site(tmp_path_factory: pytest.TempPathFactory) -> ExampleSite:
    """The bundled examples' site, and a session page with a sub-agent run and a collapsed tool result."""
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


@pytest.fixture(scope="module")
def server(browser_site: ExampleSite) -> Iterator[Server]:
    with serving(browser_site.root) as running:
        yield running


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
