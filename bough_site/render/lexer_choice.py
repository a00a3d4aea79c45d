"""Which Pygments lexer highlights a block: by file name or language alias only.

Why these choices:
- ``guess_lexer`` is never used: on real tool output it is often wrong (Python
  came back as SQL) and costs a pass over the text.  The lexer comes from the file
  name or an explicit alias, else the text is shown plain.
- Only Pygments' built-in lexers are looked up: the plugin scan reads every
  installed package's entry points (it imported IPython; docs/performance.md),
  and a third-party plugin could otherwise claim a file name.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import PurePosixPath

from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_all_lexers
from pygments.lexers.special import RawTokenLexer, TextLexer

from .lexing import speed_up

# Keys longer than this are not file names or aliases worth a lookup; they
# would only fill the lexer cache.
_MAX_KEY = 255

# RawTokenLexer reads token *types* from its input, which would become class
# names.  It has no alias or file pattern today; refuse it in case one is added.
# TextLexer is refused only because plain escaping gives the same text faster.
_REFUSED_LEXERS = (RawTokenLexer, TextLexer)


# Keep leading/trailing blank lines: the shown code must be the transcript's.
# ensurenl stays on because some lexers need it (the console lexer drops a last
# line without a newline); highlight._highlighted removes the newline it adds.
SETTINGS = {"stripnl": False, "stripall": False, "ensurenl": True}


def _configure(lexer: Lexer) -> Lexer:
    for name, value in SETTINGS.items():
        setattr(lexer, name, value)
    return lexer


def _accepted(cls: type[Lexer]) -> type[Lexer] | None:
    """``cls``, unless it is one of the refused lexers (every lexer is chosen
    through here, by class)."""
    return None if issubclass(cls, _REFUSED_LEXERS) else cls


@lru_cache(maxsize=512)
def configured(cls: type[Lexer]) -> Lexer:
    """A configured lexer of class ``cls`` (an accepted one). Made only when a
    block must be lexed: making one compiles its patterns (docs/performance.md),
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
    # trying its ~1,500 patterns one by one (docs/performance.md; a build's new
    # process meets about a hundred names).
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
    return configured(cls) if cls is not None else None


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
