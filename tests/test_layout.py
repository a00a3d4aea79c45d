"""The shape of the package: its modules import each other without a cycle, so
each stage can be read (and tested) apart from the ones after it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bough_site"


def module_files() -> dict[str, Path]:
    files = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        files[name] = path
    return files


def imported(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules ``module`` imports, at the top or inside a function."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle, as the modules on it (a depth-first search)."""
    found, state, path = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        path.append(module)
        for target in sorted(edges[module]):
            if state.get(target) == "open":
                found.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module)
    return found


def test_the_checker_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_has_no_cycle() -> None:
    known = module_files()
    edges = {module: imported(module, path, known) for module, path in known.items()}
    assert {"bough_site.build", "bough_site.plan", "bough_site.discover", "bough_site.archive"} <= set(edges)
    assert "bough_site.plan.lineage" in edges["bough_site.plan"]  # the checker sees relative imports
    assert cycles(edges) == []


def test_discovery_lists_files_and_leaves_the_archive_alone() -> None:
    known = module_files()
    assert not any(target.startswith("bough_site.archive")
                   for target in imported("bough_site.discover", known["bough_site.discover"], known))
