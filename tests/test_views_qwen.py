"""Qwen Code's tool views (render/views_qwen.py), through ``tool_view`` as a page
asks: its own tools claimed by name and arguments, the tools it kept from Gemini CLI
shown by Gemini's view, and other agents' same-named tools left alone."""

from __future__ import annotations

from bough_site.model import Text, ToolCall, ToolResult
from bough_site.render.tool_views import tool_view
from bough_site.render.views_qwen import view_qwen


def view(name: str, args: object, result: ToolResult | None = None):
    return tool_view(ToolCall("c1", name, args, None, result))


def test_edit_shows_the_recorded_diff_else_its_own_strings() -> None:
    recorded = "--- a/kiln/timer.py\n+++ b/kiln/timer.py\n@@ -1 +1 @@\n-time.time()\n+time.monotonic()\n"
    done = ToolResult([Text("ok")], detail={"fileDiff": recorded, "fileName": "timer.py"})
    args = {"file_path": "/k/kiln/timer.py", "old_string": "time.time()", "new_string": "time.monotonic()"}
    shown = view("edit", args, done)
    assert (shown.summary, shown.file, shown.body.kind, shown.body.lines) == ("/k/kiln/timer.py", "/k/kiln/timer.py",
                                                                            "diff", 6)
    assert "monotonic" in shown.body.full and shown.json is None
    failed = view("edit", {**args, "replace_all": True})
    assert (failed.body.kind, failed.body.lines, failed.note) == ("diff", 2, "every occurrence")


def test_todo_write_is_a_checklist() -> None:
    shown = view("todo_write", {"todos": [{"id": "1", "content": "Read timer", "status": "completed"},
                                          {"id": "2", "content": "Fix drift", "status": "in_progress"},
                                          {"id": "3", "content": "Test", "status": "odd"}]})
    assert [(t.text, t.status) for t in shown.todos] == [("Read timer", "completed"), ("Fix drift", "in_progress"),
                                                          ("Test", "pending")]
    assert shown.summary == "3 items, 1 done"


def test_the_agent_call_and_the_small_ones() -> None:
    agent = view("agent", {"description": "Map the modules", "prompt": "List every module.", "subagent_type": "explorer"})
    assert (agent.summary, agent.note, agent.body) == ("Map the modules", "explorer", None)
    assert view("web_search", {"query": "monotonic clock python"}).summary == "monotonic clock python"
    assert view("skill", {"skill": "pdf", "args": "report.pdf"}).note == "report.pdf"
    assert view("exit_plan_mode", {"plan": "1. Read\n2. Fix"}).summary == "1. Read"


def test_the_tools_kept_from_gemini_cli_show_through_its_view() -> None:
    shell = view("run_shell_command", {"command": "pytest -q", "description": "Run the tests", "is_background": False})
    assert (shell.summary, shell.note) == ("pytest -q", "Run the tests")
    read = view("read_file", {"absolute_path": "/k/kiln/timer.py", "offset": 10, "limit": 20})
    assert (read.summary, read.file) == ("/k/kiln/timer.py", "/k/kiln/timer.py")
    grep = view("grep_search", {"pattern": "time\\.time", "path": "/k"})
    assert grep.summary == "time\\.time in /k"
    written = view("write_file", {"file_path": "/k/NOTES.md", "content": "# Notes\n"})
    assert written.summary == "/k/NOTES.md" and written.body is not None


def test_other_agents_tools_of_the_same_name_are_not_claimed() -> None:
    from bough_site.render.tool_views import ToolView

    opencode_edit = ToolCall("c", "edit", {"filePath": "/a", "oldString": "x", "newString": "y"})
    claude_task = ToolCall("c", "task", {"description": "d", "prompt": "p", "model": "sonnet"})
    todo = ToolCall("c", "todo_write", {"todos": [], "merge": True})
    for call in (opencode_edit, claude_task, todo):
        assert not view_qwen(ToolView(call.name), call, call.input)
    assert view("edit", {"filePath": "/a", "oldString": "x", "newString": "y"}).json is not None
