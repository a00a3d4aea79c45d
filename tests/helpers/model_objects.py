"""Model objects built by hand, to render without a reader: a site full of hostile
text, a session with a Read past its highlighting budget, and a walk over a timeline."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

from bough_site import urls
from bough_site.model import (
    Command,
    Image,
    InputWarning,
    Marker,
    Project,
    Prompt,
    Reply,
    Session,
    Site,
    SubagentRun,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Usage,
)
from bough_site.render.pages import Renderer


# Everything a transcript could use to break out of its place.
EVIL = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&<style>*{display:none}"
EVIL_URL = "javascript:alert(3)"


def png_bytes() -> bytes:
    """A valid 1×1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


PNG_B64 = base64.b64encode(png_bytes()).decode()
SVG_B64 = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(4)"></svg>').decode()
EVIL_MEDIA = 'image/png" onerror="alert(5)'

STATS = {
    "records": 12,
    "replies": 3,
    "prompts": 2,
    "commands": 1,
    "tool_calls": 9,
    "tool_results": 9,
    "tool_errors": 1,
    "subagents": 1,
    "input_tokens": 1200,
    "output_tokens": 3400,
    "cache_creation_input_tokens": 5600,
    "cache_read_input_tokens": 1_234_567,
    "lines": 40,
    "skipped_lines": 1,
}


def result(text: str, *, is_error: bool = False, detail: Any = None) -> ToolResult:
    return ToolResult(content=[Text(text)], is_error=is_error, detail=detail)


def subagent(depth: int = 0) -> SubagentRun:
    """A sub-agent whose own run holds a tool call, and (once) a nested sub-agent."""
    inner = ToolCall("sub-bash", "Bash", {"command": "ls " + EVIL}, result=result("x.py"))
    if depth == 0:
        inner = ToolCall(
            "sub-task",
            "Task",
            {"description": "nested " + EVIL, "prompt": "go"},
            result=result("done"),
            subagent=subagent(depth + 1),
        )
    return SubagentRun(
        agent_id=f"agent{depth}<x>",
        agent_type="Explore" + EVIL,
        description="look around " + EVIL,
        file="agent.jsonl",
        timeline=[
            Prompt("sp1", "p1", "2025-03-04T10:01:00Z", [Text("sub prompt " + EVIL)]),
            Reply("sr1", "r1", "2025-03-04T10:01:05Z", "sub-model" + EVIL, [Text("sub reply"), inner], Usage()),
        ],
        stats=dict(STATS),
        models=["sub-model"],
    )


def claude_timeline() -> list[Any]:
    edit_detail = {
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 2,
                "newStart": 1,
                "newLines": 2,
                "lines": [" keep", "-old " + EVIL, "+new " + EVIL],
            }
        ]
    }
    todos = [
        {"content": "write tests " + EVIL, "status": "completed"},
        {"content": "ship", "status": "in_progress"},
        {"content": "rest", "status": EVIL},
    ]
    calls = [
        ToolCall("t-bash", "Bash", {"command": "pytest -q " + EVIL, "description": EVIL}, result=result("ok " + EVIL)),
        ToolCall(
            "t-read", "Read", {"file_path": "src/" + EVIL + ".py"}, result=result("     1→import os\n     2→print(1)")
        ),
        ToolCall(
            "t-edit",
            "Edit",
            {"file_path": "src/x.py", "old_string": "a", "new_string": "b"},
            result=result("ok", detail=edit_detail),
        ),
        ToolCall(
            "t-edit2",
            "Edit",
            {"file_path": "src/y.py", "old_string": "one\n", "new_string": "two\n"},
            result=result("ok"),
        ),
        ToolCall(
            "t-write",
            "Write",
            {"file_path": "src/z.py", "content": "def f():\n    return '" + EVIL + "'\n"},
            result=result("written"),
        ),
        ToolCall("t-todo", "TodoWrite", {"todos": todos}, result=result("Todos updated")),
        ToolCall(
            "t-task",
            "Task",
            {"description": "explore " + EVIL, "prompt": "Find " + EVIL, "subagent_type": "Explore"},
            result=result("## Report\n" + EVIL),
            subagent=subagent(),
        ),
        ToolCall("t-fetch", "WebFetch", {"url": EVIL_URL, "prompt": EVIL}, result=result("nope", is_error=True)),
        ToolCall("t-mcp", "mcp__" + EVIL, {EVIL: EVIL, "path": EVIL}, result=ToolResult([Image(EVIL_MEDIA, PNG_B64)])),
        ToolCall("t-none", "Glob", {"pattern": "**/*.py"}),
        ToolCall("t-long", "Bash", {"command": "seq 100"}, result=result("\n".join(str(i) for i in range(1, 101)))),
    ]
    return [
        Prompt(
            "u1", "p1", "2025-03-04T10:00:00Z", [Text(EVIL), Image(EVIL_MEDIA, PNG_B64), Image(EVIL_MEDIA, SVG_B64)]
        ),
        Reply(
            "m1",
            "r1",
            "2025-03-04T10:00:10Z",
            "claude-" + EVIL,
            [
                Thinking("hmm " + EVIL),
                Text("**bold** " + EVIL + f" [click]({EVIL_URL})"),
                *calls,
                Image(EVIL_MEDIA, SVG_B64),
            ],
            Usage(1, 2, 3, 4),
        ),
        Command("c1", "2025-03-04T10:02:00Z", "/model" + EVIL, EVIL, "\x1b[1mSet model\x1b[0m " + EVIL),
        Marker("k1", "2025-03-04T10:03:00Z", "compaction", "Summary:\n" + EVIL),
        Marker("k2", "2025-03-04T10:03:01Z", "interruption", "[Request interrupted by user]"),
        Marker("k3", "2025-03-04T10:03:02Z", "error", "API Error: " + EVIL),
        Marker("k4", "2025-03-04T10:03:03Z", "notice", EVIL),
        Marker("k5", "2025-03-04T10:03:04Z", "meta", "caveat " + EVIL),
        Marker("k6", "2025-03-04T10:03:05Z", "inherited", "", ref_session="parent-session", count=7),
        Marker("k7", "2025-03-04T10:03:06Z", EVIL, EVIL),
        Marker("k8", "2025-03-04T10:03:07Z", "warning", "Low disk " + EVIL, removed="rewound"),
        Prompt("u2", "p2", "2025-03-04T10:04:00Z", [Text("thanks")]),
        Reply("m2", "r2", "2025-03-04T10:04:05Z", None, [Text("You're welcome.")], Usage(), is_error=True),
    ]


def codex_timeline() -> list[Any]:
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-old\n+new\n*** Add File: " + EVIL + "\n+x\n*** End Patch"
    )
    exec_out = '{"output": "hello\\n", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}'
    calls = [
        ToolCall("c-shell", "shell", {"command": ["bash", "-lc", "cargo test " + EVIL]}, result=result(exec_out)),
        ToolCall("c-exec", "exec_command", {"cmd": "rg foo"}, result=result("Exit code: 0\nOutput:\nfoo")),
        ToolCall("c-patch", "apply_patch", patch, result=result("Done!")),
        ToolCall("c-search", "web_search", {"action": {"type": "search", "query": "pagefind " + EVIL}}),
        ToolCall(
            "c-plan",
            "update_plan",
            {"plan": [{"step": "one", "status": "completed"}, {"step": "two", "status": "pending"}]},
        ),
        ToolCall("c-json", "list_mcp_resources", {"server": "x"}, result=result('{"resources": []}')),
    ]
    return [
        Marker("x0", "2025-03-05T09:00:00Z", "inherited", "", ref_session="unknown-session", count=3),
        Prompt("x1", "p1", "2025-03-05T09:00:01Z", [Text("fix it")]),
        Reply(
            "x2", "r1", "2025-03-05T09:00:02Z", "gpt-5", [Thinking("**Planning**"), Text("Working."), *calls], Usage()
        ),
    ]


def session(sid: str, slug: str, source: str, timeline: list[Any], **extra: Any) -> Session:
    fields: dict[str, Any] = dict(
        id=sid,
        source=source,
        cwd="/home/" + EVIL,
        title="Title " + EVIL,
        started="2025-03-04T10:00:00Z",
        ended="2025-03-04T11:05:00Z",
        versions=["2.1.0" + EVIL],
        models=["claude-" + EVIL],
        git_branch="feat/" + EVIL,
        files=["a.jsonl"],
        timeline=timeline,
        stats=dict(STATS),
        slug=slug,
    )
    fields.update(extra)
    return Session(**fields)


def make_site() -> Site:
    s1 = session(
        "s1-" + EVIL,
        "s1",
        "claude-code",
        claude_timeline(),
        warnings=[InputWarning("a.jsonl", 3, "not JSON " + EVIL), InputWarning("b.jsonl", 0, "unreadable")],
        redactions={"github-token": 2, EVIL: 1},
        orphan_subagents=[subagent(1)],
    )
    s2 = session(
        "s2",
        "s2",
        "codex",
        codex_timeline(),
        started="2025-03-05T09:00:00Z",
        ended="2025-03-05T09:01:00Z",
        parent_id="parent-session",
        stats={**STATS, "reasoning_output_tokens": 77},
    )
    s3 = session(
        "s3",
        "s3",
        "claude-code",
        [],
        started="2025-01-10T08:00:00+00:00",
        ended=None,
        kept_since="2025-02-01T00:00:00Z",
    )
    p1 = Project(id="alpha", name="alpha " + EVIL, cwd="/work/" + EVIL, sessions=[s1, s2], stats=dict(STATS))
    p2 = Project(id="beta", name="beta", cwd="/work/beta", sessions=[s3], stats=dict(STATS))
    return Site(projects=[p2, p1], stats=dict(STATS), warnings=[InputWarning(EVIL, 1, EVIL)])


LINKS = {"parent-session": urls.session_html("beta", "s3")}


# --- a session page with a Read past its highlighting budget ----------------------------------

# 300 short lines (~7 KB): the line budget comes first.
READ_LINES = [f"v{i} = f('<&>')  # n{i}\n" for i in range(1, 301)]
READ_TEXT = "".join(READ_LINES)


def read_session(sid: str, text: str = READ_TEXT) -> Session:
    calls = [ToolCall(f"{sid}-read", "Read", {"file_path": "src/big.py"}, result=result(text))]
    reply = Reply("m1", "r1", "2025-03-04T10:00:10Z", "claude", [Text("Reading."), *calls], Usage())
    return session(sid, sid, "claude", [reply])


def page(renderer: Renderer, session: Session, store_key: str | None = None) -> str:
    """The session's first page, its blocks then written to the store as a worker's
    batch of jobs ends (jobs.run_batch)."""
    project = Project(id="p", name="p", cwd="/w", sessions=[session], stats={})
    files = dict(renderer.session_pages(project, session, {}, store_key=store_key))
    if renderer.store is not None:
        renderer.store.flush()
    return files[urls.session_html("p", session.slug)].decode()


# --- walking a timeline -----------------------------------------------------------------------


def all_calls(items: list) -> list[ToolCall]:
    found = []
    for item in items:
        if isinstance(item, Reply):
            for block in item.blocks:
                if isinstance(block, ToolCall):
                    found.append(block)
                    if block.subagent is not None:
                        found += all_calls(block.subagent.timeline)
    return found
