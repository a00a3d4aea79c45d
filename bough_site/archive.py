"""bough's archive, the store: a private copy of every transcript a build reads.

Claude Code deletes transcripts older than ``cleanupPeriodDays`` (30 by default)
each time it starts, and Gemini CLI sessions older than 30 days by default
(docs/formats-gemini.md §1), so every build copies what it reads into the archive
and reads the archive back for what the agents have deleted (archive_sync.py does
that for a build). This module is the store alone: its layout, copying a file in,
reading a copy back; a copy's record is archive_entry.py's, ``bough archive``'s report
and check archive_report.py's.

Layout, under the archive directory (mode 0700, files 0600)::

    .bough-archive                    marker: the directory is ours
    .bough-lock                       flock: one build at a time changes the archive
    .bough-index                      every record at once (compressed), read by each build
    claude/<label>.gz                 the bytes of one source file, gzip-compressed
    claude/<label>.gz.json            its record (an Entry): size, mtime, sha256, dates
    codex/<label>.gz, .gz.json        the same for Codex rollouts
    gemini/<label>.gz, .gz.json       Gemini CLI session files, and the roots written
                                      down beside them (projects.json, .project_root)
    .bough-restore-<random>/          a build's private, decompressed copies (removed after)

``<label>`` is the end of the file's path that its agent's layout gives it, exactly
as discovery labels it (``-home-ada-app/<sessionId>.jsonl``, ``sessions/2026/03/09/rollout-….jsonl``,
``tmp/<id>/chats/session-….jsonl`` under the Gemini directory): the same whichever
source the file was found under (discover.transcript_label).
The identity of an archived file is its kind and label; for Claude the label ends
in the session id. An archive from a bough whose labels depended on the source
typed (its index says ``bough.archive-index/2``) is looked over once, and a file
archived under two labels becomes one entry (archive_sync.relabel, :meth:`Archive.adopt`).
When the archive cannot be written (a read-only file system, or not by us), a
build copies nothing and reads what it holds (:class:`ReadOnly`). A source that grew replaces its copy (a temporary file,
fsync, rename): when the bytes copied before are still its first bytes, the
new copy is the old compressed bytes and one more gzip member for what was
added (gzip reads a file of several members as their concatenation), so a
session that grew by one turn compresses one turn. A source shorter than its
copy never replaces it: transcripts only grow, so the longer copy is read and
the build warns. Files Gemini CLI rewrites whole (a legacy ``.json`` session, which
a ``/rewind`` or ``/compress`` of its era shortens; ``projects.json``) are the
exception: a changed one replaces its copy whatever its size (:func:`rewritten_whole`).

Each copy's record is the durable truth; ``.bough-index`` holds them all, so a
build reads one file, not one record per archived file. A build that changes
anything removes the index first and writes it again last: after a crash in
between there is none, and the next build reads the records (and removes any
temporary file the crash left).

A file the build needs from the archive is decompressed into a private directory
beside the copies, under its own label, and read from there like any other file.
The readers see the same file names and labels as before, so the session gets
the same page, sidecar and STATS; decompression streams with a size cap (the
size recorded when the copy was made) and checks the sha256, so a damaged copy
is skipped with a warning instead of read.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import hashlib
import os
import shutil
import stat
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from . import gz
from .archive_entry import KINDS, RECORD_SUFFIX, Copied, Entry, _record_bytes, _record_name, label_problem, rewritten_whole
from .archive_report import SessionCount, Summary, _parse_problem
from .archive_paths import INDEX, LOCK, MARKER
from .archive_restore import RESTORE_PREFIX, RestoreDir
from .errors import BoughError
from .readers.lines import open_regular
from .regular import read_regular
from .replace import create_temp, replace_file, write_temp

DATA_SUFFIX = ".gz"
_TMP_PREFIX = ".bough-tmp-"
_CHUNK = 1 << 20
_FSYNC_EACH = 16  # up to this many copies: an fsync each; more: one syncfs (Archive.commit)
# The fastest level: a build copies every file that grew, so speed matters more than
# size here (what each level costs on transcripts: docs/performance.md).
_LEVEL = gz.FAST
INDEX_SCHEMA = "bough.archive-index/3"
# /2 is the same rows, written by a bough whose labels could depend on the source
# typed: its archive is looked over once for entries to join (archive_sync.relabel).
_OLD_INDEX_SCHEMA = "bough.archive-index/2"
_MAX_INDEX = 1 << 30
_LOCK_TIMEOUT = 300.0
MAX_RECORD = 1 << 20
# How much of a copy ``bough archive`` decompresses at most to tell its session and
# when it started: its first lines (a Codex rollout's identity line holds its
# instructions, tens of kilobytes).
HEAD_BYTES = 1 << 20
_HEAD_STEP = 64 << 10  # and read in steps of this much: the first lines of most transcripts


class ArchiveError(BoughError):
    """The archive directory cannot be used."""


class ReadOnly(ArchiveError):
    """The archive cannot be written (a read-only file system, no permission): a
    build archives nothing then, and reads what it holds (docs/safety.md S8). Its
    text is why, as the system says it."""


# What a file system says when it will not be written: read-only, or not by us.
_CANNOT_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


class Damaged(Exception):
    """An archived copy that does not decompress to the bytes its record names."""



# --------------------------------------------------------------------------- the store


class Archive:
    """One archive directory. Open it with :meth:`open`; change it only inside :meth:`locked`."""

    def __init__(self, root: Path):
        self.root = root
        self.indexed = False  # whether entries() found a whole index
        # whether every label is the one discovery gives its file now: the index says
        # so, or archive_sync.relabel made it so (the index written next says so then)
        self.labels_current = False

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
        except OSError as err:
            if err.errno in _CANNOT_WRITE:
                raise ReadOnly(err.strerror or str(err)) from err
            raise ArchiveError(f"cannot use the archive directory {given}: {err.strerror or err}") from err
        except RuntimeError as err:
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
                    marker = b"bough archive: copies of Claude Code, Codex and Gemini CLI transcripts\n"
                    replace_file(real, MARKER, marker, durable=True, mode=0o600)
        if create and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            with contextlib.suppress(OSError):  # a read-only archive: said when the build would write
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
        """Hold the archive's flock: exclusive to change it, shared to read it.
        Raises ReadOnly when it is to be changed and cannot be written; one that
        is only read is read unlocked when it has no lock file and can make none
        (nothing can change it then: nothing can write it)."""
        try:
            fd: int | None = os.open(self.root / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as err:
            if err.errno not in _CANNOT_WRITE:
                raise ArchiveError(f"cannot open the archive lock {self.root / LOCK}: {err}") from err
            if exclusive:
                raise ReadOnly(err.strerror or str(err)) from err
            fd = self._read_only_lock()
        try:
            if fd is not None:
                _flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, timeout, self.root)
            yield
        finally:
            if fd is not None:
                os.close(fd)

    def check_writable(self) -> None:
        """Raises ReadOnly when nothing can be made in the archive's directory (a
        read-only file system, or not by us; root included, whom no mode stops). A
        full disk is not that: each copy that fails says so, the build goes on."""
        try:
            fd, tmp = create_temp(self.root, 0o600)
        except OSError as err:
            if err.errno in _CANNOT_WRITE:
                raise ReadOnly(err.strerror or str(err)) from err
            return
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)

    def _read_only_lock(self) -> int | None:
        """The lock file opened for reading (flock needs no more), or None when there is none."""
        try:
            return os.open(self.root / LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise ArchiveError(f"cannot open the archive lock {self.root / LOCK}: {err}") from err

    # ---------------------------------------------------------------- reading records

    def entries(self, *, clean: bool = False) -> tuple[dict[tuple[str, str], Entry], list[str]]:
        """Every record, by (kind, label), and the problems met reading them: from
        the index when there is a whole one, else from the records themselves.

        ``clean`` (only under the exclusive lock) also removes temporary files a
        crashed build left behind (there is no index after such a crash)."""
        self.labels_current = False
        found = self._indexed()
        self.indexed = found is not None
        if found is not None:
            if clean:
                self._remove_stale_restores()
            return found, []
        found, problems = self.records(clean=clean)
        if clean:
            self._remove_stale_restores()
        return found, problems

    def records(self, *, clean: bool = False) -> tuple[dict[tuple[str, str], Entry], list[str]]:
        """Every record, read from its own file (the slow, sure way)."""
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
        return found, problems

    def _indexed(self) -> dict[tuple[str, str], Entry] | None:
        """The records as the index holds them; None when it is missing or not whole."""
        data = read_regular(self.root / INDEX, _MAX_INDEX)  # (compressed: larger would not inflate whole)
        if data is None:
            return None
        try:
            inflater = zlib.decompressobj()
            doc = orjson.loads(inflater.decompress(data, _MAX_INDEX))
            schema = doc.get("schema")
            if inflater.unconsumed_tail or not inflater.eof or schema not in (INDEX_SCHEMA, _OLD_INDEX_SCHEMA):
                return None
            entries = [Entry.from_row(row) for row in doc["rows"]]
        except (zlib.error, orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
            return None
        self.labels_current = schema == INDEX_SCHEMA
        return {entry.key: entry for entry in entries}

    def forget_index(self) -> None:
        """Before a build changes a copy or a record: the index no longer holds."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.root / INDEX)

    def save_index(self, entries: Iterable[Entry]) -> None:
        """Every record in one file, written after the copies and records it lists."""
        schema = INDEX_SCHEMA if self.labels_current else _OLD_INDEX_SCHEMA
        doc = {"schema": schema, "rows": [e.to_row() for e in sorted(entries, key=lambda e: e.key)]}
        replace_file(self.root, INDEX, zlib.compress(orjson.dumps(doc), 1), durable=True, mode=0o600)

    def _read_small(self, kind: str, relpath: str) -> bytes:
        fd = os.open(self.root / kind / relpath, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ValueError("not a regular file")
            data = handle.read(MAX_RECORD + 1)
        if len(data) > MAX_RECORD:
            raise ValueError("too large")
        return data

    def data_path(self, entry: Entry) -> Path:
        return self.root / entry.kind / (entry.label + DATA_SUFFIX)

    # ---------------------------------------------------------------- writing

    def copy(self, source: Path, old: Entry | None, entry: Entry) -> Copied | None:
        """Copy ``source``'s bytes into a temporary file beside its copy, as ``entry``
        (size, mtime and sha256 filled in here); :meth:`commit` puts it in place.
        None when the source is shorter than ``old``, whose copy is then left as it
        is. It may run in a worker process: the record is written to a temporary
        file too, so that the worker pool, not the build's own process, creates
        both files (creating a file is most of what writing a small one costs)."""
        handle = open_regular(source, str(source), lambda warning: None)
        if handle is None:
            raise OSError(f"cannot open {source} as a regular file")
        folder = self._folder(entry.kind, entry.label)
        with handle:
            info = os.fstat(handle.fileno())
            if old is not None and info.st_size < old.size and not rewritten_whole(entry.kind, entry.label):
                return None
            base = old if old is not None and old.size and is_regular(self.data_path(old)) else None
            digest = _same_start(handle, base)
            if digest is None:  # not a copy to add to: copy it whole
                base, digest = None, hashlib.sha256()
            fd, tmp = create_temp(folder, 0o600)
            try:
                with open(fd, "wb") as out:
                    if base is not None:
                        with open(self.data_path(base), "rb") as before:
                            shutil.copyfileobj(before, out)
                    added = _pack(handle, info.st_size - (base.size if base else 0), out, digest)
                size, sha = (base.size if base else 0) + added, digest.hexdigest()
                same = old is not None and (old.size, old.sha256) == (size, sha) and is_regular(self.data_path(old))
                cut = old is not None and size < old.size and not rewritten_whole(entry.kind, entry.label)
                if same or cut:
                    os.unlink(tmp)  # the same bytes, or the file was cut while we read it
                    if not same:
                        return None
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        new = replace(entry, size=size, mtime_ns=info.st_mtime_ns, sha256=sha,
                      updated=old.updated if same and old is not None else entry.updated)
        if same:
            return Copied(new, None)
        try:
            record_tmp = write_temp(folder, _record_bytes(new), mode=0o600)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return Copied(new, str(tmp), str(record_tmp))

    def commit(self, copies: list[Copied]) -> None:
        """Put copies in place: their bytes made durable first, then each temporary
        file renamed over the copy it replaces. A few copies (a session grew) are
        fsynced one by one; many (a first build) at once, by one sync of the
        archive's file system, which would otherwise also wait for every page a
        build before this one left unwritten (docs/performance.md says what that cost)."""
        pending = [copy for copy in copies if copy.temp is not None]
        if not pending:
            return
        if len(pending) <= _FSYNC_EACH:
            for copy in pending:
                _fsync(copy.temp)  # type: ignore[arg-type]
        else:
            _sync_file_system(self.root)
        for copy in pending:
            os.replace(copy.temp, self.data_path(copy.entry))  # type: ignore[arg-type]
            if copy.record_temp is not None:  # after its copy: a record never describes bytes not in place
                os.replace(copy.record_temp, Path(copy.record_temp).with_name(_record_name(copy.entry)))

    def discard(self, copies: list[Copied]) -> None:
        for copy in copies:
            for temp in (copy.temp, copy.record_temp):
                if temp is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(temp)

    def write_record(self, entry: Entry, *, durable: bool = False) -> None:
        # Not fsynced unless asked: a record lost in a crash is made again from the live
        # file (the copy it describes was fsynced before it was renamed into place).
        folder = self._folder(entry.kind, entry.label)
        replace_file(folder, _record_name(entry), _record_bytes(entry), durable=durable, mode=0o600)
        if durable:
            _fsync(str(folder))

    def adopt(self, source: Entry, entry: Entry) -> None:
        """Keep ``source``'s copy as ``entry``, the same file under the label it has
        now (archive_sync: one transcript, one entry): its bytes copied under
        ``entry``'s name and made durable, then ``entry``'s record. ``source``'s own
        files stay until :meth:`remove`: after a crash in between, both are there."""
        self._folder(source.kind, source.label, create=False)  # no link on the way there either
        folder = self._folder(entry.kind, entry.label)
        fd, tmp = create_temp(folder, 0o600)
        try:
            with open(fd, "wb") as out:
                src = os.open(self.data_path(source), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
                with os.fdopen(src, "rb") as raw:
                    if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
                        raise OSError(f"{self.data_path(source)} is not a regular file")
                    shutil.copyfileobj(raw, out, _CHUNK)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.data_path(entry))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        self.write_record(entry, durable=True)

    def remove(self, entry: Entry) -> None:
        """Take ``entry`` out of the archive: its record first (a record never names a
        copy that is not there), then its copy, then the folders that left empty."""
        folder = self._folder(entry.kind, entry.label, create=False)
        for path in (folder / _record_name(entry), self.data_path(entry)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        top = self.root / entry.kind
        while folder != top:
            try:
                os.rmdir(folder)
            except OSError:
                break  # not empty (or not ours to remove): the folders above are not either
            folder = folder.parent

    def _folder(self, kind: str, label: str, *, create: bool = True) -> Path:
        """The real directory that holds ``label``'s files, made when missing (with
        ``create``); symlinks are refused."""
        problem = label_problem(label)
        if problem:
            raise OSError(f"cannot archive {label!r}: {problem}")
        current = self.root
        for name in [kind, *label.split("/")[:-1]]:
            current = current / name
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(current, 0o700)
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                raise OSError(f"{current} is not a directory (a symlink?); the archive never follows links")
        return current

    # ---------------------------------------------------------------- reading copies

    def open_copy(self, entry: Entry) -> Iterator[bytes]:
        """The archived bytes of ``entry`` in chunks, checked against its size
        (also a cap on decompression) and sha256; raises Damaged."""
        digest = hashlib.sha256()
        size = 0
        with self._open_data(entry) as raw:
            try:
                # The standard library's reader: it reads copies written by either deflater.
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

    def restore_dir(self, *, writable: bool = True) -> RestoreDir:
        """A private directory for decompressed copies: beside the copies, or, when
        the archive cannot be written, in the system's temporary directory."""
        return RestoreDir(self.root if writable else None)

    def _remove_stale_restores(self) -> None:
        """Private copies of builds that ended without removing them (a crash, a kill)."""
        for name in os.listdir(self.root):
            if name.startswith(RESTORE_PREFIX):
                RestoreDir.remove_if_abandoned(self.root / name)

    # ---------------------------------------------------------------- reports

    def summary(self, codex_home: Path | None = None) -> Summary:
        """What ``bough archive`` reports: the files, and the sessions they hold as a
        site counts them (:class:`SessionCount`), with when the first and the last
        of them started. ``codex_home``: Codex's own directory (its sessions there
        are Codex's internal work, on no site)."""
        with self.locked(exclusive=False):
            entries, problems = self.entries()
            report = Summary(root=self.root, problems=problems)
            count = SessionCount(codex_home)
            for entry in sorted(entries.values(), key=lambda e: e.key):
                report.files += 1
                report.bytes += entry.size
                with contextlib.suppress(OSError):
                    report.disk_bytes += os.lstat(self.data_path(entry)).st_blocks * 512
                if entry.is_session() or (entry.kind == "gemini" and entry.role == "subagent"):
                    report.kept_since = min(report.kept_since or entry.archived, entry.archived)
                    count.add(entry, self._head(entry))
        count.tell(report)
        return report

    def _head(self, entry: Entry) -> bytes:
        """The first bytes of ``entry``'s copy, enough to tell its session (b"" when
        the copy cannot be read: ``--verify`` says why): a Codex rollout's first line
        (its identity), the first lines of the others."""
        try:
            if entry.kind == "codex":
                return self.head(entry, HEAD_BYTES, stop=b"\n")
            return self.head(entry, _HEAD_STEP)
        except Damaged:
            return b""

    def head(self, entry: Entry, limit: int = HEAD_BYTES, *, stop: bytes | None = None) -> bytes:
        """The first ``limit`` bytes of ``entry``'s archived copy, decompressed (not
        checked against its sha256: only the whole copy can be), or fewer: up to the
        first ``stop`` and the rest of the step that found it. Raises Damaged."""
        chunks: list[bytes] = []
        size = 0
        with self._open_data(entry) as raw:
            try:
                with gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
                    while size < limit and (chunk := unpacked.read(min(_HEAD_STEP, limit - size))):
                        chunks.append(chunk)
                        size += len(chunk)
                        if stop is not None and stop in chunk:
                            break
            except (OSError, EOFError, zlib.error) as err:
                raise Damaged(f"it does not decompress: {err}") from None
        return b"".join(chunks)

    def _open_data(self, entry: Entry) -> Any:
        """``entry``'s compressed copy, opened for reading (never through a link, never
        waiting on a FIFO); raises Damaged."""
        try:
            self._folder(entry.kind, entry.label, create=False)  # no link on the way there either
            fd = os.open(self.data_path(entry), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except FileNotFoundError:
            raise Damaged("the compressed copy is missing") from None
        except OSError as err:
            raise Damaged(f"cannot open the compressed copy: {err.strerror or err}") from None
        raw = os.fdopen(fd, "rb")
        if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
            raw.close()
            raise Damaged("the compressed copy is not a regular file")
        return raw

    def verify(self) -> tuple[int, list[str]]:
        """Check that every archived file decompresses to the bytes its record names
        and parses (a JSONL transcript gives at least one JSON object, a meta file,
        a legacy Gemini session and ``projects.json`` are JSON). Returns how many files were checked and the problems found."""
        with self.locked(exclusive=False):
            entries, problems = self.records()  # the records, not the index: each is checked
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


def is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_file_system(root: Path) -> None:
    """Everything written to the file system that holds ``root`` reaches the disk
    (Linux: syncfs, that file system alone; elsewhere: sync, all of them)."""
    fd = os.open(root, os.O_RDONLY | os.O_CLOEXEC)
    try:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.syncfs(fd) == 0:
                return
        except (OSError, AttributeError):
            pass
        os.sync()
    finally:
        os.close(fd)


def _same_start(source: Any, base: Entry | None) -> Any:
    """When the first ``base.size`` bytes of ``source`` are the ones ``base`` copied
    (their sha256 is the same), the sha256 object fed with them, ``source`` left
    just after them; else None, and ``source`` back at its start."""
    if base is None:
        return None
    digest = hashlib.sha256()
    read = 0
    for chunk in _chunks(source, base.size):
        read += len(chunk)
        digest.update(chunk)
    if read == base.size and digest.hexdigest() == base.sha256:
        return digest
    source.seek(0)
    return None


def _pack(source: Any, limit: int, out: Any, digest: Any) -> int:
    """gzip up to ``limit`` bytes of ``source`` as one gzip member at the end of
    ``out``, feeding them to ``digest``; how many bytes it took. Reading stops at
    ``limit``: a file still being appended to is copied as it was when opened."""
    taken = 0
    with gz.member_writer(out, _LEVEL) as packed:
        for chunk in _chunks(source, limit):
            taken += len(chunk)
            digest.update(chunk)
            packed.write(chunk)
    out.flush()  # made durable by Archive.commit, with every other copy of the build
    return taken


def _chunks(source: Any, limit: int) -> Iterator[bytes]:
    """``source``'s next ``limit`` bytes (fewer at its end), a chunk at a time."""
    left = limit
    while left > 0:
        chunk = source.read(min(_CHUNK, left))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


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
