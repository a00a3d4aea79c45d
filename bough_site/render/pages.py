"""Pages: what each template gets, and the Renderer the build calls.

The templates (themes/default/templates) write every piece of markup; this
module hands them plain values and the Markup our own renderers produced
(Markdown, Pygments, diffs, charts).  No transcript string becomes markup here
except through those renderers or Jinja's autoescape.  The values come from
modules of their own: :mod:`.formats` (numbers, moments, durations),
:mod:`.blocks`, :mod:`.tool_views` and :mod:`.result_views` (what a tool call
shows), :mod:`.page_links`, :mod:`.parts` (a split session page),
:mod:`.assets`, :mod:`.months` and :mod:`.project_summary`.

Index and project pages read only session *summaries* (never ``timeline``):
incremental builds render them without loading timelines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from .. import __version__, urls
from ..config import DEFAULT_HIGHLIGHT_LIMIT
from ..cost_text import cost_facts, money, reply_cost
from ..model import (
    REASONING_KEY,
    UNKNOWN_SESSIONS_PREFIX,
    UNKNOWN_TOKENS_KEY,
    Image,
    Marker,
    Project,
    Session,
    Site,
    SubagentRun,
    TimelineItem,
    ToolCall,
)
from . import charts
from .assets import SEARCH_SCRIPT, asset_name, static_files
from .blocks import Block, code_block
from .built import NO_WORK, project_work
from .env import is_default_template, make_env
from .timeline import Timeline, timeline
from .blockstore import BlockStore
from .formats import (
    TOKEN_KEYS,
    compact,
    duration,
    excerpt,
    is_long,
    num,
    one_line,
    reply_tokens,
    seconds,
    short_models,
    source_label,
    strip_ansi,
    tokens,
    tokens_unknown,
    when,
)
from .highlight import highlighting
from .highlight_budget import OUTPUT
from .images import image_filename, sniff_image
from .markdown import render_markdown
from .page_links import link, moment_from_page, moment_link, url_from_page
from .parts import Part, anchor_parts, linked_anchors, outline, session_prompts
from .months import MonthPage
from .project_summary import ProjectFacts, ProjectSummary, by_recent_activity, summarize_project
from .result_views import (
    ImageView,
    ResultView,
    agent_trailer,
    gemini_result,
    read_content,
    result_facts,
    result_text_parts,
)
from .tool_views import ToolView, tool_view

# A session page is split when its HTML would pass this many bytes.
PAGE_LIMIT = 5_000_000


# Markup: our own constant, so its quotes are written as typed, not as &#39;.
CSP = Markup("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:")
# Pagefind runs WebAssembly; only pages built with search need to allow it.
CSP_SEARCH = Markup("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:")

MARKER_TYPES = ("compaction", "interruption", "error", "warning", "notice", "meta", "inherited")
MARKER_LABELS = {
    "compaction": "Context compacted",
    "interruption": "Interrupted",
    "error": "Error",
    "warning": "Warning",
    "notice": "Notice",
    "meta": "Note",
    "inherited": "Inherited history",
}

# (stats key, label) in the order pages show them.
STAT_LABELS: tuple[tuple[str, str], ...] = (
    ("prompts", "prompts"),
    ("replies", "replies"),
    ("commands", "commands"),
    ("tool_calls", "tool calls"),
    ("tool_errors", "tool errors"),
    ("subagents", "sub-agents"),
    ("commits", "commits"),
    ("files_changed", "files changed"),
    ("input_tokens", "input tokens"),
    ("output_tokens", "output tokens"),
    ("cache_creation_input_tokens", "cache writes"),
    ("cache_read_input_tokens", "cache reads"),
    (REASONING_KEY, "reasoning tokens"),
    (UNKNOWN_TOKENS_KEY, "replies of unknown tokens"),
    (UNKNOWN_SESSIONS_PREFIX + "input_tokens", "sessions of unknown input tokens"),
    (UNKNOWN_SESSIONS_PREFIX + "output_tokens", "sessions of unknown output tokens"),
    (UNKNOWN_SESSIONS_PREFIX + "cache_creation_input_tokens", "sessions of unknown cache writes"),
    (UNKNOWN_SESSIONS_PREFIX + "cache_read_input_tokens", "sessions of unknown cache reads"),
    (UNKNOWN_SESSIONS_PREFIX + REASONING_KEY, "sessions of unknown reasoning tokens"),
    ("records", "records"),
    ("lines", "lines read"),
    ("skipped_lines", "lines skipped"),
)


# --- per-session state while rendering ------------------------------------------------


class PageState:
    """What rendering one session collects and decides: the image files it
    writes, unique anchor prefixes for nested sub-agents, links to other sessions.
    Templates call its methods (``state.image(block)``)."""

    def __init__(self, page: str, session_links: dict[str, str],
                 tool_templates: Callable[[object], jinja2.Template] | None = None) -> None:
        self.page = page
        self.session_links = session_links
        self.images: dict[str, bytes] = {}
        self._prefixes: set[str] = set()
        self._tool_templates = tool_templates

    def image(self, block: Image) -> ImageView:
        sniffed = sniff_image(block.data)
        if sniffed is None:
            size = len(block.data) * 3 // 4 if isinstance(block.data, str) else 0
            reason = f"not a PNG, JPEG, GIF or WebP image ({num(size)} bytes)"
            return ImageView(None, "", reason)
        ext, raw = sniffed
        name = image_filename(raw, ext)
        self.images.setdefault(name, raw)
        alt = f"image ({ext.upper()}, {num(len(raw))} bytes)"
        return ImageView(link(self.page, urls.image_path(name)), alt)

    def text(self, text: str) -> Block:
        """Plain text (a command's output), collapsed when long."""
        return code_block(strip_ansi(text if isinstance(text, str) else ""), kind=OUTPUT)

    def is_long(self, text: object) -> bool:
        return is_long(text)

    def tool(self, call: ToolCall) -> ToolView:
        return tool_view(call)

    def tool_template(self, call: ToolCall) -> jinja2.Template:
        """The template that shows this call: ``tools/<name>.html`` when the
        theme has one for the tool's name, else ``tools/default.html``."""
        if self._tool_templates is None:
            raise jinja2.TemplateError("state.tool_template is only available while a session is rendered")
        return self._tool_templates(call.name)

    def result(self, call: ToolCall, view: ToolView) -> ResultView | None:
        if call.result is None:
            return None
        out = ResultView(is_error=bool(call.result.is_error))
        # A Read's recorded file text is the file itself: no line numbers, no
        # harness reminder appended. Prefer it to the text the model was shown.
        file_text = read_content(call.result) if call.name == "Read" and not out.is_error else None
        if file_text is not None:
            out.parts.append(code_block(file_text, kind=OUTPUT, filename=view.file))
        for part in call.result.content:
            if isinstance(part, Image):
                out.parts.append(self.image(part))
            elif file_text is None and isinstance(getattr(part, "text", None), str) and part.text:
                note = agent_trailer(part.text) if call.name in ("Task", "Agent") else None
                if note is not None:
                    out.note = note
                else:
                    out.parts.extend(result_text_parts(call, view, part.text, out))
        gemini_result(call, out)
        result_facts(call, out)
        return out

    def subagent_prefix(self, run: SubagentRun, parent: str) -> str:
        """An id prefix for a sub-agent's anchors, unique on the page and stable
        across builds (from the agent id, only [A-Za-z0-9_-] kept)."""
        agent = re.sub(r"[^A-Za-z0-9_-]", "", str(run.agent_id))[:40] or "agent"
        base = f"{parent}a-{agent}-"
        prefix, n = base, 1
        while prefix in self._prefixes:
            n += 1
            prefix = f"{base}{n}-"
        self._prefixes.add(prefix)
        return prefix

    def session_link(self, session_id: object) -> str | None:
        """The link to another session's page, if the build knows it."""
        target = self.session_links.get(session_id) if isinstance(session_id, str) else None
        return link(self.page, target) if target else None

    def marker_type(self, marker: Marker) -> str:
        """The marker's type when it is one we know (it becomes a class name)."""
        return marker.type if marker.type in MARKER_TYPES else "notice"


def _render_shared(template: jinja2.Template, variables: dict[str, Any]) -> str:
    """``template.render(variables)`` for ``variables`` that already hold the
    globals: Jinja's render copies them (a ChainMap, ~30 names) on every call."""
    try:
        return template.environment.concat(  # type: ignore[attr-defined]
            template.root_render_func(template.new_context(variables, shared=True))
        )
    except Exception:
        return template.environment.handle_exception()


# A tool name that may name a template file (tools/<name>.html): no "/", no
# leading dot, nothing a loader would read as a path.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


# --- the renderer -----------------------------------------------------------------------


class Renderer:
    """Renders the pages of a site with one theme. The build calls this."""

    page_limit: int = PAGE_LIMIT

    def __init__(self, theme: Path | None = None, *, search: bool = False,
                 highlight_limit: int = DEFAULT_HIGHLIGHT_LIMIT, store: BlockStore | None = None,
                 compiled: Path | None = None, prices: str | None = None) -> None:
        self.env = make_env(theme, compiled)
        self.prices = prices  # the price table's version; None: no cost shown (--no-cost)
        self.search = search
        self.highlight_limit = highlight_limit  # --highlight-limit, in KB (highlight.Budget)
        self.store = store  # highlighted blocks across sessions and builds (None: this process's memory)
        self._tool_templates: dict[str, jinja2.Template] = {}
        self._item_templates: dict[str, jinja2.Template] = {}
        files = static_files(theme)
        if not search:
            files.pop(SEARCH_SCRIPT, None)  # the search box's script: written only with the box
        self._assets = sorted((asset_name(name, data), data) for name, data in files.items())
        self._asset_paths = {name: asset_name(name, data) for name, data in files.items()}
        self.env.globals.update(self._globals())
        # macros.html once per renderer (the theme's, if it has one), rather than
        # an {% import %} per item: every template can call m.time(), m.block() ...
        self.env.globals["m"] = self.env.get_template("macros.html").module
        # The item templates joined into one when the theme uses the default's
        # (timeline.py: the same bytes); None: every item through its own files.
        self.timeline: Timeline | None = timeline(self.env, self.tool_template)

    def _globals(self) -> dict[str, Any]:
        return {
            "version": __version__,
            "search": self.search,
            "csp": CSP_SEARCH if self.search else CSP,
            "urls": urls,
            "url": url_from_page,
            "moment": moment_from_page,
            "asset": self._asset,
            "when": when,
            "duration": duration,
            "num": num,
            "compact": compact,
            "tokens": tokens,
            "tokens_unknown": tokens_unknown,
            "seconds": seconds,
            "short_models": short_models,
            "source_label": source_label,
            "one_line": one_line,
            "excerpt": excerpt,
            "reply_tokens": reply_tokens,
            "prices": self.prices,
            "money": money,
            "cost_facts": cost_facts,
            "reply_cost": reply_cost,
            "markdown": render_markdown,
            "stat_labels": STAT_LABELS,
            "marker_labels": MARKER_LABELS,
            "token_keys": TOKEN_KEYS,
        }

    @jinja2.pass_context
    def _asset(self, context: jinja2.runtime.Context, name: str) -> str:
        # A missing asset is a theme bug: fail the build rather than ship a broken link.
        if name not in self._asset_paths:
            raise jinja2.TemplateError(f"no static file named {name!r} in the theme")
        return link(context["page"], self._asset_paths[name])

    def assets(self) -> list[tuple[str, bytes]]:
        """Every static file as (path under OUT, bytes), sorted by path."""
        return list(self._assets)

    def _render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(**context)

    def _page(self, template: str, **context: Any) -> bytes:
        """A whole page, as UTF-8: each piece the template yields is encoded as it
        comes. Joined first, a split session's 5 MB part was one str at up to four
        bytes a character (one emoji is enough), 18 MB beside its bytes, in a worker
        that holds the session too; encoding piece by piece takes the same time."""
        return b"".join([piece.encode("utf-8") for piece in self.env.get_template(template).generate(**context)])

    def index_page(self, site: Site, *, with_chart: bool = True, facts: dict[str, ProjectFacts] | None = None) -> bytes:
        """The index; ``with_chart`` False leaves out the activity chart (the page a
        build falls back to when making the chart failed). ``facts``: what it takes
        of the projects it holds, kept (project_summary.ProjectFacts)."""
        facts = facts or {}
        projects = by_recent_activity(site.projects, facts)
        return self._page(
            "index.html",
            page=urls.INDEX_HTML,
            site=site,
            projects=projects,
            sources=sorted({source for p in projects for source in p.sources}),
            session_count=sum(len(p.sessions) for p in site.projects),
            chart=self._index_chart(site, facts) if with_chart else Markup(""),
        )

    @staticmethod
    def _index_chart(site: Site, facts: dict[str, ProjectFacts]) -> Markup:
        """Sessions per week, of every project: their weeks' totals added up."""
        totals: dict[date, int] = {}
        for project in site.projects:
            known = facts.get(project.id)
            for week, count in (known.week_totals(project) if known else charts.weekly_totals(project.sessions)).items():
                totals[week] = totals.get(week, 0) + count
        return charts.chart_of(charts.weeks_of(totals))

    def project_page(self, project: Project, site: Site, *, with_work: bool = True,
                     summary: ProjectSummary | None = None) -> bytes:
        """A project's page; ``with_work`` False leaves out what its agents built
        (the page a build falls back to when making that part failed). A big
        project's page shows its newest sessions and links its months' pages
        (``summary.paging``: render/months.py)."""
        page = urls.project_html(project.id)
        summary = summary or summarize_project(project)
        work = project_work(project, summary.sessions, lambda s, anchor: moment_link(page, project.id, s, anchor)) \
            if with_work else NO_WORK
        return self._page("project.html", page=page, site=site, project=project, summary=summary, work=work,
                          paging=summary.paging)

    def month_page(self, project: Project, summary: ProjectSummary, month: MonthPage) -> bytes:
        """One page of a big project's sessions: a month, or a piece of a big month.
        It shows only what its own sessions and its neighbours' names make, so a
        new session rewrites its month's page and no older one."""
        paging = summary.paging
        if paging is None:
            raise ValueError(f"project {project.id} is one page: it has no month pages")
        newer, older = paging.around(month)
        return self._page("project_month.html", page=urls.project_month_html(project.id, month.name),
                          project=project, summary=summary, month=month, newer=newer, older=older)

    def tool_template(self, name: object) -> jinja2.Template:
        """``tools/<name>.html`` if the theme has it, else ``tools/default.html``;
        looked up once per name (a name that is not a plain file name, such as
        one with a "/", always gets the default)."""
        key = name if isinstance(name, str) else ""
        template = self._tool_templates.get(key)
        if template is None:
            names = [f"tools/{key}.html"] if _TOOL_NAME.fullmatch(key) else []
            template = self.env.select_template([*names, "tools/default.html"])
            self._tool_templates[key] = template
        return template

    def _item_template(self, kind: object) -> jinja2.Template:
        """What renders a top-level timeline item: ``item.html`` when the theme
        replaces it; else what the default item.html would include for the
        kind (``items/<kind>.html`` or ``items/unknown.html``): the same bytes,
        one template render fewer per item."""
        key = kind if isinstance(kind, str) else ""
        template = self._item_templates.get(key)
        if template is None:
            if not is_default_template(self.env, "item.html"):
                template = self.env.get_template("item.html")
            else:
                template = self.env.select_template([f"items/{key}.html", "items/unknown.html"])
            self._item_templates[key] = template
        return template

    def session_pages(
        self, project: Project, session: Session, session_links: dict[str, str] | None = None,
        *, store_key: str | None = None,
    ) -> list[tuple[str, bytes]]:
        """The session's page(s), then the image files it shows.

        ``session_links`` maps a session id to its page's path under OUT, for
        links to a fork's parent and to the session inherited history came from.
        ``store_key`` names the session in the block store, which then records
        the blocks its pages use (what keeps them through a garbage collection).
        """
        first_page = urls.session_html(project.id, session.slug)
        state = PageState(first_page, session_links or {}, self.tool_template)
        with highlighting(limit_kb=self.highlight_limit, store=self.store) as used:
            parts = self._split(project, session, self._chunks(project, session, state))
        if self.store is not None:
            self.store.record(store_key, used)
        # Links to a moment (here, on the project page, in search) must name its part.
        session.anchor_parts = anchor_parts(parts, linked_anchors(session)) if len(parts) > 1 else {}
        prompts = session_prompts(session, parts)
        # The session as its project's sessions.js names it (publish.sessions_script).
        session_ref = link(urls.project_html(project.id), first_page)
        out = []
        for part in parts:
            encoded = self._page(
                "session.html",
                page=part.path,
                project=project,
                session=session,
                state=state,
                part=part,
                parts=parts,
                chunks=part.chunks,
                outline=outline(prompts, parts, part),
                session_ref=session_ref,
            )
            out.append((part.path, encoded))
        out.extend((urls.image_path(name), raw) for name, raw in sorted(state.images.items()))
        return out

    def _chunks(self, project: Project, session: Session, state: PageState) -> Iterator[Markup]:
        """Each timeline item rendered on its own, then the orphan sub-agents:
        the unit a split page is made of. Linear in the timeline's size."""
        context = {"page": state.page, "project": project, "session": session, "state": state, "prefix": ""}
        # What template.render(context, item=item) would see, the globals copied
        # once per session rather than once per item.
        shared = {**self.env.globals, **context}
        if self.timeline is not None:
            render = self.timeline.session(shared)
        else:
            def render(item: TimelineItem) -> str:
                return _render_shared(self._item_template(item.kind), {**shared, "item": item})
        for item in session.timeline:
            yield Markup(render(item))
        if session.orphan_subagents:
            yield Markup(self._render("orphans.html", **context, runs=session.orphan_subagents))

    def _split(self, project: Project, session: Session, chunks: Iterable[Markup]) -> list[Part]:
        """Group chunks into pages of at most ``page_limit`` bytes (a single item
        larger than that gets a page of its own)."""
        parts = [Part(urls.session_part_html(project.id, session.slug, 1), 1)]
        for chunk in chunks:
            size = len(chunk.encode("utf-8"))
            current = parts[-1]
            if current.chunks and current.size + size > self.page_limit:
                number = current.number + 1
                current = Part(urls.session_part_html(project.id, session.slug, number), number)
                parts.append(current)
            current.chunks.append(chunk)
            current.size += size
        return parts
