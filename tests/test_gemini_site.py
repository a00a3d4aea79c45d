"""Gemini CLI in the build (part B of #16): the default home and every SOURCE level,
``--source gemini``, one unit per project folder, the archive (sessions, sub-agents and
the roots written beside them; legacy files rewritten whole), the retention notice, the
tool views, rewound items on the page, redaction of file tools, and a bare build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from bough_site.archive import Archive
from bough_site.archive_entry import rewritten_whole
from bough_site.agent_cleanup import cleanup_notes, gemini_retention
from bough_site.build import BuildResult, build, load_site
from bough_site.config import BuildConfig, agent_homes, agent_roots, archive_dir
from bough_site.discover import discover
from bough_site.model import Marker, Prompt, Reply, Session, Text, ToolCall, ToolResult, Usage
from bough_site.plan.units import GEMINI, units_of
from bough_site.readers.gemini_files import is_gemini_dir, project_hash
from bough_site.render import pages, result_views, tool_views
from bough_site.scrub import scrub_session
from bough_site.redact import Redactor
from corpus import gemini_examples as gx

from .helpers import GEMINI_SESSION_STATS, uncosted

EXAMPLES = gx.bundled_root()
LOG_NAME = "session-2026-05-04T10-00-5b2c7d1e.jsonl"
SID = "5b2c7d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5e"
ROOT = "/home/ada/src/kiln"


@pytest.fixture
def gemini_home(isolated_home: Path) -> Path:
    """``$GEMINI_CLI_HOME/.gemini`` holding a copy of the bundled Gemini examples."""
    shutil.copytree(EXAMPLES, isolated_home / ".gemini")
    return isolated_home / ".gemini"


def run(out: Path, **options: Any) -> BuildResult:
    return build(BuildConfig(out=out, **options), redaction_key=b"test")


def stats(result: BuildResult) -> dict[str, dict[str, int]]:
    """The counted STATS of each session, without what the calls cost (test_pricing.py)."""
    return {s.id: uncosted(s.stats) for p in result.site.projects for s in p.sessions}


def ts(second: int) -> str:
    return f"2026-05-04T10:00:{second:02d}.000Z"


def log_lines(sid: str = SID, root: str = ROOT, text: str = "Tidy the kiln module.") -> list[dict[str, Any]]:
    """A small log that names no path: only a root written down can tell its directory."""
    return [{"sessionId": sid, "projectHash": project_hash(root), "startTime": ts(0), "lastUpdated": ts(0)},
            {"id": "u1", "timestamp": ts(1), "type": "user", "content": [{"text": text}]},
            {"id": "g1", "timestamp": ts(2), "type": "gemini", "content": "Done.", "model": "gemini-2.5-pro",
             "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 0, "total": 115}}]


def write_log(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


# --- where Gemini CLI keeps its sessions -----------------------------------------------------------------


def test_the_default_roots_hold_the_gemini_directory() -> None:
    env = {"HOME": "/h"}
    assert Path("/h/.gemini") in agent_roots("all", env)  # the agents a Layout describes come after it
    assert agent_roots("gemini", env) == [Path("/h/.gemini")]
    assert Path("/h/.gemini") not in agent_roots("claude", env) + agent_roots("codex", env)
    assert agent_roots("gemini", {"HOME": "/h", "GEMINI_CLI_HOME": "/g"}) == [Path("/g/.gemini")]
    assert Path("/g/.gemini") in agent_homes({"HOME": "/h", "GEMINI_CLI_HOME": "/g"})


def test_with_no_source_bough_reads_the_gemini_home(gemini_home: Path) -> None:
    site = load_site(BuildConfig())
    assert {s.id: uncosted(s.stats) for p in site.projects for s in p.sessions} == GEMINI_SESSION_STATS  # not the examples


def test_every_level_of_the_tree_is_a_source_and_names_files_alike(gemini_home: Path) -> None:
    tidepool = gemini_home / "tmp" / "tidepool"
    session = gemini_home / gx.G1_FILE
    # The session file as a source brings its sub-agent's file (chats/<sessionId>/) along.
    for source, count in [(gemini_home, 3), (gemini_home / "tmp", 3), (tidepool, 2), (tidepool / "chats", 2),
                          (session, 2)]:
        found = discover(BuildConfig(sources=[source]), lambda w: pytest.fail(str(w)))
        assert len(found.gemini) == count, source
        assert found.label(session) == gx.G1_FILE, source  # the archive's key, whatever the source
        assert found.label(gemini_home / gx.G1_AGENT_FILE) == gx.G1_AGENT_FILE
    assert is_gemini_dir(gemini_home) and not is_gemini_dir(gemini_home.parent)


def test_source_gemini_reads_it_alone_and_the_others_leave_it_out(gemini_home: Path, isolated_home: Path) -> None:
    shutil.copytree(EXAMPLES.parent / "codex" / "sessions", isolated_home / ".codex" / "sessions")
    only = load_site(BuildConfig(source_filter="gemini", archive=None))
    assert {s.source for p in only.projects for s in p.sessions} == {"gemini-cli"}
    others = load_site(BuildConfig(source_filter="codex", archive=None))
    assert {s.source for p in others.projects for s in p.sessions} == {"codex"}


def test_a_single_file_anywhere_is_told_from_its_content(tmp_path: Path) -> None:
    loose = write_log(tmp_path / "somewhere" / "notes.jsonl", log_lines())
    site = load_site(BuildConfig(sources=[loose], archive=None))
    (session,) = [s for p in site.projects for s in p.sessions]
    assert session.source == "gemini-cli" and session.files == ["somewhere/notes.jsonl"]


def test_one_unit_per_project_folder_and_a_restored_copy_joins_its_folder(gemini_home: Path, tmp_path: Path) -> None:
    found = discover(BuildConfig(), lambda w: None)
    restored = tmp_path / "restore" / "gemini" / "tmp" / "tidepool" / "chats" / "session-x.jsonl"
    labels = {**found.labels, restored: "tmp/tidepool/chats/session-x.jsonl"}
    units = units_of([], [], lambda p: labels.get(p, p.name), {}, found.gemini + [restored])
    assert [u.kind for u in units] == [GEMINI, GEMINI]
    by_size = sorted(units, key=lambda u: len(u.paths))
    assert by_size[0].labels == (gx.A1_FILE,)
    assert by_size[1].labels == (gx.G1_AGENT_FILE, gx.G1_FILE, "tmp/tidepool/chats/session-x.jsonl")  # by label


def test_a_build_reads_again_only_the_folder_that_changed(gemini_home: Path, tmp_path: Path) -> None:
    first = run(tmp_path / "site")
    assert stats(first) == GEMINI_SESSION_STATS and first.rebuilt == 2
    log = gemini_home / gx.G1_FILE
    log.write_bytes(log.read_bytes() + orjson.dumps({"$set": {"lastUpdated": "2026-03-11T10:00:00.000Z"}}) + b"\n")
    second = run(tmp_path / "site")
    assert (second.rebuilt, second.reused) == (1, 1)
    assert stats(second)[gx.G1]["lines"] == GEMINI_SESSION_STATS[gx.G1]["lines"] + 1


# --- the archive -------------------------------------------------------------------------------------------


def test_the_archive_keeps_sessions_sub_agents_and_roots_under_their_labels(gemini_home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site")
    kept = {p.relative_to(archive_dir() / "gemini").as_posix() for p in (archive_dir() / "gemini").rglob("*.gz")}
    assert kept == {f"{label}.gz" for label in ("projects.json", gx.G1_FILE, gx.G1_AGENT_FILE, gx.A1_FILE)}
    report = Archive.open(archive_dir(), create=False).summary()
    assert report.by_kind == {"gemini": 2}  # two sessions; the sub-agent's file and projects.json are no sessions


def test_bough_archive_counts_gemini_sessions_as_the_site_does(isolated_home: Path, tmp_path: Path) -> None:
    # Two segments of one sessionId (before 0.35, /clear) and a sub-agent's file under
    # chats/<sessionId>/ are one session on the site, and so in bough archive's report.
    chats = isolated_home / ".gemini" / "tmp" / "kiln" / "chats"
    write_log(chats / LOG_NAME, log_lines())
    later = [{**line, "timestamp": line["timestamp"].replace("T10:", "T11:")} if "id" in line else line
             for line in log_lines(text="Now the glaze.")]
    write_log(chats / "session-2026-05-04T11-00-5b2c7d1e.jsonl", later)
    write_log(chats / SID / "agent-1.jsonl",
              [{"sessionId": "agent-1", "projectHash": project_hash(ROOT), "startTime": ts(3), "kind": "subagent"},
               {"id": "a1", "timestamp": ts(4), "type": "user", "content": [{"text": "look"}]}])
    result = run(tmp_path / "site")
    [session] = [s for p in result.site.projects for s in p.sessions]
    report = Archive.open(archive_dir(), create=False).summary()
    assert (result.sessions, report.sessions, report.by_kind, report.files) == (1, 1, {"gemini": 1}, 3)
    assert report.oldest == report.newest == ("2026-05-04T10:00:00.000Z", f"tmp/kiln/chats/{LOG_NAME}")
    assert session.started[:10] == report.oldest[0][:10]


def test_deleted_gemini_sessions_keep_their_page_stats_and_directory(gemini_home: Path, tmp_path: Path) -> None:
    before = run(tmp_path / "one")
    shutil.rmtree(gemini_home)  # Gemini CLI's cleanup, and more
    after = run(tmp_path / "two")
    assert stats(after) == stats(before) == GEMINI_SESSION_STATS
    assert after.archived_only == 2
    assert {s.id: s.cwd for p in after.site.projects for s in p.sessions} == {gx.G1: gx.TIDEPOOL, gx.A1: gx.ALMANAC}
    page = next((tmp_path / "two" / "projects").glob(f"*/sessions/{gx.G1}.html")).read_text()
    assert "kept by bough since" in page


def test_a_root_written_down_is_archived_with_the_session(isolated_home: Path, tmp_path: Path) -> None:
    """The session names no path: only the .project_root beside it tells its directory."""
    folder = isolated_home / ".gemini" / "tmp" / "kiln"
    write_log(folder / "chats" / LOG_NAME, log_lines())
    alone = run(tmp_path / "alone", archive=None)
    assert [p.cwd for p in alone.site.projects] == ["kiln"]  # filed under its folder, and saying so
    (folder / ".project_root").write_text(ROOT)
    first = run(tmp_path / "one")
    assert [p.cwd for p in first.site.projects] == [ROOT]
    shutil.rmtree(isolated_home / ".gemini")
    second = run(tmp_path / "two")
    assert [p.cwd for p in second.site.projects] == [ROOT] and second.archived_only == 1


def test_a_shorter_log_loses_to_its_copy_but_a_rewritten_legacy_file_replaces_it(
        isolated_home: Path, tmp_path: Path) -> None:
    chats = isolated_home / ".gemini" / "tmp" / "kiln" / "chats"
    (chats.parent / ".project_root").parent.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(ROOT)
    log = write_log(chats / LOG_NAME, log_lines())
    head = log_lines(sid="7c1d2e3f-0000-4000-8000-000000000001")[0]
    legacy = chats / "session-2026-05-04T09-00-7c1d2e3f.json"
    messages = log_lines()[1:]
    legacy.write_bytes(orjson.dumps({**head, "messages": messages + [
        {"id": "u2", "timestamp": ts(3), "type": "user", "content": "A second question, later rewound."}]}))
    run(tmp_path / "one")
    # A JSON-era /rewind: the CLI rewrote the file without its last record; the log was cut.
    legacy.write_bytes(orjson.dumps({**head, "messages": messages}))
    log.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in log_lines()[:2]))
    second = run(tmp_path / "two")
    warned = [w for w in second.warnings if "shorter than bough's archived copy" in w.reason]
    assert [w.file for w in warned] == [f"tmp/kiln/chats/{LOG_NAME}"]  # the log only
    by_id = stats(second)
    assert by_id[SID]["records"] == 2  # the archived copy of the log, whole
    assert by_id["7c1d2e3f-0000-4000-8000-000000000001"]["records"] == 2  # the legacy file as it is now
    archive = Archive.open(archive_dir(), create=False)
    entries, _ = archive.entries()
    assert entries[("gemini", f"tmp/kiln/chats/{legacy.name}")].size == legacy.stat().st_size
    assert rewritten_whole("gemini", "x.json") and not rewritten_whole("gemini", "x.jsonl")
    assert not rewritten_whole("claude", "x.json")


def test_the_copy_read_for_a_shorter_log_keeps_its_root(isolated_home: Path, tmp_path: Path) -> None:
    folder = isolated_home / ".gemini" / "tmp" / "kiln"
    log = write_log(folder / "chats" / LOG_NAME, log_lines())
    (folder / ".project_root").write_text(ROOT)
    run(tmp_path / "one")
    log.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in log_lines()[:2]))
    second = run(tmp_path / "two")
    assert [p.cwd for p in second.site.projects] == [ROOT] and stats(second)[SID]["records"] == 2


def test_an_archived_slug_copy_outranks_a_live_hash_copy(isolated_home: Path, tmp_path: Path) -> None:
    """Migration left the hash folder's copy; once Gemini CLI deletes the slug folder's
    file, the archived slug copy (the longer, read before) is still the one read."""
    gemini = isolated_home / ".gemini"
    slug = write_log(gemini / "tmp" / "kiln" / "chats" / LOG_NAME, log_lines())
    (gemini / "tmp" / "kiln" / ".project_root").write_text(ROOT)
    write_log(gemini / "tmp" / project_hash(ROOT) / "chats" / LOG_NAME, log_lines()[:2])
    first = run(tmp_path / "one")
    assert [s.files for p in first.site.projects for s in p.sessions] == [[f"tmp/kiln/chats/{LOG_NAME}"]]
    slug.unlink()
    second = run(tmp_path / "two")
    assert [s.files for p in second.site.projects for s in p.sessions] == [[f"tmp/kiln/chats/{LOG_NAME}"]]
    assert stats(second)[SID] == stats(first)[SID]


def test_archive_verify_parses_legacy_files_and_skips_root_files(gemini_home: Path, tmp_path: Path) -> None:
    (gemini_home / "tmp" / "tidepool" / ".project_root").write_text(gx.TIDEPOOL)
    run(tmp_path / "site")
    checked, problems = Archive.open(archive_dir(), create=False).verify()
    assert problems == [] and checked == 5  # projects.json, .project_root, two logs, the legacy .json


def test_the_archive_report_names_gemini_cli() -> None:
    from bough_site.archive_report import Summary
    from bough_site.cli import archive_report

    report = Summary(root=Path("/a"), files=3, sessions=2, by_kind={"gemini": 2})
    assert "Sessions: 2 (2 Gemini CLI), in 3 files" in archive_report(report)


# --- Gemini CLI's own cleanup ------------------------------------------------------------------------------


def settings(isolated_home: Path, text: str) -> None:
    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_retention_notice_follows_gemini_settings(isolated_home: Path) -> None:
    where = isolated_home / ".gemini" / "settings.json"
    assert gemini_retention() == f"after 30 days (its default: there is no {where})"
    settings(isolated_home, '{"ui": {"theme": "Dracula"}}')
    assert gemini_retention() == f"after 30 days (its default: {where} sets no general.sessionRetention)"
    settings(isolated_home, '{"general": {"sessionRetention": {"enabled": false, "maxAge": "1d"}}}')
    assert gemini_retention() is None
    settings(isolated_home, '// mine\n{"general": {"sessionRetention": {"maxAge": "2w"}}} /* kept */')
    assert gemini_retention() == f"after 14 days (general.sessionRetention in {where})"
    settings(isolated_home, '{"general": {"sessionRetention": {"maxAge": "90d"}}}')
    assert gemini_retention() is None  # longer than the 30 days the notice is about
    settings(isolated_home, '{"general": {"sessionRetention": {"maxAge": "90d", "maxCount": 50}}}')
    assert gemini_retention() == f"beyond the 50 most recent of a project (general.sessionRetention in {where})"
    settings(isolated_home, '{"general": {"sessionRetention": {"maxCount": 5}}}')
    assert gemini_retention() == (f"beyond the 5 most recent of a project and after 30 days "
                                  f"(general.sessionRetention in {where}, maxAge its default)")
    settings(isolated_home, '{"general": {"sessionRetention": {"maxAge": "a month"}}}')
    assert gemini_retention().startswith("after 30 days (general.sessionRetention")
    settings(isolated_home, '{"general": [1]}')
    assert gemini_retention() == f"after 30 days (its default: general in {where} is not an object)"
    settings(isolated_home, '{"url": "http://x//y", "general": {"sessionRetention": {"maxAge": "24h"}}}')
    assert gemini_retention() == f"after 1 day (general.sessionRetention in {where})"


def test_the_summary_says_it_once_for_gemini_sessions_only(gemini_home: Path, tmp_path: Path) -> None:
    result = run(tmp_path / "site")
    (note,) = result.notes
    assert note.startswith("Gemini CLI deletes sessions after 30 days") and "bough's archive in" in note
    off = run(tmp_path / "off", archive=None)
    assert off.notes[0].endswith("sessions it deletes will drop off this site.")
    shutil.rmtree(gemini_home)
    examples = run(tmp_path / "examples", archive=None)
    assert examples.used_examples and examples.notes == []


def test_no_notice_without_gemini_sessions(isolated_home: Path) -> None:
    assert cleanup_notes(BuildConfig(), claude=False, gemini=False) == []


# --- the page ----------------------------------------------------------------------------------------------


def gemini_call(name: str, args: dict[str, Any], text: str = "ok", **detail: Any) -> ToolCall:
    call = ToolCall(f"c-{name}", name, args)
    call.result = ToolResult([Text(text)], detail.get("status") == "error", None, detail or None)
    return call


def view_and_result(call: ToolCall) -> tuple[tool_views.ToolView, result_views.ResultView]:
    state = pages.PageState("projects/p/sessions/s.html", {})
    view = state.tool(call)
    return view, state.result(call, view)


def test_gemini_tool_views() -> None:
    view, result = view_and_result(gemini_call("run_shell_command", {"command": "make", "dir_path": "src"},
                                               "Output: no\nExit Code: 2", exit_code=2))
    assert (view.summary, view.note, result.exit_code) == ("make", "in src", 2)
    diff = "Index: a.py\n===\n--- a.py\tCurrent\n+++ a.py\tProposed\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    view, _ = view_and_result(gemini_call("replace", {"file_path": "/r/a.py", "old_string": "q", "new_string": "w",
                                                      "instruction": "Bump x."}, fileDiff=diff))
    assert (view.summary, view.note, view.file, view.body.kind) == ("/r/a.py", "Bump x.", "/r/a.py", "diff")
    assert "x = 2" in view.body.full and ">q<" not in view.body.full  # the recorded diff, not the strings
    unanswered = ToolCall("c-w", "write_file", {"file_path": "/r/b.py", "content": "print('hi')\n"})
    view = tool_views.tool_view(unanswered)
    assert view.body.kind == "code" and "hi" in view.body.full
    view, result = view_and_result(gemini_call("run_shell_command", {"command": "git push"},
                                               "[Operation Cancelled]", status="cancelled"))
    assert result.note == "cancelled" and not result.is_error
    view, result = view_and_result(gemini_call("read_file", {"absolute_path": "/r/c.py", "start_line": 3,
                                                             "end_line": 9}, "def f():\n    pass\n"))
    assert (view.summary, view.note) == ("/r/c.py", "lines 3–9")
    assert '<span class="k">def</span>' in result.parts[0].full  # highlighted as the file's language
    view = tool_views.tool_view(ToolCall("c-a", "invoke_agent", {"agent_name": "codebase_investigator",
                                                             "prompt": "Map the cache."}))
    assert (view.summary, view.note, view.body) == ("Map the cache.", "codebase_investigator", None)
    view = tool_views.tool_view(ToolCall("c-t", "write_todos", {"todos": [
        {"description": "Read", "status": "completed"}, {"description": "Write", "status": "in_progress"}]}))
    assert view.summary == "2 items, 1 done" and [t.status for t in view.todos] == ["completed", "in_progress"]
    view = tool_views.tool_view(ToolCall("c-g", "grep_search", {"pattern": "TODO", "dir_path": "src", "include": "*.py"}))
    assert (view.summary, view.note, view.json) == ("TODO in src", "*.py", None)


def test_rewound_items_are_marked_on_the_page_and_in_the_sidecar(gemini_home: Path, tmp_path: Path) -> None:
    run(tmp_path / "site", search=False)
    page = next((tmp_path / "site" / "projects").glob(f"*/sessions/{gx.G1}.html")).read_text()
    # The rewound turn: its prompt and its two replies (its stored tool result is no item).
    assert page.count('<span class="badge removed"') == 3 and page.count(">rewound</span>") == 3
    assert 'class="item marker marker-warning"' in page and 'class="item marker marker-error"' in page
    sidecar = json.loads(next((tmp_path / "site" / "projects").glob(f"*/sessions/{gx.G1}.json")).read_text())
    assert sidecar["source"] == "gemini-cli"
    assert [(item["kind"], item.get("removed")) for item in sidecar["timeline"] if "removed" in item] == [
        ("prompt", "rewound"), ("reply", "rewound"), ("reply", "rewound")]
    index = (tmp_path / "site" / "index.html").read_text()
    assert "Gemini CLI" in index


def test_warning_is_a_marker_type_of_its_own() -> None:
    marker = Marker("n", None, "warning", "Low disk", removed="compacted")
    assert pages.PageState("p.html", {}).marker_type(marker) == "warning"


# --- redaction ---------------------------------------------------------------------------------------------


def test_gemini_file_tools_redact_a_sensitive_files_text() -> None:
    secret = "hunter2-correct-horse"
    diff = f"--- .env\tCurrent\n+++ .env\tProposed\n@@ -0,0 +1 @@\n+DB_PASSWORD={secret}\n"
    write = ToolCall("w", "write_file", {"file_path": "/r/.env", "content": f"DB_PASSWORD={secret}\n"})
    write.result = ToolResult([Text("ok")], False, None, {"fileDiff": diff, "filePath": "/r/.env"})
    read = ToolCall("r", "read_file", {"absolute_path": "/r/.env"})
    read.result = ToolResult([Text(f"DB_PASSWORD={secret}\n")], False, None, None)
    session = Session("s", "gemini-cli", ROOT, "t", None, None, [], [], None, [], [
        Prompt("p", "p1", None, [Text("hi")]),
        Reply("g", "r1", None, "m", [write, read], Usage())], {})
    scrub_session(session, Redactor(b"k"))
    text = repr(session.timeline)
    assert secret not in text and text.count("[redacted: ") == 3  # the content, the recorded diff, the read
