"""Search in a real browser, on the example site: from ``file://`` (the
search-index.js fallback) and from a local server under a sub-path with
netlify.toml's headers, CSP included (Pagefind: a bundle per project, merged).
Type a word known to be in one session, get that session first, open it at the
matching moment.

Uses the example site, its server and the browser of tests/test_browser.py
(fixtures in conftest.py; skipped with the reason where Chromium or Playwright is
missing, failed under BOUGH_REQUIRE_BROWSER=1); any console error, CSP violation
or failed request fails a test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from .helpers import ExampleSite, Server, Tab, start_url

pytestmark = pytest.mark.browser

ORIGINS = ("file", "http")
# Words each in exactly one session of the examples (checked below), and the kind
# of moment the first match is in.
WORDS = {
    "slowapi": ("c7f03b91-6d2e-4a85-b4c9-1e8d2a6f5b03", "p"),  # notes-api N4: the first prompt names it
    "predecessor": ("019cd2e7-c6b8-7368-9b86-605be5b3b792", "r"),  # the Codex session: only replies say it
}


def _search(tab: Tab, url: str, query: str) -> Any:
    page = tab.page
    page.goto(url)
    box = page.locator("#bough-search-input")
    box.click()
    box.fill(query)
    first = page.locator(".search-results .search-result a.search-title").first
    first.wait_for()
    return first


def _clean(tab: Tab) -> None:
    assert tab.watch.problems == [], tab.watch.problems


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize("word", sorted(WORDS))
def test_a_word_finds_its_session_and_opens_at_the_moment(
    browser_site: ExampleSite, server: Server, open_page: Callable[..., Tab], origin: str, word: str
) -> None:
    session, kind = WORDS[word]
    pages = [p for p, data in browser_site.files.items() if p.endswith(".html") and "/sessions/" in p
             and word.encode() in data.lower()]
    assert [p.rsplit("/", 1)[1] for p in pages] == [f"{session}.html"], "the word must be in one session only"
    tab = open_page()
    # From a project page, two levels down: links must resolve from there too.
    first = _search(tab, start_url(browser_site, server, origin, browser_site.project), word)
    backend = tab.page.locator("[data-bough-search]").get_attribute("data-backend")
    assert backend == ("local" if origin == "file" else "pagefind")
    href = first.get_attribute("href")
    assert f"{session}.html#" in href, href
    anchor = href.rsplit("#", 1)[1]
    assert anchor[0] == kind and anchor[1:].isdigit(), anchor
    first.click()
    tab.page.wait_for_url(f"**/{session}.html#{anchor}")
    target = tab.page.locator(f"[id='{anchor}']")
    assert target.is_visible()
    assert word in target.inner_text().lower()
    _clean(tab)


@pytest.mark.parametrize("origin", ORIGINS)
def test_filters_narrow_the_results(
    browser_site: ExampleSite, server: Server, open_page: Callable[..., Tab], origin: str
) -> None:
    tab = open_page()
    _search(tab, start_url(browser_site, server, origin), "tests")
    page = tab.page
    results = page.locator(".search-results .search-result")
    everything = results.count()
    assert everything > 1
    page.select_option("select[data-filter='source']", "Codex")
    page.wait_for_function(f"document.querySelectorAll('.search-results .search-result').length < {everything}")
    facts = page.locator(".search-results .search-result a.search-title").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")
    assert facts and all("/tidepool-" in href for href in facts), facts  # the Codex sessions are tidepool's
    _clean(tab)


def test_every_projects_shard_is_searched_and_filtered(
    browser_site: ExampleSite, server: Server, open_page: Callable[..., Tab]
) -> None:
    """Over http each project has its own Pagefind bundle: results come from all of
    them, ranked together, and the project filter lists every project."""
    listed = browser_site.files["pagefind/shards.js"].decode()
    shards = json.loads(listed[listed.index("[") : listed.rindex("]") + 1])
    assert len(shards) >= 2
    tab = open_page()
    loaded: list[str] = []
    tab.page.context.on("request", lambda request: loaded.append(request.url))
    _search(tab, start_url(browser_site, server, "http"), "file")  # a word in every project's sessions
    page = tab.page
    assert page.locator("[data-bough-search]").get_attribute("data-backend") == "pagefind"
    for shard in shards:
        assert any(f"{shard}pagefind-entry.json" in url for url in loaded), (shard, loaded)
    hrefs = page.locator(".search-results .search-result a.search-title").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")
    found = {href.split("projects/", 1)[1].split("/", 1)[0] for href in hrefs}
    assert found == {shard.split("/")[1] for shard in shards}, hrefs
    names = page.locator("select[data-filter='project'] option").evaluate_all(
        "options => options.map(o => o.value).filter(Boolean)")
    assert names == ["almanac", "dotfiles", "notes-api", "tidepool"]
    # One project: only its sessions, from its shard.
    page.select_option("select[data-filter='project']", "notes-api")
    page.locator(".search-results a.search-title:not([href*='/notes-api-'])").first.wait_for(state="detached")
    assert page.locator(".search-results a.search-title").count() >= 1
    _clean(tab)


@pytest.mark.parametrize("origin", ORIGINS)
def test_no_match_says_so(browser_site: ExampleSite, server: Server, open_page: Callable[..., Tab], origin: str) -> None:
    tab = open_page()
    page = tab.page
    page.goto(start_url(browser_site, server, origin))
    page.fill("#bough-search-input", "zzqxjvnotaword")
    page.locator(".search-status", has_text="No session matches").wait_for()
    assert page.locator(".search-results .search-result").count() == 0
    _clean(tab)
