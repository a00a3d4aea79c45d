"""A secret is found wherever it sits, however cheaply the search looks for it.

The search is made cheap in ways that must change no output: keywords gate the rules, a
short string meets one trie and a long one its keyword lookups, windowed rules run only
around their keywords, the token runs are joined into one text for the shapes and the
fallback, results are kept per process and per Redactor. These tests state what must come
out on generated inputs (each expected redaction written out, or a property every output
has), not that the output equals a second copy of the redactor:

- a secret of every shape planted at any offset in any text, one or many (each in a token
  run of its own), short strings and long, glued by "_": redacted with its own label, and
  the text around it unchanged, and a second pass over the output changes nothing
  (``test_secrets_planted_anywhere_in_any_text``, ``test_secrets_glued_by_underscores_anywhere``);
- strings put together from pieces of keys, their look-alikes, prefixes, signatures,
  keywords and separators (overlapping candidates, word joins, both ways of looking keywords
  up): what a line gives does not depend on the text around it, so the long-string search
  finds what the short one does, line by line (``test_a_line_is_redacted_alone_whatever_stands_around_it``,
  ``test_any_text_of_token_characters_and_separators``). (Twice is not always once there: a
  fallback token that lost to a provider key glued inside it can be found on a second pass,
  without the key; what a transcript holds is checked below.)
- a sensitive file's every value, whatever it is (``test_every_value_of_a_sensitive_file``);
- whole transcripts (the bundled examples, the secret zoo, the hostile history, a history
  reading real files, the shared real fixtures when present): ``value`` is ``text`` of each
  string and key, redacting twice changes nothing, what the process kept changes nothing, and
  the zoo's secrets are gone while its look-alikes stay (``test_*_transcripts``);
- then why searching the joined runs is the same as searching each run: no pattern the joined
  text meets can see past a run's edge, and the other shortcuts' facts (in_runs, starts, holds,
  the dash keywords, the 32-character stretch, ``looks_random``'s properties).

``BOUGH_REDACT_FOUND=full`` runs more examples and the benchmark's "realcode" history.
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

from bough_site import redact, redact_search, redact_shapes
from bough_site.redact import Redactor
from bough_site.redact_files import is_sensitive_path
from bough_site.redact_rules import CONTEXT_SHAPES, SHAPES, Shape, lookalike, sample
from bough_site.redact_table import RULES

from .helpers import KEY
from .helpers import redaction_label as label

FULL = os.environ.get("BOUGH_REDACT_FOUND") == "full"
EXAMPLES = Path(__file__).resolve().parents[1] / "bough_site" / "examples"
FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"  # beside the checkout, if there

# Long text around the pieces: code dense with keywords (every gate open, a Read's numbered
# lines), prose (non-ASCII, no "=" or ":"), and arrows (a string of two-byte characters).
# None of them holds a secret (test_the_pads_hold_no_secret).
CODE = "\n".join([
    "    for key, value in sorted(mapping.items(), key=lambda kv: kv[0]):",
    "        tokens = tokenizer.encode(text)  # count tokens before the request",
    "    if not auth.is_valid(): raise AuthError('bad secret or token')",
    '    "usage": {"input_tokens": 1200, "output_tokens": 85, "cache_read_input_tokens": 0},',
    "    12→from os.path import join as path_join  # password_min_length = 12",
    "curl -s https://api.example.test/v1/items?page=2&limit=50 -H 'Accept: application/json'",
] * 8)
PROSE = "\n".join(["the token session café 日本語 key auth pass secret cookie login value ✓ naïve"] * 12)
ARROWS = "→ " * 120
PADS = ["", PROSE, CODE, ARROWS]


@pytest.fixture(autouse=True)
def _fresh_process_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """What this process found in long strings before is not this test's to reuse."""
    monkeypatch.setattr(redact, "_FOUND", {})


def _redacted(shape: Shape, value: str) -> str:
    """A shape's value as it must come out: its label (after the literal part a shape keeps)."""
    keep = len(shape.prefix) if shape.keeps_prefix else 0
    return value[:keep] + label(shape.kind, value[keep:])


def test_the_pads_hold_no_secret() -> None:
    r = Redactor(KEY)
    assert [r.text(pad) for pad in PADS] == PADS
    assert r.counts == {}


# ---- secrets planted anywhere ------------------------------------------------------------------

# Text around a planted secret: lower-case words, white space, punctuation and non-ASCII, but no
# digit, capital, "_", "-", "=", ":", "/" or "@": nothing in it can be a key, a NAME=value, a URL
# or a header, and nothing can glue itself to the key.
_FILLER = st.text(alphabet=st.sampled_from(string.ascii_lowercase + "  \n\t.,;!?()'\"é→日✓"), max_size=400)
# What stands right before and after a key: what a prompt, a listing or a log puts there.
_BEFORE = st.sampled_from([" ", "\n", "  ", "\t", " (", ' "', " key "])
_AFTER = st.sampled_from([" ", "\n", ". ", ") ", '" ', ", "])
_SHAPE = st.integers(0, len(SHAPES) - 1)


def _goes_on(shape: Shape, char: str) -> bool:
    """Can the last part of a key of this shape go on with ``char``?"""
    last = shape.parts[-1]
    return not isinstance(last, str) and re.fullmatch(f"[{last[0]}]", char) is not None


@st.composite
def _planted(draw: Any) -> tuple[str, str, dict[str, int]]:
    """(a text with 1 to 6 keys of any shapes in it, the text as it must come out, the counts)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    pad = draw(st.sampled_from(PADS))
    parts, expected, counts = [pad + "\n" if pad else ""], [pad + "\n" if pad else ""], {}
    for _ in range(draw(st.integers(1, 6))):
        shape = SHAPES[draw(_SHAPE)]
        value = sample(shape, rng)
        filler, before, after = draw(_FILLER), draw(_BEFORE), draw(_AFTER)
        if _goes_on(shape, after[0]):
            after = " " + after  # a key whose alphabet holds the "." or "," after it takes it: its format's end
        parts += [filler, before, value, after]
        expected += [filler, before, _redacted(shape, value), after]
        counts[shape.kind] = counts.get(shape.kind, 0) + 1
    return "".join(parts), "".join(expected), counts


@settings(max_examples=1500 if FULL else 200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_planted())
def test_secrets_planted_anywhere_in_any_text(planted: tuple[str, str, dict[str, int]]) -> None:
    """Every key is found with its own label and nothing else changes: at the start or the end of
    a string, in a short string and in a long one (behind prose or keyword-dense code), alone in
    its token run or one of many runs of one string."""
    text, expected, counts = planted
    r = Redactor(KEY)
    assert r.text(text) == expected
    assert dict(r.counts) == counts
    assert r.text(text) == expected  # again: from what the Redactor and the process kept
    again = Redactor(KEY)
    assert again.text(expected) == expected and again.counts == {}  # redacting twice changes nothing
    record = {"text": text, text[:50]: [text, {"k": expected}]}
    assert again.value(r.value(record)) == r.value(record)


def test_a_labels_kind_is_no_secret_word_for_the_token_after_it() -> None:
    """Found by the test above: a key cut short (a string's first 50 characters, as a
    JSON key) is no key's shape and stays; its label's kind ("aws-access-key") before
    it must not make it a keyword secret when the text is redacted again."""
    text = " AKIA2CQ7ZT6WNISIGQJT  ghp_uE52rVejGWbUno6N9jec3hQ"
    once = Redactor(KEY).text(text)
    assert once.startswith(" [redacted: aws-access-key ") and once.endswith("  ghp_uE52rVejGWbUno6N9jec3hQ")
    assert Redactor(KEY).text(once) == once
    assert "keyword-secret" in Redactor(KEY).text("my key: ghp_uE52rVejGWbUno6N9jec3hQ")  # a word still is


@settings(max_examples=600 if FULL else 120, deadline=None)
@given(_SHAPE, st.integers(0, 2**32), _FILLER, st.sampled_from(["backup_{} done", "mcp__{} done", "x_{}", "mcp__{}__query"]),
       st.sampled_from(PADS))
def test_secrets_glued_by_underscores_anywhere(index: int, seed: int, filler: str, join: str, pad: str) -> None:
    """A key after "_" (a file name, an MCP tool's name), and before one where its format says
    where it ends, is found at any place of any text, as tests/test_redact_joins.py finds it in
    a short string."""
    shape = SHAPES[index]
    value = sample(shape, random.Random(seed))
    last = shape.parts[-1]
    pinned = isinstance(last, str) or last[1] == last[2] or "_" not in last[0]
    if join.endswith("__query") and (shape.legacy or not pinned):
        join = "x_{}"  # "_" may go on this key: where it ends is the format's (test_redact_joins.py)
    head = pad + "\n" + filler + " "
    r = Redactor(KEY)
    assert r.text(head + join.format(value)) == head + join.format(_redacted(shape, value))
    assert dict(r.counts) == {shape.kind: 1}


# ---- strings made of the pieces secrets and their look-alikes are made of ----------------------

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
    out += [" ", "  ", "\t", ". ", "! ", "? ", ",", ";", '"', "'", "(", ")", "<", ">", "#", "|", "\\",
            "é", "→", "日本", "\u212a", "\u0130", "\ud800", "\x00"]
    return [p for p in out if p]


PIECES = _pieces()
# One line of pieces (no line break: the property below is about lines).
_line = st.lists(st.sampled_from(PIECES), min_size=1, max_size=40).map("".join)


@settings(max_examples=1500 if FULL else 200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, min_size=1, max_size=4), st.sampled_from(PADS))
def test_a_line_is_redacted_alone_whatever_stands_around_it(lines: list[str], pad: str) -> None:
    """Lines apart (a blank line between, so no sentence, header or assignment spans two) are
    redacted as each line alone: a short line by the one-trie lookup, the whole by the gates,
    the keyword windows and the joined runs of a long string. So whichever way the search
    goes, every candidate a line holds is found, overlaps settle the same way, and nothing of
    the text around a line (keyword-dense code, prose naming keys) changes what is found in it.
    A private key block with no END line runs to the end of the string: it is last or absent."""
    begin = [line for line in lines if "-----BEGIN" in line]
    if begin:
        lines = [line for line in lines if "-----BEGIN" not in line] + begin[:1]
    text = "\n\n".join([pad, *lines]) if pad else "\n\n".join(lines)
    alone = Redactor(KEY)
    expected = "\n\n".join(([pad] if pad else []) + [alone.text(line) for line in lines])
    together = Redactor(KEY)
    assert together.text(text) == expected
    assert together.counts == alone.counts


@settings(max_examples=1000 if FULL else 150, deadline=None)
@given(st.text(alphabet=st.sampled_from(string.ascii_letters + string.digits + "_-.+/=:~$!@% \n\"'é→"),
               max_size=600))
def test_any_text_of_token_characters_and_separators(s: str) -> None:
    """Any text: a line is redacted alone (above), twice is once, and a non-sensitive file's
    text is its text."""
    r = Redactor(KEY)
    out = r.text(s)
    assert Redactor(KEY).text(out) == out
    assert Redactor(KEY).file_text("src/app.py", s) == out
    lines = s.split("\n")
    if not any("-----BEGIN" in line for line in lines):
        assert Redactor(KEY).text("\n\n".join(lines)) == "\n\n".join(Redactor(KEY).text(line) for line in lines)


# ---- sensitive files ------------------------------------------------------------------------------

_NAMES = st.sampled_from(["DEBUG", "PORT", "APP_NAME", "DATABASE_HOST", "LOG_LEVEL", "region", "export REGION"])
_PLAIN_VALUE = st.text(alphabet=st.sampled_from(string.ascii_lowercase + string.digits + ".!%"), min_size=1, max_size=40)


@settings(max_examples=400 if FULL else 100, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.sampled_from(["=", ": ", " = "]), _PLAIN_VALUE), min_size=1, max_size=12),
       st.sampled_from([".env", "config/.env.local", "secrets.yaml", "/home/dev/.aws/credentials"]))
def test_every_value_of_a_sensitive_file(lines: list[tuple[str, str, str]], path: str) -> None:
    """In a sensitive file every value goes, whatever it is (``DEBUG=true`` too), as
    ``sensitive-file``; the names stay. Elsewhere the same text comes through."""
    lines = [(n, sep, v) for n, sep, v in lines if v != "null"]
    text = "".join(f"{n}{sep}{v}\n" for n, sep, v in lines)
    r = Redactor(KEY)
    out = r.file_text(path, text)
    assert out == "".join(f"{n}{sep}{label('sensitive-file', v)}\n" for n, sep, v in lines)
    assert sum(r.counts.values()) == len(lines)
    assert Redactor(KEY).file_text(path, out) == out
    assert Redactor(KEY).file_text("notes/settings.txt", text) == text


# ---- whole transcripts ----------------------------------------------------------------------------

_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path")


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


def _strings(v: Any) -> list[str]:
    """Every str of a JSON value, dict keys too, in one fixed order (a stack: the hostile
    history nests deeper than recursion goes)."""
    out: list[str] = []
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for k, item in reversed(x.items()):
                stack += [item, k]
        elif isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
    return out


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


def _check_tree(root: Path, **options: Any) -> tuple[int, str]:
    """Every transcript under root: ``value`` is ``text`` of each string, twice is once, and a
    fresh process and Redactor give what the warmed ones gave. How many strings, and all the
    redacted text (for the callers' own checks)."""
    files = sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file())
    assert files, root
    seen, written = 0, []
    for path in files:
        warm = Redactor(KEY, **options)
        outs = []
        for line, record in _records(path):
            outs.append(warm.text(line))
            if record is None:
                continue
            strings = _strings(record)
            fresh = Redactor(KEY, **options)
            # value() is text() of every str value and key, in place (no two keys here become one).
            assert _strings(warm.value(record)) == [fresh.text(s) for s in strings]
            for s in strings:
                once = warm.text(s)
                assert Redactor(KEY).text(once) == once, s[:200]
            for name in _paths(record):
                if is_sensitive_path(name):
                    for s in strings:  # what this Redactor and the process kept changes nothing
                        assert warm.file_text(name, s) == Redactor(KEY, **options).file_text(name, s), name
            seen += len(strings)
        redact._FOUND.clear()
        cold = Redactor(KEY, **options)
        assert [cold.text(line) for line, _ in _records(path)] == outs
        written += outs
    return seen, "\n".join(written)


_VARIANTS = [{}, {"home": "/home/dev", "user": "dev"}]


@pytest.mark.parametrize("options", _VARIANTS)
def test_the_bundled_examples_transcripts(options: dict[str, str]) -> None:
    assert _check_tree(EXAMPLES, **options)[0] > 100


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini"])
def test_the_real_fixtures_transcripts(kind: str) -> None:
    folder = FIXTURES / kind
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here (the shared fixtures live beside the checkout)")
    assert _check_tree(folder)[0] > 100


def test_the_secret_zoo_transcripts(tmp_path: Path) -> None:
    """Every planted value gone from every string (its label there instead), every look-alike still there."""
    from corpus.secrets import write_secret_zoo

    zoo = write_secret_zoo(tmp_path)
    seen, written = _check_tree(zoo.projects)
    assert seen > 100
    assert [value[:12] for value in zoo.secrets if value in written] == []
    fingerprint = Redactor(KEY).fingerprint
    assert [v[:12] for v, kind in zoo.secrets.items() if f"[redacted: {kind} {fingerprint(v)}]" not in written] == []
    assert [text for text in zoo.lookalikes if text not in written] == []


def test_the_hostile_history_transcripts(tmp_path: Path) -> None:
    from corpus.hostile import write_hostile_history

    expected = write_hostile_history(tmp_path, huge=FULL)
    assert _check_tree(expected.projects)[0] > 100


_FEW_REAL_FILES = ["json/decoder.py", "os.py", "re/_parser.py", "textwrap.py", "urllib/parse.py", "base64.py"]


def test_a_history_reading_real_files_transcripts(tmp_path: Path) -> None:
    from corpus.claude import generate_claude_history
    from corpus.realcode import RealFiles

    if FULL:  # the benchmark's "realcode" history (benchmarks/bench.py), all of the standard library
        shape = {"projects": 6, "sessions_per_project": 3, "turns_per_session": 200, "output_kb": 9}
        real = RealFiles.stdlib()
    else:
        shape = {"projects": 1, "sessions_per_project": 2, "turns_per_session": 12, "output_kb": 1}
        real = RealFiles(Path(sysconfig.get_paths()["stdlib"]), _FEW_REAL_FILES)
    generate_claude_history(tmp_path, seed=3, real_files=real, **shape)
    assert _check_tree(tmp_path / "projects")[0] > 100


# ---- why searching the joined runs finds what searching each run did ------------------------
#
# redact_search.py ("Token runs") and redact_shapes.py search the token runs joined into one text, a space between two,
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
    (Rule.in_runs): every match must be that long, of token characters, holding a keyword."""
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
# What _MIXED_TOKEN_RE must find, said plainly: whole tokens of 24 to 256 of _TOKEN_CHARS
# (nothing of them on either side) that hold a capital, a small letter and a digit.
_WHOLE_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_+/=-])[A-Za-z0-9_+/=-]{24,256}(?![A-Za-z0-9_+/=-])")


@settings(max_examples=500 if FULL else 150, deadline=None)
@given(st.lists(st.sampled_from([*_TOKEN_CHARS, " ", ".", ":", "é", "aB3", "x" * 30, "Ab9" * 90]),
                max_size=120).map("".join))
def test_mixed_tokens_are_whole_tokens_with_all_three_classes(s: str) -> None:
    whole = [m.span() for m in _WHOLE_TOKEN_RE.finditer(s)
             if any(c.isupper() for c in m.group()) and any(c.islower() for c in m.group())
             and any(c.isdigit() for c in m.group())]
    assert [m.span() for m in redact_shapes._MIXED_TOKEN_RE.finditer(s)] == whole


@settings(max_examples=500 if FULL else 150, deadline=None)
@given(st.text(alphabet=st.sampled_from([*_TOKEN_CHARS, "é", "Ǆ", "٣", "\u212a", ".", " "]), max_size=80),
       st.integers(0, 40))
def test_looks_random_reads_the_ascii_letters_and_digits_only(token: str, least: int) -> None:
    """Only the ASCII letters and digits count (both ways of taking them, ASCII or not, agree);
    fewer than ``least`` of them, or a class missing, is never random."""
    alnum = "".join(c for c in token if c.isascii() and c.isalnum())
    looks = redact_shapes.looks_random(token, least=least)
    assert looks == redact_shapes.looks_random(alnum, least=least)
    assert looks == redact_shapes.looks_random(alnum + " é", least=least)
    if len(alnum) < least or alnum.isdigit() or alnum.lower() == alnum or alnum.upper() == alnum:
        assert not looks


def test_looks_random_on_what_is_and_is_not_drawn() -> None:
    rng = random.Random(5)
    drawn = ["".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40)) for _ in range(200)]
    assert sum(redact_shapes.looks_random(t, least=24) for t in drawn) >= 190
    names = ["ThisIsAVeryLongClassNameForTesting2024", "a1" * 20, "abcdefghijklmnopqrstuvwxyzABCDEF0123"]
    assert [n for n in names if redact_shapes.looks_random(n, least=24)] == []


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
