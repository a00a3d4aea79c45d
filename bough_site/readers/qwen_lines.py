"""One Qwen Code JSONL file read into its records (docs/formats-qwen.md §2, §4).

The file is append-only and one record a line, but three things need more than
``lines.JsonlFile``:

- two records can arrive glued on one line (a writer that lost its newline): both
  are read and the line is warned about (§4);
- a ``uuid`` can be written twice (a thought-only copy, then the full record):
  two records of one type under one uuid are one record, kept where it first appeared, the later copy's fields winning
  and the earlier copy's thoughts kept when the later has none (§4);
- ``custom_title`` and ``session_source`` are written again, under a new uuid,
  every 32 KB so a tail reader finds them: a copy whose payload repeats the last
  one of its subtype is no new record (§4).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import InputWarning
from .lines import MAX_LINE_BYTES, WarnFn, open_regular, parse_line
from .values import as_dict, as_str

GLUED = "two or more JSON objects on one line; each is read"
REANCHORED = frozenset({"custom_title", "session_source"})


@dataclass
class QwenFile:
    path: Path
    label: str
    # (line number, record) in the order uuids first appeared; records without a
    # uuid each stand alone.
    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    lines: int = 0  # non-blank lines
    skipped: int = 0  # non-blank lines that gave no object
    warnings: list[InputWarning] = field(default_factory=list)

    def session_id(self) -> str:
        """The records' ``sessionId`` (the first that has one, not counting the
        records a /branch copied in), else the file's stem."""
        for _, record in self.records:
            sid = "" if "forkedFrom" in record else as_str(record.get("sessionId"))
            if sid:
                return sid
        return self.path.name.removesuffix(".jsonl")


def load_file(path: Path, label: str, warn: WarnFn) -> QwenFile:
    """Every record of one file; bad lines are warnings, never errors."""
    out = QwenFile(path, label)

    def note(line: int, reason: str) -> None:
        warning = InputWarning(label, line, reason)
        out.warnings.append(warning)
        warn(warning)

    index: dict[str, int] = {}  # uuid -> position in out.records
    last_payload: dict[str, Any] = {}
    for number, record in _objects(path, label, note, out):
        subtype = as_str(record.get("subtype"))
        if subtype in REANCHORED:
            payload = record.get("systemPayload")
            if subtype in last_payload and last_payload[subtype] == payload:
                continue
            last_payload[subtype] = payload
        uid = record.get("uuid")
        if isinstance(uid, str) and uid in index and out.records[index[uid]][1].get("type") == record.get("type"):
            place = index[uid]
            line, first = out.records[place]
            out.records[place] = (line, _merged(first, record))
            continue
        if isinstance(uid, str) and uid:
            index[uid] = len(out.records)
        out.records.append((number, record))
    return out


def _merged(first: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    """Two copies of one uuid: the later's fields win; its message keeps the
    earlier copy's thoughts when it carries none of its own."""
    merged = {**first, **later}
    early, late = _parts(first), _parts(later)
    if any(_is_thought(p) for p in early) and not any(_is_thought(p) for p in late):
        message = dict(as_dict(later.get("message")))
        message["parts"] = [p for p in early if _is_thought(p)] + late
        merged["message"] = message
    return merged


def _parts(record: dict[str, Any]) -> list[Any]:
    parts = as_dict(record.get("message")).get("parts")
    return parts if isinstance(parts, list) else []


def _is_thought(part: Any) -> bool:
    return isinstance(part, dict) and part.get("thought") is True


def _objects(path: Path, label: str, note, out: QwenFile):
    """(line, object) for each object of the file, glued ones apart."""
    handle = open_regular(path, label, lambda w: note(w.line, w.reason))
    if handle is None:
        return
    with handle:
        remaining = os.fstat(handle.fileno()).st_size
        if remaining == 0:
            note(0, "empty file")
            return
        number = 0
        while remaining > 0:
            raw = handle.readline(min(remaining, MAX_LINE_BYTES))
            if not raw:
                break
            remaining -= len(raw)
            number += 1
            if not raw.endswith(b"\n") and remaining > 0:  # longer than we hold: skipped
                remaining -= _skip_line(handle, remaining)
                out.lines += 1
                out.skipped += 1
                note(number, f"line longer than {MAX_LINE_BYTES} bytes, skipped")
                continue
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            out.lines += 1
            yield from _line(raw, number, note, out)


def _line(raw: bytes, number: int, note, out: QwenFile):
    obj, reason = parse_line(raw)
    if obj is not None:
        if reason:
            note(number, reason)
        yield number, obj
        return
    glued = _glued(raw)
    if glued:
        note(number, GLUED)
        for piece in glued:
            yield number, piece
        return
    out.skipped += 1
    if not raw.endswith(b"\n"):
        reason = f"truncated last line (no newline at end): {reason}"
    note(number, reason or "not a JSON object")


def _glued(raw: bytes) -> list[dict[str, Any]]:
    """The objects of a line holding several written back to back; [] when the line
    is anything else (one bad object, a piece that is not an object)."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return []
    decoder = json.JSONDecoder()
    pieces: list[dict[str, Any]] = []
    position = 0
    try:
        while position < len(text):
            value, position = decoder.raw_decode(text, position)
            if not isinstance(value, dict):
                return []
            pieces.append(value)
            while position < len(text) and text[position] in " \t\r\n":
                position += 1
    except (ValueError, RecursionError):
        return []
    return pieces if len(pieces) > 1 else []


def _skip_line(handle, remaining: int) -> int:
    skipped = 0
    while skipped < remaining:
        chunk = handle.readline(min(1 << 20, remaining - skipped))
        if not chunk:
            break
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped
