"""The synthetic Gemini CLI history (corpus.gemini) and the reader checked against it:
every STATS key of every session, project and site, exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from bough_site.site import site_from_sessions
from bough_site.model import REASONING_KEY, STAT_KEYS, Session, InputWarning
from bough_site.readers.gemini import read_gemini_sessions
from bough_site.readers.gemini_log import load_file
from bough_site.readers.gemini_files import find_gemini_files
from bough_site.work import summarize_work
from corpus.gemini import ExpectedGemini, generate_gemini_history

from .helpers import all_calls, file_tree, uncosted


def read_history(root: Path) -> tuple[list[Session], list[InputWarning]]:
    """As discovery and the build will: the files the read-once rules keep, the
    roots Gemini CLI wrote down, then commits and files from the model."""
    warnings: list[InputWarning] = []
    found = find_gemini_files(root)
    sessions = read_gemini_sessions(found.files, warnings.append, label=lambda p: p.relative_to(root).as_posix())
    for session in sessions:
        summarize_work(session)
    return sessions, warnings


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ExpectedGemini, list[Session], list[InputWarning]]:
    root = tmp_path_factory.mktemp("gemini-corpus")
    expected = generate_gemini_history(root)
    sessions, warnings = read_history(root)
    return root, expected, sessions, warnings


# --- determinism and the generator's own consistency ---------------------------------------------------


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path: Path) -> None:
    first = generate_gemini_history(tmp_path / "a", seed=3)
    second = generate_gemini_history(tmp_path / "b", seed=3)
    other = generate_gemini_history(tmp_path / "c", seed=4)
    assert first == second
    assert file_tree(tmp_path / "a") == file_tree(tmp_path / "b")
    assert file_tree(tmp_path / "a") != file_tree(tmp_path / "c") and first != other


def test_expected_counts_have_every_stats_key(corpus) -> None:
    _, expected, _, _ = corpus
    for stats in [expected.site, *expected.projects.values(), *expected.sessions.values()]:
        assert list(stats) == [*STAT_KEYS, REASONING_KEY]
    for key in STAT_KEYS:
        if key not in ("cache_creation_input_tokens",):
            assert expected.site[key] > 0, key


# --- the exact counts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "turns"), [(0, 2), (1, 1), (7, 4)])
def test_reader_counts_equal_the_generated_truth(tmp_path: Path, seed: int, turns: int) -> None:
    expected = generate_gemini_history(tmp_path, seed=seed, turns=turns)
    sessions, _ = read_history(tmp_path)
    assert {s.id: s.stats for s in sessions} == expected.sessions
    site = site_from_sessions(sessions)
    assert {p.cwd: p.stats for p in site.projects} == expected.projects
    assert site.stats == expected.site
    assert {s.id: s.cwd for s in sessions} == expected.session_projects


def test_the_read_once_rules_keep_exactly_the_expected_files(corpus) -> None:
    root, expected, _, _ = corpus
    found = find_gemini_files(root)
    assert [p.relative_to(root).as_posix() for p in found.files] == expected.files
    assert [p.relative_to(root).as_posix() for p, _ in found.left_out] == expected.left_out
    assert len(expected.left_out) == 2  # a hash folder's copy and a resumed .json


def test_only_the_damaged_lines_and_files_are_warned(corpus) -> None:
    _, expected, _, warnings = corpus
    assert sorted((w.file, w.line) for w in warnings) == expected.warnings
    assert len(expected.warnings) == 4  # a torn line, a cut-off last line, a total off by 7, a cut-off .json


def test_segments_are_one_session_in_time_order(corpus) -> None:
    _, expected, sessions, _ = corpus
    by_id = {s.id: s for s in sessions}
    for sid, files in expected.segments.items():
        assert by_id[sid].files[: len(files)] == files
    assert sum(len(files) > 1 for files in expected.segments.values()) == 2


def test_sub_agents_nest_under_the_calls_that_launched_them(corpus) -> None:
    _, expected, sessions, _ = corpus
    nested = {c.subagent.agent_id: c.id for s in sessions for c in all_calls(s.timeline) if c.subagent is not None}
    assert nested == expected.nested and len(nested) == 4
    assert all(s.orphan_subagents == [] for s in sessions)


def test_rewound_and_compacted_records_are_marked_and_still_shown(corpus) -> None:
    root, expected, sessions, _ = corpus
    for session in sessions:
        files = [load_file(root / label, label, lambda w: None) for label in session.files]
        removed = {rid: why for f in files if f is not None for rid, why in f.removed.items()}
        assert removed == expected.removed.get(session.id, {})
        shown = {item.id: item.removed for item in session.timeline if item.removed}
        if removed:
            assert shown and shown.items() <= removed.items()
        else:
            assert not shown
    assert {"rewound", "compacted"} <= {why for marks in expected.removed.values() for why in marks.values()}


def test_an_unrecoverable_root_is_the_folder_name(corpus) -> None:
    _, expected, sessions, _ = corpus
    lost = [s for s in sessions if s.id in expected.unknown_roots]
    assert len(lost) == 1 and len(lost[0].cwd) == 64 and "could not be recovered" in lost[0].timeline[0].text


def test_summing_every_line_would_count_too_much(corpus) -> None:
    """Trap 1: a model record is written again as it changes; one copy counts."""
    root, expected, _, _ = corpus
    naive = 0
    for path in root.rglob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            tokens = record.get("tokens") if isinstance(record, dict) and record.get("type") == "gemini" else None
            naive += tokens["input"] + tokens["output"] + tokens["thoughts"] if isinstance(tokens, dict) else 0
    logs = [sid for sid, files in expected.segments.items() if files[0].endswith(".jsonl")]
    true = sum(expected.sessions[sid][key] for sid in logs
               for key in ("input_tokens", "output_tokens", "cache_read_input_tokens"))
    assert naive > true > 0


def test_what_is_no_session_is_there_and_not_read(corpus) -> None:
    root, _, sessions, _ = corpus
    assert list(root.glob("tmp/*/logs.json")) and list(root.glob("tmp/*/checkpoint-*.json"))
    assert list(root.glob("tmp/*/checkpoints/*.json"))
    read = {label for s in sessions for label in s.files}
    assert not any("logs.json" in label or "checkpoint" in label for label in read)


# --- through a real build ------------------------------------------------------------------------------------


def test_a_build_from_the_default_home_counts_exactly_the_generated_truth(isolated_home: Path, tmp_path: Path) -> None:
    """No SOURCE: the Gemini directory of $GEMINI_CLI_HOME, read through discovery, the
    archive, the planner and the worker processes; then again, reused; then with the
    Gemini directory gone, from bough's archive alone."""
    from bough_site.build import build
    from bough_site.config import BuildConfig

    expected = generate_gemini_history(isolated_home / ".gemini", seed=5, turns=3)

    def check(result) -> None:
        sessions = {s.id: s for p in result.site.projects for s in p.sessions}
        assert {sid: uncosted(s.stats) for sid, s in sessions.items()} == expected.sessions
        assert {sid: s.cwd for sid, s in sessions.items()} == expected.session_projects
        assert {p.cwd: uncosted(p.stats) for p in result.site.projects} == expected.projects
        assert uncosted(result.site.stats) == expected.site
        assert sorted((w.file, w.line) for w in result.warnings) == expected.warnings

    first = build(BuildConfig(out=tmp_path / "site", jobs=2))
    check(first)
    assert not first.used_examples and first.rebuilt == len(expected.sessions)
    again = build(BuildConfig(out=tmp_path / "site", jobs=2))
    check(again)
    assert (again.rebuilt, again.reused) == (0, len(expected.sessions))
    shutil.rmtree(isolated_home / ".gemini")
    kept = build(BuildConfig(out=tmp_path / "kept", jobs=2))
    check(kept)
    assert kept.archived_only == len(expected.sessions)
