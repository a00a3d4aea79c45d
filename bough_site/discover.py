"""Where the transcripts are: Claude projects trees, Codex session trees, Gemini
CLI directories, single files.

Discovery only lists files; it never parses a transcript beyond peeking at the
first lines of a file to tell the formats apart (the format is detected
from the content, not the path) and to find which session an old-layout
sub-agent file belongs to. It writes nothing: copying into the archive, and
adding what only the archive still has, is the next stage (archive_sync.py).
"""


from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .config import BuildConfig
from .model import Warning
from .readers.claude import ClaudeSource
from .readers.lines import open_regular, peek_field, printable_name
from .summaries import hide

WarnFn = Callable[[Warning], None]
EXAMPLES = Path(__file__).parent / "examples"
# Said before anything else when the examples are built: their warnings would
# otherwise read as a first run gone wrong.
EXAMPLES_NOTICE = ("No Claude Code or Codex history found here: building bough's bundled examples instead. "
                   "They carry damaged lines on purpose, to show how bough reports damage: "
                   "the warnings that follow are expected.")
_YEAR = re.compile(r"^\d{4}$")
ORPHAN_AGENT = "sub-agent transcript whose session is not here; shown as a session of its own"


@dataclass
class Discovered:
    claude: list[ClaudeSource] = field(default_factory=list)
    codex: list[Path] = field(default_factory=list)
    inputs: list[Path] = field(default_factory=list)  # the directories and files read
    labels: dict[Path, str] = field(default_factory=dict)  # file -> how warnings and sidecars name it
    used_examples: bool = False
    # Gemini CLI: the session files to read (each once: readers/gemini_files.py), the
    # files its roots are written in (archived with them), and the labels of the
    # files the read-once rules passed over (not taken back from the archive either).
    gemini: list[Path] = field(default_factory=list)
    gemini_roots: list[Path] = field(default_factory=list)
    gemini_passed: set[str] = field(default_factory=set)
    # What os.stat said of the files, as discovery listed them: the archive's sync and
    # the planner ask again (a build of 20,000 files stats each once, not three times).
    stats: dict[str, os.stat_result] = field(default_factory=dict)

    def label(self, path: Path) -> str:
        return self.labels.get(path, path.name)

    def stat(self, path: Path | str) -> os.stat_result:
        """``os.stat(path)``, as discovery saw it when it did (OSError when it cannot)."""
        key = str(path)
        info = self.stats.get(key)
        if info is None:
            info = self.stats[key] = os.stat(key)
        return info

    def shows(self, agent: str) -> bool:
        """Whether the site will show the user's own sessions of ``agent`` ("claude" or "gemini")."""
        return not self.used_examples and bool(self.claude if agent == "claude" else self.gemini)

    def empty(self) -> bool:
        return not self.claude and not self.codex and not self.gemini


# What an earlier build learned of a file: (digest of its label, size, mtime) -> its kind.
# A file that has not changed since is not opened again to tell its format.
Known = dict[tuple[str, int, int], str]


def discover(config: BuildConfig, warn: WarnFn, known: Known | None = None) -> Discovered:
    """The transcripts under the sources given, else under the agents' default
    homes (those that exist)."""
    found = Discovered()
    for source in config.sources or [root for root in config.roots() if root.is_dir()]:
        _discover_source(found, Path(source), config, warn, known or {})
    return found


def add_examples(found: Discovered, config: BuildConfig, warn: WarnFn) -> None:
    """The bundled examples, for a first run with no history at all."""
    found.used_examples = True
    config.report(EXAMPLES_NOTICE)
    _discover_source(found, EXAMPLES / "claude" / "projects", config, warn, {})
    _discover_source(found, EXAMPLES / "codex" / "sessions", config, warn, {})
    _discover_source(found, EXAMPLES / "gemini", config, warn, {})


def _discover_source(found: Discovered, source: Path, config: BuildConfig, warn: WarnFn, known: Known) -> None:
    if not os.path.lexists(source):
        warn(Warning(str(source), 0, "source does not exist"))
        return
    found.inputs.append(source)
    if _is_gemini(source):
        _add_gemini(found, source, config)
    elif source.is_dir():
        _discover_dir(found, source, config, warn, known)
    else:
        _add_file(found, source, source.parent, config, warn)


def _discover_dir(found: Discovered, root: Path, config: BuildConfig, warn: WarnFn, known: Known) -> None:
    entries = _entries(root, warn)
    has_files = any(e.name.endswith(".jsonl") for e in entries)
    if has_files:
        _scan_project_dir(found, root, root.parent, config, warn, known)
    elif _looks_like_codex_tree(root, entries):
        _add_codex_tree(found, root, config, warn)
    else:
        for entry in entries:
            if _is_dir(entry):
                _scan_project_dir(found, Path(entry.path), root, config, warn, known)


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


def _scan_project_dir(found: Discovered, project_dir: Path, label_root: Path, config: BuildConfig, warn: WarnFn,
                      known: Known) -> None:
    """A Claude project directory: its top-level ``*.jsonl`` files are sessions
    (or old-layout ``agent-*.jsonl`` sub-agents); nothing deeper is walked except
    each session's own ``<sessionId>/subagents/``."""
    sessions: dict[str, ClaudeSource] = {}
    old_agents: list[Path] = []
    entries = _entries(project_dir, warn)
    folders = {entry.name for entry in entries if _is_dir(entry)}  # d_type: no stat per file
    for entry in entries:
        if not entry.name.endswith(".jsonl"):
            continue
        path = Path(entry.path)
        if entry.name in folders:
            warn(Warning(_relative_label(path, label_root), 0, "a directory named *.jsonl, skipped"))
            continue
        if entry.name.startswith("agent-") and peek_field(path, "isSidechain") is True:
            old_agents.append(path)
            continue
        label = _relative_label(path, label_root)
        _add_file(found, path, label_root, config, warn, sessions, kind=_known_kind(entry, label, known, found),
                  subagents=path.stem in folders, label=label)
    for agent in old_agents:
        _attach_old_agent(found, agent, label_root, sessions, warn)


def _add_file(
    found: Discovered, path: Path, label_root: Path, config: BuildConfig, warn: WarnFn,
    sessions: dict[str, ClaudeSource] | None = None, *, kind: str | None = None, subagents: bool = True,
    label: str | None = None,
) -> None:
    """One transcript; ``kind`` when an earlier build read it as it is now (not
    opened again), ``subagents`` False when it has no folder of its own."""
    label = label or _relative_label(path, label_root)
    if kind is None:
        # A FIFO, device, dangling link or unreadable file is one warning here, not an
        # empty session later: open_regular never blocks on a FIFO and gives the reasons.
        handle = open_regular(path, label, warn)
        if handle is None:
            return
        handle.close()
    found.labels[path] = label
    if kind == "codex" or (kind is None and _is_codex(path)):
        if config.wants("codex"):
            found.codex.append(path)
        return
    if not config.wants("claude"):
        return
    source = ClaudeSource(path, _subagent_files(path, label_root, found) if subagents else [])
    found.claude.append(source)
    if sessions is not None:
        sessions[path.stem] = source


def _known_kind(entry: os.DirEntry, label: str, known: Known, found: Discovered) -> str | None:
    """The kind an earlier build read this very file as (same label, size and
    mtime), if it is still a regular file; None: look inside."""
    if not known:
        return None
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    found.stats[entry.path] = info  # not a link: what os.stat says too
    return known.get((hide(label), info.st_size, info.st_mtime_ns))


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
    session_id = peek_field(agent, "sessionId")
    parent = sessions.get(session_id) if isinstance(session_id, str) else None
    if parent is not None:
        parent.subagents.append(agent)
        return
    warn(Warning(label, 0, ORPHAN_AGENT))
    found.claude.append(ClaudeSource(agent, []))


def _is_gemini(source: Path) -> bool:
    from .readers.gemini_files import is_gemini_dir, is_gemini_file

    try:
        return is_gemini_dir(source) if source.is_dir() else is_gemini_file(source)
    except OSError:
        return False


def _add_gemini(found: Discovered, source: Path, config: BuildConfig) -> None:
    """A Gemini directory, any level of its tree, or one session file: the files
    to read, labelled by their path under the Gemini directory."""
    if not config.wants("gemini"):
        return
    from .readers.gemini_files import find_gemini_files, gemini_label

    listed = find_gemini_files(source)
    for path in listed.files + listed.root_files:
        found.labels.setdefault(path, printable_name(gemini_label(path, source)))
    known = set(found.gemini)
    found.gemini += [path for path in listed.files if path not in known]
    have = set(found.gemini_roots)
    found.gemini_roots += [path for path in listed.root_files if path not in have]
    found.gemini_passed.update(printable_name(gemini_label(path, source)) for path, _why in listed.left_out)


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
    # Plain strings first (a tree of thousands of files): both are made by joining.
    text, base = str(path), str(root)
    if text.startswith(base) and text[len(base):len(base) + 1] == "/":
        return printable_name(text[len(base) + 1:])
    try:
        return printable_name(path.relative_to(root).as_posix())
    except ValueError:
        return printable_name(path.name)
