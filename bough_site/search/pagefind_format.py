"""Pagefind's private file format: its bundles read, and made reproducible.

Pagefind 1.5 writes its filter files with the values in hash-map order, which
changes from run to run, and their names (content hashes) with them, and so
the names in the meta file and in pagefind-entry.json. Everything else it
writes is the same for the same pages. ``canonical_bundle`` sorts each filter
file's values, renames it by its new content, and rewrites the references, so
two builds of the same site give the same bytes (example_output/ is compared
byte for byte). The files are gzip'd "pagefind_dcd" + CBOR; the small CBOR
codec below handles what they hold (integers, strings, arrays, maps).

This module exists because bough's output is compared byte for byte
(``example_output/``, ``-j 1`` = ``-j N``, incremental = fresh) and Pagefind's is
not the same from run to run. It is the one module that knows Pagefind's files
(gzip'd ``pagefind_dcd``, then CBOR or JSON): a new Pagefind that writes them
otherwise changes this module alone. Supported: the versions in
``SUPPORTED_VERSIONS`` (tests/test_pagefind_format.py builds a bundle with the
installed Pagefind and fails, saying so, when its version is not one of them). A
bundle this module cannot read is used as Pagefind wrote it: it works, only not
reproducibly (``pagefind_run.PreparedPages``).
"""

from __future__ import annotations

import gzip
import hashlib
import re
from typing import Any

import orjson

from .. import gz

# The Pagefind versions whose files this module reads and writes again (a prefix of
# what ``pagefind --version`` prints after "pagefind "), each with a test.
SUPPORTED_VERSIONS = ("1.5.",)

_DCD = b"pagefind_dcd"


def _cbor_decode(data: bytes, at: int = 0) -> tuple[Any, int]:
    head = data[at]
    major, info = head >> 5, head & 31
    at += 1
    if info < 24:
        value = info
    elif info in (24, 25, 26, 27):
        size = 1 << (info - 24)
        value = int.from_bytes(data[at : at + size], "big")
        at += size
    else:
        raise ValueError(f"CBOR item {head:#x} not supported")
    if major == 0:
        return value, at
    if major == 1:
        return -1 - value, at
    if major == 2:
        return bytes(data[at : at + value]), at + value
    if major == 3:
        return data[at : at + value].decode("utf-8"), at + value
    if major == 4:
        items = []
        for _ in range(value):
            item, at = _cbor_decode(data, at)
            items.append(item)
        return items, at
    if major == 5:
        pairs = []
        for _ in range(value):
            key, at = _cbor_decode(data, at)
            item, at = _cbor_decode(data, at)
            pairs.append((key, item))
        return _Map(pairs), at
    if major == 7 and info in (20, 21, 22):
        return {20: False, 21: True, 22: None}[info], at
    raise ValueError(f"CBOR item {head:#x} not supported")


class _Map(list):
    """A CBOR map, its pairs kept in their order."""


def _cbor_head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * size):
            return bytes([major << 5 | info]) + value.to_bytes(size, "big")
    raise ValueError("integer too large for CBOR")


def _cbor_encode(value: Any) -> bytes:
    if value is False or value is True or value is None:
        return bytes([0xF4 if value is False else 0xF5 if value is True else 0xF6])
    if isinstance(value, int):
        return _cbor_head(0, value) if value >= 0 else _cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return _cbor_head(2, len(value)) + value
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _cbor_head(3, len(raw)) + raw
    if isinstance(value, _Map):
        return _cbor_head(5, len(value)) + b"".join(_cbor_encode(k) + _cbor_encode(v) for k, v in value)
    if isinstance(value, list):
        return _cbor_head(4, len(value)) + b"".join(_cbor_encode(item) for item in value)
    raise TypeError(f"cannot encode {type(value).__name__} as CBOR")


def _dcd_raw(data: bytes) -> bytes:
    """A Pagefind file (gzip: ``pagefind_dcd`` and its content) decompressed, the marker kept."""
    raw = gzip.decompress(data)
    if not raw.startswith(_DCD):
        raise ValueError("not a Pagefind data file")
    return raw


def _dcd_read(data: bytes) -> Any:
    raw = _dcd_raw(data)
    value, end = _cbor_decode(raw, len(_DCD))
    if end != len(raw):
        raise ValueError("trailing bytes in a Pagefind data file")
    return value


def _dcd_write(value: Any) -> bytes:
    return _dcd_pack(_DCD + _cbor_encode(value))


def _dcd_pack(raw: bytes) -> bytes:
    """A Pagefind data file's bytes (``pagefind_dcd`` and CBOR), compressed as bough
    publishes: by zlib, the same bytes on every machine (gz.compress_published; ISA-L's
    would differ from one CPU to another)."""
    return gz.compress_published(raw)


def _renamed(old: str, data: bytes) -> str:
    """A file's hash name (``en_1a2b3c4``) for new content: the language kept, the
    hash replaced by one as long."""
    language, digest = old.rsplit("_", 1)  # ValueError for a name without one, as for any unknown file
    return f"{language}_{hashlib.sha256(data).hexdigest()[:len(digest)]}"


def _replace_strings(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, _Map):
        return _Map((_replace_strings(k, names), _replace_strings(v, names)) for k, v in value)
    if isinstance(value, list):
        return [_replace_strings(item, names) for item in value]
    return value


def canonical_bundle(files: dict[str, bytes], root: str) -> dict[str, bytes]:
    """Pagefind's bundle (path -> bytes, under ``root``) made reproducible: its pages
    numbered in a fixed order (:func:`_pages_in_order`) and its filter files' values
    in order."""
    files, renumber = _pages_in_order(files, root)
    out = dict(files)
    names: dict[str, str] = {}  # old hash name -> new
    filter_re = re.compile(rf"^{re.escape(root)}/filter/(.+)\.pf_filter$")
    for path in sorted(files):
        match = filter_re.match(path)
        if not match:
            continue
        name, values = _dcd_read(files[path])
        values = sorted(([v, sorted(renumber[p] for p in pages) if renumber else sorted(pages)]
                         for v, pages in values), key=lambda pair: pair[0])
        data = _dcd_write([name, values])
        new = names[match.group(1)] = _renamed(match.group(1), data)
        del out[path]
        out[f"{root}/filter/{new}.pf_filter"] = data
    meta_re = re.compile(rf"^{re.escape(root)}/pagefind\.(.+)\.pf_meta$")
    entry_path = f"{root}/pagefind-entry.json"
    for path in sorted(files):
        match = meta_re.match(path)
        if not match:
            continue
        meta = _replace_strings(_dcd_read(files[path]), names)
        # The list of [filter name, filter file] pairs, in hash-map order too.
        meta = [sorted(part, key=lambda pair: pair[0]) if _is_filter_list(part, names) else part for part in meta]
        data = _dcd_write(meta)
        new = _renamed(match.group(1), data)
        del out[path]
        out[f"{root}/pagefind.{new}.pf_meta"] = data
        if entry_path in out:
            out[entry_path] = out[entry_path].replace(f'"{match.group(1)}"'.encode(), f'"{new}"'.encode())
    return out


def _pages_in_order(files: dict[str, bytes], root: str) -> tuple[dict[str, bytes], dict[int, int]]:
    """The bundle with its pages numbered in the order of their URLs, and each
    page's new number (empty when none changed), which the filters' page lists follow.

    Pagefind numbers pages in the order its site folder lists them, which the file
    system decides (a tmpfs lists the file made last first, which is why
    ``page_copier.copy_stripped`` makes them in reverse; ext4, in a hash order).
    A bundle already in order only has its index chunks compressed again, as the
    others are written.
    Otherwise the meta file's page list ([fragment, word count] by number) is put
    in order, and every page number changed to match in the index chunks: each
    word's and each of its variants' postings (``[number, locations, ...]``, the
    number given as the difference from the previous one, in ascending order). A
    chunk holds the same words (its bounds are words), under a name for its new
    content. ValueError (or IndexError, KeyError, TypeError) when the files
    are not as Pagefind 1.x writes them."""
    metas = [path for path in files if re.fullmatch(rf"{re.escape(root)}/pagefind\.[^/]+\.pf_meta", path)]
    if len(metas) != 1:
        raise ValueError("not one meta file")
    meta = _dcd_read(files[metas[0]])
    pages, chunks = meta[1], meta[2]
    urls = [_fragment_url(files[f"{root}/fragment/{fragment}.pf_fragment"]) for fragment, _ in pages]
    order = sorted(range(len(pages)), key=lambda number: (urls[number], pages[number][0]))
    # None: already in order. bough's CBOR writing gives Pagefind's bytes back, so
    # a chunk in order is only compressed again (as bough compresses: the same bytes
    # as a chunk put in order), not decoded.
    renumber = None if order == list(range(len(pages))) else {old: new for new, old in enumerate(order)}
    out = dict(files)
    names: dict[str, str] = {}
    for path in sorted(files):
        match = re.fullmatch(rf"{re.escape(root)}/index/([^/]+)\.pf_index", path)
        if match:
            data = _dcd_pack(_dcd_raw(files[path])) if renumber is None else \
                _dcd_write(_chunk_renumbered(_dcd_read(files[path]), renumber))
            names[match.group(1)] = new = _renamed(match.group(1), data)
            del out[path]
            out[f"{root}/index/{new}.pf_index"] = data
    meta[1] = [pages[number] for number in order]
    meta[2] = [[first, last, names[name]] for first, last, name in chunks]
    out[metas[0]] = _dcd_write(meta)
    return out, renumber or {}


def _chunk_renumbered(chunk: Any, renumber: dict[int, int]) -> Any:
    """An index chunk's words (and their variants) with their postings' pages renumbered."""
    for word in chunk[0]:
        word[1] = _renumbered(word[1], renumber)
        for variant in word[2]:
            variant[1] = _renumbered(variant[1], renumber)
    return chunk


def _fragment_url(data: bytes) -> str:
    """The URL a Pagefind fragment (gzip: ``pagefind_dcd`` and JSON) is of."""
    url = orjson.loads(_dcd_raw(data)[len(_DCD):]).get("url")
    if not isinstance(url, str):
        raise ValueError("a fragment without its URL")
    return url


def _renumbered(postings: list[Any], renumber: dict[int, int]) -> list[Any]:
    """Postings (``[number, ...]``, numbers as differences, ascending) with their pages renumbered."""
    numbered = []
    number = 0
    for posting in postings:
        if not isinstance(posting, list) or type(posting[0]) is not int:
            raise ValueError("not a Pagefind posting")
        number += posting[0]
        numbered.append((renumber[number], posting[1:]))
    numbered.sort(key=lambda pair: pair[0])
    out, previous = [], 0
    for new, rest in numbered:
        out.append([new - previous, *rest])
        previous = new
    return out


def _is_filter_list(part: Any, names: dict[str, str]) -> bool:
    new = set(names.values())
    return isinstance(part, list) and bool(part) and all(
        isinstance(pair, list) and len(pair) == 2 and pair[1] in new for pair in part
    )
