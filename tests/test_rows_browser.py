"""The rows of the index and project pages in Chromium: whole without JavaScript;
with it (rows.js), sorted by a column head, filtered by text, date range, model
and source, and walked with the arrow keys. On a small site rendered from
hand-made session summaries: a project "harbor" of four sessions of two agents
and four models over three months, and two others for the index."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bough_site import urls
from bough_site.model import Project, Session, Site
from bough_site.publish import sessions_script
from bough_site.render.pages import Renderer

from .helpers import Watch, require_browser

pytestmark = pytest.mark.browser

# harbor's sessions, newest first, as the page lists them:
# (title, source, start, minutes, models, prompts, tokens)
HARBOR = [
    ("Different approach: retry the upload with backoff", "codex", "2026-03-09T14:18:00Z", 5, ["gpt-5.4"], 1, 22_500),
    ("`make test` fails on the first run of the day", "codex", "2026-03-09T14:02:00Z", 3, ["gpt-5.4"], 1, 68_700),
    ("Two things for harbor: a --days option and caching", "claude-code", "2025-12-10T09:02:00Z", 1,
     ["claude-sonnet-4-5-20250929", "claude-haiku-4-5"], 2, 250_500),
    ("`harbor today` prints times in UTC", "claude-code", "2025-09-16T20:31:00Z", 1, ["claude-opus-4-1"], 1, 186_600),
]
TITLES = [title for title, *_ in HARBOR]
# The index's other projects: (name, start of their one session, tokens).
OTHERS = [("notes", "2026-08-21T10:14:00Z", 825_500), ("dotfiles", "2026-04-03T19:40:00Z", 89_400)]
ROWS = "table.rows tbody tr:not(.month-head)"


def _session(n: int, title: str, source: str, start: str, minutes: int, models: list[str], prompts: int,
             tokens: int) -> Session:
    end = (datetime.fromisoformat(start) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Session(id=f"s{n}", source=source, cwd="/home/ada/src/x", title=title, started=start, ended=end,
                   versions=[], models=models, git_branch=None, files=[], timeline=[],
                   stats={"prompts": prompts, "input_tokens": tokens}, slug=f"s{n}")


def _project(pid: str, sessions: list[Session]) -> Project:
    stats = {key: sum(s.stats.get(key, 0) for s in sessions) for key in ("prompts", "input_tokens")}
    return Project(id=pid, name=pid, cwd=f"/home/ada/src/{pid}", sessions=sessions, stats=stats)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The index, the three project pages and their (empty) session pages, with the theme's assets."""
    require_browser()
    root = tmp_path_factory.mktemp("rows") / "site"
    harbor = _project("harbor", [_session(n, *row) for n, row in enumerate(HARBOR)])
    others = [_project(name, [_session(10 + n, f"{name} work", "claude-code", start, 30, ["claude-opus-4-6"], 2,
                                       tokens)]) for n, (name, start, tokens) in enumerate(OTHERS)]
    site = Site(projects=[harbor, *others], stats={}, warnings=[])
    renderer = Renderer()
    files = [*renderer.assets(), (urls.INDEX_HTML, renderer.index_page(site))]
    for project in site.projects:
        files.append((urls.project_html(project.id), renderer.project_page(project, site)))
        files.append((urls.project_sessions_js(project.id), sessions_script(project)))
        for session in project.sessions:
            files += renderer.session_pages(project, session)
    for path, data in files:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    """A page in a fresh context (UTC, so dates read as the page writes them); no problem allowed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
    context.set_default_timeout(10_000)
    watch = Watch()
    watch.attach(context)
    yield context.new_page()
    context.close()
    assert watch.problems == []


def harbor(root: Path) -> str:
    return (root / urls.project_html("harbor")).as_uri()


def shown(page: Any) -> list[str]:
    """The titles of the rows a reader sees, top to bottom."""
    return page.locator(ROWS).filter(visible=True).locator("td.title a").evaluate_all(
        "links => links.map(a => a.textContent)")


DIFFERENT, MAKE, TWO, TODAY = TITLES


def test_rows_read_without_javascript(browser: Any, root: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(harbor(root))
        assert shown(page) == TITLES
        months = page.locator("tr.month-head th").evaluate_all("ths => ths.map(th => th.textContent)")
        assert months == ["March 2026 2 sessions", "December 2025 1 session", "September 2025 1 session"]
        assert page.locator(".row-filters").count() == 0  # rows.js makes them
        assert page.locator("table.rows th button").count() == 0
        cells = page.locator(ROWS).first.locator("td").evaluate_all("tds => tds.map(td => td.textContent.trim())")
        assert cells == [DIFFERENT + " Codex", "2026-03-09 14:18 UTC", "5 min", "gpt-5.4", "1", "22.5k"]
        page.locator(ROWS).first.locator("td.title a").click()
        page.wait_for_url("**/sessions/s0.html")
    finally:
        context.close()


def test_sorting_by_a_column_head(tab: Any, root: Path) -> None:
    page = tab
    page.goto(harbor(root))
    started = page.locator("thead th", has_text="Started")
    assert started.get_attribute("aria-sort") == "descending"
    # Prompts, most first; equal rows keep the page's order; the months step aside.
    page.locator("thead th button", has_text="Prompts").click()
    assert page.locator("thead th", has_text="Prompts").get_attribute("aria-sort") == "descending"
    assert started.get_attribute("aria-sort") is None
    assert shown(page) == [TWO, DIFFERENT, MAKE, TODAY]
    assert page.locator("tr.month-head").filter(visible=True).count() == 0
    # Again: fewest first.
    page.locator("thead th button", has_text="Prompts").click()
    assert shown(page) == [DIFFERENT, MAKE, TODAY, TWO]
    # Titles, A to Z as a reader reads them: case and leading marks (a backtick) aside.
    page.locator("thead th button", has_text="Session").click()
    assert shown(page) == [DIFFERENT, TODAY, MAKE, TWO]
    # Tokens, most first.
    page.locator("thead th button", has_text="Tokens").click()
    assert shown(page) == [TWO, TODAY, MAKE, DIFFERENT]
    # Started: newest first again is the page's own order, months and all.
    page.locator("thead th button", has_text="Started").click()
    assert started.get_attribute("aria-sort") == "descending"
    assert shown(page) == TITLES
    assert page.locator("tr.month-head").filter(visible=True).count() == 3
    page.locator("thead th button", has_text="Started").click()
    assert started.get_attribute("aria-sort") == "ascending"
    assert shown(page) == list(reversed(TITLES))


def test_filters_by_text_date_model_and_source(tab: Any, root: Path) -> None:
    page = tab
    page.goto(harbor(root))
    count = page.locator(".row-count")
    assert page.locator(".row-filters").is_visible()
    assert count.text_content() == "4 sessions"
    models = page.locator(".row-filters select").first.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert models == ["", "gpt-5.4", "haiku-4-5", "opus-4-1", "sonnet-4-5"]  # short names
    page.get_by_label("Filter sessions", exact=True).fill("THE  first")  # every word, in any case and order
    assert shown(page) == [MAKE]
    assert count.text_content() == "1 of 4 sessions"
    page.get_by_label("Filter sessions", exact=True).fill("harbor")
    assert shown(page) == [TWO, TODAY]
    page.get_by_label("Filter sessions", exact=True).fill("")
    page.get_by_label("Model", exact=True).select_option("gpt-5.4")
    assert shown(page) == [DIFFERENT, MAKE]
    page.get_by_label("Model", exact=True).select_option("")
    page.get_by_label("Source", exact=True).select_option("Claude Code")
    assert shown(page) == [TWO, TODAY]
    # A month with no row left loses its heading too.
    assert page.locator("tr.month-head").filter(visible=True).all_text_contents() == [
        "December 2025 1 session", "September 2025 1 session"]
    page.get_by_label("Source", exact=True).select_option("")
    page.get_by_label("From", exact=True).fill("2025-12-10")
    page.get_by_label("To", exact=True).fill("2025-12-31")
    assert shown(page) == [TWO]
    assert count.text_content() == "1 of 4 sessions"
    page.get_by_label("Filter sessions", exact=True).fill("nothing like this")
    assert shown(page) == [] and count.text_content() == "0 of 4 sessions"


def test_the_index_filters_projects_by_date_range_and_source(tab: Any, root: Path) -> None:
    page = tab
    page.goto((root / "index.html").as_uri())
    names = lambda: page.locator(ROWS).filter(visible=True).locator("td.title a").all_text_contents()  # noqa: E731
    assert names() == ["notes", "dotfiles", "harbor"]
    page.get_by_label("Source", exact=True).select_option("Codex")
    assert names() == ["harbor"]
    page.get_by_label("Source", exact=True).select_option("")
    # A project matches a range its sessions overlap: harbor ran from 2025-09-16 to 2026-03-09.
    page.get_by_label("From", exact=True).fill("2025-10-01")
    page.get_by_label("To", exact=True).fill("2025-10-31")
    assert names() == ["harbor"]
    page.get_by_label("To", exact=True).fill("")
    page.get_by_label("From", exact=True).fill("2026-04-01")
    assert names() == ["notes", "dotfiles"]
    page.locator("thead th button", has_text="Tokens").click()
    assert names() == ["notes", "dotfiles"]  # 825.5k, 89.4k
    page.get_by_label("From", exact=True).fill("")
    assert names() == ["notes", "harbor", "dotfiles"]  # 825.5k, 528.3k, 89.4k


def test_arrow_keys_walk_the_rows(tab: Any, root: Path) -> None:
    page = tab
    page.goto(harbor(root))
    links = page.locator(ROWS).locator("td.title a")
    focused = lambda: page.evaluate("document.activeElement.textContent")  # noqa: E731
    links.first.focus()
    page.keyboard.press("ArrowDown")
    assert focused() == MAKE
    page.keyboard.press("ArrowDown")  # across a month's heading
    assert focused() == TWO
    page.keyboard.press("End")
    assert focused() == TODAY
    page.keyboard.press("ArrowDown")  # the last row stays
    assert focused() == TODAY
    page.keyboard.press("Home")
    assert focused() == DIFFERENT
    page.keyboard.press("ArrowUp")
    assert focused() == DIFFERENT
    # Hidden rows are skipped.
    page.get_by_label("Source", exact=True).select_option("Claude Code")
    page.locator(ROWS).filter(visible=True).locator("td.title a").first.focus()
    page.keyboard.press("ArrowDown")
    assert focused() == TODAY
    # Enter opens the focused row's session.
    page.keyboard.press("Enter")
    page.wait_for_url("**/sessions/s3.html")
