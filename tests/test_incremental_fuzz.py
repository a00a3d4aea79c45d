"""Incremental builds against fresh ones, over random histories of changes (Hypothesis).

A small Claude Code history (two projects of three sessions, sub-agents and resumes
among them) changes in steps a user's history does: a turn appended to a session,
a file touched with the same bytes, a session copied to a new file (a resume: it
shares its records) or to another folder of its project (two sessions then want one
page name), a file deleted (Claude Code's cleanup: bough's archive keeps it) and
brought back, a file cut short (it then reads the archive's longer copy), a torn
line written at its end, a sub-agent's file grown or deleted; and each build may run
with other options than the one before (the user changed a flag: search, cost,
highlighting, paths redacted, sessions whose file is gone pruned, a theme). After every step
one OUT is built again, incrementally, and another from nothing with the other number
of workers (1 or 2), both with the same archive and options: they must hold the same
bytes, the manifest included, and every link in them must lead to a file there. A
failure prints the steps that made it. A second test does the same over a history of
every agent bough reads (Claude Code, Codex, Gemini, Copilot, Qwen, OpenCode's
database; a project of several of them among their projects): a session grown by a
turn, touched, deleted and brought back, torn or cut short (the database: overwritten
in part, or cut in half), the options changing as in the first.

The examples run in every test run (``BOUGH_FUZZ_EXAMPLES``, default 12, as
tests/test_fuzz_build.py); a long run sets more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bough_site.build import build
from bough_site.config import BuildConfig
from corpus.opencode import Builder, Ses, Step, write_db

from .helpers import agent_id, agent_records, append_turn, link_problems, make_history, tree, write_agent_session

EXAMPLES = int(os.environ.get("BOUGH_FUZZ_EXAMPLES", "12"))
STEPS = ("append", "touch", "copy", "clash", "delete", "revive", "cut", "junk", "agent", "agent-gone")
MANIFEST = ".bough-manifest.json"
fuzzed = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("BOUGH_FUZZ_EXAMPLES"),
                  suppress_health_check=list(HealthCheck), database=None)
# The options of a step's builds: the defaults, or one flag a user changes ("theme":
# a theme of one stylesheet, made beside the history).
OPTIONS: tuple[dict[str, Any], ...] = ({}, {"search": False}, {"cost": False}, {"highlight_limit": 0},
                                       {"redact_paths": True}, {"prune": True}, {"theme": True})


def _build(sources: list[Path], out: Path, archive: Path, jobs: int, options: int = 0) -> None:
    chosen = dict(OPTIONS[options])
    if chosen.get("theme"):
        chosen["theme"] = _theme(archive.parent / "theme")
    build(BuildConfig(sources=sources, out=out, archive=archive, jobs=jobs, **chosen), redaction_key=b"k")


def _build_and_compare(sources: list[Path], out: Path, archive: Path, step: tuple[str, int, int, int],
                       serial: int, changes: list[tuple[str, int, int, int]]) -> None:
    """OUT built again after a step, then a fresh OUT with the other workers: the same
    bytes and manifest, every link leading to a file."""
    _step, _pick, jobs, options = step
    _build(sources, out, archive, jobs, options)
    fresh = out.parent / f"fresh-{serial}"
    _build(sources, fresh, archive, 3 - jobs, options)
    site = tree(out)
    assert site == tree(fresh), changes[: serial + 1]
    assert (out / MANIFEST).read_bytes() == (fresh / MANIFEST).read_bytes(), changes[: serial + 1]
    assert link_problems(site) == [], changes[: serial + 1]


def _theme(folder: Path) -> Path:
    (folder / "static").mkdir(parents=True, exist_ok=True)
    (folder / "static" / "extra.css").write_text("body { margin: 0 }\n")
    return folder


def _sessions(src: Path) -> list[Path]:
    """The main session files, in a fixed order (a step picks one by its index)."""
    return sorted(path for path in src.glob("*/*.jsonl") if not path.name.startswith("agent-"))


def _agents(src: Path) -> list[Path]:
    """The sub-agent files, both layouts (beside their session, and in its folder)."""
    return sorted([*src.glob("*/agent-*.jsonl"), *src.glob("*/*/subagents/agent-*.jsonl")])


def _apply(step: str, target: Path, serial: int, deleted: dict[Path, bytes]) -> None:
    if step.startswith("agent"):
        agents = _agents(target.parent.parent)
        if agents:
            _apply("append" if step == "agent" else "delete", agents[serial % len(agents)], serial, deleted)
        return
    data = target.read_bytes()
    if step == "append" and data.endswith(b"\n"):
        append_turn(target)
    elif step == "touch":
        _touch(target)
    elif step == "copy":
        target.with_name(f"cccccccc-0000-4000-8000-{serial:012d}.jsonl").write_bytes(data)
    elif step == "clash":  # the same file name in another folder of the same project: two sessions, one name
        folder = target.parent.with_name(f"{target.parent.name}-{serial}")
        folder.mkdir()
        (folder / target.name).write_bytes(data)
    elif step == "delete":
        deleted[target] = data
        target.unlink()
        shutil.rmtree(target.with_suffix(""), ignore_errors=True)  # its sub-agents
    elif step == "revive":
        _revive(deleted)
    elif step == "junk":  # a torn write: half a record, no newline
        target.write_bytes(data + b'{"type": "user", "message": {"role": "us')
    elif step == "cut" and data.count(b"\n") > 2:
        target.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])  # its last line gone


def _touch(path: Path) -> None:
    """A new mtime, the same bytes."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def _revive(deleted: dict[Path, bytes]) -> None:
    """The last file deleted comes back (from a backup, say)."""
    if deleted:
        path, old = deleted.popitem()
        path.write_bytes(old)


def steps(names: tuple[str, ...]) -> st.SearchStrategy[list[tuple[str, int, int, int]]]:
    """Up to four steps: each a change, the session it picks, the workers of the incremental
    build after it (the fresh one has the other) and the options of both (an index in
    OPTIONS; mostly the defaults)."""
    return st.lists(st.tuples(st.sampled_from(names), st.integers(min_value=0, max_value=20), st.sampled_from([1, 2]),
                              st.one_of(st.just(0), st.integers(min_value=0, max_value=len(OPTIONS) - 1))),
                    min_size=1, max_size=4)


@fuzzed
@given(steps(STEPS))
@example([("clash", 0, 1, 0)])  # found: the final pass's page was discarded (fresh builds)
@example([("clash", 0, 1, 0), ("append", 0, 1, 0)])  # found: two sessions of one id named in the order they came
@example([("append", 0, 1, 1)])  # found: search turned off left its script in assets/
def test_an_incremental_build_holds_a_fresh_builds_bytes_after_any_changes(
        changes: list[tuple[str, int, int, int]]) -> None:
    with tempfile.TemporaryDirectory(prefix="bough-incremental-fuzz-") as tmp:
        root = Path(tmp)
        src, archive, out = make_history(root / "history"), root / "archive", root / "site"
        _build([src], out, archive, 1)
        deleted: dict[Path, bytes] = {}
        for serial, step in enumerate(changes):
            sessions = _sessions(src)
            if not sessions:
                break
            _apply(step[0], sessions[step[1] % len(sessions)], serial, deleted)
            _build_and_compare([src], out, archive, step, serial, changes)


# Every agent bough reads, in one history: two sessions each of Claude Code, Codex and
# Gemini, one each of Copilot and Qwen; half of them in one working directory (a
# project of several agents), the others in one of their agent's own. And two of
# OpenCode's, in that shared directory (_OpenCode).
AGENT_SESSIONS = (("claude", 2), ("codex", 2), ("gemini", 2), ("copilot", 1), ("qwen", 1))
AGENT_STEPS = ("grow", "touch", "delete", "revive", "junk", "cut")


@dataclass
class _AgentSession:
    agent: str
    tag: int
    cwd: str
    turns: int

    def write(self, root: Path) -> Path:
        records = agent_records(self.agent, self.tag, self.cwd, [f"ask {n}" for n in range(self.turns)])
        return write_agent_session(root, self.agent, self.tag, self.cwd, records)

    def file(self, root: Path) -> Path | None:
        """Its file (None once deleted): the session id is in its path (Gemini: its first 8 digits)."""
        sid = agent_id(self.tag)
        return next((path for path in sorted((root / self.agent).rglob("*.jsonl"))
                     if sid in path.as_posix() or (self.agent == "gemini" and sid[:8] in path.name)), None)


def _agent_history(root: Path) -> tuple[list[_AgentSession], list[Path]]:
    sessions = []
    for agent, count in AGENT_SESSIONS:
        for n in range(count):
            tag = len(sessions) + 1
            cwd = "/home/u/app" if tag % 2 else f"/home/u/{agent}-{n}"
            sessions.append(_AgentSession(agent, tag, cwd, 1 + tag % 3))
    return sessions, sorted({session.write(root) for session in sessions})


def _apply_to_agent(step: str, session: _AgentSession, root: Path, serial: int, deleted: dict[Path, bytes]) -> None:
    """A step on one session's file: grown by a turn (its agent's records, written
    again), else as :func:`_apply` does it to a Claude Code file."""
    path = session.file(root)
    if step == "revive":
        _revive(deleted)
    elif path is None:
        return  # deleted: nothing to change until it comes back
    elif step == "grow":
        if path.read_bytes().endswith(b"\n"):
            session.turns += 1
            session.write(root)
    else:
        _apply(step, path, serial, deleted)


class _OpenCode:
    """OpenCode's sessions, in its database (corpus.opencode): a step writes it anew
    (as OpenCode's own writes change it in place), or damages it."""

    def __init__(self, root: Path) -> None:
        self.builder = Builder(3, cwd="/home/u/app")  # in the project of several agents
        self.db = root / "opencode" / "opencode.db"
        self.gone: set[str] = set()
        for _ in range(2):
            self.grow(self.builder.session())

    def grow(self, session: Ses) -> None:
        self.builder.user(session, "ask")
        self.builder.assistant(session, [Step(fresh=20, output=2)])
        self.write()

    def write(self) -> Path:
        self.db.parent.mkdir(parents=True, exist_ok=True)
        self.db.unlink(missing_ok=True)
        return write_db(self.db, [s for s in self.builder.sessions if s.id not in self.gone])

    def change(self, step: str, pick: int) -> None:
        session = self.builder.sessions[pick % len(self.builder.sessions)]
        if step == "grow" and session.id not in self.gone:
            self.grow(session)
        elif step == "delete":  # OpenCode deleted it: its rows go (bough's archive keeps its export)
            self.gone.add(session.id)
            self.write()
        elif step == "revive" and self.gone:
            self.gone.clear()
            self.write()
        elif step == "touch":
            _touch(self.db)
        elif step in ("junk", "cut"):  # the database damaged: bytes overwritten, or its second half gone
            size = self.db.stat().st_size
            with self.db.open("r+b") as db:
                if step == "cut":
                    db.truncate(size // 2)
                else:
                    db.seek(pick * 997 % (size - 64))
                    db.write(b"\xff" * 64)


@fuzzed
@given(steps(AGENT_STEPS))
def test_an_incremental_build_of_every_agent_holds_a_fresh_builds_bytes(
        changes: list[tuple[str, int, int, int]]) -> None:
    with tempfile.TemporaryDirectory(prefix="bough-incremental-agents-") as tmp:
        root = Path(tmp)
        history, archive, out = root / "history", root / "archive", root / "site"
        sessions, sources = _agent_history(history)
        opencode = _OpenCode(history)
        sources.append(opencode.db.parent)
        _build(sources, out, archive, 1)
        deleted: dict[Path, bytes] = {}
        for serial, step in enumerate(changes):
            if step[1] % (len(sessions) + 2) >= len(sessions):  # one of OpenCode's two
                opencode.change(step[0], step[1])
            else:
                _apply_to_agent(step[0], sessions[step[1] % len(sessions)], history, serial, deleted)
            _build_and_compare(sources, out, archive, step, serial, changes)
