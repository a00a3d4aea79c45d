"""Collapsible blocks: highlighted code, diffs and Markdown, with the first lines
shown above a fold when long (what templates get as ``block``)."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from .formats import line_count
from .highlight import code_html, highlight, highlight_body
from .markdown import render_markdown


# Results and inputs longer than this are collapsed, the first lines left visible.
COLLAPSE_LINES = 14
COLLAPSE_CHARS = 2_400
PREVIEW_LINES = 6
# Diffs show whole up to this many lines, then collapse (no preview: a diff's
# first lines say little without the rest).
DIFF_COLLAPSE_LINES = 80


@dataclass
class Block:
    """A block of rendered content, with a preview when it is long.

    ``full`` is the whole block; ``preview`` (its first lines, rendered the same
    way) is shown above a ``<details>`` holding ``full`` when the block is long.
    """

    full: Markup
    lines: int = 0
    preview: Markup | None = None
    kind: str = "code"  # "code" | "diff" | "markdown": a class for the theme

    @property
    def collapsed(self) -> bool:
        return self.preview is not None


def code_block(text: str, *, kind: str, filename: str | None = None, language: str | None = None) -> Block:
    """Highlighted text, collapsed with its first lines visible when long.

    ``kind`` says who wrote it (``WRITTEN`` or ``OUTPUT``: see highlight.Budget).
    The preview is the first lines of the highlighted block itself (the
    formatter's HTML splits into lines at "\\n"), not a second lexing.
    """
    lines = line_count(text)
    body = highlight_body(text, kind=kind, filename=filename, language=language)
    full = code_html(body)
    if lines <= COLLAPSE_LINES and len(text) <= COLLAPSE_CHARS:
        return Block(full, lines)
    head = "\n".join(text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES])
    if len(head) > COLLAPSE_CHARS:
        preview = highlight(head[:COLLAPSE_CHARS] + "…", kind=kind, filename=filename, language=language)
    else:
        preview = code_html("\n".join(body.split("\n", PREVIEW_LINES)[:PREVIEW_LINES]))
    return Block(full, lines, preview)


def diff_block(full: Markup, lines: int) -> Block:
    """A diff, collapsed (without preview lines) when very long."""
    block = Block(full, lines, kind="diff")
    if lines > DIFF_COLLAPSE_LINES:
        block.preview = Markup("")
    return block


def markdown_block(text: str, doc_id: str) -> Block:
    """Markdown (a sub-agent's report, a plan, a fetched page), its first lines
    rendered too when collapsed, so it reads as what it is, not as its source
    (issue #36 point 6). A cut can end a list or table early, or leave a fence
    open (markdown-it closes it at the end): a preview, not the document."""
    full = render_markdown(text, doc_id)
    lines = line_count(text)
    if lines <= COLLAPSE_LINES and len(text) <= COLLAPSE_CHARS:
        return Block(full, lines, kind="markdown")
    head = "\n".join(text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES])[:COLLAPSE_CHARS]
    # Its own doc_id: footnote ids in the preview must not repeat the full text's.
    return Block(full, lines, render_markdown(head, f"{doc_id}-head"), kind="markdown")
