"""The model every reader produces and every renderer consumes.

Plain dataclasses: nothing here knows about JSONL or HTML. A reader turns one
format's records into these; the renderer and the sidecar writer read them.

Each timeline item has a ``kind`` class attribute naming it in the JSON
sidecars and to the templates (``item.kind == "reply"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

# The STATS keys every session, project and site carries, in a fixed order.
STAT_KEYS: tuple[str, ...] = (
    "records",
    "replies",
    "prompts",
    "commands",
    "tool_calls",
    "tool_results",
    "tool_errors",
    "subagents",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "lines",
    "skipped_lines",
    # What the agent built (bough_site/work.py): distinct commits it made and
    # distinct files it changed through the file tools.
    "commits",
    "files_changed",
)
# Only sessions (and projects/sites holding them) that come from Codex or Gemini CLI carry this key.
REASONING_KEY = "reasoning_output_tokens"
# Only sessions (and projects/sites) holding a reply whose token counts are unknown carry this key.
UNKNOWN_TOKENS_KEY = "replies_with_unknown_tokens"
# The token keys a session's files may not hold at all (Copilot CLI keeps input and
# cache tokens only in a shutdown record a killed session never wrote). A session
# whose figure for one of them is unknown has it null; a project or site gives the
# known sum and, under UNKNOWN_SESSIONS_PREFIX + key, how many sessions it leaves
# out (docs/stats.md, "Figures the files do not hold").
TOKEN_STAT_KEYS: tuple[str, ...] = (
    "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", REASONING_KEY,
)
UNKNOWN_SESSIONS_PREFIX = "sessions_with_unknown_"
# What the calls cost (bough_site/pricing.py; docs/cost.md): only where pricing ran (not
# with --no-cost). The estimate in USD from the price table, the calls it leaves out
# (unknown model, local model, unknown tokens), and what the transcripts recorded
# themselves (Claude Code's costUSD, OpenCode's cost), where they did.
COST_KEY = "cost_usd"
UNKNOWN_COST_KEY = "replies_with_unknown_cost"
RECORDED_COST_KEY = "recorded_cost_usd"
RECORDED_COST_REPLIES_KEY = "replies_with_recorded_cost"
COST_STAT_KEYS = (COST_KEY, UNKNOWN_COST_KEY, RECORDED_COST_KEY, RECORDED_COST_REPLIES_KEY)

SOURCE_CLAUDE = "claude-code"
SOURCE_CODEX = "codex"
SOURCE_GEMINI = "gemini-cli"
SOURCE_OPENCODE = "opencode"
SOURCE_COPILOT = "copilot-cli"
SOURCE_QWEN = "qwen-code"
# How pages, search filters and the archive report name each source.
SOURCE_LABELS = {SOURCE_CLAUDE: "Claude Code", SOURCE_CODEX: "Codex", SOURCE_GEMINI: "Gemini CLI",
                 SOURCE_OPENCODE: "OpenCode", SOURCE_COPILOT: "Copilot CLI", SOURCE_QWEN: "Qwen Code"}

# ``removed`` on a timeline item: the agent later took it out of its own history
# (Gemini CLI's /rewind, or a compression that replaced the history). The item
# was still written and billed: it is shown, marked, and counted.
REMOVED_REWOUND = "rewound"
REMOVED_COMPACTED = "compacted"
# A field whose metadata holds this is left out of a sidecar while it has its
# default value (sidecars.to_json), so adding it changes no existing sidecar.
OMIT_DEFAULT = {"sidecar": "omit-default"}
# A field whose metadata holds this is never in a sidecar (what only a stage needs).
NOT_IN_SIDECAR = {"sidecar": "never"}


@dataclass
class Usage:
    """Token spend of one model call (one reply)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    reasoning_output_tokens: int = 0
    # A count the record held was not one (Infinity, text, a negative, beyond any
    # model's): the reply's tokens are unknown, its other counts as they were
    # (readers/values.as_count; docs/stats.md). Left out of a sidecar while False.
    unknown: bool = field(default=False, metadata=OMIT_DEFAULT)
    # The keys (of TOKEN_STAT_KEYS) the record does not hold for this reply: their 0
    # here is no count (null in the sidecar, left out of the reply's header). Copilot
    # CLI writes only a reply's output; its input and cache are the session's totals
    # (stats.Tally.totals). Left out of a sidecar while empty.
    unknown_keys: tuple[str, ...] = field(default=(), metadata=OMIT_DEFAULT)
    # Of cache_creation_input_tokens, those written to the one-hour cache (Claude's
    # usage.cache_creation.ephemeral_1h_input_tokens), priced at its own, higher rate
    # (pricing.py). Left out of a sidecar while 0.
    cache_creation_1h_input_tokens: int = field(default=0, metadata=OMIT_DEFAULT)

    def total(self) -> int:
        """The size used to pick the most complete copy of a streamed reply."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )


@dataclass
class InputWarning:
    """Something in the input that was skipped or looked wrong."""

    file: str
    line: int  # 0 when the warning is about a whole file
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.reason}"


# --- content inside prompts, replies and tool results -------------------------


@dataclass
class Text:
    kind: ClassVar[str] = "text"
    text: str


@dataclass
class Thinking:
    """Reasoning the model showed (Claude thinking, Codex reasoning summaries)."""

    kind: ClassVar[str] = "thinking"
    text: str


@dataclass
class Image:
    """An image carried inline as base64. Renderers check the bytes themselves;
    ``media_type`` is what the transcript claimed and is never trusted."""

    kind: ClassVar[str] = "image"
    media_type: str
    data: str  # base64


Content = Union[Text, Image]


@dataclass
class ToolResult:
    content: list[Content]
    is_error: bool = False
    timestamp: str | None = None
    # The structured result the agent recorded (Claude ``toolUseResult``, Codex
    # exec metadata), kept as plain JSON data for renderers that want more
    # (Edit's structuredPatch, TodoWrite's newTodos). Any JSON shape.
    detail: Any = None


@dataclass
class ToolCall:
    kind: ClassVar[str] = "tool_call"
    id: str
    name: str
    input: Any  # usually a dict; any JSON value
    timestamp: str | None = None
    result: ToolResult | None = None
    subagent: SubagentRun | None = None


Block = Union[Text, Thinking, ToolCall, Image]


# --- timeline items -----------------------------------------------------------


@dataclass
class Prompt:
    """Something a person typed."""

    kind: ClassVar[str] = "prompt"
    id: str  # record uuid (Claude) or a stable synthetic id (Codex)
    anchor: str  # "p1", "p2", ... in timeline order, stable across builds
    timestamp: str | None
    content: list[Content]
    removed: str | None = field(default=None, metadata=OMIT_DEFAULT)  # REMOVED_REWOUND | REMOVED_COMPACTED


@dataclass
class Reply:
    """One model call: every block written under one ``message.id``."""

    kind: ClassVar[str] = "reply"
    id: str  # message.id
    anchor: str  # "r1", "r2", ...
    timestamp: str | None
    model: str | None
    blocks: list[Block]
    usage: Usage
    is_error: bool = False  # an API error the harness wrote as a reply
    removed: str | None = field(default=None, metadata=OMIT_DEFAULT)  # REMOVED_REWOUND | REMOVED_COMPACTED
    # Who served the call, where the transcript names it (OpenCode's providerID); the
    # other agents' provider follows from the agent (pricing.PROVIDERS).
    provider: str | None = field(default=None, metadata=OMIT_DEFAULT)
    # What the transcript itself says the call cost, in USD (Claude Code's costUSD,
    # OpenCode's cost), and bough's estimate from the price table (pricing.py; None
    # when the price is unknown or pricing is off).
    recorded_cost: float | None = field(default=None, metadata=OMIT_DEFAULT)
    cost: float | None = field(default=None, metadata=OMIT_DEFAULT)
    # A reply made of several API calls (OpenCode's steps): each call's own usage, which
    # ``usage`` sums. Tiers apply per call, so pricing prices these. Empty otherwise.
    calls: tuple[Usage, ...] = field(default=(), metadata=NOT_IN_SIDECAR)


@dataclass
class Command:
    """A slash command (``/model``, ``/compact`` ...) and what it printed."""

    kind: ClassVar[str] = "command"
    id: str
    timestamp: str | None
    name: str
    args: str = ""
    output: str = ""
    removed: str | None = field(default=None, metadata=OMIT_DEFAULT)  # REMOVED_REWOUND | REMOVED_COMPACTED


@dataclass
class Marker:
    """A quiet note in the timeline: compaction, interruption, error, system notice,
    or the history a Codex fork or sub-agent, or a resumed Claude session, inherited
    from its parent (shown there, not here)."""

    kind: ClassVar[str] = "marker"
    id: str
    timestamp: str | None
    # "compaction" | "interruption" | "error" | "warning" | "notice" | "inherited" | "meta"
    type: str
    text: str = ""
    # For "inherited": the session the copied history belongs to, and how many items.
    ref_session: str | None = None
    count: int = 0
    removed: str | None = field(default=None, metadata=OMIT_DEFAULT)  # REMOVED_REWOUND | REMOVED_COMPACTED


TimelineItem = Union[Prompt, Reply, Command, Marker]


def number_anchors(items: list[TimelineItem]) -> None:
    """Number prompts p1, p2 ... and replies r1, r2 ... in timeline order: the
    anchors pages link to, stable across builds of the same transcript."""
    counters = {"p": 0, "r": 0}
    for item in items:
        if isinstance(item, (Prompt, Reply)):
            prefix = "p" if isinstance(item, Prompt) else "r"
            counters[prefix] += 1
            item.anchor = f"{prefix}{counters[prefix]}"


@dataclass
class SubagentRun:
    """A sub-agent's own transcript, nested under the call that launched it."""

    kind: ClassVar[str] = "subagent"
    agent_id: str
    agent_type: str | None
    description: str | None
    file: str
    timeline: list[TimelineItem]
    stats: dict[str, int]
    models: list[str] = field(default_factory=list)


# --- sessions, projects, the site --------------------------------------------


@dataclass
class Session:
    id: str
    source: str  # one of SOURCE_LABELS
    cwd: str | None
    title: str
    started: str | None  # ISO-8601 UTC
    ended: str | None
    versions: list[str]
    models: list[str]
    git_branch: str | None
    files: list[str]  # source files read for this session (main first)
    timeline: list[TimelineItem]
    stats: dict[str, int]
    warnings: list[InputWarning] = field(default_factory=list)
    # Sub-agent runs that could not be placed under a launching call.
    orphan_subagents: list[SubagentRun] = field(default_factory=list)
    parent_id: str | None = None  # Codex fork: the session it was forked from
    redactions: dict[str, int] = field(default_factory=dict)
    # Counting keys, so a project counts a record or reply held by two files once.
    # Not part of the sidecar; see stats.Tally.
    tally: Any = None
    # Safe, unique-within-project file name stem; assigned by the build.
    slug: str = ""
    # Set when the live transcript is gone and the page was built from bough's
    # archive: the date (ISO) since which bough has kept it.
    kept_since: str | None = None
    # What the agent built (bough_site/work.py fills these after redaction),
    # as JSON data so a session summary can carry them without its timeline:
    # commits in the order made, changed files by path (each with its edits),
    # sub-agent runs, prompt times (the project timeline) and per reply
    # [key, day, input, output, cache reads] (the tokens-per-day chart).
    # Shapes: docs/sidecars.md and work.py.
    commits: list[dict[str, Any]] = field(default_factory=list)
    file_changes: list[dict[str, Any]] = field(default_factory=list)
    agents: list[dict[str, Any]] = field(default_factory=list)
    prompt_times: list[str] = field(default_factory=list)
    reply_usage: list[list[Any]] = field(default_factory=list)
    # [anchor, text] of its prompts and replies, capped: the file:// search index (search/offline.py).
    search_items: list[list[str]] = field(default_factory=list)
    # A page split in parts (render/pages.py): the part (2, 3 ...) holding each
    # moment the summary links to (commits, edits, sub-agent runs, search items)
    # that is not on the first page. Set when the pages are rendered.
    anchor_parts: dict[str, int] = field(default_factory=dict)
    # Claude resumes: the timeline items left out because an earlier session's file
    # holds the same records (an "inherited" marker stands in their place; see
    # inherit.py). Neither shown nor in the sidecar, but redacted and walked for
    # the commits and files STATS count, which cover the whole file.
    inherited_items: list[TimelineItem] = field(default_factory=list)


@dataclass
class Project:
    id: str  # safe, stable slug for file names
    name: str  # a short label (last path component)
    cwd: str
    sessions: list[Session]
    stats: dict[str, int]
    # The union of its sessions' tallies; not part of the sidecar (a build empties it: site.site_stats).
    tally: Any = None


@dataclass
class Site:
    projects: list[Project]
    stats: dict[str, int]
    warnings: list[InputWarning] = field(default_factory=list)


# --- what a session's page links to ---------------------------------------------


def linked_sessions(session: Session) -> list[str]:
    """The other sessions a session's page links to: a Codex fork's parent, and the
    session each "inherited" marker names (in the timeline and in sub-agent runs).
    The build resolves these to pages before the page is rendered."""
    found = {session.parent_id} if isinstance(session.parent_id, str) else set()
    runs = list(session.orphan_subagents)
    items: list[TimelineItem] = list(session.timeline)
    while items or runs:
        if runs:
            items.extend(runs.pop().timeline)
            continue
        item = items.pop()
        if isinstance(item, Marker) and item.type == "inherited" and isinstance(item.ref_session, str):
            found.add(item.ref_session)
        elif isinstance(item, Reply):
            runs.extend(block.subagent for block in item.blocks
                        if isinstance(block, ToolCall) and block.subagent is not None)
    return sorted(found)
