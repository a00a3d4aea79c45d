"""Which link targets from a transcript may become an ``href``.

Autoescaping stops a value from breaking out of a quoted attribute, but not
``href="javascript:…"``: the scheme itself is the attack.  So transcript URLs go
through one allow-list (docs/safety.md S5): absolute ``http``, ``https`` and
``mailto`` and nothing else.  Relative links are not allowed here because a
relative link in a transcript points into the author's filesystem or repository,
not into our site; links between our own pages come from the writer, not from here.
"""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import quote

# Enforced on the whole (cleaned) string: "https://" needs something after it,
# "mailto:" needs an address.  Matching the scheme literally (no decoding) means
# "&#106;avascript:", "%6Aavascript:" and "java\tscript:" all fail.
_ALLOWED = re.compile(r"(?:https?://|mailto:)\S", re.IGNORECASE)

# Unicode categories removed before the check: controls (tab, newline, NUL...)
# and format characters (zero-width space, bidi overrides).  Browsers drop ASCII
# tab/newline anywhere in a URL, so "jav\nascript:" would otherwise slip past a
# naive prefix test; the format characters hide text from a human reader.
_INVISIBLE = frozenset({"Cc", "Cf"})

# Longer values are not links anyone meant to click, and bound the regex work.
_MAX_URL = 8192


def _clean(url: str) -> str:
    """Strip what a browser would ignore, so we check what a browser would see."""
    kept = "".join(ch for ch in url if unicodedata.category(ch) not in _INVISIBLE)
    kept = kept.strip()
    # Inner whitespace cannot be part of a URL: encode it instead of letting it
    # end an unquoted context somewhere downstream.
    return "".join(quote(ch) if ch.isspace() else ch for ch in kept)


def safe_href(url: str) -> str | None:
    """Return a cleaned ``url`` if it may be used as an ``href``, else None.

    Allowed: absolute ``http:``, ``https:`` and ``mailto:`` URLs (scheme in any
    case).  The result still has to be attribute-escaped by the caller (Jinja
    autoescape or markupsafe); it is never pre-escaped here.
    """
    if not isinstance(url, str) or len(url) > _MAX_URL:
        return None
    cleaned = _clean(url)
    if not _ALLOWED.match(cleaned):
        return None
    # Entity tricks: the literal check above already refuses "&#106;avascript:"
    # and "https&#58;//" (no allowed scheme as written).  Checking the decoded
    # form as well keeps the answer the same for a consumer that decodes
    # entities once more than we expect.
    if not _ALLOWED.match(_clean(html.unescape(cleaned))):
        return None
    return cleaned
