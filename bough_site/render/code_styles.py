"""The stylesheet of code blocks and diffs, made from two Pygments styles.

The page CSP forbids inline styles, so tokens get classes only and
:func:`stylesheet` provides the colours: light by default, dark under
``prefers-color-scheme: dark``.  :func:`visible_classes` says which classes
change how text looks, so the formatter (:mod:`.highlight`) wraps a token in a
span only when it shows.
"""

from __future__ import annotations

from functools import lru_cache

from pygments.formatters import HtmlFormatter
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"

# Classes the diff renderers use, one per line.
ADD, DEL, CTX, HUNK, FILE = "add", "del", "ctx", "hunk", "file"

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
def visible_classes() -> tuple[frozenset[str], frozenset[str]]:
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
