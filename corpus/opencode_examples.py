"""The example OpenCode history bundled with bough (written here, by hand).

``write_opencode_examples`` writes an OpenCode data directory (as
``~/.local/share/opencode`` is laid out: its SQLite database) under
``bough_site/examples/opencode/``; ``python -m corpus.opencode_examples``
regenerates it, and tests/test_opencode_examples.py checks that the bundled
database holds exactly the rows this module writes (rows, not bytes: SQLite
writes its own version into the file). Ids come from hashes of fixed names,
times from a clock the story advances by hand, tokens are written out.

The session (docs/formats-opencode.md names each shape):

tidepool  (/home/ada/src/tidepool: the project the Claude Code, Codex and Gemini
          CLI examples work in too, so its page shows all four agents)
  O1 1.18  ``--json`` for ``tidepool today``. A prompt with an ``@file``'s
          contents as a synthetic part, reasoning, a multi-step reply (two
          step-finish parts: the message's own ``tokens`` hold only the second),
          a ``read``, a ``grep``, a ``todowrite``, a ``task`` whose child session
          (an ``explore`` sub-agent) runs its own ``glob``, an ``edit`` with its
          recorded diff, a ``bash`` pytest that fails (exit 1, still
          "completed") and then passes. The odd record: one part row whose
          ``data`` was cut short (a write interrupted): a warning, and the rest
          of the session is read.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from corpus.opencode import DDL, Msg, Ses

ROOT = Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "opencode"
TIDEPOOL = "/home/ada/src/tidepool"
T0 = 1773403200000  # 2026-03-13T12:00:00Z
MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}


def _id(prefix: str, name: str) -> str:
    digest = hashlib.sha256(f"bough opencode example {name}".encode()).hexdigest()
    return f"{prefix}_{digest[:12]}{digest[12:26]}"


O1 = _id("ses", "O1")
O1_CHILD = _id("ses", "O1 explore")
ODD_PART = f"prt_{0xd1c5a000000 + 17:x}odd" + _id("", "odd")[1:12]  # sorts inside the first step

DIFF = """Index: tidepool/cli.py
===================================================================
--- tidepool/cli.py
+++ tidepool/cli.py
@@ -14,7 +14,12 @@
 @click.command()
 @click.option("--station", default="9414290")
-def today(station):
+@click.option("--json", "as_json", is_flag=True, help="Print the predictions as JSON.")
+def today(station, as_json):
     predictions = fetch_predictions(station)
+    if as_json:
+        click.echo(json.dumps([p.to_dict() for p in predictions], indent=2))
+        return
     for p in predictions:
         click.echo(format_prediction(p))
"""


class _Story:
    def __init__(self) -> None:
        self.clock = T0
        self.n = 0
        self.calls = 0

    def tick(self, seconds: float) -> int:
        self.clock += int(seconds * 1000)
        return self.clock

    def pid(self) -> str:
        """Part ids sort in the order written, as OpenCode's do (time first: §1)."""
        self.n += 1
        return f"prt_{0xd1c5a000000 + self.n:x}" + _id("", f"part {self.n}")[1:15]

    def mid(self, name: str) -> str:
        return _id("msg", name)

    def user(self, name: str, *parts: dict[str, Any]) -> Msg:
        created = self.tick(2)
        return Msg(self.mid(name), "user", created, {"role": "user", "time": {"created": created}, "agent": "build",
                                                     "model": MODEL}, [(self.pid(), p) for p in parts])

    def assistant(self, name: str, parent: Msg, steps: list[list[dict[str, Any]]],
                  tokens: list[dict[str, int]]) -> Msg:
        """A reply: each step's parts between a step-start and its step-finish."""
        created = self.tick(1)
        parts: list[dict[str, Any]] = []
        written: dict[str, Any] = {}
        for step, spend in zip(steps, tokens):
            parts.append({"type": "step-start", "snapshot": _sha(name)[:40]})
            parts += step
            self.tick(4)
            written = {"total": sum(spend.values()), "input": spend["input"], "output": spend["output"],
                       "reasoning": spend["reasoning"], "cache": {"read": spend["read"], "write": spend["write"]}}
            parts.append({"type": "step-finish", "reason": "tool-calls" if step is not steps[-1] else "stop",
                          "snapshot": _sha(name)[:40], "tokens": written, "cost": 0})
        data = {"role": "assistant", "time": {"created": created, "completed": self.tick(1)},
                "parentID": parent.id, "modelID": MODEL["modelID"], "providerID": MODEL["providerID"],
                "mode": "build", "agent": "build", "path": {"cwd": TIDEPOOL, "root": TIDEPOOL},
                "cost": 0, "tokens": written, "finish": "stop"}  # the last step's only (§6)
        return Msg(self.mid(name), "assistant", created, data, [(self.pid(), p) for p in parts])

    def tool(self, name: str, args: dict[str, Any], output: str, *, metadata: dict[str, Any] | None = None,
             title: str = "") -> dict[str, Any]:
        start = self.tick(0.5)
        self.calls += 1
        return {"type": "tool", "callID": _id("toolu", f"call {self.calls}")[:30], "tool": name,
                "state": {"status": "completed", "input": args, "output": output, "title": title or name,
                          "metadata": metadata or {}, "time": {"start": start, "end": self.tick(1.5)}}}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def sessions() -> list[Ses]:
    s = _Story()
    ask = s.user("O1 ask", {"type": "text", "text": "Add a --json flag to `tidepool today` that prints the "
                                                    "predictions as JSON. @tidepool/cli.py"},
                 {"type": "text", "synthetic": True,
                  "text": "Called the Read tool with the following input: {\"filePath\":\"tidepool/cli.py\"}"})
    child_ask = s.user("O1 child ask", {"type": "text", "text": "Find where predictions are turned into text, "
                                                              "and whether Prediction has a to_dict."})
    child_reply = s.assistant("O1 child reply", child_ask, [[
        s.tool("glob", {"pattern": "tidepool/**/*.py"}, "tidepool/cli.py\ntidepool/noaa.py\n"
                                                   "tidepool/prediction.py"),
        {"type": "text", "text": "`format_prediction` in cli.py formats them; `Prediction.to_dict()` exists in "
                                 "prediction.py."}]], [{"input": 1890, "output": 96, "reasoning": 0,
                                                        "read": 11200, "write": 0}])
    task = s.tool("task", {"description": "Find the formatting code", "prompt": child_ask.parts[0][1]["text"],
                           "subagent_type": "explore"},
                  f"task_id: {O1_CHILD} (for resuming to continue this task if needed)\n\n<task_result>\n"
                  + child_reply.parts[-2][1]["text"] + "\n</task_result>",
                  metadata={"sessionId": O1_CHILD}, title="Find the formatting code")
    work = s.assistant("O1 work", ask, [
        [{"type": "reasoning", "text": "The flag belongs on the click command; first see how output is made.",
          "time": {}},
         s.tool("todowrite", {"todos": [
             {"content": "Add --json to tidepool today", "status": "in_progress", "priority": "high", "id": "1"},
             {"content": "Test the JSON output", "status": "pending", "priority": "medium", "id": "2"}]},
             "[2 todos]", title="2 todos"),
         s.tool("read", {"filePath": f"{TIDEPOOL}/tidepool/cli.py", "offset": 0, "limit": 40},
                "<file>\n00014| @click.command()\n00015| @click.option(\"--station\", default=\"9414290\")\n"
                "00016| def today(station):\n</file>", title="tidepool/cli.py"),
         s.tool("grep", {"pattern": "def to_dict", "path": f"{TIDEPOOL}/tidepool", "include": "*.py"},
                "Found 1 matches\ntidepool/prediction.py:\n  Line 22: def to_dict(self):", title="def to_dict"),
         task],
        [s.tool("edit", {"filePath": f"{TIDEPOOL}/tidepool/cli.py",
                         "oldString": "def today(station):",
                         "newString": "@click.option(\"--json\", \"as_json\", is_flag=True)\ndef today(station, as_json):"},
                "Edit applied successfully.", metadata={"diff": DIFF}, title="tidepool/cli.py"),
         s.tool("bash", {"command": "python -m pytest -q tests/test_cli.py", "description": "Run the CLI tests"},
                "F.\nNameError: name 'json' is not defined\n1 failed, 1 passed in 0.21s",
                metadata={"exit": 1, "description": "Run the CLI tests"}, title="Run the CLI tests")],
        [s.tool("edit", {"filePath": f"{TIDEPOOL}/tidepool/cli.py", "oldString": "import click",
                         "newString": "import json\n\nimport click"}, "Edit applied successfully.",
                metadata={"diff": "--- tidepool/cli.py\n+++ tidepool/cli.py\n@@ -1 +1,3 @@\n"
                                  "+import json\n+\n import click\n"}, title="tidepool/cli.py"),
         s.tool("bash", {"command": "python -m pytest -q tests/test_cli.py", "description": "Run the CLI tests"},
                "..\n2 passed in 0.19s", metadata={"exit": 0}, title="Run the CLI tests"),
         {"type": "text", "text": "`tidepool today --json` now prints the predictions as a JSON list "
                                  "(through `Prediction.to_dict`); the CLI tests pass."}],
    ], [{"input": 2412, "output": 311, "reasoning": 38, "read": 0, "write": 14880},
        {"input": 508, "output": 402, "reasoning": 0, "read": 14880, "write": 2100},
        {"input": 233, "output": 87, "reasoning": 0, "read": 16980, "write": 610}])
    root = Ses(O1, {"id": O1, "slug": "brave-tide", "version": "1.18.13", "projectID": "global",
                    "directory": TIDEPOOL, "title": "Add a --json flag to tidepool today",
                    "time": {"created": T0, "updated": s.tick(1)}}, [ask, work])
    child = Ses(O1_CHILD, {"id": O1_CHILD, "slug": "quiet-reef", "version": "1.18.13", "projectID": "global",
                           "directory": TIDEPOOL, "parentID": O1,
                           "title": "Find the formatting code (@explore subagent)",
                           "time": {"created": child_ask.created, "updated": child_reply.data["time"]["completed"]}},
                [child_ask, child_reply])
    return [root, child]


def write_opencode_examples(root: Path = ROOT) -> Path:
    """The data directory: ``opencode.db`` with the sessions' rows, the odd row, a
    small page size (the file stays small)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "opencode.db"
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA page_size = 1024")
        db.executescript(DDL)
        db.execute("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) "
                   "VALUES ('global', '/', NULL, ?, ?, '[]')", (T0, T0))
        for ses in sessions():
            info = ses.info
            db.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
                       "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (ses.id, "global", info.get("parentID"), info["slug"], info["directory"], info["title"],
                        info["version"], info["time"]["created"], info["time"]["updated"]))
            for msg in ses.messages:
                db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                           (msg.id, ses.id, msg.created, msg.created, json.dumps(msg.data)))
                for pid, part in msg.parts:
                    db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                               (pid, msg.id, ses.id, msg.created, msg.created, json.dumps(part)))
        # The odd record: a part of the first reply whose JSON was cut short.
        db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                   (ODD_PART, _id("msg", "O1 work"), O1, T0, T0, '{"type":"text","text":"I will also upd'))
        db.commit()
        db.execute("VACUUM")
    finally:
        db.close()
    return path


if __name__ == "__main__":
    print(write_opencode_examples(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT))
