"""The incremental planner (bough_site/plan/), alone: a previous manifest and the
files as they are now in, what to read, reuse and keep as gone out. No site is
built: what the planner would learn from disk is given to it as values and
small functions, and each test says what it saw."""

from __future__ import annotations

from pathlib import Path

import pytest

from bough_site.inherit import FileSummary
from bough_site.jobs import Job
from bough_site.manifest import FileState, Manifest, SessionState, UnitState
from bough_site.plan import DiskAnswers, gone_sessions, make_plan, unchanged
from bough_site.plan.lineage import ALONE, alone_in, group_of, uuid_digests
from bough_site.plan.units import CLAUDE, CODEX, Unit, optimistic_slug
from bough_site.state import StateStore
from bough_site.hidden import hide

DIGEST = "options-1"


def claude_unit(label: str, *subagents: str) -> Unit:
    labels = (label, *subagents)
    return Unit(f"claude-{hide(label)}", CLAUDE, tuple(f"/src/{name}" for name in labels), labels)


def state(label: str, size: int = 100, mtime: int = 1, sha: str = "sha-a") -> FileState:
    return FileState(hide(label), size, mtime, sha)


def session(unit: Unit, session_id: str, slug: str | None = None, source: str = "claude-code") -> SessionState:
    key = unit.session_key(session_id)
    return SessionState(key, unit.key, slug or session_id, {"id": "p", "name": "p", "cwd": "/p"},
                        {"id": session_id, "source": source}, [f"projects/p/sessions/{slug or session_id}.html"],
                        f"{session_id}.json")


def manifest(*units: tuple[Unit, list[FileState], list[SessionState]], options: str = DIGEST,
             inherit: dict[str, str] | None = None) -> Manifest:
    previous = Manifest(options=options, valid=True)
    for unit, files, sessions in units:
        previous.units[unit.key] = UnitState(unit.kind, files, [s.key for s in sessions], [],
                                             inherit=(inherit or {}).get(unit.key, ""))
        for stored in sessions:
            previous.sessions[stored.key] = stored
    return previous


class Disk:
    """What the planner may ask of the disk, answered from values; it notes each question."""

    def __init__(self, checksums: dict[str, str] | None = None, missing: set[str] | None = None,
                 summaries: dict[str, FileSummary] | None = None,
                 uuids: dict[str, frozenset[str] | None] | None = None) -> None:
        self.checksums = checksums or {}
        self.uuids = uuids or {}
        self.missing = missing or set()
        self.summaries = summaries or {}
        self.checksummed: list[str] = []
        self.scanned: list[str] = []
        self.probed: list[str] = []

    def answers(self, tmp_path: Path) -> DiskAnswers:
        """These answers, and a state store in ``tmp_path``."""
        return DiskAnswers(self.checksum, self.present, self.scan, self.probe, StateStore(tmp_path))

    def checksum(self, path: str, size: int) -> str:
        self.checksummed.append(path)
        return self.checksums.get(path, "")

    def present(self, stored: SessionState) -> bool:
        return stored.key not in self.missing

    def scan(self, files: list[tuple[str, str]]) -> list[FileSummary]:
        self.scanned += [path for path, _label in files]
        return [self.summaries[path] for path, _label in files]

    def probe(self, paths: list[str]) -> list[bytes | None]:
        """The uuids given for a file, else not known (every file of its directory is compared)."""
        self.probed += paths
        return [None if self.uuids.get(path) is None else uuid_digests(self.uuids[path]) for path in paths]


def plan(previous: Manifest, units: list[Unit], now: dict[str, list[FileState | None]], disk: Disk,
         tmp_path: Path, *, digest: str = DIGEST, prune: bool = False):
    return make_plan(previous, units, now, digest, name=lambda text: text, disk=disk.answers(tmp_path), prune=prune)


A = claude_unit("-home-ada-app/aaaa.jsonl")
B = claude_unit("-home-ada-site/bbbb.jsonl")


def test_a_new_unit_is_read(tmp_path: Path) -> None:
    result = plan(Manifest(), [A], {A.key: [state(A.labels[0])]}, Disk(), tmp_path)
    assert [u.key for u in result.read] == [A.key]
    assert result.estimates == {A.key: 1}
    assert result.reused == [] and result.reused_units == {}
    assert not result.same_options


def test_an_unchanged_unit_is_reused_without_a_checksum(tmp_path: Path) -> None:
    old = session(A, "aaaa")
    disk = Disk()
    result = plan(manifest((A, [state(A.labels[0])], [old])), [A], {A.key: [state(A.labels[0], sha="")]},
                  disk, tmp_path)
    assert result.read == []
    assert result.reused == [old]
    assert result.reused_units[A.key].files == [state(A.labels[0])]  # the checksum carried over
    assert disk.checksummed == []


@pytest.mark.parametrize(("now_sha", "read"), [("sha-a", False), ("sha-b", True)])
def test_a_touched_file_is_read_only_when_its_bytes_changed(tmp_path: Path, now_sha: str, read: bool) -> None:
    disk = Disk(checksums={A.paths[0]: now_sha})
    result = plan(manifest((A, [state(A.labels[0])], [session(A, "aaaa")])), [A],
                  {A.key: [state(A.labels[0], mtime=2, sha="")]}, disk, tmp_path)
    assert disk.checksummed == [A.paths[0]]
    assert bool(result.read) is read
    if not read:
        assert result.reused_units[A.key].files == [FileState(hide(A.labels[0]), 100, 2, "sha-a")]


@pytest.mark.parametrize("change", ["size", "missing file", "label", "options", "outputs gone", "a sub-agent more"])
def test_what_makes_a_unit_read_again(tmp_path: Path, change: str) -> None:
    unit = A
    now = [state(A.labels[0])]
    previous = manifest((A, [state(A.labels[0])], [session(A, "aaaa")]))
    digest, disk = DIGEST, Disk()
    if change == "size":
        now = [state(A.labels[0], size=101)]
    elif change == "missing file":
        now = [None]
    elif change == "label":
        now = [FileState("another", 100, 1, "")]
    elif change == "options":
        digest = "options-2"
    elif change == "outputs gone":
        disk = Disk(missing={A.session_key("aaaa")})
    else:
        unit = Unit(A.key, CLAUDE, (*A.paths, "/src/agent.jsonl"), (*A.labels, "agent.jsonl"))
        now = [state(A.labels[0]), state("agent.jsonl")]
    result = plan(previous, [unit], {unit.key: now}, disk, tmp_path, digest=digest)
    assert [u.key for u in result.read] == [unit.key]
    assert result.reused == []


def test_unchanged_compares_kind_and_archive_dates() -> None:
    old = UnitState(CLAUDE, [state(A.labels[0])], [], [])
    now = [state(A.labels[0])]
    assert unchanged(A, old, now, lambda path, size: "") == [state(A.labels[0])]
    assert unchanged(A, UnitState(CODEX, old.files, [], []), now, lambda path, size: "") is None
    dated = Unit(A.key, CLAUDE, A.paths, A.labels, ((A.labels[0], "2026-01-01T00:00:00Z"),))
    assert unchanged(dated, old, now, lambda path, size: "") is None
    assert unchanged(A, None, now, lambda path, size: "") is None


def test_a_codex_unit_estimates_the_sessions_it_made(tmp_path: Path) -> None:
    codex = Unit("codex", CODEX, ("/src/r1.jsonl",), ("sessions/r1.jsonl",))
    made = [session(codex, "s1", source="codex"), session(codex, "s2", source="codex")]
    previous = manifest((codex, [state("sessions/r1.jsonl")], made))
    result = plan(previous, [codex], {codex.key: [state("sessions/r1.jsonl", size=200)]}, Disk(), tmp_path)
    assert result.estimates == {"codex": 2}
    assert result.own_slugs["codex"] == ("s1", "s2")


def test_page_names_known_before_reading(tmp_path: Path) -> None:
    """A Claude unit counts its file's name (redacted: here upper-cased), a Codex unit
    the names its sessions had, a gone session its own; two units may count one name."""
    clash = claude_unit("-home-ada-other/AAAA.jsonl")
    codex = Unit("codex", CODEX, ("/src/r1.jsonl",), ("sessions/r1.jsonl",))
    gone_unit = claude_unit("-home-ada-old/cccc.jsonl")
    previous = manifest((codex, [state("sessions/r1.jsonl")], [session(codex, "s1", source="codex")]),
                        (gone_unit, [state(gone_unit.labels[0])], [session(gone_unit, "cccc")]))
    result = make_plan(previous, [A, clash, codex], {u.key: [None] for u in (A, clash, codex)}, DIGEST,
                       name=str.upper, disk=Disk().answers(tmp_path), prune=False)
    upper = optimistic_slug("AAAA").casefold()  # not a safe name as it is: it gets a hash
    assert upper != "aaaa"
    assert result.own_slugs[A.key] == result.own_slugs[clash.key] == (upper,)
    assert dict(result.slug_counts) == {upper: 2, "s1": 1, "cccc": 1}


def test_gone_sessions_stay_unless_pruned_or_back() -> None:
    old_a, old_b = session(A, "aaaa"), session(B, "bbbb")
    previous = manifest((A, [state(A.labels[0])], [old_a]), (B, [state(B.labels[0])], [old_b]))
    assert gone_sessions(previous, {old_a.key}, [("claude-code", "aaaa")], prune=False) == [old_b]
    assert gone_sessions(previous, {old_a.key}, [("claude-code", "aaaa")], prune=True) == []
    # Read now from another file (say, its archived copy under another label): that copy wins.
    assert gone_sessions(previous, {"claude-x#bbbb"}, [("claude-code", "bbbb")], prune=False) == [old_a]


def _summary(session_id: str, label: str, records: tuple[str, ...], first: str) -> FileSummary:
    return FileSummary(session_id, hide(label), first, first, first, records, tuple(first for _ in records))


def test_a_resume_inherits_and_is_read_again_when_its_parent_changes(tmp_path: Path) -> None:
    parent = claude_unit("-home-ada-app/parent.jsonl")
    resume = claude_unit("-home-ada-app/resume.jsonl")
    summaries = {
        parent.paths[0]: _summary("parent", parent.labels[0], ("r1", "r2"), "2026-03-01T10:00:00Z"),
        resume.paths[0]: _summary("resume", resume.labels[0], ("r1", "r2", "r3"), "2026-03-01T10:00:00Z"),
    }
    disk = Disk(summaries=summaries)
    now = {parent.key: [state(parent.labels[0])], resume.key: [state(resume.labels[0])]}
    first = plan(Manifest(), [parent, resume], now, disk, tmp_path)
    assert sorted(disk.scanned) == sorted([parent.paths[0], resume.paths[0]])
    decision = first.lineage.decision(resume.key)
    assert decision is not None and decision.parent == "parent"
    assert first.lineage.decision(parent.key) is None
    assert first.lineage.digest(resume.key) == decision.digest()

    # The next build, nothing changed but the stored decision: the resume is read again.
    previous = manifest((parent, [state(parent.labels[0])], [session(parent, "parent")]),
                        (resume, [state(resume.labels[0])], [session(resume, "resume")]),
                        inherit={resume.key: "another decision"})
    second = plan(previous, [parent, resume], now, Disk(summaries=summaries), tmp_path)
    assert [u.key for u in second.read] == [resume.key]
    assert [s.key for s in second.reused] == [parent.session_key("parent")]


def test_only_files_sharing_a_uuid_are_scanned_unless_one_is_not_known(tmp_path: Path) -> None:
    parent, resume, lone = (claude_unit(f"-home-ada-app/{name}.jsonl") for name in ("parent", "resume", "lone"))
    summaries = {
        parent.paths[0]: _summary("parent", parent.labels[0], ("r1", "r2"), "2026-03-01T10:00:00Z"),
        resume.paths[0]: _summary("resume", resume.labels[0], ("r1", "r2", "r3"), "2026-03-01T10:00:00Z"),
        lone.paths[0]: _summary("lone", lone.labels[0], ("r9",), "2026-03-02T10:00:00Z"),
    }
    uuids = {parent.paths[0]: frozenset({"u1", "u2"}), resume.paths[0]: frozenset({"u1", "u2", "u3"}),
             lone.paths[0]: frozenset({"u9"})}
    units = [parent, resume, lone]
    now = {u.key: [state(u.labels[0])] for u in units}
    disk = Disk(summaries=summaries, uuids=uuids)
    result = plan(Manifest(), units, now, disk, tmp_path)
    assert sorted(disk.scanned) == sorted([parent.paths[0], resume.paths[0]])
    assert result.lineage.scans[lone.key] == ALONE + hide(lone.labels[0])
    assert result.lineage.decision(lone.key) is None and result.lineage.decision(parent.key) is None
    found = result.lineage.decision(resume.key)
    assert found is not None and (found.parent, found.records) == ("parent", frozenset({"r1", "r2"}))

    # A file the probe cannot tell about: what it holds is not known, so every file is compared.
    unknown = Disk(summaries=summaries, uuids={**uuids, resume.paths[0]: None})
    plan(Manifest(), units, now, unknown, tmp_path)
    assert sorted(unknown.scanned) == sorted(u.paths[0] for u in units)


def test_a_directory_with_a_gone_session_compares_every_file(tmp_path: Path) -> None:
    gone = claude_unit("-home-ada-app/gone.jsonl")
    stored = session(gone, "gone")
    stored.scan, stored.group = ALONE + hide(gone.labels[0]), group_of(gone.labels[0])
    previous = manifest((gone, [state(gone.labels[0])], [stored]))
    live = [claude_unit(f"-home-ada-app/{name}.jsonl") for name in ("one", "two")]
    disk = Disk(summaries={u.paths[0]: _summary(u.labels[0], u.labels[0], (u.labels[0],), "2026-03-01T10:00:00Z")
                           for u in live},
                uuids={u.paths[0]: frozenset({u.labels[0]}) for u in live})
    plan(previous, live, {u.key: [state(u.labels[0])] for u in live}, disk, tmp_path)
    assert sorted(disk.scanned) == sorted(u.paths[0] for u in live)  # the gone one's uuids are not known


def test_a_lone_file_is_not_scanned(tmp_path: Path) -> None:
    disk = Disk()
    result = plan(Manifest(), [A, B], {A.key: [state(A.labels[0])], B.key: [state(B.labels[0])]}, disk, tmp_path)
    assert disk.scanned == []  # each is alone in its project directory: nothing to compare
    assert result.lineage.decision(A.key) is None


def test_an_unchanged_build_does_not_redact_file_names_again(tmp_path: Path) -> None:
    previous = manifest((A, [state(A.labels[0])], [session(A, "aaaa")]))
    previous.units[A.key].names = ["remembered"]
    asked: list[str] = []

    def name(text: str) -> str:
        asked.append(text)
        return text

    def run(digest: str):
        return make_plan(previous, [A], {A.key: [state(A.labels[0])]}, digest, name=name,
                         disk=Disk().answers(tmp_path), prune=False)

    assert run(DIGEST).own_slugs[A.key] == ("remembered",) and asked == []
    assert run("other options").own_slugs[A.key] == ("aaaa",) and asked == ["aaaa"]  # the key may differ
    assert run(DIGEST).reused_units[A.key].names == ["remembered"]


def _job(folder: Path, name: str, size: int) -> Job:
    """A job for a Claude file of ``size`` bytes, made at ``folder``/``name``."""
    path = folder / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"x" * size)
    return Job(Unit(f"claude-{name}", CLAUDE, (str(path),), (name,)))


def test_jobs_start_folder_by_folder_largest_first(tmp_path: Path) -> None:
    """The folder holding the largest unit first, then the next; in each folder, the
    largest unit first (so a project's pages are all written early: search.shards.EarlyShards)."""
    from bough_site.jobs import job_order

    sizes = {"a/1.jsonl": 50, "a/2.jsonl": 10, "b/1.jsonl": 90, "b/2.jsonl": 20, "b/3.jsonl": 30, "c/1.jsonl": 5}
    jobs = [_job(tmp_path, name, size) for name, size in sizes.items()]
    order = [jobs[i].unit.labels[0] for i in job_order(jobs)]
    assert order == ["b/1.jsonl", "b/3.jsonl", "b/2.jsonl", "a/1.jsonl", "a/2.jsonl", "c/1.jsonl"]


def test_jobs_go_to_the_workers_in_batches_when_there_are_many(tmp_path: Path) -> None:
    """Many short sessions go in batches of consecutive jobs (in job_order), each worker
    still getting many batches; a unit of JOB_BATCH_BYTES or more goes alone; a few
    jobs go one by one."""
    from bough_site import jobs as jobs_module
    from bough_site.jobs import JOB_BATCH, JOB_BATCH_BYTES, job_batches, job_order

    few = [_job(tmp_path, f"few/{n}.jsonl", 100 + n) for n in range(6)]
    assert job_batches(few, 2) == [[i] for i in job_order(few)]
    many = [_job(tmp_path, f"many/{n:03}.jsonl", 1000 - n) for n in range(300)]
    many.append(_job(tmp_path, "many/big.jsonl", JOB_BATCH_BYTES))
    batches = job_batches(many, 2)
    assert [i for batch in batches for i in batch] == job_order(many)
    assert batches[0] == [300]  # the largest, alone
    sizes = [len(batch) for batch in batches[1:]]
    assert max(sizes) == JOB_BATCH and sizes.count(JOB_BATCH) == len(sizes) - 1  # the last one may be short
    assert len(batches) >= 2 * jobs_module._BATCHES_PER_WORKER


def test_a_files_uuids_are_one_bytes_object_each_uuid_once_in_order() -> None:
    """What the plan holds of a probed file, as the state keeps it: the same for the
    same uuids, however often and in whatever order the records carry them."""
    packed = uuid_digests(["u2", "u1", "u2"])
    assert isinstance(packed, bytes) and len(packed) == 16 and packed == uuid_digests(["u1", "u2"])
    assert packed[:8] < packed[8:]
    assert uuid_digests([]) == b""


def test_files_sharing_a_uuid_are_not_alone_and_one_not_probed_makes_none_alone() -> None:
    uuids = {"a": ["u1", "u2"], "b": ["u3", "u1"], "c": ["u4"], "d": []}
    probe = lambda paths: [None if p == "x" else uuid_digests(uuids[p]) for p in paths]  # noqa: E731
    assert alone_in([["a", "b", "c", "d"], ["c", "x"], ["c", None]], probe) == [
        [False, False, True, True], [False, False], [False, False]]
