"""Code and diff rendering with Pygments: blocks and diffs as escaped HTML.

Why these choices:
- The lexer comes from the file name or a language alias, never a guess
  (:mod:`.lexer_choice`); how much of a block is highlighted is its budget
  (:mod:`.highlight_budget`); the colours are :mod:`.code_styles`' stylesheet.
- A block is lexed once, ever: the highlighted HTML is kept in a
  content-addressed store (:mod:`.blockstore`) shared by every session and
  kept across builds, keyed by the text, the lexer and the highlighter's
  identity (:func:`_block_key`).
- The page CSP forbids inline styles, so tokens get classes only and
  :func:`.code_styles.stylesheet` provides the colours.
- Our own formatter, not ``HtmlFormatter``: it wraps a token in a span only when
  the stylesheet makes it look different from plain text (a Python ``Name`` is
  coloured like the text around it, yet was a span per identifier), and merges
  neighbours of the same class.  A theme that styles Pygments classes itself
  therefore sees only the classes our stylesheet colours.
- Everything is escaped with ``markupsafe.escape``.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache

import pygments
from markupsafe import Markup, escape
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.token import _TokenType

from ..config import DEFAULT_HIGHLIGHT_LIMIT
from .blockstore import BlockStore
from .code_styles import ADD, CTX, DEL, FILE, HUNK, stylesheet, visible_classes
from .highlight_budget import KINDS, WRITTEN, Budget, not_a_kind, plain_marker
from .lexer_choice import SETTINGS, configured, lexer_class

try:
    # markupsafe's own C escaping, without the Markup object escape() wraps every
    # result in: 0.1 us a call against 1.7, for the formatter's ~300,000 runs a
    # project.  The same text comes out (tests/test_highlight.py).
    from markupsafe._speedups import _escape_inner as _escaped
except ImportError:  # a markupsafe without its C speedups, or before 3.0

    def _escaped(text: str) -> str:
        return str(escape(text))

# Used only for its token type -> CSS class names (its _get_css_classes), so
# the classes are the ones HtmlFormatter would write.
_FORMATTER = HtmlFormatter(nowrap=True)


# --- the formatter ------------------------------------------------------------

# Token type -> (class for its text, class when its text is only whitespace);
# "" where a span would change nothing on screen.
_TOKEN_CLASSES: dict[_TokenType, tuple[str, str]] = {}


def _token_classes_for(ttype: _TokenType) -> tuple[str, str]:
    css = _FORMATTER._get_css_classes(ttype)  # "nf", or "n n-Foo" for a subtype
    shown, shown_on_space = visible_classes()
    names = css.split()
    classes = (
        css if any(n in shown for n in names) else "",
        css if any(n in shown_on_space for n in names) else "",
    )
    _TOKEN_CLASSES[ttype] = classes
    return classes


def _run_html(cls: str, text: str) -> str:
    """Escaped ``text``, in a span of class ``cls`` if any, closed and reopened
    at every "\\n" so the HTML splits into lines as the text does (the diff
    renderer relies on it); an empty line gets no span."""
    text = _escaped(text)
    if not cls:
        return text
    if "\n" not in text:
        return f'<span class="{cls}">{text}</span>'
    return "\n".join(f'<span class="{cls}">{line}</span>' if line else "" for line in text.split("\n"))


def _token_html(code: str, lexer: Lexer) -> str:
    """``code`` lexed and written as HTML, adjacent tokens of one class in one run.

    get_tokens keeps Pygments' preprocessing (\\r\\n to \\n, the final newline).
    """
    known = _TOKEN_CLASSES
    out: list[str] = []
    add = out.append  # this loop runs once per token: ~1.4 M for 3.6 MB of Python
    run: list[str] = []
    run_cls = ""
    for ttype, value in lexer.get_tokens(code):
        cls, space_cls = known.get(ttype) or _token_classes_for(ttype)
        if cls != space_cls and value.isspace():
            cls = space_cls
        if cls != run_cls:
            if run:
                add(_run_html(run_cls, "".join(run)))
            run = [value]
            run_cls = cls
        else:
            run.append(value)
    if run:
        add(_run_html(run_cls, "".join(run)))
    return "".join(out)


# --- code blocks --------------------------------------------------------------


def _highlighted(code: str, lexer: Lexer) -> str:
    html = _token_html(code, lexer)
    # The lexer ends the text with "\n" (ensurenl), which the runs leave outside
    # any span; drop it when the source had no final newline.
    return html if code.endswith(("\n", "\r")) else html.removesuffix("\n")


@dataclass
class _Rendering:
    """What highlighting uses while a page is rendered (:func:`highlighting`)."""

    budget: Budget
    store: BlockStore
    used: set[bytes] = field(default_factory=set)


# Outside highlighting(): the default budget, and a store in this process's memory.
_DEFAULT = _Rendering(Budget.for_limit(DEFAULT_HIGHLIGHT_LIMIT), BlockStore(None))
_ACTIVE: ContextVar[_Rendering] = ContextVar("bough_highlighting", default=_DEFAULT)

@contextlib.contextmanager
def highlighting(*, limit_kb: int = DEFAULT_HIGHLIGHT_LIMIT, store: BlockStore | None = None) -> Iterator[set[bytes]]:
    """While active, blocks are highlighted within ``Budget.for_limit(limit_kb)``
    and looked up in (and added to) ``store``; yields the set of the keys of the
    stored blocks used meanwhile (what :meth:`BlockStore.record` keeps)."""
    rendering = _Rendering(Budget.for_limit(limit_kb), store if store is not None else _DEFAULT.store)
    token = _ACTIVE.set(rendering)
    try:
        yield rendering.used
    finally:
        _ACTIVE.reset(token)


def _format(code: str, lexer: type[Lexer] | None) -> str:
    """Escaped HTML for ``code``, highlighted by ``lexer`` if there is one.

    Every block is looked up in the active store (every block any session
    used, across builds) and lexed only when it is not there: even a one-line
    command is worth it (lexing it costs ~120 us, Pygments' fixed cost; a
    lookup ~27 us, measured).
    """
    if lexer is None or not code:
        return _escaped(code)
    rendering = _ACTIVE.get()
    key = _block_key(code, lexer)
    rendering.used.add(key)
    html = rendering.store.get(key)
    if html is None:
        html = _highlighted(code, configured(lexer))
        rendering.store.add(key, html)
    return html


def highlight_body(
    code: str, *, kind: str, filename: str | None = None, language: str | None = None
) -> str:
    """The HTML inside ``<code>`` for ``code`` (see :func:`highlight`)."""
    if not isinstance(code, str):
        code = "" if code is None else str(code)
    lexer = lexer_class(filename=filename, language=language)
    if lexer is None:
        if kind not in KINDS:
            raise not_a_kind(kind)
        return _escaped(code)
    head, tail = _ACTIVE.get().budget.split(code, kind)
    body = _format(head, lexer)
    if not tail:
        return body
    return f"{body}{plain_marker(head.count(chr(10)) + 1)}{_escaped(tail)}"


def code_html(body: str) -> Markup:
    """A code block's element around the HTML :func:`highlight_body` made."""
    return Markup(f'<pre class="code"><code>{body}</code></pre>')


def highlight(
    code: str, *, kind: str, filename: str | None = None, language: str | None = None
) -> Markup:
    """``<pre class="code"><code>…</code></pre>`` for ``code``.

    The lexer comes from ``filename`` (e.g. ``x.py``, ``Dockerfile``) or the
    ``language`` alias (``bash``, ``json``, ``diff``...); otherwise plain text.
    ``kind`` says who wrote the text (``WRITTEN`` or ``OUTPUT``), which decides
    how much of it is highlighted (:class:`Budget`); past that, the block goes
    on as escaped plain text after a visible marker (:func:`plain_marker`).
    """
    return code_html(highlight_body(code, kind=kind, filename=filename, language=language))


# --- what a stored block's key covers -------------------------------------------------

# Bump when _format's output for the same tokens changes (the stylesheet and
# markupsafe's escaping are covered by a digest, lexers by Pygments' version).
FORMAT = 1


@lru_cache(maxsize=1)
def _identity() -> bytes:
    """The highlighter's identity: our format, Pygments' version, and a digest
    of everything else the HTML depends on (the stylesheet decides which
    classes get spans; markupsafe does the escaping)."""
    looks = hashlib.blake2b(digest_size=8)
    looks.update(stylesheet().encode())
    looks.update(_escaped("&<>\"'").encode())
    return f"bough-highlight/{FORMAT} pygments/{pygments.__version__} {looks.hexdigest()}\0".encode()


@lru_cache(maxsize=512)
def _lexer_identity(cls: type[Lexer]) -> bytes:
    # Its class and settings decide a lexer's tokens: we pass no options, and
    # lexer_choice._configure sets the same three on each (spelt as when they were read off
    # an instance, so the keys of stores made before stay the same).
    settings = ([], SETTINGS["stripnl"], SETTINGS["stripall"], SETTINGS["ensurenl"], 0)
    return f"{cls.__module__}.{cls.__qualname__}\0{settings!r}\0".encode()


def _block_key(code: str, lexer: type[Lexer]) -> bytes:
    """Digest of what decides a block's HTML: the highlighter, the lexer's class
    and options, the code."""
    digest = hashlib.blake2b(_identity(), digest_size=16)
    digest.update(_lexer_identity(lexer))
    # surrogatepass: a lone surrogate from a transcript must not raise here.
    digest.update(code.encode("utf-8", "surrogatepass"))
    return digest.digest()


# --- diffs --------------------------------------------------------------------

_MARKER_CLASS = {"+": ADD, "-": DEL, " ": CTX}


def _line(kind: str, html: str) -> str:
    """One diff line; ``html`` must already be escaped."""
    return f'<span class="line {kind}">{html}</span>'


def _diff_block(lines: Iterable[str]) -> Markup:
    # Lines are joined by "\n" so copying the text gives a normal diff.
    return Markup('<pre class="code diff"><code>' + "\n".join(lines) + "</code></pre>")


def _escaped_line(kind: str, text: str) -> str:
    return _line(kind, _escaped(text))


def _split_lines(text: str) -> list[str]:
    # Pygments turns \r\n and \r into \n; splitting the same way keeps the
    # highlighted lines aligned with the diff's lines.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text:
        return []
    return text.removesuffix("\n").split("\n")


def _highlighted_lines(lines: list[str], lexer: type[Lexer] | None) -> tuple[list[str], int] | None:
    """Each source line as escaped HTML, highlighted as one file when possible,
    and the index of the first line left plain by the budget (``len(lines)``
    when none is).

    Highlighting the whole side at once (not line by line) keeps multi-line
    strings and comments right; our formatter closes and reopens spans at each
    line end, so its output splits cleanly on "\\n".  An edit is text the agent
    wrote: the ``WRITTEN`` budget applies to each side.  Returns None to fall
    back to plain text when there is no lexer or the line count does not match.
    """
    if lexer is None or not lines:
        return None
    text = "\n".join(lines)
    head, _tail = _ACTIVE.get().budget.split(text + "\n", WRITTEN)
    shown = head.count("\n")  # whole lines only: a cut inside a line leaves it plain
    if not shown:
        return [_escaped(line) for line in lines], 0
    out = _format("\n".join(lines[:shown]), lexer).split("\n")
    if len(out) != shown:
        return None
    return out + [_escaped(line) for line in lines[shown:]], shown


def highlight_diff(old: str, new: str, *, filename: str | None = None) -> Markup:
    """Unified diff (3 lines of context) of ``old`` → ``new``, one span per line.

    With a ``filename`` Pygments knows, line contents are syntax-highlighted
    (each side within the ``WRITTEN`` budget; the first line shown past it
    carries the marker); the ``+``/``-``/`` `` marker stays plain.  An empty
    ``old`` shows every line added.  Line endings are normalised, so a change of
    CRLF to LF alone shows no lines.
    """
    old_lines = _split_lines(old if isinstance(old, str) else "")
    new_lines = _split_lines(new if isinstance(new, str) else "")
    lexer = lexer_class(filename=filename)
    old_side = _Side(old_lines, _highlighted_lines(old_lines, lexer))
    new_side = _Side(new_lines, _highlighted_lines(new_lines, lexer))
    rendered: list[str] = []
    for group in _matcher(old_lines, new_lines).get_grouped_opcodes(3):
        rendered.append(_escaped_line(HUNK, _hunk_header(group)))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rendered.extend(old_side.lines(CTX, " ", range(i1, i2)))
                continue
            if tag in ("replace", "delete"):
                rendered.extend(old_side.lines(DEL, "-", range(i1, i2)))
            if tag in ("replace", "insert"):
                rendered.extend(new_side.lines(ADD, "+", range(j1, j2)))
    return _diff_block(rendered)


class _Side:
    """One side of a diff: its lines as HTML, and where the budget left them plain."""

    def __init__(self, lines: list[str], highlighted: tuple[list[str], int] | None) -> None:
        self.text = lines
        self.html, self.plain_from = highlighted if highlighted is not None else (None, len(lines))
        self.marked = False

    def lines(self, kind: str, marker: str, idx: range) -> Iterator[str]:
        for i in idx:
            content = self.html[i] if self.html is not None else _escaped(self.text[i])
            note = ""
            if i >= self.plain_from and not self.marked:
                note, self.marked = plain_marker(i + 1), True
            yield _line(kind, note + marker + content)


# Line pairs above which difflib is not used: on crafted input (20,000 lines of
# 150 values each repeated) SequenceMatcher took 62 s; at 1000 x 1000 it stays
# in milliseconds.
_DIFF_BUDGET = 1_000_000


class _PrefixSuffixMatcher(difflib.SequenceMatcher):
    """A linear-time diff for large inputs: the common first and last lines are
    context, everything between is one replacement.  Still a correct diff (the
    usual "small edit in a big file" comes out the same), just not minimal."""

    def get_opcodes(self) -> list[tuple[str, int, int, int, int]]:
        a, b = self.a, self.b
        limit = min(len(a), len(b))
        head = 0
        while head < limit and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        a_end, b_end = len(a) - tail, len(b) - tail
        ops: list[tuple[str, int, int, int, int]] = []
        if head:
            ops.append(("equal", 0, head, 0, head))
        if a_end > head or b_end > head:
            tag = "replace" if a_end > head and b_end > head else ("delete" if a_end > head else "insert")
            ops.append((tag, head, a_end, head, b_end))
        if tail:
            ops.append(("equal", a_end, len(a), b_end, len(b)))
        return ops


def _matcher(old_lines: list[str], new_lines: list[str]) -> difflib.SequenceMatcher:
    if len(old_lines) * len(new_lines) <= _DIFF_BUDGET:
        return difflib.SequenceMatcher(None, old_lines, new_lines)
    return _PrefixSuffixMatcher(None, old_lines, new_lines)


def _hunk_header(group: list[tuple[str, int, int, int, int]]) -> str:
    """``@@ -a,b +c,d @@`` in the format difflib.unified_diff writes."""
    first, last = group[0], group[-1]
    return f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"


def _range(start: int, stop: int) -> str:
    # Same rules as difflib's private _format_range_unified.
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _int(value: object) -> int | None:
    # bool is an int subclass; "true" is not a line number.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _structured_header(hunk: dict) -> str:
    nums = [_int(hunk.get(k)) for k in ("oldStart", "oldLines", "newStart", "newLines")]
    if any(n is None for n in nums):
        return "@@"
    return f"@@ -{nums[0]},{nums[1]} +{nums[2]},{nums[3]} @@"


def highlight_hunks(hunks: list[dict]) -> Markup:
    """Render Claude's ``structuredPatch`` hunks; anything malformed is skipped."""
    rendered: list[str] = []
    for hunk in hunks if isinstance(hunks, list) else ():
        if not isinstance(hunk, dict):
            continue
        rendered.append(_escaped_line(HUNK, _structured_header(hunk)))
        lines = hunk.get("lines")
        for text in lines if isinstance(lines, list) else ():
            if isinstance(text, str):
                # "\ No newline at end of file" and anything unexpected: context.
                rendered.append(_escaped_line(_MARKER_CLASS.get(text[:1], CTX), text))
    return _diff_block(rendered)


# --- raw unified diffs and Codex apply_patch bodies ---------------------------

_UNIFIED_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")

# Lines that describe files rather than content, outside a hunk body.
_GIT_HEADERS = (
    "diff ", "--- ", "+++ ", "index ", "new file mode", "deleted file mode",
    "old mode", "new mode", "similarity index", "dissimilarity index",
    "rename from", "rename to", "copy from", "copy to", "Binary files",
)


class _PatchState:
    """Where we are in a patch, so a deleted line "-- x" is not taken for "--- x".

    ``old``/``new`` count the lines still owed by a numbered unified hunk;
    ``open_body`` is set inside a Codex section or an unnumbered ``@@`` hunk,
    whose bodies end only at the next ``***``/``@@`` line.
    """

    def __init__(self) -> None:
        self.old = 0
        self.new = 0
        self.open_body = False

    def in_counted_hunk(self) -> bool:
        return self.old > 0 or self.new > 0

    def classify(self, line: str) -> str:
        if self.in_counted_hunk() and line[:1] in ("+", "-", " ", "\\", ""):
            return self._counted_body(line)
        self.old = self.new = 0
        if line.startswith("@@"):
            return self._hunk(line)
        if line.startswith("*** "):
            # Codex: Begin/End Patch, Update/Add/Delete File, Move to, End of File.
            self.open_body = line.startswith(("*** Update File:", "*** Add File:"))
            return FILE
        if not self.open_body and line.startswith(_GIT_HEADERS):
            return FILE
        return _MARKER_CLASS.get(line[:1], CTX)

    def _counted_body(self, line: str) -> str:
        kind = _MARKER_CLASS.get(line[:1], CTX)
        if kind in (DEL, CTX) and line[:1] != "\\":
            self.old -= 1
        if kind in (ADD, CTX) and line[:1] != "\\":
            self.new -= 1
        return kind

    def _hunk(self, line: str) -> str:
        match = _UNIFIED_HUNK.match(line)
        if match:
            self.old = int(match.group(1) or 1)
            self.new = int(match.group(2) or 1)
            self.open_body = False
        else:
            self.open_body = True  # Codex "@@" or "@@ def f():": counts unknown
        return HUNK


def highlight_patch(patch: str) -> Markup:
    """Render a raw unified diff or a Codex ``apply_patch`` body, one span per line.

    File headers (``diff --git``, ``---``/``+++``, ``*** Update File:`` …) are
    classed ``file``, ``@@`` lines ``hunk``, then ``add``/``del``/``ctx``.
    """
    if not isinstance(patch, str):
        return _diff_block(())
    state = _PatchState()
    return _diff_block(_escaped_line(state.classify(line), line) for line in _split_lines(patch))
