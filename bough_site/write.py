"""The one writer that owns the output directory (OUT).

Everything bough puts on disk goes through :class:`SiteWriter`, so the rules that
keep a build from damaging anything live in one place:

* OUT is ours only if it is empty or holds our marker (``.bough-site``); a
  non-empty directory without it is refused unless the user forces it.
* One build at a time: an exclusive ``flock`` on ``OUT/.bough-lock``.
* Every path is checked to stay inside OUT, also through symlinks, and may be
  claimed only once per build.
* Every file goes to a temporary name and is renamed into place (replace.py), and
  is left alone (mtime unchanged) when it already holds the same bytes. A worker process
  writes its pages itself (:class:`Stager`: the same checks, a temporary file
  beside the target); the build renames them into place (:meth:`SiteWriter.commit`),
  so claims stay in one process and a page's bytes never travel between processes.
* Only files our marker lists are ever deleted, and only when asked (:meth:`prune`);
  and the temporary files of a build that was killed before it could remove
  them (the lock file says a build began and never ended: :func:`_began`).

slugs.py turns untrusted names into file names; out_place.py keeps OUT away from the
inputs and out of the agents' own directories (``~/.claude``, ``~/.codex``, ``~/.gemini``).
A full disk is said in one line (:func:`output_error`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

import orjson

from bough_site.errors import OutputError
from bough_site.out_place import check_outside_agent_homes, resolved
from bough_site.regular import read_checked
from bough_site.replace import replace_file, replace_from_chunks, write_temp
from bough_site.state_paths import LOCK, MARKER, OWN_PREFIX, STATE_DIR, TMP_PREFIX

__all__ = ["SiteWriter", "Staged", "Stager", "discard", "is_regular_file", "json_bytes", "output_error"]


# --------------------------------------------------------------------------- helpers


def json_bytes(value: Any, *, compact: bool = False) -> bytes:
    """JSON the way every bough file is written: sorted keys, a final newline, and a
    2-space indent unless ``compact`` (session sidecars: the indent is a share of them
    worth saving, docs/performance.md)."""
    option = orjson.OPT_SORT_KEYS if compact else orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
    return orjson.dumps(value, option=option) + b"\n"


def script_json(value: Any, *, sort_keys: bool = False) -> bytes:
    """``value`` as JSON that is safe in a script: ``<``, ``>``, ``&``, U+2028 and
    U+2029 written as ``\\u`` escapes, so no string can end the script or a line
    (docs/safety.md S2; replaced in the UTF-8 bytes: none of these characters'
    encodings occurs inside another's, nor across two JSON values)."""
    data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
                         ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
        data = data.replace(raw, escaped)
    return data


# What a file system says when it has no room left for a write: full, or the user's quota used up.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT})
_MAX_MARKER = 1 << 30  # the list of a site's files: 18,000 sessions make a few MB


def output_error(err: OSError, out: Path | str, doing: str, name: str) -> OutputError:
    """The OutputError for ``err``, met while ``doing`` (``"cannot write 'x' in OUT"``)
    to ``name`` (the file or folder, as the user knows it) in OUT. A full disk, or a
    used-up quota, is one line that names the file system and says what the user
    needs to know: every file goes to a temporary file renamed into place, so none
    is half-written, and the last build's manifest and marker still stand
    (docs/safety.md S8). Any other error: ``doing`` and the error."""
    if err.errno not in _NO_ROOM:
        return OutputError(f"{doing}: {err}")
    full = "no space left" if err.errno == errno.ENOSPC else "your disk quota is used up"
    return OutputError(
        f"{full} on the file system at {_mount_point(Path(out))} (which holds {out}) while writing {name}: "
        "nothing is half-written and the previous site there is intact; free some space and build again"
    )


def _mount_point(path: Path) -> Path:
    """The folder a file system is mounted at, for a path on it (or below it, not yet made)."""
    try:
        current = path.absolute().resolve()
        while not current.exists() and current != current.parent:
            current = current.parent
        device = current.stat().st_dev
        while current != current.parent and current.parent.stat().st_dev == device:
            current = current.parent
    except (OSError, RuntimeError):
        return Path(path)
    return current


# --------------------------------------------------------------------------- the writer

@dataclass(frozen=True)
class _Dir:
    """A checked directory inside OUT: its real path, as a string, and the
    case-folded relative path that claims start with ("" for OUT itself)."""

    path: Path
    text: str
    key_prefix: str


class SiteWriter:
    """Owns OUT for one build: use it as a context manager.

    ``written`` lists the paths this build changed, in order; ``unchanged`` those
    that already held the same bytes; ``kept`` those claimed with :meth:`keep`.
    """

    # Its own files in OUT (named with the rest of bough's state in state_paths.py).
    MARKER = MARKER
    LOCK = LOCK

    def __init__(self, out: Path, *, force: bool = False, lock_timeout: float = 30.0) -> None:
        self.out = Path(out).absolute()
        self.force = force
        self.lock_timeout = max(0.0, float(lock_timeout))
        self.written: list[str] = []
        self.unchanged: list[str] = []
        self.kept: list[str] = []
        self._root = self.out
        self._lock_fd: int | None = None
        self._previous: set[str] = set()  # files the last marker listed, minus what prune removed
        # What the marker in OUT lists, as this build read or wrote it, and that file's
        # identity (inode, size, mtime): a build that owns what it already says does not
        # write it again (at 18,000 sessions: 55,000 paths, 4.5 MB, twice a build).
        self._marker_says: tuple[frozenset[str], tuple[int, int, int]] | None = None
        self._claims: dict[str, str] = {}  # case-folded real relpath -> relpath as the caller gave it
        self._dirs: dict[tuple[str, ...], _Dir] = {}  # checked parent directories, by components
        self._kept_in: dict[str, _Dir] = {}  # the same, by the folder's relpath, for keep()
        self._listed: dict[str, set[str]] = {}  # directory -> the regular files it held when listed

    # ---------------------------------------------------------------- lifecycle

    def __enter__(self) -> SiteWriter:
        if self._lock_fd is not None:
            raise RuntimeError("this SiteWriter is already open")
        check_outside_agent_homes(self.out)  # before OUT is made
        root = self._prepare_out()
        # Checked before creating the lock file, so a refused directory is left untouched;
        # a lock file there means a bough build may be running and about to write the marker.
        self._check_ours(root, lock_counts=True)
        _check_state(root, self.out)
        self._lock_fd = _acquire_lock(root / self.LOCK, self.lock_timeout, self.out)
        try:
            # Again under the lock: a build that just finished may have written the marker.
            self._check_ours(root, lock_counts=False)
            if _began(self._lock_fd):
                _remove_temporaries(root)
            self._previous = self._read_marker(root)
            self._root = root
            if not _lexists(root / self.MARKER):
                # Claim OUT before the first file lands: after a crash it is still ours.
                self._write_marker([])
        except BaseException:
            self._release()
            raise
        self.written, self.unchanged, self.kept = [], [], []
        self._claims, self._dirs, self._listed, self._kept_in = {}, {}, {}, {}
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._lock_fd is None:
            return
        try:
            if exc_type is None:
                self._write_owned()
            else:
                # Keep owning the old files and what we managed to write, so the next
                # build can overwrite or prune them; delete nothing on a failed build
                # but the files workers staged and the build never committed.
                with contextlib.suppress(OutputError):  # the build's own error matters more
                    self._write_marker(sorted(self._previous | set(self._claims.values())))
                _remove_temporaries(self._root)
        finally:
            self._release()

    def seal(self) -> None:
        """Write the marker a successful build leaves, now, while OUT is still locked:
        what is recorded of OUT after this (the quick check's folder times) stays true."""
        self._open_root()
        self._write_owned()

    def _prepare_out(self) -> Path:
        out = self.out
        if out.exists() and not out.is_dir():
            raise OutputError(f"the output path {out} exists and is not a directory")
        try:
            out.mkdir(parents=True, exist_ok=True)
            return out.resolve(strict=True)
        except OSError as err:
            raise output_error(err, out, f"cannot create the output directory {out}", str(out)) from err
        except RuntimeError as err:  # a symlink loop, on Python 3.11
            raise OutputError(f"cannot create the output directory {out}: {err}") from err

    def _check_ours(self, root: Path, *, lock_counts: bool) -> None:
        """Refuse a non-empty OUT without our marker (unless forced)."""
        try:
            entries = set(os.listdir(root))
        except OSError as err:
            raise OutputError(f"cannot read the output directory {self.out}: {err}") from err
        if lock_counts and self.LOCK in entries:
            return
        if entries - {self.LOCK} and self.MARKER not in entries and not self.force:
            raise OutputError(
                f"the output directory {self.out} is not empty and was not made by bough "
                f"(it has no {self.MARKER} file); choose an empty or new directory, "
                "or force bough to write into it"
            )

    def _read_marker(self, root: Path) -> set[str]:
        """Relpaths the previous build owned; entries that are not safe relpaths are ignored."""
        path = root / self.MARKER
        try:
            data, info = read_checked(path, _MAX_MARKER)  # (a file put there after this: written again)
            doc = orjson.loads(data)
            if not (isinstance(doc, dict) and doc.get("generator") == "bough"):
                raise OutputError(f"{path} is not a bough marker")
            files = doc.get("files")
            if not isinstance(files, list):
                raise OutputError(f"{path} has no file list")
        except FileNotFoundError:
            return set()
        except (OSError, orjson.JSONDecodeError, OutputError) as err:
            if self.force:
                return set()  # forced: own nothing from before, so prune deletes nothing old
            raise OutputError(
                f"cannot use the output directory {self.out}: its bough marker is unreadable ({err})"
            ) from err
        owned = {f for f in files if isinstance(f, str) and _relpath_problem(f) is None}
        if len(owned) == len(files):  # each entry a safe path, once: what the marker lists is what is owned
            self._marker_says = (frozenset(owned), _identity(info))
        return owned

    def _write_owned(self) -> None:
        """The marker of a build that succeeded: what it claimed, and what it still owns
        from before; not written again when it says that already."""
        claimed = set(self._claims.values())
        if self._marker_says is not None and claimed == self._marker_says[0] and \
                self._previous <= claimed and self._marker_identity() == self._marker_says[1]:
            return
        folded = {p.casefold() for p in claimed}
        # An old entry that differs only in case is the same file on a case-folding FS.
        old = {p for p in self._previous - claimed if p.casefold() not in folded and _lexists(self._root / p)}
        self._write_marker(sorted(claimed | old))

    def _write_marker(self, files: list[str]) -> None:
        data = json_bytes({"generator": "bough", "files": files})
        marker = self._root / self.MARKER
        if not _holds(marker, data):
            try:
                # fsync: the marker is what a later prune trusts, so it must not be torn by a crash.
                replace_file(self._root, self.MARKER, data, durable=True)
            except OSError as err:
                raise output_error(err, self.out, f"cannot write {marker}", self.MARKER) from err
        identity = self._marker_identity()
        self._marker_says = (frozenset(files), identity) if identity is not None else None

    def _marker_identity(self) -> tuple[int, int, int] | None:
        try:
            return _identity(os.lstat(self._root / self.MARKER))
        except OSError:
            return None

    def _release(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            _ended(fd)
            # Closing drops the flock. The file stays: unlinking it would let a waiting
            # build lock a deleted inode while a third locks a new one.
            os.close(fd)

    def _open_root(self) -> Path:
        if self._lock_fd is None:
            raise RuntimeError("use SiteWriter inside a with-block")
        return self._root

    # ---------------------------------------------------------------- writing

    def write(self, relpath: str, data: bytes | Iterator[bytes]) -> bool:
        """Write ``data`` (bytes, or an iterator of chunks of them, never all held) to
        OUT/``relpath`` atomically; False when it already held exactly these bytes."""
        if isinstance(data, Iterator):
            def put(parent: _Dir, name: str) -> bool:
                _not_a_directory(parent.path / name, relpath)
                return replace_from_chunks(parent.path, name, data)
        elif isinstance(data, (bytes, bytearray, memoryview)):
            def put(parent: _Dir, name: str) -> bool:
                if _holds(parent.path / name, data, relpath=relpath):
                    return False
                replace_file(parent.path, name, data)
                return True
        else:
            raise TypeError(f"write() needs bytes, got {type(data).__name__}")
        return self._place(relpath, put)

    def commit(self, staged: Staged) -> bool:
        """Put a file a :class:`Stager` wrote in its place (the checks and claim of
        :meth:`write`); False when OUT/``relpath`` already held exactly its bytes."""

        def put(parent: _Dir, name: str) -> bool:
            if staged.temp is None:
                return False
            os.replace(staged.temp, parent.path / name)
            return True

        try:
            return self._place(staged.relpath, put)
        except BaseException:
            discard(staged)
            raise

    def recommit(self, staged: Staged) -> bool:
        """Put in place, over the file this build already wrote at its path, a file
        rendered again (a page the final pass made knowing every link): the claim
        stays this build's. False when the bytes are the same."""
        root = self._open_root()
        parts = _split(staged.relpath)
        parent = self._parent(root, parts[:-1], staged.relpath, create=True)
        if self._claims.get(parent.key_prefix + parts[-1].casefold()) != staged.relpath:
            discard(staged)
            raise OutputError(f"bough tried to write {staged.relpath!r} again, but this build did not write it")
        if staged.temp is None:
            return False
        try:
            os.replace(staged.temp, parent.path / parts[-1])
        except OSError as err:
            discard(staged)
            raise output_error(err, self.out, f"cannot write {staged.relpath!r} in {self.out}",
                               repr(staged.relpath)) from err
        if staged.relpath in self.unchanged:
            self.unchanged.remove(staged.relpath)
            self.written.append(staged.relpath)
        return True

    def withdraw(self, relpath: str) -> None:
        """Delete a file this build put in place and give up its claim (a page the
        final pass split in fewer parts than the first pass did): the site is then
        what a build that rendered it once would have made."""
        parts = _split(relpath)
        parent = self._parent(self._open_root(), parts[:-1], relpath, create=False)
        key = parent.key_prefix + parts[-1].casefold()
        if self._claims.get(key) != relpath:
            raise OutputError(f"bough tried to take back {relpath!r}, but this build did not write it")
        try:
            os.unlink(parent.path / parts[-1])
        except FileNotFoundError:
            pass
        except OSError as err:
            raise output_error(err, self.out, f"cannot delete {relpath!r} in {self.out}", repr(relpath)) from err
        del self._claims[key]
        self._previous.discard(relpath)  # gone: no longer the last build's either
        self._listed.get(parent.text, set()).discard(parts[-1])
        for listed in (self.written, self.unchanged, self.kept):
            if relpath in listed:
                listed.remove(relpath)

    def _place(self, relpath: str, put: Callable[[_Dir, str], bool]) -> bool:
        root = self._open_root()
        parts = _split(relpath)
        parent = self._parent(root, parts[:-1], relpath, create=True)
        key = self._claim_key(parent, parts[-1], relpath)
        try:
            changed = put(parent, parts[-1])
        except OSError as err:
            raise output_error(err, self.out, f"cannot write {relpath!r} in {self.out}", repr(relpath)) from err
        self._claims[key] = relpath
        if not changed:
            self.unchanged.append(relpath)
            return False
        self._listed.get(parent.text, set()).add(parts[-1])
        self.written.append(relpath)
        return True

    def keep(self, relpath: str) -> None:
        """Own a file the previous build wrote, without rewriting it (incremental builds).

        Raises OutputError when the previous marker does not list it or it is no
        longer a regular file: the build should render it and :meth:`write` instead.
        """
        root = self._open_root()
        if relpath not in self._previous:  # (the marker's paths are safe: _read_marker checked each)
            raise OutputError(f"cannot keep {relpath!r}: the previous build did not write it")
        folder, _, name = relpath.rpartition("/")
        # Tens of thousands of files in a few thousand folders: each folder checked once.
        parent = self._kept_in.get(folder)
        if parent is None:
            parent = self._kept_in[folder] = self._parent(root, _split(relpath)[:-1], relpath, create=False)
        key = self._claim_key(parent, name, relpath)
        if not self._listed_file(parent, name):
            raise OutputError(f"cannot keep {relpath!r}: it is no longer a file in {self.out}")
        self._claims[key] = relpath
        self.kept.append(relpath)

    def has_file(self, relpath: str) -> bool:
        """Whether OUT holds a regular file at ``relpath`` (nothing is claimed)."""
        try:
            parts = _split(relpath)
            parent = self._parent(self._open_root(), parts[:-1], relpath, create=False)
        except OutputError:
            return False
        return self._listed_file(parent, parts[-1])

    def _listed_file(self, parent: _Dir, name: str) -> bool:
        """Whether ``name`` is a regular file (not a link) in ``parent``: one listing
        per directory, not a stat per file (a build that changed nothing keeps
        tens of thousands of files)."""
        names = self._listed.get(parent.text)
        if names is None:
            names = self._listed[parent.text] = regular_names(parent.text)
        return name in names

    def _parent(self, root: Path, dirs: list[str], relpath: str, *, create: bool) -> _Dir:
        return _checked_dir(root, dirs, relpath, create=create, checked=self._dirs)

    def _claim_key(self, parent: _Dir, name: str, relpath: str) -> str:
        # Keyed on the real, case-folded path: two spellings of one file (through a
        # symlinked directory, or in another case on macOS) would overwrite each other.
        key = parent.key_prefix + name.casefold()
        if key in self._claims:
            first = self._claims[key]
            same = "it" if first == relpath else f"the same file as {first!r}"
            raise OutputError(
                f"bough tried to write {relpath!r} twice in one build ({same} was already written)"
            )
        return key

    # ---------------------------------------------------------------- pruning

    def prune(self) -> list[str]:
        """Delete files the previous marker listed that this build neither wrote nor kept.

        Only regular files reached through real directories inside OUT are deleted
        (a symlink is never followed or removed); directories left empty go too.
        Returns the deleted relpaths, sorted.
        """
        root = self._open_root()
        self._dirs, self._listed, self._kept_in = {}, {}, {}  # directories may disappear below
        claimed = set(self._claims.values())
        deleted = []
        for relpath in sorted(self._previous - claimed):
            # On a case-folding FS an old "Index.html" is the "index.html" we just wrote.
            if relpath.casefold() not in self._claims and _delete_owned(root, relpath):
                deleted.append(relpath)
            # Deleted, gone, or no longer a plain file of ours: owned no more either way.
            self._previous.discard(relpath)
        return deleted


# --------------------------------------------------------------------------- file system


def _check_state(root: Path, out: Path) -> None:
    """Refuse an OUT whose state folder (``.bough-state``), or anything in it, is a
    symlink or anything else bough never makes there (a FIFO, a device): the
    build writes compiled templates, sqlite files and temporary files there, and
    loads the templates back as code, so a link would make it write and run
    whatever it points at (docs/safety.md S8). Nothing in the folder is needed:
    removing it is always safe."""
    folders = [root / STATE_DIR]
    while folders:
        folder = folders.pop()
        try:
            mode = os.lstat(folder).st_mode
            if not stat.S_ISDIR(mode):
                raise _not_ours(folder, mode, out)
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))
                    elif not entry.is_file(follow_symlinks=False):
                        raise _not_ours(Path(entry.path), os.lstat(entry.path).st_mode, out)
        except FileNotFoundError:
            if folder == root / STATE_DIR:
                return  # a new OUT: made when first used
            continue  # removed since it was listed (a build at work in OUT)
        except OSError as err:
            raise OutputError(f"cannot use the output directory {out}: cannot read {folder}: {err}") from err


def _not_ours(path: Path, mode: int, out: Path) -> OutputError:
    if stat.S_ISLNK(mode):
        kind = "a symlink"
    elif path.name == STATE_DIR:
        kind = "not a folder"
    else:
        kind = "neither a plain file nor a folder"
    return OutputError(
        f"{path} is {kind}: bough keeps its state there and never follows a link or opens anything "
        f"it did not make in it, so the output directory {out} is not bough's to use as it is; "
        f"remove {path} (nothing in bough's state is needed: it is made again) and build again"
    )


# A relpath every component of which starts with a letter, digit or "_" and holds only
# those, ".", "-": no "." or ".." component, no ".bough-" name, nothing absolute.
_PLAIN_RELPATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*")


def _relpath_problem(relpath: object) -> str | None:
    """Why relpath may not name a file in OUT, or None when it may."""
    if isinstance(relpath, str) and _PLAIN_RELPATH.fullmatch(relpath):
        return None  # the usual page or asset path, told at once
    if not isinstance(relpath, str) or not relpath:
        return "it is empty"
    if "\x00" in relpath:
        return "it contains a NUL character"
    if "\\" in relpath:
        return "it contains a backslash (use '/')"
    if relpath.startswith("/"):
        return "it is absolute"
    parts = relpath.split("/")
    if "" in parts:
        return "it has an empty component"
    if "." in parts or ".." in parts:
        return "it has a '.' or '..' component"
    if any(part.startswith(OWN_PREFIX) for part in parts):
        return f"names starting {OWN_PREFIX!r} are bough's own"
    return None


def _split(relpath: str) -> list[str]:
    problem = _relpath_problem(relpath)
    if problem is not None:
        raise OutputError(f"refusing to write {relpath!r}: {problem}")
    return relpath.split("/")


def _checked_dir(root: Path, dirs: list[str], relpath: str, *, create: bool,
                 checked: dict[tuple[str, ...], _Dir]) -> _Dir:
    """The real directory for ``dirs`` under root, refusing anything that leads
    outside OUT; ``checked`` keeps the directories already checked, by components."""
    found = checked.get(tuple(dirs))
    if found is not None:
        return found
    current = root
    for depth in range(1, len(dirs) + 1):
        done = checked.get(tuple(dirs[:depth]))
        if done is not None:
            current = done.path
            continue
        path = current / dirs[depth - 1]
        if create:
            _mkdir(path, relpath, root)
        current = _real_dir_inside(root, path, relpath)
        relative = current.relative_to(root).as_posix()
        checked[tuple(dirs[:depth])] = _Dir(current, str(current), relative.casefold() + "/")
    return checked.get(tuple(dirs)) or _Dir(root, str(root), "")


class Staged(NamedTuple):
    """A file written beside its place in OUT, for :meth:`SiteWriter.commit`."""

    relpath: str
    temp: str | None  # the temporary file, in the target's folder; None: the target holds these bytes


class Stager:
    """Writes one build's files beside their places in OUT, in a worker process
    (or the build's own, with one worker), with :meth:`SiteWriter.write`'s checks: a safe relpath, folders inside OUT,
    the bytes compared with the file there. The build, which holds OUT's lock,
    commits each (:meth:`SiteWriter.commit`) or removes it; a build killed before
    that leaves temporary files the next one removes. Use one per build: the
    folders it checked are not checked again."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out).absolute()
        self.root = Path(out).absolute().resolve(strict=True)  # as SiteWriter resolves it
        self._checked: dict[tuple[str, ...], _Dir] = {}

    def stage(self, relpath: str, data: bytes) -> Staged:
        parts = _split(relpath)
        parent = _checked_dir(self.root, parts[:-1], relpath, create=True, checked=self._checked)
        if _holds(parent.path / parts[-1], data, relpath=relpath):
            return Staged(relpath, None)
        try:
            return Staged(relpath, str(write_temp(parent.path, data)))
        except OSError as err:  # a full disk, say: said as SiteWriter.write says it, from this worker
            raise output_error(err, self.out, f"cannot write {relpath!r} in {self.out}", repr(relpath)) from err


def discard(staged: Staged) -> None:
    """Remove a staged file that will not be committed."""
    if staged.temp is not None:
        with contextlib.suppress(OSError):
            os.unlink(staged.temp)


def _mkdir(path: Path, relpath: str, root: Path) -> None:
    try:
        os.mkdir(path)
    except FileExistsError:
        pass  # an existing entry (maybe a symlink) is checked by _real_dir_inside
    except OSError as err:
        raise output_error(err, root, f"cannot create the directory for {relpath!r}", repr(relpath)) from err


def _real_dir_inside(root: Path, path: Path, relpath: str) -> Path:
    try:
        mode = os.lstat(path).st_mode
    except OSError as err:
        raise OutputError(f"cannot use {path} for {relpath!r}: {err}") from err
    if stat.S_ISDIR(mode):
        return path
    if stat.S_ISLNK(mode):
        real = resolved(path)
        if real.is_relative_to(root) and real.is_dir():
            return real
        raise OutputError(
            f"refusing to write {relpath!r}: {path} is a symlink to {real}, not a directory inside {root}"
        )
    raise OutputError(f"cannot write {relpath!r}: {path} exists and is not a directory")


def _not_a_directory(target: Path, relpath: str = "") -> os.stat_result | None:
    """What is at ``target`` (None: nothing); OutputError when it is a directory."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise OutputError(f"cannot examine {target}: {err}") from err
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {relpath or target.name!r}: {target} is a directory")
    return st


def _identity(info: os.stat_result) -> tuple[int, int, int]:
    """A file as a stat tells it apart: any write or replacement changes one of these."""
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _holds(target: Path, data: bytes | bytearray | memoryview, *, relpath: str = "") -> bool:
    """Whether target is a regular file holding exactly data (so it need not be rewritten)."""
    st = _not_a_directory(target, relpath)
    # A symlink or other special file is replaced, never read through (a FIFO would hang).
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    try:
        return read_checked(target, len(data))[0] == data
    except OSError:
        return False  # unreadable: rewriting it is the way to find out for real


def regular_names(folder: str | Path) -> set[str]:
    """The names of the regular files (not links) in ``folder``, from one listing
    (d_type: no stat per file); none when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name for entry in entries if entry.is_file(follow_symlinks=False)}
    except OSError:
        return set()


@contextlib.contextmanager
def locked(out: Path, timeout: float = 30.0) -> Iterator[None]:
    """OUT's build lock (the one a SiteWriter takes), held meanwhile: for a build
    that only reads OUT."""
    check_outside_agent_homes(Path(out))
    fd = _acquire_lock(Path(out) / SiteWriter.LOCK, timeout, Path(out))
    try:
        yield
    finally:
        os.close(fd)


def _acquire_lock(path: Path, timeout: float, out: Path) -> int:
    """An fd holding an exclusive flock on path, waiting up to timeout seconds for it."""
    try:
        # O_NOFOLLOW: a symlink planted as the lock file must not make us create files elsewhere.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise output_error(err, out, f"cannot create the lock file {path}", path.name) from err
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                os.close(fd)
                raise OutputError(
                    f"another bough build is writing to {out} (waited {timeout:g}s for {path})"
                ) from None
            time.sleep(min(0.05, left))
        except OSError as err:
            os.close(fd)
            raise OutputError(f"cannot lock {path}: {err}") from err


# What the lock file holds while a build has OUT (empty otherwise).  A build that
# finds it there follows one that never reached its end: killed (SIGKILL, the
# machine stopped) between creating a temporary file and renaming it, itself or
# a worker of its pool, which the kernel kills with it.
_RUNNING = b"building\n"


def _began(lock_fd: int) -> bool:
    """Say in the lock file that a build holds OUT; True when the last one never
    said it had ended."""
    try:
        interrupted = os.pread(lock_fd, len(_RUNNING), 0) == _RUNNING
        os.pwrite(lock_fd, _RUNNING, 0)
    except OSError:
        return False
    return interrupted


def _ended(lock_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.ftruncate(lock_fd, 0)


def _remove_temporaries(root: Path) -> None:
    """Delete the temporary files (``.bough-tmp-*``, a name no caller may use) an
    interrupted build left anywhere in OUT; symlinks are neither followed nor removed."""
    for folder, _dirs, names in os.walk(root):  # never descends through a symlink
        for name in names:
            path = os.path.join(folder, name)
            if name.startswith(TMP_PREFIX) and is_regular_file(path):
                with contextlib.suppress(OSError):  # one left behind is litter, not harm
                    os.unlink(path)


def _delete_owned(root: Path, relpath: str) -> bool:
    """Delete root/relpath if it is a regular file reached through real directories only."""
    parts = relpath.split("/")
    current = root
    for name in parts[:-1]:
        current = current / name
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return False  # a symlink or file where our directory was: never go through it
        except OSError:
            return False
    target = current / parts[-1]
    if not is_regular_file(target):
        return False
    try:
        os.unlink(target)
    except FileNotFoundError:
        return False
    except OSError as err:
        raise OutputError(f"cannot delete {target}: {err}") from err
    _remove_empty_dirs(root, current)
    return True


def _remove_empty_dirs(root: Path, directory: Path) -> None:
    # rmdir only ever removes an empty directory, so this cannot lose anyone's files.
    while directory != root and directory.is_relative_to(root):
        try:
            os.rmdir(directory)
        except OSError:
            return
        directory = directory.parent


def is_regular_file(path: Path | str) -> bool:
    """A regular file itself, not through a symlink."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False



def _lexists(path: Path) -> bool:
    try:
        os.lstat(path)
    except OSError:
        return False
    return True
