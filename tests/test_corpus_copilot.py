"""The synthetic Copilot CLI history (corpus.copilot) and the reader checked against it:
every counted STATS key of every session and project, exactly, unknown tokens included."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site.model import Session, InputWarning
from bough_site.plan.units import COPILOT, Unit
from bough_site.readers import copilot
from bough_site.readers.copilot_layout import LAYOUT
from bough_site.site import site_from_sessions
from bough_site.work import summarize_work
from corpus.copilot import COUNTS, TOKENS, ExpectedCopilot, generate_copilot_history

KEYS = COUNTS + TOKENS


def read_history(root: Path) -> tuple[list[Session], list[InputWarning]]:
    """As a build does: the layout's files, its units, one reader call each."""
    files = LAYOUT.find(root / ".copilot")
    warnings: list[InputWarning] = []
    sessions: list[Session] = []
    for key, group in LAYOUT.units([(LAYOUT.label(f), f) for f in files]):
        unit = Unit(key, COPILOT, tuple(str(p) for _, p in group), tuple(n for n, _ in group))
        sessions += copilot.read_unit(unit, warnings.append, None)
    for session in sessions:
        summarize_work(session)
    return sessions, warnings


def check(root: Path, expected: ExpectedCopilot) -> None:
    sessions, _ = read_history(root)
    assert sorted(s.id for s in sessions) == sorted(expected.sessions)
    for session in sessions:
        truth = expected.sessions[session.id].stats()
        assert {key: session.stats[key] for key in KEYS} == truth, session.id
        assert session.cwd == expected.cwd[session.id]
    for project in site_from_sessions(sessions).projects:
        want = expected.project(project.cwd)
        got = {key: value for key, value in project.stats.items() if key in want or key.startswith("sessions_with")}
        assert got == want, project.cwd


def test_the_reader_is_exact_on_a_fixed_history(tmp_path: Path) -> None:
    expected = generate_copilot_history(tmp_path, seed=1, sessions=24)
    # The history holds each shape the traps need.
    truths = list(expected.sessions.values())
    assert any(t.tokens["input_tokens"] is None and t.tokens["output_tokens"] is not None for t in truths)
    assert any(t.tokens["output_tokens"] is None for t in truths)  # legacy
    assert any(t.tokens["input_tokens"] for t in truths)
    assert any(t.counts["subagents"] for t in truths) and any(t.counts["skipped_lines"] for t in truths)
    check(tmp_path, expected)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16))
def test_the_reader_is_exact_on_generated_histories(tmp_path_factory, seed: int) -> None:
    root = tmp_path_factory.mktemp("copilot-corpus")
    check(root, generate_copilot_history(root, seed=seed, sessions=10))
