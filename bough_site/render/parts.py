"""A session page split in parts: a part, which part holds each linked moment,
and the outline of every prompt linked from any part."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import Markup

from ..model import Image, Prompt, Session
from .page_links import link


@dataclass
class Part:
    """One page of a (possibly split) session."""

    path: str
    number: int
    chunks: list[Markup] = field(default_factory=list)
    size: int = 0


def linked_anchors(session: Session) -> set[str]:
    """The moments the summary links to: commits, edits, sub-agent runs, search items."""
    found = [c.get("anchor") for c in session.commits] + [a.get("anchor") for a in session.agents]
    found += [e.get("anchor") for change in session.file_changes for e in change.get("edits") or ()]
    found += [item[0] for item in session.search_items if item]
    return {anchor for anchor in found if isinstance(anchor, str) and anchor}


# An id attribute follows a space in its tag. Not written as a look-behind or a \b,
# which made the regex engine try every position of a part's megabytes
# (docs/performance.md): each match's previous character is checked.
_ELEMENT_ID = re.compile(r'id="([^"]+)"')


def anchor_parts(parts: list[Part], wanted: set[str]) -> dict[str, int]:
    """Which part (2, 3 ...) holds each wanted anchor that is not on the first
    page: the ids in each part's HTML (anchors are plain [A-Za-z0-9_-] text)."""
    found: dict[str, int] = {}
    for part in parts[1:]:
        for chunk in part.chunks:
            for match in _ELEMENT_ID.finditer(chunk):
                if match.group(1) in wanted and chunk[match.start() - 1 : match.start()].isspace():
                    found.setdefault(match.group(1), part.number)
    return found


# --- a session page's outline: every prompt, linked -------------------------------------

# An outline entry shows this many characters of its prompt.
OUTLINE_CHARS = 80


@dataclass(frozen=True)
class OutlineEntry:
    """A prompt as the outline lists it: its anchor, a short text, the link to it
    from the page that shows the outline, and the part of the session holding it."""

    anchor: str
    text: str
    href: str
    part: int
    here: bool  # on the page that shows the outline


def prompt_line(prompt: Prompt) -> str:
    """A prompt on one line: its first text's words, whitespace squeezed, cut to OUTLINE_CHARS."""
    for part in prompt.content:
        text = getattr(part, "text", None)
        if isinstance(text, str) and text.strip():
            words = " ".join(text.lstrip()[: OUTLINE_CHARS * 4].split())
            return words if len(words) <= OUTLINE_CHARS else words[: OUTLINE_CHARS - 1].rstrip() + "…"
    return "(image)" if any(isinstance(part, Image) for part in prompt.content) else "(no text)"


def session_prompts(session: Session, parts: list[Part]) -> list[tuple[str, str, int]]:
    """(anchor, text, part number) of every prompt of the session, in order: the
    parts hold a chunk per timeline item, in timeline order (Renderer._chunks)."""
    numbers = [part.number for part in parts for _ in part.chunks]
    return [(item.anchor, prompt_line(item), numbers[i] if i < len(numbers) else 1)
            for i, item in enumerate(session.timeline)
            if isinstance(item, Prompt) and isinstance(item.anchor, str) and item.anchor]


def outline(prompts: list[tuple[str, str, int]], parts: list[Part], part: Part) -> list[OutlineEntry]:
    """The outline as ``part``'s page shows it: a prompt on another part links to that part's page."""
    return [OutlineEntry(anchor, text, f"#{anchor}" if number == part.number
                         else f"{link(part.path, parts[number - 1].path)}#{anchor}", number, number == part.number)
            for anchor, text, number in prompts]
