"""The defensive line reader: bytes in, JSON objects and ``file:line`` warnings out.

Every format bough reads is JSON Lines written by a process that may be killed
mid-write, by tools that change shape between versions, and sometimes by hand.
This module is the one place that touches transcript bytes. It never raises for
bad content: each bad line becomes one InputWarning and the next line is read.

- Only regular files are opened; a FIFO or device is refused before ``open``
  could block or stream forever, and the size is taken before reading so a file
  still being appended to is read up to what was there (its last complete line).
- A UTF-8 BOM, CRLF line ends and blank lines are tolerated.
- orjson is tried first (fast); lines it refuses (raw control characters, lone
  surrogate escapes) get a second, lenient chance with the standard library, and
  any lone surrogate is replaced so nothing downstream fails to encode it.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..model import InputWarning

# A line longer than this is skipped (read through, never held whole).
MAX_LINE_BYTES = 256 * 1024 * 1024
# JSON nested deeper than this is cut off below this depth (and warned about): orjson
# reads 1024 levels but writes only 255, and a sidecar puts a record a dozen levels down.
MAX_DEPTH = 100
CUT_TEXT = "[cut: JSON nested too deeply]"
_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"

WarnFn = Callable[[InputWarning], None]


class JsonlFile:
    """Iterate ``(line_number, object)`` over one JSONL file.

    After iteration ``lines`` is the number of non-blank lines seen and
    ``skipped`` the number of those that gave no object.
    """

    def __init__(self, path: Path, label: str, warn: WarnFn, *, max_bytes: int | None = None,
                 shallow: bool = False):
        self.path = path
        self.label = label  # how warnings name the file
        self._warn = warn
        self._max_bytes = max_bytes
        # shallow: the caller reads only top-level fields, so the depth bound
        # (a pass over every line's bytes) is not needed: the objects are the same
        # at the top, and nothing deeper is kept.
        self._shallow = shallow
        self.lines = 0
        self.skipped = 0
        self.size = 0  # bytes considered (the size when opened)

    def warn(self, line: int, reason: str) -> None:
        self._warn(InputWarning(self.label, line, reason))

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        handle = open_regular(self.path, self.label, self._warn)
        if handle is None:
            return
        with handle:
            self.size = os.fstat(handle.fileno()).st_size
            if self._max_bytes is not None:
                self.size = min(self.size, self._max_bytes)
            if self.size == 0:
                self.warn(0, "empty file")
                return
            yield from self._objects(handle)

    def _objects(self, handle) -> Iterator[tuple[int, dict[str, Any]]]:
        remaining = self.size
        number = 0
        while remaining > 0:
            raw = handle.readline(min(remaining, MAX_LINE_BYTES))
            if not raw:
                break
            remaining -= len(raw)
            number += 1
            terminated = raw.endswith(b"\n")
            if not terminated and remaining > 0 and len(raw) >= MAX_LINE_BYTES:
                remaining -= _skip_rest_of_line(handle, remaining)
                self.lines += 1
                self.skipped += 1
                self.warn(number, f"line longer than {MAX_LINE_BYTES} bytes, skipped")
                continue
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            if not raw.strip():
                continue
            self.lines += 1
            obj, reason = parse_line(raw, shallow=self._shallow)
            if reason and obj is not None:
                self.warn(number, reason)
            if obj is None:
                self.skipped += 1
                if not terminated:
                    reason = f"truncated last line (no newline at end): {reason}"
                self.warn(number, reason or "not a JSON object")
                continue
            yield number, obj


def open_regular(path: Path, label: str, warn: WarnFn):
    """Open ``path`` for binary reading only if it is a regular file."""
    try:
        info = os.stat(path)
    except OSError as err:
        warn(InputWarning(label, 0, f"cannot read: {err.strerror or err}"))
        return None
    if not stat.S_ISREG(info.st_mode):
        warn(InputWarning(label, 0, "not a regular file, skipped"))
        return None
    try:
        # O_NONBLOCK: should the path have become a FIFO since stat, open must not hang.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        warn(InputWarning(label, 0, f"cannot read: {err.strerror or err}"))
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        warn(InputWarning(label, 0, "not a regular file, skipped"))
        return None
    return os.fdopen(fd, "rb", buffering=_CHUNK)


def printable_name(name: str) -> str:
    """A file name as text that can be written out: the bytes of a name that were
    not UTF-8 (which Python keeps as lone surrogates) become U+FFFD."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        return name.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _skip_rest_of_line(handle, remaining: int) -> int:
    skipped = 0
    while skipped < remaining:
        chunk = handle.readline(min(_CHUNK, remaining - skipped))
        if not chunk:
            break
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def parse_line(raw: bytes, *, shallow: bool = False) -> tuple[dict[str, Any] | None, str]:
    """Parse one line. Returns ``(object, "")``, ``(object, note)`` when the
    line needed repair, or ``(None, reason)`` when it gave no object. With
    ``shallow`` the part nested deeper than MAX_DEPTH is not cut."""
    note = ""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        value, note = _lenient(raw)
        if value is None:
            return None, note
    if not isinstance(value, dict):
        return None, f"not a JSON object (a JSON {_json_kind(value)})"
    # Counting brackets is a cheap bound on the depth: only such lines are walked.
    if not shallow and raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _cut_deep(value):
        cut = f"JSON nested deeper than {MAX_DEPTH} levels; the deeper part is cut"
        note = f"{note}; {cut}" if note else cut
    return value, note


def _cut_deep(root: dict[str, Any]) -> bool:
    """Replace every list or object deeper than MAX_DEPTH with CUT_TEXT, in place
    (iteratively: the nesting may be deeper than Python's recursion limit)."""
    cut = False
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        for key, child in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if not isinstance(child, (dict, list)):
                continue
            if depth >= MAX_DEPTH:
                node[key] = CUT_TEXT
                cut = True
            else:
                stack.append((child, depth + 1))
    return cut


def _lenient(raw: bytes) -> tuple[Any, str]:
    note = ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        note = "invalid UTF-8 replaced with U+FFFD"
    numbers = _OutOfRange()
    try:
        value = json.loads(text, strict=False, parse_constant=numbers.constant, parse_float=numbers.float,
                           parse_int=numbers.int)
    except RecursionError:
        return None, "JSON nested too deeply"
    except ValueError as err:
        return None, f"not valid JSON ({err.msg if hasattr(err, 'msg') else err})"
    if _has_surrogates(text):
        value = _replace_surrogates(value)
        note = note or "lone surrogate replaced with U+FFFD"
    if numbers.seen:
        kept = f"a number no JSON writer holds ({numbers.seen[0][:40]}) is kept as text"
        note = f"{note}; {kept}" if note else kept
    return value, note or "control characters inside strings"


class _OutOfRange:
    """The standard library's JSON hooks for the numbers orjson refuses: NaN,
    Infinity and numbers beyond a double or 64 bits become their text, which no
    reader takes for a count (values.as_count) and every writer can write
    (docs/safety.md S10)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def constant(self, name: str) -> str:
        self.seen.append(name)
        return name

    def float(self, literal: str) -> float | str:
        value = float(literal)
        if math.isfinite(value):
            return value
        self.seen.append(literal)
        return literal

    def int(self, literal: str) -> int | str:
        # Checked by length first: int() of thousands of digits is slow, and refused past 4,300.
        if len(literal) <= 20 and -(1 << 63) <= (value := int(literal)) < (1 << 64):
            return value
        self.seen.append(literal)
        return literal


def _has_surrogates(text: str) -> bool:
    return "\\ud" in text.lower()


def _replace_surrogates(value: Any) -> Any:
    """Every string (and key) holding a lone surrogate mended, in place where it can
    be. Iteratively: the value may be nested as deep as the process lets the standard
    library parse (a thousand levels and more), deeper than a recursive walk can go."""
    if isinstance(value, str):
        return _mended(value)
    stack = [value] if isinstance(value, (list, dict)) else []
    while stack:
        node = stack.pop()
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if isinstance(node, dict):
            node.clear()  # filled again in order, its keys mended
        for key, item in pairs:
            if isinstance(item, str):
                item = _mended(item)
            elif isinstance(item, (list, dict)):
                stack.append(item)
            node[_mended(key) if isinstance(key, str) else key] = item
    return value


def _mended(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _is_broken(text) else text


def _is_broken(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"


_PEEK_LINES = 20
_PEEK_LINE_BYTES = 64 * 1024
_PEEK_BUDGET = 1 << 20


def peek_lines(handle: BinaryIO, *, count: int = _PEEK_LINES, line_bytes: int = _PEEK_LINE_BYTES,
               budget: int = _PEEK_BUDGET) -> list[tuple[bytes, bool]]:
    """The first ``count`` non-blank lines of an open binary file, to tell its format
    by: each as ``(bytes, whole)``, the BOM taken off the first. A line longer than
    ``line_bytes`` is cut to its start (``whole`` False) and the rest of it skipped;
    no more than about ``budget`` bytes are read in all, so a file is judged by its
    start whatever its size (a 50 MB first line costs a megabyte)."""
    lines: list[tuple[bytes, bool]] = []
    read = 0
    while len(lines) < count and read < budget:
        raw = handle.readline(min(line_bytes, budget - read))
        if not raw:
            break
        read += len(raw)
        if read == len(raw):
            raw = raw.removeprefix(_BOM)
        whole = raw.endswith(b"\n") or len(raw) < line_bytes and read < budget
        if not whole:
            read += _skip_rest_of_line(handle, max(0, budget - read))
        if raw.strip():
            lines.append((raw, whole))
    return lines


def peek_field(path: Path, name: str) -> Any:
    """The value of ``name`` in the first of the file's first lines that has it."""
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return None
    with handle:
        for _ in range(_PEEK_LINES):
            line = handle.readline(1 << 20)
            if not line:
                break
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and name in obj:
                return obj[name]
    return None
