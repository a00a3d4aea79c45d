"""Code and diff rendering with Pygments, by file name or language alias only.

Why these choices:
- ``guess_lexer`` is never used: on real tool output it is often wrong (Python
  came back as SQL) and costs a pass over the text.  The lexer comes from the file
  name or an explicit alias, else the text is shown plain.
- Pygments takes about 1 s per MB, plain escaping about 3 ms, so highlighting is
  capped per block and the rest is escaped plain text.
- The page CSP forbids inline styles, so the formatter emits classes only and
  :func:`stylesheet` provides the colours.
- Pygments escapes what it formats; everything added here goes through
  ``markupsafe.escape``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import PurePosixPath

from markupsafe import Markup, escape
from pygments import highlight as _pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.lexers.special import RawTokenLexer, TextLexer
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token
from pygments.util import ClassNotFound

DEFAULT_CAP = 200_000
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"

# Keys longer than this are not file names or aliases worth a lookup; they
# would only fill the lexer cache.
_MAX_KEY = 255

# nowrap: we write the <pre><code> wrapper ourselves; classes only, no styles.
_FORMATTER = HtmlFormatter(nowrap=True)

# RawTokenLexer reads token *types* from its input and the formatter puts them
# into class attributes unescaped (measured: a class value containing `">`).
# It has no alias or file pattern today; refuse it in case a plugin adds one.
# TextLexer is refused only because plain escaping gives the same text faster.
_REFUSED_LEXERS = (RawTokenLexer, TextLexer)


# --- lexer choice -----------------------------------------------------------


def _configure(lexer: Lexer) -> Lexer | None:
    if isinstance(lexer, _REFUSED_LEXERS):
        return None
    # Keep leading/trailing blank lines: the shown code must be the transcript's.
    # ensurenl stays on because some lexers need it (the console lexer drops a
    # last line without a newline); _format removes the newline it adds.
    lexer.stripnl = False
    lexer.stripall = False
    lexer.ensurenl = True
    return lexer


@lru_cache(maxsize=256)
def _lexer_for_filename(basename: str) -> Lexer | None:
    try:
        lexer = get_lexer_for_filename(basename)  # no code given: no content guessing
    except ClassNotFound:
        return None
    return _configure(lexer)


@lru_cache(maxsize=256)
def _lexer_for_language(alias: str) -> Lexer | None:
    try:
        lexer = get_lexer_by_name(alias)
    except ClassNotFound:
        return None
    return _configure(lexer)


def _basename(filename: str) -> str:
    # Pygments matches patterns against the base name; keying the cache on it
    # keeps one entry per "*.py" style name rather than one per path.  Windows
    # separators are normalised because Codex sessions can come from Windows.
    return PurePosixPath(filename.replace("\\", "/")).name


def find_lexer(*, filename: str | None = None, language: str | None = None) -> Lexer | None:
    """The lexer for a file name (tried first) or a language alias, or None."""
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
    return find_lexer(language=language) is not None


# --- code blocks --------------------------------------------------------------


def _split_at_cap(code: str, cap: int) -> tuple[str, str]:
    """Split so the head is at most ``cap`` characters, at a line end if possible."""
    if len(code) <= cap:
        return code, ""
    cut = code.rfind("\n", 0, cap)
    # Ending on a line boundary keeps the last highlighted line whole; if there
    # is no newline in the head (one giant line), cut at the cap itself.
    cut = cut + 1 if cut >= 0 else cap
    return code[:cut], code[cut:]


def _format(code: str, lexer: Lexer | None) -> str:
    """Escaped HTML for ``code``, highlighted by ``lexer`` if there is one."""
    if lexer is None or not code:
        return str(escape(code))
    # Each distinct block is highlighted once per process: a file read again,
    # a resumed session's copied history (lexing is ~1 s per MB).
    key = (code, lexer) if len(code) >= _MEMO_MIN else None
    if key is not None and key in _MEMO:
        return _MEMO[key]
    html = _pygments_highlight(code, lexer, _FORMATTER)
    # The formatter ends every line, the last one included, with "\n" outside
    # any span; drop it when the source had no final newline.
    html = html if code.endswith(("\n", "\r")) else html.removesuffix("\n")
    if key is not None:
        global _memo_bytes
        if _memo_bytes + len(html) > _MEMO_BUDGET:
            _MEMO.clear()
            _memo_bytes = 0
        _MEMO[key] = html
        _memo_bytes += len(html)
    return html


_MEMO: dict[tuple[str, Lexer], str] = {}
_MEMO_MIN = 512  # smaller blocks cost less to highlight than to look up and keep
_MEMO_BUDGET = 32 << 20  # characters of HTML kept per process
_memo_bytes = 0


def highlight(
    code: str,
    *,
    filename: str | None = None,
    language: str | None = None,
    cap: int = DEFAULT_CAP,
) -> Markup:
    """``<pre class="code"><code>…</code></pre>`` for ``code``.

    The lexer comes from ``filename`` (e.g. ``x.py``, ``Dockerfile``) or the
    ``language`` alias (``bash``, ``json``, ``diff``...); otherwise plain text.
    Only the first ``cap`` characters are highlighted; the rest is escaped.
    """
    if not isinstance(code, str):
        code = "" if code is None else str(code)
    head, tail = _split_at_cap(code, max(cap, 0))
    body = _format(head, find_lexer(filename=filename, language=language))
    return Markup(f'<pre class="code"><code>{body}{escape(tail)}</code></pre>')


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
    return _line(kind, str(escape(text)))


def _split_lines(text: str) -> list[str]:
    # Pygments turns \r\n and \r into \n; splitting the same way keeps the
    # highlighted lines aligned with the diff's lines.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text:
        return []
    return text.removesuffix("\n").split("\n")


def _highlighted_lines(lines: list[str], lexer: Lexer | None) -> list[str] | None:
    """Each source line as escaped HTML, highlighted as one file when possible.

    Highlighting the whole side at once (not line by line) keeps multi-line
    strings and comments right; Pygments closes and reopens spans at each line
    end, so its output splits cleanly on "\\n".  Returns None to fall back to
    plain text when over the cap or when the line count does not match.
    """
    if lexer is None or not lines:
        return None
    text = "\n".join(lines)
    if len(text) > DEFAULT_CAP:
        return None
    out = _format(text, lexer).split("\n")
    return out if len(out) == len(lines) else None


def highlight_diff(old: str, new: str, *, filename: str | None = None) -> Markup:
    """Unified diff (3 lines of context) of ``old`` → ``new``, one span per line.

    With a ``filename`` Pygments knows, line contents are syntax-highlighted; the
    ``+``/``-``/`` `` marker stays plain.  An empty ``old`` shows every line added.
    Line endings are normalised, so a change of CRLF to LF alone shows no lines.
    """
    old_lines = _split_lines(old if isinstance(old, str) else "")
    new_lines = _split_lines(new if isinstance(new, str) else "")
    lexer = find_lexer(filename=filename)
    old_html = _highlighted_lines(old_lines, lexer)
    new_html = _highlighted_lines(new_lines, lexer)
    rendered: list[str] = []
    for group in _matcher(old_lines, new_lines).get_grouped_opcodes(3):
        rendered.append(_escaped_line(HUNK, _hunk_header(group)))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rendered.extend(_side(CTX, " ", old_lines, old_html, range(i1, i2)))
                continue
            if tag in ("replace", "delete"):
                rendered.extend(_side(DEL, "-", old_lines, old_html, range(i1, i2)))
            if tag in ("replace", "insert"):
                rendered.extend(_side(ADD, "+", new_lines, new_html, range(j1, j2)))
    return _diff_block(rendered)


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


def _side(kind: str, marker: str, lines: list[str], html: list[str] | None, idx: range) -> Iterator[str]:
    for i in idx:
        content = html[i] if html is not None else str(escape(lines[i]))
        yield _line(kind, marker + content)


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
    """(css class, token type) for every token either style can emit, sorted."""
    found: dict[str, object] = {}
    for name in (LIGHT_STYLE, DARK_STYLE):
        for ttype, cls in HtmlFormatter(style=name).ttype2class.items():
            if cls:
                found.setdefault(cls, ttype)
    for ttype, cls in STANDARD_TYPES.items():
        if cls:
            found.setdefault(cls, ttype)
    return sorted(found.items())


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


def _base_rule(style_name: str) -> str:
    style = get_style_by_name(style_name)
    base = style.style_for_token(Token)
    text = f"#{base['color']}" if base["color"] else _BASE_TEXT[style_name]
    return f".code {{ background-color: {style.background_color}; color: {text}; }}"


def _token_rules() -> tuple[list[str], list[str]]:
    """Light and dark token rules.  A dark rule also resets every property the
    light rule set, so no light colour leaks into dark mode (github-dark has no
    rule for some classes the default style colours)."""
    light_style, dark_style = get_style_by_name(LIGHT_STYLE), get_style_by_name(DARK_STYLE)
    unset = {prop: value for _key, prop, _on, value in _PROPS}
    light_rules, dark_rules = [], []
    for cls, ttype in _token_classes():
        light = _declarations(light_style, ttype)
        dark = _declarations(dark_style, ttype)
        if light:
            light_rules.append(_rule(f".code .{cls}", light))
        props = [prop for _key, prop, _on, _unset in _PROPS if prop in light or prop in dark]
        if props:
            dark_rules.append(_rule(f".code .{cls}", {p: dark.get(p, unset[p]) for p in props}))
    return light_rules, dark_rules


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
    ]
    light_tokens, dark_tokens = _token_rules()
    light = [_base_rule(LIGHT_STYLE), *light_tokens, *_diff_rules(dark=False)]
    dark = [_base_rule(DARK_STYLE), *dark_tokens, *_diff_rules(dark=True)]
    indented = "\n".join("  " + rule for rule in dark)
    return "\n".join(
        ["/* bough code and diff styles (generated from Pygments " + f"{LIGHT_STYLE} / {DARK_STYLE}) */"]
        + layout
        + light
        + ["@media (prefers-color-scheme: dark) {", indented, "}"]
    ) + "\n"
