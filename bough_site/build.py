"""The library's door: ``build(config)`` makes the site in ``config.out``,
``load_site(config)`` reads every source into the model and writes nothing.

A build first asks the quick check (quick.py) whether anything changed since
the last build there; when nothing did, it says again what that build said.
Only otherwise are the stages imported and run (stages.py): in a build that
changes nothing, importing the whole pipeline was a fifth of its time
(docs/performance.md).
"""

from __future__ import annotations

from . import quick
from .agent_cleanup import cleanup_notes
from .build_result import BuildResult, Progress
from .config import BuildConfig
from .model import Site
from .options import build_options
from .out_place import check_outside_agent_homes

__all__ = ["BuildResult", "Progress", "build", "load_site"]


def build(config: BuildConfig, *, redaction_key: bytes | None = None) -> BuildResult:
    """Build the site in ``config.out``, stage by stage (docs/architecture.md); when
    nothing changed since the last build there (quick.py), say again what it said."""
    check_outside_agent_homes(config.out)  # before anything is read or written (docs/safety.md S8)
    look = quick.unchanged(config, build_options(config, False, redaction_key).digest())
    if look.said is not None:
        return _said_again(config, look.said)
    from .stages import run_stages

    return run_stages(config, look, redaction_key)


def load_site(config: BuildConfig, *, redaction_key: bytes | None = None) -> Site:
    """Read every source into the model (no output is written): the plain
    sequential path, timelines included, for tests and tools that want the
    numbers without a site."""
    from .stages import read_site

    return read_site(config, redaction_key=redaction_key)


def _said_again(config: BuildConfig, said: quick.Said) -> BuildResult:
    """The last build's result, said again: the quick check found nothing changed since."""
    for warning in said.reported:
        config.report(f"warning: {warning}")
    notes = cleanup_notes(config, claude=said.claude, gemini=said.gemini)
    if config.progress is not None:
        config.progress(Progress(said.sessions_live, said.sessions_live, "", 0, said.sessions_live, 0.0))
    return BuildResult(config.out, said.projects, said.sessions, said.stats, warnings=said.warnings,
                       archived_only=said.archived_only, notes=notes, reused=said.sessions_live,
                       gone=said.gone, kept=said.files)
