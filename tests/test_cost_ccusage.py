"""bough's per-session cost against ccusage 20.0.24's (issue #41), on the real Claude
Code transcripts in ../shared/fixtures/claude and on the bundled Claude examples.

The files are read in place: ccusage reads a Claude config dir, which is made of hard
links to them in a temporary directory (no copy; ccusage does not follow symbolic
links). ccusage runs offline, on its own bundled price data (LiteLLM's); bough prices
with genai-prices'. Both price a call's cache writes to the one-hour cache at that
cache's rate, every model here has the same prices in both tables, and bough's figures
equal ccusage's to the micro-dollar, except where each entry below says why.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bough_site.build import load_site
from bough_site.config import BuildConfig
from bough_site.model import COST_KEY, RECORDED_COST_KEY

from .helpers import ccusage_command, fixtures_dir

EXAMPLES = Path(__file__).resolve().parent.parent / "bough_site" / "examples" / "claude" / "projects"

# claude-code-log's edge-case file: ccusage skips three assistant records written with a space
# after each colon (tests/test_fixtures_claude.py, KNOWN_DIFFERENCES); bough reads them: 320
# input and 350 output tokens of claude-3-sonnet-20240229 and claude-sonnet-4, $3 and $15 per
# million tokens in both tables. bough prices its own tokens: ccusage's figure plus theirs.
FIXTURE_DIFFERENCES = {"claude-code-log-2025__edge_cases": (320 * 3 + 350 * 15) / 1_000_000}


def _hard_linked(source: Path, root: Path, layout) -> Path:
    """``root`` as a Claude config dir whose files are hard links to ``source``'s."""
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        target = root / "projects" / layout(path.relative_to(source))
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError as err:  # another file system: no link, and never a copy
            pytest.skip(f"cannot hard-link {path} into {root}: {err}")
    return root


def _fixture_place(relative: Path) -> Path:
    """tests/helpers/repo.lay_out_as_config_dir's layout: a loose file in a folder named
    by its source, session directories as they are."""
    if len(relative.parts) > 1:
        return relative
    name = relative.name
    return Path(name.split("__")[0]) / (("fx-" + name) if name.startswith("agent-") else name)


def _ccusage(config: Path, tmp: Path, mode: str) -> dict[str, float]:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp)}
    run = subprocess.run(ccusage_command() + ["session", "--json", "--offline", "--mode", mode],
                         env=env, capture_output=True, text=True, timeout=300, check=True)
    return {entry["period"]: entry["totalCost"] for entry in json.loads(run.stdout)["session"]}


def _ours(projects: Path) -> dict[str, dict]:
    site = load_site(BuildConfig(sources=[projects], archive=None))
    return {s.id: s.stats for p in site.projects for s in p.sessions}


def test_the_fixtures_cost_what_ccusage_says(tmp_path: Path) -> None:
    config = _hard_linked(fixtures_dir("claude"), tmp_path / "claude", _fixture_place)
    theirs = _ccusage(config, tmp_path, "calculate")  # from the tokens, as bough's estimate
    ours = _ours(config / "projects")
    assert len(theirs) == 11
    for session_id, cost in sorted(theirs.items()):
        expected = cost + FIXTURE_DIFFERENCES.get(session_id, 0)
        assert ours[session_id][COST_KEY] == pytest.approx(expected, abs=1e-6), session_id
        assert not ours[session_id].get("replies_with_unknown_cost"), session_id
    for session_id, stats in ours.items():  # the sessions ccusage does not list spent nothing
        if session_id not in theirs:
            assert stats[COST_KEY] == 0, session_id
    # ccusage's default ("auto") takes a line's costUSD where it has one: what bough shows
    # as the agent's own figure, beside its estimate.
    recorded = _ccusage(config, tmp_path, "auto")
    alpha = "ccusage__usage-only-costUSD__chat-alpha"
    assert ours[alpha][RECORDED_COST_KEY] == pytest.approx(recorded[alpha], abs=1e-9) == 1.02
    assert ours[alpha][COST_KEY] == pytest.approx(theirs[alpha], abs=1e-6) != 1.02


def test_the_bundled_examples_cost_what_ccusage_says(tmp_path: Path) -> None:
    """Two differences, both of attribution, none of price:
    - ccusage lists the older layout's sub-agent file (agent-5e1d0c7a.jsonl, beside the
      sessions) as a session of its own; bough counts it in the session that launched it
      (docs/stats.md), b3e7a9d2, whose cost is ccusage's two figures added up.
    - e45b8c13 is a resume whose file begins with a copy of 0d9a4f6e's history: ccusage
      counts each copied call once, in the first session; bough's session figures count the
      whole file, as its STATS do (docs/stats.md), and its project counts each call once:
      the project's cost is ccusage's sum."""
    config = _hard_linked(EXAMPLES, tmp_path / "claude", lambda relative: relative)
    theirs = _ccusage(config, tmp_path, "calculate")
    ours = _ours(config / "projects")
    launched, agent = "b3e7a9d2-58c1-4f6b-a0d4-7c2e9f13b846", "agent-5e1d0c7a"
    resume, parent = "e45b8c13-7f2a-4c69-b1d8-3a0e5f7c2b61", "0d9a4f6e-2b7c-4e18-8f35-c1a6b2d7e904"
    for session_id, cost in sorted(theirs.items()):
        if session_id == agent:
            continue
        expected = {launched: cost + theirs[agent], resume: cost + theirs[parent]}.get(session_id, cost)
        assert ours[session_id][COST_KEY] == pytest.approx(expected, abs=1e-6), session_id
    site = load_site(BuildConfig(sources=[config / "projects"], archive=None))
    tidepool = next(p for p in site.projects if any(s.id == resume for s in p.sessions))
    assert tidepool.stats[COST_KEY] == pytest.approx(
        sum(theirs[s.id] for s in tidepool.sessions if s.id in theirs), abs=1e-6)
    assert site.stats[COST_KEY] == pytest.approx(sum(theirs.values()), abs=1e-6)
