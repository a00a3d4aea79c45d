"""The example Qwen Code history bundled with bough (written here, by hand).

``write_qwen_examples`` writes a ``~/.qwen`` tree under ``bough_site/examples/qwen/``;
``python -m corpus.qwen_examples`` regenerates it, and tests/test_qwen_build.py
checks that the bundled files are exactly what this module writes.

The session (docs/formats-qwen.md names each shape), in tidepool
(/home/ada/src/tidepool: the project the Claude Code, Codex and Gemini CLI examples
work in too, so its page shows all four agents), Qwen Code 0.21.6:

  Q1  ``tidepool week`` prints three decimals; make it match ``today``. A todo list,
      a search, a read, an ``edit`` with the diff the CLI recorded, a test run, a
      thought-only response the CLI retried (only its telemetry holds it), then
      "Commit it." and a commit. The background memory extractor runs after the
      first turn (its calls only telemetry: an orphan run). The odd record: the
      commit's result and the next telemetry event glued on one line, as a
      writer that lost a newline leaves them (read both, one warning).
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

from .qwen_records import Chat, call, sanitized, text, thought, usage

SID = "5d0c7e2a-91b4-4f38-a6e1-3c8b2f9d4a17"
CWD = "/home/ada/src/tidepool"
START = datetime(2026, 3, 12, 16, 5, 0, tzinfo=timezone.utc)
DIFF = """--- a/tidepool/cli.py
+++ b/tidepool/cli.py
@@ -41,7 +41,7 @@ def week(station: str, units: str) -> None:
     for day in forecast.days:
         for tide in day.tides:
-            click.echo(f"{tide.time:%a %H:%M}  {tide.height:.3f} {units}")
+            click.echo(f"{tide.time:%a %H:%M}  {format_height(tide.height)} {units}")
"""
TODOS = [{"id": "1", "content": "Find where week formats heights", "status": "completed"},
         {"id": "2", "content": "Use format_height like today", "status": "in_progress"},
         {"id": "3", "content": "Run the tests", "status": "pending"}]


def session() -> Chat:
    c = Chat(SID, CWD, version="0.21.6", model="qwen3-coder-plus", clock=START)
    c.prompt("`tidepool week` prints heights with three decimals; make it match `today` (two).", gitBranch="main")
    c.system("attribution_snapshot", {"snapshot": {"type": "attribution-snapshot", "version": 1}})
    _turn(c, 14_200, 6_100, 96, 41, [thought("Two formatters disagree; I'll plan it."),
                                       call("call_todo1", "todo_write", {"todos": TODOS})])
    c.tool_result("call_todo1", "todo_write", "Todos updated.")
    _turn(c, 14_600, 14_100, 38, 0, [call("call_grep1", "grep_search", {"pattern": r"height:\.3f",
                                                                          "path": "/home/ada/src/tidepool"})])
    c.tool_result("call_grep1", "grep_search", "tidepool/cli.py:44: click.echo(f\"{tide.time:%a %H:%M}  "
                  "{tide.height:.3f} {units}\")")
    _turn(c, 15_000, 14_500, 30, 0, [call("call_read1", "read_file", {"absolute_path": "/home/ada/src/tidepool/"
                                                                                        "tidepool/cli.py",
                                                                        "offset": 30, "limit": 20})])
    c.tool_result("call_read1", "read_file", "def week(station: str, units: str) -> None:\n    ...")
    _turn(c, 16_300, 15_000, 88, 22, [call("call_edit1", "edit", {
        "file_path": "/home/ada/src/tidepool/tidepool/cli.py",
        "old_string": "{tide.height:.3f} {units}", "new_string": "{format_height(tide.height)} {units}"})])
    result = c.tool_result("call_edit1", "edit", "Edited tidepool/cli.py (1 replacement).")
    c.lines[-1] = c.lines[-1].replace(b'"resultDisplay":"Edited tidepool/cli.py (1 replacement)."',
                                      b'"resultDisplay":' + _display(DIFF))
    assert result["uuid"]
    _turn(c, 16_500, 16_300, 52, 0, [call("call_sh1", "run_shell_command", {
        "command": "python -m pytest -q tests/test_cli.py", "description": "Run the CLI tests"})])
    c.tool_result("call_sh1", "run_shell_command", "Command: python -m pytest -q tests/test_cli.py\n"
                  "Output: 14 passed in 0.41s\nExit Code: 0")
    c.api_response(16_900, 212, cached=16_500, thoughts=212)  # thought-only: the CLI retried it
    _turn(c, 16_900, 16_500, 61, 19, [thought("Tests pass."), text("`week` now formats heights with "
                                                                   "`format_height`, as `today` does: two decimals. "
                                                                   "The CLI tests pass.")])
    c.api_response(3_100, 180, thoughts=120, agent="managed-auto-memory-extractor-4c1d9e02",
                   response_text="Nothing new to remember.")
    c.tool_event("call_mem1", "list_directory", {"path": "/home/ada/.qwen/memories"},
                 agent="managed-auto-memory-extractor-4c1d9e02")
    c.prompt("Commit it.")
    _turn(c, 17_400, 16_900, 45, 0, [call("call_sh2", "run_shell_command", {
        "command": "git commit -am \"week: two decimals, like today\"", "description": "Commit the change"})])
    c.tool_result("call_sh2", "run_shell_command", "Command: git commit -am \"week: two decimals, like today\"\n"
                  "Output: [main 7e41c0a] week: two decimals, like today\n 1 file changed, 1 insertion(+), "
                  "1 deletion(-)\nExit Code: 0")
    c.api_response(17_600, 24, cached=17_400)
    c.lines[-2:] = [c.lines[-2] + c.lines[-1]]  # the odd record: two records glued on one line
    c.assistant([text("Committed as 7e41c0a.")], usage(17_600, 24, cached=17_400))
    return c


def _turn(c: Chat, prompt: int, cached: int, output: int, thoughts: int, parts: list) -> None:
    """One API call: its telemetry, then the record the CLI wrote for it."""
    c.api_response(prompt, output, cached=cached, thoughts=thoughts)
    c.assistant(parts, usage(prompt, output, cached=cached, thoughts=thoughts))


def _display(diff: str) -> bytes:
    import orjson

    return orjson.dumps({"fileDiff": diff, "fileName": "cli.py", "originalContent": None, "newContent": None})


def example_files() -> dict[str, bytes]:
    chat = session()
    meta = b'{\n  "version": 1,\n  "createdAt": "2026-03-12T16:05:02.000Z",\n  "updatedAt": "2026-03-12T16:05:02.000Z"\n}'
    folder = f"projects/{sanitized(CWD)}"
    return {f"{folder}/chats/{SID}.jsonl": b"\n".join(chat.lines) + b"\n", f"{folder}/meta.json": meta}


def bundled_root() -> Path:
    return Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "qwen"


def write_qwen_examples(root: Path) -> list[Path]:
    written = []
    for rel, data in example_files().items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":
    files = write_qwen_examples(bundled_root())
    print(f"wrote {len(files)} files under {bundled_root()}", file=sys.stderr)
