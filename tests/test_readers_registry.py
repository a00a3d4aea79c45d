"""The reader registry: every kind of unit the planner makes has a reader there,
and both roads that read (load_site, and a build's jobs) choose through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bough_site.build import build, load_site
from bough_site.config import BuildConfig
from bough_site.discover import EXAMPLES, discover
from bough_site.inherit import Inheritance
from bough_site.model import InputWarning, Session
from bough_site.plan.units import SOURCE_OF_KIND, units_of
from bough_site.readers.layouts import LAYOUTS
from bough_site.readers.reader import UnitFiles, WarnFn
from bough_site.readers.registry import READERS, read_unit

from .helpers import sessions_of

# The bundled examples: a history of each agent.
HISTORIES = [EXAMPLES / "claude" / "projects", EXAMPLES / "codex" / "sessions", EXAMPLES / "gemini",
             *(EXAMPLES / kind for kind in LAYOUTS)]
SOURCE_OF = {kind: source for kind, source in SOURCE_OF_KIND.items() if kind in READERS}
TAG = "[read through the registry] "


def _config(out: Path) -> BuildConfig:
    return BuildConfig(sources=HISTORIES, out=out, archive=None, jobs=1, search=False)


def test_every_unit_planned_from_every_agents_history_has_its_agents_reader(tmp_path: Path) -> None:
    warnings: list[InputWarning] = []
    found = discover(_config(tmp_path / "site"), warnings.append)
    units = units_of(found.claude, found.codex, found.label, gemini=found.gemini, agents=found.agents)
    assert {unit.kind for unit in units} == set(READERS) == set(SOURCE_OF)
    for unit in units:
        sessions = read_unit(unit, warnings.append)
        assert sessions and {s.source for s in sessions} == {SOURCE_OF[unit.kind]}, unit.key


def _tagging(kind: str):
    """The registered reader for ``kind``, its sessions' titles marked: a reader
    added to the registry, as a new agent's would be."""
    real = READERS[kind]

    def read(unit: UnitFiles, warn: WarnFn, inherit: Inheritance | None) -> list[Session]:
        sessions = real(unit, warn, inherit)
        for session in sessions:
            session.title = TAG + session.title
        return sessions

    return read


@pytest.mark.parametrize("kind", sorted(SOURCE_OF))
def test_load_site_and_a_build_read_through_the_registry(kind: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(READERS, kind, _tagging(kind))
    site = load_site(_config(tmp_path / "loaded"), redaction_key=b"k")
    loaded = {(s.source, s.title.startswith(TAG)) for p in site.projects for s in p.sessions}
    assert loaded == {(source, source == SOURCE_OF[kind]) for source in SOURCE_OF.values()}
    build(_config(tmp_path / "built"), redaction_key=b"k")
    built = {(s["source"], s["title"].startswith(TAG)) for s in sessions_of(tmp_path / "built").values()}
    assert built == loaded
