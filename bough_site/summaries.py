"""Session summaries and counting identities, as JSON data the build can keep.

A *summary* is every field of a session that the site outside its own page
needs (the index, project pages, sidecars and search): never its timeline.
Index and project pages are rendered from summaries only, in a fresh build as in
an incremental one, so both give the same bytes. A *tally* (stats.Tally) is the
set of identities a session counts; project and site numbers are their unions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from typing import Any

import orjson

from .hidden import hide
from .model import Session, Usage, InputWarning
from .stats import SET_KEYS, USAGE_FIELDS, Tally

# --------------------------------------------------------------------------- session summaries

# Session fields a summary carries. A new per-session field that the index,
# project pages or sidecars should show (commits, files changed, a search
# excerpt ...) is added to Session and named here: it is then stored for
# reused sessions too. Its value must be JSON data, dataclasses of the model
# or lists, dicts and tuples of those. The timeline never is: summaries must
# stay small.
SUMMARY_FIELDS: tuple[str, ...] = (
    "id",
    "source",
    "cwd",
    "title",
    "started",
    "ended",
    "versions",
    "models",
    "git_branch",
    "files",
    "stats",
    "parent_id",
    "redactions",
    "kept_since",
    # What the agent built (bough_site/work.py): the project page's timeline and charts.
    "commits",
    "file_changes",
    "agents",
    "prompt_times",
    "reply_usage",
    "search_items",  # the file:// search index (search/offline.py)
    "anchor_parts",  # which part of a split page holds a linked moment (render/pages.py)
)


@functools.lru_cache(maxsize=1)
def _session_fields() -> dict[str, Any]:
    hints = typing.get_type_hints(Session)
    return {name: hints[name] for name in SUMMARY_FIELDS if name in hints}


@functools.lru_cache(maxsize=1)
def _field_decoders() -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    return tuple((name, _decoder(hint)) for name, hint in _session_fields().items())


# The summary fields only a project's own files read (its page, month pages, sidecar)
# and search's fallback index: the bulk of a summary (three quarters of it on a history
# of short sessions). A build keeps them apart, as one value of OUT's state per session
# (its *details*), and holds them only while the page that reads them is made: at
# 18,000 sessions, the summaries held whole were most of a build's memory
# (docs/performance.md). Every other field stays in the manifest's entry.
DETAIL_FIELDS: tuple[str, ...] = ("commits", "file_changes", "agents", "reply_usage", "search_items")


def summarize(session: Session) -> dict[str, Any]:
    """The part of a session the site outside its own page needs, as JSON data."""
    out: dict[str, Any] = {name: _encode(getattr(session, name)) for name in _session_fields()}
    out["warnings"] = [[w.file, w.line, w.reason] for w in session.warnings]
    return out


def split_summary(summary: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """A summary as a build keeps it: every field but the details, and the details as JSON."""
    light = {name: value for name, value in summary.items() if name not in DETAIL_FIELDS}
    details = {name: summary[name] for name in DETAIL_FIELDS if name in summary}
    return light, orjson.dumps(details, option=orjson.OPT_SORT_KEYS)


def add_details(session: Session, details: bytes | None) -> None:
    """Give a session made from a summary without its details (:func:`split_summary`) its details."""
    try:
        values = orjson.loads(details) if details else {}
    except orjson.JSONDecodeError:
        values = {}
    decoders = dict(_field_decoders())
    for name in DETAIL_FIELDS:
        value = values.get(name) if isinstance(values, dict) else None
        setattr(session, name, decoders[name](value) if value is not None else [])


def details_at_hand(_sessions: list[Session]) -> contextlib.AbstractContextManager[None]:
    """For sessions that have their details (made from whole summaries): nothing to hold."""
    return contextlib.nullcontext()


def drop_details(session: Session) -> None:
    """Let go of a session's details once the pages that read them are made."""
    for name in DETAIL_FIELDS:
        setattr(session, name, [])


def session_from_summary(summary: dict[str, Any], slug: str) -> Session:
    """A Session with every summary field and an empty timeline."""
    values = {name: summary[name] if decode is _same else decode(summary[name])
              for name, decode in _field_decoders() if name in summary}
    for name in ("versions", "models", "files"):
        values[name] = values.get(name) or []
    for name in ("stats", "redactions"):
        values[name] = values.get(name) or {}
    for name in ("id", "source", "cwd", "title", "started", "ended", "git_branch"):
        values.setdefault(name, None)
    warnings = [InputWarning(f, n, r) for f, n, r in summary.get("warnings") or []]
    return Session(**values, timeline=[], warnings=warnings, slug=slug)


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return {key: _encode(item) for key, item in value.items()}
    return value


def _same(value: Any) -> Any:
    return value


@functools.cache
def _decoder(hint: Any) -> Callable[[Any], Any]:
    """A function turning JSON data back into the type a Session field is
    annotated with (dataclasses, lists, dicts and tuples of them), made once per type."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(options) != 1:
            return _same
        inner = _decoder(options[0])
        return _same if inner is _same else (lambda value: None if value is None else inner(value))
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields_ = [(f.name, _decoder(hints[f.name])) for f in dataclasses.fields(hint)]

        def dataclass_(value: Any) -> Any:
            if not isinstance(value, dict):
                return value
            return hint(**{name: decode(value[name]) for name, decode in fields_ if name in value})

        return dataclass_
    args = typing.get_args(hint)
    if origin is list:
        item = _decoder(args[0]) if args else _same
        if item is _same:
            return _same  # JSON data as orjson made it: the summary's own, never changed in place
        return lambda value: [item(v) for v in value] if isinstance(value, list) else value
    if origin is dict:
        item = _decoder(args[1]) if len(args) == 2 else _same
        if item is _same:
            return _same
        return lambda value: {k: item(v) for k, v in value.items()} if isinstance(value, dict) else value
    if origin is tuple:
        return lambda value: tuple(value) if isinstance(value, list) else value
    return _same


# --------------------------------------------------------------------------- tallies


def tally_to_json(tally: Tally) -> dict[str, Any]:
    """A tally as JSON data, each identity replaced by an 80-bit digest of it:
    identities name files and paths (``<label>:<line>``, a changed file's path),
    and OUT may be published with its dotfiles. Project and site counts are
    unions of these digests, in a fresh build as in an incremental one."""
    out: dict[str, Any] = {key: sorted({hide(item) for item in getattr(tally, key)}) for key in SET_KEYS}
    replies: dict[str, Usage] = {}
    digests: dict[str, str] = {}  # reply key -> its digest, made once (the costs share Claude's keys)
    for key, usage in tally.replies.items():
        digest = digests[key] = hide(key)
        seen = replies.get(digest)
        if seen is None or usage.total() > seen.total():
            replies[digest] = usage
    # A reply of unknown tokens has a sixth number, 1 (Usage.unknown): the others' entries are as they were.
    out["replies"] = [[key, *(getattr(u, name) for name in USAGE_FIELDS), *((1,) if u.unknown else ())]
                      for key, u in sorted(replies.items())]
    out["lines"], out["skipped_lines"], out["has_reasoning"] = tally.lines, tally.skipped_lines, tally.has_reasoning
    # A session's whole-session tokens and the figures its files do not hold (Copilot
    # CLI): only where there are some, so every other tally's JSON is as it was.
    if tally.totals:
        out["totals"] = sorted([hide(key), *(getattr(u, name) for name in USAGE_FIELDS)] for key, u in tally.totals.items())
    if tally.costs is not None:  # priced (pricing.py): [digest, estimate, recorded], pico-dollars or null
        costs: dict[str, tuple[int | None, int | None]] = {}
        for key, pair in tally.costs.items():
            costs.setdefault(digests.get(key) or hide(key), pair)
        out["costs"] = [[key, *pair] for key, pair in sorted(costs.items())]
    if any(tally.unknown.values()):
        out["unknown"] = {key: sorted({hide(item) for item in items}) for key, items in sorted(tally.unknown.items())
                          if items}
    return out


def tally_from_bytes(data: bytes) -> Tally | None:
    """A tally as OUT's state keeps it (the JSON of :func:`tally_to_json`); None when it is not one."""
    try:
        return tally_from_json(orjson.loads(data))
    except (orjson.JSONDecodeError, TypeError, ValueError, AttributeError):
        return None


def tally_from_json(data: dict[str, Any]) -> Tally:
    tally = Tally()
    for key in SET_KEYS:
        getattr(tally, key).update(data.get(key) or ())
    tally.replies = {key: usage_from_numbers(numbers) for key, *numbers in data.get("replies") or ()}
    tally.lines = int(data.get("lines") or 0)
    tally.skipped_lines = int(data.get("skipped_lines") or 0)
    tally.has_reasoning = bool(data.get("has_reasoning"))
    tally.totals = {key: usage_from_numbers(numbers) for key, *numbers in data.get("totals") or ()}
    tally.unknown = {key: set(items) for key, items in (data.get("unknown") or {}).items()}
    if "costs" in data:
        tally.costs = {key: (estimate, recorded) for key, estimate, recorded in data["costs"] or ()}
    return tally


def usage_from_numbers(numbers: list[Any]) -> Usage:
    usage = Usage(*numbers[: len(USAGE_FIELDS)])
    usage.unknown = len(numbers) > len(USAGE_FIELDS) and bool(numbers[len(USAGE_FIELDS)])
    return usage
