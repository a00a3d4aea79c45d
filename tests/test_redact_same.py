"""The redactor gives what it gave before it was made cheaper: the same strings, the same counts.

``corpus/redact_reference.py`` keeps the search as it was (every keyword looked up in the
whole string, each token run searched on its own); here both redactors take the same calls
(``text``, ``value``, ``file_text``) and must return equal values and equal counts, on:

- every string of every transcript in the shared real fixtures (skipped when absent), the
  bundled examples, the secret zoo (corpus/secrets.py), the hostile history
  (corpus/hostile.py) and a history of corpus/claude.py whose Reads are real files, as the
  benchmark's (corpus/realcode.py); per file, each record as a whole (``value``: the text
  of each of its strings), its keys, its raw line, and each of its strings as the text of
  every file it names (``file_text``; in the light version only where the file is sensitive,
  elsewhere it is ``text``), with one pair of redactors per file, as a session has;
- strings put together from pieces of keys of every shape, their look-alikes, prefixes,
  signatures, keywords, token characters and separators (hypothesis), short and long, so
  that every edge of a token run and both ways of looking keywords up are met.

``BOUGH_REDACT_SAME=full`` makes it the full check (what was run once to prove the change):
the huge hostile line, the real-file history at the benchmark's "realcode" size, the
``--redact-paths`` variant on every source and ten times the examples. The default is the
light version, a few seconds.
"""

from __future__ import annotations

import os
import random
import re
import re._constants as _C
import re._parser as _P
import string
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site import redact, redact_files, redact_search, redact_shapes, redact_table
from bough_site.redact import Redactor
from bough_site.redact_table import RULES
from bough_site.redact_rules import CONTEXT_SHAPES, SHAPES, lookalike, sample

from corpus.redact_reference import _LOOSE_TOKEN_RE, ReferenceRedactor
from corpus.redact_reference import looks_random as reference_looks_random

KEY = b"test-same-key"
FULL = os.environ.get("BOUGH_REDACT_SAME") == "full"
EXAMPLES = Path(__file__).resolve().parents[1] / "bough_site" / "examples"
FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"  # beside the checkout, if there

# Long text around the pieces: code dense with keywords (every gate open, a Read's numbered
# lines), prose (non-ASCII, no "=" or ":"), and arrows (a string of two-byte characters).
CODE = "\n".join([
    "    for key, value in sorted(mapping.items(), key=lambda kv: kv[0]):",
    "        tokens = tokenizer.encode(text)  # count tokens before the request",
    "    if not auth.is_valid(): raise AuthError('bad secret or token')",
    '    "usage": {"input_tokens": 1200, "output_tokens": 85, "cache_read_input_tokens": 0},',
    "    12→from os.path import join as path_join  # password_min_length = 12",
    "curl -s https://api.example.test/v1/items?page=2&limit=50 -H 'Accept: application/json'",
] * 8)
PROSE = "\n".join(["the token session café 日本語 key auth pass secret cookie login value ✓ naïve"] * 12)
_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path")


def _strings(v: Any) -> tuple[list[str], list[str]]:
    """The dict keys and the str values in a JSON value."""
    keys: list[str] = []
    values: list[str] = []
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            values.append(x)
        elif isinstance(x, dict):
            keys.extend(x)
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return keys, values


def _paths(v: Any) -> set[str]:
    """The file paths a record names (a Read's, a Write's, a sidecar's file)."""
    out, stack = set(), [v]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            out.update(x[k] for k in _PATH_KEYS if isinstance(x.get(k), str))
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


def _records(path: Path) -> Iterator[tuple[str, Any]]:
    """Each line of a transcript (or a whole JSON file) as text, and parsed where it parses."""
    data = path.read_bytes()
    lines = [data] if path.suffix == ".json" else data.split(b"\n")
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            record = None
        yield line.decode("utf-8", "replace"), record


class _Pair:
    """A Redactor and a ReferenceRedactor fed the same calls."""

    def __init__(self, **options: Any) -> None:
        self.new, self.old = Redactor(KEY, **options), ReferenceRedactor(KEY, **options)
        self.calls = 0

    def same(self, method: str, *args: Any) -> None:
        new, old = getattr(self.new, method)(*args), getattr(self.old, method)(*args)
        assert new == old, (method, [a[:200] if isinstance(a, str) else type(a) for a in args])
        self.calls += 1

    def done(self) -> None:
        assert self.new.counts == self.old.counts


def _check_tree(root: Path, **options: Any) -> int:
    """Every transcript under root through both redactors; how many calls were compared."""
    files = sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file())
    assert files, root
    calls = 0
    for path in files:
        pair = _Pair(**options)
        for line, record in _records(path):
            pair.same("text", line)
            if record is None:
                continue
            pair.same("value", record)  # text() of every str value
            keys, values = _strings(record)
            for key in keys:
                pair.same("text", key)
            for name in _paths(record):
                if FULL or redact_files.is_sensitive_path(name):  # else file_text is text, compared above
                    for value in values:
                        pair.same("file_text", name, value)
        pair.done()
        calls += pair.calls
    return calls


_VARIANTS = [{}, {"home": "/home/dev", "user": "dev"}] if FULL else [{}]


@pytest.fixture(autouse=True)
def _fresh_process_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """What this process found in long strings before is not this test's to reuse."""
    monkeypatch.setattr(redact, "_FOUND", {})


@pytest.mark.parametrize("options", _VARIANTS)
@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
def test_the_real_fixtures(kind: str, options: dict[str, str]) -> None:
    folder = FIXTURES / kind
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here (the shared fixtures live beside the checkout)")
    assert _check_tree(folder, **options) > 100


@pytest.mark.parametrize("options", _VARIANTS)
def test_the_bundled_examples(options: dict[str, str]) -> None:
    for _ in range(10 if FULL else 1):
        assert _check_tree(EXAMPLES, **options) > 100


@pytest.mark.parametrize("options", _VARIANTS)
def test_the_secret_zoo(tmp_path: Path, options: dict[str, str]) -> None:
    from corpus.secrets import write_secret_zoo

    zoo = write_secret_zoo(tmp_path)
    assert _check_tree(zoo.projects, **options) > 100
    pair = _Pair(**options)
    for text in [*zoo.secrets, *zoo.lookalikes]:
        pair.same("text", text)
        pair.same("text", f"my key is {text}. Done")
    pair.done()


@pytest.mark.parametrize("options", _VARIANTS)
def test_the_hostile_history(tmp_path: Path, options: dict[str, str]) -> None:
    from corpus.hostile import write_hostile_history

    expected = write_hostile_history(tmp_path, huge=FULL)
    assert _check_tree(expected.projects, **options) > 100


_FEW_REAL_FILES = ["json/decoder.py", "os.py", "re/_parser.py", "textwrap.py", "urllib/parse.py", "base64.py"]


@pytest.mark.parametrize("options", _VARIANTS)
def test_a_history_reading_real_files(tmp_path: Path, options: dict[str, str]) -> None:
    from corpus.claude import generate_claude_history
    from corpus.realcode import RealFiles

    if FULL:  # the benchmark's "realcode" history (benchmarks/bench.py), all of the standard library
        shape = {"projects": 6, "sessions_per_project": 3, "turns_per_session": 200, "output_kb": 9}
        real = RealFiles.stdlib()
    else:
        shape = {"projects": 1, "sessions_per_project": 2, "turns_per_session": 12, "output_kb": 1}
        real = RealFiles(Path(sysconfig.get_paths()["stdlib"]), _FEW_REAL_FILES)
    generate_claude_history(tmp_path, seed=3, real_files=real, **shape)
    assert _check_tree(tmp_path / "projects", **options) > 100


# ---- strings made of the pieces secrets and their look-alikes are made of -------------------

def _pieces() -> list[str]:
    rng = random.Random(20261201)
    out: list[str] = []
    for shape in SHAPES:
        value = sample(shape, rng)
        cut = rng.randrange(1, len(value))
        out += [value, lookalike(shape, value), value[:cut], value[cut:], shape.prefix or shape.anchor or ""]
    for _ in range(40):  # unknown keys: random letters and digits, behind a prefix or not
        body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randrange(20, 70)))
        out += [body, f"acme_{body}", f"xyz-live-{body}", f"msg_{body}"]
    # Word joins, vendor prefixes before runs not of their layout, keys told by their provider's name.
    vendors = sorted({s.vendor for s in SHAPES if s.vendor})
    for _ in range(30):
        body = "".join(rng.choice(string.ascii_letters + string.digits + "+/_-") for _ in range(rng.randrange(20, 60)))
        out += [rng.choice(vendors) + body, "_" + body, body + "_"]
    for shape in CONTEXT_SHAPES:
        value = sample(shape, rng)
        out += [value, value[: len(value) // 2], *shape.words, shape.words[0].upper() + "_SETTING="]
    out += ["mcp__", "__query", "backup_", ".txt", "x_", "cloudflared", "datadoghq", "AWSd", "un"]
    out += sorted({k for rule in RULES for k in rule.keywords})
    out += ["key", "token", "secret", "password", "API key", "Bearer ", "is my key", "keyboard", "tokenizer",
            "NAME=", "PASSWORD=", "api_key: ", '"token": "', "--password ", "?token=", "&password=", "&&", "?", "&",
            "://user:", "@host", ";Password=", "-----BEGIN RSA PRIVATE KEY-----", "eyJ", ".", "-", "_", "Q~", "AzFu"]
    out += ["a" * 19, "b" * 20, "Ab3" * 8, "0123456789abcdef" * 3, "=" * 24, "x/y+z" * 6]
    out += [" ", "  ", "\n", "\t", ". ", "! ", "? ", ",", ";", '"', "'", "(", ")", "<", ">", "#", "|", "\\",
            "é", "→", "日本", "\u212a", "\u0130", "\ud800", "\x00"]
    return [p for p in out if p]


PIECES = _pieces()
_joined = st.lists(st.sampled_from(PIECES), min_size=1, max_size=40).map("".join)


@settings(max_examples=3000 if FULL else 250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_joined, st.sampled_from(["", PROSE, CODE, "→ " * 120]), st.booleans())
def test_strings_made_of_pieces_of_secrets(s: str, pad: str, pad_first: bool) -> None:
    redact._FOUND.clear()
    pair = _Pair()
    text = pad + s if pad_first else s + pad
    pair.same("text", text)
    pair.same("text", s)
    pair.same("file_text", ".env", text)
    pair.same("file_text", "config/app.py", s)
    pair.done()


@settings(max_examples=1000 if FULL else 150, deadline=None)
@given(st.text(alphabet=st.sampled_from(string.ascii_letters + string.digits + "_-.+/=:~$!@% \n\"'é→"),
               max_size=600))
def test_any_text_of_token_characters_and_separators(s: str) -> None:
    redact._FOUND.clear()
    pair = _Pair()
    pair.same("text", s)
    pair.same("text", s + " my api key")
    pair.done()


# ---- why searching the joined runs finds what searching each run did ------------------------
#
# redact.py ("Token shapes") searches the token runs joined into one text, a space between two,
# instead of each run of s with finditer(s, lo, hi). The same matches come out when every
# character a pattern consumes is a token character (no match runs into the space), whatever a
# lookahead consumes is one too (at a run's end it fails on the space as on the end of s[:hi]),
# and a lookbehind reaches at most one character before the match, through a class of token
# characters (the space and whatever stands before a run in s are both outside it).

_RUN_CHARS = frozenset(redact_search._RUN_CHARS)
_BAD = object()


def _chars_of(item: tuple[Any, Any]) -> set[str] | object:
    """The characters a LITERAL or a class (IN) takes; _BAD for anything else (".", \\w, [^x] ...)."""
    op, av = item
    if op is _C.LITERAL:
        return {chr(av)}
    if op is _C.IN:
        out: set[str] = set()
        for kind, value in av:
            if kind is _C.LITERAL:
                out.add(chr(value))
            elif kind is _C.RANGE:
                out.update(chr(c) for c in range(value[0], value[1] + 1))
            else:  # NEGATE, CATEGORY
                return _BAD
        return out
    return _BAD


def _run_safe(seq: Any, problems: list[str], *, offset: int = 0, inside_lookahead: bool = False) -> None:
    """Append to ``problems`` what in this parsed pattern could see past a run's edge."""
    for item in seq:
        op, av = item
        if op in (_C.LITERAL, _C.IN):
            chars = _chars_of(item)
            if chars is _BAD or not chars <= _RUN_CHARS:  # type: ignore[operator]
                problems.append(f"takes a character that is no token character: {item}")
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
            _run_safe(av[2], problems, offset=offset, inside_lookahead=inside_lookahead)
        elif op is _C.SUBPATTERN:
            _run_safe(av[3], problems, offset=offset, inside_lookahead=inside_lookahead)
        elif op is _C.BRANCH:
            for branch in av[1]:
                _run_safe(branch, problems, offset=offset, inside_lookahead=inside_lookahead)
        elif op in (_C.ASSERT, _C.ASSERT_NOT) and av[0] == 1:
            _run_safe(av[1], problems, offset=offset, inside_lookahead=True)
        elif op in (_C.ASSERT, _C.ASSERT_NOT) and av[0] == -1 and not inside_lookahead:
            width = _P.SubPattern(_P.State(), av[1]).getwidth()[0]
            if any(op not in (_C.LITERAL, _C.IN, _C.ANY) for op, _ in av[1]):
                problems.append(f"a lookbehind holds more than single characters: {av[1]}")
            elif width > offset + 1:
                problems.append(f"a lookbehind reaches {width - offset} characters before the match")
            elif width == offset + 1 and (_chars_of(av[1][0]) is _BAD or not _chars_of(av[1][0]) <= _RUN_CHARS):
                problems.append(f"a lookbehind looks before the match with more than token characters: {av[1][0]}")
        else:  # ".", \w and the like, ^ $ \b, back references, a lookbehind inside a lookahead
            problems.append(f"cannot tell a run's edge from a space: {item}")
        if op not in (_C.ASSERT, _C.ASSERT_NOT):
            offset += _P.SubPattern(_P.State(), [item]).getwidth()[0]


def _edge_problems(pattern: re.Pattern[str]) -> list[str]:
    problems = ["ignores case (a Kelvin sign before a run is a k)"] if pattern.flags & re.IGNORECASE else []
    _run_safe(_P.parse(pattern.pattern, pattern.flags), problems)
    return problems


def _joined_patterns() -> list[tuple[str, re.Pattern[str]]]:
    out = [(f"shape {s.provider}", s.regex) for s in SHAPES]
    out += [(f"named by its provider: {s.provider}", s.regex) for s in CONTEXT_SHAPES]
    return out + [("prefix trie", redact_shapes._prefix_re()), ("signatures", redact_shapes._LONG_ANCHOR_RE),
                  ("prefixed-key", redact_shapes._PREFIXED_KEY_RE), ("keyword-secret tokens", redact_shapes._MIXED_TOKEN_RE)]


@pytest.mark.parametrize(("name", "pattern"), _joined_patterns(), ids=[n for n, _ in _joined_patterns()])
def test_patterns_searched_over_joined_runs_cannot_see_past_a_run(name: str, pattern: re.Pattern[str]) -> None:
    assert " " not in _RUN_CHARS
    assert _edge_problems(pattern) == []


def test_the_check_of_run_edges_finds_what_would_differ() -> None:
    """The check above is not blind: each pattern here would find other matches in the joined text."""
    for bad in [r"\w{20}", r"[A-Za-z ]{20}", r"(?<![A-Za-z]{2})x", r"(?<!#)x", r"x{20}$", r"\bx{20}", r"x{20}(?=.)",
                r"[^#]{20}", r"(?<!a(?=b))x", r"(?i)x{20}"]:
        assert _edge_problems(re.compile(bad)), bad


def _positives() -> list[str]:
    """Texts that the rules checked below match: a sample of every shape (the older rules find
    the legacy ones), and made-up values for the rules no shape stands for."""
    rng = random.Random(7)
    out = [f"use {sample(shape, rng)} here" for shape in SHAPES for _ in range(3)]
    return out + [
        "DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=" + "Zm9vYmFyYmF6cXV4" * 4 + "Zg==;",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl",
        "GET https://api.example.test/cb?access_token=q7Tr2kLm9PzX&state=1",
        "docker login registry.example.test -u deploy -p Zq8vLr2mTx",
        "mysql -h db.internal -u root -pWq7zLm2Rt appdb",
    ]


_POSITIVES = _positives()


@pytest.mark.parametrize("index", [i for i, r in enumerate(RULES) if r.in_runs])
def test_in_runs_rules_match_only_inside_runs(index: int) -> None:
    """A keyword of an in_runs rule is looked up in the runs of 15 or more token characters only
    (redact_table.Rule.in_runs): every match must be that long, of token characters, holding a keyword."""
    rule = RULES[index]
    tree = _P.parse(rule.pattern, rule.flags)
    assert tree.getwidth()[0] >= redact_search._RULE_RUN_MIN
    assert rule.case_sensitive and not rule.flags & re.IGNORECASE and rule.reach == 0

    def consumed(seq: Any) -> set[str]:
        out: set[str] = set()
        for op, av in seq:
            if op in (_C.LITERAL, _C.IN):
                chars = _chars_of((op, av))
                assert chars is not _BAD, (op, av)
                out |= chars  # type: ignore[operator]
            elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
                out |= consumed(av[2])
            elif op is _C.SUBPATTERN:
                out |= consumed(av[3])
            elif op is _C.BRANCH:
                for branch in av[1]:
                    out |= consumed(branch)
            else:
                assert op in (_C.ASSERT, _C.ASSERT_NOT), op
        return out

    assert consumed(tree) <= _RUN_CHARS
    texts = [t for t in _POSITIVES if rule.regex.search(t)]
    assert texts
    for text in texts:
        for m in rule.regex.finditer(text):
            assert any(kw in m.group() for kw in rule.keywords), m.group()


@pytest.mark.parametrize("index", [i for i, r in enumerate(RULES) if r.starts])
def test_rules_tried_at_their_first_characters_start_with_them(index: int) -> None:
    rule = RULES[index]
    tree = _P.parse(rule.pattern, rule.flags)
    assert _chars_of(tree[0]) == set(rule.starts)
    assert tree.getwidth()[0] >= 1 and rule.reach == 0


@settings(max_examples=400 if FULL else 100, deadline=None)
@given(st.lists(st.sampled_from(["?", "&", "&&", "token=", "password=abc", "x", "=", " ", "\n", "?a=b&key=v"]),
                max_size=80).map("".join))
def test_matches_starting_at_their_characters_are_finditer_s(s: str) -> None:
    for rule in [r for r in RULES if r.starts]:
        assert [m.span() for m in redact_search._matches_starting(rule.regex, s, rule.starts)] == [
            m.span() for m in rule.regex.finditer(s)]


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.anchor], ids=lambda s: s.provider)
def test_a_signature_is_in_every_match_of_its_shape(shape: Any) -> None:
    """A short signature's shapes search every run (a run without it holds no match)."""
    assert any(isinstance(part, str) and shape.anchor in part for part in shape.parts)


_TOKEN_CHARS = string.ascii_letters + string.digits + "_+/=-"


@settings(max_examples=500 if FULL else 150, deadline=None)
@given(st.lists(st.sampled_from([*_TOKEN_CHARS, " ", ".", ":", "é", "aB3", "x" * 30, "Ab9" * 90]),
                max_size=120).map("".join))
def test_mixed_tokens_are_the_loose_tokens_with_all_three_classes(s: str) -> None:
    loose = [m.span() for m in _LOOSE_TOKEN_RE.finditer(s)
             if any(c.isupper() for c in m.group()) and any(c.islower() for c in m.group())
             and any(c.isdigit() for c in m.group())]
    assert [m.span() for m in redact_shapes._MIXED_TOKEN_RE.finditer(s)] == loose


@settings(max_examples=500 if FULL else 150, deadline=None)
@given(st.text(alphabet=st.sampled_from([*_TOKEN_CHARS, "é", "Ǆ", "٣", "\u212a", ".", " "]), max_size=80),
       st.integers(0, 40))
def test_looks_random_is_what_it_was(token: str, least: int) -> None:
    assert redact_shapes.looks_random(token, least=least) == reference_looks_random(token, least=least)


@pytest.mark.parametrize("index", [i for i, r in enumerate(RULES) if r.holds])
def test_rules_hold_the_literal_they_name(index: int) -> None:
    """A string without a rule's Rule.holds skips the rule: the literal is in its pattern's
    top-level sequence (not in a branch, a repeat or a lookaround), so in every match."""
    rule = RULES[index]
    top = _P.parse(rule.pattern, rule.flags)
    literals = "".join(chr(av) if op is _C.LITERAL else "\0" for op, av in top)
    assert rule.holds in literals and not rule.flags & re.IGNORECASE
    assert [t for t in _POSITIVES if rule.regex.search(t)]


@settings(max_examples=400 if FULL else 150, deadline=None)
@given(st.lists(st.sampled_from(["-", "--", "key", "KEY", "token", "secret", "u", "U", "x", " ", "-u", "-k"]),
                max_size=40).map("".join))
def test_dash_keywords_are_found_where_find_finds_them(s: str) -> None:
    scan = redact_search._Scan(s)
    for kw in redact_search._DASH_KEYWORDS:
        assert scan.occurs(kw, False) is (kw in s.lower())
        assert scan.hits(kw, False) == [i for i in range(len(s)) if s.lower().startswith(kw, i)]


def test_a_prefixed_key_holds_32_letters_and_digits_in_a_row() -> None:
    """Text without 32 letters and digits in a row skips the prefixed-key search (redact_shapes._ALNUM_32)."""
    tree = _P.parse(redact_shapes._PREFIXED_KEY_RE.pattern)
    body = next(av for op, av in tree if op is _C.SUBPATTERN and av[0] == redact_shapes._PREFIXED_KEY_RE.groupindex["r"])[3]
    (op, (least, _most, item)), = body
    assert op is _C.MAX_REPEAT and least == len(redact_shapes._ALNUM_32)
    assert _chars_of(item[0]) == set(string.ascii_letters + string.digits)
    assert bytes(redact_shapes._ALNUM_MAP).count(b"a") == 62
