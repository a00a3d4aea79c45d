"""The theme's static files as a build writes them: the generated code
stylesheet, the default theme's files, a user theme's, and content-hashed names."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path

from .. import urls
from . import default_theme_dir
from .code_styles import stylesheet


# Asset kinds that get a content hash in their names (browsers cache them hard).
HASHED_SUFFIXES = (".css", ".js")
# Also hashed: only a page's <head> links these, never a stylesheet's url().
HASHED_NAMES = ("favicon.svg",)
GENERATED_CODE_CSS = "highlight.css"
SEARCH_SCRIPT = "search.js"


def static_files(theme: Path | None) -> dict[str, bytes]:
    """Name → bytes of every static file: the default theme's, the generated
    code stylesheet, then the user theme's (same name wins)."""
    files: dict[str, bytes] = {GENERATED_CODE_CSS: stylesheet().encode("utf-8")}
    roots = [default_theme_dir() / "static"]
    if theme is not None:
        roots.append(theme / "static")
    for root in roots:
        if root.is_dir():
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def asset_name(name: str, data: bytes) -> str:
    """``bough.css`` → ``assets/bough.3f2a9c1d.css`` for CSS, JS and the favicon;
    other files keep their names so a stylesheet's ``url(logo.svg)`` still finds them."""
    if not name.endswith(HASHED_SUFFIXES) and name not in HASHED_NAMES:
        return posixpath.join(urls.ASSETS_DIR, name)
    stem, ext = posixpath.splitext(name)
    digest = hashlib.sha256(data).hexdigest()[:8]
    return posixpath.join(urls.ASSETS_DIR, f"{stem}.{digest}{ext}")
