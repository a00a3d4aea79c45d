"""OpenCode's SQLite database, read safely while OpenCode writes to it
(docs/formats-opencode.md §4, §11).

bough never opens the user's database with SQLite. It copies the database file,
with its ``-wal`` (writes not yet checkpointed) and ``-journal`` (a write in
progress, which SQLite rolls back in the copy), into a private temporary folder and
reads the copy. Measured (§11): opening the user's file with ``mode=ro`` creates a
``-wal`` and ``-shm`` beside a WAL database and leaves them there, and waits, then
fails with "database is locked", on a database another connection holds in an
exclusive transaction. A plain copy takes no SQLite lock, so OpenCode's writes
never wait for bough, and nothing is created beside the user's files.

A copy taken while OpenCode writes can be torn: the files are compared (size and
time) before and after, and copied again when they changed. Every failure (no
such table, a malformed page, a file that is not a database) is a warning; the
rows read before it are kept.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from ..model import InputWarning

WarnFn = Callable[[InputWarning], None]
Row = dict[str, Any]

SQLITE_HEADER = b"SQLite format 3\x00"
# The tables a session is made of (§4); ``project`` only for the working directory.
TABLES = ("project", "session", "message", "part")
OPENCODE_TABLES = frozenset({"session", "message", "part"})
# What tells OpenCode's database from another's: its session and message tables
# (a damaged one without ``part`` is still OpenCode's, read as far as it goes).
TELLING_TABLES = frozenset({"session", "message"})
# Beside the database: uncheckpointed writes (WAL) and a write in progress (rollback journal).
COMPANIONS = ("-wal", "-journal")
COPY_TRIES = 3
# What SQLite can raise reading a damaged file: its own errors, and a message or
# name in bytes that are not UTF-8 (UnicodeDecodeError is a ValueError).
DB_ERRORS = (sqlite3.Error, ValueError, OverflowError)


def is_sqlite(path: Path) -> bool:
    """Whether the file starts with SQLite's header (a peek of 16 bytes)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def table_names(path: Path) -> set[str]:
    """The tables of a database file, read without a lock and without creating a
    file beside it (``immutable=1``: no locking, no WAL). Empty when it cannot tell.
    Cheap enough for discovery: one page or two."""
    if not is_sqlite(path):
        return set()
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=0)) as db:
            return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                    if isinstance(name, str)}
    except (*DB_ERRORS, OSError):
        return set()


def is_opencode_db(path: Path) -> bool:
    return TELLING_TABLES <= table_names(path)


def _signature(path: Path) -> tuple[tuple[int, int], ...]:
    out = []
    for suffix in ("", *COMPANIONS):
        try:
            info = os.stat(f"{path}{suffix}")
            out.append((info.st_size, info.st_mtime_ns))
        except OSError:
            out.append((-1, -1))
    return tuple(out)


def _copy(path: Path, folder: Path) -> Path:
    target = folder / "copy.db"
    for suffix in ("", *COMPANIONS):
        source = Path(f"{path}{suffix}")
        if suffix and not source.is_file():
            continue
        try:
            shutil.copyfile(source, f"{target}{suffix}")
        except FileNotFoundError:
            if not suffix:
                raise
            # A journal that ended between the look and the copy (a writer committed):
            # as if it had not been there; the database's signature tells whether to copy again.
    return target


@contextmanager
def private_copy(path: Path, label: str, warn: WarnFn) -> Iterator[Path | None]:
    """A copy of the database (and its -wal and -journal) in a private folder,
    removed afterwards; None when it could not be copied (warned)."""
    try:
        info = os.stat(path)
    except OSError as err:
        warn(InputWarning(label, 0, f"cannot read: {err.strerror or err}"))
        yield None
        return
    if not stat.S_ISREG(info.st_mode):
        warn(InputWarning(label, 0, "not a regular file, skipped"))
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bough-opencode-") as folder:
        copy = None
        try:
            for _ in range(COPY_TRIES):
                before = _signature(path)
                copy = _copy(path, Path(folder))
                if _signature(path) == before:
                    break
            else:
                warn(InputWarning(label, 0, "the database changed while it was copied; read as copied"))
        except OSError as err:
            warn(InputWarning(label, 0, f"cannot copy the database: {err.strerror or err}"))
            copy = None
        yield copy


def read_tables(path: Path, label: str, warn: WarnFn) -> dict[str, list[Row]]:
    """Every row of the tables a session is made of, each a dict of its columns
    (the columns there are: older databases lack some). A table that is missing
    or cannot be read to its end is warned about; what was read is kept. A copy
    that could not be read whole while OpenCode was writing is taken again."""
    if not is_sqlite(path):
        warn(InputWarning(label, 0, "not a SQLite database (no SQLite header)"))
        return {table: [] for table in TABLES}
    for attempt in range(COPY_TRIES):
        said: list[InputWarning] = []
        before = _signature(path)
        out = _read_copy(path, label, said.append)
        if not said or _signature(path) == before or attempt == COPY_TRIES - 1:
            for warning in said:
                warn(warning)
            return out
    return out  # not reached: the last attempt returns


def _read_copy(path: Path, label: str, warn: WarnFn) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {table: [] for table in TABLES}
    with private_copy(path, label, warn) as copy:
        if copy is None:
            return out
        try:
            db = sqlite3.connect(str(copy), timeout=0)
        except DB_ERRORS as err:
            warn(InputWarning(label, 0, f"cannot open the database: {err}"))
            return out
        with closing(db):
            db.text_factory = _text
            names = _names(db, label, warn)
            if names is None:
                return out
            for table in TABLES:
                if table not in names:
                    if table in OPENCODE_TABLES:
                        warn(InputWarning(label, 0, f"no table {table!r}: not read"))
                    continue
                out[table] = _rows(db, table, label, warn)
    return out


def _said(err: Exception) -> str:
    """An error's words; a message SQLite gave in bytes that are not UTF-8 is not repeated."""
    return "a damaged page" if isinstance(err, UnicodeError) else str(err)


def _text(raw: bytes) -> str:
    """TEXT that is not UTF-8 (a damaged page) is read with U+FFFD, never an error."""
    return raw.decode("utf-8", "replace")


def _names(db: sqlite3.Connection, label: str, warn: WarnFn) -> set[str] | None:
    try:
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                if isinstance(name, str)}
    except DB_ERRORS as err:
        warn(InputWarning(label, 0, f"cannot read the database: {_said(err)}"))
        return None


def _rows(db: sqlite3.Connection, table: str, label: str, warn: WarnFn) -> list[Row]:
    rows: list[Row] = []
    try:
        # In the table's own order: sorting is the reader's (opencode_rows), and a
        # damaged table gives its rows up to the damage this way.
        cursor = db.execute(f'SELECT * FROM "{table}"')
        names = [d[0] for d in cursor.description]
        for values in cursor:
            rows.append(dict(zip(names, values)))
    except DB_ERRORS as err:
        warn(InputWarning(label, 0, f"table {table!r} could not be read to its end ({_said(err)}); "
                                    f"{len(rows)} rows kept"))
    return rows
