"""bough's archive: a private copy of every transcript a build reads.

Claude Code deletes transcripts older than ``cleanupPeriodDays`` (30 by default)
each time it starts. Every build copies what it reads into the archive, and reads
the archive back for what the agents have deleted, so the history outlives them.

Layout, under the archive directory (mode 0700, files 0600)::

    .bough-archive                    marker: the directory is ours
    .bough-lock                       flock: one build at a time changes the archive
    claude/<label>.gz                 the bytes of one source file, gzip-compressed
    claude/<label>.gz.json            its record (an Entry): size, mtime, sha256, dates
    codex/<label>.gz, .gz.json        the same for Codex rollouts
    .bough-restore-<random>/          a build's private, decompressed copies (removed after)

``<label>`` is the file's path relative to its source root, exactly as discovery
labels it (``-home-ada-app/<sessionId>.jsonl``, ``sessions/2026/03/09/rollout-….jsonl``).
The identity of an archived file is its kind and label; for Claude the label ends
in the session id. A source that grew replaces its copy (gzip to a temporary file,
fsync, rename); a source shorter than its copy never does: transcripts only grow,
so the longer copy is read and the build warns.

A file the build needs from the archive is decompressed into a private directory
beside the copies, under its own label, and read from there like any other file.
The readers see the same file names and labels as before, so the session gets
the same page, sidecar and STATS; decompression streams with a size cap (the
size recorded when the copy was made) and checks the sha256, so a damaged copy
is skipped with a warning instead of read.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import math
import os
import shutil
import stat
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .config import (
    BuildConfig,
    claude_project_roots,
    claude_settings_files,
    codex_home,
    codex_session_roots,
)
from .errors import BoughError
from .model import Session, Warning
from .readers.claude import ClaudeSource
from .readers.lines import MAX_LINE_BYTES, open_regular, parse_line, printable_name
from .write import create_temp, json_bytes, replace_file

if TYPE_CHECKING:
    from .discover import Discovered

WarnFn = Callable[[Warning], None]

MARKER = ".bough-archive"
LOCK = ".bough-lock"
KINDS = ("claude", "codex")
ENTRY_SCHEMA = "bough.archive-entry/1"
DATA_SUFFIX = ".gz"
RECORD_SUFFIX = ".gz.json"
_TMP_PREFIX = ".bough-tmp-"
_RESTORE_PREFIX = ".bough-restore-"
_CHUNK = 1 << 20
_LEVEL = 6  # gzip level: most of level 9's size at a fraction of its time
_LOCK_TIMEOUT = 300.0
_MAX_RECORD = 1 << 20
_MAX_ORIGINS = 8
_DEFAULT_CLEANUP_DAYS = 30


class ArchiveError(BoughError):
    """The archive directory cannot be used."""


class Damaged(Exception):
    """An archived copy that does not decompress to the bytes its record names."""


@dataclass(frozen=True)
class Entry:
    """The record of one archived file."""

    kind: str  # "claude" | "codex"
    label: str
    role: str  # "session" | "subagent" | "meta" (Claude); "rollout" (Codex)
    size: int  # bytes of the source copied
    mtime_ns: int  # the source's mtime when copied
    sha256: str  # of those bytes
    archived: str  # when bough first kept this file (ISO, UTC): "kept by bough since"
    updated: str  # when the copy was last replaced
    origins: tuple[str, ...] = ()  # absolute paths it was copied from, newest last
    session: str | None = None  # sub-agents and meta files: the label of their session's file
    subagents: tuple[str, ...] = ()  # Claude sessions: their sub-agents' labels, in reading order
    orphan: bool = False  # an old-layout sub-agent read as a session of its own

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.label)

    def is_session(self) -> bool:
        return self.role in ("session", "rollout")

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["origins"] = list(self.origins)
        data["subagents"] = list(self.subagents)
        return {"schema": ENTRY_SCHEMA, **data}

    @classmethod
    def from_json(cls, data: Any) -> Entry:
        """An Entry from a parsed record; ValueError when it is not a valid one."""
        if not isinstance(data, dict) or data.get("schema") != ENTRY_SCHEMA:
            raise ValueError("not a bough archive record")
        strings = ("kind", "label", "role", "sha256", "archived", "updated")
        if not all(isinstance(data.get(name), str) for name in strings):
            raise ValueError("a field is missing")
        for name in ("size", "mtime_ns"):
            value = data.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} is not a count")
        origins, subagents = data.get("origins", []), data.get("subagents", [])
        if not all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in (origins, subagents)):
            raise ValueError("origins or subagents is not a list of strings")
        session = data.get("session")
        if session is not None and not isinstance(session, str):
            raise ValueError("session is not a string")
        if data["kind"] not in KINDS or label_problem(data["label"]):
            raise ValueError("kind or label is not one bough writes")
        return cls(
            kind=data["kind"], label=data["label"], role=data["role"], size=data["size"],
            mtime_ns=data["mtime_ns"], sha256=data["sha256"], archived=data["archived"],
            updated=data["updated"], origins=tuple(origins), session=session,
            subagents=tuple(subagents), orphan=data.get("orphan") is True,
        )


def label_problem(label: str) -> str | None:
    """Why ``label`` cannot name a file in the archive, or None when it can."""
    if not label or "\x00" in label or label.startswith("/"):
        return "it is empty, absolute or holds a NUL"
    parts = label.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "it has an empty, '.' or '..' component"
    if any(part.startswith(".bough-") for part in parts):
        return "names starting '.bough-' are the archive's own"
    return None


# --------------------------------------------------------------------------- the store


class Archive:
    """One archive directory. Open it with :meth:`open`; change it only inside :meth:`locked`."""

    def __init__(self, root: Path):
        self.root = root

    @classmethod
    def open(cls, root: Path, *, create: bool = True) -> Archive:
        """The archive at ``root``, created (mode 0700) when missing and ``create``.

        Refuses a directory that is not empty and holds no archive marker: a
        mistyped ``--archive ~`` must not fill someone's home with copies."""
        given = Path(root).expanduser()
        if os.path.exists(given) and not os.path.isdir(given):
            raise ArchiveError(f"the archive path {given} is not a directory")
        try:
            if create:
                given.mkdir(parents=True, exist_ok=True, mode=0o700)
            real = given.resolve(strict=True)
            info = os.stat(real)
        except FileNotFoundError:
            raise ArchiveError(f"there is no archive at {given}") from None
        except (OSError, RuntimeError) as err:
            raise ArchiveError(f"cannot use the archive directory {given}: {err}") from err
        archive = cls(real)
        if not os.path.lexists(real / MARKER):
            if not create:
                raise ArchiveError(f"{given} is not a bough archive (it has no {MARKER} file)")
            # A lock file means another build is making the archive right now: wait for it.
            if LOCK not in os.listdir(real):
                archive._check_empty(given)
            with archive.locked(exclusive=True):
                if not os.path.lexists(real / MARKER):
                    archive._check_empty(given)
                    marker = b"bough archive: copies of Claude Code and Codex transcripts\n"
                    replace_file(real, MARKER, marker, durable=True, mode=0o600)
        if create and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(real, 0o700)  # it holds raw transcripts: nobody else reads them
        return archive

    def _check_empty(self, given: Path) -> None:
        if set(os.listdir(self.root)) - {LOCK}:
            raise ArchiveError(
                f"the archive directory {given} is not empty and is not a bough archive "
                f"(it has no {MARKER} file); choose an empty or new directory"
            )

    # ---------------------------------------------------------------- locking

    @contextlib.contextmanager
    def locked(self, *, exclusive: bool, timeout: float = _LOCK_TIMEOUT) -> Iterator[None]:
        """Hold the archive's flock: exclusive to change it, shared to read it."""
        try:
            fd = os.open(self.root / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as err:
            raise ArchiveError(f"cannot open the archive lock {self.root / LOCK}: {err}") from err
        try:
            _flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, timeout, self.root)
            yield
        finally:
            os.close(fd)

    # ---------------------------------------------------------------- reading records

    def entries(self, *, clean: bool = False) -> tuple[dict[tuple[str, str], Entry], list[str]]:
        """Every record, by (kind, label), and the problems met reading them.

        ``clean`` (only under the exclusive lock) also removes temporary files a
        crashed build left behind."""
        found: dict[tuple[str, str], Entry] = {}
        problems: list[str] = []
        for kind in KINDS:
            for relpath in _walk(self.root / kind, clean=clean):
                if not relpath.endswith(RECORD_SUFFIX):
                    continue
                label = relpath[: -len(RECORD_SUFFIX)]
                try:
                    entry = Entry.from_json(orjson.loads(self._read_small(kind, relpath)))
                    if entry.kind != kind or entry.label != label:
                        raise ValueError(f"it names {entry.kind}/{entry.label}")
                except (OSError, ValueError) as err:
                    problems.append(f"{kind}/{relpath}: unreadable record ({err})")
                    continue
                found[entry.key] = entry
        if clean:
            self._remove_stale_restores()
        return found, problems

    def _read_small(self, kind: str, relpath: str) -> bytes:
        fd = os.open(self.root / kind / relpath, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ValueError("not a regular file")
            data = handle.read(_MAX_RECORD + 1)
        if len(data) > _MAX_RECORD:
            raise ValueError("too large")
        return data

    def data_path(self, entry: Entry) -> Path:
        return self.root / entry.kind / (entry.label + DATA_SUFFIX)

    # ---------------------------------------------------------------- writing

    def store(self, source: Path, old: Entry | None, entry: Entry) -> Entry | None:
        """Copy ``source`` into the archive as ``entry`` (size, mtime and sha256
        filled in here) and return the new entry; None when the source is shorter
        than ``old``, whose copy is then left as it is."""
        handle = open_regular(source, str(source), lambda warning: None)
        if handle is None:
            raise OSError(f"cannot open {source} as a regular file")
        folder = self._folder(entry.kind, entry.label)
        name = entry.label.rsplit("/", 1)[-1]
        with handle:
            info = os.fstat(handle.fileno())
            if old is not None and info.st_size < old.size:
                return None
            fd, tmp = create_temp(folder, 0o600)
            try:
                with open(fd, "wb") as out:
                    size, sha = _pack(handle, info.st_size, out)
                same = old is not None and (old.size, old.sha256) == (size, sha) and _is_regular(self.data_path(old))
                if same or (old is not None and size < old.size):
                    os.unlink(tmp)  # the same bytes, or the file was cut while we read it
                    if not same:
                        return None
                else:
                    os.replace(tmp, folder / (name + DATA_SUFFIX))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        new = replace(entry, size=size, mtime_ns=info.st_mtime_ns, sha256=sha,
                      updated=old.updated if same and old is not None else entry.updated)
        self.write_record(new)
        return new

    def write_record(self, entry: Entry) -> None:
        # Not fsynced: a record lost in a crash is made again from the live file (the
        # copy it describes was fsynced before it was renamed into place).
        folder = self._folder(entry.kind, entry.label)
        name = entry.label.rsplit("/", 1)[-1] + RECORD_SUFFIX
        replace_file(folder, name, json_bytes(entry.to_json()), mode=0o600)

    def _folder(self, kind: str, label: str) -> Path:
        """The real directory that holds ``label``'s files, made when missing; symlinks are refused."""
        problem = label_problem(label)
        if problem:
            raise OSError(f"cannot archive {label!r}: {problem}")
        current = self.root
        for name in [kind, *label.split("/")[:-1]]:
            current = current / name
            with contextlib.suppress(FileExistsError):
                os.mkdir(current, 0o700)
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                raise OSError(f"{current} is not a directory (a symlink?); the archive never follows links")
        return current

    # ---------------------------------------------------------------- reading copies

    def open_copy(self, entry: Entry) -> Iterator[bytes]:
        """The archived bytes of ``entry`` in chunks, checked against its size
        (also a cap on decompression) and sha256; raises Damaged."""
        try:
            fd = os.open(self.data_path(entry), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except FileNotFoundError:
            raise Damaged("the compressed copy is missing") from None
        except OSError as err:
            raise Damaged(f"cannot open the compressed copy: {err.strerror or err}") from None
        digest = hashlib.sha256()
        size = 0
        with os.fdopen(fd, "rb") as raw:
            if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
                raise Damaged("the compressed copy is not a regular file")
            try:
                with gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
                    while True:
                        chunk = unpacked.read(min(_CHUNK, entry.size + 1 - size))
                        if not chunk:
                            break
                        size += len(chunk)
                        if size > entry.size:
                            raise Damaged(f"it holds more than the {entry.size} bytes recorded")
                        digest.update(chunk)
                        yield chunk
            except (OSError, EOFError, zlib.error) as err:  # gzip.BadGzipFile is an OSError
                raise Damaged(f"it does not decompress: {err}") from None
        if size != entry.size:
            raise Damaged(f"it holds {size} bytes, not the {entry.size} recorded")
        if digest.hexdigest() != entry.sha256:
            raise Damaged("its bytes do not match the sha256 recorded")

    def restore(self, entry: Entry, folder: Path) -> Path:
        """Decompress ``entry`` to ``folder/<kind>/<label>`` with the source's mtime;
        raises Damaged (and leaves nothing) when the copy is not what was stored."""
        target = folder / entry.kind / entry.label
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            with open(fd, "wb") as out:
                out.writelines(self.open_copy(entry))
            os.utime(target, ns=(entry.mtime_ns, entry.mtime_ns))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(target)
            raise
        return target

    def restore_dir(self) -> RestoreDir:
        return RestoreDir(self.root)

    def _remove_stale_restores(self) -> None:
        """Private copies of builds that ended without removing them (a crash, a kill)."""
        for name in os.listdir(self.root):
            if name.startswith(_RESTORE_PREFIX):
                RestoreDir.remove_if_abandoned(self.root / name)

    # ---------------------------------------------------------------- reports

    def summary(self) -> Summary:
        with self.locked(exclusive=False):
            entries, problems = self.entries()
        report = Summary(root=self.root, problems=problems)
        for entry in entries.values():
            report.files += 1
            report.bytes += entry.size
            with contextlib.suppress(OSError):
                report.disk_bytes += os.lstat(self.data_path(entry)).st_blocks * 512
            if not entry.is_session():
                continue
            report.sessions += 1
            report.by_kind[entry.kind] = report.by_kind.get(entry.kind, 0) + 1
            if not any(os.path.lexists(origin) for origin in entry.origins):
                report.gone += 1
            if report.oldest is None or entry.mtime_ns < report.oldest[0]:
                report.oldest = (entry.mtime_ns, entry.label)
            if report.newest is None or entry.mtime_ns > report.newest[0]:
                report.newest = (entry.mtime_ns, entry.label)
            report.kept_since = min(report.kept_since or entry.archived, entry.archived)
        return report

    def verify(self) -> tuple[int, list[str]]:
        """Check that every archived file decompresses to the bytes its record names
        and parses (a JSONL transcript gives at least one JSON object, a meta file
        is JSON). Returns how many files were checked and the problems found."""
        with self.locked(exclusive=False):
            entries, problems = self.entries()
            for entry in sorted(entries.values(), key=lambda e: e.key):
                where = f"{entry.kind}/{entry.label}{DATA_SUFFIX}"
                try:
                    reason = _parse_problem(entry, self.open_copy(entry))
                except Damaged as err:
                    reason = str(err)
                if reason:
                    problems.append(f"{where}: {reason}")
            problems.extend(self._copies_without_record(entries))
        return len(entries), problems

    def _copies_without_record(self, entries: dict[tuple[str, str], Entry]) -> list[str]:
        problems = []
        for kind in KINDS:
            for relpath in _walk(self.root / kind, clean=False):
                if relpath.endswith(DATA_SUFFIX) and (kind, relpath[: -len(DATA_SUFFIX)]) not in entries:
                    problems.append(f"{kind}/{relpath}: a compressed copy without a record")
        return problems


@dataclass
class Summary:
    root: Path
    files: int = 0
    sessions: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    bytes: int = 0  # of the transcripts, uncompressed
    disk_bytes: int = 0  # the compressed copies on disk
    gone: int = 0  # sessions none of whose source paths exist any more
    oldest: tuple[int, str] | None = None  # (mtime_ns, label) of the least recently active session
    newest: tuple[int, str] | None = None
    kept_since: str | None = None
    problems: list[str] = field(default_factory=list)


def _parse_problem(entry: Entry, chunks: Iterable[bytes]) -> str:
    if entry.label.endswith(".meta.json"):
        data = b"".join(chunks)
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError as err:
            return f"not valid JSON ({err})"
        return ""
    parsed = False
    rest = b""
    for chunk in chunks:  # read to the end even once a line parsed: the sha256 covers every byte
        if parsed:
            continue
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        parsed = any(line.strip() and parse_line(line)[0] is not None for line in lines)
        if len(rest) > MAX_LINE_BYTES:
            rest = b""  # a line the reader would skip too
    if not parsed and rest.strip():
        parsed = parse_line(rest)[0] is not None
    return "" if parsed or entry.size == 0 else "no line of it parses as a JSON object"


class RestoreDir:
    """A build's private directory of decompressed copies, removed by :meth:`close`.

    It holds an flock on a file inside for as long as it lives, so another build
    can tell an abandoned one (no lock held) from one in use."""

    _LOCK = ".lock"

    def __init__(self, root: Path):
        self.path = Path(tempfile.mkdtemp(prefix=_RESTORE_PREFIX, dir=root))  # mode 0700
        self._fd: int | None = os.open(self.path / self._LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def close(self) -> None:
        if self._fd is None:
            return
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._fd)
        self._fd = None

    @classmethod
    def remove_if_abandoned(cls, path: Path) -> None:
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return
            fd = os.open(path / cls._LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            fd = None
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # a running build holds it
        finally:
            if fd is not None:
                os.close(fd)
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------- the build's part


@dataclass
class Kept:
    """What a build took from the archive."""

    restore: RestoreDir | None = None
    since: dict[str, str] = field(default_factory=dict)  # main file label -> kept since (ISO)

    def close(self) -> None:
        if self.restore is not None:
            self.restore.close()
            self.restore = None

    def mark(self, sessions: Iterable[Session]) -> None:
        """Set ``kept_since`` on the sessions whose main file only the archive still has."""
        for session in sessions:
            if session.files and session.files[0] in self.since:
                session.kept_since = self.since[session.files[0]]


def keep_history(found: Discovered, config: BuildConfig, warn: WarnFn) -> Kept:
    """Copy every live file ``found`` lists into the archive, then add to ``found``
    what only the archive still has (and the archived copy of any file that got
    shorter). The caller closes the result once every file is read."""
    kept = Kept()
    if config.archive is None:
        return kept
    scope = scope_roots(config)
    check_place(config.archive, config.out, scope + agent_homes())
    archive = Archive.open(config.archive)
    with archive.locked(exclusive=True):
        entries, problems = archive.entries(clean=True)
        for problem in problems:
            warn(Warning(str(archive.root), 0, f"archive: {problem}"))
        shorter = _sync(archive, found, entries, warn, utc_now())
        try:
            _Merge(archive, kept, found, entries, warn).run(shorter, scope, config)
        except BaseException:
            kept.close()
            raise
    return kept


def scope_roots(config: BuildConfig) -> list[Path]:
    """The places a build reads: archived files from elsewhere stay out of its site."""
    if config.sources:
        return [Path(os.path.abspath(source)) for source in config.sources]
    roots: list[Path] = []
    if config.wants("claude"):
        roots += claude_project_roots()
    if config.wants("codex"):
        roots += codex_session_roots()
    return [Path(os.path.abspath(root)) for root in roots]


def agent_homes() -> list[Path]:
    """The agents' own directories: the archive is never put inside them."""
    return [root.parent for root in claude_project_roots()] + [codex_home()]


def check_place(archive: Path, out: Path | None, inputs: list[Path]) -> None:
    """Refuse an archive inside OUT (it would be published) or OUT inside it, and an
    archive inside an input or the agents' homes (or one of those inside it)."""
    real = _resolve(Path(archive).expanduser())
    if out is not None:
        real_out = _resolve(Path(out))
        if real.is_relative_to(real_out):
            raise ArchiveError(
                f"the archive {archive} is inside the output directory {out}; the archive holds raw "
                "transcripts and is never published: choose an archive directory outside OUT"
            )
        if real_out.is_relative_to(real):
            raise ArchiveError(
                f"the output directory {out} is inside the archive {archive}; "
                "choose an output directory outside the archive"
            )
    for given in inputs:
        real_in = _resolve(given)
        if real.is_relative_to(real_in):
            raise ArchiveError(
                f"the archive {archive} is inside {given}, which bough reads and never writes to; "
                "choose an archive directory elsewhere"
            )
        if real_in.is_relative_to(real):
            raise ArchiveError(f"{given} is inside the archive {archive}; choose an archive directory elsewhere")


def _sync(
    archive: Archive, found: Discovered, entries: dict[tuple[str, str], Entry], warn: WarnFn, now: str
) -> set[tuple[str, str]]:
    """Copy each file the build found into the archive (updating ``entries``);
    returns the keys whose live file is shorter than its copy."""
    shorter: set[tuple[str, str]] = set()

    def store(kind: str, path: Path, label: str, **facts: Any) -> None:
        key = (kind, label)
        old = entries.get(key)
        try:
            info = os.stat(path)
            if not stat.S_ISREG(info.st_mode):
                return
            new = None
            if old is None or info.st_size >= old.size:
                new = _with_facts(old or _blank(kind, label, now), os.path.abspath(path), facts)
                unchanged = old is not None and (info.st_size, info.st_mtime_ns) == (old.size, old.mtime_ns)
                if unchanged and _is_regular(archive.data_path(old)):
                    if new != old:
                        archive.write_record(new)
                else:
                    new = archive.store(path, old, replace(new, updated=now))
        except OSError as err:
            warn(Warning(label, 0, f"not copied into the archive {archive.root}: {err.strerror or err}"))
            return
        if new is None:
            shorter.add(key)
            warn(Warning(label, 0, f"shorter than bough's archived copy ({old.size:,} bytes); transcripts "
                                   "only grow, so this build reads the archived copy"))
        else:
            entries[key] = new

    for source in found.claude:
        main = found.label(source.main)
        labels = [found.label(path) for path in source.subagents]
        store("claude", source.main, main, role="session", subagents=labels, orphan=_is_orphan_agent(source))
        for path, label in zip(source.subagents, labels):
            store("claude", path, label, role="subagent", session=main)
            meta = _meta_path(path)
            if _is_regular(meta):
                store("claude", meta, _meta_label(label), role="meta", session=main)
    for path in found.codex:
        if not path.name.endswith(".zst"):  # not read either: the reader skips compressed rollouts
            store("codex", path, found.label(path), role="rollout")
    return shorter


def _blank(kind: str, label: str, now: str) -> Entry:
    return Entry(kind=kind, label=label, role="", size=0, mtime_ns=0, sha256="", archived=now, updated=now)


def _with_facts(entry: Entry, path: str, facts: dict[str, Any]) -> Entry:
    """``entry`` with what this build saw: where the file is, its role, and (for a
    session) its sub-agents, as the union with those it had before."""
    origin = printable_name(path)
    origins = tuple(o for o in entry.origins if o != origin)[-(_MAX_ORIGINS - 1):] + (origin,)
    if "subagents" in facts:
        facts = {**facts, "subagents": tuple(sorted({*entry.subagents, *facts["subagents"]}, key=subagent_order))}
    return replace(entry, origins=origins, **facts)


def _is_orphan_agent(source: ClaudeSource) -> bool:
    """An old-layout sub-agent file that discovery made a session of its own."""
    from .discover import _peek_field

    name = source.main.name
    return not source.subagents and name.startswith("agent-") and _peek_field(source.main, "isSidechain") is True


def subagent_order(label: str) -> tuple[Any, ...]:
    """The order discovery lists a session's sub-agents in: ``<id>/subagents/`` files
    by name, then ``subagents/workflows/*/``, then old-layout files beside the session."""
    parts = label.split("/")
    if len(parts) >= 2 and parts[-2] == "subagents":
        return (0, (parts[-1],))
    if len(parts) >= 4 and parts[-4] == "subagents" and parts[-3] == "workflows":
        return (1, (parts[-2], parts[-1]))
    return (2, (parts[-1],))


def _meta_path(path: Path) -> Path:
    return path.with_name(path.stem + ".meta.json")


def _meta_label(label: str) -> str:
    return label.removesuffix(".jsonl") + ".meta.json"


class _Merge:
    """Adds to a Discovered what only the archive still has."""

    def __init__(self, archive: Archive, kept: Kept, found: Discovered,
                 entries: dict[tuple[str, str], Entry], warn: WarnFn):
        self.archive, self.kept, self.found, self.entries, self.warn = archive, kept, found, entries, warn
        self._done: dict[tuple[str, str], Path | None] = {}

    def run(self, shorter: set[tuple[str, str]], scope: list[Path], config: BuildConfig) -> None:
        for kind, label in sorted(shorter):
            self._replace_shorter(kind, label)
        wanted = sorted(
            (e for e in self.entries.values() if e.is_session() and config.wants(e.kind) and _in_scope(e, scope)),
            key=lambda e: e.label,
        )
        self._claude([e for e in wanted if e.kind == "claude"])
        self._codex([e for e in wanted if e.kind == "codex"])

    def _restored(self, kind: str, label: str) -> Path | None:
        """The archived copy of ``label`` decompressed for this build; None (with a
        warning when the copy is damaged) when there is none to read."""
        entry = self.entries.get((kind, label))
        if entry is None:
            return None
        if entry.key not in self._done:
            self._done[entry.key] = self._restore(entry)
        return self._done[entry.key]

    def _restore(self, entry: Entry) -> Path | None:
        if self.kept.restore is None:
            self.kept.restore = self.archive.restore_dir()
        folder = self.kept.restore.path
        try:
            path = self.archive.restore(entry, folder)
        except Damaged as err:
            self.warn(Warning(entry.label, 0, f"bough's archived copy is damaged ({err}), skipped; "
                                              "`bough archive --verify` lists every damaged copy"))
            return None
        except OSError as err:
            self.warn(Warning(entry.label, 0, f"bough's archived copy could not be decompressed "
                                              f"into {folder}: {err.strerror or err}"))
            return None
        self.found.labels[path] = entry.label
        meta = self.entries.get((entry.kind, _meta_label(entry.label)))
        if meta is not None and entry.label.endswith(".jsonl"):
            with contextlib.suppress(Damaged, OSError):  # a sub-agent is read without its meta file too
                self.archive.restore(meta, folder)
        return path

    def _replace_shorter(self, kind: str, label: str) -> None:
        """A live file shorter than its copy: the build reads the copy instead."""
        found = self.found
        lists = [found.codex] if kind == "codex" else [s.subagents for s in found.claude]
        for paths in lists:
            for i, path in enumerate(paths):
                if found.label(path) == label and (copy := self._restored(kind, label)) is not None:
                    paths[i] = copy
        if kind == "claude":
            for source in found.claude:
                if found.label(source.main) == label and (copy := self._restored(kind, label)) is not None:
                    source.main = copy

    def _claude(self, wanted: list[Entry]) -> None:
        from .discover import ORPHAN_AGENT

        found = self.found
        mains = {found.label(source.main): source for source in found.claude}
        attached = {found.label(path) for source in found.claude for path in source.subagents}
        for entry in wanted:
            if entry.label in attached:
                continue  # an old-layout sub-agent once read alone, now under its session
            source = mains.get(entry.label)
            if source is not None:
                self._add_gone_subagents(source, entry, mains, attached)
                continue
            main = self._restored("claude", entry.label)
            if main is None:
                continue
            parts: list[Path] = []
            for label in entry.subagents:
                alone = mains.get(label)
                if alone is not None and not alone.subagents and alone in found.claude:
                    found.claude.remove(alone)  # its session is back: it is a sub-agent again
                    parts.append(alone.main)
                elif (path := self._restored("claude", label)) is not None:
                    parts.append(path)
            found.claude.append(ClaudeSource(main, parts))
            self.kept.since[entry.label] = entry.archived
            if entry.orphan:
                self.warn(Warning(entry.label, 0, ORPHAN_AGENT))

    def _add_gone_subagents(self, source: ClaudeSource, entry: Entry, mains: dict[str, ClaudeSource],
                            attached: set[str]) -> None:
        gone = [label for label in entry.subagents if label not in attached and label not in mains]
        added = [(label, path) for label in gone if (path := self._restored("claude", label)) is not None]
        if added:
            pairs = [(self.found.label(path), path) for path in source.subagents] + added
            source.subagents = [path for _, path in sorted(pairs, key=lambda pair: subagent_order(pair[0]))]

    def _codex(self, wanted: list[Entry]) -> None:
        found = self.found
        labels = {found.label(path) for path in found.codex}
        names = {path.name for path in found.codex}
        # Codex moves a rollout from sessions/ to archived_sessions/ by rename (never
        # back): copies under both labels are one thread, read once, from the longer
        # copy, else from where it went last.
        best: dict[str, Entry] = {}
        for entry in wanted:
            name = entry.label.rsplit("/", 1)[-1]
            if entry.label in labels or name in names:
                continue
            if name not in best or _codex_rank(entry) > _codex_rank(best[name]):
                best[name] = entry
        for entry in sorted(best.values(), key=lambda e: e.label):
            path = self._restored("codex", entry.label)
            if path is not None:
                found.codex.append(path)
                self.kept.since[entry.label] = entry.archived


def _codex_rank(entry: Entry) -> tuple[int, bool, str, str]:
    return (entry.size, entry.label.startswith("archived_sessions/"), entry.archived, entry.label)


def _in_scope(entry: Entry, scope: list[Path]) -> bool:
    for origin in entry.origins:
        where = Path(origin)
        if any(where == root or where.is_relative_to(root) for root in scope):
            return True
    return False


# --------------------------------------------------------------------------- Claude's cleanup setting


def cleanup_notice(found: Discovered, config: BuildConfig) -> str | None:
    """One plain sentence when Claude Code will delete the transcripts this site
    shows: its settings have no ``cleanupPeriodDays`` or one of 30 days or less.
    Only read, never written: bough does not touch the agent's settings."""
    if not found.claude or found.used_examples:
        return None
    days, why = claude_cleanup_days()
    if days > _DEFAULT_CLEANUP_DAYS:
        return None
    when = "every time it starts" if days == 0 else f"after {days:g} days"
    deletes = f"Claude Code deletes transcripts {when} ({why})"
    if config.archive is None:
        return f"{deletes}, and the archive is off (--no-archive): sessions it deletes will drop off this site."
    return f"{deletes}; bough's archive in {config.archive} keeps a copy of every session it reads, so they stay."


def claude_cleanup_days() -> tuple[float, str]:
    """The shortest retention among Claude Code's settings files, and why."""
    shortest: tuple[float, str] | None = None
    for path in claude_settings_files():
        days, why = _cleanup_setting(path)
        if shortest is None or days < shortest[0]:
            shortest = (days, why)
    return shortest or (float(_DEFAULT_CLEANUP_DAYS), "its default")


def _cleanup_setting(path: Path) -> tuple[float, str]:
    """``cleanupPeriodDays`` from one settings file, read defensively: where the
    file, the key or a usable number is missing, Claude Code's default applies."""
    default = float(_DEFAULT_CLEANUP_DAYS)
    if not os.path.lexists(path):
        return default, f"its default: there is no {path}"
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return default, f"its default: {path} cannot be read"
    with handle:
        data = handle.read(_MAX_RECORD + 1)
    try:
        settings = orjson.loads(data) if len(data) <= _MAX_RECORD else None
    except orjson.JSONDecodeError:
        settings = None
    if not isinstance(settings, dict):
        return default, f"its default: {path} is not a JSON object"
    value = settings.get("cleanupPeriodDays")
    if value is None:
        return default, f"its default: {path} sets no cleanupPeriodDays"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return default, f"its default: cleanupPeriodDays in {path} is not a number of days"
    return float(value), f"cleanupPeriodDays in {path}"


# --------------------------------------------------------------------------- small helpers


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _resolve(path: Path) -> Path:
    try:
        return Path(os.path.abspath(path)).resolve()
    except (OSError, RuntimeError) as err:
        raise ArchiveError(f"cannot resolve {path}: {err}") from err


def _walk(top: Path, *, clean: bool) -> Iterator[str]:
    """Relative paths of the regular files under ``top``; symlinks are neither
    followed nor listed. ``clean`` removes leftover temporary files."""
    if not stat.S_ISDIR(_lstat_mode(top)):
        return
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs.sort()
        base = Path(folder)
        for name in sorted(files):
            path = base / name
            if not stat.S_ISREG(_lstat_mode(path)):
                continue
            if name.startswith(_TMP_PREFIX):
                if clean:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                continue
            yield path.relative_to(top).as_posix()


def _lstat_mode(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _pack(source, limit: int, out) -> tuple[int, str]:
    """gzip up to ``limit`` bytes of ``source`` into ``out`` (fsynced); their size and sha256.
    Reading stops at ``limit``: a file still being appended to is copied as it was when opened."""
    digest = hashlib.sha256()
    left = limit
    # mtime=0 and no name in the header: the same bytes always give the same copy.
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=_LEVEL, mtime=0) as packed:
        while left > 0:
            chunk = source.read(min(_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
            digest.update(chunk)
            packed.write(chunk)
    out.flush()
    os.fsync(out.fileno())
    return limit - left, digest.hexdigest()


def _flock(fd: int, mode: int, timeout: float, root: Path) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ArchiveError(
                    f"another bough build is using the archive {root} (waited {timeout:g}s)"
                ) from None
            time.sleep(0.05)
