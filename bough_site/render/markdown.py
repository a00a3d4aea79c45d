"""Markdown from transcripts (prompts, replies, thinking) to safe HTML.

markdown-it-py with raw HTML off (docs/safety.md S4: the default and ``gfm-like``
presets let ``<script>`` through).  On top of that, every link target goes
through :func:`safe_href`, Markdown images become links (a remote image loads on
view and can carry secrets out in its URL), fenced code is highlighted only with
a known lexer, and table alignment becomes a class because the CSP forbids
``style`` attributes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.common.utils import unescapeAll
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from .highlight import highlight
from .highlight_budget import WRITTEN
from .lexer_choice import is_known_language
from .links import safe_href

LINK_REL = "noopener noreferrer nofollow"

# Table cells get style="text-align:…" from markdown-it; a strict CSP would
# block it, so it becomes one of these classes and the style is dropped.
_ALIGN_CLASS = {
    "text-align:left": "align-left",
    "text-align:right": "align-right",
    "text-align:center": "align-center",
}

# env key for the stack of open links: True if we emitted an <a>.
_LINKS = "bough_open_links"


# --- rules ----------------------------------------------------------------------


def _strip_styles(state: StateCore) -> None:
    """Core rule: no token keeps a ``style`` attribute (alignment → class)."""
    stack: list[Token] = list(state.tokens)
    while stack:
        token = stack.pop()
        if token.children:
            stack.extend(token.children)
        style = token.attrs.pop("style", None)
        if isinstance(style, str) and style in _ALIGN_CLASS:
            token.attrJoin("class", _ALIGN_CLASS[style])


def _link_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    href = safe_href(str(token.attrGet("href") or ""))
    env.setdefault(_LINKS, []).append(href is not None)
    if href is None:
        return ""  # not an allowed target: the link text stays, as plain text
    return _anchor_start(href, token.attrGet("title"))


def _link_close(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    stack = env.get(_LINKS) or [False]
    return "</a>" if stack.pop() else ""


def _anchor_start(href: str, title: object, css_class: str | None = None) -> str:
    parts = [f'<a href="{escape(href)}"']
    if css_class:
        parts.append(f' class="{css_class}"')
    if isinstance(title, str) and title:
        parts.append(f' title="{escape(title)}"')
    parts.append(f' rel="{LINK_REL}">')
    return "".join(parts)


def _image(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """An image never loads: a link to it with the alt text, or just the text."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    href = safe_href(str(token.attrGet("src") or ""))
    # Inside an <a> we already opened, another <a> would be invalid nesting.
    if href is None or any(env.get(_LINKS) or ()):
        return str(escape(alt or "image"))
    start = _anchor_start(href, token.attrGet("title"), css_class="image-link")
    return f"{start}{escape(alt or href)}</a>"


def _fence(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """Highlight when the info word is a known lexer alias; the info string is
    otherwise never put into the markup (no ``class="language-…"``)."""
    token = tokens[idx]
    info = unescapeAll(token.info).strip() if token.info else ""
    word = info.split(maxsplit=1)[0] if info else ""
    language = word if word and is_known_language(word) else None
    # Markdown is what a person or an agent wrote (prompts, replies, reports).
    return str(highlight(token.content, kind=WRITTEN, language=language)) + "\n"


def _code_block(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return str(highlight(tokens[idx].content, kind=WRITTEN)) + "\n"


def _build() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark", {"html": False})
        .enable(["table", "strikethrough"])
        .use(tasklists_plugin)
        .use(footnote_plugin)
    )
    # Let every link parse, and decide at render time with safe_href: unsafe
    # links then show their text instead of the raw "[x](…)" source.  Nothing
    # is emitted as an href without passing safe_href in _link_open/_image.
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    md.core.ruler.push("bough_strip_styles", _strip_styles)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("link_close", _link_close)
    md.add_render_rule("image", _image)
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _code_block)
    return md


_MD = _build()


# --- entry point ----------------------------------------------------------------

_ID_SAFE = re.compile(r"[^A-Za-z0-9_-]")


def _anchor_prefix(doc_id: str) -> str:
    """``doc_id`` as an id fragment: the footnote plugin pastes it into
    ``id``/``href`` attributes unescaped, so only [A-Za-z0-9_-] survive, with a
    short hash added when anything was dropped so two ids stay distinct."""
    cleaned = _ID_SAFE.sub("", doc_id)[:64]
    if cleaned == doc_id and cleaned:
        return cleaned
    digest = hashlib.sha256(doc_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned}-{digest}" if cleaned else digest


# --- prose without Markdown ---------------------------------------------------------

# Half the replies and thinking in real transcripts use no Markdown at all, and
# markdown-it costs ~0.3 ms a text whatever its size.  Such prose renders as
# its paragraphs: what markdown-it makes of it, exactly (tests/test_markdown.py
# compares the two on generated texts).  Anything that could mean more goes to
# markdown-it: these characters anywhere, ...
_NOT_PROSE = re.compile(
    r"[\\`*_\[\]<>&|~\t\r\x00\x0b\x0c]"
    # ... a line starting with whitespace (markdown-it strips it, Unicode spaces
    # too), a block marker or a list number, ...
    r"|^(?:[^\S\n]|[\-+#>=:]|\d+[.)])"
    # ... or ending with whitespace (two spaces are a hard break).
    r"|[^\S\n]$",
    re.MULTILINE,
)
_PARAGRAPHS = re.compile(r"\n{2,}")


def _prose(text: str) -> str | None:
    """HTML for text that holds no Markdown, as markdown-it would write it; None otherwise."""
    if _NOT_PROSE.search(text):
        return None
    paragraphs = (part for part in _PARAGRAPHS.split(text.strip("\n")) if part)
    # markdown-it escapes & < > and " (the first three cannot be here).
    return "".join(f"<p>{part.replace(chr(34), '&quot;')}</p>\n" for part in paragraphs)


# A line's block markers: a heading's #, a quote's >, a list item's bullet or number.
_BLOCK_MARKERS = re.compile(r"^(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+)+")
# Characters that may make an inline construct (emphasis, code, a link, an entity).
_INLINE_SYNTAX = re.compile(r"[\\`*_\[\]<>&~!]")


def _inline_text(tokens: Sequence[Token]) -> str:
    """What a reader sees of inline tokens: their text, code and image alt, no markers."""
    out = []
    for token in tokens:
        if token.type in ("text", "code_inline", "html_inline"):
            out.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif token.type == "image":
            out.append(_inline_text(token.children or []))
    return "".join(out)


def plain_line(line: str) -> str:
    """One line of Markdown as the text a reader sees: ``**Beginning the Build**`` →
    ``Beginning the Build``, ``## Plan`` → ``Plan``, a link → its text. For the
    one-line excerpts of folded blocks (a thinking summary), which are text, not markup."""
    if not isinstance(line, str):
        return ""
    line = _BLOCK_MARKERS.sub("", line.strip())
    if not _INLINE_SYNTAX.search(line):
        return line
    tokens = _MD.parseInline(line, {})
    return _inline_text(tokens[0].children or []).strip() if tokens else line


def render_markdown(text: str, doc_id: str) -> Markup:
    """Render transcript Markdown to HTML that is safe to put in a page.

    ``doc_id`` must be unique on the page (e.g. the message id): footnote ids
    are ``fn-<doc_id>-1`` and would clash between messages otherwise.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    prose = _prose(text)
    if prose is not None:
        return Markup(prose)
    env: EnvType = {"docId": _anchor_prefix(str(doc_id))}
    return Markup(_MD.render(text, env))
