"""Which reader reads which kind of unit: the one place the choice is made.

Adding an agent is a reader module with a ``read_unit`` (reader.py's ``Reader``)
and one line here. stages.py and jobs.py read every unit through ``read_unit``.
"""

from __future__ import annotations

from ..inherit import Inheritance
from ..model import Session
from ..plan.units import CLAUDE, CODEX, COPILOT, GEMINI, OPENCODE, QWEN, Unit
from . import claude, codex, copilot, gemini, opencode, qwen
from .reader import Reader, WarnFn

READERS: dict[str, Reader] = {
    CLAUDE: claude.read_unit,
    CODEX: codex.read_unit,
    GEMINI: gemini.read_unit,
    OPENCODE: opencode.read_unit,
    COPILOT: copilot.read_unit,
    QWEN: qwen.read_unit,
}


def read_unit(unit: Unit, warn: WarnFn, inherit: Inheritance | None = None) -> list[Session]:
    """The unit's sessions, read by its kind's reader."""
    return READERS[unit.kind](unit, warn, inherit)
