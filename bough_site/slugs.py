"""File names made from untrusted names: :func:`slug` for one, :func:`unique_slugs`
for the members of a folder.

A session id, a project's path, a title: anything may be in them (``..``, ``/``, control
characters, ``con`` on Windows, two names that differ in case only). A page's name must
be safe on every file system and stay the same from one build to the next, so a name
that needs changing gets a short hash of the original beside what is left of it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter

_SAFE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
# Windows refuses these as a file's stem (`con`, `con.html`) whatever the extension.
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}
)
_HASH_LEN = 8
_DEFAULT_MAX_LEN = 48


def slug(text: str, *, max_len: int = _DEFAULT_MAX_LEN) -> str:
    """A safe file-name component made from untrusted ``text``.

    The result uses only ``[a-z0-9._-]``, never starts with a dot or dash, never
    contains ``..``, is never empty and is never a Windows-reserved name. A text
    that is already such a name (a UUID, say) comes back unchanged; any other gets
    ``-`` plus 8 hex chars of sha256(text), so texts differing only in what was
    dropped or changed still get different slugs.
    """
    return _slug(text, max_len)


def unique_slugs(names: list[str]) -> list[str]:
    """Slugs for ``names`` that are pairwise different, also case-insensitively.

    Where two names would share a slug, each gets the hash suffix of its own text.
    Only equal names (or a sha256-prefix collision) are still equal after that;
    those are numbered in list order (``-2``, ``-3``), so the same list always
    gives the same slugs.
    """
    slugs = [_slug(name, _DEFAULT_MAX_LEN) for name in names]
    counts = Counter(slugs)  # slugs are lower-case, so equal here == equal on a case-folding FS
    for i, name in enumerate(names):
        if counts[slugs[i]] > 1:
            slugs[i] = _slug(name, _DEFAULT_MAX_LEN, force_hash=True)
    taken: set[str] = set()
    for i, name in enumerate(names):
        number = 1
        while slugs[i] in taken:
            number += 1
            slugs[i] = _slug(name, _DEFAULT_MAX_LEN, force_hash=True, tag=f"-{number}")
        taken.add(slugs[i])
    return slugs


def _slug(text: str, max_len: int, *, force_hash: bool = False, tag: str = "") -> str:
    if max_len < _HASH_LEN + len(tag):
        raise ValueError(f"max_len must be at least {_HASH_LEN + len(tag)}, got {max_len}")
    if not force_hash and not tag and len(text) <= max_len and _ALREADY_SAFE.fullmatch(text) and \
            not _is_reserved(text):
        return text  # a UUID, say: _fold would give it back as it is (checked in the tests)
    suffix = _short_hash(text) + tag
    base = _fold(text)
    if not (force_hash or base != text or not base or len(base) > max_len or _is_reserved(base)):
        return base
    if _is_reserved(base):
        # "con.txt" is as reserved as "con": a suffix after the dot would not help.
        base = base.replace(".", "-", 1)
    # Cutting can leave a trailing dot or dash; Windows drops trailing dots silently.
    base = base[: max(max_len - len(suffix) - 1, 0)].rstrip(".-")
    return f"{base}-{suffix}" if base else suffix


# Text that _fold leaves as it is: safe characters, starting with a letter or digit,
# each "." or "-" followed by a letter, digit or "_" (no "..", "--", ".-", nor one at the end).
_ALREADY_SAFE = re.compile(r"[a-z0-9](?:[a-z0-9_]|[.-](?=[a-z0-9_]))*")


def _fold(text: str) -> str:
    """Map text onto the safe alphabet: accents dropped, ASCII lower-cased, anything else a dash."""
    chars = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue  # "é" decomposes to "e" + an accent: keep the "e"
        ch = ch.lower() if ch.isascii() else "-"
        chars.append(ch if ch in _SAFE_CHARS else "-")
    folded = re.sub(r"-{2,}", "-", "".join(chars))
    folded = re.sub(r"\.{2,}", ".", folded)  # never "..", even inside a name
    return folded.strip(".-")


def _is_reserved(name: str) -> bool:
    return name.split(".", 1)[0] in _WINDOWS_RESERVED


def _short_hash(text: str) -> str:
    # surrogatepass: JSON can carry lone surrogates, and a name must never crash the build.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_LEN]
