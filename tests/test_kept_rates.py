"""genai-prices' rates kept in OUT's state between builds (bough_site/kept_rates.py):
an append that prices a model priced before does not import genai-prices, and what
is kept never changes a cost: a site built with kept rates is the site built without."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site import kept_rates
from bough_site.hidden import hide
from bough_site.kept_rates import EVERY_DAY, KeptRates, from_bytes, to_bytes
from bough_site.pricing import PriceTable, Rates, bundled_version
from bough_site.state_paths import KEPT_RATES, STATE_DIR

from .helpers.repo import file_tree

EXAMPLES = Path(__file__).resolve().parent.parent / "bough_site" / "examples" / "claude" / "projects"
VERSION = bundled_version()
TIERED = Rates((3_000_000, ((200_000, 6_000_000),)), (15_000_000, ((200_000, 22_500_000),)), (300_000, ()), None, None)
FLAT = Rates((1, ()), (2, ()), (3, ()), (4, ()), (5, ()))

counts = st.integers(min_value=0, max_value=2**62)
prices = st.tuples(counts, st.lists(st.tuples(counts, counts), max_size=3).map(tuple))
rates = st.builds(Rates, prices, prices, st.none() | prices, st.none() | prices, st.none() | prices)
texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


def test_an_answer_kept_by_one_build_is_what_the_next_one_gets(tmp_path: Path) -> None:
    first = KeptRates(tmp_path, VERSION)
    first.add("anthropic", "tiered", "2026-03-01", TIERED, every_day=True)
    first.add("openai", "by-day", "2026-03-01", FLAT, every_day=False)
    first.add("google", "unknown-model", "2026-03-01", None, every_day=True)
    first.save()
    assert (tmp_path / STATE_DIR / KEPT_RATES).is_file()

    later = KeptRates(tmp_path, VERSION)
    assert later.get("anthropic", "tiered", "2030-01-01") == TIERED  # prices that hold on every day
    assert later.get("openai", "by-day", "2026-03-01") == FLAT
    assert later.get("google", "unknown-model", "2026-03-02") is None  # a model genai-prices does not know
    with pytest.raises(KeyError):
        later.get("openai", "by-day", "2026-03-02")  # another day of prices that change: asked again
    with pytest.raises(KeyError):
        later.get("anthropic", "other", "2026-03-01")


def test_a_build_that_learned_nothing_writes_nothing(tmp_path: Path) -> None:
    KeptRates(tmp_path, VERSION).save()
    assert not (tmp_path / STATE_DIR).exists()


def test_a_model_is_kept_by_a_digest_never_by_its_name(tmp_path: Path) -> None:
    """A transcript names the model: whatever it holds (a secret pasted there, a name
    that is no UTF-8) is never written out."""
    secret = "AKIAZXCVBNMASDFGHJKL"
    kept = KeptRates(tmp_path, VERSION)
    kept.add("anthropic", f"claude-{secret}\udc80", "2026-03-01", FLAT, every_day=True)
    kept.save()
    data = (tmp_path / STATE_DIR / KEPT_RATES).read_bytes()
    assert secret.encode() not in data and b"claude" not in data
    assert KeptRates(tmp_path, VERSION).get("anthropic", f"claude-{secret}\udc80", "2026-03-01") == FLAT


def test_rates_of_another_genai_prices_or_bough_are_not_read() -> None:
    data = to_bytes({(hide("anthropic\0m"), EVERY_DAY): FLAT}, VERSION)
    assert from_bytes(data, VERSION) == {(hide("anthropic\0m"), EVERY_DAY): FLAT}
    assert from_bytes(data, VERSION + ".1") == {}
    other_bough = orjson.loads(data) | {"bough": kept_rates.__version__ + "-other"}
    assert from_bytes(orjson.dumps(other_bough), VERSION) == {}


def test_kept_rates_are_never_read_through_a_link(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    kept = KeptRates(elsewhere, VERSION)
    kept.add("anthropic", "m", "2026-03-01", FLAT, every_day=True)
    kept.save()
    out = tmp_path / "out"
    out.mkdir()
    (out / STATE_DIR).symlink_to(elsewhere / STATE_DIR)
    linked = KeptRates(out, VERSION)
    with pytest.raises(KeyError):
        linked.get("anthropic", "m", "2026-03-01")
    linked.add("anthropic", "n", "2026-03-01", FLAT, every_day=True)
    linked.save()
    assert orjson.loads((elsewhere / STATE_DIR / KEPT_RATES).read_bytes())["rates"] == \
        [[hide("anthropic\0m"), EVERY_DAY, [[1, []], [2, []], [3, []], [4, []], [5, []]]]]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.tuples(texts, texts), st.none() | rates, max_size=6))
def test_every_answer_is_read_back_exactly(known: dict[tuple[str, str], Rates | None]) -> None:
    assert from_bytes(to_bytes(known, VERSION), VERSION) == known


safe_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | safe_text,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(safe_text, inner, max_size=5), max_leaves=30)
# Rows as bough writes them, some of their values replaced by anything JSON holds.
written_rows = st.dictionaries(st.tuples(texts, texts), st.none() | rates, min_size=1, max_size=3).map(
    lambda known: orjson.loads(to_bytes(known, VERSION))["rates"])


def _spoilt(row: list, at: int, value: object) -> list:
    return [*row[:at], value, *row[at + 1:]]


@settings(max_examples=300, deadline=None)
@given(json_values, written_rows, st.integers(0, 2), json_values)
def test_a_file_that_is_not_one_bough_wrote_is_read_as_empty_or_as_valid_rates(
        doc: object, rows: list, at: int, value: object) -> None:
    def shaped(rows: list) -> bytes:
        return orjson.dumps({"bough": kept_rates.__version__, "format": kept_rates.FORMAT, "genai-prices": VERSION,
                             "rates": rows})

    assert len(from_bytes(shaped(rows), VERSION)) == len(rows)
    for data in (orjson.dumps(doc), shaped([*rows[1:], _spoilt(rows[0], at, value)]), b"\xff not json"):
        found = from_bytes(data, VERSION)
        assert all(value is None or isinstance(value, Rates) for value in found.values())
        assert all(isinstance(part, str) and part for key in found for part in key)


def test_a_table_asks_genai_prices_only_what_it_does_not_keep(tmp_path: Path) -> None:
    kept = KeptRates(tmp_path, VERSION)
    kept.add("anthropic", "claude-sonnet-4-5", EVERY_DAY, FLAT, every_day=True)  # not genai-prices' rates
    table = PriceTable(kept=kept)
    assert table.rates("anthropic", "claude-sonnet-4-5", "2026-03-01") == FLAT
    asked = table.rates("anthropic", "claude-3-5-haiku-20241022", "2026-03-01")
    assert asked == PriceTable().rates("anthropic", "claude-3-5-haiku-20241022", "2026-03-01") is not None
    assert kept.get("anthropic", "claude-3-5-haiku-20241022", "2030-01-01") == asked  # one price on every day


# --- whole builds, each in a process of its own (whether genai-prices was imported) ---------

_BUILD = """
import sys
from pathlib import Path
from bough_site.build import build
from bough_site.config import BuildConfig
build(BuildConfig(sources=[Path(sys.argv[1])], out=Path(sys.argv[2]), archive=None, jobs=int(sys.argv[3]),
                  search=False),
      redaction_key=b"k")
print("imported" if "genai_prices" in sys.modules else "not imported")
"""


def _build(sources: Path, out: Path, jobs: int = 1) -> str:
    done = subprocess.run([sys.executable, "-c", _BUILD, str(sources), str(out), str(jobs)], capture_output=True,
                          text=True, env=os.environ, check=True)
    return done.stdout.strip()


def _grow(sources: Path) -> None:
    """One reply more at the end of a session, on a day it already has (its rates kept)."""
    path = next(p for p in sorted(sources.rglob("*.jsonl")) if b'"type":"assistant"' in p.read_bytes())
    last = [line for line in path.read_bytes().splitlines() if b'"type":"assistant"' in line][-1]
    record = orjson.loads(last)
    record["uuid"] = "0000aaaa-0000-4000-8000-00000000beef"
    record["message"]["id"] = "msg_kept_rates_test"
    with open(path, "ab") as handle:
        handle.write(orjson.dumps(record) + b"\n")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_append_after_a_build_prices_without_genai_prices_and_makes_the_same_site(tmp_path: Path,
                                                                                      jobs: int) -> None:
    """With workers too: what they asked genai-prices is handed back and kept."""
    sources, out = tmp_path / "projects", tmp_path / "out"
    shutil.copytree(EXAMPLES, sources)
    assert _build(sources, out, jobs) == "imported"
    assert (out / STATE_DIR / KEPT_RATES).is_file()
    _grow(sources)
    assert _build(sources, out) == "not imported"

    fresh = tmp_path / "fresh"
    assert _build(sources, fresh) == "imported"
    assert file_tree(out, site_only=True) == file_tree(fresh, site_only=True)


def test_a_damaged_file_of_rates_costs_the_time_it_saved_and_nothing_else(tmp_path: Path) -> None:
    sources, out, fresh = tmp_path / "projects", tmp_path / "out", tmp_path / "fresh"
    shutil.copytree(EXAMPLES, sources)
    _build(sources, out)
    (out / STATE_DIR / KEPT_RATES).write_bytes(b'{"bough": "0.2.0", "rates": [[1, 2')
    _grow(sources)
    assert _build(sources, out) == "imported"
    _build(sources, fresh)
    assert file_tree(out, site_only=True) == file_tree(fresh, site_only=True)
    assert from_bytes((out / STATE_DIR / KEPT_RATES).read_bytes(), VERSION)  # written again, whole
