"""Markdown rendering and the link allow-list: hostile input must come out inert."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from markupsafe import Markup

from bough_site.render.links import safe_href
from bough_site.render.markdown import LINK_REL, render_markdown

REL = f'rel="{LINK_REL}"'

# Elements that must never come out of transcript Markdown.
FORBIDDEN_TAGS = {"script", "style", "meta", "iframe", "img", "object", "embed", "link", "base", "form", "svg", "frame"}


class _Elements(HTMLParser):
    """Every start tag with its attributes, as the browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.elements


def assert_inert(html: str, *, own_fragments: bool = False) -> None:
    """No forbidden element, no handler, no style, every href allowed.

    ``own_fragments`` allows the ``#fn…`` links the footnote plugin generates
    (they come from us, not from the transcript).
    """
    assert "style=" not in html
    for tag, attrs in elements(html):
        assert tag not in FORBIDDEN_TAGS, (tag, html)
        for name, value in attrs.items():
            assert not name.startswith("on"), (name, html)
            assert name not in ("style", "src", "srcset", "formaction", "action"), (name, html)
            if name == "href":
                if own_fragments and value and value.startswith(("#fn-", "#fnref-")):
                    continue
                assert value is not None and safe_href(value) == value, (value, html)
        if tag == "a" and "href" in attrs and not attrs["href"].startswith("#"):
            assert attrs.get("rel") == LINK_REL


# --- safe_href ----------------------------------------------------------------

SAFE_HREF_CASES = [
    ("https://example.com/a?b=c&d=e#f", "https://example.com/a?b=c&d=e#f"),
    ("http://example.com", "http://example.com"),
    ("HTTPS://EXAMPLE.COM/", "HTTPS://EXAMPLE.COM/"),
    ("mailto:alice@example.com", "mailto:alice@example.com"),
    ("MailTo:alice@example.com", "MailTo:alice@example.com"),
    ("  https://example.com/  ", "https://example.com/"),
    ("\x00https://example.com/", "https://example.com/"),
    ("https://exa\nmple.com/", "https://example.com/"),
    ("https://example.com/a b", "https://example.com/a%20b"),
    ("https://example.com/\u200bx", "https://example.com/x"),
    ("javascript:alert(1)", None),
    ("JAVASCRIPT:alert(1)", None),
    ("JaVaScRiPt:alert(1)", None),
    (" javascript:alert(1)", None),
    ("java\tscript:alert(1)", None),
    ("java\nscript:alert(1)", None),
    ("\x01javascript:alert(1)", None),
    ("&#106;avascript:alert(1)", None),
    ("&#x6A;avascript:alert(1)", None),
    ("javascript&colon;alert(1)", None),
    ("https&#58;//example.com", None),
    ("%6Aavascript:alert(1)", None),
    ("vbscript:msgbox(1)", None),
    ("data:text/html;base64,PHNjcmlwdD4=", None),
    ("data:image/svg+xml;base64,PHN2Zz4=", None),
    ("file:///etc/passwd", None),
    ("ftp://example.com/", None),
    ("//evil.example/", None),
    ("/etc/passwd", None),
    ("docs/readme.md", None),
    ("#top", None),
    ("", None),
    ("https://", None),
    ("mailto:", None),
    ("https://" + "a" * 9000, None),
]


@pytest.mark.parametrize(("url", "expected"), SAFE_HREF_CASES)
def test_safe_href(url: str, expected: str | None) -> None:
    assert safe_href(url) == expected


def test_safe_href_non_string() -> None:
    assert safe_href(None) is None  # type: ignore[arg-type]
    assert safe_href(b"https://example.com") is None  # type: ignore[arg-type]


# --- hostile Markdown: exact output ------------------------------------------------

XSS_CASES = [
    ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"),
    ("<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"),
    ("<b onmouseover=alert(1)>hover</b>", "<p>&lt;b onmouseover=alert(1)&gt;hover&lt;/b&gt;</p>\n"),
    ("<style>body{display:none}</style>", "<p>&lt;style&gt;body{display:none}&lt;/style&gt;</p>\n"),
    ("<style>\n\nrest of transcript", "<p>&lt;style&gt;</p>\n<p>rest of transcript</p>\n"),
    (
        '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
        "<p>&lt;meta http-equiv=&quot;refresh&quot; content=&quot;0;url=https://evil.example/&quot;&gt;</p>\n",
    ),
    (
        '<iframe src="https://evil.example/"></iframe>',
        "<p>&lt;iframe src=&quot;https://evil.example/&quot;&gt;&lt;/iframe&gt;</p>\n",
    ),
    ("<svg onload=alert(1)>", "<p>&lt;svg onload=alert(1)&gt;</p>\n"),
    ("<!-- <script>alert(1)</script> -->", "<p>&lt;!-- &lt;script&gt;alert(1)&lt;/script&gt; --&gt;</p>\n"),
    # Dangerous link targets: the link text stays, as plain text.
    ("[x](javascript:alert(1))", "<p>x</p>\n"),
    ("[x](JAVASCRIPT:alert(1))", "<p>x</p>\n"),
    ("[x](JaVaScRiPt:alert(1))", "<p>x</p>\n"),
    ("[x]( javascript:alert(1))", "<p>x</p>\n"),
    ("[x](<javascript:alert(1)>)", "<p>x</p>\n"),
    ("[x](&#106;avascript:alert(1))", "<p>x</p>\n"),
    ("[x](&#x6A;avascript:alert(1))", "<p>x</p>\n"),
    ("[x](javascript&colon;alert(1))", "<p>x</p>\n"),
    ("[x](%6Aavascript:alert(1))", "<p>x</p>\n"),
    ("[x](vbscript:msgbox(1))", "<p>x</p>\n"),
    ("[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "<p>x</p>\n"),
    ("[x](file:///etc/passwd)", "<p>x</p>\n"),
    ("[x](relative/path.md)", "<p>x</p>\n"),
    # A tab inside a destination is not a link at all in CommonMark.
    ("[x](java\tscript:alert(1))", "<p>[x](java\tscript:alert(1))</p>\n"),
    ("<javascript:alert(1)>", "<p>javascript:alert(1)</p>\n"),
    ("<JAVASCRIPT:alert(1)>", "<p>JAVASCRIPT:alert(1)</p>\n"),
    ("<vbscript:msgbox(1)>", "<p>vbscript:msgbox(1)</p>\n"),
    ("[x][r]\n\n[r]: javascript:alert(1)", "<p>x</p>\n"),
    ("[x]\n\n[x]: JavaScript:alert(1)", "<p>x</p>\n"),
    ("[x][r]\n\n[r]: &#106;avascript:alert(1)", "<p>x</p>\n"),
    # Images never load: a link to them, or text when the URL is not allowed.
    (
        "![x](https://evil.example/?k=secret)",
        f'<p><a href="https://evil.example/?k=secret" class="image-link" {REL}>x</a></p>\n',
    ),
    (
        "![x][i]\n\n[i]: https://evil.example/?k=secret",
        f'<p><a href="https://evil.example/?k=secret" class="image-link" {REL}>x</a></p>\n',
    ),
    (
        "![](https://evil.example/p.png)",
        f'<p><a href="https://evil.example/p.png" class="image-link" {REL}>https://evil.example/p.png</a></p>\n',
    ),
    ("![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)", "<p>x</p>\n"),
    ("![x](javascript:alert(1))", "<p>x</p>\n"),
    ("![](javascript:alert(1))", "<p>image</p>\n"),
    ("![<b>*a*</b>](https://e.example/i.png)", f'<p><a href="https://e.example/i.png" class="image-link" {REL}>&lt;b&gt;a&lt;/b&gt;</a></p>\n'),
    # An image inside a link: one <a>, never nested anchors.
    ("[![alt](https://i.example/x.png)](https://x.example/)", f'<p><a href="https://x.example/" {REL}>alt</a></p>\n'),
    # Attribute breakouts stay inside the quoted, escaped attribute.
    (
        '[x](https://ok.example/ "a\\" onmouseover=\\"alert(1)")',
        f'<p><a href="https://ok.example/" title="a&#34; onmouseover=&#34;alert(1)" {REL}>x</a></p>\n',
    ),
    (
        '[x](https://ok.example/"onmouseover="alert(1))',
        f'<p><a href="https://ok.example/%22onmouseover=%22alert(1)" {REL}>x</a></p>\n',
    ),
]


@pytest.mark.parametrize(("source", "expected"), XSS_CASES)
def test_hostile_markdown_exact(source: str, expected: str) -> None:
    html = render_markdown(source, "m1")
    assert isinstance(html, Markup)
    assert str(html) == expected
    assert_inert(html)


@pytest.mark.parametrize("source", [case[0] for case in XSS_CASES])
@pytest.mark.parametrize("wrap", ["{}", "* {}", "> {}", "| a |\n|---|\n| {} |", "**{}**", "[^1]\n\n[^1]: {}"])
def test_hostile_markdown_inert_in_any_context(source: str, wrap: str) -> None:
    html = str(render_markdown(wrap.replace("{}", source), "m1"))
    assert_inert(html, own_fragments=True)


# --- links that are allowed ------------------------------------------------------------

LINK_CASES = [
    ("[ok](https://example.com/a?b=1&c=2)", f'<p><a href="https://example.com/a?b=1&amp;c=2" {REL}>ok</a></p>\n'),
    ("[ok](HTTP://example.com)", f'<p><a href="HTTP://example.com" {REL}>ok</a></p>\n'),
    ("<https://example.com>", f'<p><a href="https://example.com" {REL}>https://example.com</a></p>\n'),
    ("<alice@example.com>", f'<p><a href="mailto:alice@example.com" {REL}>alice@example.com</a></p>\n'),
    ("[r][1]\n\n[1]: https://example.com/ref", f'<p><a href="https://example.com/ref" {REL}>r</a></p>\n'),
    ('[t](https://example.com "Title")', f'<p><a href="https://example.com" title="Title" {REL}>t</a></p>\n'),
    # No linkify: bare URLs stay text.
    ("see https://example.com", "<p>see https://example.com</p>\n"),
]


@pytest.mark.parametrize(("source", "expected"), LINK_CASES)
def test_allowed_links(source: str, expected: str) -> None:
    html = str(render_markdown(source, "m1"))
    assert html == expected
    assert_inert(html)


# --- GFM-ish features ----------------------------------------------------------------


def test_table_alignment_becomes_classes() -> None:
    html = str(render_markdown("| a | b | c |\n|:--|--:|:-:|\n| 1 | 2 | 3 |", "m1"))
    assert html == (
        "<table>\n<thead>\n<tr>\n"
        '<th class="align-left">a</th>\n<th class="align-right">b</th>\n<th class="align-center">c</th>\n'
        "</tr>\n</thead>\n<tbody>\n<tr>\n"
        '<td class="align-left">1</td>\n<td class="align-right">2</td>\n<td class="align-center">3</td>\n'
        "</tr>\n</tbody>\n</table>\n"
    )
    assert_inert(html)


def test_strikethrough() -> None:
    assert str(render_markdown("~~gone~~ kept", "m1")) == "<p><s>gone</s> kept</p>\n"


def test_task_list() -> None:
    html = str(render_markdown("- [ ] todo\n- [x] done", "m1"))
    assert html == (
        '<ul class="contains-task-list">\n'
        '<li class="task-list-item"><input class="task-list-item-checkbox" disabled="disabled" type="checkbox"> todo</li>\n'
        '<li class="task-list-item"><input class="task-list-item-checkbox" checked="checked" disabled="disabled" '
        'type="checkbox"> done</li>\n'
        "</ul>\n"
    )


def _ids(html: str) -> set[str]:
    return {attrs["id"] for _tag, attrs in elements(html) if attrs.get("id")}


def test_footnote_ids_are_unique_per_doc_id() -> None:
    source = "Claim[^1].\n\n[^1]: Source."
    first, second = str(render_markdown(source, "msg-a")), str(render_markdown(source, "msg-b"))
    assert _ids(first) == {"fnref-msg-a-1", "fn-msg-a-1"}
    assert _ids(second) == {"fnref-msg-b-1", "fn-msg-b-1"}
    assert '<a href="#fn-msg-a-1" id="fnref-msg-a-1">[1]</a>' in first
    assert '<a href="#fnref-msg-a-1" class="footnote-backref">' in first
    assert_inert(first, own_fragments=True)


@pytest.mark.parametrize(
    "doc_id",
    ['x" onmouseover="alert(1)', "<script>", "a b", "ünï", "", "a:b#c"],
)
def test_hostile_doc_id_is_sanitised(doc_id: str) -> None:
    html = str(render_markdown("A[^n]\n\n[^n]: note", doc_id))
    assert_inert(html, own_fragments=True)
    for ident in _ids(html):
        assert all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in ident), ident


def test_doc_ids_differing_only_in_dropped_characters_stay_distinct() -> None:
    one, two = render_markdown("A[^n]\n\n[^n]: x", "a b"), render_markdown("A[^n]\n\n[^n]: x", "a.b")
    assert _ids(str(one)).isdisjoint(_ids(str(two)))


# --- code ----------------------------------------------------------------------------


def test_fence_with_known_language_is_highlighted() -> None:
    html = str(render_markdown("```python\ndef f():\n    return 1\n```", "m1"))
    assert html == (
        '<pre class="code"><code><span class="k">def</span> <span class="nf">f</span>():\n'
        '    <span class="k">return</span> <span class="mi">1</span>\n'
        "</code></pre>\n"
    )


@pytest.mark.parametrize(
    "info",
    ['"><script>alert(1)</script>', "\"><img src=x onerror=alert(1)>", "python\" onmouseover=\"x", "nosuchlang", "{.python}"],
)
def test_fence_info_string_is_never_reflected(info: str) -> None:
    html = str(render_markdown(f"```{info}\n<b>x</b>\n```", "m1"))
    assert html == '<pre class="code"><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre>\n'


def test_fence_info_uses_first_word_only() -> None:
    html = str(render_markdown("```json title=\"><script>\n{\"a\": 1}\n```", "m1"))
    assert html.startswith('<pre class="code"><code>{<span class="nt">&#34;a&#34;</span>')
    assert "script" not in html


def test_fence_info_entities_do_not_smuggle_markup() -> None:
    html = str(render_markdown("```&lt;script&gt;\nx\n```", "m1"))
    assert html == '<pre class="code"><code>x\n</code></pre>\n'


def test_indented_code_block() -> None:
    assert str(render_markdown("    <script>x</script>", "m1")) == (
        '<pre class="code"><code>&lt;script&gt;x&lt;/script&gt;\n</code></pre>\n'
    )


def test_inline_code_is_escaped() -> None:
    assert str(render_markdown("`<script>`", "m1")) == "<p><code>&lt;script&gt;</code></p>\n"


def test_non_string_input_does_not_raise() -> None:
    assert str(render_markdown(None, "m1")) == ""  # type: ignore[arg-type]


def test_render_is_deterministic() -> None:
    source = "# T\n\n[a](https://a.example) ![b](https://b.example)\n\n```python\nx = 1\n```\n\nx[^1]\n\n[^1]: y"
    assert render_markdown(source, "m") == render_markdown(source, "m")


# --- prose without Markdown: the fast path gives markdown-it's bytes ----------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bough_site.render import markdown as markdown_module  # noqa: E402

# Plain letters and the characters that decide whether text is only prose.
PROSE_ALPHABET = list("aB é'\"\n\n.,:;?()/1-+#>=*`_[]<&|~\\!") + ["\u00a0", "\u3000", "\u2003", "\x1c", "  ", "1.", "2)"]


def markdown_it(text: str) -> str:
    return markdown_module._MD.render(text, {"docId": "d"})


@given(st.lists(st.sampled_from(PROSE_ALPHABET), max_size=40).map("".join))
def test_prose_renders_as_markdown_it_would(text: str) -> None:
    prose = markdown_module._prose(text)
    if prose is not None:
        assert prose == markdown_it(text)


@pytest.mark.parametrize(
    "text",
    [
        "Plain words, \"quoted\" and it's fine: ok?\nA second line.\n\n\nA second paragraph (with parens) 100%.",
        "well-known and so-called C# x=1 a+b 3.5 1)",
        "\n\nleading and trailing blank lines\n\n",
        "",
    ],
)
def test_plain_prose_takes_the_fast_path(text: str) -> None:
    assert markdown_module._prose(text) == markdown_it(text)
    assert str(render_markdown(text, "d")) == markdown_it(text)


@pytest.mark.parametrize(
    "text",
    ["- item", "1. first", "2) second", "Title\n===", "a\n---", "  indented", "\u00a0nbsp", "hard  \nbreak", "x\u3000",
     "> quote", "# head", "a | b", "`code`", "*em*", "snake_case", "[link](x)", "a <b>", "&amp;", "~~s~~", "a\\b",
     "tab\tbed", "cr\r\nlf", ": table", "+ plus"],
)
def test_anything_that_may_be_markdown_goes_to_markdown_it(text: str) -> None:
    assert markdown_module._prose(text) is None
