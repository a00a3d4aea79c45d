"""Where OpenCode keeps its files, and how bough groups and archives them
(readers/layout.py; docs/formats-opencode.md §1, §10).

The data directory is ``${XDG_DATA_HOME:-~/.local/share}/opencode``. It holds the
databases (``opencode.db``, ``opencode-<channel>.db``; ``OPENCODE_DB`` names
another, relative to the data directory), the JSON era's ``storage/`` tree, and
nothing else bough reads. A label is the file's path from the data directory's
folder on (``opencode/opencode.db``, ``opencode/storage/message/ses_…/msg_….json``);
the archive's exports of a database are ``opencode/<database>.sessions/<id>.jsonl``.
One data directory is one unit, so a session held by the database, an export and
the JSON files is read once (§9.1).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import orjson

from ..hidden import hide
from ..kinds import OPENCODE
from .layout import Layout, Listed
from .lines import printable_name
from .opencode_rows import EXPORT_TAG, JSON_KINDS, Exporter
from .opencode_sqlite import is_opencode_db, is_sqlite, read_tables

NAME = "OpenCode"
DATA_FOLDER = "opencode"
STORAGE = "storage"
EXPORTS_SUFFIX = ".sessions"  # opencode/opencode.db.sessions/<id>.jsonl (§10)
_COMPANIONS = ("-wal", "-shm", "-journal")
# Folders of the JSON era that hold objects (§1): storage/<kind>/<folder>/<id>.json.
_KINDS = frozenset(JSON_KINDS)


# --- where ---------------------------------------------------------------------------------


def home(env: Mapping[str, str]) -> Path:
    """§1: ``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode`` on every OS."""
    data = env.get("XDG_DATA_HOME", "")
    if data and os.path.isabs(data):
        return Path(data) / DATA_FOLDER
    user = env.get("HOME", "") or str(Path.home())
    return Path(user) / ".local" / "share" / DATA_FOLDER


def roots(env: Mapping[str, str]) -> list[Path]:
    """The data directory, and the database ``OPENCODE_DB`` names when it is one
    ``find`` would not list there (§1: relative to the data directory)."""
    data = home(env)
    out = [data]
    named = env.get("OPENCODE_DB", "")
    if named and named != ":memory:":
        path = Path(named) if os.path.isabs(named) else data / named
        if not (path.parent == data and _is_db_name(path.name)):
            out.append(path)
    return out


# --- what is OpenCode's ----------------------------------------------------------------------


def _is_db_name(name: str) -> bool:
    return name.startswith("opencode") and name.endswith(".db")


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def is_storage(folder: Path) -> bool:
    """A JSON-era ``storage`` tree (§1), by its folders whatever its own name."""
    return _is_dir(folder / "session") and (_is_dir(folder / "message") or _is_dir(folder / "part"))


def _storage_level(folder: Path) -> bool:
    """A folder inside a storage tree: ``storage/<kind>`` or ``storage/<kind>/<folder>``."""
    if folder.name in _KINDS and is_storage(folder.parent):
        return True
    return folder.parent.name in _KINDS and is_storage(folder.parent.parent)


def _has_db(folder: Path) -> bool:
    """Whether the folder holds OpenCode's database: by its name, else by its tables
    (a copy renamed, as the real fixture is)."""
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.endswith(".db") and entry.is_file()]
    except OSError:
        return False
    return any(_is_db_name(name) for name in names) or any(is_opencode_db(folder / name) for name in names)


def claims(path: Path) -> bool:
    """A data directory (a folder named ``opencode`` holding a database or
    ``storage/``), a storage tree or a folder inside one, an export folder, a
    database whose tables are OpenCode's, an export, a JSON-era object file."""
    if _is_dir(path):
        if path.name == DATA_FOLDER and (_has_db(path) or is_storage(path / STORAGE)):
            return True
        if path.name.endswith(".db" + EXPORTS_SUFFIX):
            return True
        return is_storage(path) or _storage_level(path)
    name = path.name
    if name.endswith(_COMPANIONS):
        return False
    if name.endswith(".db") or (not path.suffix and is_sqlite(path)):
        return is_opencode_db(path)
    if name.endswith(".jsonl"):
        return path.parent.name.endswith(".db" + EXPORTS_SUFFIX) and _export_header(path)
    if name.endswith(".json"):
        return _json_place(path) != ""
    return False


def _export_header(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return f'"{EXPORT_TAG}"'.encode() in handle.readline(4096)
    except OSError:
        return False


def _json_place(path: Path) -> str:
    """The storage tree a JSON-era object file sits in, as a path ("" when none)."""
    parts = path.parts
    if len(parts) >= 4 and parts[-3] in _KINDS and is_storage(path.parents[2]):
        return str(path.parents[2])
    if len(parts) >= 3 and parts[-2] in ("project", "part") and is_storage(path.parents[1]):
        return str(path.parents[1])
    return ""


# --- what to read ------------------------------------------------------------------------


def _files(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted((p for p in folder.glob(pattern) if p.is_file()), key=str)
    except OSError:
        return []


def _storage_files(storage: Path) -> list[Path]:
    out: list[Path] = []
    for kind in JSON_KINDS:
        out += _files(storage / kind, "*.json")
        if kind != "project":
            out += _files(storage / kind, "*/*.json")
    return out


def _with_wal(dbs: list[Path]) -> list[Path]:
    """Each database and its ``-wal`` when there: the WAL is not read as a file of its
    own (the database's copy takes it along, §11), but it is listed so that a build
    sees a session that grew only in the WAL as a change."""
    out = []
    for db in dbs:
        out.append(db)
        wal = Path(f"{db}-wal")
        if wal.is_file():
            out.append(wal)
    return out


def find(path: Path) -> list[Path]:
    """The files under what ``claims`` took, each once, in a stable order: the
    databases (``opencode.db`` first, each with its ``-wal``), the exports, the
    JSON-era object files."""
    if not _is_dir(path):
        return _with_wal([path]) if claims(path) else []
    if is_storage(path):
        return _storage_files(path)
    if _storage_level(path):
        return [p for p in _files(path, "**/*.json") if _json_place(p)]
    if path.name.endswith(".db" + EXPORTS_SUFFIX):
        return [p for p in _files(path, "*.jsonl") if _export_header(p)]
    # OpenCode's own names by their header (a damaged one is read, and warned about), others by their tables.
    dbs = [p for p in _files(path, "*.db") if (is_sqlite(p) if _is_db_name(p.name) else is_opencode_db(p))]
    dbs.sort(key=lambda p: (p.name != "opencode.db", p.name))
    exports = [p for folder in _files_dirs(path, "*.db" + EXPORTS_SUFFIX) for p in _files(folder, "*.jsonl")]
    trees = [path / STORAGE] if is_storage(path / STORAGE) else []
    trees += [folder for folder in _files_dirs(path, "*") if folder.name != STORAGE and is_storage(folder)]
    return _with_wal(dbs) + exports + [p for tree in trees for p in _storage_files(tree)]


def _files_dirs(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted((p for p in folder.glob(pattern) if p.is_dir()), key=str)
    except OSError:
        return []


# --- how it is named and grouped ------------------------------------------------------------


def label(path: Path) -> str:
    """The file's path from its data directory's folder on (§1, §10)."""
    parts = Path(os.path.abspath(path)).parts
    keep = 2  # <data dir>/<file>: a database
    if len(parts) >= 3 and parts[-2].endswith(".db" + EXPORTS_SUFFIX):
        keep = 3
    elif path.suffix == ".json" and len(parts) >= 4 and parts[-3] in _KINDS:
        keep = 5  # <data dir>/storage/<kind>/<folder>/<file>
    elif path.suffix == ".json" and len(parts) >= 3 and parts[-2] in ("project", "part"):
        keep = 4  # <data dir>/storage/<kind>/<file>
    text = "/".join(parts[-keep:]) if len(parts) >= keep else "/".join(parts[1:])
    return text if text.isascii() else printable_name(text)


def units(listed: list[Listed]) -> list[tuple[str, list[Listed]]]:
    """One unit per data directory (the first name of the labels): its databases,
    then the exports, then the JSON files (each in label order)."""
    groups: dict[str, list[Listed]] = {}
    for name, path in listed:
        groups.setdefault(name.split("/", 1)[0], []).append((name, path))
    out = []
    for folder in sorted(groups):
        files = sorted(groups[folder], key=lambda item: (_order(item[0]), item[0], str(item[1])))
        out.append((f"{OPENCODE}-{hide(folder)}", files))
    return out


def _order(name: str) -> int:
    name = name.removesuffix("-wal")  # beside its database
    if name.endswith(".db"):
        return 0 if name.endswith("/opencode.db") else 1
    if name.endswith(".jsonl"):
        return 2
    return 3


# --- the archive -----------------------------------------------------------------------------


def snapshot(path: Path, name: str, folder: Path) -> list[Listed]:
    """A database is kept as its sessions' rows (§10): one export file per session,
    written into ``folder``; any other file as it is."""
    if name.endswith(_COMPANIONS):
        return []  # a database's WAL is in its exports (§11): nothing of its own to keep
    if not (name.endswith(".db") or (is_sqlite(path) and not name.endswith((".json", ".jsonl")))):
        return [(name, path)]
    tables = read_tables(path, name, lambda warning: None)
    data, base = name.rsplit("/", 1) if "/" in name else (DATA_FOLDER, name)
    exporter = Exporter(name, tables)
    out: list[Listed] = []
    # Under the label's own folders, so the copy's label is the name it is kept under.
    target = folder / data / f"{base}{EXPORTS_SUFFIX}"
    target.mkdir(parents=True, exist_ok=True)
    for sid in exporter.sessions:
        if not isinstance(sid, str) or not sid or "/" in sid or sid.startswith(".") or "\0" in sid:
            continue
        file = target / f"{sid}.jsonl"
        try:
            file.write_bytes(b"\n".join(exporter.lines(sid)) + b"\n")
        except (OSError, TypeError, ValueError):  # never the build's end: this session is not kept
            continue
        out.append((f"{data}/{base}{EXPORTS_SUFFIX}/{sid}.jsonl", file))
    return out


def holds_session(name: str) -> bool:
    """A database, an export, or a JSON-era session file (``…/session/<project>/<id>.json``):
    not the message, part and project files read beside one."""
    parts = name.split("/")
    return name.endswith((".db", ".jsonl")) or (name.endswith(".json") and len(parts) >= 3 and parts[-3] == "session")


def sniff(record: dict) -> bool:
    """The first line of an export (§10), met outside a folder ``claims`` took."""
    return EXPORT_TAG in record


def nested(head: bytes) -> bool:
    """An export of a child session (its header names a parent, §10): a sub-agent's,
    shown inside its root's session."""
    first = head.split(b"\n", 1)[0]
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return isinstance(header, dict) and EXPORT_TAG in header and bool(header.get("parent"))


def rewritten_whole(name: str) -> bool:
    """OpenCode rewrites every file it has (§4): a database page, a JSON object
    file, and bough's exports are made again each time."""
    return True


LAYOUT = Layout(
    kind=OPENCODE,
    name=NAME,
    roots=roots,
    home=home,
    claims=claims,
    find=find,
    label=label,
    units=units,
    snapshot=snapshot,
    sniff=sniff,
    # §1: the data directory also holds logs, tool outputs and git snapshots (thousands
    # of files): only ``storage/`` is read below it, beside the databases at its top.
    reads=frozenset({STORAGE}),
    holds_session=holds_session,
    nested=nested,
    rewritten_whole=rewritten_whole,
)
