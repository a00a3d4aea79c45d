"""The synthetic Qwen Code history (corpus.qwen) and the reader checked against it:
every counted key of every session, and the site, exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site.model import InputWarning, Session
from bough_site.readers.qwen import read_qwen_sessions
from bough_site.readers.qwen_layout import LAYOUT
from bough_site.readers.qwen_lines import GLUED
from bough_site.site import site_from_sessions
from corpus.qwen import KEYS, ExpectedQwen, generate_qwen_history

from .helpers import file_tree


def read_tree(root: Path) -> tuple[list[Session], list[InputWarning]]:
    """As the build will: the Layout's files under the home, each unit read apart."""
    warnings: list[InputWarning] = []
    listed = [(LAYOUT.label(p), p) for p in LAYOUT.find(root)]
    sessions: list[Session] = []
    for _key, files in LAYOUT.units(listed):
        names = dict((path, name) for name, path in files)
        sessions += read_qwen_sessions([p for _, p in files], warnings.append, label=lambda p: names[p])
    return sessions, warnings


def counted(session: Session) -> dict[str, int]:
    return {key: session.stats.get(key, 0) for key in KEYS}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[ExpectedQwen, list[Session], list[InputWarning]]:
    root = tmp_path_factory.mktemp("qwen-corpus")
    expected = generate_qwen_history(root)
    sessions, warnings = read_tree(root)
    return expected, sessions, warnings


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path: Path) -> None:
    first = generate_qwen_history(tmp_path / "a", seed=3)
    second = generate_qwen_history(tmp_path / "b", seed=3)
    other = generate_qwen_history(tmp_path / "c", seed=4)
    assert first == second and file_tree(tmp_path / "a") == file_tree(tmp_path / "b")
    assert first != other


def test_every_session_is_read_once(corpus) -> None:
    expected, sessions, _ = corpus
    assert sorted(s.id for s in sessions) == sorted(expected.sessions)


def test_every_key_of_every_session_is_exact(corpus) -> None:
    expected, sessions, _ = corpus
    for session in sessions:
        assert counted(session) == expected.sessions[session.id], session.id


def test_runs_nest_and_background_ones_are_orphans(corpus) -> None:
    expected, sessions, _ = corpus
    assert {s.id: len(s.orphan_subagents) for s in sessions} == expected.orphans
    assert sum(expected.orphans.values()) >= 2


def test_each_session_has_its_directory(corpus) -> None:
    expected, sessions, _ = corpus
    assert {s.id: s.cwd for s in sessions} == expected.cwds


def test_the_site_adds_up(corpus) -> None:
    expected, sessions, _ = corpus
    site = site_from_sessions(sessions)
    assert {key: site.stats.get(key, 0) for key in KEYS} == expected.site


def test_the_corpus_holds_the_traps(corpus) -> None:
    """Not a vacuous pass: the history has unknown tokens, skipped lines, a glued
    line, a steering prompt, cache reads and Gemini-native thoughts."""
    expected, _, warnings = corpus
    site = expected.site
    assert site["replies_with_unknown_tokens"] == 1 and site["skipped_lines"] >= 3
    assert site["cache_read_input_tokens"] > 0 and site["subagents"] >= 3 and site["commands"] >= 3
    assert any(w.reason == GLUED for w in warnings)
    assert any("truncated" in w.reason for w in warnings)


@settings(max_examples=6, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(1, 6))
def test_exact_on_any_seed(tmp_path_factory: pytest.TempPathFactory, seed: int, count: int) -> None:
    root = tmp_path_factory.mktemp("qwen-any")
    expected = generate_qwen_history(root, seed=seed, sessions=count)
    sessions, _ = read_tree(root)
    assert {s.id: counted(s) for s in sessions} == expected.sessions
