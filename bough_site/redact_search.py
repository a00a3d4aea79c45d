"""Finding where rules can match: the keyword gates, the token runs and the stretches.

A string is searched only by the rules that can match it: ``_live_rules`` drops those
whose needed characters are absent, ``_Scan`` looks each keyword up once and shares the
result between rules, windowed rules run only around their keywords (``_stretches``) and
rules with few starting characters only at those (``_matches_starting``). The token runs
(``_runs``, ``_Runs``) are what the shapes (redact_shapes) and ``Rule.in_runs`` rules search.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from typing import Any

from .redact_table import RULES, Rule, Span

_DENSE_HITS = 1000  # more keyword hits than this, one every 50 characters or closer: search the whole string
_BACK = 120  # how far before a keyword a windowed rule's match can start (name <= 81, plus "--data '" etc.)


# A short string is checked against all keywords at once (one regex call instead of one `in`
# per keyword: most transcript strings are ids, names and times of 20-40 characters).
_SHORT = 200


def _trie(words: list[str]) -> str:
    """One regex matching any of ``words``, factored by common prefixes (the engine then
    tests one character per branch instead of every word at every position)."""
    tree: dict[str, Any] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = "(?:" + "|".join(alts) + ")"
        return body + "?" if "" in node else body

    return build(tree)


@functools.cache
def _any_keyword() -> re.Pattern[str]:
    """Any keyword of any rule, lower-case (compiled when first used, like every large pattern here)."""
    return re.compile(_trie(sorted({k.lower() for r in RULES for k in r.keywords})))


# Sets of rules are bit masks (bit i: RULES[i]): a few int operations per string instead of set unions.
# (keyword, case-sensitive?, the rules it unlocks, whether all of them are Rule.in_runs): each
# distinct keyword is scanned once.
_KEYWORD_RULES: tuple[tuple[str, bool, int, bool], ...] = tuple(
    (kw, case, mask, all(RULES[i].in_runs for i in range(len(RULES)) if mask >> i & 1))
    for kw, case, mask in (
        (kw, case, sum(1 << i for i, r in enumerate(RULES) if kw in r.keywords and r.case_sensitive == case))
        for kw, case in sorted({(k, r.case_sensitive) for r in RULES for k in r.keywords})
    )
)
# Character -> the rules that need it (Rule.needs), and the rules that need nothing.
_GATES: tuple[tuple[str, int], ...] = tuple(
    (c, sum(1 << i for i, r in enumerate(RULES) if c in r.needs)) for c in sorted({c for r in RULES for c in r.needs})
)
_UNGATED = sum(1 << i for i, r in enumerate(RULES) if not r.needs)
# Literal -> the rules whose every match holds it (Rule.holds).
_HOLDS: tuple[tuple[str, int], ...] = tuple(
    (h, sum(1 << i for i, r in enumerate(RULES) if r.holds == h)) for h in sorted({r.holds for r in RULES if r.holds})
)


def _live_rules(s: str) -> int:
    """The rules that can match somewhere in s: those holding one of the characters they need
    (Rule.needs) and the literal they hold (Rule.holds)."""
    live = _UNGATED
    for char, rules in _GATES:
        if char in s:  # a single character: memchr, several times faster than a keyword's find
            live |= rules
    for literal, rules in _HOLDS:
        if live & rules and literal not in s:
            live &= ~rules
    return live


# Lower-case keywords that start with "-" ("-key", "-token", "-u" ...) and hold no other "-" are
# looked up together: the engine finds a pattern's literal first character as fast as str.find
# finds a keyword, then tries each of them there. No one of them can start inside another's
# match (their "-" is only at the start), so every place each one occurs is seen.
_DASH_KEYWORDS = tuple(sorted({k.lower() for r in RULES if not r.case_sensitive for k in r.keywords
                               if k.startswith("-") and "-" not in k[1:]}))


@functools.cache
def _dash_keywords_re() -> re.Pattern[str]:
    return re.compile(_trie(list(_DASH_KEYWORDS)))


# --------------------------------------------------------------------------
# Token runs, which the token shapes (redact_shapes) and the fallback search.
#
# A token is a run of token characters. The string is mapped to one byte per
# character (ASCII, anything else "?"), each byte to "a" (token character) or
# " " (any other), and runs of _RUN_MIN or more are found with bytes.find: all
# in C, a few milliseconds per megabyte. Only those runs (a few percent of a
# transcript's text) are searched by the prefix trie, the signatures and the
# fallback, which is what keeps the shapes cheap.
#
# The runs are joined, one space between two, into one text (_Runs), and each
# pattern searches that text once instead of each run on its own (a long listing
# has thousands of runs: a Python call per run and pattern cost more than the
# search). That finds the same matches as a search of each run in s
# (``finditer(s, lo, hi)``), because of what the patterns are made of: every
# character a pattern consumes is a token character and the space is none, so
# no match spans two runs; every lookahead and lookbehind asks for token
# characters (``(?<![A-Za-z0-9])``, ``(?![A-Za-z0-9_+/=-])``), and what stands
# beside a run, in s a character that is no token character or the string's
# end, in the joined text a space or its end, is never one; and no pattern uses
# ``$``, ``\b`` or a positive lookahead. tests/test_redact_shapes.py checks
# these facts for every pattern; tests/test_redact_found.py checks that a secret is
# found in every run, at every place.
# --------------------------------------------------------------------------

_RUN_MIN = 20  # the shortest shape (SCW + 17) and the fallbacks' shortest token fit
_RULE_RUN_MIN = 15  # the shortest match of a Rule.in_runs rule (Slack's xoxb- and 10 more)
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=:~$!@%")
_RUN_MAP = bytes(0x61 if chr(b) in _RUN_CHARS else 0x20 for b in range(256))


def _runs(s: str, least: int = _RUN_MIN) -> list[Span]:
    """The runs of token characters in s that are ``least`` long or longer."""
    mapped = s.encode("ascii", "replace").translate(_RUN_MAP)  # one byte per character: offsets match s
    needle = b"a" * least
    out: list[Span] = []
    pos = mapped.find(needle)
    while pos >= 0:  # pos is a run's first character: the run before it ended at a space
        end = mapped.find(b" ", pos + least)
        if end < 0:
            out.append((pos, len(mapped)))
            break
        out.append((pos, end))
        pos = mapped.find(needle, end)
    return out


class _Runs:
    """Runs of s (``spans``) joined into one ``text``, a space between two.

    A position q of the text is ``q + delta`` in s, delta from ``at(q)``.
    """

    __slots__ = ("_starts", "spans", "text")

    def __init__(self, s: str, spans: list[Span]) -> None:
        self.spans = spans
        self.text = s if spans == [(0, len(s))] else " ".join([s[lo:hi] for lo, hi in spans])
        self._starts: list[int] | None = None  # where each run starts in the text, once a match needs it

    def at(self, q: int) -> tuple[int, int]:
        """The run holding position q of the text, and what to add to q for its position in s."""
        starts = self._starts
        if starts is None:
            starts, pos = [], 0
            for lo, hi in self.spans:
                starts.append(pos)
                pos += hi - lo + 1
            self._starts = starts
        k = bisect.bisect_right(starts, q) - 1
        return k, self.spans[k][0] - starts[k]


def _matches_starting(regex: re.Pattern[str], s: str, chars: str) -> Iterable[re.Match[str]]:
    """What ``regex.finditer(s)`` finds, for a pattern whose every match starts with one of ``chars``.

    finditer takes the leftmost match, then the leftmost one from its end on, and so on;
    here the candidates are the positions of those characters, taken in order, each one
    before the end of the last match skipped. ``match(s, p)`` sees s before p as a search
    does (lookbehinds), and no match is empty, so the matches are the same. Where the
    characters are dense (one in 64 or more), one finditer is cheaper than a call at each.
    """
    limit = len(s) >> 6
    points: list[int] = []
    for char in chars:
        p = s.find(char)
        while p >= 0:
            points.append(p)
            if len(points) > limit:
                return regex.finditer(s)
            p = s.find(char, p + 1)
    points.sort()
    out: list[re.Match[str]] = []
    end = 0
    for p in points:
        if p >= end:
            m = regex.match(s, p)
            if m:
                out.append(m)
                end = m.end()
    return out


class _Scan:
    """Keyword lookups in one string, shared by the rules that use the same keywords."""

    def __init__(self, s: str) -> None:
        self.s = s
        self._low: str | None = None
        self._first: dict[tuple[str, bool], int] = {}  # first position, -1 if absent; only keywords looked up
        self._hits: dict[tuple[str, bool], list[int]] = {}
        self._sorted: dict[tuple[tuple[str, ...], bool], list[int]] = {}
        self._runs: tuple[int, list[Span]] | None = None  # (least, the runs of s that long or longer)
        self._joined: dict[int, _Runs] = {}

    def joined(self, least: int) -> _Runs:
        """The token runs of s that are ``least`` characters long or longer, joined."""
        if least not in self._joined:
            if self._runs is None or self._runs[0] > least:
                self._runs = (least, _runs(self.s, least))
            known, spans = self._runs
            if known < least:
                spans = [(lo, hi) for lo, hi in spans if hi - lo >= least]
            self._joined[least] = _Runs(self.s, spans)
        return self._joined[least]

    @property
    def low(self) -> str:
        """s lower-cased, on first use: a long string whose live rules all look at s itself never pays for it."""
        if self._low is None:
            self._low = self.s.lower()
        return self._low

    def occurs(self, kw: str, case: bool) -> bool:
        if not case and kw in _DASH_KEYWORDS:
            if (kw, case) not in self._first:
                self._dash_keywords()
            return self._first[kw, case] >= 0
        p = self._first[kw, case] = (self.s if case else self._low or self.low).find(kw)
        return p >= 0

    def _dash_keywords(self) -> None:
        """The first place of each of _DASH_KEYWORDS in the lower-cased string (-1: nowhere), in one search."""
        first = dict.fromkeys(_DASH_KEYWORDS, -1)
        missing = len(first)
        for m in _dash_keywords_re().finditer(self.low):
            for kw in _DASH_KEYWORDS:  # the longest keyword at a place, and those it starts with
                if first[kw] < 0 and m.group().startswith(kw):
                    first[kw] = m.start()
                    missing -= 1
            if not missing:
                break
        for kw, p in first.items():
            self._first[kw, False] = p

    def hits(self, kw: str, case: bool) -> list[int]:
        """Every position of a keyword (in s, or in its lower-cased copy)."""
        key = (kw, case)
        if key not in self._hits:
            hay = self.s if case else self.low
            out: list[int] = []
            # occurs() was skipped for a keyword whose rules another keyword had already unlocked.
            p = self._first[key] if key in self._first else hay.find(kw)
            while p >= 0:
                out.append(p)
                p = hay.find(kw, p + 1)
            self._hits[key] = out
        return self._hits[key]

    def _sorted_hits(self, keywords: tuple[str, ...], case: bool) -> list[int]:
        """Every position of any of ``keywords``, in order (shared by the rules that have the same)."""
        key = (keywords, case)
        if key not in self._sorted:
            self._sorted[key] = sorted(p for kw in keywords for p in self.hits(kw, case))
        return self._sorted[key]

    def windows(self, rule: Rule) -> list[Span]:
        """The stretches of s a windowed rule must search: around each keyword, within its line.

        Each stretch runs from the start of the keyword's line (at most _BACK
        characters back) to the end of the line (at most ``rule.reach``
        characters on). A keyword opens a stretch only where ``rule.near``
        matches at it. Overlapping stretches are merged, so no match is found twice.
        """
        s, near = self.s, rule.near
        hay = s if rule.case_sensitive else self.low
        raw = self._sorted_hits(rule.keywords, rule.case_sensitive)
        if len(raw) > _DENSE_HITS and len(raw) * 50 > len(s):
            # Keywords every few characters (hostile or generated text): one pass of the
            # regex over the whole string is cheaper than a check at every keyword.
            return [(0, len(s))]
        return _stretches(s, raw if near is None else [p for p in raw if near.match(hay, p)], rule.reach)


def _stretches(s: str, hits: list[int], reach: int) -> list[Span]:
    """Around each of ``hits`` (in order), its line from at most _BACK characters back to
    at most ``reach`` on; overlapping stretches merged, so no match is found twice."""
    out: list[Span] = []
    n = len(s)
    for p in hits:
        if out and p < out[-1][1]:  # inside the previous stretch: only its end can grow
            nl = s.find("\n", out[-1][1], p + reach)
            out[-1] = (out[-1][0], max(out[-1][1], nl if nl >= 0 else min(n, p + reach)))
            continue
        nl = s.rfind("\n", max(0, p - _BACK), p)
        lo = nl + 1 if nl >= 0 else max(0, p - _BACK)
        nl = s.find("\n", p, p + reach)
        hi = nl if nl >= 0 else min(n, p + reach)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
