"""The search index for ``file://``: ``search-index.js`` and its parts.

From ``file://`` a browser will not run Pagefind (no ``fetch``, no modules), so
the search box falls back to ``search-index.js``: a classic script that sets
``window.BOUGH_SEARCH_INDEX`` to the names of the index's parts, which the box then
loads, each a classic script too (``search-index/<digest>.js``), holding every
session of one search shard (shards.shard_names: a project, or a big one's months):
its title, project, source, models and the text of its prompts, replies and tool
calls (a call's input, and the start of its error; each item capped, and each
session capped in all). They are loaded by ``<script src>`` when the box is first
used; the box says what it holds. ``search-index.js`` carries no hash on purpose:
every page names it, so a hash would change every page whenever any session changed
(incremental builds rewrite only what changed). A part is named by the digest of
what it is made of: a build keeps every part whose sessions did not change, without
reading their details, and makes again the one that holds a grown session (at
18,000 sessions the index is 45 MB, a part at most a few). They are read only
where nothing caches them (``file://``) or when Pagefind could not load.

What it keeps of a session (:func:`session_entries`) is taken in the worker, from
the redacted timeline, when the session is summarized: a session kept from an
earlier build has only its summary (``Session.search_items``, one of the details a
build keeps in OUT's state and holds a few hundred at a time), not its timeline.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import orjson

from .. import urls
from ..model import SOURCE_LABELS, Project, Prompt, Reply, Session, Text, ToolCall
from ..summaries import details_at_hand
from ..write import script_json

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
# What names a session's details without reading them (the name OUT's state keeps
# them under, a digest of their bytes: state_reads.Details.name).
DetailsName = Callable[[Session], str]


# Sessions given their details at once while a part is made: a build holds them this
# many at a time (a project's at once, 3,000 sessions, was 40 MB of details).
DETAILS_BATCH = 200
PARTS_DIR = "search-index"
# Changed when what a part holds, or how, changes: every part is then made again.
PART_FORMAT = 1


@dataclass(frozen=True)
class Part:
    """The sessions of one search shard (shards.shard_names): a part of the index,
    named by the digest of what it is made of, so that a part is made again only when
    one of its sessions changed."""

    digest: str
    project: Project
    sessions: list[Session]

    @property
    def path(self) -> str:
        return f"{PARTS_DIR}/{self.digest}.js"


def project_parts(project: Project, shards: dict[str, str], details_name: DetailsName | None = None,
                  digests: list[str] | None = None) -> list[Part]:
    """A project's parts of the index, by shard (``shards``: the shard of each session
    page's stem, else its project's), in shard order; each named from its sessions'
    entries but their items, and the name of their details (``details_name``;
    without it, the items themselves), unless ``digests`` names them already (what
    an earlier build made of the very same sessions: publish.py keeps them)."""
    by_shard: dict[str, list[Session]] = {}
    for session in project.sessions:
        by_shard.setdefault(shards.get(urls.session_stem(project.id, session.slug), project.id), []).append(session)
    groups = [by_shard[shard] for shard in sorted(by_shard)]
    if digests is not None and len(digests) == len(groups):
        return [Part(digest, project, sessions) for digest, sessions in zip(digests, groups)]
    parts = []
    for sessions in groups:
        made_of = [PART_FORMAT, project.id, project.name, [
            [_light(project, session), session.anchor_parts,
             details_name(session) if details_name else session.search_items] for session in sessions]]
        digest = hashlib.sha256(orjson.dumps(made_of, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]
        parts.append(Part(digest, project, sessions))
    return parts


def fallback_script(parts: list[Part]) -> bytes:
    """``search-index.js``: the names of the index's parts, which the search box loads."""
    index = {"parts": [part.digest for part in parts], "v": 2}
    return b"/* bough search index for file:// (see bough_site/search/offline.py) */\nwindow.BOUGH_SEARCH_INDEX = " \
        + script_json(index, sort_keys=True) + b";\n"


def part_script(part: Part, details: HoldDetails | None = None) -> bytes:
    """A part's script: it files the part's index under its digest in a global. The
    index names projects, sources and models once, referred to by position; sessions
    newest first; sorted keys. Its sessions are given their search items
    DETAILS_BATCH at a time (``details``) while their entries are made."""
    tables = _Tables()
    entries = []
    for start in range(0, len(part.sessions), DETAILS_BATCH):
        batch = part.sessions[start:start + DETAILS_BATCH]
        with (details or details_at_hand)(batch):
            for session in batch:
                light = _light(part.project, session)
                entry = {"u": light["u"], "t": light["t"], "d": light["d"],
                         "p": tables.position(tables.projects, part.project.name),
                         "s": tables.position(tables.sources, light["s"]),
                         "m": [tables.position(tables.models, model) for model in light["m"]],
                         "i": _items(part.project.id, session)}
                entries.append(((entry["d"], entry["u"]), script_json(entry, sort_keys=True)))
    entries.sort(key=lambda pair: pair[0], reverse=True)
    return b"".join([
        b"/* a part of bough's search index for file:// (search-index.js names it) */\n",
        b"(window.BOUGH_SEARCH_PARTS = window.BOUGH_SEARCH_PARTS || {})[", script_json(part.digest), b"] = ",
        b'{"models":', script_json(tables.models), b',"projects":', script_json(tables.projects), b',"sessions":[',
        b",".join(data for _key, data in entries),
        b'],"sources":', script_json(tables.sources), b"};\n"])


def _light(project: Project, session: Session) -> dict[str, Any]:
    """What an entry holds of a session but its items."""
    return {"u": urls.session_html(project.id, session.slug), "t": session.title or "Untitled session",
            "s": SOURCE_LABELS.get(session.source, session.source), "m": list(session.models or ()),
            "d": (session.started or "")[:10]}


def _items(project_id: str, session: Session) -> list[list[str]]:
    """``[anchor, text]`` per item, ``[anchor, text, page]`` for one on a later
    part of a session page split in parts."""
    items = session.search_items or []
    parts = session.anchor_parts
    if not parts:  # one page, as almost every session: the items as they are (orjson writes them)
        return items
    return [[*item, urls.session_part_html(project_id, session.slug, parts[item[0]])]
            if item and item[0] in parts else item for item in items]
