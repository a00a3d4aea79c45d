"""The incremental planner: from the last build's manifest and what discovery
found now, what this build reads, what it reuses and what is gone.

:func:`make_plan` is a plain function of its inputs. The few facts it needs
from disk come in as values (each unit's files now: size and mtime) or as
functions the caller passes (a checksum of a touched file, whether a session's
outputs are still in OUT, the resume pre-scan), so it can be tested without a
site. The rules:

- A unit is *unchanged* when it has the same kind, archive dates and files as
  last time, each with the same label and size, and the same mtime or (a file
  only touched) the same checksum of the bytes read (Lektor's rule: the cheap
  checks first, the checksum only when they differ).
- An unchanged unit is *reused* (not read; its sessions' pages kept) when the
  options digest is the same, every output and state file of its sessions is
  still there, and what its session inherits from an earlier one (resumes,
  plan/lineage.py) is what it was. Every other unit is read again.
- A session of the last build whose unit is gone, or whose unit no longer makes
  it, is *gone*: it keeps its pages and summary (the archive may bring its
  source back) unless ``--prune``, or unless a session read now has its source
  and id (that copy wins): see :func:`gone_sessions`.
- Page names: a session's page is ``slug(session id)`` unless two sessions would
  share it. Before anything is read, :func:`make_plan` counts the names each
  unit is known to take (a Claude unit: its file's name, redacted; a Codex
  unit: the names its sessions had; a gone session: its own), so the first
  pass can render every session whose name is certainly its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..manifest import FileState, Manifest, SessionState, UnitState
from ..state import StateStore
from .lineage import Lineage, ProbeFn, ScanFn, plan_lineage
from .units import CLAUDE, Unit, optimistic_slug

# (path, size) -> the sha256 of its first ``size`` bytes ("" when unreadable).
ChecksumFn = Callable[[str, int], str]
# Whether every file a session of the last build owns (pages, state) is still in OUT.
PresentFn = Callable[[SessionState], bool]


@dataclass(frozen=True)
class DiskAnswers:
    """How the planner's few questions to the disk are answered: functions (and the
    state store) the caller passes, so that the planner is tested without a site."""

    checksum: ChecksumFn
    present: PresentFn
    scan: ScanFn  # the resume pre-scan (plan/lineage.py)
    probe: ProbeFn
    state: StateStore


@dataclass
class Plan:
    same_options: bool  # the options digest is the last build's
    read: list[Unit]  # units to read and render, in discovery order
    estimates: dict[str, int]  # unit key -> how many sessions it will likely make (progress)
    reused_units: dict[str, UnitState]  # units not read: their state, with their files as they are now
    reused: list[SessionState]  # the sessions of those units, as the last build made them
    own_slugs: dict[str, tuple[str, ...]]  # unit key -> the names it counted in slug_counts
    slug_counts: tuple[tuple[str, int], ...]  # page name (case-folded) -> sessions known to take it
    lineage: Lineage


def make_plan(previous: Manifest, units: list[Unit], now: dict[str, list[FileState | None]], digest: str, *,
              name: Callable[[str], str], disk: DiskAnswers, prune: bool) -> Plan:
    """What this build reads and reuses. ``now`` gives each unit's files as they
    are (:meth:`Unit.states`); ``name`` redacts a Claude file's stem into the
    session id its page is named by; ``disk`` answers what else it asks."""
    checksum, present = disk.checksum, disk.present
    same_options = previous.options == digest
    same_files = {unit.key: states for unit in units
                  if (states := unchanged(unit, previous.units.get(unit.key), now[unit.key], checksum)) is not None}
    reusable = {key for key in same_files if same_options and _outputs_present(previous, key, present)}
    claude = [(unit.key, unit.paths[0], unit.labels[0]) for unit in units if unit.kind == CLAUDE]
    lineage = plan_lineage(claude, previous, same_files, reusable, state=disk.state, prune=prune, scan=disk.scan,
                           probe=disk.probe)

    def claude_name(unit: Unit) -> tuple[str, ...]:
        """Its file's name, redacted: as the last build worked it out, when the options are the same."""
        old = previous.units.get(unit.key)
        if same_options and old is not None and old.names:
            return tuple(old.names)
        return (optimistic_slug(name(Path(unit.paths[0]).stem)).casefold(),)

    own, counts = _known_names(previous, units, claude_name)
    read: list[Unit] = []
    estimates: dict[str, int] = {}
    reused_units: dict[str, UnitState] = {}
    reused: list[SessionState] = []
    for unit in units:
        old = previous.units.get(unit.key)
        if old is None or unit.key not in reusable or old.inherit != lineage.digest(unit.key):
            read.append(unit)
            estimates[unit.key] = 1 if unit.kind == CLAUDE or old is None else max(1, len(old.sessions))
            continue
        reused_units[unit.key] = UnitState(old.kind, same_files[unit.key], old.sessions, old.warnings, old.since,
                                           old.inherit, list(own[unit.key]) if unit.kind == CLAUDE else [])
        reused += [previous.sessions[key] for key in old.sessions]
    return Plan(same_options, read, estimates, reused_units, reused, own, counts, lineage)


def unchanged(unit: Unit, old: UnitState | None, now: list[FileState | None],
              checksum: ChecksumFn) -> list[FileState] | None:
    """The unit's files now, when they hold what was read last time; else None.
    Size and mtime first; the checksum only when they differ (a touched file)."""
    if old is None or old.kind != unit.kind or old.since != unit.since_digest() or len(old.files) != len(now):
        return None
    same: list[FileState] = []
    for path, state, before in zip(unit.paths, now, old.files):
        if state is None or state.label != before.label or state.size != before.size:
            return None
        if state.mtime_ns != before.mtime_ns and checksum(path, state.size) != before.sha256:
            return None
        same.append(FileState(state.label, state.size, state.mtime_ns, before.sha256))
    return same


def _outputs_present(previous: Manifest, unit: str, present: PresentFn) -> bool:
    for key in previous.units[unit].sessions:
        stored = previous.sessions.get(key)
        if stored is None or not present(stored):
            return False
    return True


def _known_names(previous: Manifest, units: list[Unit], claude_name: Callable[[Unit], tuple[str, ...]],
                 ) -> tuple[dict[str, tuple[str, ...]], tuple[tuple[str, int], ...]]:
    """The page names each unit is known to take before it is read, and how many
    units (and gone sessions) take each."""
    counts: Counter[str] = Counter()
    own: dict[str, tuple[str, ...]] = {}
    for unit in units:
        if unit.kind == CLAUDE:
            mine = claude_name(unit)
        else:
            old = previous.units.get(unit.key)
            mine = tuple(previous.sessions[k].slug.casefold() for k in (old.sessions if old else ())
                         if k in previous.sessions)
        own[unit.key] = mine
        counts.update(mine)
    current = {unit.key for unit in units}
    for stored in previous.sessions.values():
        if stored.unit not in current:  # gone: it keeps its name
            counts[stored.slug.casefold()] += 1
    return own, tuple(sorted(counts.items()))


def gone_sessions(previous: Manifest, made: Collection[str], live: Iterable[tuple[object, object]], *,
                  prune: bool) -> list[SessionState]:
    """The last build's sessions that this build neither read nor reused (``made``:
    their keys), kept with their pages: not with ``--prune``, and not when a
    session of this build has the same source and id (``live``): that copy wins."""
    if prune:
        return []
    back = set(live)
    return [stored for key, stored in previous.sessions.items()
            if key not in made and (stored.summary.get("source"), stored.summary.get("id")) not in back]


__all__ = ["DiskAnswers", "Plan", "make_plan", "unchanged", "gone_sessions", "Lineage"]

