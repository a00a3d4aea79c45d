"""No session is titled by its id (issue #36, point 7): every real transcript in the
shared fixtures, of all three agents, and a built /init session's page and sidecar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bough_site.build import build, load_site
from bough_site.config import BuildConfig

from .helpers import fixtures_dir, lay_out_as_config_dir

INIT_SESSION = "ccv__v1.0.98__1af7fc5e-8455-4414-9ccd-011d40f70b2a"


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_no_real_session_is_titled_by_its_id(agent: str, isolated_home: Path, tmp_path: Path) -> None:
    fixtures = fixtures_dir(agent)
    source = lay_out_as_config_dir(fixtures, tmp_path / "claude") if agent == "claude" else fixtures
    site = load_site(BuildConfig(sources=[source], source_filter=agent, archive=None))
    sessions = [s for p in site.projects for s in p.sessions]
    assert sessions
    by_id = [(s.id, s.title) for s in sessions if s.id in s.title or s.title.startswith("Session ")
             and not s.title.startswith("Session of ")]
    assert by_id == []
    assert all(s.title.strip() and "\n" not in s.title for s in sessions)


def test_a_built_init_session_says_it_began_with_the_command(isolated_home: Path, tmp_path: Path) -> None:
    # The real 1.0.98 file whose only input is /init: its sidecar and page title say /init,
    # and its timeline opens with the command (counted as one; no prompt).
    folder = tmp_path / "projects" / "-path-to-Demo"
    folder.mkdir(parents=True)
    (folder / f"{INIT_SESSION}.jsonl").write_bytes((fixtures_dir("claude") / f"{INIT_SESSION}.jsonl").read_bytes())
    out = tmp_path / "site"
    build(BuildConfig(sources=[tmp_path / "projects"], out=out, archive=None, search=False), redaction_key=b"k")
    [sidecar] = out.glob("projects/*/sessions/*.json")
    data = json.loads(sidecar.read_bytes())
    assert data["title"] == "/init"
    assert (data["stats"]["prompts"], data["stats"]["commands"]) == (0, 1)
    assert data["timeline"][0]["kind"] == "command" and data["timeline"][0]["name"] == "/init"
    page = sidecar.with_suffix(".html").read_text()
    assert "<title>/init" in page
