"""What more than one test module uses, in one place: a test module never imports
another test module (tests/test_layout.py checks), so each reads on its own and none
breaks when another is edited. The fixtures more than one module uses are in
conftest.py, where pytest finds them; what one module alone uses stays in it.

Nothing here imports Playwright: the browser tests import it when they run, so a
machine without it still collects every other test (``require_browser``)."""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import hmac
import html
import importlib.util
import os
import random
import re
import shutil
import signal
import sqlite3
import struct
import sys
import threading
import tomllib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar
from urllib.parse import urlsplit

import markupsafe
import orjson
import pytest

from bough_site import urls
from bough_site.build import BuildResult, build
from bough_site.config import BuildConfig
from bough_site.model import (
    REASONING_KEY,
    STAT_KEYS,
    Command,
    Image,
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
    InputWarning,
)
from bough_site.render.pages import Renderer
from corpus import examples as ex
from corpus import gemini_examples as gx
from corpus.claude import generate_claude_history


# --- the repository, the example builder, the shared real transcripts -------------------------

REPO = Path(__file__).resolve().parents[1]


def load_build_examples() -> ModuleType:
    """scripts/build_examples.py as a module (scripts/ is not a package)."""
    name = "bough_build_examples"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "build_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


be = load_build_examples()


SHARED = Path(__file__).resolve().parents[2] / "shared"
FIXTURES = SHARED / "fixtures"


def fixtures_dir(kind: str) -> Path:
    """The shared real transcripts, or a skip when this checkout has none beside it."""
    folder = FIXTURES / kind
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here (the shared fixtures live beside the checkout)")
    return folder


def lay_out_as_config_dir(fixtures: Path, root: Path) -> Path:
    """Copy the fixtures into ``root/projects/<dir>/`` the way Claude Code stores them:
    loose files go to one project directory each, session directories keep their shape."""
    projects = root / "projects"
    for entry in sorted(fixtures.iterdir()):
        if entry.is_dir():
            shutil.copytree(entry, projects / entry.name)
        elif entry.suffix == ".jsonl":
            folder = projects / entry.name.split("__")[0]
            folder.mkdir(parents=True, exist_ok=True)
            # "agent-sessions__…" is the fixture's source, not the old sub-agent
            # layout's agent-<id>.jsonl: keep the name from looking like one.
            name = "fx-" + entry.name if entry.name.startswith("agent-") else entry.name
            shutil.copy2(entry, folder / name)
    return projects


def file_tree(root: Path, *, site_only: bool = False) -> dict[str, bytes]:
    """Every regular file under root by its relative path. ``site_only`` leaves out
    bough's own bookkeeping (the writer's marker and lock, the incremental state:
    every name starting ``.bough-``), keeping what a host would publish."""
    tree = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not (site_only and any(part.startswith(".bough-") for part in relative.parts)):
            tree[relative.as_posix()] = path.read_bytes()
    return tree


# --- hand-written Claude Code records: a test reads as the conversation it describes ----------

KEY = b"test-key"  # the redaction key: conftest sets BOUGH_REDACTION_KEY to it for every test
SESSION = "11111111-1111-4111-8111-111111111111"
CWD = "/home/ada/src/app"
_clock = [0]


def reset_clock() -> None:
    """Start the record times again at 10:00:01: every test does (conftest.py), so a
    test's times never depend on which tests ran before it."""
    _clock[0] = 0


def _time() -> str:
    _clock[0] += 1
    seconds = _clock[0]
    return f"2026-03-01T10:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000Z"


def base(kind: str, uuid: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SESSION,
        "cwd": CWD,
        "version": "2.1.80",
        "gitBranch": "main",
        "isSidechain": False,
        "userType": "external",
        "timestamp": _time(),
    }
    record.update(fields)
    return record


def prompt(uuid: str, content: Any, **fields: Any) -> dict[str, Any]:
    return base("user", uuid, message={"role": "user", "content": content}, **fields)


def reply(uuid: str, message_id: str, blocks: list[dict[str, Any]], *, output: int = 10, inp: int = 5,
          cache_write: int = 0, cache_read: int = 0, model: str = "claude-opus-4-6", **fields: Any) -> dict[str, Any]:
    usage = {"input_tokens": inp, "output_tokens": output, "cache_creation_input_tokens": cache_write,
             "cache_read_input_tokens": cache_read}
    message = {"id": message_id, "type": "message", "role": "assistant", "model": model,
               "content": blocks, "usage": usage}
    return base("assistant", uuid, message=message, requestId=f"req_{message_id}", **fields)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": inputs}


def tool_result(uuid: str, call_id: str, output: Any, *, error: bool = False, detail: Any = None,
                **fields: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": output}
    if error:
        block["is_error"] = True
    record = prompt(uuid, [block], **fields)
    if detail is not None:
        record["toolUseResult"] = detail
    return record


def system(uuid: str, subtype: str, content: str = "", **fields: Any) -> dict[str, Any]:
    return base("system", uuid, subtype=subtype, content=content, **fields)


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """Write records, one per line; a ``bytes`` item is written as that raw line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        for record in records:
            line = record if isinstance(record, bytes) else orjson.dumps(record)
            handle.write(line + b"\n")
    return path


# --- model objects built by hand, to render without a reader ----------------------------------

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


# --- a small DOM from html.parser -------------------------------------------------------------


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node] = []
        self.text: list[str] = []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self):
        yield self
        for child in self.children:
            yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [n for n in self.iter() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)]

    def all_text(self) -> str:
        return "".join(self.text) + "".join(c.all_text() for c in self.children)

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


VOID = {"meta", "link", "img", "br", "hr", "input", "source", "wbr", "area", "base", "col", "embed", "track"}


class Tree(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.current = self.root
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs), self.current)
        node.raw_attrs = attrs  # type: ignore[attr-defined]
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs), self.current)
        node.raw_attrs = attrs  # type: ignore[attr-defined]
        self.current.children.append(node)

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.text.append(data)


def parse(html: bytes) -> Node:
    return Tree(html.decode("utf-8")).root


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


# --- incremental builds: what a rebuild wrote again -------------------------------------------

OLD = 1_000_000_000  # 2001: any file written by a build is newer


def make_history(root: Path) -> Path:
    generate_claude_history(root, seed=11, projects=2, sessions_per_project=3, turns_per_session=3, output_kb=1)
    return root / "projects"


def run(src: Path, out: Path, **options) -> BuildResult:
    config = BuildConfig(sources=[src], out=out, archive=None, jobs=options.pop("jobs", 1), **options)
    return build(config, redaction_key=b"k")


def tree(out: Path) -> dict[str, bytes]:
    """Every output file by path, without bough's own state (.bough-*)."""
    return file_tree(out, site_only=True)


def age(out: Path) -> None:
    for name in tree(out):
        os.utime(out / name, ns=(OLD * 10**9, OLD * 10**9))


def rewritten(out: Path) -> set[str]:
    return {name for name in tree(out) if (out / name).stat().st_mtime_ns != OLD * 10**9}


def sessions_of(out: Path) -> dict[str, dict]:
    """session id -> its summary in the project sidecars."""
    index = orjson.loads((out / "index.json").read_bytes())
    found = {}
    for project in index["projects"]:
        for summary in orjson.loads((out / project["json"]).read_bytes())["sessions"]:
            found[summary["id"]] = summary
    return found


def main_file(src: Path, out: Path) -> tuple[Path, dict]:
    """A main transcript without sub-agents that ends with a complete line, and its summary."""
    summaries = sessions_of(out)
    for path in sorted(src.glob("*/*.jsonl")):
        summary = summaries.get(path.stem)
        if summary is None or not path.read_bytes().endswith(b"\n") or path.name.startswith("agent-"):
            continue
        if len(orjson.loads((out / summary["json"]).read_bytes())["files"]) == 1:
            return path, summary
    raise AssertionError("no main transcript without sub-agents ends with a newline")


def append_turn(path: Path) -> None:
    """One more turn (a prompt and its reply) at the end of a session file."""
    last = next(orjson.loads(line) for line in reversed(path.read_bytes().splitlines())
                if line.strip().startswith(b"{") and b'"cwd"' in line)
    fields = {"cwd": last["cwd"], "sessionId": last["sessionId"], "timestamp": "2027-01-01T00:00:00.000Z"}
    records = [
        prompt("aaaaaaaa-0000-4000-8000-000000000001", "one more thing", **fields),
        reply("aaaaaaaa-0000-4000-8000-000000000002", "msg_appended", [text("Done: one more thing.")], **fields),
    ]
    with open(path, "ab") as handle:
        handle.writelines(orjson.dumps(record) + b"\n" for record in records)


# --- the bundled examples, counted by hand ----------------------------------------------------
# (The Claude Code examples' STATS, used by tests/test_examples.py alone, are derived there.)

NOTES = "-home-ada-src-notes-api"
DOTFILES = "-home-ada-dotfiles"

# The only lines that are not JSON objects, on purpose: (file, 1-based line).
BAD_LINES = {
    (f"{NOTES}/{ex.N4}.jsonl", 21),  # a tool result cut off mid-write, followed by more records
    (f"{DOTFILES}/{ex.D1}.jsonl", 22),  # the last line, cut off, no newline after it
}


def example_stats(
    records, replies, prompts, commands, tool_calls, tool_results, tool_errors, subagents,
    input_tokens, output_tokens, cache_creation, cache_read, lines, skipped, commits, files_changed,
) -> dict[str, int]:  # fmt: skip
    """STATS from their values in the order of STAT_KEYS."""
    values = (
        records, replies, prompts, commands, tool_calls, tool_results, tool_errors, subagents,
        input_tokens, output_tokens, cache_creation, cache_read, lines, skipped, commits, files_changed,
    )  # fmt: skip
    return dict(zip(STAT_KEYS, values))


def gemini_example_stats(*values: int, reasoning: int) -> dict[str, int]:
    return {**example_stats(*values), REASONING_KEY: reasoning}


# Derived by hand from the stories in corpus/gemini_examples.py (docs/formats-gemini.md §7):
# tokens per reply are (input, cached, output, thoughts); input_tokens adds input - cached,
# output_tokens adds output + thoughts, reasoning_output_tokens adds thoughts.
GEMINI_SESSION_STATS = {
    # G1 (0.44 log and its investigator's log). Records: 28 in the session's file (13 user
    # records: the session context, 4 prompts and 8 stored tool results; 12 replies; the
    # warning, error and info notices), 6 in the sub-agent's (its task, 3 replies, 2 results).
    # The rewound turn (a prompt, 2 replies, a result) still counts. Replies 12 + 3. Prompts:
    # the --units ask, "Round feet…" (rewound), "Keep two decimals…", "Commit it.". Calls:
    # 11 in the session (2 reads, replace, write_file, 2 pytest runs, 2 replaces, invoke_agent,
    # commit, push) + grep_search and read_file in the sub-agent; each has a result (the
    # cancelled push too); the read of the missing main.py is the one error.
    # Session replies (input, cached, output, thoughts): (9120, 0, 64, 210),
    # (11876, 8900, 612, 340), (13410, 11700, 38, 95), (14702, 13300, 240, 180),
    # (15380, 14600, 31, 42), (15690, 15200, 156, 60), (15960, 15500, 190, 75),
    # (16330, 15800, 48, 0), (16010, 15500, 120, 130), (17240, 15900, 88, 70),
    # (17520, 17100, 52, 40), (17790, 17300, 30, 25): input - cached = 20,228, cached 160,800,
    # output 1,669, thoughts 1,267. Sub-agent: (5230, 0, 45, 120), (6110, 5100, 40, 60),
    # (7480, 6000, 210, 150): 7,720, 11,100, 295, 330. So input 27,948, cache reads 171,900,
    # output 1,669 + 1,267 + 295 + 330 = 3,561, reasoning 1,267 + 330 = 1,597.
    # Lines: the session's 68 = metadata + 28 records each followed by a $set (56) + 9 replies
    # written again with their calls + $rewindTo + the title's $set; the sub-agent's 15 =
    # metadata + 6 × 2 + 2 replies written again. Commit 5d2a8c4; files cli.py, units.py,
    # format.py (twice, once in the rewound turn).
    gx.G1: gemini_example_stats(34, 15, 4, 0, 13, 13, 1, 1, 27948, 3561, 0, 171900, 83, 0, 1, 3, reasoning=1597),
    # A1 (0.22 legacy .json, one line): the info notice, the prompt, 5 replies; 4 calls
    # (read_file, pytest twice, replace), none an error. Replies: (6240, 0, 52, 310),
    # (7105, 5900, 40, 120), (8020, 6800, 185, 260), (8390, 7900, 35, 30), (8610, 8200, 142, 45):
    # input 6,240 + 1,205 + 1,220 + 490 + 410 = 9,565; cached 28,800; output 454 + thoughts 765.
    # File almanac/moon.py.
    gx.A1: gemini_example_stats(7, 5, 1, 0, 4, 4, 0, 0, 9565, 1219, 0, 28800, 1, 0, 0, 1, reasoning=765),
}


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


# --- what a page must not hold ----------------------------------------------------------------

# Elements no page of ours has and an injected one would use to run, restyle, redirect or post.
FORBIDDEN_TAGS = frozenset({"style", "iframe", "frame", "object", "embed", "base", "form", "input", "textarea",
                            "applet", "math", "template", "noscript"})
URL_ATTRS = frozenset({"href", "src", "action", "formaction", "srcset", "poster", "data", "xlink:href", "background"})
BAD_SCHEME = re.compile(r"^\s*(javascript|data|vbscript|file)\s*:", re.IGNORECASE)


class _CspCheck(HTMLParser):
    """Collects every markup construct that a CSP without 'unsafe-inline' would block
    (or that escaping should have stopped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and not values.get("src"):
            self.problems.append("inline <script>")
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}>")
        if tag == "meta" and (values.get("http-equiv") or "").lower() not in ("", "content-security-policy"):
            self.problems.append(f"<meta http-equiv={values['http-equiv']}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=>")
            elif name == "style":
                self.problems.append(f"<{tag} style=>")
            elif name in URL_ATTRS and value and BAD_SCHEME.match(value):
                self.problems.append(f"<{tag} {name}={value[:30]}>")

    handle_startendtag = handle_starttag


def csp_problems(page: str) -> list[str]:
    checker = _CspCheck()
    checker.feed(page)
    checker.close()
    return checker.problems


# --- secrets in what a build wrote, and hangs -------------------------------------------------


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a FIFO opened for reading blocks forever)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"took more than {seconds}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def fingerprint(secret: str, key: bytes = KEY) -> str:
    """A secret's fingerprint in its redaction label, computed apart from redact.py."""
    return hmac.new(key, secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]


def redaction_label(kind: str, secret: str) -> str:
    return f"[redacted: {kind} {fingerprint(secret)}]"


def random_chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def forms(secret: str) -> list[bytes]:
    """The ways a secret could sit in an output file: raw, JSON-escaped, HTML-escaped
    (as the standard library and as markupsafe, which the templates and highlighter use)."""
    return sorted({secret.encode(), orjson.dumps(secret)[1:-1], html.escape(secret).encode(),
                   str(markupsafe.escape(secret)).encode()})


def leaks(out: Path, secrets: list[str]) -> list[tuple[str, str]]:
    """(file, secret start) for every secret in any form in any file under out,
    also inside compressed files (the search index, bough's state)."""
    pattern = re.compile(b"|".join(re.escape(f) for s in secrets for f in forms(s)))
    found = []
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            data += stored_values(path) if data.startswith(SQLITE) else inflated(data)
            found += [(str(path.relative_to(out)), m.group().decode()[:12]) for m in pattern.finditer(data)]
    return found


SQLITE = b"SQLite format 3\x00"


def stored_values(path: Path) -> bytes:
    """Everything in one of OUT's sqlite3 files: every highlighted block of a block
    store (render/blockstore.py), inflated; every value of the state (state.py),
    as stored and inflated."""
    conn = sqlite3.connect(path)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables in ({"blocks", "uses"}, {"state"}), f"{path}: tables {sorted(tables)}"
        if "blocks" in tables:
            return b"".join(zlib.decompress(html) for (html,) in conn.execute("SELECT html FROM blocks"))
        return b"".join(data + inflated(data) for (data,) in conn.execute("SELECT data FROM state"))
    finally:
        conn.close()


def inflated(data: bytes) -> bytes:
    """What a compressed file holds: gzip (the search index), zlib after an
    optional header line (.bough-state's highlighted blocks and record summaries)."""
    if data.startswith(b"\x1f\x8b"):
        return gzip.decompress(data)
    for start in (0, data.find(b"\n") + 1):
        try:
            return zlib.decompressobj().decompress(data[start:])
        except zlib.error:
            continue
    return b""


# --- long texts without secrets ---------------------------------------------------------------

# Lines dense with the rules' keywords and gate characters, none of them a secret.
FILLER = [
    "    for key, value in sorted(mapping.items(), key=lambda kv: kv[0]):",
    "        tokens = tokenizer.encode(text)  # count tokens before the request",
    "    if not auth.is_valid(): raise AuthError('bad secret or token')",
    "x" * 3000 + " key token secret password auth " + "y" * 3000,
    '    "usage": {"input_tokens": 1200, "output_tokens": 85, "cache_read_input_tokens": 0},',
    f"commit {hashlib.sha1(b'filler').hexdigest()} Merge branch 'fix/auth-token-refresh'",
]


# Long texts without secrets: prose with no "=", ":", "_" or "-" (every rule's gate shut, as in
# most transcript prose), and code dense with keywords (every gate open).
_WORDS = "the token session café 日本語 key auth pass secret cookie login value ✓ naïve".split()  # noqa: SIM905
_prose_rng = random.Random(20261130)
PROSE = "\n".join(" ".join(_prose_rng.choice(_WORDS) for _ in range(12)) for _ in range(400))
CODE = "\n".join(FILLER * 3)


# --- the browser: skip or fail, the example site and its server, what a page reports ----------

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SUBPATH = "/archive/"
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    for module, package in (("playwright.sync_api", "playwright"), ("axe_playwright_python", "axe-playwright-python")):
        try:
            __import__(module)
        except ImportError:
            return f"the {package} package is not installed (pip install -e '.[test]')"
    return None


def require_browser() -> None:
    """Skip with the reason when no browser is here; fail instead when BOUGH_REQUIRE_BROWSER=1."""
    reason = browser_unavailable()
    if reason is None:
        return
    if os.environ.get("BOUGH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests are required (BOUGH_REQUIRE_BROWSER=1) but {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")


@dataclass
class ExampleSite:
    root: Path
    files: dict[str, bytes]
    project: str  # projects/<id>/index.html of the session below
    session: str  # a session page with a sub-agent run and a collapsed tool result

    def pages(self) -> list[str]:
        return sorted(p for p in self.files if p.endswith(".html"))


def netlify_headers() -> list[tuple[str, dict[str, str]]]:
    with (REPO / "netlify.toml").open("rb") as handle:
        rules = tomllib.load(handle)["headers"]
    return [(rule["for"], rule["values"]) for rule in rules]


def _matches(pattern: str, path: str) -> bool:
    return path.startswith(pattern[:-1]) if pattern.endswith("*") else path == pattern


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site under SUBPATH only, with netlify.toml's headers; remembers every 4xx/5xx."""

    rules: ClassVar[list[tuple[str, dict[str, str]]]] = []
    errors: ClassVar[list[str]] = []

    def send_head(self):  # type: ignore[no-untyped-def]
        if not urlsplit(self.path).path.startswith(SUBPATH):
            self.send_error(404, "outside the site's sub-path")
            return None
        return super().send_head()

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        return super().translate_path("/" + path[len(SUBPATH) :] if path.startswith(SUBPATH) else path)

    def end_headers(self) -> None:
        site_path = "/" + urlsplit(self.path).path[len(SUBPATH) :]
        for pattern, values in self.rules:
            if _matches(pattern, site_path):
                for name, value in values.items():
                    self.send_header(name, value)
        super().end_headers()

    def send_response(self, code: int, message: str | None = None) -> None:
        if code >= 400:
            self.errors.append(f"HTTP {code} for {self.path}")
        super().send_response(code, message)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Server:
    base: str  # http://127.0.0.1:PORT/archive/
    errors: list[str]


@contextlib.contextmanager
def serving(root: Path) -> Iterator[Server]:
    """The site in ``root`` served over HTTP on 127.0.0.1 under SUBPATH, until the block ends."""
    errors: list[str] = []
    handler = type("Handler", (_SiteHandler,), {"rules": netlify_headers(), "errors": errors})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, name="bough-test-http", daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}{SUBPATH}", errors)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


# Runs before any page script; Playwright injects it outside the page's CSP.
_REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (e) {
  window.__boughViolation(e.violatedDirective + " blocked " + (e.blockedURI || "inline") +
    " in " + e.sourceFile + ":" + e.lineNumber);
});
"""


@dataclass
class Watch:
    """Everything that went wrong in a browser context, as text lines."""

    problems: list[str] = field(default_factory=list)

    def attach(self, context: Any) -> None:
        context.expose_function("__boughViolation", lambda text: self.problems.append(f"CSP violation: {text}"))
        context.add_init_script(_REPORT_VIOLATIONS)
        context.on("page", self._attach_page)

    def _attach_page(self, page: Any) -> None:
        page.on("console", lambda msg: self._console(msg))
        page.on("pageerror", lambda err: self.problems.append(f"page error: {err}"))
        page.on("requestfailed", self._request_failed)
        page.on("response", self._response)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.problems.append(f"console error: {msg.text} at {msg.location}")

    def _request_failed(self, request: Any) -> None:
        # ERR_ABORTED: a request cut short because the test navigated on; a missing
        # file fails with ERR_FILE_NOT_FOUND, a missing page over HTTP with a status.
        if "ERR_ABORTED" not in (request.failure or ""):
            self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")


@dataclass
class Tab:
    page: Any
    watch: Watch


def start_url(site: ExampleSite, server: Server, origin: str, path: str = "index.html") -> str:
    if origin == "file":
        return (site.root / path).as_uri()
    return server.base + path


# --- small sessions of each agent, laid out as the agent does (whole builds of odd values) -------------

AGENTS = ("claude", "codex", "gemini")


def agent_id(tag: int) -> str:
    """A session id of its own for each tag (a uuid, as all three agents write them)."""
    return f"{tag:08x}-0000-4000-8000-{tag:012x}"


def agent_time(second: int) -> str:
    return f"2026-03-01T10:{second // 60 % 60:02d}:{second % 60:02d}.000Z"


def agent_records(agent: str, tag: int, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    """One session's records in ``agent``'s format: for each text a prompt, the
    reply to it with a Bash call, and the call's output (each reply counts 5 in, 10 out)."""
    made = {"claude": _claude_turns, "codex": _codex_turns, "gemini": _gemini_turns}[agent]
    return made(agent_id(tag), cwd, prompts)


def _claude_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    parent = None
    for n, ask in enumerate(prompts):
        ids = [f"{sid[:-3]}{n:01x}{k:02x}" for k in range(3)]
        call = f"toolu_{sid[:8]}{n:04d}"
        fields = {"sessionId": sid, "cwd": cwd}
        turn = [prompt(ids[0], ask, parentUuid=parent, timestamp=agent_time(3 * n), **fields),
                reply(ids[1], f"msg_{sid[:8]}{n:04d}", [text(f"On it: {ask}"), tool_use(call, "Bash", command="ls")],
                      parentUuid=ids[0], timestamp=agent_time(3 * n + 1), **fields),
                tool_result(ids[2], call, f"output of turn {n}", parentUuid=ids[1], timestamp=agent_time(3 * n + 2),
                            **fields)]
        records += turn
        parent = ids[2]
    return records


def _codex_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    def line(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": agent_time(second), "type": kind, "payload": payload}

    records = [line(0, "session_meta", {"id": sid, "timestamp": agent_time(0), "cwd": cwd, "originator": "codex_cli_rs",
                                        "cli_version": "0.128.0", "source": "cli"})]
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0,
             "total_tokens": 0}
    for n, ask in enumerate(prompts):
        second, call = 4 * n + 1, f"call_{sid[:8]}{n:04d}"
        last = {"input_tokens": 5, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0,
                "total_tokens": 15}
        total = {key: total[key] + last[key] for key in total}
        records += [
            line(second, "turn_context", {"cwd": cwd, "model": "gpt-5.2-codex"}),
            line(second, "event_msg", {"type": "user_message", "message": ask}),
            line(second + 1, "response_item", {"type": "message", "role": "assistant",
                                               "content": [{"type": "output_text", "text": f"On it: {ask}"}]}),
            line(second + 1, "response_item", {"type": "function_call", "name": "shell", "call_id": call,
                                               "arguments": '{"command": ["ls"]}'}),
            line(second + 2, "response_item", {"type": "function_call_output", "call_id": call,
                                               "output": f"output of turn {n}"}),
            line(second + 3, "event_msg", {"type": "token_count", "info": {"total_token_usage": dict(total),
                                                                          "last_token_usage": last}}),
        ]
    return records


def _gemini_turns(sid: str, cwd: str, prompts: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [{"sessionId": sid, "projectHash": hashlib.sha256(cwd.encode()).hexdigest(),
                                      "startTime": agent_time(0), "lastUpdated": agent_time(0), "kind": "main"}]
    for n, ask in enumerate(prompts):
        call = f"call-{sid[:8]}-{n}"
        records += [
            {"id": f"{sid[:-4]}{n:02x}01", "timestamp": agent_time(3 * n), "type": "user", "content": [{"text": ask}]},
            {"id": f"{sid[:-4]}{n:02x}02", "timestamp": agent_time(3 * n + 1), "type": "gemini",
             "content": f"On it: {ask}", "model": "gemini-3-pro-preview",
             "tokens": {"input": 5, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 15},
             "toolCalls": [{"id": call, "name": "run_shell_command", "args": {"command": "ls"}, "status": "success",
                            "timestamp": agent_time(3 * n + 2),
                            "result": [{"functionResponse": {"id": call, "name": "run_shell_command",
                                                             "response": {"output": f"output of turn {n}"}}}]}]},
        ]
    return records


def write_agent_session(root: Path, agent: str, tag: int, cwd: str, lines: list[Any]) -> Path:
    """``lines`` (records, or raw ``bytes`` lines) where ``agent`` keeps a session,
    under ``root/<agent>``; returns the source to build (the agent's folder)."""
    sid = agent_id(tag)
    if agent == "claude":
        source = root / "claude" / "projects"
        write_jsonl(source / ("-" + cwd.strip("/").replace("/", "-")) / f"{sid}.jsonl", lines)
    elif agent == "codex":
        source = root / "codex" / "sessions"
        write_jsonl(source / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{sid}.jsonl", lines)
    else:
        source = root / "gemini" / ".gemini"
        name = f"p{tag}"
        projects = source / "projects.json"
        known = orjson.loads(projects.read_bytes())["projects"] if projects.exists() else {}
        source.mkdir(parents=True, exist_ok=True)
        projects.write_bytes(orjson.dumps({"projects": {**known, cwd: name}}))
        write_jsonl(source / "tmp" / name / "chats" / f"session-2026-03-01T10-00-{sid[:8]}.jsonl", lines)
    return source
