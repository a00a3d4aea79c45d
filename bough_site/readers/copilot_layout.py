"""Where GitHub Copilot CLI keeps its sessions, and how bough groups them (docs/formats-copilot.md §1).

``$COPILOT_HOME`` (else ``~/.copilot``) holds ``session-state/`` and the older
``history-session-state/``. A session is one of three forms:

- ``session-state/<id>/events.jsonl``, with ``workspace.yaml`` beside it (current);
- ``session-state/<id>.jsonl`` (older: the same event log, bare);
- ``history-session-state/<id>.json`` (2025: one object with a ``timeline``).

One unit per session id; when the directory form and the bare form of one id are
both there, only the directory form is read (§1). A file's label is its path from
``session-state/`` or ``history-session-state/`` down; a file found outside
those folders (a copy, a fixture) is labelled as if it were in its place, so the
same file has the same label whichever source it was found under.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import orjson

from ..hidden import hide
from ..kinds import COPILOT
from .layout import Layout, Listed
from .lines import printable_name

STATE, HISTORY = "session-state", "history-session-state"
EVENTS, WORKSPACE = "events.jsonl", "workspace.yaml"
# §2: the families of event types; a JSON line whose ``type`` starts with one of
# these, with a ``data`` object, is a Copilot CLI event (Claude's types have no dot).
EVENT_PREFIXES = ("session.", "user.", "assistant.", "tool.", "system.", "subagent.", "hook.", "skill.")
# How much of a file a peek reads: the first line (session.start) is short.
PEEK_BYTES = 64 * 1024
# The opening of an event line the peek could not read whole: its type first, as the CLI writes it.
_EVENT_OPENING = re.compile(rb'\{\s*"type"\s*:\s*"(?:session|user|assistant|tool|system|subagent|hook|skill)\.[a-z_.]+"')
# §1, the legacy form: its first keys (never inside a string: no backslash before the quote).
_LEGACY_KEYS = re.compile(rb'(?<!\\)"(?:chatMessages|timeline)"\s*:')
_SESSION_ID_KEY = re.compile(rb'(?<!\\)"sessionId"\s*:')
# Gemini CLI's legacy .json also starts with sessionId, then projectHash.
_GEMINI_KEY = re.compile(rb'(?<!\\)"projectHash"\s*:')


def copilot_home(env: Mapping[str, str]) -> Path:
    """``$COPILOT_HOME``, else ``~/.copilot`` (``$HOME`` as config.home reads it: this
    module is imported by readers/layouts.py, which config.py asks, so not from there)."""
    configured = env.get("COPILOT_HOME", "").strip()
    return Path(configured).expanduser() if configured else Path(env.get("HOME") or Path.home()) / ".copilot"


def roots(env: Mapping[str, str]) -> list[Path]:
    base = copilot_home(env)
    return [base / STATE, base / HISTORY]


# --- claims: names, and a peek at most ------------------------------------------------------


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(PEEK_BYTES)
    except OSError:
        return b""


def is_event_log(path: Path) -> bool:
    """A file whose first JSON line is a Copilot CLI event (§2)."""
    if not path.is_file():
        return False
    head = _head(path).lstrip(b"\xef\xbb\xbf")
    for raw in head.split(b"\n")[:3]:
        if not raw.strip():
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            # A first line longer than the peek (a long system message): its opening says.
            return len(raw) >= PEEK_BYTES - 4096 and bool(_EVENT_OPENING.match(raw))
        return is_event(record)
    return False


def is_event(record: object) -> bool:
    """One parsed line that is a Copilot CLI event (§2): a dotted ``type`` of its
    families and a ``data`` object (discovery's ``sniff``)."""
    if not isinstance(record, dict):
        return False
    kind = record.get("type")
    return (isinstance(kind, str) and (kind.startswith(EVENT_PREFIXES) or kind == "abort")
            and isinstance(record.get("data"), dict))


def is_legacy_session(path: Path) -> bool:
    """A ``.json`` with ``sessionId`` and ``timeline`` or ``chatMessages`` among its first keys (§1)."""
    if not path.is_file():
        return False
    head = _head(path)[:4096]
    return (head.lstrip().startswith(b"{") and bool(_SESSION_ID_KEY.search(head))
            and bool(_LEGACY_KEYS.search(head)) and not _GEMINI_KEY.search(head))


def _session_folder(path: Path) -> bool:
    return (path / EVENTS).is_file() and is_event_log(path / EVENTS)


def claims(path: Path) -> bool:
    if path.is_dir():
        return path.name in (".copilot", STATE, HISTORY) or _session_folder(path)
    if path.suffix == ".jsonl":
        return is_event_log(path)
    if path.suffix == ".json":
        return is_legacy_session(path)
    return False


# --- find: the files under a claimed path ----------------------------------------------------


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        return []


def _in_session_folder(folder: Path) -> list[Path]:
    found = [folder / EVENTS] if (folder / EVENTS).is_file() else []
    if found and (folder / WORKSPACE).is_file():
        found.append(folder / WORKSPACE)
    return found


def _in_state(folder: Path) -> list[Path]:
    found: list[Path] = []
    for child in _listing(folder):
        if child.is_dir():
            found += _in_session_folder(child)
        elif child.suffix == ".jsonl" and is_event_log(child):
            found.append(child)
    return found


def _in_history(folder: Path) -> list[Path]:
    return [child for child in _listing(folder) if child.suffix == ".json" and is_legacy_session(child)]


def find(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path] if claims(path) else []
    if path.name == STATE:
        return _in_state(path)
    if path.name == HISTORY:
        return _in_history(path)
    if path.name == ".copilot":
        return _in_state(path / STATE) + _in_history(path / HISTORY)
    return _in_session_folder(path)


# --- labels and units ------------------------------------------------------------------------


def label(path: Path) -> str:
    """From ``session-state/`` or ``history-session-state/`` down; elsewhere, the
    place the file would have there (§1)."""
    parts = path.parts
    for index in range(len(parts) - 2, -1, -1):
        if parts[index] in (STATE, HISTORY):
            return printable_name("/".join(parts[index:]))
    if path.name in (EVENTS, WORKSPACE):
        return printable_name(f"{STATE}/{path.parent.name}/{path.name}")
    folder = HISTORY if path.suffix == ".json" else STATE
    return printable_name(f"{folder}/{path.name}")


# The forms of a session, in the order one is preferred over another (§1).
_DIRECTORY, _BARE, _LEGACY, _META = 0, 1, 2, 3


def _form(name: str) -> tuple[str, int]:
    """(the session id a label names, its form)."""
    parts = name.split("/")
    if parts[0] == STATE and len(parts) >= 3:
        return parts[1], (_META if parts[-1] == WORKSPACE else _DIRECTORY)
    stem = parts[-1].rsplit(".", 1)[0]
    return stem, (_LEGACY if parts[0] == HISTORY else _BARE)


def units(listed: list[Listed]) -> list[tuple[str, list[Listed]]]:
    """One unit per session id: its event log (the directory form over the bare
    one, either over the legacy ``.json``), then its ``workspace.yaml``."""
    groups: dict[str, dict[int, Listed]] = {}
    for name, path in listed:
        session, form = _form(name)
        groups.setdefault(session, {}).setdefault(form, (name, path))
    out = []
    for session in sorted(groups):
        forms = groups[session]
        main = next((forms[form] for form in (_DIRECTORY, _BARE, _LEGACY) if form in forms), None)
        if main is None:
            continue  # a workspace.yaml alone: no session
        files = [main] + ([forms[_META]] if _form(main[0])[1] == _DIRECTORY and _META in forms else [])
        out.append((f"{COPILOT}-{hide(session)}", files))
    return out


def holds_session(name: str) -> bool:
    """Every file but ``workspace.yaml``, which only names the session beside it."""
    return not name.endswith("/" + WORKSPACE)


def rewritten_whole(name: str) -> bool:
    """``workspace.yaml`` and a legacy ``.json`` are written again whole; event logs grow (§1)."""
    return name.endswith("/" + WORKSPACE) or name.endswith(".json")


LAYOUT = Layout(
    kind=COPILOT,
    name="Copilot CLI",
    roots=roots,
    home=copilot_home,
    claims=claims,
    find=find,
    label=label,
    units=units,
    sniff=is_event,
    holds_session=holds_session,
    rewritten_whole=rewritten_whole,
)
