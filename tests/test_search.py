"""The search index (bough_site/search/): Pagefind's bundles (one per project)
and the file:// fallback are built, reproducible and redacted; the copy of each
page Pagefind reads holds what a tool returned within the budget (an error whole)
and leaves out only what Pagefind ignores anyway; an incremental build makes again
only the shard of a project whose pages changed; ``--no-search`` leaves both out.
What a search in a browser then finds: tests/test_search_browser.py; Pagefind's
file format, per version: tests/test_pagefind_format.py."""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from html import escape
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bough_site.build import build
from bough_site.cli import main
from bough_site.config import DEFAULT_SEARCH_LIMIT, BuildConfig
from corpus import examples as ex
from corpus.claude import generate_claude_history
from bough_site.model import Prompt, Reply, Session, Text, ToolCall, ToolResult, Usage
from bough_site.options import build_options
from bough_site.render.pages import CSP, CSP_SEARCH
from bough_site.search.offline import (
    ERROR_CHARS,
    FALLBACK_PATH,
    ITEM_CHARS,
    SESSION_CHARS,
    fallback_script,
    part_script,
    project_parts,
    session_entries,
)
from bough_site.search.page_copy import (
    _ESCAPED_BREAK,
    before_body_trimmed,
    code_as_text,
    output_chars,
    output_text,
    outputs_as_text,
    pagefind_copy,
    strip_ignored,
)
from bough_site.search.pagefind_run import (
    INDEX_LANGUAGE,
    PAGEFIND_DIR,
    SESSION_PAGE,
    SearchError,
    _pagefind_bundle,
    _run_pagefind,
    pagefind_binary,
    pagefind_files,
    pagefind_version,
    prepare_pages,
    scratch_folder,
)
from bough_site.search import page_copier, pagefind_run
from bough_site.search import shards as shard_module
from bough_site.search.shards import SHARD_STAMP, SHARDS_PATH, EarlyShards, pagefind_identity
from bough_site.write import SiteWriter

from .helpers import (
    OLD,
    SESSION,
    age,
    append_turn,
    file_tree,
    finished_within,
    main_file,
    make_history,
    prompt,
    reply,
    rewritten,
    run,
    sessions_of,
    spy_early_shards,
    swapped_for_a_fifo_once_looked_at,
    text,
    tool_result,
    tool_use,
    tree,
    write_jsonl,
)


def _files(root: Path) -> dict[str, bytes]:
    return file_tree(root, site_only=True)


def _shards(files: dict[str, bytes]) -> list[str]:
    """The shards pagefind/shards.js lists."""
    match = re.fullmatch(r"/\*[^*]*\*/\nexport default (\[.*\]);\n", files[SHARDS_PATH].decode(), re.DOTALL)
    assert match, files[SHARDS_PATH][:200]
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def example_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("search") / "site"
    build(BuildConfig(out=out))  # the bundled examples: HOME is empty
    return out


@pytest.fixture(scope="module")
def example(example_out: Path) -> dict[str, bytes]:
    return _files(example_out)


_PART = re.compile(r"/\*[^*]*\*/\n\(window\.BOUGH_SEARCH_PARTS = window\.BOUGH_SEARCH_PARTS \|\| \{\}\)"
                   r'\["([0-9a-f]{32})"\] = (\{.*\});\n', re.DOTALL)


def _index(files: dict[str, bytes]) -> dict:
    """search-index.js and its parts, merged as search.js merges them: sessions newest
    first, projects, sources and models named once (by first appearance)."""
    text = files[FALLBACK_PATH].decode("utf-8")
    match = re.fullmatch(r"/\*[^*]*\*/\nwindow\.BOUGH_SEARCH_INDEX = (\{.*\});\n", text, re.DOTALL)
    assert match, text[:200]
    entry = json.loads(match.group(1))
    merged: dict = {"v": entry["v"], "projects": [], "sources": [], "models": [], "sessions": []}

    def at(table: str, name: str) -> int:
        if name not in merged[table]:
            merged[table].append(name)
        return merged[table].index(name)

    for name in entry["parts"]:
        part = _PART.fullmatch(files[f"search-index/{name}.js"].decode("utf-8"))
        assert part and part.group(1) == name
        index = json.loads(part.group(2))
        merged["sessions"] += [{**s, "p": at("projects", index["projects"][s["p"]]),
                                "s": at("sources", index["sources"][s["s"]]),
                                "m": [at("models", index["models"][m]) for m in s["m"]]} for s in index["sessions"]]
    merged["sessions"].sort(key=lambda s: (s["d"], s["u"]), reverse=True)
    return merged


def test_a_pagefind_bundle_per_project(example: dict[str, bytes]) -> None:
    projects = sorted({p.split("/")[1] for p in example if re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", p)})
    assert len(projects) == 4  # almanac (Gemini CLI only), dotfiles, notes-api, tidepool
    assert _shards(example) == [f"pagefind/{project}/" for project in projects]  # sorted
    for project in projects:
        shard = f"pagefind/{project}/"
        # No stemmer: the language is one Pagefind has none for, its WebAssembly the plain one.
        for name in ("pagefind.js", "pagefind-worker.js", "pagefind-entry.json", "wasm.unknown.pagefind",
                     SHARD_STAMP):
            assert shard + name in example
        assert not any(p.startswith(shard + "wasm.") and p != shard + "wasm.unknown.pagefind" for p in example)
        assert any(p.startswith(shard + "filter/") for p in example)
        entry = json.loads(example[shard + "pagefind-entry.json"])
        sessions = [p for p in example if re.fullmatch(rf"projects/{project}/sessions/[^/]+\.html", p)]
        assert list(entry["languages"]) == [INDEX_LANGUAGE] == ["zxx"]
        assert entry["languages"]["zxx"]["page_count"] == len(sessions)
        stamp = json.loads(example[shard + SHARD_STAMP])
        assert sorted(stamp["pages"]) == sorted(sessions)
        assert stamp["output_kb"] == DEFAULT_SEARCH_LIMIT and stamp["language"] == "zxx"
    # Nothing outside the shards but their list; none of Pagefind's own interfaces.
    assert {p.split("/")[1] for p in example if p.startswith("pagefind/")} == {*projects, "shards.js"}
    assert not any(re.search(r"/(playground/|pagefind-ui|pagefind-(modular|component)-ui|pagefind-highlight)", p)
                   for p in example)


def test_only_the_conversation_is_indexed_with_title_and_filters(example: dict[str, bytes]) -> None:
    page = next(data.decode() for p, data in example.items() if p.endswith(f"{ex.N4}.html"))
    assert page.count("data-pagefind-body") == 1
    assert re.search(r'<div class="timeline" data-pagefind-body>', page)
    assert re.search(r'<h1 data-pagefind-meta="title">', page)
    for name in ("project", "source", "model"):
        assert f'data-pagefind-filter="{name}"' in page
    # What tools printed is marked for search/page_copy.py (which keeps it within the budget),
    # its head ("Result · exit code 0") is not indexed.
    results = page.count('<div class="tool-result') - page.count('<div class="tool-result missing"')
    marked = re.findall(r'<div class="tool-result( error)?" data-bough-output="(error|result)">\n'
                        r'<div class="result-head" data-pagefind-ignore>', page)
    assert results == len(marked) > 0
    assert all((error == " error") == (kind == "error") for error, kind in marked)
    assert "data-bough-output" not in page.split('data-pagefind-body', 1)[0]
    # Index and project pages are not indexed.
    assert b"data-pagefind-body" not in example["index.html"]
    # Pagefind's fragments hold the title and the filters.
    fragments = [gzip.decompress(data) for p, data in example.items() if re.match(r"pagefind/[^/]+/fragment/", p)]
    assert any(b"slowapi" in f and b"notes-api" in f and b"Claude Code" in f for f in fragments)


def test_an_items_label_and_clock_are_not_indexed(example: dict[str, bytes]) -> None:
    """A session's indexed text starts with its first prompt, not with "Prompt",
    the clock time and the "#" of its heading; no heading's time is in it."""
    path, page = next((p, data.decode()) for p, data in example.items() if p.endswith(f"{ex.N4}.html"))
    heads = re.findall(r'<header class="item-head" data-pagefind-ignore>(.*?)</header>', page, re.DOTALL)
    assert len(heads) == page.count('<header class="item-head"') > 1
    clocks = set(re.findall(r'data-format="time"[^>]*>([0-9:]+)</time>', page))
    assert clocks
    fragments = [json.loads(gzip.decompress(data).removeprefix(b"pagefind_dcd"))
                 for p, data in example.items() if "/fragment/" in p]
    [fragment] = [f for f in fragments if f["url"].endswith(path.rsplit("/", 1)[1])]
    first_prompt = re.search(r'<div class="prompt-text">([^<]{1,40})', page).group(1)
    assert fragment["content"].startswith(first_prompt)
    assert not any(clock in fragment["content"] for clock in clocks)


def test_pages_link_the_search_script_and_allow_wasm(example: dict[str, bytes]) -> None:
    for path, data in example.items():
        if path.endswith(".html"):
            assert f'content="{CSP_SEARCH}"'.encode() in data, path
            assert re.search(rb'<script src="[./]*assets/search\.[0-9a-f]{8}\.js" defer></script>', data), path
            assert b"data-bough-search" in data and b"pagefind-ui" not in data, path


def test_fallback_index(example: dict[str, bytes]) -> None:
    index = _index(example)
    assert index["v"] == 2
    assert sorted(index["projects"]) == ["almanac", "dotfiles", "notes-api", "tidepool"]
    assert sorted(index["sources"]) == ["Claude Code", "Codex", "Copilot CLI", "Gemini CLI", "OpenCode", "Qwen Code"]
    # 7 Claude Code, 2 Codex, 2 Gemini CLI, 2 Copilot CLI, 1 OpenCode (its sub-agent nested), 1 Qwen Code
    assert len(index["sessions"]) == 15
    by_url = {s["u"]: s for s in index["sessions"]}
    for url in by_url:
        assert url in example, url  # every link is a page of the site
    n4 = next(s for u, s in by_url.items() if u.endswith(f"{ex.N4}.html"))
    assert index["projects"][n4["p"]] == "notes-api" and index["sources"][n4["s"]] == "Claude Code"
    anchor, text = n4["i"][0]
    assert anchor == "p1" and "slowapi" in text
    for session in index["sessions"]:
        assert sum(len(text) for _, text in session["i"]) <= SESSION_CHARS
        # Prompts and replies by their anchors, tool calls by their reply's and their block's number.
        assert all(re.fullmatch(r"[pr]\d+|r\d+-\d+", anchor) for anchor, _ in session["i"])
    calls = [item for s in index["sessions"] for item in s["i"] if "-" in item[0]]
    assert calls and all(example[next(u for u, s in by_url.items() if item in s["i"])].count(
        f'id="{item[0]}"'.encode()) == 1 for item in calls)  # each call's anchor is on its page, once


def test_search_holds_no_secret(example: dict[str, bytes]) -> None:
    assert ex.FAKE_OPENAI_KEY.encode() in (ex.bundled_root() / "projects" / "-home-ada-src-notes-api" /
                                           f"{ex.N1}.jsonl").read_bytes()
    assert not any(ex.FAKE_OPENAI_KEY.encode() in data for path, data in example.items()
                   if path.startswith("search-index"))
    for path, data in example.items():
        if path.startswith("pagefind/") and path.endswith((".pf_fragment", ".pf_index", ".pf_filter", ".pf_meta")):
            assert ex.FAKE_OPENAI_KEY.encode() not in gzip.decompress(data), path


def test_the_fallback_script_cannot_break_out(tmp_path: Path) -> None:
    from bough_site.model import Project

    text = "</script><script>alert(1)</script> & \u2028"
    session = Session("s", "codex", "/x", text, None, None, [], [], None, [], [], {})
    session.search_items = [["p1", text]]
    session.slug = "s"
    [part] = project_parts(Project("x", "x", "/x", [session], {}), {})
    script = part_script(part).decode()
    assert "<" not in script.split("*/", 1)[1] and "\u2028" not in script
    assert json.loads(_PART.fullmatch(script).group(2))["sessions"][0]["t"] == text


def site_parts(site, details_name=None) -> list:
    """search-index.js's parts of every project, as publish.py lists them (one shard a project)."""
    return [part for project in site.projects for part in project_parts(project, {}, details_name)]


def test_each_part_of_the_fallback_is_made_a_few_sessions_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A part of search-index.js is made a few sessions at a time, each given its search
    items only meanwhile (a build holds them no longer): the bytes are those of the
    part's whole index encoded at once, sorted keys, sessions newest first; its name
    comes from what it is made of, the details' name standing for the items."""
    import contextlib

    from bough_site.build import load_site
    from bough_site.config import BuildConfig
    from bough_site.summaries import DETAIL_FIELDS

    site = load_site(BuildConfig(sources=[ex.bundled_root()], out=Path("unused")))
    assert len(site.projects) >= 2  # the bundled Claude Code projects
    kept = {id(s): s.search_items for p in site.projects for s in p.sessions}
    held: list[str] = []

    @contextlib.contextmanager
    def details(sessions: list[Session]):
        held.extend(session.id for session in sessions)
        assert len(sessions) <= 2
        for session in sessions:
            session.search_items = kept[id(session)]
        yield
        for session in sessions:
            for name in DETAIL_FIELDS:
                setattr(session, name, [])

    parts = site_parts(site)
    assert [part.project.id for part in parts] == [project.id for project in site.projects]  # one each: small
    whole = [part_script(part) for part in parts]
    assert held == [] and any(b'"i":[["p1",' in script for script in whole)
    for part, script in zip(parts, whole):
        data = _PART.fullmatch(script.decode()).group(2).encode()
        index = json.loads(data)
        order = [(entry["d"], entry["u"]) for entry in index["sessions"]]
        assert len(order) == len(part.sessions) and order == sorted(order, reverse=True)  # newest first
        # The whole index encoded at once, sorted keys: what the script's bytes must be.
        at_once = orjson.dumps(index, option=orjson.OPT_SORT_KEYS)
        for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
                             ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
            at_once = at_once.replace(raw, escaped)
        assert data == at_once
    for project in site.projects:
        for session in project.sessions:
            session.search_items = []
    monkeypatch.setattr("bough_site.search.offline.DETAILS_BATCH", 2)
    assert [part_script(part, details) for part in parts] == whole
    assert held == [s.id for p in site.projects for s in p.sessions]  # each session's once, in turn
    assert all(s.search_items == [] for p in site.projects for s in p.sessions)
    # Named by the details' names when a build gives them: one session's other details, one part's other name.
    named = [part.digest for part in site_parts(site, lambda session: session.id)]
    grown = site.projects[0].sessions[0]
    renamed = site_parts(site, lambda session: session.id + ("x" if session is grown else ""))
    assert [a == b.digest for a, b in zip(named, renamed)] == [False] + [True] * (len(parts) - 1)
    entry = fallback_script(parts).decode()
    assert json.loads(entry.split(" = ", 1)[1].rstrip(";\n")) == {"parts": [part.digest for part in parts], "v": 2}


def test_session_entries_are_capped_prompts_first() -> None:
    timeline = []
    for n in range(1, 30):
        timeline.append(Prompt(f"u{n}", f"p{n}", None, [Text(f"prompt {n} " + "x" * 50)]))
        timeline.append(Reply(f"m{n}", f"r{n}", None, None, [Text("reply " + "y" * 1000)], Usage()))
    session = Session("s", "codex", "/x", "t", None, None, [], [], None, [], timeline, {})
    entries = session_entries(session)
    assert sum(len(text) for _, text in entries) <= SESSION_CHARS
    assert all(len(text) <= ITEM_CHARS for _, text in entries)
    assert [a for a, _ in entries if a.startswith("p")] == [f"p{n}" for n in range(1, 30)]  # every prompt kept
    assert [a for a, _ in entries] == sorted((a for a, _ in entries), key=lambda a: (int(a[1:]), a[0]))


def test_a_giant_page_is_left_to_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    build(BuildConfig(out=out, search=False))
    pages = [p.relative_to(out).as_posix() for p in out.rglob("*.html")]
    sizes = sorted((out / p).stat().st_size for p in pages if "/sessions/" in p)
    monkeypatch.setattr("bough_site.search.pagefind_run.MAX_INDEXED_PAGE", sizes[-2] - 1)  # the two largest are too big
    notes: list[str] = []
    files = dict(pagefind_files(out, pages, notes.append))
    assert len(notes) == 2 and all("left out of the Pagefind index" in n for n in notes)
    assert json.loads(files["pagefind/pagefind-entry.json"])["languages"]["zxx"]["page_count"] == len(sizes) - 2


def test_pagefinds_scratch_is_in_memory_when_there_is_room(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr("bough_site.search.pagefind_run.MEMORY_SCRATCH", tmp_path)
    free = shutil.disk_usage(tmp_path).free
    assert scratch_folder(1 << 20) == str(tmp_path)
    assert scratch_folder(free) is None  # no room for twice the pages
    monkeypatch.setenv("TMPDIR", str(tmp_path / "elsewhere"))
    assert scratch_folder(1 << 20) is None  # a TMPDIR given says where temporary files go
    monkeypatch.delenv("TMPDIR")
    monkeypatch.setattr("bough_site.search.pagefind_run.MEMORY_SCRATCH", tmp_path / "missing")
    assert scratch_folder(1 << 20) is None


def test_a_scratch_that_fails_gives_way_to_the_disk(example_out: Path, example: dict[str, bytes],
                                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Pagefind failing in the memory scratch (a tmpfs that filled up): the bundle is
    made again on disk, the same bytes (though the two file systems list the pages
    in different orders: canonical_bundle numbers them)."""
    monkeypatch.delenv("TMPDIR", raising=False)
    memory = tmp_path / "memory"
    memory.mkdir()
    monkeypatch.setattr("bough_site.search.pagefind_run.MEMORY_SCRATCH", memory)
    ran: list[bool] = []
    run_pagefind = _run_pagefind

    def full_in_memory(binary: Path, site: Path, *rest: Any) -> dict[str, bytes]:
        ran.append(site.is_relative_to(memory))
        if ran[-1]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return run_pagefind(binary, site, *rest)

    monkeypatch.setattr("bough_site.search.pagefind_run._run_pagefind", full_in_memory)
    project = _shards(example)[0].rstrip("/")
    folder = project.replace(PAGEFIND_DIR, "projects", 1) + "/sessions/"
    pages = sorted(p for p in example if p.startswith(folder) and p.endswith(".html"))
    files = dict(_pagefind_bundle(example_out, pages, lambda line: None, project, pagefind_binary()))
    assert ran == [True, False] and list(memory.iterdir()) == []
    assert files == {path: data for path, data in example.items()
                     if path.startswith(project + "/") and not path.endswith(SHARD_STAMP)}


def test_a_project_with_nothing_to_index_gets_no_shard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bough_site.search.pagefind_run.MAX_INDEXED_PAGE", 0)
    out = tmp_path / "site"
    build(BuildConfig(out=out))
    files = _files(out)
    assert _shards(files) == [] and [p for p in files if p.startswith("pagefind/")] == [SHARDS_PATH]


def test_two_builds_give_the_same_bundle(example: dict[str, bytes], tmp_path: Path) -> None:
    build(BuildConfig(out=tmp_path / "again"))
    again = _files(tmp_path / "again")
    searchable = [p for p in example if p.startswith("pagefind/") or p == FALLBACK_PATH]
    assert sorted(p for p in again if p.startswith("pagefind/") or p == FALLBACK_PATH) == sorted(searchable)
    for path in searchable:
        assert again[path] == example[path], path


def test_no_search_leaves_both_out(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", "-o", str(out), "--no-search", "-q"])
    assert result.exit_code == 0, result.output
    files = _files(out)
    assert not any(p.startswith("pagefind/") or p == FALLBACK_PATH for p in files)
    for path, data in files.items():
        if path.endswith(".html"):
            assert b"data-pagefind" not in data and b"data-bough-search" not in data, path
            assert b"assets/search." not in data and f'content="{CSP}"'.encode() in data, path
    # Turning search on again later adds both; off again, they are pruned.
    build(BuildConfig(out=out))
    assert FALLBACK_PATH in _files(out)
    build(BuildConfig(out=out, search=False, prune=True))
    assert not any(p.startswith("pagefind/") or p == FALLBACK_PATH for p in _files(out))


# --- what Pagefind reads: pages without the content it ignores ---------------------------------------


@pytest.mark.parametrize(("page", "stripped"), [
    # The element stays, empty; what follows it is kept.
    ('<div class="tool-result" data-pagefind-ignore><p>out</p></div><p>after</p>',
     '<div class="tool-result" data-pagefind-ignore></div><p>after</p>'),
    # Nested elements of the same name are counted.
    ("<div data-pagefind-ignore><div><div>a</div></div><div>b</div>c</div>d</div>",
     "<div data-pagefind-ignore></div>d</div>"),
    # An ignored element inside an ignored one goes with the content; the next one is stripped too.
    ("<div data-pagefind-ignore><div data-pagefind-ignore>a</div>b</div>c<div data-pagefind-ignore>d</div>",
     "<div data-pagefind-ignore></div>c<div data-pagefind-ignore></div>"),
    # Any element name, any case; a value for the attribute; end tags with spaces.
    ('<SECTION data-pagefind-ignore="all"><section>a</SECTION>b</section >c', '<SECTION data-pagefind-ignore="all"></section >c'),
    ("<Div data-pagefind-ignore><DIV>a</div>b</DIV>c", "<Div data-pagefind-ignore></DIV>c"),
    # ">" inside a quoted attribute value, before and after the attribute.
    ('<div title="a > b" data-pagefind-ignore data-x=\'<\'>x<div title=">">y</div></div>z',
     '<div title="a > b" data-pagefind-ignore data-x=\'<\'></div>z'),
    # Comments are not tags.
    ("<div data-pagefind-ignore><!-- <div> --></div>after", "<div data-pagefind-ignore></div>after"),
])
def test_strip_ignored_empties_ignored_elements(page: str, stripped: str) -> None:
    assert strip_ignored(page.encode()) == stripped.encode()


@pytest.mark.parametrize("page", [
    # The words as text (escaped, as bough writes any text), or in another attribute's value.
    "<p>add data-pagefind-ignore to &lt;div data-pagefind-ignore&gt;</p><div>keep</div>",
    '<div title="data-pagefind-ignore">keep</div>',
    '<div data-pagefind-ignore-not="1">keep</div>',
    # Void and self-closing elements have no content to remove; an unclosed one is left.
    '<img data-pagefind-ignore src="x.png"><p>keep</p>',
    "<div data-pagefind-ignore/><p>keep</p>",
    "<div data-pagefind-ignore><div/>a</div>b</div>",
    "<div data-pagefind-ignore><div>keep</div>",
    # Pagefind reads filters and metadata even in ignored content: that element stays whole.
    '<div data-pagefind-ignore><span data-pagefind-filter="kind">x</span></div>',
    '<div data-pagefind-ignore><div><span DATA-Pagefind-Meta="kind">x</span></div></div>',
    # bough writes its attributes in lower case: another spelling is left to Pagefind.
    "<div DATA-PAGEFIND-IGNORE>keep</div>",
])
def test_strip_ignored_leaves_what_is_not_plainly_ignored(page: str) -> None:
    assert strip_ignored(page.encode()) == page.encode()


# Random well-formed trees of elements (any case, some ignored, attribute values with
# ">" and the attribute's name in them) and escaped text that names tags and the attribute.
_WORDS = st.one_of(st.text(alphabet="ab <>&/='\"", max_size=6),
                   st.sampled_from(["data-pagefind-ignore", "<div>", "</div>", "<div data-pagefind-ignore>"]))
_VALUES = st.one_of(st.text(alphabet="ab >/='", max_size=6), st.just("x data-pagefind-ignore data-pagefind-filter"))
_ATTRS = st.lists(st.tuples(st.sampled_from(["class", "title", "id"]), _VALUES), max_size=2)
_IGNORE = st.sampled_from([None, None, "", "all"])
_NAMES = st.sampled_from(["div", "DIV", "Div", "span", "section"])
_LEAVES = st.one_of(
    st.tuples(st.just("text"), _WORDS),
    st.tuples(st.just("void"), st.sampled_from(["img", "br", "BR"]), _ATTRS, _IGNORE),
)
_TREES = st.lists(st.recursive(
    _LEAVES, lambda children: st.tuples(st.just("element"), _NAMES, _ATTRS, _IGNORE, st.lists(children, max_size=4)),
    max_leaves=25,
), max_size=4)


def _html(nodes: list, strip: bool = False) -> str:
    out = []
    for node in nodes:
        if node[0] == "text":
            out.append(escape(node[1]))
            continue
        attrs = "".join(f' {name}="{value}"' for name, value in node[2])
        if node[3] is not None:
            attrs += " data-pagefind-ignore" + (f'="{node[3]}"' if node[3] else "")
        out.append(f"<{node[1]}{attrs}>")
        if node[0] == "element":
            out.append("" if strip and node[3] is not None else _html(node[4], strip))
            out.append(f"</{node[1]}>")
    return "".join(out)


@given(_TREES)
def test_strip_ignored_is_the_tree_without_ignored_content(nodes: list) -> None:
    assert strip_ignored(_html(nodes).encode()) == _html(nodes, strip=True).encode()


def test_stripped_pages_give_the_same_index(example_out: Path, example: dict[str, bytes],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Each shard, made from the pages with only their ignored content and previews
    left out and their tool output as text, is the same bytes: what else the copy
    cuts (code's highlighting, outside the body what Pagefind does not read) changes
    nothing Pagefind reads. The example pages have all of it to cut. (What
    strip_ignored leaves out is checked against a model of the tree, below.)"""
    sessions = sorted(p for p in example if re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", p))
    stripped = [strip_ignored(example[p]) for p in sessions]
    assert sum(map(len, stripped)) < sum(len(example[p]) for p in sessions)
    assert all(len(before_body_trimmed(page)) < len(page) for page in stripped)
    assert any(code_as_text(page) != page for page in stripped)
    chars = output_chars(DEFAULT_SEARCH_LIMIT)
    monkeypatch.setattr("bough_site.search.page_copier.pagefind_copy",
                        lambda page, chars=chars: outputs_as_text(strip_ignored(page), chars))
    _copy_in_this_process(monkeypatch)  # where the copy above is the one made
    for shard in _shards(example):
        project = shard.split("/")[1]
        whole = dict(pagefind_files(example_out, [p for p in sessions if f"/{project}/" in p], root=shard[:-1]))
        made = {p: data for p, data in example.items() if p.startswith(shard) and not p.endswith(SHARD_STAMP)}
        assert whole == made, shard


def _copy_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pagefind's copies made in the test's process, not in one of their own, so
    that what the test changes of page_copier holds for them."""
    monkeypatch.setattr("bough_site.search.pagefind_run._copy_apart", lambda out, pages, site, chars: (
        page_copier.copy_stripped(out, pages, site, chars, pagefind_run.MAX_INDEXED_PAGE)))


_FULL_PAGE = """<!DOCTYPE html>
<html lang="fr" class="x">
<head>
<meta charset="utf-8"><link rel="stylesheet" href="a.css"><script src="a.js" defer></script>
<title>Le titre</title>
<meta name="x" data-pagefind-meta="date:2026">
</head>
<body>
<header><nav><a href="i.html">All</a> <a href="p.html" data-pagefind-filter="project">app</a></nav></header>
<main><h1 data-pagefind-meta="title">Heading <em>one</em></h1>
<dl class="stats"><div><dt>replies</dt><dd>3</dd></div></dl><img src="i.png" alt="">
<div hidden><span data-pagefind-filter="model">m</span></div>
<div class="timeline" data-pagefind-body><p>the words</p><h1>in the body</h1></div>
<p>after</p></main>
<footer>made with bough</footer>
</body>
</html>
"""


def test_before_the_body_only_what_pagefind_reads_is_kept() -> None:
    """The language, the title, every element with a Pagefind attribute (its content
    whole), the first heading and image; from the body on, the page as it is."""
    assert before_body_trimmed(_FULL_PAGE.encode()).decode() == """<!DOCTYPE html>
<html lang="fr" class="x">
<head>
<title>Le titre</title>
<meta name="x" data-pagefind-meta="date:2026">
</head>
<body>
<a href="p.html" data-pagefind-filter="project">app</a>
<h1 data-pagefind-meta="title">Heading <em>one</em></h1>
<img src="i.png" alt="">
<span data-pagefind-filter="model">m</span>
<div class="timeline" data-pagefind-body><p>the words</p><h1>in the body</h1></div>
<p>after</p></main>
<footer>made with bough</footer>
</body>
</html>
"""


@pytest.mark.parametrize("page", [
    _FULL_PAGE.replace(" data-pagefind-body", ""),  # no body: Pagefind reads the whole page
    _FULL_PAGE.replace('data-pagefind-filter="model"', 'DATA-PAGEFIND-FILTER="model"'),  # not as bough spells it
    _FULL_PAGE.replace("<main>", '<main data-pagefind-meta="x">'),  # the body inside an element to keep
    _FULL_PAGE.replace("</em></h1>", "</em>"),  # a heading's end is not found
    _FULL_PAGE.replace("<!DOCTYPE html>\n", ""),  # not plainly a document
])
def test_before_the_body_nothing_goes_unless_plainly_so(page: str) -> None:
    assert page != _FULL_PAGE
    assert before_body_trimmed(page.encode()) == page.encode()


# --- shards in incremental builds ---------------------------------------------------------------------


def _shard_of(files: dict[str, bytes], shard: str) -> dict[str, bytes]:
    return {p: data for p, data in files.items() if p.startswith(shard)}


@pytest.mark.parametrize("damaged", [b"{", b"[]", b'{"pages": []}'], ids=["not JSON", "no object", "no files"])
def test_a_shard_whose_stamp_cannot_be_read_is_made_again(tmp_path: Path, damaged: bytes) -> None:
    """Another project's shard is kept on an append only when its stamp says what it
    was made of; a stamp that is not JSON, not an object or names no files gets the
    shard made again, and the site is a fresh build's."""
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    mine = f"pagefind/{summary['html'].split('/')[1]}/"
    (other,) = [shard for shard in _shards(tree(out)) if shard != mine]
    (out / other / SHARD_STAMP).write_bytes(damaged)
    age(out)
    append_turn(path)
    run(history, out)
    assert f"{other}{SHARD_STAMP}" in rewritten(out)
    assert tree(out) == tree_of_fresh(history, tmp_path)


def test_an_append_makes_again_only_the_shard_of_its_project(tmp_path: Path) -> None:
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    mine = f"pagefind/{summary['html'].split('/')[1]}/"
    before = tree(out)
    shards = _shards(before)
    assert len(shards) == 2 and mine in shards
    age(out)
    append_turn(path)
    result = run(history, out)
    after = tree(out)
    # Only that project's shard was written (its list of shards is the same bytes, untouched).
    touched = {p for p in rewritten(out) if p.startswith("pagefind/")}
    assert touched and all(p.startswith(mine) for p in touched)
    assert f"{mine}{SHARD_STAMP}" in touched
    for other in shards:
        if other != mine:
            kept = _shard_of(before, other)
            assert kept and _shard_of(after, other) == kept
            assert all((out / p).stat().st_mtime_ns == OLD * 10**9 for p in kept)
            assert result.kept >= len(kept)
    # The grown shard lost the files the new one replaced; all is as a fresh build makes it.
    fresh = tmp_path / "fresh"
    run(history, fresh)
    assert after == tree(fresh)


def _fail(*args: object, **kwargs: object) -> bytes:
    raise SearchError("simulated")


@pytest.mark.parametrize("where", ["bough_site.publish.start_shards", "bough_site.search.shards.shards_module"])
def test_after_a_failed_build_the_shards_are_those_of_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A build wrote a grown session's page, then failed: before any shard, or after
    the grown project's shard (before its list and the manifest). The next build
    renders the page again, with the bytes it already has (the writer finds it
    unchanged): its project's shard is made again all the same."""
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    path, _ = main_file(history, out)
    append_turn(path)
    with monkeypatch.context() as patch:
        patch.setattr(where, _fail)
        with pytest.raises(SearchError):
            run(history, out)
    run(history, out)
    assert tree(out) == tree_of_fresh(history, tmp_path)


def test_a_kept_shard_whose_file_changed_is_made_again(tmp_path: Path) -> None:
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    other = next(s for s in _shards(tree(out)) if summary["html"].split("/")[1] not in s)
    (out / other / "pagefind-entry.json").write_text("{}")  # by hand, or by a build that then failed
    append_turn(path)  # something to build, in the other project
    run(history, out)
    assert tree(out) == tree_of_fresh(history, tmp_path)


def test_a_shard_left_as_it_was_is_kept_without_reading_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kept shard's files are read to tell that they are still the last build's
    only when their folders or times say they may not be (publish.Outputs.untouched):
    at 18,000 sessions reading them all took an append 0.3-0.6 s. One written in
    place since, its mtime set back, is read, and its shard made again."""
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    other = next(s for s in _shards(tree(out)) if summary["html"].split("/")[1] not in s)
    append_turn(path)
    run(history, out)  # the record this build leaves is later than every file of the other shard
    read: list[Path] = []
    digest_of = shard_module._digest_of
    monkeypatch.setattr(shard_module, "_digest_of", lambda file: read.append(file) or digest_of(file))
    append_turn(path)
    run(history, out)
    assert read == []
    entry = out / other / "pagefind-entry.json"
    was = entry.stat()
    entry.write_bytes(b"{}")
    os.utime(entry, ns=(was.st_atime_ns, was.st_mtime_ns))
    append_turn(path)
    run(history, out)
    assert read and all(file.is_relative_to(out / other) for file in read)
    assert tree(out) == tree_of_fresh(history, tmp_path)


@pytest.mark.parametrize("read", ["_read_stamp", "_digest_of"])
def test_a_shard_file_swapped_for_a_fifo_after_a_look_is_never_waited_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: str) -> None:
    """A shard's stamp and files are read as what they are on the descriptor that
    reads them (regular.read_regular): a FIFO put there after an earlier look at
    the path is not read through."""
    target = tmp_path / "bough-shard.json"
    target.write_bytes(b'{"pages": []}')
    swapped_for_a_fifo_once_looked_at(monkeypatch, target)
    got: list[object] = []
    assert finished_within(10, lambda: got.append(getattr(shard_module, read)(target)), target) is None
    assert got == [{"pages": []} if read == "_read_stamp" else shard_module._digest(b'{"pages": []}')]


def test_shards_are_made_again_for_another_pagefind_and_go_with_their_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    shards = _shards(tree(out))
    # Another Pagefind: with any change, every shard is made again (a merged index must
    # match the pagefind.js that loads it), not only the changed project's.
    real = pagefind_version
    monkeypatch.setattr("bough_site.search.shards.pagefind_version", lambda binary: real(binary) + " (another)")
    age(out)
    append_turn(main_file(history, out)[0])
    run(history, out)
    assert {f"{shard}{SHARD_STAMP}" for shard in shards} <= rewritten(out)
    monkeypatch.setattr("bough_site.search.shards.pagefind_version", real)
    # A project whose sessions are all gone loses its shard once they are pruned.
    victim = shards[0].split("/")[1]
    ids = [i for i, summary in sessions_of(out).items() if summary["html"].startswith(f"projects/{victim}/")]
    for path in history.glob("*/*.jsonl"):  # its sessions and their sub-agents (old style: agent-*.jsonl beside)
        if any(i.encode() in path.read_bytes() for i in ids):
            path.unlink()
            shutil.rmtree(path.with_suffix(""), ignore_errors=True)  # sub-agents (new style: in a folder)
    run(history, out)
    assert _shards(tree(out)) == shards  # its pages stay until --prune, and so does its shard
    run(history, out, prune=True)
    files = tree(out)
    (left,) = _shards(files)
    assert [p for p in files if p.startswith("pagefind/")] == sorted([SHARDS_PATH, *_shard_of(files, left)])
    assert files == tree_of_fresh(history, tmp_path)


def tree_of_fresh(history: Path, tmp_path: Path) -> dict[str, bytes]:
    fresh = tmp_path / "fresh"
    shutil.rmtree(fresh, ignore_errors=True)
    run(history, fresh)
    return tree(fresh)


def test_text_past_the_highlighting_budget_is_indexed_as_the_text_before_it(tmp_path: Path) -> None:
    """A Write of 70 KB: its first 64 KB highlighted, the rest plain after a marker;
    Pagefind reads both alike (and the marker adds no text to the index)."""
    filler = "".join(f"filler_{i} = {i}\n" for i in range(6000))  # ~80 KB of Python
    content = "aardvarkhead = 1\n" + filler + "zebrafinchtail = 2\n"
    write_jsonl(tmp_path / "src" / "-home-ada-src-app" / f"{SESSION}.jsonl", [
        prompt("u1", "write the file"),
        reply("a1", "m1", [text("Writing it."), tool_use("t1", "Write", file_path="src/big.py", content=content)]),
        tool_result("u2", "t1", "File created"),
    ])
    out = tmp_path / "site"
    build(BuildConfig(sources=[tmp_path / "src"], out=out, archive=None, jobs=1), redaction_key=b"k")
    files = _files(out)
    [page] = [data.decode() for p, data in files.items() if re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", p)]
    head, tail = page.split('<span class="hl-plain" data-line="', 1)
    assert "aardvarkhead" in head and "zebrafinchtail" in tail  # one on each side of the marker
    fragments = [json.loads(gzip.decompress(data).removeprefix(b"pagefind_dcd"))
                 for p, data in files.items() if "/fragment/" in p]
    [content_text] = [f["content"] for f in fragments]
    assert "aardvarkhead = 1" in content_text and "zebrafinchtail = 2" in content_text
    assert "plain text from line" not in content_text


# --- finding Pagefind ------------------------------------------------------------------------


def test_pagefind_is_the_binary_its_bin_extra_installs(monkeypatch: pytest.MonkeyPatch) -> None:
    import pagefind_bin

    monkeypatch.delenv("PAGEFIND_BINARY_PATH", raising=False)
    assert pagefind_binary() == Path(pagefind_bin.get_executable())


def test_pagefind_binary_path_names_another(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(tmp_path / "my-pagefind"))
    assert pagefind_binary() == tmp_path / "my-pagefind"


def test_without_pagefind_the_error_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib

    real_import = importlib.import_module

    def no_bin_extra(name: str, *args):
        if name.startswith("pagefind_bin"):
            raise ImportError(name)
        return real_import(name, *args)

    monkeypatch.delenv("PAGEFIND_BINARY_PATH", raising=False)
    monkeypatch.setattr(importlib, "import_module", no_bin_extra)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SearchError, match=r"pip install 'pagefind\[bin\]'.*--no-search"):
        pagefind_binary()
    (tmp_path / "pagefind").write_bytes(b"")
    (tmp_path / "pagefind").chmod(0o755)
    assert pagefind_binary() == tmp_path / "pagefind"  # one on PATH will do


def test_finding_pagefind_imports_no_asyncio() -> None:
    # The pagefind package's own lookup imports asyncio: 0.1 s of every build with search.
    import subprocess
    import sys

    code = "import sys, bough_site.search.pagefind_run as s; s.pagefind_binary(); print('asyncio' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- shards made while the rest renders --------------------------------------------------------


def test_a_new_projects_shard_is_made_while_the_others_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two workers, each project new to OUT is indexed once the first pass has
    written its pages, while the other project still renders (jobs go folder by
    folder), and publishing takes that run: the site is the one a build in one
    process makes, indexing every project at the end. An append to a project OUT
    already has indexes its shard again once the first pass is done, from the pages
    the shard held (EarlyShards.again), and publishing takes that run too."""
    # Three projects in two folders (/home/u/my-app and /home/u/my/app share theirs), two sessions each.
    generate_claude_history(tmp_path / "history", seed=11, projects=3, sessions_per_project=2,
                            turns_per_session=3, output_kb=1)
    history = tmp_path / "history" / "projects"
    assert len(list(history.iterdir())) == 2
    started, taken = spy_early_shards(monkeypatch)
    two, one = tmp_path / "two", tmp_path / "one"
    run(history, two, jobs=2)
    projects = sorted(shard.removeprefix("pagefind/").rstrip("/") for shard in _shards(tree(two)))
    assert len(projects) == 3 and sorted(project for project, _ in started) == projects
    assert started[0][1] < 6  # of the 3 x 2 session pages: the other folder was still rendering
    assert sorted(taken) == [(f"pagefind/{project}", True) for project in projects]
    run(history, one, jobs=1)
    assert tree(two) == tree(one)
    started.clear()
    taken.clear()
    path, _ = main_file(history, two)
    append_turn(path)
    run(history, two, jobs=2)
    ((appended, written),) = started
    assert appended in projects and written == 1  # the appended session's page only
    assert [took for root, took in taken if root == f"pagefind/{appended}"] == [True]
    assert tree(two) == tree_of_fresh(history, tmp_path)


def test_an_early_shard_is_taken_only_if_made_from_the_pages_as_they_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run is taken for the very pages it indexed, none of them written again
    since it started; otherwise publishing makes the shard again. Only a run taken
    says its warnings (here: a page too large to index), once it is done."""
    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    site = tree(out)
    project, mine = _first_project_pages(site)
    largest = max(mine, key=lambda p: len(site[p]))
    monkeypatch.setattr("bough_site.search.pagefind_run.MAX_INDEXED_PAGE", len(site[largest]) - 1)
    root = f"pagefind/{project}"
    made = {**pagefind_identity()[1], "pages": mine}
    said: list[str] = []
    with SiteWriter(out) as writer, EarlyShards(writer, said.append) as early:
        assert early.take(root, made) is None  # none started
        early.start(list(reversed(mine)), {})
        taken = early.take(root, made)
        assert taken is not None and list(taken.result()) == site_bundle(out, mine, root)
        assert early.take(root, made) is None  # taken once
        early.start(mine[1:], {})  # started again once taken: not the pages it ends with
        assert early.take(root, made) is None
    assert len(said) == 1 and largest in said[0] and "left out of the Pagefind index" in said[0]
    with SiteWriter(out) as writer, EarlyShards(writer, said.append) as early:
        early.start(mine, {})
        writer.write(mine[0], site[mine[0]].replace(b"</main>", b"<p>more</p></main>"))  # the second pass
        assert early.take(root, made) is None
    assert len(said) == 1


def test_a_shard_is_indexed_again_early_only_from_a_stamp_bough_could_have_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EarlyShards.again starts a shard of the last build from the pages its stamp
    names; a stamp that cannot be read, or names what is no session page, starts
    nothing (publishing makes that shard again, as it would have), nor reads a file."""
    prepared: list[list[str]] = []
    prepare = shard_module.prepare_pages

    def spy(out: Path, pages: list[str], *args: Any) -> Any:
        prepared.append(pages)
        return prepare(out, pages, *args)

    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    monkeypatch.setattr(shard_module, "prepare_pages", spy)
    site = tree(out)
    project, mine = _first_project_pages(site)
    root = f"pagefind/{project}"
    stamp = out / root / SHARD_STAMP
    made = {**pagefind_identity()[1], "pages": mine}
    owned = sorted(site)
    with SiteWriter(out) as writer, EarlyShards(writer, lambda line: None) as early:
        early.again([mine[0], "index.html"], owned)
        taken = early.take(root, made)
        assert taken is not None and list(taken.result()) == site_bundle(out, mine, root)
    assert prepared == [mine]
    for damaged in (b"{", orjson.dumps({"pages": [*mine, "../../secret.html"]}), orjson.dumps({"pages": "x"})):
        stamp.write_bytes(damaged)
        with SiteWriter(out) as writer, EarlyShards(writer, lambda line: None) as early:
            early.again([mine[0]], owned)
            assert early.take(root, made) is None
    assert prepared == [mine]


def test_the_pages_pagefind_reads_are_made_by_its_run_apart_and_removed_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's stripped pages are made by the run, in a process of their own (in the
    build's, they took its main thread's time, or in a thread of their own each small
    read and write waited for the interpreter's lock), and removed once the run is
    done, or cancelled before it ran."""
    monkeypatch.delenv("TMPDIR", raising=False)
    memory = tmp_path / "memory"
    memory.mkdir()
    monkeypatch.setattr("bough_site.search.pagefind_run.MEMORY_SCRATCH", memory)
    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    project, mine = _first_project_pages(tree(out))
    root = f"pagefind/{project}"
    binary = pagefind_binary()
    expected = site_bundle(out, mine, root)
    monkeypatch.setattr("bough_site.search.pagefind_run.COPIED_APART_ABOVE", 0)
    copied_here = _spy_copies_here(monkeypatch)
    busy = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(busy.wait)  # the pool's one thread is taken: runs wait
        try:
            waiting = prepare_pages(out, mine, root)
            assert list(memory.rglob("*.html")) == []  # nothing copied before the run
            cancelled = waiting.start(pool, binary, lambda line: None)
            assert cancelled.cancel() and list(memory.iterdir()) == []
        finally:
            busy.set()
        done = prepare_pages(out, mine, root).start(pool, binary, lambda line: None)
        assert list(done.result()) == expected and list(memory.iterdir()) == []
    assert copied_here == []  # made in the copier's process


def test_the_copier_is_the_running_bough_whatever_the_path_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copier's process runs the page_copier of the bough that starts it, not
    one another bough_site on PYTHONPATH (or in the working directory) would give:
    an older one has none, and a bough run from a checkout beside an installed one
    copied with the other's rules."""
    other = tmp_path / "other" / "bough_site"
    (other / "search").mkdir(parents=True)
    (other / "__init__.py").write_text("")
    (other / "search" / "__init__.py").write_text("")
    (other / "search" / "page_copier.py").write_text("def main():\n    raise SystemExit('the other bough')\n")
    monkeypatch.setenv("PYTHONPATH", str(other.parent))
    monkeypatch.chdir(other.parent)
    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    project, mine = _first_project_pages(tree(out))
    root = f"pagefind/{project}"
    expected = site_bundle(out, mine, root)
    monkeypatch.setattr("bough_site.search.pagefind_run.COPIED_APART_ABOVE", 0)
    copied_here = _spy_copies_here(monkeypatch)
    made = prepare_pages(out, mine, root).run(pagefind_binary(), lambda line: None)
    assert made and made == expected
    assert copied_here == []  # not copied again here after the other bough's copier failed


@pytest.mark.parametrize("copier", ["import sys; sys.exit(9)", "print('not JSON')", "print('{}')"])
def test_a_copier_that_cannot_run_leaves_the_copies_to_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copier: str) -> None:
    """A copier process that fails on its own account, not a page's (no bough on
    disk to load, an interpreter that says something else): the pages are copied
    in the build's process, and the shard is the same bytes."""
    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    project, mine = _first_project_pages(tree(out))
    root = f"pagefind/{project}"
    expected = site_bundle(out, mine, root)
    monkeypatch.setattr("bough_site.search.pagefind_run._COPIER", copier)
    monkeypatch.setattr("bough_site.search.pagefind_run.COPIED_APART_ABOVE", 0)
    copied_here = _spy_copies_here(monkeypatch)
    assert prepare_pages(out, mine, root).run(pagefind_binary(), lambda line: None) == expected
    assert len(copied_here) == len(mine)


def test_a_small_shards_pages_are_copied_at_once_without_a_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of COPIED_APART_ABOVE bytes or fewer are copied by prepare_pages, in
    the calling thread: a process started for them would cost more than they do
    (at many small projects, one each). One byte more, and the run's copier makes them."""
    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    project, mine = _first_project_pages(tree(out))
    root = f"pagefind/{project}"
    expected = site_bundle(out, mine, root)
    size = sum((out / page).stat().st_size for page in mine)
    apart: list[int] = []
    copy_apart = pagefind_run._copy_apart
    monkeypatch.setattr("bough_site.search.pagefind_run._copy_apart",
                        lambda *args: apart.append(1) or copy_apart(*args))
    copied_here = _spy_copies_here(monkeypatch)
    monkeypatch.setattr("bough_site.search.pagefind_run.COPIED_APART_ABOVE", size)
    prepared = prepare_pages(out, mine, root)
    assert len(copied_here) == len(mine)  # before the run
    assert prepared.run(pagefind_binary(), lambda line: None) == expected and apart == []
    monkeypatch.setattr("bough_site.search.pagefind_run.COPIED_APART_ABOVE", size - 1)
    assert prepare_pages(out, mine, root).run(pagefind_binary(), lambda line: None) == expected
    assert apart == [1] and len(copied_here) == len(mine)


def _spy_copies_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the pages copied in this process (none when the copier's made them)."""
    copied: list[int] = []
    copy = page_copier.pagefind_copy

    def spy(page: bytes, chars: int | None) -> bytes:
        copied.append(len(page))
        return copy(page, chars)

    monkeypatch.setattr("bough_site.search.page_copier.pagefind_copy", spy)
    return copied


def test_a_shard_whose_pages_cannot_be_copied_costs_its_search_only(tmp_path: Path) -> None:
    """A page gone before the copier read it: SearchError, which publishing says
    and which costs that shard (docs/safety.md S11); its scratch is removed."""
    out = tmp_path / "site"
    run(make_history(tmp_path / "history"), out)
    project, mine = _first_project_pages(tree(out))
    (out / mine[0]).unlink()
    prepared = prepare_pages(out, mine, f"pagefind/{project}")
    with pytest.raises(SearchError, match="could not be copied for Pagefind: .*No such file"):
        prepared.run(pagefind_binary(), lambda line: None)
    assert not Path(prepared._tmp.name).exists()


def _first_project_pages(site: dict[str, bytes]) -> tuple[str, list[str]]:
    """The first project (by page path) of a built site, and its session pages."""
    pages = sorted(p for p in site if SESSION_PAGE.match(p))
    project = SESSION_PAGE.match(pages[0]).group(1)
    return project, [p for p in pages if SESSION_PAGE.match(p).group(1) == project]


def site_bundle(out: Path, pages: list[str], root: str) -> list[tuple[str, bytes]]:
    return _pagefind_bundle(out, pages, lambda line: None, root, pagefind_binary())


# --- what a tool returned, in the index (issue #37) -----------------------------------------------


def _output(text_html: str, *, error: bool = False, preview: str = "") -> str:
    """A tool result as blocks/tool_result.html writes it with search on."""
    kind = "error" if error else "result"
    shown = (f'<div class="preview"><pre class="code"><code>{preview}</code></pre></div><details class="more">\n'
             f'<summary data-pagefind-ignore>Show all 9 lines</summary>\n') if preview else ""
    return (f'<div class="tool-result{" error" if error else ""}" data-bough-output="{kind}">\n'
            f'<div class="result-head" data-pagefind-ignore>{"Error" if error else "Result"} · exit code 1</div>\n'
            f'<div class="block block-code{" collapsible" if preview else ""}">{shown}'
            f'<pre class="code"><code>{text_html}</code></pre>{"</details>" if preview else ""}</div>\n</div>')


def test_a_result_is_indexed_within_its_budget_and_an_error_whole() -> None:
    """The copy holds a result's first ``chars`` characters as the unfolded result
    shows them (entities are one, the highlighting's spans nothing), cut after the
    last whole word; an error's all of it; never its head, preview or "Show all"."""
    words = " ".join(f"w{i:03d}" for i in range(200))  # 5 characters and a space each
    shown = '<span class="k">w000</span> ' + words[5:].replace("w010", "&lt;w10&gt;", 1)
    page = f"<p>before</p>{_output(shown, preview='w000 w001')}<p>between</p>{_output(shown, error=True)}<p>after</p>"
    copy = outputs_as_text(strip_ignored(page.encode()), 60).decode()
    result, error = re.findall(r'data-bough-output="\w+"><pre>(.*?)</pre></div>', copy, re.DOTALL)
    # 59 characters shown ("&lt;w10&gt;" shows 5), no part of w012
    assert result == "w000 w001 w002 w003 w004 w005 w006 w007 w008 w009 &lt;w10&gt; w011"
    assert error == words[:50] + "&lt;w10&gt;" + words[54:]  # whole, as escaped as before
    assert "Show all" not in copy and "exit code" not in copy and copy.count("w000") == 2
    assert copy.startswith("<p>before</p>") and copy.endswith("<p>after</p>") and "<p>between</p>" in copy
    assert outputs_as_text(page.encode(), None).decode().count(words[-20:]) == 2  # --search-limit 0
    assert pagefind_copy(page.encode(), 60) == outputs_as_text(strip_ignored(page.encode()), 60)


def test_a_result_the_page_showed_before_is_indexed_once() -> None:
    """A file read again, a command run again: its words are in the index already."""
    again = _output("same text here")
    copy = pagefind_copy((again + "<p>x</p>" + again + _output("other")).encode(), 1024).decode()
    assert re.findall(r"<pre>(.*?)</pre>", copy, re.DOTALL) == ["same text here", "", "other"]


def test_escaped_line_ends_are_spaces_in_output_and_code() -> None:
    """"\\n" written out (JSON, a log line) would glue two words into one and show in
    an excerpt; a doubled backslash stays."""
    sql = _output("CREATE TABLE t (\\n  id TEXT,\\n  name\\tTEXT)")
    copy = pagefind_copy(("<!DOCTYPE html>\n<html lang=\"en\"><head></head><body>"
                                 '<div data-pagefind-body><pre class="code"><code><span class="s">"a\\nb\\\\nc"</span>'
                                 f"</code></pre>{sql}</div></body></html>").encode(), 1024).decode()
    assert '<pre class="code"><code>"a b\\\\nc"</code></pre>' in copy  # the span gone too
    assert "<pre>CREATE TABLE t (   id TEXT,   name TEXT)</pre>" in copy


# The rule for escaped line ends as first written: each condition looks behind
# first, which makes every byte a place to try (page_copy._ESCAPED_BREAK begins
# with the backslash instead).
_ESCAPED_BREAK_AS_WRITTEN = re.compile(
    rb"""(?<!\\)(?<!&#34;)(?<!&#39;)(?<!&quot;)(?<!["'])\\[nrt](?!&#34;|&#39;|&quot;|["'])""")


_AROUND = ["", "x", "\\", "&#34;", "&#39;", "&quot;", '"', "'", "#34;", "quot;", "&"]


@given(st.lists(st.tuples(st.sampled_from(_AROUND), st.sampled_from(["n", "r", "t", "x", "\\"]),
                          st.sampled_from(_AROUND)), max_size=8))
def test_escaped_line_ends_are_found_as_the_rule_first_written_finds_them(
        pieces: list[tuple[str, str, str]]) -> None:
    """Backslashes, each with what may come before and after it."""
    text = "".join(before + "\\" + letter + after for before, letter, after in pieces).encode()
    assert _ESCAPED_BREAK.sub(b" ", text) == _ESCAPED_BREAK_AS_WRITTEN.sub(b" ", text)


@given(st.lists(st.sampled_from(["ab", "cde", "&amp;", "&lt;x&gt;", "é", "日本", " ", " ", "\n", "\t", "w" * 30]),
                max_size=40), st.integers(min_value=1, max_value=80))
def test_the_budget_keeps_every_whole_word_within_it_and_no_more(pieces: list[str], chars: int) -> None:
    """Whatever the text, what is kept is its start, shows at most ``chars``
    characters (or all of them), and holds every word that ends within them (or the
    start of a first word longer than the budget), never part of an entity."""
    import html

    text = "".join(pieces)
    kept = output_text(f"<pre><code>{text}</code></pre>".encode(), chars).decode()
    whole = output_text(f"<pre><code>{text}</code></pre>".encode(), None).decode()
    shown, all_shown = html.unescape(kept), html.unescape(whole)
    assert whole.startswith(kept) and (len(shown) <= chars or kept == whole)
    assert kept.count("&") == len(re.findall(r"&\w+;", kept))
    within = all_shown[: chars + 1]
    words = within.split() if len(within) <= chars or within[-1].isspace() else within.split()[:-1]
    assert shown.split() == words or (not words and all_shown[:1].strip() and shown == all_shown[: len(shown)])


def test_a_tool_calls_status_on_its_line_is_not_indexed() -> None:
    """"exit 1 · 40 lines" on every call would find every session for "lines"."""
    page = (b'<details class="tool" id="r1-1" open>\n<summary>\n<span class="tool-name">Bash</span>'
            b'<span class="tool-sep">:</span>\n<code class="tool-arg">make</code>\n<small>exit 1 \xc2\xb7 40 lines'
            b'</small>\n</summary>\n<p><small>kept</small></p></details>')
    assert strip_ignored(page) == page.replace(b"exit 1 \xc2\xb7 40 lines", b"")


def test_code_keeps_its_text_without_its_highlighting() -> None:
    page = (b'<p><span class="a">x</span><span>y</span></p><pre class="code"><code><span class="k">def</span> '
            b'<span class="nf">f</span>()<span class="hl-plain" data-line="3"></span>rest</code></pre><preview>')
    assert code_as_text(page) == (b'<p><span class="a">x</span><span>y</span></p>'
                                         b'<pre class="code"><code>def f()rest</code></pre><preview>')


def test_session_entries_hold_tool_calls_and_the_start_of_each_error() -> None:
    """The file:// index: a call by its reply's anchor and its block's number (the
    id of the call on the page), its name and input's text; a failed one's error.
    Prompts first, then replies, then calls, when the session is over its budget."""
    calls = [ToolCall("t1", "Bash", {"command": "grep -rn wobbleshaft .", "timeout": 5},
                      result=ToolResult([Text("ECONNREFUSED " + "e" * 1000)], is_error=True)),
             ToolCall("t2", "Read", {"file_path": "/src/app.py"}, result=ToolResult([Text("quokkaheart = 1")]))]
    timeline = [Prompt("u1", "p1", None, [Text("run it")]),
                Reply("m1", "r1", None, None, [Text("Running."), *calls], Usage())]
    session = Session("s", "claude", "/x", "t", None, None, [], [], None, [], timeline, {})
    entries = session_entries(session)
    assert [a for a, _ in entries] == ["p1", "r1", "r1-2", "r1-3"]
    bash, read = entries[2][1], entries[3][1]
    assert bash.startswith("Bash grep -rn wobbleshaft . ECONNREFUSED eee")
    assert len(bash) == len("Bash grep -rn wobbleshaft .") + 1 + ERROR_CHARS
    assert read == "Read /src/app.py"  # what a call that worked returned is not in it
    many = [Prompt(f"u{n}", f"p{n + 2}", None, [Text("p" * 540)]) for n in range(11)]
    squeezed = session_entries(Session("s", "claude", "/x", "t", None, None, [], [], None, [],
                                              [*timeline, *many], {}))
    assert [a for a, _ in squeezed] == ["p1", "r1", "r1-2", *(f"p{n + 2}" for n in range(11))]
    assert sum(len(t) for _, t in squeezed) == SESSION_CHARS  # the calls got what was left
    assert len(squeezed[2][1]) == SESSION_CHARS - 11 * 540 - len("run it") - len("Running.") == 46


def test_the_budget_is_an_option_in_the_digest_and_the_stamp(tmp_path: Path) -> None:
    """--search-limit changes what every shard is made of: a build with another one
    indexes every project again (the options digest), each shard says which (its
    stamp); without search it changes nothing."""
    def options(**fields: Any) -> Any:
        return build_options(BuildConfig(out=tmp_path, archive=None, **fields), False, b"k")

    assert options().search_limit == DEFAULT_SEARCH_LIMIT and options(search_limit=0).search_limit == 0
    assert options(search_limit=3).digest() != options().digest()
    assert options(search=False, search_limit=3).digest() == options(search=False).digest()
    assert pagefind_identity(3)[1]["output_kb"] == 3
    assert output_chars(3) == 3072 and output_chars(0) is None


def test_a_build_indexes_tool_output_within_its_search_limit(tmp_path: Path) -> None:
    """Through the library: BuildConfig.search_limit is what each shard is made with."""
    lines = "".join(f"line {i:04d} of the output\n" for i in range(400))  # 11 KB
    write_jsonl(tmp_path / "src" / "-home-ada-src-app" / f"{SESSION}.jsonl", [
        prompt("u1", "show it"),
        reply("a1", "m1", [tool_use("t1", "Bash", command="cat log.txt")]),
        tool_result("u2", "t1", "firstwordhere\n" + lines + "lastwordhere\n"),
    ])
    for limit, last in ((1, False), (0, True)):
        out = tmp_path / f"site-{limit}"
        build(BuildConfig(sources=[tmp_path / "src"], out=out, archive=None, jobs=1, search_limit=limit),
              redaction_key=b"k")
        files = _files(out)
        [content] = [json.loads(gzip.decompress(data).removeprefix(b"pagefind_dcd"))["content"]
                     for p, data in files.items() if "/fragment/" in p]
        assert "firstwordhere" in content and ("lastwordhere" in content) is last
        [stamp] = [json.loads(data) for p, data in files.items() if p.endswith(SHARD_STAMP)]
        assert stamp["output_kb"] == limit
