"""Links between our own pages: page-relative, percent-encoded, and to a moment
of a session (its part of a split page, and its anchor)."""

from __future__ import annotations

from urllib.parse import quote

import jinja2

from .. import urls
from ..model import Session


def link(page: str, target: str) -> str:
    """A page-relative link naming a file, percent-encoded so a stray ``#``,
    ``?`` or ``%`` in a name cannot change what it points to."""
    return quote(urls.relative(page, target), safe="/-._~")


@jinja2.pass_context
def url_from_page(context: jinja2.runtime.Context, target: str) -> str:
    return link(context["page"], target)


def moment_path(project_id: str, session: Session, anchor: str | None) -> str:
    """The page (of a session split in parts, the part) holding a moment."""
    return urls.session_part_html(project_id, session.slug, (session.anchor_parts or {}).get(anchor or "", 1))


def moment_link(page: str, project_id: str, session: Session, anchor: str | None) -> str:
    """A link from ``page`` to a moment of a session (``part#anchor``, or ``#anchor``
    on that very page), or to its page."""
    target = moment_path(project_id, session, anchor)
    if anchor and target == page:
        return f"#{anchor}"
    href = link(page, target)
    return f"{href}#{anchor}" if anchor else href


@jinja2.pass_context
def moment_from_page(context: jinja2.runtime.Context, project_id: str, session: Session, anchor: str | None) -> str:
    return moment_link(context["page"], project_id, session, anchor)
