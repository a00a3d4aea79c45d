"""The search index (bough_site/search.py): Pagefind's bundle and the file://
fallback are built, reproducible and redacted; ``--no-search`` leaves both out."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bough_site import search
from bough_site.build import build
from bough_site.cli import main
from bough_site.config import BuildConfig
from bough_site.corpus import examples as ex
from bough_site.model import Prompt, Reply, Session, Text, Usage
from bough_site.render.pages import CSP, CSP_SEARCH


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith(".bough-")}


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("search") / "site"
    build(BuildConfig(out=out))  # the bundled examples: HOME is empty
    return _files(out)


def _index(files: dict[str, bytes]) -> dict:
    text = files[search.FALLBACK_PATH].decode("utf-8")
    match = re.fullmatch(r"/\*[^*]*\*/\nwindow\.BOUGH_SEARCH_INDEX = (\{.*\});\n", text, re.DOTALL)
    assert match, text[:200]
    return json.loads(match.group(1))


def test_pagefind_bundle_is_written(example: dict[str, bytes]) -> None:
    for name in ("pagefind/pagefind.js", "pagefind/pagefind-entry.json", "pagefind/wasm.en.pagefind"):
        assert name in example
    entry = json.loads(example["pagefind/pagefind-entry.json"])
    sessions = [p for p in example if re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", p)]
    assert entry["languages"]["en"]["page_count"] == len(sessions) == 9
    assert any(p.startswith("pagefind/filter/") for p in example)
    assert not any(p.startswith("pagefind/playground/") for p in example)


def test_only_the_conversation_is_indexed_with_title_and_filters(example: dict[str, bytes]) -> None:
    page = next(data.decode() for p, data in example.items() if p.endswith(f"{ex.N4}.html"))
    assert page.count("data-pagefind-body") == 1
    assert re.search(r'<div class="timeline" data-pagefind-body>', page)
    assert re.search(r'<h1 data-pagefind-meta="title">', page)
    for name in ("project", "source", "model"):
        assert f'data-pagefind-filter="{name}"' in page
    # What tools printed is not: the calls are.
    results = page.count('<div class="tool-result') - page.count('<div class="tool-result missing"')
    assert results == page.count("data-pagefind-ignore") > 0
    # Index and project pages are not indexed.
    assert b"data-pagefind-body" not in example["index.html"]
    # Pagefind's fragments hold the title and the filters.
    fragments = [gzip.decompress(data) for p, data in example.items() if p.startswith("pagefind/fragment/")]
    assert any(b"slowapi" in f and b"notes-api" in f and b"Claude Code" in f for f in fragments)


def test_pages_link_the_search_script_and_allow_wasm(example: dict[str, bytes]) -> None:
    for path, data in example.items():
        if path.endswith(".html"):
            assert f'content="{CSP_SEARCH}"'.encode() in data, path
            assert re.search(rb'<script src="[./]*assets/search\.[0-9a-f]{8}\.js" defer></script>', data), path
            assert b"data-bough-search" in data and b"pagefind-ui" not in data, path


def test_fallback_index(example: dict[str, bytes]) -> None:
    index = _index(example)
    assert index["v"] == 1
    assert sorted(index["projects"]) == ["dotfiles", "notes-api", "tidepool"]
    assert sorted(index["sources"]) == ["Claude Code", "Codex"]
    assert len(index["sessions"]) == 9
    by_url = {s["u"]: s for s in index["sessions"]}
    for url in by_url:
        assert url in example, url  # every link is a page of the site
    n4 = next(s for u, s in by_url.items() if u.endswith(f"{ex.N4}.html"))
    assert index["projects"][n4["p"]] == "notes-api" and index["sources"][n4["s"]] == "Claude Code"
    anchor, text = n4["i"][0]
    assert anchor == "p1" and "slowapi" in text
    for session in index["sessions"]:
        assert sum(len(text) for _, text in session["i"]) <= search.SESSION_CHARS
        assert all(re.fullmatch(r"[pr]\d+", anchor) for anchor, _ in session["i"])


def test_search_holds_no_secret(example: dict[str, bytes]) -> None:
    assert ex.FAKE_OPENAI_KEY.encode() in (ex.bundled_root() / "projects" / "-home-ada-src-notes-api" /
                                           f"{ex.N1}.jsonl").read_bytes()
    assert ex.FAKE_OPENAI_KEY.encode() not in example[search.FALLBACK_PATH]
    for path, data in example.items():
        if path.startswith("pagefind/") and path.endswith((".pf_fragment", ".pf_index", ".pf_filter", ".pf_meta")):
            assert ex.FAKE_OPENAI_KEY.encode() not in gzip.decompress(data), path


def test_the_fallback_script_cannot_break_out(tmp_path: Path) -> None:
    from bough_site.model import Project, Site

    text = "</script><script>alert(1)</script> & \u2028"
    session = Session("s", "codex", "/x", text, None, None, [], [], None, [], [], {})
    session.search_items = [["p1", text]]
    session.slug = "s"
    script = search.fallback_script(Site([Project("x", "x", "/x", [session], {})], {})).decode()
    assert "<" not in script.split("*/", 1)[1] and "\u2028" not in script
    assert json.loads(script.split(" = ", 1)[1].rstrip(";\n"))["sessions"][0]["t"] == text


def test_session_entries_are_capped_prompts_first() -> None:
    timeline = []
    for n in range(1, 30):
        timeline.append(Prompt(f"u{n}", f"p{n}", None, [Text(f"prompt {n} " + "x" * 50)]))
        timeline.append(Reply(f"m{n}", f"r{n}", None, None, [Text("reply " + "y" * 1000)], Usage()))
    session = Session("s", "codex", "/x", "t", None, None, [], [], None, [], timeline, {})
    entries = search.session_entries(session)
    assert sum(len(text) for _, text in entries) <= search.SESSION_CHARS
    assert all(len(text) <= search.ITEM_CHARS for _, text in entries)
    assert [a for a, _ in entries if a.startswith("p")] == [f"p{n}" for n in range(1, 30)]  # every prompt kept
    assert [a for a, _ in entries] == sorted((a for a, _ in entries), key=lambda a: (int(a[1:]), a[0]))


def test_a_giant_page_is_left_to_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    build(BuildConfig(out=out, search=False))
    pages = [p.relative_to(out).as_posix() for p in out.rglob("*.html")]
    sizes = sorted((out / p).stat().st_size for p in pages if "/sessions/" in p)
    monkeypatch.setattr(search, "MAX_INDEXED_PAGE", sizes[-2] - 1)  # the two largest are too big
    notes: list[str] = []
    files = dict(search.pagefind_files(out, pages, notes.append))
    assert len(notes) == 2 and all("left out of the Pagefind index" in n for n in notes)
    assert json.loads(files["pagefind/pagefind-entry.json"])["languages"]["en"]["page_count"] == len(sizes) - 2


def test_two_builds_give_the_same_bundle(example: dict[str, bytes], tmp_path: Path) -> None:
    build(BuildConfig(out=tmp_path / "again"))
    again = _files(tmp_path / "again")
    searchable = [p for p in example if p.startswith("pagefind/") or p == search.FALLBACK_PATH]
    assert sorted(p for p in again if p.startswith("pagefind/") or p == search.FALLBACK_PATH) == sorted(searchable)
    for path in searchable:
        assert again[path] == example[path], path


def test_filter_files_are_put_in_order() -> None:
    # Pagefind writes a filter's values in hash-map order; bough sorts them and renames the file.
    data = search._dcd_write(["source", [["Codex", [5, 6]], ["Claude Code", [1, 0]]]])
    meta = search._dcd_write(["1.5.2", [["en_aaaaaaa", 10]], [], [["source", "en_1234567"]], [], ["title"]])
    entry = b'{"languages":{"en":{"hash":"en_abcdef0123"}}}'
    files = {"pagefind/filter/en_1234567.pf_filter": data, "pagefind/pagefind.en_abcdef0123.pf_meta": meta,
             "pagefind/pagefind-entry.json": entry}
    out = search.canonical_bundle(files)
    (name,) = [p for p in out if p.startswith("pagefind/filter/")]
    assert search._dcd_read(out[name]) == ["source", [["Claude Code", [0, 1]], ["Codex", [5, 6]]]]
    new_filter = name.rsplit("/", 1)[1].removesuffix(".pf_filter")
    (meta_name,) = [p for p in out if p.endswith(".pf_meta")]
    assert search._dcd_read(out[meta_name])[3] == [["source", new_filter]]
    new_meta = meta_name.removeprefix("pagefind/pagefind.").removesuffix(".pf_meta")
    assert json.loads(out["pagefind/pagefind-entry.json"])["languages"]["en"]["hash"] == new_meta
    assert search.canonical_bundle(files) == out


def test_no_search_leaves_both_out(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", "-o", str(out), "--no-search", "-q"])
    assert result.exit_code == 0, result.output
    files = _files(out)
    assert not any(p.startswith("pagefind/") or p == search.FALLBACK_PATH for p in files)
    for path, data in files.items():
        if path.endswith(".html"):
            assert b"data-pagefind" not in data and b"data-bough-search" not in data, path
            assert b"assets/search." not in data and f'content="{CSP}"'.encode() in data, path
    # Turning search on again later adds both; off again, they are pruned.
    build(BuildConfig(out=out))
    assert search.FALLBACK_PATH in _files(out)
    build(BuildConfig(out=out, search=False, prune=True))
    assert not any(p.startswith("pagefind/") or p == search.FALLBACK_PATH for p in _files(out))
