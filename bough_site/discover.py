"""Where the transcripts are: Claude projects trees, Codex session trees, Gemini
CLI directories, single files, and any folder holding them however deep.

Discovery only lists files; it never parses a transcript beyond peeking at the
first lines of a file (a megabyte at most) to tell the formats apart (the format
is detected from the content, not the path; a file that is no agent's transcript
is refused, with one warning) and to find which session an old-layout sub-agent
file belongs to. A file unchanged since the last build is not opened at all.
Each file is labelled by the end of its path the agent's layout gives it
(:func:`transcript_label`), so the archive knows a file by one name whichever
source it came through. It writes nothing: copying into the archive, and adding
what only the archive still has, is the next stage (archive_sync.py).
"""


from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .config import BuildConfig
from .folder_walk import FileStat
from .model import InputWarning
from .readers.claude import ClaudeSource
from .readers.layout import Layout
from .readers.layouts import LAYOUTS, claimer
from .readers.lines import open_regular, parse_line, peek_field, peek_lines, printable_name
from .hidden import hide_label

WarnFn = Callable[[InputWarning], None]
EXAMPLES = Path(__file__).parent / "examples"
# Said before anything else when the examples are built: their warnings would
# otherwise read as a first run gone wrong.
EXAMPLES_NOTICE = ("No Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI or Qwen Code history found here: "
                   "building bough's bundled examples instead. "
                   "They carry damaged lines on purpose, to show how bough reports damage: "
                   "the warnings that follow are expected.")
_YEAR = re.compile(r"^\d{4}$")
_DAY = re.compile(r"^\d{2}$")  # a month or a day of Codex's dated folders
# How deep a folder source is walked: a backup of a whole home holding ~/.claude/projects
# is 4 levels; beyond 8 is no agent's layout (and a link loop ends there at the latest).
MAX_DEPTH = 8
NOT_A_TRANSCRIPT = "not a transcript of any agent bough reads (none of its first lines is theirs), skipped"
CLAUDE, CODEX, GEMINI = "claude", "codex", "gemini"
_CLAUDE_MEMORY = "memory"  # a project folder's notes (Markdown), beside its sessions
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
    # The agents a Layout describes (readers/layouts.py): kind -> the files its ``find`` listed.
    agents: dict[str, list[Path]] = field(default_factory=dict)
    # What os.stat said of the files, as discovery listed them: the archive's sync and
    # the planner ask again (a build of 20,000 files stats each once, not three times).
    stats: dict[str, FileStat] = field(default_factory=dict)
    # The names in the folders discovery listed (project and sub-agent folders), by
    # folder: whether a file beside a sub-agent's (its meta file) is there is known
    # without a stat. Given those the quick check listed (quick.Look.listed), which
    # discovery takes instead of listing them again.
    listed: dict[str, frozenset[str]] = field(default_factory=dict)
    # What the quick check's walk saw of the files that are no links, by absolute
    # path (quick.Look.walked): taken for what os.stat would say, one stat a file a
    # build instead of two (at 18,000 sessions, 35,000 stats: some 0.2 s).
    walked: dict[str, FileStat] = field(default_factory=dict, repr=False)

    def label(self, path: Path) -> str:
        return self.labels.get(path, path.name)

    def stat(self, path: Path | str) -> FileStat:
        """``os.stat(path)``, as discovery saw it when it did (OSError when it cannot)."""
        key = str(path)
        info = self.stats.get(key)
        if info is None:
            info = self.stats[key] = self.walked.get(key) or FileStat.of(os.stat(key))
        return info

    def absent(self, path: str) -> bool:
        """Whether ``path`` was not there when discovery listed its folder (False:
        there, or its folder not listed)."""
        folder, _, name = path.rpartition("/")
        names = self.listed.get(folder)
        return names is not None and name not in names

    def shows(self, agent: str) -> bool:
        """Whether the site will show the user's own sessions of ``agent`` ("claude" or "gemini")."""
        return not self.used_examples and bool(self.claude if agent == "claude" else self.gemini)

    def empty(self) -> bool:
        return not self.claude and not self.codex and not self.gemini and not any(self.agents.values())


class KnownFile(NamedTuple):
    """What an earlier build learned of a file: the kind of the unit it was read in,
    and, for a Claude file read as a sub-agent of a session, the digest of that
    session's label ("" when it was a session's own file)."""

    kind: str
    session: str = ""


# (digest of a file's label, size, mtime) -> what the last build learned of it. A file
# that has not changed since is not opened again to tell its format, nor (a Claude
# Code 2.0.x sub-agent beside the sessions) to find its session.
Known = dict[tuple[str, int, int], KnownFile]


def discover(config: BuildConfig, warn: WarnFn, known: Known | None = None,
             walked: dict[str, FileStat] | None = None, listed: dict[str, frozenset[str]] | None = None,
             ) -> Discovered:
    """The transcripts under the sources given, else under the agents' default
    homes (those that exist); ``walked`` and ``listed``: what the quick check saw of
    their files and folders (:attr:`Discovered.walked`, :attr:`Discovered.listed`)."""
    found = Discovered(walked=walked or {}, listed=listed or {})
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
    for kind in LAYOUTS:
        _discover_source(found, EXAMPLES / kind, config, warn, {})


def _discover_source(found: Discovered, source: Path, config: BuildConfig, warn: WarnFn, known: Known) -> None:
    if not os.path.lexists(source):
        warn(InputWarning(str(source), 0, "source does not exist"))
        return
    found.inputs.append(source)
    # Absolute and normalised once: a transcript's label is the end of its path
    # (transcript_label), whatever way the source was typed.
    where = Path(os.path.abspath(source))
    layout = claimer(where)
    if layout is not None:
        _add_layout(found, layout, where, config)
    elif _is_gemini(where):
        _add_gemini(found, where, config)
    elif where.is_dir():
        walk = _Walk(config, warn, known)
        _walk(found, where, walk, 0)
        if walk.too_deep:
            warn(InputWarning(str(source), 0, f"{walk.too_deep} folder{'s' if walk.too_deep > 1 else ''} more than "
                                         f"{MAX_DEPTH} levels down not looked into"))
    else:
        _add_file(found, where, config, warn)


@dataclass
class _Walk:
    """One folder source being walked: what it needs, and what it met."""

    config: BuildConfig
    warn: WarnFn
    known: Known
    seen: set[tuple[int, int]] = field(default_factory=set)  # folders walked (a link may lead back)
    too_deep: int = 0


def _walk(found: Discovered, folder: Path, walk: _Walk, depth: int) -> None:
    """A folder and what it holds, in the layouts the agents write, however deep
    the user put them (a copy of ``~/.claude``, a backup holding project folders
    and loose sessions, ``sessions/2026`` of Codex): its ``*.jsonl`` files are
    told apart by content, a Claude session's own folder is read with it
    (``<id>/subagents/``), a Gemini CLI tree by its layout, and every other
    folder is walked in turn, but for Claude Code's ``memory/`` beside sessions."""
    entries = _entries(folder, walk.warn)
    layout = claimer(folder) if depth else None  # the source itself was asked already
    if layout is not None:
        _add_layout(found, layout, folder, walk.config)
        return
    if depth and _is_gemini_tree(folder, entries):
        _add_gemini(found, folder, walk.config)
        return
    sessions = {entry.name[: -len(".jsonl")] for entry in entries if entry.name.endswith(".jsonl")}
    if sessions:
        _scan_project_dir(found, folder, entries, walk)
    own = sessions | ({_CLAUDE_MEMORY} if sessions else set())  # Claude Code's own, holding no transcript
    for entry in entries:
        if entry.name.endswith(".jsonl.zst"):
            _add_packed(found, Path(entry.path), walk)
        elif _is_dir(entry) and entry.name not in own and not entry.name.endswith(".jsonl"):
            if depth >= MAX_DEPTH:
                walk.too_deep += 1
            elif _first_visit(entry, walk):
                _walk(found, Path(entry.path), walk, depth + 1)


def _first_visit(entry: os.DirEntry, walk: _Walk) -> bool:
    try:
        info = entry.stat()
    except OSError:
        return False
    key = (info.st_dev, info.st_ino)
    if key in walk.seen:
        return False
    walk.seen.add(key)
    return True


def _add_packed(found: Discovered, path: Path, walk: _Walk) -> None:
    """A zstd-compressed Codex rollout: listed, so that its reader says it skips it."""
    if not walk.config.wants("codex"):
        return
    label = transcript_label(path)
    if _is_codex(path):
        found.codex.append(path)
        found.labels[path] = label
    else:
        walk.warn(InputWarning(label, 0, NOT_A_TRANSCRIPT))


def _is_gemini_tree(folder: Path, entries: list[os.DirEntry]) -> bool:
    """A Gemini CLI directory, or a level of its tree, met while walking a folder:
    told from its layout (docs/formats-gemini.md §1). Its ``chats/`` is a name others
    use too: such a folder counts when the first session-like file in it is Gemini's."""
    from .readers.gemini_files import holds_gemini_chats, holds_gemini_projects

    if folder.name == ".gemini":
        return True
    folders = {entry.name for entry in entries if _is_dir(entry)}
    if "tmp" in folders and holds_gemini_projects(folder / "tmp"):
        return True
    if folder.name == "tmp" and holds_gemini_projects(folder):
        return True
    return "chats" in folders and holds_gemini_chats(folder / "chats")


def _scan_project_dir(found: Discovered, project_dir: Path, entries: list[os.DirEntry], walk: _Walk) -> None:
    """A folder holding ``*.jsonl`` files, as a Claude project directory is: its
    top-level ``*.jsonl`` files are sessions (or old-layout ``agent-*.jsonl``
    sub-agents, or Codex rollouts, or Gemini CLI sessions: the content says),
    each with its own ``<sessionId>/subagents/``."""
    sessions: dict[str, ClaudeSource] = {}
    old_agents: list[Path] = []
    folders = {entry.name for entry in entries if _is_dir(entry)}  # d_type: no stat per file
    found.listed[str(project_dir)] = frozenset(entry.name for entry in entries)
    for entry in entries:
        if not entry.name.endswith(".jsonl"):
            continue
        path = project_dir / entry.name  # (a child of a Path is made faster than a Path of a string)
        label = transcript_label(entry.path)
        if entry.name in folders:
            walk.warn(InputWarning(label, 0, "a directory named *.jsonl, skipped"))
            continue
        known = _known_file(entry, label, walk.known, found)
        if entry.name.startswith("agent-") and _is_old_agent(path, known):
            old_agents.append((path, known.session if known else ""))
            continue
        _add_file(found, path, walk.config, walk.warn, sessions, kind=known.kind if known else None,
                  subagents=path.stem in folders, label=label)
    if old_agents:
        by_label = _by_hidden_label(found, sessions) if any(session for _, session in old_agents) else {}
        for agent, session in old_agents:
            _attach_old_agent(found, agent, sessions, walk.warn, by_label.get(session))


def _add_file(
    found: Discovered, path: Path, config: BuildConfig, warn: WarnFn,
    sessions: dict[str, ClaudeSource] | None = None, *, kind: str | None = None, subagents: bool = True,
    label: str | None = None,
) -> None:
    """One transcript; ``kind`` when an earlier build read it as it is now (not
    opened again), ``subagents`` False when it has no folder of its own. A file
    that is no agent's transcript is refused with one warning (docs/safety.md S10)."""
    label = label or transcript_label(path)
    if kind is None:
        kind = kind_of(path, label, warn)
        if not kind:
            return
    if kind == GEMINI:
        _add_gemini(found, path, config)
        return
    if kind in LAYOUTS:
        _add_layout(found, LAYOUTS[kind], path, config)
        return
    found.labels[path] = label
    if kind == CODEX:
        if config.wants("codex"):
            found.codex.append(path)
        return
    if not config.wants("claude"):
        return
    source = ClaudeSource(path, _subagent_files(path, found) if subagents else [])
    found.claude.append(source)
    if sessions is not None:
        sessions[path.stem] = source


def _known_file(entry: os.DirEntry, label: str, known: Known, found: Discovered) -> KnownFile | None:
    """What an earlier build learned of this very file (same label, size and
    mtime), if it is still a regular file; None: look inside."""
    if not known:
        return None
    try:
        info = found.walked.get(entry.path) or FileStat.of(entry.stat(follow_symlinks=False))
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    found.stats[entry.path] = info  # not a link: what os.stat says too
    return known.get((hide_label(label), info.st_size, info.st_mtime_ns))


# --------------------------------------------------------------------------- what a file is


def kind_of(path: Path, label: str, warn: WarnFn) -> str:
    """What ``path`` holds, told from its first lines (``lines.peek_lines``: a
    megabyte at most, whatever its size): CLAUDE, CODEX or GEMINI; "" when it
    cannot be read or is none of them, each said in one warning. A damaged
    transcript is still one: any of its first lines that shows its format will
    do, torn lines by the keys they still hold; an empty ``.jsonl`` goes to its
    reader, which says it is empty; a file Codex named ``rollout-*`` is its."""
    # A FIFO, device, dangling link or unreadable file is one warning here, not an
    # empty session later: open_regular never blocks on a FIFO and gives the reasons.
    handle = open_regular(path, label, warn)
    if handle is None:
        return ""
    with handle:
        empty = os.fstat(handle.fileno()).st_size == 0
        head = [] if empty else peek_lines(handle)
    rollout = path.name.startswith("rollout-") and path.name.endswith(".jsonl")
    if empty and path.name.endswith(".jsonl"):
        return CODEX if rollout else CLAUDE
    if rollout and _is_codex(path):
        return CODEX
    # The lines that parse first, then the keys torn ones still hold: a loose file of
    # an agent whose envelope copies Claude Code's keys (Qwen Code) may begin with a
    # damaged line (two records glued on one) before the whole ones that tell it.
    for kind in (_whole_line_kind(raw) for raw, whole in head if whole):
        if kind:
            return kind
    for kind in (_torn_line_kind(raw) for raw, _whole in head):
        if kind:
            return kind
    if rollout or (head and _is_codex(path)):
        return CODEX
    layout = claimer(path)
    if layout is not None:
        return layout.kind
    warn(InputWarning(label, 0, NOT_A_TRANSCRIPT))
    return ""


# Keys only Claude Code's records carry at the top (Gemini CLI's first line has a
# sessionId too, beside its projectHash; Codex wraps everything in a payload).
_CLAUDE_KEYS = ("sessionId", "uuid", "parentUuid", "leafUuid")
_CLAUDE_KEY_TEXT = re.compile(rb'"(?:sessionId|uuid|parentUuid|leafUuid)"\s*:')
# Claude Code's record types with a message, and its lines that have no id at all.
_CLAUDE_TURNS = frozenset({"user", "assistant", "system"})
_CLAUDE_BARE = frozenset({"summary", "file-history-snapshot"})


def _whole_line_kind(raw: bytes) -> str:
    """The format a whole line of a file's first shows: CLAUDE, GEMINI, a Layout's
    kind, or "" (none, or it does not parse)."""
    obj, _ = parse_line(raw, shallow=True)
    return "" if obj is None else _record_kind(obj)


def _record_kind(obj: dict) -> str:
    for layout in LAYOUTS.values():
        if layout.sniff(obj):
            return layout.kind
    if "projectHash" in obj and "sessionId" in obj and "type" not in obj:
        return GEMINI  # its metadata line (readers/gemini_files.is_gemini_file)
    return CLAUDE if _is_claude_record(obj) else ""


def _torn_line_kind(raw: bytes) -> str:
    """A torn, damaged or cut line: the first record of records glued on one line,
    else the keys it still holds tell, when it began as an object."""
    if raw.lstrip().startswith(b"{") and parse_line(raw, shallow=True)[0] is None:
        first = _first_record(raw)
        if first is not None:
            return _record_kind(first)
        if b'"projectHash"' in raw and b'"sessionId"' in raw and b'"type"' not in raw:
            return GEMINI
        if _CLAUDE_KEY_TEXT.search(raw):
            return CLAUDE
    return ""


def _first_record(raw: bytes) -> dict | None:
    """The first of several JSON objects written on one line (a writer that lost a
    newline), None when the line does not begin with a whole one."""
    try:
        obj, _end = json.JSONDecoder().raw_decode(raw.decode("utf-8", "replace").lstrip())
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _is_claude_record(obj: dict) -> bool:
    if any(key in obj for key in _CLAUDE_KEYS):
        return True
    kind, message = obj.get("type"), obj.get("message")
    if isinstance(message, dict):
        # A usage-only line (docs/formats-claude.md C3) has no type: its message's role is.
        turn = kind if kind is not None else message.get("role")
        return isinstance(turn, str) and turn in _CLAUDE_TURNS  # a list or object there is no turn (and unhashable)
    return isinstance(kind, str) and kind in _CLAUDE_BARE


def _subagent_files(session_file: Path, found: Discovered) -> list[Path]:
    """``<id>/subagents/agent-*.jsonl``, then ``<id>/subagents/workflows/*/agent-*.jsonl``,
    each by name (as pathlib's glob, sorted, lists them: one listing per folder)."""
    folder = f"{session_file.with_suffix('')}/subagents"
    names = _names(folder, found.listed)
    if names is None:
        return []
    files = [(folder, name) for name in names if _is_agent_file(name)]
    for workflow in (_names(f"{folder}/workflows", found.listed, folders=True) if "workflows" in names else None) or []:
        inner = f"{folder}/workflows/{workflow}"
        files += [(inner, name) for name in _names(inner, found.listed) or [] if _is_agent_file(name)]
    folders = {inner: Path(inner) for inner, _name in files}  # each file's Path a child of its folder's
    paths: list[Path] = []
    for inner, name in files:
        path = folders[inner] / name
        found.labels[path] = transcript_label(f"{inner}/{name}")
        paths.append(path)
    return paths


def _is_agent_file(name: str) -> bool:
    return name.startswith("agent-") and name.endswith(".jsonl") and len(name) >= len("agent-.jsonl")


def _names(folder: str, listed: dict[str, frozenset[str]], *, folders: bool = False) -> list[str] | None:
    """The names in ``folder`` (only its folders, ``folders``), sorted; None when it
    is no folder. Not listed again when the quick check did (each folder it listed
    has its own folders listed too); kept in ``listed`` when listed here for its files."""
    names = listed.get(folder)
    if names is not None:
        return sorted(name for name in names if not folders or f"{folder}/{name}" in listed)
    try:
        with os.scandir(folder) as entries:
            named = [(entry.name, _is_dir(entry)) for entry in entries]
    except OSError:
        return None
    if not folders:
        listed[folder] = frozenset(name for name, _is_folder in named)
    return sorted(name for name, is_folder in named if not folders or is_folder)


def _is_old_agent(path: Path, known: KnownFile | None) -> bool:
    """Whether an ``agent-*.jsonl`` beside the sessions is a Claude Code 2.0.x sub-agent
    (its records say ``isSidechain``): known without opening it when the last build
    read this very file as a session's sub-agent."""
    return bool(known and known.session) or peek_field(path, "isSidechain") is True


def _by_hidden_label(found: Discovered, sessions: dict[str, ClaudeSource]) -> dict[str, ClaudeSource]:
    """A folder's sessions by the digest of their label (as KnownFile.session names one)."""
    return {hide_label(found.label(source.main)): source for source in sessions.values()}


def _attach_old_agent(found: Discovered, agent: Path, sessions: dict[str, ClaudeSource], warn: WarnFn,
                      known_parent: ClaudeSource | None = None) -> None:
    """Claude Code 2.0.x wrote sub-agents as ``agent-<id>.jsonl`` beside the sessions;
    they belong to the session whose ``sessionId`` their records carry. ``known_parent``:
    the session the last build gave this very file to, there still (the file is not
    opened again: the same bytes name the same session)."""
    label = transcript_label(agent)
    found.labels[agent] = label
    parent = known_parent
    if parent is None:
        session_id = peek_field(agent, "sessionId")
        parent = sessions.get(session_id) if isinstance(session_id, str) else None
    if parent is not None:
        parent.subagents.append(agent)
        return
    warn(InputWarning(label, 0, ORPHAN_AGENT))
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
    from .readers.gemini_files import find_gemini_files

    listed = find_gemini_files(source)
    for path in listed.files + listed.root_files:
        found.labels.setdefault(path, transcript_label(path))
    known = set(found.gemini)
    found.gemini += [path for path in listed.files if path not in known]
    have = set(found.gemini_roots)
    found.gemini_roots += [path for path in listed.root_files if path not in have]
    found.gemini_passed.update(transcript_label(path) for path, _why in listed.left_out)


def _add_layout(found: Discovered, layout: Layout, source: Path, config: BuildConfig) -> None:
    """What ``layout``'s ``find`` lists under a source (a folder or file it claims),
    each file once, labelled by the layout."""
    if not config.wants(layout.kind):
        return
    listed = found.agents.setdefault(layout.kind, [])
    known = set(listed)
    for path in layout.find(source):
        if path not in known:
            known.add(path)
            listed.append(path)
            found.labels.setdefault(path, layout.label(path))


def _is_codex(path: Path) -> bool:
    from .readers.codex_rollouts import is_codex_rollout

    try:
        return is_codex_rollout(path)
    except OSError:
        return False


def _entries(folder: Path, warn: WarnFn) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as scan:
            return sorted(scan, key=lambda e: e.name)
    except OSError as err:
        warn(InputWarning(str(folder), 0, f"cannot list directory: {err.strerror or err}"))
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


# --------------------------------------------------------------------------- labels


def transcript_label(path: Path | str) -> str:
    """How a build names a transcript (in warnings, sidecars, the manifest) and how
    bough's archive knows it: the end of its absolute path that the agent's layout
    gives it, never the part above, so the same file gets the same label whichever
    source it was found under (a projects folder, its project folder, the file
    itself, a copy of the whole tree): docs/safety.md S8.

    - Claude Code: ``<project dir>/<file>``; a sub-agent, from its project dir:
      ``<project dir>/<sessionId>/subagents/[workflows/<id>/]agent-….jsonl``;
    - Codex: ``sessions/YYYY/MM/DD/rollout-….jsonl`` (the folder above the dated
      ones, whatever its name), ``archived_sessions/rollout-….jsonl``;
    - Gemini CLI: ``tmp/<project>/chats/[<sessionId>/]…`` and ``tmp/<project>/.project_root``
      under the Gemini directory, ``projects.json``; outside a ``tmp/``, from the
      folder that holds ``chats/``;
    - anything else: ``<folder>/<file>``."""
    # Strings, not pathlib: a tree of thousands of files. printable_name: a name
    # that is not UTF-8 must not crash the pages that show it.
    parts = os.fspath(path).rsplit("/", 6)  # the file and the 6 folders above it at most
    label = "/".join(parts[-_kept_parts(parts):]).lstrip("/")
    return label if label.isascii() else printable_name(label)


def _kept_parts(parts: list[str]) -> int:
    """How many of ``parts`` (a path's last names, the file last) its label keeps."""
    size = len(parts)
    parent = parts[-2] if size > 1 else ""
    if parent == "subagents":
        return 4
    above = parts[-3] if size > 2 else ""
    if parent == "chats":
        return 4 if size > 3 and parts[-4] == "tmp" else 3
    if above == "chats":
        return 5 if size > 4 and parts[-5] == "tmp" else 4
    if above == "workflows" and size > 3 and parts[-4] == "subagents":
        return 6
    name = parts[-1]
    if name == "projects.json":
        return 1
    if name == ".project_root":
        return 3 if above == "tmp" else 2
    if size > 3 and _DAY.match(parent) and _DAY.match(above) and _YEAR.match(parts[-4]):
        return 5
    return 2
