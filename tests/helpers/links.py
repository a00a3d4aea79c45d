"""Every broken link in a built site (tests/test_links.py says what a good one is)."""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

# Attributes that hold one URL; srcset holds several.
LINK_ATTRS = frozenset({"href", "xlink:href", "src", "action", "poster", "formaction", "cite"})
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
            elif name in LINK_ATTRS:
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
