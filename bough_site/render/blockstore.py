"""The store of highlighted blocks: one sqlite3 file in OUT's state, shared by
every session and every worker, kept across builds.

Why it exists: lexing costs about 0.8 ms per KB of code, the same text is shown
in many sessions (a file read in forty of them, a resumed session's copied
history) and a new bough version renders every page again.  A block is looked up
by a digest of what decides its HTML (the text, the lexer and its options, and
the highlighter's identity: see ``highlight._identity``), so each text is lexed
once, ever, unless the highlighter itself changes.

Why sqlite and not a file per block (both measured on 3,680 blocks of 1.5 KB of
Python, their HTML 3.8 KB on average, zlib-compressed at level 6, a file written
to a temporary name and renamed, sqlite committing every 20 blocks): reading one block took
32 us from sqlite against 72 to 99 us from its own file, writing 141 against
212 us, a garbage collection of half the blocks 12 against 28 us per block, and
the store took 6.9 MB on disk against 15.7 MB (a file per block fills a 4 KB
disk block however small it is).  Lexing the same block costs ~3,700 us, so
either store pays for itself on every hit; sqlite is cheaper on every count.

How it stays right:
- Many worker processes use it at once (WAL mode, a busy timeout, one short
  transaction per batch of jobs).  A connection is opened in the process that
  uses it (never carried across ``fork``).
- Pages never depend on it: a block found here is exactly what lexing would give
  (the key covers everything the HTML depends on), a block that cannot be read
  back (damaged, not ours) is lexed again, and a store that cannot be opened or
  written is left alone for the build (everything is lexed).
- Garbage collection: each session records the blocks its pages used (the
  ``uses`` table, under a digest of the build's session key); after a build,
  :func:`collect` drops the uses of sessions the manifest no longer has, then
  every block no session uses.  Blocks of an older highlighter are therefore
  dropped once every session using them has been rendered again.
- Blocks are compressed (zlib) and keys are digests: no transcript text is
  stored in the clear (OUT's state is trusted, but it is not published).

The store also keeps, per process, the blocks it read or made (up to
``MEMORY_CHARS`` characters of HTML), so a process that meets a block twice
reads it once.  With no file (``BlockStore(None)``) that memory is all there is.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
import zlib
from collections.abc import Iterable
from pathlib import Path

from ..state import (
    ProcessConnection,
    connect_sqlite,
    remove_sqlite_file,
    sqlite_damaged,
    sqlite_file_usable,
)
from ..state_paths import BLOCKS_DB, BLOCKS_DIR, STATE_DIR

SCHEMA = 1
MEMORY_CHARS = 32 << 20  # characters of HTML a process keeps in memory
_ZLIB_LEVEL = 1  # blocks are small; the fastest level compresses them nearly as well
_BUSY_MS = 60_000
_SETUP_TRIES = 8
_MAX_BLOCK = 64 << 20  # a stored value larger than this is not one of ours

_SCHEMA_SQL = (
    "CREATE TABLE IF NOT EXISTS blocks (key BLOB PRIMARY KEY, html BLOB NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS uses (session BLOB NOT NULL, key BLOB NOT NULL, "
    "PRIMARY KEY (session, key)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS uses_key ON uses (key)",
)


def store_path(out: Path | str) -> Path:
    """Where the store of the site in ``out`` lives."""

    return Path(out) / STATE_DIR / BLOCKS_DIR / BLOCKS_DB


def session_id(session_key: str) -> bytes:
    """What the store records a session under: a digest of the build's key for it."""
    return hashlib.blake2b(session_key.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class BlockStore:
    """Highlighted blocks by key (16 bytes), in ``path`` (None: memory only)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._memory: dict[bytes, str] = {}
        self._memory_chars = 0
        self._pending: dict[bytes, bytes] = {}  # made since the last flush(): key -> compressed HTML
        self._uses: dict[bytes, list[bytes]] = {}  # recorded since the last flush(): session -> keys
        self._db = ProcessConnection()
        self._broken = path is None
        # What this process asked of the file (tests and benchmarks read them).
        self.reads = 0
        self.hits = 0

    # ------------------------------------------------------------------ lookups

    def get(self, key: bytes) -> str | None:
        """The HTML stored for ``key``, or None."""
        html = self._memory.get(key)
        if html is not None:
            return html
        conn = self._connection()
        if conn is None:
            return None
        self.reads += 1
        try:
            row = conn.execute("SELECT html FROM blocks WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            self._give_up()
            return None
        html = _inflate(row[0]) if row is not None else None
        if html is not None:
            self.hits += 1
            self._remember(key, html)
        return html

    def add(self, key: bytes, html: str) -> None:
        """Keep a block just made; written to the file at the next :meth:`flush`."""
        self._remember(key, html)
        if self._broken:
            return
        try:
            data = html.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from a transcript: not kept
            return
        self._pending[key] = zlib.compress(data, _ZLIB_LEVEL)

    def record(self, session_key: str | None, used: Iterable[bytes]) -> None:
        """Note that this session's pages use exactly the blocks ``used`` (none
        noted without a key); written at the next :meth:`flush`."""
        if session_key is not None and not self._broken:
            self._uses[session_id(session_key)] = sorted(set(used))

    def flush(self) -> None:
        """Write the blocks made and the sessions recorded since last time, in one
        transaction. A worker flushes once per batch of jobs: a commit for each of
        wide's 1,800 short sessions was about 1% of a cold build's CPU."""
        pending, self._pending = self._pending, {}
        uses, self._uses = self._uses, {}
        if not pending and not uses:
            return
        conn = self._connection()
        if conn is None:
            return
        try:
            with conn:  # BEGIN ... COMMIT, or ROLLBACK on an error
                conn.executemany("INSERT OR REPLACE INTO blocks (key, html) VALUES (?, ?)", sorted(pending.items()))
                for session, keys in uses.items():
                    conn.execute("DELETE FROM uses WHERE session = ?", (session,))
                    conn.executemany("INSERT OR IGNORE INTO uses (session, key) VALUES (?, ?)",
                                     [(session, key) for key in keys])
        except sqlite3.Error:
            self._give_up()

    # ------------------------------------------------------------------ internals

    def _remember(self, key: bytes, html: str) -> None:
        if self._memory_chars + len(html) > MEMORY_CHARS:
            self._memory.clear()
            self._memory_chars = 0
        if key not in self._memory:
            self._memory[key] = html
            self._memory_chars += len(html)

    def _connection(self) -> sqlite3.Connection | None:
        if self._broken or self.path is None:
            return None
        conn = self._db.get(self._open)
        if conn is None:
            self._broken = True
        return conn

    def _open(self) -> sqlite3.Connection | None:
        try:
            return _open(self.path, create=True)  # type: ignore[arg-type]
        except (sqlite3.Error, OSError):
            return None

    def _give_up(self) -> None:
        """A store that fails is not used again by this process: lexing is always right."""
        self._broken = True
        self._pending.clear()
        self._uses.clear()
        self.close()

    def close(self) -> None:
        """Write what is not yet written and close the file (this process's
        connection); memory is kept."""
        self.flush()
        self._db.close()


def _inflate(data: object) -> str | None:
    """A stored value back to HTML, or None when it is not what we wrote."""
    if not isinstance(data, bytes):
        return None
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(data, _MAX_BLOCK)
        if inflater.unconsumed_tail or inflater.unused_data or not inflater.eof:
            return None  # too big, trailing bytes or truncated
        return raw.decode("utf-8")
    except (zlib.error, UnicodeDecodeError):
        return None


def _open(path: Path, *, create: bool) -> sqlite3.Connection | None:
    """A connection to the store, its schema in place; None when there is none
    to open (``create`` False) or the path is not one we would write."""
    if not sqlite_file_usable(path, create=create):
        return None
    conn = connect_sqlite(path, _BUSY_MS / 1000)
    try:
        for attempt in range(_SETUP_TRIES):
            try:
                _setup(conn)
                return conn
            except sqlite3.OperationalError as error:
                # Workers opening a new store together: one sets it up, the others wait.
                if "locked" not in str(error) or attempt == _SETUP_TRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
    except BaseException:
        conn.close()
        raise
    return None


def _setup(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version not in (0, SCHEMA):
        raise sqlite3.DatabaseError(f"block store schema {version}, not {SCHEMA}")
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    # WAL with NORMAL cannot corrupt the file; a crash may lose the last blocks.
    conn.execute("PRAGMA synchronous = NORMAL")
    if version == 0:
        with conn:
            for statement in _SCHEMA_SQL:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA}")


def collect(out: Path | str, live_sessions: Iterable[str]) -> None:
    """After a build: forget the sessions not in ``live_sessions`` (the build's
    session keys), then every block no session uses.  A store that is damaged or
    not ours is deleted (the next build starts a new one); one that cannot be
    used now (a full disk: docs/safety.md S8) is left as it is; no store: nothing
    to do."""
    path = store_path(out)
    live = sorted({session_id(key) for key in live_sessions})
    try:
        conn = _open(path, create=False)
    except (sqlite3.Error, OSError) as err:
        if not isinstance(err, sqlite3.Error) or sqlite_damaged(err):
            remove_sqlite_file(path)
        return
    if conn is None:
        return
    try:
        with conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS live (session BLOB PRIMARY KEY) WITHOUT ROWID")
            conn.execute("DELETE FROM live")
            conn.executemany("INSERT INTO live (session) VALUES (?)", [(s,) for s in live])
            conn.execute("DELETE FROM uses WHERE session NOT IN (SELECT session FROM live)")
            conn.execute("DELETE FROM blocks WHERE key NOT IN (SELECT key FROM uses)")
            conn.execute("DROP TABLE live")
        pages, free = (conn.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_count", "freelist_count"))
        if free > 256 and free * 2 > pages:  # mostly empty pages after a large collection
            conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.DatabaseError as err:
        conn.close()
        if sqlite_damaged(err):
            remove_sqlite_file(path)
        return
    conn.close()
