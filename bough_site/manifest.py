"""What an incremental build remembers between runs, kept in OUT beside the site.

``OUT/.bough-manifest.json`` (written last, atomically, only by a build that
succeeded) holds:

- ``options``: one digest (options.py) of everything that changes every page at once: the
  manifest schema, bough's version, the theme's files, the redaction
  settings (a digest of the key, never the key) and the page options. When it
  differs, every session is rebuilt.
- ``units``: one entry per *unit* of reading (a Claude session file with its
  sub-agent files, or all Codex rollouts together), keyed by kind and label:
  for each file its label, size, mtime and the sha256 of the bytes read, the
  warnings reading it gave, and the sessions it made. A unit is reused when
  every file has the same size and mtime, or the same sha256 when only those
  changed (Lektor's rule: cheap checks first, the checksum only when they differ).
- ``sessions``: one *summary* per session (every field the index, project pages
  and sidecars use; never the timeline) but its *details* (summaries.DETAIL_FIELDS:
  what only its project's files and search read, kept in OUT's state and named
  here), with its slug, project and the files it owns in OUT. A session whose
  source vanished keeps its summary and pages (``--prune`` drops them).
- ``site``: the files of the site itself (assets, index, project pages) and the
  discovery warnings, so a build where nothing changed rewrites nothing.
- ``parts``: the units and sessions are not in this file but in 256 *parts*
  (:data:`PARTS`), kept in ``OUT/.bough-manifest.sqlite`` named by their content; a
  unit and its sessions share the part its key falls in (:func:`part_of`). An
  append to one session writes one part of 256, not the whole: at 18,000 sessions
  the whole was 42 MB, written and fsynced by every build that changed anything.
  When that file cannot keep them, the units and sessions are in this one instead.

Beside it, ``OUT/.bough-state/`` (state.py) keeps what each session's entry
names: its counting identities, its summary's details and, for resumes, its
file's summary; the code blocks every page highlighted are in one store,
``.bough-state/blocks/`` (render/blockstore.py). The options digest is made by
options.py.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from . import __version__
from .discover import CLAUDE, Known, KnownFile
from .folder_walk import FileStat
from .options import MANIFEST_SCHEMA
from .regular import read_regular
from .state import StateStore, StateWrites, atomic_write, state_name
from .state_paths import MANIFEST, MANIFEST_PARTS

SCHEMA = MANIFEST_SCHEMA  # (options.py: the options digest names it)
T = TypeVar("T")
_MAX_MANIFEST = 1 << 30

# The parts the units and sessions are kept in. A fixed count, so that a unit's part
# never moves: at 18,000 sessions a part holds some 70 sessions (160 KB); at 200,
# most parts hold one or none (and an empty part is not kept).
PARTS = 256
PART_SUFFIX = ".manifest"
_PART_NAME = re.compile(r"[0-9a-f]{32}" + re.escape(PART_SUFFIX))


def part_of(unit: str) -> int:
    """The part a unit's entry (and its sessions') is kept in: crc32, which is the
    same in every Python (hash() is not), of its key."""
    return zlib.crc32(unit.encode("utf-8", "surrogatepass")) % PARTS


# How many times a manifest is read when a part it names went missing while it was read.
_READS = 3


class _PartMissing(Exception):
    """A part the manifest names is not kept (any more): not a damaged manifest (the
    ValueErrors ``_load`` takes for one), maybe a replaced one."""


# Entries by part: each part's sessions and units.
Parted = dict[int, tuple[dict[str, "SessionState"], dict[str, "UnitState"]]]

# --------------------------------------------------------------------------- the manifest


@dataclass
class FileState:
    label: str
    size: int
    mtime_ns: int
    sha256: str

    def as_list(self) -> list[Any]:
        return [self.label, self.size, self.mtime_ns, self.sha256]


@dataclass
class UnitState:
    kind: str
    files: list[FileState]
    sessions: list[str]  # session keys
    warnings: list[list[Any]]  # [file, line, reason], as reading gave them
    since: str = ""  # digest of the archive's kept-since dates for its files
    inherit: str = ""  # digest of what its session inherits from an earlier one (plan/lineage.py); "" nothing
    # Claude: the page name its file's name gives (redacted, case-folded), known before
    # reading (plan: page names); kept so an unchanged unit need not be redacted again.
    names: list[str] = field(default_factory=list)


@dataclass
class SessionState:
    key: str
    unit: str
    slug: str
    project: dict[str, str]  # id, name, cwd
    summary: dict[str, Any]
    outputs: list[str]  # files in OUT this session owns (pages, sidecar, images)
    tally: str  # name of its state file
    details: str = ""  # name of the state value of its summary's details (summaries.split_summary)
    scan: str = ""  # Claude: name of the state file of its file's summary (resumes.py; "" if none)
    group: str = ""  # Claude: digest of its project directory, whose files are compared
    uuids: str = ""  # Claude: name of the state value of its file's record uuids (plan/lineage.py; "" none)
    links: dict[str, str | None] = field(default_factory=dict)  # other sessions' pages its pages link to


@dataclass
class Manifest:
    options: str = ""
    units: dict[str, UnitState] = field(default_factory=dict)
    sessions: dict[str, SessionState] = field(default_factory=dict)
    site_outputs: list[str] = field(default_factory=list)
    valid: bool = False  # read from a manifest a build wrote (not made up empty)
    site_signature: str = ""  # what the index and project pages were made of
    project_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    project_signatures: dict[str, str] = field(default_factory=dict)  # what each project page was made of
    # The projects' sums (state_reads.ProjectSums) when no identity was in two projects
    # (site.site_counted): the next build takes these as apart from one another.
    apart: list[str] = field(default_factory=list)
    site_stats: dict[str, int] = field(default_factory=dict)
    stamp: tuple[int, int, int] | None = None  # the file read: inode, size, mtime (None: none read)
    # The value of .bough-manifest.sqlite each part was read from or saved to, by part (:func:`part_of`)
    parts: dict[int, str] = field(default_factory=dict)
    # Parts an entry was let go of (forget): never taken as they were
    forgotten: set[int] = field(default_factory=set)

    # ---------------------------------------------------------------- reading

    @staticmethod
    def stamp_of(out: Path) -> tuple[int, int, int] | None:
        """Which manifest file OUT holds now, to tell whether one read earlier still holds."""
        try:
            info = os.lstat(Path(out) / MANIFEST)
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def known_files(self) -> Known:
        """Each file read last time, as (digest of its label, size, mtime) -> the kind of
        its unit and, for a Claude unit's other files (its sub-agents), the digest of
        the label of the unit's first (its session's own file)."""
        known: Known = {}
        for unit in self.units.values():
            first = unit.files[0].label if unit.kind == CLAUDE and unit.files else ""
            for index, f in enumerate(unit.files):
                known[(f.label, f.size, f.mtime_ns)] = KnownFile(unit.kind, first if index else "")
        return known

    @classmethod
    def load(cls, out: Path) -> Manifest:
        """The manifest of the last successful build, or an empty one when there is
        none or it cannot be used (then everything is rebuilt): a part it names that
        is not kept (or cannot be read) makes it unusable too, unless the file was
        replaced meanwhile: a build that saves drops the last manifest's parts only
        once the new file names its own, so a reader that did not hold OUT's lock
        (``BuildResult.site``) reads the new one."""
        for _attempt in range(_READS):
            stamp = cls.stamp_of(out)
            try:
                return cls._load(out, stamp)
            except _PartMissing:
                if cls.stamp_of(out) == stamp:
                    break
        return cls()

    @classmethod
    def _load(cls, out: Path, stamp: tuple[int, int, int] | None) -> Manifest:
        data = read_regular(Path(out) / MANIFEST, _MAX_MANIFEST)
        if data is None:
            return cls()
        try:
            doc = orjson.loads(data)
            if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
                return cls()
            manifest = cls(options=str(doc.get("options") or ""), valid=True, stamp=stamp)
            shared = _Shared()
            if "parts" in doc:
                manifest._read_parts(out, doc["parts"], shared)
            else:
                manifest._read_entries(doc, shared)
            site = doc.get("site") or {}
            manifest.site_outputs = [str(p) for p in site.get("outputs") or []]
            manifest.site_signature = str(site.get("signature") or "")
            manifest.project_stats = {str(k): dict(v) for k, v in (site.get("project_stats") or {}).items()}
            manifest.project_signatures = {str(k): str(v) for k, v in (site.get("project_signatures") or {}).items()}
            manifest.site_stats = dict(site.get("stats") or {})
            manifest.apart = [str(name) for name in site.get("apart") or []]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            return cls()
        return manifest

    def _read_parts(self, out: Path, parts: dict[str, str], shared: _Shared) -> None:
        """The units and sessions of the parts named (_PartMissing when one is not
        kept), each part's bytes let go of once read."""
        names = {int(index, 16): name for index, name in parts.items()}
        if not all(0 <= index < PARTS and _PART_NAME.fullmatch(name) for index, name in names.items()):
            raise ValueError("a part bough does not name so")
        with _parts_store(out) as store:
            values = store.get_many(names.values())
        for index, name in sorted(names.items()):
            data = values.pop(name, None)
            if data is None:
                raise _PartMissing(f"the manifest's part {name} is not kept")
            self._read_entries(orjson.loads(data), shared)
            self.parts[index] = name

    def _read_entries(self, doc: dict[str, Any], shared: _Shared) -> None:
        for key, u in doc["units"].items():
            self.units[key] = UnitState(
                kind=shared.text(u["kind"]),
                files=[FileState(str(a), int(b), int(c), str(d)) for a, b, c, d in u["files"]],
                sessions=[str(s) for s in u["sessions"]],
                warnings=shared.warnings(u.get("warnings") or []),
                since=str(u.get("since") or ""),
                inherit=str(u.get("inherit") or ""),
                names=[str(n) for n in u.get("names") or []],
            )
        for key, s in doc["sessions"].items():
            self.sessions[key] = _session_state(key, s, shared)

    def forget(self, sessions: Iterable[str], units: Iterable[str]) -> None:
        """Let go of these sessions' and units' entries, which a build read again:
        once planned, nothing reads them (stages.py lets go of each as its unit is read).
        A manifest that held them is then never :meth:`same_as` this one, and their
        parts are written again."""
        for key in sessions:
            gone = self.sessions.pop(key, None)
            if gone is not None:
                self.forgotten.add(part_of(gone.unit))
        for key in units:
            if self.units.pop(key, None) is not None:
                self.forgotten.add(part_of(key))

    def same_as(self, other: Manifest) -> bool:
        """Whether saving this manifest would write what ``other`` (the last one) holds."""
        return (self.options, self.units, self.sessions, self.site_outputs, self.site_signature,
                self.project_stats, self.project_signatures, self.site_stats, self.apart) == (
                other.options, other.units, other.sessions, other.site_outputs, other.site_signature,
                other.project_stats, other.project_signatures, other.site_stats, other.apart)


    # ---------------------------------------------------------------- writing

    def parted(self) -> Parted:
        """The units and sessions by part: a session in its unit's (:func:`part_of`)."""
        parted: Parted = {}
        for key, unit in self.units.items():
            parted.setdefault(part_of(key), ({}, {}))[1][key] = unit
        for key, session in self.sessions.items():
            parted.setdefault(part_of(session.unit), ({}, {}))[0][key] = session
        return parted

    def save(self, out: Path, previous: Manifest | None = None) -> None:
        """Each part that is not as in ``previous`` (the manifest this build started
        from) into ``.bough-manifest.sqlite``, then the file naming them, atomically
        and durably; only then are the parts no manifest names dropped, so a build cut
        short leaves the last manifest whole. When the parts cannot be kept, the file
        holds the units and sessions itself."""
        same = previous.parted() if previous is not None and previous.parts else {}
        names: dict[int, str] = {}
        with _parts_store(out) as store:
            # New parts are written 4 MB at a time: a first build makes all of them (42 MB at
            # 18,000 sessions, which held at once were its peak memory). A part no manifest
            # names yet is harmless, and dropped by the next save.
            batch = StateWrites(store)
            for index, entries in sorted(self.parted().items()):
                kept = previous.parts.get(index) if previous is not None else None
                if kept and index not in previous.forgotten and same.get(index) == entries:
                    names[index] = kept
                    continue
                data = _part_bytes(*entries)
                names[index] = state_name(data, PART_SUFFIX)
                batch.add(names[index], data)
            self.parts = names if batch.all_kept() else {}
            atomic_write(Path(out), MANIFEST, self.chunks(), durable=True)
            store.keep_only(self.parts_kept())

    def parts_kept(self) -> set[str]:
        """The names of the values of ``.bough-manifest.sqlite`` this manifest's parts are in."""
        return set(self.parts.values())

    def to_bytes(self) -> bytes:
        return b"".join(self.chunks())

    def chunks(self) -> Iterator[bytes]:
        """The manifest's bytes (one line of JSON, keys sorted): its parts' names, or
        (none saved) the units and sessions themselves, an entry at a time: at 18,000
        sessions, the whole document made at once was a build's peak memory."""
        yield b'{"generator":' + orjson.dumps(f"bough {__version__}") + b',"options":' + orjson.dumps(self.options)
        if self.parts:
            yield b',"parts":' + _dumps({f"{index:02x}": name for index, name in self.parts.items()})
        yield b',"schema":' + orjson.dumps(SCHEMA)
        if not self.parts:
            yield b',"sessions":'
            yield from _object(self.sessions, _session_doc)
        yield b',"site":' + _dumps({"outputs": self.site_outputs, "signature": self.site_signature,
                                    "project_stats": self.project_stats,
                                    "project_signatures": self.project_signatures, "stats": self.site_stats,
                                    "apart": self.apart})
        if not self.parts:
            yield b',"units":'
            yield from _object(self.units, _unit_doc)
        yield b"}\n"


def _parts_store(out: Path) -> StateStore:
    return StateStore(out, Path(out) / MANIFEST_PARTS)


def _part_bytes(sessions: dict[str, SessionState], units: dict[str, UnitState]) -> bytes:
    return b"".join([b'{"sessions":', *_object(sessions, _session_doc), b',"units":', *_object(units, _unit_doc), b"}"])


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _object(entries: dict[str, T], doc: Callable[[T], Any], batch: int = 500) -> Iterator[bytes]:
    """The JSON object of ``entries`` as ``doc`` writes each, keys sorted, ``batch``
    entries at a time."""
    keys = sorted(entries)
    yield b"{"
    for start in range(0, len(keys), batch):
        # A batch as one object, its braces taken off: one call, not one per entry.
        yield (b"," if start else b"") + _dumps({key: doc(entries[key]) for key in keys[start:start + batch]})[1:-1]
    yield b"}"


def _session_doc(s: SessionState) -> dict[str, Any]:
    return {"unit": s.unit, "slug": s.slug, "project": s.project, "summary": s.summary, "outputs": s.outputs,
            "tally": s.tally, "details": s.details, "scan": s.scan, "group": s.group, "uuids": s.uuids,
            "links": s.links}


def _unit_doc(u: UnitState) -> dict[str, Any]:
    return {"kind": u.kind, "files": [f.as_list() for f in u.files], "sessions": u.sessions,
            "warnings": u.warnings, "since": u.since, "inherit": u.inherit, "names": u.names}


def _session_state(key: str, s: dict[str, Any], shared: _Shared) -> SessionState:
    """One session's entry as the manifest holds it. bough wrote it (OUT is trusted):
    the JSON values are taken as they are, only their kinds checked (a manifest of
    20,000 sessions is read by every build)."""
    summary, project, outputs, links = s["summary"], s["project"], s["outputs"], s.get("links") or {}
    if not (isinstance(summary, dict) and isinstance(project, dict) and isinstance(outputs, list)
            and isinstance(links, dict) and all(isinstance(p, str) for p in outputs)):
        raise ValueError(f"the entry of {key} is not one bough writes")
    shared.summary(summary)
    slug = _text(s["slug"])
    return SessionState(key=key, unit=_text(s["unit"]), slug=summary["id"] if slug == summary.get("id") else slug,
                        project=shared.project(project), summary=summary,
                        outputs=outputs, tally=_text(s["tally"]), details=_text(s["details"]),
                        scan=_text(s.get("scan") or ""), group=shared.text(_text(s.get("group") or "")),
                        uuids=_text(s.get("uuids") or ""), links=links)


class _Shared:
    """Values many entries hold alike (a project, a model's name, a warning's
    reason), decoded once: at 18,000 sessions the manifest read was a third of an
    append's memory, and a sixth of it such copies. Only values nothing changes in place."""

    _SUMMARY_TEXTS = ("cwd", "source", "git_branch", "title")
    _SUMMARY_LISTS = ("models", "versions")

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}

    def text(self, value: str) -> str:
        return self._values.setdefault(value, value)

    def project(self, project: dict[str, Any]) -> dict[str, Any]:
        if not all(isinstance(value, str) for value in project.values()):
            return project
        return self._values.setdefault(("project", *sorted(project.items())), project)

    def warnings(self, warnings: list[Any]) -> list[list[Any]]:
        return [[self.text(part) if isinstance(part, str) else part for part in w] for w in warnings]

    def summary(self, summary: dict[str, Any]) -> None:
        for name in self._SUMMARY_TEXTS:
            if isinstance(summary.get(name), str):
                summary[name] = self.text(summary[name])
        for name in self._SUMMARY_LISTS:
            if isinstance(summary.get(name), list):
                summary[name] = [self.text(v) if isinstance(v, str) else v for v in summary[name]]
        if isinstance(summary.get("warnings"), list):
            summary["warnings"] = self.warnings(summary["warnings"])


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value


def file_state(path: Path | str, label: str,
               stat_of: Callable[[Any], FileStat | os.stat_result] = os.stat) -> FileState | None:
    """Size and mtime of a file now (the checksum is filled in when it is read)."""
    try:
        info = stat_of(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return FileState(label, info.st_size, info.st_mtime_ns, "")


def sha256_prefix(path: Path, size: int) -> str:
    """The sha256 of the first ``size`` bytes of path (what a reader that took
    the size first has read); empty when the file cannot be read."""
    h = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return ""
    with open(fd, "rb", buffering=0) as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return ""
        left = size
        while left > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()
