"""Which Claude sessions of a build resume another: the pre-scan and its memory.

inherit.py decides from per-file summaries; this module finds the files to
compare (the main session files of one project directory: not sub-agent files,
and a file read from bough's archive is the session of its label, once), makes
their summaries (``readers.claude_records.scan_main_file``, in the worker pool) and keeps
them in OUT's state (``<digest>.records``, state.py), named by their content like the
tallies, so the next build scans only the files that changed.

A directory with one main file has nothing to compare: its file is not scanned.
Nor is a file that shares no record ``uuid`` with another file of its directory
(found in the raw bytes first: ``readers.claude_records.record_uuids``): records are
told apart by uuid and content, so it can neither inherit nor be inherited
from. Most files are such (a resume is the exception), and the probe reads a
file several times faster than the scan parses it. Such a file keeps no
summary; its name in the manifest (``ALONE`` and its label's digest) says so.
What the probe found is kept in OUT's state too (``<digest>.uuids``: each
uuid's 8-byte digest, ``SessionState.uuids``), so when one file of a directory
grows, the next build probes that file alone, not its 300 neighbours.
A session whose source is gone keeps its summary (as it keeps its pages) and
still counts as a parent; ``--prune`` drops both. A unit's decision is stored
as a digest (``UnitState.inherit``): a session whose decision changed (its
parent came, went or grew into another) is read again even if its file did not.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import zlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..inherit import FileSummary, Inheritance, decide
from ..manifest import Manifest, SessionState
from ..model import SOURCE_CLAUDE
from ..state import StateStore, state_name
from ..hidden import hide, hide_label

SCAN_SUFFIX = ".records"
UUIDS_SUFFIX = ".uuids"
_UUID_DIGEST = 8

# (path, label) of each file to scan -> their summaries, in that order (jobs.scan_files).
ScanFn = Callable[[list[tuple[str, str]]], list[FileSummary]]
# Paths of files -> the uuids each one's records may carry (as uuid_digests), None
# when that cannot be told, in that order (jobs.probe_files).
ProbeFn = Callable[[list[str]], list[bytes | None]]
# The summary name of a file that shares no record with another of its directory:
# ALONE and its label's digest (names nothing in OUT's state).
ALONE = "alone:"


def group_of(label: str) -> str:
    """A main file's project directory, as a digest (labels are never stored as they are)."""
    return hide_label(posixpath.dirname(label))


def uuid_digests(uuids: Iterable[str]) -> bytes:
    """Record uuids as what is compared and kept of them: 8-byte digests, each once,
    sorted, end to end (as the state keeps them). Two uuids with one digest could only
    make two files look as if they shared a record (they are then scanned and
    compared, which tells), never the other way. One bytes object per file, not a set
    of them: the plan holds every probed file's at once (16,200 files read again after
    the cleanup: with a set each, its peak was 70 MB higher; docs/performance.md)."""
    return b"".join(sorted({hashlib.blake2b(uuid.encode(), digest_size=_UUID_DIGEST).digest() for uuid in uuids}))


def _split(digests: bytes) -> list[bytes]:
    return [digests[at:at + _UUID_DIGEST] for at in range(0, len(digests), _UUID_DIGEST)]


def is_main(label: str) -> bool:
    """A session's own transcript: not a 2.0.x sub-agent file read alone (its session is gone)."""
    return not posixpath.basename(label).startswith("agent-")


def summary_bytes(summary: FileSummary) -> bytes:
    # Compressed: the record times repeat most of their characters.
    return zlib.compress(orjson.dumps(summary.to_json()), 6)


def in_state(name: str) -> bool:
    """Whether a file's summary name names a value in OUT's state."""
    return bool(name) and not name.startswith(ALONE)


def load_summary(state: StateStore, name: str) -> FileSummary | None:
    """A stored summary (one standing for a file alone when the name says so), or
    None when it is missing or damaged (then it is made again)."""
    if name.startswith(ALONE):
        # Shares nothing, so no decision looks at more than its label (never equal to another's).
        return FileSummary("", name, None, None, None, (), ())
    data = state.get(name) if name else None
    if data is None:
        return None
    try:
        return FileSummary.from_json(orjson.loads(zlib.decompress(data)))
    except (zlib.error, orjson.JSONDecodeError, ValueError):
        return None


# --------------------------------------------------------------------------- a plain read (load_site)


def decisions(mains: Iterable[tuple[Path, str]], scan: ScanFn, probe: ProbeFn) -> dict[Path, Inheritance]:
    """Every main file's inheritance, from scratch: ``mains`` are (path, label)."""
    groups: dict[str, list[tuple[Path, str]]] = {}
    for path, label in mains:
        if is_main(label):
            groups.setdefault(group_of(label), []).append((path, label))
    compared = [members for members in groups.values() if len(members) >= 2]
    out: dict[Path, Inheritance] = {}
    for members, alone in zip(compared, alone_in([[str(path) for path, _ in members] for members in compared], probe)):
        sharing = [member for member, apart in zip(members, alone) if not apart]
        if len(sharing) < 2:
            continue
        summaries = scan([(str(path), hide(label)) for path, label in sharing])
        for index, found in decide(summaries).items():
            out[sharing[index][0]] = found
    return out


def alone_in(groups: list[list[str | None]], probe: ProbeFn) -> list[list[bool]]:
    """For each directory's files (their paths; None for a session whose source is
    gone), which share no record uuid with another of them, all probed at once.
    A directory with a gone session, or a file that could not be probed, has none
    alone: what such a file holds is not known."""
    known = [paths for paths in groups if None not in paths]
    found = iter(probe([path for paths in known for path in paths if path is not None]))
    out = []
    for paths in groups:
        if None in paths:  # a gone session: the directory was not probed
            out.append([False] * len(paths))
            continue
        probed = [uuids for uuids in (next(found) for _ in paths) if uuids is not None]
        out.append(_apart(probed) if len(probed) == len(paths) else [False] * len(paths))
    return out


def _apart(files: list[bytes]) -> list[bool]:
    """Which of the files' uuids (uuid_digests) share none with another's."""
    split = [_split(digests) for digests in files]
    holders = Counter(uuid for uuids in split for uuid in uuids)
    return [all(holders[uuid] == 1 for uuid in uuids) for uuids in split]


# --------------------------------------------------------------------------- a build


@dataclass
class _Member:
    key: str  # unit key (live) or session key (gone)
    path: str | None  # live: the main file
    label: str  # live: hide(label)
    stored: str  # its summary's state file, when it still holds ("" none)
    summary: FileSummary | None = None


@dataclass
class Lineage:
    """What a build knows of resumes, by unit key."""

    state: StateStore
    scan: ScanFn
    probe: ProbeFn
    digests: dict[str, str] = field(default_factory=dict)  # every decided unit: its decision's digest ("" none)
    scans: dict[str, str] = field(default_factory=dict)  # unit -> its summary's state file ("" none)
    groups: dict[str, str] = field(default_factory=dict)  # unit -> its directory's digest
    uuids: dict[str, str] = field(default_factory=dict)  # unit -> the state value of its file's uuids
    new: dict[str, bytes] = field(default_factory=dict)  # state files to save: name -> bytes
    _inherit: dict[str, Inheritance] = field(default_factory=dict)  # units that inherit anything
    _kept: dict[str, list[_Member]] = field(default_factory=dict)  # directories whose decisions were kept

    def digest(self, unit: str) -> str:
        return self.digests.get(unit, "")

    def decision(self, unit: str) -> Inheritance | None:
        """What the unit inherits, for its reader. A directory that kept its
        decisions decides again, from its stored summaries, when a unit of it is
        read after all (its page went missing, its parent's page moved)."""
        group = self.groups.get(unit, "")
        if unit not in self._inherit and self.digest(unit) and group in self._kept:
            self._decide(self._kept.pop(group))
        return self._inherit.get(unit)

    def _decide(self, members: list[_Member]) -> None:
        _summaries(members, self)
        known = [m for m in members if m.summary is not None]
        found = decide([m.summary for m in known])  # type: ignore[misc]
        for index, m in enumerate(known):
            if m.path is None:
                continue
            decision = found.get(index)
            self.digests[m.key] = decision.digest() if decision else ""
            if decision:
                self._inherit[m.key] = decision


def plan_lineage(units: Iterable[tuple[str, str, str]], previous: Manifest, same_files: Collection[str],
                 reusable: Collection[str], *, state: StateStore, prune: bool, scan: ScanFn,
                 probe: ProbeFn) -> Lineage:
    """Each live Claude unit's inheritance. ``units`` are (unit key, main path,
    main label); ``same_files`` the units whose files hold what the last build
    read (their stored summaries hold), ``reusable`` those of them whose pages can
    be kept. A directory whose members and summaries are the last build's, all
    reusable, keeps its decisions without a summary being read."""
    lineage = Lineage(state, scan, probe)
    groups: dict[str, list[_Member]] = {}
    current = set()
    for key, path, label in units:
        current.add(key)
        if not is_main(label):
            continue
        stored = _stored_session(previous, key) if key in same_files else None
        valid = stored.scan if stored is not None else ""
        if stored is not None and stored.uuids:
            lineage.uuids[key] = stored.uuids  # what its file's probe found, still true
        lineage.groups[key] = group = group_of(label)
        lineage.scans[key] = valid
        groups.setdefault(group, []).append(_Member(key, path, hide_label(label), valid))
    if not prune:  # sessions whose source is gone are kept, and stay parents
        for key, stored in previous.sessions.items():
            if stored.unit not in current and stored.scan and stored.group and \
                    stored.summary.get("source") == SOURCE_CLAUDE:
                groups.setdefault(stored.group, []).append(_Member(key, None, "", stored.scan))
    before = _previous_groups(previous)
    changed: list[list[_Member]] = []
    for group, members in groups.items():
        if len(members) < 2:
            continue
        names = sorted(m.stored for m in members)
        if all(names) and names == before.get(group) and all(m.path is None or m.key in reusable for m in members):
            lineage._kept[group] = members
            for m in members:
                if m.path is not None:
                    lineage.digests[m.key] = previous.units[m.key].inherit
            continue
        changed.append(members)
    _mark_alone(changed, lineage)
    # Every summary a changed directory lacks, scanned at once (in the worker pool).
    _summaries([m for members in changed for m in members], lineage)
    for group, members in groups.items():
        if len(members) >= 2 and group not in lineage._kept:
            lineage._decide(members)
    return lineage


def _mark_alone(groups: list[list[_Member]], lineage: Lineage) -> None:
    """Name each file that shares no uuid with another of its directory as alone
    (it is not scanned); one that was alone and now shares is scanned."""
    by_path = {m.path: m.key for members in groups for m in members if m.path is not None}
    probe = functools.partial(_probe_or_recall, lineage=lineage, by_path=by_path)
    for members, alone in zip(groups, alone_in([[m.path for m in members] for members in groups], probe)):
        for m, apart in zip(members, alone):
            if apart:
                m.stored = lineage.scans[m.key] = ALONE + m.label
            elif m.stored.startswith(ALONE) and m.path is not None:
                m.stored = ""


def _probe_or_recall(paths: list[str], *, lineage: Lineage, by_path: dict[str, str]) -> list[bytes | None]:
    """Each file's uuids: as the state kept them for a file the same as last time
    (``lineage.uuids``), else probed (all at once) and kept for the next build."""
    kept = lineage.state.get_many(lineage.uuids[by_path[p]] for p in paths if by_path[p] in lineage.uuids)
    found: list[bytes | None] = []
    todo: list[int] = []
    for index, path in enumerate(paths):
        data = kept.get(lineage.uuids.get(by_path[path], ""))
        if data is None or len(data) % _UUID_DIGEST:  # never kept, or damaged
            todo.append(index)
            data = b""
        found.append(data)
    for index, uuids in zip(todo, lineage.probe([paths[index] for index in todo])):
        found[index] = uuids
        key = by_path[paths[index]]
        lineage.uuids.pop(key, None)
        if uuids is not None:
            lineage.uuids[key] = name = state_name(uuids, UUIDS_SUFFIX)
            lineage.new[name] = uuids
    return found


def _stored_session(previous: Manifest, unit: str) -> SessionState | None:
    old = previous.units.get(unit)
    if old is None or not old.sessions:
        return None
    return previous.sessions.get(old.sessions[0])


def _previous_groups(previous: Manifest) -> dict[str, list[str]]:
    """Each directory's members in the last build, as the sorted names of their summaries."""
    out: dict[str, list[str]] = {}
    for stored in previous.sessions.values():
        if stored.group:
            out.setdefault(stored.group, []).append(stored.scan)
    return {group: sorted(names) for group, names in out.items()}


def _summaries(members: list[_Member], lineage: Lineage) -> None:
    """Each member's summary: a stored one read back, else the file scanned (all
    at once). A session whose source is gone and whose summary is lost drops out."""
    todo: list[_Member] = []
    for m in members:
        if m.summary is None:
            m.summary = load_summary(lineage.state, m.stored)
        if m.summary is None and m.path is not None:
            todo.append(m)
    if not todo:
        return
    for m, summary in zip(todo, lineage.scan([(m.path, m.label) for m in todo])):  # type: ignore[misc]
        m.summary = summary
        data = summary_bytes(summary)
        name = state_name(data, SCAN_SUFFIX)
        lineage.new[name] = data
        lineage.scans[m.key] = name
