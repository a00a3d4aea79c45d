"""Search in a real browser: from ``file://`` (the search-index.js fallback) and
from a local server under a sub-path with netlify.toml's headers, CSP included
(Pagefind: a bundle per project, merged). Type a word known to be in one session,
get that session, open it at the matching moment.

On the example site; and on a history of our own (issue #37) where each word of
the issue's "Done when" is in one session only, with look-alikes in others (the
same word stemmed, a longer or shorter one, its parts, in other projects' shards):
a word only in one Read result, only in one command's error output, only in one
tool input, an identifier with "_"; a search from the index page lists exactly
the session holding it over http, and from file:// finds it or says why not.

Uses the browser of tests/test_browser.py (fixtures in conftest.py; skipped with
the reason where Chromium or Playwright is missing, failed under
BOUGH_REQUIRE_BROWSER=1); any console error, CSP violation or failed request
fails a test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bough_site.build import build
from bough_site.config import BuildConfig

from .helpers import (
    ExampleSite,
    Server,
    Tab,
    file_tree,
    prompt,
    reply,
    require_browser,
    reset_clock,
    serving,
    start_url,
    text,
    tool_result,
    tool_use,
    write_jsonl,
)

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


# --- a history of our own: each word in one session, look-alikes in the others ------------------

# The loader the agent reads in session 1: a word and identifiers in its first lines
# (within the default budget), one far past it.
_LOADER = "\n".join([
    "import os",
    "",
    "def load_table(path):",
    "    # the quokkaheart loader keeps parse_config_v2 apart",
    "    with open(path) as handle:",
    "        return handle.read()",
    "",
    "class JSONSerializer:",
    "    pass",
    *[f"value_{i} = compute({i})  # line {i}" for i in range(400)],
    "ZEPHYRTAIL = True",
])

# session -> (project, prompt, steps); a step is ("say", text) or ("tool", name, input, output, error)
_SESSIONS: dict[int, tuple[str, str, list[tuple[Any, ...]]]] = {
    1: ("alpha", "Read the loader please.", [
        ("tool", "Read", {"file_path": "/home/ada/src/alpha/loader.py"}, _LOADER, False),
        ("say", "It loads a table.")]),
    2: ("alpha", "Run the database tests.", [
        ("tool", "Bash", {"command": "pytest -q tests/test_db.py"},
         "E   psycopg.OperationalError: connection failed: ECONNREFUSED 127.0.0.1:5432\n"
         "REFUSED JOIN on table users\n\nDETAIL:  \\n\\n escaped lines", True),
        ("say", "The database is down.")]),
    3: ("alpha", "Find the shaft.", [
        ("tool", "Bash", {"command": "grep -rn wobbleshaft --include=*.toml ."}, "no match", False),
        ("say", "Nothing found.")]),
    4: ("beta", "Why was the join refused? I refuse to parse the config.", [
        ("say", "The parse_config function and JSON serializer refused to join; quokka hearts are a "
                "sweet. The connection was refused.")]),
    5: ("beta", "Refusing joins: wobble the shafts.", [
        ("say", "parse_config_v3 is the new one; the refusal joined the serializers. Use json.dumps.")]),
    6: ("gamma", "Look at the econnreset errors.", [
        ("tool", "Bash", {"command": "echo joined"}, "joined\nrefused\nquokkahearts load_tables", False),
        ("say", "ECONNRESET is not the same as a refusal.")]),
}


def _sid(n: int) -> str:
    return f"{n:08x}-aaaa-4bbb-8ccc-{n:012x}"


def _write_history(root: Path) -> Path:
    reset_clock()
    for n, (project, asked, steps) in _SESSIONS.items():
        sid, fields = _sid(n), {"sessionId": _sid(n), "cwd": f"/home/ada/src/{project}"}
        records = [prompt(f"{n:08x}-0000-4000-8000-000000000001", asked, **fields)]
        for i, step in enumerate(steps, 2):
            uuid, message = f"{n:08x}-0000-4000-8000-{i:012d}", f"msg_{n}_{i}"
            if step[0] == "say":
                records.append(reply(uuid, message, [text(step[1])], **fields))
                continue
            _, name, inputs, output, error = step
            records.append(reply(uuid, message, [tool_use(f"toolu_{n}_{i}", name, **inputs)], **fields))
            records.append(tool_result(f"{n:08x}-0000-4000-9000-{i:012d}", f"toolu_{n}_{i}", output, error=error,
                                       **fields))
        write_jsonl(root / "projects" / f"-home-ada-src-{project}" / f"{sid}.jsonl", records)
    return root / "projects"


@pytest.fixture(scope="module")
def own_site(tmp_path_factory: pytest.TempPathFactory) -> ExampleSite:
    """The history above, built with search at its defaults (three projects: three
    Pagefind shards, merged in the browser)."""
    require_browser()
    tmp = tmp_path_factory.mktemp("own-search")
    with pytest.MonkeyPatch.context() as env:  # module-scoped: the per-test HOME is not set up yet
        env.setenv("HOME", str(tmp / "home"))
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "BOUGH_ARCHIVE"):
            env.setenv(name, str(tmp / "home" / name.lower()))
        out = tmp / "site"
        build(BuildConfig(sources=[_write_history(tmp / "history")], out=out, archive=None, jobs=1),
              redaction_key=b"k")
    files = file_tree(out, site_only=True)
    assert len(json.loads(re.search(rb"\[.*\]", files["pagefind/shards.js"], re.DOTALL).group(0))) == 3
    return ExampleSite(out, files, "index.html", "")


@pytest.fixture(scope="module")
def own_server(own_site: ExampleSite) -> Iterator[Server]:
    with serving(own_site.root) as running:
        yield running


def _ask(tab: Tab, site: ExampleSite, server: Server, origin: str, query: str) -> tuple[str, list[dict[str, str]]]:
    """Type ``query`` into the index page's box: what the status says and each
    result (its session, the moment it links to, its excerpt's text and marks)."""
    page = tab.page
    page.goto(start_url(site, server, origin))
    page.fill("#bough-search-input", query)
    status = page.locator(".search-status", has_text="\u201c" + query + "\u201d")
    status.wait_for()
    results = page.locator(".search-results .search-result").evaluate_all("""items => items.map(li => ({
        href: li.querySelector("a.search-title").getAttribute("href"),
        excerpt: li.querySelector(".search-excerpt").textContent,
        marks: Array.from(li.querySelectorAll(".search-excerpt mark")).map(m => m.textContent),
        near: li.classList.contains("search-near") ? "yes" : "no"}))""")
    return status.inner_text(), results


def _sessions(results: list[dict[str, str]]) -> list[int]:
    found = [re.search(r"/sessions/([0-9a-f]{8})-aaaa-", r["href"]) for r in results]
    return [int(m.group(1), 16) for m in found if m]


# word -> (the sessions holding it: over http, from file://); None from file:// means the
# offline index does not hold it (what a tool printed) and the page must say so.
_DONE_WHEN = {
    "quokkaheart": ([1], None),  # only in one Read result
    "ECONNREFUSED": ([2], [2]),  # only in one command's error output
    "wobbleshaft": ([3], [3]),  # only in one tool input
    "load_table": ([1], None),  # an identifier with "_", in a Read result
    "parse_config_v3": ([5], [5]),  # an identifier with "_", in a reply
}


@pytest.mark.parametrize("origin", ["http", "file"])
@pytest.mark.parametrize("word", sorted(_DONE_WHEN))
def test_a_word_lists_exactly_the_sessions_holding_it(
    own_site: ExampleSite, own_server: Server, open_page: Callable[..., Tab], origin: str, word: str
) -> None:
    """From the index page: over http the session holding the word, and no other
    (not those with "quokka hearts", "refused", "wobble the shafts", "parse_config"
    or "load_tables", in the same shard or another); from file:// the same, or,
    for what only a tool printed, a page that says the offline index does not hold
    it and how to search it."""
    over_http, offline = _DONE_WHEN[word]
    expected = over_http if origin == "http" else offline
    tab = open_page()
    status, results = _ask(tab, own_site, own_server, origin, word)
    backend = tab.page.locator("[data-bough-search]").get_attribute("data-backend")
    assert backend == ("pagefind" if origin == "http" else "local")
    note = tab.page.locator(".search-note")
    if expected is None:
        assert results == [] and status == f"No session matches \u201c{word}\u201d in the offline index."
        assert note.is_visible() and "bough serve" in note.inner_text() and "What tools printed" in note.inner_text()
    else:
        assert _sessions(results) == expected, (status, results)
        assert status == f"1 session for \u201c{word}\u201d"
        assert [m.lower() for m in results[0]["marks"]][:1] == [word.lower()]
        assert note.is_visible() is (origin == "file")
    assert tab.watch.problems == [], tab.watch.problems


@pytest.mark.parametrize(("query", "sessions"), [
    ('"REFUSED JOIN"', [2]),  # a phrase: those words, in that order, together
    ("refused join", [4, 2]),  # both words, whole, anywhere: not "refusing joins" (5), not "joined" alone (6)
    ("JSONSerializer", [1]),  # camelCase, whole: not "JSON serializer" (4)
    ("json.dumps", [5]),
    ("test_db.py", [2]),  # inside a path: tests/test_db.py
    ("127.0.0.1", [2]),  # inside 127.0.0.1:5432
    ("OperationalError", [2]),  # after a dot: psycopg.OperationalError
])
def test_identifiers_and_phrases_are_found_whole_over_http(
    own_site: ExampleSite, own_server: Server, open_page: Callable[..., Tab], query: str, sessions: list[int]
) -> None:
    """As people type them: dotted names, paths, camelCase, quoted phrases; ranked by
    how often the words are there."""
    tab = open_page()
    _, results = _ask(tab, own_site, own_server, "http", query)
    assert _sessions(results) == sessions, results
    assert all(r["near"] == "no" for r in results)
    assert tab.watch.problems == [], tab.watch.problems


def test_a_word_inside_longer_ones_only_is_a_near_match_said_so(
    own_site: ExampleSite, own_server: Server, open_page: Callable[..., Tab]
) -> None:
    """"quokkah" is a whole word nowhere; "quokkaheart" and "quokkahearts" hold it
    (and "quokka hearts" does not): said so, and those shown, marked where it is."""
    tab = open_page()
    status, results = _ask(tab, own_site, own_server, "http", "quokkah")
    assert status == "No session holds \u201cquokkah\u201d as written: 2 sessions with this word inside longer ones."
    assert sorted(_sessions(results)) == [1, 6] and all(r["near"] == "yes" for r in results)
    assert [m.lower() for r in results for m in r["marks"]] == ["quokkah", "quokkah"]
    assert tab.watch.problems == [], tab.watch.problems


def test_a_result_opens_the_tool_call_that_matched_and_its_excerpt_reads_cleanly(
    own_site: ExampleSite, own_server: Server, open_page: Callable[..., Tab]
) -> None:
    """The word is in what the Read returned: the result links to that tool call
    (its reply's anchor and block number), whose result, opened, shows the word;
    the excerpt is a line or two of plain text around the marked word."""
    tab = open_page()
    _, results = _ask(tab, own_site, own_server, "http", "quokkaheart")
    [result] = results
    assert result["href"].endswith(f"{_sid(1)}.html#r1-1"), result["href"]
    excerpt = result["excerpt"]
    assert "\\n" not in excerpt and 60 <= len(excerpt) <= 300
    assert "# the quokkaheart loader keeps parse_config_v2 apart" in excerpt
    tab.page.locator("a.search-title").first.click()
    tab.page.wait_for_url(f"**/{_sid(1)}.html#r1-1")
    target = tab.page.locator("[id='r1-1']")
    assert target.is_visible() and "quokkaheart" in target.inner_text()
    # An error's escaped line ends read as spaces, not "\n".
    _, results = _ask(tab, own_site, own_server, "http", "DETAIL")
    assert "\\n" not in results[0]["excerpt"] and "escaped lines" in results[0]["excerpt"]
    assert tab.watch.problems == [], tab.watch.problems


def test_what_is_past_the_budget_is_not_found_and_the_page_holds_it(
    own_site: ExampleSite, own_server: Server, open_page: Callable[..., Tab]
) -> None:
    """The loader's last line is past the default budget of what a result gives
    search: no session matches, though the page shows it (README: what is not
    indexed, and --search-limit 0)."""
    [page] = [data for p, data in own_site.files.items() if p.endswith(f"{_sid(1)}.html")]
    assert b"ZEPHYRTAIL" in page
    tab = open_page()
    status, results = _ask(tab, own_site, own_server, "http", "ZEPHYRTAIL")
    assert results == [] and status == "No session matches \u201cZEPHYRTAIL\u201d."
    assert tab.watch.problems == [], tab.watch.problems
