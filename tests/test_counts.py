"""counts.Counts: a union of tallies counted from packed digests gives the numbers
stats.Tally gives for the same union, merged in the same order."""

from __future__ import annotations

import functools
import itertools
import operator

import orjson
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bough_site.counts import Counts, ProjectSums, Sums, pack, unpack
from bough_site.hidden import hide
from bough_site.manifest import Manifest
from bough_site.model import Project, Session, Usage
from bough_site.site import site_counted
from bough_site.stats import SET_KEYS, Tally

# Few names, so that parts share identities; digests as the state keeps them, and
# other strings (a test's "r1"), which are packed as their own digests.
DIGESTS = st.sampled_from([hide(str(n)) for n in range(6)])
NAMES = st.one_of(DIGESTS, st.sampled_from(["r1", "r2", "\udc80odd"]))
TOKENS = st.integers(min_value=0, max_value=3)  # small: copies of a reply tie often
COST = st.one_of(st.none(), st.integers(min_value=0, max_value=5), st.just(2**70))


@st.composite
def tallies(draw: st.DrawFn, names: st.SearchStrategy[str] = NAMES, digests: st.SearchStrategy[str] = DIGESTS) -> Tally:
    tally = Tally()
    for key in SET_KEYS:
        getattr(tally, key).update(draw(st.sets(names, max_size=4)))
    for key in draw(st.lists(names, max_size=4)):
        usage = Usage(*draw(st.lists(TOKENS, min_size=5, max_size=5)))
        usage.unknown = draw(st.booleans())
        tally.add_reply(key, usage)
    if draw(st.booleans()):
        tally.costs = {key: (draw(COST), draw(COST)) for key in draw(st.lists(names, max_size=3))}
    for key in draw(st.lists(digests, max_size=2)):  # JSON keys in the state: never a lone surrogate
        tally.totals[key] = Usage(*draw(st.lists(TOKENS, min_size=5, max_size=5)))
    for key in draw(st.lists(st.sampled_from(["input_tokens", "output_tokens"]), max_size=2)):
        tally.mark_unknown(draw(digests), key)
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


# --- a site's numbers as its projects' sums added (site.site_counted) ------------------------


@st.composite
def projects(draw: st.DrawFn) -> list[list[Tally]]:
    """A few projects' tallies, each drawing its names from the pool all share or
    from its own (projects of their own names share no identity)."""
    out = []
    for number in range(draw(st.integers(min_value=1, max_value=4))):
        if draw(st.booleans()):
            own = st.sampled_from([hide(f"{number}:{n}") for n in range(6)])
            parts = draw(st.lists(tallies(own, own), max_size=3))
        else:
            parts = draw(st.lists(tallies(), max_size=3))
        out.append(parts)
    return out


def project_counts(parts: list[Tally]) -> Counts:
    counts = Counts()
    for part in parts:
        counts.merge(Counts.of(part))
    return counts


def shared(one: Tally, other: Tally) -> bool:
    """Whether two unions hold an identity in common, as the numbers count them."""
    return any(getattr(one, key) & getattr(other, key) for key in SET_KEYS) or bool(
        one.replies.keys() & other.replies.keys() or (one.costs or {}).keys() & (other.costs or {}).keys()
        or one.totals.keys() & other.totals.keys()
        or any(sessions & other.unknown.get(key, set()) for key, sessions in one.unknown.items()))


@settings(max_examples=400, deadline=None)
@given(projects())
def test_projects_that_share_no_prefix_have_the_sites_numbers_added_up(parts: list[list[Tally]]) -> None:
    site, sums, prefixes, tallies_ = Counts(), [], [], []
    for project in parts:
        counts = project_counts(project)
        site.merge(counts)
        sums.append(counts.sums())
        prefixes.append(set(_prefixes(counts.prefixes())))
        merged = Tally()
        for part in project:
            merged.merge(part)
        tallies_.append(merged)
    assert [Sums.from_json(orjson.loads(orjson.dumps(s.to_json()))) for s in sums if _fits(s)] == \
        [s for s in sums if _fits(s)]
    for a, b in itertools.combinations(range(len(parts)), 2):
        if shared(tallies_[a], tallies_[b]):
            assert prefixes[a] & prefixes[b]  # a shared identity is never missed
    if all(not (p & q) for p, q in itertools.combinations(prefixes, 2)):
        assert functools.reduce(operator.add, sums, Counts().sums()).stats() == site.stats()


def _fits(sums: Sums) -> bool:
    return sums.costs is None or all(n < 2**63 for n in sums.costs)


class _Projects:
    """site.ProjectCounts over projects' tallies, counting what it is asked."""

    def __init__(self, parts: dict[str, list[Tally]]) -> None:
        self.parts, self.unions = parts, 0

    def sums(self, sessions: list[Session]) -> ProjectSums:
        counts = project_counts(self.parts[sessions[0].cwd])
        return ProjectSums(f"sums-{sessions[0].cwd}", counts.sums(), counts.prefixes())

    def union(self, sessions: list[Session]) -> Counts:
        self.unions += 1
        return project_counts(self.parts[sessions[0].cwd])


@settings(max_examples=200, deadline=None)
@given(projects(), st.data())
def test_the_sites_numbers_are_its_identities_counted_once_whether_added_up_or_not(
        parts: list[list[Tally]], data: st.DataObject) -> None:
    by_id = {f"p{n}": project for n, project in enumerate(parts)}
    sites = [Project(id=key, name=key, cwd=key, stats={}, tally=Tally(),
                     sessions=[Session(key, "claude-code", key, None, None, None, [], [], None, [], [], {})])
             for key in by_id]
    want = Counts()
    for project in parts:
        want.merge(project_counts(project))
    counts = _Projects(by_id)
    site, apart = site_counted(sites, counts, [], Manifest())
    event("added up" if apart else "counted whole")
    assert site.stats == want.stats()
    assert bool(apart) == (counts.unions == 0)  # added up, or counted whole
    # The next build takes the projects it found apart as apart, and checks the others.
    before = data.draw(st.lists(st.sampled_from(apart), unique=True)) if apart else []
    again, _ = site_counted(sites, _Projects(by_id), [], Manifest(apart=before))
    assert again.stats == want.stats()


def _prefixes(data: bytes) -> list[int]:
    values = [int.from_bytes(data[at:at + 8], "little") for at in range(0, len(data), 8)]
    assert values == sorted(set(values))  # sorted, each once: what site._apart cuts by bisection
    return values
