"""Copilot CLI in the build, end to end: the real fixtures given as a SOURCE (read in
place), the default home (``$COPILOT_HOME``) holding the bundled example, ``--source
copilot``, the archive, the session pages and the sidecars' counts, unknown tokens
null in a session's sidecar and "unknown" on its page, counted out in the project's."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from bough_site.build import BuildResult, build
from bough_site.config import BuildConfig
from corpus import copilot_examples as cx

from .helpers import fixtures_dir, sessions_of

VCT = "96ef38f0-9d09-45c3-8124-6448c36090ed"
LEGACY = "06141331-92e8-4e9e-8bbb-9b7a729eb01a"
LANTERN = ("049410b4-c1df-44ee-87a5-caa1c349091e", "f27af309-ccf3-41da-8f07-b3dcbffd4c90")


@pytest.fixture
def copilot_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$COPILOT_HOME`` holding a copy of the bundled Copilot CLI example."""
    home = isolated_home / "copilot-home"
    shutil.copytree(cx.bundled_root(), home)
    monkeypatch.setenv("COPILOT_HOME", str(home))
    return home


def run(out: Path, **options: Any) -> BuildResult:
    return build(BuildConfig(out=out, jobs=1, **options), redaction_key=b"test")


def sidecar(out: Path, summary: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads((out / summary["json"]).read_bytes())


def test_the_real_fixtures_build_with_their_own_token_totals(tmp_path: Path) -> None:
    out = tmp_path / "site"
    folder = fixtures_dir("copilot")
    # A folder walk offers a layout its folders and its .jsonl files; a loose legacy .json
    # (here beside the others, not in a history-session-state/) is given as a source of its own.
    legacy = folder / "vibecodingtracker__legacy-2025-10__test_conversation_copilot.json"
    result = run(out, sources=[folder, legacy], archive=tmp_path / "archive")
    found = sessions_of(out)
    assert sorted(found) == sorted([VCT, LEGACY, *LANTERN, "copilot_stage0_small"])
    assert all(s["source"] == "copilot-cli" for s in found.values())
    for summary in found.values():
        assert (out / summary["html"]).is_file()
    vct = found[VCT]["stats"]
    assert (vct["input_tokens"], vct["cache_read_input_tokens"], vct["output_tokens"]) == (35_071, 151_738, 2_848)
    assert (vct["replies"], vct["prompts"], vct["tool_calls"]) == (6, 1, 11)
    for session_id, output in zip(LANTERN, (978, 431)):
        assert (found[session_id]["stats"]["input_tokens"], found[session_id]["stats"]["output_tokens"]) == (4_100, output)
    legacy = sidecar(out, found[LEGACY])
    assert legacy["stats"]["input_tokens"] is None and legacy["stats"]["output_tokens"] is None
    assert legacy["stats"]["replies"] == 37 and legacy["stats"]["tool_calls"] == 59
    # The legacy session's directory is vct's: one project, its sums the known ones.
    index = orjson.loads((out / "index.json").read_bytes())
    project = next(p for p in index["projects"] if p["cwd"] == "/home/wei/repo/VibeCodingTracker")
    assert project["stats"]["sessions"] == 2 and project["stats"]["input_tokens"] == 35_071
    assert project["stats"]["sessions_with_unknown_input_tokens"] == 1
    assert index["stats"]["sessions_with_unknown_input_tokens"] == 2  # the legacy one and the zoo
    assert index["stats"]["input_tokens"] == 35_071 + 4_100 + 4_100
    page = (out / found[LEGACY]["html"]).read_text()
    assert ">unknown<" in page
    assert result.site.stats["output_tokens"] == 2_848 + 978 + 431 + 15


def test_the_default_home_and_source_filter(tmp_path: Path, copilot_home: Path) -> None:
    out = tmp_path / "site"
    run(out, source_filter="copilot", archive=tmp_path / "archive")
    found = sessions_of(out)
    assert sorted(found) == sorted([cx.C1, cx.C2])
    clean, killed = sidecar(out, found[cx.C1]), sidecar(out, found[cx.C2])
    assert clean["stats"]["input_tokens"] == cx.C1_INPUT - cx.C1_CACHE_READ - cx.C1_CACHE_WRITE
    assert clean["stats"]["output_tokens"] == sum(cx.C1_OUTPUT)
    assert clean["stats"]["files_changed"] == 1 and clean["stats"]["skipped_lines"] == 1
    assert clean["files"] == [cx.C1_FILE, cx.C1_WORKSPACE]
    assert killed["stats"]["input_tokens"] is None and killed["stats"]["output_tokens"] == sum(cx.C2_OUTPUT)
    reply = next(item for item in killed["timeline"] if item["kind"] == "reply")
    assert reply["usage"]["input_tokens"] is None and reply["usage"]["output_tokens"] == cx.C2_OUTPUT[0]
    page = (out / found[cx.C2]["html"]).read_text()
    assert "(some\u00a0unknown)" in page and ">unknown<" in page
    project = sidecar(out, {"json": orjson.loads((out / "index.json").read_bytes())["projects"][0]["json"]})
    assert project["stats"]["sessions_with_unknown_input_tokens"] == 1


def test_a_session_the_agent_deleted_is_read_back_from_the_archive(tmp_path: Path, copilot_home: Path) -> None:
    out, archive = tmp_path / "site", tmp_path / "archive"
    run(out, archive=archive, source_filter="copilot")
    shutil.rmtree(copilot_home / "session-state" / cx.C2)
    run(out, archive=archive, source_filter="copilot")
    found = sessions_of(out)
    assert sorted(found) == sorted([cx.C1, cx.C2])
    assert sidecar(out, found[cx.C2])["stats"]["output_tokens"] == sum(cx.C2_OUTPUT)


def test_the_default_places_and_the_agents_home() -> None:
    from bough_site.config import agent_homes, agent_roots

    env = {"HOME": "/h"}
    assert agent_roots("copilot", env) == [Path("/h/.copilot/session-state"), Path("/h/.copilot/history-session-state")]
    assert Path("/h/.copilot/session-state") in agent_roots("all", env)
    assert Path("/c") in agent_homes({"HOME": "/h", "COPILOT_HOME": "/c"})


def test_a_resumed_session_is_read_again_with_its_new_run(tmp_path: Path, copilot_home: Path) -> None:
    out = tmp_path / "site"
    run(out, source_filter="copilot", archive=None)
    log = copilot_home / cx.C1_FILE
    more = [
        {"type": "session.resume", "data": {"resumeTime": "2026-03-12T09:00:00.000Z", "eventCount": 29}},
        {"type": "user.message", "data": {"content": "Now document --json in the README."}},
        {"type": "assistant.message", "data": {"messageId": "r1", "content": "Documented.", "outputTokens": 40,
                                               "model": cx.MODEL}},
        # A running total (7 requests = every call so far): its growth is this run's.
        {"type": "session.shutdown", "data": {"shutdownType": "routine", "modelMetrics": {cx.MODEL: {
            "requests": {"count": 7}, "usage": {"inputTokens": cx.C1_INPUT + 20_000, "outputTokens": 794,
                                                "cacheReadTokens": cx.C1_CACHE_READ + 18_000,
                                                "cacheWriteTokens": cx.C1_CACHE_WRITE, "reasoningTokens": 0}}}}},
    ]
    with log.open("ab") as handle:
        handle.write(b"".join(orjson.dumps({**r, "id": f"more-{n}", "timestamp": f"2026-03-12T09:00:0{n}.000Z"}) + b"\n"
                              for n, r in enumerate(more)))
    (copilot_home / cx.C1_WORKSPACE).write_text(f"id: {cx.C1}\nname: Short\n")  # rewritten whole, shorter
    result = run(out, source_filter="copilot", archive=None)
    stats = sidecar(out, sessions_of(out)[cx.C1])["stats"]
    assert (stats["prompts"], stats["replies"], stats["output_tokens"]) == (2, 7, 794)
    assert stats["input_tokens"] == cx.C1_INPUT - cx.C1_CACHE_READ - cx.C1_CACHE_WRITE + 2_000
    assert stats["cache_read_input_tokens"] == cx.C1_CACHE_READ + 18_000
    assert sessions_of(out)[cx.C1]["title"] == "Short"
    assert not [w for w in result.warnings if "shutdown" in w.reason]
