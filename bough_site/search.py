"""Search: the Pagefind index for hosted sites, and a compact index for ``file://``.

Hosted (http and https): Pagefind (the ``pagefind`` package with its ``bin``
extra) indexes the session pages after they are written. Only the conversation
is indexed (the element with ``data-pagefind-body``: the timeline, sub-agents
and tool calls included), with the session title as ``title`` and filters for
project, source and model (``data-pagefind-filter`` in the page header). The
bundle is written under ``pagefind/`` through the site writer like any file.

From ``file://`` a browser will not run Pagefind (no ``fetch``, no modules), so
the search box falls back to ``search-index.js``: a classic script that sets
``window.BOUGH_SEARCH_INDEX`` to every session's title, project, source, models
and the text of its prompts and replies (each item capped, and each session
capped in all), loaded by a ``<script src>`` the box adds when first used.
Its name carries no hash on purpose: every page would name it, so a hash would
change every page whenever any session changed (incremental builds rewrite only
what changed); it is read only where nothing caches it (``file://``) or when
Pagefind could not load.

Both are made from redacted text only: session pages and the session models
(summaries) after redaction.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from . import urls
from .errors import BoughError
from .model import SOURCE_CLAUDE, SOURCE_CODEX, Prompt, Reply, Session, Site, Text

FALLBACK_PATH = "search-index.js"
PAGEFIND_DIR = "pagefind"
# What the fallback index keeps of a session: each prompt or reply text cut at
# ITEM_CHARS, at most SESSION_CHARS in all (prompts first).
ITEM_CHARS = 600
SESSION_CHARS = 6000
# Session pages only: the index and project pages have no data-pagefind-body.
SESSION_PAGE = re.compile(r"^projects/[^/]+/sessions/[^/]+\.html$")
# A page larger than this is left out of Pagefind's index (its prompts and replies
# stay in the fallback index): indexing one 60 MB page takes Pagefind a gigabyte.
MAX_INDEXED_PAGE = 8 << 20
PAGEFIND_TIMEOUT = 600
SOURCE_LABELS = {SOURCE_CLAUDE: "Claude Code", SOURCE_CODEX: "Codex"}


class SearchError(BoughError):
    """The Pagefind index could not be built."""


# --- per session (in the worker, from the redacted timeline) --------------------------------


def session_entries(session: Session) -> list[list[str]]:
    """``[anchor, text]`` for the session's prompts and replies, in timeline order:
    each text at most ITEM_CHARS, all together at most SESSION_CHARS, prompts
    kept before replies when the session is over its budget."""
    items: list[tuple[int, str, str, bool]] = []
    for index, item in enumerate(session.timeline):
        if isinstance(item, Prompt):
            text = " ".join(part.text for part in item.content if isinstance(part, Text))
            items.append((index, item.anchor, _squeeze(text), True))
        elif isinstance(item, Reply):
            text = " ".join(block.text for block in item.blocks if isinstance(block, Text))
            items.append((index, item.anchor, _squeeze(text), False))
    budget = SESSION_CHARS
    kept: list[tuple[int, str, str]] = []
    for prompts in (True, False):
        for index, anchor, text, is_prompt in items:
            if is_prompt is not prompts or not text or budget <= 0:
                continue
            text = text[: min(ITEM_CHARS, budget)]
            budget -= len(text)
            kept.append((index, anchor, text))
    kept.sort()
    return [[anchor, text] for _, anchor, text in kept]


def _squeeze(text: str) -> str:
    return " ".join(text.split())


# --- the fallback index ----------------------------------------------------------------------


def fallback_index(site: Site) -> dict[str, Any]:
    """The data of ``search-index.js``: sessions newest first, projects, sources and
    models named once and referred to by position."""
    projects: list[str] = []
    sources: list[str] = []
    models: list[str] = []

    def position(values: list[str], value: str) -> int:
        if value not in values:
            values.append(value)
        return values.index(value)

    sessions = []
    for project in site.projects:
        for session in project.sessions:
            sessions.append({
                "u": urls.session_html(project.id, session.slug),
                "t": session.title or "Untitled session",
                "p": position(projects, project.name),
                "s": position(sources, SOURCE_LABELS.get(session.source, session.source)),
                "m": [position(models, model) for model in session.models or ()],
                "d": (session.started or "")[:10],
                "i": list(getattr(session, "search_items", None) or ()),
            })
    sessions.sort(key=lambda s: (s["d"], s["u"]), reverse=True)
    return {"v": 1, "projects": projects, "sources": sources, "models": models, "sessions": sessions}


def fallback_script(site: Site) -> bytes:
    """``search-index.js``: one statement assigning the index to a global."""
    data = orjson.dumps(fallback_index(site), option=orjson.OPT_SORT_KEYS).decode("utf-8")
    # Safe in any context a script's text may be read in; \u2028 and \u2029 end lines in old engines.
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):
        data = data.replace(raw, escaped)
    return ("/* bough search index for file:// (see bough_site/search.py) */\n"
            f"window.BOUGH_SEARCH_INDEX = {data};\n").encode()


# --- Pagefind ----------------------------------------------------------------------------------


def pagefind_binary() -> Path:
    try:
        from pagefind.service import get_executable
    except ImportError as err:
        raise SearchError("search needs the pagefind package (pip install 'pagefind[bin]'), "
                          "or build with --no-search") from err
    binary = get_executable()
    if binary is None:
        raise SearchError("the pagefind binary is missing (pip install 'pagefind[bin]'), or build with --no-search")
    return Path(binary)


def pagefind_files(out: Path, pages: list[str], report: Callable[[str], None] = lambda line: None,
                   ) -> list[tuple[str, bytes]]:
    """Run Pagefind over the session pages among ``pages`` (paths under OUT that
    this build wrote or kept) and return its bundle as (path under OUT, bytes),
    sorted. The pages are linked (or copied) into a temporary site first, so a
    page that is about to be pruned, or a file bough does not own, is never
    indexed; the bundle is written there too (an absolute path: Pagefind
    resolves it against its working directory), so the site writer stays the
    one that writes into OUT."""
    binary = pagefind_binary()
    with tempfile.TemporaryDirectory(prefix="bough-pagefind-") as tmp:
        site = Path(tmp) / "site"
        for page in sorted({p for p in pages if SESSION_PAGE.match(p)}):
            if (Path(out) / page).stat().st_size > MAX_INDEXED_PAGE:
                report(f"warning: {page} is over {MAX_INDEXED_PAGE >> 20} MB: left out of the Pagefind index")
                continue
            target = site / page
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(Path(out) / page, target)
            except OSError:
                shutil.copyfile(Path(out) / page, target)
        site.mkdir(exist_ok=True)
        bundle = Path(tmp) / PAGEFIND_DIR
        command = [str(binary), "--site", str(site.resolve()), "--output-path", str(bundle.resolve()), "--silent"]
        try:
            done = subprocess.run(command, capture_output=True, timeout=PAGEFIND_TIMEOUT, cwd=tmp,
                                  env={**os.environ, "NO_COLOR": "1"}, check=False)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise SearchError(f"Pagefind could not run: {err}") from err
        if done.returncode != 0:
            message = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
            raise SearchError(f"Pagefind failed (exit {done.returncode}): {message[-2000:]}")
        files = {}
        for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
            rel = path.relative_to(bundle).as_posix()
            if rel.startswith("playground/"):
                continue
            files[f"{PAGEFIND_DIR}/{rel}"] = path.read_bytes()
    try:
        files = canonical_bundle(files)
    except (ValueError, TypeError, IndexError, KeyError, OSError, EOFError):
        pass  # a Pagefind whose files bough cannot read: its bundle works as written, only not reproducibly
    return sorted(files.items())


# --- making Pagefind's bundle reproducible ---------------------------------------------------------
#
# Pagefind 1.5 writes its filter files with the values in hash-map order, which
# changes from run to run, and their names (content hashes) with them, and so
# the names in the meta file and in pagefind-entry.json. Everything else it
# writes is the same for the same pages. ``canonical_bundle`` sorts each filter
# file's values, renames it by its new content, and rewrites the references, so
# two builds of the same site give the same bytes (example_output/ is compared
# byte for byte). The files are gzip'd "pagefind_dcd" + CBOR; the small CBOR
# codec below handles what they hold (integers, strings, arrays, maps).

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


def _dcd_read(data: bytes) -> Any:
    raw = gzip.decompress(data)
    if not raw.startswith(_DCD):
        raise ValueError("not a Pagefind data file")
    value, end = _cbor_decode(raw, len(_DCD))
    if end != len(raw):
        raise ValueError("trailing bytes in a Pagefind data file")
    return value


def _dcd_write(value: Any) -> bytes:
    return gzip.compress(_DCD + _cbor_encode(value), compresslevel=9, mtime=0)


def _renamed(old: str, data: bytes, length: int) -> str:
    """A file's hash name (``en_1a2b3c4``) for new content: the language kept, the hash replaced."""
    language = old.rsplit("_", 1)[0]
    return f"{language}_{hashlib.sha256(data).hexdigest()[:length]}"


def _replace_strings(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, _Map):
        return _Map((_replace_strings(k, names), _replace_strings(v, names)) for k, v in value)
    if isinstance(value, list):
        return [_replace_strings(item, names) for item in value]
    return value


def canonical_bundle(files: dict[str, bytes]) -> dict[str, bytes]:
    """Pagefind's bundle (path -> bytes) with its filter files made reproducible."""
    out = dict(files)
    names: dict[str, str] = {}  # old hash name -> new
    filter_re = re.compile(rf"^{PAGEFIND_DIR}/filter/(.+)\.pf_filter$")
    for path in sorted(files):
        match = filter_re.match(path)
        if not match:
            continue
        name, values = _dcd_read(files[path])
        values = sorted(([v, sorted(pages)] for v, pages in values), key=lambda pair: pair[0])
        data = _dcd_write([name, values])
        new = _renamed(match.group(1), data, len(match.group(1).rsplit("_", 1)[1]))
        names[match.group(1)] = new
        del out[path]
        out[f"{PAGEFIND_DIR}/filter/{new}.pf_filter"] = data
    meta_re = re.compile(rf"^{PAGEFIND_DIR}/pagefind\.(.+)\.pf_meta$")
    entry_path = f"{PAGEFIND_DIR}/pagefind-entry.json"
    for path in sorted(files):
        match = meta_re.match(path)
        if not match:
            continue
        meta = _replace_strings(_dcd_read(files[path]), names)
        # The list of [filter name, filter file] pairs, in hash-map order too.
        meta = [sorted(part, key=lambda pair: pair[0]) if _is_filter_list(part, names) else part for part in meta]
        data = _dcd_write(meta)
        new = _renamed(match.group(1), data, len(match.group(1).rsplit("_", 1)[1]))
        del out[path]
        out[f"{PAGEFIND_DIR}/pagefind.{new}.pf_meta"] = data
        if entry_path in out:
            out[entry_path] = out[entry_path].replace(f'"{match.group(1)}"'.encode(), f'"{new}"'.encode())
    return out


def _is_filter_list(part: Any, names: dict[str, str]) -> bool:
    new = set(names.values())
    return isinstance(part, list) and bool(part) and all(
        isinstance(pair, list) and len(pair) == 2 and pair[1] in new for pair in part
    )
