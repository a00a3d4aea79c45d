"""OpenCode's tool views (render/views_opencode.py): each of its common tools, and
the calls it must leave to others (docs/formats-opencode.md §5)."""

from __future__ import annotations

from typing import Any

from bough_site.model import Text, ToolCall, ToolResult
from bough_site.render.tool_views import tool_view


def call(name: str, result_detail: Any = None, **args: Any) -> ToolCall:
    result = ToolResult([Text("ok")], False, None, result_detail) if result_detail is not None else None
    return ToolCall("call_1", name, args, None, result)


def test_shell() -> None:
    view = tool_view(call("bash", command="pytest -q", description="Run the tests", timeout=60000))
    assert (view.summary, view.note, view.body, view.json) == ("pytest -q", "Run the tests", None, None)
    long = tool_view(call("bash", command="set -e\nmake\nmake test", workdir="/w"))
    assert long.note == "in /w" and long.body is not None


def test_read_write_and_search() -> None:
    read = tool_view(call("read", filePath="/w/src/a.py", offset=10, limit=20))
    assert (read.summary, read.file, read.note) == ("/w/src/a.py", "/w/src/a.py", "lines 11–30")
    write = tool_view(call("write", filePath="src/a.py", content="x = 1\n"))
    assert write.summary == "src/a.py" and write.body is not None and "x" in str(write.body.full)
    grep = tool_view(call("grep", pattern="TODO", path="/w", include="*.py"))
    assert (grep.summary, grep.note) == ("TODO in /w", "*.py")
    assert tool_view(call("glob", pattern="**/*.ts")).summary == "**/*.ts"
    assert tool_view(call("list", path="/w")).summary == "/w"


def test_edit_shows_the_recorded_diff_else_its_strings() -> None:
    diff = "Index: a.py\n--- a.py\n+++ a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    recorded = tool_view(call("edit", {"diff": diff}, filePath="/w/a.py", oldString="x = 1", newString="x = 2"))
    assert recorded.summary == "/w/a.py" and "x = 2" in str(recorded.body.full)
    made = tool_view(call("edit", filePath="/w/a.py", oldString="old line", newString="new line", replaceAll=True))
    assert made.note == "every occurrence" and "new line" in str(made.body.full)
    multi = tool_view(call("multiedit", filePath="/w/b.py",
                           edits=[{"filePath": "/w/b.py", "oldString": "a", "newString": "b"}]))
    assert multi.summary == "/w/b.py" and multi.body is not None


def test_patch_todos_and_task() -> None:
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch"
    view = tool_view(call("apply_patch", patchText=patch))
    assert view.summary == "src/a.py" and view.body is not None  # not Codex's apply_patch
    todos = tool_view(call("todowrite", todos=[{"content": "a", "status": "completed", "priority": "high", "id": "1"},
                                               {"content": "b", "status": "odd", "priority": "low", "id": "2"}]))
    assert todos.summary == "2 items, 1 done" and [t.status for t in todos.todos] == ["completed", "pending"]
    task = tool_view(call("task", description="find uses", prompt="Find every use.", subagent_type="explore"))
    assert (task.summary, task.note) == ("find uses", "explore")
    fetch = tool_view(call("webfetch", url="https://example.com/x", format="markdown"))
    assert fetch.summary == "https://example.com/x" and fetch.note == "markdown"


def test_calls_with_other_agents_arguments_are_left_to_them() -> None:
    # Codex's apply_patch (its ``input``), Gemini's glob (``dir_path``), another agent's bash.
    codex = tool_view(call("apply_patch", input="*** Begin Patch\n*** Add File: z.py\n+1\n*** End Patch"))
    assert codex.summary == "z.py"
    assert tool_view(call("glob", pattern="*.md", dir_path="/d")).summary == "*.md in /d"
    other = tool_view(call("bash", command="ls", weird=1))
    assert other.json is not None and other.summary == "ls"  # the unknown tool's JSON view
    # Copilot CLI's bash (its sessionId and mode) is Copilot's view's: no JSON, no OpenCode note.
    copilot = tool_view(call("bash", command="ls", sessionId="s1", mode="sync"))
    assert copilot.json is None and copilot.summary == "ls"
    assert tool_view(call("read", path="/x")).json is not None


def test_a_read_result_shows_the_file_without_its_numbers() -> None:
    from bough_site.render.views_opencode import read_text

    text = "<file>\n00001| import json\n00002| \n00003| x = 1\n\n(End of file - total 3 lines)\n</file>"
    assert read_text(text) == "import json\n\nx = 1"
    assert read_text("<content>\n1: a\n2: b\n</content>") == "a\nb"
    assert read_text("no wrapper") is None and read_text("<file>\nnot numbered\n</file>") is None


def test_a_task_result_is_the_childs_answer() -> None:
    from bough_site.render.views_opencode import task_text

    text = "task_id: ses_1 (for resuming to continue this task if needed)\n\n<task_result>\n**Found** it.\n</task_result>"
    assert task_text(text) == "**Found** it."
    assert task_text('<task id="ses_2" state="completed">\n<task_result>\nok\n</task_result>\n</task>') == "ok"
    assert task_text("plain") is None
