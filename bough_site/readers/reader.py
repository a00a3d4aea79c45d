"""The one signature every agent's reader has (``Reader``), and what it is given.

A unit (plan/units.py) is what one reader call reads: a Claude session's files,
every Codex rollout, or one Gemini CLI project folder. A reader takes the unit's
files and how to name them, a callback for each warning, and the history an
earlier session holds too (inherit.py; only Claude sessions resume by copying),
and gives back the unit's sessions. The registry (registry.py) says which reader
reads which kind of unit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..inherit import Inheritance
from ..model import InputWarning, Session

WarnFn = Callable[[InputWarning], None]
LabelFn = Callable[[Path], str]


class UnitFiles(Protocol):
    """What a reader needs of a unit: its files, and the labels that name them
    in warnings and sidecars (never the real path: labels are what a site shows)."""

    @property
    def paths(self) -> tuple[str, ...]: ...

    @property
    def labels(self) -> tuple[str, ...]: ...


class Reader(Protocol):
    def __call__(self, unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None, /) -> list[Session]: ...


def labeller(unit: UnitFiles) -> LabelFn:
    """How the unit names each of its files (a file it does not list, by its name)."""
    labels = dict(zip(unit.paths, unit.labels))

    def label(path: Path) -> str:
        return labels.get(str(path), path.name)

    return label
