#!/usr/bin/env python3
"""Lexing alone: Pygments' own ``RegexLexer`` loop against bough's narrowed one.

    python3 benchmarks/lexing.py                       # the standard library's .py files
    python3 benchmarks/lexing.py --files 50 --rounds 5

Takes the running interpreter's standard library (the ``.py`` files the realcode
history reads, sorted), cuts each to what the highlighting budget lexes of a Read
result (its first 200 lines or 8 KB: ``highlight_budget.Budget``), and lexes every text
with Python's lexer both ways, ``--rounds`` times, printing the best
``time.process_time`` of each in ms per KB. It fails (exit 1) if a single token
differs: render/lexing.py must give exactly Pygments' tokens.

Seconds depend on the machine and on what else runs on it; the ratio holds up
better (docs/performance.md, "Lexing").
"""

from __future__ import annotations

import argparse
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pygments.lexer import RegexLexer  # noqa: E402
from pygments.lexers import PythonLexer  # noqa: E402

from bough_site.config import DEFAULT_HIGHLIGHT_LIMIT  # noqa: E402
from bough_site.render.highlight_budget import OUTPUT, Budget  # noqa: E402
from bough_site.render.lexing import speed_up  # noqa: E402


def budgeted_sources(count: int | None) -> list[str]:
    """The standard library's ``.py`` files (not site-packages), each cut to the output budget."""
    root = Path(sysconfig.get_paths()["stdlib"])
    budget = Budget.for_limit(DEFAULT_HIGHLIGHT_LIMIT)
    texts = []
    for path in sorted(root.glob("*.py"))[:count]:
        try:
            head, _rest = budget.split(path.read_text(encoding="utf-8"), OUTPUT)
        except (OSError, UnicodeDecodeError):
            continue
        texts.append(head)
    return texts


def best_time(lex: Callable[[str], Iterable[object]], texts: list[str], rounds: int) -> tuple[float, list[list[object]]]:
    best, tokens = float("inf"), []
    for _ in range(rounds):
        start = time.process_time()
        tokens = [list(lex(text)) for text in texts]
        best = min(best, time.process_time() - start)
    return best, tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=None, help="only the first N files (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = budgeted_sources(args.files)
    kb = sum(len(text) for text in texts) / 1024
    pygments_lexer = PythonLexer(stripnl=False, ensurenl=True)
    ours = speed_up(PythonLexer(stripnl=False, ensurenl=True))
    if "get_tokens_unprocessed" not in vars(ours):
        print("render/lexing.py does not apply to this Pygments (its loop changed)", file=sys.stderr)
        return 1
    theirs_s, expected = best_time(lambda text: RegexLexer.get_tokens_unprocessed(pygments_lexer, text), texts,
                                   args.rounds)
    ours_s, found = best_time(ours.get_tokens_unprocessed, texts, args.rounds)
    same = found == expected
    print(f"{len(texts)} files, {kb:,.0f} KB, {sum(map(len, expected)):,} tokens, best of {args.rounds}")
    print(f"Pygments' loop: {theirs_s:.2f} s, {1000 * theirs_s / kb:.2f} ms per KB")
    print(f"narrowed loop:  {ours_s:.2f} s, {1000 * ours_s / kb:.2f} ms per KB ({theirs_s / ours_s:.1f}x)")
    print("the same tokens" if same else "TOKENS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
