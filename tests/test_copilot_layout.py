"""Where Copilot CLI's files are and how bough groups them (readers/copilot_layout.py;
docs/formats-copilot.md §1), on real files in a temporary directory."""

from __future__ import annotations

from pathlib import Path

import orjson

from bough_site.plan.units import COPILOT
from bough_site.readers.copilot_layout import LAYOUT
from bough_site.readers.layouts import LAYOUTS
from bough_site.readers.registry import READERS

START = orjson.dumps({"type": "session.start", "data": {"sessionId": "x"}, "id": "e1", "timestamp": "2026-01-01T00:00:00Z"})
CLAUDE = orjson.dumps({"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1"})
LEGACY = b'{\n  "sessionId": "old",\n  "startTime": "2025-10-01T00:00:00.000Z",\n  "chatMessages": [],\n  "timeline": []\n}'
GEMINI = b'{"sessionId": "g", "projectHash": "abc", "startTime": "2025-10-01T00:00:00Z", "messages": [], "timeline": 1}'


def put(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data + b"\n")
    return path


def home(tmp_path: Path) -> Path:
    base = tmp_path / ".copilot"
    put(base, "session-state/a1/events.jsonl", START)
    put(base, "session-state/a1/workspace.yaml", b"id: a1")
    put(base, "session-state/a1/session.db", b"SQLite format 3")
    put(base, "session-state/a1.jsonl", START)  # the same session, bare: the directory form is read
    put(base, "session-state/b2.jsonl", START)
    put(base, "session-state/c3/plan.md", b"# plan")  # a folder without events.jsonl: no session
    put(base, "history-session-state/old.json", LEGACY)
    put(base, "history-session-state/notes.json", b'{"other": 1}')
    put(base, "session-store.db", b"SQLite format 3")
    return base


def test_roots_and_home_honour_copilot_home(tmp_path: Path) -> None:
    assert LAYOUT.kind == COPILOT and LAYOUT.name == "Copilot CLI"
    assert LAYOUTS[COPILOT] is LAYOUT and COPILOT in READERS
    env = {"HOME": str(tmp_path / "me")}
    assert LAYOUT.home(env) == tmp_path / "me/.copilot"
    assert LAYOUT.roots(env) == [tmp_path / "me/.copilot/session-state", tmp_path / "me/.copilot/history-session-state"]
    moved = {**env, "COPILOT_HOME": str(tmp_path / "elsewhere")}
    assert LAYOUT.home(moved) == tmp_path / "elsewhere"
    assert LAYOUT.roots(moved)[0] == tmp_path / "elsewhere/session-state"


def test_claims_by_name_and_by_a_peek(tmp_path: Path) -> None:
    base = home(tmp_path)
    assert LAYOUT.claims(base) and LAYOUT.claims(base / "session-state") and LAYOUT.claims(base / "history-session-state")
    assert LAYOUT.claims(base / "session-state/a1")  # holds events.jsonl
    assert not LAYOUT.claims(base / "session-state/c3")
    assert LAYOUT.claims(base / "session-state/b2.jsonl")
    assert LAYOUT.claims(base / "history-session-state/old.json")
    assert not LAYOUT.claims(base / "history-session-state/notes.json")
    assert not LAYOUT.claims(put(tmp_path, "claude.jsonl", CLAUDE))
    assert not LAYOUT.claims(put(tmp_path, "gemini.json", GEMINI))
    assert not LAYOUT.claims(put(tmp_path, "broken.jsonl", b"{not json"))
    assert not LAYOUT.claims(put(tmp_path, "empty.jsonl", b""))
    assert not LAYOUT.claims(tmp_path / "missing.jsonl")
    assert LAYOUT.claims(put(tmp_path, "copy/of/a-session.jsonl", b"\xef\xbb\xbf" + START))


def test_find_lists_each_file_once_in_order(tmp_path: Path) -> None:
    base = home(tmp_path)
    names = [LAYOUT.label(p) for p in LAYOUT.find(base)]
    assert names == ["session-state/a1/events.jsonl", "session-state/a1/workspace.yaml", "session-state/a1.jsonl",
                     "session-state/b2.jsonl", "history-session-state/old.json"]
    assert LAYOUT.find(base / "session-state/a1") == [base / "session-state/a1/events.jsonl",
                                                      base / "session-state/a1/workspace.yaml"]
    assert LAYOUT.find(base / "history-session-state") == [base / "history-session-state/old.json"]
    assert LAYOUT.find(base / "session-state/b2.jsonl") == [base / "session-state/b2.jsonl"]


def test_labels_start_at_the_agents_folders(tmp_path: Path) -> None:
    base = home(tmp_path)
    assert LAYOUT.label(base / "session-state/a1/events.jsonl") == "session-state/a1/events.jsonl"
    assert LAYOUT.label(base / "history-session-state/old.json") == "history-session-state/old.json"
    # Outside those folders (a copy, a backup): the place it would have there.
    assert LAYOUT.label(tmp_path / "backup/a1/events.jsonl") == "session-state/a1/events.jsonl"
    assert LAYOUT.label(tmp_path / "backup/b2.jsonl") == "session-state/b2.jsonl"
    assert LAYOUT.label(tmp_path / "backup/old.json") == "history-session-state/old.json"


def test_one_unit_per_session_the_directory_form_first(tmp_path: Path) -> None:
    base = home(tmp_path)
    listed = [(LAYOUT.label(p), p) for p in LAYOUT.find(base)]
    units = LAYOUT.units(listed)
    groups = {key: [name for name, _ in files] for key, files in units}
    assert sorted(groups.values()) == [["history-session-state/old.json"],
                                       ["session-state/a1/events.jsonl", "session-state/a1/workspace.yaml"],
                                       ["session-state/b2.jsonl"]]
    assert all(key.startswith("copilot-") for key in groups) and len(set(groups)) == 3
    assert LAYOUT.units(list(reversed(listed))) == units  # stable, whatever the order listed
    assert LAYOUT.units([("session-state/z/workspace.yaml", base / "z.yaml")]) == []  # metadata alone: no session


def test_sniff_tells_an_event_from_other_agents_records() -> None:
    assert LAYOUT.sniff(orjson.loads(START))
    assert LAYOUT.sniff({"type": "abort", "data": {"reason": "user"}})
    assert not LAYOUT.sniff(orjson.loads(CLAUDE))
    assert not LAYOUT.sniff({"type": "session.start", "data": "not an object"})
    assert not LAYOUT.sniff({"type": "response_item", "payload": {}})


def test_workspace_yaml_holds_no_session() -> None:
    assert LAYOUT.holds_session("session-state/a1/events.jsonl")
    assert LAYOUT.holds_session("history-session-state/old.json")
    assert not LAYOUT.holds_session("session-state/a1/workspace.yaml")


def test_what_the_cli_rewrites_whole() -> None:
    assert LAYOUT.rewritten_whole("session-state/a1/workspace.yaml")
    assert LAYOUT.rewritten_whole("history-session-state/old.json")
    assert not LAYOUT.rewritten_whole("session-state/a1/events.jsonl")
    assert not LAYOUT.rewritten_whole("session-state/a1.jsonl")


def test_a_first_line_longer_than_the_peek_is_told_by_its_opening(tmp_path: Path) -> None:
    long = orjson.dumps({"type": "system.message", "data": {"role": "system", "content": "x" * 100_000}})
    assert LAYOUT.claims(put(tmp_path, "long.jsonl", long))
    assert not LAYOUT.claims(put(tmp_path, "other.jsonl", orjson.dumps({"text": "x" * 100_000})))
