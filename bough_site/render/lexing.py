"""Pygments' ``RegexLexer`` loop, trying only the rules that can match the next character.

Why: lexing tool output is the largest single cost of a cold build (issue #12:
a third of it on a history of real source code).  At each position Pygments
tries a state's rules in order until one matches; Python's root state has 54
rules, and most of those calls fail on the first character (``[0-9]`` on a
letter, a triple quote on a space).  Here each rule's possible first characters are
read once from its pattern, and at each position only the rules whose set holds
the next character are tried, in the same order.  The same tokens come out
(tests/test_lexing.py compares every built-in lexer with Pygments' own loop);
on the standard library's Python, three to four times faster.

How a rule's first characters are found (:func:`first_chars`): from the parsed
pattern (``re._parser``), for ASCII characters exactly, with one flag for "may
start with a non-ASCII character".  Anything not understood (``.``, a back
reference, a pattern that can match the empty string, case-insensitive
non-ASCII letters) makes the rule a candidate everywhere, so the set is always
a superset and the first rule that matches is the one Pygments would find.

When this is not used (the lexer keeps Pygments' loop): a lexer class with its
own ``get_tokens_unprocessed`` (``ExtendedRegexLexer``, C's, PHP's), a Pygments
whose loop is not the one mirrored here (:data:`_KNOWN_LOOPS`), or a Python
without ``re._parser``.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Callable, Iterator
from functools import cache, partial
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

try:  # private, but present in every Python bough supports (3.11+)
    from re import _constants as sre
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - a Python that moved them
    sre = sre_parse = None

# sha256 of the source of RegexLexer.get_tokens_unprocessed, the loop that
# _tokens mirrors: Pygments 2.17 (its assert message used %), 2.18 to 2.21.
# (First 16 hex digits.)  Another digest: leave the lexer to Pygments.
_KNOWN_LOOPS = frozenset({"fc06e8e2fbc9c2b7", "dda6229f98c72106"})

_ASCII = 128
_ALL_ASCII = frozenset(range(_ASCII))

Rule = tuple[Callable[..., Any], Any, Any]  # Pygments' (pattern.match, action, new state)


class First:
    """What a pattern's match can begin with: ``chars`` (ASCII code points),
    ``wide`` (some non-ASCII character) and ``empty`` (it can match nothing)."""

    __slots__ = ("chars", "wide", "empty")

    def __init__(self, chars: frozenset[int] = frozenset(), wide: bool = False, empty: bool = False) -> None:
        self.chars, self.wide, self.empty = chars, wide, empty


ANYWHERE = First(_ALL_ASCII, wide=True, empty=True)


@cache
def _category(category: object) -> frozenset[int] | None:
    spelt = {
        sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D",
        sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_NOT_SPACE: r"\S",
        sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
    }.get(category)
    if spelt is None:
        return None
    return frozenset(code for code in range(_ASCII) if re.match(spelt, chr(code)))


def _with_other_case(chars: set[int] | frozenset[int]) -> frozenset[int]:
    return frozenset(chars) | {ord(chr(code).swapcase()) for code in chars if chr(code).isalpha()}


def _charset(items: list[tuple[Any, Any]], icase: bool) -> First | None:
    """A character class (``[...]``, ``\\s``)."""
    chars: set[int] = set()
    wide, negate = icase, False
    for op, value in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL or op is sre.RANGE:
            low, high = (value, value) if op is sre.LITERAL else value
            chars.update(range(low, min(high, _ASCII - 1) + 1))
            if high >= _ASCII:
                if icase:  # a non-ASCII letter may fold to an ASCII one (K, ſ)
                    return None
                wide = True
        elif op is sre.CATEGORY:
            category = _category(value)
            if category is None:
                return None
            chars |= category
            wide = True
        else:
            return None
    folded = _with_other_case(chars) if icase else frozenset(chars)
    if negate:
        return First(_ALL_ASCII - folded, wide=True)
    return First(folded, wide=wide)


def _sequence(ops: Any, icase: bool) -> First | None:
    chars: set[int] = set()
    wide = False
    for op, value in ops:
        found = _op(op, value, icase)
        if found is None:
            return None
        chars |= found.chars
        wide |= found.wide
        if not found.empty:
            return First(frozenset(chars), wide)
    return First(frozenset(chars), wide, empty=True)


def _op(op: Any, value: Any, icase: bool) -> First | None:
    if op is sre.LITERAL:
        if value >= _ASCII:
            return None if icase else First(wide=True)
        return First(_with_other_case({value}) if icase else frozenset({value}), wide=icase)
    if op is sre.IN:
        return _charset(value, icase)
    if op is sre.BRANCH:
        alternatives = [_sequence(alternative, icase) for alternative in value[1]]
        if any(found is None for found in alternatives):
            return None
        return First(
            frozenset().union(*(found.chars for found in alternatives)),
            any(found.wide for found in alternatives),
            any(found.empty for found in alternatives),
        )
    if op is sre.SUBPATTERN:  # (group, flags on, flags off, pattern)
        _group, on, off, pattern = value
        icase = (icase or bool(on & re.IGNORECASE)) and not off & re.IGNORECASE
        return _sequence(pattern, icase)
    if op is sre.ATOMIC_GROUP:
        return _sequence(value, icase)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        least, most, pattern = value
        if most == 0:
            return First(empty=True)
        found = _sequence(pattern, icase)
        if found is None:
            return None
        return First(found.chars, found.wide, found.empty or least == 0)
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):  # zero width: look further
        return First(empty=True)
    return None  # ".", a back reference, a conditional: anything


def first_chars(pattern: re.Pattern[str]) -> First:
    """What a match of ``pattern`` can begin with (:data:`ANYWHERE` when it
    may be empty or is not understood)."""
    if pattern.flags & (re.ASCII | re.LOCALE) or not isinstance(pattern.pattern, str):
        return ANYWHERE
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - a pattern re compiled but we cannot parse: anything
        return ANYWHERE
    found = _sequence(parsed.data, bool(parsed.state.flags & re.IGNORECASE))
    return ANYWHERE if found is None or found.empty else found


class _State:
    """A state's rules by the character at the position: ``by_char`` for ASCII,
    ``wide`` for any other character, ``end`` at the end of the text."""

    __slots__ = ("by_char", "wide", "end")

    def __init__(self, rules: list[Rule]) -> None:
        firsts = [first_chars(rule[0].__self__) for rule in rules]
        self.by_char = {
            chr(code): tuple(rule for rule, found in zip(rules, firsts) if code in found.chars)
            for code in range(_ASCII)
        }
        self.wide = tuple(rule for rule, found in zip(rules, firsts) if found.wide)
        self.end = tuple(rule for rule, found in zip(rules, firsts) if found is ANYWHERE)


class _States(dict[str, _State]):
    """A lexer class's states, each narrowed the first time it is entered."""

    def __init__(self, tokendefs: dict[str, list[Rule]]) -> None:
        super().__init__()
        self.tokendefs = tokendefs

    def __missing__(self, name: str) -> _State:
        state = self[name] = _State(self.tokendefs[name])
        return state


# id(tokendefs) -> (tokendefs, its states).  Keyed by the rules, not the
# class: most classes keep them on the class, some per instance (C#'s, by
# Unicode level).  Holding tokendefs keeps its id from being reused.
_NARROWED: dict[int, tuple[dict[str, list[Rule]], _States]] = {}


def _states(tokendefs: dict[str, list[Rule]]) -> _States:
    found = _NARROWED.get(id(tokendefs))
    if found is None:
        found = _NARROWED[id(tokendefs)] = (tokendefs, _States(tokendefs))
    return found[1]


@cache
def _loop_is_known() -> bool:
    try:
        source = inspect.getsource(RegexLexer.get_tokens_unprocessed)
    except (OSError, TypeError):
        return False
    return hashlib.sha256(source.encode()).hexdigest()[:16] in _KNOWN_LOOPS


def _rules_are_patterns(tokendefs: object) -> bool:
    return isinstance(tokendefs, dict) and all(
        isinstance(rules, list)
        and all(
            isinstance(rule, tuple) and len(rule) == 3 and isinstance(getattr(rule[0], "__self__", None), re.Pattern)
            for rule in rules
        )
        for rules in tokendefs.values()
    )


def speed_up(lexer: Lexer) -> Lexer:
    """``lexer``, lexing through :func:`_tokens` when its class runs Pygments'
    own ``RegexLexer`` loop (the same tokens, faster); otherwise unchanged."""
    cls = type(lexer)
    if (
        sre_parse is not None
        and isinstance(lexer, RegexLexer)
        and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        and _loop_is_known()
        and _rules_are_patterns(getattr(lexer, "_tokens", None))
    ):
        # An attribute of the instance: Lexer.get_tokens and using(this) call
        # self.get_tokens_unprocessed, so both come here.
        lexer.get_tokens_unprocessed = partial(_tokens, lexer, _states(lexer._tokens))  # type: ignore[method-assign]
    return lexer


def _tokens(lexer: RegexLexer, states: _States, text: str, stack: tuple[str, ...] = ("root",)) -> Iterator[tuple[int, Any, str]]:
    """RegexLexer.get_tokens_unprocessed, step for step, but at each position
    only the rules that can match the character there are tried."""
    pos = 0
    size = len(text)
    statestack = list(stack)
    state = states[statestack[-1]]
    while 1:
        rules = state.by_char.get(text[pos], state.wide) if pos < size else state.end
        for rexmatch, action, new_state in rules:
            m = rexmatch(text, pos)
            if m:
                if action is not None:
                    if type(action) is _TokenType:
                        yield pos, action, m.group()
                    else:
                        yield from action(lexer, m)
                pos = m.end()
                if new_state is not None:
                    # state transition
                    if isinstance(new_state, tuple):
                        for name in new_state:
                            if name == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif name == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(name)
                    elif isinstance(new_state, int):
                        # pop, but keep at least one state on the stack
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    else:
                        raise AssertionError(f"wrong state def: {new_state!r}")
                    state = states[statestack[-1]]
                break
        else:
            # No rule matched: as Pygments does, a newline resets to "root",
            # any other character is an Error token, the end of the text stops.
            if pos >= size:
                break
            if text[pos] == "\n":
                statestack = ["root"]
                state = states["root"]
                yield pos, Whitespace, "\n"
            else:
                yield pos, Error, text[pos]
            pos += 1
