"""The agents bough reads: each by the kind of its units (plan/units.py, the
archive, ``--source``) and the name its sessions give their source (model.py).

A leaf module: the readers' Layouts, the plan and the configuration all name
the kinds, and none of them may import another for it."""

from __future__ import annotations

from .model import SOURCE_CLAUDE, SOURCE_CODEX, SOURCE_COPILOT, SOURCE_GEMINI, SOURCE_OPENCODE, SOURCE_QWEN

CLAUDE, CODEX, GEMINI = "claude", "codex", "gemini"
# The agents described by a readers/<agent>_layout.py (readers/layout.py).
OPENCODE, COPILOT, QWEN = "opencode", "copilot", "qwen"
# What a session read from a unit of each kind names its source (Session.source).
SOURCE_OF_KIND = {CLAUDE: SOURCE_CLAUDE, CODEX: SOURCE_CODEX, GEMINI: SOURCE_GEMINI,
                  OPENCODE: SOURCE_OPENCODE, COPILOT: SOURCE_COPILOT, QWEN: SOURCE_QWEN}
