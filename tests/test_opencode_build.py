"""OpenCode end to end: ``bough build`` of the real fixtures and of a data directory
found in its default place, the archive keeping a database as its sessions' rows
and giving them back once the database is gone (docs/formats-opencode.md §10)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.plan.units import OPENCODE
from bough_site.readers import layouts, registry
from bough_site.readers.opencode import read_unit
from bough_site.readers.opencode_layout import LAYOUT
from corpus.opencode import Builder, Step, write_db

from .helpers import fixtures_dir, sessions_of

LANTERN = {  # session id -> (replies, prompts, tool_calls, input, output), from its step-finish parts
    "ses_03156b771ffeANj3CiDnYkqmmr": (1, 1, 0, 2050, 163),
    "ses_031559a74ffe4reBgr5U6MnTO4": (1, 1, 0, 2050, 867),
    "ses_031541bf9ffeMiy2LOFii47rch": (2, 1, 1, 4100, 955),
}


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """OpenCode registered in the lists the wiring asks; every agent's home in tmp."""
    assert layouts.LAYOUTS[OPENCODE] is LAYOUT and registry.READERS[OPENCODE] is read_unit
    home = tmp_path / "home"
    home.mkdir()
    for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home) if name == "HOME" else str(home / name.lower()))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "OPENCODE_DB", "BOUGH_ARCHIVE"):
        monkeypatch.delenv(name, raising=False)


def run(out: Path, sources: list[Path], archive: Path | None = None) -> list[str]:
    said: list[str] = []
    config = BuildConfig(sources=sources, out=out, archive=archive, jobs=1, search=False, report=said.append)
    build(config, redaction_key=b"k")
    return said


def test_the_real_fixtures_build_with_exact_counts(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(out, [fixtures_dir("opencode")])
    found = sessions_of(out)
    opencode = {sid: s for sid, s in found.items() if s.get("source") == "opencode"}
    assert set(LANTERN) | {"s_stage0_small", "s_stage0_large", "s_stage0_drift"} == set(opencode)
    for sid, (replies, prompts, calls, given, output) in LANTERN.items():
        stats = opencode[sid]["stats"]
        assert (stats["replies"], stats["prompts"], stats["tool_calls"]) == (replies, prompts, calls)
        assert (stats["input_tokens"], stats["output_tokens"], stats["reasoning_output_tokens"]) == (given, output, 0)
    # The synthetic JSON sessions hold replies without a step-finish: unknown, not 0.
    assert opencode["s_stage0_small"]["stats"]["replies_with_unknown_tokens"] == 1
    for summary in opencode.values():  # each session has its page and its sidecar, with the same counts
        assert (out / summary["html"]).is_file()
        assert orjson.loads((out / summary["json"]).read_bytes())["stats"] == summary["stats"]
    fix = (out / opencode["ses_031541bf9ffeMiy2LOFii47rch"]["html"]).read_text()
    assert "src/orders.py" in fix and "Wrote file successfully." in fix  # the write call's view and result
    index = orjson.loads((out / "index.json").read_bytes())
    assert any(p["cwd"] == "/work" for p in index["projects"])


def test_the_default_place_and_the_archive_keep_a_deleted_database(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = home / "xdg_data_home" / "opencode"
    data.mkdir(parents=True)
    b = Builder(7, cwd=str(tmp_path / "proj"))
    root = b.session()
    b.user(root, "add a test")
    tool, child = b.task(root, "current")
    b.user(child, "Look.")
    b.assistant(child, [Step(fresh=40, output=4, read=900)], tools=[b.tool("grep", {"pattern": "x", "path": "/"})])
    b.assistant(root, [Step(fresh=100, output=30, reasoning=10, read=2000, write=300), Step(fresh=5, output=6)],
                tools=[tool, b.tool("bash", {"command": "pytest -q"}, output="1 passed")])
    write_db(data / "opencode.db", b.sessions)
    archive = tmp_path / "archive"
    out = tmp_path / "out"
    run(out, [], archive=archive)  # the default place: $XDG_DATA_HOME/opencode
    first = sessions_of(out)[root.id]["stats"]
    assert child.id not in sessions_of(out)  # a sub-agent, nested: no session of its own
    assert (first["input_tokens"], first["output_tokens"], first["cache_read_input_tokens"]) == (145, 40, 2900)
    assert (first["subagents"], first["tool_calls"], first["prompts"], first["replies"]) == (1, 3, 1, 2)
    exports = sorted(p.name for p in archive.rglob("*.jsonl*"))
    assert any(root.id in name for name in exports) and any(child.id in name for name in exports)
    shutil.rmtree(data)  # OpenCode's data is gone: the archive's exports stand in
    out2 = tmp_path / "out2"
    run(out2, [], archive=archive)
    again = sessions_of(out2)[root.id]
    assert again["stats"] == first


def test_a_session_that_grew_only_in_the_wal_is_read_again(tmp_path: Path) -> None:
    data = tmp_path / "src" / "opencode"
    data.mkdir(parents=True)
    b = Builder(8, cwd=str(tmp_path / "proj"))
    ses = b.session()
    b.user(ses, "first")
    b.assistant(ses, [Step(fresh=10, output=1)])
    write_db(data / "opencode.db", b.sessions, wal=True)
    out = tmp_path / "out"
    run(out, [data])
    assert sessions_of(out)[ses.id]["stats"]["prompts"] == 1
    writer = __import__("sqlite3").connect(data / "opencode.db")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    size = (data / "opencode.db").stat().st_size
    writer.execute("INSERT INTO message VALUES ('msg_zlate', ?, 1785879999000, 1785879999000, ?)",
                   (ses.id, '{"role":"user","time":{"created":1785879999000}}'))
    writer.execute("INSERT INTO part VALUES ('prt_zlate', 'msg_zlate', ?, 1, 1, ?)",
                   (ses.id, '{"type":"text","text":"second"}'))
    writer.commit()
    assert (data / "opencode.db").stat().st_size == size and (data / "opencode.db-wal").stat().st_size > 0
    run(out, [data])
    writer.close()
    assert sessions_of(out)[ses.id]["stats"]["prompts"] == 2


def test_a_session_opencode_deleted_comes_back_from_the_archive_and_source_filters(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = home / "xdg_data_home" / "opencode"
    data.mkdir(parents=True)
    b = Builder(12, cwd=str(tmp_path / "proj"))
    kept, deleted = b.session(), b.session()
    for ses in (kept, deleted):
        b.user(ses, "hello")
        b.assistant(ses, [Step(fresh=20, output=2)])
    db = write_db(data / "opencode.db", b.sessions)
    archive, out = tmp_path / "archive", tmp_path / "out"
    config = BuildConfig(sources=[], out=out, archive=archive, jobs=1, search=False, source_filter="opencode")
    build(config, redaction_key=b"k")
    assert set(sessions_of(out)) == {kept.id, deleted.id}
    con = __import__("sqlite3").connect(db)
    con.execute("DELETE FROM part WHERE session_id = ?", (deleted.id,))
    con.execute("DELETE FROM message WHERE session_id = ?", (deleted.id,))
    con.execute("DELETE FROM session WHERE id = ?", (deleted.id,))
    con.execute("UPDATE part SET data = replace(data, '\"input\":20', '\"input\":21') WHERE session_id = ?", (kept.id,))
    con.commit()
    con.close()
    build(config, redaction_key=b"k")
    found = sessions_of(out)
    assert set(found) == {kept.id, deleted.id}  # the deleted one from its export
    assert found[kept.id]["stats"]["input_tokens"] == 21  # the live database wins over the older export
    assert found[deleted.id]["stats"]["input_tokens"] == 20
    sidecars = {sid: orjson.loads((out / found[sid]["json"]).read_bytes()) for sid in found}
    assert sidecars[deleted.id]["kept_since"] and not sidecars[kept.id]["kept_since"]  # said on its page
    assert {s["source"] for s in found.values()} == {"opencode"}


def test_bough_archive_counts_a_child_session_with_its_root(tmp_path: Path) -> None:
    # The bundled example: a session and its `task` sub-agent's child session, two
    # exports in the archive, one session on the site and in `bough archive`.
    from bough_site.archive import Archive
    from bough_site.discover import EXAMPLES

    archive = tmp_path / "archive"
    run(tmp_path / "out", [EXAMPLES / "opencode"], archive)
    exports = sorted(p.name for p in archive.rglob("*.jsonl.gz"))
    assert len(exports) == 2 and len(sessions_of(tmp_path / "out")) == 1
    summary = Archive.open(archive).summary()
    assert (summary.sessions, summary.by_kind) == (1, {OPENCODE: 1})
