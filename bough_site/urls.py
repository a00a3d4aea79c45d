"""Where every page and sidecar lives in OUT, and links between them.

Page URLs are a public interface: people link to them and archive them, so the
scheme below must stay stable. Every internal link is relative to the page that
holds it and names a file (``../projects/x/index.html``), so the site works from
``file://``, from a server root and under any sub-path.
"""

from __future__ import annotations

import posixpath

INDEX_HTML = "index.html"
INDEX_JSON = "index.json"
ASSETS_DIR = "assets"
IMAGES_DIR = "images"


def project_html(project_id: str) -> str:
    return f"projects/{project_id}/index.html"


def project_json(project_id: str) -> str:
    return f"projects/{project_id}/project.json"


def project_sessions_js(project_id: str) -> str:
    """The project's sessions in time order, as a script: how a session page finds
    its neighbours without depending on their pages (bough_site/publish.py)."""
    return f"projects/{project_id}/sessions.js"


def project_month_html(project_id: str, name: str) -> str:
    """A page of a big project's sessions: a month (``2026-02``), or a piece of a big
    month (``2026-02-1``), or ``undated`` (render/months.py: MonthPage.name)."""
    return f"projects/{project_id}/months/{name}.html"


def project_rows_js(project_id: str) -> str:
    """A big project's session rows, as a script: what its pages' rows.js sorts and
    filters across all its pages (docs/sidecars.md, bough.rows)."""
    return f"projects/{project_id}/rows.js"


def in_project(project_id: str, path: str) -> str:
    """``path`` (under OUT, inside the project's folder) relative to that folder:
    ``projects/x/sessions/s.html`` → ``sessions/s.html``."""
    return relative(project_html(project_id), path)


def session_html(project_id: str, session_slug: str) -> str:
    return f"{session_stem(project_id, session_slug)}.html"


def session_stem(project_id: str, session_slug: str) -> str:
    """A session's page without its ".html": how search's shards name the page."""
    return f"projects/{project_id}/sessions/{session_slug}"


def session_part_html(project_id: str, session_slug: str, number: int) -> str:
    """Part ``number`` of a session page split in parts (1: the session's own page)."""
    return session_html(project_id, session_slug if number <= 1 else f"{session_slug}-{number}")


def session_json(project_id: str, session_slug: str) -> str:
    return f"projects/{project_id}/sessions/{session_slug}.json"


def image_path(filename: str) -> str:
    return f"{IMAGES_DIR}/{filename}"


def relative(from_page: str, to_path: str) -> str:
    """The link from the page at ``from_page`` to ``to_path`` (both relative to OUT):
    what ``posixpath.relpath`` gives, made from the names alone (relpath asks the
    system for the working directory at every call, and every page makes several)."""
    start = posixpath.normpath(posixpath.dirname(from_page) or ".")
    target = posixpath.normpath(to_path)
    if start.startswith(("/", "..")) or target.startswith(("/", "..")):
        return posixpath.relpath(to_path, start)
    here = [] if start == "." else start.split("/")
    there = [] if target == "." else target.split("/")
    common = 0
    for a, b in zip(here, there):
        if a != b:
            break
        common += 1
    return "/".join([".."] * (len(here) - common) + there[common:]) or "."
