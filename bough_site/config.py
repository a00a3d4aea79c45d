"""BuildConfig: everything one build needs to know, with defaults from the environment.

The CLI turns options into a BuildConfig and hands it to ``build()``; nothing
below the CLI reads ``sys.argv``, and only this module reads the environment.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOURCE_CHOICES = ("all", "claude", "codex", "gemini", "opencode", "copilot", "qwen")
# --highlight-limit's default: tool output is highlighted for its first 8 KB or
# 200 lines (render/highlight_budget.py: Budget).
DEFAULT_HIGHLIGHT_LIMIT = 8
# --search-limit's default: the first KB of what each tool returned is searchable
# (an error all of it); the rest is on the page, not in the index. Chosen by what
# search costs a cold build (search/; docs/performance.md, Search).
DEFAULT_SEARCH_LIMIT = 1


@dataclass
class BuildConfig:
    sources: list[Path] = field(default_factory=list)  # empty: the agents' default homes
    out: Path = Path("site")
    theme: Path | None = None
    source_filter: str = "all"  # one of SOURCE_CHOICES
    redact: bool = True
    redact_paths: bool = False
    force: bool = False
    prune: bool = False
    jobs: int = 0  # 0: all cores
    search: bool = True
    # The tool-output highlighting budget in KB (25 lines per KB); 0: highlight everything.
    highlight_limit: int = DEFAULT_HIGHLIGHT_LIMIT
    # How much of each tool result search indexes, in KB (errors whole); 0: all of it.
    search_limit: int = DEFAULT_SEARCH_LIMIT
    # What the calls cost (pricing.py): shown unless --no-cost; ``prices`` a user's own
    # price table (--prices FILE, docs/cost.md) taking precedence over genai-prices' data.
    cost: bool = True
    prices: Path | None = None
    # Where copies of every transcript read are kept (and read back once the agents
    # delete theirs); None: no archive. Default: $BOUGH_ARCHIVE, else $XDG_DATA_HOME/bough/archive.
    archive: Path | None = field(default_factory=lambda: archive_dir())
    # Called with one line of progress or warning text at a time; the library never prints.
    report: Callable[[str], None] = lambda line: None
    # Called as sessions are done with a build.Progress (done, total, project ...),
    # for a progress bar; None: no progress.
    progress: Callable[[Any], None] | None = None

    def wants(self, source: str) -> bool:
        return self.source_filter in ("all", source)

    def roots(self) -> list[Path]:
        """What this build reads: the sources given, else the agents' default homes."""
        return list(self.sources) if self.sources else agent_roots(self.source_filter)


def agent_roots(source_filter: str = "all", env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the agents keep their transcripts, for the sources ``source_filter``
    selects: what a build with no SOURCE reads, what its archive's scope is, and
    what ``bough serve --watch`` watches. The one place these are listed."""
    roots: list[Path] = []
    if source_filter in ("all", "claude"):
        roots += claude_project_roots(env)
    if source_filter in ("all", "codex"):
        roots += codex_session_roots(env)
    if source_filter in ("all", "gemini"):
        roots.append(gemini_dir(env))
    for layout in _layouts():
        if source_filter in ("all", layout.kind):
            roots += layout.roots(os.environ if env is None else env)
    return roots


def agent_homes(env: Mapping[str, str] | None = None) -> list[Path]:
    """The agents' own directories, where bough never writes (docs/safety.md S8):
    those ``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME`` and ``$GEMINI_CLI_HOME`` name, and
    ``~/.claude``, ``~/.codex``, ``~/.gemini`` too (an agent run without the
    variable still uses them); the same of every agent a Layout describes."""
    env = os.environ if env is None else env
    configured = [root.parent for root in claude_project_roots(env)] + [codex_home(env), gemini_dir(env)]
    defaults = [home(env) / name for name in (".claude", ".codex", ".gemini")]
    bare = {"HOME": str(home(env))}  # where an agent run without its variables keeps its files
    for layout in _layouts():
        configured.append(layout.home(env))
        defaults.append(layout.home(bare))
    return list(dict.fromkeys(configured + defaults))


def root_reads(env: Mapping[str, str] | None = None) -> dict[str, frozenset[str]]:
    """The folders discovery reads at the top of an agent's default root, for the
    agents a Layout describes that say (OpenCode's data directory also holds its
    logs and snapshots, thousands of files): the quick check walks only those."""
    env = os.environ if env is None else env
    return {os.path.abspath(root): layout.reads for layout in _layouts() if layout.reads is not None
            for root in layout.roots(env)}


def _layouts() -> list[Any]:
    # Imported here: the layouts read paths through this module's helpers.
    from .readers.layouts import LAYOUTS

    return list(LAYOUTS.values())


def claude_project_roots(env: Mapping[str, str] | None = None) -> list[Path]:
    """Claude Code's projects directories: ``$CLAUDE_CONFIG_DIR/projects`` (the
    variable may list several roots, comma-separated), else ``~/.claude/projects``."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if configured:
        return [Path(part).expanduser() / "projects" for part in configured.split(",") if part.strip()]
    return [home(env) / ".claude" / "projects"]


def claude_settings_files(env: Mapping[str, str] | None = None) -> list[Path]:
    return [root.parent / "settings.json" for root in claude_project_roots(env)]


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("CODEX_HOME", "").strip()
    return Path(configured).expanduser() if configured else home(env) / ".codex"


def codex_session_roots(env: Mapping[str, str] | None = None) -> list[Path]:
    root = codex_home(env)
    return [root / "sessions", root / "archived_sessions"]


def gemini_dir(env: Mapping[str, str] | None = None) -> Path:
    """Gemini CLI's directory: ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``
    (docs/formats-gemini.md §1). It holds the sessions (``tmp/``) and the settings."""
    env = os.environ if env is None else env
    configured = env.get("GEMINI_CLI_HOME", "").strip()
    return (Path(configured).expanduser() if configured else home(env)) / ".gemini"


def gemini_settings_file(env: Mapping[str, str] | None = None) -> Path:
    return gemini_dir(env) / "settings.json"


def home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("HOME") or Path.home())


def data_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("XDG_DATA_HOME", "").strip()
    return Path(configured).expanduser() if configured else home(env) / ".local" / "share"


def archive_dir(env: Mapping[str, str] | None = None) -> Path:
    """bough's archive: ``$BOUGH_ARCHIVE``, else ``$XDG_DATA_HOME/bough/archive``
    (``~/.local/share/bough/archive``)."""
    env = os.environ if env is None else env
    configured = env.get("BOUGH_ARCHIVE", "").strip()
    return Path(configured).expanduser() if configured else data_home(env) / "bough" / "archive"


def redaction_key(env: Mapping[str, str] | None = None) -> bytes:
    """The secret that makes redaction fingerprints unguessable yet stable across
    builds: ``$BOUGH_REDACTION_KEY``, else a random key kept (mode 0600) in
    ``$XDG_DATA_HOME/bough/redaction.key``, created on first use."""
    env = os.environ if env is None else env
    configured = env.get("BOUGH_REDACTION_KEY", "")
    if configured:
        return configured.encode("utf-8")
    path = data_home(env) / "bough" / "redaction.key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = os.urandom(32).hex().encode("ascii")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key
