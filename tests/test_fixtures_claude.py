"""Real Claude Code transcripts from public repositories (../shared/fixtures/claude).

They are read in place (or copied to a temporary directory laid out as a Claude
config dir), never copied into the project.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bough_site.build import load_site
from bough_site.config import BuildConfig

from .helpers import ccusage_command, fixtures_dir, lay_out_as_config_dir

TOKEN_KEYS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheCreationTokens": "cache_creation_input_tokens",
    "cacheReadTokens": "cache_read_input_tokens",
}
# Where bough and ccusage 20.0.24 differ, and why. Each entry was checked by hand.
KNOWN_DIFFERENCES = {
    # ccusage skips JSON lines written with a space after each colon (its byte-level
    # prefilter looks for the compact form), so it ignores the assistant records
    # edge_002, edge_004 and edge_009 of this synthetic file. bough reads them.
    "claude-code-log-2025__edge_cases": {"input_tokens": 35 + 200 + 85, "output_tokens": 145 + 25 + 180},
}
# The only malformed lines in the fixtures: three lines of a synthetic file that are
# JSON but not objects (the claude-code-log edge-case file says so itself).
EXPECTED_WARNINGS = {
    ("claude-code-log-2025__edge_cases.jsonl", 13),
    ("claude-code-log-2025__edge_cases.jsonl", 15),
    ("claude-code-log-2025__edge_cases.jsonl", 16),
}


@pytest.fixture(scope="module")
def config_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("claude-config")
    lay_out_as_config_dir(fixtures_dir("claude"), root)
    return root


@pytest.fixture(scope="module")
def site(config_dir: Path):
    return load_site(BuildConfig(sources=[config_dir / "projects"]))


def sessions_by_id(site) -> dict:
    return {s.id: s for p in site.projects for s in p.sessions}


def trimmed_timestamp_lines(fixtures: Path) -> set[tuple[str, int]]:
    """The zoo file's trimmed records have "[trimmed for fixture]" as their timestamp:
    malformed for real, so each chain record deserves its warning."""
    name = "agent-sessions__v2.1.x-zoo__small.jsonl"
    records = [json.loads(line) for line in (fixtures / name).read_text().splitlines()]
    return {("fx-" + name, number) for number, record in enumerate(records, 1)
            if record.get("type") in ("user", "assistant", "system")
            and record.get("timestamp") == "[trimmed for fixture]"}


def test_every_fixture_reads_without_unexpected_warnings(site) -> None:
    warned = {(Path(w.file).name, w.line) for w in site.warnings}
    trimmed = trimmed_timestamp_lines(fixtures_dir("claude"))
    assert len(trimmed) > 5
    assert warned == EXPECTED_WARNINGS | trimmed
    assert all("unparsable timestamp" in w.reason for w in site.warnings if "zoo" in w.file)
    assert len(sessions_by_id(site)) == 15  # 13 loose files and 2 session directories


def test_subagent_directories_attach_to_their_sessions(site) -> None:
    sessions = sessions_by_id(site)
    assert sessions["258c7280-ae70-4798-800f-63464d01a85d"].stats["subagents"] == 2
    assert sessions["0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"].stats["subagents"] == 1


def test_compaction_session_counts(site) -> None:
    # spotter 2.1.39: 1,863 + 10 + 4 lines; 156 distinct message ids over main and
    # sub-agent files; 2 typed prompts (the rest are tool results, notifications, meta).
    stats = sessions_by_id(site)["258c7280-ae70-4798-800f-63464d01a85d"].stats
    assert (stats["lines"], stats["replies"], stats["prompts"], stats["subagents"]) == (1877, 156, 2, 2)


def test_token_totals_equal_ccusage(config_dir: Path, site) -> None:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config_dir)}
    run = subprocess.run(
        ccusage_command() + ["session", "--json", "--offline"],
        env=env, capture_output=True, text=True, timeout=300, check=True,
    )
    theirs = {entry["period"]: entry for entry in json.loads(run.stdout)["session"]}
    ours = sessions_by_id(site)
    assert theirs, "ccusage reported no sessions"
    for session_id, entry in sorted(theirs.items()):
        stats = ours[session_id].stats
        got = {key: stats[key] for key in TOKEN_KEYS.values()}
        expected = {ours_key: entry[their_key] for their_key, ours_key in TOKEN_KEYS.items()}
        for key, extra in KNOWN_DIFFERENCES.get(session_id, {}).items():
            expected[key] += extra
        assert got == expected, f"session {session_id}"
    # Sessions with spend that ccusage does not list must have none.
    for session_id, session in ours.items():
        if session_id not in theirs:
            assert all(session.stats[key] == 0 for key in TOKEN_KEYS.values()), session_id
