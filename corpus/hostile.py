"""A hostile Claude Code history: every bad input bough must survive, on purpose.

``write_hostile_history(root)`` writes ``root/projects/`` and returns a
:class:`HostileExpected` that says what a build must make of it:

- ``good``: marker texts (``GOOD-<case>-<nnn>``) of records that must survive;
  every bad line sits between good records, so losing a neighbour shows.
- ``warnings``: the ``(file, line)`` of every line that must warn, and
  ``file_warnings`` the files that must warn as a whole (line 0).
- ``secrets``: planted FAKE secrets (built here from pieces at run time, so no
  key-shaped string sits in this source) that must not appear in any output byte.

Each case lives in its own project directory (``-hostile-<case>``, cwd
``/hostile/<case>``; the name cases use hostile names for both), so a test can
read one case alone: ``LINE_CASES`` are bad lines and odd records, ``FS_CASES``
odd entries in a project directory (FIFO, /dev/zero, dangling and looping links,
a directory named ``x.jsonl``, an unreadable file), ``NAME_CASES`` hostile
directory and session file names; ``uuid-collision`` and ``secrets`` complete
``ALL_CASES``. ``markup`` plants HTML, script and link payloads (MARKUP_PAYLOADS)
everywhere text lands. Nothing is random across runs: the same root always gets
the same bytes.
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

# The size of the one huge line (the issue asks for 50 MB).
HUGE_LINE_BYTES = 50 * 1024 * 1024
# Deeper than any JSON parser bough uses will go (orjson stops at 1024, json at ~1000).
DEEP_NESTING = 100_000
# Parsable by orjson, yet deeper than orjson.dumps (255) writes back.
DEEP_TOOL_INPUT = 400
_NAMESPACE = uuid.UUID("6d1a4c9e-0b7f-4f43-9a35-2c8e5b1d7f60")
_MODEL = "claude-opus-4-6"


@dataclass
class HostileCase:
    """One case: the project directory it lives in and what a build must make of it."""

    name: str
    folder: Path  # the project directory: read it alone to test this case
    good: list[str] = field(default_factory=list)  # marker texts that must survive
    warn_lines: list[tuple[str, int, str]] = field(default_factory=list)  # (file label, line, reason start)
    file_warnings: list[tuple[str, str]] = field(default_factory=list)  # (file label, reason start)
    cwd: str = ""


@dataclass
class HostileExpected:
    root: Path
    projects: Path
    cases: dict[str, HostileCase] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)  # secret -> the kind it is redacted as
    # The case whose file is chmod 0: root reads it anyway, anyone else gets a warning.
    unreadable: str = "unreadable"

    @property
    def good(self) -> list[str]:
        readable = os.geteuid() == 0
        return [m for c in self.cases.values() if c.name != self.unreadable or readable for m in c.good]

    @property
    def warnings(self) -> list[tuple[str, int]]:
        return [(file, line) for c in self.cases.values() for file, line, _ in c.warn_lines]

    @property
    def file_warnings(self) -> list[tuple[str, str]]:
        readable = os.geteuid() == 0
        return [w for c in self.cases.values() if c.name != self.unreadable or not readable
                for w in c.file_warnings]


# --- records ---------------------------------------------------------------------


class _Writer:
    """Builds the records of one session file and books their markers."""

    def __init__(self, case: HostileCase, session: str, cwd: str, *, stem: str | None = None):
        self.case = case
        self.session = session
        self.stem = stem or session  # the file name, when it is not the session id
        self.cwd = cwd
        self.lines: list[bytes] = []
        self._n = len(case.good)  # markers stay unique across a case's sessions
        self._clock = 0

    def marker(self) -> str:
        self._n += 1
        text = f"GOOD-{self.case.name}-{self._n:03d}"
        self.case.good.append(text)
        return text

    def uid(self, tag: str) -> str:
        return str(uuid.uuid5(_NAMESPACE, f"{self.case.name}/{self.session}/{tag}"))

    def base(self, kind: str, tag: str, **fields: Any) -> dict[str, Any]:
        self._clock += 1
        record = {
            "type": kind, "uuid": self.uid(tag), "parentUuid": None, "sessionId": self.session,
            "cwd": self.cwd, "version": "2.1.80", "gitBranch": "main", "isSidechain": False,
            "userType": "external", "timestamp": f"2026-03-01T10:{self._clock // 60:02d}:{self._clock % 60:02d}.000Z",
        }
        record.update(fields)
        return record

    def prompt(self, content: Any, tag: str | None = None, **fields: Any) -> dict[str, Any]:
        tag = tag or f"u{len(self.lines)}"
        return self.base("user", tag, message={"role": "user", "content": content}, **fields)

    def reply(self, blocks: Any, tag: str | None = None, **fields: Any) -> dict[str, Any]:
        tag = tag or f"a{len(self.lines)}"
        message = {"id": f"msg_{self.uid(tag)[:18]}", "type": "message", "role": "assistant", "model": _MODEL,
                   "content": blocks, "usage": {"input_tokens": 3, "output_tokens": 5}}
        return self.base("assistant", tag, message=message, **fields)

    def result(self, call_id: str, content: Any, detail: Any = None, **fields: Any) -> dict[str, Any]:
        record = self.prompt([{"type": "tool_result", "tool_use_id": call_id, "content": content}], **fields)
        if detail is not None:
            record["toolUseResult"] = detail
        return record

    def add(self, record: dict[str, Any] | bytes) -> int:
        """Append one line; returns its line number."""
        self.lines.append(record if isinstance(record, bytes) else orjson.dumps(record))
        return len(self.lines)

    def good(self, count: int = 2) -> None:
        """A prompt and a reply (and so on), each carrying a fresh marker."""
        for i in range(count):
            if i % 2 == 0:
                self.add(self.prompt(self.marker()))
            else:
                self.add(self.reply([{"type": "text", "text": self.marker()}]))

    def bad(self, line: bytes, reason: str) -> int:
        """A line that must warn, with how the warning's reason starts."""
        number = self.add(line)
        self.case.warn_lines.append((self.label, number, reason))
        return number

    @property
    def label(self) -> str:
        return f"{self.case.folder.name}/{self.stem}.jsonl"

    def write(self, *, newline: bytes = b"\n", final_newline: bool = True, bom: bool = False) -> Path:
        path = self.case.folder / f"{self.stem}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = newline.join(self.lines) + (newline if final_newline else b"")
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
        return path


def _dumps(record: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(record)
    except TypeError:  # deeper than orjson writes: the standard library goes further
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()


# --- the line cases ----------------------------------------------------------------


def _truncated_middle(w: _Writer) -> None:
    w.good()
    full = _dumps(w.prompt("cut off before its end"))
    w.bad(full[: len(full) // 2], "not valid JSON")
    w.good()
    w.write()


def _truncated_end(w: _Writer) -> None:
    w.good(4)
    full = _dumps(w.prompt("killed mid-write"))
    w.bad(full[:40], "truncated last line")
    w.write(final_newline=False)


def _appending(w: _Writer) -> None:
    # What a reader sees of a file the agent is still writing: the last line half there.
    w.good(4)
    full = _dumps(w.reply([{"type": "text", "text": "still streaming"}]))
    w.bad(full[: len(full) - 7], "truncated last line")
    w.write(final_newline=False)


def _not_objects(w: _Writer) -> None:
    w.good()
    for line, kind in ((b"[1, 2, 3]", "array"), (b'"a string"', "string"), (b"42", "number"), (b"-1.5e3", "number"),
                       (b"null", "null"), (b"true", "boolean"), (b"false", "boolean"), (b"[]", "array")):
        w.bad(line, f"not a JSON object (a JSON {kind})")
        w.good()
    w.write()


def _invalid_utf8(w: _Writer) -> None:
    w.good()
    # Inside a string: kept, the bad byte replaced (and warned about).
    kept = _dumps(w.prompt(w.marker() + " caf@ na@ve")).replace(b"@", b"\xff", 1).replace(b"@", b"\xc3\x28", 1)
    w.bad(kept, "invalid UTF-8 replaced")
    w.good()
    # A UTF-8-encoded surrogate (CESU style) inside a string: also invalid UTF-8.
    w.bad(_dumps(w.prompt(w.marker() + " cesu=@")).replace(b"@", b"\xed\xa0\x80"), "invalid UTF-8 replaced")
    w.good()
    # Outside any string: the line is not JSON any more.
    w.bad(_dumps(w.prompt("lost")).replace(b",", b",\xfe", 1), "not valid JSON")
    w.good()
    w.write()


def _lone_surrogates(w: _Writer) -> None:
    w.good()
    w.bad(_dumps(w.prompt(w.marker() + " @")).replace(b"@", b"\\ud800"), "lone surrogate replaced")
    w.good()
    reply = _dumps(w.reply([{"type": "text", "text": w.marker() + " @ tail"}]))
    w.bad(reply.replace(b"@", b"\\udfff"), "lone surrogate replaced")
    w.good()
    # As a key of a tool input, next to a valid pair (an emoji) that must stay whole.
    call = {"type": "tool_use", "id": "toolu_surrogate01", "name": "Bash", "input": {"@": "\U0001f600 @"}}
    reply = _dumps(w.reply([{"type": "text", "text": w.marker()}, call]))
    w.bad(reply.replace(b"@", b"\\udc00"), "lone surrogate replaced")
    w.good()
    w.write()


def _nul_bytes(w: _Writer) -> None:
    w.good()
    w.bad(_dumps(w.prompt(w.marker() + " raw@nul")).replace(b"@", b"\x00"), "control characters")  # raw NUL in a string
    w.good()
    w.add(_dumps(w.prompt(w.marker() + " escaped\u0000nul")))  # escaped NUL: plain JSON, no warning
    w.good()
    w.bad(b"\x00" * 4096, "not valid JSON")  # the NUL padding a crash can leave behind
    w.good()
    w.write()


def _bom(w: _Writer) -> None:
    w.good(4)
    w.write(bom=True)


def _crlf(w: _Writer) -> None:
    w.good(3)
    w.bad(b'{"type": "user", "uuid": ', "not valid JSON")
    w.good(3)
    w.write(newline=b"\r\n")


def _blank_lines(w: _Writer) -> None:
    for filler in (b"", b"   ", b"\t", b" \t \r", b"\x0b\x0c"):
        w.good()
        w.add(filler)  # not a line at all: no warning
    w.good()
    w.write()


def _huge_line(w: _Writer) -> None:
    w.good()
    call_id = "toolu_huge000001"
    w.add(w.reply([{"type": "text", "text": w.marker()},
                   {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "cat big.log"}}]))
    head = w.marker()
    row = "2026-03-01 10:00:00 INFO request served in 12 ms <b>&amp;</b>\n"
    filler = row * (HUGE_LINE_BYTES // len(row) + 1)
    w.add(w.result(call_id, head + "\n" + filler))
    w.good()
    w.write()


def _deep_nesting(w: _Writer) -> None:
    w.good()
    w.bad(b"[" * DEEP_NESTING + b"]" * DEEP_NESTING, "JSON nested too deeply")
    w.good()
    w.bad(b'{"a":' * DEEP_NESTING + b"1" + b"}" * DEEP_NESTING, "JSON nested too deeply")
    w.good()
    # Deep, but not too deep to parse: kept, the part too deep to write cut off (and warned).
    nested: Any = "bottom"
    for _ in range(DEEP_TOOL_INPUT):
        nested = {"k": [nested]}
    call = {"type": "tool_use", "id": "toolu_deep0000001", "name": "mcp__x__deep", "input": nested}
    w.bad(_dumps(w.reply([{"type": "text", "text": w.marker()}, call])), "JSON nested deeper than")
    w.good()
    w.write()


def _duplicate_keys(w: _Writer) -> None:
    w.good()
    record = _dumps(w.prompt("@"))
    first = orjson.dumps({"role": "user", "content": "shadowed by the later key"})
    # The later "message" wins, as in every JSON parser bough uses.
    doubled = record.replace(b'"message":', b'"message":' + first + b',"message":', 1)
    w.add(doubled.replace(b'"@"', orjson.dumps(w.marker())))
    w.add(b'{"type":"assistant","type":"user","uuid":"' + w.uid("dup2").encode() + b'","message":'
          + orjson.dumps({"role": "user", "content": w.marker()}) + b"}")
    w.good()
    w.write()


def _content_shapes(w: _Writer) -> None:
    w.good()
    for content in (w.marker(), [{"type": "text", "text": w.marker()}], [w.marker(), 7, None, ["x"]],
                    None, 42, 3.5, True, {"type": "text", "text": "a dict is not content"},
                    [{"type": "text", "text": 12}, {"type": "text"}, {"type": "image", "source": "x"}]):
        w.add(w.prompt(content))
        w.good()
    for content in (w.marker(), None, 7, [{"type": "text", "text": None}, {"type": "tool_use", "id": 5}]):
        w.add(w.reply(content))
        w.good()
    for message in ("a string", ["a", "list"], None, 12):
        w.add(w.base("user", f"m{len(w.lines)}", message=message))
        w.add(w.base("assistant", f"n{len(w.lines)}", message=message))
        w.good()
    call = {"type": "tool_use", "id": "toolu_shapes00001", "name": None, "input": "a string input"}
    w.add(w.reply([{"type": "text", "text": w.marker()}, call]))
    w.add(w.result("toolu_shapes00001", 12345, detail=[1, "x", None]))
    w.add(w.result(["not", "an", "id"], {"a": 1}))
    w.good()
    w.write()


def _record_types(w: _Writer) -> None:
    w.good()
    for kind in ("hologram", "", 42, ["user"], {"user": 1}, True):
        w.add(dict(w.prompt("unknown type: not shown"), type=kind))
        w.good()
    w.add(dict(w.prompt(w.marker()), type=None))  # null is as good as missing: the role decides
    untyped = w.prompt(w.marker())  # no "type": the message role says it is a user record
    del untyped["type"]
    w.add(untyped)
    w.add({"uuid": w.uid("bare"), "note": "no type and no message"})
    w.add({})
    w.good()
    w.write()


def _timestamps(w: _Writer) -> None:
    w.good()
    no_time = w.prompt(w.marker())
    del no_time["timestamp"]
    w.add(no_time)
    w.add(w.prompt(w.marker(), timestamp=None))
    w.add(w.prompt(w.marker(), timestamp="2026-03-01T11:00:00"))  # no zone: taken as UTC, no warning
    w.good()
    for bad in ("yesterday", "2026-13-45T99:00:00Z", "", 1772359200, ["2026-03-01"], {"t": 1},
                "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        record = w.prompt(w.marker(), timestamp=bad)
        if bad == "" or bad is None:
            w.add(record)  # empty: as good as absent
        else:
            w.bad(_dumps(record), "unparsable timestamp")
        w.good()
    w.write()


def _parent_cycles(w: _Writer) -> None:
    w.good()
    a, b, c = w.uid("cyc-a"), w.uid("cyc-b"), w.uid("cyc-c")
    w.add(w.prompt(w.marker(), tag="cyc-a", parentUuid=c))
    w.add(w.reply([{"type": "text", "text": w.marker()}], tag="cyc-b", parentUuid=a))
    w.add(w.prompt(w.marker(), tag="cyc-c", parentUuid=b))
    w.add(w.prompt(w.marker(), tag="self", parentUuid=w.uid("self")))
    w.add(w.prompt(w.marker(), tag="odd-parent", parentUuid=["x"]))
    # Sidechain records in a cycle too (1.0.x kept sub-agents inline).
    w.add(w.prompt("sidechain task", tag="sc-a", parentUuid=w.uid("sc-b"), isSidechain=True))
    w.add(w.reply([{"type": "text", "text": "sidechain reply"}], tag="sc-b", parentUuid=w.uid("sc-a"),
                  isSidechain=True))
    w.good()
    w.write()


def _uuid_collision(case: HostileCase, cwd: str) -> None:
    # Two sessions whose records share uuids (and message ids) but say different things.
    for session in ("c0111111-0000-4000-8000-000000000001", "c0222222-0000-4000-8000-000000000002"):
        w = _Writer(case, session, cwd)
        w.uid = lambda tag: str(uuid.uuid5(_NAMESPACE, f"collide/{tag}"))  # type: ignore[method-assign]
        w.good(4)
        w.write()


def _empty_file(w: _Writer) -> None:
    path = w.write()
    path.write_bytes(b"")
    w.case.file_warnings.append((w.label, "empty file"))
    neighbour = _Writer(w.case, "e0000000-0000-4000-8000-00000000beef", w.cwd)
    neighbour.good()
    neighbour.write()


# Markup and links that must come out as text: each would run, style, redirect or
# load something if it reached a page unescaped.
MARKUP_PAYLOADS = (
    "<script>alert('hostile-1')</script>",
    "<img src=x onerror=alert('hostile-2')>",
    "<style>body{display:none}</style>",
    "<meta http-equiv=refresh content=\"0;url=https://evil.example/\">",
    "<iframe src=\"javascript:alert('hostile-3')\"></iframe>",
    "[click](javascript:alert('hostile-4'))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<a href=\"javascript:alert('hostile-5')\">x</a>",
    "![remote](https://evil.example/pixel.png?k=leak)",
    "<b onmouseover=alert('hostile-6')>hover</b>",
    "<svg onload=alert('hostile-7')>",
    "<base href=\"https://evil.example/\">",
    "<form action=\"https://evil.example/\"><input name=q></form>",
)


def _png() -> str:
    from .examples import swatch_png

    return base64.b64encode(swatch_png((200, 40, 40))).decode()


def _markup(w: _Writer) -> None:
    w.good()
    for payload in MARKUP_PAYLOADS:
        w.add(w.prompt(f"{w.marker()} {payload}"))
        fenced = f"{w.marker()}\n\n{payload}\n\n```\"><script>alert(8)</script>\n{payload}\n```"
        w.add(w.reply([{"type": "text", "text": fenced},
                       {"type": "thinking", "thinking": payload}]))
    svg = base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(9)'/>").decode()
    images = [
        {"type": "image",
         "source": {"type": "base64", "media_type": "image/png\" onerror=\"alert(13)", "data": _png()}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml", "data": svg}},
        {"type": "image", "source": {"type": "base64", "media_type": "text/html", "data": svg}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64 <script>"}},
    ]
    w.add(w.prompt([{"type": "text", "text": w.marker()}] + images))
    call = {"type": "tool_use", "id": "toolu_markup00001", "name": MARKUP_PAYLOADS[1],
            "input": {MARKUP_PAYLOADS[0]: MARKUP_PAYLOADS[6], "command": MARKUP_PAYLOADS[3],
                      "file_path": "/tmp/<img src=x onerror=alert(10)>.py"}}
    w.add(w.reply([{"type": "text", "text": w.marker()}, call]))
    w.add(w.result("toolu_markup00001", [{"type": "text", "text": f"{w.marker()} {MARKUP_PAYLOADS[2]}"}] + images,
                   detail={"stdout": MARKUP_PAYLOADS[0], "file": {"filePath": MARKUP_PAYLOADS[1]}}))
    for tool, args in (("Bash", {"command": MARKUP_PAYLOADS[0], "description": MARKUP_PAYLOADS[1]}),
                       ("Edit", {"file_path": "/x/<b onclick=alert(11)>.html", "old_string": MARKUP_PAYLOADS[2],
                                 "new_string": MARKUP_PAYLOADS[0]}),
                       ("TodoWrite", {"todos": [{"content": MARKUP_PAYLOADS[1], "status": "<i>", "activeForm": "x"}]}),
                       ("WebFetch", {"url": "javascript:alert(12)", "prompt": MARKUP_PAYLOADS[5]}),
                       ("Task", {"description": MARKUP_PAYLOADS[1], "prompt": MARKUP_PAYLOADS[0],
                                 "subagent_type": "<x>"})):
        call_id = f"toolu_markup_{tool}"
        call = {"type": "tool_use", "id": call_id, "name": tool, "input": args}
        w.add(w.reply([{"type": "text", "text": w.marker()}, call]))
        w.add(w.result(call_id, MARKUP_PAYLOADS[0] + "\n" + MARKUP_PAYLOADS[3]))
    w.add({"type": "custom-title", "customTitle": MARKUP_PAYLOADS[1]})
    w.add(w.base("system", "sys1", subtype="informational", content=f"{w.marker()} {MARKUP_PAYLOADS[0]}"))
    command = f"<command-name>{MARKUP_PAYLOADS[1]}</command-name><command-args>{MARKUP_PAYLOADS[0]}</command-args>"
    w.add(w.prompt(command))
    w.good()
    w.write()


# --- secrets -------------------------------------------------------------------------


class _Secrets:
    """Fake secrets built from pieces at run time, booked with the kind they must get."""

    def __init__(self, expected: HostileExpected):
        self.expected = expected
        self.rng = random.Random(20261101)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def book(self, kind: str, secret: str) -> str:
        self.expected.secrets[secret] = kind
        return secret

    def alnum(self, n: int) -> str:
        return self.chars(string.ascii_letters + string.digits, n)

    def hex(self, n: int) -> str:
        return self.chars("0123456789abcdef", n)

    def aws_access(self) -> str:
        return self.book("aws-access-key", "AK" + "IA" + self.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16))

    def aws_secret(self) -> str:
        return self.book("aws-secret-key", self.chars(string.ascii_letters + string.digits + "/+", 40))

    def github(self) -> str:
        return self.book("github-token", "gh" + "p_" + self.alnum(36))

    def gitlab(self) -> str:
        return self.book("gitlab-token", "gl" + "pat-" + self.alnum(20))

    def slack(self) -> str:
        return self.book("slack-token", "xo" + "xb-" + self.chars(string.digits, 12) + "-" + self.alnum(24))

    def stripe(self) -> str:
        return self.book("stripe-key", "sk" + "_live_" + self.alnum(24))

    def anthropic(self) -> str:
        return self.book("anthropic-key", "sk-" + "ant-api03-" + self.alnum(93) + "AA")

    def openai(self) -> str:
        return self.book("openai-key", "sk-" + "proj-" + self.alnum(48))

    def google(self) -> str:
        return self.book("google-api-key", "AI" + "za" + self.alnum(35))

    def npm(self) -> str:
        return self.book("npm-token", "np" + "m_" + self.alnum(36))

    def huggingface(self) -> str:
        return self.book("huggingface-token", "h" + "f_" + self.alnum(34))

    def jwt(self) -> str:
        def part(obj: dict[str, str]) -> str:
            return base64.urlsafe_b64encode(orjson.dumps(obj)).rstrip(b"=").decode()

        token = part({"alg": "HS256", "typ": "JWT"}) + "." + part({"sub": self.alnum(12)}) + "." + self.alnum(43)
        return self.book("jwt", token)

    def private_key_body(self) -> str:
        # The block is redacted whole; its base64 body is what must never appear.
        return self.book("private-key", self.alnum(64))

    def password(self, kind: str) -> str:
        return self.book(kind, "pw-" + self.alnum(18))


def _secrets_case(case: HostileCase, cwd: str, s: _Secrets) -> None:
    """Secrets in every place a transcript puts text: prompts, tool inputs and
    outputs, a .env Read, titles, the branch, a sub-agent's transcript."""
    session = "5ec0e700-0000-4000-8000-000000000001"
    w = _Writer(case, session, cwd)
    github, aws_id, aws_key = s.github(), s.aws_access(), s.aws_secret()
    w.add({"type": "custom-title", "customTitle": f"Rotate {github} everywhere", "sessionId": session})
    w.add({"type": "ai-title", "aiTitle": f"Leaked {s.gitlab()} in CI", "sessionId": session})
    w.add({"type": "summary", "summary": f"Fix auth with {s.slack()}", "leafUuid": w.uid("x")})
    w.add(w.prompt(f"{w.marker()} my key is {github} and AWS {aws_id}"))
    # A bad line: its warning names the file, whose label holds the cwd's secret.
    w.bad(b'{"type": "user", "uuid": "cut', "not valid JSON")
    bash_id, read_id, curl_id, task_id = "toolu_sec000001", "toolu_sec000002", "toolu_sec000003", "toolu_sec000004"
    db_password = s.password("url-password")
    w.add(w.reply([
        {"type": "text", "text": f"{w.marker()} Setting AWS_SECRET_ACCESS_KEY={aws_key} now."},
        {"type": "tool_use", "id": bash_id, "name": "Bash",
         "input": {"command": f"export OPENAI_API_KEY={s.openai()} && PGPASSWORD={s.password('env-secret')} "
                              f"psql postgres://admin:{db_password}@db.internal/app",
                   "description": f"uses {s.google()}"}},
    ]))
    # As Claude Code writes it: the result text is stdout and stderr, repeated in toolUseResult.
    stdout, stderr = f"token {s.huggingface()}", f"slack said {s.slack()}"
    w.add(w.result(bash_id, f"{w.marker()}\nAuthorization: Bearer {s.jwt()}\nstripe={s.stripe()}\n{stdout}\n{stderr}",
                   detail={"stdout": stdout, "stderr": stderr}))
    # In a .env file every value is a sensitive-file value, whatever its name.
    env_password, env_plain = s.password("sensitive-file"), s.password("sensitive-file")
    env_text = f"DB_PASSWORD={env_password}\nANTHROPIC_API_KEY={s.anthropic()}\nSESSION_SALT={env_plain}\n"
    w.add(w.reply([{"type": "tool_use", "id": read_id, "name": "Read", "input": {"file_path": f"{cwd}/.env"}}]))
    w.add(w.result(read_id, [{"type": "text", "text": env_text}],
                   detail={"type": "text", "file": {"filePath": f"{cwd}/.env", "content": env_text}}))
    pem_body = s.private_key_body()
    pem = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{pem_body}\n{pem_body[::-1]}\n-----END OPENSSH PRIVATE KEY-----\n"
    w.add(w.reply([
        {"type": "text", "text": w.marker()},
        {"type": "tool_use", "id": curl_id, "name": "Write", "input": {"file_path": "/tmp/deploy_key", "content": pem}},
    ]))
    w.add(w.result(curl_id, f"{w.marker()} wrote the key"))
    agent_secret = s.github()
    w.add(w.reply([{"type": "tool_use", "id": task_id, "name": "Task",
                    "input": {"description": f"check {agent_secret}", "prompt": "look", "subagent_type": "x"}}]))
    w.add(w.result(task_id, [{"type": "text", "text": w.marker()}], detail={"agentId": "5ec0a9e1"}))
    w.add(w.prompt(w.marker(), gitBranch=f"fix/{s.npm()}"))  # the last branch is the session's
    w.write()
    agent = _Writer(case, "agent-5ec0a9e1", cwd)
    agent.add(agent.prompt("look", isSidechain=True, agentId="5ec0a9e1", sessionId=session))
    agent.add(agent.reply([{"type": "text", "text": f"{agent.marker()} found {s.gitlab()}"}],
                          isSidechain=True, agentId="5ec0a9e1", sessionId=session))
    path = case.folder / session / "subagents" / "agent-5ec0a9e1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(agent.lines) + b"\n")


# --- the filesystem cases -------------------------------------------------------------


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _mkdir(path: Path) -> None:
    path.mkdir()


def _to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere")


def _loop(path: Path) -> None:
    path.symlink_to(path)


# case -> (the odd entry beside a good session, how its warning starts, how to make it)
_FS_ENTRIES: dict[str, tuple[str, str, Callable[[Path], None]]] = {
    "dir-named-jsonl": ("x.jsonl", "a directory named *.jsonl", _mkdir),
    "fifo": ("pipe.jsonl", "not a regular file", _fifo),
    "fifo-agent": ("agent-0000fifo.jsonl", "not a regular file", _fifo),
    "dev-zero": ("zero.jsonl", "not a regular file", _to_dev_zero),
    "dangling": ("gone.jsonl", "cannot read: No such file", _dangling),
    "loop": ("loop.jsonl", "cannot read: Too many levels of symbolic links", _loop),
}


def _fs_case(expected: HostileExpected, name: str) -> None:
    """A project directory holding one good session and one odd entry."""
    entry, reason, make = _FS_ENTRIES[name]
    case = _case(expected, name, f"/hostile/{name}")
    w = _Writer(case, str(uuid.uuid5(_NAMESPACE, name)), case.cwd)
    w.good()
    w.write()
    make(case.folder / entry)
    case.file_warnings.append((f"{case.folder.name}/{entry}", reason))


def _unreadable_case(expected: HostileExpected, name: str) -> None:
    # Good records behind chmod 0: a warning for a user, read anyway by root.
    case = _case(expected, name, f"/hostile/{name}")
    w = _Writer(case, str(uuid.uuid5(_NAMESPACE, name)), case.cwd)
    w.good(4)
    w.write().chmod(0)
    case.file_warnings.append((w.label, "cannot read: Permission denied"))


# --- names ---------------------------------------------------------------------------------

# Directory names (and the cwd they mangle from) that must become safe file names and text.
_HOSTILE_NAMES = {
    "space": "my project",
    "newline": "new\nline",
    "dotdot": "..",
    "dotdot-inside": "a..b",
    "percent-dotdot": "%2e%2e%2f%2e%2e",
    "img-tag": "<img src=x onerror=alert(1)>",
    "non-ascii": "проект-日本語-é",
    "long": "n" * 242,  # the directory name is 250 characters
    "windows-reserved": "CON",
    "hash-query": "a#b?c=d&e",
}
# Session file names (a session's id is its file name).
HOSTILE_SESSIONS = (
    "<svg onload=alert(2)>",
    "..%2f..%2fescape",
    "%2e%2e",
    " leading space",
    "CON",
    "index",
    ".hidden",
    "-dash",
    "Same-Slug",
    "same-slug",
)


def _name_case(expected: HostileExpected, name: str) -> None:
    hostile = _HOSTILE_NAMES[name.removeprefix("name-")]
    cwd = f"/home/u/{hostile}"
    case = _case(expected, name, cwd, folder="-home-u-" + hostile)
    w = _Writer(case, str(uuid.uuid5(_NAMESPACE, name)), cwd)
    w.good()
    w.write()


def _session_names(expected: HostileExpected, name: str) -> None:
    case = _case(expected, name, f"/hostile/{name}")
    for session in HOSTILE_SESSIONS:
        w = _Writer(case, session, case.cwd)
        w.good()
        w.write()


def _name_bytes(expected: HostileExpected, name: str) -> None:
    # Names that are not UTF-8 at all (Python keeps their bytes as lone surrogates).
    case = _case(expected, name, "/home/u/bytes", folder=os.fsdecode(b"-home-u-bytes-\xff\xfe"))
    w = _Writer(case, str(uuid.uuid5(_NAMESPACE, name)), case.cwd, stem=os.fsdecode(b"\xfe\xff-session"))
    w.good()
    w.write()


# --- the whole tree ---------------------------------------------------------------------


def _line_case(write: Callable[[_Writer], None]) -> Callable[[HostileExpected, str], None]:
    def make(expected: HostileExpected, name: str) -> None:
        case = _case(expected, name, f"/hostile/{name}")
        write(_Writer(case, str(uuid.uuid5(_NAMESPACE, name)), case.cwd))

    return make


def _collision_case(expected: HostileExpected, name: str) -> None:
    case = _case(expected, name, f"/hostile/{name}")
    _uuid_collision(case, case.cwd)


def _secrets_project(expected: HostileExpected, name: str) -> None:
    secrets = _Secrets(expected)
    cwd = f"/srv/deploy/{secrets.github()}"  # so the project directory's name holds it too
    case = _case(expected, name, cwd, folder=cwd.replace("/", "-"))
    _secrets_case(case, cwd, secrets)


LINE_CASES: dict[str, Callable[[_Writer], None]] = {
    "truncated-middle": _truncated_middle,
    "truncated-end": _truncated_end,
    "appending": _appending,
    "not-objects": _not_objects,
    "invalid-utf8": _invalid_utf8,
    "lone-surrogates": _lone_surrogates,
    "nul-bytes": _nul_bytes,
    "bom": _bom,
    "crlf": _crlf,
    "blank-lines": _blank_lines,
    "huge-line": _huge_line,
    "deep-nesting": _deep_nesting,
    "duplicate-keys": _duplicate_keys,
    "content-shapes": _content_shapes,
    "record-types": _record_types,
    "timestamps": _timestamps,
    "parent-cycles": _parent_cycles,
    "empty-file": _empty_file,
    "markup": _markup,
}
FS_CASES = (*_FS_ENTRIES, "unreadable")
NAME_CASES = (*(f"name-{n}" for n in _HOSTILE_NAMES), "session-names", "name-bytes")
_MAKERS: dict[str, Callable[[HostileExpected, str], None]] = {
    **{name: _line_case(write) for name, write in LINE_CASES.items()},
    "uuid-collision": _collision_case,
    "secrets": _secrets_project,
    **{name: _fs_case for name in _FS_ENTRIES},
    "unreadable": _unreadable_case,
    **{name: _name_case for name in NAME_CASES if name.startswith("name-") and name != "name-bytes"},
    "session-names": _session_names,
    "name-bytes": _name_bytes,
}
ALL_CASES = tuple(_MAKERS)


def _case(expected: HostileExpected, name: str, cwd: str, *, folder: str | None = None) -> HostileCase:
    case = HostileCase(name, expected.projects / (folder or f"-hostile-{name}"), cwd=cwd)
    case.folder.mkdir(parents=True, exist_ok=True)
    expected.cases[name] = case
    return case


def write_hostile_history(root: Path, *, huge: bool = True, cases: Iterable[str] | None = None) -> HostileExpected:
    """Write the hostile history under ``root/projects`` and say what must come of it.

    ``cases`` picks cases by name (ALL_CASES by default); ``huge=False`` leaves
    out the 50 MB line even then (it takes a few seconds to write and read).
    """
    expected = HostileExpected(Path(root), Path(root) / "projects")
    for name in ALL_CASES if cases is None else cases:
        if name == "huge-line" and not huge:
            continue
        _MAKERS[name](expected, name)
    return expected
