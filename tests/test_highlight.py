"""Pygments highlighting, diffs and the stylesheet."""

from __future__ import annotations

import difflib
import html
import re

import pygments.lexers
import pytest
from markupsafe import Markup, escape

from bough_site.render import highlight as highlight_module
from bough_site.render.highlight import (
    highlight,
    highlight_diff,
    highlight_hunks,
    highlight_patch,
    stylesheet,
)

PRE, END = '<pre class="code"><code>', "</code></pre>"
DPRE = '<pre class="code diff"><code>'
TAG = re.compile(r"<[^>]+>")
SPAN_CLASS = re.compile(r'<span class="([^"]*)">')


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
        f'{PRE}<span class="k">def</span><span class="w"> </span><span class="nf">f</span>'
        '<span class="p">():</span>\n'
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


def test_cap_highlights_only_the_head_and_keeps_everything() -> None:
    line = "value = compute('<&>', 42)  # comment\n"
    code = line * (500_000 // len(line) + 1)
    assert len(code) > 500_000
    cap = 200_000
    out = str(highlight(code, filename="big.py", cap=cap))
    assert text_of(out) == code
    # Everything after the last highlighting span is plain escaped text, and it
    # covers at least the part of the input beyond the cap.
    tail_html = out[out.rindex("</span>") + len("</span>") : -len(END)]
    assert "<" not in tail_html.replace("&lt;", "")
    assert len(html.unescape(tail_html)) >= len(code) - cap
    # The head was highlighted at all.
    assert out.count('<span class="c1">') > 1000


def test_cap_on_one_giant_line_cuts_at_the_cap() -> None:
    code = "x = 1; " * 1000
    out = str(highlight(code, language="python", cap=100))
    head = str(highlight(code[:100], language="python"))[: -len(END)]
    assert out == f"{head}{escape(code[100:])}{END}"
    assert text_of(out) == code


def test_cap_zero_is_plain() -> None:
    assert str(highlight("import os\n", language="python", cap=0)) == plain("import os\n")


def test_lexers_are_cached() -> None:
    highlight("x", filename="a.py")
    before = highlight_module._lexer_for_filename.cache_info().hits
    highlight("y", filename="other/a.py")
    assert highlight_module._lexer_for_filename.cache_info().hits == before + 1


def test_raw_token_lexer_is_refused() -> None:
    # RawTokenLexer copies token names from its input into class attributes.
    from pygments.lexers.special import RawTokenLexer

    assert highlight_module._configure(RawTokenLexer()) is None


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
        '<span class="line ctx"> <span class="k">def</span><span class="w"> </span><span class="nf">f</span>'
        '<span class="p">():</span></span>\n'
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
    for selector, body in light.items():
        if ".line" in selector:
            continue
        props = {decl.split(":")[0].strip() for decl in body.split(";") if decl.strip()}
        dark_props = {decl.split(":")[0].strip() for decl in dark.get(selector, "").split(";") if decl.strip()}
        assert props <= dark_props, (selector, props - dark_props)
