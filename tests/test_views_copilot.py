"""Copilot CLI's per-tool views (render/views_copilot.py), through tool_views.tool_view:
a call is claimed only when its name and its argument keys are Copilot CLI's."""

from __future__ import annotations

from bough_site.model import Text, ToolCall, ToolResult
from bough_site.render.tool_views import tool_view

DIFF = ("diff --git a/src/kiln/timer.py b/src/kiln/timer.py\n--- a/src/kiln/timer.py\n+++ b/src/kiln/timer.py\n"
        "@@ -1,2 +1,2 @@\n-import time\n+import time  # monotonic\n x = 1\n")


def call(name: str, args: object, detail: dict | None = None) -> ToolCall:
    result = ToolResult([Text("ok")], False, None, detail) if detail is not None else None
    return ToolCall("c1", name, args, None, result)


def test_shell_commands() -> None:
    view = tool_view(call("bash", {"command": "pytest -q", "description": "Run the tests", "sessionId": "main",
                                   "async": False}))
    assert (view.summary, view.note, view.body) == ("pytest -q", "Run the tests", None)
    long = tool_view(call("bash", {"command": "cd /src && \\\n  make test", "description": "Build"}))
    assert long.summary == "cd /src && \\" and long.body is not None
    assert tool_view(call("write_bash", {"sessionId": "s2", "input": "y\n"})).summary == "y"
    assert tool_view(call("read_bash", {"sessionId": "s2", "delay": 5})).summary == "session s2"


def test_read_write_and_edit() -> None:
    view = tool_view(call("view", {"path": "/src/kiln/timer.py", "view_range": [10, 40]}))
    assert (view.summary, view.file, view.note) == ("/src/kiln/timer.py", "/src/kiln/timer.py", "lines 10–40")
    created = tool_view(call("create", {"path": "/src/kiln/README.md", "file_text": "# Kiln\n"}))
    assert created.summary == "/src/kiln/README.md" and created.body is not None
    recorded = tool_view(call("edit", {"path": "/src/kiln/timer.py", "old_str": "import time", "new_str": "x"},
                              {"detailedContent": DIFF}))
    assert recorded.body is not None and "monotonic" in str(recorded.body.full)
    computed = tool_view(call("edit", {"path": "/src/kiln/timer.py", "old_str": "a = 1", "new_str": "a = 2"}))
    assert computed.body is not None and computed.body.lines == 2


def test_the_2025_editor_tool() -> None:
    view = tool_view(call("str_replace_editor", {"command": "str_replace", "path": "/src/a.rs", "old_str": "a",
                                                 "new_str": "b"}))
    assert (view.summary, view.note) == ("/src/a.rs", "str_replace") and view.body is not None
    assert tool_view(call("str_replace_editor", {"command": "view", "path": "/src"})).summary == "/src"


def test_search_todos_and_notes() -> None:
    grep = tool_view(call("grep", {"pattern": "drift", "path": "src", "output_mode": "content", "-i": True}))
    assert (grep.summary, grep.note) == ("drift in src", "output_mode=content, -i=True")
    todos = tool_view(call("update_todo", {"todos": "- [x] Read the timer\n- [ ] Fix it\n- [~] Test it"}))
    assert [(t.text, t.status) for t in todos.todos] == [("Read the timer", "completed"), ("Fix it", "pending"),
                                                         ("Test it", "in_progress")]
    assert todos.summary == "3 items, 1 done"
    assert tool_view(call("report_intent", {"intent": "Fixing the timer"})).summary == "Fixing the timer"
    task = tool_view(call("task", {"description": "Find the drift", "prompt": "Look at timer.py", "agent_type": "explore"}))
    assert (task.summary, task.note) == ("Find the drift", "explore") and task.body is not None


def test_other_agents_calls_of_the_same_name_are_not_claimed() -> None:
    # An edit with arguments no agent's edit has, and an unknown argument: the generic view, with the JSON.
    other = tool_view(call("edit", {"file": "/src/a.py", "replacement": "b"}))
    assert other.json is not None and other.body is None
    # OpenCode's edit (camelCase keys) is OpenCode's view's, not Copilot's: a diff of its strings.
    opencode = tool_view(call("edit", {"filePath": "/src/a.py", "oldString": "a", "newString": "b"}))
    assert opencode.json is None and opencode.body is not None and opencode.body.kind == "diff"
    extra = tool_view(call("view", {"path": "/src/a.py", "unexpected": 1}))
    assert extra.json is not None and extra.file is None
    assert tool_view(call("bash", "not an object")).json is not None


def test_a_viewed_file_is_shown_as_its_text() -> None:
    from bough_site.render.views_copilot import viewed_text

    assert viewed_text("1. [package]\n2. \n3. name = \"x\"\n") == "[package]\n\nname = \"x\"\n"
    assert viewed_text(".git\nsrc\nCargo.toml") is None  # a directory's listing
    assert viewed_text("") is None
