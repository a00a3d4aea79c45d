"""How much of a block is highlighted: the budget, by who wrote the block.

Lexing costs far more than plain escaping (docs/performance.md), so each block
has a budget (:class:`Budget`): what an agent wrote (``WRITTEN``) is highlighted
for its first 64 KB, what it read or ran (``OUTPUT``) for its first 200 lines or
8 KB; the rest of the block follows as escaped plain text after a visible marker
(:func:`plain_marker`).  Nothing is cut.  Who wrote a block is said by the
caller (``kind``), never guessed here.
"""

from __future__ import annotations

from dataclasses import dataclass

# Who wrote a block decides how much of it is highlighted (issue #12's rule):
WRITTEN = "written"  # text the agent or the person wrote: Write content, edits, commands, code in replies
OUTPUT = "output"  # what the agent read or ran: Read results, command and MCP output
KINDS = (WRITTEN, OUTPUT)

KB = 1024  # characters: budgets count characters, not encoded bytes
WRITTEN_KB = 64  # the budget of a block the agent wrote
LINES_PER_KB = 25  # tool output: N KB or N * 25 lines, whichever comes first (8 -> 200)


def not_a_kind(kind: object) -> ValueError:
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
            raise not_a_kind(kind)
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
