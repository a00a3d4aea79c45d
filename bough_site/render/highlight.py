"""Code and diff rendering with Pygments, by file name or language alias only.

Why these choices:
- ``guess_lexer`` is never used: on real tool output it is often wrong (Python
  came back as SQL) and costs a pass over the text.  The lexer comes from the file
  name or an explicit alias, else the text is shown plain.
- Only Pygments' built-in lexers are looked up: the plugin scan reads every
  installed package's entry points (0.44 s per worker, and it imported IPython),
  and a third-party plugin could otherwise claim a file name.
- Lexing costs ~0.8 ms per KB of Python (2.4 ms in Pygments' own loop;
  :mod:`.lexing` tries only the rules that can match the next character) and
  plain escaping almost nothing, so each block has a budget (:class:`Budget`):
  what an agent wrote (``WRITTEN``) is highlighted for its first 64 KB, what it
  read or ran (``OUTPUT``) for its first 200 lines or 8 KB; the rest of the
  block follows as escaped plain text after a visible marker.  Nothing is cut.
  Who wrote a block is said by the caller (``kind``), never guessed here.
- A block is lexed once, ever: the highlighted HTML is kept in a
  content-addressed store (:mod:`.blockstore`) shared by every session and
  kept across builds, keyed by the text, the lexer and the highlighter's
  identity (:func:`_block_key`).
- The page CSP forbids inline styles, so tokens get classes only and
  :func:`stylesheet` provides the colours.
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
import fnmatch
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import PurePosixPath

import pygments
from markupsafe import Markup, escape
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_all_lexers
from pygments.lexers.special import RawTokenLexer, TextLexer
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token, _TokenType

from ..config import DEFAULT_HIGHLIGHT_LIMIT
from .blockstore import BlockStore
from .lexing import speed_up

try:
    # markupsafe's own C escaping, without the Markup object escape() wraps every
    # result in: 0.1 us a call against 1.7, for the formatter's ~300,000 runs a
    # project.  The same text comes out (tests/test_highlight.py).
    from markupsafe._speedups import _escape_inner as _escaped
except ImportError:  # a markupsafe without its C speedups, or before 3.0

    def _escaped(text: str) -> str:
        return str(escape(text))

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"

# Keys longer than this are not file names or aliases worth a lookup; they
# would only fill the lexer cache.
_MAX_KEY = 255

# Used only for its token type -> CSS class names (its _get_css_classes), so
# the classes are the ones HtmlFormatter would write.
_FORMATTER = HtmlFormatter(nowrap=True)

# RawTokenLexer reads token *types* from its input, which would become class
# names.  It has no alias or file pattern today; refuse it in case one is added.
# TextLexer is refused only because plain escaping gives the same text faster.
_REFUSED_LEXERS = (RawTokenLexer, TextLexer)


# --- lexer choice -----------------------------------------------------------


# Keep leading/trailing blank lines: the shown code must be the transcript's.
# ensurenl stays on because some lexers need it (the console lexer drops a last
# line without a newline); _highlighted removes the newline it adds.
_SETTINGS = {"stripnl": False, "stripall": False, "ensurenl": True}


def _configure(lexer: Lexer) -> Lexer:
    for name, value in _SETTINGS.items():
        setattr(lexer, name, value)
    return lexer


def _accepted(cls: type[Lexer]) -> type[Lexer] | None:
    """``cls``, unless it is one of the refused lexers (every lexer is chosen
    through here, by class)."""
    return None if issubclass(cls, _REFUSED_LEXERS) else cls


@lru_cache(maxsize=512)
def _instance(cls: type[Lexer]) -> Lexer:
    """A configured lexer of class ``cls`` (an accepted one). Made only when a
    block must be lexed: making one compiles its patterns (50 ms for Python's),
    which a build that finds its blocks in the store need not pay.  Its loop is
    :mod:`.lexing`'s where that applies: the same tokens, fewer failed matches."""
    return speed_up(_configure(cls()))


@lru_cache(maxsize=1)
def _builtin_lexers() -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """(name, aliases, file name patterns) of Pygments' own lexers, in its order."""
    return tuple(
        (name, tuple(aliases), tuple(patterns))
        for name, aliases, patterns, _mimetypes in get_all_lexers(plugins=False)
    )


@cache
def _glob(pattern: str) -> Callable[[str], re.Match[str] | None]:
    # How Pygments matches a file name pattern (case-sensitive fnmatch).
    return re.compile(fnmatch.translate(pattern)).match


def _filename_rank(match: tuple[type[Lexer], str]) -> tuple[float, str]:
    # Pygments' own ranking when no code is given: priority, half a point for a
    # pattern without "*" (e.g. "Makefile"), then the class name; the last wins.
    cls, pattern = match
    return cls.priority + (0.5 if "*" not in pattern else 0), cls.__name__


_Pattern = tuple[int, str, str]  # (place in Pygments' order, lexer name, pattern)


@dataclass(frozen=True)
class _PatternIndex:
    """Pygments' file name patterns, sorted by how they can be matched: most are
    ``*`` and a literal ending (``*.py``), found by looking the name's endings up;
    some are a literal name (``Makefile``); the few others are tried as globs."""

    endings: dict[str, list[_Pattern]]
    names: dict[str, list[_Pattern]]
    globs: list[_Pattern]

    def matches(self, basename: str) -> list[_Pattern]:
        found = list(self.names.get(basename, ()))
        for start in range(len(basename) + 1):
            found.extend(self.endings.get(basename[start:], ()))
        found.extend(entry for entry in self.globs if _glob(entry[2])(basename))
        found.sort()  # Pygments' order, as its own scan would list them
        return found


@lru_cache(maxsize=1)
def _pattern_index() -> _PatternIndex:
    index = _PatternIndex({}, {}, [])
    listed = ((name, pattern) for name, _aliases, patterns in _builtin_lexers() for pattern in patterns)
    for order, (name, pattern) in enumerate(listed):
        entry = (order, name, pattern)
        if not _GLOB_CHARS.intersection(pattern):
            index.names.setdefault(pattern, []).append(entry)
        elif pattern.startswith("*") and not _GLOB_CHARS.intersection(pattern[1:]):
            index.endings.setdefault(pattern[1:], []).append(entry)
        else:
            index.globs.append(entry)
    return index


_GLOB_CHARS = frozenset("*?[")


@lru_cache(maxsize=4096)  # a history names thousands of files
def _lexer_for_filename(basename: str) -> type[Lexer] | None:
    # What get_lexer_for_filename(basename) picks among built-in lexers (no
    # code given: no content guessing), without its plugin scan, and without
    # trying its ~1,500 patterns one by one (3 ms a name: a build's new process
    # meets about a hundred names).
    matches = [(find_lexer_class(name), pattern) for _order, name, pattern in _pattern_index().matches(basename)]
    if not matches:
        return None
    matches.sort(key=_filename_rank)  # stable, as in Pygments: ties keep its order
    return _accepted(matches[-1][0])


@lru_cache(maxsize=256)
def _lexer_for_language(alias: str) -> type[Lexer] | None:
    # What get_lexer_by_name(alias) picks: the first built-in lexer with the alias.
    wanted = alias.lower()
    for name, aliases, _patterns in _builtin_lexers():
        if wanted in aliases:
            return _accepted(find_lexer_class(name))
    return None


def _basename(filename: str) -> str:
    # Pygments matches patterns against the base name; keying the cache on it
    # keeps one entry per "*.py" style name rather than one per path.  Windows
    # separators are normalised because Codex sessions can come from Windows.
    return PurePosixPath(filename.replace("\\", "/")).name


def find_lexer(*, filename: str | None = None, language: str | None = None) -> Lexer | None:
    """The lexer for a file name (tried first) or a language alias, or None."""
    cls = lexer_class(filename=filename, language=language)
    return _instance(cls) if cls is not None else None


def lexer_class(*, filename: str | None = None, language: str | None = None) -> type[Lexer] | None:
    """The class of :func:`find_lexer`'s lexer, without making one."""
    if isinstance(filename, str) and filename:
        name = _basename(filename)
        if name and len(name) <= _MAX_KEY:
            lexer = _lexer_for_filename(name)
            if lexer is not None:
                return lexer
    if isinstance(language, str):
        alias = language.strip().lower()
        if alias and len(alias) <= _MAX_KEY:
            return _lexer_for_language(alias)
    return None


def is_known_language(language: str) -> bool:
    """True if ``language`` names a Pygments lexer we would highlight with."""
    return lexer_class(language=language) is not None


# --- the formatter ------------------------------------------------------------

# Token type -> (class for its text, class when its text is only whitespace);
# "" where a span would change nothing on screen.
_TOKEN_CLASSES: dict[_TokenType, tuple[str, str]] = {}


def _token_classes_for(ttype: _TokenType) -> tuple[str, str]:
    css = _FORMATTER._get_css_classes(ttype)  # "nf", or "n n-Foo" for a subtype
    shown, shown_on_space = _visible_classes()
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


# --- the budget -----------------------------------------------------------------

# Who wrote a block decides how much of it is highlighted (issue #12's rule):
WRITTEN = "written"  # text the agent or the person wrote: Write content, edits, commands, code in replies
OUTPUT = "output"  # what the agent read or ran: Read results, command and MCP output
KINDS = (WRITTEN, OUTPUT)

KB = 1024  # characters: budgets count characters, not encoded bytes
WRITTEN_KB = 64  # the budget of a block the agent wrote
LINES_PER_KB = 25  # tool output: N KB or N * 25 lines, whichever comes first (8 -> 200)


def _not_a_kind(kind: object) -> ValueError:
    return ValueError(f"a block is {' or '.join(KINDS)}, not {kind!r}")


@dataclass(frozen=True)
class Budget:
    """How much of a block is highlighted; None: all of it."""

    written_chars: int | None
    output_chars: int | None
    output_lines: int | None

    @classmethod
    def for_limit(cls, limit_kb: int) -> Budget:
        """``--highlight-limit N``: tool output is highlighted for its first N KB
        or N x 25 lines, whatever comes first; what an agent wrote for its first
        64 KB (or N KB when N is larger).  0: every block whole."""
        if limit_kb <= 0:
            return cls(None, None, None)
        return cls(max(WRITTEN_KB, limit_kb) * KB, limit_kb * KB, limit_kb * LINES_PER_KB)

    def split(self, code: str, kind: str) -> tuple[str, str]:
        """``code`` as (the part to highlight, the rest), cut at a line end when
        there is one within the budget."""
        if kind == OUTPUT:
            chars, lines = self.output_chars, self.output_lines
        elif kind == WRITTEN:
            chars, lines = self.written_chars, None
        else:
            raise _not_a_kind(kind)
        cut = len(code)
        if lines is not None:
            cut = min(cut, _after_lines(code, lines))
        if chars is not None and len(code) > chars:
            end = code.rfind("\n", 0, chars)
            # One giant line: cut at the budget itself.
            cut = min(cut, end + 1 if end >= 0 else chars)
        return code[:cut], code[cut:]


def _after_lines(code: str, lines: int) -> int:
    """Where line ``lines + 1`` starts (the length when there are no more lines)."""
    at = -1
    for _ in range(lines):
        at = code.find("\n", at + 1)
        if at < 0:
            return len(code)
    return at + 1


def plain_marker(line: int) -> str:
    """The visible note where highlighting stops.  Its text comes from the
    stylesheet (``content: "plain text from line " attr(data-line)``): it is
    shown, yet neither selected nor copied with the code, and no character of
    the block is left out."""
    return f'<span class="hl-plain" data-line="{line}"></span>'


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
        html = _highlighted(code, _instance(lexer))
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
            raise _not_a_kind(kind)
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
    # _configure sets the same three on each (spelt as when they were read off
    # an instance, so the keys of stores made before stay the same).
    settings = ([], _SETTINGS["stripnl"], _SETTINGS["stripall"], _SETTINGS["ensurenl"], 0)
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

# Classes the diff renderers use, one per line.
ADD, DEL, CTX, HUNK, FILE = "add", "del", "ctx", "hunk", "file"

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


# --- stylesheet -----------------------------------------------------------------

_DIFF_COLOURS = {
    # kind: (light background, light text, dark background, dark text); None: inherit
    ADD: ("#e6ffec", None, "#12261e", None),
    # Light: pale enough that every Pygments "default" token colour keeps 4.5:1 (WCAG AA).
    DEL: ("#fff7f6", None, "#25171c", None),
    HUNK: ("#ddf4ff", "#0a3069", "#121d2f", "#a5d6ff"),
    FILE: ("#eaeef2", "#1f2328", "#21262d", "#e6edf3"),
}

# Fallback text colours if a style sets none (the default style does not).
_BASE_TEXT = {LIGHT_STYLE: "#1f2328", DARK_STYLE: "#e6edf3"}


def _token_classes() -> list[tuple[str, object]]:
    """(css class, token type) for every token either style can emit, sorted;
    never an error token's. An error token is text the lexer could not place:
    most often valid code it does not know, or a file whose name says another
    language. The styles disagree on it (default: a red border, github-dark:
    red text), and either way a reader sees alarm where there is none, so it
    is shown as the text around it."""
    found: dict[str, object] = {}
    for name in (LIGHT_STYLE, DARK_STYLE):
        for ttype, cls in HtmlFormatter(style=name).ttype2class.items():
            if cls:
                found.setdefault(cls, ttype)
    for ttype, cls in STANDARD_TYPES.items():
        if cls:
            found.setdefault(cls, ttype)
    return sorted((cls, ttype) for cls, ttype in found.items() if ttype not in Token.Error)


def _resolved(style: type, ttype: object) -> dict:
    # A style only knows the token types it was built with (github-dark lacks
    # Generic.Underline); the nearest known parent is what Pygments would use.
    while not style.styles_token(ttype):
        ttype = ttype.parent  # type: ignore[attr-defined]
    return style.style_for_token(ttype)


# Token style property -> (CSS property, value when set, value when unset).
_PROPS = (
    ("color", "color", None, "inherit"),
    ("bgcolor", "background-color", None, "transparent"),
    ("bold", "font-weight", "bold", "normal"),
    ("italic", "font-style", "italic", "normal"),
    ("underline", "text-decoration", "underline", "none"),
)


def _declarations(style: type, ttype: object) -> dict[str, str]:
    """The CSS a style sets for a token type, only the non-default properties."""
    resolved = _resolved(style, ttype)
    out: dict[str, str] = {}
    for key, prop, on_value, _unset in _PROPS:
        value = resolved[key]
        if value:
            out[prop] = on_value or f"#{value}"
    return out


def _base_text(style_name: str) -> str:
    base = get_style_by_name(style_name).style_for_token(Token)
    return f"#{base['color']}" if base["color"] else _BASE_TEXT[style_name]


def _base_rule(style_name: str) -> str:
    style = get_style_by_name(style_name)
    return f".code {{ background-color: {style.background_color}; color: {_base_text(style_name)}; }}"


@lru_cache(maxsize=1)
def _class_rules() -> tuple[tuple[str, dict[str, str], dict[str, str]], ...]:
    """(class, light declarations, dark declarations) for every token class.
    A dark rule also resets every property the light rule set, so no light
    colour leaks into dark mode (github-dark has no rule for some classes the
    default style colours)."""
    light_style, dark_style = get_style_by_name(LIGHT_STYLE), get_style_by_name(DARK_STYLE)
    unset = {prop: value for _key, prop, _on, value in _PROPS}
    rules = []
    for cls, ttype in _token_classes():
        light = _declarations(light_style, ttype)
        dark = _declarations(dark_style, ttype)
        props = [prop for _key, prop, _on, _unset in _PROPS if prop in light or prop in dark]
        rules.append((cls, light, {p: dark.get(p, unset[p]) for p in props}))
    return tuple(rules)


def _token_rules() -> tuple[list[str], list[str]]:
    """Light and dark token rules."""
    light_rules, dark_rules = [], []
    for cls, light, dark in _class_rules():
        if light:
            light_rules.append(_rule(f".code .{cls}", light))
        if dark:
            dark_rules.append(_rule(f".code .{cls}", dark))
    return light_rules, dark_rules


def _ambient_colours(style_name: str, dark: bool) -> frozenset[str]:
    """Every text colour highlighted code can sit on: the block's, and that of
    the diff lines that hold highlighted code (none sets one today)."""
    lines = [_DIFF_COLOURS.get(kind, (None,) * 4)[3 if dark else 1] for kind in (ADD, DEL, CTX)]
    return frozenset(c.lower() for c in [_base_text(style_name), *lines] if c)


def _changes_look(prop: str, value: str, ambient: frozenset[str]) -> bool:
    """Whether a declaration makes a span look different from the text around it."""
    if prop == "color":
        return value != "inherit" and ambient != {value.lower()}
    return value != _UNSET[prop]


_UNSET = {prop: value for _key, prop, _on, value in _PROPS}


@lru_cache(maxsize=1)
def _visible_classes() -> tuple[frozenset[str], frozenset[str]]:
    """Classes whose rules change how text looks in either scheme, and those
    that change it for whitespace too (a colour alone does not show on a space)."""
    ambient = (_ambient_colours(LIGHT_STYLE, False), _ambient_colours(DARK_STYLE, True))
    shown, shown_on_space = set(), set()
    for cls, *schemes in _class_rules():
        changed = {p for decls, amb in zip(schemes, ambient) for p, v in decls.items() if _changes_look(p, v, amb)}
        if changed:
            shown.add(cls)
        if changed - {"color"}:
            shown_on_space.add(cls)
    return frozenset(shown), frozenset(shown_on_space)


def _rule(selector: str, declarations: dict[str, str]) -> str:
    body = " ".join(f"{prop}: {value};" for prop, value in declarations.items())
    return f"{selector} {{ {body} }}"


def _diff_rules(dark: bool) -> list[str]:
    rules = []
    for kind, colours in sorted(_DIFF_COLOURS.items()):
        background, text = colours[2:] if dark else colours[:2]
        colour = f" color: {text};" if text else ""
        rules.append(f".code .line.{kind} {{ background-color: {background};{colour} }}")
    return rules


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """CSS for code blocks and diffs: light by default, dark under
    ``prefers-color-scheme: dark``.  The same string on every call."""
    layout = [
        # One full-width row per diff line; inline-block keeps the "\n" between
        # lines from adding blank rows inside <pre>.
        ".code .line { display: inline-block; min-width: 100%; box-sizing: border-box; }",
        ".code .line.file { font-weight: bold; }",
        # A stripe marks added and removed lines: their backgrounds are pale for contrast.
        ".code .line.add { box-shadow: inset 3px 0 #2da44e; }",
        ".code .line.del { box-shadow: inset 3px 0 #cf222e; }",
        # Where the budget stops highlighting (plain_marker): a note on a line of
        # its own, not part of the code (neither selected nor copied).
        '.code .hl-plain::before { content: "plain text from line " attr(data-line); display: block;'
        " margin: 0.2em 0; border-top: 1px dashed currentColor; font-style: italic; color: #57606a;"
        " user-select: none; -webkit-user-select: none; }",
    ]
    light_tokens, dark_tokens = _token_rules()
    light = [_base_rule(LIGHT_STYLE), *light_tokens, *_diff_rules(dark=False)]
    marker = ".code .hl-plain::before { color: #8b949e; }"
    dark = [_base_rule(DARK_STYLE), *dark_tokens, *_diff_rules(dark=True), marker]
    indented = "\n".join("  " + rule for rule in dark)
    return "\n".join(
        ["/* bough code and diff styles (generated from Pygments " + f"{LIGHT_STYLE} / {DARK_STYLE}) */"]
        + layout
        + light
        + ["@media (prefers-color-scheme: dark) {", indented, "}"]
    ) + "\n"
