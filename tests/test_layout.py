"""The shape of the package: its modules import each other without a cycle, so
each stage can be read (and tested) apart from the ones after it. And of the
tests: no test module imports another, or conftest.py; what several share is in
the helpers package, the fixtures several use in conftest.py, where pytest finds them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bough_site"
TESTS = Path(__file__).resolve().parent


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


def imports_of_tests(source: str) -> list[str]:
    """The test modules (and conftest) a file of tests/ imports, relatively or as ``tests.``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name.removeprefix("tests.") for alias in node.names if alias.name.startswith("tests.")]
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "tests"):
            module = (node.module or "").removeprefix("tests").removeprefix(".")
            targets = [module] if module else [alias.name for alias in node.names]
        else:
            continue
        found += [t for t in targets if t.split(".")[0] == "conftest" or t.split(".")[0].startswith("test_")]
    return sorted(found)


def test_the_checker_finds_an_import_of_a_test_module() -> None:
    source = (
        "from .test_a import x\nfrom . import helpers, test_b\nfrom .conftest import y\nimport tests.test_c\n"
        "from tests.test_d import z\nfrom tests import test_e\nfrom .helpers import ok\nfrom bough_site import test_f\n"
        "def f():\n    from .test_g import w\n"
    )
    assert imports_of_tests(source) == ["conftest", "test_a", "test_b", "test_c", "test_d", "test_e", "test_g"]
    assert imports_of_tests("from .helpers import x\nfrom . import helpers\nimport pytest\n") == []


def test_no_test_module_imports_another_or_conftest() -> None:
    files = sorted(TESTS.glob("*.py"))
    assert {"test_layout.py", "test_browser.py"} <= {p.name for p in files}
    # One home for shared code, the helpers package; one for shared fixtures, conftest.py.
    assert [p.name for p in files if not p.name.startswith("test_")] == ["__init__.py", "conftest.py"]
    assert sorted(p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))) == ["helpers"]
    helpers = sorted((TESTS / "helpers").glob("*.py"))
    assert "__init__.py" in {p.name for p in helpers} and not any(p.name.startswith("test_") for p in helpers)
    found = {p.name: imports_of_tests(p.read_text(encoding="utf-8")) for p in files + helpers}
    assert {name: targets for name, targets in found.items() if targets} == {}
