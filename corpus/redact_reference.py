"""The redactor's search as it was before it was made cheaper: the reference the new one
is checked against (tests/test_redact_same.py, benchmarks/redaction.py --against).

``ReferenceRedactor`` is ``bough_site.redact.Redactor`` with the search of commit a6ee0b6:
every keyword looked up in the whole string, and each token run of 20 characters or more
searched on its own (``finditer(s, lo, hi)``) by the prefix trie, every signature, the
prefixed-key fallback and the secret-word check. The word joins, the loose vendor-prefix
check and the keys told by their provider's name (issue #35) were added to both, here in
the same run-by-run way. It uses the live module's tables (RULES,
SHAPES and the patterns made from them), so it stays a reference for the way of searching,
whatever keys are added; only ``_find`` and what it calls are the old code, copied here as
they were. Test-only (corpus/ is not installed): never imported by bough itself.

When redaction's output is meant to change, change this copy the same way (or the
differential test will say the two differ).
"""

from __future__ import annotations

import collections
import math
import re
from typing import Any

from bough_site import redact_search as live
from bough_site.redact import Redactor
from bough_site.redact_rules import CONTEXT_SHAPES, SHAPES
from bough_site.redact_search import _DENSE_HITS, _RUN_MIN, _SHORT
from bough_site.redact_shapes import _ANCHOR_REACH, _BY_ANCHOR, _BY_HEAD, _BodyEnds, _CLASS_MAP, _CONTEXT_BASE, _FALLBACK_MAX_RUN, _ID_PREFIXES, _KEYWORD_AFTER, _KEYWORD_BEFORE, _LONG_ANCHOR_RE, _LOWER_RUN_RE, _PREFIXED_KEY_RE, _SECRET_WORD_RE, _SHAPE_BASE, _SHORT_ANCHORS, _WIDE_SHAPES, _loose_vendor_key, _named_key, _prefix_re, _providers_named, _same_sentence_keyword
from bough_site.redact_table import RULES, Rule, TIER_FALLBACK, TIER_PROVIDER

Span = tuple[int, int]
_Candidate = tuple[int, int, int, str, int]

_LOOSE_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_+/=-])[A-Za-z0-9_+/=-]{24,256}(?![A-Za-z0-9_+/=-])")
_ANY_KEYWORD = re.compile("|".join(re.escape(k) for k in sorted({k.lower() for r in RULES for k in r.keywords})))
_KEYWORD_RULES: tuple[tuple[str, bool, int], ...] = tuple(
    (kw, case, sum(1 << i for i, r in enumerate(RULES) if kw in r.keywords and r.case_sensitive == case))
    for kw, case in sorted({(k, r.case_sensitive) for r in RULES for k in r.keywords})
)
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=:~$!@%")
_RUN_MAP = bytes(0x61 if chr(b) in _RUN_CHARS else 0x20 for b in range(256))
_RUN_NEEDLE = b"a" * _RUN_MIN


class ReferenceRedactor(Redactor):
    """Redactor with the search of a6ee0b6: no candidates kept per process, the old _find."""

    def _find(self, s: str) -> list[_Candidate]:
        scan = _Scan(s)
        found = self._rule_candidates(s, scan)
        if len(s) >= _RUN_MIN:
            found.extend(_shape_candidates(s, scan))
        return found

    def _rule_candidates(self, s: str, scan: _Scan) -> list[_Candidate]:  # type: ignore[override]
        if len(s) <= _SHORT and _ANY_KEYWORD.search(scan.low) is None:
            return []
        live_rules = live._live_rules(s)
        if not live_rules:
            return []
        wanted = 0
        for kw, case, rules in _KEYWORD_RULES:
            if rules & live_rules & ~wanted and scan.occurs(kw, case):
                wanted |= rules
        wanted &= live_rules
        found: list[_Candidate] = []
        for i, rule in enumerate(RULES):
            if not wanted >> i & 1:
                continue
            if rule.reach:
                matches: Any = (m for lo, hi in scan.windows(rule) for m in rule.regex.finditer(s, lo, hi))
            else:
                matches = rule.regex.finditer(s)
            for m in matches:
                for a, b in rule.secret_spans(m):
                    if b > a:
                        found.append((rule.tier, a, b, rule.kind, i))
        return found


class _Scan(live._Scan):
    """The live _Scan (its ``low`` and ``hits`` are as they were) with the old ``occurs``
    (one find per keyword) and ``windows`` (the hits gathered and sorted for each rule)."""

    def occurs(self, kw: str, case: bool) -> bool:
        p = self._first[kw, case] = (self.s if case else self.low).find(kw)
        return p >= 0

    def windows(self, rule: Rule) -> list[Span]:
        s, near = self.s, rule.near
        hay = s if rule.case_sensitive else self.low
        raw = [p for kw in rule.keywords for p in self.hits(kw, rule.case_sensitive)]
        if len(raw) > _DENSE_HITS and len(raw) * 50 > len(s):
            return [(0, len(s))]
        return live._stretches(s, sorted(p for p in raw if near is None or near.match(hay, p)), rule.reach)


def _runs(s: str) -> list[Span]:
    mapped = s.encode("ascii", "replace").translate(_RUN_MAP)
    out: list[Span] = []
    pos = mapped.find(_RUN_NEEDLE)
    while pos >= 0:
        end = mapped.find(b" ", pos + _RUN_MIN)
        if end < 0:
            out.append((pos, len(mapped)))
            break
        out.append((pos, end))
        pos = mapped.find(_RUN_NEEDLE, end)
    return out


def looks_random(token: str, *, least: int) -> bool:
    alnum = "".join(ch for ch in token if ch.isascii() and ch.isalnum())
    n = len(alnum)
    if n < least:
        return False
    classes = alnum.translate(_CLASS_MAP)
    if "A" not in classes or "a" not in classes or "0" not in classes:
        return False
    changes = sum(1 for x, y in zip(classes, classes[1:]) if x != y)
    if changes < 0.35 * (n - 1):
        return False
    lower_runs = _LOWER_RUN_RE.findall(classes)
    if sum(map(len, lower_runs)) >= 3 * len(lower_runs):
        return False
    counts = collections.Counter(alnum)
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= min(4.0, 0.85 * math.log2(n))


def _is_id(token: str) -> bool:
    head = re.split(r"[_-]", token, maxsplit=1)[0].lower()
    return head in _ID_PREFIXES


def _shape_candidates(s: str, scan: _Scan) -> list[_Candidate]:
    out: list[_Candidate] = []
    runs = _runs(s)
    if not runs:
        return out
    ends = _BodyEnds(s)
    for lo, hi in runs:
        for m in _prefix_re().finditer(s, lo, hi):
            p = m.start()
            found = False
            for order, shape in _BY_HEAD.get(s[p : p + 2], ()):
                if s.startswith(shape.prefix, p):
                    hit = shape.regex.match(s, p, hi)
                    if hit:
                        found = True
                        out.append((TIER_PROVIDER, p, hit.end(), shape.kind, order))
            if not found and hi - lo <= _FALLBACK_MAX_RUN:
                loose = _loose_vendor_key(s, p, ends)
                if loose is not None:
                    out.append((TIER_FALLBACK, p, loose[0], loose[1], loose[2]))
        out.extend(_anchored(s, lo, hi))
        if hi - lo > _FALLBACK_MAX_RUN:
            continue
        for m in _PREFIXED_KEY_RE.finditer(s, lo, hi):
            if not _is_id(m.group("p")) and looks_random(m.group("r"), least=32):
                out.append((TIER_FALLBACK, *m.span(), "prefixed-key", _SHAPE_BASE + len(SHAPES)))
        out.extend(_named_provider_keys(s, lo, hi))
    out.extend(_keyword_secrets(s, scan, [(lo, hi) for lo, hi in runs if hi - lo <= _FALLBACK_MAX_RUN]))
    return out


def _named_provider_keys(s: str, lo: int, hi: int) -> list[_Candidate]:
    """Each context shape's matches in one run, the random ones only inside a token of the
    fallback's (24 to 256 token characters: a random token is one), each checked for its
    provider's name in its sentence."""
    out: list[_Candidate] = []
    tokens = [m.span() for m in _LOOSE_TOKEN_RE.finditer(s, lo, hi)]
    named: dict[tuple[int, int], set[str]] = {}
    for j, shape in enumerate(CONTEXT_SHAPES):
        places = tokens if j in _WIDE_SHAPES else [(lo, hi)]
        for a0, b0 in places:
            for h in shape.regex.finditer(s, a0, b0):
                a, b = h.span()
                if (a, b) not in named:
                    named[a, b] = _providers_named(s, a, b)
                if _named_key(shape, s[a:b], named[a, b]):
                    out.append((TIER_PROVIDER, a, b, shape.kind, _CONTEXT_BASE + j))
    return out


def _anchored(s: str, lo: int, hi: int) -> list[_Candidate]:
    windows: dict[str, list[Span]] = collections.defaultdict(list)
    for a in _LONG_ANCHOR_RE.finditer(s, lo, hi):
        start, end = max(lo, a.start() - _ANCHOR_REACH), min(hi, a.end() + _ANCHOR_REACH)
        spans = windows[a.group()]
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    for anchor in _SHORT_ANCHORS:
        if s.find(anchor, lo, hi) >= 0:
            windows[anchor].append((lo, hi))
    out: list[_Candidate] = []
    for anchor, spans in windows.items():
        for order, shape in _BY_ANCHOR[anchor]:
            for a, b in spans:
                out.extend((TIER_PROVIDER, *h.span(), shape.kind, order) for h in shape.regex.finditer(s, a, b))
    return out


def _keyword_secrets(s: str, scan: _Scan, runs: list[Span]) -> list[_Candidate]:
    low = scan.low
    out: list[_Candidate] = []
    n = len(s)
    for lo, hi in runs:
        if _SECRET_WORD_RE.search(low, max(0, lo - _KEYWORD_BEFORE), min(n, hi + _KEYWORD_AFTER)) is None:
            continue
        for m in _LOOSE_TOKEN_RE.finditer(s, lo, hi):
            a, b = m.span()
            if _is_id(m.group()) or not looks_random(m.group(), least=24):
                continue
            if _same_sentence_keyword(low, a, b):
                out.append((TIER_FALLBACK, a, b, "keyword-secret", _SHAPE_BASE + len(SHAPES) + 1))
    return out
