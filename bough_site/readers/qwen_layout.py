"""Where Qwen Code keeps its sessions, and how bough groups them: its ``Layout``
(readers/layout.py; docs/formats-qwen.md §1).

The tree, under ``$QWEN_RUNTIME_DIR``, else ``$QWEN_HOME``, else ``~/.qwen``::

    projects/<encoded cwd>/chats/<sessionId>.jsonl        a session
    projects/<encoded cwd>/chats/archive/<…>.jsonl         a session the CLI archived
    projects/<encoded cwd>/subagents/<sessionId>/agent-<id>.jsonl (+ .meta.json)
    projects/<encoded cwd>/meta.json, usage_record.jsonl, tmp/, debug/, history/ (not read)

A unit is one project folder. Qwen Code's record envelope copies Claude Code's
(``uuid``, ``parentUuid``, ``sessionId``, ``cwd``), so discovery asks ``claims``
before anything else: a file is Qwen's when its records carry Gemini's
``message.parts`` (or a ``systemPayload``, or the ``tool_result`` type), which no
Claude Code record does (Claude's messages hold ``content``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import orjson

from ..hidden import hide
from ..kinds import QWEN
from .layout import Layout, Listed
from .lines import open_regular, peek_lines
from .values import as_dict

NAME = "Qwen Code"
HOME_NAME = ".qwen"
_TYPES = frozenset({"user", "assistant", "system", "tool_result"})


def roots(env: Mapping[str, str]) -> list[Path]:
    runtime = env.get("QWEN_RUNTIME_DIR")
    return [Path(runtime).expanduser()] if runtime else [home(env)]


def home(env: Mapping[str, str]) -> Path:
    if env.get("QWEN_HOME"):
        return Path(env["QWEN_HOME"]).expanduser()
    return Path(env.get("HOME") or Path.home()) / HOME_NAME


# --- claims ----------------------------------------------------------------------


def claims(path: Path) -> bool:
    """Whether ``path`` is Qwen Code's: its home (``.qwen`` or any folder holding
    ``projects/<enc>/chats``), a level of that tree, or a chat file by its records."""
    try:
        if path.is_dir():
            return _claims_folder(path)
        return path.is_file() and _claims_file(path)
    except OSError:
        return False


def _claims_folder(path: Path) -> bool:
    parent, grand = path.parent.name, path.parent.parent.name
    if path.name == HOME_NAME or HOME_NAME in path.parent.parts:
        return True  # ~/.qwen and all in it (its tmp/ is never Gemini CLI's)
    if path.name == "projects":
        return _has_project(path)
    if parent == "projects":  # projects/<enc>
        return (path / "chats").is_dir() or (path / "subagents").is_dir()
    if path.name in ("chats", "subagents") and grand == "projects":
        return True
    if path.name == "archive" and parent == "chats" and path.parent.parent.parent.name == "projects":
        return True
    if parent == "subagents" and path.parent.parent.parent.name == "projects":  # subagents/<sessionId>
        return True
    return (path / "projects").is_dir() and _has_project(path / "projects")


def _has_project(projects: Path) -> bool:
    with os.scandir(projects) as entries:
        for entry in entries:
            if entry.is_dir() and os.path.isdir(os.path.join(entry.path, "chats")):
                return True
    return False


def _claims_file(path: Path) -> bool:
    if path.name.endswith(".meta.json"):
        return path.name.startswith("agent-") and path.parent.parent.name == "subagents"
    if not path.name.endswith(".jsonl"):
        return False
    return is_qwen_file(path)


def is_qwen_file(path: Path) -> bool:
    """A JSONL file whose first records are Qwen Code's (see the module's note)."""
    handle = open_regular(path, path.name, lambda warning: None)
    if handle is None:
        return False
    with handle:
        head = peek_lines(handle)
    for raw, whole in head:
        verdict = _line_verdict(raw, whole)
        if verdict is not None:
            return verdict
    return False


def _line_verdict(raw: bytes, whole: bool) -> bool | None:
    """True: a Qwen record; False: another agent's; None: this line does not tell."""
    record = None
    if whole:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = None  # glued or torn: the bytes still tell
    if isinstance(record, dict):
        return is_qwen_record(record)
    if raw.lstrip().startswith(b"{") and b'"sessionId"' in raw:
        if b'"parts"' in raw[:4096] or b'"systemPayload"' in raw or b'"type":"tool_result"' in raw:
            return True
    return None


def is_qwen_record(record: dict) -> bool | None:
    kind = record.get("type")
    if not isinstance(record.get("sessionId"), str) or not isinstance(kind, str) or kind not in _TYPES:
        return None if "sessionId" not in record else False
    message = as_dict(record.get("message"))
    if "content" in message:
        return False  # Claude Code's message
    return (isinstance(message.get("parts"), list) or isinstance(record.get("systemPayload"), dict)
            or record.get("type") == "tool_result")


# --- find, label, units ---------------------------------------------------------------


def find(path: Path) -> list[Path]:
    """The files to read under a path ``claims`` took: chat files (live and
    archived), sub-agent files and their ``.meta.json``, each once, sorted."""
    if not path.is_dir():
        return [path] if path.name.endswith((".jsonl", ".meta.json")) else []
    found: set[Path] = set()
    for project in _projects(path):
        found.update(_project_files(project))
    if not found:
        found.update(_chat_files(path))
        found.update(_agent_files(path))
    return sorted(found, key=str)


def _projects(path: Path) -> list[Path]:
    if path.parent.name == "projects":
        return [path]
    folder = path if path.name == "projects" else path / "projects"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir())


def _project_files(project: Path) -> list[Path]:
    return _chat_files(project / "chats") + _agent_files(project / "subagents")


def _chat_files(chats: Path) -> list[Path]:
    """``*.jsonl`` in a chats folder and its ``archive/`` (or an archive folder itself)."""
    out = []
    for folder in (chats, chats / "archive"):
        if folder.is_dir():
            out += [p for p in folder.iterdir() if p.name.endswith(".jsonl") and p.is_file()]
    return out


def _agent_files(folder: Path) -> list[Path]:
    """Sub-agent files under ``subagents/`` or one ``subagents/<sessionId>/``."""
    if not folder.is_dir():
        return []
    if folder.parent.name == "subagents":
        levels = [folder]
    elif folder.name == "subagents":
        levels = sorted(p for p in folder.iterdir() if p.is_dir())
    else:
        return []
    return [p for level in levels for p in level.iterdir()
            if p.name.startswith("agent-") and p.name.endswith((".jsonl", ".meta.json")) and p.is_file()]


def label(path: Path) -> str:
    """From ``projects/`` down (``projects/<enc>/chats/<id>.jsonl``); a file found
    outside that tree, by its folder and name."""
    parts = path.parts
    for index in range(len(parts) - 3, -1, -1):
        if parts[index] == "projects" and parts[index + 2] in ("chats", "subagents"):
            return "/".join(parts[index:])
    return "/".join(parts[-2:])


def units(listed: list[Listed]) -> list[tuple[str, list[Listed]]]:
    """One unit per project folder (``projects/<enc>``); a file outside the tree is
    a unit of its own. Keys are made from labels, files in label order."""
    groups: dict[str, list[Listed]] = {}
    for name, path in listed:
        parts = name.split("/")
        group = "/".join(parts[:2]) if len(parts) > 3 and parts[0] == "projects" else name
        groups.setdefault(group, []).append((name, path))
    return [(f"{QWEN}-{hide(group)}", sorted(files, key=lambda pair: (pair[0], str(pair[1]))))
            for group, files in sorted(groups.items())]


def sniff(record: dict) -> bool:
    """One parsed record of a file met outside a claimed folder: Qwen Code's (asked
    before Claude Code's keys, which its envelope copies)."""
    return is_qwen_record(record) is True


def holds_session(name: str) -> bool:
    """A chat file is a session; a sub-agent's file and its meta are read beside one."""
    return "/subagents/" not in f"/{name}" and not name.endswith(".meta.json")


# Of the root, discovery reads projects/ alone (tmp/, debug/, history/ hold checkpoints and logs).
READS = frozenset({"projects"})

LAYOUT = Layout(kind=QWEN, name=NAME, roots=roots, home=home, claims=claims, find=find, label=label, units=units,
                sniff=sniff, reads=READS, holds_session=holds_session)
