"""A big project's pages in Chromium (docs/paging.md), on a generated project of
3,000 sessions (tests/helpers/big_project.py) opened from file://: the project page
shows the newest sessions and links every month; the month pages lead from one to
the next; sorting by a column orders every session of the project, from any of its
pages; a filter finds a session on an old month's page; the rows made from rows.js
read as the page's own; and the pages look right at a desktop and a phone width,
light and dark (tests/helpers/looks.py's checks), photographed to
test-artifacts/screenshots/paging/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bough_site import urls
from bough_site.model import COST_KEY, Project
from bough_site.pricing import price_table
from bough_site.render import months
from bough_site.cost_text import money
from bough_site.render.formats import seconds, tokens
from bough_site.render.pages import Renderer
from bough_site.render.project_summary import newest_first

from .helpers import SCREENSHOTS, Watch, require_browser
from .helpers.big_project import NEEDLE, big_project, project_files, write_files
from .helpers.looks import CHECK, NO_OVERLAP, SCHEMES, VIEWPORTS

pytestmark = pytest.mark.browser

ROWS = "table.rows tbody tr:not(.month-head)"
SHOTS = SCREENSHOTS / "paging"


class Big:
    def __init__(self, root: Path, project: Project) -> None:
        self.root = root
        self.project = project
        self.newest = newest_first(project.sessions)  # the pages' order

    def url(self, path: str) -> str:
        return (self.root / path).as_uri()

    @property
    def landing(self) -> str:
        return self.url(urls.project_html(self.project.id))

    def month(self, name: str) -> str:
        return self.url(urls.project_month_html(self.project.id, name))

    def page_of(self, slug: str) -> str:
        return self.url(urls.session_html(self.project.id, slug))


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Big:
    require_browser()
    tmp = tmp_path_factory.mktemp("paging")
    project = big_project(tmp)
    root = tmp / "site"
    # Priced, as a build makes the pages by default (pricing.py): the rows have a Cost column.
    write_files(root, project_files(project, renderer=Renderer(prices=price_table(None).version)))
    return Big(root, project)


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    """A page in a fresh context (UTC); no console error, CSP violation or failed request allowed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
    context.set_default_timeout(15_000)
    watch = Watch()
    watch.attach(context)
    yield context.new_page()
    context.close()
    assert watch.problems == []


def shown(page: Any) -> int:
    return page.locator(ROWS).filter(visible=True).count()


def first_rows(page: Any, n: int) -> list[list[str]]:
    """The first ``n`` rows a reader sees: each cell's text, and the link's address."""
    return page.evaluate("""([selector, n]) => [...document.querySelectorAll(selector)]
        .filter(row => row.offsetParent !== null).slice(0, n)
        .map(row => [...row.children].map(td => td.textContent.trim()).concat([row.querySelector("a").href]))""",
                         [ROWS, n])


def all_loaded(page: Any) -> None:
    """Wait until the table holds every row of the project. Polled from here: a string
    predicate that Playwright polls in the page is evaluated with eval, which the CSP
    refuses (and the watch then reports it)."""
    for _ in range(600):
        if page.locator(ROWS).count() == 3000:
            return
        page.wait_for_timeout(50)
    raise AssertionError("the project's rows never all loaded")


def test_the_project_page_shows_the_newest_and_links_every_month(tab: Any, big: Big) -> None:
    page = tab
    page.goto(big.landing)
    assert shown(page) == months.LANDING_ROWS == 200
    assert page.locator(".row-count").text_content() == "200 sessions on this page"
    assert page.locator(".rows-note").text_content().startswith("The latest 200 of 3,000 sessions")
    newest = big.newest[0]
    assert page.locator(ROWS).first.locator("a").get_attribute("href") == f"sessions/{newest.slug}.html"
    # The index of months: the oldest month is the last link; its page holds its sessions.
    links = page.locator("#months a")
    oldest = links.nth(links.count() - 1)
    oldest_key = oldest.get_attribute("href").removeprefix("months/").removesuffix(".html")
    oldest.click()
    page.wait_for_url("**/months/" + oldest_key + ".html")
    in_month = [s for s in big.newest if (s.started or "")[:7] == oldest_key]
    assert shown(page) == len(in_month)
    assert page.locator(".row-count").text_content() == f"{len(in_month)} sessions on this page"
    assert page.locator("h1").text_content().startswith("August 2025")
    # Newer, step by step, to the project page again.
    seen = [oldest_key]
    for _ in range(60):
        newer = page.locator("nav.month-nav").first.locator('a[rel="prev"]')
        if newer.text_content() == "← Latest sessions":
            newer.click()
            break
        newer.click()
        page.wait_for_load_state("load")
        seen.append(page.url.rsplit("/", 1)[1].removesuffix(".html"))
        assert 0 < shown(page) <= months.MONTH_ROWS
    page.wait_for_url("**/index.html")
    assert len(seen) == links.count() + 1  # every month, and one piece of a busy one
    assert any(name.endswith("-1") for name in seen)


def test_sorting_by_cost_orders_every_session_of_the_project(tab: Any, big: Big) -> None:
    """The Cost column sorts the project's 3,000 sessions (rows.js's rows), dearest first,
    then cheapest, and the rows made from rows.js show the cost as the page's own rows do."""
    page = tab
    costs = [s.stats[COST_KEY] for s in big.project.sessions]
    assert len(set(costs)) > 10 and all(isinstance(c, float) for c in costs)
    page.goto(big.landing)
    own = page.locator(ROWS).first.locator("td").last
    assert own.locator("data").text_content() == money(big.newest[0].stats[COST_KEY])
    page.locator("thead th button", has_text="Cost").click()
    all_loaded(page)
    assert page.locator(".row-count").text_content() == "3,000 sessions"
    first = page.locator(ROWS).filter(visible=True).first
    assert float(first.locator("td").last.locator("data").get_attribute("value")) == max(costs)
    assert first.locator("td").last.locator("data").text_content() == money(max(costs))
    page.locator("thead th button", has_text="Cost").click()
    first = page.locator(ROWS).filter(visible=True).first
    assert float(first.locator("td").last.locator("data").get_attribute("value")) == min(costs)
    # Every row, in order: what a reader scrolling the sorted list sees.
    values = page.evaluate(f"""[...document.querySelectorAll({ROWS!r})].filter(r => r.offsetParent !== null)
        .map(r => parseFloat(r.lastElementChild.querySelector("data").value))""")
    assert values == sorted(costs)


def test_sorting_orders_every_session_of_the_project(tab: Any, big: Big) -> None:
    page = tab
    by_tokens = sorted(big.newest, key=lambda s: -tokens(s.stats))  # stable: the page's order among equals
    page.goto(big.landing)
    page.locator("thead th button", has_text="Tokens").click()
    all_loaded(page)
    assert page.locator(".row-count").text_content() == "3,000 sessions"
    first = page.locator(ROWS).filter(visible=True).first
    assert first.locator("a").evaluate("a => a.href") == big.page_of(by_tokens[0].slug)
    assert first.locator("td").nth(5).locator("data").get_attribute("value") == str(tokens(by_tokens[0].stats))
    assert tokens(by_tokens[0].stats) == max(tokens(s.stats) for s in big.project.sessions)
    # Fewest first.
    page.locator("thead th button", has_text="Tokens").click()
    fewest = min(tokens(s.stats) for s in big.project.sessions)
    assert page.locator(ROWS).filter(visible=True).first.locator("td").nth(5).locator("data").get_attribute(
        "value") == str(fewest)
    # Back to the page's own order: its own 200 rows, months and all.
    page.locator("thead th button", has_text="Started").click()
    assert page.locator("thead th", has_text="Started").get_attribute("aria-sort") == "descending"
    assert shown(page) == 200 and page.locator(".row-count").text_content() == "200 sessions on this page"
    # From an old month's page too: the longest session of the project first.
    page.goto(big.month("2025-09"))
    page.locator("thead th button", has_text="Duration").click()
    all_loaded(page)
    longest = page.locator(ROWS).filter(visible=True).first
    top = max(seconds(s.started, s.ended) for s in big.project.sessions)
    assert longest.locator("td.d").get_attribute("data-v") == str(top)
    assert longest.locator("a").get_attribute("href").startswith("../sessions/")


def test_a_filter_finds_a_session_on_an_old_page(tab: Any, big: Big) -> None:
    page = tab
    (needle,) = [s for s in big.project.sessions if s.title == NEEDLE]
    assert needle not in big.newest[:200]
    page.goto(big.landing)
    page.get_by_label("Filter sessions", exact=True).fill("QUOKKA zanzibar")
    all_loaded(page)
    assert page.locator(".row-count").text_content() == "1 of 3,000 sessions"
    (row,) = page.locator(ROWS).filter(visible=True).all()
    assert row.locator("a").text_content() == NEEDLE
    assert row.locator("a").evaluate("a => a.href") == big.page_of(needle.slug)
    # Its month heads the row, linked to that month's page.
    head = page.locator("tr.month-head").filter(visible=True)
    assert head.count() == 1 and head.text_content().startswith("August 2025")
    assert head.locator("a").evaluate("a => a.href") == big.month("2025-08")
    # Emptied, the filter gives the page its own rows back.
    page.get_by_label("Filter sessions", exact=True).fill("")
    assert shown(page) == 200
    # The model box offers every model of the project once its rows are there.
    models = page.get_by_label("Model", exact=True).locator("option").all_text_contents()
    assert models[0] == "All models" and len(models) > 2
    # From a month page that does not hold it: its link leads up from months/.
    page.goto(big.month("2026-03"))
    page.get_by_label("Filter sessions", exact=True).fill("quokka")
    all_loaded(page)
    assert page.locator(ROWS).filter(visible=True).locator("a").get_attribute("href") == \
        f"../sessions/{needle.slug}.html"


def test_rows_made_from_rows_js_read_as_the_page_writes_them(tab: Any, big: Big) -> None:
    page = tab
    page.goto(big.landing)
    own = first_rows(page, 200)
    # A date filter every session passes: the project's rows, in the page's order.
    page.get_by_label("From", exact=True).fill("2000-01-01")
    all_loaded(page)
    assert page.locator(".row-count").text_content() == "3,000 sessions"
    assert first_rows(page, 200) == own
    page.goto(big.month("2026-06-1"))  # a full piece of a busy month
    own = first_rows(page, months.MONTH_ROWS)
    assert len(own) == months.MONTH_ROWS
    page.locator("thead th button", has_text="Started").click()  # oldest first: the project's rows
    page.locator("thead th button", has_text="Started").click()  # newest first again: the page's own
    assert first_rows(page, months.MONTH_ROWS) == own
    page.get_by_label("From", exact=True).fill("2000-01-01")
    all_loaded(page)
    start = [r[-1] for r in first_rows(page, 3000)].index(own[0][-1])
    assert first_rows(page, 3000)[start:start + months.MONTH_ROWS] == own


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_pages_look_right(browser: Any, big: Big, viewport: str, scheme: str) -> None:
    context = browser.new_context(viewport=VIEWPORTS[viewport], color_scheme=scheme)
    context.set_default_timeout(20_000)
    watch = Watch()
    watch.attach(context)
    problems: list[str] = []
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        page = context.new_page()
        for name, url, sort in (("project", big.landing, False), ("month", big.month("2026-06-1"), False),
                                ("sorted", big.month("2025-09"), True)):
            page.goto(url)
            page.wait_for_load_state("load")
            if sort:
                page.locator("thead th button", has_text="Tokens").click()
                all_loaded(page)
            problems += [f"{name} ({viewport}, {scheme}): {p}" for p in page.evaluate(CHECK, list(NO_OVERLAP))]
            shot = SHOTS / f"{name}-{viewport}-{scheme}.png"
            height = min(page.evaluate("document.documentElement.scrollHeight"), 4000)
            page.screenshot(path=str(shot), full_page=True,
                            clip={"x": 0, "y": 0, "width": VIEWPORTS[viewport]["width"], "height": height})
        # The index of months, where it is on the project page.
        page.goto(big.landing + "#months")
        page.locator("#months").screenshot(path=str(SHOTS / f"months-{viewport}-{scheme}.png"))
    finally:
        context.close()
    assert problems + watch.problems == []
