"""What a tool's recorded result says beyond its text, read defensively.

A result is shown as what it is (issue #36 point 6): a page fetched as its
Markdown with the fetch's status, size and time; a web search as a list of
links; the files a search found as a list of paths. This module only reads:
it turns a result's text and ``detail`` (the structured record the agent wrote,
any JSON shape, already redacted like the text: ``scrub.py``) into plain
values; ``result_views.py`` decides what becomes a block, and the templates write the
markup. Anything that is not the expected shape gives None, and the result is
shown as text, as before.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .links import safe_href

# Lists longer than this are read no further: a page is not the place for them.
MAX_ITEMS = 5_000
# A search's "Links: [...]" JSON is parsed only up to this size.
MAX_LINKS_JSON = 1_000_000


@dataclass(frozen=True)
class Link:
    """One result of a web search: its title, and its URL as a link when it is
    one we link (``safe_href``: docs/safety.md S5), else shown as text."""

    title: str
    url: str
    href: str | None

    @property
    def host(self) -> str:
        """The site's name (``github.com``), to tell results apart at a glance."""
        try:
            return urlsplit(self.href or "").hostname or ""
        except ValueError:
            return ""


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value and abs(value) < 1e15 else None  # not NaN, not huge


def byte_size(n: int) -> str:
    """``512 B``, ``268.0 KB``, ``1.2 MB``: binary units, as claude-code-log shows a fetch."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def seconds_text(seconds: float) -> str:
    """``5.2 s``; ``340 ms`` under a second."""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def web_fetch_facts(detail: Any) -> tuple[str, list[str]]:
    """Claude Code's WebFetch record (``{code, codeText, bytes, durationMs, url, result}``):
    the HTTP status (``200 OK``) and the size and time of the fetch; empty when not recorded."""
    if not isinstance(detail, dict):
        return "", []
    code, text = _int(detail.get("code")), detail.get("codeText")
    status = f"{code} {text}".strip() if code is not None and isinstance(text, str) else str(code or "")
    facts = []
    size = _int(detail.get("bytes"))
    if size is not None and size >= 0:
        facts.append(byte_size(size))
    ms = _number(detail.get("durationMs"))
    if ms is not None and ms >= 0:
        facts.append(seconds_text(ms / 1000))
    return status[:60], facts


def duration_fact(detail: Any, key: str = "durationSeconds") -> list[str]:
    """``["6.5 s"]`` from a record's duration in seconds, or nothing."""
    value = _number(detail.get(key)) if isinstance(detail, dict) else None
    return [seconds_text(value)] if value is not None and value >= 0 else []


def _link(item: object) -> Link | None:
    if not isinstance(item, dict):
        return None
    url, title = item.get("url"), item.get("title")
    if not isinstance(url, str) or not url:
        return None
    return Link(title if isinstance(title, str) and title.strip() else url, url, safe_href(url))


# Claude Code's WebSearch result text: "Web search results for query: …\n\nLinks: [{…}]\n\n<what the
# search model wrote>". A search may have run more than once, each with its own "Links:" line.
_LINKS_LINE = re.compile(r"^Links: (?=\[)", re.MULTILINE)


def search_links(text: str) -> tuple[list[Link], str] | None:
    """The links of every ``Links: [...]`` line of a WebSearch result and the text
    without those lines; None when there is none to read (then the text is shown as is)."""
    links: list[Link] = []
    kept: list[str] = []
    position = 0
    decoder = json.JSONDecoder()
    for match in _LINKS_LINE.finditer(text):
        if match.start() < position:
            continue
        start = match.end()
        try:
            value, end = decoder.raw_decode(text[: start + MAX_LINKS_JSON], start)
        except ValueError:
            continue  # not JSON after all: left in the text
        if not isinstance(value, list):
            continue
        found = [link for link in map(_link, value[:MAX_ITEMS]) if link is not None]
        if not found and value:
            continue  # a list, but not of links
        links.extend(found)
        kept.append(text[position : match.start()])
        position = end
    if position == 0:
        return None
    kept.append(text[position:])
    return links, re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip("\n")


# Gemini CLI's google_web_search and web_fetch end their text with the sources the
# answer cites: "Sources:\n[1] Title (https://…)\n[2] …".
_SOURCES = re.compile(r"\n\s*Sources:\s*\n((?:\s*\[\d+\] .*(?:\n|$))+)\s*$")
_SOURCE = re.compile(r"\[\d+\] (.*?) \((\S+)\)\s*$")


def cited_sources(text: str) -> tuple[list[Link], str] | None:
    """The sources listed at the end of a Gemini search or fetch, and the text before
    them; None when the text ends with no such list."""
    match = _SOURCES.search(text[-200_000:]) if "Sources:" in text else None
    if match is None:
        return None
    links = []
    for line in match.group(1).strip().splitlines()[:MAX_ITEMS]:
        source = _SOURCE.match(line.strip())
        if source is None:
            return None  # a line we cannot read: the list is shown as written
        title, url = source.groups()
        links.append(Link(title.strip() or url, url, safe_href(url)))
    start = len(text) - len(text[-200_000:]) + match.start()
    return links, text[:start].rstrip()


def _paths(value: object) -> list[str] | None:
    if not isinstance(value, list) or not value:
        return None
    paths = [item for item in value[:MAX_ITEMS] if isinstance(item, str) and item]
    return paths if len(paths) == len(value[:MAX_ITEMS]) else None


# "Found 3 files" (Claude Grep), "Found 2 file(s) matching … :" (Gemini glob).
_FOUND_HEADER = re.compile(r"Found \d+ files?(?:\(s\))?(?: matching .*)?:?\s*$")
_LISTING_HEADER = re.compile(r"Directory listing for .*:\s*$")
_NOTE_LINE = re.compile(r"\(Results are truncated.*\)|\.\.\. and \d+ more.*")


def found_files(name: str, text: str, detail: Any) -> list[str] | None:
    """The paths a file search found, for the tools whose result is a list of files:
    Claude Code's Glob, and Grep listing files (its default mode), from the record's
    ``filenames``, else from the text; Gemini CLI's glob and list_directory, from the
    text after their first line. None when the result is not such a list (Grep's
    matching lines, a count, nothing found, an error): then it is shown as text."""
    if name in ("Glob", "Grep"):
        if isinstance(detail, dict):
            if name == "Grep" and detail.get("mode") not in (None, "files_with_matches"):
                return None
            return _paths(detail.get("filenames"))
        lines = [line for line in text.splitlines() if line.strip()]
        if name == "Grep":
            if not lines or not _FOUND_HEADER.match(lines[0]):
                return None
            lines = lines[1:]
        lines = [line for line in lines if not _NOTE_LINE.fullmatch(line.strip())]
        if not lines or any(line.startswith(("No files found", "No matches found")) for line in lines):
            return None
        return _paths(lines)
    if name in ("glob", "list_directory"):
        lines = [line for line in text.splitlines() if line.strip()]
        header = _FOUND_HEADER if name == "glob" else _LISTING_HEADER
        if len(lines) < 2 or not header.match(lines[0]):
            return None
        # list_directory marks folders "[DIR] name": shown as "name/", as a shell would.
        return _paths([line[6:] + "/" if line.startswith("[DIR] ") else line for line in lines[1:]])
    return None
