"""PLACEHOLDER — this file was overwritten by accident and must be restored.

The original ``bough_site/work.py`` (``summarize_work``: commits, changed files,
sub-agent runs, prompt times, reply usage, written by the search/commits engineer)
was overwritten at about 19:50 on this machine by the performance helper, who did
not know the file had just been created (it was not there a few minutes before and
is not in git). Its content could not be recovered from disk: please restore it
from the session that wrote it. The helper's own module is ``bough_site/jobs.py``.

Until then ``summarize_work`` does nothing, so builds keep working without the
"what the agent built" data.
"""

from __future__ import annotations

from .model import Session


def summarize_work(session: Session) -> None:  # pragma: no cover - placeholder
    """Placeholder: see the module docstring."""
    return None
