"""The bundled examples, counted by hand."""

from __future__ import annotations

from bough_site.model import COST_STAT_KEYS, REASONING_KEY, STAT_KEYS
from corpus import examples as ex
from corpus import gemini_examples as gx


# (The Claude Code examples' STATS, used by tests/test_examples.py alone, are derived there.)

NOTES = "-home-ada-src-notes-api"
DOTFILES = "-home-ada-dotfiles"

# The only lines that are not JSON objects, on purpose: (file, 1-based line).
BAD_LINES = {
    (f"{NOTES}/{ex.N4}.jsonl", 21),  # a tool result cut off mid-write, followed by more records
    (f"{DOTFILES}/{ex.D1}.jsonl", 22),  # the last line, cut off, no newline after it
}


def example_stats(
    records, replies, prompts, commands, tool_calls, tool_results, tool_errors, subagents,
    input_tokens, output_tokens, cache_creation, cache_read, lines, skipped, commits, files_changed,
) -> dict[str, int]:  # fmt: skip
    """STATS from their values in the order of STAT_KEYS."""
    values = (
        records, replies, prompts, commands, tool_calls, tool_results, tool_errors, subagents,
        input_tokens, output_tokens, cache_creation, cache_read, lines, skipped, commits, files_changed,
    )  # fmt: skip
    return dict(zip(STAT_KEYS, values))


def gemini_example_stats(*values: int, reasoning: int) -> dict[str, int]:
    return {**example_stats(*values), REASONING_KEY: reasoning}


# Derived by hand from the stories in corpus/gemini_examples.py (docs/formats-gemini.md §7):
# tokens per reply are (input, cached, output, thoughts); input_tokens adds input - cached,
# output_tokens adds output + thoughts, reasoning_output_tokens adds thoughts.
GEMINI_SESSION_STATS = {
    # G1 (0.44 log and its investigator's log). Records: 28 in the session's file (13 user
    # records: the session context, 4 prompts and 8 stored tool results; 12 replies; the
    # warning, error and info notices), 6 in the sub-agent's (its task, 3 replies, 2 results).
    # The rewound turn (a prompt, 2 replies, a result) still counts. Replies 12 + 3. Prompts:
    # the --units ask, "Round feet…" (rewound), "Keep two decimals…", "Commit it.". Calls:
    # 11 in the session (2 reads, replace, write_file, 2 pytest runs, 2 replaces, invoke_agent,
    # commit, push) + grep_search and read_file in the sub-agent; each has a result (the
    # cancelled push too); the read of the missing main.py is the one error.
    # Session replies (input, cached, output, thoughts): (9120, 0, 64, 210),
    # (11876, 8900, 612, 340), (13410, 11700, 38, 95), (14702, 13300, 240, 180),
    # (15380, 14600, 31, 42), (15690, 15200, 156, 60), (15960, 15500, 190, 75),
    # (16330, 15800, 48, 0), (16010, 15500, 120, 130), (17240, 15900, 88, 70),
    # (17520, 17100, 52, 40), (17790, 17300, 30, 25): input - cached = 20,228, cached 160,800,
    # output 1,669, thoughts 1,267. Sub-agent: (5230, 0, 45, 120), (6110, 5100, 40, 60),
    # (7480, 6000, 210, 150): 7,720, 11,100, 295, 330. So input 27,948, cache reads 171,900,
    # output 1,669 + 1,267 + 295 + 330 = 3,561, reasoning 1,267 + 330 = 1,597.
    # Lines: the session's 68 = metadata + 28 records each followed by a $set (56) + 9 replies
    # written again with their calls + $rewindTo + the title's $set; the sub-agent's 15 =
    # metadata + 6 × 2 + 2 replies written again. Commit 5d2a8c4; files cli.py, units.py,
    # format.py (twice, once in the rewound turn).
    gx.G1: gemini_example_stats(34, 15, 4, 0, 13, 13, 1, 1, 27948, 3561, 0, 171900, 83, 0, 1, 3, reasoning=1597),
    # A1 (0.22 legacy .json, one line): the info notice, the prompt, 5 replies; 4 calls
    # (read_file, pytest twice, replace), none an error. Replies: (6240, 0, 52, 310),
    # (7105, 5900, 40, 120), (8020, 6800, 185, 260), (8390, 7900, 35, 30), (8610, 8200, 142, 45):
    # input 6,240 + 1,205 + 1,220 + 490 + 410 = 9,565; cached 28,800; output 454 + thoughts 765.
    # File almanac/moon.py.
    gx.A1: gemini_example_stats(7, 5, 1, 0, 4, 4, 0, 0, 9565, 1219, 0, 28800, 1, 0, 0, 1, reasoning=765),
}


def uncosted(stats: dict) -> dict:
    """The counted STATS, without what the calls cost (pricing.py: tests/test_pricing.py and
    tests/test_cost_ccusage.py check those)."""
    return {key: value for key, value in stats.items() if key not in COST_STAT_KEYS}
