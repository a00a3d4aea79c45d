"""Secrets told by their look: the token shapes of ``redact_rules.SHAPES`` (a prefix or a
signature), vendor prefixes before a random run, keys a sentence names the provider of
(``redact_rules.CONTEXT_SHAPES``), and the fallback for unknown keys (``looks_random``).

They search only the token runs of a string (redact_search), never all of it: that is
what keeps a hundred shapes cheap on a long transcript.
"""

from __future__ import annotations

import bisect
import collections
import functools
import math
import re
from collections.abc import Callable

from .redact_rules import CONTEXT_SHAPES, SHAPES, ContextShape, Shape
from .redact_search import _RUN_MIN, _Runs, _Scan, _trie
from .redact_table import TIER_FALLBACK, TIER_PROVIDER, Span, _Candidate


_SHAPE_BASE = 10_000  # a shape's rule order: after every rule, so rules win ties
_PREFIXED_SHAPES = [(i, sh) for i, sh in enumerate(SHAPES) if not sh.legacy and sh.prefix]
_ANCHORED_SHAPES = [(i, sh) for i, sh in enumerate(SHAPES) if not sh.legacy and sh.anchor]


# Known vendor prefixes (Shape.vendor: sntrys_, ghp_, dp.st. …, of the older rules' shapes
# too) -> the kind and order of their first shape. A vendor prefix followed by a long random
# run is that vendor's key even when the run is not the layout the vendor documents
# (_loose_vendor_key). Each prefix names one kind (tests/test_redact_joins.py checks).
_VENDORS: dict[str, tuple[str, int]] = {}
# Vendor prefix -> the longer literal prefixes of its shapes (bedrock-api-key-YmVk…29t): text
# that holds one of them is that fixed text, not part of a random run.
_VENDOR_LITERALS: dict[str, list[str]] = collections.defaultdict(list)
for _i, _sh in enumerate(SHAPES):
    if _sh.vendor:
        _VENDORS.setdefault(_sh.vendor, (_sh.kind, _SHAPE_BASE + _i))
        if len(_sh.prefix) > len(_sh.vendor):
            _VENDOR_LITERALS[_sh.vendor].append(_sh.prefix)
for _v in _VENDOR_LITERALS:
    _VENDOR_LITERALS[_v].sort(key=len, reverse=True)
_VENDOR_BY_HEAD: dict[str, list[str]] = collections.defaultdict(list)
for _v in sorted(_VENDORS, key=lambda v: (-len(v), v)):  # longest first
    _VENDOR_BY_HEAD[_v[:2]].append(_v)
# The run after a vendor prefix is of base64 and base64url characters, 24 to 1024 of them;
# _BodyEnds finds where it ends from the places of the other characters.
_VENDOR_BODY_LEAST, _VENDOR_BODY_MOST = 24, 1024
_NOT_BODY_RE = re.compile(r"[^A-Za-z0-9+/=_-]")


@functools.cache
def _prefix_re() -> re.Pattern[str]:
    """One trie of every shape's prefix and every vendor prefix, not preceded by a letter or
    digit (an "_" may stand before: backup_<key>, mcp__<key>)."""
    return re.compile(r"(?<![A-Za-z0-9])" + _trie([sh.prefix for _, sh in _PREFIXED_SHAPES] + list(_VENDORS)))

_BY_HEAD: dict[str, list[tuple[int, Shape]]] = collections.defaultdict(list)
for _i, _sh in _PREFIXED_SHAPES:
    _BY_HEAD[_sh.prefix[:2]].append((_SHAPE_BASE + _i, _sh))
_BY_ANCHOR: dict[str, list[tuple[int, Shape]]] = collections.defaultdict(list)
for _i, _sh in _ANCHORED_SHAPES:
    _BY_ANCHOR[_sh.anchor or ""].append((_SHAPE_BASE + _i, _sh))
_SHORT_ANCHORS = tuple(sorted(a for a in _BY_ANCHOR if len(a) < 3))
_LONG_ANCHOR_RE = re.compile("|".join(re.escape(a) for a in sorted(_BY_ANCHOR, key=lambda a: (-len(a), a)) if len(a) >= 3))
# How far from its signature a shape's match may reach: the longest such shape.
_ANCHOR_REACH = max(sh.longest for _, sh in _ANCHORED_SHAPES)
# A run longer than this is encoded data (base64, hex), not a pasted key: the fallback skips it.
_FALLBACK_MAX_RUN = 65536

# The fallback for keys no shape names, used only where a token looks like a key:
# - "prefixed-key": a vendor-like prefix (a word, "_" or "-", maybe a second word) and then a
#   random run of 32 or more letters and digits;
# - "keyword-secret": a random token of 24 or more characters in the same sentence as a word
#   such as key, token, secret or password (before it, or just after it).
# Random means: upper-case, lower-case and digits all present, the character class changing
# often, short runs of lower-case letters (CamelCase names have words) and a high Shannon
# entropy. Lower-case hex (git SHAs, digests, UUIDs) never qualifies, and known id prefixes
# (msg_, toolu_, call_ ...) are skipped.
_PREFIXED_KEY_RE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<p>[A-Za-z][A-Za-z0-9]{1,11}[_-](?:[A-Za-z0-9]{1,11}[_-])?)"
    r"(?P<r>[A-Za-z0-9]{32,256})(?:[_-][A-Za-z0-9]{1,64})?(?![A-Za-z0-9_+/=-])"
)
# "keyword-secret" candidates: whole tokens of 24 to 256 letters, digits and _+/=-, and only
# those holding an upper-case letter, a lower-case letter and a digit (looks_random wants all
# three): most long names in code lack a digit or a capital, and three bounded lookaheads at
# a token's start cost less than a Python call per token.
_ALNUM_MAP = bytes(0x61 if chr(b).isascii() and chr(b).isalnum() else 0x20 for b in range(256))
_ALNUM_32 = b"a" * 32  # the shortest random part of a prefixed key (_PREFIXED_KEY_RE's "r")
_MIXED_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9_+/=-])"
    r"(?=[A-Za-z_+/=-]{0,255}[0-9])(?=[a-z0-9_+/=-]{0,255}[A-Z])(?=[A-Z0-9_+/=-]{0,255}[a-z])"
    r"[A-Za-z0-9_+/=-]{24,256}(?![A-Za-z0-9_+/=-])"
)
_SECRET_WORD_RE = re.compile(
    r"(?<![a-z])(?:api[ _-]?keys?|keys?|tokens?|secrets?|passwords?|passwd|passphrase|credentials?|bearer)(?![a-z])"
)
_SENTENCE_END_RE = re.compile(r"[.!?](?:\s|$)|\n")
_KEYWORD_BEFORE = 80  # how far before a token its keyword may stand (same sentence)
_KEYWORD_AFTER = 40  # ... or after it ("Ab3… is my key")
# Ids that look random but are not secrets: Anthropic and OpenAI object ids, Stripe object ids,
# Subresource Integrity hashes.
_ID_PREFIXES = frozenset(  # one string, split: easier to read and extend than a list literal
    """
    msg toolu srvtoolu req call resp rs fc ws ig ctc mcp chatcmpl cmpl file batch msgbatch run thread
    asst step vs org proj user evt ch cus pi pm seti sub in ii price prod txn acct cs po tr src tok
    sha1 sha224 sha256 sha384 sha512 md5
    """.split()  # noqa: SIM905
)
_ID_HEAD_RE = re.compile(r"[_-]")
_LOWER_RUN_RE = re.compile("a+")
_CLASS_RUN_RE = re.compile("A+|a+|0+")
_CLASS_MAP = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "A" * 26 + "a" * 26 + "0" * 10,
)
_ASCII_NOT_ALNUM = dict.fromkeys(c for c in range(128) if not chr(c).isalnum())  # str.translate deletes these


def looks_random(token: str, *, least: int) -> bool:
    """Does the letters-and-digits part of ``token`` (``least`` or more of them) look randomly drawn?"""
    if token.isascii():  # every token the fallback meets: one translate instead of a test per character
        alnum = token.translate(_ASCII_NOT_ALNUM)
    else:
        alnum = "".join(ch for ch in token if ch.isascii() and ch.isalnum())
    n = len(alnum)
    if n < least:
        return False
    classes = alnum.translate(_CLASS_MAP)
    if "A" not in classes or "a" not in classes or "0" not in classes:
        return False
    changes = len(_CLASS_RUN_RE.findall(classes)) - 1  # one fewer than the runs of one class
    if changes < 0.35 * (n - 1):  # random base62 changes class at about 60% of positions
        return False
    lower_runs = _LOWER_RUN_RE.findall(classes)
    if sum(map(len, lower_runs)) >= 3 * len(lower_runs):  # CamelCase words; random averages 1.7
        return False
    counts = collections.Counter(alnum)
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= min(4.0, 0.85 * math.log2(n))


def _is_id(token: str) -> bool:
    head = _ID_HEAD_RE.split(token, maxsplit=1)[0].lower()
    return head in _ID_PREFIXES


def _shape_candidates(s: str, scan: _Scan) -> list[_Candidate]:
    """Every span of a known token shape, and of the fallback, in the token runs of s."""
    out: list[_Candidate] = []
    runs = scan.joined(_RUN_MIN)
    if not runs.spans:
        return out
    _prefixed(runs, out)
    _anchored(s, runs, out)
    if len(runs.text) > _FALLBACK_MAX_RUN and any(hi - lo > _FALLBACK_MAX_RUN for lo, hi in runs.spans):
        runs = _Runs(s, [(lo, hi) for lo, hi in runs.spans if hi - lo <= _FALLBACK_MAX_RUN])
    mapped = runs.text.encode("ascii").translate(_ALNUM_MAP)  # the runs' letters and digits: "a", the rest " "
    stretch = _ALNUM_32 in mapped  # 32 letters and digits in a row: most texts have none
    if stretch:
        _prefixed_keys(runs, out)
    wide = _keyword_secrets(s, scan, runs, out)
    if stretch or wide:
        _named_provider_keys(s, runs, mapped, stretch, wide, out)
    return out


def _prefixed(runs: _Runs, out: list[_Candidate]) -> None:
    """The shapes told by their prefix: one trie of every prefix, each hit confirmed by its shape;
    where no shape confirms it, a vendor prefix followed by a long random run (_loose_vendor_key)."""
    text = runs.text
    ends: _BodyEnds | None = None
    for m in _prefix_re().finditer(text):
        q = m.start()
        found = False
        for order, shape in _BY_HEAD.get(text[q : q + 2], ()):
            if text.startswith(shape.prefix, q):
                hit = shape.regex.match(text, q)
                if hit:
                    found = True
                    delta = runs.at(q)[1]
                    out.append((TIER_PROVIDER, q + delta, hit.end() + delta, shape.kind, order))
        if not found and text[q : q + 2] in _VENDOR_BY_HEAD:
            k, delta = runs.at(q)
            lo, hi = runs.spans[k]
            if hi - lo > _FALLBACK_MAX_RUN:  # encoded data, as for the fallback
                continue
            ends = ends or _BodyEnds(text)
            loose = _loose_vendor_key(text, q, ends)
            if loose is not None:
                out.append((TIER_FALLBACK, q + delta, loose[0] + delta, loose[1], loose[2]))


class _BodyEnds:
    """Where the run of a vendor key's body characters that starts at a position of one text
    ends: at the next other character (a space between runs, a "."), found by bisection in
    their places, which are listed when first asked for. So a text with a vendor prefix every
    few characters ("ghp_ghp_…") costs a bisection per prefix, not a scan of the run after each."""

    __slots__ = ("_breaks", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._breaks: list[int] | None = None

    def __call__(self, start: int) -> int:
        if self._breaks is None:
            self._breaks = [m.start() for m in _NOT_BODY_RE.finditer(self._text)]
            self._breaks.append(len(self._text))
        return self._breaks[bisect.bisect_left(self._breaks, start)]


def _loose_vendor_key(text: str, q: int, ends: Callable[[int], int]) -> tuple[int, str, int] | None:
    """(end, kind, order) of a key at q that starts with a known vendor prefix and goes on with a
    random run of 24 to 1024 base64 or base64url characters (``ends``: where such a run from a
    position ends), or None.

    The longest vendor prefix at q decides; where the text goes on with the rest of a shape's
    literal prefix, the run starts after it. Lower-case hex never looks random, so a git SHA
    after a prefix-like word is no key; a key of the vendor's documented layout is its shape's
    (a candidate of a lower tier, which wins)."""
    for vendor in _VENDOR_BY_HEAD.get(text[q : q + 2], ()):
        if text.startswith(vendor, q):
            start = q + len(vendor)
            for literal in _VENDOR_LITERALS.get(vendor, ()):
                if text.startswith(literal, q):
                    start = q + len(literal)
                    break
            end = ends(start)
            if not _VENDOR_BODY_LEAST <= end - start <= _VENDOR_BODY_MOST:
                return None
            if not looks_random(text[start:end], least=_VENDOR_BODY_LEAST):
                return None
            kind, order = _VENDORS[vendor]
            return end, kind, order
    return None


def _anchored(s: str, runs: _Runs, out: list[_Candidate]) -> None:
    """The shapes told by a signature inside them.

    A signature of three characters or more is rare: its shapes are searched only around
    each occurrence, within its run (a 5 MB base64 blob holds a few by chance). Shorter ones
    ("." "-" "Q~") are everywhere: their shapes search every run (a match holds its
    signature, so a run without it has none).
    """
    text = runs.text
    windows: dict[tuple[int, str], list[Span]] = {}  # (run, signature) -> stretches of s
    for a in _LONG_ANCHOR_RE.finditer(text):
        k, delta = runs.at(a.start())
        lo, hi = runs.spans[k]
        start, end = max(lo, a.start() + delta - _ANCHOR_REACH), min(hi, a.end() + delta + _ANCHOR_REACH)
        spans = windows.setdefault((k, a.group()), [])
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    for (_, anchor), spans in windows.items():
        for order, shape in _BY_ANCHOR[anchor]:
            for a, b in spans:
                out.extend((TIER_PROVIDER, *h.span(), shape.kind, order) for h in shape.regex.finditer(s, a, b))
    for anchor in _SHORT_ANCHORS:
        if anchor in text:
            for order, shape in _BY_ANCHOR[anchor]:
                for h in shape.regex.finditer(text):
                    delta = runs.at(h.start())[1]
                    out.append((TIER_PROVIDER, h.start() + delta, h.end() + delta, shape.kind, order))


def _prefixed_keys(runs: _Runs, out: list[_Candidate]) -> None:
    """Unknown keys with a vendor-like prefix and a random body. (The body is 32 letters and
    digits in a row, which most texts do not hold: _shape_candidates calls this only where
    the runs, mapped by one translate, hold them.)"""
    for m in _PREFIXED_KEY_RE.finditer(runs.text):
        if not _is_id(m.group("p")) and looks_random(m.group("r"), least=32):
            delta = runs.at(m.start())[1]
            out.append((TIER_FALLBACK, m.start() + delta, m.end() + delta, "prefixed-key", _SHAPE_BASE + len(SHAPES)))


def _keyword_secrets(s: str, scan: _Scan, runs: _Runs, out: list[_Candidate]) -> list[Span]:
    """Random tokens in the same sentence as a secret word (key, token, password ...).

    A token counts when it is no known id, its run has a secret word near it (from
    _KEYWORD_BEFORE characters before the run to _KEYWORD_AFTER after it), it looks
    random and a secret word stands in its own sentence: the tests in that order,
    the cheap and selective ones first.

    Returns where the tokens of _WIDE_LEAST characters or more are in the runs' text: the
    only places a random key of _named_provider_keys' wide shapes can be.
    """
    near: dict[int, bool] = {}  # run -> a secret word near it
    wide: list[Span] = []
    n = len(s)
    low = ""
    for m in _MIXED_TOKEN_RE.finditer(runs.text):
        token = m.group()
        if len(token) >= _WIDE_LEAST:
            wide.append(m.span())
        if _is_id(token):
            continue
        k, delta = runs.at(m.start())
        low = low or _without_labels(scan.low)
        if k not in near:
            lo, hi = runs.spans[k]
            near[k] = _SECRET_WORD_RE.search(low, max(0, lo - _KEYWORD_BEFORE), min(n, hi + _KEYWORD_AFTER)) is not None
        if not near[k] or not looks_random(token, least=24):
            continue
        if _same_sentence_keyword(low, m.start() + delta, m.end() + delta):
            out.append((TIER_FALLBACK, m.start() + delta, m.end() + delta, "keyword-secret", _SHAPE_BASE + len(SHAPES) + 1))
    return wide


# What redaction leaves in place of a secret (redact.py): its kind names a secret word
# ("aws-access-key", "github-token"), which must not make the token after it a keyword
# secret when the text is redacted again (redacting twice changes nothing).
_LABEL_RE = re.compile(r"\[redacted: [a-z0-9-]+ [0-9a-f]{8}\]")


def _without_labels(low: str) -> str:
    """``low`` with redaction's labels blanked out, the same length (its places stand)."""
    return _LABEL_RE.sub(lambda m: " " * len(m.group()), low) if "[redacted: " in low else low


def _same_sentence_keyword(low: str, a: int, b: int) -> bool:
    """A secret word before [a, b) (within _KEYWORD_BEFORE) or after it (within _KEYWORD_AFTER), no sentence end between."""
    start = max(0, a - _KEYWORD_BEFORE)
    for m in _SECRET_WORD_RE.finditer(low, start, a):
        if _SENTENCE_END_RE.search(low, m.end(), a) is None:
            return True
    after = _SECRET_WORD_RE.search(low, b, min(len(low), b + _KEYWORD_AFTER))
    return after is not None and _SENTENCE_END_RE.search(low, b, after.start()) is None


# --------------------------------------------------------------------------
# Keys told by their provider's name (redact_rules.CONTEXT_SHAPES): 32 hex, 40 base64 …
# in a sentence that names Datadog, AWS, Cloudflare … Such tokens are rare in the runs,
# provider names are not rare in text, and looking a name up in every string would cost
# more than all the shapes (a find per name, over every character): so the tokens are found
# first, from what the other searches already made, and the names looked for only in the
# sentence around each. Two ways, by the shape's alphabet:
# - "stretch" shapes (32 or 37 letters and digits, nothing of their alphabet beside them):
#   a whole stretch of letters and digits of that length, found in the runs mapped to "a"
#   and " " (the bytes _prefixed_keys needs) with bytes.find;
# - "wide" shapes (random base64 or base64url): inside a token _MIXED_TOKEN_RE found (every
#   random token holds upper-case, lower-case and digits), one 40 characters or longer.
# --------------------------------------------------------------------------

_CONTEXT_BASE = _SHAPE_BASE + len(SHAPES) + 2  # a context shape's order: after the fallback's
_PROVIDER_BEFORE = 120  # how far before a token its provider's name may stand (same sentence)
_PROVIDER_AFTER = 60  # ... or after it ("… is the datadog key")
_ALNUM_CLASS = "A-Za-z0-9"


def _is_stretch(shape: ContextShape) -> bool:
    """One class of letters and digits only, with none of them allowed beside it."""
    if shape.before != _ALNUM_CLASS or shape.after != _ALNUM_CLASS or len(shape.parts) != 1:
        return False
    part = shape.parts[0]
    return not isinstance(part, str) and not any(re.match(f"[{part[0]}]", chr(c)) for c in _ASCII_NOT_ALNUM)


_STRETCH_BY_LENGTH: dict[int, list[int]] = collections.defaultdict(list)  # length -> stretch shapes
_WIDE_SHAPES: list[int] = []  # the others: random, so made of all three classes (tests/test_redact_joins.py)
for _j, _ctx in enumerate(CONTEXT_SHAPES):
    (_STRETCH_BY_LENGTH[_ctx.length] if _is_stretch(_ctx) else _WIDE_SHAPES).append(_j)
_WIDE_LEAST = min(CONTEXT_SHAPES[j].length for j in _WIDE_SHAPES)


_PROVIDER_WORDS = sorted({w for shape in CONTEXT_SHAPES for w in shape.words})


@functools.cache
def _provider_re() -> re.Pattern[str]:
    """Any provider's name, not inside a word; a name may go on ("cloudflared", "datadoghq"),
    but a name of three letters ("aws") must end."""
    alternatives = "|".join(w + ("(?![a-z])" if len(w) <= 3 else "") for w in _PROVIDER_WORDS)
    return re.compile("(?<![a-z0-9])(?:" + alternatives + ")", re.IGNORECASE | re.ASCII)


def _named_provider_keys(s: str, runs: _Runs, mapped: bytes, stretch: bool, wide: list[Span],
                         out: list[_Candidate]) -> None:
    """The tokens of CONTEXT_SHAPES whose provider is named in their sentence. ``stretch``:
    the mapped runs hold 32 letters and digits in a row; ``wide``: the tokens of
    _MIXED_TOKEN_RE _WIDE_LEAST or more long (positions in the runs' text)."""
    text = runs.text
    hits: list[tuple[int, int, int]] = []  # (start, end in the runs' text, shape)
    if stretch:
        pos = mapped.find(_ALNUM_32)
        while pos >= 0:
            end = mapped.find(b" ", pos + 32)
            end = len(mapped) if end < 0 else end
            for j in _STRETCH_BY_LENGTH.get(end - pos, ()):
                if CONTEXT_SHAPES[j].regex.fullmatch(text, pos, end):
                    hits.append((pos, end, j))
            pos = mapped.find(_ALNUM_32, end)
    for q, e in wide:
        for j in _WIDE_SHAPES:
            hits.extend((h.start(), h.end(), j) for h in CONTEXT_SHAPES[j].regex.finditer(text, q, e))
    named: dict[tuple[int, int], set[str]] = {}  # a token's providers, for the shapes that share it
    for q, e, j in hits:
        delta = runs.at(q)[1]
        a, b = q + delta, e + delta
        if (a, b) not in named:
            named[a, b] = _providers_named(s, a, b)
        if _named_key(CONTEXT_SHAPES[j], s[a:b], named[a, b]):
            out.append((TIER_PROVIDER, a, b, CONTEXT_SHAPES[j].kind, _CONTEXT_BASE + j))


def _named_key(shape: ContextShape, token: str, names: set[str]) -> bool:
    """Is a token of ``shape``, whose sentence names ``names``, that provider's key?"""
    if names.isdisjoint(shape.words):
        return False
    if shape.random:
        return looks_random(token, least=24)
    digits = sum(ch.isdigit() for ch in token)
    return 0 < digits < sum(ch.isalnum() for ch in token)  # hex: a letter and a digit


def _providers_named(s: str, a: int, b: int) -> set[str]:
    """The providers' names in the sentence of s[a:b]: before it (within _PROVIDER_BEFORE) or after
    it (within _PROVIDER_AFTER), no sentence end between, lower-cased as CONTEXT_SHAPES name them."""
    start = max(0, a - _PROVIDER_BEFORE)
    around = s[start : b + _PROVIDER_AFTER].lower()
    if not any(word in around for word in _PROVIDER_WORDS):  # nearly always: a few finds, no regex
        return set()
    found = _provider_re()
    out: set[str] = set()
    for m in found.finditer(s, start, a):
        if _SENTENCE_END_RE.search(s, m.end(), a) is None:
            out.add(m.group().lower())
    for m in found.finditer(s, b, min(len(s), b + _PROVIDER_AFTER)):
        if _SENTENCE_END_RE.search(s, b, m.start()) is not None:
            break
        out.add(m.group().lower())
    return out
