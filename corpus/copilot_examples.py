"""The example GitHub Copilot CLI history bundled with bough (written here, by hand).

``write_copilot_examples`` writes a ``~/.copilot``-like tree under
``bough_site/examples/copilot/``; ``python -m corpus.copilot_examples`` regenerates
it and tests/test_copilot_example.py checks the bundled files are exactly what
this module writes. Ids come from hashes of fixed names, times from a clock the
story advances by hand, tokens are written out.

The sessions (docs/formats-copilot.md names each shape), both in tidepool
(/home/ada/src/tidepool, where a Claude Code, a Codex and a Gemini CLI example
work too, so its page shows four agents):

C1 1.0.82, ``session-state/<id>/events.jsonl`` and ``workspace.yaml``
    ``tidepool today --json``. A system message, a typed prompt, six model
    calls: ``report_intent`` with a ``grep`` and a ``view``, a ``create`` of
    ``tidepool/export.py``, a failing ``bash`` pytest run, the fix (an ``edit``,
    its diff recorded), an ``update_todo``
    checklist with the passing run, and the closing reply. A clean exit: the
    ``session.shutdown`` holds the input and cache tokens. The odd record: a
    ``hook.end`` line cut off mid-write, with more records after it.
C2 1.0.82, the same layout, no workspace.yaml
    A question about ``--units`` answered after one ``view``; the CLI was killed:
    no shutdown, so its input and cache tokens are unknown (null, never 0).
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

TIDEPOOL = "/home/ada/src/tidepool"
MODEL = "claude-sonnet-4.6"
VERSION = "1.0.82"


def _name_uuid(name: str) -> str:
    text = hashlib.sha256(f"bough copilot example {name}".encode()).hexdigest()
    return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-a{text[17:20]}-{text[20:32]}"


C1 = _name_uuid("C1 session")
C2 = _name_uuid("C2 session")
C1_FILE = f"session-state/{C1}/events.jsonl"
C1_WORKSPACE = f"session-state/{C1}/workspace.yaml"
C2_FILE = f"session-state/{C2}/events.jsonl"
# The line of C1 that is cut off (1-based).
C1_CUT_LINE = 18

# C1's model calls' output tokens, and what its shutdown recorded for the six.
C1_OUTPUT = (142, 260, 58, 121, 77, 96)
C1_INPUT, C1_CACHE_READ, C1_CACHE_WRITE = 118_420, 96_300, 7_150
C2_OUTPUT = (64, 88)

EXPORT_FIRST = '''"""The day's tides as JSON, for `tidepool today --json`."""


def tides_as_json(tides):
    return json.dumps([tide.as_dict() for tide in tides], indent=2)
'''
EXPORT_FIXED = '''"""The day's tides as JSON, for `tidepool today --json`."""

import json


def tides_as_json(tides):
    return json.dumps([tide.as_dict() for tide in tides], indent=2)
'''


class _Log:
    """One events.jsonl being written: ids chained by ``parentId``, a clock."""

    def __init__(self, name: str, start: datetime):
        self.name, self.now, self.lines, self.count = name, start, [], 0
        self.last: str | None = None

    def at(self, seconds: float) -> str:
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def event(self, kind: str, data: dict[str, Any], seconds: float = 0.5) -> str:
        self.count += 1
        event_id = _name_uuid(f"{self.name} event {self.count}")
        record = {"type": kind, "data": data, "id": event_id, "timestamp": self.at(seconds), "parentId": self.last}
        self.lines.append(orjson.dumps(record))
        self.last = event_id
        return event_id

    def raw(self, line: bytes) -> None:
        self.lines.append(line)

    def call(self, call: dict[str, Any], result: str, *, ok: bool = True, detailed: str | None = None,
             seconds: float = 1.0) -> None:
        self.event("tool.execution_start", {"toolCallId": call["toolCallId"], "toolName": call["name"],
                                            "arguments": call["arguments"]}, 0.01)
        done: dict[str, Any] = {"toolCallId": call["toolCallId"], "model": MODEL, "success": ok, "toolTelemetry": {}}
        if ok:
            done["result"] = {"content": result, "detailedContent": detailed or result}
        else:
            done["error"] = {"message": result, "code": "failure"}
        self.event("tool.execution_complete", done, seconds)

    def bytes(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)


def _request(name: str, call: str, **arguments: Any) -> dict[str, Any]:
    return {"toolCallId": f"toolu_{hashlib.sha256(call.encode()).hexdigest()[:24]}", "name": name,
            "arguments": arguments, "type": "function"}


def _message(log: _Log, key: str, text: str, output: int, tools: list[dict[str, Any]], *, reasoning: str = "",
             seconds: float = 4.0) -> None:
    data: dict[str, Any] = {"messageId": _name_uuid(f"{log.name} {key}"), "content": text, "toolRequests": tools,
                            "interactionId": _name_uuid(f"{log.name} interaction"), "outputTokens": output,
                            "model": MODEL, "apiCallId": f"msg_{hashlib.sha256(key.encode()).hexdigest()[:20]}"}
    if reasoning:
        data["reasoningText"] = reasoning
    log.event("assistant.message", data, seconds)


def _diff(path: str, before: str, after: str) -> str:
    body = "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a{path}", f"b{path}"))
    return f"\ndiff --git a{path} b{path}\nindex 0000000..0000000 100644\n{body}"


def _start(log: _Log, session: str) -> None:
    log.event("session.start", {"sessionId": session, "version": 1, "producer": "copilot-agent",
                                "copilotVersion": VERSION, "startTime": log.at(0),
                                "context": {"cwd": TIDEPOOL, "gitRoot": TIDEPOOL, "branch": "main",
                                            "repository": "ada/tidepool"}}, 0)
    log.event("session.model_change", {"newModel": MODEL}, 0.02)
    log.event("system.message", {"role": "system", "content": (
        "You are the GitHub Copilot CLI, a terminal assistant built by GitHub.\n\n"
        "(The harness's own instructions, some thirty thousand characters in a real session, "
        "are abridged in this example.)")}, 0.1)


def c1_events() -> bytes:
    log = _Log("C1", datetime(2026, 3, 11, 16, 2, 5, tzinfo=timezone.utc))
    _start(log, C1)
    log.event("user.message", {"content": "Add a --json flag to `tidepool today` that prints the tides as JSON.",
                               "transformedContent": "<current_datetime>2026-03-11T16:02:06Z</current_datetime>\n\n"
                               "Add a --json flag to `tidepool today` that prints the tides as JSON.",
                               "attachments": [], "delivery": "idle"}, 1.0)
    intent = _request("report_intent", "c1 intent", intent="Adding --json to today")
    grep = _request("grep", "c1 grep", pattern="def today", path="tidepool", output_mode="content")
    view = _request("view", "c1 view", path=f"{TIDEPOOL}/tidepool/cli.py", view_range=[38, 60])
    _message(log, "m1", "", C1_OUTPUT[0], [intent, grep, view],
             reasoning="The command lives in the CLI module; I'll find it and read the parser beside it.")
    log.call(intent, "Intent logged", seconds=0.01)
    log.call(grep, "tidepool/cli.py:41:def today(args):", seconds=0.2)
    log.call(view, "38. def today(args):\n39.     tides = load_tides(args.station)\n40.     if args.json:\n"
                   "41.         print(tides_as_json(tides))\n", seconds=0.1)
    path = f"{TIDEPOOL}/tidepool/export.py"
    create = _request("create", "c1 create", path=path, file_text=EXPORT_FIRST)
    _message(log, "m2", "", C1_OUTPUT[1], [create])
    log.call(create, f"Created file {path} with {len(EXPORT_FIRST)} characters")
    run = _request("bash", "c1 pytest 1", command="python -m pytest -q tests/test_cli.py",
                   description="Run the CLI tests", sessionId="main", **{"async": False})
    _message(log, "m3", "", C1_OUTPUT[2], [run])
    log.call(run, "F..\nFAILED tests/test_cli.py::test_today_json - NameError: name 'json' is not defined\n"
                  "1 failed, 2 passed in 0.41s\n<exited with exit code 1>", seconds=2.0)
    log.raw(b'{"type":"hook.end","data":{"hookInvocationId":"post-tool-1","result":"succ')  # the odd record
    fix = _request("edit", "c1 edit", path=path, old_str='"""\n\n\ndef', new_str='"""\n\nimport json\n\n\ndef')
    _message(log, "m4", "The module never imported json; adding it.", C1_OUTPUT[3], [fix])
    log.call(fix, f"File {path} updated with changes.", detailed=_diff(path, EXPORT_FIRST, EXPORT_FIXED))
    todo = _request("update_todo", "c1 todo",
                    todos="- [x] Find `today`\n- [x] Write tidepool/export.py\n- [ ] Run the tests")
    rerun = _request("bash", "c1 pytest 2", command="python -m pytest -q tests/test_cli.py",
                     description="Run the CLI tests again", sessionId="main", **{"async": False})
    _message(log, "m5", "", C1_OUTPUT[4], [todo, rerun])
    log.call(todo, "TODO list updated", seconds=0.01)
    log.call(rerun, "...\n3 passed in 0.38s\n<exited with exit code 0>", seconds=2.0)
    _message(log, "m6", "Done: `tidepool today --json` prints the day's tides through the new "
                        "`tidepool/export.py`, and the three CLI tests pass.", C1_OUTPUT[5], [])
    log.event("assistant.turn_end", {"turnId": "5"}, 0.01)
    usage = {"inputTokens": C1_INPUT, "outputTokens": sum(C1_OUTPUT), "cacheReadTokens": C1_CACHE_READ,
             "cacheWriteTokens": C1_CACHE_WRITE, "reasoningTokens": 0}
    log.event("session.shutdown", {"shutdownType": "routine", "totalPremiumRequests": 1,
                                   "modelMetrics": {MODEL: {"requests": {"count": 6, "cost": 1}, "usage": usage}},
                                   "currentModel": MODEL}, 30.0)
    return log.bytes()


def c1_workspace() -> bytes:
    return (f"id: {C1}\ncwd: {TIDEPOOL}\ngit_root: {TIDEPOOL}\nbranch: main\nclient_name: github/cli\n"
            "name: Add a --json flag to tidepool today\nuser_named: false\nsummary_count: 0\n"
            "created_at: 2026-03-11T16:02:05.000Z\nupdated_at: 2026-03-11T16:03:10.000Z\n").encode()


def c2_events() -> bytes:
    log = _Log("C2", datetime(2026, 3, 11, 18, 40, 0, tzinfo=timezone.utc))
    _start(log, C2)
    log.event("user.message", {"content": "What does --units do when the station reports in feet?",
                               "transformedContent": "What does --units do when the station reports in feet?",
                               "attachments": [], "delivery": "idle"}, 2.0)
    view = _request("view", "c2 view", path=f"{TIDEPOOL}/tidepool/units.py")
    _message(log, "n1", "", C2_OUTPUT[0], [view])
    log.call(view, "1. FEET_PER_METRE = 3.28084\n2. \n3. def convert(height, source, target):\n", seconds=0.1)
    _message(log, "n2", "Heights are converted from the station's unit to the one you ask for, so a station in "
                        "feet shows metres by default.", C2_OUTPUT[1], [])
    return log.bytes()  # killed: no shutdown


def example_files() -> dict[str, bytes]:
    return {C1_FILE: c1_events(), C1_WORKSPACE: c1_workspace(), C2_FILE: c2_events()}


def write_copilot_examples(root: Path) -> list[Path]:
    """Write the examples under ``root`` (replacing what was there)."""
    root = Path(root)
    if root.exists():
        shutil.rmtree(root)
    written = []
    for rel, data in example_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def bundled_root() -> Path:
    return Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "copilot"


if __name__ == "__main__":
    files = write_copilot_examples(bundled_root())
    print(f"wrote {len(files)} files under {bundled_root()}", file=sys.stderr)
