"""The default theme's timeline items written in Python: the same bytes as its
Jinja templates, without a template render per item, block and tool call.

Rendering items through Jinja includes and macros is most of the time a history
of many short sessions takes (docs/performance.md). This module reproduces what
``items/prompt.html``, ``items/reply.html``, ``blocks/{text,thinking,image,
tool_call,tool_result}.html``, ``tools/default.html`` (and the tool templates
that only extend it), ``subagent.html`` and the macros they call write, byte for
byte, autoescape included, and ``items/marker.html`` (a quarter of the items of
a history of short sessions), ``blocks/files.html`` and ``blocks/links.html``
(what a result holds). Anything else (commands, unknown kinds, TodoWrite's
checklist, WebFetch's link...) is handed to the Jinja template, with the context
that template would have had. Handing every tool call to Jinja instead cost 20-30%
more time rendering wide's pages (benchmarks/render.py, 2026-12-03): too much to
save a copy of tools/default.html.

Jinja stays the theme language: :func:`fast_items` returns None, and every item
goes through Jinja as before, when the theme has its own copy of any template an
item can reach (item.html, subagent.html, macros.html, items/, blocks/, tools/).
tests/test_fast_items.py checks the bytes against the Jinja path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import jinja2
from jinja2 import nodes
from markupsafe import Markup, escape

from .env import is_default_template

# Templates an item can reach by a fixed name...
FIXED = ("item.html", "subagent.html", "macros.html")
# ...and folders whose files are chosen by data (an item's kind, a block's kind,
# a tool's name): a theme file in one of them may be reached by any item.
DISPATCHED = ("items/", "blocks/", "tools/")
BASE_TOOL = "tools/default.html"

# How far a tool template may chain plain extends (Bash → default; exec_command →
# shell → default); deeper is not worth a special case, so it goes through Jinja.
MAX_EXTENDS = 4

IGNORE = ' data-pagefind-ignore'  # what `{% if search %} data-pagefind-ignore{% endif %}` writes
DOT = "\u00b7"  # the templates' " · " separator


# What the writer reads of pages.py's values (pages.py imports this module, so
# its classes are described here rather than imported).


class Block(Protocol):
    full: Any
    lines: int
    preview: Any
    kind: str

    @property
    def collapsed(self) -> bool: ...


class ImageView(Protocol):
    src: str | None
    alt: str
    reason: str


class ToolView(Protocol):
    name: str
    summary: str
    note: str
    body: Block | None
    json: Block | None


class ResultView(Protocol):
    is_error: bool
    parts: Sequence[Any]  # Blocks, ImageViews, FileLists and LinkLists
    exit_code: int | None
    note: str

    @property
    def empty(self) -> bool: ...

    @property
    def brief(self) -> str: ...


class SessionState(Protocol):
    def image(self, block: Any) -> ImageView: ...
    def tool(self, call: Any) -> ToolView: ...
    def result(self, call: Any, view: Any) -> ResultView | None: ...
    def subagent_prefix(self, run: Any, parent: str) -> str: ...
    def session_link(self, session_id: object) -> str | None: ...
    def marker_type(self, marker: Any) -> str: ...
    def is_long(self, text: object) -> bool: ...


# A variable a template would see: a name and its value (the locals an include passes on).
Scope = tuple[tuple[str, Any], ...]
RenderShared = Callable[[jinja2.Template, dict[str, Any]], str]
TemplateOf = Callable[[object], jinja2.Template]


# --- gating: is every template an item can reach the default theme's own file? -------------


def theme_is_default(env: jinja2.Environment) -> bool:
    """True when no template an item can reach comes from a user theme: neither a
    replaced default (items/reply.html, macros.html...) nor an added one
    (tools/Foo.html would change how Foo calls look)."""
    try:
        names = env.list_templates()
    except TypeError:  # a loader that cannot list: we cannot know, so Jinja it is
        return False
    reachable = [n for n in names if ":" not in n and (n in FIXED or n.startswith(DISPATCHED))]
    return all(is_default_template(env, name) for name in [*FIXED, BASE_TOOL, *reachable])


def _extends_only(env: jinja2.Environment, name: str) -> str | None:
    """The template a default-theme file extends when that is all it does (no
    blocks, no text: nothing of its own reaches the page), else None."""
    try:
        source, _filename, _uptodate = env.loader.get_source(env, name)  # type: ignore[union-attr]
    except jinja2.TemplateNotFound:
        return None
    body = env.parse(source, name).body
    if len(body) != 1 or not isinstance(body[0], nodes.Extends):
        return None
    parent = body[0].template
    return parent.value if isinstance(parent, nodes.Const) and isinstance(parent.value, str) else None


def plain_tool(env: jinja2.Environment, name: str) -> bool:
    """Whether tool template ``name`` writes exactly what tools/default.html writes:
    it is default.html, or a default-theme file that only extends it (directly or
    through other such files). Read from the source, so a default template that
    gains a block falls back to Jinja by itself."""
    for _ in range(MAX_EXTENDS):
        if name == BASE_TOOL:
            return is_default_template(env, name)
        if not is_default_template(env, name):
            return False
        parent = _extends_only(env, name)
        if parent is None:
            return False
        name = parent
    return False


def fast_items(env: jinja2.Environment, item_template: TemplateOf, tool_template: TemplateOf,
               render: RenderShared) -> FastItems | None:
    """The Python renderer for this environment, or None when its theme replaces
    or adds a template an item can reach (then Jinja renders every item)."""
    return FastItems(env, item_template, tool_template, render) if theme_is_default(env) else None


# --- small pieces the macros write ------------------------------------------------------------


def _cat(*values: object) -> str:
    """Jinja's ``a ~ b`` under autoescape (markup_join): plain text joined, unless
    one part is Markup, when the others are escaped into it."""
    if any(hasattr(value, "__html__") for value in values):
        return Markup("").join(values)  # type: ignore[arg-type]
    return "".join(value if isinstance(value, str) else str(value) for value in values)


def _removed(item: Any) -> str:
    """macros.html ``removed``."""
    how = "/rewind" if item.removed == "rewound" else "a compression"
    return (f'<span class="badge removed" title="Later taken out of the agent\'s own history ({how}): '
            f'it was sent and billed, so it is shown and counted">{escape(item.removed)}</span>')


def _image(img: ImageView) -> str:
    """macros.html ``image``."""
    if img.src:
        return f'<figure class="image"><img src="{escape(img.src)}" alt="{escape(img.alt)}" loading="lazy"></figure>\n'
    return f'<p class="image-missing">[image not shown: {escape(img.reason)}]</p>\n'


# --- the renderer --------------------------------------------------------------------------------


class FastItems:
    """What one Renderer needs to write items in Python: its template lookups (for
    what falls back to Jinja) and which tool templates are plain."""

    def __init__(self, env: jinja2.Environment, item_template: TemplateOf, tool_template: TemplateOf,
                 render: RenderShared) -> None:
        self.env = env
        self.item_template = item_template
        self.tool_template = tool_template
        self.render = render
        self._plain: dict[str, bool] = {}
        self._block_templates: dict[str, jinja2.Template] = {}

    def is_plain(self, name: object) -> bool:
        """Whether calls of this tool look like tools/default.html (decided once per name)."""
        key = name if isinstance(name, str) else ""
        plain = self._plain.get(key)
        if plain is None:
            template = self.tool_template(key)  # the very lookup blocks/tool_call.html makes
            plain = template.name is not None and plain_tool(self.env, template.name)
            self._plain[key] = plain
        return plain

    def block_template(self, kind: object) -> jinja2.Template:
        """What ``{% include ["blocks/" ~ part.kind ~ ".html", "blocks/unknown.html"] %}`` loads."""
        key = _cat(kind)
        template = self._block_templates.get(key)
        if template is None:
            template = self.env.select_template([f"blocks/{key}.html", "blocks/unknown.html"])
            self._block_templates[key] = template
        return template

    def session(self, shared: dict[str, Any]) -> Callable[[Any], str]:
        """A function writing one top-level item of the session ``shared`` describes
        (the globals and page, project, session, state, prefix)."""
        return _Writer(self, shared).top


class _Writer:
    """Writes the items of one session into a list of strings. Each method is the
    template (or macro) of the same name; comments quote what is not obvious."""

    def __init__(self, fast: FastItems, shared: dict[str, Any]) -> None:
        self.fast = fast
        self.shared = shared
        self.state: SessionState = shared["state"]
        # The globals as the templates see them (a theme cannot change them, but
        # the Renderer's own values are the ones to use).
        self.search = bool(shared["search"])
        self.ignore = IGNORE if self.search else ""
        self.markdown = shared["markdown"]
        self.one_line = shared["one_line"]
        self.excerpt = shared["excerpt"]
        self.reply_tokens = shared["reply_tokens"]
        self.when = shared["when"]
        self.num = shared["num"]
        self.compact = shared["compact"]
        self.tokens = shared["tokens"]
        self._times: dict[str, str] = {}

    # --- Jinja, for what this module does not write -------------------------------------------

    def jinja(self, template: jinja2.Template, scope: Scope) -> str:
        """``template`` rendered with what it would have seen as an include here:
        the session's variables and the locals of the templates around it."""
        return self.fast.render(template, {**self.shared, **dict(scope)})

    # --- items ---------------------------------------------------------------------------------

    def top(self, item: Any) -> str:
        out: list[str] = []
        self.item(out, item, self.shared["prefix"], ())
        return "".join(out)

    def item(self, out: list[str], item: Any, prefix: str, scope: Scope) -> None:
        """item.html: the kind's template (item.html adds nothing around it)."""
        kind = item.kind
        scope = (*scope, ("item", item), ("prefix", prefix))
        if kind == "reply":
            self.reply(out, item, prefix, scope)
        elif kind == "prompt":
            self.prompt(out, item, prefix)
        elif kind == "marker":
            self.marker(out, item, prefix)
        else:
            out.append(self.jinja(self.fast.item_template(kind), scope))

    def head_end(self, out: list[str], item: Any, anchor: str, what: str) -> None:
        """The end of an item's header: removed badge, time, self-link."""
        if item.removed:
            out.append(_removed(item))
        out.append(self.time(item.timestamp))
        link = f'<a class="self-link" href="#{escape(anchor)}" aria-label="Link to this {what}">#</a>'
        out.append(f"\n{link}\n</header>\n")

    def prompt(self, out: list[str], item: Any, prefix: str) -> None:
        """items/prompt.html ("Task" inside a sub-agent, where prefix is set)."""
        anchor = _cat(prefix, item.anchor)
        out.append(f'<section class="item prompt{" agent-prompt" if prefix else ""}" id="{escape(anchor)}">\n'
                   f'<header class="item-head"{self.ignore}>\n'
                   f'<span class="who">{"Task" if prefix else "Prompt"}</span>\n')
        self.head_end(out, item, anchor, "prompt")
        for part in item.content:
            if part.kind == "image":
                out.append(_image(self.state.image(part)) + "\n")
            else:
                out.append(f'<div class="prompt-text">{escape(part.text)}</div>\n')
        out.append("</section>\n")

    def reply(self, out: list[str], item: Any, prefix: str, scope: Scope) -> None:
        """items/reply.html: each block numbered for its Markdown ids (doc_id)."""
        anchor = _cat(prefix, item.anchor)
        out.append(f'<section class="item reply{" reply-error" if item.is_error else ""}" id="{escape(anchor)}">\n'
                   f'<header class="item-head"{self.ignore}>\n'
                   f'<span class="who">{"API error" if item.is_error else "Assistant"}</span>\n')
        if item.model:
            out.append(f'<span class="model">{escape(item.model)}</span>')
        tokens = self.reply_tokens(item.usage)
        if tokens and tokens.unknown:
            out.append(f'<span class="tokens unknown" title="{escape(tokens.title)}">{escape(tokens.text)}</span>')
        elif tokens:
            out.append(f'<data class="tokens" value="{escape(tokens.total)}" title="{escape(tokens.title)}">'
                       f'{escape(tokens.text)}</data>')
        self.head_end(out, item, anchor, "reply")
        scope = (*scope, ("anchor", anchor))
        for index, part in enumerate(item.blocks, 1):
            doc_id = _cat(anchor, "-", index)
            self.block(out, part, prefix, (*scope, ("part", part), ("doc_id", doc_id)), doc_id)
        out.append("</section>\n")

    def marker(self, out: list[str], item: Any, prefix: str) -> None:
        """items/marker.html: a quiet note; long texts (and inherited history's) folded."""
        state = self.state
        kind = state.marker_type(item)
        out.append(f'<div class="item marker marker-{escape(kind)}" role="note">\n<div class="marker-line">\n'
                   f'<span class="marker-label">{escape(self.shared["marker_labels"][kind])}</span>\n')
        if item.removed:
            out.append(_removed(item))
        text = item.text
        if kind == "inherited":
            out.append(self.inherited(item))
        elif text and not state.is_long(text):
            out.append(f'<span class="marker-text">{escape(text)}</span>\n')
        out.append(self.time(item.timestamp) + "\n</div>\n")
        if text and (kind == "inherited" or state.is_long(text)):
            summary = escape(self.excerpt(text, 100) if kind == "compaction" else self.one_line(text, 100))
            out.append(f'<details class="marker-more">\n<summary{self.ignore}>{summary}</summary>\n')
            if kind == "compaction":
                out.append(f'<div class="md">{escape(self.markdown(text, _cat(prefix, "m-", item.id)))}</div>\n')
            else:
                out.append(f'<div class="marker-body">{escape(text)}</div>\n')
            out.append("</details>\n")
        out.append("</div>\n")

    def inherited(self, item: Any) -> str:
        """The line of an inherited-history marker: how many items, from where."""
        parent = self.state.session_link(item.ref_session)
        if parent:
            source = f'<a href="{escape(parent)}">the parent session</a>'
        elif item.ref_session:
            source = f"session <code>{escape(item.ref_session)}</code>"
        else:
            source = "another session"
        return f'<span class="marker-text">{self.plural(item.count, "item")} copied from\n{source}</span>\n'

    # --- blocks --------------------------------------------------------------------------------

    def block(self, out: list[str], part: Any, prefix: str, scope: Scope, doc_id: str) -> None:
        """blocks/<kind>.html."""
        kind = part.kind
        if kind == "text":
            out.append(f'<div class="md">{escape(self.markdown(part.text, doc_id))}</div>\n')
        elif kind == "tool_call":
            self.tool_call(out, part, prefix, scope, doc_id)
        elif kind == "thinking":
            self.thinking(out, part, doc_id)
        elif kind == "image":
            out.append(_image(self.state.image(part)) + "\n")
        else:
            out.append(self.jinja(self.fast.block_template(kind), scope))

    def thinking(self, out: list[str], part: Any, doc_id: str) -> None:
        excerpt = escape(self.excerpt(part.text, 90))  # before the Markdown, as the template calls them
        out.append(f'<details class="thinking">\n<summary{self.ignore}><span class="thinking-label">Thinking</span> '
                   f'<span class="excerpt">{excerpt}</span></summary>\n'
                   f'<div class="md">{escape(self.markdown(part.text, doc_id))}</div>\n</details>\n')

    def tool_call(self, out: list[str], part: Any, prefix: str, scope: Scope, doc_id: str) -> None:
        """blocks/tool_call.html, then tools/default.html for a plain tool template;
        any other tool template renders the whole call through Jinja."""
        if not self.fast.is_plain(part.name):
            out.append(self.jinja(self.fast.env.get_template("blocks/tool_call.html"), scope))
            return
        view = self.state.tool(part)
        result = self.state.result(part, view)
        self.tool(out, part, view, result, prefix, (*scope, ("view", view), ("result", result)), doc_id)

    def tool(self, out: list[str], part: Any, view: ToolView, result: ResultView | None, prefix: str,
             scope: Scope, doc_id: str) -> None:
        """tools/default.html: a <details open> whose summary is the call's one line (its
        id: doc_id, which search links to)."""
        error = " tool-error" if result and result.is_error else ""
        out.append(f'<details class="tool{error}" id="{escape(doc_id)}" open>\n<summary>\n'
                   f'<span class="tool-name">{escape(view.name)}</span>')
        if view.summary:
            out.append(f'<span class="tool-sep">:</span>\n<code class="tool-arg">{escape(view.summary)}</code>')
        out.append(f'<small>{escape(result.brief) if result else "no result"}</small>\n</summary>\n')
        if view.note:
            out.append(f'<p class="tool-note">{escape(view.note)}</p>')
        if view.body:
            out.append(self.collapsible(view.body))
        if view.json:
            out.append(self.collapsible(view.json))
        self.tool_result(out, result)
        if part.subagent:
            self.subagent(out, part.subagent, prefix, scope)
        out.append("</details>\n")

    def tool_result(self, out: list[str], result: ResultView | None) -> None:
        """blocks/tool_result.html."""
        if result is None:
            out.append(f'<div class="tool-result missing"><p class="muted"{self.ignore}>No result recorded.</p></div>\n')
            return
        error = " error" if result.is_error else ""
        output = f' data-bough-output="{"error" if result.is_error else "result"}"' if self.search else ""
        out.append(f'<div class="tool-result{error}"{output}>\n'
                   f'<div class="result-head"{self.ignore}>{"Error" if result.is_error else "Result"}')
        if result.exit_code is not None:
            out.append(f" {DOT} exit code {escape(result.exit_code)}")
        if result.note:
            out.append(f' {DOT} <span class="result-note">{escape(result.note)}</span>')
        out.append("</div>\n")
        for r in result.parts:
            kind = r.kind
            if kind == "image":
                out.append(_image(r))
            elif kind == "files":
                self.files(out, r)
            elif kind == "links":
                self.links(out, r)
            else:
                out.append(self.collapsible(r))
        if result.empty:
            out.append(f'<p class="muted"{self.ignore}>(no output)</p>')
        out.append("</div>\n")

    def subagent(self, out: list[str], run: Any, prefix: str, scope: Scope) -> None:
        """subagent.html: the run's own items, nested to any depth."""
        sub = self.state.subagent_prefix(run, prefix)  # first: it numbers the run among its siblings
        out.append('<details class="subagent">\n<summary><span class="subagent-label">Sub-agent</span>\n')
        if run.agent_type:
            out.append(f'<span class="agent-type">{escape(run.agent_type)}</span>')
        if run.description:
            out.append(f'<span class="agent-description">{escape(run.description)}</span>')
        replies = self.plural(run.stats.get("replies", 0), "reply", "replies")
        calls = self.plural(run.stats.get("tool_calls", 0), "tool call")
        tokens = escape(self.compact(self.tokens(run.stats)))
        out.append(f'<span class="agent-figures"{self.ignore}>{replies} {DOT} {calls} {DOT} {tokens} tokens</span>\n'
                   '</summary>\n<div class="subagent-body">\n')
        scope = (*scope, ("run", run), ("sub", sub))
        for item in run.timeline:
            self.item(out, item, sub, scope)
        if not run.timeline:
            out.append("<p class=\"muted\">This sub-agent's transcript is empty.</p>")
        out.append("</div>\n</details>\n")

    def files(self, out: list[str], r: Any) -> None:
        """blocks/files.html: the first paths, the rest folded."""
        out.append('<ul class="file-list">\n')
        out.extend(f"<li>{escape(path)}</li>\n" for path in r.head)
        out.append("</ul>\n")
        rest = r.rest
        if rest:
            out.append(f'<details class="more">\n<summary{self.ignore}>Show {self.plural(len(rest), "more file")}</summary>\n'
                       '<ul class="file-list">\n')
            out.extend(f"<li>{escape(path)}</li>\n" for path in rest)
            out.append("</ul>\n</details>\n")

    def links(self, out: list[str], r: Any) -> None:
        """blocks/links.html: each link through the allow-list already (href), or its title alone."""
        out.append('<ol class="link-list">\n')
        for link in r.links:
            title = escape(link.title)
            item = (f'<a href="{escape(link.href)}" rel="noopener noreferrer nofollow">{title}</a>'
                    if link.href else title)
            host = f' <span class="link-host">{escape(link.host)}</span>' if link.host else ""
            out.append(f"<li>{item}{host}</li>\n")
        out.append("</ol>\n")

    # --- macros --------------------------------------------------------------------------------

    def time(self, value: object) -> str:
        """macros.html ``time(value, "time")``; the same few timestamps recur, so kept."""
        key = value if isinstance(value, str) else None
        text = self._times.get(key) if key is not None else None
        if text is None:
            w = self.when(value)
            text = (f'<time datetime="{escape(w.iso)}" data-format="time" title="{escape(w.text)}">'
                    f'{escape(w.clock)}</time>') if w else ""
            if key is not None:
                self._times[key] = text
        return text

    def plural(self, n: object, word: str, words: str | None = None) -> str:
        """macros.html ``plural``."""
        return f"{escape(self.num(n))} {escape(word if n == 1 else (words or word + 's'))}"

    def collapsible(self, b: Block) -> str:
        """macros.html ``block``: whole when short, else a preview and a <details>."""
        kind = escape(b.kind)
        if not b.collapsed:
            return f'<div class="block block-{kind}">{escape(b.full)}</div>\n'
        preview = f'<div class="preview">{escape(b.preview)}</div>' if b.preview else ""
        lines = self.plural(b.lines, "line")
        summary = f"Show the diff ({lines})" if b.kind == "diff" else f"Show all {lines}"
        return (f'<div class="block block-{kind} collapsible">\n{preview}<details class="more">\n'
                f'<summary{self.ignore}>{summary}</summary>\n{escape(b.full)}\n</details>\n</div>\n')
