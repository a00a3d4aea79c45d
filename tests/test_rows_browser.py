"""The rows of the index and project pages in Chromium: whole without JavaScript;
with it (rows.js), sorted by a column head, filtered by text, date range, model
and source, and walked with the arrow keys. On the bundled examples, whose
tidepool project holds four sessions of two agents and four models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .test_browser import Watch, browser, require_browser  # noqa: F401 (browser: a fixture)
from .test_example_output import be

pytestmark = pytest.mark.browser

# tidepool's sessions, newest first, as the page lists them (corpus/examples.py, corpus/codex.py).
TIDEPOOL = [
    # (title start, started, prompts, models, source)
    ("Different approach", "2026-03-09", 1, "gpt-5.4", "Codex"),
    ("`test_next_high_tide` fails", "2026-03-09", 1, "gpt-5.4", "Codex"),
    ("Two things for tidepool", "2025-12-10", 2, "sonnet-4-5 haiku-4-5", "Claude Code"),
    ("`tidepool today` prints", "2025-09-16", 1, "opus-4-1", "Claude Code"),
]
ROWS = "table.rows tbody tr:not(.month-head)"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_browser()
    root = tmp_path_factory.mktemp("rows") / "site"
    be.build_example_site(root)
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


def tidepool(root: Path) -> str:
    (page,) = root.glob("projects/tidepool-*/index.html")
    return page.as_uri()


def shown(page: Any) -> list[str]:
    """The titles of the rows a reader sees, top to bottom."""
    return page.locator(ROWS).filter(visible=True).locator("td.title a").evaluate_all(
        "links => links.map(a => a.textContent)")


def starts(titles: list[str]) -> list[str]:
    return [next(t for t, *_ in TIDEPOOL if title.startswith(t)) for title in titles]


def test_rows_read_without_javascript(browser: Any, root: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(tidepool(root))
        assert starts(shown(page)) == [t for t, *_ in TIDEPOOL]
        months = page.locator("tr.month-head th").evaluate_all("ths => ths.map(th => th.textContent)")
        assert months == ["March 2026 2 sessions", "December 2025 1 session", "September 2025 1 session"]
        assert page.locator(".row-filters").count() == 0  # rows.js makes them
        assert page.locator("table.rows th button").count() == 0
        cells = page.locator(ROWS).first.locator("td").evaluate_all("tds => tds.map(td => td.textContent.trim())")
        assert cells[1:] == ["2026-03-09 14:18 UTC", "5 min", "gpt-5.4", "1", "22.5k"]
        page.locator(ROWS).first.locator("td.title a").click()
        page.wait_for_url("**/sessions/*.html")
    finally:
        context.close()


def test_sorting_by_a_column_head(tab: Any, root: Path) -> None:
    page = tab
    page.goto(tidepool(root))
    started = page.locator("thead th", has_text="Started")
    assert started.get_attribute("aria-sort") == "descending"
    # Prompts, most first; equal rows keep the page's order; the months step aside.
    page.locator("thead th button", has_text="Prompts").click()
    assert page.locator("thead th", has_text="Prompts").get_attribute("aria-sort") == "descending"
    assert started.get_attribute("aria-sort") is None
    assert starts(shown(page)) == ["Two things for tidepool", "Different approach", "`test_next_high_tide` fails",
                                   "`tidepool today` prints"]
    assert page.locator("tr.month-head").filter(visible=True).count() == 0
    # Again: fewest first.
    page.locator("thead th button", has_text="Prompts").click()
    assert starts(shown(page))[-1] == "Two things for tidepool"
    # Titles, A to Z (as a reader reads them: case and punctuation aside).
    page.locator("thead th button", has_text="Session").click()
    assert starts(shown(page)) == ["Different approach", "`test_next_high_tide` fails", "`tidepool today` prints",
                                   "Two things for tidepool"]
    # Started: newest first again is the page's own order, months and all.
    page.locator("thead th button", has_text="Started").click()
    assert started.get_attribute("aria-sort") == "descending"
    assert starts(shown(page)) == [t for t, *_ in TIDEPOOL]
    assert page.locator("tr.month-head").filter(visible=True).count() == 3
    page.locator("thead th button", has_text="Started").click()
    assert started.get_attribute("aria-sort") == "ascending"
    assert starts(shown(page)) == [t for t, *_ in reversed(TIDEPOOL)]


def test_filters_by_text_date_model_and_source(tab: Any, root: Path) -> None:
    page = tab
    page.goto(tidepool(root))
    count = page.locator(".row-count")
    assert page.locator(".row-filters").is_visible()
    assert count.text_content() == "4 sessions"
    models = page.locator(".row-filters select").first.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert models == ["", "gpt-5.4", "haiku-4-5", "opus-4-1", "sonnet-4-5"]
    page.get_by_label("Filter sessions", exact=True).fill("Reading  FIRST")  # every word, in any case and order
    assert starts(shown(page)) == ["Different approach", "`test_next_high_tide` fails"]
    assert count.text_content() == "2 of 4 sessions"
    page.get_by_label("Filter sessions", exact=True).fill("")
    page.get_by_label("Model", exact=True).select_option("gpt-5.4")
    assert starts(shown(page)) == ["Different approach", "`test_next_high_tide` fails"]
    page.get_by_label("Model", exact=True).select_option("")
    page.get_by_label("Source", exact=True).select_option("Claude Code")
    assert starts(shown(page)) == ["Two things for tidepool", "`tidepool today` prints"]
    # A month with no row left loses its heading too.
    assert page.locator("tr.month-head").filter(visible=True).all_text_contents() == [
        "December 2025 1 session", "September 2025 1 session"]
    page.get_by_label("Source", exact=True).select_option("")
    page.get_by_label("From", exact=True).fill("2025-12-10")
    page.get_by_label("To", exact=True).fill("2025-12-31")
    assert starts(shown(page)) == ["Two things for tidepool"]
    assert count.text_content() == "1 of 4 sessions"
    page.get_by_label("Filter sessions", exact=True).fill("nothing like this")
    assert shown(page) == [] and count.text_content() == "0 of 4 sessions"


def test_the_index_filters_projects_by_date_range_and_source(tab: Any, root: Path) -> None:
    page = tab
    page.goto((root / "index.html").as_uri())
    names = lambda: page.locator(ROWS).filter(visible=True).locator("td.title a").all_text_contents()  # noqa: E731
    assert names() == ["notes-api", "dotfiles", "tidepool"]
    page.get_by_label("Source", exact=True).select_option("Codex")
    assert names() == ["tidepool"]
    page.get_by_label("Source", exact=True).select_option("")
    # A project matches a range its sessions overlap: tidepool ran from 2025-09-16 to 2026-03-09.
    page.get_by_label("From", exact=True).fill("2025-10-01")
    page.get_by_label("To", exact=True).fill("2025-10-31")
    assert names() == ["tidepool"]
    page.get_by_label("To", exact=True).fill("")
    page.get_by_label("From", exact=True).fill("2026-04-01")
    assert names() == ["notes-api", "dotfiles"]
    page.locator("thead th button", has_text="Tokens").click()
    assert names() == ["notes-api", "dotfiles"]  # 825.5k, 89.4k
    page.get_by_label("From", exact=True).fill("")
    assert names() == ["notes-api", "tidepool", "dotfiles"]


def test_arrow_keys_walk_the_rows(tab: Any, root: Path) -> None:
    page = tab
    page.goto(tidepool(root))
    links = page.locator(ROWS).locator("td.title a")
    focused = lambda: page.evaluate("document.activeElement.textContent")  # noqa: E731
    links.first.focus()
    page.keyboard.press("ArrowDown")
    assert focused().startswith("`test_next_high_tide` fails")
    page.keyboard.press("ArrowDown")  # across a month's heading
    assert focused().startswith("Two things for tidepool")
    page.keyboard.press("End")
    assert focused().startswith("`tidepool today` prints")
    page.keyboard.press("ArrowDown")  # the last row stays
    assert focused().startswith("`tidepool today` prints")
    page.keyboard.press("Home")
    assert focused().startswith("Different approach")
    page.keyboard.press("ArrowUp")
    assert focused().startswith("Different approach")
    # Hidden rows are skipped.
    page.get_by_label("Source", exact=True).select_option("Claude Code")
    page.locator(ROWS).filter(visible=True).locator("td.title a").first.focus()
    page.keyboard.press("ArrowDown")
    assert focused().startswith("`tidepool today` prints")
    # Enter opens the focused row's session.
    page.keyboard.press("Enter")
    page.wait_for_url("**/sessions/*.html")
