"""Rendering: the theme, pages, highlighting, Markdown and charts.

``default_theme_dir`` lives here, apart from Jinja, so a build that renders
nothing (nothing changed) need not import it to digest the theme's files.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def default_theme_dir() -> Path:
    """The default theme: inside the installed package (``bough_site/themes``),
    else the ``themes/`` folder of a source checkout that is not installed."""
    try:
        root = resources.files("bough_site.themes")
        candidate = Path(str(root)) / "default"
        if (candidate / "templates").is_dir():
            return candidate
    except ModuleNotFoundError:
        pass
    # A plain checkout: bough_site/render/env.py -> <checkout>/themes/default.
    return Path(__file__).resolve().parents[2] / "themes" / "default"
