"""What a page must not hold: every construct a Content-Security-Policy without
'unsafe-inline' would block, or that escaping should have stopped."""

from __future__ import annotations

import re
from html.parser import HTMLParser


# Elements no page of ours has and an injected one would use to run, restyle, redirect or post.
FORBIDDEN_TAGS = frozenset({"style", "iframe", "frame", "object", "embed", "base", "form", "input", "textarea",
                            "applet", "math", "template", "noscript"})
URL_ATTRS = frozenset({"href", "src", "action", "formaction", "srcset", "poster", "data", "xlink:href", "background"})
BAD_SCHEME = re.compile(r"^\s*(javascript|data|vbscript|file)\s*:", re.IGNORECASE)


class _CspCheck(HTMLParser):
    """Collects every markup construct that a CSP without 'unsafe-inline' would block
    (or that escaping should have stopped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and not values.get("src"):
            self.problems.append("inline <script>")
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}>")
        if tag == "meta" and (values.get("http-equiv") or "").lower() not in ("", "content-security-policy"):
            self.problems.append(f"<meta http-equiv={values['http-equiv']}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=>")
            elif name == "style":
                self.problems.append(f"<{tag} style=>")
            elif name in URL_ATTRS and value and BAD_SCHEME.match(value):
                self.problems.append(f"<{tag} {name}={value[:30]}>")

    handle_startendtag = handle_starttag


def csp_problems(page: str) -> list[str]:
    checker = _CspCheck()
    checker.feed(page)
    checker.close()
    return checker.problems
