"""Real Gemini CLI sessions from public repositories (../shared/fixtures/gemini), read
in place, never copied into the project. Skipped where this checkout has none beside it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from bough_site.site import site_from_sessions
from bough_site.model import Marker, Reply, Session, ToolCall, InputWarning
from bough_site.readers.gemini import read_gemini_sessions
from bough_site.readers.gemini_files import find_gemini_files, is_gemini_file
from bough_site.work import summarize_work

from .helpers import fixtures_dir, uncosted

# Which fixture files are damaged: none of the seven is (every line of the log and every
# legacy object parses, and every tokens.total is its parts' sum), so no warning is expected.
EXPECTED_WARNINGS: set[tuple[str, int]] = set()
LOG = "vibecodingtracker__jsonl-0.39-0.41__gemini.jsonl"
PAIR = ("m-gemini__legacy-0.22__session-2025-12-30T07-24-a1c91f1a.json",
        "m-gemini__legacy-0.22__session-2025-12-30T07-44-a1c91f1a.json")


@pytest.fixture(scope="module")
def read() -> tuple[Path, list[Session], list[InputWarning]]:
    folder = fixtures_dir("gemini")
    warnings: list[InputWarning] = []
    found = find_gemini_files(folder)
    sessions = read_gemini_sessions(found.files, warnings.append, label=lambda p: p.name)
    for session in sessions:
        summarize_work(session)
    return folder, sessions, warnings


def by_file(sessions: list[Session], name: str) -> Session:
    return next(s for s in sessions if name in s.files)


def calls(items: list) -> list[ToolCall]:
    return [b for i in items if isinstance(i, Reply) for b in i.blocks if isinstance(b, ToolCall)]


def test_every_fixture_is_told_a_gemini_session_and_read(read) -> None:
    folder, sessions, _ = read
    files = sorted(p.name for p in folder.iterdir())
    assert len(files) == 7 and all(is_gemini_file(folder / name) for name in files)
    assert sorted(label for s in sessions for label in s.files) == files
    assert len(sessions) == 6  # the two /clear segments of one session id are one session


def test_warnings_only_where_a_file_is_damaged(read) -> None:
    _, _, warnings = read
    assert {(w.file, w.line) for w in warnings} == EXPECTED_WARNINGS


def test_the_logs_tokens_total_206879(read) -> None:
    """Trap 1: its model records are written again as they change. Counted once each,
    fresh input + cache reads + output (thoughts included) is the sum of the records'
    own ``total``s; summing every line gives 373,199."""
    folder, sessions, _ = read
    stats = by_file(sessions, LOG).stats
    counted = sum(stats[key] for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                                         "output_tokens"))
    assert counted == 206_879
    lines = [orjson.loads(line) for line in (folder / LOG).read_bytes().splitlines() if line.strip()]
    totals = [line["tokens"]["total"] for line in lines if line.get("type") == "gemini"]
    last = {line["id"]: line["tokens"]["total"] for line in lines if line.get("type") == "gemini"}
    assert sum(totals) == 373_199 and sum(last.values()) == counted


def test_the_log_counts_its_command_prompt_nudge_and_calls(read) -> None:
    _, sessions, _ = read
    session = by_file(sessions, LOG)
    stats = session.stats
    assert (stats["records"], stats["replies"], stats["prompts"], stats["commands"]) == (11, 6, 1, 1)
    assert (stats["tool_calls"], stats["tool_results"], stats["tool_errors"], stats["lines"]) == (12, 12, 0, 28)
    assert len(session.models) == 2
    commands = [i for i in session.timeline if type(i).__name__ == "Command"]
    assert [c.name for c in commands] == ["/init"]
    assert any(isinstance(i, Marker) and i.type == "meta" and i.text == "System: Please continue."
               for i in session.timeline)


def test_legacy_sessions_count_as_their_files_say(read) -> None:
    _, sessions, _ = read
    expected = {
        "ai-sessions__legacy-2025-10__gemini-cli-pomodoro-timer.json": (19, 14, 5, 11, 1),
        "aim__legacy-0.31-0.38__control_pro_run4_abandoned.json": (13, 11, 2, 9, 0),
        "m-gemini__legacy-0.22__session-2025-12-30T01-16-3f9ce747.json": (13, 8, 2, 7, 0),
        "vibecodingtracker__legacy-2025-10__test_conversation_gemini.json": (19, 18, 1, 0, 0),
    }
    for name, counts in expected.items():
        stats = by_file(sessions, name).stats
        assert (stats["records"], stats["replies"], stats["prompts"], stats["tool_calls"], stats["tool_errors"],
                ) == counts, name
        assert stats["lines"] == 1


def test_a_cancelled_call_is_shown_cancelled_not_as_an_error(read) -> None:
    _, sessions, _ = read
    session = by_file(sessions, "m-gemini__legacy-0.22__session-2025-12-30T01-16-3f9ce747.json")
    cancelled = [c for c in calls(session.timeline) if c.result and (c.result.detail or {}).get("status") == "cancelled"]
    assert len(cancelled) == 1 and not cancelled[0].result.is_error and session.stats["tool_errors"] == 0
    # Its paths are redacted, so a note on the directory comes first; then the notices written
    # before the first prompt: an update that failed, an update available.
    assert [(m.id.endswith(":directory"), m.type) for m in session.timeline[:3]] == [
        (True, "notice"), (False, "error"), (False, "notice")]


def test_the_two_clear_segments_are_one_session_in_time_order(read) -> None:
    _, sessions, _ = read
    session = by_file(sessions, PAIR[0])
    assert session.files == list(PAIR)
    assert sum(isinstance(i, Marker) and i.id.startswith("gemini:segment:") for i in session.timeline) == 1
    assert session.stats["prompts"] == 4 and session.stats["lines"] == 2


def test_the_root_is_recovered_where_paths_are_not_redacted(read) -> None:
    """Hashing the paths a session mentions finds its projectHash in three files; the
    redacted ones and the one with no tool calls are filed under their folder."""
    folder, sessions, _ = read
    recovered = {}
    for session in sessions:
        head = orjson.loads((folder / session.files[0]).read_bytes().splitlines()[0]) if session.files[0].endswith(
            "jsonl") else orjson.loads((folder / session.files[0]).read_bytes())
        if session.cwd != folder.name:
            assert hashlib.sha256(session.cwd.encode()).hexdigest() == head["projectHash"]
            recovered[session.files[0]] = session.cwd
        else:
            assert isinstance(session.timeline[0], Marker) and "could not be recovered" in session.timeline[0].text
    assert sorted(recovered) == [
        "ai-sessions__legacy-2025-10__gemini-cli-pomodoro-timer.json",
        "aim__legacy-0.31-0.38__control_pro_run4_abandoned.json",
        LOG,
    ]


def test_projects_and_the_site_are_the_union_of_the_sessions(read) -> None:
    _, sessions, _ = read
    site = site_from_sessions(sessions)
    assert len(site.projects) == 4  # three recovered directories and the fixtures' folder
    for key, value in site.stats.items():
        assert value == sum(s.stats[key] for s in sessions), key


def test_a_build_of_the_fixture_folder_matches_the_reader_and_warns_of_nothing(read, tmp_path: Path) -> None:
    """The folder as a SOURCE (loose session files, told from their content), through
    discovery, the archive, the workers and the pages: the same sessions and counts."""
    from bough_site.build import build
    from bough_site.config import BuildConfig

    folder, sessions, _ = read
    result = build(BuildConfig(sources=[folder], out=tmp_path / "site", jobs=2, search=False), redaction_key=b"k")
    assert result.warnings == []
    # The reader alone prices nothing (pricing.py is a stage of the build): the counts are the same.
    assert {s.id: uncosted(s.stats) for p in result.site.projects for s in p.sessions} == {s.id: s.stats for s in sessions}
    assert {s.id: s.cwd for p in result.site.projects for s in p.sessions} == {s.id: s.cwd for s in sessions}
    pages = list((tmp_path / "site" / "projects").glob("*/sessions/*.html"))
    assert len(pages) == len(sessions) == 6
