"""Assembly and the final pass (bough_site/assemble.py), alone: sessions' outcomes
and the last build's manifest in, projects, page names, links and the final
pass's jobs out. No site is built and no file is read or written: every value
is made here by hand, as tests/test_plan.py does for the planner."""

from __future__ import annotations

import dataclasses

import pytest

from bough_site.assemble import Assembled, Outcome, Status, assemble, final_jobs, renamed_or_moved, with_final
from bough_site.jobs import SessionResult
from bough_site.manifest import Manifest, SessionState
from bough_site.plan.units import CLAUDE, Unit

PROJECT = {"id": "p", "name": "p", "cwd": "/p"}
OTHER = {"id": "q", "name": "q", "cwd": "/q"}


def outcome(key: str, started: str, status: Status = Status.REUSED, *, written: str | None = None,
            project: dict[str, str] = PROJECT, links: dict[str, str | None] | None = None,
            session_id: str | None = None) -> Outcome:
    """A session ``key`` ("unit#id") of ``project``, its pages written under ``written``."""
    sid = session_id or key.split("#")[1]
    return Outcome(key, key.split("#")[0], {"id": sid, "source": "claude-code", "started": started}, project,
                   status, written_slug=written if written is not None else sid,
                   outputs=[f"projects/{project['id']}/sessions/{written or sid}.html"], tally_file=f"{sid}.json",
                   links=links or {})


def stored(one: Outcome) -> SessionState:
    """``one`` as the last build's manifest keeps it."""
    return SessionState(one.key, one.unit, one.written_slug or "", one.project, one.summary, one.outputs,
                        one.tally_file, links=one.links)


def previous_of(*sessions: Outcome) -> Manifest:
    previous = Manifest(options="o", valid=True)
    previous.sessions = {s.key: stored(s) for s in sessions}
    return previous


def made_of(*outcomes: Outcome) -> dict[str, Outcome]:
    return {o.key: o for o in outcomes}


def test_projects_newest_first_with_their_sessions_newest_first() -> None:
    made = made_of(outcome("u1#old", "2026-01-01"), outcome("u2#new", "2026-03-01"),
                   outcome("u3#mid", "2026-02-01", project=OTHER))
    assembled = assemble(made, Manifest(), prune=False)
    assert [p.id for p in assembled.projects] == ["p", "q"]
    assert [s.id for s in assembled.projects[0].sessions] == ["new", "old"]
    assert assembled.slugs == {"u1#old": "old", "u2#new": "new", "u3#mid": "mid"}
    assert assembled.links == {"old": "projects/p/sessions/old.html", "new": "projects/p/sessions/new.html",
                               "mid": "projects/q/sessions/mid.html"}
    assert assembled.gone == 0 and list(assembled.outcomes) == list(made)
    first = assembled.projects[0].sessions[0]
    assert assembled.outcome(first) is made["u2#new"]


def test_two_sessions_of_one_name_get_names_of_their_own() -> None:
    made = made_of(outcome("u1#same", "2026-01-01"), outcome("u2#Same", "2026-01-02"))
    assembled = assemble(made, Manifest(), prune=False)
    names = {n.casefold() for n in assembled.slugs.values()}
    assert len(names) == 2 and "same" in names
    # Both were written under their own id: the one whose name changed is rendered again.
    again = [key for key, o in assembled.outcomes.items() if renamed_or_moved(o, assembled)]
    assert len(again) == 1 and assembled.slugs[again[0]] != "same"


def test_the_last_builds_sessions_not_made_now_are_gone_unless_pruned() -> None:
    live = outcome("u1#a", "2026-01-01")
    earlier = outcome("u9#b", "2025-12-01")
    for prune, keys in ((False, ["u1#a", "u9#b"]), (True, ["u1#a"])):
        assembled = assemble(made_of(live), previous_of(live, earlier), prune=prune)
        assert list(assembled.outcomes) == keys
        assert assembled.gone == len(keys) - 1
    gone = assemble(made_of(live), previous_of(live, earlier), prune=False).outcomes["u9#b"]
    assert gone.status is Status.GONE and gone.written_slug == "b"


def test_a_gone_session_read_again_elsewhere_is_not_kept_twice() -> None:
    moved = outcome("u2#a", "2026-01-01", Status.REBUILT)  # the same source and id under another unit
    assembled = assemble(made_of(moved), previous_of(outcome("u1#a", "2026-01-01")), prune=False)
    assert list(assembled.outcomes) == ["u2#a"] and assembled.gone == 0


def test_a_gone_session_keeps_its_name_and_drops_out_when_a_live_one_takes_it() -> None:
    gone = outcome("u9#x", "2025-01-01", written="kept-name")
    assembled = assemble({}, previous_of(gone), prune=False)
    assert assembled.slugs == {"u9#x": "kept-name"}  # its page cannot be made again
    assert not renamed_or_moved(assembled.outcomes["u9#x"], assembled)

    taker = outcome("u1#kept-name", "2026-01-01", Status.REBUILT)
    assembled = assemble(made_of(taker), previous_of(gone), prune=False)
    assert list(assembled.outcomes) == ["u1#kept-name"] and assembled.gone == 1
    assert [s.id for s in assembled.projects[0].sessions] == ["kept-name"]


def test_what_must_be_rendered_again() -> None:
    same = outcome("u1#a", "2026-01-01", links={"b": "projects/p/sessions/b.html"})
    moved = outcome("u2#c", "2026-01-02", links={"b": "projects/p/sessions/elsewhere.html"})
    unread = dataclasses.replace(outcome("u3#d", "2026-01-03", Status.REBUILT), written_slug=None)
    gone = outcome("u4#e", "2025-01-01", links={"b": "projects/p/sessions/elsewhere.html"})
    assembled = assemble(made_of(same, moved, unread, outcome("u5#b", "2026-01-04")), previous_of(gone),
                         prune=False)
    again = [key for key, o in assembled.outcomes.items() if renamed_or_moved(o, assembled)]
    assert again == ["u2#c", "u3#d"]  # a gone session's links stay as they were: it cannot be made again


def unit(key: str) -> Unit:
    return Unit(key, CLAUDE, (f"/src/{key}.jsonl",), (f"{key}.jsonl",))


def test_the_final_pass_renders_only_what_must_be_again_one_job_per_unit() -> None:
    made = made_of(outcome("u1#a", "2026-01-01"), outcome("u1#b", "2026-01-02"), outcome("u2#c", "2026-01-03"))
    gone = outcome("u9#z", "2025-01-01")
    assembled = assemble(made, previous_of(gone), prune=False)
    asked: list[str] = []

    def inherit(key: str) -> None:
        asked.append(key)

    jobs = final_jobs(["u1#b", "u9#z", "u1#a"], assembled, [unit("u1"), unit("u2")], inherit)
    assert [(job.unit.key, job.only, job.final) for job in jobs] == [("u1", frozenset({"u1#a", "u1#b"}), True)]
    assert jobs[0].slugs == {"u1#a": "a", "u1#b": "b"} and jobs[0].links == assembled.links
    assert asked == ["u1"]  # u9 is gone: nothing renders it
    assert final_jobs([], assembled, [unit("u1")], inherit) == []
    lost = dataclasses.replace(assembled, lost=frozenset({"u1#b"}))
    assert final_jobs(["u1#a"], lost, [unit("u1")], inherit)[0].slugs == {"u1#a": "a"}
    assert list(lost.saved()) == ["u1#a", "u2#c", "u9#z"]


def test_what_the_final_pass_made_replaces_the_outcome_and_its_session() -> None:
    made = made_of(outcome("u1#a", "2026-01-01"), outcome("u2#b", "2026-01-02"))
    assembled = assemble(made, Manifest(), prune=False)
    before = {s.id: s for s in assembled.projects[0].sessions}
    result = SessionResult("u1#a", {"id": "a", "anchor_parts": {"m1": 2}, "title": "not taken"}, PROJECT, "a",
                           b"{}", None, {"b": "projects/p/sessions/b.html"})
    final = made["u1#a"].written(result, ["projects/p/sessions/a.html", "projects/p/sessions/a-2.html"])
    final = final.with_parts(result.summary)
    after = with_final(assembled, {"u1#a": final})

    assert final.summary == {**made["u1#a"].summary, "anchor_parts": {"m1": 2}}  # only where its parts are
    assert final.links == result.links and len(final.outputs) == 2 and final.status is Status.REUSED
    session = next(s for s in after.projects[0].sessions if s.id == "a")
    assert session.anchor_parts == {"m1": 2} and session.slug == "a" and after.outcome(session) is final
    assert next(s for s in after.projects[0].sessions if s.id == "b") is before["b"]  # the others as they were
    # Nothing given was changed: the assembled value before the final pass still says what it said.
    assert assembled.outcomes["u1#a"] is made["u1#a"] and before["a"].anchor_parts == {}
    assert with_final(assembled, {}) is assembled


def test_an_outcome_is_frozen() -> None:
    one = outcome("u1#a", "2026-01-01")
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.status = Status.GONE  # type: ignore[misc]
    assert Status("rebuilt") is Status.REBUILT  # the word the progress and the docs use


def test_assembled_is_frozen() -> None:
    assembled = assemble({}, Manifest(), prune=False)
    assert assembled.projects == [] and isinstance(assembled, Assembled)
    with pytest.raises(dataclasses.FrozenInstanceError):
        assembled.gone = 1  # type: ignore[misc]
