"""What stands for a session bough failed to read or render.

A failure costs the session it started in, never the site (docs/safety.md S11):
the session keeps its place, its name and its counts where they were read, and
its page says that bough could not show it, and why. Its transcript stays as it
was, and in bough's archive, so a later bough can show it. A bug in bough must
still be seen: the warning names the exception's type and asks for a report.

Only bough's own errors are contained here. An ``OSError`` (a full disk, a file
that cannot be read) and a :class:`BoughError` are about the machine or the
setup, not one session; a build stops on them with one clear line, as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .errors import BoughError
from .model import Marker, Session, InputWarning
from .plan.units import CLAUDE, CODEX, GEMINI, SOURCE_OF_KIND, Unit
from .readers.layouts import LAYOUTS
from .readers.lines import peek_field
from .readers.values import as_dict, as_str, normalize_timestamp, untitled
from .stats import Tally

# The longest part of an exception's message a page or warning repeats.
_MESSAGE_CHARS = 300


def contained(error: BaseException) -> bool:
    """Whether an error costs only the session it happened in: a bug in bough, not
    the machine's trouble (a full disk, OUT gone) nor a stop the user asked for."""
    return isinstance(error, Exception) and not isinstance(error, (OSError, BoughError, sqlite3.Error))


@dataclass(frozen=True)
class Failure:
    stage: str  # "read" | "render"
    error: BaseException

    @property
    def what(self) -> str:
        """``TypeError: the first line of its message`` (cut short)."""
        message = str(self.error).strip().splitlines()[0] if str(self.error).strip() else ""
        if len(message) > _MESSAGE_CHARS:
            message = message[: _MESSAGE_CHARS - 1] + "…"
        name = type(self.error).__name__
        return f"{name}: {message}" if message else name

    def warning(self, label: str) -> InputWarning:
        return InputWarning(label, 0, f"bough could not {self.stage} this session ({self.what}); its page says so, and "
                                 f"its transcript is kept as it is. This is a bug in bough {__version__}: please report it")

    def note(self) -> str:
        """What the session's page says in place of its timeline."""
        return (f"bough could not show this session: it failed while trying to {self.stage} it ({self.what}). "
                "This is a bug in bough, not a fault of yours: please report it. The transcript is kept as it "
                "is (and in bough's archive, where the archive is on), so a later bough can show it.")


def stand_ins(session: Session, failure: Failure, warn: Callable[[InputWarning], None]) -> Iterator[Session]:
    """What may stand for a session bough failed to redact or render, to try in
    turn: its facts and counts as read with a note for its timeline; should that
    fail too (the bug lies in those facts), its id alone. The warning is said once."""
    label = session.files[0] if session.files else session.id
    warning = failure.warning(label)
    warn(warning)
    yield _shown(session, failure, warning, session.title or untitled(session.started), session.tally)
    bare = Session(id=session.id, source=session.source, cwd=session.cwd, title="", started=None, ended=None,
                   versions=[], models=[], git_branch=None, files=list(session.files), timeline=[], stats={})
    yield _shown(bare, failure, warning, untitled(session.started), None)


def _shown(session: Session, failure: Failure, warning: InputWarning, title: str, tally: object) -> Session:
    shown = Session(
        id=session.id, source=session.source, cwd=session.cwd, title=title, started=session.started,
        ended=session.ended, versions=list(session.versions), models=list(session.models),
        git_branch=session.git_branch, files=list(session.files), timeline=[_note(session.id, failure)],
        stats=dict(session.stats), warnings=[*session.warnings, warning], parent_id=session.parent_id,
        kept_since=session.kept_since,
    )
    shown.tally = tally if isinstance(tally, Tally) else Tally()
    if not shown.stats:
        shown.stats = shown.tally.stats()
    return shown


def unreadable(kind: str, path: Path, label: str, failure: Failure, warn: Callable[[InputWarning], None]) -> Session:
    """A session whose file bough failed to read: what a glance at its first
    lines tells (its directory, its first time), and the note."""
    warning = failure.warning(label)
    warn(warning)
    cwd, started = _glance(kind, path)
    session_id = _codex_id(path) if kind == CODEX else _file_session_id(path)
    tally = Tally(has_reasoning=kind != CLAUDE)
    return Session(
        id=session_id, source=SOURCE_OF_KIND.get(kind, SOURCE_OF_KIND[GEMINI]), cwd=cwd, title=untitled(started),
        started=started, ended=started, versions=[], models=[], git_branch=None, files=[label],
        timeline=[_note(session_id, failure)], stats=tally.stats(), warnings=[warning], tally=tally,
    )


def main_files(unit: Unit) -> list[tuple[str, str]]:
    """The files of a unit that each make sessions when read alone: a Claude
    session's main file (its sub-agents then left out), every Codex rollout,
    every file of a Gemini CLI folder, every file holding a session of an agent
    a Layout describes."""
    pairs = list(zip(unit.paths, unit.labels))
    if unit.kind in LAYOUTS:
        return [(path, label) for path, label in pairs if LAYOUTS[unit.kind].holds_session(label)]
    return pairs[:1] if unit.kind == CLAUDE else pairs


def _note(session_id: str, failure: Failure) -> Marker:
    return Marker(f"{session_id}:not-shown", None, "error", failure.note())


def _glance(kind: str, path: Path) -> tuple[str | None, str | None]:
    """The working directory and first time the file's first lines name, if any."""
    if kind == CLAUDE:
        return as_str(peek_field(path, "cwd")) or None, normalize_timestamp(peek_field(path, "timestamp"))
    if kind == CODEX:
        meta = as_dict(peek_field(path, "payload"))
        return as_str(meta.get("cwd")) or None, normalize_timestamp(peek_field(path, "timestamp"))
    return None, None


def _file_session_id(path: Path) -> str:
    """A session's id as its file's name tells it: the name, or for a file named for
    what it holds (Copilot CLI's ``session-state/<id>/events.jsonl``) its folder's."""
    return path.parent.name if path.name == "events.jsonl" and path.parent.name else path.stem


def _codex_id(path: Path) -> str:
    from .readers.codex_rollouts import thread_id_of

    return thread_id_of(path)
