"""Figures a session's files do not hold (docs/stats.md, "Figures the files do not hold"):
null for the session, the known sum and a count of the sessions left out for a project and
the site, null in a reply's usage; every tally and sidecar without them as it was."""

from __future__ import annotations

import orjson

from bough_site.model import STAT_KEYS, Usage
from bough_site.render.formats import reply_tokens, tokens, tokens_unknown
from bough_site.sidecars import to_json
from bough_site.stats import Tally
from bough_site.summaries import tally_from_json, tally_to_json

PER_SESSION = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "reasoning_output_tokens")


def known() -> Tally:
    tally = Tally(has_reasoning=True, session=True)
    tally.replies["a:r1"] = Usage(output_tokens=10, unknown_keys=PER_SESSION)
    tally.totals["a:shutdowns"] = Usage(input_tokens=100, cache_read_input_tokens=40, reasoning_output_tokens=3)
    return tally


def unknown() -> Tally:
    tally = Tally(has_reasoning=True, session=True)
    tally.replies["b:r1"] = Usage(output_tokens=7, unknown_keys=PER_SESSION)
    tally.mark_unknown("b", *PER_SESSION)
    return tally


def test_a_tally_without_them_is_as_it_was() -> None:
    tally = Tally()
    tally.add_reply("r", Usage(5, 6, 7, 8))
    assert list(tally.stats()) == list(STAT_KEYS)
    assert set(tally_to_json(tally)) == {"records", "prompts", "commands", "tool_calls", "tool_results", "tool_errors",
                                         "subagents", "commits", "files_changed", "replies", "lines", "skipped_lines",
                                         "has_reasoning"}
    assert to_json(Usage(1, 2, 3, 4)) == {"input_tokens": 1, "output_tokens": 2, "cache_creation_input_tokens": 3,
                                          "cache_read_input_tokens": 4, "reasoning_output_tokens": 0}


def test_session_totals_count_but_are_not_replies() -> None:
    stats = known().stats()
    assert (stats["replies"], stats["input_tokens"], stats["output_tokens"]) == (1, 100, 10)
    assert (stats["cache_read_input_tokens"], stats["reasoning_output_tokens"]) == (40, 3)


def test_unknown_is_null_for_the_session_and_counted_out_above_it() -> None:
    stats = unknown().stats()
    assert stats["input_tokens"] is None and stats["cache_read_input_tokens"] is None
    assert stats["output_tokens"] == 7 and "sessions_with_unknown_input_tokens" not in stats
    project = Tally()
    project.merge(known())
    project.merge(unknown())
    total = project.stats()
    assert (total["input_tokens"], total["output_tokens"], total["replies"]) == (100, 17, 2)
    assert total["sessions_with_unknown_input_tokens"] == 1
    assert total["sessions_with_unknown_reasoning_output_tokens"] == 1
    assert "sessions_with_unknown_output_tokens" not in total
    site = Tally()
    site.merge(project)
    site.merge(project)  # the same sessions again: counted once
    assert site.stats()["sessions_with_unknown_input_tokens"] == 1


def test_the_state_keeps_them() -> None:
    project = Tally()
    for one in (known(), unknown()):
        again = tally_from_json(orjson.loads(orjson.dumps(tally_to_json(one))))
        project.merge(again)
    total = project.stats()
    assert (total["input_tokens"], total["sessions_with_unknown_input_tokens"]) == (100, 1)


def test_pages_and_sidecars_say_unknown() -> None:
    usage = Usage(output_tokens=311, unknown_keys=PER_SESSION)
    assert to_json(usage) == {"input_tokens": None, "output_tokens": 311, "cache_creation_input_tokens": None,
                              "cache_read_input_tokens": None, "reasoning_output_tokens": None}
    shown = reply_tokens(usage)
    assert shown.text == "out 311" and shown.total == 311
    assert "input, cache write, cache read: not recorded per reply" in shown.title
    assert reply_tokens(Usage(unknown_keys=(*PER_SESSION, "output_tokens"))) is None
    stats = unknown().stats()
    assert tokens(stats) == 7 and tokens_unknown(stats)
    assert not tokens_unknown(known().stats())
    assert tokens_unknown({"input_tokens": 5, "sessions_with_unknown_input_tokens": 2})
