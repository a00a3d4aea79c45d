"""Claude Code records: step 1 of reading a transcript (claude.py has the whole
story), its lines streamed once and the copies of one ``uuid`` merged into one
record, with the facts a title and a session need; and the build's pre-scan of a
main file for inherit.py (``scan_main_file``, ``record_uuids``): the same lines
give the same records (``record_digest`` tells them apart)."""

from __future__ import annotations

import hashlib
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..inherit import FileSummary
from ..model import InputWarning
from ..stats import Tally
from .claude_blocks import usage_of
from .lines import JsonlFile, open_regular, parse_line, printable_name
from .reader import WarnFn
from .values import BAD_TIME, CANONICAL_TIME, UNKNOWN_TOKENS, as_dict, as_str, bad_timestamp, normalize_timestamp


CHAIN_TYPES = frozenset({"user", "assistant", "system"})
SYNTHETIC_MODEL = "<synthetic>"


# --- step 1: collect and merge records -----------------------------------------


@dataclass
class Collected:
    """What one file gave: merged chain records in first-appearance order, and metadata."""

    records: list[dict[str, Any]] = field(default_factory=list)
    ai_title: str = ""
    custom_title: str = ""
    summaries: list[tuple[str, str]] = field(default_factory=list)  # (leafUuid, text)
    versions: list[str] = field(default_factory=list)
    cwd: str | None = None
    git_branch: str | None = None
    agent_id: str | None = None
    first_time: str | None = None
    last_time: str | None = None
    # agent id -> the tool_use id that launched it (from agent_progress records)
    agent_links: dict[str, str] = field(default_factory=dict)


def _merge_copy(kept: dict[str, Any], copy: dict[str, Any]) -> None:
    """A later copy of a record: its non-empty fields win, except promptId,
    where the first copy wins (it identifies the turn the prompt started)."""
    for key, value in copy.items():
        if key == "promptId" and kept.get("promptId"):
            continue
        if value is None or value == "" or value == [] or value == {}:
            continue
        kept[key] = value


def record_kind(obj: dict[str, Any]) -> str | None:
    """A line's record type. Early-2025 usage-only lines carry a message but no
    type (docs/formats-claude.md C3): their message's role is their type."""
    kind = obj.get("type")
    if kind is None:
        kind = as_str(as_dict(obj.get("message")).get("role")) or None
    # A list or object as the type would not even hash: an unknown record.
    return kind if isinstance(kind, str) else None


def record_digest(obj: dict[str, Any]) -> str | None:
    """What tells a chain record in two files apart (inherit.py): its uuid and a
    checksum of what it says (type, time, subtype, message, content). A resumed
    copy says the same under the same uuid (its ``sessionId`` may differ); two
    files reusing a uuid for different records (corpus/hostile.py) share nothing. None
    for a record without a uuid, or one orjson cannot write back (too deep)."""
    uuid = obj.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        return None
    try:
        said = orjson.dumps([record_kind(obj), obj.get("timestamp"), obj.get("subtype"), obj.get("message"),
                             obj.get("content")])
    except (orjson.JSONEncodeError, TypeError):
        return None
    key = f"{uuid}\0{zlib.crc32(said):08x}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(key, digest_size=10).hexdigest()


def collect_records(path: Path, label: str, warn: WarnFn, tally: Tally, *, digests: bool = False) -> Collected:
    """``digests``: note each record's record_digest (from its first copy, as the pre-scan does)."""
    found = Collected()
    by_uuid: dict[str, dict[str, Any]] = {}
    reader = JsonlFile(path, label, warn)
    for number, obj in reader:
        kind = record_kind(obj)
        if kind in CHAIN_TYPES and obj.get("type") is None:
            obj["type"] = kind
        if kind in CHAIN_TYPES:
            if _take_chain_record(found, by_uuid, obj, number, label, tally, digests):
                reader.warn(number, UNKNOWN_TOKENS)
            if bad_timestamp(obj.get("timestamp")):
                reader.warn(number, BAD_TIME)
        elif kind == "progress":
            _take_progress(found, obj)
        else:
            _take_metadata(found, obj)
    tally.lines += reader.lines
    tally.skipped_lines += reader.skipped
    return found


def _take_chain_record(
    found: Collected, by_uuid: dict[str, dict[str, Any]], obj: dict[str, Any],
    number: int, label: str, tally: Tally, digests: bool = False,
) -> bool:
    """Take one chain record (its copies merged by uuid); True when it is a reply
    whose token counts are unknown (Usage.unknown), for the caller to say."""
    uuid = obj.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        # No identity to merge on: a record of its own, counted once per line.
        uuid = f"{label}:{number}"
    obj["_key"] = uuid
    kept = by_uuid.get(uuid)
    if kept is None:
        if digests:
            obj["_digest"] = record_digest(obj)
        kept = dict(obj)
        by_uuid[uuid] = kept
        found.records.append(kept)
    else:
        _merge_copy(kept, obj)
    tally.records.add(uuid)
    _note_facts(found, obj)
    if obj.get("type") == "assistant":
        message = as_dict(obj.get("message"))
        if as_str(message.get("model")) != SYNTHETIC_MODEL:
            usage = usage_of(message)
            tally.add_reply(as_str(message.get("id")) or uuid, usage)
            return usage.unknown
    return False


def _note_facts(found: Collected, obj: dict[str, Any]) -> None:
    version = obj.get("version")
    if isinstance(version, str) and version and version not in found.versions:
        found.versions.append(version)
    if found.cwd is None and isinstance(obj.get("cwd"), str) and obj["cwd"]:
        found.cwd = obj["cwd"]
    branch = obj.get("gitBranch")
    if isinstance(branch, str) and branch:
        found.git_branch = branch
    if found.agent_id is None and isinstance(obj.get("agentId"), str):
        found.agent_id = obj["agentId"]
    moment = normalize_timestamp(obj.get("timestamp"))
    if moment:
        if found.first_time is None or moment < found.first_time:
            found.first_time = moment
        if found.last_time is None or moment > found.last_time:
            found.last_time = moment


def _take_progress(found: Collected, obj: dict[str, Any]) -> None:
    data = as_dict(obj.get("data"))
    agent = data.get("agentId")
    parent = obj.get("parentToolUseID")
    if data.get("type") == "agent_progress" and isinstance(agent, str) and isinstance(parent, str):
        found.agent_links.setdefault(agent, parent)


def _take_metadata(found: Collected, obj: dict[str, Any]) -> None:
    kind = obj.get("type")
    if kind == "ai-title" and isinstance(obj.get("aiTitle"), str):
        found.ai_title = obj["aiTitle"]  # may repeat; the last wins
    elif kind == "custom-title" and isinstance(obj.get("customTitle"), str):
        found.custom_title = obj["customTitle"]
    elif kind == "summary" and isinstance(obj.get("summary"), str):
        # A summary names its conversation by leafUuid, which may be in another
        # file (docs/formats-claude.md C12): resolved once every record of this file is known.
        found.summaries.append((as_str(obj.get("leafUuid")), obj["summary"]))


# --- the pre-scan: what inherit.py needs of a main file ------------------------

def scan_main_file(path: Path, label: str) -> FileSummary:
    """A main session file's summary for inherit.py: each chain record's digest
    (record_digest, in first-appearance order) and time, and the span of record
    times, read line by line as the reader reads them (the same lines give the
    same records). ``label`` is what the summary says for where the file is."""
    own_id = path.stem
    records: list[str] = []
    record_times: list[str | None] = []
    seen: set[str] = set()
    times: list[str] = []
    own: list[str] = []
    for _, obj in JsonlFile(path, label, _quiet, shallow=True):
        if record_kind(obj) not in CHAIN_TYPES:
            continue
        stamp = _time_of(obj.get("timestamp"))
        uuid = obj.get("uuid")
        if isinstance(uuid, str) and uuid and uuid not in seen:
            seen.add(uuid)  # the first copy, as the reader's
            digest = record_digest(obj)
            if digest is not None:
                records.append(digest)
                record_times.append(stamp)
        if stamp is not None:
            times.append(stamp)
            if obj.get("sessionId") == own_id:
                own.append(stamp)
    first, last = _time_span(times)
    return FileSummary(printable_name(own_id), label, first, _time_span(own)[0], last, tuple(records),
                       tuple(record_times))


# A "uuid" key as JSON writes it (spaces allowed around the colon) and its string
# value, escapes and all, within one line (a line cut short must not swallow the
# next one's). In a valid line the pattern finds keys only: a quote inside a JSON
# string is escaped, so the text of a tool result or a reply never matches.
_UUID_FIELD = re.compile(rb'"uuid"[ \t\r]*:[ \t\r]*"([^"\\\n]*(?:\\[^\n][^"\\\n]*)*)"')
# One of the letters of "uuid" written as an escape (\u0075, \u0069, \u0064): a key
# the pattern above would not see. A file holding one is not probed.
_UUID_LETTER_ESCAPE = re.compile(rb"\\u00(?:75|69|64)")
_PROBE_CHUNK = 4 << 20


def record_uuids(path: Path) -> frozenset[str] | None:
    """Every ``uuid`` a main file's records may carry, found in its raw bytes without
    parsing a line: a superset of the uuids scan_main_file digests (a uuid in a
    nested object, or on a line the reader skips, is found too). Two files whose
    sets are disjoint share no record, so neither inherits from the other
    (plan/lineage.py scans only files that share one). None when that cannot be
    told: the file cannot be read, or a key may be written with an escape."""
    found: set[str] = set()
    handle = open_regular(path, "", _quiet)
    if handle is None:
        return None
    with handle:
        rest = b""
        while True:
            chunk = handle.read(_PROBE_CHUNK)
            data = rest + chunk
            # Whole lines only: a field is never cut by the end of a chunk.
            cut = len(data) if not chunk else data.rfind(b"\n") + 1
            lines, rest = data[:cut], data[cut:]
            if _escapes_a_uuid_letter(lines):
                return None
            for raw in _UUID_FIELD.findall(lines):
                uuid = _json_string(raw)
                if uuid:
                    found.add(uuid)
            if not chunk:
                return frozenset(found)


def _escapes_a_uuid_letter(data: bytes) -> bool:
    """Whether ``data`` writes a letter of "uuid" as an escape. After an escaped
    backslash, "u0069" is text (source code that writes such escapes): an escape
    starts an odd run of backslashes."""
    for match in _UUID_LETTER_ESCAPE.finditer(data):
        before = match.start()
        while before > 0 and data[before - 1] == ord("\\"):
            before -= 1
        if (match.start() - before) % 2 == 0:
            return True
    return False


def _json_string(raw: bytes) -> str | None:
    """The text of a JSON string's raw bytes (between its quotes), repaired as the
    reader repairs a line (invalid UTF-8, lone surrogates: lines.parse_line); None
    when it would not parse."""
    if raw.isascii() and b"\\" not in raw:
        return raw.decode("ascii")
    parsed, _ = parse_line(b'{"uuid":"' + raw + b'"}', shallow=True)
    value = parsed.get("uuid") if parsed is not None else None
    return value if isinstance(value, str) else None


def _time_of(value: Any) -> str | None:
    """A record's time as normalize_timestamp gives it; a string already in that
    form is taken as it is (checked only where it matters: _time_span). Such
    strings sort as their times do, so only the earliest and latest need parsing."""
    if not isinstance(value, str) or not value:
        return None
    return value if CANONICAL_TIME.fullmatch(value) else normalize_timestamp(value)


def _quiet(warning: InputWarning) -> None:
    """The pre-scan says nothing: the reader warns about the same lines."""


def _time_span(stamps: list[str]) -> tuple[str | None, str | None]:
    """The earliest and latest times among canonical strings, skipping any that
    names no time (a 13th month)."""
    ordered = sorted(set(stamps))
    first = next((s for s in ordered if normalize_timestamp(s) == s), None)
    last = next((s for s in reversed(ordered) if normalize_timestamp(s) == s), None)
    return first, last
