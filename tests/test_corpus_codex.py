"""The synthetic Codex history: deterministic, and read back with exactly the
counts the generator tallied while writing. Also the bundled Codex examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.codex import ExpectedCodex, generate_codex_history, write_codex_examples
from bough_site.model import REASONING_KEY, STAT_KEYS, Marker, Reply, Session, Thinking, InputWarning
from bough_site.readers.codex import read_codex_sessions
from bough_site.readers.codex_rollouts import find_rollouts
from bough_site.work import summarize_work

from .helpers import all_calls, file_tree

EXAMPLES = Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "codex"


def tree(root: Path) -> dict[str, bytes]:
    return file_tree(root)


def read_history(root: Path) -> tuple[list[Session], list[InputWarning]]:
    warnings: list[InputWarning] = []
    paths = find_rollouts(root / "sessions") + find_rollouts(root / "archived_sessions")
    sessions = read_codex_sessions(paths, warnings.append, label=lambda p: p.relative_to(root).as_posix(), codex_home=root)
    for session in sessions:
        summarize_work(session)  # commits and changed files: computed from the model, as the build does
    return sessions, warnings


def test_generator_is_deterministic(tmp_path: Path) -> None:
    first = generate_codex_history(tmp_path / "a", seed=3)
    second = generate_codex_history(tmp_path / "b", seed=3)
    other = generate_codex_history(tmp_path / "c", seed=4)
    assert first == second
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert tree(tmp_path / "a") != tree(tmp_path / "c") and first != other


@pytest.mark.parametrize(("seed", "sessions", "turns"), [(0, 4, 5), (7, 6, 3), (11, 2, 1), (5, 4, 1)])
def test_reader_counts_equal_the_generated_truth(tmp_path: Path, seed: int, sessions: int, turns: int) -> None:
    expected = generate_codex_history(tmp_path, seed=seed, sessions=sessions, turns=turns)
    read, _ = read_history(tmp_path)
    assert {s.id: s.stats for s in read} == expected.sessions


def test_history_holds_a_fork_a_subagent_and_their_links(tmp_path: Path) -> None:
    expected = generate_codex_history(tmp_path)
    assert len(expected.forks) == 1 and len(expected.subagents) == 1
    sessions, _ = read_history(tmp_path)
    by_id = {s.id: s for s in sessions}
    for child, parent in expected.forks.items():
        fork = by_id[child]
        assert fork.parent_id == parent
        marker = fork.timeline[0]
        assert isinstance(marker, Marker) and marker.type == "inherited" and marker.ref_session == parent and marker.count > 0
    for child, parent in expected.subagents.items():
        assert child not in by_id
        spawned = [c.subagent for c in all_calls(by_id[parent].timeline) if c.subagent is not None]
        assert [run.agent_id for run in spawned] == [child]
        assert "gAAAA" not in repr(by_id[parent].timeline)


def test_only_the_bad_line_and_the_archived_duplicate_are_warned(tmp_path: Path) -> None:
    expected = generate_codex_history(tmp_path)
    _, warnings = read_history(tmp_path)
    bad = [(w.file, w.line) for w in warnings if w.line]
    assert bad == expected.bad_lines and len(bad) == 1
    whole_file = [w for w in warnings if not w.line]
    assert [w.file for w in whole_file] == expected.archived


def test_expected_counts_have_every_stats_key(tmp_path: Path) -> None:
    expected = generate_codex_history(tmp_path, sessions=1, turns=1)
    assert isinstance(expected, ExpectedCodex)
    assert expected.sessions
    assert all(set(stats) == {*STAT_KEYS, REASONING_KEY} for stats in expected.sessions.values())


# --- the bundled examples ---------------------------------------------------------------------------


def test_bundled_examples_are_what_the_writer_writes(tmp_path: Path) -> None:
    written = write_codex_examples(tmp_path)
    assert len(written) == 2
    assert tree(tmp_path) == tree(EXAMPLES)


def test_examples_show_a_tidepool_session_and_its_fork() -> None:
    warnings: list[InputWarning] = []
    sessions = read_codex_sessions(find_rollouts(EXAMPLES / "sessions"), warnings.append, codex_home=Path("/nonexistent"))
    assert warnings == []
    parent, fork = sessions
    assert parent.cwd == fork.cwd == "/home/ada/src/tidepool"
    assert fork.parent_id == parent.id and fork.timeline[0].type == "inherited"
    names = [c.name for c in all_calls(parent.timeline)]
    assert names == ["shell", "apply_patch", "shell", "shell"]
    assert "pytest" in all_calls(parent.timeline)[0].input["command"]
    assert any(isinstance(b, Thinking) for r in parent.timeline if isinstance(r, Reply) for b in r.blocks)
    assert parent.stats["tool_errors"] == 1 and parent.stats["prompts"] == fork.stats["prompts"] == 1
