"""A big project (3,000 sessions) for the paged project pages, made fast: a
generated Claude Code project of ``REAL`` sessions (corpus/claude.py) is built
once, and its stored session summaries are copied, each copy its own ids and
moved later in time, as an incremental build renders the project's pages from
summaries (benchmarks/page_weight.py does the same for the page weight). The
pages are what publish.py writes for the project: its page, its month pages,
rows.js, sessions.js and project.json, beside the theme's assets."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path

import pytest

from bough_site import sidecars, urls
from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.manifest import Manifest
from bough_site.model import Project, Session, Site
from bough_site.publish import rows_script, sessions_script
from bough_site.render.pages import Renderer
from bough_site.render.project_summary import summarize_project
from bough_site.render.times import parse_time
from bough_site.summaries import session_from_summary
from bough_site.write import json_bytes
from corpus.claude import generate_claude_history

REAL = 150  # sessions generated and built
COPIES = 20  # 3,000 sessions
SHIFT_DAYS = 23  # each copy this much later than the one before, up to the
LAST_SHIFT = 12  # twelfth: the copies after it overlap it, making busy months (one over MONTH_ROWS)
# One old session gets a title no other has: a filter must find it from any page.
NEEDLE = "Zanzibar quokka migration"


def _later(value: str | None, days: int) -> str | None:
    moment = parse_time(value)
    if moment is None:
        return value
    return (moment + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def big_project(tmp: Path, *, real: int = REAL, copies: int = COPIES) -> Project:
    """A project of ``real * copies`` sessions from a generated history built in ``tmp``."""
    history, out = tmp / "history", tmp / "built"
    generate_claude_history(history, seed=3, projects=1, sessions_per_project=real, turns_per_session=1, output_kb=1)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HOME", str(tmp / "home"))
        env.setenv("CLAUDE_CONFIG_DIR", str(tmp / "home" / ".claude"))
        env.setenv("CODEX_HOME", str(tmp / "home" / ".codex"))
        build(BuildConfig(sources=[history / "projects"], out=out, archive=None, search=False, jobs=1),
              redaction_key=b"k")
    manifest = Manifest.load(out)
    states = sorted(manifest.sessions.values(), key=lambda state: state.key)
    base = [session_from_summary(state.summary, state.slug) for state in states]
    ((project_id, stats),) = manifest.project_stats.items()
    needle = min(base, key=lambda s: s.started or "9")  # the oldest: on the last month page
    sessions: list[Session] = []
    for n in range(copies):
        days = min(n, LAST_SHIFT) * SHIFT_DAYS
        for s in base:
            sessions.append(dataclasses.replace(
                s, id=f"{s.id}-{n}", slug=f"{s.slug}-{n}", started=_later(s.started, days),
                ended=_later(s.ended, days), title=NEEDLE if n == 0 and s is needle else s.title))
    total = {key: value * copies for key, value in stats.items()}
    return Project(id=project_id, name="big", cwd=base[0].cwd or "/home/u/big", sessions=sessions, stats=total)


def project_files(project: Project, *, renderer: Renderer | None = None) -> dict[str, bytes]:
    """Every file publish.py writes for ``project`` on a cold build, and the assets."""
    renderer = renderer or Renderer()
    site = Site(projects=[project], stats=dict(project.stats), warnings=[])
    summary = summarize_project(project)
    files = dict(renderer.assets())
    files[urls.project_html(project.id)] = renderer.project_page(project, site, summary=summary)
    files[urls.project_json(project.id)] = json_bytes(sidecars.project_json(project))
    files[urls.project_sessions_js(project.id)] = sessions_script(project)
    if summary.paging is not None:
        files[urls.project_rows_js(project.id)] = rows_script(project, summary)
        for page in summary.paging.pages:
            files[urls.project_month_html(project.id, page.name)] = renderer.month_page(project, summary, page)
    return files


def write_files(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
