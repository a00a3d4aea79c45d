"""Qwen Code's Layout (readers/qwen_layout.py): where its files are, which paths
are its, how they are named and grouped. On real files in tmp dirs."""

from __future__ import annotations

from pathlib import Path

import orjson

from bough_site.plan.units import QWEN
from bough_site.readers.qwen import sanitized
from bough_site.readers.qwen_layout import LAYOUT, is_qwen_file
from corpus.qwen_records import Chat, text, usage

SID = "3f2a9c1e-0b7d-4e55-9a10-5c2d8e7f6a41"
OTHER = "9d1e7a55-2c3b-4f60-8e21-77aa01bc4d02"
CWD = "/home/ada/src/kiln"
ENC = sanitized(CWD)


def qwen_home(root: Path) -> Path:
    """A ``~/.qwen`` with one project: a chat, an archived chat, a sub-agent file and
    its meta, the project's meta.json, and the files that are not sessions."""
    home = root / ".qwen"
    project = home / "projects" / ENC
    c = Chat(SID, CWD)
    c.prompt("Hi.")
    c.assistant([text("Hello.")], usage(10, 2))
    c.write(project / "chats" / f"{SID}.jsonl")
    old = Chat(OTHER, CWD)
    old.prompt("Old.")
    old.write(project / "chats" / "archive" / f"{OTHER}.jsonl")
    sub = Chat(SID, CWD, seed=1)
    sub.user([text("Map it")], isSidechain=True)
    sub.write(project / "subagents" / SID / "agent-9f1c.jsonl")
    (project / "subagents" / SID / "agent-9f1c.meta.json").write_text('{"agentName": "explorer"}')
    (project / "meta.json").write_text('{"version": 1}')
    (home / "usage_record.jsonl").write_text('{"version":1,"sessionId":"x"}\n')
    (home / "tmp" / "abc" / "checkpoints").mkdir(parents=True)
    (home / "settings.json").write_text("{}")
    return home


def claude_line() -> bytes:
    return orjson.dumps({"uuid": "u1", "parentUuid": None, "sessionId": SID, "type": "user", "cwd": CWD,
                         "version": "2.1.0", "message": {"role": "user", "content": "Hi."}})


def test_roots_and_home_honour_the_environment() -> None:
    assert LAYOUT.kind == QWEN and LAYOUT.name == "Qwen Code"
    assert LAYOUT.roots({"HOME": "/h"}) == [Path("/h/.qwen")]
    assert LAYOUT.roots({"HOME": "/h", "QWEN_HOME": "/q"}) == [Path("/q")]
    assert LAYOUT.roots({"HOME": "/h", "QWEN_HOME": "/q", "QWEN_RUNTIME_DIR": "/r"}) == [Path("/r")]
    assert LAYOUT.home({"HOME": "/h", "QWEN_RUNTIME_DIR": "/r"}) == Path("/h/.qwen")
    assert LAYOUT.home({"HOME": "/h", "QWEN_HOME": "/q"}) == Path("/q")


def test_every_level_of_the_tree_is_claimed(tmp_path: Path) -> None:
    home = qwen_home(tmp_path)
    project = home / "projects" / ENC
    for path in (home, home / "projects", project, project / "chats", project / "chats" / "archive",
                 project / "subagents", project / "subagents" / SID, project / "chats" / f"{SID}.jsonl",
                 project / "subagents" / SID / "agent-9f1c.jsonl"):
        assert LAYOUT.claims(path), path
    legacy = home / "tmp" / "abc" / "chats"
    legacy.mkdir(parents=True)
    (legacy / "session-2025-09-01T10-00-abcd1234.json").write_text('{"sessionId": "x", "messages": []}')
    assert LAYOUT.claims(home / "tmp") and LAYOUT.claims(legacy)  # never taken for Gemini CLI's tmp/
    assert LAYOUT.find(home / "tmp") == []  # the Gemini-era JSON is not read (docs/formats-qwen.md §11)
    renamed = tmp_path / "backup-of-qwen"
    home.rename(renamed)
    assert LAYOUT.claims(renamed)  # a copy of the home under another name: told by projects/<enc>/chats


def test_find_lists_chats_archive_and_sub_agents_once_sorted(tmp_path: Path) -> None:
    home = qwen_home(tmp_path)
    labels = [LAYOUT.label(p) for p in LAYOUT.find(home)]
    assert labels == [
        f"projects/{ENC}/chats/{SID}.jsonl",
        f"projects/{ENC}/chats/archive/{OTHER}.jsonl",
        f"projects/{ENC}/subagents/{SID}/agent-9f1c.jsonl",
        f"projects/{ENC}/subagents/{SID}/agent-9f1c.meta.json",
    ]
    assert LAYOUT.find(home / "projects" / ENC) == LAYOUT.find(home)
    assert [LAYOUT.label(p) for p in LAYOUT.find(home / "projects" / ENC / "chats")] == labels[:2]


def test_a_label_is_the_same_whichever_source_found_the_file(tmp_path: Path) -> None:
    home = qwen_home(tmp_path)
    path = home / "projects" / ENC / "chats" / f"{SID}.jsonl"
    assert LAYOUT.label(path) == f"projects/{ENC}/chats/{SID}.jsonl"
    assert LAYOUT.label(tmp_path / "loose" / "x.jsonl") == "loose/x.jsonl"


def test_one_unit_per_project_folder_keys_from_labels(tmp_path: Path) -> None:
    home = qwen_home(tmp_path)
    Chat(OTHER, "/srv/other").write(home / "projects" / "-srv-other" / "chats" / f"{OTHER}.jsonl")
    listed = [(LAYOUT.label(p), p) for p in LAYOUT.find(home)]
    units = LAYOUT.units(listed)
    assert [len(files) for _, files in units] == [4, 1]
    assert all(key.startswith("qwen-") for key, _ in units) and len({k for k, _ in units}) == 2
    again = LAYOUT.units(list(reversed(listed)))
    assert again == units


def test_a_claude_code_file_is_never_claimed(tmp_path: Path) -> None:
    """The envelopes are alike (uuid, parentUuid, sessionId, cwd, version); Claude's
    message holds ``content``, Qwen's ``parts``: that tells them apart."""
    claude = tmp_path / ".claude" / "projects" / "-home-ada-src-kiln" / f"{SID}.jsonl"
    claude.parent.mkdir(parents=True)
    claude.write_bytes(claude_line() + b"\n")
    assert not LAYOUT.claims(claude) and not is_qwen_file(claude)
    assert not LAYOUT.claims(claude.parent) and not LAYOUT.claims(tmp_path / ".claude" / "projects")
    assert not LAYOUT.claims(tmp_path / ".claude")


def test_a_gemini_cli_tree_is_not_claimed(tmp_path: Path) -> None:
    chats = tmp_path / ".gemini" / "tmp" / "kiln" / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-2026-01-01T10-00-aaaa.jsonl"
    session.write_bytes(orjson.dumps({"sessionId": SID, "projectHash": "ab", "startTime": "x"}) + b"\n")
    assert not any(LAYOUT.claims(p) for p in (tmp_path / ".gemini", chats, chats.parent, session))


def test_a_qwen_file_is_told_by_its_records_even_damaged(tmp_path: Path) -> None:
    c = Chat(SID, CWD)
    c.system("ui_telemetry", {"uiEvent": {}})
    path = c.write(tmp_path / "lone.jsonl")
    assert LAYOUT.claims(path)
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b'{"uuid":"a","sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"cut')
    assert LAYOUT.claims(torn)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert not LAYOUT.claims(empty)
    assert not LAYOUT.claims(tmp_path / "missing.jsonl")


def test_sniff_tells_one_record_and_sessions_are_the_chat_files() -> None:
    qwen = {"uuid": "u", "sessionId": SID, "type": "user", "message": {"role": "user", "parts": [{"text": "Hi"}]}}
    assert LAYOUT.sniff(qwen) and not LAYOUT.sniff(orjson.loads(claude_line()))
    assert not LAYOUT.sniff({"sessionId": SID, "projectHash": "ab"})  # Gemini CLI's metadata line
    assert LAYOUT.holds_session(f"projects/{ENC}/chats/{SID}.jsonl")
    assert LAYOUT.holds_session(f"projects/{ENC}/chats/archive/{SID}.jsonl")
    assert not LAYOUT.holds_session(f"projects/{ENC}/subagents/{SID}/agent-9f1c.jsonl")
    assert not LAYOUT.holds_session(f"projects/{ENC}/subagents/{SID}/agent-9f1c.meta.json")
    assert LAYOUT.reads == frozenset({"projects"})
