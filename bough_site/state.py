"""``OUT/.bough-state/``: what an incremental build keeps beside the site.

- ``state.sqlite``: small values named by their content (:func:`state_name`),
  so unchanged state keeps its name: a session's counting identities
  (``<digest>.json``) and a Claude file's summary for resumes
  (``<digest>.records``), one row each (:class:`StateStore`). One file, not a
  file per value: creating a file is the costly part of writing a small one
  (a cold build of 1,800 sessions wrote 3,600 of them; see docs/performance.md).
- ``blocks/``: the highlighted code blocks of every page (render/blockstore.py).
- ``templates/``: the theme's compiled templates (render/env.py).

The folder's name starts with ``.bough-``: the SiteWriter never writes, lists or
prunes it. Nothing in it is published, and nothing in it is needed: a value
that is missing or cannot be read is made again. Nothing in it is ever reached
through a symlink (docs/safety.md S8): the SiteWriter refuses an OUT whose state
holds one, and every file here is opened only once its folders are checked to be
real ones (:func:`real_folders`), never following a link itself.

Every file bough keeps in OUT, who writes it and when it is thrown away:
docs/state.md; their names are in state_paths.py.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import sqlite3
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType

from .state_paths import COMPILED_TEMPLATES, STATE_DB, STATE_DIR
from .replace import replace_from_chunks
from .write import output_error

MAX_STATE = 1 << 30


def compiled_templates(out: Path | str) -> Path:
    """Where the templates' compiled code is kept between builds (one file per template)."""
    return Path(out) / STATE_DIR / COMPILED_TEMPLATES


def state_name(data: bytes, suffix: str) -> str:
    """State values are named by their content: unchanged state keeps its name."""
    return hashlib.sha256(data).hexdigest()[:32] + suffix


_SCHEMA = "CREATE TABLE IF NOT EXISTS state (name TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID"
_BUSY_SECONDS = 60.0
# Names bound in one query of get_many: under SQLite's smallest limit on a query's parameters (999).
_NAMES_PER_QUERY = 900
# The state files of bough before state.sqlite: removed by the first save.
_OLD_STATE_FILE = re.compile(r"[0-9a-f]{32}\.(?:json|records)")


class StateStore:
    """OUT's content-named state values, in ``.bough-state/state.sqlite``.

    Opened when first used, by the process that uses it, and closed by
    :meth:`close` (a build holds one while it holds OUT's lock). A file that is
    not a store bough can read counts as empty: every value is made again."""

    def __init__(self, out: Path | str, path: Path | None = None) -> None:
        """OUT's state store, or (``path``) another file of OUT kept as one (the manifest's parts)."""
        self.out = Path(out)
        self.path = path or self.out / STATE_DIR / STATE_DB
        self._db = ProcessConnection()

    def __enter__(self) -> StateStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def names(self) -> set[str]:
        """The names of every value kept."""
        return {name for (name,) in self._rows("SELECT name FROM state", ())}

    def get(self, name: str) -> bytes | None:
        """The value named ``name``, or None."""
        rows = self._rows("SELECT data FROM state WHERE name = ? AND length(data) <= ?", (name, MAX_STATE))
        return bytes(rows[0][0]) if rows else None

    def get_many(self, names: Iterable[str]) -> dict[str, bytes]:
        """The values named in ``names`` that are kept, a query per 900 names: a build
        that needs every session's value asks once, not once per session."""
        wanted = sorted(set(names))
        out: dict[str, bytes] = {}
        for start in range(0, len(wanted), _NAMES_PER_QUERY):
            chunk = wanted[start : start + _NAMES_PER_QUERY]
            marks = ",".join("?" * len(chunk))
            rows = self._rows(f"SELECT name, data FROM state WHERE name IN ({marks}) AND length(data) <= ?",
                              (*chunk, MAX_STATE))
            out.update((name, bytes(data)) for name, data in rows)
        return out

    def add(self, values: dict[str, bytes]) -> bool:
        """Keep ``values`` (name -> bytes; a name already kept holds the same bytes);
        False when the store could not keep them."""
        if not values:
            return True
        return self._write(lambda conn: conn.executemany(
            "INSERT OR IGNORE INTO state (name, data) VALUES (?, ?)", sorted(values.items())))

    def keep_only(self, names: Iterable[str]) -> None:
        """Drop every value not named in ``names``: the names kept are read and only
        those to drop are written (an append drops a few of 50,000: a table of
        every name to keep took twice as long)."""
        keep = set(names)

        def drop(conn: sqlite3.Connection) -> None:
            gone = sorted({name for (name,) in conn.execute("SELECT name FROM state")} - keep)
            for start in range(0, len(gone), _NAMES_PER_QUERY):
                chunk = gone[start : start + _NAMES_PER_QUERY]
                conn.execute(f"DELETE FROM state WHERE name IN ({','.join('?' * len(chunk))})", chunk)

        self._write(drop)
        if self.path.parent.name == STATE_DIR:
            _remove_old_state_files(self.path.parent)

    def _write(self, change: Callable[[sqlite3.Connection], object]) -> bool:
        """``change`` in one transaction (True once made). A store that cannot be
        written is made anew, once; if that fails too, the values are not kept (the
        next build reads their sessions again). A full disk fails the build instead,
        said as any full disk under OUT is (write.output_error): removing the store would
        lose what the sessions whose transcripts are gone still need."""
        for _attempt in (1, 2):
            try:
                conn = self._connection(create=True)
                if conn is None:
                    return False
                with conn:
                    change(conn)
                return True
            except sqlite3.DatabaseError as err:
                self.close()
                if _disk_full(err):
                    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    raise output_error(full, self.out, f"cannot write {self.path}",
                                       self.path.relative_to(self.out).as_posix()) from err
                remove_sqlite_file(self.path)
        return False

    def close(self) -> None:
        self._db.close()

    def _rows(self, query: str, parameters: tuple) -> list[tuple]:
        try:
            conn = self._connection(create=False)
            return conn.execute(query, parameters).fetchall() if conn is not None else []
        except sqlite3.DatabaseError:
            self.close()
            return []

    def _connection(self, *, create: bool) -> sqlite3.Connection | None:
        return self._db.get(lambda: self._open(create))

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if not sqlite_file_usable(self.path, create=create):
            return None
        conn = connect_sqlite(self.path, _BUSY_SECONDS)
        try:
            conn.execute(_SCHEMA)
        except BaseException:
            conn.close()
            raise
        return conn


# --------------------------------------------------------------------------- sqlite3 files of OUT's state
# (this store's, and render/blockstore.py's)


class StateWrites:
    """Values for OUT's state as a build makes them (each session's identities and
    summary details), written a batch at a time: the build holds none of them for
    long (at 18,000 sessions they were a quarter of its memory). Read back through
    :meth:`get_many`. Values the store could not keep stay in memory: this build's
    numbers never depend on the store (the next build reads their sessions again)."""

    BATCH = 4 << 20  # bytes held before they are written

    def __init__(self, store: StateStore) -> None:
        self.store = store
        self._batch: dict[str, bytes] = {}
        self._size = 0
        self._unkept: dict[str, bytes] = {}

    def add(self, name: str, data: bytes) -> None:
        self._batch[name] = data
        self._size += len(data)
        if self._size >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        if self._batch and not self.store.add(self._batch):
            self._unkept.update(self._batch)
        self._batch, self._size = {}, 0

    def all_kept(self) -> bool:
        """Whether the store keeps every value added so far (what is held is written first)."""
        self.flush()
        return not self._unkept

    def get_many(self, names: Iterable[str]) -> dict[str, bytes]:
        self.flush()
        wanted = list(names)
        found = {name: self._unkept[name] for name in wanted if name in self._unkept}
        found.update(self.store.get_many(name for name in wanted if name not in found))
        return found


class ProcessConnection:
    """This process's connection to one sqlite3 file. One inherited through fork
    is never used nor closed: each process opens its own."""

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def get(self, open_: Callable[[], sqlite3.Connection | None]) -> sqlite3.Connection | None:
        """The connection, opened by ``open_`` when this process has none (None:
        there is none to open; asked again next time)."""
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self._conn, self._pid = None, os.getpid()
        self._conn = open_()
        return self._conn

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                conn.close()


# SQLite's primary result codes: a write the disk had no room for; a file that is
# damaged or not a database.
_SQLITE_FULL = 13
_SQLITE_DAMAGED = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB


def _disk_full(err: sqlite3.Error) -> bool:
    return (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF == _SQLITE_FULL


def sqlite_damaged(err: sqlite3.Error) -> bool:
    """Whether ``err`` says a sqlite3 file of OUT's state is damaged or not one of
    ours (removing it and starting again is right), not that it cannot be used
    now: a full disk or an I/O error must not cost what the file holds. An error
    without SQLite's code is our own check's (a schema not ours)."""
    code = getattr(err, "sqlite_errorcode", None)
    return code is None or code & 0xFF in _SQLITE_DAMAGED


def real_folders(folder: Path, *, create: bool) -> bool:
    """Whether ``folder`` and each folder between it and ``.bough-state`` (that one
    included; ``folder`` alone when it is not under one) are real directories,
    not symlinks (made, with ``create``): what must hold before a file of OUT's
    state is opened there (docs/safety.md S8)."""
    chain = [folder]
    while chain[-1].name != STATE_DIR and STATE_DIR in chain[-1].parent.parts:
        chain.append(chain[-1].parent)
    try:
        for each in reversed(chain):
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(each, 0o755)
            if not stat.S_ISDIR(os.lstat(each).st_mode):
                return False
    except OSError:
        return False
    return True


def sqlite_file_usable(path: Path, *, create: bool) -> bool:
    """Whether a sqlite3 file of OUT's state may be opened at ``path``: its folders
    real directories (:func:`real_folders`), the file a regular one (or, with
    ``create``, not there yet); never through a symlink. (SQLite itself refuses a
    link as its journal, -wal or -shm file.)"""
    if not real_folders(path.parent, create=create):
        return False
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return create
    except OSError:
        return False


def connect_sqlite(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection in which ``with conn:`` is one transaction (BEGIN ... COMMIT)."""
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    conn.isolation_level = ""  # "with conn" opens a transaction (BEGIN) and commits it
    return conn


def remove_sqlite_file(path: Path) -> None:
    """Delete a sqlite3 file of OUT's state and the files SQLite keeps beside it
    (never in a folder reached through a link)."""
    if not real_folders(path.parent, create=False):
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


def _remove_old_state_files(folder: Path) -> None:
    """The state files an older bough wrote (one per value), now in the store."""
    try:
        names = [n for n in os.listdir(folder) if _OLD_STATE_FILE.fullmatch(n)]
    except OSError:
        return
    for name in names:
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(folder / name).st_mode):
                os.unlink(folder / name)


def atomic_write(folder: Path, name: str, chunks: Iterable[bytes], *, durable: bool = False) -> None:
    """Write folder/name (a file of OUT) atomically from chunks of its bytes, never
    held whole (the manifest of 18,000 sessions is 40 MB); identical bytes are not
    rewritten. A symlink there is replaced, never written through. Raises
    OutputError (a full disk said in one line: write.output_error)."""
    try:
        replace_from_chunks(folder, name, chunks, durable=durable, mode=0o644)
    except OSError as err:
        raise output_error(err, folder, f"cannot write {folder / name}", name) from err
