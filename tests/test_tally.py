"""Tally.merge: how a project's and the site's numbers are the union of their sessions'."""

from __future__ import annotations

import pytest

from bough_site.model import Usage
from bough_site.stats import Tally
from bough_site.summaries import tally_from_bytes, tally_from_json, tally_to_json


def _tally(replies: dict[str, Usage], records: set[str] = frozenset(), prompts: set[str] = frozenset()) -> Tally:
    tally = Tally(records=set(records), prompts=set(prompts))
    for key, usage in replies.items():
        tally.add_reply(key, usage)
    return tally


@pytest.mark.parametrize("first_is_complete", [True, False])
def test_a_reply_two_sessions_hold_counts_once_with_its_most_complete_usage(first_is_complete: bool) -> None:
    # A resumed session's file holds its parent's replies again; a copy written
    # mid-stream has the smaller usage, and the union keeps the larger, in any order.
    complete, partial = Usage(input_tokens=3, output_tokens=90), Usage(input_tokens=3, output_tokens=1)
    one = _tally({"msg_a": complete if first_is_complete else partial, "msg_b": Usage(output_tokens=5)})
    two = _tally({"msg_a": partial if first_is_complete else complete, "msg_c": Usage(output_tokens=7)})
    union = Tally()
    union.merge(one)
    union.merge(two)
    assert union.replies == {"msg_a": complete, "msg_b": Usage(output_tokens=5), "msg_c": Usage(output_tokens=7)}
    assert union.stats()["output_tokens"] == 102 and union.stats()["replies"] == 3


def test_disjoint_tallies_add_up() -> None:
    one = _tally({"msg_a": Usage(output_tokens=4)}, records={"r1", "r2"})
    two = _tally({"msg_b": Usage(output_tokens=6)}, records={"r2", "r3"})
    union = Tally()
    for tally in (one, two):
        union.merge(tally)
    assert (union.stats()["replies"], union.stats()["output_tokens"], union.stats()["records"]) == (2, 10, 3)
    assert one.replies == {"msg_a": Usage(output_tokens=4)}  # merging leaves its sources as they were


def test_a_subagent_brings_no_prompt() -> None:
    session, agent = Tally(prompts={"p1"}), _tally({"msg_x": Usage(output_tokens=2)}, prompts={"p9"})
    session.merge(agent, prompts_and_commands=False)
    assert session.prompts == {"p1"} and set(session.replies) == {"msg_x"}


def test_a_stored_tally_reads_back_as_it_was_kept() -> None:
    tally = _tally({"msg_a": Usage(1, 2, 3, 4)}, records={"r1"}, prompts={"p1"})
    tally.lines, tally.skipped_lines = 7, 1
    stored = tally_to_json(tally)
    back = tally_from_json(stored)
    assert back.stats() == tally.stats() and len(back.replies) == 1
    assert tally_from_bytes(b"[1, 2]") is None and tally_from_bytes(b"{not json") is None
