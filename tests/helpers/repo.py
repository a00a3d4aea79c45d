"""The repository, the example builder (scripts/build_examples.py as ``be``), the shared
real transcripts beside the checkout, and a site's files read back."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest


REPO = Path(__file__).resolve().parents[2]


def load_build_examples() -> ModuleType:
    """scripts/build_examples.py as a module (scripts/ is not a package)."""
    name = "bough_build_examples"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "build_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


be = load_build_examples()


SHARED = REPO.parent / "shared"
FIXTURES = SHARED / "fixtures"


def fixtures_dir(kind: str) -> Path:
    """The shared real transcripts, or a skip when this checkout has none beside it."""
    folder = FIXTURES / kind
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here (the shared fixtures live beside the checkout)")
    return folder


def lay_out_as_config_dir(fixtures: Path, root: Path) -> Path:
    """Copy the fixtures into ``root/projects/<dir>/`` the way Claude Code stores them:
    loose files go to one project directory each, session directories keep their shape."""
    projects = root / "projects"
    for entry in sorted(fixtures.iterdir()):
        if entry.is_dir():
            shutil.copytree(entry, projects / entry.name)
        elif entry.suffix == ".jsonl":
            folder = projects / entry.name.split("__")[0]
            folder.mkdir(parents=True, exist_ok=True)
            # "agent-sessions__…" is the fixture's source, not the old sub-agent
            # layout's agent-<id>.jsonl: keep the name from looking like one.
            name = "fx-" + entry.name if entry.name.startswith("agent-") else entry.name
            shutil.copy2(entry, folder / name)
    return projects


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


def ccusage_command() -> list[str]:
    """ccusage 20.0.24 ($BOUGH_CCUSAGE, which .ci/run sets, else on PATH), or a skip."""
    configured = os.environ.get("BOUGH_CCUSAGE")
    if configured and Path(configured).exists():
        return [configured]
    found = shutil.which("ccusage")
    if found:
        return [found]
    pytest.skip("ccusage 20.0.24 is not installed (.ci/run installs it and sets BOUGH_CCUSAGE)")
