"""The agents described by a ``Layout`` (layout.py), by kind: the one list of them.

Discovery, the archive, the configuration's default places and the plan ask
this list; registry.py says which reader reads each kind's units."""

from __future__ import annotations

from pathlib import Path

from ..kinds import COPILOT, OPENCODE, QWEN
from . import copilot_layout, opencode_layout, qwen_layout
from .layout import Layout

LAYOUTS: dict[str, Layout] = {
    COPILOT: copilot_layout.LAYOUT,
    OPENCODE: opencode_layout.LAYOUT,
    QWEN: qwen_layout.LAYOUT,
}


def claimer(path: Path) -> Layout | None:
    """The layout that takes ``path`` (a folder or a file) as its agent's, if any."""
    for layout in LAYOUTS.values():
        try:
            if layout.claims(path):
                return layout
        except OSError:
            continue
    return None
