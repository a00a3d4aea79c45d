"""Units: what one reader call reads, and the names the build gives what it reads.

A *unit* is a Claude session (its file and its sub-agent files), every Codex
rollout together (forks and sub-agents are matched across files), or one Gemini
CLI project folder (``tmp/<id>``: a session's segments and sub-agents sit in its
``chats/``, whether live or restored from the archive). Its key is
stable across builds (made from labels, never stored as they are), so the
manifest can say what each unit made last time.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..folder_walk import FileStat
from ..manifest import FileState, file_state
from ..kinds import CLAUDE, CODEX, COPILOT, GEMINI, OPENCODE, QWEN, SOURCE_OF_KIND  # noqa: F401 (named here too)
from ..hidden import hide, hide_label
from ..slugs import slug



@dataclass(frozen=True)
class Unit:
    key: str  # "claude-<digest of the main file's label>", "codex" or "gemini-<digest of the folder's label>"
    kind: str  # CLAUDE | CODEX | GEMINI
    paths: tuple[str, ...]  # every file read; for Claude the main file first, then its sub-agents
    labels: tuple[str, ...]  # how warnings and sidecars name each of paths
    # The archive's dates: main-file label -> since when bough keeps it (Session.kept_since).
    since: tuple[tuple[str, str], ...] = ()
    # (path, size, mtime_ns, sha256) of files this build's archive copies hashed (with_digests).
    digests: tuple[tuple[str, int, int, str], ...] = ()

    @property
    def size(self) -> int:
        return sum(file_size(path) for path in self.paths)

    @property
    def folder(self) -> str:
        """The folder of its main file (a Claude project's folder)."""
        return os.path.dirname(self.paths[0]) if self.paths else ""

    def session_key(self, session_id: str) -> str:
        return f"{self.key}#{session_id}"

    def since_digest(self) -> str:
        """Stands for the archive's dates of its files (a change reads the unit again)."""
        return hide(repr(self.since)) if self.since else ""

    def states(self, stat_of: Callable[[Any], FileStat | os.stat_result] = os.stat) -> list[FileState | None]:
        return [file_state(p, hide_label(label), stat_of) for p, label in zip(self.paths, self.labels)]

    def known_sha256(self, path: str, state: FileState) -> str | None:
        """The sha256 of ``path``'s first ``state.size`` bytes when the archive's copy
        hashed them: the copy saw the same size and mtime (files only grow)."""
        for known, size, mtime_ns, sha256 in self.digests:
            if known == path and (size, mtime_ns) == (state.size, state.mtime_ns):
                return sha256
        return None


def with_digests(units: list[Unit], digests: dict[str, tuple[int, int, str]]) -> list[Unit]:
    """``units``, each with the digests the archive's copies made of its files: a
    cold build hashed every file twice, once copying it and once reading it."""
    if not digests:
        return units
    return [replace(unit, digests=tuple((p, *digests[p]) for p in unit.paths if p in digests)) for unit in units]


def units_of(claude: Iterable[Any], codex: list[Path], label: Callable[[Path], str],
             since: dict[str, str] | None = None, gemini: Iterable[Path] = (),
             agents: dict[str, list[Path]] | None = None) -> list[Unit]:
    """The units of a build, in discovery order (Codex, Gemini, then the agents a
    Layout describes, last), with unique keys."""
    since = since or {}
    units: list[Unit] = []
    seen: dict[str, int] = {}
    for source in claude:
        paths = [source.main, *source.subagents]
        labels = tuple(label(p) for p in paths)
        key = f"{CLAUDE}-{hide_label(labels[0])}"  # labels hold directory names: never stored as is
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:  # the same label under two roots
            key = f"{key}-{seen[key]}"
        dates = ((labels[0], since[labels[0]]),) if labels[0] in since else ()
        units.append(Unit(key, CLAUDE, tuple(str(p) for p in paths), labels, dates))
    if codex:
        ordered = sorted(set(codex), key=str)
        labels = tuple(label(p) for p in ordered)
        dates = tuple(sorted((name, since[name]) for name in labels if name in since))
        units.append(Unit(CODEX, CODEX, tuple(str(p) for p in ordered), labels, dates))
    units += gemini_units(gemini, label, since)
    for kind, paths in (agents or {}).items():
        units += layout_units(kind, paths, label, since)
    return units


def layout_units(kind: str, paths: list[Path], label: Callable[[Path], str], since: dict[str, str]) -> list[Unit]:
    """The units of an agent a Layout describes: its ``units`` groups, each keyed
    by the kind and a digest of the group's key (made from labels: never stored as is)."""
    from ..readers.layouts import LAYOUTS

    units = []
    for key, files in LAYOUTS[kind].units([(label(path), path) for path in paths]):
        labels = tuple(name for name, _ in files)
        dates = tuple(sorted((name, since[name]) for name in labels if name in since))
        units.append(Unit(f"{kind}-{hide(key)}", kind, tuple(str(p) for _, p in files), labels, dates))
    return units


def gemini_units(paths: Iterable[Path], label: Callable[[Path], str], since: dict[str, str]) -> list[Unit]:
    """One unit per Gemini project folder, told by the files' labels (a copy restored
    from the archive has its live twin's label), each folder's files in label order."""
    from ..readers.gemini_files import project_folder

    folders: dict[str, list[tuple[str, Path]]] = {}
    for path in paths:
        name = label(path)
        folders.setdefault(project_folder(Path(name)).as_posix(), []).append((name, path))
    units = []
    for folder in sorted(folders):
        files = sorted(folders[folder], key=lambda pair: (pair[0], str(pair[1])))
        labels = tuple(name for name, _ in files)
        dates = tuple(sorted((name, since[name]) for name in labels if name in since))
        units.append(Unit(f"{GEMINI}-{hide(folder)}", GEMINI, tuple(str(p) for _, p in files), labels, dates))
    return units


def project_identity(cwd: str) -> dict[str, str]:
    """A project's id (a safe, stable slug with a hash of the full path, so two
    projects with the same last component stay apart), name and cwd.

    The id is part of every page's URL: it changes only where it was wrong. A
    Gemini CLI folder named by the sha256 of a directory bough could not find
    (docs/formats-gemini.md §6) is named for what it is, not by 64 hex digits; and
    where the name is the cwd itself (a Gemini folder's name standing for an unknown
    directory) and not already a safe slug, the hash slug() gave it is the cwd's: it
    is not added twice (it was: ``…-406d6dc6-406d6dc6``)."""
    from ..readers.gemini_files import is_hash_folder

    digest = hashlib.sha256(cwd.encode("utf-8", "replace")).hexdigest()[:8]
    if is_hash_folder(cwd):
        name, stem = f"Gemini CLI project {cwd[:8]}", f"gemini-{cwd[:8]}"
    else:
        name = posixpath.basename(cwd.rstrip("/")) or cwd or "(unknown directory)"
        stem = slug(name, max_len=40)
    project_id = stem if stem.endswith(f"-{digest}") else f"{stem}-{digest}"
    return {"id": project_id, "name": name, "cwd": cwd}


def optimistic_slug(session_id: str) -> str:
    """The slug a session gets when no other session's slug clashes with it."""
    return slug(session_id)


def file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
