"""What the agents delete, and what a site that shows their sessions says of it.

Claude Code deletes transcripts older than ``cleanupPeriodDays`` (30 by default)
each time it starts, Gemini CLI sessions older than 30 days by default: a site
showing their sessions says so once, and whether bough's archive keeps them
(archive_sync.py keeps the copies)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import orjson

from .config import BuildConfig, claude_settings_files, gemini_settings_file
from .readers.lines import open_regular

# An agent's settings file larger than this is not read (one is a few KB).
_MAX_SETTINGS = 1 << 20

_DEFAULT_CLEANUP_DAYS = 30


# --------------------------------------------------------------------------- Claude's cleanup setting


def cleanup_notes(config: BuildConfig, *, claude: bool, gemini: bool) -> list[str]:
    """What a site that shows Claude Code (``claude``) or Gemini CLI sessions says
    of the agents' cleanup, read from their settings at every build: one sentence
    (or none) naming each agent that deletes, then what bough's archive does about
    it, said once for both."""
    deletes = [note for note in (claude_deletes() if claude else None, gemini_deletes() if gemini else None) if note]
    if not deletes:
        return []
    return [_kept_or_not(config, " and ".join(deletes), "they" if len(deletes) > 1 else "it")]


def claude_deletes() -> str | None:
    """When Claude Code will delete the transcripts a site shows: its settings have no
    ``cleanupPeriodDays`` or one of 30 days or less. Only read, never written: bough
    does not touch the agent's settings."""
    days, why = claude_cleanup_days()
    if days > _DEFAULT_CLEANUP_DAYS:
        return None
    when = "every time it starts" if days == 0 else f"after {_days(days)}"
    return f"Claude Code deletes transcripts {when} ({why})"


def _kept_or_not(config: BuildConfig, deletes: str, agents: str) -> str:
    """What the cleanup notice says of the archive: off, keeping copies, or unable to.
    ``agents``: "it" or "they", the agents that delete."""
    if config.archive is None:
        return f"{deletes}, and the archive is off (--no-archive): sessions {agents} delete{'s' * (agents == 'it')} " \
               "will drop off this site."
    if os.path.isdir(config.archive) and not os.access(config.archive, os.W_OK):
        return (f"{deletes}, and bough's archive in {config.archive} cannot be written: sessions {agents} "
                f"delete{'s' * (agents == 'it')} that the archive does not already hold will drop off this site.")
    return f"{deletes}; bough's archive in {config.archive} keeps a copy of every session it reads, so they stay."


def claude_cleanup_days() -> tuple[float, str]:
    """The shortest retention among Claude Code's settings files, and why."""
    shortest: tuple[float, str] | None = None
    for path in claude_settings_files():
        days, why = _cleanup_setting(path)
        if shortest is None or days < shortest[0]:
            shortest = (days, why)
    return shortest or (float(_DEFAULT_CLEANUP_DAYS), "its default")


def _cleanup_setting(path: Path) -> tuple[float, str]:
    """``cleanupPeriodDays`` from one settings file, read defensively: where the
    file, the key or a usable number is missing, Claude Code's default applies."""
    default = float(_DEFAULT_CLEANUP_DAYS)
    settings, why = read_settings(path)
    if settings is None:
        return default, f"its default: {why}"
    value = settings.get("cleanupPeriodDays")
    if value is None:
        return default, f"its default: {path} sets no cleanupPeriodDays"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return default, f"its default: cleanupPeriodDays in {path} is not a number of days"
    return float(value), f"cleanupPeriodDays in {path}"


# --------------------------------------------------------------------------- Gemini CLI's retention setting

_PERIOD_DAYS = {"h": 1 / 24, "d": 1.0, "w": 7.0, "m": 30.0}  # Gemini CLI's units ("m" is 30 days)


def gemini_deletes() -> str | None:
    """As :func:`claude_deletes`, for Gemini CLI: it deletes sessions older than
    ``general.sessionRetention.maxAge`` (30 days by default), or beyond its
    ``maxCount``, unless its ``enabled`` is false (docs/formats-gemini.md §1)."""
    rule = gemini_retention()
    return None if rule is None else f"Gemini CLI deletes sessions {rule}"


def gemini_retention() -> str | None:
    """When Gemini CLI deletes sessions, by its user settings, and why; None when it
    deletes none (retention off), or only those older than 30 days and with no count."""
    path = gemini_settings_file()
    settings, why = read_settings(path, comments=True)
    general = settings.get("general", {}) if settings is not None else {}
    if not isinstance(general, dict):
        general, why = {}, f"general in {path} is not an object"
    retention = general.get("sessionRetention")
    if not isinstance(retention, dict):
        return f"after {_DEFAULT_CLEANUP_DAYS} days (its default: {why or f'{path} sets no general.sessionRetention'})"
    if retention.get("enabled") is False:
        return None
    days = _period_days(retention.get("maxAge"))
    rules = []
    count = retention.get("maxCount")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 1:
        rules.append(f"beyond the {count:,} most recent of a project")
    if days is None or days <= _DEFAULT_CLEANUP_DAYS:
        rules.append(f"after {_days(_DEFAULT_CLEANUP_DAYS if days is None else days)}")
    if not rules:
        return None
    whence = "" if days is not None else ", maxAge its default"
    return f"{' and '.join(rules)} (general.sessionRetention in {path}{whence})"


def _days(days: float) -> str:
    """A number of days as a notice says it: "1 day", "30 days", "0.5 days"."""
    return f"{days:g} day" if days == 1 else f"{days:g} days"


def _period_days(value: Any) -> float | None:
    """``30d``, ``24h``, ``4w``, ``2m`` in days; None for anything else."""
    match = re.fullmatch(r"(\d+)([hdwm])", value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) == 0:
        return None
    return int(match.group(1)) * _PERIOD_DAYS[match.group(2)]


def read_settings(path: Path, *, comments: bool = False) -> tuple[dict[str, Any] | None, str]:
    """An agent's settings file as a JSON object, read defensively, or None and why not.
    ``comments``: ``//`` and ``/* */`` are allowed (Gemini CLI's are)."""
    if not os.path.lexists(path):
        return None, f"there is no {path}"
    handle = open_regular(path, str(path), lambda warning: None)
    if handle is None:
        return None, f"{path} cannot be read"
    with handle:
        data = handle.read(_MAX_SETTINGS + 1)
    try:
        settings = orjson.loads(_without_comments(data) if comments else data) if len(data) <= _MAX_SETTINGS else None
    except orjson.JSONDecodeError:
        settings = None
    if not isinstance(settings, dict):
        return None, f"{path} is not a JSON object"
    return settings, ""


def _without_comments(data: bytes) -> bytes:
    """JSON with ``//`` and ``/* */`` comments taken out (never inside a string)."""
    out = bytearray()
    i, size, in_string = 0, len(data), False
    while i < size:
        char = data[i]
        if in_string:
            out.append(char)
            if char == 0x5C and i + 1 < size:  # a backslash keeps the next byte
                out.append(data[i + 1])
                i += 1
            elif char == 0x22:
                in_string = False
        elif data.startswith(b"//", i):
            end = data.find(b"\n", i)
            i = size if end < 0 else end
            continue
        elif data.startswith(b"/*", i):
            end = data.find(b"*/", i + 2)
            i = size if end < 0 else end + 2
            continue
        else:
            out.append(char)
            in_string = char == 0x22
        i += 1
    return bytes(out)
