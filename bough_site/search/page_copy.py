"""What Pagefind reads: a copy of each page (:func:`pagefind_copy`).

Pagefind leaves out what is inside a data-pagefind-ignore element but must still
parse it. The copy Pagefind reads has those elements emptied (the element stays,
so the words on either side stay apart), and a collapsed block's preview too (the
block's first lines, again above the whole: macros.html). What a tool returned
(each data-bough-output element) becomes its plain text within the budget, and
every other code block its plain text (a highlighted block is a <span> per token;
docs/performance.md, Search). bough's HTML is well-formed and all text in it is
escaped (Jinja, Pygments and markdown-it turn < and > into entities, in attribute
values too; no inline script or style: the CSP forbids them), so counting the element's own start and end tags
from its start tag finds its end. Whatever is not plainly so is left whole:
leaving an element whole costs time, removing too much would lose words.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterator

from ..config import DEFAULT_SEARCH_LIMIT

IGNORE = b"data-pagefind-ignore"
# A start tag, to the first ">" outside a quoted attribute value: its name, then its attributes.
_START_TAG = re.compile(rb"""<([A-Za-z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""")
_ATTRIBUTE = re.compile(rb"""([^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?""")
# Elements without content or end tag.
_VOID = frozenset(b"area base br col embed hr img input link meta param source track wbr".split())


# The elements whose content the copy leaves out: (what their start tag holds, the
# attribute's name there).
_EMPTIED = ((IGNORE, IGNORE), (b'class="preview"', b"class"))
# A tool call's one line ends in its result's status and size ("exit 1 · 40 lines",
# tools/default.html's <small>): the same few words on every call, no word it said.
_TOOL_BRIEF = re.compile(rb"(<small>)[^<]*(</small>\s*</summary>)")


def output_chars(search_limit: int) -> int | None:
    """``--search-limit KB`` as the characters of each tool result indexed; None (0): all."""
    return search_limit * 1024 if search_limit > 0 else None


def pagefind_copy(page: bytes, chars: int | None = output_chars(DEFAULT_SEARCH_LIMIT)) -> bytes:
    """What Pagefind reads of ``page``: :func:`strip_ignored`, each tool's output as
    the first ``chars`` characters of its text (:func:`outputs_as_text`), code as
    plain text (:func:`code_as_text`), then :func:`before_body_trimmed`."""
    return before_body_trimmed(code_as_text(outputs_as_text(strip_ignored(page), chars)))


def strip_ignored(page: bytes) -> bytes:
    """``page`` with the content of every ``data-pagefind-ignore`` element removed,
    of every collapsed block's preview (``class="preview"``) and of each tool call's
    status (:data:`_TOOL_BRIEF`).

    Left whole: an element whose end is not found, a self-closing one (``<div/>``
    opens a div in HTML but closes one in SVG), and one holding another Pagefind
    attribute (a filter or metadata: Pagefind reads those even in ignored content)."""
    for marker, name in _EMPTIED:
        page = _emptied(page, marker, name)
    return _TOOL_BRIEF.sub(rb"\1\2", page) if b"<small>" in page else page


def _emptied(page: bytes, marker: bytes, name: bytes) -> bytes:
    """``page`` with the content of each element whose start tag has ``marker`` (in
    its attribute ``name``) removed."""
    parts = []
    done = 0  # page[:done] is in parts
    for tag, end in _marked(page, marker, name, _end_of):
        parts.append(page[done : tag.end()])
        done = end  # the end tag, kept; an ignored element inside went with the content
    parts.append(page[done:])
    return b"".join(parts)


def _marked(page: bytes, marker: bytes, name: bytes,
            end_of: Callable[[bytes, re.Match[bytes]], int | None]) -> Iterator[tuple[re.Match[bytes], int]]:
    """Each start tag in which ``marker`` begins the attribute ``name``, and where
    ``end_of`` says its content ends, in the page's order; one inside the content
    of another is not looked at, and one whose end is not found is passed over."""
    done = 0
    at = page.find(marker)
    while at >= 0:
        tag = _attribute_at(page, at, done)
        end = end_of(page, tag[0]) if tag is not None and tag[1] == name else None
        if tag is None or end is None:
            at = page.find(marker, at + len(marker))
            continue
        yield tag[0], end
        done = end
        at = page.find(marker, end)


# --- what a tool returned: its plain text, within the budget ------------------------------------
#
# Each data-bough-output element (blocks/tool_result.html) is replaced, in the copy,
# by a <pre> of its text: the first ``chars`` characters as the unfolded result
# shows them (its head and a collapsed block's preview left out), cut after the
# last whole word within them; an error's ("error") whole. Inline tags go without
# a trace (a highlighted token is one), any other tag is a line break (the words of
# two paragraphs stay apart). An output the page showed before (a file read again,
# a command run again) adds nothing: its words are in the index already, and
# Pagefind's time goes with the words it reads (docs/performance.md, Search). Text
# is escaped everywhere in bough's HTML, so every "<" starts a tag.

OUTPUT = b"data-bough-output"
_ERROR_OUTPUT = b'data-bough-output="error"'
_INLINE_TAG = re.compile(rb"</?(?:a|abbr|b|bdi|bdo|cite|code|data|del|dfn|em|i|ins|kbd|mark|q|s|samp|small|span"
                         rb"|strong|sub|sup|time|u|var|wbr)(?=[\s/>])[^>]*>", re.IGNORECASE)
_ANY_TAG = re.compile(rb"<[^>]*>")
_SPAN_TAG = re.compile(rb"<span(?:\s[^>]*)?>|</span>")  # the most of them: highlighted tokens
# An escaped line end or tab written out in text ("\n" in JSON or a log line): it
# would glue the words on either side into one ("name\nvalue" is indexed "namenvalue")
# and show as "\n" in an excerpt. Left as it is: a doubled backslash (a backslash),
# and one quoted on its own, which is code ('"\n".join(lines)'); bough's HTML writes
# quotes as &#34; and &#39;. The pattern begins with the backslash, and looks behind
# it from there: one that begins by looking behind is tried at every byte, and
# searched a whole page 36 times as slowly (docs/performance.md).
_ESCAPED_BREAK = re.compile(
    rb"""\\(?<!\\\\)(?<!&#34;\\)(?<!&#39;\\)(?<!&quot;\\)(?<!["']\\)[nrt](?!&#34;|&#39;|&quot;|["'])""")
# How much of an output's HTML is read at first for ``chars`` characters of text
# (highlighted HTML is two to four times its text); doubled until that is enough.
_HTML_PER_CHAR = 4


def outputs_as_text(page: bytes, chars: int | None) -> bytes:
    """``page`` with each tool output's content replaced by ``<pre>`` and its text,
    the first ``chars`` characters (None: all of it; an error's all of it), or
    nothing for an output whose text the page had before."""
    parts = []
    seen: set[bytes] = set()
    done = 0
    for tag, end in _marked(page, OUTPUT, OUTPUT, _div_end):
        whole = chars is None or _ERROR_OUTPUT in tag.group(0)
        text = output_text(page[tag.end() : end], None if whole else chars)
        key = hashlib.sha256(text).digest()
        parts += [page[done : tag.end()], b"<pre>", b"" if key in seen else text, b"</pre>"]
        seen.add(key)
        done = end
    parts.append(page[done:])
    return b"".join(parts)


def _div_end(page: bytes, tag: re.Match[bytes]) -> int | None:
    """Where the end tag of the ``<div>`` ``tag`` opens starts (None: not a div, or not
    plainly found). Output is most of a page's bytes: two ``find`` calls a nested
    div, not a regular expression over every tag; a comment (none in bough's HTML)
    hands it to :func:`_end_tag_of`."""
    if tag.group(1).lower() != b"div" or _self_closing(tag):
        return None
    depth, at = 1, tag.end()
    while True:
        close = page.find(b"</div>", at)
        if close < 0:
            return None
        opened = page.find(b"<div", at, close)
        while opened >= 0 and page[opened + 4 : opened + 5] not in (b" ", b">", b"\t", b"\n"):
            opened = page.find(b"<div", opened + 4, close)
        if opened >= 0:
            depth += 1
            at = opened + 4
            continue
        depth -= 1
        if depth == 0:
            return _end_tag_of(page, tag) if page.find(b"<!--", tag.end(), close) >= 0 else close
        at = close + 6


def output_text(fragment: bytes, chars: int | None) -> bytes:
    """The text of an output's HTML, still escaped: the first ``chars`` characters
    it shows (None: all), cut after the last whole word within them."""
    size = len(fragment) if chars is None else min(len(fragment), max(chars * _HTML_PER_CHAR, 4096))
    while True:
        text = _text_of(fragment if size >= len(fragment) else fragment[: max(fragment.rfind(b"<", 0, size), 0)])
        if chars is None or len(text) > chars or size >= len(fragment):
            break
        size *= 2
    if chars is None or len(text) <= chars:  # bytes: no fewer than the characters they show
        return text
    shown = text.decode("utf-8", "replace")
    return shown[: _cut(shown, chars)].encode("utf-8")


def _text_of(fragment: bytes) -> bytes:
    """The text some HTML shows (its ignored elements and previews already emptied:
    :func:`strip_ignored`), escaped as it is there, its tags gone (a line break for
    each that is no inline tag), blank lines dropped; never longer than the text it
    shows, up to any point (but for its entities)."""
    text = _ANY_TAG.sub(b"\n", _INLINE_TAG.sub(b"", _SPAN_TAG.sub(b"", fragment)))
    return _BLANK_LINES.sub(b"\n", _unescaped_breaks(text)).strip()


def _unescaped_breaks(text: bytes) -> bytes:
    """:data:`_ESCAPED_BREAK` as spaces (looked for only where there is a backslash:
    a pattern that starts by looking behind is slow to search)."""
    return _ESCAPED_BREAK.sub(b" ", text) if b"\\" in text else text


_BLANK_LINES = re.compile(rb"\n\s*\n")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _cut(text: str, chars: int) -> int:
    """Where escaped ``text`` is cut to show at most ``chars`` characters (an entity
    is one) and no word in part: after the last whitespace within them; in a single
    giant word, at the last character within them (never inside an entity)."""
    shown = done = 0  # text[:done] shows ``shown`` characters
    for entity in _ENTITY.finditer(text):
        gap = entity.start() - done
        if shown + gap >= chars:
            break  # the budget ends in the text before it
        shown += gap + 1
        done = entity.end()
        if shown >= chars:
            break
    end = min(len(text), done + max(0, chars - shown))
    if end >= len(text):
        return len(text)
    space = max(text.rfind(" ", 0, end + 1), text.rfind("\n", 0, end + 1), text.rfind("\t", 0, end + 1))
    return space if space > 0 else end


# --- code as plain text ---------------------------------------------------------------------------
#
# A highlighted block (a command, a file an agent wrote, a diff, code in a reply) is a
# <span> per token inside a <pre>, which Pagefind parses one by one for the same
# words: the copy keeps the <pre> and its text, without the spans (a <pre> holds
# no other element that splits a word), and writes escaped line ends as spaces.

_PRE_TAG = re.compile(rb"<pre[\s>]")


def code_as_text(page: bytes) -> bytes:
    """``page`` with every ``<pre>``'s spans removed and escaped line ends spaced."""
    parts = []
    done = 0
    at = _PRE_TAG.search(page)
    while at is not None:
        close = page.find(b"</pre>", at.start())
        if close < 0:
            break
        parts += [page[done : at.start()], _unescaped_breaks(_SPAN_TAG.sub(b"", page[at.start() : close]))]
        done = close
        at = _PRE_TAG.search(page, close)
    parts.append(page[done:])
    return b"".join(parts)


def _attribute_at(page: bytes, at: int, floor: int) -> tuple[re.Match[bytes], bytes] | None:
    """The start tag in which an attribute begins at ``at`` (not before ``floor``),
    and the attribute's name; None when the bytes there are text or part of a value."""
    lt = page.rfind(b"<", floor, at)
    tag = _START_TAG.match(page, lt) if lt >= 0 else None
    if tag is None or tag.end() <= at:
        return None
    offset = tag.start(2)
    for attribute in _ATTRIBUTE.finditer(tag.group(2)):
        if offset + attribute.start(1) == at:
            return tag, attribute.group(1)
    return None


def _empty_by_its_tag(tag: re.Match[bytes]) -> bool:
    """A void element or a self-closing tag: no content, no end tag to look for."""
    return tag.group(1).lower() in _VOID or _self_closing(tag)


def _self_closing(tag: re.Match[bytes]) -> bool:
    return tag.group(2).rstrip().endswith(b"/")


def _end_of(page: bytes, tag: re.Match[bytes]) -> int | None:
    """Where the end tag of ``tag``'s element starts, when its content may go."""
    if _empty_by_its_tag(tag):
        return None
    end = _end_tag_of(page, tag)
    return None if end is None or _holds_pagefind_attributes(page, tag.end(), end) else end


def _end_tag_of(page: bytes, tag: re.Match[bytes]) -> int | None:
    """Where the end tag of ``tag``'s element (not a void one) starts; None when not plainly found."""
    depth = 1
    for found in _tags_named(tag.group(1).lower()).finditer(page, tag.end()):
        if found.group(1) is None:
            continue  # a comment
        if found.group(1) == b"/":
            depth -= 1
            if depth == 0:
                return found.start()
            continue
        inner = _START_TAG.match(page, found.start())
        if inner is None or _self_closing(inner):
            return None  # not plainly a start tag
        depth += 1
    return None


# --- giving Pagefind less to read: before the body -------------------------------------------------------
#
# A page with a data-pagefind-body element has only that element's content
# indexed; outside it Pagefind reads the page's language (the <html> tag), the
# elements that carry a data-pagefind- attribute (the title's metadata, the
# filters) and, for its default metadata, the <title>, the first <h1> and <img>.
# The rest of what comes before the body (the head's links and scripts, the
# session's facts and figures, the navigation) it parses for nothing: much of a
# short session's copy, and of Pagefind's time (docs/performance.md). The copy
# keeps those, in the page's order, and the page from the body on as it is (the
# end of a body is found only by counting its elements, which costs more than
# the little after it saves). tests/test_search.py checks that every shard is
# the same bytes as one made from the whole pages.

BODY = b"data-pagefind-body"
_PAGEFIND = b"data-pagefind-"
_HTML_TAG = re.compile(rb"<!doctype[^>]*>\s*(<html\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>)", re.IGNORECASE)
_BODY_TAG = re.compile(rb"<body\b", re.IGNORECASE)


def before_body_trimmed(page: bytes) -> bytes:
    """``page`` with only what Pagefind reads before its first ``data-pagefind-body``
    element; ``page`` itself when it has none, or anything is not plainly so (an
    attribute of Pagefind's spelt in capitals, an element whose end is not found)."""
    html, body, first = _HTML_TAG.match(page), _BODY_TAG.search(page), _first_body(page)
    if html is None or body is None or first is None or body.start() > first \
            or page.count(_PAGEFIND, 0, first) != page[:first].lower().count(_PAGEFIND):
        return page
    starts = [*_tags_with(page, _PAGEFIND, first, exact=False)]
    starts += [found.start() for name in (b"title", b"h1", b"img")
               for found in _tags_named(name).finditer(page, 0, first) if found.group(1) == b""]
    head: list[bytes] = []
    rest: list[bytes] = []
    done = 0
    for start in sorted(starts):
        if start < done:
            continue  # inside an element already kept
        span = _element_span(page, start)
        if span is None or span[1] > first:
            return page  # its end not found, or the body inside it
        (head if start < body.start() else rest).append(page[start : span[1]])
        done = span[1]
    return b"".join([b"<!DOCTYPE html>\n", html.group(1), b"\n<head>\n", b"\n".join(head),
                     b"\n</head>\n<body>\n", b"\n".join(rest), b"\n", page[first:]])


def _first_body(page: bytes) -> int | None:
    """Where the start tag of the first element with ``data-pagefind-body`` begins."""
    return next(_tags_with(page, BODY, len(page), exact=True), None)


def _tags_with(page: bytes, attribute: bytes, end: int, *, exact: bool) -> Iterator[int]:
    """Where each start tag before ``end`` with an attribute named ``attribute``
    (or, not ``exact``, a name beginning with it) begins."""
    at = page.find(attribute, 0, end)
    while at >= 0:
        tag = _attribute_at(page, at, 0)
        if tag is not None and (tag[1] == attribute if exact else tag[1].startswith(attribute)):
            yield tag[0].start()
            at = tag[0].end()
        else:
            at += len(attribute)
        at = page.find(attribute, at, end)


def _element_span(page: bytes, start: int) -> tuple[int, int] | None:
    """The span of the element whose start tag begins at ``start``, to the end of its end tag."""
    tag = _START_TAG.match(page, start)
    if tag is None:
        return None
    if _empty_by_its_tag(tag):
        return start, tag.end()
    end = _end_tag_of(page, tag)
    if end is None:
        return None
    close = page.find(b">", end)
    return None if close < 0 else (start, close + 1)


@functools.lru_cache(maxsize=32)
def _tags_named(name: bytes) -> re.Pattern[bytes]:
    """Start and end tags of elements called ``name``, in any case, and comments (group 1 None)."""
    return re.compile(rb"<!--.*?-->|<(/?)" + re.escape(name) + rb"(?=[\s/>])", re.IGNORECASE | re.DOTALL)


def _holds_pagefind_attributes(page: bytes, start: int, end: int) -> bool:
    """Whether an element in page[start:end] has a ``data-pagefind-`` attribute other
    than ``data-pagefind-ignore`` (an ignored element inside goes with the rest)."""
    content = page[start:end].lower()  # attribute names are not case-sensitive
    at = content.find(_PAGEFIND)
    while at >= 0:
        found = _attribute_at(page, start + at, start)
        if found is not None and found[1].lower() != IGNORE:
            return True
        at = content.find(_PAGEFIND, at + 1)
    return False
