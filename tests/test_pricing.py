"""What the calls cost (bough_site/pricing.py, docs/cost.md): priced per call from
genai-prices' bundled table or a user's own, tiers per call, bough's fresh / cache
read / cache write split mapped onto genai-prices' input (which includes the cache),
unknown stays unknown, the transcripts' own figures kept apart, --no-cost hides it
all, and nothing reaches the network."""

from __future__ import annotations

import socket
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site import pricing
from bough_site.build import build
from bough_site.cli import main
from bough_site.config import BuildConfig
from bough_site.model import (COST_KEY, RECORDED_COST_KEY, RECORDED_COST_REPLIES_KEY, SOURCE_CLAUDE, SOURCE_OPENCODE,
                              UNKNOWN_COST_KEY, Reply, Session, Usage)
from bough_site.pricing import PICO, PricesError, PriceTable, price_session, user_prices
from bough_site.stats import Tally
from bough_site.summaries import tally_from_json, tally_to_json

from .helpers.repo import file_tree

EXAMPLES = Path(__file__).resolve().parent.parent / "bough_site" / "examples"
TABLE = PriceTable()
DAY = "2026-03-01"


def reply(model: str | None, usage: Usage, *, anchor: str = "r1", rid: str = "m1", provider: str | None = None,
          recorded: float | None = None, calls: tuple[Usage, ...] = ()) -> Reply:
    return Reply(rid, anchor, DAY + "T10:00:00.000Z", model, [], usage, provider=provider, recorded_cost=recorded,
                 calls=calls)


def session(source: str, *replies: Reply, sid: str = "s1") -> Session:
    tally = Tally(session=True)
    for item in replies:
        tally.add_reply(item.id, item.usage)
    return Session(sid, source, "/w", "t", DAY + "T09:00:00Z", None, [], [], None, [], list(replies),
                   tally.stats(), tally=tally)


def usd(pico: int | None) -> Decimal | None:
    return None if pico is None else Decimal(pico) / PICO


# --- the arithmetic, by hand, from the published prices -------------------------------------


def test_a_call_over_the_tier_boundary_pays_the_tier_rate_on_every_token() -> None:
    """claude-sonnet-4-5, Anthropic's published prices: $3 in, $15 out, $0.30 cache read, $3.75
    cache write per million tokens; over 200,000 input tokens (fresh + cache, per request) $6,
    $22.50, $0.60 and $7.50."""
    rates = TABLE.rates("anthropic", "claude-sonnet-4-5-20250929", DAY)
    assert rates is not None
    # 150,000 fresh + 40,000 read + 20,000 written = 210,000 > 200,000: the tier, on all of them.
    over = Usage(input_tokens=150_000, output_tokens=1_000, cache_read_input_tokens=40_000,
                 cache_creation_input_tokens=20_000)
    assert usd(rates.pico(over)) == Decimal("0.9") + Decimal("0.024") + Decimal("0.15") + Decimal("0.0225")
    # The same split at 200,000 exactly is not over it: the base rates.
    at = Usage(input_tokens=140_000, output_tokens=1_000, cache_read_input_tokens=40_000,
               cache_creation_input_tokens=20_000)
    assert usd(rates.pico(at)) == Decimal("0.42") + Decimal("0.012") + Decimal("0.075") + Decimal("0.015")
    # Only fresh input over the boundary, no cache: $6 and $22.50.
    assert usd(rates.pico(Usage(input_tokens=200_001, output_tokens=10))) == Decimal("1.200006") + Decimal("0.000225")


def test_tiers_apply_per_call_not_to_a_sessions_sum() -> None:
    """Two calls of 150,000 input tokens each are two base-rate calls ($0.90), not one
    300,000-token call at the tier rate ($1.80); an OpenCode reply of two steps likewise."""
    half = Usage(input_tokens=150_000)
    both = Usage(input_tokens=300_000)
    one = session(SOURCE_CLAUDE, reply("claude-sonnet-4-5", half, rid="a", anchor="r1"),
                  reply("claude-sonnet-4-5", half, rid="b", anchor="r2"))
    price_session(one, TABLE)
    assert one.stats[COST_KEY] == 0.9
    steps = session(SOURCE_OPENCODE, reply("claude-sonnet-4-5", both, provider="anthropic", calls=(half, half)))
    price_session(steps, TABLE)
    assert steps.stats[COST_KEY] == 0.9 and steps.timeline[0].cost == 0.9


def test_genai_prices_input_includes_the_cache_and_bough_maps_onto_it() -> None:
    """genai-prices' own call, with input_tokens = fresh + cache reads + cache writes, prices
    what bough's split prices (the measured example: (1000-500-10)*3 + 500*0.3 + 10*3.75 per M)."""
    import genai_prices

    theirs = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1000, output_tokens=100, cache_read_tokens=500, cache_write_tokens=10),
        "claude-sonnet-4-5", provider_id="anthropic")
    assert theirs.input_price == Decimal("0.0016575")
    ours = TABLE.rates("anthropic", "claude-sonnet-4-5", DAY)
    assert ours is not None
    mine = Usage(input_tokens=490, output_tokens=100, cache_read_input_tokens=500, cache_creation_input_tokens=10)
    assert usd(ours.pico(mine)) == theirs.total_price == Decimal("0.0016575") + Decimal("0.0015")


MODELS = [("anthropic", "claude-sonnet-4-5"), ("anthropic", "claude-opus-4-1-20250805"),
          ("anthropic", "claude-haiku-4-5-20251001"), ("openai", "gpt-5.4"), ("openai", "gpt-5-codex"),
          ("google", "gemini-2.5-pro"), ("google", "gemini-3-flash-preview")]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(MODELS), st.integers(0, 400_000), st.integers(0, 50_000), st.integers(0, 400_000),
       st.integers(0, 100_000), st.integers(0, 100_000))
def test_every_call_is_priced_as_genai_prices_prices_it(model, fresh, out, read, write, hour) -> None:
    """The cached rates give genai_prices.calc_price's total, to the last digit, for any
    split, on both sides of every tier (and for models with no cache-write price)."""
    import genai_prices

    provider, name = model
    if provider != "anthropic":
        write = 0  # OpenAI and Google record no cache writes (docs/stats.md)
    hour = min(hour, write)  # of the cache writes, those to the one-hour cache
    theirs = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=fresh + read + write, output_tokens=out, cache_read_tokens=read,
                           cache_write_tokens=write, cache_write_1h_tokens=hour),
        name, provider_id=provider, genai_request_timestamp=pricing.datetime(2026, 3, 1, tzinfo=pricing.timezone.utc))
    rates = TABLE.rates(provider, name, DAY)
    assert rates is not None
    mine = Usage(input_tokens=fresh, output_tokens=out, cache_read_input_tokens=read, cache_creation_input_tokens=write,
                 cache_creation_1h_input_tokens=hour)
    assert usd(rates.pico(mine)) == theirs.total_price


# --- unknown stays unknown ------------------------------------------------------------------


def test_unknown_models_local_models_and_unknown_tokens_get_no_price_and_are_counted() -> None:
    priced = reply("claude-haiku-4-5-20251001", Usage(input_tokens=1_000_000), rid="a", anchor="r1")
    unknown_model = reply("claude-imaginary-9", Usage(input_tokens=10), rid="b", anchor="r2")
    no_tokens = reply("claude-haiku-4-5", Usage(input_tokens=10, unknown=True), rid="c", anchor="r3")
    partial = reply("claude-haiku-4-5", Usage(output_tokens=10, unknown_keys=("input_tokens",)), rid="d", anchor="r4")
    one = session(SOURCE_CLAUDE, priced, unknown_model, no_tokens, partial)
    price_session(one, TABLE)
    assert one.stats[COST_KEY] == 1.0 and one.stats[UNKNOWN_COST_KEY] == 3
    assert [r.cost for r in one.timeline] == [1.0, None, None, None]
    # A local model (OpenCode through Ollama), and a provider the table does not know.
    local = session(SOURCE_OPENCODE, reply("qwen3:0.6b", Usage(input_tokens=5_000), provider="ollama", recorded=0.0))
    price_session(local, TABLE)
    assert local.stats == {**local.stats, COST_KEY: 0.0, UNKNOWN_COST_KEY: 1, RECORDED_COST_KEY: 0.0,
                           RECORDED_COST_REPLIES_KEY: 1}
    # Agents that name no provider (Qwen Code, Copilot CLI) are never guessed at.
    for source in ("qwen-code", "copilot-cli"):
        guess = session(source, reply("claude-sonnet-4-5", Usage(input_tokens=5_000)))
        price_session(guess, TABLE)
        assert guess.stats[UNKNOWN_COST_KEY] == 1 and guess.stats[COST_KEY] == 0.0


def test_the_real_local_model_sessions_have_no_price() -> None:
    """Ollama's qwen3:0.6b in the shared OpenCode fixture: every call of unknown price."""
    from bough_site.plan.units import OPENCODE, Unit
    from bough_site.readers.opencode import read_unit
    from bough_site.readers.opencode_layout import find, label

    from .helpers import fixtures_dir

    files = find(fixtures_dir("opencode"))
    sessions = read_unit(Unit("k", OPENCODE, tuple(map(str, files)), tuple(map(label, files))), lambda w: None, None)
    assert sessions
    local = 0
    for one in sessions:
        price_session(one, TABLE)
        for item in one.timeline:
            if isinstance(item, Reply) and item.model == "qwen3:0.6b":
                local += 1
                assert item.cost is None  # served by a local harness (Ollama's model): never priced
        if one.models == ["qwen3:0.6b"]:
            assert one.stats[COST_KEY] == 0.0 and one.stats.get(UNKNOWN_COST_KEY) == one.stats["replies"]
    assert local


def test_a_reply_two_sessions_hold_is_counted_once_and_survives_the_state() -> None:
    shared = reply("claude-haiku-4-5", Usage(input_tokens=1_000_000), rid="msg-1")
    first = session(SOURCE_CLAUDE, shared, sid="s1")
    second = session(SOURCE_CLAUDE, reply("claude-haiku-4-5", Usage(input_tokens=1_000_000), rid="msg-1"),
                     reply("claude-haiku-4-5", Usage(input_tokens=2_000_000), rid="msg-2", anchor="r2"), sid="s2")
    for one in (first, second):
        price_session(one, TABLE)
    project = Tally()
    for one in (first, second):
        project.merge(tally_from_json(orjson.loads(orjson.dumps(tally_to_json(one.tally)))))
    assert project.stats()[COST_KEY] == 3.0 and (first.stats[COST_KEY], second.stats[COST_KEY]) == (1.0, 3.0)
    assert Tally().stats().get(COST_KEY) is None  # not priced: no cost keys at all


# --- a user's own table ---------------------------------------------------------------------


GOOD = {"version": "acme 2026-11", "models": [
    {"provider": "ollama", "model": "qwen3:0.6b", "input_mtok": 0, "output_mtok": 0},
    {"model": "claude-sonnet-4-5*", "input_mtok": 2, "output_mtok": 10, "cache_read_mtok": 0.2,
     "tiers": [{"start": 100000, "input_mtok": 4}]},
]}


def test_a_users_table_comes_first_and_prices_local_models() -> None:
    table = PriceTable(user_prices(GOOD, "acme.json"))
    assert table.version == "acme.json acme 2026-11 + genai-prices 0.2.3"
    rates = table.rates("anthropic", "claude-sonnet-4-5-20250929", DAY)
    assert rates is not None
    # Under the user's tier: 2 in; over it: 4 in; output 10 either way; cache writes as input.
    assert usd(rates.pico(Usage(input_tokens=1_000_000 - 1, cache_creation_input_tokens=1))) == Decimal(4)
    assert usd(rates.pico(Usage(input_tokens=50_000, output_tokens=100_000))) == Decimal("0.1") + Decimal(1)
    local = session(SOURCE_OPENCODE, reply("qwen3:0.6b", Usage(input_tokens=5_000), provider="ollama"))
    price_session(local, table)
    assert local.stats[COST_KEY] == 0.0 and UNKNOWN_COST_KEY not in local.stats
    assert table.rates("anthropic", "claude-haiku-4-5", DAY) == TABLE.rates("anthropic", "claude-haiku-4-5", DAY)


@pytest.mark.parametrize("data, says", [
    ([], "an object"),
    ({"models": []}, "at least one"),
    ({"models": [{"model": "x", "input_mtok": 1}]}, '"output_mtok" is required'),
    ({"models": [{"model": "x", "input_mtok": -1, "output_mtok": 1}]}, "0 or more"),
    ({"models": [{"model": "x", "input_mtok": "cheap", "output_mtok": 1}]}, "not a price"),
    ({"models": [{"model": "x", "input_mtok": True, "output_mtok": 1}]}, "not a price"),
    ({"models": [{"model": "x", "input_mtok": 1, "output_mtok": 1, "tiers": [{"start": "big"}]}]}, "start"),
    ({"models": [{"model": "x", "input_mtok": 1, "output_mtok": 1, "tiers": [{"start": 5, "cache_read_mtok": 1}]}]},
     "no base price"),
    ({"models": [{"model": "", "input_mtok": 1, "output_mtok": 1}]}, '"model"'),
    ({"models": [{"model": "x", "input_mtok": 1, "output_mtok": 1, "input": 3}]}, "unknown keys"),
    ({"version": 3, "models": [{"model": "x", "input_mtok": 1, "output_mtok": 1}]}, '"version"'),
])
def test_a_bad_table_is_one_clear_error(data, says: str) -> None:
    with pytest.raises(PricesError, match=says):
        user_prices(data, "mine.json")


def test_the_command_line_says_what_is_wrong_with_a_table_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "prices.json"
    for content, says in ((b"{not json", "not JSON"), (b'{"models": [{"model": "x"}]}', "input_mtok")):
        bad.write_bytes(content)
        result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "out"), "--no-archive",
                                           "--prices", str(bad)])
        assert result.exit_code == 2 and says in result.output and "Traceback" not in result.output
    missing = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "out"), "--no-archive",
                                        "--prices", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read it" in missing.output
    both = CliRunner().invoke(main, ["build", "-o", str(tmp_path / "out"), "--no-cost", "--prices", str(bad)])
    assert both.exit_code == 2 and "exclude each other" in both.output
    with pytest.raises(PricesError):  # the library says it as a BoughError, before anything is read
        build(BuildConfig(sources=[EXAMPLES], out=tmp_path / "lib", archive=None, jobs=1, prices=bad))
    assert not (tmp_path / "lib").exists()


# --- whole builds ---------------------------------------------------------------------------


def _build(out: Path, **options) -> dict[str, bytes]:
    build(BuildConfig(sources=[EXAMPLES], out=out, archive=None, jobs=1, search=False, **options), redaction_key=b"k")
    return file_tree(out, site_only=True)


COST_WORDS = (b"cost_usd", b"recorded_cost", b'"prices"', b'"cost"', b'class="cost', b">Cost<", b"genai-prices",
              b"tk-cost", b"unknown price", b"estimated")


def test_no_cost_hides_every_cost_in_pages_and_sidecars(tmp_path: Path) -> None:
    priced = _build(tmp_path / "priced")
    hidden = _build(tmp_path / "hidden", cost=False)
    everything = b"".join(priced.values())
    for word in COST_WORDS:
        if word != b"unknown price":
            assert word in everything, word
    for name, data in hidden.items():
        if name.startswith("assets/"):
            continue  # the theme's CSS and scripts, the same either way
        for word in COST_WORDS:
            assert word not in data, (name, word)
    site = orjson.loads(priced["index.json"])
    assert site["prices"] == f"genai-prices {pricing.bundled_version()}" and site["stats"][COST_KEY] > 0


def test_the_transcripts_own_costs_are_kept_apart_from_the_estimate(tmp_path: Path) -> None:
    """OpenCode's example records its cost on each message; bough shows it as the agent's."""
    files = _build(tmp_path / "out")
    sidecars = [orjson.loads(data) for name, data in files.items() if name.endswith(".json") and "/sessions/" in name]
    opencode = [s for s in sidecars if s["source"] == SOURCE_OPENCODE]
    assert opencode and all(s["stats"][RECORDED_COST_REPLIES_KEY] >= 1 for s in opencode)
    recorded = [i for s in opencode for i in s["timeline"] if i["kind"] == "reply" and "recorded_cost" in i]
    assert recorded and all(isinstance(i["recorded_cost"], float) for i in recorded)
    assert all("cost" in i for i in recorded)  # the estimate beside it, under its own name


def test_nothing_reaches_the_network_during_a_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[object] = []

    def refuse(*args, **kwargs):
        tried.append(args)
        raise OSError("bough must not reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    pricing.price_table.cache_clear()
    pricing._model_info.cache_clear()
    pricing._compiled.cache_clear()
    files = _build(tmp_path / "out")
    assert not tried and orjson.loads(files["index.json"])["stats"][COST_KEY] > 0


def test_a_build_with_a_users_table_names_it_and_prices_what_it_names(tmp_path: Path) -> None:
    """Qwen Code names no provider: only a table that names its model prices its calls."""
    table = tmp_path / "acme.json"
    table.write_bytes(orjson.dumps({"version": "acme 1", "models": [
        {"model": "qwen3-coder-plus", "input_mtok": 1, "output_mtok": 5}]}))
    plain = orjson.loads(_build(tmp_path / "plain")["index.json"])
    files = _build(tmp_path / "acme", prices=table)
    acme = orjson.loads(files["index.json"])
    assert acme["prices"] == f"acme.json acme 1 + genai-prices {pricing.bundled_version()}"
    assert b"costs estimated with acme.json acme 1 + genai-prices" in files["index.html"]
    assert acme["stats"][COST_KEY] > plain["stats"][COST_KEY]
    assert acme["stats"][UNKNOWN_COST_KEY] == plain["stats"][UNKNOWN_COST_KEY] - 10  # the Qwen Code example's calls
    qwen = [orjson.loads(data) for name, data in files.items()
            if name.endswith(".json") and "/sessions/" in name and b'"qwen-code"' in data]
    assert qwen and all(item["cost"] > 0 for s in qwen for item in s["timeline"] if item["kind"] == "reply")
