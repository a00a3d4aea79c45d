"""The defensive line reader: every bad line is one warning, every good line survives."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bough_site.readers.lines import JsonlFile, parse_line


def read(path: Path) -> tuple[list[tuple[int, dict]], list[str], JsonlFile]:
    warnings: list = []
    reader = JsonlFile(path, path.name, warnings.append)
    objects = list(reader)
    return objects, [str(w) for w in warnings], reader


def test_good_lines_around_bad_ones_all_survive(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"a": 1}\r\n'  # BOM and CRLF on the first line
        b"\n   \n"  # blank and whitespace lines: not lines at all
        b"[1, 2]\n"
        b'"just a string"\n'
        b'{"b": "\\ud800"}\n'  # lone surrogate escape
        b'{"c": "\xff"}\n'  # invalid UTF-8 inside a string
        b'{"d": "x\x00y"}\n'  # raw NUL byte inside a string
        b'{"e": "\\u0000"}\n'  # escaped NUL
        b'{"f": 1, "f": 2}\n'  # duplicate keys
        + b"[" * 100_000 + b"\n"  # nested far too deep
        b'{"g": 1}\n'
        b'{"h": tru'  # killed mid-write
    )
    objects, warnings, reader = read(path)
    assert [number for number, _ in objects] == [1, 6, 7, 8, 9, 10, 12]
    assert objects[0][1] == {"a": 1}
    assert objects[1][1] == {"b": "\ufffd\ufffd\ufffd"}
    assert objects[2][1] == {"c": "\ufffd"}
    assert objects[3][1] == {"d": "x\x00y"}
    assert objects[5][1] == {"f": 2}
    assert warnings == [
        "t.jsonl:4: not a JSON object (a JSON array)",
        "t.jsonl:5: not a JSON object (a JSON string)",
        "t.jsonl:6: lone surrogate replaced with U+FFFD",
        "t.jsonl:7: invalid UTF-8 replaced with U+FFFD",
        "t.jsonl:8: control characters inside strings",
        "t.jsonl:11: JSON nested too deeply",
        "t.jsonl:13: truncated last line (no newline at end): not valid JSON (Expecting value)",
    ]
    assert (reader.lines, reader.skipped) == (11, 4)


def test_an_unterminated_last_line_that_parses_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}')
    objects, warnings, _ = read(path)
    assert [obj for _, obj in objects] == [{"a": 1}, {"b": 2}]
    assert warnings == []


def test_empty_file_is_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    objects, warnings, _ = read(path)
    assert objects == [] and warnings == ["t.jsonl: empty file"]


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    objects, warnings, _ = read(path)  # would block forever if opened for reading
    assert objects == [] and warnings == ["pipe.jsonl: not a regular file, skipped"]


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "zero.jsonl"
    path.symlink_to("/dev/zero")
    objects, warnings, _ = read(path)
    assert objects == [] and warnings == ["zero.jsonl: not a regular file, skipped"]


def test_dangling_and_looping_symlinks_warn(tmp_path: Path) -> None:
    dangling = tmp_path / "gone.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    assert read(dangling)[1] == ["gone.jsonl: cannot read: No such file or directory"]
    assert read(loop)[1] == ["loop.jsonl: cannot read: Too many levels of symbolic links"]


def test_unreadable_file_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    path.chmod(0)
    if os.geteuid() == 0:
        # root reads any file (CI runs as root): make open fail the way it does for a user.
        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(os, "open", refuse)
    assert read(path)[1] == ["secret.jsonl: cannot read: Permission denied"]


def test_a_file_growing_while_read_is_read_up_to_its_size_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    warnings: list = []
    reader = JsonlFile(path, "t.jsonl", warnings.append)
    seen = []
    for number, obj in reader:
        seen.append(obj)
        if number == 1:
            with path.open("ab") as handle:  # the agent appends while bough reads
                handle.write(b'{"c": 3}\n{"d": ')
    assert seen == [{"a": 1}, {"b": 2}]
    assert warnings == []


def test_a_fifty_megabyte_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    payload = "x" * (50 * 1024 * 1024)
    path.write_bytes(b'{"a": 1}\n{"big": "' + payload.encode() + b'"}\n{"c": 3}\n')
    objects, warnings, _ = read(path)
    assert [len(obj.get("big", "")) for _, obj in objects] == [0, len(payload), 0]
    assert warnings == []


def test_parse_line_reports_why() -> None:
    assert parse_line(b'{"a": 1}') == ({"a": 1}, "")
    assert parse_line(b"null") == (None, "not a JSON object (a JSON null)")
    assert parse_line(b"12") == (None, "not a JSON object (a JSON number)")
    assert parse_line(b"true") == (None, "not a JSON object (a JSON boolean)")


def test_numbers_no_json_writer_holds_are_kept_as_text() -> None:
    # orjson refuses these lines; the standard library took them as float('inf'),
    # NaN and integers of any size, which crashed the build later (int(inf), or
    # orjson.dumps of an integer beyond 64 bits). As text, no reader counts them.
    line = b'{"a": Infinity, "b": -Infinity, "c": NaN, "d": 1e400, "e": 18446744073709551616000, "f": 7, "g": 2.5}'
    value, note = parse_line(line)
    assert value == {"a": "Infinity", "b": "-Infinity", "c": "NaN", "d": "1e400", "e": "18446744073709551616000",
                     "f": 7, "g": 2.5}
    assert note == "a number no JSON writer holds (Infinity) is kept as text"
    assert parse_line(b'{"n": 1' + b"0" * 5000 + b'}')[0] == {"n": "1" + "0" * 5000}  # past int()'s 4,300 digits
    assert parse_line(b'{"n": -9223372036854775809, "t": "a\tb"}')[0] == {"n": "-9223372036854775809", "t": "a\tb"}


def test_a_deep_line_with_a_lone_surrogate_is_mended_without_recursion() -> None:
    # Found by the whole-build fuzzer (test_fuzz_build.py): where the process allows deep
    # recursion (Hypothesis raises the limit to 2,048), the standard library parsed a line
    # nested 1,050 levels deep, and mending its surrogates recursively ran out of stack.
    line = b'{"a":' + b"[" * 4000 + b'"\\ud800 x"' + b"]" * 4000 + b', "\\udc00k": "v\\udfff", "t": "ok"}'
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(6_000)  # room to parse 4,000 levels, not to walk them recursively
    try:
        value, note = parse_line(line)
    finally:
        sys.setrecursionlimit(limit)
    assert value is not None and note.startswith("lone surrogate replaced with U+FFFD; JSON nested deeper")
    assert list(value) == ["a", "\ufffd" * 3 + "k", "t"] and value["\ufffd" * 3 + "k"] == "v" + "\ufffd" * 3
