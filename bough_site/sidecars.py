"""The JSON sidecars: a public interface people script against.

Schemas are in docs/schema/ and validated in the tests. All paths inside are
relative to OUT and use ``/``. Written with orjson, keys sorted, UTF-8, with a
newline at the end (``write.json_bytes``).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from . import __version__, urls
from .model import NOT_IN_SIDECAR, OMIT_DEFAULT, Image, Project, Session, Site, Usage
from .render.images import image_filename, sniff_image
from .work import project_commits, project_files
from .write import json_bytes

_OMIT = OMIT_DEFAULT["sidecar"]  # a field left out of the sidecar while it has its default
_NEVER = NOT_IN_SIDECAR["sidecar"]  # a field never in the sidecar

SITE_SCHEMA = "bough.site/3"
PROJECT_SCHEMA = "bough.project/4"
SESSION_SCHEMA = "bough.session/4"


def generator() -> str:
    return f"bough {__version__}"


def _prices(prices: str | None) -> dict[str, str]:
    """The price data's version (pricing.PriceTable.version); nothing with --no-cost."""
    return {"prices": prices} if prices else {}


def site_json(site: Site, prices: str | None = None) -> dict[str, Any]:
    sessions = sum(len(p.sessions) for p in site.projects)
    return {
        "schema": SITE_SCHEMA,
        **_prices(prices),
        "generator": generator(),
        "stats": {**site.stats, "projects": len(site.projects), "sessions": sessions},
        "projects": [
            {
                "id": project.id,
                "name": project.name,
                "cwd": project.cwd,
                "html": urls.project_html(project.id),
                "json": urls.project_json(project.id),
                "stats": {**project.stats, "sessions": len(project.sessions)},
            }
            for project in site.projects
        ],
    }


def project_json(project: Project, prices: str | None = None) -> dict[str, Any]:
    return {
        "schema": PROJECT_SCHEMA,
        **_prices(prices),
        "id": project.id,
        "name": project.name,
        "cwd": project.cwd,
        "stats": project.stats,
        "sessions": [session_summary(project, session) for session in project.sessions],
        "commits": [
            {**commit, "session": session.id, "html": _moment(project, session, commit["anchor"])}
            for commit, session in project_commits(project.sessions)
        ],
        "files_changed": [
            {**{key: change[key] for key in _FILE_KEYS}, "sessions": [session.id for session, _ in change["sessions"]]}
            for change in project_files(project.sessions)
        ],
    }


_FILE_KEYS = ("path", "edits", "lines_added", "lines_removed", "created", "deleted")


def session_summary(project: Project, session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "title": session.title,
        "source": session.source,
        "started": session.started,
        "ended": session.ended,
        "html": urls.session_html(project.id, session.slug),
        "json": urls.session_json(project.id, session.slug),
        "stats": session.stats,
    }


def session_bytes(project: Project, session: Session, prices: str | None = None) -> bytes:
    """A session's sidecar as written: compact, since it holds every tool output."""
    return json_bytes(session_json(project, session, prices), compact=True)


def session_json(project: Project, session: Session, prices: str | None = None) -> dict[str, Any]:
    return {
        "schema": SESSION_SCHEMA,
        **_prices(prices),
        "id": session.id,
        "project": project.id,
        "source": session.source,
        "cwd": session.cwd,
        "title": session.title,
        "started": session.started,
        "ended": session.ended,
        "versions": session.versions,
        "models": session.models,
        "git_branch": session.git_branch,
        "parent": session.parent_id,
        "kept_since": session.kept_since,
        "html": urls.session_html(project.id, session.slug),
        "anchor_pages": {anchor: urls.session_part_html(project.id, session.slug, part)
                         for anchor, part in sorted((session.anchor_parts or {}).items())},
        "files": session.files,
        "stats": session.stats,
        "redactions": session.redactions,
        "warnings": [{"file": w.file, "line": w.line, "reason": w.reason} for w in session.warnings],
        "commits": session.commits,
        "files_changed": session.file_changes,
        "timeline": [to_json(item) for item in session.timeline],
        "orphan_subagents": [to_json(run) for run in session.orphan_subagents],
    }


def _moment(project: Project, session: Session, anchor: str) -> str:
    """The page holding a moment (of a page split in parts, its part), ``#anchor`` appended."""
    part = (session.anchor_parts or {}).get(anchor, 1)
    return urls.session_part_html(project.id, session.slug, part) + "#" + anchor


def to_json(value: Any) -> Any:
    """A model value as JSON data: dataclasses become objects tagged with their
    ``kind``; images name the file the site holds instead of carrying base64."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, list):
        return [to_json(item) for item in value]
    if isinstance(value, Image):
        return _image_json(value)
    if isinstance(value, Usage):
        usage = dataclasses.asdict(value)
        if not value.unknown:
            del usage["unknown"]  # only a reply whose tokens are unknown says so
        del usage["unknown_keys"]
        if not value.cache_creation_1h_input_tokens:
            del usage["cache_creation_1h_input_tokens"]  # only a reply with one-hour cache writes says so
        for key in value.unknown_keys:
            usage[key] = None  # the record does not hold it for this reply (Copilot CLI's input)
        return usage
    shape = _shape(type(value))
    if shape is None:
        return value
    kind, names = shape
    out: dict[str, Any] = {} if kind is None else {"kind": kind}
    for name, omit, default in names:
        field_value = getattr(value, name)
        if omit and field_value == default:
            continue  # a field only some sources set
        out[name] = to_json(field_value)
    return out


# Returned as they are, without looking for a dataclass (most values of a timeline).
_PLAIN = (str, int, float, type(None))


@functools.cache
def _shape(cls: type) -> tuple[str | None, tuple[tuple[str, bool, Any], ...]] | None:
    """What to_json writes of a dataclass: its ``kind`` tag and, per field, its
    name, whether its default is left out, and that default; None for another type."""
    if not dataclasses.is_dataclass(cls):
        return None
    kind = getattr(cls, "kind", None)
    names = tuple((item.name, item.metadata.get("sidecar") == _OMIT, item.default) for item in dataclasses.fields(cls)
                  if item.metadata.get("sidecar") != _NEVER)
    return (kind if isinstance(kind, str) else None), names


def _image_json(image: Image) -> dict[str, Any]:
    sniffed = sniff_image(image.data)
    path = urls.image_path(image_filename(sniffed[1], sniffed[0])) if sniffed else None
    return {"kind": "image", "file": path}
