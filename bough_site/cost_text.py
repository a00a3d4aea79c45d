"""How a cost reads (``$12.40 + 3 calls of unknown price``): the session, project and
site figures of pricing.py as the pages and the build's summary say them. Apart from
render/formats.py so the summary of a build that rendered nothing imports no renderer."""

from __future__ import annotations

from typing import NamedTuple

from .model import COST_KEY, RECORDED_COST_KEY, RECORDED_COST_REPLIES_KEY, UNKNOWN_COST_KEY


def money(value: object) -> str:
    """``$12.40``, ``$1,234``, ``$0.0034``: a cost at a glance (rows.js's ``money`` writes
    the same)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
        return ""
    if value >= 1000:
        return f"${value:,.0f}"
    if value >= 0.01 or value == 0:
        return f"${value:,.2f}"
    return f"${value:.4f}"


class CostFacts(NamedTuple):
    """What a session, project or the site cost, as its pages say it."""

    value: float  # the estimate in USD (the <data> value, what rows sort by)
    text: str  # "$12.40 + 3 calls of unknown price"
    title: str  # where the figures come from
    recorded: str  # "$11.90 recorded by the agents for 2 calls", or ""
    estimate: str  # "$12.40 estimated"
    unknown: str  # "3 calls of unknown price", or ""
    none: bool = False  # no call has a known price (a local model's session): no sum to show


def cost_facts(stats: object, prices: object) -> CostFacts | None:
    """The cost figures of a stats object (pricing.cost_stats), None when it has none
    (--no-cost, or a page an older bough made)."""
    if not isinstance(stats, dict) or not isinstance(value := stats.get(COST_KEY), (int, float)):
        return None
    unknown = stats.get(UNKNOWN_COST_KEY) or 0
    left_out = f"{unknown:,} call{'' if unknown == 1 else 's'} of unknown price" if unknown else ""
    text = money(value) + (f" + {left_out}" if left_out else "")
    title = f"Estimated from the price table ({prices}), each model call priced on its own"
    if unknown:
        title += ("; calls of a model the table does not know, a local model, or unknown tokens "
                  "have no price and are not in the sum")
    recorded = ""
    if isinstance(spent := stats.get(RECORDED_COST_KEY), (int, float)):
        calls = stats.get(RECORDED_COST_REPLIES_KEY) or 0
        recorded = f"{money(spent)} recorded by the agents for {calls:,} call{'' if calls == 1 else 's'}"
    none = not value and unknown >= (stats.get("replies") or 0) > 0
    if none:
        text = f"unknown ({left_out})"
    return CostFacts(float(value), text, title, recorded, "" if none else f"{money(value)} estimated", left_out, none)


def reply_cost(reply: object, prices: object) -> tuple[str, str] | None:
    """What a reply's header says of its cost, quietly: the estimate (or, without one,
    what the transcript recorded), and a title saying which is which."""
    cost, recorded = getattr(reply, "cost", None), getattr(reply, "recorded_cost", None)
    if cost is None and recorded is None:
        return None
    if cost is not None:  # short: one per reply (the footer names the table)
        return money(cost), ("estimated" if recorded is None else f"estimated; the agent recorded {money(recorded)}")
    return f"{money(recorded)} recorded", "what the agent recorded; the price table has no price for it"
