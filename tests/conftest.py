"""Shared test setup: no test ever touches the real ~/.claude, ~/.codex, ~/.gemini or data dirs."""

from __future__ import annotations

from pathlib import Path

import os

import pytest
from hypothesis import settings

from .records import reset_clock

# In CI the property tests run a fixed, reproducible set of examples (a red CI run can be
# replayed exactly); locally they keep exploring new random ones.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

SHARED = Path(__file__).resolve().parents[2] / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture(autouse=True)
def fresh_record_clock() -> None:
    reset_clock()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))  # Gemini CLI's directory is $GEMINI_CLI_HOME/.gemini
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("BOUGH_REDACTION_KEY", "test-key")
    monkeypatch.delenv("BOUGH_ARCHIVE", raising=False)
    return home


def fixtures_dir(kind: str) -> Path:
    """The shared real transcripts, or a skip when this checkout has none beside it."""
    folder = FIXTURES / kind
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here (the shared fixtures live beside the checkout)")
    return folder


def file_tree(root: Path, *, site_only: bool = False) -> dict[str, bytes]:
    """Every regular file under root by its relative path. ``site_only`` leaves out
    bough's own bookkeeping (the writer's marker and lock, the incremental state:
    every name starting ``.bough-``), keeping what a host would publish."""
    tree = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not (site_only and any(part.startswith(".bough-") for part in relative.parts)):
            tree[relative.as_posix()] = path.read_bytes()
    return tree
