"""Qwen Code end to end: ``bough build`` of a ``~/.qwen`` (the real lantern tree, read
in place, and the bundled example) into a tmp OUT, HOME and every agent's directory
pointed at tmp dirs. The session pages exist and the sidecars carry the counts."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.plan.units import QWEN
from bough_site.readers import qwen, registry
from bough_site.readers.layouts import LAYOUTS
from bough_site.readers.qwen_layout import LAYOUT

from corpus import qwen_examples

from .helpers import fixtures_dir, sessions_of

EXAMPLE = Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "qwen"
AGENT_HOMES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "QWEN_RUNTIME_DIR", "XDG_DATA_HOME",
               "BOUGH_ARCHIVE", "XDG_CONFIG_HOME", "COPILOT_HOME", "OPENCODE_DATA_DIR")


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An environment of tmp dirs only; Qwen Code registered in the build's two lists."""
    assert LAYOUTS[QWEN] is LAYOUT and registry.READERS[QWEN] is qwen.read_unit
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in AGENT_HOMES:
        monkeypatch.delenv(name, raising=False)
    return home


def run(out: Path, sources: list[Path]) -> None:
    config = BuildConfig(sources=sources, out=out, archive=None, jobs=1, source_filter="all")
    build(config, redaction_key=b"k")


def test_a_default_build_reads_qwen_home_and_matches_usage_record(registered: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tree = fixtures_dir("qwen") / "lantern__v0.21.6__qwen-home"
    monkeypatch.setenv("QWEN_HOME", str(tree))
    out = tmp_path / "out"
    run(out, [])  # no SOURCE: the agents' default places, $QWEN_HOME among them
    summaries = sessions_of(out)
    records = {r["sessionId"]: r for r in map(orjson.loads, (tree / "usage_record.jsonl").read_bytes().splitlines())}
    assert len(summaries) == 4
    for sid, summary in summaries.items():
        assert summary["source"] == "qwen-code"
        sidecar = orjson.loads((out / summary["json"]).read_bytes())
        stats = sidecar["stats"]
        (figures,) = records[sid]["models"].values()
        assert stats["input_tokens"] + stats["cache_read_input_tokens"] == figures["inputTokens"]
        assert stats["output_tokens"] == figures["outputTokens"]
        assert stats["reasoning_output_tokens"] == figures["thoughtsTokens"]
        assert stats["replies"] == figures["requests"]
        assert (out / summary["json"]).with_suffix(".html").is_file()
    index = orjson.loads((out / "index.json").read_bytes())
    assert index["stats"]["input_tokens"] == 26_650 and index["stats"]["output_tokens"] == 5_653


def test_the_example_builds_with_its_tool_views(registered: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(out, [EXAMPLE])
    (summary,) = sessions_of(out).values()
    stats = orjson.loads((out / summary["json"]).read_bytes())["stats"]
    assert (stats["prompts"], stats["replies"], stats["tool_calls"], stats["subagents"]) == (2, 10, 7, 1)
    assert (stats["input_tokens"], stats["cache_read_input_tokens"], stats["output_tokens"]) == (15_200, 133_300, 826)
    assert (stats["commits"], stats["files_changed"]) == (1, 1)  # its edit of tidepool/cli.py
    page = (out / summary["json"]).with_suffix(".html").read_text()
    assert "Qwen Code" in page and "format_height" in page and "Fix drift" not in page
    assert "Use format_height like today" in page  # the todo_write checklist
    assert "diff" in page


def test_the_bundled_example_is_what_the_corpus_writes(tmp_path: Path) -> None:
    written = qwen_examples.write_qwen_examples(tmp_path / "qwen")
    regenerated = {p.relative_to(tmp_path / "qwen").as_posix(): p.read_bytes() for p in written}
    bundled = {p.relative_to(EXAMPLE).as_posix(): p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()}
    assert regenerated == bundled, "run `python -m corpus.qwen_examples` to regenerate"
    assert sum(map(len, bundled.values())) < 20_000


def test_the_archive_keeps_a_session_qwen_code_deleted(registered: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "qwen-home"
    for rel, data in qwen_examples.example_files().items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    monkeypatch.setenv("QWEN_HOME", str(home))
    out, archive = tmp_path / "out", tmp_path / "archive"
    config = BuildConfig(sources=[], out=out, archive=archive, jobs=1, source_filter="qwen")
    build(config, redaction_key=b"k")
    before = sessions_of(out)
    for chat in home.rglob("*.jsonl"):
        chat.unlink()
    build(BuildConfig(sources=[], out=out, archive=archive, jobs=1, source_filter="qwen"), redaction_key=b"k")
    after = sessions_of(out)
    assert list(after) == list(before) == [qwen_examples.SID]
    (summary,) = after.values()
    sidecar = orjson.loads((out / summary["json"]).read_bytes())
    assert sidecar["kept_since"] and sidecar["stats"]["replies"] == 10


def test_a_folder_of_loose_files_tells_qwen_from_claude(registered: Path, tmp_path: Path) -> None:
    """The envelopes are alike: discovery asks the Layout's sniff first, and a Claude
    Code file beside a Qwen one is still Claude's."""
    from .helpers import SESSION, prompt, reply, text, write_jsonl

    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "qwen.jsonl").write_bytes(
        (EXAMPLE / "projects" / "-home-ada-src-tidepool" / "chats" / f"{qwen_examples.SID}.jsonl").read_bytes())
    write_jsonl(folder / f"{SESSION}.jsonl", [prompt("p1", "hello"), reply("r1", "msg_1", [text("hi")])])
    out = tmp_path / "out"
    run(out, [folder])
    sources = sorted(s["source"] for s in sessions_of(out).values())
    assert sources == ["claude-code", "qwen-code"]
