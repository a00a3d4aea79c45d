"""counts.Counts: a union of tallies counted from packed digests gives the numbers
stats.Tally gives for the same union, merged in the same order."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site.counts import Counts, pack, unpack
from bough_site.hidden import hide
from bough_site.model import Usage
from bough_site.stats import SET_KEYS, Tally

# Few names, so that parts share identities; digests as the state keeps them, and
# other strings (a test's "r1"), which are packed as their own digests.
DIGESTS = st.sampled_from([hide(str(n)) for n in range(6)])
NAMES = st.one_of(DIGESTS, st.sampled_from(["r1", "r2", "\udc80odd"]))
TOKENS = st.integers(min_value=0, max_value=3)  # small: copies of a reply tie often
COST = st.one_of(st.none(), st.integers(min_value=0, max_value=5), st.just(2**70))


@st.composite
def tallies(draw: st.DrawFn) -> Tally:
    tally = Tally()
    for key in SET_KEYS:
        getattr(tally, key).update(draw(st.sets(NAMES, max_size=4)))
    for key in draw(st.lists(NAMES, max_size=4)):
        usage = Usage(*draw(st.lists(TOKENS, min_size=5, max_size=5)))
        usage.unknown = draw(st.booleans())
        tally.add_reply(key, usage)
    if draw(st.booleans()):
        tally.costs = {key: (draw(COST), draw(COST)) for key in draw(st.lists(NAMES, max_size=3))}
    for key in draw(st.lists(DIGESTS, max_size=2)):  # JSON keys in the state: never a lone surrogate
        tally.totals[key] = Usage(*draw(st.lists(TOKENS, min_size=5, max_size=5)))
    for key in draw(st.lists(st.sampled_from(["input_tokens", "output_tokens"]), max_size=2)):
        tally.mark_unknown(draw(DIGESTS), key)
    tally.lines, tally.skipped_lines = draw(TOKENS), draw(TOKENS)
    tally.has_reasoning = draw(st.booleans())
    return tally


@settings(max_examples=400, deadline=None)
@given(st.lists(tallies(), max_size=5), st.booleans())
def test_counts_give_the_merged_tallys_numbers(parts: list[Tally], stored: bool) -> None:
    merged, counts = Tally(), Counts()
    for part in parts:
        merged.merge(part)
        counts.merge(unpack(pack(Counts.of(part))) if stored else Counts.of(part))
    got, want = counts.stats(), merged.stats()
    assert {k: (got.get(k), want.get(k)) for k in {*got, *want} if got.get(k) != want.get(k)} == {}
    assert list(got) == list(want)


def test_repeated_replies_count_once_with_the_first_of_their_largest_copies() -> None:
    one, two, three = Tally(), Tally(), Tally()
    one.add_reply("m1", Usage(1, 2, 0, 0))
    two.add_reply("m1", Usage(2, 1, 0, 0))  # the same total: the first stays
    three.add_reply("m1", Usage(0, 9, 0, 0))  # larger: it wins
    three.add_reply("m2", Usage(5, 0, 0, 0))
    three.records.update({"r1", "r2"})
    two.records.add("r1")
    counts = Counts()
    for part in (one, two):
        counts.merge(Counts.of(part))
    assert (counts.stats()["replies"], counts.stats()["input_tokens"], counts.stats()["output_tokens"]) == (1, 1, 2)
    counts.merge(Counts.of(three))
    stats = counts.stats()
    assert (stats["replies"], stats["input_tokens"], stats["output_tokens"], stats["records"]) == (2, 5, 9, 2)


def test_what_an_array_cannot_hold_is_kept_exactly() -> None:
    tally = Tally(costs={"m1": (2**70, None), "m2": (None, 3)})
    tally.add_reply("m1", Usage(1, 1))
    back = unpack(pack(Counts.of(tally)))
    assert back is not None and back.stats() == tally.stats()
    assert back.stats()["cost_usd"] == round(2**70 / 10**12, 6)


def test_anything_but_packed_counts_reads_as_none() -> None:
    data = pack(Counts.of(Tally(records={"r1", "r2"})))
    assert unpack(data) is not None
    magic, header, packed = data.split(b"\n", 2)
    sizes = orjson.loads(header)["sets"]["records"]
    assert sum(sizes) == 2
    one_more = orjson.dumps({**orjson.loads(header), "sets": {"records": [sizes[0] + 1, *sizes[1:]]}})
    for bad in (b"", b'{"records": ["r1"]}', data[:-1], data + b"x", b"\n".join([magic, one_more, packed])):
        assert unpack(bad) is None
