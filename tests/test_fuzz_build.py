"""Whole builds of hostile histories in every JSON-lines format (Hypothesis).

Each example writes one Claude Code, Codex, Gemini CLI, Copilot CLI and Qwen Code
session in their agents' layouts and damages them (OpenCode's SQLite database has
its own, tests/test_fuzz_opencode.py): any field of any record may become any
JSON value (extreme numbers and dates, odd Unicode, wrong types, huge strings,
deep nesting), lose a field, or give way to a line that is no object at all;
lines of their own are added. Only the first prompt of each session is kept
intact. Then ``bough build`` runs, `-j 1`, with search and the archive on, and:

- it exits 0, and nothing escaped it (no traceback, no contained bug: a page
  that says "bough could not show this session" is a bug the fuzzer found);
- each session's intact prompt is on a session page, escaped;
- every page passes the CSP and markup checks, every sidecar its schema.

The examples run in every test run (`BOUGH_FUZZ_EXAMPLES`, default 12 builds);
a long run sets more (docs/safety.md says how, and what the last one found).
What a run found is kept as an ordinary test below (``@example``).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from click.testing import CliRunner
from hypothesis import HealthCheck, example, find, given, settings
from hypothesis import strategies as st

from bough_site.cli import main

from .helpers import AGENTS, REPO, agent_records, csp_problems, write_agent_session

EXAMPLES = int(os.environ.get("BOUGH_FUZZ_EXAMPLES", "12"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("BOUGH_FUZZ_EXAMPLES"),
                suppress_health_check=list(HealthCheck), database=None)
SCHEMAS = {name: json.loads((REPO / "docs" / "schema" / f"{name}.schema.json").read_text())
           for name in ("site", "project", "session")}
_RUN = itertools.count()

# --- hostile values ---------------------------------------------------------------------------------

ODD_TEXT = ["", " ", "\u202e\u2066reversed", "a\u0000b", "\u2028\u2029", "e\u0301\u0301\u0301", "\U0001f600" * 3,
            "\ufeff", "<x-fuzz>", "</script><script>alert(1)</script>", "javascript:alert(1)", "../../etc/passwd",
            "C:\\con\\aux", "\\ud800", "%00%2e%2e/", "${HOME}", "{{ 7*7 }}", "\x1b[31mred"]
ODD_TIMES = ["9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z", "2026-13-45T99:99:99Z", "2026-03-01",
             "1969-12-31T23:59:59Z", "3000-01-01T00:00:00Z", "2026-03-01T10:00:00+14:00", "+002026-03-01T10:00:00Z",
             "٢٠٢٦-03-01T10:00:00.000Z", "now", "1700000000"]
ODD_NUMBERS = [0, -1, 1 << 63, (1 << 64) - 1, 1 << 64, 1 << 200, -(1 << 70), 1e300, 1e-300, -0.0, 0.5,
               float("inf"), float("-inf"), float("nan"), 10**12, 10**12 + 1]

# Names the formats give meaning to: a field of one kind holding another's (type confusion).
NAMES = ["user", "assistant", "system", "summary", "progress", "attachment", "file-history-snapshot", "session_meta",
         "response_item", "event_msg", "turn_context", "compacted", "token_count", "user_message", "agent_message",
         "function_call", "function_call_output", "custom_tool_call", "message", "reasoning", "gemini", "info",
         "error", "warning", "$set", "$rewindTo", "tool_use", "tool_result", "text", "thinking", "image", "Task",
         "Agent", "Bash", "Edit", "MultiEdit", "Write", "Read", "TodoWrite", "WebFetch", "apply_patch", "shell",
         "exec_command", "update_plan", "local_command", "compact_boundary", "<command-name>/init</command-name>",
         "[Request interrupted by user]", "<synthetic>", "main", "subagent"]

scalars = st.one_of(
    st.none(), st.booleans(), st.sampled_from(ODD_NUMBERS), st.integers(), st.floats(), st.sampled_from(NAMES),
    st.sampled_from(ODD_TEXT), st.sampled_from(ODD_TIMES), st.text(max_size=40),
    st.builds(lambda piece, times: piece * times, st.sampled_from(["a", "<b>", "é\n", "{"]),
              st.integers(1_000, 200_000)),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.one_of(st.sampled_from(["type", "text", "content", "id", "name", "input", "usage", "timestamp"]), st.text(max_size=8)),
    inner, max_size=4), max_leaves=12)
# JSON nested deeper than any parser recurses: a placeholder, written out by _json_line.
DEEP = "\u0000deep:"
deep = st.integers(100, 5_000).map(lambda depth: f"{DEEP}{depth}")


def _nested(depth: int) -> bytes:
    opening = b"".join(b"[" if level % 2 else b'{"content":' for level in range(depth))
    closing = b"".join(b"]" if level % 2 else b"}" for level in reversed(range(depth)))
    return opening + b'"bottom"' + closing


# --- what is done to a session --------------------------------------------------------------------------


@st.composite
def damage(draw: st.DrawFn, records: list[dict[str, Any]]) -> list[Any]:
    """The session's lines, damaged; its first prompt is left as it is."""
    lines: list[Any] = []
    for record in records:
        if _is_kept(record):
            lines.append(record)
            continue
        op = draw(st.sampled_from(["keep", "keep", "set", "set", "set", "drop", "line", "copy"]))
        if op == "line":
            lines.append(draw(st.one_of(values, deep)))  # a line that may be no object at all
        elif op == "copy":
            lines += [record, record]
        elif op == "keep":
            lines.append(record)
        else:
            lines.append(_changed(draw, record, op))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from([b"", b"{", b"\xff\xfe", b"[1,2", b"null", b'{"type": "user"}'])))
    return lines


def _is_kept(record: dict[str, Any]) -> bool:
    """The record of a session's first prompt (each agent writes it its own way)."""
    return "FUZZ-ASK-" in json.dumps(record) and record.get("type") in ("user", "event_msg", "user.message")


def _changed(draw: st.DrawFn, record: dict[str, Any], op: str) -> dict[str, Any]:
    """A copy of ``record`` with a field or two, at any depth, set to a hostile value or dropped."""
    copy = json.loads(json.dumps(record))  # the records given are shallow: only the copy grows deep
    for _ in range(draw(st.integers(1, 3))):
        _change_one(draw, copy, op)
    return copy


def _change_one(draw: st.DrawFn, node: Any, op: str) -> None:
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and draw(st.booleans()):
            node = child
            continue
        if op == "drop" and isinstance(node, dict):
            del node[key]
        else:
            choice = draw(st.integers(0, 19))
            node[key] = draw(deep if choice == 0 else st.sampled_from(IDS) if choice < 4 else values)
        return


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


def _json_line(line: Any) -> bytes:
    """A line as the agents' JSON writers might write it, and worse: NaN, Infinity and
    integers of any size as the standard library writes them, lone surrogates escaped,
    and nesting deeper than any parser recurses where a placeholder says."""
    if isinstance(line, bytes):
        return line
    text = json.dumps(line, allow_nan=True).encode()
    return re.sub(rb'"\\u0000deep:(\d+)"', lambda match: _nested(int(match.group(1))), text)


# --- the property -------------------------------------------------------------------------------------


def _sessions() -> dict[str, list[dict[str, Any]]]:
    return {agent: agent_records(agent, tag, f"/home/fuzz/{agent}", [f"FUZZ-ASK-{tag} <x-fuzz> please", "then more"])
            for tag, agent in enumerate(AGENTS, 1)}


BASE = _sessions()
# Every id the sessions hold: a record that takes another's id must merge or stay apart, never
# break. Not the kept prompts' own: a later copy of a record rightly replaces its text (Claude C4).
IDS = sorted({v for records in BASE.values() for r in records for v in _strings(r) if "0000-4000" in v or "_" in v}
             - {r.get("uuid") or r.get("id") for records in BASE.values() for r in records if _is_kept(r)})
hostile = st.fixed_dictionaries({agent: damage(records) for agent, records in BASE.items()})


def build_hostile(root: Path, lines_by_agent: dict[str, list[Any]]) -> tuple[Any, Path]:
    sources = {write_agent_session(root, agent, tag, f"/home/fuzz/{agent}", [_json_line(x) for x in lines_by_agent[agent]])
               for tag, agent in enumerate(AGENTS, 1)}
    out = root / "site"
    done = CliRunner().invoke(main, ["build", *map(str, sorted(sources)), "-o", str(out), "-j", "1", "--archive",
                                     str(root / "archive")])
    return done, out


def check_site(done: Any, out: Path) -> None:
    assert done.exit_code == 0 and done.exception is None, done.output[-3000:]
    assert "Traceback" not in done.output and "bough could not" not in done.output, done.output[-3000:]
    pages = {path: path.read_text("utf-8") for path in out.rglob("*.html")}
    sessions = "".join(text for path, text in pages.items() if path.parent.name == "sessions")
    for tag in range(1, len(AGENTS) + 1):
        assert f"FUZZ-ASK-{tag} &lt;x-fuzz&gt; please" in sessions, tag
    assert [path for path, text in pages.items() if "<x-fuzz" in text] == []
    assert [(path.name, problem) for path, text in pages.items() for problem in csp_problems(text)] == []
    jsonschema.validate(orjson.loads((out / "index.json").read_bytes()), SCHEMAS["site"])
    for path in out.glob("projects/*/project.json"):
        jsonschema.validate(orjson.loads(path.read_bytes()), SCHEMAS["project"])
    for path in out.glob("projects/*/sessions/*.json"):
        jsonschema.validate(orjson.loads(path.read_bytes()), SCHEMAS["session"])


@FUZZ
@given(hostile)
@example({agent: [*records[:2], 1e400, {"timestamp": "9999-12-31T23:59:59Z"}, *records[2:]]
          for agent, records in BASE.items()})
# Found by a run: a line 1,050 levels deep whose text holds a surrogate pair (a character
# beyond the BMP, escaped): under Hypothesis's recursion limit the standard library parsed
# it, and mending its surrogates recursively ran out of stack (readers/lines.py).
@example({**BASE, "codex": [*BASE["codex"], {"type": f"{DEEP}1050", "payload": {"type": {"\U0004ef03": "x"}}}]})
def test_a_hostile_history_in_every_format_builds_whole(lines_by_agent: dict[str, list[Any]]) -> None:
    with tempfile.TemporaryDirectory(prefix=f"bough-fuzz-{next(_RUN)}-") as tmp:
        done, out = build_hostile(Path(tmp), lines_by_agent)
        check_site(done, out)


def test_the_damage_does_damage() -> None:
    # A fuzzer whose damage changed nothing would pass for nothing: each kind of change is drawn.
    originals = [orjson.dumps(r) for r in BASE["claude"]]
    kinds = {
        "changed": lambda lines: any(isinstance(x, dict) and orjson.dumps(x) not in originals for x in lines),
        "not an object": lambda lines: any(not isinstance(x, (dict, bytes)) for x in lines),
        "raw": lambda lines: any(isinstance(x, bytes) for x in lines),
        "copied": lambda lines: any(isinstance(x, dict) and lines.count(x) > 1 for x in lines),
        "deep": lambda lines: any(b'{"content":[{"content":[' in _json_line(x) for x in lines),
    }
    for kind, holds in kinds.items():
        found = find(damage(BASE["claude"]), holds, settings=settings(max_examples=500, database=None))
        assert BASE["claude"][0] in found, kind  # the first prompt is always left as it is
    assert [sum(map(_is_kept, records)) for records in BASE.values()] == [1] * len(AGENTS)
