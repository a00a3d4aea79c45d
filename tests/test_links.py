"""Every link in the built example site resolves to a file in it.

Internal links must work from ``file://`` and under any sub-path: relative (never
``/x`` or ``//host``), naming a file (never ``dir/``), staying inside the site,
and an ``#anchor`` must exist in the page it points to. Links to other sites
(``http``, ``https``, ``mailto``) are left alone; any other scheme is a fault.
"""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import pytest

from bough_site import urls

from .helpers import be

# Attributes that hold one URL; srcset holds several.
URL_ATTRS = frozenset({"href", "xlink:href", "src", "action", "poster", "formaction", "cite"})
EXTERNAL_SCHEMES = frozenset({"http", "https", "mailto"})
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]*)\1\s*\)""")


class _PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in URL_ATTRS:
                self.links.append((tag, name, value))
            elif name == "srcset":
                for candidate in value.split(","):
                    if candidate.strip():
                        self.links.append((tag, name, candidate.split()[0]))


def scan(data: bytes) -> _PageScan:
    parser = _PageScan()
    parser.feed(data.decode("utf-8"))
    parser.close()
    return parser


def link_problems(files: dict[str, bytes]) -> list[str]:
    """Every broken link in a site given as relpath -> bytes, as ``page: link: why``."""
    pages = {path: scan(data) for path, data in files.items() if path.endswith(".html")}
    problems = []

    def check(page: str, value: str, *, allow_anchor: bool = True) -> str | None:
        if value == "":
            return "empty link"
        if value.startswith("data:"):
            return None if value.startswith("data:image/") and not value.startswith("data:image/svg") else "data: URL"
        parts = urlsplit(value)
        if parts.scheme or parts.netloc:
            if parts.scheme in EXTERNAL_SCHEMES and value.startswith(f"{parts.scheme}:"):
                return None
            return f"scheme {parts.scheme!r} / host {parts.netloc!r} is not allowed"
        if parts.query:
            return "has a query string"
        path = unquote(parts.path)
        if path.startswith("/"):
            return "absolute path (breaks from file:// and under a sub-path)"
        if path == "":
            target = page
        else:
            if path.endswith("/") or path.split("/")[-1] in (".", ".."):
                return "names a directory, not a file"
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
            if target == ".." or target.startswith("../"):
                return "leads outside the site"
            if target not in files:
                return f"no file {target}"
        if parts.fragment:
            if not allow_anchor:
                return "anchor where none is expected"
            if target not in pages:
                return f"anchor into {target}, which is not a page"
            if unquote(parts.fragment) not in pages[target].ids:
                return f"no id {parts.fragment!r} in {target}"
        return None

    for page, found in sorted(pages.items()):
        for tag, attr, value in found.links:
            why = check(page, value)
            if why:
                problems.append(f"{page}: <{tag} {attr}={value!r}>: {why}")
    for path, data in sorted(files.items()):
        if path.endswith(".css"):
            for match in CSS_URL.finditer(data.decode("utf-8")):
                why = check(path, match.group(2), allow_anchor=False)
                if why:
                    problems.append(f"{path}: url({match.group(2)!r}): {why}")
    return problems


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return be.build_example_site(tmp_path_factory.mktemp("links") / "site")


def test_every_link_resolves(site: dict[str, bytes]) -> None:
    problems = link_problems(site)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_check_sees_links(site: dict[str, bytes]) -> None:
    # A scan that found nothing would pass vacuously.
    found = [link for path, data in site.items() if path.endswith(".html") for link in scan(data).links]
    kinds = {(tag, attr) for tag, attr, _ in found}
    assert {("a", "href"), ("link", "href"), ("script", "src"), ("img", "src")} <= kinds
    assert any(value.startswith("#") for _, _, value in found)
    assert any("/sessions/" in value or value.startswith("sessions/") for _, _, value in found)


@pytest.mark.parametrize(
    ("link", "why"),
    [
        ("/index.html", "absolute path"),
        ("//evil.example/x.js", "not allowed"),
        ("projects/", "directory"),
        ("../../../outside.html", "outside the site"),
        ("missing.html", "no file"),
        ("index.html#nowhere", "no id"),
        ("javascript:alert(1)", "not allowed"),
        ("file:///etc/passwd", "not allowed"),
    ],
)
def test_the_check_catches(link: str, why: str) -> None:
    files = {
        "index.html": b'<p id="here"><a href="#here">x</a></p>',
        "projects/a/index.html": f'<a href="{link}">x</a>'.encode(),
    }
    problems = link_problems(files)
    assert len(problems) == 1 and why in problems[0], problems


def test_the_check_accepts_good_links() -> None:
    files = {
        "index.html": b'<p id="top"></p><a href="projects/a/index.html#p1">x</a><a href="https://example.com/">y</a>',
        "projects/a/index.html": b'<h1 id="p1"></h1><a href="../../index.html#top">up</a><img src="../../i.png" alt="">',
        "i.png": b"",
    }
    assert link_problems(files) == []


def test_committed_example_output_links() -> None:
    # The published tree too (the same files when test_example_output passes).
    assert not link_problems(be.site_files(be.EXAMPLE_OUTPUT))


_PATHS = ["index.html", "assets/bough.css", "projects/p/index.html", "projects/p/sessions/s.html",
          "projects/p/sessions/s-2.html", "projects/q/sessions/s.html", "images/ab.png", "a//b/./c.html",
          ".", "./index.html", "projects/p/", "../outside.html", "/abs/x.html", "a/../b.html"]


@pytest.mark.parametrize("page", _PATHS)
def test_a_relative_link_is_what_relpath_gives(page: str) -> None:
    """urls.relative works from the names alone; it must agree with posixpath.relpath."""
    start = posixpath.dirname(page) or "."
    assert [urls.relative(page, target) for target in _PATHS] == [posixpath.relpath(t, start) for t in _PATHS]
