"""Where OUT may be: never inside an input or holding one (:func:`check_separate`), never
in an AI agent's own directory (:func:`check_outside_agent_homes`).

Checked before anything is read or written (docs/safety.md S8): a site written into
``~/.claude`` or into the transcripts it is made from would damage what bough reads.
"""

from __future__ import annotations

from pathlib import Path

from bough_site.config import agent_homes
from bough_site.errors import OutputError


def check_separate(out: Path, inputs: list[Path]) -> None:
    """Refuse an OUT inside an input directory, or an input inside OUT.

    Compares fully resolved paths (symlinks followed) with ``is_relative_to``:
    string prefixes would call ``/a/bc`` part of ``/a/b``.
    """
    real_out = resolved(Path(out))
    for given in inputs:
        real_in = resolved(Path(given))
        if real_out.is_relative_to(real_in):
            raise OutputError(
                f"the output directory {out} is inside the input {given}; "
                "bough never writes into its inputs: choose an output directory elsewhere"
            )
        if real_in.is_relative_to(real_out):
            raise OutputError(
                f"the input {given} is inside the output directory {out}; "
                "choose an output directory that holds no input"
            )


def check_outside_agent_homes(out: Path, homes: list[Path] | None = None) -> None:
    """Refuse an OUT inside (or equal to) an agent's own directory: ``homes``, by
    default those config.py names (``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``,
    ``$GEMINI_CLI_HOME/.gemini`` and ``~/.claude``, ``~/.codex``, ``~/.gemini``).
    Resolved paths are compared (docs/safety.md S8), so a link to one is refused
    too, and ``cd ~/.claude && bough build`` writes nothing there."""
    real_out = resolved(Path(out).absolute())
    named = f"{out} ({real_out})" if str(out) != str(real_out) else str(out)
    for home in agent_homes() if homes is None else homes:
        if real_out.is_relative_to(resolved(Path(home).absolute())):
            raise OutputError(
                f"the output directory {named} is inside {home}, an AI agent's own directory; "
                "bough never writes there: choose an output directory elsewhere (-o)"
            )


def resolved(path: Path) -> Path:
    """``path`` with every link followed; an OutputError when that cannot be done."""
    try:
        return path.resolve()
    except (OSError, RuntimeError) as err:  # RuntimeError: a symlink loop, on Python 3.11
        raise OutputError(f"cannot resolve {path}: {err}") from err
