"""Where Gemini CLI keeps its sessions, and which files to read once each.

``find_gemini_files`` takes a Gemini directory (``~/.gemini``), its ``tmp/``, one
project folder (``tmp/<id>``), its ``chats/``, a folder of loose session files, or
one session file, and lists the files to read (docs/formats-gemini.md §1, §2):

- session files are the ``*.json`` and ``*.jsonl`` of ``tmp/<id>/chats/``, and the
  sub-agent files one level below it (``chats/<parentSessionId>/``);
- a file held by both a slug folder and the hash folder that migration left behind
  is read from the slug folder; a ``.json`` whose session goes on in a ``.jsonl`` of
  the same stem is not read;
- ``logs.json``, ``checkpoint-*.json``, ``checkpoints/`` and the other folders of
  ``tmp/<id>/`` are never sessions.

It also gathers the project roots Gemini CLI wrote down (``projects.json`` and each
folder's ``.project_root``), keyed by ``projectHash``: the sha256 of the root, and
the files they came from (the archive keeps them with the sessions).

``is_gemini_file`` tells the format from the first bytes of a file, ``is_gemini_dir``
a Gemini directory (or a level of its tree) from its layout; discovery labels the
files by the end of their path (discover.transcript_label: ``tmp/<id>/chats/…``
under the Gemini directory).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..write import is_regular_file
from .lines import open_regular, parse_line
from .values import as_dict

_PEEK_BYTES = 64 * 1024
_BOM = b"\xef\xbb\xbf"
_HASH_FOLDER = re.compile(r"[0-9a-f]{64}")
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')
_PROJECT_HASH = re.compile(rb'"projectHash"\s*:')
# Never sessions (§2): the project's input log and /chat save checkpoints.
_NOT_SESSIONS = re.compile(r"^(?:logs\.json|checkpoint-.*\.json)$")
SUFFIXES = (".json", ".jsonl")
_MAX_ROOT_FILE = 1 << 20

LEFT_HASH_COPY = "the hash folder's copy, left behind by migration; the slug folder's copy is read"
LEFT_JSON_COPY = "a .json whose session continues in the .jsonl of the same name; the .jsonl is read"


def project_hash(root: str) -> str:
    """What Gemini CLI writes as ``projectHash``: the sha256 of the root as typed."""
    return hashlib.sha256(root.encode("utf-8", "surrogatepass")).hexdigest()


def is_hash_folder(name: str) -> bool:
    return bool(_HASH_FOLDER.fullmatch(name))


# --- the format, from the content -----------------------------------------------------


def _peek(path: Path) -> bytes:
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return b""
    with handle:
        return handle.read(_PEEK_BYTES).removeprefix(_BOM)


def is_gemini_file(path: Path) -> bool:
    """True when the file starts like a Gemini CLI session: a JSONL metadata line
    (``sessionId`` and ``projectHash``, no ``type``, which Claude lines carry), or a
    legacy JSON object whose first keys are ``sessionId`` and ``projectHash``."""
    head = _peek(path)
    first, newline, _ = head.lstrip().partition(b"\n")
    if newline or len(head) < _PEEK_BYTES:
        obj, _ = parse_line(first, shallow=True)
        if obj is not None:
            return "projectHash" in obj and "sessionId" in obj and "type" not in obj
    return head.lstrip().startswith(b"{") and bool(_SESSION_ID.search(head)) and bool(_PROJECT_HASH.search(head))


def peek_session_id(path: Path) -> str | None:
    """The ``sessionId`` a session file opens with (both formats write it first)."""
    return head_identity(_peek(path))[0]


_START_TIME = re.compile(rb'"startTime"\s*:\s*"([^"\\]{1,100})"')


def head_identity(head: bytes) -> tuple[str | None, str | None]:
    """The ``sessionId`` and ``startTime`` a session file's first bytes hold (both
    formats write its metadata first: §3, §4), each None when not there."""
    found = [pattern.search(head) for pattern in (_SESSION_ID, _START_TIME)]
    session, start = (match.group(1).decode("utf-8", "replace") if match else None for match in found)
    return session, start


# --- project roots ------------------------------------------------------------------------


def _small_file(path: Path) -> bytes | None:
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_ROOT_FILE:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _projects_json(path: Path) -> dict[str, str]:
    raw = _small_file(path)
    if raw is None:
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    projects = as_dict(as_dict(data).get("projects"))
    return {project_hash(root): root for root in projects if isinstance(root, str) and root}


def folder_root(folder: Path) -> dict[str, str]:
    """The root a project folder's ``.project_root`` names, keyed by its hash."""
    raw = _small_file(folder / ".project_root")
    if raw is None:
        return {}
    root = raw.decode("utf-8", "replace").strip()
    return {project_hash(root): root} if root else {}


def folder_roots(folder: Path) -> dict[str, str]:
    """The roots written down around a project folder: its ``.project_root`` and,
    when it sits in a Gemini directory's ``tmp/``, that directory's ``projects.json``."""
    roots = _projects_json(folder.parent.parent / "projects.json") if folder.parent.name == "tmp" else {}
    roots.update(folder_root(folder))
    return roots


def project_folder(path: Path) -> Path:
    """The ``tmp/<id>`` folder a session file belongs to: the parent of its
    ``chats/`` (a sub-agent file sits one level deeper); for a loose file, its folder."""
    if path.parent.name == "chats":
        return path.parent.parent
    if path.parent.parent.name == "chats":
        return path.parent.parent.parent
    return path.parent


# --- listing the files ------------------------------------------------------------------------


@dataclass
class GeminiFiles:
    """What one source holds: the files to read (sessions, their segments and
    sub-agent files, each once), what was passed over and why, and the files the
    roots around them are written in (the reader reads those)."""

    files: list[Path] = field(default_factory=list)
    left_out: list[tuple[Path, str]] = field(default_factory=list)
    root_files: list[Path] = field(default_factory=list)  # the projects.json and .project_root read for roots


def find_gemini_files(source: Path) -> GeminiFiles:
    """Every session file under ``source`` (see the module docstring), each once,
    sorted; regular files only (no symlinks, FIFOs or devices)."""
    found = GeminiFiles()
    if not source.is_dir():
        _single_file(found, source)
        return found
    chats = _chats_folders(source)
    candidates: list[Path] = []
    for folder in chats:
        candidates += _chat_files(folder)
    if not chats and not (source / "tmp").is_dir():
        # A folder of loose session files. A Gemini directory's own files (settings,
        # credentials) are never opened, even when it holds no session yet.
        candidates = [p for p in _files_in(source) if is_gemini_file(p)]
    found.files, found.left_out = read_once(candidates)
    found.root_files = root_files(found.files)
    return found


def _single_file(found: GeminiFiles, path: Path) -> None:
    found.files = [path]
    sid = peek_session_id(path)
    if path.parent.name == "chats" and sid:
        found.files += _files_in(path.parent / sid)
    found.root_files = root_files([path])


def root_files(files: list[Path]) -> list[Path]:
    """The files the roots around ``files`` are written in (§6), those that are
    regular files: each project folder's ``.project_root`` and, for folders in a
    Gemini directory's ``tmp/``, its ``projects.json``."""
    return sorted((path for path in root_candidates(files) if is_regular_file(path)), key=str)


def root_candidates(files: list[Path]) -> set[Path]:
    """Where the roots around ``files`` may be written, whether or not they are."""
    out: set[Path] = set()
    for folder in {project_folder(path) for path in files}:
        out.add(folder / ".project_root")
        if folder.parent.name == "tmp":
            out.add(folder.parent.parent / "projects.json")
    return out


def is_gemini_dir(folder: Path) -> bool:
    """Whether a directory is Gemini CLI's, or a level of its tree (§1): told from
    the layout (``.gemini``, ``projects.json``, ``tmp/<id>/chats/``, ``<id>/chats/``,
    ``chats/``), else from the content of the first session-like file it holds."""
    if folder.name in (".gemini", "chats") or is_regular_file(folder / "projects.json") or (folder / "chats").is_dir():
        return True
    tmp = folder / "tmp"
    if tmp.is_dir() or folder.name == "tmp":
        return any((sub / "chats").is_dir() for sub in _subfolders(tmp if tmp.is_dir() else folder))
    first = next(iter(_files_in(folder)), None)
    return first is not None and is_gemini_file(first)


def holds_gemini_projects(tmp: Path) -> bool:
    """Whether a ``tmp/`` folder is a Gemini directory's: one of its folders holds ``chats/``."""
    return any((sub / "chats").is_dir() for sub in _subfolders(tmp))


def holds_gemini_chats(chats: Path) -> bool:
    """Whether a folder named ``chats/`` is Gemini CLI's (others use the name too):
    the first session-like file in it, or in a sub-agent folder of it, is a Gemini session."""
    first = next(iter(_chat_files(chats)), None)
    return first is not None and is_gemini_file(first)


def _chats_folders(source: Path) -> list[Path]:
    """The ``chats/`` folders a source holds, whichever level of the tree it is."""
    if source.name == "chats":
        return [source]
    if (source / "chats").is_dir():
        return [source / "chats"]
    tmp = source / "tmp" if (source / "tmp").is_dir() else source
    return [folder / "chats" for folder in _subfolders(tmp) if (folder / "chats").is_dir()]


def _chat_files(chats: Path) -> list[Path]:
    files = _files_in(chats)
    for folder in _subfolders(chats):
        files += _files_in(folder)
    return files


def _files_in(folder: Path) -> list[Path]:
    out = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if not entry.name.endswith(SUFFIXES) or _NOT_SESSIONS.match(entry.name):
            continue
        try:
            if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                out.append(Path(entry.path))
        except OSError:
            continue
    return out


def _subfolders(folder: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                out.append(Path(entry.path))
        except OSError:
            continue
    return out


def read_once(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The read-once rules (§2) over candidate files: of the copies of one file
    (the same name under ``chats/`` and the same ``sessionId``) the slug folder's
    is read, not the hash folder's; of a ``.json`` and a ``.jsonl`` of one stem and
    id, the ``.jsonl``. Returns the files to read and those left out, with why."""
    groups: dict[tuple[str, str, str], list[Path]] = {}
    for path in paths:
        groups.setdefault((*copy_key(path), peek_session_id(path) or path.name), []).append(path)
    keep: list[Path] = []
    left: list[tuple[Path, str]] = []
    for copies in groups.values():
        copies.sort(key=_preference)
        best = copies[0]
        keep.append(best)
        for other in copies[1:]:
            reason = LEFT_HASH_COPY if _in_hash_folder(other) and not _in_hash_folder(best) else LEFT_JSON_COPY
            if other.suffix == best.suffix and _in_hash_folder(other) == _in_hash_folder(best):
                reason = f"the same session file as {best}"
            left.append((other, reason))
    return sorted(keep, key=str), sorted(left, key=lambda pair: str(pair[0]))


def copy_key(path: Path) -> tuple[str, str]:
    """What copies of one session file share, whatever their folder and format: the
    sub-agent folder it sits in (``chats/<sessionId>/``, else "") and its name's stem."""
    inner = path.parent.name if path.parent.parent.name == "chats" else ""
    return inner, path.name.rsplit(".", 1)[0]


def _in_hash_folder(path: Path) -> bool:
    return is_hash_folder(project_folder(path).name)


def _preference(path: Path) -> tuple[bool, bool, str]:
    return (_in_hash_folder(path), path.suffix != ".jsonl", str(path))
