"""Every link in the built example site resolves to a file in it.

Internal links must work from ``file://`` and under any sub-path: relative (never
``/x`` or ``//host``), naming a file (never ``dir/``), staying inside the site,
and an ``#anchor`` must exist in the page it points to. Links to other sites
(``http``, ``https``, ``mailto``) are left alone; any other scheme is a fault.
"""

from __future__ import annotations

import posixpath

import pytest

from bough_site import urls

from .helpers import be, link_problems, scan


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
