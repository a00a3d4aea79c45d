"""Pygments highlighting, diffs and the stylesheet."""

from __future__ import annotations

import difflib
import functools
import html
import inspect
import re
import sqlite3
from pathlib import Path
from typing import ClassVar

import pygments
import pygments.lexer
import pygments.lexers
import pygments.plugin
import pygments.util
import pytest
from markupsafe import Markup, escape
from pygments.formatters import HtmlFormatter
from pygments.lexers import find_lexer_class, get_lexer_by_name, get_lexer_for_filename
from pygments.lexers.special import TextLexer

from bough_site.render import highlight as highlight_module
from bough_site.render import lexer_choice
from bough_site.render.blockstore import BlockStore, collect, session_id, store_path
from bough_site.render.code_styles import stylesheet
from bough_site.render.highlight import (
    highlight_diff,
    highlight_hunks,
    highlight_patch,
    highlighting,
)
from bough_site.render.highlight_budget import OUTPUT, WRITTEN, Budget
from bough_site.render.highlight import highlight as highlight_as

PRE, END = '<pre class="code"><code>', "</code></pre>"
DPRE = '<pre class="code diff"><code>'
TAG = re.compile(r"<[^>]+>")
SPAN_CLASS = re.compile(r'<span class="([^"]*)">')


def highlight(code: str, *, kind: str = WRITTEN, **kwargs: object) -> Markup:
    """Lexing tests highlight as text an agent wrote unless they say otherwise."""
    return highlight_as(code, kind=kind, **kwargs)  # type: ignore[arg-type]


def text_of(markup: str) -> str:
    """What a reader sees: tags removed, entities decoded."""
    return html.unescape(TAG.sub("", markup))


def plain(code: str) -> str:
    return f"{PRE}{escape(code)}{END}"


@pytest.fixture(autouse=True)
def _no_guessing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Content-based lexer guessing is forbidden: make any use of it fail loudly."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("guess_lexer must not be used")

    monkeypatch.setattr(pygments.lexers, "guess_lexer", refuse)
    monkeypatch.setattr(pygments.lexers, "guess_lexer_for_filename", refuse)


# --- lexer choice ---------------------------------------------------------------


def test_python_by_filename_exact() -> None:
    out = highlight("def f():\n    return '<x>'\n", filename="src/pkg/x.py")
    assert isinstance(out, Markup)
    assert str(out) == (
        # Punctuation and the space look like plain text in both schemes: no span.
        f'{PRE}<span class="k">def</span> <span class="nf">f</span>():\n'
        '    <span class="k">return</span> <span class="s1">&#39;&lt;x&gt;&#39;</span>\n'
        f"{END}"
    )


LEXER_CASES = [
    # (kwargs, code, a span class that proves the lexer was used)
    ({"filename": "x.py"}, "import os\n", "kn"),
    ({"filename": "C:\\work\\x.py"}, "import os\n", "kn"),
    ({"filename": "Dockerfile"}, "FROM python:3.11\n", "k"),
    ({"filename": "/repo/Makefile"}, "all:\n\techo hi\n", "nf"),
    ({"filename": "data.json"}, '{"a": 1}\n', "nt"),
    ({"language": "bash"}, "echo hi\n", "nb"),
    ({"language": "BASH"}, "echo hi\n", "nb"),
    ({"language": "json"}, '{"a": true}\n', "kc"),
    ({"language": "diff"}, "+added\n-removed\n", "gi"),
    ({"language": "python"}, "class A: pass\n", "nc"),
    ({"language": "console"}, "$ ls\nfile\n", "gp"),
    # The file name wins over the language.
    ({"filename": "x.py", "language": "json"}, "import os\n", "kn"),
    # An unknown file name falls back to the language.
    ({"filename": "x.unknownext", "language": "python"}, "import os\n", "kn"),
]


@pytest.mark.parametrize(("kwargs", "code", "css_class"), LEXER_CASES)
def test_lexer_choice(kwargs: dict, code: str, css_class: str) -> None:
    out = str(highlight(code, **kwargs))
    assert out.startswith(PRE) and out.endswith(END)
    assert css_class in SPAN_CLASS.findall(out)
    assert text_of(out) == code


PLAIN_CASES = [
    ({}, "def f():\n    import os\n"),  # looks like Python, but nothing says so
    ({"filename": "x.unknownext"}, "def f():\n    import os\n"),
    ({"filename": ""}, "import os\n"),
    ({"filename": "/"}, "import os\n"),
    ({"language": "nosuchlanguage"}, "import os\n"),
    ({"language": '"><script>'}, "import os\n"),
    ({"language": ""}, "import os\n"),
    ({"language": "text"}, "<b>x</b>\n"),
    ({"language": "x" * 1000}, "import os\n"),
    ({"filename": "x.txt"}, "<script>alert(1)</script>"),
]


def test_text_the_lexer_cannot_place_looks_like_the_text_around_it() -> None:
    # Python read from a file named .toml: TOML's lexer makes most brackets error
    # tokens, which github-dark colours red and the default style boxes in red.
    code = "from io import StringIO, BytesIO\nwarnings.warn(name, remove=(3, 13))\n"
    html_out = str(highlight(code, filename="config.toml"))
    assert text_of(html_out) == code
    assert set(SPAN_CLASS.findall(html_out)) == {"o", "mi"}  # "=" and the numbers TOML knows
    assert not re.search(r"\.err\b", stylesheet())


@pytest.mark.parametrize(("kwargs", "code"), PLAIN_CASES)
def test_plain_text_when_no_lexer_is_named(kwargs: dict, code: str) -> None:
    assert str(highlight(code, **kwargs)) == plain(code)


@pytest.mark.parametrize(
    "code",
    ["\n\nx = 1", "x = 1", "x = 1\n", "\n", "", "a\n\n\n", "'''\nmulti\nline\n'''\n", "<script>alert(1)</script>"],
)
@pytest.mark.parametrize("language", ["python", "console", "bash", "json", "html", "diff"])
def test_highlighting_keeps_the_text_exactly(code: str, language: str) -> None:
    out = str(highlight(code, language=language))
    assert text_of(out) == code
    assert "<script" not in out
    assert "style=" not in out


MARK = re.compile(r'<span class="hl-plain" data-line="(\d+)"></span>')


def split_at_marker(out: str) -> tuple[str, int, str]:
    """(highlighted part, the line the marker names, plain part) of a block."""
    [match] = list(MARK.finditer(out))
    return out[: match.start()], int(match.group(1)), out[match.end() :]


def test_read_output_of_300_lines_is_highlighted_for_200_then_plain() -> None:
    code = "".join(f"value_{i} = compute('<&>', {i})  # c\n" for i in range(300))
    assert len(code) < 16 * 1024  # the line budget comes first here
    out = str(highlight(code, kind=OUTPUT, filename="big.py"))
    head, line, tail = split_at_marker(out)
    assert line == 201
    lines = code.splitlines(keepends=True)
    assert text_of(head) == "".join(lines[:200])
    assert tail == f"{escape(''.join(lines[200:]))}{END}"  # plain escaped text, every character
    assert head.count('<span class="c1">') == 200
    assert text_of(out) == code


def test_output_is_highlighted_for_8_kb_when_that_comes_first() -> None:
    line = "x = '" + "a" * 94 + "'\n"  # 100 characters a line: 8 KB is line 82
    code = line * 150
    head, marker_line, tail = split_at_marker(str(highlight(code, kind=OUTPUT, language="python")))
    assert marker_line == 8192 // 100 + 1
    assert text_of(head) == line * (8192 // 100)
    assert text_of(tail) == line * (150 - 8192 // 100)


def test_one_giant_output_line_is_cut_at_the_budget() -> None:
    code = "x = 1; " * 3000
    head, marker_line, tail = split_at_marker(str(highlight(code, kind=OUTPUT, language="python")))
    assert marker_line == 1
    assert text_of(head) == code[:8192] and tail == f"{escape(code[8192:])}{END}"


def test_a_60_kb_write_is_highlighted_whole() -> None:
    line = "value = compute('<&>', 42)  # comment\n"
    code = line * (60 * 1024 // len(line))
    assert 59 * 1024 < len(code) <= 60 * 1024
    out = str(highlight(code, kind=WRITTEN, filename="big.py"))
    assert "hl-plain" not in out
    assert out.count('<span class="c1">') == code.count("\n")
    assert text_of(out) == code


def test_written_text_past_64_kb_goes_on_plain() -> None:
    line = "value = 1  # c\n"
    code = line * (70 * 1024 // len(line))
    head, marker_line, tail = split_at_marker(str(highlight(code, kind=WRITTEN, filename="big.py")))
    shown = 64 * 1024 // len(line)
    assert marker_line == shown + 1 and text_of(head) == line * shown
    assert tail == f"{escape(code[len(line) * shown :])}{END}"


def test_limit_zero_highlights_everything() -> None:
    code = "".join(f"value_{i} = {i}  # c\n" for i in range(5000))  # 5,000 lines, ~100 KB
    with highlighting(limit_kb=0):
        out = str(highlight(code, kind=OUTPUT, filename="big.py"))
        written = str(highlight(code * 2, kind=WRITTEN, filename="big.py"))
    assert "hl-plain" not in out + written
    assert out.count('<span class="c1">') == 5000 and written.count('<span class="c1">') == 10000


def test_the_limit_scales_both_budgets() -> None:
    assert Budget.for_limit(8) == Budget(64 * 1024, 8 * 1024, 200)
    assert Budget.for_limit(2) == Budget(64 * 1024, 2 * 1024, 50)
    assert Budget.for_limit(100) == Budget(100 * 1024, 100 * 1024, 2500)
    assert Budget.for_limit(0) == Budget(None, None, None)
    code = "".join(f"v{i} = {i}\n" for i in range(100))
    with highlighting(limit_kb=2):
        _head, marker_line, _tail = split_at_marker(str(highlight(code, kind=OUTPUT, language="python")))
    assert marker_line == 51


def test_no_marker_without_a_lexer_or_within_the_budget() -> None:
    big = "line of output\n" * 1000
    assert str(highlight(big, kind=OUTPUT)) == plain(big)  # nothing highlighted: nothing to mark
    assert "hl-plain" not in str(highlight("x = 1\n" * 200, kind=OUTPUT, language="python"))


def test_the_kind_must_be_said() -> None:
    with pytest.raises(ValueError):
        highlight_as("x = 1\n", kind="guess", language="python")
    with pytest.raises(ValueError):
        highlight_as("x = 1\n", kind="guess")
    with pytest.raises(TypeError):
        highlight_as("x = 1\n", language="python")  # type: ignore[call-arg]


def test_the_marker_text_comes_from_the_stylesheet_and_is_not_selectable() -> None:
    css = stylesheet()
    rule = next(line for line in css.splitlines() if line.startswith(".code .hl-plain::before"))
    assert 'content: "plain text from line " attr(data-line);' in rule
    assert "display: block;" in rule and "user-select: none;" in rule


def test_an_edit_past_the_budget_marks_its_first_plain_line() -> None:
    old = "".join(f"v{i} = {i}\n" for i in range(3000))  # ~30 KB
    new = old + "".join(f"w{i} = {i}\n" for i in range(4000))  # ~80 KB: past 64 KB
    out = str(highlight_diff(old, new, filename="m.py"))
    marks = MARK.findall(out)
    shown = len(new[: new.rfind("\n", 0, 64 * 1024) + 1].splitlines())
    assert marks == [str(shown + 1)]
    added = [line for line in out.split("\n") if 'class="line add"' in line]
    assert len(added) == 4000
    assert text_of(added[-1]) == "+w3999 = 3999"
    assert "<span class=\"mi\">" not in added[-1] and "<span class=\"mi\">" in added[0]


def test_lexers_are_cached() -> None:
    highlight("x", filename="a.py")
    before = lexer_choice._lexer_for_filename.cache_info().hits
    highlight("y", filename="other/a.py")
    assert lexer_choice._lexer_for_filename.cache_info().hits == before + 1


def test_raw_token_lexer_is_refused() -> None:
    # RawTokenLexer copies token names from its input into class attributes.
    from pygments.lexers.special import RawTokenLexer

    assert lexer_choice._accepted(RawTokenLexer) is None


# --- highlight_diff ----------------------------------------------------------------


def test_diff_exact() -> None:
    out = highlight_diff("a\nb\nc\n", "a\nB\nc\nd\n")
    assert isinstance(out, Markup)
    assert str(out) == (
        f"{DPRE}"
        '<span class="line hunk">@@ -1,3 +1,4 @@</span>\n'
        '<span class="line ctx"> a</span>\n'
        '<span class="line del">-b</span>\n'
        '<span class="line add">+B</span>\n'
        '<span class="line ctx"> c</span>\n'
        '<span class="line add">+d</span>'
        f"{END}"
    )


def test_diff_empty_old_is_all_added() -> None:
    assert str(highlight_diff("", "<x>\ny")) == (
        f"{DPRE}"
        '<span class="line hunk">@@ -0,0 +1,2 @@</span>\n'
        '<span class="line add">+&lt;x&gt;</span>\n'
        '<span class="line add">+y</span>'
        f"{END}"
    )


def test_diff_of_equal_texts_is_empty() -> None:
    assert str(highlight_diff("same\n", "same\n")) == f"{DPRE}{END}"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("\n".join(f"line {i}" for i in range(40)), "\n".join(f"line {i}" for i in range(40) if i not in (3, 30)) + "\nend"),
        ("a\nb\n", ""),
        ("x\n" * 10, "y\n" * 10),
    ],
)
def test_diff_matches_difflib_unified_diff(old: str, new: str) -> None:
    expected = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))[2:]
    out = str(highlight_diff(old, new))
    lines = out[len(DPRE) : -len(END)].split("\n")
    assert [text_of(line) for line in lines] == expected
    kinds = {"@": "hunk", "+": "add", "-": "del", " ": "ctx"}
    assert [SPAN_CLASS.match(line).group(1) for line in lines] == [f"line {kinds[e[0]]}" for e in expected]


def test_large_diff_of_a_small_edit_matches_difflib() -> None:
    old = "\n".join(f"line {i}" for i in range(1500))
    new = old.replace("line 700\n", "line 700 changed\n")
    expected = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))[2:]
    out = str(highlight_diff(old, new))
    assert [text_of(line) for line in out[len(DPRE) : -len(END)].split("\n")] == expected


def test_crafted_large_diff_does_not_go_quadratic(monkeypatch: pytest.MonkeyPatch) -> None:
    # 20,000 lines of 150 repeated values took difflib a minute; above the
    # budget the renderer must not run SequenceMatcher's matching at all.
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("SequenceMatcher matching used on a large input")

    monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", refuse)
    old_lines = ["head"] + [f"x{i % 150}" for i in range(20_000)] + ["tail"]
    new_lines = ["head"] + [f"x{(i * 7 + 1) % 150}" for i in range(20_000)] + ["tail"]
    out = str(highlight_diff("\n".join(old_lines), "\n".join(new_lines)))
    lines = out[len(DPRE) : -len(END)].split("\n")
    assert text_of(lines[0]) == "@@ -1,20002 +1,20002 @@"
    assert [text_of(line)[1:] for line in lines if 'class="line del"' in line] == old_lines[1:-1]
    assert [text_of(line)[1:] for line in lines if 'class="line add"' in line] == new_lines[1:-1]
    assert [text_of(line) for line in lines if 'class="line ctx"' in line] == [" head", " tail"]


def test_diff_with_filename_highlights_inside_lines() -> None:
    out = str(highlight_diff("def f():\n    return 1\n", "def f():\n    return 2\n", filename="m.py"))
    assert out == (
        f"{DPRE}"
        '<span class="line hunk">@@ -1,2 +1,2 @@</span>\n'
        '<span class="line ctx"> <span class="k">def</span> <span class="nf">f</span>():</span>\n'
        '<span class="line del">-    <span class="k">return</span> <span class="mi">1</span></span>\n'
        '<span class="line add">+    <span class="k">return</span> <span class="mi">2</span></span>'
        f"{END}"
    )


def test_diff_with_filename_keeps_multiline_strings_balanced() -> None:
    old = 's = """\n<a>\n"""\nx = 1\n'
    new = 's = """\n<b>\n"""\nx = 1\n'
    out = str(highlight_diff(old, new, filename="m.py"))
    plain_out = str(highlight_diff(old, new))
    assert text_of(out) == text_of(plain_out)
    for line in out[len(DPRE) : -len(END)].split("\n"):
        assert line.count("<span") == line.count("</span>")
    assert '<span class="line del">-<span class="s2">&lt;a&gt;</span></span>' in out


# --- highlight_hunks ----------------------------------------------------------------


def test_hunks_exact() -> None:
    hunks = [
        {"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3, "lines": [" a", "-b", "+<B>", " c"]},
        {"oldStart": 10, "oldLines": 1, "newStart": 10, "newLines": 1, "lines": ["-x", "+y", "\\ No newline at end of file"]},
    ]
    assert str(highlight_hunks(hunks)) == (
        f"{DPRE}"
        '<span class="line hunk">@@ -1,3 +1,3 @@</span>\n'
        '<span class="line ctx"> a</span>\n'
        '<span class="line del">-b</span>\n'
        '<span class="line add">+&lt;B&gt;</span>\n'
        '<span class="line ctx"> c</span>\n'
        '<span class="line hunk">@@ -10,1 +10,1 @@</span>\n'
        '<span class="line del">-x</span>\n'
        '<span class="line add">+y</span>\n'
        '<span class="line ctx">\\ No newline at end of file</span>'
        f"{END}"
    )


MALFORMED_HUNKS = [
    None,
    "not a list",
    {"oldStart": 1},
    [None, 1, "x", [], 2.5],
    [{}],
    [{"lines": None}],
    [{"lines": "+not a list"}],
    [{"lines": [1, None, ["+x"], {"a": 1}, b"+bytes"]}],
    [{"oldStart": "1", "oldLines": None, "newStart": True, "newLines": 1.5, "lines": ["+ok"]}],
    [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["", "?odd", "+<script>"]}],
]


@pytest.mark.parametrize("hunks", MALFORMED_HUNKS)
def test_malformed_hunks_do_not_raise(hunks: object) -> None:
    out = str(highlight_hunks(hunks))  # type: ignore[arg-type]
    assert out.startswith(DPRE) and out.endswith(END)
    assert "<script" not in out
    assert "style=" not in out


def test_malformed_hunks_keep_what_is_valid() -> None:
    hunks = [
        "junk",
        {"oldStart": "1", "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["+ok", 7, "", "?odd"]},
    ]
    assert str(highlight_hunks(hunks)) == (
        f"{DPRE}"
        '<span class="line hunk">@@</span>\n'
        '<span class="line add">+ok</span>\n'
        '<span class="line ctx"></span>\n'
        '<span class="line ctx">?odd</span>'
        f"{END}"
    )


# --- highlight_patch ----------------------------------------------------------------


def test_codex_apply_patch_exact() -> None:
    patch = (
        "*** Begin Patch\n"
        "*** Update File: src/app.py\n"
        "@@ def main():\n"
        "     keep\n"
        "-    old\n"
        "--- removed sql comment\n"
        "+    new <b>\n"
        "*** Add File: notes.md\n"
        "+hello\n"
        "*** Delete File: gone.txt\n"
        "*** End Patch"
    )
    assert str(highlight_patch(patch)) == (
        f"{DPRE}"
        '<span class="line file">*** Begin Patch</span>\n'
        '<span class="line file">*** Update File: src/app.py</span>\n'
        '<span class="line hunk">@@ def main():</span>\n'
        '<span class="line ctx">     keep</span>\n'
        '<span class="line del">-    old</span>\n'
        '<span class="line del">--- removed sql comment</span>\n'
        '<span class="line add">+    new &lt;b&gt;</span>\n'
        '<span class="line file">*** Add File: notes.md</span>\n'
        '<span class="line add">+hello</span>\n'
        '<span class="line file">*** Delete File: gone.txt</span>\n'
        '<span class="line file">*** End Patch</span>'
        f"{END}"
    )


def test_git_unified_diff_classes() -> None:
    patch = (
        "diff --git a/q.sql b/q.sql\n"
        "index 1234567..89abcde 100644\n"
        "--- a/q.sql\n"
        "+++ b/q.sql\n"
        "@@ -1,3 +1,3 @@\n"
        "--- a comment line being removed\n"
        "+++ counter\n"
        " select 1;\n"
        "\\ No newline at end of file\n"
        " select 2;\n"
        "--- a/next.txt\n"
        "+++ b/next.txt\n"
        "@@ -1 +1 @@\n"
        "-x\n"
        "+y\n"
    )
    out = str(highlight_patch(patch))
    classes = [SPAN_CLASS.match(line).group(1) for line in out[len(DPRE) : -len(END)].split("\n")]
    assert classes == [
        "line file", "line file", "line file", "line file",
        "line hunk", "line del", "line add", "line ctx", "line ctx", "line ctx",
        "line file", "line file",
        "line hunk", "line del", "line add",
    ]  # fmt: skip
    assert text_of(out[len(DPRE) : -len(END)]) == patch.rstrip("\n")


@pytest.mark.parametrize("patch", [None, 42, "", "\n", "@@", "@@ -x,y +z @@\n+a", "*** ", "<script>alert(1)</script>"])
def test_patch_odd_input_does_not_raise(patch: object) -> None:
    out = str(highlight_patch(patch))  # type: ignore[arg-type]
    assert out.startswith(DPRE) and out.endswith(END)
    assert "<script" not in out


# --- output hygiene and the stylesheet -------------------------------------------------


def _all_outputs() -> list[str]:
    return [
        str(highlight("def f(): pass\n", filename="x.py")),
        str(highlight("<b onmouseover=x>", language="html")),
        str(highlight("+a\n-b\n", language="diff")),
        str(highlight("$ ls\n", language="console")),
        str(highlight("x", filename="nope.zzz")),
        str(highlight_diff("a\n", "b\n", filename="x.py")),
        str(highlight_diff("a\n", "b\n")),
        str(highlight_hunks([{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}])),
        str(highlight_patch("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch")),
    ]


def test_no_inline_styles_anywhere() -> None:
    for out in _all_outputs():
        assert "style=" not in out, out


def test_stylesheet_is_deterministic_and_scoped() -> None:
    css = stylesheet()
    assert css == stylesheet()
    assert css.count("@media (prefers-color-scheme: dark) {") == 1
    selectors = [rule.split("{")[0].strip() for rule in css.splitlines() if rule.strip().endswith("}") and "{" in rule]
    assert selectors and all(s == ".code" or s.startswith(".code .") for s in selectors), selectors


def _rules(block: str) -> dict[str, str]:
    rules: dict[str, str] = {}
    for line in block.splitlines():
        match = re.fullmatch(r"\s*(\.code[^{]*?)\s*\{(.*)\}\s*", line)
        if match:
            rules[match.group(1)] = match.group(2)
    return rules


def test_stylesheet_covers_every_class_we_emit_in_both_schemes() -> None:
    light_css, dark_css = stylesheet().split("@media (prefers-color-scheme: dark) {")
    light, dark = _rules(light_css), _rules(dark_css)
    for kind in ("add", "del", "hunk", "file"):
        assert f".code .line.{kind}" in light and f".code .line.{kind}" in dark
    assert "background-color" in light[".code"] and "color" in dark[".code"]
    used = {cls for out in _all_outputs() for attr in SPAN_CLASS.findall(out) for cls in attr.split()}
    for cls in used - {"line", "add", "del", "ctx", "hunk", "file", "w"}:
        assert f".code .{cls}" in light or f".code .{cls}" in dark, cls


def test_dark_rules_override_every_light_token_property() -> None:
    light_css, dark_css = stylesheet().split("@media (prefers-color-scheme: dark) {")
    light, dark = _rules(light_css), _rules(dark_css)
    # The plain-text marker changes only its colour in the dark.
    assert dark[".code .hl-plain::before"] == " color: #8b949e; "
    for selector, body in light.items():
        if ".line" in selector or ".hl-plain" in selector:
            continue
        props = {decl.split(":")[0].strip() for decl in body.split(";") if decl.strip()}
        dark_props = {decl.split(":")[0].strip() for decl in dark.get(selector, "").split(";") if decl.strip()}
        assert props <= dark_props, (selector, props - dark_props)


# --- lexer lookup without plugins ------------------------------------------------

KNOWN_FILENAMES = ["x.py", "Dockerfile", "Makefile", "a.ts", "x.json", "CMakeLists.txt", "x.h", "go.mod", "x.yaml", "x.rs"]
KNOWN_ALIASES = ["bash", "json", "diff", "toml", "python", "console", "c++", "yaml", "html"]


def _forbid_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the plugin entry points must not be scanned")

    monkeypatch.setattr(pygments.plugin, "find_plugin_lexers", refuse)
    monkeypatch.setattr(pygments.plugin, "iter_entry_points", refuse)
    # pygments.lexers replaces itself in sys.modules after import: its functions
    # look find_plugin_lexers up in the original module's namespace.
    _patch_lexers_global(monkeypatch, "find_plugin_lexers", refuse)


def _patch_lexers_global(monkeypatch: pytest.MonkeyPatch, name: str, value: object) -> None:
    monkeypatch.setitem(pygments.lexers.get_lexer_for_filename.__globals__, name, value)


def _fresh_lookups() -> None:
    for cached in (lexer_choice._builtin_lexers, lexer_choice._pattern_index,
                   lexer_choice._lexer_for_filename, lexer_choice._lexer_for_language):
        cached.cache_clear()


def _names_each_pattern_takes() -> set[str]:
    """A file name (or two) that each of Pygments' patterns matches, and the
    standard library's file names: every kind of pattern the index sorts."""
    names = {"Makefile", "GNUmakefile", "CMakeLists.txt", "a.tar.gz", "x.PY", ".bashrc", "noext"}
    for _name, _aliases, patterns, _mimes in pygments.lexers.get_all_lexers(plugins=False):
        for pattern in patterns:
            names.add(pattern.replace("*", "").replace("?", "").replace("[", "").replace("]", ""))
            names.add(re.sub(r"\[(.)[^]]*\]", r"\1", pattern).replace("*", "w").replace("?", "q"))
    import sysconfig

    names.update(path.name for path in Path(sysconfig.get_paths()["stdlib"]).glob("**/*.*"))
    names.discard("")
    return names


def test_the_pattern_index_picks_what_trying_every_pattern_picks() -> None:
    # The index (endings, literal names, the rest as globs) is a faster way to the
    # same answer as matching each of Pygments' ~1,500 patterns in turn.
    _fresh_lookups()
    index = lexer_choice._pattern_index()
    assert len(index.endings) > 500 and index.names and index.globs
    names = _names_each_pattern_takes()
    assert len(names) > 3000
    for name in names:
        try:
            expected = type(get_lexer_for_filename(name))
        except pygments.util.ClassNotFound:
            expected = None
        found = lexer_choice.find_lexer(filename=name)
        if expected in (None, TextLexer):
            assert found is None, name
        else:
            assert type(found) is expected, name


def test_lookup_does_not_scan_plugins_and_picks_what_pygments_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    by_file = {name: type(get_lexer_for_filename(name)) for name in KNOWN_FILENAMES}
    by_alias = {alias: type(get_lexer_by_name(alias)) for alias in KNOWN_ALIASES}
    _fresh_lookups()
    _forbid_plugins(monkeypatch)
    with pytest.raises(AssertionError, match="plugin"):
        get_lexer_for_filename("x.py")  # the trap works
    for name, expected in by_file.items():
        assert type(lexer_choice.find_lexer(filename=f"some/dir/{name}")) is expected, name
    for alias, expected in by_alias.items():
        assert type(lexer_choice.find_lexer(language=alias)) is expected, alias
    assert lexer_choice.find_lexer(filename="x.unknownext") is None
    assert lexer_choice.find_lexer(language="nosuchlanguage") is None
    assert lexer_choice.find_lexer(filename="x.txt") is None  # TextLexer: refused
    assert "nc" in SPAN_CLASS.findall(str(highlight("class A: pass\n", filename="a.py")))


def test_a_plugin_lexer_cannot_claim_a_file_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from pygments.lexer import RegexLexer
    from pygments.lexers.python import PythonLexer
    from pygments.token import Keyword

    class Hijack(RegexLexer):
        name = "Hijack"
        aliases = ("hijack", "python")
        filenames = ("x.py", "*.hijack")
        priority = 100
        tokens: ClassVar[dict] = {"root": [(r"(?s).+", Keyword)]}

    _patch_lexers_global(monkeypatch, "find_plugin_lexers", lambda: iter([Hijack]))
    assert type(get_lexer_for_filename("x.py")) is Hijack  # Pygments itself would take it
    _fresh_lookups()
    assert type(lexer_choice.find_lexer(filename="x.py")) is PythonLexer
    assert type(lexer_choice.find_lexer(language="python")) is PythonLexer
    assert lexer_choice.find_lexer(filename="a.hijack") is None
    assert lexer_choice.find_lexer(language="hijack") is None


# --- our formatter -----------------------------------------------------------------

TOKEN = re.compile(r'<span class="([^"]*)">|(</span>)|([^<]+)')


def _pieces(markup: str) -> list[tuple[str, str]]:
    """(classes, text) for every run of text, checking spans never nest."""
    out, current = [], ""
    for opened, closed, text in TOKEN.findall(markup):
        if opened:
            assert not current, f"nested span in {markup!r}"
            current = opened
        elif closed:
            assert current, f"stray </span> in {markup!r}"
            current = ""
        else:
            out.append((current, html.unescape(text)))
    assert not current, f"unclosed span in {markup!r}"
    return out


@functools.cache
def _looks(classes: str, char: str) -> tuple[frozenset, frozenset]:
    """What the stylesheet does to one character in class(es) ``classes``, light
    and dark, leaving out what equals the surrounding text."""
    light_css, dark_css = stylesheet().split("@media (prefers-color-scheme: dark) {")
    looks = []
    for rules in (_rules(light_css), _rules(dark_css)):
        base = dict(d.strip().split(": ") for d in rules[".code"].split(";") if d.strip())["color"]
        decls: dict[str, str] = {}
        for cls in classes.split():
            body = rules.get(f".code .{cls}", "")
            decls.update(d.strip().split(": ") for d in body.split(";") if d.strip())
        kept = {
            (prop, value.lower())
            for prop, value in decls.items()
            if value not in ("inherit", "normal", "transparent", "none")
            and not (prop == "color" and (value.lower() == base.lower() or char.isspace()))
        }
        looks.append(frozenset(kept))
    return looks[0], looks[1]


def _per_char_looks(markup: str) -> list[tuple[str, tuple[frozenset, frozenset]]]:
    return [(char, _looks(classes, char)) for classes, text in _pieces(markup) for char in text]


_DIFFLIB = inspect.getsource(difflib)

FORMATTER_SAMPLES = [
    ("python", _DIFFLIB[: _DIFFLIB.index("\n", 30_000) + 1]),
    ("json", '{"a": [1, 2.5, true, null, "s\\"q"], "b": {"c": "<d>"}}\n'),
    ("bash", 'for f in *.py; do echo "$f" > /dev/null; done  # loop\n'),
    ("console", "$ ls -la\ntotal 0\n$ echo 'x'\nx\n"),
    ("diff", "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n"),
    ("html", '<a href="x" onclick=\'y\'>t &amp; u</a>\n<!-- c\n-->\n'),
    ("c", "/* multi\n   line */\nint main(void) { return 0; } // end\n"),
    ("yaml", "key: value\nlist:\n  - 1\n  - 'two'\n"),
]


@pytest.mark.parametrize(("language", "code"), FORMATTER_SAMPLES, ids=[s[0] for s in FORMATTER_SAMPLES])
def test_formatter_looks_exactly_like_html_formatter(language: str, code: str) -> None:
    lexer = lexer_choice.find_lexer(language=language)
    ours = highlight_module._format(code, type(lexer))
    theirs = pygments.highlight(code, lexer, HtmlFormatter(nowrap=True))
    assert "".join(text for _cls, text in _pieces(ours)) == code
    assert _per_char_looks(ours) == _per_char_looks(theirs)
    assert len(ours) <= len(theirs)
    for line in ours.split("\n"):
        _pieces(line)  # every span closed on its own line


def test_styled_tokens_keep_their_class_and_names_get_none() -> None:
    code = "import os\n\ndef run(path):\n    '''Doc.'''\n    value = os.path.join(path, 'x')  # why\n    return value\n"
    out = str(highlight(code, language="python"))
    pieces = _pieces(out[len(PRE) : -len(END)])
    classes = {cls for cls, _text in pieces}
    assert {"kn", "k", "nf", "sd", "s1", "c1"} <= classes
    assert ("nn", "os") in pieces and ("s1", "'x'") in pieces and ("c1", "# why") in pieces
    assert "n" not in classes and "p" not in classes and "w" not in classes
    # Names, punctuation and spaces between styled tokens are one plain run.
    assert ("", "join(path, ") in pieces
    assert text_of(out) == code


def test_adjacent_tokens_of_one_class_are_one_span() -> None:
    out = str(highlight("x = 'ab'\n", language="python"))
    assert '<span class="s1">&#39;ab&#39;</span>' in out  # three String tokens, one span


def test_multiline_strings_and_comments_reopen_per_line() -> None:
    py = str(highlight('s = """one\n\ntwo\n"""\n', language="python"))
    assert py == (
        f'{PRE}s <span class="o">=</span> <span class="s2">&#34;&#34;&#34;one</span>\n'
        '\n<span class="s2">two</span>\n<span class="s2">&#34;&#34;&#34;</span>\n'
        f"{END}"
    )
    c = str(highlight("/* a\n   b */\n", language="c"))
    assert c == f'{PRE}<span class="cm">/* a</span>\n<span class="cm">   b */</span>\n{END}'


@pytest.mark.parametrize("language", ["python", "html", "bash", "json", "console"])
def test_hostile_text_is_escaped(language: str) -> None:
    code = "x = \"</span><script>alert('1')</script>\" # </code></pre><img src=x onerror=y>\n'\"&amp;\n"
    out = str(highlight(code, language=language))
    body = out[len(PRE) : -len(END)]
    assert "<script" not in out and "<img" not in out and "</code></pre>" not in body
    text_parts = TAG.sub("\0", body)
    assert not set(text_parts) & set("<>\"'"), text_parts
    assert text_of(out) == code


@pytest.mark.parametrize("text", ["", "plain", "&<>\"'", "a < b && c > 'd' \"e\"", "é 💡 \x00 \udc80 &amp;"])
def test_the_formatter_escapes_as_markupsafe_does(text: str) -> None:
    # Its fast path (markupsafe's C escaping without the Markup object) must
    # give escape()'s bytes: the block store's keys assume they are the same.
    assert highlight_module._escaped(text) == str(escape(text))
    assert type(highlight_module._escaped(text)) is str


def test_crlf_and_final_newline_as_before() -> None:
    assert text_of(str(highlight("a = 1\r\nb = 2\r\n", language="python"))) == "a = 1\nb = 2\n"
    assert str(highlight("a = 1", language="python")).endswith(f'<span class="mi">1</span>{END}')
    assert str(highlight("# c\n", language="python")) == f'{PRE}<span class="c1"># c</span>\n{END}'


# --- the block store ------------------------------------------------------------------


def _blocks(n: int, tag: str = "") -> list[str]:
    # Different texts: each goes through Pygments once, then the store.
    return [f"def f{tag}{i}(x):\n" + f"    return x + {i}  # {'pad ' * 40}\n" * 8 for i in range(n)]


def _render(blocks: list[str], language: str = "python") -> list[str]:
    return [str(highlight(code, language=language)) for code in blocks]


def _store(tmp_path: Path) -> BlockStore:
    return BlockStore(store_path(tmp_path))


def _stored(tmp_path: Path, blocks: list[str], session: str = "s") -> list[str]:
    """Render ``blocks`` as one session of a store in ``tmp_path``, as a build's
    worker does, and close it; the HTML of each block."""
    store = _store(tmp_path)
    with highlighting(store=store) as used:
        out = _render(blocks)
    store.record(session, used)
    store.close()
    return out


def test_the_store_round_trip_lexes_nothing_and_gives_the_same_html(lexing: list[str], tmp_path: Path) -> None:
    blocks = _blocks(5)
    expected = _stored(tmp_path, blocks)
    assert len(lexing) == 5
    lexing.clear()
    second = _store(tmp_path)  # a new process: nothing in memory
    with highlighting(store=second):
        assert _render(blocks) == expected
    assert lexing == [] and second.hits == 5


def test_a_block_found_in_the_store_makes_no_lexer(lexing: list[str], tmp_path: Path) -> None:
    """Making a lexer compiles its patterns (50 ms for Python's): a rebuild whose
    blocks are all stored must not pay it."""
    blocks = _blocks(2)
    expected = _stored(tmp_path, blocks)
    lexer_choice.configured.cache_clear()  # a new process
    second = _store(tmp_path)
    with highlighting(store=second):
        assert _render(blocks) == expected
    assert lexer_choice.configured.cache_info().currsize == 0
    with highlighting(store=second):
        _render(_blocks(1, tag="new"))
    assert lexer_choice.configured.cache_info().currsize == 1


def test_a_lexer_is_keyed_by_its_class_as_by_a_configured_instance() -> None:
    """The block key names the lexer by its class and settings without making one;
    for every lexer, the same bytes as read off a configured instance, apart from
    the few whose class sets options of its own (a key of their own, as sound)."""
    own_options = set()
    for name, _aliases, _patterns in lexer_choice._builtin_lexers():
        cls = find_lexer_class(name)
        if lexer_choice._accepted(cls) is None:
            continue
        lexer = lexer_choice._configure(cls())
        settings = (sorted(lexer.options.items()), lexer.stripnl, lexer.stripall, lexer.ensurenl, lexer.tabsize)
        read_off = f"{cls.__module__}.{cls.__qualname__}\0{settings!r}\0".encode()
        if read_off != highlight_module._lexer_identity(cls):
            own_options.add(name)
            assert lexer.options, name
    assert len(own_options) <= 8, own_options


def test_a_block_is_lexed_once_in_a_process(lexing: list[str], tmp_path: Path) -> None:
    (block,) = _blocks(1)
    store = _store(tmp_path)
    with highlighting(store=store):
        _render([block, block])
    with highlighting(store=store):
        _render([block])
    assert len(lexing) == 1 and store.reads == 1  # the second and third from memory


def test_plain_text_is_not_stored_and_a_one_line_block_is(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with highlighting(store=store) as used:
        highlight("plain text " * 100)  # no lexer
        highlight("", language="python")
    assert used == set()
    with highlighting(store=store) as used:
        highlight("x = 1\n", language="python")
    assert len(used) == 1


def test_the_store_is_only_used_inside_highlighting(lexing: list[str], tmp_path: Path) -> None:
    outer, inner = _store(tmp_path / "a"), _store(tmp_path / "b")
    a, b, c = _blocks(3)
    with highlighting(store=outer) as used_outer:
        _render([a])
        with highlighting(store=inner) as used_inner:
            _render([b])
        _render([c])
    _render(_blocks(1, "outside"))
    assert len(used_outer) == 2 and len(used_inner) == 1


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_collect_keeps_exactly_the_blocks_live_sessions_use(lexing: list[str], tmp_path: Path) -> None:
    a, b, c = _blocks(3)
    _stored(tmp_path, [a, b], "s1")
    _stored(tmp_path, [b, c], "s2")
    path = store_path(tmp_path)
    assert _rows(path, "SELECT count(*) FROM blocks") == [(3,)]
    collect(tmp_path, ["s2"])
    assert _rows(path, "SELECT count(*) FROM blocks") == [(2,)]
    assert _rows(path, "SELECT DISTINCT session FROM uses") == [(session_id("s2"),)]
    lexing.clear()
    again = _store(tmp_path)
    with highlighting(store=again):
        _render([a, b, c])
    assert lexing == [a]


def test_a_session_rendered_again_uses_only_its_new_blocks(tmp_path: Path) -> None:
    a, b = _blocks(2)
    store = _store(tmp_path)
    for blocks in ([a], [b]):
        with highlighting(store=store) as used:
            _render(blocks)
        store.record("s1", used)
    store.close()
    collect(tmp_path, ["s1"])
    assert _rows(store_path(tmp_path), "SELECT count(*) FROM blocks") == [(1,)]


def test_what_sessions_gave_the_store_is_written_together_at_the_flush(tmp_path: Path) -> None:
    a, b = _blocks(2)
    store = _store(tmp_path)
    for session, block in (("s1", a), ("s2", b)):
        with highlighting(store=store) as used:
            _render([block])
        store.record(session, used)
    path = store_path(tmp_path)
    counts = "SELECT (SELECT count(*) FROM blocks), (SELECT count(*) FROM uses)"
    assert _rows(path, counts) == [(0, 0)]  # a worker writes once per batch of jobs
    store.flush()
    assert _rows(path, counts) == [(2, 2)]
    assert sorted(_rows(path, "SELECT session FROM uses")) == sorted([(session_id("s1"),), (session_id("s2"),)])
    with highlighting(store=store) as used:
        _render(_blocks(1, "c"))
    store.record("s3", used)
    store.close()  # what is left is written on closing
    assert _rows(path, counts) == [(3, 3)]


def test_a_damaged_entry_is_lexed_again(lexing: list[str], tmp_path: Path) -> None:
    blocks = _blocks(3)
    expected = _stored(tmp_path, blocks)
    path = store_path(tmp_path)
    with sqlite3.connect(path) as conn:
        keys = [k for (k,) in conn.execute("SELECT key FROM blocks ORDER BY key")]
        conn.execute("UPDATE blocks SET html = ? WHERE key = ?", (b"not zlib", keys[0]))
        conn.execute("UPDATE blocks SET html = substr(html, 1, 10) WHERE key = ?", (keys[1],))  # truncated
        conn.execute("UPDATE blocks SET html = 7 WHERE key = ?", (keys[2],))  # not even bytes
    lexing.clear()
    again = _store(tmp_path)
    with highlighting(store=again):
        assert _render(blocks) == expected
    assert len(lexing) == 3


@pytest.mark.parametrize("damage", ["garbage", "truncated", "a directory", "other schema"])
def test_a_damaged_store_is_ignored_then_replaced(damage: str, lexing: list[str], tmp_path: Path) -> None:
    blocks = _blocks(2)
    expected = _stored(tmp_path, blocks)
    path = store_path(tmp_path)
    if damage == "garbage":
        path.write_bytes(b"\x00\xff" * 5000)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:1500])
    elif damage == "a directory":
        path.unlink()
        path.mkdir()
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA user_version = 99")
    lexing.clear()
    again = _store(tmp_path)
    with highlighting(store=again) as used:
        assert _render(blocks) == expected
    again.record("s", used)  # cannot be written either: nothing raises
    assert len(lexing) == 2
    collect(tmp_path, ["s"])
    if damage != "a directory":
        assert not path.exists()  # the next build starts a new store


def test_a_stored_block_is_used_only_for_its_exact_key(lexing: list[str], tmp_path: Path) -> None:
    (code,) = _blocks(1)
    python, json = lexer_choice.lexer_class(language="python"), lexer_choice.lexer_class(language="json")
    store = _store(tmp_path)
    store.add(highlight_module._block_key(code, python), "FORGED")
    store.record(None, ())
    store.close()
    forged = _store(tmp_path)
    with highlighting(store=forged):
        assert "FORGED" not in str(highlight(code, language="json"))
        assert "FORGED" not in str(highlight(code + "\n", language="python"))
        assert str(highlight(code, language="python")) == f"{PRE}FORGED{END}"
    assert highlight_module._block_key(code, python) != highlight_module._block_key(code, json)


def test_the_key_covers_the_highlighter(monkeypatch: pytest.MonkeyPatch) -> None:
    (code,) = _blocks(1)
    python = lexer_choice.lexer_class(language="python")
    before = highlight_module._block_key(code, python)
    monkeypatch.setattr(pygments, "__version__", "0.0.1")
    highlight_module._identity.cache_clear()
    try:
        assert highlight_module._block_key(code, python) != before
    finally:
        monkeypatch.undo()
        highlight_module._identity.cache_clear()
    assert highlight_module._block_key(code, python) == before


def test_memory_holds_to_its_budget(monkeypatch: pytest.MonkeyPatch, lexing: list[str]) -> None:
    from bough_site.render import blockstore

    monkeypatch.setattr(blockstore, "MEMORY_CHARS", 5_000)
    store = BlockStore(None)
    blocks = _blocks(20)
    with highlighting(store=store):
        out = _render(blocks)
    assert 0 < store._memory_chars <= 5_000
    assert [text_of(o) for o in out] == blocks  # what is not kept is still rendered


def test_a_block_utf8_cannot_encode_is_not_written(tmp_path: Path) -> None:
    lone = "x = '\ud800'\n" + "y = 1\n" * 100
    _stored(tmp_path, [lone, *_blocks(2)])
    assert _rows(store_path(tmp_path), "SELECT count(*) FROM blocks") == [(2,)]
