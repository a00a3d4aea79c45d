"""Pricing: what each model call cost, estimated from a price table (docs/cost.md).

A stage of its own, run on every session as it is read (prepare.py), before
anything shows it. It is fed the model's replies (``Reply.usage``, ``Reply.model``,
``Reply.provider``, ``Reply.calls``) and the session's agent; it sets each reply's
``cost`` and the session's cost figures (``model.COST_KEY`` and its kin in
``Session.stats``, and ``Tally.costs``, by which a project and the site count a
reply two sessions' files hold once). It knows nothing of pages.

The table is genai-prices' bundled data (offline: the package's own snapshot,
never its updater), with a user's own table (``--prices FILE``) taking precedence.
Prices are per model call, because tiers (input over 200,000 tokens) apply per
request; the call's cost is then summed. bough's fresh input / cache read / cache
write split is genai-prices' ``input_tokens`` (which includes the cache reads and
writes) less the cache: :meth:`Rates.pico` prices the parts as genai-prices does
(``tests/test_pricing.py`` holds it to ``genai_prices.calc_price``).

Unknown stays unknown: a model the table does not know, a local model, a reply
whose tokens are unknown, an agent that names no provider: no price, and the
totals count the calls they leave out.

Money is kept as integers of 10^-12 USD (pico-dollars): sums are exact and the
same in any order (``-j``, incremental builds).
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Iterator

import orjson

from .errors import BoughError
from .kept_rates import KeptRates
from .model import (
    COST_KEY,
    RECORDED_COST_KEY,
    RECORDED_COST_REPLIES_KEY,
    SOURCE_CLAUDE,
    SOURCE_CODEX,
    SOURCE_GEMINI,
    UNKNOWN_COST_KEY,
    Reply,
    Session,
    SubagentRun,
    ToolCall,
    TimelineItem,
    Usage,
)
from .rates import Price, Rates


PICO = 10**12  # pico-dollars per dollar
_PER_MTOK = 10**6  # pico-dollars per token for a price of $1 per million tokens

# Who serves each agent's calls, as genai-prices names providers. OpenCode names its
# provider on each reply (Reply.provider). Copilot CLI (billed by premium requests under
# a subscription, and its files hold no reply's input) and Qwen Code (whichever
# OpenAI-compatible endpoint it was pointed at) name none: their calls get no price
# unless a user's table names the model without a provider.
PROVIDERS = {SOURCE_CLAUDE: "anthropic", SOURCE_CODEX: "openai", SOURCE_GEMINI: "google"}

# The price keys a text model call is priced by (per million tokens).
_KEYS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok", "cache_write_1h_mtok")


class PricesError(BoughError):
    """A user's price table that cannot be used: one clear message."""


def _pico_rate(value: Any, where: str) -> int:
    """$ per million tokens -> pico-dollars per token (exact to 10^-6 $/Mtok)."""
    if isinstance(value, bool):
        raise PricesError(f"{where}: not a price: {value!r}")
    try:
        number = Decimal(str(value)) if not isinstance(value, Decimal) else value
    except (InvalidOperation, ValueError):
        raise PricesError(f"{where}: not a price: {value!r}") from None
    if not number.is_finite() or number < 0 or number > 1_000_000:
        raise PricesError(f"{where}: a price is a number of dollars per million tokens, 0 or more: {value!r}")
    return int((number * _PER_MTOK).to_integral_value())


# --------------------------------------------------------------------------- the tables


class PriceTable:
    """The prices a build uses: a user's table first, then genai-prices' bundled data.
    Lookups are cached per (provider, model, day): a build asks once per model and day,
    and a reply costs a dict lookup and four multiplications."""

    def __init__(self, user: UserPrices | None = None, bundled: bool = True, kept: KeptRates | None = None):
        self.user = user
        self.bundled = bundled
        self.kept = kept  # genai-prices' answers kept from earlier builds (kept_rates.py)
        self._cache: dict[tuple[str | None, str, str], Rates | None] = {}

    @functools.cached_property
    def version(self) -> str:
        """The price data's version, as the footer and the sidecars name it."""
        parts = [f"genai-prices {bundled_version()}"] if self.bundled else []
        if self.user is not None:
            parts.insert(0, f"{self.user.name} {self.user.version}".strip())
        return " + ".join(parts)

    def rates(self, provider: str | None, model: str, day: str) -> Rates | None:
        key = (provider, model, day)
        try:
            return self._cache[key]
        except KeyError:
            pass
        found = self.user.rates(provider, model) if self.user is not None else None
        if found is None and self.bundled and provider is not None:
            found = self._bundled(provider, model, day)
        self._cache[key] = found
        return found

    def _bundled(self, provider: str, model: str, day: str) -> Rates | None:
        if self.kept is not None:
            with contextlib.suppress(KeyError):
                return self.kept.get(provider, model, day)
        rates, every_day = _bundled_rates(provider, model, day)
        if self.kept is not None:
            self.kept.add(provider, model, day, rates, every_day=every_day)
        return rates


def bundled_version() -> str:
    from importlib.metadata import version

    return version("genai-prices")


def _bundled_rates(provider: str, model: str, day: str) -> tuple[Rates | None, bool]:
    """genai-prices' prices of ``model`` on ``day`` (UTC; "" for its latest), or None
    when it does not know them; and whether they hold on every day. Imported here,
    lazily: its import takes 0.1-0.14 s."""
    info = _model_info(provider, model)
    if info is None:
        return None, True
    if not isinstance(info.prices, list):
        return _compiled(provider, model, ""), True  # one price whatever the day: made once
    return _compiled(provider, model, day), False


def warm_prices() -> None:
    """genai-prices imported and its bundled data loaded, in the build's process before
    its workers fork: each inherits them instead of importing them itself."""
    from genai_prices import data_snapshot

    data_snapshot._bundled_snapshot()


@functools.lru_cache(maxsize=1024)
def _model_info(provider: str, model: str) -> Any:
    from genai_prices import data_snapshot

    snapshot = data_snapshot._bundled_snapshot()  # the data in the wheel: never the network
    try:
        return snapshot.find_provider_model(model, None, provider, None)[1]
    except LookupError:
        return None


@functools.lru_cache(maxsize=4096)
def _compiled(provider: str, model: str, day: str) -> Rates | None:
    from genai_prices.types import TieredPrices

    info = _model_info(provider, model)
    when = datetime.fromisoformat(day).replace(tzinfo=timezone.utc) if day else datetime(9999, 1, 1, tzinfo=timezone.utc)
    prices = info.get_prices(when)

    def price(name: str) -> Price | None:
        value = getattr(prices, name, None)
        if value is None:
            return None
        if isinstance(value, TieredPrices):
            return (_pico_rate(value.base, name), tuple((t.start, _pico_rate(t.price, name)) for t in value.tiers))
        return (_pico_rate(value, name), ())

    input_, output = price("input_mtok"), price("output_mtok")
    if input_ is None or output is None:
        return None  # not a model priced by its tokens
    return Rates(input_, output, price("cache_read_mtok"), price("cache_write_mtok"), price("cache_write_1h_mtok"))


@dataclass(frozen=True)
class UserPrices:
    """A user's own price table (``--prices FILE``; its shape: docs/cost.md)."""

    name: str  # the file's name
    version: str
    # (provider or None, model id lower-cased, is a prefix) -> rates, in the file's order
    models: tuple[tuple[str | None, str, bool, Rates], ...]

    def rates(self, provider: str | None, model: str) -> Rates | None:
        wanted = model.lower()
        for their_provider, name, prefix, rates in self.models:
            if their_provider is not None and their_provider != (provider or "").lower():
                continue
            if wanted == name or (prefix and wanted.startswith(name)):
                return rates
        return None


def load_user_prices(path: Path) -> UserPrices:
    """A user's price table, checked: :class:`PricesError` says what is wrong with it."""
    try:
        data = orjson.loads(Path(path).read_bytes())
    except OSError as err:
        raise PricesError(f"--prices {path}: cannot read it: {err.strerror or err}") from None
    except orjson.JSONDecodeError as err:
        raise PricesError(f"--prices {path}: not JSON: {err}") from None
    return user_prices(data, Path(path).name)


def user_prices(data: Any, name: str = "prices") -> UserPrices:
    where = f"--prices {name}"
    if not isinstance(data, dict):
        raise PricesError(f"{where}: the file holds an object with \"version\" and \"models\"")
    unknown = set(data) - {"version", "models", "comment"}
    if unknown:
        raise PricesError(f"{where}: unknown keys {sorted(unknown)} (known: version, models, comment)")
    version = data.get("version", "")
    if not isinstance(version, str) or len(version) > 80:
        raise PricesError(f"{where}: \"version\" is a short string")
    models = data.get("models")
    if not isinstance(models, list) or not models:
        raise PricesError(f"{where}: \"models\" is a list of at least one model's prices")
    out = []
    for number, entry in enumerate(models, 1):
        here = f"{where}: models[{number - 1}]"
        if not isinstance(entry, dict):
            raise PricesError(f"{here}: an object")
        extra = set(entry) - {"model", "provider", *_KEYS, "tiers", "comment"}
        if extra:
            raise PricesError(f"{here}: unknown keys {sorted(extra)}")
        model = entry.get("model")
        if not isinstance(model, str) or not model.strip("*").strip():
            raise PricesError(f"{here}: \"model\" is the model's id (a trailing * matches ids starting so)")
        provider = entry.get("provider")
        if provider is not None and (not isinstance(provider, str) or not provider):
            raise PricesError(f"{here}: \"provider\" is a string (leave it out to match any provider)")
        for key in ("input_mtok", "output_mtok"):
            if key not in entry:
                raise PricesError(f"{here}: \"{key}\" is required (dollars per million tokens)")
        base = {key: _pico_rate(entry[key], f"{here}.{key}") for key in _KEYS if key in entry}
        tiers: dict[str, list[tuple[int, int]]] = {key: [] for key in _KEYS}
        raw_tiers = entry.get("tiers", [])
        if not isinstance(raw_tiers, list):
            raise PricesError(f"{here}: \"tiers\" is a list of {{\"start\": tokens, <prices>}}")
        last = -1
        for index, tier in enumerate(raw_tiers):
            there = f"{here}.tiers[{index}]"
            if not isinstance(tier, dict) or set(tier) - {"start", *_KEYS} or "start" not in tier:
                raise PricesError(f"{there}: an object with \"start\" and prices ({', '.join(_KEYS)})")
            start = tier["start"]
            if isinstance(start, bool) or not isinstance(start, int) or start <= last:
                raise PricesError(f"{there}: \"start\" is a whole number of input tokens, rising tier by tier")
            last = start
            for key in _KEYS:
                if key in tier:
                    if key not in base:
                        raise PricesError(f"{there}: \"{key}\" has a tier but no base price")
                    tiers[key].append((start, _pico_rate(tier[key], f"{there}.{key}")))
        prices = {key: (base[key], tuple(tiers[key])) if key in base else None for key in _KEYS}
        rates = Rates(prices["input_mtok"], prices["output_mtok"],  # type: ignore[arg-type]
                      prices["cache_read_mtok"], prices["cache_write_mtok"], prices["cache_write_1h_mtok"])
        out.append((provider.lower() if provider else None, model.lower().rstrip("*"), model.endswith("*"), rates))
    return UserPrices(name, version, tuple(out))


@functools.lru_cache(maxsize=8)
def price_table(prices_file: str | None, digest: str = "", out: str = "") -> PriceTable:
    """The build's table, made once per process and table (``digest``: of the user's file,
    so an edited file is read again by a process that builds twice, as ``bough serve``);
    with ``out``, genai-prices' answers are kept in its state between builds."""
    kept = KeptRates(Path(out), bundled_version()) if out else None
    return PriceTable(load_user_prices(Path(prices_file)) if prices_file else None, kept=kept)


# --------------------------------------------------------------------------- the stage


def price_session(session: Session, table: PriceTable) -> None:
    """Price every reply of ``session`` (its sub-agents' and the history a resume
    copied included, as its stats count them) and add the cost figures to its stats."""
    costs: dict[str, tuple[int | None, int | None]] = {}
    start_day = (session.started or "")[:10]
    start_day = start_day if _is_day(start_day) else ""
    # Claude Code: a reply's most complete copy is the tally's (streamed copies of a reply
    # rise; the reply on the page may hold an earlier one), as its stats count it.
    counted = session.tally.replies if session.tally is not None and session.source == SOURCE_CLAUDE else {}
    # (model, provider, the timestamp's first ten characters) -> rates: the table is asked
    # once per model and day in a session, a reply costs a dict lookup.
    found: dict[tuple[str, str | None, str], Rates | None] = {}
    source_provider = PROVIDERS.get(session.source)
    for key, reply in _replies(session):
        usage = (counted.get(reply.id) or reply.usage) if counted else reply.usage
        estimate: int | None
        if usage.unknown or usage.unknown_keys or not reply.model:
            estimate = 0 if _nothing(usage) else None
        elif _nothing(usage):
            estimate = 0  # nothing billed was written (a failed call)
        else:
            stamp = reply.timestamp[:10] if reply.timestamp else ""
            where = (reply.model, reply.provider, stamp)
            try:
                rates = found[where]
            except KeyError:
                provider = reply.provider or source_provider
                day = stamp if _is_day(stamp) else start_day
                rates = found[where] = table.rates(provider.lower() if provider else None, reply.model, day)
            estimate = None if rates is None else _call_pico(rates, reply, usage)
        reply.cost = None if estimate is None else round(estimate / PICO, 9)
        recorded = None if reply.recorded_cost is None else round(reply.recorded_cost * PICO)
        costs.setdefault(key, (estimate, recorded))
    # Calls the stats count that no reply shows (Copilot CLI's compactions, Qwen Code's
    # sub-agents' telemetry, a Claude record the page does not show): no price (its
    # model is not known), and counted as such; one that recorded no tokens cost nothing.
    if counted:
        for reply_id, usage in counted.items():
            if reply_id not in costs:
                costs[reply_id] = (0 if _nothing(usage) else None, None)
    else:
        replies = session.stats.get("replies") or 0
        for number in range(max(0, replies - len(costs))):
            costs[f"{session.id}\0unshown\0{number}"] = (None, None)
    if session.tally is not None:
        session.tally.costs = dict(costs)
    session.stats.update(cost_stats(costs.values()))


def unprice_session(session: Session) -> None:
    """No cost anywhere (--no-cost): what the transcripts recorded is left out too."""
    for _key, reply in _replies(session):
        reply.recorded_cost = None
        reply.cost = None


def _call_pico(rates: Rates, reply: Reply, usage: Usage) -> int | None:
    """A reply's cost: its call's, or its calls' (OpenCode's steps) added up."""
    if reply.calls:
        if any(call.unknown for call in reply.calls):
            return None
        return sum(rates.pico(call) for call in reply.calls)
    return rates.pico(usage)


def _nothing(usage: Usage) -> bool:
    """A call that recorded no tokens at all (and none unknown): it cost nothing."""
    return not (usage.unknown or usage.unknown_keys or usage.input_tokens or usage.output_tokens
                or usage.cache_read_input_tokens or usage.cache_creation_input_tokens)


def _is_day(day: str) -> bool:
    return len(day) == 10 and day[4] == "-" and day[7] == "-" and day[:4].isdigit()


def _replies(session: Session) -> Iterator[tuple[str, Reply]]:
    """Each reply and the identity a project counts it by: Claude Code's message id, the
    key its tally counts the reply by (a resume's copy of its parent's reply is that
    reply), else the session's id and the reply's place (its run, its anchor), which
    holds a NUL no message id does."""
    claude = session.source == SOURCE_CLAUDE
    runs: list[tuple[str, list[TimelineItem]]] = [("", session.timeline), ("", session.inherited_items)]
    runs += [(run.agent_id, run.timeline) for run in session.orphan_subagents]
    while runs:
        run_id, items = runs.pop(0)
        for item in items:
            if not isinstance(item, Reply):
                continue
            yield (item.id if claude else f"{session.id}\0{run_id}\0{item.anchor}\0{item.id}"), item
            for block in item.blocks:
                if isinstance(block, ToolCall) and isinstance(block.subagent, SubagentRun):
                    runs.append((f"{run_id}/{block.subagent.agent_id}", block.subagent.timeline))


# What a stats object's cost keys are made of, in pico-dollars: the estimates' sum, the
# replies without one, the recorded costs' sum and the replies with one. Sums of two
# sets of replies that share none add up (counts.Sums).
CostSums = tuple[int, int, int, int]


def cost_stats(costs: Any) -> dict[str, float | int]:
    """The cost keys of a stats object from (estimate, recorded) pairs in pico-dollars."""
    return cost_stats_of(cost_sums(costs))


def cost_sums(costs: Any) -> CostSums:
    """The sums of (estimate, recorded) pairs in pico-dollars (None: not known)."""
    estimate = unknown = recorded = recorded_count = 0
    for est, rec in costs:
        if est is None:
            unknown += 1
        else:
            estimate += est
        if rec is not None:
            recorded += rec
            recorded_count += 1
    return estimate, unknown, recorded, recorded_count


def cost_stats_of(sums: CostSums) -> dict[str, float | int]:
    """The cost keys of a stats object from :func:`cost_sums`."""
    estimate, unknown, recorded, recorded_count = sums
    out: dict[str, float | int] = {COST_KEY: usd(estimate)}
    if unknown:
        out[UNKNOWN_COST_KEY] = unknown
    if recorded_count:
        out[RECORDED_COST_KEY] = usd(recorded)
        out[RECORDED_COST_REPLIES_KEY] = recorded_count
    return out


def usd(pico: int) -> float:
    """Pico-dollars as dollars, to the micro-dollar."""
    return round(pico / PICO, 6)


def finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
