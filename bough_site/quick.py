"""The quick check: a rebuild with nothing to do, told without reading the last
build's manifest, planning or opening a transcript.

What a build writes depends on the files under its sources, on its options and
themes (the options digest), on the agents' settings (the cleanup notes), on
bough's archive (the sessions only it still has) and on what OUT holds (a page
deleted by hand is made again). After a build, ``OUT/.bough-quick`` records:

* one digest of the options and of every name, size, mtime, ctime and inode
  under the sources (of Gemini CLI's own directory, what discovery reads: its
  files, tmp/ and chats/), and of Pagefind's installed files with search on, taken
  *before* the build read them (a file that grew while it was being read differs
  next time);
* the modification time of every directory in OUT (and of the manifest and
  marker, which are rewritten in place), taken after the build wrote them: a
  file added, deleted or renamed changes its directory's time;
* the same of the archive's folders and index, as one digest (the archive's
  folders are named after the transcripts' paths, which may hold a secret, and
  OUT may be published). The times themselves are kept in the archive
  (``.bough-folders``), so the next check asks each folder its time rather than
  listing them all;
* what the build said: its numbers and warnings, and which agents' cleanup notes
  to say (those are read again: they name the settings files);
* the cleanup notices the command line has said for this OUT (:func:`unsaid_notes`):
  each is said once per OUT, not on every build. They outlive every build: emptying
  the record keeps them, filling it carries them over.

The next build computes the digest and the times first: when all are the same,
nothing it would read or keep is different, and it says again what the last
build said. Anything else, even a change to a file bough does not read,
sends it the whole way (slower, never wrong). A build that cannot be told this
way (single files or Gemini folders given as sources, whose neighbours discovery
consults; a link to a directory; the bundled examples; ``--prune``) has no quick
check. The record is emptied when a build starts and filled when it ends: a
build that stops halfway leaves nothing to trust.

Costs one stat per source file and per folder of OUT and of the archive: far
less than discovery, planning and keeping
(docs/performance.md says how much). A build that goes the whole way does not stat
the source files again, nor list a session's sub-agent folders again: what the walk
saw of each file and folder (:attr:`Look.walked`, :attr:`Look.listed`) is handed on.

A build calls two functions: :func:`unchanged` before it reads anything, and
:func:`remember` once it has ended (and :func:`forget` when it starts writing).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .archive_paths import FOLDER_TIMES, INDEX
from .archive_restore import RESTORE_PREFIX
from . import folder_walk
from .folder_walk import FileStat
from .config import BuildConfig, claude_settings_files, gemini_settings_file, root_reads
from .errors import BoughError
from .model import InputWarning
from .regular import read_regular
from .replace import replace_file
from .state_paths import MANIFEST, QUICK_RECORD as RECORD
from .write import SiteWriter, locked

_FORMAT = 1
_MAX_RECORD = 64 << 20

ArchiveWalk = dict[str, folder_walk.Walk]  # the archive's walk: each top folder's (its kind: "claude", ...)


@dataclass
class Said:
    """What a build said, to be said again by a quick rebuild."""

    projects: int = 0
    sessions: int = 0
    stats: dict[str, int | float] = field(default_factory=dict)
    warnings: list[InputWarning] = field(default_factory=list)  # the site's, redacted
    reported: list[InputWarning] = field(default_factory=list)  # those reported while reading the sources
    claude: bool = False  # it showed Claude Code sessions: the cleanup notes are said again
    gemini: bool = False
    sessions_live: int = 0  # read or reused: all reused next time
    gone: int = 0
    archived_only: int = 0
    files: int = 0  # written, unchanged or kept: all kept next time

    def to_json(self) -> dict[str, Any]:
        return {"projects": self.projects, "sessions": self.sessions, "stats": self.stats,
                "warnings": [[w.file, w.line, w.reason] for w in self.warnings],
                "reported": [[w.file, w.line, w.reason] for w in self.reported],
                "claude": self.claude, "gemini": self.gemini, "sessions_live": self.sessions_live, "gone": self.gone,
                "archived_only": self.archived_only, "files": self.files}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Said:
        return cls(int(doc["projects"]), int(doc["sessions"]), {str(k): _number(v) for k, v in doc["stats"].items()},
                   _warnings(doc["warnings"]), _warnings(doc["reported"]), bool(doc["claude"]), bool(doc["gemini"]),
                   int(doc["sessions_live"]), int(doc["gone"]), int(doc["archived_only"]), int(doc["files"]))


def _number(value: Any) -> int | float:
    """A stat as the record keeps it: a count, or a cost in USD (pricing.py)."""
    return value if isinstance(value, float) else int(value)


def _warnings(rows: Iterable[Any]) -> list[InputWarning]:
    return [InputWarning(str(f), int(line), str(reason)) for f, line, reason in rows]


# --------------------------------------------------------------------------- the pair a build calls


@dataclass
class Look:
    """What the quick check saw before a build. What its walk saw of the files and
    folders is handed over once (:meth:`hand_over`); the rest does not change."""

    options_digest: str  # of a build of the user's own sessions (the bundled examples have a key of their own)
    inputs: str | None  # the inputs digest; None: this build cannot be told by it (no record is made)
    said: Said | None  # what the last build said, when nothing it read or kept changed since
    # OUT's folders and their times as the last build left them (its record), by path
    # under OUT ("./pagefind/x"): empty when there is no record to trust
    left: dict[str, int] = field(default_factory=dict)
    # What the walk for the digest saw of each file under the sources that is no link,
    # by absolute path: discovery and the archive take these instead of asking again
    # (discover.Discovered.walked). Empty when the check did not walk.
    walked: dict[str, FileStat] = field(default_factory=dict, repr=False)
    # The names in each folder it listed, by absolute path (discover.Discovered.listed):
    # discovery lists a session's sub-agent folders no more (at 18,000 sessions, 3,000).
    listed: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    def hand_over(self) -> tuple[dict[str, FileStat], dict[str, frozenset[str]]]:
        """``walked`` and ``listed``, for discovery, which holds them from then on: the
        Look lets go of them, so that whoever still holds the Look (build.build, while
        the stages run) does not keep them to the build's end (some 15 MB at 18,000
        sessions, at its peak)."""
        walked, listed = self.walked, self.listed
        self.walked, self.listed = {}, {}
        return walked, listed


def unchanged(config: BuildConfig, options_digest: str) -> Look:
    """Whether anything changed since the last build in OUT: when nothing did,
    ``said`` is what that build said, to be said again."""
    walked: dict[str, FileStat] = {}
    listed: dict[str, frozenset[str]] = {}
    inputs = inputs_digest(config, options_digest, walked, listed)
    if inputs is None:
        return Look(options_digest, inputs, None)
    if not os.path.isfile(Path(config.out) / RECORD):  # (and OUT is not locked: it may not be bough's)
        return Look(options_digest, inputs, None, walked=walked, listed=listed)
    with locked(config.out):
        said, left = _recall(config.out, inputs, config.archive)
    if said is not None:
        return Look(options_digest, inputs, said, left)
    return Look(options_digest, inputs, said, left, walked, listed)


def remember(out: Path, inputs: str, archive: list[list[Any]], said: Said) -> None:
    """What a build that has ended said, for the next one's check; ``inputs``: the
    digest :func:`unchanged` took before it read anything, ``archive``: the archive's
    times as it left them (:func:`archive_times`)."""
    _prepare(out)
    _fill_record(out, inputs, out_times(out, [MANIFEST, SiteWriter.MARKER]), archive, said)


# --------------------------------------------------------------------------- the inputs


def inputs_digest(config: BuildConfig, options_digest: str, walked: dict[str, FileStat] | None = None,
                  listed: dict[str, frozenset[str]] | None = None) -> str | None:
    """One digest of the options and of everything under the sources; None when
    this build cannot be told by it (see the module docstring). ``walked`` is
    given what was seen of each file under the sources that is no link, ``listed``
    the names in each folder walked."""
    if config.prune:
        return None
    roots = [os.path.abspath(root) for root in config.roots()]
    archive = os.path.abspath(config.archive) if config.archive is not None else ""
    header = [str(_FORMAT), options_digest, config.source_filter, str(bool(config.sources)),
              os.path.abspath(config.out), archive, *roots]
    h = hashlib.sha256("\0".join(header).encode("utf-8", "surrogateescape"))  # paths need not be UTF-8
    reads = root_reads()
    for root in roots:
        descend = _GEMINI_READS if os.path.basename(root) == ".gemini" else reads.get(root)
        if not _walk(h, root, descend, walked, listed):
            return None
    for path in [*claude_settings_files(), gemini_settings_file()]:
        h.update(_stamp(str(path)))
    if config.search and not all(_walk(h, folder) for folder in _package_folders(_SEARCH_PACKAGES)):
        return None
    return h.hexdigest()


# Pagefind, as installed: a build remakes a search shard that another Pagefind made
# (search/shards.py), so an upgrade must not be taken for "nothing changed".
_SEARCH_PACKAGES = ("pagefind", "pagefind_bin", "pagefind_bin_extended")


def _package_folders(names: Iterable[str]) -> list[str]:
    """The folders of the installed packages among ``names`` (found, not imported:
    Pagefind's would import asyncio, a tenth of a second)."""
    folders = []
    for name in names:
        spec = importlib.util.find_spec(name)
        folders += list(spec.submodule_search_locations or []) if spec is not None else []
    return folders


# What discovery reads of Gemini CLI's directory (readers/gemini_files.py): its
# own files, tmp/ and chats/; not history/, the shadow git repositories of its
# /restore, which can hold thousands of files.
_GEMINI_READS = frozenset({"tmp", "chats"})


def _walk(h: Any, root: str, descend: frozenset[str] | None = None, walked: dict[str, FileStat] | None = None,
          listed: dict[str, frozenset[str]] | None = None) -> bool:
    """Add every name, size and time under ``root`` to ``h`` (of the folders at its
    top, only the names of those not in ``descend``, when given); False when it
    cannot be told this way (a file given as a source, a link to a directory).
    ``walked``: given what ``os.lstat`` said of each file that is no link, by path
    (a FileStat, not the whole os.stat_result: a tenth of the memory); ``listed``:
    the names in each folder descended into (each of its folders descended into too)."""
    try:
        info = os.stat(root)
    except FileNotFoundError:
        h.update(f"missing\0{root}\n".encode("utf-8", "surrogateescape"))
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    # Listing order, not sorted: a folder nothing was added to or taken from lists
    # in the same order; when it does not, the build only takes the longer way.
    parts: list[str] = []
    folders = [root]
    while folders:
        folder = folders.pop()
        parts.append("dir\0" + folder)
        names: list[str] = []
        try:
            with os.scandir(folder) as scan:
                for entry in scan:
                    names.append(entry.name)
                    if descend is not None and folder == root and entry.name not in descend and entry.is_dir():
                        parts.append("folder\0" + entry.name)  # its name, not what is in it (nor where it links)
                        continue
                    if entry.is_symlink():
                        try:
                            info = os.stat(entry.path)
                        except OSError:
                            parts.append("dangling\0" + entry.name)
                            continue
                        if stat.S_ISDIR(info.st_mode):
                            return False  # followed by discovery, but not walked here (it may loop)
                    elif entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
                        continue
                    else:
                        info = entry.stat(follow_symlinks=False)
                        if walked is not None:
                            walked[entry.path] = FileStat(info.st_mode, info.st_size, info.st_mtime_ns)
                    parts.append(_line(entry.name, info))
        except OSError:
            return False
        # Not the root's when some of its folders were not descended into: a folder
        # listed has each of its own folders listed too (discover._names).
        if listed is not None and (descend is None or folder != root):
            listed[folder] = frozenset(names)
    h.update("\n".join(parts).encode("utf-8", "surrogateescape"))
    return True


def _line(name: str, info: os.stat_result) -> str:
    return f"{name}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0{info.st_ino}"


def _stamp(path: str) -> bytes:
    try:
        line = _line(path, os.stat(path))
    except OSError as err:
        line = f"{path}\0{err.errno}"
    return line.encode("utf-8", "surrogateescape")


def outside_sources(config: BuildConfig, consulted: Iterable[Path]) -> bool:
    """Whether discovery consulted a path outside every source (a Gemini project's
    root files above a folder given as a source): a change there would not be seen."""
    roots = [Path(os.path.abspath(root)) for root in config.roots()]
    return any(not any(Path(os.path.abspath(path)).is_relative_to(root) for root in roots) for path in consulted)


# --------------------------------------------------------------------------- OUT and the archive


def folder_times(root: Path | str | None) -> list[list[Any]]:
    """Every directory under ``root`` (itself included, as ".") and its mtime, by
    its path under ``root``, without following links."""
    return folder_walk.times(folder_walk.walk(root, files=False)) if root is not None else []


def out_times(out: Path, own_files: Iterable[str]) -> list[list[Any]]:
    """OUT's folders, and files of its own that are changed in place (the
    manifest, the marker), with their times."""
    times = folder_times(out)
    for name in own_files:
        with contextlib.suppress(OSError):
            times.append([name, os.lstat(os.path.join(out, name)).st_mtime_ns])
    return times


def archive_times(root: Path | None, *, settled: bool = False, before: ArchiveWalk | None = None,
                  walked: ArchiveWalk | None = None) -> list[list[Any]]:
    """The archive's folders and its index, with their times. Not its top folder's
    time, nor the private folders of copies that a build restores (RestoreDir):
    the build that records them is still using its own. ``settled``: none may be
    there (one is a build at work, or one that crashed, whose folder the next
    build that goes the whole way removes). ``before``: an earlier walk of its
    folders, whose folders with the same time are not listed again; ``walked`` is
    given this one (folder_walk.py)."""
    if root is None:
        return []
    never: list[list[Any]] = [[".", None]]  # not the same as anything recorded
    try:
        index, folders = _archive_top(root)
    except OSError:
        return never  # no archive yet, or one that cannot be read
    times: list[list[Any]] = [index]
    restoring = [name for name in folders if name.startswith(RESTORE_PREFIX)]
    if settled and restoring:
        return never
    for name in folders:
        if name not in restoring:
            seen = folder_walk.walk(root / name, (before or {}).get(name), files=walked is not None)
            times += [[f"{name}/{folder}", mtime] for folder, mtime in folder_walk.times(seen)]
            if walked is not None:
                walked[name] = seen
    return times


def _archive_top(root: Path) -> tuple[list[Any], list[str]]:
    """The archive's index as a row of its times, and the folders at its top, sorted
    (OSError when either cannot be looked at)."""
    index = os.lstat(root / INDEX)
    with os.scandir(root) as scan:
        folders = sorted(entry.name for entry in scan if entry.is_dir(follow_symlinks=False))
    return [INDEX, index.st_mtime_ns, index.st_size, index.st_ino], folders


def keep_archive_times(root: Path, times: list[list[Any]]) -> None:
    """Keep ``times`` (:func:`archive_times`, as a build left the archive, its lock
    held) in the archive itself, for the next quick check: it asks each folder its
    time instead of listing them all (:func:`_archive_as_left`). Not in OUT: the
    archive's folders are named after the transcripts' labels. Nothing is kept when
    the archive cannot be written; the check then lists its folders."""
    with contextlib.suppress(OSError):
        replace_file(root, FOLDER_TIMES, orjson.dumps(times), mode=0o600)


def _archive_as_left(root: Path | None, recorded: Any) -> bool:
    """Whether the archive's folders and index are as the last build left them
    (``recorded``: their times' digest, :func:`_times_digest`). When the times the
    archive keeps are those, each folder is asked its time: one that is the same holds
    the same names (as OUT's folders are trusted), so no folder was added or taken
    anywhere, and a walk would give the same times. Otherwise its folders are walked."""
    if root is not None:
        kept = _kept_archive_times(root)
        if kept is not None and _times_digest(kept) == recorded:
            return _still_as_kept(root, kept)
    return _times_digest(archive_times(root, settled=True)) == recorded


def _kept_archive_times(root: Path) -> list[list[Any]] | None:
    """The times :func:`keep_archive_times` kept in the archive, when they read as
    such: the index's row, then a row per folder with its time."""
    try:
        rows = orjson.loads(read_regular(root / FOLDER_TIMES, _MAX_RECORD) or b"null")
    except orjson.JSONDecodeError:
        return None
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], list) or rows[0][:1] != [INDEX]:
        return None
    folders = rows[1:]
    if all(isinstance(row, list) and len(row) == 2 and isinstance(row[0], str) and type(row[1]) is int
           for row in folders):
        return rows
    return None  # (a folder that could not be listed has no time: its walk is asked again)


def _still_as_kept(root: Path, kept: list[list[Any]]) -> bool:
    """Whether the index and each folder in ``kept`` have the same time, and the
    archive's top holds the same folders: none added, and none a build's private
    one (``settled``: :func:`archive_times` leaves those out)."""
    try:
        index, tops = _archive_top(root)
    except OSError:
        return False
    folders = kept[1:]
    return index == kept[0] and set(tops) == {path.split("/", 1)[0] for path, _mtime in folders} \
        and _same_times(root, folders)


def _times_digest(times: list[list[Any]]) -> str:
    """Folder times as one digest (the archive's: see the module docstring)."""
    lines = "\n".join("\0".join(map(str, row)) for row in times)
    return hashlib.sha256(lines.encode("utf-8", "surrogateescape")).hexdigest()


def _same_times(root: Path | str, times: list[list[Any]]) -> bool:
    for folder, mtime in times:
        try:
            if os.lstat(os.path.join(root, folder)).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True


# --------------------------------------------------------------------------- the record


# The record is opened never through a symlink, and without waiting on a FIFO put
# in its place (docs/safety.md S8, S10): O_NONBLOCK makes that open fail at once.
_OPEN = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def forget(out: Path) -> None:
    """Empty the record, in place (OUT's time stays): the build that starts may change
    anything. The notices said (:func:`unsaid_notes`) stay: nothing a build does unsays them."""
    notes = _notes_said(_record(out))
    _fill(out, orjson.dumps({"format": _FORMAT, "notes": notes}) if notes else b"")


def _prepare(out: Path) -> None:
    """Make sure the record's file is there before OUT's folder times are taken:
    creating it changes OUT's time, filling it in place (:func:`_fill_record`) does not."""
    with contextlib.suppress(OSError):
        os.close(os.open(Path(out) / RECORD, os.O_WRONLY | os.O_CREAT | _OPEN, 0o644))


def _fill_record(out: Path, inputs: str, times: list[list[Any]], archive: list[list[Any]], said: Said) -> None:
    """Fill the record (prepared before ``times`` were taken) in place; ``archive``:
    the archive's times as the build left them (:func:`archive_times`)."""
    notes = _notes_said(_record(out))  # what forget() kept
    try:
        data = orjson.dumps({"format": _FORMAT, "inputs": inputs, "times": times, "archive": _times_digest(archive),
                             "said": said.to_json(), "notes": notes})
    except TypeError:
        return  # a folder of OUT whose name is not UTF-8 (not bough's): no record, the whole way next time
    _fill(out, data)


def _fill(out: Path, data: bytes, *, create: bool = False) -> None:
    """Write the record in place (OUT's time stays; ``create``: make it if it is not there),
    never through a link nor into a FIFO."""
    with contextlib.suppress(OSError):
        fd = os.open(Path(out) / RECORD, os.O_WRONLY | _OPEN | (os.O_CREAT if create else 0), 0o644)
        with open(fd, "wb") as handle:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                handle.write(data)
                handle.truncate()


def _record(out: Path) -> dict[str, Any]:
    """The record as JSON, {} when there is none that parses."""
    data = read_regular(Path(out) / RECORD, _MAX_RECORD)
    try:
        doc = orjson.loads(data) if data else {}
    except orjson.JSONDecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}


# --------------------------------------------------------------------------- notices said once per OUT

# The last notices said, by digest: one said again comes back when what it says changes.
_MAX_NOTES = 64
# How long the command line waits for another build in OUT to end before it says a
# notice without remembering it.
_NOTES_WAIT = 5.0


def unsaid_notes(out: Path | str, notes: list[str]) -> list[str]:
    """Of ``notes`` (the agents' cleanup notice: agent_cleanup.cleanup_notes), those not
    yet said for OUT, from now on remembered as said: a notice is said once per OUT, and
    again when what it says changes (another retention, the archive turned off). Kept in
    the record, written in place under OUT's lock once a build has ended (OUT's folder
    times, and so the quick check, stay as they were). When that cannot be done, every
    note is said."""
    if not notes:
        return []
    digests = [hashlib.sha256(note.encode("utf-8", "surrogatepass")).hexdigest() for note in notes]
    try:
        with locked(Path(out), timeout=_NOTES_WAIT):
            doc = _record(Path(out))
            said = _notes_said(doc)
            new = [note for note, digest in zip(notes, digests) if digest not in said]
            if new:
                kept = [digest for digest in said if digest not in digests] + digests
                doc = {**doc, "notes": kept[-_MAX_NOTES:]} if doc else {"format": _FORMAT, "notes": kept}
                _fill(Path(out), orjson.dumps(doc), create=True)
    except (BoughError, OSError):
        return notes
    return new


def _notes_said(doc: dict[str, Any]) -> list[str]:
    notes = doc.get("notes")
    return [digest for digest in notes if isinstance(digest, str)][-_MAX_NOTES:] if isinstance(notes, list) else []


def _recall(out: Path, inputs: str, archive: Path | None) -> tuple[Said | None, dict[str, int]]:
    """What the last build said, when its inputs digest is ``inputs`` and no folder of
    OUT or of the ``archive`` changed since, else None; and OUT's folder times it
    recorded. The archive is listed last, only when all else is the same: a build
    with a change does not pay for it."""
    data = read_regular(Path(out) / RECORD, _MAX_RECORD)
    if not data:
        return None, {}
    try:
        doc = orjson.loads(data)
        if doc.get("format") != _FORMAT or "times" not in doc:
            return None, {}
        left = {folder: mtime for folder, mtime in doc["times"]
                if isinstance(folder, str) and isinstance(mtime, int)}
        if doc.get("inputs") != inputs or not _same_times(out, doc["times"]) \
                or not _archive_as_left(archive, doc.get("archive")):
            return None, left
        return Said.from_json(doc["said"]), left
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return None, {}
