"""The Jinja environment: a user theme first, then the default theme.

A theme is a directory with up to two folders:

    THEME/templates/   Jinja templates; a file here replaces the default one of
                       the same name (``session.html``, ``items/reply.html`` ...)
    THEME/static/      files copied into ``assets/``; a file here replaces the
                       default one of the same name (``bough.css``, ``bough.js``)

A user template can wrap the default instead of copying it: every default
template is also reachable as ``default:NAME``, so

    {% extends "default:session.html" %}
    {% block session_header %}{{ super() }}<p>Reviewed.</p>{% endblock %}

keeps the default page and changes one block.  Templates the default includes or
extends by plain name (``base.html``, ``item.html``) are looked up in the user
theme first, so overriding one partial changes it everywhere.

Safety (docs/safety.md S2): ``autoescape=True`` for every template whatever its
name, and ``StrictUndefined`` so a typo in a template is an error at build time
rather than an empty string on the page.
"""

from __future__ import annotations

import contextlib
import marshal
import pickle
import types
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache

from ..errors import BoughError
from ..regular import read_regular
from ..state import real_folders
from ..replace import replace_file
from . import default_theme_dir

DEFAULT_PREFIX = "default"


def check_theme_dir(theme: Path) -> None:
    """Refuse a theme directory that cannot be what the user meant."""
    if not theme.is_dir():
        raise BoughError(f"theme directory not found: {theme}")
    if not (theme / "templates").is_dir() and not (theme / "static").is_dir():
        raise BoughError(
            f"theme directory {theme} has neither a templates/ nor a static/ folder "
            "(templates go in THEME/templates/, static files in THEME/static/)"
        )


class _Context(jinja2.runtime.Context):
    """Jinja's context, but the names of the globals (``globals_keys``, read only
    when a template is made into a module: ``{% import %}``, ``Template.module``)
    are collected when read rather than for every include and every page (5% of
    the time rendering a history of short sessions takes)."""

    def __init__(self, environment: jinja2.Environment, parent: dict[str, Any], name: str | None,
                 blocks: dict[str, Any], globals: MutableMapping[str, Any] | None = None) -> None:
        super().__init__(environment, parent, name, blocks)
        self._globals = globals

    @property  # type: ignore[override]
    def globals_keys(self) -> set[str]:
        return set(self._globals or ())

    @globals_keys.setter
    def globals_keys(self, _value: set[str]) -> None:
        pass  # Context.__init__ sets it; it is made when read instead


def make_env(theme: Path | None = None, compiled: Path | None = None) -> jinja2.Environment:
    """The environment every page is rendered with.

    Lookup order for a plain name: ``theme/templates``, then the default theme.
    ``default:NAME`` always means the default theme's template.

    ``compiled``: a folder for the templates' compiled code (in OUT's state), so a
    build after the first does not compile them again: 0.5 s of a one-turn
    rebuild. Each entry is checked against its template's source (and Jinja's
    version) before it is used, and written by renaming, so workers share it;
    never through a symlink (:class:`CompiledTemplates`).
    """
    default_templates = jinja2.FileSystemLoader(str(default_theme_dir() / "templates"))
    # "default:NAME" is answered first, so a user file can never stand in for
    # the default it means to extend; a plain name falls through to the others.
    loaders: list[jinja2.BaseLoader] = [jinja2.PrefixLoader({DEFAULT_PREFIX: default_templates}, delimiter=":")]
    if theme is not None:
        check_theme_dir(theme)
        if (theme / "templates").is_dir():
            loaders.append(jinja2.FileSystemLoader(str(theme / "templates")))
    loaders.append(default_templates)
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Templates are read from disk once per build; nothing to reload.
        auto_reload=False,
        # Every template stays loaded: a dict, not an LRU cache that takes a lock and
        # makes a weak reference at every lookup (every include of every item).
        cache_size=-1,
        bytecode_cache=_compiled_cache(compiled),
    )
    env.context_class = _Context
    return env


def is_default_template(env: jinja2.Environment, name: str) -> bool:
    """Whether ``name`` is found in the default theme, not in a user theme's copy.
    ``get_source`` asks the loader without compiling the template."""
    try:
        _source, filename, _uptodate = env.loader.get_source(env, name)  # type: ignore[union-attr]
    except jinja2.TemplateNotFound:
        return False
    return filename == str(default_theme_dir() / "templates" / Path(name))


def _compiled_cache(folder: Path | None) -> jinja2.BytecodeCache | None:
    return None if folder is None else CompiledTemplates(folder)


# A template's compiled code is tens of KB; a file far larger is not one of ours.
_MAX_COMPILED = 16 << 20


class CompiledTemplates(jinja2.BytecodeCache):
    """The templates' compiled code, a file each in ``folder`` (named as Jinja's
    FileSystemBytecodeCache names them, so its files are used), read back as code.

    Why not Jinja's own: it opens its files and makes its folder through symlinks,
    so a link in OUT's state made a build write its code where the link pointed
    and run what it found there (docs/safety.md S8); and it unpickles each file's
    header, which runs whatever a damaged or planted file holds. Here a file is
    read only from real folders (state.real_folders), never through a link
    (regular.read_regular), its header is compared byte for byte with the one this
    template's source gives, and anything else is compiled again. Writing is a
    temporary file renamed into place (a link there is replaced, not followed);
    a write that fails (a full disk) only costs compiling again next time."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _name(self, bucket: jinja2.bccache.Bucket) -> str:
        return f"__jinja2_{bucket.key}.cache"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if not real_folders(self.folder, create=False):
            return
        data = read_regular(self.folder / self._name(bucket), _MAX_COMPILED)
        header = jinja2.bccache.bc_magic + pickle.dumps(bucket.checksum, 2)  # what Bucket.write_bytecode writes
        if data is None or not data.startswith(header):
            return  # none, not ours, or made from another source
        try:
            code = marshal.loads(data[len(header):])
        except (EOFError, ValueError, TypeError):
            return
        if isinstance(code, types.CodeType):
            bucket.code = code

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if not real_folders(self.folder, create=True):
            return
        with contextlib.suppress(OSError):
            replace_file(self.folder, self._name(bucket), bucket.bytecode_to_string(), mode=0o600)
