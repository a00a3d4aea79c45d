"""A build's use of bough's archive: copy what it reads, add what only the archive has.

Claude Code deletes transcripts older than ``cleanupPeriodDays`` (30 by default)
each time it starts, Gemini CLI sessions older than 30 days by default. Every
build copies the files discovery listed into the archive (archive.py, the store),
then adds to the discovered files what only the archive still has, decompressed
into a private directory and read like any other file under its old label: the
session keeps its page, sidecar and STATS. A live file shorter than its copy
loses to it (transcripts only grow; not the files Gemini CLI rewrites whole:
archive.rewritten_whole). A file archived under two labels by an older bough
becomes one entry (:func:`relabel`); an archive that cannot be written costs
the copies, with one warning, and is still read.

A copy the last build read as it is now (the same label, size and mtime: the
manifest's ``known`` files) is only named here, not decompressed: most of a long
history is in the archive alone, and a build that reuses those sessions need not
write them out again. :meth:`Archived.decompress` writes such a copy when the
build turns out to read it after all (its plan, its jobs).

This is the stage between discovery (which only lists files) and planning.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from .archive import (
    DATA_SUFFIX,
    Archive,
    ArchiveError,
    Damaged,
    ReadOnly,
    check_place,
    utc_now,
)
from .archive_entry import RECORD_SUFFIX, Copied, Entry, label_problem, rewritten_whole
from .archive_restore import RestoreDir
from .config import BuildConfig, agent_homes
from .discover import ORPHAN_AGENT, Discovered, Known, transcript_label
from .folder_walk import FileStat
from .hidden import hide_label
from .model import Session, InputWarning
from .folder_walk import files_in
from .quick import ArchiveWalk, archive_times, keep_archive_times
from .readers.claude import ClaudeSource
from .readers.layout import copied_as_is
from .readers.layouts import LAYOUTS
from .readers.lines import peek_field, printable_name

WarnFn = Callable[[InputWarning], None]

_MAX_ORIGINS = 8


class _Stored(NamedTuple):
    """What restoring an archived copy takes of its entry."""

    kind: str
    label: str
    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, entry: Entry) -> _Stored:
        return cls(entry.kind, entry.label, entry.size, entry.mtime_ns, entry.sha256)

    def entry(self) -> Entry:
        return Entry(kind=self.kind, label=self.label, role="", size=self.size, mtime_ns=self.mtime_ns,
                     sha256=self.sha256, archived="", updated="")


@dataclass
class Archived:
    """What a build took from the archive: the private copies it reads (closed once
    every file is read), since when each session only the archive has is kept."""

    restore: RestoreDir | None = None
    since: dict[str, str] = field(default_factory=dict)  # main file label -> kept since (ISO)
    # The archive's folders and their times as this build left them (quick.py)
    times: list[list[Any]] = field(default_factory=list)
    # Live path -> (size, mtime_ns, sha256) of the copy this build made of it: the
    # readers need not hash those bytes again (Unit.known_sha256).
    digests: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    # Copies named but not yet decompressed: their path -> what restoring it takes
    # (of its entry and its meta file's: not the entries, which hold far more).
    deferred: dict[str, tuple[_Stored, _Stored | None]] = field(default_factory=dict)
    archive: Archive | None = None  # where the deferred copies are
    warn: WarnFn | None = None
    late: list[InputWarning] = field(default_factory=list)  # what :meth:`decompress` warned of

    def decompress(self, paths: Iterable[str]) -> set[str]:
        """Write out the deferred copies among ``paths``; return those that could not
        be (damaged, or changed by another build since: a warning each). The archive
        is read under its shared lock, as a build that cannot write it reads it."""
        wanted = [path for path in dict.fromkeys(paths) if path in self.deferred]
        failed: set[str] = set()
        if not wanted or self.archive is None or self.restore is None:
            return failed

        def warn(warning: InputWarning) -> None:
            self.late.append(warning)
            if self.warn is not None:
                self.warn(warning)

        with self.archive.locked(exclusive=False):
            for path in wanted:
                copy, meta = self.deferred.pop(path)
                if _restore(self.archive, copy.entry(), meta and meta.entry(), self.restore.path, warn) is None:
                    failed.add(path)
        return failed

    def read_all(self) -> None:
        """Nothing more is read: the copies still deferred are let go (the names of a
        long history's copies are megabytes, and publishing comes after)."""
        self.deferred = {}

    def close(self) -> None:
        if self.restore is not None:
            self.restore.close()
            self.restore = None

    def __enter__(self) -> Archived:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # the private copies decompressed from the archive

    def mark(self, sessions: Iterable[Session]) -> None:
        """Set ``kept_since`` on the sessions whose main file only the archive still has."""
        for session in sessions:
            if session.files and session.files[0] in self.since:
                session.kept_since = self.since[session.files[0]]


def sync_archive(found: Discovered, config: BuildConfig, warn: WarnFn, *,
                 workers: int = 1, known: Known | None = None) -> tuple[Discovered, Archived]:
    """Copy every live file ``found`` lists into the archive (what is new or grew,
    compressed by ``workers`` processes); return what there is to read: ``found``
    with what only the archive still has (and the archived copy of any file that
    got shorter), a new value (``found`` is left as it was), and what was taken
    from the archive, which the caller closes once every file is read. Copies of
    the ``known`` files (the last build's) are deferred: see the module's docstring."""
    archived = Archived(warn=warn)
    if config.archive is None:
        return found, archived
    found = _copy_of(found)
    scope = scope_roots(config)
    check_place(config.archive, config.out, scope + agent_homes())
    archive: Archive | None = None
    try:
        archive = Archive.open(config.archive)
        with archive.locked(exclusive=True):
            archive.check_writable()
            _sync(archive, archived, found, config, warn, workers, scope, known or {})
    except ReadOnly as err:
        # Like a full disk, a read-only archive costs the copies, not the site (docs/safety.md S8).
        archived.close()
        warn(InputWarning(str(config.archive), 0, f"bough's archive cannot be written ({err}): this build archives "
                                             "nothing, and reads the sessions it already holds"))
        if archive is not None:
            _read_only(archive, archived, found, config, warn, scope)
    archived.archive = archive
    return found, archived


def _copy_of(found: Discovered) -> Discovered:
    """A Discovered that the merge may change without changing ``found``: its lists,
    labels, stats and Claude sources are its own (the paths are shared: a Path is
    never changed)."""
    return replace(found, claude=[replace(source, subagents=list(source.subagents)) for source in found.claude],
                   codex=list(found.codex), inputs=list(found.inputs), labels=dict(found.labels),
                   gemini=list(found.gemini), gemini_roots=list(found.gemini_roots),
                   gemini_passed=set(found.gemini_passed), stats=dict(found.stats),
                   agents={kind: list(paths) for kind, paths in found.agents.items()})


def _sync(archive: Archive, archived: Archived, found: Discovered, config: BuildConfig, warn: WarnFn, workers: int,
          scope: list[Path], known: Known) -> None:
    """With the archive locked: copy what is new or grew, then add what only it has."""
    entries, problems = archive.entries(clean=True)
    for problem in problems:
        warn(InputWarning(str(archive.root), 0, f"archive: {problem}"))
    checked = archive.labels_current
    changed = not checked and relabel(archive, entries, warn)
    walked: ArchiveWalk = {}  # its copies as it holds them (_Sync._copied), and its folders' times
    archive_times(archive.root, walked=walked)
    work = _Sync(archive, entries, utc_now(), found.stat, lambda: _private(archive, archived), walked)
    work.look(found)
    if work.records or work.copies:
        archive.forget_index()  # written again below, once the copies and records are
        work.copy(warn, workers)
        archived.digests = work.digests
        archive.save_index(entries.values())
    elif not archive.indexed or changed or archive.labels_current != checked:
        archive.save_index(entries.values())
    _merge(_Merge(archive, archived, found, entries, warn, live=work.live, known=known), work.shorter, scope, config)
    # Still locked: no other build's copies among them; only the folders this build wrote in are listed again.
    archived.times = archive_times(archive.root, before=walked)
    keep_archive_times(archive.root, archived.times)


def _read_only(archive: Archive, archived: Archived, found: Discovered, config: BuildConfig, warn: WarnFn,
               scope: list[Path]) -> None:
    """An archive that cannot be written: what it holds is read (decompressed
    elsewhere), a live file shorter than its copy loses to it, nothing is copied."""
    try:
        with archive.locked(exclusive=False):
            entries, problems = archive.entries()
            for problem in problems:
                warn(InputWarning(str(archive.root), 0, f"archive: {problem}"))
            if not archive.labels_current:
                entries = _without_stale_labels(entries)
            walked: ArchiveWalk = {}
            archived.times = archive_times(archive.root, walked=walked)  # (a read-only archive: left as it is)
            work = _Sync(archive, entries, utc_now(), found.stat, lambda: _private(archive, archived, writable=False),
                         walked)
            work.look(found)  # only to find the files shorter than their copy: nothing is copied
            _merge(_Merge(archive, archived, found, entries, warn, writable=False, live=work.live), work.shorter,
                   scope, config)
    except (ArchiveError, OSError) as err:
        archived.close()
        warn(InputWarning(str(archive.root), 0, f"bough's archive cannot be read either ({err}): "
                                           "this build reads only the live transcripts"))


def _merge(merge: _Merge, shorter: set[tuple[str, str]], scope: list[Path], config: BuildConfig) -> None:
    for key in sorted(shorter):
        merge.warn(InputWarning(key[1], 0, f"shorter than bough's archived copy ({merge.entries[key].size:,} "
                                      "bytes); transcripts only grow, so this build reads the archived copy"))
    try:
        merge.run(shorter, scope, config)
    except BaseException:
        merge.archived.close()
        raise


def _private(archive: Archive, archived: Archived, *, writable: bool = True) -> Path:
    """This build's private folder (removed when it closes ``archived``): where the
    archive's copies are decompressed and an agent's database is exported."""
    if archived.restore is None:
        archived.restore = archive.restore_dir(writable=writable)
    return archived.restore.path


def scope_roots(config: BuildConfig) -> list[Path]:
    """The places a build reads: archived files from elsewhere stay out of its site."""
    return [Path(os.path.abspath(root)) for root in config.roots()]


# --------------------------------------------------------------------------- one transcript, one entry


def relabel(archive: Archive, entries: dict[tuple[str, str], Entry], warn: WarnFn) -> bool:
    """Each archived file under the label discovery gives it now (discover.transcript_label,
    from where it was last copied from): before that label was made from the end
    of the path alone, a file given on its own, or under another level of its
    tree, was archived under another label too, and a site showed its session
    twice (docs/safety.md S8). Entries that are the same file become one, in
    ``entries`` and on disk: the longest copy is kept (a transcript only grows; for
    a file the agent rewrites whole, the latest), dated from the first one kept
    (so its page says since when bough keeps it), with every place it came from;
    then the others go. A failure leaves the entries it did not get to as they were.
    Whether it changed the archive."""
    groups = _stale_labels(entries)
    if not groups:
        archive.labels_current = True
        return False
    archive.forget_index()  # written again by the build, once the records are
    moved = {entry.key: (label, entry.label) for (_kind, label), members in groups.items() for entry in members}
    try:
        pending = sorted(groups)
        while pending:
            # A label some entry is to leave is taken only once it has left (never two at once).
            ready = [key for key in pending if key not in moved or key not in entries]
            for kind, label in ready:
                _join(archive, entries, kind, label, [entries[e.key] for e in groups[(kind, label)]], moved)
            pending = [key for key in pending if key not in ready] if ready else []
        for entry in sorted(entries.values(), key=lambda e: e.key):
            mapped = _with_moved_names(entry, [entry], moved)
            if mapped != entry:
                archive.write_record(mapped, durable=True)
                entries[entry.key] = mapped
        archive.labels_current = not _stale_labels(entries)  # none left behind (two taking each other's label)
    except OSError as err:
        warn(InputWarning(str(archive.root), 0, f"archive: copies of one file under two names not made one: "
                                           f"{err.strerror or err}"))
    return True


def _stale_labels(entries: dict[tuple[str, str], Entry]) -> dict[tuple[str, str], list[Entry]]:
    """The entries whose label is not the one their file has now, by that label."""
    groups: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries.values():
        if entry.origins and entry.kind not in LAYOUTS:  # a Layout's labels were always its own
            label = transcript_label(entry.origins[-1])
            if label != entry.label and not label_problem(label):
                groups.setdefault((entry.kind, label), []).append(entry)
    return groups


def _without_stale_labels(entries: dict[tuple[str, str], Entry]) -> dict[tuple[str, str], Entry]:
    """For an archive that cannot be written: an entry under an old label is left
    out when its file's entry under the label it has now is there (one session,
    not two); one alone is read under its old label."""
    stale = {entry.key for (kind, label), members in _stale_labels(entries).items()
             if (kind, label) in entries for entry in members}
    return {key: entry for key, entry in entries.items() if key not in stale}


def _join(archive: Archive, entries: dict[tuple[str, str], Entry], kind: str, label: str, stale: list[Entry],
          moved: dict[tuple[str, str], tuple[str, str]]) -> None:
    """One file's entries as one, under ``label``: on disk, then in ``entries``."""
    current = entries.get((kind, label))
    members = ([current] if current is not None else []) + sorted(stale, key=lambda e: e.key)
    best = max(members, key=lambda e: _keep_rank(e, label))
    base = current or best
    joined = replace(
        best, label=label, role=base.role, session=base.session, orphan=base.orphan,
        archived=min(member.archived for member in members),
        origins=_joined_origins(members, best),
    )
    joined = _with_moved_names(joined, members, moved)
    if best is current:
        if joined != current:
            archive.write_record(joined, durable=True)
    else:
        archive.adopt(best, joined)
    entries[joined.key] = joined
    for member in stale:
        archive.remove(member)
        del entries[member.key]


def _keep_rank(entry: Entry, label: str) -> tuple[Any, ...]:
    """Which copy of one file to keep: the longest (the latest for a file rewritten
    whole), then the one already under the label it has now."""
    if rewritten_whole(entry.kind, label):
        return (entry.updated, entry.size, entry.label == label)
    return (entry.size, entry.updated, entry.label == label)


def _joined_origins(members: list[Entry], best: Entry) -> tuple[str, ...]:
    ordered: list[str] = []
    for member in [m for m in members if m is not best] + [best]:
        for origin in member.origins:
            if origin in ordered:
                ordered.remove(origin)
            ordered.append(origin)
    return tuple(ordered[-_MAX_ORIGINS:])


def _with_moved_names(entry: Entry, members: list[Entry], moved: dict[tuple[str, str], tuple[str, str]]) -> Entry:
    """``entry`` whose session and sub-agents are named as they are now: those of
    every entry in ``members`` (the copies of one file), moved as their files were.
    A sub-agent with no entry of its own moves with its session's folder."""
    def now(label: str, owner: Entry) -> str:
        if (owner.kind, label) in moved:
            return moved[(owner.kind, label)][0]
        if owner.key in moved:  # <session>/subagents/… follows <session>.jsonl
            new, old = moved[owner.key]
            folder = old.removesuffix(".jsonl") + "/"
            if label.startswith(folder):
                return new.removesuffix(".jsonl") + "/" + label[len(folder):]
        return label

    subagents = {now(label, member) for member in members for label in member.subagents}
    session = now(entry.session, entry) if entry.session is not None else None
    changed = replace(entry, subagents=tuple(sorted(subagents, key=subagent_order)), session=session)
    return entry if changed.subagents == entry.subagents and changed.session == entry.session else changed


@dataclass
class _Copy:
    """A live file to copy into the archive: new, or grown since its copy."""

    path: Path
    old: Entry | None
    entry: Entry  # the record it will have (its size, mtime and sha256 filled in by the copy)


class _Sync:
    """What the live files ask of the archive: copies to make, records whose facts
    changed (a file moved, a sub-agent more), files shorter than their copy."""

    def __init__(self, archive: Archive, entries: dict[tuple[str, str], Entry], now: str,
                 stat_of: Callable[[Path], FileStat], private: Callable[[], Path], walked: ArchiveWalk) -> None:
        self.archive, self.entries, self.now, self.stat = archive, entries, now, stat_of
        self.private, self.walked = private, walked
        # (kind, label) of every file of an agent a Layout describes that is live,
        # a database's exported sessions included: the archive adds the others.
        self.live: set[tuple[str, str]] = set()
        self.copies: list[_Copy] = []
        self.records: list[Entry] = []
        self.shorter: set[tuple[str, str]] = set()
        self.digests: dict[str, tuple[int, int, str]] = {}

    def look(self, found: Discovered) -> None:
        for source in found.claude:
            main = found.label(source.main)
            labels = [found.label(path) for path in source.subagents]
            self._file("claude", source.main, main, role="session", subagents=labels,
                       orphan=_is_orphan_agent(source))
            for path, label in zip(source.subagents, labels):
                self._file("claude", path, label, role="subagent", session=main)
                # _file passes over a meta file that is not there (or not a regular file)
                meta = _meta_path(str(path))
                if not found.absent(meta):
                    self._file("claude", Path(meta), _meta_label(label), role="meta", session=main)
        for path in found.codex:
            if not path.name.endswith(".zst"):  # not read either: the reader skips compressed rollouts
                self._file("codex", path, found.label(path), role="rollout")
        self._gemini(found)
        self._agents(found)

    def _agents(self, found: Discovered) -> None:
        """The files of the agents a Layout describes, as its ``snapshot`` gives each:
        the file itself, or (a database) a file per session exported into this
        build's private folder, archived as coming from the database."""
        for kind, paths in found.agents.items():
            layout = LAYOUTS[kind]
            for path in paths:
                label = found.label(path)
                for part_label, part in self._snapshot(layout, path, label):
                    self.live.add((kind, part_label))
                    role = "session" if layout.holds_session(part_label) else "meta"
                    self._file(kind, part, part_label, origin=path, role=role)

    def _snapshot(self, layout: Any, path: Path, label: str) -> list[tuple[str, Path]]:
        if layout.snapshot is copied_as_is:
            return [(label, path)]
        return layout.snapshot(path, label, self.private())

    def _gemini(self, found: Discovered) -> None:
        """Gemini CLI's session files (a sub-agent's sits in ``chats/<sessionId>/``) and
        the files its roots are written in: without them a session restored from
        the archive could lose its working directory (docs/formats-gemini.md §6)."""
        for path in found.gemini:
            role = "subagent" if path.parent.parent.name == "chats" else "session"
            self._file("gemini", path, found.label(path), role=role)
        for path in found.gemini_roots:
            self._file("gemini", path, found.label(path), role="meta")

    def _file(self, kind: str, path: Path, label: str, origin: Path | None = None, **facts: Any) -> None:
        key = (kind, label)
        old = self.entries.get(key)
        try:
            info = self.stat(path)
        except OSError:
            return  # gone since discovery listed it: the reader will say so
        if not stat.S_ISREG(info.st_mode):
            return
        if old is not None and info.st_size < old.size and not rewritten_whole(kind, label):
            self.shorter.add(key)
            return
        new = _with_facts(old or _blank(kind, label, self.now), _origin(str(origin or path)), facts)
        if old is not None and (info.st_size, info.st_mtime_ns) == (old.size, old.mtime_ns) and self._copied(old):
            if new is not old and new != old:
                self.entries[key] = new
                self.records.append(new)
            return
        self.copies.append(_Copy(path, old, replace(new, updated=self.now)))

    def _copied(self, entry: Entry) -> bool:
        """Whether ``entry``'s copy and its record are there, as the walk of the archive
        at the start of the build listed its folder (a listing per folder, not a stat
        per file). A record deleted by hand is made again with its copy: the records
        are what a build reads when the index is gone."""
        folder, _, name = entry.label.rpartition("/")
        files = files_in(self.walked.get(entry.kind, {}), folder)
        return name + DATA_SUFFIX in files and name + RECORD_SUFFIX in files

    def copy(self, warn: WarnFn, workers: int) -> None:
        """Make the copies and their records (in parallel), then write every other record that changed."""
        from .jobs import parallel_map

        done = parallel_map(_copy_one, [(self.archive, copy) for copy in self.copies], workers,
                            sizes=[self.stat(copy.path).st_size for copy in self.copies])  # stat'ed by _file
        made = [copied for copied, _error in done if copied is not None]
        try:
            self.archive.commit(made)
        except OSError as err:
            self.archive.discard(made)
            warn(InputWarning(str(self.archive.root), 0, f"copies not put in place in the archive: {err.strerror or err}"))
            done = [(None, str(err.strerror or err)) for _ in done]
        for copy, (copied, error) in zip(self.copies, done):
            if error:
                warn(InputWarning(copy.entry.label, 0, f"not copied into the archive {self.archive.root}: {error}"))
            elif copied is None:  # it got shorter while it was being copied
                self.shorter.add(copy.entry.key)
            else:
                self.entries[copied.entry.key] = copied.entry
                self.digests[str(copy.path)] = (copied.entry.size, copied.entry.mtime_ns, copied.entry.sha256)
                if copied.record_temp is None:  # the same bytes: its record may still have changed
                    self.records.append(copied.entry)
        for record in self.records:
            try:
                self.archive.write_record(record)
            except OSError as err:
                warn(InputWarning(record.label, 0, f"not recorded in the archive {self.archive.root}: "
                                              f"{err.strerror or err}"))


def _copy_one(task: tuple[Archive, _Copy]) -> tuple[Copied | None, str]:
    """One copy, in a worker process: the copy made (None: the file got shorter), or why it failed."""
    archive, copy = task
    try:
        return archive.copy(copy.path, copy.old, copy.entry), ""
    except OSError as err:
        return None, str(err.strerror or err)


def _blank(kind: str, label: str, now: str) -> Entry:
    return Entry(kind=kind, label=label, role="", size=0, mtime_ns=0, sha256="", archived=now, updated=now)


def _with_facts(entry: Entry, origin: str, facts: dict[str, Any]) -> Entry:
    """``entry`` with what this build saw: where the file is (``origin``, printable),
    its role, and (for a session) its sub-agents, as the union with those it had before."""
    if _has_facts(entry, origin, facts):
        return entry  # nothing new: the record stays as it is
    origins = tuple(o for o in entry.origins if o != origin)[-(_MAX_ORIGINS - 1):] + (origin,)
    if "subagents" in facts:
        facts = {**facts, "subagents": tuple(sorted({*entry.subagents, *facts["subagents"]}, key=subagent_order))}
    return replace(entry, origins=origins, **facts)


def _has_facts(entry: Entry, origin: str, facts: dict[str, Any]) -> bool:
    """Whether ``entry`` already says all of this (as most do: tens of thousands a build)."""
    if not entry.origins or entry.origins[-1] != origin:
        return False
    for name, value in facts.items():
        if name == "subagents":
            if tuple(value) != entry.subagents and not set(value) <= set(entry.subagents):
                return False
        elif getattr(entry, name) != value:
            return False
    return True


def _is_orphan_agent(source: ClaudeSource) -> bool:
    """An old-layout sub-agent file that discovery made a session of its own."""
    name = source.main.name
    return not source.subagents and name.startswith("agent-") and peek_field(source.main, "isSidechain") is True


def subagent_order(label: str) -> tuple[Any, ...]:
    """The order discovery lists a session's sub-agents in: ``<id>/subagents/`` files
    by name, then ``subagents/workflows/*/``, then old-layout files beside the session."""
    parts = label.split("/")
    if len(parts) >= 2 and parts[-2] == "subagents":
        return (0, (parts[-1],))
    if len(parts) >= 4 and parts[-4] == "subagents" and parts[-3] == "workflows":
        return (1, (parts[-2], parts[-1]))
    return (2, (parts[-1],))


def _origin(path: str) -> str:
    """Where a file is, as its record names it: ``os.path.abspath``, printable, without
    their work for a path that is both already (discovery's: tens of thousands)."""
    if not (path.startswith("/") and "//" not in path and "/./" not in path and "/../" not in path
            and not path.endswith(("/", "/.", "/.."))):
        path = os.path.abspath(path)
    return path if path.isascii() else printable_name(path)


def _meta_path(path: str) -> str:
    return os.path.splitext(path)[0] + ".meta.json"


def _meta_label(label: str) -> str:
    return label.removesuffix(".jsonl") + ".meta.json"


class _Merge:
    """Adds to a Discovered what only the archive still has."""

    def __init__(self, archive: Archive, archived: Archived, found: Discovered,
                 entries: dict[tuple[str, str], Entry], warn: WarnFn, *, writable: bool = True,
                 live: set[tuple[str, str]] | None = None, known: Known | None = None):
        self.archive, self.archived, self.found, self.entries, self.warn = archive, archived, found, entries, warn
        self.writable = writable
        self.live = live or set()
        self.known = known or {}
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
        if config.wants("gemini"):
            self._gemini(sorted((e for e in self.entries.values() if e.kind == "gemini" and e.role != "meta"
                                 and _in_scope(e, scope)), key=lambda e: e.label))
        for kind in LAYOUTS:
            if config.wants(kind):
                self._agent(kind, sorted((e for e in self.entries.values() if e.kind == kind and _in_scope(e, scope)),
                                         key=lambda e: e.label))

    def _agent(self, kind: str, wanted: list[Entry]) -> None:
        """The files of an agent a Layout describes that only the archive still has
        (a session gone from its database too), read with the live ones: the
        layout's ``units`` groups them by label."""
        listed = self.found.agents.setdefault(kind, [])
        for entry in wanted:
            if (kind, entry.label) in self.live or (path := self._restored(kind, entry.label)) is None:
                continue
            listed.append(path)
            if entry.is_session():
                self.archived.since[entry.label] = entry.archived

    def _restored(self, kind: str, label: str, *, now: bool = False) -> Path | None:
        """The archived copy of ``label`` for this build to read; None (with a warning
        when the copy is damaged) when there is none. A Claude or Codex copy the
        last build read as it is is deferred (:meth:`Archived.decompress`), unless ``now``."""
        entry = self.entries.get((kind, label))
        if entry is None:
            return None
        if entry.key not in self._done:
            later = not now and kind in _DEFERRED and (hide_label(label), entry.size, entry.mtime_ns) in self.known
            self._done[entry.key] = self._defer(entry) if later else self._restore(entry)
        path = self._done[entry.key]
        if now and path is not None and self.archived.decompress([str(path)]):
            return None
        return path

    def _defer(self, entry: Entry) -> Path:
        """``entry``'s copy named where it would be decompressed, with the stat it would have."""
        # A string first: pathlib's joins cost more than the rest (26,000 copies in a long history).
        path = Path(f"{_private(self.archive, self.archived, writable=self.writable)}/{entry.kind}/{entry.label}")
        text = str(path)
        self.found.labels[path] = entry.label
        self.found.stats[text] = FileStat(stat.S_IFREG | 0o600, entry.size, entry.mtime_ns)
        meta = self._meta(entry)
        self.archived.deferred[text] = (_Stored.of(entry), meta and _Stored.of(meta))
        return path

    def _restore(self, entry: Entry) -> Path | None:
        folder = _private(self.archive, self.archived, writable=self.writable)
        path = _restore(self.archive, entry, self._meta(entry), folder, self.warn)
        if path is not None:
            self.found.labels[path] = entry.label
        return path

    def _meta(self, entry: Entry) -> Entry | None:
        """The entry of a sub-agent's meta file, decompressed beside it (when archived)."""
        return self.entries.get((entry.kind, _meta_label(entry.label))) if entry.label.endswith(".jsonl") else None

    def _replace_shorter(self, kind: str, label: str) -> None:
        """A live file shorter than its copy: the build reads the copy instead."""
        found = self.found
        lists = ({"codex": [found.codex], "gemini": [found.gemini]}.get(kind)
                 or ([found.agents.get(kind, [])] if kind in LAYOUTS else [s.subagents for s in found.claude]))
        for paths in lists:
            for i, path in enumerate(paths):
                if found.label(path) == label and (copy := self._restored(kind, label, now=True)) is not None:
                    paths[i] = copy
        if kind == "claude":
            for source in found.claude:
                if found.label(source.main) == label and (copy := self._restored(kind, label, now=True)) is not None:
                    source.main = copy
        if kind == "gemini":
            self._gemini_roots([label])

    def _claude(self, wanted: list[Entry]) -> None:
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
            self.archived.since[entry.label] = entry.archived
            if entry.orphan:
                self.warn(InputWarning(entry.label, 0, ORPHAN_AGENT))

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
                self.archived.since[entry.label] = entry.archived


    def _gemini(self, wanted: list[Entry]) -> None:
        """Gemini files only the archive still has (sessions and sub-agents): restored
        with the roots written down beside them, then the read-once rules over them
        and the live files of the same names (an archived slug folder's copy
        outranks a live hash folder's, a .jsonl the .json it continues)."""
        from .readers.gemini_files import copy_key, read_once

        found = self.found
        live = {found.label(path) for path in found.gemini} | found.gemini_passed
        restored: list[Path] = []
        for entry in wanted:
            if entry.label in live or (path := self._restored("gemini", entry.label)) is None:
                continue
            restored.append(path)
            self.archived.since[entry.label] = entry.archived
        if not restored:
            return
        self._gemini_roots([found.label(path) for path in restored])
        names = {copy_key(path) for path in restored}
        rivals = [path for path in found.gemini if copy_key(path) in names]
        read, _ = read_once(rivals + restored)
        found.gemini = [path for path in found.gemini if path not in rivals] + read


    def _gemini_roots(self, labels: list[str]) -> None:
        """Beside restored Gemini files, the roots written down for them (when archived):
        the reader finds them there as it would in the Gemini directory."""
        from .readers.gemini_files import project_folder

        roots = {"projects.json"} | {f"{project_folder(Path(label)).as_posix()}/.project_root" for label in labels}
        for label in sorted(roots):
            self._restored("gemini", label)


# The kinds whose archived copies may be deferred: the merge only names their files
# (Gemini's read-once rules and a Layout's units look at theirs at once).
_DEFERRED = ("claude", "codex")


def _restore(archive: Archive, entry: Entry, meta: Entry | None, folder: Path, warn: WarnFn) -> Path | None:
    """``entry``'s copy decompressed into ``folder`` (its meta file beside it); None,
    with a warning, when it cannot be."""
    try:
        path = archive.restore(entry, folder)
    except Damaged as err:
        warn(InputWarning(entry.label, 0, f"bough's archived copy is damaged ({err}), skipped; "
                                          "`bough archive --verify` lists every damaged copy"))
        return None
    except OSError as err:
        warn(InputWarning(entry.label, 0, f"bough's archived copy could not be decompressed "
                                          f"into {folder}: {err.strerror or err}"))
        return None
    if meta is not None:
        with contextlib.suppress(Damaged, OSError):  # a sub-agent is read without its meta file too
            archive.restore(meta, folder)
    return path


def _codex_rank(entry: Entry) -> tuple[int, bool, str, str]:
    return (entry.size, entry.label.startswith("archived_sessions/"), entry.archived, entry.label)


def _in_scope(entry: Entry, scope: list[Path]) -> bool:
    # Strings, not pathlib: every archived session is asked (origins are absolute paths).
    roots = [str(root).rstrip("/") for root in scope]
    for origin in entry.origins:
        if any(origin == root or origin.startswith(root + "/") or root == "" for root in roots):
            return True
    return False
