"""bough_site/render/lexing.py: Pygments' RegexLexer loop, narrowed by the next
character, must give exactly Pygments' tokens (the block store's keys and every
page assume so)."""

from __future__ import annotations

import inspect
import random
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygments.lexer import RegexLexer
from pygments.lexers import PythonLexer, YamlLexer, find_lexer_class, get_all_lexers

from bough_site.render import highlight as highlight_module
from bough_site.render import lexer_choice
from bough_site.render import lexing
from bough_site.render.blockstore import BlockStore
from bough_site.render.highlight import highlight
from bough_site.render.highlight_budget import OUTPUT

STDLIB = Path(inspect.getfile(textwrap)).parent

# Text that walks through many lexers' states: code in several languages,
# markup, quoting and escapes, then characters a regex class can get wrong.
MIXED = textwrap.dedent('''\
    #!/usr/bin/env bash
    set -euo pipefail  # comment
    for f in "$@"; do echo "${f%.py}" | sed -e 's/a/b/g' >> out.txt; done
    def f(x: int = 0x1F, *args, **kw) -> str:
        """Doc "string" with 'quotes'."""
        return f"{x!r:>10} {kw['k']}" + r'\\d+' + b"\\x00"
    @decorator
    class A(B, metaclass=M): pass
    SELECT id, name FROM users WHERE age >= 18 AND name LIKE '%a%' ORDER BY 1;
    <div class="x" id='y'><!-- c --><script>var a = 1 < 2 && b;</script></div>
    {"key": [1, 2.5e-3, true, null], "s": "esc \\" \\u00e9"}
    key = "value"  # TOML
    [section.sub]
    fn main() { let v: Vec<u8> = vec![1, 2]; println!("{}", v.len()); }
    /* block */ int main(void) { return 0; } // line
    - item: yes
      other: [a, b]
    ''')


def _random_text(seed: int, length: int) -> str:
    alphabet = "abcXYZ019 \t\n\r{}[]()<>\"'`#;:/\\*-+=!?.,$@%^&|~_" + "éßΩ\u212a\u017fİ💡\x00\x7f"
    chosen = random.Random(seed)
    return "".join(chosen.choice(alphabet) for _ in range(length))


SAMPLES = [
    "",
    "x",
    "\n",
    MIXED,
    (STDLIB / "json" / "decoder.py").read_text(encoding="utf-8")[:1500],
    _random_text(1, 1500),
]


def _pygments_tokens(lexer: RegexLexer, text: str) -> object:
    try:
        return list(RegexLexer.get_tokens_unprocessed(lexer, text))
    except Exception as error:  # noqa: BLE001 - the same failure is part of "the same"
        return ("raised", type(error))


def _our_tokens(lexer: RegexLexer, text: str) -> object:
    try:
        return list(lexer.get_tokens_unprocessed(text))
    except Exception as error:  # noqa: BLE001
        return ("raised", type(error))


def _builtin_classes() -> list[type]:
    return [find_lexer_class(name) for name, _aliases, _patterns, _types in get_all_lexers(plugins=False)]


def test_every_builtin_regex_lexer_gives_pygments_tokens() -> None:
    sped_up = []
    for cls in _builtin_classes():
        lexer = lexing.speed_up(cls(stripnl=False, ensurenl=True))
        if "get_tokens_unprocessed" not in vars(lexer):
            continue
        sped_up.append(cls.__name__)
        for text in SAMPLES:
            assert _our_tokens(lexer, text) == _pygments_tokens(lexer, text), (cls.__name__, text[:40])
    # Most lexers run Pygments' own loop (423 of 598 in Pygments 2.20).
    assert len(sped_up) > 300 and "PythonLexer" in sped_up and "BashLexer" in sped_up


@pytest.mark.parametrize("module", ["textwrap.py", "string.py", "dataclasses.py", "json/encoder.py", "argparse.py"])
def test_python_from_the_standard_library_gives_pygments_tokens(module: str) -> None:
    lexer = lexing.speed_up(PythonLexer(stripnl=False, ensurenl=True))
    assert "get_tokens_unprocessed" in vars(lexer)
    text = (STDLIB / module).read_text(encoding="utf-8")
    assert list(lexer.get_tokens_unprocessed(text)) == list(RegexLexer.get_tokens_unprocessed(lexer, text))


@pytest.fixture
def lexing_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Texts lexed through lexing._tokens (an empty block store)."""
    monkeypatch.setattr(highlight_module._DEFAULT, "store", BlockStore(None))
    calls: list[str] = []
    real = lexing._tokens

    def counting(lexer: RegexLexer, states: object, text: str, stack: tuple[str, ...] = ("root",)) -> object:
        calls.append(text)
        return real(lexer, states, text, stack)

    monkeypatch.setattr(lexing, "_tokens", counting)
    lexer_choice.configured.cache_clear()
    yield calls
    lexer_choice.configured.cache_clear()


def test_a_page_block_is_lexed_through_the_narrowed_loop(lexing_calls: list[str]) -> None:
    code = "".join((STDLIB / "textwrap.py").read_text(encoding="utf-8").splitlines(keepends=True)[:150])
    ours = highlight(code, kind=OUTPUT, filename="textwrap.py")
    assert lexing_calls == [code]
    lexer = lexer_choice.configured(PythonLexer)
    assert "get_tokens_unprocessed" in vars(lexer)
    # The same HTML as Pygments' own loop gives.
    plain = lexer_choice._configure(PythonLexer())
    assert str(ours) == f'<pre class="code"><code>{highlight_module._highlighted(code, plain)}</code></pre>'


# --- where it is not used ------------------------------------------------------------


def test_a_lexer_with_its_own_loop_is_left_to_pygments() -> None:
    assert YamlLexer.get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed
    assert "get_tokens_unprocessed" not in vars(lexing.speed_up(YamlLexer()))


def test_an_unknown_pygments_loop_is_left_to_pygments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexing, "_KNOWN_LOOPS", frozenset())
    lexing._loop_is_known.cache_clear()
    try:
        assert "get_tokens_unprocessed" not in vars(lexing.speed_up(PythonLexer()))
    finally:
        lexing._loop_is_known.cache_clear()


def test_the_installed_pygments_loop_is_the_one_mirrored() -> None:
    # Fails on a Pygments whose loop changed: compare it with lexing._tokens,
    # then add its digest to _KNOWN_LOOPS.
    assert lexing._loop_is_known()


def test_rules_that_are_not_compiled_patterns_are_left_to_pygments() -> None:
    lexer = PythonLexer()
    lexer._tokens = {"root": [("not a pattern", None, None)]}
    assert "get_tokens_unprocessed" not in vars(lexing.speed_up(lexer))


# --- a rule's first characters -------------------------------------------------------


def _chars(pattern: str) -> str:
    return "".join(sorted(map(chr, lexing.first_chars(re.compile(pattern)).chars)))


def test_first_characters_of_simple_patterns() -> None:
    assert _chars(r"abc|d") == "ad"
    assert _chars(r"(?i)ab") == "Aa" and lexing.first_chars(re.compile(r"(?i)ab")).wide
    assert _chars(r"[0-9]+") == "0123456789" and not lexing.first_chars(re.compile(r"[0-9]+")).wide
    assert _chars(r"\s*x") == "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f x"
    assert _chars(r"(?<=a)\b(?:if|in)\b") == "i"
    assert "5" not in _chars(r"[^\W\d]\w*") and "_" in _chars(r"[^\W\d]\w*")
    assert lexing.first_chars(re.compile(r"é")).wide and _chars(r"é") == ""


@pytest.mark.parametrize("pattern", [r"", r"a?", r"\s*", r".", r"[^a]", r"[^ab]", r"(?i)\u017f", r"(?i:[\u0100-\u0200])", r"(?a)\w", r"(a)?\1"])
def test_what_may_be_empty_or_is_not_understood_is_tried_everywhere(pattern: str) -> None:
    found = lexing.first_chars(re.compile(pattern))
    if pattern == r"[^ab]":  # understood: every character but these two
        assert "a" not in _chars(pattern) and found.wide and len(found.chars) == 126
    else:
        assert found is lexing.ANYWHERE


def test_first_characters_hold_every_character_a_match_begins_with() -> None:
    patterns = [rule[0].__self__ for cls in (PythonLexer,) for rules in cls()._tokens.values() for rule in rules]
    patterns += [re.compile(p) for p in (r"(?i)select\b", r"(?i:[k])", r"[A-Z_]\w*", r"0[xX][a-fA-F0-9]+")]
    texts = [chr(code) + rest for code in [*range(128), 0xE9, 0x212A, 0x17F, 0x130] for rest in ("", "a", "1 ", '"""x"""', "elect", "x1F")]
    for pattern in patterns:
        found = lexing.first_chars(pattern)
        for text in texts:
            match = pattern.match(text)
            if match and match.end() > 0:
                assert found is lexing.ANYWHERE or (ord(text[0]) in found.chars if ord(text[0]) < 128 else found.wide), (pattern.pattern, text)
