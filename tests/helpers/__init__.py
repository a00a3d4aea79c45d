"""What more than one test module uses, in one place: a test module never imports
another test module (tests/test_layout.py checks), so each reads on its own and none
breaks when another is edited. The fixtures more than one module uses are in
conftest.py, where pytest finds them; what one module alone uses stays in it.

One module per concern:

- ``repo``: the repository, the example builder (``be``), the shared real transcripts;
- ``claude_records``: hand-written Claude Code records; ``agents``: a small session in
  each agent's format, laid out where the agent keeps it;
- ``model_objects``: model objects built by hand, to render without a reader;
- ``dom``: a small DOM from html.parser; ``csp``: what a page must not hold;
- ``file_system``: the folders a build lists, a FIFO swapped in once a file was looked at;
- ``builds``: whole builds on disk and what a rebuild wrote again;
- ``example_counts``: the bundled examples, counted by hand;
- ``redaction``: secrets in what a build wrote, redaction labels, texts without secrets;
- ``server``: the site over HTTP; ``browser``: skip or fail, what a page reports.

A test module imports from ``tests.helpers`` (``from .helpers import X``): the names
below are the package's, whichever module owns them.

Nothing here imports Playwright: the browser tests import it when they run, so a
machine without it still collects every other test (``require_browser``)."""

from __future__ import annotations

from .agents import AGENTS, agent_id, agent_records, agent_time, write_agent_session
from .browser import (
    CHROMIUM,
    LAUNCH_ARGS,
    SCREENSHOTS,
    VIEWPORT,
    ExampleSite,
    Tab,
    Watch,
    browser_unavailable,
    require_browser,
    start_url,
)
from .builds import (OLD, age, append_turn, main_file, make_history, rewritten, run, sessions_of,
                     spy_early_shards, tree)
from .claude_records import (
    CWD,
    SESSION,
    base,
    prompt,
    reply,
    reset_clock,
    system,
    text,
    tool_result,
    tool_use,
    write_jsonl,
)
from .file_system import finished_within, scandir_calls, swapped_for_a_fifo_once_looked_at
from .csp import BAD_SCHEME, FORBIDDEN_TAGS, URL_ATTRS, csp_problems
from .dom import VOID, Node, Tree, parse
from .links import link_problems, scan
from .example_counts import (BAD_LINES, DOTFILES, GEMINI_SESSION_STATS, NOTES, example_stats, gemini_example_stats,
                             uncosted)
from .model_objects import (
    EVIL,
    EVIL_MEDIA,
    EVIL_URL,
    LINKS,
    PNG_B64,
    READ_LINES,
    READ_TEXT,
    STATS,
    SVG_B64,
    all_calls,
    claude_timeline,
    codex_timeline,
    make_site,
    page,
    png_bytes,
    read_session,
    result,
    session,
    subagent,
)
from .redaction import (
    CODE,
    FILLER,
    KEY,
    PROSE,
    SQLITE,
    deadline,
    fingerprint,
    forms,
    inflated,
    leaks,
    random_chars,
    redaction_label,
    stored_values,
)
from .repo import (FIXTURES, REPO, SHARED, be, ccusage_command, file_tree, fixtures_dir, lay_out_as_config_dir,
                   load_build_examples)
from .server import SUBPATH, Server, netlify_headers, serving

__all__ = [
    "AGENTS", "BAD_LINES", "BAD_SCHEME", "CHROMIUM", "CODE", "CWD", "DOTFILES", "EVIL", "EVIL_MEDIA", "EVIL_URL",
    "FILLER", "FIXTURES", "FORBIDDEN_TAGS", "GEMINI_SESSION_STATS", "KEY", "LAUNCH_ARGS", "LINKS", "NOTES", "OLD",
    "PNG_B64", "PROSE", "READ_LINES", "READ_TEXT", "REPO", "SCREENSHOTS", "SESSION", "SHARED", "SQLITE", "STATS",
    "SUBPATH", "SVG_B64", "URL_ATTRS", "VIEWPORT", "VOID", "ExampleSite", "Node", "Server", "Tab", "Tree", "Watch",
    "age", "agent_id", "agent_records", "agent_time", "all_calls", "append_turn", "base", "be",
    "browser_unavailable", "ccusage_command", "claude_timeline", "codex_timeline", "csp_problems", "deadline", "example_stats",
    "file_tree", "fingerprint", "finished_within", "fixtures_dir", "forms", "gemini_example_stats", "inflated",
    "lay_out_as_config_dir", "leaks", "link_problems", "load_build_examples", "main_file", "make_history", "make_site",
    "netlify_headers", "page", "parse", "png_bytes", "prompt", "random_chars", "read_session", "redaction_label",
    "reply", "require_browser", "reset_clock", "result", "rewritten", "run", "scan", "scandir_calls", "serving",
    "session", "sessions_of", "spy_early_shards", "start_url", "stored_values", "subagent",
    "swapped_for_a_fifo_once_looked_at", "system", "text", "tool_result", "tool_use", "tree",
    "uncosted", "write_agent_session", "write_jsonl",
]  # fmt: skip
