"""The synthetic Claude history (corpus.claude) and the reader checked against it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from corpus.claude import STAT_KEYS, Expected, generate_claude_history, mangle

from .helpers import uncosted

ADDITIVE = ("lines", "skipped_lines", "subagents")


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.jsonl"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Expected]:
    root = tmp_path_factory.mktemp("claude-corpus")
    return root, generate_claude_history(root)


# --- 1. determinism ---------------------------------------------------------------------


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path: Path) -> None:
    first, second, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    e1 = generate_claude_history(first, seed=7, turns_per_session=3)
    e2 = generate_claude_history(second, seed=7, turns_per_session=3)
    generate_claude_history(other, seed=8, turns_per_session=3)
    assert _tree(first) == _tree(second)
    assert e1 == e2
    assert _tree(first) != _tree(other)


# --- 2. self-consistency --------------------------------------------------------------------


def test_stats_have_exactly_the_contract_keys(corpus: tuple[Path, Expected]) -> None:
    from bough_site.model import STAT_KEYS as MODEL_KEYS

    _, expected = corpus
    assert STAT_KEYS == MODEL_KEYS
    for stats in [expected.site, *expected.projects.values(), *expected.sessions.values()]:
        assert tuple(stats) == STAT_KEYS


def test_site_is_the_sum_of_projects_and_projects_bound_their_sessions(corpus: tuple[Path, Expected]) -> None:
    _, expected = corpus
    # No identity is shared between projects, so the site adds them up exactly.
    for key in STAT_KEYS:
        assert expected.site[key] == sum(p[key] for p in expected.projects.values()), key
    by_project: dict[str, list[dict[str, int]]] = {}
    for sid, cwd in expected.session_projects.items():
        by_project.setdefault(cwd, []).append(expected.sessions[sid])
    assert set(by_project) == set(expected.projects)
    for cwd, sessions in by_project.items():
        project = expected.projects[cwd]
        for key in STAT_KEYS:
            total = sum(s[key] for s in sessions)
            if key in ADDITIVE:
                assert project[key] == total, (cwd, key)
            else:
                assert project[key] <= total, (cwd, key)
        # A resumed session copies its parent's records: the union is smaller.
        assert project["records"] < sum(s["records"] for s in sessions)
        assert project["replies"] < sum(s["replies"] for s in sessions)


def test_line_counts_match_the_files(corpus: tuple[Path, Expected]) -> None:
    root, expected = corpus
    files = list((root / "projects").rglob("*.jsonl"))
    non_blank = sum(1 for f in files for line in f.read_bytes().split(b"\n") if line.strip())
    assert expected.site["lines"] == non_blank
    # Invalid UTF-8 inside a string is repaired (a warning, not a skip).
    skipped = [(rel, n) for rel, n in expected.bad_lines if not _parses(_line(root / rel, n), lenient=True)]
    assert expected.site["skipped_lines"] == len(skipped)


def _line(path: Path, number: int) -> bytes:
    lines = path.read_bytes().split(b"\n")
    assert 1 <= number <= len(lines), (path, number)
    return lines[number - 1]


def _parses(raw: bytes, *, lenient: bool = False) -> bool:
    try:
        return isinstance(orjson.loads(raw.decode("utf-8", "replace") if lenient else raw), dict)
    except orjson.JSONDecodeError:
        return False


def test_every_bad_line_is_bad_and_every_kind_is_there(corpus: tuple[Path, Expected]) -> None:
    root, expected = corpus
    kinds: Counter[str] = Counter()
    for rel, number in expected.bad_lines:
        raw = _line(root / rel, number)
        assert raw.strip(), (rel, number)
        assert not _parses(raw), (rel, number)
        if number == len((root / rel).read_bytes().split(b"\n")):
            kinds["truncated"] += 1
            assert not (root / rel).read_bytes().endswith(b"\n")
        elif raw.startswith(b"["):
            kinds["array"] += 1
        else:
            try:
                raw.decode("utf-8")
                kinds["not json"] += 1
            except UnicodeDecodeError:
                kinds["invalid utf-8"] += 1
                assert isinstance(orjson.loads(raw.decode("utf-8", "replace")), dict)
    assert set(kinds) == {"truncated", "array", "not json", "invalid utf-8"}, kinds
    assert any("/subagents/" in rel or "/agent-" in rel for rel, _ in expected.bad_lines)


def test_layout_has_every_trap(corpus: tuple[Path, Expected]) -> None:
    root, expected = corpus
    projects = root / "projects"
    # Two cwds, one directory.
    assert mangle("/home/u/my-app") == mangle("/home/u/my/app") == "-home-u-my-app"
    shared = (projects / "-home-u-my-app").glob("*.jsonl")
    in_dir = {expected.session_projects[p.stem] for p in shared if p.stem in expected.session_projects}
    assert in_dir == {"/home/u/my-app", "/home/u/my/app"}
    assert list(projects.glob("*/agent-*.jsonl")), "old-layout sub-agents"
    assert list(projects.glob("*/*/subagents/agent-a*.jsonl")), "new-layout sub-agents"
    assert list(projects.glob("*/*/subagents/agent-acompact-*.jsonl")), "compaction agent"
    assert list(projects.glob("*/*/subagents/*.meta.json")), "meta.json sidecars"
    text = b"".join(p.read_bytes() for p in projects.rglob("*.jsonl"))
    for needle in (b'"<synthetic>"', b'"compact_boundary"', b'"isCompactSummary":true', b'"local_command"',
                   b"<command-message>review", b"<bash-input>", b"<system-reminder>", b"<task-notification>",
                   b"[Request interrupted by user]", b"[Request interrupted by user for tool use]", b'"promptId"',
                   b'"is_error":true', b'"hook_progress"', b'"bash_progress"', b'"agent_progress"',
                   b'"file-history-snapshot"', b'"queue-operation"', b'"attachment"', b'"type":"summary"',
                   b'"ai-title"', b'"custom-title"', b'"last-prompt"', b'"permission-mode"', b'"frame-link"',
                   b'"turn_duration"', b'"stop_hook_summary"', b'"api_error"',
                   b'"name":"Task"', b'"name":"Agent"', b'"Warmup"', b'"isMeta":true'):
        assert needle in text, needle
    assert b'\n\n' in text  # blank lines
    # 1.0.x sidechains inline in a main transcript (no agentId there).
    mains = [p for p in projects.glob("*/*.jsonl") if p.stem in expected.sessions]
    assert any(b'"isSidechain":true' in p.read_bytes() for p in mains)


# --- 3. the reader against the oracle -------------------------------------------------------


# The default history, and a wider one (eras wrap around, five distinct cwds).
CONFIGS = {"default": {}, "wide": {"seed": 3, "projects": 6, "sessions_per_project": 4, "turns_per_session": 9}}


def _read(tmp_path: Path, config: dict[str, int]):  # -> (Site, Expected)
    from bough_site.build import load_site
    from bough_site.config import BuildConfig

    expected = generate_claude_history(tmp_path, **config)
    return load_site(BuildConfig(sources=[tmp_path / "projects"])), expected


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_reader_counts_equal_the_generated_truth(tmp_path: Path, config: dict[str, int]) -> None:
    site, expected = _read(tmp_path, config)
    sessions = {s.id: s for p in site.projects for s in p.sessions}
    assert set(sessions) == set(expected.sessions)
    mismatches = [
        (sid, key, want[key], sessions[sid].stats.get(key))
        for sid, want in expected.sessions.items()
        for key in STAT_KEYS
        if sessions[sid].stats.get(key) != want[key]
    ]
    assert not mismatches, mismatches
    assert {s.id: p.cwd for p in site.projects for s in p.sessions} == expected.session_projects
    assert {p.cwd: uncosted(p.stats) for p in site.projects} == expected.projects
    assert uncosted(site.stats) == expected.site


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_reader_warns_about_exactly_the_bad_lines(tmp_path: Path, config: dict[str, int]) -> None:
    site, expected = _read(tmp_path, config)
    warned = {(Path(w.file).name, w.line) for w in site.warnings}
    warned |= {(Path(w.file).name, w.line) for p in site.projects for s in p.sessions for w in s.warnings}
    assert warned == {(Path(rel).name, line) for rel, line in expected.bad_lines}


# --- 4. scale ----------------------------------------------------------------------------------


def test_size_scales_with_output_kb_and_turns(tmp_path: Path) -> None:
    def size(name: str, **kw: int) -> int:
        generate_claude_history(tmp_path / name, projects=2, sessions_per_project=2, **kw)
        return _size(tmp_path / name)

    base = size("base", turns_per_session=8, output_kb=2)
    bigger_outputs = size("kb", turns_per_session=8, output_kb=8)
    more_turns = size("turns", turns_per_session=16, output_kb=2)
    # Envelopes and assistant text do not grow with output_kb, so 4x outputs give
    # somewhat less than 4x bytes; turns scale everything but the fixed traps.
    assert 1.8 < bigger_outputs / base < 4.0
    assert 1.4 < more_turns / base < 2.2
