"""Claude Code's Read output without its line numbers.

Claude Code shows the model a file it read ``cat -n`` style.  The Claude reader
strips the numbers to compare the text with the file's (what it may leave out of
a record), and the renderer strips them to show the file: one function both
import, outside readers/ and render/.
"""

from __future__ import annotations

import functools
import re

# Claude's Read output is ``cat -n`` style: ``   12→code`` (or a tab for the arrow).
_READ_PREFIX = re.compile(r" *\d+(?:→|\t)")
# The same after a line end: a pattern that begins with a literal "\n" is found
# by a fast scan for it, where a multi-line "^" is tried at every character
# (docs/performance.md).
_LATER_PREFIX = re.compile(r"\n *\d+(?:→|\t)")


# The reader strips a Read's text to compare it with the file's, and the page strips
# it again to show it: the last few texts stripped are kept, up to this size each.
_KEPT_STRIPPED = 64
_KEPT_STRIPPED_CHARS = 256 << 10


def strip_line_numbers(text: str) -> str:
    """A Read's text without its line numbers, when it starts numbered (lines
    the harness appended, such as a ``<system-reminder>``, have none)."""
    return _stripped_kept(text) if len(text) <= _KEPT_STRIPPED_CHARS else _stripped(text)


def _stripped(text: str) -> str:
    if not _READ_PREFIX.match(text.lstrip("\n")):
        return text
    first = _READ_PREFIX.match(text)
    return _LATER_PREFIX.sub("\n", text[first.end():] if first else text)


_stripped_kept = functools.lru_cache(maxsize=_KEPT_STRIPPED)(_stripped)
