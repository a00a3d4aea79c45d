"""Discovery: a transcript has one name however it was handed over, only transcripts
are read, and folders are looked into in the layouts the agents write
(docs/safety.md S8, S10). Real builds of real files on disk: each test names the way a
user hands bough a history, and what must come of it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from bough_site.build import BuildResult, build, load_site
from bough_site.cli import main
from bough_site.config import BuildConfig, archive_dir
from bough_site.discover import EXAMPLES, MAX_DEPTH, NOT_A_TRANSCRIPT, ORPHAN_AGENT, kind_of, transcript_label
from bough_site.discover import Discovered, Known, KnownFile, discover
from bough_site.hidden import hide
from bough_site.manifest import Manifest
from bough_site.model import InputWarning, Site
from bough_site.options import build_options
from bough_site import quick
from bough_site.readers.layouts import LAYOUTS
from bough_site.readers.lines import peek_lines

from .helpers import KEY, SESSION, fixtures_dir, prompt, reply, text, write_jsonl
from .helpers import agent_id, agent_records, scandir_calls, write_agent_session

NOTES = "-home-ada-src-notes-api"
WITH_SUBAGENTS = "8a2d6e0f-c419-4b7a-9e53-d6f1b08a4c27"  # in notes-api: two sub-agents and a meta file
ROLLOUT = "rollout-2026-03-09T14-02-11-019cd2e7-c6b8-7368-9b86-605be5b3b792.jsonl"
GEMINI_SESSION = "session-2026-03-11T09-30-09667b96.jsonl"  # tmp/tidepool/chats/, with a sub-agent file


def build_of(sources: list[Path], out: Path, **options) -> BuildResult:
    return build(BuildConfig(sources=sources, out=out, jobs=1, search=False, **options), redaction_key=KEY)


def archived(kind: str) -> list[str]:
    """The labels bough's archive holds for ``kind``, from its copies on disk."""
    root = archive_dir() / kind
    return sorted(p.relative_to(root).as_posix().removesuffix(".gz") for p in root.rglob("*.gz"))


def files_by_session(site: Site) -> dict[str, list[str]]:
    return {s.id: list(s.files) for p in site.projects for s in p.sessions}


def said(site: Site) -> list[str]:
    return sorted(str(w) for w in site.warnings)


# --- one transcript, one name ------------------------------------------------------------------


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """~/.claude, ~/.codex and ~/.gemini holding the bundled example transcripts."""
    shutil.copytree(EXAMPLES / "claude" / "projects", isolated_home / ".claude" / "projects")
    shutil.copytree(EXAMPLES / "codex" / "sessions", isolated_home / ".codex" / "sessions")
    shutil.copytree(EXAMPLES / "gemini", isolated_home / ".gemini")
    return isolated_home


def ways_to_name(home: Path, agent: str) -> list[Path]:
    """What a user might type to build one session: its agent's folder, a level of
    it, the file itself, and the folder above (a copy of the agent's home would be read so)."""
    if agent == "claude":
        projects = home / ".claude" / "projects"
        return [projects, projects / NOTES, projects / NOTES / f"{WITH_SUBAGENTS}.jsonl", home / ".claude"]
    if agent == "codex":
        sessions = home / ".codex" / "sessions"
        day = sessions / "2026" / "03" / "09"
        return [sessions, sessions / "2026", day, day / ROLLOUT, home / ".codex"]
    chats = home / ".gemini" / "tmp" / "tidepool" / "chats"
    return [home / ".gemini", home / ".gemini" / "tmp", chats.parent, chats, chats / GEMINI_SESSION]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_transcript_has_one_name_whichever_way_it_is_handed_over(home: Path, tmp_path: Path, agent: str) -> None:
    labels: list[dict[str, list[str]]] = []
    holds: list[list[str]] = []
    for n, source in enumerate(ways_to_name(home, agent)):
        result = build_of([source], tmp_path / f"out{n}", source_filter=agent)
        labels.append(files_by_session(result.site))
        holds.append(archived(agent))
    first = holds[0]
    assert holds == [first] * len(holds), "the archive got the same file under another name"
    for by_session in labels:  # a session read from any source names its files as from the first
        assert all(labels[0][sid] == files for sid, files in by_session.items()), by_session
    if agent == "claude":
        assert labels[0][WITH_SUBAGENTS] == [
            f"{NOTES}/{WITH_SUBAGENTS}.jsonl",
            f"{NOTES}/{WITH_SUBAGENTS}/subagents/agent-a4f1c9e27b3d06e18.jsonl",
            f"{NOTES}/{WITH_SUBAGENTS}/subagents/agent-acompact-7d2e91.jsonl"]
    elif agent == "codex":
        assert f"sessions/2026/03/09/{ROLLOUT}" in first
    else:
        assert f"tmp/tidepool/chats/{GEMINI_SESSION}" in first


def test_a_gemini_file_outside_a_gemini_directory_has_one_name(tmp_path: Path) -> None:
    """A Gemini project folder copied somewhere (no tmp/ above it): the folder, its
    chats/ and the file itself name the file alike."""
    shutil.copytree(EXAMPLES / "gemini" / "tmp" / "tidepool", tmp_path / "copy" / "tidepool")
    chats = tmp_path / "copy" / "tidepool" / "chats"
    for n, source in enumerate([tmp_path / "copy" / "tidepool", chats, chats / GEMINI_SESSION]):
        build_of([source], tmp_path / f"out{n}")
        assert f"tidepool/chats/{GEMINI_SESSION}" in archived("gemini")
        assert len([label for label in archived("gemini") if label.endswith(GEMINI_SESSION)]) == 1


def test_the_label_is_the_end_of_the_path_the_layout_gives() -> None:
    assert transcript_label("/h/.claude/projects/-p/s.jsonl") == "-p/s.jsonl"
    assert transcript_label("/h/-p/s/subagents/agent-1.jsonl") == "-p/s/subagents/agent-1.jsonl"
    assert transcript_label("/h/-p/s/subagents/agent-1.meta.json") == "-p/s/subagents/agent-1.meta.json"
    assert transcript_label("/a/b/c/-p/s/subagents/workflows/w/agent-1.jsonl") == \
        "-p/s/subagents/workflows/w/agent-1.jsonl"
    assert transcript_label("/h/.codex/sessions/2026/03/09/rollout-1.jsonl") == "sessions/2026/03/09/rollout-1.jsonl"
    assert transcript_label("/h/.codex/archived_sessions/rollout-1.jsonl") == "archived_sessions/rollout-1.jsonl"
    assert transcript_label("/h/.gemini/tmp/x/chats/s.jsonl") == "tmp/x/chats/s.jsonl"
    assert transcript_label("/h/.gemini/tmp/x/chats/sid/s.jsonl") == "tmp/x/chats/sid/s.jsonl"
    assert transcript_label("/h/.gemini/tmp/x/.project_root") == "tmp/x/.project_root"
    assert transcript_label("/h/.gemini/projects.json") == "projects.json"
    assert transcript_label("/h/copy/x/chats/s.json") == "x/chats/s.json"
    assert transcript_label("/s.jsonl") == "s.jsonl"
    assert transcript_label(os.fsdecode(b"/h/-p-\xff/s.jsonl")) == "-p-\ufffd/s.jsonl"


# --- only transcripts are read -----------------------------------------------------------------


def test_a_file_that_is_no_transcript_is_refused_in_one_line_and_never_archived(isolated_home: Path,
                                                                               tmp_path: Path) -> None:
    readme = tmp_path / "docs" / "README.md"
    readme.parent.mkdir()
    readme.write_text("# bough\n\nA static site of your work with AI coding agents.\n\n- one\n- two\n")
    result = CliRunner().invoke(main, ["build", str(readme), "-o", str(tmp_path / "site"), "-q", "-j", "1"])
    assert result.exit_code == 1
    assert result.output.splitlines() == [f"warning: docs/README.md: {NOT_A_TRANSCRIPT}",
                                          "bough: no transcript could be read from the sources given"]
    assert not (tmp_path / "site").exists()
    assert not list(archive_dir().rglob("*.gz"))


def test_a_jsonl_that_is_no_transcript_is_skipped_beside_the_sessions(isolated_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-home-ada-src-app"
    write_jsonl(folder / f"{SESSION}.jsonl", [prompt("u1", "hello"), reply("a1", "m1", [text("hi")])])
    write_jsonl(folder / "todo.jsonl", [{"task": "water the plants", "done": False}, {"task": "taxes"}])
    (folder / "notes.jsonl").write_text("just some words\nand more words\n")
    result = build_of([tmp_path / "projects"], tmp_path / "site")
    assert said(result.site) == [f"-home-ada-src-app/notes.jsonl: {NOT_A_TRANSCRIPT}",
                                 f"-home-ada-src-app/todo.jsonl: {NOT_A_TRANSCRIPT}"]
    assert list(files_by_session(result.site)) == [SESSION]
    assert archived("claude") == [f"-home-ada-src-app/{SESSION}.jsonl"]


def damaged_sessions(folder: Path) -> dict[str, tuple[list[bytes | dict], list[str]]]:
    """Real transcripts damaged at their start, each with the warnings its reader gives."""
    huge = "x" * (3 << 20)  # a first line three times what discovery reads of a file
    usage_only = {"timestamp": "2026-01-09T10:00:00.000Z", "requestId": "req_1", "costUSD": 0.01,
                  "message": {"role": "assistant", "id": "msg_1", "model": "claude-sonnet-4-20250514",
                              "usage": {"input_tokens": 100, "output_tokens": 50}}}
    torn = orjson.dumps(prompt("t0", "cut off"))[:60]
    bad_bytes = orjson.dumps(prompt("b0", "caf@")).replace(b"@", b"\xff")
    cases: dict[str, tuple[list[bytes | dict], list[str]]] = {
        "garbage-first": ([b"\x00\x00\x1f\x8b garbage", prompt("g1", "after garbage"), reply("g2", "mg", [text("ok")])],
                          ["1: not valid JSON"]),
        "torn-lines": ([torn] * 25 + [prompt("t1", "after torn lines")],
                       [f"{n}: not valid JSON" for n in range(1, 26)]),
        "bad-bytes-first": ([bad_bytes, reply("b1", "mb", [text("ok")])], ["1: invalid UTF-8 replaced with U+FFFD"]),
        "huge-first-line": ([prompt("h0", huge), reply("h1", "mh", [text("read")])], []),
        "usage-only": ([usage_only], []),
        "blank-then-bom": ([b"", b"   ", prompt("w1", "after blanks")], []),
        "snapshot-first": ([{"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
                            prompt("s1", "after a snapshot")], []),
        "not-objects-first": ([b"[1, 2]", b'"text"', b"42", prompt("n1", "after values")],
                              ["1: not a JSON object (a JSON array)", "2: not a JSON object (a JSON string)",
                               "3: not a JSON object (a JSON number)"]),
    }
    for name, (lines, _) in cases.items():
        write_jsonl(folder / f"{name}.jsonl", lines)
    (folder / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + orjson.dumps(prompt("o1", "after a BOM")) + b"\n")
    cases["bom"] = ([], [])
    return cases


def test_damaged_transcripts_are_still_read_with_their_warnings(isolated_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-home-ada-src-app"
    cases = damaged_sessions(folder)
    site = load_site(BuildConfig(sources=[tmp_path / "projects"], archive=None))
    read = sorted(Path(s.files[0]).stem for p in site.projects for s in p.sessions)
    assert read == sorted(cases)  # every one, none refused
    expected = sorted(f"-home-ada-src-app/{name}.jsonl:{reason}" for name, (_, reasons) in cases.items()
                      for reason in reasons)
    got = sorted(str(w) for w in site.warnings)
    assert len(got) == len(expected) and all(g.startswith(e) for g, e in zip(got, expected)), got
    assert not [w for w in got if NOT_A_TRANSCRIPT in w]


def test_every_real_fixture_is_told_a_transcript(tmp_path: Path) -> None:
    """The real transcripts in ../shared/fixtures, each handed over alone, are read."""
    paths = [p for kind in ("claude", "codex", "gemini") for p in sorted(fixtures_dir(kind).iterdir())
             if p.is_file() and p.suffix in (".jsonl", ".json") and not p.name.endswith("manifest.json")]
    assert len(paths) > 25
    refused = []
    for path in paths:
        site = load_site(BuildConfig(sources=[path], archive=None))
        if any(NOT_A_TRANSCRIPT in w.reason for w in site.warnings) or not site.projects:
            refused.append(path.name)
    assert refused == []


def test_a_file_is_told_from_its_first_megabyte(tmp_path: Path) -> None:
    """Recognition costs a peek, whatever the size: discovery runs over thousands of files."""
    path = write_jsonl(tmp_path / "big.jsonl", [prompt("u1", "y" * (40 << 20)), reply("a1", "m1", [text("ok")])])
    with path.open("rb") as handle:
        lines = peek_lines(handle)
        assert handle.tell() <= (1 << 20) + (1 << 16)
    assert [whole for _, whole in lines] == [False]
    assert kind_of(path, "big.jsonl", lambda w: None) == "claude"
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"z" * (40 << 20) + b"\n")
    warnings: list = []
    assert kind_of(junk, "junk.jsonl", warnings.append) == ""
    assert [str(w) for w in warnings] == [f"junk.jsonl: {NOT_A_TRANSCRIPT}"]


# --- folders, in the layouts the agents write --------------------------------------------------


def claude_session(folder: Path, sid: str, ask: str, *, agent: str | None = None) -> Path:
    """A Claude Code session file (and, with ``agent``, its sub-agent's file in ``<sid>/subagents/``)."""
    path = write_jsonl(folder / f"{sid}.jsonl", [prompt(f"{sid}-u", ask, sessionId=sid),
                                                 reply(f"{sid}-a", f"{sid}-m", [text(f"done: {ask}")], sessionId=sid)])
    if agent is not None:
        write_jsonl(folder / sid / "subagents" / f"agent-{agent}.jsonl", [
            prompt(f"{agent}-u", "look around", sessionId=sid, isSidechain=True, agentId=agent),
            reply(f"{agent}-a", f"{agent}-m", [text("looked")], sessionId=sid, isSidechain=True, agentId=agent)])
        (folder / sid / "tool-results").mkdir()
        (folder / sid / "tool-results" / "toolu_1.txt").write_text("big output\n")
    return path


def prompts_by_session(site: Site) -> dict[str, tuple[int, int]]:
    return {s.id: (s.stats["prompts"], s.stats["subagents"]) for p in site.projects for s in p.sessions}


def test_a_backup_one_level_deeper_is_read_whole(isolated_home: Path, tmp_path: Path) -> None:
    """A copy of ~/.claude inside a dated backup folder: its sessions, not its prompt history."""
    claude = tmp_path / "backup" / "2026-03-01" / ".claude"
    claude_session(claude / "projects" / "-home-ada-app", "a0000000-0000-4000-8000-000000000001", "one", agent="x1")
    claude_session(claude / "projects" / "-home-ada-lib", "a0000000-0000-4000-8000-000000000002", "two")
    write_jsonl(claude / "history.jsonl", [{"display": "one", "pastedContents": {}, "timestamp": 1772359200000,
                                            "project": "/home/ada/app"}])
    write_jsonl(claude / "todos" / "a.json", [{"content": "x", "status": "pending"}])
    site = load_site(BuildConfig(sources=[tmp_path / "backup"], archive=None))
    assert prompts_by_session(site) == {"a0000000-0000-4000-8000-000000000001": (1, 1),
                                        "a0000000-0000-4000-8000-000000000002": (1, 0)}
    assert said(site) == [f".claude/history.jsonl: {NOT_A_TRANSCRIPT}"]


def test_a_folder_of_project_folders_and_loose_sessions_is_read_whole(isolated_home: Path, tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    claude_session(keep, "b0000000-0000-4000-8000-000000000001", "loose", agent="y1")
    claude_session(keep / "-home-ada-app", "b0000000-0000-4000-8000-000000000002", "in a project", agent="y2")
    claude_session(keep / "older" / "-home-ada-lib", "b0000000-0000-4000-8000-000000000003", "older")
    (keep / "-home-ada-app" / "memory").mkdir()
    (keep / "-home-ada-app" / "memory" / "MEMORY.md").write_text("notes\n")
    result = build_of([keep], tmp_path / "site")
    assert prompts_by_session(result.site) == {"b0000000-0000-4000-8000-000000000001": (1, 1),
                                               "b0000000-0000-4000-8000-000000000002": (1, 1),
                                               "b0000000-0000-4000-8000-000000000003": (1, 0)}
    assert said(result.site) == []
    assert archived("claude") == [
        "-home-ada-app/b0000000-0000-4000-8000-000000000002.jsonl",
        "-home-ada-app/b0000000-0000-4000-8000-000000000002/subagents/agent-y2.jsonl",
        "-home-ada-lib/b0000000-0000-4000-8000-000000000003.jsonl",
        "keep/b0000000-0000-4000-8000-000000000001.jsonl",
        "keep/b0000000-0000-4000-8000-000000000001/subagents/agent-y1.jsonl"]


def test_a_session_folder_handed_over_alone_reads_its_sub_agents(isolated_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-ada-app"
    claude_session(project, "c0000000-0000-4000-8000-000000000001", "main", agent="z1")
    site = load_site(BuildConfig(sources=[project / "c0000000-0000-4000-8000-000000000001"], archive=None))
    label = "-home-ada-app/c0000000-0000-4000-8000-000000000001/subagents/agent-z1.jsonl"
    assert said(site) == [f"{label}: {ORPHAN_AGENT}"]
    assert files_by_session(site) == {"agent-z1": [label]}  # a sub-agent read as a session of its own


def test_codex_home_and_a_year_of_it_are_read(home: Path, tmp_path: Path) -> None:
    codex = home / ".codex"
    write_jsonl(codex / "history.jsonl", [{"session_id": "x", "ts": 1772359200, "text": "hello"}])
    (codex / "log").mkdir()
    (codex / "log" / "codex-tui.log").write_text("started\n")
    whole = load_site(BuildConfig(sources=[codex], archive=None))
    year = load_site(BuildConfig(sources=[codex / "sessions" / "2026"], archive=None))
    expected = load_site(BuildConfig(sources=[codex / "sessions"], archive=None))
    assert files_by_session(whole) == files_by_session(year) == files_by_session(expected)
    assert len(files_by_session(expected)) == 2
    assert said(whole) == [f".codex/history.jsonl: {NOT_A_TRANSCRIPT}"]


def test_folders_too_deep_are_said_to_be_left(isolated_home: Path, tmp_path: Path) -> None:
    deep = tmp_path / "deep"
    claude_session(deep / "-home-ada-app", "d0000000-0000-4000-8000-000000000001", "shallow")
    folder = deep.joinpath(*[f"l{n}" for n in range(MAX_DEPTH + 1)])  # its last folder is MAX_DEPTH + 1 down
    claude_session(folder, "d0000000-0000-4000-8000-000000000002", "too deep")
    site = load_site(BuildConfig(sources=[deep], archive=None))
    assert list(files_by_session(site)) == ["d0000000-0000-4000-8000-000000000001"]
    assert said(site) == [f"{deep}: 1 folder more than {MAX_DEPTH} levels down not looked into"]


def test_a_folder_linking_to_itself_is_walked_once(isolated_home: Path, tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    claude_session(keep / "-home-ada-app", "e0000000-0000-4000-8000-000000000001", "once")
    (keep / "-home-ada-app" / "again").symlink_to(keep)
    site = load_site(BuildConfig(sources=[keep], archive=None))
    assert list(files_by_session(site)) == ["e0000000-0000-4000-8000-000000000001"]


# --- discovery alone: what it lists, before any session is read ---------------------------------


def listed(sources: list[Path], known: Known | None = None, look: quick.Look | None = None,
           **options) -> tuple[Discovered, list[str]]:
    """What discover() lists for ``sources`` (told what a last build read: ``known``,
    and what the quick check saw: ``look``), and what it said."""
    warnings: list = []
    walked, folders = (look.walked, look.listed) if look else (None, None)
    found = discover(BuildConfig(sources=sources, archive=None, **options), warnings.append, known, walked, folders)
    return found, [str(w) for w in warnings]


def claude_sources(found: Discovered) -> list[tuple[str, list[str]]]:
    return [(found.label(s.main), [found.label(p) for p in s.subagents]) for s in found.claude]


@pytest.mark.parametrize("walked_first", [False, True])
def test_a_claude_project_folder_is_listed_with_each_sessions_sub_agents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walked_first: bool) -> None:
    """Both layouts at once: ``<id>/subagents/`` (and its ``workflows/``) and Claude Code
    2.0's ``agent-<id>.jsonl`` beside the sessions, given to the session its records name.
    After the quick check's walk, the same, without listing a sub-agents' folder again."""
    project = tmp_path / "projects" / "-home-ada-app"
    one, two, elsewhere = (f"f0000000-0000-4000-8000-00000000000{n}" for n in (1, 2, 9))
    claude_session(project, one, "first", agent="x1")
    write_jsonl(project / one / "subagents" / "workflows" / "w1" / "agent-w1.jsonl",
                [prompt("w1-u", "step", sessionId=one, isSidechain=True, agentId="w1")])
    claude_session(project, two, "second")
    write_jsonl(project / "agent-o1.jsonl", [prompt("o1-u", "look", sessionId=two, isSidechain=True, agentId="o1")])
    write_jsonl(project / "agent-o2.jsonl",
                [prompt("o2-u", "look", sessionId=elsewhere, isSidechain=True, agentId="o2")])
    claude_session(project / "memory", "f0000000-0000-4000-8000-000000000003", "a note, not a session")
    (project / "d.jsonl").mkdir()
    (project / "notes.txt").write_text("not a transcript, not looked at\n")
    look, scanned = None, []
    if walked_first:
        config = BuildConfig(sources=[tmp_path / "projects"], out=tmp_path / "out", archive=None)
        look = quick.unchanged(config, build_options(config, False, KEY).digest())
        assert look.listed[str(project / one / "subagents" / "workflows")] == {"w1"}
        scanned = scandir_calls(monkeypatch)
    found, warnings = listed([tmp_path / "projects"], look=look)
    assert not [path for path in scanned if f"{one}/" in str(path)]
    app = "-home-ada-app"
    assert claude_sources(found) == [
        (f"{app}/{one}.jsonl", [f"{app}/{one}/subagents/agent-x1.jsonl",
                                f"{app}/{one}/subagents/workflows/w1/agent-w1.jsonl"]),
        (f"{app}/{two}.jsonl", [f"{app}/agent-o1.jsonl"]),
        (f"{app}/agent-o2.jsonl", []),
    ]
    assert sorted(warnings) == [f"{app}/agent-o2.jsonl: {ORPHAN_AGENT}",
                                f"{app}/d.jsonl: a directory named *.jsonl, skipped"]
    assert (found.codex, found.gemini, found.inputs) == ([], [], [tmp_path / "projects"])


@pytest.mark.parametrize("source_filter", ["all", "claude", "codex", "gemini"])
def test_each_agents_files_are_listed_by_content_and_layout(tmp_path: Path, source_filter: str) -> None:
    """One folder holding a Claude project, a Codex sessions tree and a Gemini CLI
    directory: each file is listed for its agent, under the label its layout gives,
    and ``--source`` leaves the other agents' files out."""
    mixed = tmp_path / "mixed"
    sid = "f1000000-0000-4000-8000-000000000001"
    claude_session(mixed / "-home-ada-app", sid, "hello")
    write_agent_session(mixed, "codex", 2, "/home/ada/app", agent_records("codex", 2, "/home/ada/app", ["hello"]))
    write_agent_session(mixed, "gemini", 3, "/home/ada/app", agent_records("gemini", 3, "/home/ada/app", ["hello"]))
    found, warnings = listed([mixed], source_filter=source_filter)
    wanted = {agent for agent in ("claude", "codex", "gemini") if source_filter in ("all", agent)}
    assert warnings == []
    assert claude_sources(found) == ([(f"-home-ada-app/{sid}.jsonl", [])] if "claude" in wanted else [])
    assert [found.label(p) for p in found.codex] == (
        [f"sessions/2026/03/01/rollout-2026-03-01T10-00-00-{agent_id(2)}.jsonl"] if "codex" in wanted else [])
    assert [found.label(p) for p in found.gemini] == (
        [f"tmp/p3/chats/session-2026-03-01T10-00-{agent_id(3)[:8]}.jsonl"] if "gemini" in wanted else [])
    assert [found.label(p) for p in found.gemini_roots] == (["projects.json"] if "gemini" in wanted else [])
    assert found.shows("claude") == ("claude" in wanted) and found.shows("gemini") == ("gemini" in wanted)


def test_a_file_an_earlier_build_read_is_not_opened_again(isolated_home: Path, tmp_path: Path) -> None:
    """Given what the last build read (its manifest), a file of the same label, size and
    mtime is listed as the kind it was, unopened: junk of the same size and mtime proves
    it. Once its mtime changes it is opened, and refused."""
    projects = tmp_path / "projects"
    path = claude_session(projects / "-home-ada-app", "f2000000-0000-4000-8000-000000000001", "hello")
    build_of([projects], tmp_path / "site", archive=None)
    known = Manifest.load(tmp_path / "site").known_files()
    assert list(known.values()) == [KnownFile("claude")]
    info = path.stat()
    path.write_bytes(b"z" * (info.st_size - 1) + b"\n")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    warnings: list = []
    found = discover(BuildConfig(sources=[projects], archive=None), warnings.append, known)
    assert (claude_sources(found), warnings) == ([("-home-ada-app/f2000000-0000-4000-8000-000000000001.jsonl", [])], [])
    assert found.stat(path).st_mtime_ns == info.st_mtime_ns and str(path) in found.stats
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1))
    found = discover(BuildConfig(sources=[projects], archive=None), warnings.append, known)
    assert found.empty()
    assert [str(w) for w in warnings] == [
        f"-home-ada-app/f2000000-0000-4000-8000-000000000001.jsonl: {NOT_A_TRANSCRIPT}"]


def test_an_old_layout_sub_agent_an_earlier_build_read_is_given_its_session_unopened(
        isolated_home: Path, tmp_path: Path) -> None:
    """Claude Code 2.0.x's ``agent-*.jsonl`` beside the sessions: given what the last
    build read, the same file (label, size, mtime) goes to the session it went to,
    unopened (junk of the same size and mtime proves it). Opened when it changed, and
    when that session is not there (its records then name a session that is not)."""
    project = tmp_path / "projects" / "-home-ada-app"
    one, two = (f"f3000000-0000-4000-8000-00000000000{n}" for n in (1, 2))
    claude_session(project, one, "first")
    claude_session(project, two, "second")
    agent = write_jsonl(project / "agent-o1.jsonl",
                        [prompt("o1-u", "look", sessionId=two, isSidechain=True, agentId="o1")])
    build_of([tmp_path / "projects"], tmp_path / "site", archive=None)
    known = Manifest.load(tmp_path / "site").known_files()
    app = "-home-ada-app"
    assert sorted(known.values()) == [KnownFile("claude"), KnownFile("claude"),
                                      KnownFile("claude", hide(f"{app}/{two}.jsonl"))]
    info, records = agent.stat(), agent.read_bytes()

    def rewrite(data: bytes, mtime_ns: int) -> None:
        agent.write_bytes(data)
        os.utime(agent, ns=(info.st_atime_ns, mtime_ns))

    rewrite(b"z" * (info.st_size - 1) + b"\n", info.st_mtime_ns)
    found, warnings = listed([tmp_path / "projects"], known)
    assert claude_sources(found) == [(f"{app}/{one}.jsonl", []), (f"{app}/{two}.jsonl", [f"{app}/agent-o1.jsonl"])]
    assert warnings == []
    rewrite(records, info.st_mtime_ns)
    (project / f"{two}.jsonl").unlink()  # its session gone: its records are read, and name none here
    found, warnings = listed([tmp_path / "projects"], known)
    assert claude_sources(found) == [(f"{app}/{one}.jsonl", []), (f"{app}/agent-o1.jsonl", [])]
    assert warnings == [f"{app}/agent-o1.jsonl: {ORPHAN_AGENT}"]
    claude_session(project, two, "second")
    rewrite(b"z" * (info.st_size - 1) + b"\n", info.st_mtime_ns + 1)  # changed: opened, and refused
    found, warnings = listed([tmp_path / "projects"], known)
    assert claude_sources(found) == [(f"{app}/{one}.jsonl", []), (f"{app}/{two}.jsonl", [])]
    assert warnings == [f"{app}/agent-o1.jsonl: {NOT_A_TRANSCRIPT}"]


def test_a_source_that_does_not_exist_is_said_and_lists_nothing(tmp_path: Path) -> None:
    found, warnings = listed([tmp_path / "nothing", tmp_path / "nothing.jsonl"])
    assert found.empty() and found.inputs == [] and found.labels == {}
    assert warnings == [f"{tmp_path / 'nothing'}: source does not exist",
                        f"{tmp_path / 'nothing.jsonl'}: source does not exist"]


def test_a_loose_file_whose_first_line_is_two_glued_records_is_told_by_the_first(tmp_path: Path) -> None:
    """A writer that lost a newline leaves two records on one line: the first tells
    the format, so a Qwen Code file (whose envelope copies Claude Code's uuid keys)
    is not taken for Claude's, and a Claude file stays Claude's."""
    qwen = {"uuid": "u1", "parentUuid": None, "sessionId": "s1", "type": "user", "cwd": "/w",
            "message": {"role": "user", "parts": [{"text": "hi"}]}}
    claude = {"uuid": "c1", "parentUuid": None, "sessionId": "s2", "type": "user", "cwd": "/w",
              "message": {"role": "user", "content": "hi"}}
    for name, record, kind in (("q.jsonl", qwen, "qwen"), ("c.jsonl", claude, "claude")):
        line = orjson.dumps(record) + orjson.dumps({**record, "uuid": "u2"}) + b"\n"
        path = tmp_path / name
        path.write_bytes(line)
        warnings: list[InputWarning] = []
        assert kind_of(path, name, warnings.append) == kind
        assert warnings == []


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "sessionId", "message", "data", "opencode_export", "uuid", "parts",
                                        "systemPayload", "projectHash", "payload", "role", "content"]),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)))
def test_telling_a_record_apart_never_raises(record: dict) -> None:
    # Every Layout's sniff (and Claude's and Gemini's checks) meets any JSON object a
    # file's first line may hold: a list where a string was (`"type": []`) crashed the
    # whole build in discovery.
    from bough_site.discover import _record_kind

    assert _record_kind(record) in ("", "claude", "gemini", *LAYOUTS)


def test_sub_agent_files_are_listed_by_name_however_odd_the_folder(tmp_path: Path) -> None:
    """Only ``agent-*.jsonl`` directly in ``subagents/`` and one folder down in ``workflows/``,
    sorted by name as a glob lists them: dot names, a linked workflow folder, a folder
    deeper in a workflow and one beside ``workflows`` are no trouble."""
    project = tmp_path / "projects" / "-home-ada-app"
    one = "f0000000-0000-4000-8000-000000000001"
    claude_session(project, one, "first", agent="b")
    agents = project / one / "subagents"
    for name in ("agent-a.jsonl", "agent-.jsonl", "agent-c.json", "other-d.jsonl", ".agent-e.jsonl"):
        (agents / name).write_text("")
    for folder in ("workflows/w2", "workflows/.w0", "workflows/w1/deeper", "elsewhere"):
        (agents / folder).mkdir(parents=True)
    for name in ("workflows/w2/agent-z.jsonl", "workflows/w1/agent-y.jsonl", "workflows/.w0/agent-x.jsonl",
                 "workflows/w1/deeper/agent-no.jsonl", "elsewhere/agent-no.jsonl", "workflows/agent-no.jsonl"):
        (agents / name).write_text("")
    (agents / "workflows" / "w3").symlink_to(agents / "workflows" / "w2")
    found, _ = listed([tmp_path / "projects"])
    inside = f"-home-ada-app/{one}/subagents"
    assert claude_sources(found) == [(f"-home-ada-app/{one}.jsonl", [
        f"{inside}/{name}" for name in (
            "agent-.jsonl", "agent-a.jsonl", "agent-b.jsonl",
            "workflows/.w0/agent-x.jsonl", "workflows/w1/agent-y.jsonl", "workflows/w2/agent-z.jsonl",
            "workflows/w3/agent-z.jsonl")])]
