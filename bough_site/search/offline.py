"""The search index for ``file://``: ``search-index.js``.

From ``file://`` a browser will not run Pagefind (no ``fetch``, no modules), so
the search box falls back to ``search-index.js``: a classic script that sets
``window.BOUGH_SEARCH_INDEX`` to every session's title, project, source, models
and the text of its prompts, replies and tool calls (a call's input, and the
start of its error; each item capped, and each session capped in all), loaded
by a ``<script src>`` the box adds when first used; the box says what it holds.
Its name carries no hash on purpose: every page would name it, so a hash would
change every page whenever any session changed (incremental builds rewrite only
what changed); it is read only where nothing caches it (``file://``) or when
Pagefind could not load.

What it keeps of a session (:func:`session_entries`) is taken in the worker, from
the redacted timeline, when the session is summarized: a session kept from an
earlier build has only its summary (``Session.search_items``, one of the details a
build keeps in OUT's state and holds a project at a time), not its timeline.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import orjson

from .. import urls
from ..aside import SetAside
from ..model import SOURCE_LABELS, Prompt, Reply, Session, Site, Text, ToolCall
from ..summaries import details_at_hand

FALLBACK_PATH = "search-index.js"
# What the fallback index keeps of a session: each prompt or reply text cut at
# ITEM_CHARS, each tool call's input (its text values: the command, the path, the
# pattern...) at CALL_CHARS and a failed call's error at ERROR_CHARS more; at most
# SESSION_CHARS in all: prompts first, then replies, then tool calls.
ITEM_CHARS = 600
CALL_CHARS = 200
ERROR_CHARS = 300
SESSION_CHARS = 6000


# --- per session (in the worker, from the redacted timeline) --------------------------------


# The kinds of entries, in the order the session's budget goes to them.
_PROMPT, _REPLY, _CALL = range(3)


def session_entries(session: Session) -> list[list[str]]:
    """``[anchor, text]`` for the session's prompts, replies and tool calls (a call's
    anchor is its reply's and its block's number, as on the page: tools/default.html),
    in timeline order: each text at most ITEM_CHARS (a call's CALL_CHARS and
    ERROR_CHARS), all together at most SESSION_CHARS, prompts kept before replies
    and replies before calls when the session is over its budget."""
    items: list[tuple[int, int, str, str, int]] = []  # (item, block, anchor, text, kind)
    for index, item in enumerate(session.timeline):
        if isinstance(item, Prompt):
            text = " ".join(part.text for part in item.content if isinstance(part, Text))
            items.append((index, 0, item.anchor, _squeeze(text)[:ITEM_CHARS], _PROMPT))
        elif isinstance(item, Reply):
            text = " ".join(block.text for block in item.blocks if isinstance(block, Text))
            items.append((index, 0, item.anchor, _squeeze(text)[:ITEM_CHARS], _REPLY))
            items += [(index, number, f"{item.anchor}-{number}", _call_text(block), _CALL)
                      for number, block in enumerate(item.blocks, 1) if isinstance(block, ToolCall)]
    budget = SESSION_CHARS
    kept: list[tuple[int, int, str, str]] = []
    for kind in (_PROMPT, _REPLY, _CALL):
        for index, number, anchor, text, of_kind in items:
            if of_kind != kind or not text or budget <= 0:
                continue
            text = text[:budget]
            budget -= len(text)
            kept.append((index, number, anchor, text))
    kept.sort()
    return [[anchor, text] for _, _, anchor, text in kept]


def _call_text(call: ToolCall) -> str:
    """A tool call as the fallback index keeps it: its name and the text values of
    its input, cut at CALL_CHARS; for a call that failed, the start of its error."""
    words = [call.name]
    size = len(call.name)
    for value in _strings(call.input):
        if size > CALL_CHARS:
            break
        value = _squeeze(value[: CALL_CHARS * 2])
        words.append(value)
        size += len(value) + 1
    text = " ".join(words)[:CALL_CHARS]
    result = call.result
    if result is not None and result.is_error:
        said = " ".join(part.text for part in result.content if isinstance(part, Text))
        text += " " + _squeeze(said[: ERROR_CHARS * 2])[:ERROR_CHARS]
    return text.strip()


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """The strings in a JSON value (keys left out), in order; nothing below 8 levels."""
    if isinstance(value, str):
        yield value
    elif depth < 8 and isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth < 8 and isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


# --- the fallback index ----------------------------------------------------------------------


class _Tables:
    """The projects, sources and models the index names once, by first appearance."""

    def __init__(self) -> None:
        self.projects: list[str] = []
        self.sources: list[str] = []
        self.models: list[str] = []

    @staticmethod
    def position(values: list[str], value: str) -> int:
        if value not in values:
            values.append(value)
        return values.index(value)



# Gives sessions their summaries' details meanwhile (state_reads.Details.held).
HoldDetails = Callable[[list[Session]], AbstractContextManager[None]]


# Sessions given their details at once: a build holds them this many at a time here
# (a project's at once, 3,000 sessions, was 40 MB of details for their search items).
DETAILS_BATCH = 200


def _entries(site: Site, tables: _Tables, details: HoldDetails) -> Iterator[tuple[tuple[str, str], dict]]:
    """Each session's entry with its sort key, in the order of the site's projects and
    sessions, DETAILS_BATCH sessions given their search items at a time (``details``)."""
    for project in site.projects:
        for start in range(0, len(project.sessions), DETAILS_BATCH):
            batch = project.sessions[start:start + DETAILS_BATCH]
            with details(batch):
                for session in batch:
                    entry = {
                        "u": urls.session_html(project.id, session.slug),
                        "t": session.title or "Untitled session",
                        "p": tables.position(tables.projects, project.name),
                        "s": tables.position(tables.sources, SOURCE_LABELS.get(session.source, session.source)),
                        "m": [tables.position(tables.models, model) for model in session.models or ()],
                        "d": (session.started or "")[:10],
                        "i": _items(project.id, session),
                    }
                    yield (entry["d"], entry["u"]), entry


def _items(project_id: str, session: Session) -> list[list[str]]:
    """``[anchor, text]`` per item, ``[anchor, text, page]`` for one on a later
    part of a session page split in parts."""
    items = session.search_items or []
    parts = session.anchor_parts
    if not parts:  # one page, as almost every session: the items as they are (orjson writes them)
        return items
    return [[*item, urls.session_part_html(project_id, session.slug, parts[item[0]])]
            if item and item[0] in parts else item for item in items]


def fallback_chunks(site: Site, details: HoldDetails | None = None, batch: int = 1000) -> Iterator[bytes]:
    """``search-index.js``: one statement assigning the index to a global: sessions
    newest first, projects, sources and models named once and referred to by position,
    as orjson writes the whole with sorted keys, but made a session at a time: each
    entry encoded, and escaped, as it is made, and put aside in a temporary file
    until they are all made and sorted, then given back ``batch`` at a time. At
    18,000 sessions the file is 45 MB: made whole, then escaped, it cost four times that."""
    tables = _Tables()
    aside = SetAside()
    for key, entry in _entries(site, tables, details or details_at_hand):
        aside.add(key, _escaped(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)))

    def dumps(value: Any) -> bytes:
        return _escaped(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))

    # The comment names search.py, the module this was in: kept, so the output stays the same bytes.
    yield b"/* bough search index for file:// (see bough_site/search.py) */\nwindow.BOUGH_SEARCH_INDEX = " \
        + b"".join([b'{"models":', dumps(tables.models), b',"projects":', dumps(tables.projects), b',"sessions":['])
    entries = aside.read(newest_first=True)
    for start in itertools.count(0, batch):
        chunk = [data for _key, data in itertools.islice(entries, batch)]
        if not chunk:
            break
        yield (b"," if start else b"") + b",".join(chunk)
    yield b'],"sources":' + dumps(tables.sources) + b',"v":1};\n'


def _escaped(data: bytes) -> bytes:
    """JSON safe in any context a script's text may be read in; \\u2028 and \\u2029
    end lines in old engines. Replaced in the UTF-8 bytes, a value at a time: neither
    character's encoding occurs inside another's, nor across two JSON values."""
    for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
                         ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
        data = data.replace(raw, escaped)
    return data
