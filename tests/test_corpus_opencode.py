"""The synthetic OpenCode histories (corpus.opencode) and the reader checked against
them: every counted key of every root session, exactly, whichever form holds the
sessions (the database, bough's exports of it, the JSON era's tree, or the database
beside a frozen, shorter JSON copy)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site.model import UNKNOWN_TOKENS_KEY, Session
from bough_site.plan.units import OPENCODE, Unit
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import find, label, snapshot, units
from corpus.opencode import COUNTED, Builder, history, write_db, write_storage

EXACT = settings(max_examples=25, deadline=None, derandomize=True)


def read(listed: list[tuple[str, Path]]) -> list[Session]:
    (_, files), = units(listed)
    unit = Unit("k", OPENCODE, tuple(str(p) for _, p in files), tuple(n for n, _ in files))
    return read_unit(unit, [].append, None)


def assert_exact(sessions: list[Session], b: Builder) -> None:
    got = {s.id: s for s in sessions}
    assert set(got) == set(b.truth)  # child sessions are nested, never sessions of their own
    for sid, truth in b.truth.items():
        stats = got[sid].stats
        assert {key: stats[key] for key in COUNTED} == {key: truth[key] for key in COUNTED}, sid
        assert stats.get(UNKNOWN_TOKENS_KEY, 0) == truth["unknown"], sid
        assert not got[sid].orphan_subagents  # every child found its task call


@EXACT
@given(st.integers(min_value=0, max_value=10**6))
def test_the_database_beside_a_frozen_json_copy(seed: int) -> None:
    b = history(seed)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "opencode"
        data.mkdir()
        write_db(data / "opencode.db", b.sessions)
        write_storage(data, b.sessions, keep=1)  # §11.2: the JSON tree stopped at the move
        assert_exact(read([(label(p), p) for p in find(data)]), b)


@EXACT
@given(st.integers(min_value=0, max_value=10**6))
def test_the_exports_read_back_as_the_database(seed: int) -> None:
    b = history(seed)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "opencode"
        data.mkdir()
        db = write_db(data / "opencode.db", b.sessions)
        exported = snapshot(db, "opencode/opencode.db", Path(tmp) / "archive")
        from_db, from_export = read([("opencode/opencode.db", db)]), read(exported)
        assert_exact(from_export, b)
        assert [(s.id, s.title, s.started, s.stats) for s in from_db] == \
            [(s.id, s.title, s.started, s.stats) for s in from_export]


@EXACT
@given(st.integers(min_value=0, max_value=10**6))
def test_the_json_era_alone(seed: int) -> None:
    b = history(seed)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "opencode"
        write_storage(data, b.sessions)
        assert_exact(read([(label(p), p) for p in find(data)]), b)


def test_the_generator_covers_every_trap() -> None:
    """Across a few seeds: multi-step messages, every era, children at each link form,
    unfinished steps, the invalid tool, shell exits, compaction."""
    seen: set[str] = set()
    for seed in range(30):
        b = history(seed)
        for ses in b.sessions:
            seen.add(f"era:{ses.info['era']}")
            for msg in ses.messages:
                kinds = [p.get("type") for _, p in msg.parts]
                if kinds.count("step-finish") > 1:
                    seen.add("multi-step")
                if kinds.count("step-start") > kinds.count("step-finish"):
                    seen.add("unfinished")
                if "compaction" in kinds:
                    seen.add("compaction")
                for _, part in msg.parts:
                    if part.get("type") == "tool":
                        seen.add(f"tool:{part['tool']}")
                        state = part["state"]
                        if "metadata" in state and "sessionId" in state["metadata"]:
                            seen.add("link:metadata")
                        if "<task_metadata>" in str(state.get("output")):
                            seen.add("link:legacy")
                        if part["tool"] == "task" and state.get("output") == "found":
                            seen.add("link:title")
    assert {"era:current", "era:old", "era:old-total", "era:inflated", "multi-step", "unfinished", "compaction",
            "tool:invalid", "tool:bash", "tool:task", "link:metadata", "link:legacy", "link:title"} <= seen
