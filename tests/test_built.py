"""A project page's "what was built" for a heavy user (render/built.py): the lists
cut to their latest or most edited entries, the timeline kept under its byte
budget, and charts whose labels are HTML (or unscaled SVG text), never text that
grows with the chart."""

from __future__ import annotations

import re
import tracemalloc
from datetime import UTC, datetime, timedelta
from typing import Any

from bough_site.model import Project, Session
from bough_site.render import built
from bough_site.render.built import LIST_LIMIT, TIMELINE_BYTES, TOKEN_MIN_DAYS, project_work, tokens_chart

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def session(n: int, *, day: int = 0, **extra: Any) -> Session:
    start = START + timedelta(days=day, hours=n % 12)
    fields: dict[str, Any] = dict(
        id=f"s{n}", source="claude-code", cwd="/w", title=f"Session {n}", started=iso(start),
        ended=iso(start + timedelta(minutes=30)), versions=[], models=[], git_branch=None, files=[],
        timeline=[], stats={}, slug=f"s{n}",
    )
    fields.update(extra)
    return Session(**fields)


def commit(n: int, moment: datetime) -> dict[str, Any]:
    return {"id": f"c{n}", "hash": f"{n:07x}", "branch": "main", "message": f"change {n}", "amend": False,
            "call_id": f"t{n}", "anchor": f"r{n}", "timestamp": iso(moment), "agent": None}


def edit(n: int, moment: datetime) -> dict[str, Any]:
    return {"call_id": f"e{n}", "tool": "Edit", "action": "edit", "anchor": f"r{n}", "timestamp": iso(moment),
            "lines_added": 1, "lines_removed": 0, "agent": None}


def link(s: Session, anchor: str | None) -> str:
    return f"sessions/{s.slug}.html" + (f"#{anchor}" if anchor else "")


def newest_first(sessions: list[Session]) -> list[Session]:
    return sorted(sessions, key=lambda s: s.started, reverse=True)


def test_lists_keep_the_latest_commits_and_the_most_edited_files() -> None:
    sessions = []
    for n in range(25):
        moment = START + timedelta(days=n)
        sessions.append(session(n, day=n, commits=[commit(n, moment)], agents=[
            {"agent_id": f"a{n}", "agent_type": "Explore", "description": f"look {n}", "tool_calls": 1,
             "files_changed": 0, "commits": 0, "anchor": f"r{n}", "timestamp": iso(moment)}],
            file_changes=[{"path": f"/w/f{k}.py", "edits": [edit(100 * n + k, moment + timedelta(minutes=k))]}
                          for k in range(n % 3 + 1)] + [{"path": f"/w/only{n}.py", "edits": [edit(9000 + n, moment)]}]))
    project = Project(id="p", name="p", cwd="/w", sessions=sessions, stats={})
    work = project_work(project, newest_first(sessions), link)
    assert (work.commit_count, work.file_count, work.agent_count) == (25, 3 + 25, 25)
    assert [c["hash"] for c, _ in work.commits] == [f"{n:07x}" for n in range(24, 4, -1)]  # newest first
    assert len(work.files) == len(work.agents) == LIST_LIMIT
    # f0 is edited in every session, f1 in two of three, f2 in one of three: most edited first.
    assert [(f["display"], f["edits"], len(f["sessions"])) for f in work.files[:3]] == [
        ("f0.py", 25, 25), ("f1.py", 16, 16), ("f2.py", 8, 8)]
    last_session, last_edit = work.files[0]["last"]
    assert (last_session.id, last_edit["call_id"]) == ("s24", "e2400")
    assert [a["agent_id"] for a, _ in work.agents][:2] == ["a24", "a23"]


def test_the_timeline_keeps_under_its_byte_budget_and_says_how_many_days_it_shows() -> None:
    # 80 days of 12 sessions each, every one with commits: far more than the budget holds.
    sessions = [session(day * 12 + n, day=day, title="A title of a fair length, as people write them " * 2,
                        commits=[commit(day * 100 + n * 5 + k, START + timedelta(days=day, hours=n, minutes=k))
                                 for k in range(5)])
                for day in range(80) for n in range(12)]
    ordered = newest_first(sessions)
    work = project_work(Project(id="p", name="p", cwd="/w", sessions=sessions, stats={}), ordered, link)
    rows = re.findall(r'<div class="tl-row">.*?</svg></div>', work.timeline)
    assert 0 < len(rows) == work.timeline_days < 60 and work.active_days == 80
    assert sum(len(r.encode()) for r in rows) <= TIMELINE_BYTES
    days = re.findall(r'<span class="tl-day">([\d-]+)</span>', work.timeline)
    assert days[-1] == "2026-05-19" and days == sorted(days)  # the latest days, oldest first
    assert f"Timeline, {len(rows)} days with activity from {days[0]} to 2026-05-19" in work.timeline


def test_a_quiet_project_shows_sixty_days_at_most() -> None:
    sessions = [session(n, day=n) for n in range(70)]
    work = project_work(Project(id="p", name="p", cwd="/w", sessions=sessions, stats={}), newest_first(sessions), link)
    assert (work.timeline_days, work.active_days) == (60, 70)


def test_a_session_of_a_thousand_years_costs_its_sixty_days_not_its_span() -> None:
    # One session from 1970 to 2999 (the widest span a reader hands on), with a
    # prompt on a day of its own long after: the timeline walks the 60 days it
    # shows, never the 375,000 between (a span of millennia took 18 s and 1.4 GB).
    long = session(1, started="1970-01-01T10:00:00.000Z", ended="2999-12-30T08:00:00.000Z",
                   prompt_times=["2999-12-31T12:00:00.000Z", "1970-01-01T10:00:00.000Z"])
    short = session(2, started="2000-06-01T10:00:00.000Z", ended="2000-06-01T11:00:00.000Z")
    tracemalloc.start()
    try:
        work = project_work(Project(id="p", name="p", cwd="/w", sessions=[long, short], stats={}), [long, short], link)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # memory, not time: it says the same on any machine
    days = re.findall(r'<span class="tl-day">([\d-]+)</span>', work.timeline)
    assert len(days) == work.timeline_days == 60 and days[0] == "2999-11-02" and days[-1] == "2999-12-31"
    every_day = (datetime(2999, 12, 31) - datetime(1970, 1, 1)).days + 1
    assert work.active_days == every_day  # the short session's day lies inside the long one's
    last_row = re.findall(r'<div class="tl-row">.*?</svg></div>', work.timeline)[-1]
    assert "tl-session" not in last_row and "tl-prompt" in last_row  # the session ended the day before


def test_days_outside_the_drawable_years_are_left_out() -> None:
    # Stored summaries of an older bough may hold them: year 1 stepped out of range (OverflowError).
    odd = session(1, started="0001-01-01T00:00:00.000Z", ended="9999-12-31T23:59:59.000Z",
                  prompt_times=["0001-01-01T00:00:00.000Z"], commits=[commit(1, START)],
                  reply_usage=[["m1", "0001-01-01", 5, 5, 5], ["m2", "9999-12-31", 1, 1, 1], ["m3", "2026-03-01", 7, 8, 9]])
    work = project_work(Project(id="p", name="p", cwd="/w", sessions=[odd], stats={}), [odd], link)
    assert re.findall(r'<span class="tl-day">([\d-]+)</span>', work.timeline) == ["2026-03-01"]  # the commit's day
    assert built.daily_tokens([odd])[-1] == (START.date(), 7, 8, 9) and len(built.daily_tokens([odd])) == TOKEN_MIN_DAYS


def test_the_timeline_labels_are_html_or_unscaled_svg_text() -> None:
    sessions = [session(1, prompt_times=[iso(START + timedelta(hours=1, minutes=5))])]
    work = project_work(Project(id="p", name="p", cwd="/w", sessions=sessions, stats={}), sessions, link)
    timeline = str(work.timeline)
    # The hours: SVG text in an SVG without a viewBox, placed in percent (no scaling).
    hours = re.search(r'<svg class="tl-hours"[^>]*>', timeline).group(0)
    assert "viewBox" not in hours
    assert re.findall(r'<text x="([\d.]+%)"', timeline) == ["0%", "25%", "50%", "75%", "100%"]
    # The plots stretch, and hold no text; the day is HTML.
    for plot in re.findall(r'<svg class="tl-plot".*?</svg>', timeline):
        assert 'preserveAspectRatio="none"' in plot and "<text" not in plot
    assert '<span class="tl-day">2026-03-01</span>' in timeline
    assert '<path class="tl-prompt" d="M605 2v12"></path>' in timeline  # 10:05, in minutes
    assert not re.search(r"\sstyle=", timeline)


def test_tokens_chart_shows_at_least_a_month_and_labels_in_html() -> None:
    one_day = [session(1, reply_usage=[["m1", "2026-03-01", 120, 3400, 56000], ["m2", "2026-03-01", 5, 10, 0]])]
    chart = str(tokens_chart(one_day))
    assert "<text" not in chart
    assert [re.sub("<[^>]+>", "", label) for label in re.findall(r'<span class="tk-label">.*?</span>', chart)] == [
        "input tokens", "output tokens", "cache reads"]
    assert re.findall(r'<span class="tk-peak"[^>]*>(.*?)</span>', chart) == ["peak 125", "peak 3.4k", "peak 56k"]
    # One day of spend: one narrow bar per kind in a month of days, at its end.
    plots = re.findall(r'<svg class="tk-plot" viewBox="0 0 (\d+) 24".*?</svg>', chart, re.S)
    assert plots == [str(TOKEN_MIN_DAYS * 8)] * 3
    bars = re.findall(r'<rect class="tk-bar" x="(\d+)"', chart)
    assert bars == [str((TOKEN_MIN_DAYS - 1) * 8)] * 3
    assert re.search(r'<div class="tk-axis" aria-hidden="true"><span>2026-01-31</span><span>2026-03-01</span></div>',
                     chart)
    assert built.daily_tokens([])[:1] == []


def test_each_reply_counts_once_for_its_tokens_and_once_for_its_cost() -> None:
    """A resumed session holds its parent's replies again: each counts once, by its key.
    A copy without a cost figure counts for the tokens, and a later one that has the
    figure for the cost; a reply without a day it can read is left out."""
    day = START.date()
    parent = session(1, reply_usage=[["m1", "2026-03-01", 1, 2, 3], ["m2", "2026-03-01", 10, 20, 30, 500]])
    resumed = session(2, reply_usage=[["m1", "2026-03-01", 1, 2, 3, 7000], ["m2", "2026-03-01", 10, 20, 30, 500],
                                      ["m3", "2026-03-02", 100, 0, 0, 9], ["m4", "", 5, 5, 5, 5],
                                      ["m5", "not a day", 5, 5, 5, 5], ["m6", ["2026-03-01"], 5, 5, 5, 5]])
    tokens = built.daily_tokens([parent, resumed])
    assert tokens[-2:] == [(day, 11, 22, 33), (day + timedelta(days=1), 100, 0, 0)]
    assert built.daily_costs([parent, resumed]) == {day: 7500, day + timedelta(days=1): 9}
    # The same numbers whichever of the two is read first.
    assert built.daily_tokens([resumed, parent]) == tokens
    assert built.daily_costs([resumed, parent]) == {day: 7500, day + timedelta(days=1): 9}
