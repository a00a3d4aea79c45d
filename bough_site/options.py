"""The options of a build: what every worker needs, and one digest of what changes every page.

:class:`Options` travels to each worker process; :func:`options_digest` is kept
in the manifest, and when it differs from the last build's, every session is
rendered again.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from . import __version__
from .config import DEFAULT_HIGHLIGHT_LIMIT, DEFAULT_SEARCH_LIMIT, BuildConfig, home
from .pricing import PriceTable, bundled_version, load_user_prices, price_table
from .state import compiled_templates

if TYPE_CHECKING:
    from .redact import Redactor

# The manifest's format (manifest.py), in the options digest: a build after it changed
# reads everything again. Kept here, for the quick check's digest (build.py) not to
# import the manifest and discovery behind it.
MANIFEST_SCHEMA = "bough.manifest/3"

# The bundled examples hold only fake secrets; a fixed key keeps their pages reproducible.
EXAMPLES_REDACTION_KEY = b"bough-examples"


@dataclass(frozen=True)
class Options:
    """What every worker needs to read and render, the same for the whole build."""

    theme: str | None
    search: bool
    redact: bool
    key: bytes
    home: str | None = None  # set with --redact-paths
    user: str | None = None
    out: str = ""  # OUT, whose state holds the store of highlighted blocks (render/blockstore.py)
    highlight_limit: int = DEFAULT_HIGHLIGHT_LIMIT  # --highlight-limit: the tool-output budget in KB (0: no limit)
    # --search-limit: how much of each tool result search indexes, in KB (0: all). Not
    # in the pages (the copy Pagefind reads is cut: search/page_copy.py), but in the digest: a
    # build with another budget must index every project again, and only a build
    # whose options changed does.
    search_limit: int = DEFAULT_SEARCH_LIMIT
    # slug (case-folded) -> how many sessions known before reading may take it
    slug_counts: tuple[tuple[str, int], ...] = ()
    # --no-cost (cost False) and --prices FILE (pricing.py); prices_digest: the file's
    # bytes and genai-prices' version, so a changed table prices every page again.
    cost: bool = True
    prices: str | None = None
    prices_digest: str = ""

    def digest_parts(self, key_digest: str) -> dict[str, Any]:
        return {"search": self.search, "redact": self.redact, "key": key_digest,
                "home": self.home, "user": self.user, "highlight_limit": self.highlight_limit,
                **({"search_limit": self.search_limit} if self.search else {}),
                **({"cost": self.prices_digest} if self.cost else {"cost": False})}

    def compiled_templates(self) -> Path | None:
        """Where the templates' compiled code is kept in OUT's state (none without OUT)."""
        return compiled_templates(self.out) if self.out else None

    def price_table(self) -> PriceTable | None:
        """The prices (None with --no-cost): made once per process."""
        return price_table(self.prices, self.prices_digest, self.out) if self.cost else None

    def prices_version(self) -> str | None:
        """The price data's version, as the footer and the sidecars name it (None: --no-cost)."""
        table = self.price_table()
        return table.version if table is not None else None

    @functools.cached_property
    def slug_count_map(self) -> dict[str, int]:
        """``slug_counts`` as a dict (read only), made once for these options: it holds
        every page name known in advance, and made for each of 18,000 jobs it cost a
        cold build 50-90 s of the workers' CPU (docs/performance.md)."""
        return dict(self.slug_counts)

    def redactor(self) -> Redactor:
        from .redact import Redactor  # not imported by a build that changes nothing (build.py)

        return Redactor(self.key, enabled=self.redact, home=self.home, user=self.user)

    def digest(self) -> str:
        """This build's options digest (see :func:`options_digest`)."""
        return options_digest(self.digest_parts(key_digest(self.key)), Path(self.theme) if self.theme else None)


def build_options(config: BuildConfig, used_examples: bool, redaction_key: bytes | None) -> Options:
    key = EXAMPLES_REDACTION_KEY if used_examples else (redaction_key or b"")
    user_home = user = None
    if config.redact_paths:
        user_home = str(home())
        user = os.path.basename(user_home.rstrip("/")) or None
    prices = str(config.prices) if config.cost and config.prices else None
    prices_digest = ""
    if config.cost:
        h = hashlib.sha256(f"genai-prices {bundled_version()}\0".encode())
        if prices:
            load_user_prices(Path(prices))  # a bad table is one clear error (PricesError), before anything is read
            h.update(Path(prices).read_bytes())
        prices_digest = h.hexdigest()
    return Options(theme=str(config.theme) if config.theme else None, search=config.search, redact=config.redact,
                   key=key, home=user_home, user=user, out=str(config.out), highlight_limit=config.highlight_limit,
                   search_limit=max(0, config.search_limit), cost=config.cost, prices=prices,
                   prices_digest=prices_digest)


def options_digest(parts: dict[str, Any], theme: Path | None) -> str:
    """One digest of everything that changes every page: the given option values,
    bough's version, and every file of the default and user themes. (Not bough's
    code: a change to it that changes pages must come with a new version.)"""
    h = hashlib.sha256()
    h.update(orjson.dumps({"schema": MANIFEST_SCHEMA, "version": __version__, **parts}, option=orjson.OPT_SORT_KEYS))
    from .render import default_theme_dir

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
