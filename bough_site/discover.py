"""Where the transcripts are: Claude projects trees, Codex session trees, single files.

Discovery only lists files; it never parses a transcript beyond peeking at the
first lines of a file to tell the two formats apart (the format is detected
from the content, not the path) and to find which session an old-layout
sub-agent file belongs to.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .archive import Kept, cleanup_notice, keep_history
from .config import BuildConfig, claude_project_roots, codex_session_roots
from .model import Warning
from .readers.claude import ClaudeSource
from .readers.lines import open_regular, printable_name

WarnFn = Callable[[Warning], None]
EXAMPLES = Path(__file__).parent / "examples"
# Said before anything else when the examples are built: their warnings would
# otherwise read as a first run gone wrong.
EXAMPLES_NOTICE = ("No Claude Code or Codex history found here: building bough's bundled examples instead. "
                   "They carry damaged lines on purpose, to show how bough reports damage: "
                   "the warnings that follow are expected.")
_YEAR = re.compile(r"^\d{4}$")
_PEEK_LINES = 20
ORPHAN_AGENT = "sub-agent transcript whose session is not here; shown as a session of its own"


@dataclass
class Discovered:
    claude: list[ClaudeSource] = field(default_factory=list)
    codex: list[Path] = field(default_factory=list)
    inputs: list[Path] = field(default_factory=list)  # the directories and files read
    labels: dict[Path, str] = field(default_factory=dict)  # file -> how warnings and sidecars name it
    used_examples: bool = False
    # What came from bough's archive; close() once every file is read.
    kept: Kept = field(default_factory=Kept)
    notes: list[str] = field(default_factory=list)  # said once in the build's summary

    def label(self, path: Path) -> str:
        return self.labels.get(path, path.name)

    def empty(self) -> bool:
        return not self.claude and not self.codex


def discover(config: BuildConfig, warn: WarnFn) -> Discovered:
    found = Discovered()
    for source in config.sources or _default_sources(config):
        _discover_source(found, Path(source), config, warn)
    found.kept = keep_history(found, config, warn)
    if not config.sources and found.empty():
        found.used_examples = True
        config.report(EXAMPLES_NOTICE)
        _discover_source(found, EXAMPLES / "claude" / "projects", config, warn)
        _discover_source(found, EXAMPLES / "codex" / "sessions", config, warn)
    found.notes = [note for note in [cleanup_notice(found, config)] if note]
    return found


def _default_sources(config: BuildConfig) -> list[Path]:
    roots: list[Path] = []
    if config.wants("claude"):
        roots += claude_project_roots()
    if config.wants("codex"):
        roots += codex_session_roots()
    return [root for root in roots if root.is_dir()]


def _discover_source(found: Discovered, source: Path, config: BuildConfig, warn: WarnFn) -> None:
    if not os.path.lexists(source):
        warn(Warning(str(source), 0, "source does not exist"))
        return
    found.inputs.append(source)
    if source.is_dir():
        _discover_dir(found, source, config, warn)
    else:
        _add_file(found, source, source.parent, config, warn)


def _discover_dir(found: Discovered, root: Path, config: BuildConfig, warn: WarnFn) -> None:
    entries = _entries(root, warn)
    has_files = any(e.name.endswith(".jsonl") for e in entries)
    if has_files:
        _scan_project_dir(found, root, root.parent, config, warn)
    elif _looks_like_codex_tree(root, entries):
        _add_codex_tree(found, root, config, warn)
    else:
        for entry in entries:
            if _is_dir(entry):
                _scan_project_dir(found, Path(entry.path), root, config, warn)


def _looks_like_codex_tree(root: Path, entries: list[os.DirEntry]) -> bool:
    return root.name in ("sessions", "archived_sessions") or any(
        _YEAR.match(e.name) and _is_dir(e) for e in entries
    )


def _add_codex_tree(found: Discovered, root: Path, config: BuildConfig, warn: WarnFn) -> None:
    if not config.wants("codex"):
        return
    from .readers.codex import find_rollouts

    for path in find_rollouts(root):
        found.codex.append(path)
        found.labels[path] = _relative_label(path, root.parent)


def _scan_project_dir(found: Discovered, project_dir: Path, label_root: Path, config: BuildConfig, warn: WarnFn) -> None:
    """A Claude project directory: its top-level ``*.jsonl`` files are sessions
    (or old-layout ``agent-*.jsonl`` sub-agents); nothing deeper is walked except
    each session's own ``<sessionId>/subagents/``."""
    sessions: dict[str, ClaudeSource] = {}
    old_agents: list[Path] = []
    for entry in _entries(project_dir, warn):
        if not entry.name.endswith(".jsonl"):
            continue
        path = Path(entry.path)
        if _is_dir(entry):
            warn(Warning(_relative_label(path, label_root), 0, "a directory named *.jsonl, skipped"))
            continue
        if entry.name.startswith("agent-") and _peek_field(path, "isSidechain") is True:
            old_agents.append(path)
            continue
        _add_file(found, path, label_root, config, warn, sessions)
    for agent in old_agents:
        _attach_old_agent(found, agent, label_root, sessions, warn)


def _add_file(
    found: Discovered, path: Path, label_root: Path, config: BuildConfig, warn: WarnFn,
    sessions: dict[str, ClaudeSource] | None = None,
) -> None:
    label = _relative_label(path, label_root)
    # A FIFO, device, dangling link or unreadable file is one warning here, not an
    # empty session later: open_regular never blocks on a FIFO and gives the reasons.
    handle = open_regular(path, label, warn)
    if handle is None:
        return
    handle.close()
    found.labels[path] = label
    if _is_codex(path):
        if config.wants("codex"):
            found.codex.append(path)
        return
    if not config.wants("claude"):
        return
    source = ClaudeSource(path, _subagent_files(path, label_root, found))
    found.claude.append(source)
    if sessions is not None:
        sessions[path.stem] = source


def _subagent_files(session_file: Path, label_root: Path, found: Discovered) -> list[Path]:
    folder = session_file.with_suffix("") / "subagents"
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("agent-*.jsonl")) + sorted(folder.glob("workflows/*/agent-*.jsonl"))
    for path in files:
        found.labels[path] = _relative_label(path, label_root)
    return files


def _attach_old_agent(
    found: Discovered, agent: Path, label_root: Path, sessions: dict[str, ClaudeSource], warn: WarnFn
) -> None:
    """Claude Code 2.0.x wrote sub-agents as ``agent-<id>.jsonl`` beside the sessions;
    they belong to the session whose ``sessionId`` their records carry."""
    label = _relative_label(agent, label_root)
    found.labels[agent] = label
    session_id = _peek_field(agent, "sessionId")
    parent = sessions.get(session_id) if isinstance(session_id, str) else None
    if parent is not None:
        parent.subagents.append(agent)
        return
    warn(Warning(label, 0, ORPHAN_AGENT))
    found.claude.append(ClaudeSource(agent, []))


def _peek_field(path: Path, name: str) -> Any:
    """The value of ``name`` in the first of the file's first lines that has it."""
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return None
    with handle:
        for _ in range(_PEEK_LINES):
            line = handle.readline(1 << 20)
            if not line:
                break
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and name in obj:
                return obj[name]
    return None


def _is_codex(path: Path) -> bool:
    from .readers.codex import is_codex_rollout

    try:
        return is_codex_rollout(path)
    except OSError:
        return False


def _entries(folder: Path, warn: WarnFn) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as scan:
            return sorted(scan, key=lambda e: e.name)
    except OSError as err:
        warn(Warning(str(folder), 0, f"cannot list directory: {err.strerror or err}"))
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _relative_label(path: Path, root: Path) -> str:
    # printable_name: a name that is not UTF-8 must not crash the pages that show it.
    try:
        return printable_name(path.relative_to(root).as_posix())
    except ValueError:
        return printable_name(path.name)
