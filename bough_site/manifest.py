"""What an incremental build remembers between runs, kept in OUT beside the site.

``OUT/.bough-manifest.json`` (written last, atomically, only by a build that
succeeded) holds:

- ``options``: one digest of everything that changes every page at once: the
  manifest schema, bough's version and source, the theme's files, the redaction
  settings (a digest of the key, never the key) and the page options. When it
  differs, every session is rebuilt.
- ``units``: one entry per *unit* of reading (a Claude session file with its
  sub-agent files, or all Codex rollouts together), keyed by kind and label:
  for each file its label, size, mtime and the sha256 of the bytes read, the
  warnings reading it gave, and the sessions it made. A unit is reused when
  every file has the same size and mtime, or the same sha256 when only those
  changed (Lektor's rule: cheap checks first, the checksum only when they differ).
- ``sessions``: one *summary* per session (every field the index, project pages
  and sidecars use; never the timeline), with its slug, project and the files
  it owns in OUT. A session whose source vanished keeps its summary and pages
  (``--prune`` drops them).
- ``site``: the files of the site itself (assets, index, project pages) and the
  discovery warnings, so a build where nothing changed rewrites nothing.

Each session's counting identities (its :class:`~bough_site.stats.Tally`) are
kept in ``OUT/.bough-state/<digest>.json``, read only when project or site
numbers must be recomputed. Both names start with ``.bough-``: the
:class:`~bough_site.write.SiteWriter` never writes, lists or prunes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import __version__
from .model import Session, Usage, Warning
from .stats import Tally

MANIFEST = ".bough-manifest.json"
STATE_DIR = ".bough-state"
SCHEMA = "bough.manifest/1"
_TMP = ".bough-tmp-"
_MAX_MANIFEST = 1 << 30

# --------------------------------------------------------------------------- session summaries

# Session fields a summary carries. A new per-session field that the index,
# project pages or sidecars should show (commits, files changed, a search
# excerpt ...) is added to Session and named here: it is then stored for
# reused sessions too. Its value must be JSON data (lists, dicts, str, int).
# The timeline never is: summaries must stay small.
SUMMARY_FIELDS: tuple[str, ...] = (
    "id",
    "source",
    "cwd",
    "title",
    "started",
    "ended",
    "versions",
    "models",
    "git_branch",
    "files",
    "stats",
    "parent_id",
    "redactions",
    "kept_since",
)


def summarize(session: Session) -> dict[str, Any]:
    """The part of a session the site outside its own page needs, as JSON data."""
    out: dict[str, Any] = {name: getattr(session, name) for name in SUMMARY_FIELDS}
    out["warnings"] = [[w.file, w.line, w.reason] for w in session.warnings]
    return out


def session_from_summary(summary: dict[str, Any], slug: str) -> Session:
    """A Session with every summary field and an empty timeline."""
    values = {name: summary.get(name) for name in SUMMARY_FIELDS}
    for name in ("versions", "models", "files"):
        values[name] = list(values[name] or [])
    for name in ("stats", "redactions"):
        values[name] = dict(values[name] or {})
    warnings = [Warning(f, n, r) for f, n, r in summary.get("warnings") or []]
    return Session(**values, timeline=[], warnings=warnings, slug=slug)


# --------------------------------------------------------------------------- tallies

_TALLY_SETS = ("records", "prompts", "commands", "tool_calls", "tool_results", "tool_errors", "subagents")
_USAGE = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
          "reasoning_output_tokens")


def tally_to_json(tally: Tally) -> dict[str, Any]:
    out: dict[str, Any] = {key: sorted(getattr(tally, key)) for key in _TALLY_SETS}
    out["replies"] = [[key, *(getattr(u, name) for name in _USAGE)] for key, u in sorted(tally.replies.items())]
    out["lines"], out["skipped_lines"], out["has_reasoning"] = tally.lines, tally.skipped_lines, tally.has_reasoning
    return out


def tally_from_json(data: dict[str, Any]) -> Tally:
    tally = Tally()
    for key in _TALLY_SETS:
        getattr(tally, key).update(data.get(key) or ())
    for key, *numbers in data.get("replies") or ():
        tally.replies[key] = Usage(*numbers)
    tally.lines = int(data.get("lines") or 0)
    tally.skipped_lines = int(data.get("skipped_lines") or 0)
    tally.has_reasoning = bool(data.get("has_reasoning"))
    return tally


# --------------------------------------------------------------------------- the options digest


def options_digest(parts: dict[str, Any], theme: Path | None) -> str:
    """One digest of everything that changes every page: the given option values,
    bough's version and source, and every file of the default and user themes."""
    h = hashlib.sha256()
    h.update(orjson.dumps({"schema": SCHEMA, "version": __version__, **parts}, option=orjson.OPT_SORT_KEYS))
    package = Path(__file__).resolve().parent
    from .render.env import default_theme_dir

    for label, root, pattern in (
        ("code", package, "*.py"),
        ("default-theme", default_theme_dir(), "*"),
        ("theme", theme, "*"),
    ):
        if root is None:
            continue
        for path in sorted(p for p in Path(root).rglob(pattern) if p.is_file() and "__pycache__" not in p.parts):
            h.update(f"\0{label}\0{path.relative_to(root).as_posix()}\0".encode("utf-8", "surrogateescape"))
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def key_digest(key: bytes) -> str:
    """Stands for the redaction key in the options digest (the key itself is never stored)."""
    return hashlib.sha256(b"bough-manifest-redaction-key\0" + key).hexdigest()


# --------------------------------------------------------------------------- the manifest


@dataclass
class FileState:
    label: str
    size: int
    mtime_ns: int
    sha256: str

    def as_list(self) -> list[Any]:
        return [self.label, self.size, self.mtime_ns, self.sha256]


@dataclass
class UnitState:
    kind: str
    files: list[FileState]
    sessions: list[str]  # session keys
    warnings: list[list[Any]]  # [file, line, reason], as reading gave them
    since: dict[str, str] = field(default_factory=dict)  # archive: main label -> kept since


@dataclass
class SessionState:
    key: str
    unit: str
    slug: str
    project: dict[str, str]  # id, name, cwd
    summary: dict[str, Any]
    outputs: list[str]  # files in OUT this session owns (pages, sidecar, images)
    tally: str  # name of its state file


@dataclass
class Manifest:
    options: str = ""
    units: dict[str, UnitState] = field(default_factory=dict)
    sessions: dict[str, SessionState] = field(default_factory=dict)
    site_outputs: list[str] = field(default_factory=list)
    site_warnings: list[list[Any]] = field(default_factory=list)

    # ---------------------------------------------------------------- reading

    @classmethod
    def load(cls, out: Path) -> Manifest:
        """The manifest of the last successful build, or an empty one when there is
        none or it cannot be used (then everything is rebuilt)."""
        data = _read_regular(Path(out) / MANIFEST, _MAX_MANIFEST)
        if data is None:
            return cls()
        try:
            doc = orjson.loads(data)
            if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
                return cls()
            manifest = cls(options=str(doc.get("options") or ""))
            for key, u in doc["units"].items():
                manifest.units[key] = UnitState(
                    kind=u["kind"],
                    files=[FileState(str(a), int(b), int(c), str(d)) for a, b, c, d in u["files"]],
                    sessions=[str(s) for s in u["sessions"]],
                    warnings=[list(w) for w in u.get("warnings") or []],
                    since=dict(u.get("since") or {}),
                )
            for key, s in doc["sessions"].items():
                manifest.sessions[key] = SessionState(
                    key=key, unit=str(s["unit"]), slug=str(s["slug"]), project=dict(s["project"]),
                    summary=dict(s["summary"]), outputs=[str(p) for p in s["outputs"]], tally=str(s["tally"]),
                )
            site = doc.get("site") or {}
            manifest.site_outputs = [str(p) for p in site.get("outputs") or []]
            manifest.site_warnings = [list(w) for w in site.get("warnings") or []]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            return cls()
        return manifest

    def tally(self, out: Path, key: str) -> Tally | None:
        state = self.sessions.get(key)
        if state is None or not _safe_name(state.tally):
            return None
        data = _read_regular(Path(out) / STATE_DIR / state.tally, _MAX_MANIFEST)
        if data is None:
            return None
        try:
            return tally_from_json(orjson.loads(data))
        except (orjson.JSONDecodeError, TypeError, ValueError, AttributeError):
            return None

    # ---------------------------------------------------------------- writing

    def to_bytes(self) -> bytes:
        doc = {
            "schema": SCHEMA,
            "generator": f"bough {__version__}",
            "options": self.options,
            "units": {
                key: {"kind": u.kind, "files": [f.as_list() for f in u.files], "sessions": u.sessions,
                      "warnings": u.warnings, "since": u.since}
                for key, u in self.units.items()
            },
            "sessions": {
                key: {"unit": s.unit, "slug": s.slug, "project": s.project, "summary": s.summary,
                      "outputs": s.outputs, "tally": s.tally}
                for key, s in self.sessions.items()
            },
            "site": {"outputs": self.site_outputs, "warnings": self.site_warnings},
        }
        return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) + b"\n"

    def save(self, out: Path) -> None:
        atomic_write(Path(out), MANIFEST, self.to_bytes(), durable=True)


def tally_name(session_key: str) -> str:
    return hashlib.sha256(session_key.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".json"


def save_tally(out: Path, name: str, tally_json: bytes) -> None:
    folder = Path(out) / STATE_DIR
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o755)
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise OSError(f"{folder} is not a directory")
    atomic_write(folder, name, tally_json)


def remove_tallies(out: Path, keep: set[str]) -> None:
    """Delete state files no session of the manifest names any more."""
    folder = Path(out) / STATE_DIR
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name not in keep and _safe_name(name):
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(folder / name).st_mode):
                    os.unlink(folder / name)


# --------------------------------------------------------------------------- files


def atomic_write(folder: Path, name: str, data: bytes, *, durable: bool = False) -> None:
    """Write to a temporary file in folder, then rename it over folder/name.
    Identical bytes are not rewritten."""
    target = folder / name
    current = _read_regular(target, len(data) + 1)
    if current == data:
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = folder / f"{_TMP}{secrets.token_hex(8)}"
        try:
            fd = os.open(tmp, flags, 0o644)
            break
        except FileExistsError:
            continue
    try:
        with open(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _read_regular(path: Path, limit: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with open(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return handle.read()


def _safe_name(name: str) -> bool:
    return bool(name) and "/" not in name and "\0" not in name and not name.startswith(".")


def file_state(path: Path, label: str) -> FileState | None:
    """Size and mtime of a file now (the checksum is filled in when it is read)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return FileState(label, info.st_size, info.st_mtime_ns, "")


def sha256_prefix(path: Path, size: int) -> str:
    """The sha256 of the first ``size`` bytes of path (what a reader that took
    the size first has read); empty when the file cannot be read."""
    h = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return ""
    with open(fd, "rb", buffering=0) as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return ""
        left = size
        while left > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()
