"""The default theme's timeline items as one compiled template, made from the
item templates themselves when a Renderer renders its first session.

Rendering an item through the theme's files costs an include per item, block and
tool call (a new context, the globals copied, a template's root function), and
that overhead was most of the time a history of many short sessions takes
(docs/performance.md). So when no template an item can reach comes from a user
theme, the templates are joined into one: their parsed bodies are put where they
are included, a dispatch on a kind (``{% include ["blocks/" ~ part.kind ~
".html", "blocks/unknown.html"] %}``) becomes an ``{% if %}`` over the default's
files of that folder, a plain tool (tools/default.html, or a file that only
extends it) has default.html's body in place of its include, and item.html, which
sub-agents include again to any depth, is the one macro. A call of a macros.html
macro in ``{{ }}`` has the macro's body in its place, its parameters bound in a
scope of their own (the macros read only their parameters and the globals, which
no item template rebinds). Anything else (a tool template with blocks of its own,
a kind the theme has no file for) keeps its include, so it is rendered as before.
The templates stay the one source: this module only moves their parsed nodes,
and a change to a template is in the joined one the next time it is made (its
compiled code is kept under all it is made of).

A theme that has its own copy of any template an item can reach (item.html,
subagent.html, macros.html, items/, blocks/, tools/) gets no joined template:
every item goes through its files, one include at a time.
tests/test_timeline.py checks the bytes against that path.
"""

from __future__ import annotations

import copy
import functools
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import jinja2.environment
import jinja2.runtime
from jinja2 import nodes
from jinja2.visitor import NodeTransformer

from .env import is_default_template

# Templates an item can reach by a fixed name...
FIXED = ("item.html", "subagent.html", "macros.html")
# ...and folders whose files are chosen by data (an item's kind, a block's kind,
# a tool's name): a theme file in one of them may be reached by any item.
DISPATCHED = ("items/", "blocks/", "tools/")
BASE_TOOL = "tools/default.html"
ROOT = "item.html"  # the joined template's one macro: sub-agents include it again
JOINED = "<timeline>"  # the joined template's name, in tracebacks and in the compiled templates' cache
MACROS = "macros.html"  # the global ``m``: its macros' bodies are joined in where they are called

# How far a tool template may chain plain extends (Bash → default; exec_command →
# shell → default); deeper is not worth a special case, so it keeps its include.
MAX_EXTENDS = 4

# Names the joined template reads that no theme template sees.
MACRO = "timeline_item"
PLAIN = "timeline_plain_tool"
KIND = "timeline_kind"

TemplateOf = Callable[[object], jinja2.Template]


# --- gating: is every template an item can reach the default theme's own file? -------------


def theme_is_default(env: jinja2.Environment) -> bool:
    """True when no template an item can reach comes from a user theme: neither a
    replaced default (items/reply.html, macros.html...) nor an added one
    (tools/Foo.html would change how Foo calls look)."""
    try:
        names = env.list_templates()
    except TypeError:  # a loader that cannot list: we cannot know, so one include at a time
        return False
    reachable = [n for n in names if ":" not in n and (n in FIXED or n.startswith(DISPATCHED))]
    return all(is_default_template(env, name) for name in [*FIXED, BASE_TOOL, *reachable])


def _parse(env: jinja2.Environment, name: str) -> nodes.Template | None:
    try:
        source, filename, _uptodate = env.loader.get_source(env, name)  # type: ignore[union-attr]
    except jinja2.TemplateNotFound:
        return None
    return env.parse(source, name, filename)


def _extends_only(env: jinja2.Environment, name: str) -> str | None:
    """The template a default-theme file extends when that is all it does (no
    blocks, no text: nothing of its own reaches the page), else None."""
    tree = _parse(env, name)
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], nodes.Extends):
        return None
    parent = tree.body[0].template
    return parent.value if isinstance(parent, nodes.Const) and isinstance(parent.value, str) else None


def plain_tool(env: jinja2.Environment, name: str) -> bool:
    """Whether tool template ``name`` writes exactly what tools/default.html writes:
    it is default.html, or a default-theme file that only extends it (directly or
    through other such files). Read from the source, so a default template that
    gains a block keeps its include by itself."""
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


# --- joining the templates ---------------------------------------------------------------------


class _Joiner(NodeTransformer):
    """Puts each include's template in its place (a scope of its own, as an
    include's locals are its own), recursively."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env
        self.folders = _folders(env)
        self.within: list[str] = []  # the templates (and macros) being joined, outermost first
        tree = _parse(env, MACROS)
        self.macros = {node.name: node for node in tree.body if isinstance(node, nodes.Macro)} if tree else {}

    def body(self, name: str) -> list[nodes.Node]:
        """The nodes of template ``name``, its includes joined in."""
        tree = _parse(self.env, name)
        blocks = any(True for _ in tree.find_all(nodes.Block)) if tree else False
        if tree is None or name in self.within or any(True for _ in tree.find_all(nodes.Extends)) \
                or (blocks and name != BASE_TOOL):
            raise jinja2.TemplateError(f"{name} cannot be joined into the timeline")
        self.within.append(name)
        try:
            return self.visit_list(tree.body)
        finally:
            self.within.pop()

    def visit_list(self, body: list[nodes.Node]) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for node in body:
            new = self.visit(node)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def visit_Output(self, node: nodes.Output) -> nodes.Node | list[nodes.Node]:
        """``{{ m.time(item.timestamp, "time") }}``: the macro's body in its place, its
        parameters bound in a scope of their own (the arguments read outside it, as
        a call reads them); the text around it stays as it was."""
        self.generic_visit(node)
        out: list[nodes.Node] = []
        run: list[nodes.Expr] = []
        for expr in node.nodes:
            inlined = self.macro(expr)
            if inlined is None:
                run.append(expr)
                continue
            if run:
                out.append(nodes.Output(run, lineno=node.lineno))
                run = []
            out.append(inlined)
        if not out:
            return node
        return [*out, nodes.Output(run, lineno=node.lineno)] if run else out

    def macro(self, expr: nodes.Expr) -> nodes.Node | None:
        """A call of a macros.html macro with plain arguments, as a scope; else None.
        Inside a macro's body its siblings are called by their bare names."""
        if not isinstance(expr, nodes.Call) or expr.kwargs or expr.dyn_args or expr.dyn_kwargs:
            return None
        callee = expr.node
        if isinstance(callee, nodes.Getattr) and isinstance(callee.node, nodes.Name) and callee.node.name == "m":
            name = callee.attr
        elif isinstance(callee, nodes.Name) and self.within and self.within[-1].startswith(MACROS):
            name = callee.name
        else:
            return None
        macro = self.macros.get(name)
        key = f"{MACROS}:{name}"
        if macro is None or key in self.within or len(expr.args) > len(macro.args):
            return None
        missing = len(macro.args) - len(expr.args)
        if missing > len(macro.defaults):
            return None
        values = [*expr.args, *macro.defaults[len(macro.defaults) - missing:]]
        targets = [nodes.Name(param.name, "store") for param in macro.args]
        self.within.append(key)
        try:
            body = self.visit_list(copy.deepcopy(macro.body, {id(self.env): self.env}))
        finally:
            self.within.pop()
        return nodes.With(targets, values, body, lineno=expr.lineno)

    def visit_Block(self, node: nodes.Block) -> nodes.Node:
        """A block of default.html, which no plain tool replaces: its body, scoped."""
        return nodes.Scope(self.visit_list(node.body), lineno=node.lineno)

    def visit_Include(self, node: nodes.Include) -> nodes.Node:
        if not node.with_context or node.ignore_missing:
            return node
        target = node.template
        if isinstance(target, nodes.Const) and target.value == ROOT:
            call = nodes.Call(nodes.Name(MACRO, "load"), [nodes.Name("item", "load"), nodes.Name("prefix", "load")],
                              [], None, None)
            return nodes.Output([call], lineno=node.lineno)
        if isinstance(target, nodes.Const) and isinstance(target.value, str) and target.value not in self.within:
            return nodes.Scope(self.body(target.value), lineno=node.lineno)
        if isinstance(target, nodes.List) and target.items:
            target = target.items[0]  # the fallbacks stay with the include the dispatch falls back to
        if (isinstance(target, nodes.Call) and isinstance(target.node, nodes.Getattr)
                and target.node.attr == "tool_template" and len(target.args) == 1):
            return self.tool(node, target.args[0])
        if (isinstance(target, nodes.Concat) and len(target.nodes) == 3
                and all(isinstance(n, nodes.Const) for n in (target.nodes[0], target.nodes[2]))):
            return self.dispatch(node, target.nodes[0].value, target.nodes[1], target.nodes[2].value)
        return node

    def tool(self, node: nodes.Include, call: nodes.Expr) -> nodes.Node:
        """``{% include state.tool_template(part) %}``: default.html's body for a plain tool."""
        test = nodes.Call(nodes.Name(PLAIN, "load"), [call], [], None, None)
        return nodes.If(test, [nodes.Scope(self.body(BASE_TOOL))], [], [node], lineno=node.lineno)

    def dispatch(self, node: nodes.Include, prefix: str, kind: nodes.Expr, suffix: str) -> nodes.Node:
        """``{% include prefix ~ kind ~ suffix %}``: an {% if %} per default file the
        name can be; any other kind keeps the include (its fallback, or an error),
        as does a file already being joined (tool_result.html may name itself)."""
        kinds = [name[len(prefix):-len(suffix)] for name in self.folders.get(prefix, ())
                 if name.endswith(suffix) and "/" not in name[len(prefix):] and name not in self.within]
        chain: list[nodes.Node] = [node]
        for value in sorted(kinds, reverse=True):
            test = nodes.Compare(nodes.Name(KIND, "load"), [nodes.Operand("eq", nodes.Const(value))])
            chain = [nodes.If(test, [nodes.Scope(self.body(prefix + value + suffix))], [], chain)]
        return nodes.Scope([nodes.Assign(nodes.Name(KIND, "store"), kind), *chain], lineno=node.lineno)


def _folders(env: jinja2.Environment) -> dict[str, list[str]]:
    """The files of each dispatched folder that are kinds: not a partial that an
    item, block or the base tool template includes by its own name
    (blocks/tool_result.html, blocks/files.html), which a dispatch never meets, so
    joining it there would only make the joined template longer to compile (were
    one met, its include is still there). The other tool templates are not read:
    fifty files parsed for blocks/todos.html alone."""
    names = [n for n in env.list_templates() if ":" not in n]
    partials: set[str] = set()
    for name in names:
        tree = _parse(env, name) if name in FIXED or name.startswith(("items/", "blocks/")) or name == BASE_TOOL \
            else None
        if tree is not None:
            partials.update(node.template.value for node in tree.find_all(nodes.Include)
                            if isinstance(node.template, nodes.Const))
    return {folder: sorted(n for n in names if n.startswith(folder) and n not in partials) for folder in DISPATCHED}


def joined_code(env: jinja2.Environment) -> types.CodeType:
    """The compiled code of one template whose macro ``MACRO(item, prefix)`` writes
    what item.html does."""
    joiner = _Joiner(env)
    params = [nodes.Name("item", "param"), nodes.Name("prefix", "param")]
    macro = nodes.Macro(MACRO, params, [], joiner.body(ROOT))
    tree = nodes.Template([macro])
    tree.set_environment(env)
    tree.set_lineno(1)  # only the nodes made here, which have none
    return env.compile(tree, JOINED)  # type: ignore[return-value]


def _inputs(env: jinja2.Environment) -> str:
    """All the joined template is made of: this module and every template an item
    can reach. Its compiled code is kept under this (as a template's is under its
    source), so a build after the first does not join and compile it again."""
    names = sorted(n for n in env.list_templates() if ":" not in n and (n in FIXED or n.startswith(DISPATCHED)))
    sources = [Path(__file__).read_text(encoding="utf-8"), jinja2.__version__]
    for name in names:
        source, _filename, _uptodate = env.loader.get_source(env, name)  # type: ignore[union-attr]
        sources.append(f"{name}\0{source}")
    return "\0".join(sources)


def joined_template(env: jinja2.Environment) -> jinja2.Template:
    """The joined template, from the environment's cache of compiled templates
    when it has it (CompiledTemplates): joining and compiling it costs more than
    all the templates it is made of."""
    cache = env.bytecode_cache
    bucket = cache.get_bucket(env, JOINED, None, _inputs(env)) if cache is not None else None
    if bucket is not None and bucket.code is not None:
        code = bucket.code
    else:
        code = joined_code(env)
        if cache is not None and bucket is not None:
            bucket.code = code
            cache.set_bucket(bucket)
    return env.template_class.from_code(env, code, env.make_globals(None))


# What a template may call without Jinja's checks: functions, methods and macros
# that ask for no context (the joined template makes a dozen calls per item, and the
# checks were a noticeable share of its time: docs/performance.md, issue #38).
_PLAIN_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, jinja2.runtime.Macro)


def _calling(base: type[jinja2.runtime.Context]) -> type[jinja2.runtime.Context]:
    """``base`` whose ``call`` (every call a template makes) calls a plain callable
    at once: what Jinja's would do for it, without its lookups for a context to pass."""

    class Calling(base):  # type: ignore[valid-type,misc]
        def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's own names)
            if not isinstance(__obj, _PLAIN_CALLABLES) or hasattr(__obj, "jinja_pass_arg"):
                return super().call(__obj, *args, **kwargs)
            kwargs.pop("_block_vars", None)  # what a call in a loop or block passes for a context
            kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:  # as Jinja's call answers it
                return __self.environment.undefined("value was undefined because a callable raised a"
                                                    " StopIteration exception")

    return Calling


class Timeline:
    """The joined template of one Renderer, and which tool templates are plain."""

    def __init__(self, env: jinja2.Environment, tool_template: TemplateOf) -> None:
        self.env = env
        self.tool_template = tool_template
        self.context_class = _calling(env.context_class)
        self._plain: dict[str, bool] = {}

    @functools.cached_property
    def template(self) -> jinja2.Template:
        """Joined when the first session is rendered (the site's own pages need none)."""
        return joined_template(self.env)

    def is_plain(self, call: Any) -> bool:
        """Whether this call's tool looks like tools/default.html (decided once per name)."""
        name = call.name
        key = name if isinstance(name, str) else ""
        plain = self._plain.get(key)
        if plain is None:
            template = self.tool_template(key)  # the very lookup state.tool_template makes
            plain = template.name is not None and plain_tool(self.env, template.name)
            self._plain[key] = plain
        return plain

    def session(self, shared: dict[str, Any]) -> Callable[[Any], str]:
        """A function writing one top-level item of the session ``shared`` describes
        (the globals and page, project, session, state, prefix)."""
        template = self.template
        context = self.context_class(self.env, dict(template.globals, **shared, **{PLAIN: self.is_plain}),
                                     template.name, template.blocks, globals=template.globals)
        module = jinja2.environment.TemplateModule(template, context)
        macro = getattr(module, MACRO)
        prefix = shared["prefix"]
        return lambda item: macro(item, prefix)


def timeline(env: jinja2.Environment, tool_template: TemplateOf) -> Timeline | None:
    """The joined timeline for this environment, or None when its theme replaces
    or adds a template an item can reach (then every item is rendered through its files)."""
    return Timeline(env, tool_template) if theme_is_default(env) else None
