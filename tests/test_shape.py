"""The shape the code keeps (issue #38): no function takes more than 8 parameters
(the click commands in cli.py aside: each option is one), and no module is over
800 lines. Read from the source with ast: nothing is imported or run."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bough_site"
MAX_PARAMETERS = 8
MAX_LINES = 800


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many parameters a caller may pass (``self`` and ``cls`` not counted)."""
    args = function.args
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(names) + (args.vararg is not None) + (args.kwarg is not None)
    if names and names[0].arg in ("self", "cls"):
        count -= 1
    return count


def too_many_parameters(source: str, name: str) -> list[str]:
    """Each function of ``source`` (a module named ``name``) over the limit, as
    ``module:function (count)``."""
    return [f"{name}:{node.name} ({parameters(node)})" for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and parameters(node) > MAX_PARAMETERS]


def test_the_check_counts_parameters() -> None:
    nine = "def f(a, b, c, d, e, /, g, *i, j, **k): pass\n"
    eight = "class C:\n    def m(self, a, b, c, d, e, f, g, *, h): pass\n"
    assert too_many_parameters(nine, "x") == ["x:f (9)"]
    assert too_many_parameters(eight, "x") == []


def test_no_function_takes_more_than_8_parameters() -> None:
    found = []
    for path in _modules():
        if path.relative_to(PACKAGE) == Path("cli.py"):
            continue  # the click commands: one parameter per option
        found += too_many_parameters(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    assert found == []


def test_no_module_is_over_800_lines() -> None:
    long = {str(path.relative_to(PACKAGE)): n for path in _modules()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
