"""What the index and search's fallback index take of a project, kept in OUT's state
under what the project is made of (render/project_summary.ProjectFacts, publish.py):
an append makes its own project's again and reads the others', and the site is the
site a fresh build makes."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site.render.project_summary import ProjectFacts
from bough_site.render.times import parse_time
from bough_site.state_paths import STATE_DB, STATE_DIR

from .helpers import append_turn, main_file, make_history, run, tree

FACTS = ProjectFacts("2026-03-01T10:00:00+00:00", "2026-03-02T11:00:00+00:00", ["Claude Code"], ["opus-4.6"], 1,
                     {"2026-02-23": 2, "2026-03-02": 1}, ["0" * 32, "1" * 32])


def test_facts_read_back_as_they_were_written() -> None:
    assert ProjectFacts.from_bytes(FACTS.to_bytes()) == FACTS
    untold = ProjectFacts(None, None, [], [], 0, None, [])
    assert ProjectFacts.from_bytes(untold.to_bytes()) == untold


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(st.characters(blacklist_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(0, 6), json_values)
def test_a_value_that_is_not_facts_bough_wrote_reads_as_none(doc: object, at: int, value: object) -> None:
    """A damaged state costs the facts (made again), never a page made of a wrong kind
    of value: whatever is read back is of the kinds the index takes."""
    fields = orjson.loads(FACTS.to_bytes())
    fields[at] = value
    for data in (orjson.dumps(doc), orjson.dumps(fields), b"\xff"):
        found = ProjectFacts.from_bytes(data)
        if found is None:
            continue
        assert all(isinstance(text, str) for text in (*found.sources, *found.models, *found.parts))
        assert type(found.kept) is int and all(when is None or parse_time(when) for when in (found.first, found.last))
        if found.weeks is not None:
            assert all(isinstance(day, date) for day in found.week_totals(None))  # type: ignore[arg-type]


def _project_of(out: Path, session: dict) -> str:
    return session["json"].split("/")[1]


@pytest.mark.parametrize("damaged", [False, True])
def test_an_append_makes_its_own_projects_facts_again_and_the_site_a_fresh_build_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damaged: bool) -> None:
    src = make_history(tmp_path / "history")
    out = tmp_path / "out"
    run(src, out)
    path, session = main_file(src, out)
    if damaged:  # every facts value spoilt: each is made again, nothing else changes
        with sqlite3.connect(out / STATE_DIR / STATE_DB) as conn:
            assert conn.execute("UPDATE state SET data = ? WHERE name LIKE '%.facts'", (b"[1, 2",)).rowcount == 2
    made: list[str] = []
    original = ProjectFacts.of.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(ProjectFacts, "of", classmethod(
        lambda cls, project, parts: made.append(project.id) or original(cls, project, parts)))
    append_turn(path)
    run(src, out)
    projects = {p.name for p in (out / "projects").iterdir()}
    assert len(projects) == 2
    assert sorted(made) == (sorted(projects) if damaged else [_project_of(out, session)])
    monkeypatch.undo()
    fresh = tmp_path / "fresh"
    run(src, fresh)
    assert tree(out) == tree(fresh)
