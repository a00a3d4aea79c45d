"""How far the build's configuration wanders (issue #38's metric): build the
bundled examples once (given as sources, -j 1, into a temporary OUT and archive)
with a profiler hook that notes every call, in bough_site, of a function that
receives the build's ``BuildConfig`` or an ``Options`` as an argument (not
their own methods). Two counts:

- *climbs back up*: such a call into a module that is already on the call stack
  below its caller's module (module A calls B, which calls back into A);
- *returns*: of the modules those calls are in, in order (a run of calls in one
  module counts once), how many enter a module already left before; and the
  same without the returns to stages.py, whose ``run_stages()`` calls each stage in
  turn (the stages' own wandering).

    .venv/bin/python scripts/config_path.py   # the two counts, then the path
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bough_site.build import build  # noqa: E402
from bough_site.config import BuildConfig  # noqa: E402
from bough_site.discover import EXAMPLES  # noqa: E402
from bough_site.options import Options  # noqa: E402

PACKAGE = str(REPO / "bough_site")


def _module(code) -> str:  # type: ignore[no-untyped-def]
    return str(Path(code.co_filename).relative_to(PACKAGE))


def _below(frame) -> list[str]:  # type: ignore[no-untyped-def]
    """The bough_site modules on the stack under ``frame``'s caller's module (runs collapsed)."""
    chain: list[str] = []
    while frame is not None:
        if frame.f_code.co_filename.startswith(PACKAGE):
            module = _module(frame.f_code)
            if not chain or chain[-1] != module:
                chain.append(module)
        frame = frame.f_back
    return chain[1:]


def modules_entered(config: BuildConfig) -> tuple[list[str], list[str]]:
    """The modules of the calls that receive ``config`` or an Options, in order;
    and the calls among them that climb back up (as "caller -> callee")."""
    path: list[str] = []
    climbs: list[str] = []

    def hook(frame, event, _arg):  # type: ignore[no-untyped-def]
        if event != "call" or not frame.f_code.co_filename.startswith(PACKAGE):
            return
        code = frame.f_code
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        values = [frame.f_locals.get(name) for name in names if name != "self"]  # not the config's own methods
        if any(value is config or isinstance(value, Options) for value in values):
            module = _module(code)
            if not path or path[-1] != module:
                path.append(module)
            below = _below(frame.f_back)
            if below and module != below[0] and module in below[1:]:
                climbs.append(f"{below[0]} -> {module}:{code.co_name}")

    sys.setprofile(hook)
    try:
        build(config, redaction_key=b"k")
    finally:
        sys.setprofile(None)
    return path, climbs


def returns(path: list[str], *, besides: str = "") -> int:
    """How many times the path enters a module it has been in and left before
    (not counting ``besides``)."""
    return sum(1 for i, module in enumerate(path) if module in path[:i] and module != besides)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        sources = [EXAMPLES / "claude" / "projects", EXAMPLES / "codex" / "sessions", EXAMPLES / "gemini"]
        config = BuildConfig(sources=sources, out=Path(tmp) / "out", archive=Path(tmp) / "archive", jobs=1)
        path, climbs = modules_entered(config)
    print(f"climbs back up: {len(climbs)}; returns to a module already left: {returns(path)}, "
          f"stages.py aside: {returns(path, besides='stages.py')}")
    print("\n".join(climbs))
    print(" -> ".join(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
