"""Pagefind's private file format (bough_site/search/pagefind_format.py), per Pagefind
version it supports: a bundle the installed Pagefind makes is read and written again
byte for byte, and made the same bytes whatever order Pagefind found the pages in,
every word still on the same pages. The installed Pagefind must be a supported
version (a new one fails here, saying so, before it changes the output), and every
supported version must have its tests here (``test_pagefind_<major>_<minor>_...``),
run when that version is installed and skipped, saying why, otherwise."""

from __future__ import annotations

import functools
import gzip
import json
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bough_site import gz
from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.search.page_copy import pagefind_copy
from bough_site.search.pagefind_format import (
    _DCD,
    SUPPORTED_VERSIONS,
    _cbor_encode,
    _dcd_pack,
    _dcd_read,
    _dcd_write,
    _fragment_url,
    _renumbered,
    canonical_bundle,
)
from bough_site.search.pagefind_run import SESSION_PAGE, _run_pagefind, pagefind_binary, pagefind_version

Test = TypeVar("Test", bound=Callable[..., Any])


@functools.cache
def installed_version() -> str:
    """The installed Pagefind's version ("1.5.2"), from ``pagefind --version``."""
    said = pagefind_version(pagefind_binary())
    return said.removeprefix("pagefind").strip()


def supported(version: str) -> str | None:
    """The entry of SUPPORTED_VERSIONS that ``version`` falls under, if any."""
    return next((prefix for prefix in SUPPORTED_VERSIONS if version.startswith(prefix)), None)


def for_pagefind(prefix: str) -> Callable[[Test], Test]:
    """A test of one supported version: skipped, with the reason, when another is installed."""
    def mark(test: Test) -> Test:
        version = installed_version()
        return pytest.mark.skipif(not version.startswith(prefix),
                                  reason=f"for Pagefind {prefix}x; Pagefind {version} is installed")(test)
    return mark


def test_the_installed_pagefind_is_a_version_bough_supports() -> None:
    version = installed_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", version), f"cannot read the version of Pagefind: {version!r}"
    assert supported(version), (
        f"Pagefind {version} is not among the versions bough_site/search/pagefind_format.py supports "
        f"({', '.join(p + 'x' for p in SUPPORTED_VERSIONS)}): check the files it writes against that module, "
        f"add the version to SUPPORTED_VERSIONS and give it its tests here")


def test_every_supported_version_has_its_tests() -> None:
    names = [name for name, value in globals().items() if name.startswith("test_") and callable(value)]
    for prefix in SUPPORTED_VERSIONS:
        tag = "test_pagefind_" + prefix.rstrip(".").replace(".", "_") + "_"
        assert sum(name.startswith(tag) for name in names) >= 3, f"no tests named {tag}... for Pagefind {prefix}x"


# --- a bundle of real pages -------------------------------------------------------------------------


ROOT = "pagefind/example"


@pytest.fixture(scope="module")
def session_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The bundled examples' session pages (search on: the markup Pagefind reads), as
    Pagefind reads them, and one more with words that have variants ("café" is
    found as "cafe")."""
    out = tmp_path_factory.mktemp("format") / "site"
    build(BuildConfig(out=out, jobs=1))
    pages = {path.relative_to(out).as_posix(): path.read_bytes() for path in out.rglob("*.html")}
    pages = {path: pagefind_copy(data) for path, data in pages.items() if SESSION_PAGE.match(path)}
    assert len(pages) >= 3
    folder = next(iter(sorted(pages))).rsplit("/", 1)[0]
    pages[f"{folder}/accents.html"] = ('<html lang="en"><body><main data-pagefind-body>'
                                       '<p>café naïve crème</p></main></body></html>').encode()
    return pages


def pagefind_bundle(pages: dict[str, bytes], where: Path, order: list[str]) -> dict[str, bytes]:
    """What the installed Pagefind writes for ``pages``, made in ``order`` in a folder of
    their own (a file system may list a folder in the order its files were made)."""
    site = where / "site"
    for path in order:
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(pages[path])
    return _run_pagefind(pagefind_binary(), site, where / "bundle", ROOT, str(where))


@pytest.fixture(scope="module")
def raw_bundle(session_pages: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return pagefind_bundle(session_pages, tmp_path_factory.mktemp("raw"), sorted(session_pages))


@for_pagefind("1.5.")
def test_pagefind_1_5_files_are_written_again_as_they_were(raw_bundle: dict[str, bytes]) -> None:
    """Every data file (meta, index chunks, filters) decodes, and bough's CBOR writes
    its value back to Pagefind's very bytes (canonical_bundle relies on it: a chunk
    already in order is only compressed again); every fragment names its URL."""
    kinds = {path.rsplit(".", 1)[1] for path in raw_bundle}
    assert {"pf_meta", "pf_index", "pf_filter", "pf_fragment"} <= kinds, kinds
    for path, data in raw_bundle.items():
        if path.endswith((".pf_meta", ".pf_index", ".pf_filter")):
            assert gzip.decompress(data) == _DCD + _cbor_encode(_dcd_read(data)), path
        elif path.endswith(".pf_fragment"):
            assert _fragment_url(data).endswith(".html"), path
    (meta,) = [_dcd_read(data) for path, data in raw_bundle.items() if path.endswith(".pf_meta")]
    assert meta[0] == installed_version()  # the meta file says which Pagefind wrote it


@for_pagefind("1.5.")
def test_pagefind_1_5_bundles_of_the_same_pages_are_the_same_bytes(
        session_pages: dict[str, bytes], raw_bundle: dict[str, bytes], tmp_path: Path) -> None:
    """Two runs of Pagefind over the same pages, found in opposite orders, give one
    bundle once made canonical; a canonical bundle is its own canonical form."""
    again = pagefind_bundle(session_pages, tmp_path, sorted(session_pages, reverse=True))
    made = canonical_bundle(raw_bundle, ROOT)
    assert canonical_bundle(again, ROOT) == made
    assert canonical_bundle(made, ROOT) == made
    entry = json.loads(made[f"{ROOT}/pagefind-entry.json"])
    (language,) = entry["languages"].values()
    assert f"{ROOT}/pagefind.{language['hash']}.pf_meta" in made  # the references follow the new names


@for_pagefind("1.5.")
def test_pagefind_1_5_pages_are_numbered_in_a_fixed_order_and_each_word_keeps_its_pages(
        raw_bundle: dict[str, bytes]) -> None:
    """Pagefind numbers pages in the order the file system lists them; bough
    renumbers them in the order of their URLs: the same bytes from any order, and
    every word (and variant) still on the same pages at the same places, every
    filter value naming the same pages."""
    count = len(_dcd_read(next(d for p, d in raw_bundle.items() if p.endswith(".pf_meta")))[1])
    assert count >= 3
    made = canonical_bundle(raw_bundle, ROOT)
    for order in (list(reversed(range(count))), [*range(1, count), 0]):
        assert canonical_bundle(_listed_in(raw_bundle, ROOT, order), ROOT) == made
    meta = _dcd_read(next(data for path, data in made.items() if path.endswith(".pf_meta")))
    urls = [_fragment_url(made[f"{ROOT}/fragment/{name}.pf_fragment"]) for name, _ in meta[1]]
    assert urls == sorted(urls)
    assert _meaning(made, ROOT) == _meaning(raw_bundle, ROOT)
    assert any(variants for _, variants in _meaning(made, ROOT)[0].values())


def _listed_in(files: dict[str, bytes], root: str, order: list[int]) -> dict[str, bytes]:
    """The bundle Pagefind would have made had it found the pages in ``order`` (old numbers)."""
    out = dict(files)
    renumber = {old: new for new, old in enumerate(order)}
    for path, data in files.items():
        if path.endswith(".pf_meta"):
            meta = _dcd_read(data)
            meta[1] = [meta[1][old] for old in order]
            out[path] = _dcd_write(meta)
        elif path.startswith(f"{root}/index/"):
            chunk = _dcd_read(data)
            for word in chunk[0]:
                word[1] = _renumbered(word[1], renumber)
                for variant in word[2]:
                    variant[1] = _renumbered(variant[1], renumber)
            out[path] = _dcd_write(chunk)  # under its old name: canonical_bundle names it
        elif path.startswith(f"{root}/filter/"):
            name, values = _dcd_read(data)
            out[path] = _dcd_write([name, [[v, [renumber[n] for n in ns]] for v, ns in values]])
    return out


def _meaning(files: dict[str, bytes], root: str) -> tuple[dict, dict]:
    """What a bundle says, pages named by their fragments: each word's and variant's
    postings, and each filter value's pages."""
    meta = _dcd_read(next(data for path, data in files.items() if path.endswith(".pf_meta")))
    fragment = [name for name, _ in meta[1]]

    def named(postings: list) -> list:
        number, out = 0, []
        for posting in postings:
            assert posting[0] >= 0 or not out  # ascending numbers
            number += posting[0]
            out.append((fragment[number], repr(posting[1:])))
        return sorted(out)

    words = {}
    for path, data in files.items():
        if path.startswith(f"{root}/index/"):
            for word in _dcd_read(data)[0]:
                words[word[0]] = (named(word[1]), {v[0]: named(v[1]) for v in word[2]})
    filters = {}
    for path, data in files.items():
        if path.startswith(f"{root}/filter/"):
            name, values = _dcd_read(data)
            filters.update({(name, value): sorted(fragment[n] for n in numbers) for value, numbers in values})
    assert words and filters
    return words, filters


# --- hand-made files, as Pagefind 1.5 lays them out ------------------------------------------------


@for_pagefind("1.5.")
def test_pagefind_1_5_filter_files_are_put_in_order() -> None:
    # Pagefind writes a filter's values in hash-map order; bough sorts them and renames the file.
    data = _dcd_write(["source", [["Codex", [5, 6]], ["Claude Code", [1, 0]]]])
    pages = [[f"en_{n}{n}{n}{n}{n}{n}{n}", 10] for n in range(7)]
    meta = _dcd_write(["1.5.2", pages, [], [["source", "en_1234567"]], [], ["title"]])
    entry = b'{"languages":{"en":{"hash":"en_abcdef0123"}}}'
    files = {"pagefind/filter/en_1234567.pf_filter": data, "pagefind/pagefind.en_abcdef0123.pf_meta": meta,
             "pagefind/pagefind-entry.json": entry}
    for number, (name, _) in enumerate(pages):  # numbered in their URLs' order already
        fragment = gzip.compress(b"pagefind_dcd" + json.dumps({"url": f"/p{number}.html"}).encode())
        files[f"pagefind/fragment/{name}.pf_fragment"] = fragment
    out = canonical_bundle(files, "pagefind")
    (name,) = [p for p in out if p.startswith("pagefind/filter/")]
    assert _dcd_read(out[name]) == ["source", [["Claude Code", [0, 1]], ["Codex", [5, 6]]]]
    new_filter = name.rsplit("/", 1)[1].removesuffix(".pf_filter")
    (meta_name,) = [p for p in out if p.endswith(".pf_meta")]
    assert _dcd_read(out[meta_name])[3] == [["source", new_filter]]
    new_meta = meta_name.removeprefix("pagefind/pagefind.").removesuffix(".pf_meta")
    assert json.loads(out["pagefind/pagefind-entry.json"])["languages"]["en"]["hash"] == new_meta
    assert canonical_bundle(files, "pagefind") == out


def test_a_file_that_is_not_pagefinds_is_refused() -> None:
    """What canonical_bundle cannot read raises (and the bundle is then used as
    Pagefind wrote it: pagefind_run.PreparedPages), never passes half-read."""
    with pytest.raises(ValueError):
        _dcd_read(gzip.compress(b"not pagefind"))
    with pytest.raises(ValueError):
        _dcd_read(gzip.compress(_DCD + _cbor_encode([1, 2]) + b"\x00"))  # trailing bytes
    with pytest.raises(ValueError):
        canonical_bundle({"pagefind/pagefind-entry.json": b"{}"}, "pagefind")  # no meta file


def test_a_packed_file_is_zlibs_bytes_whatever_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """ISA-L chooses its deflate's code by the CPU it runs on (example_output/'s files
    differed from one machine to another): what is published is packed by zlib, and
    no ISA-L is asked."""
    raw = _DCD + b"".join(f"word{n} page{n % 7} ".encode() for n in range(2000))
    if gz.WRITER == "isal.igzip":
        monkeypatch.setattr(gz._gzip, "compress", lambda *args, **kwargs: pytest.fail("ISA-L packed it"))
    packed = _dcd_pack(raw)
    assert packed == zlib.compress(raw, 6, wbits=31) and gzip.decompress(packed) == raw
    assert packed[:10] == bytes.fromhex("1f8b0800000000000003")  # no time, no name: zlib's Unix header
