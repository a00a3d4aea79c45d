"""What an incremental build remembers between runs, kept in OUT beside the site.

``OUT/.bough-manifest.json`` (written last, atomically, only by a build that
succeeded) holds:

- ``options``: one digest of everything that changes every page at once: the
  manifest schema, bough's version, the theme's files, the redaction
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
numbers must be recomputed; and, for a Claude session file of a project
directory holding others, the summary resumes.py compares to find resumes, in
``OUT/.bough-state/<digest>.records``. Each is kept as long as its session is
(also when its source is gone). The code blocks pages highlighted are kept in
one store for every session, ``OUT/.bough-state/blocks/blocks.sqlite``
(:mod:`bough_site.render.blockstore`): a session that grew by one turn, or every
session after a version change, lexes only text never lexed before; after a
build, blocks no session of the manifest uses are dropped. The folder's name
starts with ``.bough-``: the :class:`~bough_site.write.SiteWriter` never writes,
lists or prunes it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import stat
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import __version__
from .model import Session, Usage, Warning
from .stats import Tally
from .write import replace_file

MANIFEST = ".bough-manifest.json"
STATE_DIR = ".bough-state"
SCHEMA = "bough.manifest/1"
_MAX_MANIFEST = 1 << 30

# --------------------------------------------------------------------------- session summaries

# Session fields a summary carries. A new per-session field that the index,
# project pages or sidecars should show (commits, files changed, a search
# excerpt ...) is added to Session and named here: it is then stored for
# reused sessions too. Its value must be JSON data, dataclasses of the model
# or lists, dicts and tuples of those. The timeline never is: summaries must
# stay small.
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
    # What the agent built (bough_site/work.py): the project page's timeline and charts.
    "commits",
    "file_changes",
    "agents",
    "prompt_times",
    "reply_usage",
    "search_items",  # the file:// search index (search.py)
    "anchor_parts",  # which part of a split page holds a linked moment (render/pages.py)
)


@functools.lru_cache(maxsize=1)
def _session_fields() -> dict[str, Any]:
    hints = typing.get_type_hints(Session)
    return {name: hints[name] for name in SUMMARY_FIELDS if name in hints}


def summarize(session: Session) -> dict[str, Any]:
    """The part of a session the site outside its own page needs, as JSON data."""
    out: dict[str, Any] = {name: _encode(getattr(session, name)) for name in _session_fields()}
    out["warnings"] = [[w.file, w.line, w.reason] for w in session.warnings]
    return out


def session_from_summary(summary: dict[str, Any], slug: str) -> Session:
    """A Session with every summary field and an empty timeline."""
    values = {name: _decoder(hint)(summary[name]) for name, hint in _session_fields().items() if name in summary}
    for name in ("versions", "models", "files"):
        values[name] = list(values.get(name) or [])
    for name in ("stats", "redactions"):
        values[name] = dict(values.get(name) or {})
    for name in ("id", "source", "cwd", "title", "started", "ended", "git_branch"):
        values.setdefault(name, None)
    warnings = [Warning(f, n, r) for f, n, r in summary.get("warnings") or []]
    return Session(**values, timeline=[], warnings=warnings, slug=slug)


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return {key: _encode(item) for key, item in value.items()}
    return value


def _same(value: Any) -> Any:
    return value


@functools.cache
def _decoder(hint: Any) -> Callable[[Any], Any]:
    """A function turning JSON data back into the type a Session field is
    annotated with (dataclasses, lists, dicts and tuples of them), made once per type."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(options) != 1:
            return _same
        inner = _decoder(options[0])
        return _same if inner is _same else (lambda value: None if value is None else inner(value))
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields_ = [(f.name, _decoder(hints[f.name])) for f in dataclasses.fields(hint)]

        def dataclass_(value: Any) -> Any:
            if not isinstance(value, dict):
                return value
            return hint(**{name: decode(value[name]) for name, decode in fields_ if name in value})

        return dataclass_
    args = typing.get_args(hint)
    if origin is list:
        item = _decoder(args[0]) if args else _same
        if item is _same:
            return lambda value: list(value) if isinstance(value, list) else value
        return lambda value: [item(v) for v in value] if isinstance(value, list) else value
    if origin is dict:
        item = _decoder(args[1]) if len(args) == 2 else _same
        if item is _same:
            return lambda value: dict(value) if isinstance(value, dict) else value
        return lambda value: {k: item(v) for k, v in value.items()} if isinstance(value, dict) else value
    if origin is tuple:
        return lambda value: tuple(value) if isinstance(value, list) else value
    return _same


# --------------------------------------------------------------------------- tallies

_TALLY_SETS = tuple(f.name for f in dataclasses.fields(Tally) if f.type in ("set[str]", set[str]))
_USAGE = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
          "reasoning_output_tokens")


def tally_to_json(tally: Tally) -> dict[str, Any]:
    """A tally as JSON data, each identity replaced by an 80-bit digest of it:
    identities name files and paths (``<label>:<line>``, a changed file's path),
    and OUT may be published with its dotfiles. Project and site counts are
    unions of these digests, in a fresh build as in an incremental one."""
    out: dict[str, Any] = {key: sorted({hide(item) for item in getattr(tally, key)}) for key in _TALLY_SETS}
    replies: dict[str, Usage] = {}
    for key, usage in tally.replies.items():
        digest = hide(key)
        seen = replies.get(digest)
        if seen is None or usage.total() > seen.total():
            replies[digest] = usage
    out["replies"] = [[key, *(getattr(u, name) for name in _USAGE)] for key, u in sorted(replies.items())]
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


def hide(text: str) -> str:
    """A short, stable digest standing for a name that must not be stored as is."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


# --------------------------------------------------------------------------- the options digest


def options_digest(parts: dict[str, Any], theme: Path | None) -> str:
    """One digest of everything that changes every page: the given option values,
    bough's version, and every file of the default and user themes. (Not bough's
    code: a change to it that changes pages must come with a new version.)"""
    h = hashlib.sha256()
    h.update(orjson.dumps({"schema": SCHEMA, "version": __version__, **parts}, option=orjson.OPT_SORT_KEYS))
    from .render.env import default_theme_dir

    for label, root, pattern in (
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
    since: str = ""  # digest of the archive's kept-since dates for its files
    inherit: str = ""  # digest of what its session inherits from an earlier one (resumes.py); "" nothing


@dataclass
class SessionState:
    key: str
    unit: str
    slug: str
    project: dict[str, str]  # id, name, cwd
    summary: dict[str, Any]
    outputs: list[str]  # files in OUT this session owns (pages, sidecar, images)
    tally: str  # name of its state file
    scan: str = ""  # Claude: name of the state file of its file's summary (resumes.py; "" if none)
    group: str = ""  # Claude: digest of its project directory, whose files are compared
    links: dict[str, str | None] = field(default_factory=dict)  # other sessions' pages its pages link to


@dataclass
class Manifest:
    options: str = ""
    units: dict[str, UnitState] = field(default_factory=dict)
    sessions: dict[str, SessionState] = field(default_factory=dict)
    site_outputs: list[str] = field(default_factory=list)
    valid: bool = False  # read from a manifest a build wrote (not made up empty)
    site_signature: str = ""  # what the index and project pages were made of
    project_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    project_signatures: dict[str, str] = field(default_factory=dict)  # what each project page was made of
    site_stats: dict[str, int] = field(default_factory=dict)

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
            manifest = cls(options=str(doc.get("options") or ""), valid=True)
            for key, u in doc["units"].items():
                manifest.units[key] = UnitState(
                    kind=u["kind"],
                    files=[FileState(str(a), int(b), int(c), str(d)) for a, b, c, d in u["files"]],
                    sessions=[str(s) for s in u["sessions"]],
                    warnings=[list(w) for w in u.get("warnings") or []],
                    since=str(u.get("since") or ""),
                    inherit=str(u.get("inherit") or ""),
                )
            for key, s in doc["sessions"].items():
                manifest.sessions[key] = SessionState(
                    key=key, unit=str(s["unit"]), slug=str(s["slug"]), project=dict(s["project"]),
                    summary=dict(s["summary"]), outputs=[str(p) for p in s["outputs"]], tally=str(s["tally"]),
                    scan=str(s.get("scan") or ""),
                    group=str(s.get("group") or ""),
                    links={str(k): None if v is None else str(v) for k, v in (s.get("links") or {}).items()},
                )
            site = doc.get("site") or {}
            manifest.site_outputs = [str(p) for p in site.get("outputs") or []]
            manifest.site_signature = str(site.get("signature") or "")
            manifest.project_stats = {str(k): dict(v) for k, v in (site.get("project_stats") or {}).items()}
            manifest.project_signatures = {str(k): str(v) for k, v in (site.get("project_signatures") or {}).items()}
            manifest.site_stats = dict(site.get("stats") or {})
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            return cls()
        return manifest

    def tally_file(self, out: Path, name: str) -> Tally | None:
        """A session's identities from its state file, or None when it is missing."""
        data = read_state(out, name)
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
                      "warnings": u.warnings, "since": u.since, "inherit": u.inherit}
                for key, u in self.units.items()
            },
            "sessions": {
                key: {"unit": s.unit, "slug": s.slug, "project": s.project, "summary": s.summary,
                      "outputs": s.outputs, "tally": s.tally, "scan": s.scan,
                      "group": s.group, "links": s.links}
                for key, s in self.sessions.items()
            },
            "site": {"outputs": self.site_outputs, "signature": self.site_signature,
                     "project_stats": self.project_stats, "project_signatures": self.project_signatures,
                     "stats": self.site_stats},
        }
        return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) + b"\n"

    def save(self, out: Path) -> None:
        atomic_write(Path(out), MANIFEST, self.to_bytes(), durable=True)


def tally_name(tally_json: bytes) -> str:
    return state_name(tally_json, ".json")


def state_name(data: bytes, suffix: str) -> str:
    """State files are named by their content: unchanged state keeps its file."""
    return hashlib.sha256(data).hexdigest()[:32] + suffix


def read_state(out: Path, name: str) -> bytes | None:
    """A state file's bytes, or None when it is missing, odd or not a plain name."""
    if not _safe_name(name):
        return None
    return _read_regular(Path(out) / STATE_DIR / name, _MAX_MANIFEST)


def save_state(out: Path, name: str, data: bytes) -> None:
    folder = Path(out) / STATE_DIR
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o755)
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise OSError(f"{folder} is not a directory")
    atomic_write(folder, name, data)


def remove_states(out: Path, keep: set[str]) -> None:
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
    """Write folder/name atomically; identical bytes are not rewritten."""
    if _read_regular(folder / name, len(data) + 1) != data:
        replace_file(folder, name, data, durable=durable, mode=0o644)


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
