"""A big project's pages (render/months.py, docs/paging.md): the project page shows
its newest sessions, each month has a page of its own (a big month in pieces), and
projects/<id>/rows.js holds every row for sorting and filtering across them. Each
page stays under 300 KB at 3,000 sessions; a session added to the newest month
rewrites no older month's page; the bytes are the same whatever the workers and
however the build got there. The browser side is tests/test_paging_browser.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bough_site import urls
from bough_site.model import Project, Session
from bough_site.publish import month_signatures, rows_data, rows_script
from bough_site.render import months
from bough_site.render.months import Paging, paging
from bough_site.render.project_summary import newest_first, summarize_project
from bough_site.search import shards
from bough_site.search.shards import AGAIN_AT_MOST
from corpus.claude import generate_claude_history

from .helpers import EVIL, REPO, age, append_turn, rewritten, run, sessions_of, spy_early_shards, tree
from .helpers.big_project import NEEDLE, big_project, project_files

PAGE_BUDGET = 300_000  # issue #40: every page of a 3,000-session project
SCHEMA = json.loads((REPO / "docs" / "schema" / "rows.schema.json").read_text())
ROWS_PREFIX = b"window.BOUGH_ROWS = "


def session(n: int, started: str | None, title: str = "", source: str = "claude-code", **fields) -> Session:
    return Session(id=f"s{n:04d}", source=source, cwd="/w", title=title or f"session {n}", started=started,
                   ended=started, versions=[], models=["claude-opus-4-6"], git_branch=None, files=[], timeline=[],
                   stats={"prompts": 1, "input_tokens": n}, slug=f"s{n:04d}", **fields)


def month_of(first: int, count: int, month: str = "2026-02") -> list[Session]:
    """``count`` sessions in ``month``, numbered from ``first``, an hour apart."""
    out = []
    for k in range(count):
        day, hour = 1 + (k // 24) % 28, k % 24
        out.append(session(first + k, f"{month}-{day:02d}T{hour:02d}:{(k // 672) % 60:02d}:00.000Z"))
    return out


def rows_json(script: bytes) -> dict:
    body = script.split(b"\n", 1)[1]
    assert body.startswith(ROWS_PREFIX) and body.endswith(b";\n")
    return orjson.loads(body[len(ROWS_PREFIX):-2])


# --- the pages: which sessions each holds ---------------------------------------------------


def test_a_project_of_300_sessions_is_one_page() -> None:
    assert paging(newest_first(month_of(0, months.PAGED_ABOVE))) is None
    assert paging(newest_first(month_of(0, months.PAGED_ABOVE + 1))) is not None


def test_the_project_page_shows_the_newest_and_every_month_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(months, "PAGED_ABOVE", 5)
    monkeypatch.setattr(months, "LANDING_ROWS", 4)
    monkeypatch.setattr(months, "MONTH_ROWS", 3)
    sessions = newest_first([*month_of(0, 2, "2026-03"), *month_of(10, 7, "2026-02"), *month_of(20, 1, "2025-12"),
                             session(30, None)])
    pages = paging(sessions)
    assert isinstance(pages, Paging) and pages.total == 11
    # The project page: the newest 4, the oldest of them a month's newest only.
    assert [(m.label, [s.id for s in m.sessions]) for m in pages.landing] == [
        ("March 2026", ["s0001", "s0000"]), ("February 2026", ["s0016", "s0015"])]
    # February's 7: its own page the newest 1, then two full pieces of 3 from its oldest.
    assert [(p.name, p.title, [s.id for s in p.sessions]) for p in pages.pages] == [
        ("2026-03", "March 2026", ["s0001", "s0000"]),
        ("2026-02", "February 2026, part 3", ["s0016"]),
        ("2026-02-2", "February 2026, part 2", ["s0015", "s0014", "s0013"]),
        ("2026-02-1", "February 2026, part 1", ["s0012", "s0011", "s0010"]),
        ("2025-12", "December 2025", ["s0020"]),
        ("undated", "Undated", ["s0030"]),
    ]
    newer, older = pages.around(pages.pages[0])
    assert newer is None and older is pages.pages[1]
    assert pages.around(pages.pages[-1])[1] is None
    assert [(year, [short for short, _ in entries]) for year, entries in pages.years()] == [
        ("2026", ["Mar", "Feb"]), ("2025", ["Dec"]), ("Undated", ["Undated"])]
    # A new session in February joins its own page: the full pieces stay as they were.
    grown = paging(newest_first([*sessions, session(17, "2026-02-28T23:59:00.000Z")]))
    assert [(p.name, [s.id for s in p.sessions]) for p in grown.pages[1:4]] == [
        ("2026-02", ["s0017", "s0016"]), ("2026-02-2", ["s0015", "s0014", "s0013"]),
        ("2026-02-1", ["s0012", "s0011", "s0010"])]


def test_a_session_in_the_newest_month_changes_that_months_signature_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(months, "PAGED_ABOVE", 5)
    monkeypatch.setattr(months, "MONTH_ROWS", 3)
    old = [*month_of(0, 4, "2026-03"), *month_of(10, 7, "2026-02"), *month_of(20, 2, "2025-12")]

    def signed(sessions: list[Session]) -> dict[str, str]:
        project = Project(id="p", name="p", cwd="/w", sessions=sessions, stats={})
        return month_signatures(project, lambda s: orjson.dumps([s.id, s.title, s.started]))

    before = signed(old)
    after = signed([*old, session(5, "2026-03-30T00:00:00.000Z")])
    assert sorted(k for k in before if before[k] != after.get(k)) == ["projects/p/months/2026-03.html"]
    # A session that starts a new month: that month's page is new; the month before it
    # changes (its newer neighbour), no other.
    later = signed([*old, session(6, "2026-04-02T00:00:00.000Z")])
    assert sorted(set(later) - set(before)) == ["projects/p/months/2026-04.html"]
    assert sorted(k for k in before if before[k] != later[k]) == ["projects/p/months/2026-03.html"]
    # A retitled session in an old piece changes that piece's page alone.
    retitled = [s if s.id != "s0011" else session(11, s.started, title="renamed") for s in old]
    changed = signed(retitled)
    assert sorted(k for k in before if before[k] != changed[k]) == ["projects/p/months/2026-02-1.html"]


# --- 3,000 sessions -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, dict[str, bytes]]:
    project = big_project(tmp_path_factory.mktemp("big"))
    return project, project_files(project)


def test_every_page_of_3000_sessions_is_under_300_kb(big: tuple[Project, dict[str, bytes]]) -> None:
    project, files = big
    assert len(project.sessions) == 3000
    pages = {path: len(data) for path, data in files.items()
             if path == urls.project_html(project.id) or "/months/" in path}
    for path, size in sorted(pages.items()):
        print(f"{size:>9,} {path}")
    print(f"{len(files[urls.project_rows_js(project.id)]):>9,} rows.js")
    assert len(pages) > 20 and any(re.search(r"/months/\d{4}-\d\d-1\.html$", p) for p in pages)  # a piece too
    assert max(pages.values()) < PAGE_BUDGET, max(pages.items(), key=lambda item: item[1])


def test_each_session_is_on_one_month_page_and_the_newest_on_the_project_page(
        big: tuple[Project, dict[str, bytes]]) -> None:
    project, files = big
    row_link = re.compile(rb'<td class="title"><a href="(?:\.\./)?(sessions/[^"]+\.html)"')
    found: list[bytes] = []
    for path, data in files.items():
        if "/months/" in path:
            found += row_link.findall(data)
    assert len(found) == 3000 and len(set(found)) == 3000
    landing = row_link.findall(files[urls.project_html(project.id)])
    newest = [f"sessions/{s.slug}.html".encode() for s in newest_first(project.sessions)[:months.LANDING_ROWS]]
    assert landing == newest
    # Every link between the pages names a page that is there.
    folder = f"projects/{project.id}/"
    for path, data in files.items():
        if path.startswith(folder) and path.endswith(".html"):
            for href in re.findall(rb'href="((?:\.\./)?months/[^"#]+|\.\./index\.html|index\.html)"', data):
                target = urls.relative(".", f"{path.rsplit('/', 1)[0]}/{href.decode()}")
                assert target in files, (path, href)


def test_rows_js_holds_every_row_as_the_schema_says(big: tuple[Project, dict[str, bytes]]) -> None:
    project, files = big
    script = files[urls.project_rows_js(project.id)]
    assert script.count(b"\n") == 2 and script.startswith(b"/* bough: ")
    data = rows_json(script)
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(data, SCHEMA)
    summary = summarize_project(project)
    assert [r[0] for r in data["rows"]] == [f"sessions/{s.slug}.html" for s in summary.sessions]
    assert sum(m[2] for m in data["months"]) == 3000
    assert data["rows"][[r[1] for r in data["rows"]].index(NEEDLE)][3] < "2025-09-01"  # an old session
    top = max(project.sessions, key=lambda s: sum(s.stats.get(k, 0) for k in
                                                  ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                                                   "cache_read_input_tokens")))
    assert max(r[7] for r in data["rows"]) == data["rows"][[r[0] for r in data["rows"]].index(
        f"sessions/{top.slug}.html")][7]


def test_rows_js_is_data_a_title_cannot_end_the_script() -> None:
    sessions = [session(n, f"2026-02-{1 + n % 28:02d}T00:00:00.000Z", title=EVIL + "\u2028</script>")
                for n in range(months.PAGED_ABOVE + 1)]
    project = Project(id="p", name="p", cwd="/w", sessions=sessions, stats={})
    script = rows_script(project, summarize_project(project))
    for raw in (b"<", b">", b"&", "\u2028".encode()):
        assert raw not in script.split(b"\n", 1)[1]
    assert rows_json(script)["rows"][0][1] == EVIL + "\u2028</script>"
    assert rows_data(project, summarize_project(project))["sources"] == ["Claude Code"]


def test_a_month_page_holds_nothing_of_the_project_that_grows(big: tuple[Project, dict[str, bytes]]) -> None:
    """No totals, no chart, no count of the project's sessions: an old month's page
    must not change when a session joins another month."""
    project, files = big
    page = files[f"projects/{project.id}/months/2025-09.html"].decode()
    assert "3,000" not in page and "3000" not in page
    assert 'class="totals' not in page and "<svg" not in page and 'class="built"' not in page
    assert 'data-rows="../rows.js"' in page and "<script>" not in page and " style=" not in page


# --- whole builds: kept pages, the same bytes --------------------------------------------------


@pytest.fixture()
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paging from 5 sessions on, so a build of a few sessions has month pages and pieces."""
    monkeypatch.setattr(months, "PAGED_ABOVE", 4)
    monkeypatch.setattr(months, "LANDING_ROWS", 3)
    monkeypatch.setattr(months, "MONTH_ROWS", 1)


def history_of(root: Path) -> Path:
    # 12 sessions: Aug, Sep, Oct and Dec 2025 hold two each, and Feb, Apr, Aug and Oct 2026 one.
    generate_claude_history(root, seed=4, projects=1, sessions_per_project=12, turns_per_session=1, output_kb=1)
    return root / "projects"


def newest_transcript(src: Path, out: Path) -> Path:
    (rows,) = out.glob("projects/*/rows.js")
    page = rows_json(rows.read_bytes())["rows"][0][0]
    (path,) = src.glob(f"*/{page.removeprefix('sessions/').removesuffix('.html')}.jsonl")
    return path


def test_a_big_projects_search_is_cut_by_months_and_an_append_indexes_the_newest_shard_again(
        small_pages: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project of more than SHARD_SESSIONS sessions is several Pagefind bundles (made
    while the rest renders, with two workers): its newest month page's, and the others'
    of consecutive month pages from the oldest, so that an append to the newest month
    indexes again that month's bundle only, not the project's."""
    monkeypatch.setattr("bough_site.search.shards.SHARD_SESSIONS", 3)
    src = history_of(tmp_path / "history")
    out = tmp_path / "out"
    run(src, out, jobs=2)
    files = tree(out)
    month_pages = sorted(p for p in files if "/months/" in p and p.endswith(".html"))
    (project,) = {p.split("/")[1] for p in month_pages}
    # Oldest first: by month, a month's full pieces (2025-08-1 ...) before its own page (2025-08).
    oldest_first = sorted(month_pages, key=lambda p: (Path(p).stem[:7], int(Path(p).stem[8:] or 10**6)))
    assert len(oldest_first) == 12  # a session each (MONTH_ROWS: 1)
    cuts = [oldest_first[n:min(n + 3, 11)] for n in range(0, 11, 3)] + [oldest_first[11:]]
    shards = [f"pagefind/{project}/{Path(pages[0]).stem}/" for pages in cuts]
    assert [len(pages) for pages in cuts] == [3, 3, 3, 2, 1]
    assert sorted(listed_shards(files)) == sorted(shards)
    for shard, pages in zip(shards, cuts):
        sessions = {s for p in pages for s in re.findall(rb'href="\.\./sessions/([^"]+)\.html"', files[p])}
        assert {Path(p).stem.encode() for p in shard_pages(files, shard)} == sessions
    age(out)
    append_turn(newest_transcript(src, out))
    run(src, out, jobs=2)
    touched = {p for p in rewritten(out) if p.startswith("pagefind/") and p != "pagefind/shards.js"}
    assert touched and all(p.startswith(shards[-1]) for p in touched)
    fresh = tmp_path / "fresh"
    run(src, fresh)
    assert tree(out) == tree(fresh)


def test_an_append_to_an_older_month_indexes_its_shard_again_while_the_build_goes_on(
        small_pages: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two workers, a turn appended to a session of an older shard has that shard
    made again as soon as the first pass has written the session's page, from the
    pages its stamp names (EarlyShards.again), and publishing takes that run: the
    site is the one a fresh build makes. Appends touching more shards than
    AGAIN_AT_MOST leave them to publishing."""
    monkeypatch.setattr("bough_site.search.shards.SHARD_SESSIONS", 3)
    started, taken = spy_early_shards(monkeypatch)
    src = history_of(tmp_path / "history")
    out = tmp_path / "out"
    run(src, out, jobs=2)
    files = tree(out)
    roots = sorted(shard.rstrip("/") for shard in listed_shards(files))
    assert len(roots) == 5

    def transcript(root: str) -> Path:
        page = shard_pages(files, root + "/")[0]
        (path,) = src.glob(f"*/{Path(page).stem}.jsonl")
        return path

    oldest = roots[0]
    started.clear()
    taken.clear()
    age(out)
    append_turn(transcript(oldest))
    run(src, out, jobs=2)
    assert started == [(oldest.removeprefix("pagefind/"), 1)] and (oldest, True) in taken
    touched = {p for p in rewritten(out) if p.startswith("pagefind/") and p != "pagefind/shards.js"}
    assert touched and all(p.startswith(oldest + "/") for p in touched)
    fresh = tmp_path / "fresh"
    run(src, fresh)
    assert tree(out) == tree(fresh)

    several = roots[:AGAIN_AT_MOST + 1]
    started.clear()
    for root in several:
        append_turn(transcript(root))
    run(src, out, jobs=2)
    assert started == []
    shutil.rmtree(fresh)
    run(src, fresh)
    assert tree(out) == tree(fresh)


def test_the_newest_month_is_a_shard_of_its_own_and_a_new_month_moves_no_older_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """shard_names: a big project's newest month page is a shard alone, so an append to
    it indexes that month again; when a new month starts, the month before joins the
    older shards, cut from the oldest, whose bounds do not move."""
    monkeypatch.setattr(months, "PAGED_ABOVE", 4)
    monkeypatch.setattr(shards, "SHARD_SESSIONS", 10)
    by_month = {f"2026-0{m}": month_of(10 * m, 4, f"2026-0{m}") for m in range(1, 8)}

    def cut(upto: int) -> dict[str, list[str]]:
        sessions = sorted((s for m in range(1, upto + 1) for s in by_month[f"2026-0{m}"]),
                          key=lambda s: s.started or "", reverse=True)
        found: dict[str, list[str]] = {}
        for stem, name in shards.shard_names("p", sessions).items():
            found.setdefault(name, []).append(stem.rpartition("/")[2])
        return {name: sorted(stems) for name, stems in found.items()}

    def ids(*month_numbers: int) -> list[str]:
        return sorted(s.slug for m in month_numbers for s in by_month[f"2026-0{m}"])

    assert cut(5) == {"p/2026-01": ids(1, 2), "p/2026-03": ids(3, 4), "p/2026-05": ids(5)}
    # June starts: May joins the older shards, alone (8 + 4 > 10): the same shard, kept.
    assert cut(6) == {"p/2026-01": ids(1, 2), "p/2026-03": ids(3, 4), "p/2026-05": ids(5), "p/2026-06": ids(6)}
    # July starts: June joins May's shard, the only one made again with July's.
    assert cut(7) == {"p/2026-01": ids(1, 2), "p/2026-03": ids(3, 4), "p/2026-05": ids(5, 6), "p/2026-07": ids(7)}


def test_a_project_of_a_few_hundred_sessions_has_its_newest_month_in_a_shard_of_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """shard_names: a project too small to be paged but over NEWEST_APART_ABOVE sessions
    is cut by calendar month, its newest month alone, so that an append indexes that
    month again, not the project; a smaller project, or one of a single month, stays
    one shard (each shard more costs the first search)."""
    monkeypatch.setattr(shards, "NEWEST_APART_ABOVE", 8)
    sessions = month_of(30, 4, "2026-03") + month_of(20, 3, "2026-02") + month_of(10, 3, "2026-01")
    newest_first_sessions = sorted(sessions, key=lambda s: s.started or "", reverse=True)
    assert paging(newest_first_sessions) is None  # not paged: its calendar months, not month pages

    def cut(members: list[Session]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for stem, name in shards.shard_names("p", members).items():
            found.setdefault(name, []).append(stem.rpartition("/")[2])
        return {name: sorted(stems) for name, stems in found.items()}

    def ids(*members: list[Session]) -> list[str]:
        return sorted(s.slug for group in members for s in group)

    march, february, january = newest_first_sessions[:4], newest_first_sessions[4:7], newest_first_sessions[7:]
    assert cut(newest_first_sessions) == {"p/2026-01": ids(january, february), "p/2026-03": ids(march)}
    assert cut(newest_first_sessions[:8]) == {"p": ids(march, february, january[:1])}  # 8 sessions: one shard
    one_month = month_of(40, 12, "2026-04")[::-1]
    assert cut(one_month) == {"p": ids(one_month)}


def weighing(sessions: list[Session], items: int) -> list[Session]:
    """``sessions``, each given ``items`` items (a prompt, the rest replies: shards.session_weight)."""
    for one in sessions:
        one.stats["replies"] = items - 1
    return sessions


def test_a_heavy_project_has_its_newest_month_apart_in_pieces_that_an_added_session_does_not_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """shard_names: what Pagefind reads grows with a session's items, not with the count
    of sessions. A project of few but long sessions heavier than NEWEST_WEIGHT has its
    newest month apart, and that month, when heavier too, cut from its oldest session
    into pieces of at most NEWEST_WEIGHT items (a session heavier alone): an append
    indexes its piece again, and a new session joins the last piece or starts one; the
    older months are shards of at most OLDER_WEIGHT items, cut the same way when one
    month alone is heavier. A light project of a few sessions stays one shard."""
    monkeypatch.setattr(shards, "NEWEST_WEIGHT", 10)
    monkeypatch.setattr(shards, "OLDER_WEIGHT", 20)
    january = weighing(month_of(1, 3, "2026-01"), 4)
    february = weighing(month_of(10, 2, "2026-02"), 4)
    march = weighing(month_of(20, 5, "2026-03"), 4)

    def cut(*groups: list[Session]) -> dict[str, list[str]]:
        members = sorted((s for group in groups for s in group), key=lambda s: s.started or "", reverse=True)
        found: dict[str, list[str]] = {}
        for stem, name in shards.shard_names("p", members).items():
            found.setdefault(name, []).append(stem.rpartition("/")[2])
        return {name: sorted(stems) for name, stems in found.items()}

    def ids(*members: Session) -> list[str]:
        return sorted(s.slug for s in members)

    assert cut(january, february, march[:4]) == {
        "p/2026-01": ids(*january, *february),  # 20 items: one older shard
        "p/2026-03/1": ids(*march[:2]), "p/2026-03/2": ids(*march[2:4])}  # 16 items, in pieces of 8
    # A fifth session in March starts a third piece; the two before it do not move.
    assert cut(january, february, march) == {
        "p/2026-01": ids(*january, *february),
        "p/2026-03/1": ids(*march[:2]), "p/2026-03/2": ids(*march[2:4]), "p/2026-03/3": ids(march[4])}
    # A session grown heavier than the bound is a piece alone.
    weighing(march[1:2], 30)
    assert cut(january, february, march)["p/2026-03/2"] == ids(march[1])
    # An older month alone heavier than OLDER_WEIGHT is cut too, by OLDER_WEIGHT.
    weighing(january, 8)
    assert {name: stems for name, stems in cut(january, february, march[:1]).items() if "2026-01" in name} == {
        "p/2026-01/1": ids(*january[:2]), "p/2026-01/2": ids(january[2])}
    odd = month_of(60, 3, "2026-04")
    for one, stats in zip(odd, [{"prompts": "many", "replies": 2}, {"replies": None, "prompts": 1}, [3]]):
        one.stats = stats  # type: ignore[assignment]
    assert [shards.session_weight(one) for one in odd] == [2, 1, 0]  # what is not a count counts for none
    light = weighing(month_of(40, 3, "2026-04"), 2) + month_of(50, 2, "2026-05")  # 8 items: one shard
    assert cut(light) == {"p": ids(*light)}
    weighing(light[:1], 5)  # 11 items: the newest month apart
    assert cut(light) == {"p/2026-04": ids(*light[:3]), "p/2026-05": ids(*light[3:])}


@given(st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=30), st.integers(0, 30),
       st.integers(min_value=1, max_value=40))
def test_a_shards_pieces_keep_their_bounds_and_only_the_last_takes_a_new_session(
        weights: list[int], added: int, bound: int) -> None:
    """shards._pieces: each piece weighs at most the bound, unless it is one session; the
    pieces hold every session once, in order; and a session added (the newest) leaves
    every piece but the last as it was."""
    sessions = [session(n, None) for n in range(len(weights) + 1)]  # newest first: the first is added
    for one, items in zip(sessions, [added, *weights]):
        one.stats = {"prompts": items}

    def pieces(members: list[Session]) -> list[list[str]]:
        return [[s.slug for s in piece] for _name, piece in shards._pieces("g", members, bound)]

    before, after = pieces(sessions[1:]), pieces(sessions)
    weight = {s.slug: shards.session_weight(s) for s in sessions}
    for found, members in ((before, sessions[1:]), (after, sessions)):
        assert [slug for piece in reversed(found) for slug in piece] == [s.slug for s in members]
        assert all(len(piece) == 1 or sum(weight[slug] for slug in piece) <= bound for piece in found)
    assert after[:len(before) - 1] == before[:-1]


def test_an_append_to_a_long_session_indexes_its_piece_of_the_month_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project of a dozen sessions whose items outweigh the bounds (NEWEST_WEIGHT,
    OLDER_WEIGHT: here the heavier of December's two sessions) has its months apart and
    December in two pieces, oldest first; a turn appended to its newer session has
    that piece indexed again (while the build goes on, with two workers), the other
    kept, and the site is the one a fresh build makes."""
    src = history_of(tmp_path / "history")
    probe = tmp_path / "probe"
    run(src, probe)
    (project,) = orjson.loads((probe / "index.json").read_bytes())["projects"]
    assert listed_shards(tree(probe)) == [f"pagefind/{project['id']}/"]  # 12 light sessions: one shard
    december = sorted((s for s in sessions_of(probe).values() if s["started"].startswith("2025-12")),
                      key=lambda s: s["started"])
    assert len(december) == 2
    bound = max(sum(s["stats"][k] for k in ("prompts", "replies", "tool_calls")) for s in december)
    monkeypatch.setattr(shards, "NEWEST_WEIGHT", bound)
    monkeypatch.setattr(shards, "OLDER_WEIGHT", bound)
    out = tmp_path / "out"
    run(src, out, jobs=2)
    files = tree(out)
    pieces = [f"pagefind/{project['id']}/2025-12/{n}/" for n in (1, 2)]
    assert set(pieces) <= set(listed_shards(files)) and f"pagefind/{project['id']}/" not in listed_shards(files)
    assert [[Path(p).stem for p in shard_pages(files, piece)] for piece in pieces] == [[s["id"]] for s in december]
    age(out)
    (newer,) = src.glob(f"*/{december[1]['id']}.jsonl")
    append_turn(newer)
    run(src, out, jobs=2)
    touched = {p for p in rewritten(out) if p.startswith("pagefind/") and p != "pagefind/shards.js"}
    assert touched and all(p.startswith(pieces[1]) for p in touched)
    fresh = tmp_path / "fresh"
    run(src, fresh)
    assert tree(out) == tree(fresh)


def test_a_project_whose_sessions_grow_heavy_has_its_one_shard_cut_and_the_old_one_goes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project that was one shard and outweighs NEWEST_WEIGHT at the next build (here
    the bound is lowered, as sessions growing long would make it) is cut by months;
    the files of its one shard are taken away (none left under pagefind/<id>/ but the
    new shards'), and the site is the one a fresh build makes; the bound raised
    again, it is one shard again."""
    src = history_of(tmp_path / "history")
    out = tmp_path / "out"
    run(src, out, jobs=2)
    (project,) = orjson.loads((out / "index.json").read_bytes())["projects"]
    whole = f"pagefind/{project['id']}/"
    assert listed_shards(tree(out)) == [whole]
    (newest,) = src.glob(f"*/{max(sessions_of(out).values(), key=lambda s: s['started'])['id']}.jsonl")
    monkeypatch.setattr(shards, "NEWEST_WEIGHT", 1)
    append_turn(newest)
    run(src, out, jobs=2)
    files = tree(out)
    cut = listed_shards(files)
    assert len(cut) > 1 and whole not in cut
    assert all(any(path.startswith(shard) for shard in cut) for path in files if path.startswith(whole))
    fresh = tmp_path / "fresh"
    run(src, fresh)
    assert files == tree(fresh)
    monkeypatch.setattr(shards, "NEWEST_WEIGHT", 10**9)
    append_turn(newest)
    run(src, out, jobs=2)
    files = tree(out)
    assert listed_shards(files) == [whole]
    assert not any(path.startswith(shard) for shard in cut for path in files)
    shutil.rmtree(fresh)
    run(src, fresh)
    assert files == tree(fresh)


def listed_shards(files: dict[str, bytes]) -> list[str]:
    """The shards pagefind/shards.js lists."""
    return json.loads(files["pagefind/shards.js"].decode().split("export default ", 1)[1].rstrip().rstrip(";"))


def shard_pages(files: dict[str, bytes], shard: str) -> list[str]:
    return json.loads(files[f"{shard}bough-shard.json"])["pages"]


def test_an_append_to_the_newest_month_rewrites_no_older_month_page(
        small_pages: None, tmp_path: Path) -> None:
    src = history_of(tmp_path / "history")
    out = tmp_path / "out"
    run(src, out)
    month_pages = {p for p in tree(out) if "/months/" in p}
    assert len(month_pages) >= 8 and any(p.endswith("-1.html") for p in month_pages)
    age(out)
    append_turn(newest_transcript(src, out))
    run(src, out)
    again = rewritten(out)
    assert {p for p in again if "/months/" in p} == {p for p in month_pages if p.endswith("/months/2026-10.html")}
    assert {p.rsplit("/", 1)[-1] for p in again if "/sessions/" not in p} >= {"index.html", "rows.js", "project.json"}
    fresh = tmp_path / "fresh"
    run(src, fresh)
    assert tree(out) == tree(fresh)


def test_the_same_bytes_whatever_the_workers_and_a_deleted_month_page_is_made_again(
        small_pages: None, tmp_path: Path) -> None:
    src = history_of(tmp_path / "history")
    one, two = tmp_path / "one", tmp_path / "two"
    run(src, one, jobs=1)
    run(src, two, jobs=2)
    assert tree(one) == tree(two)
    (page,) = [p for p in tree(two) if p.endswith("/months/2025-09.html")]
    (two / page).unlink()
    run(src, two, jobs=2)
    assert tree(two) == tree(one)
    # No change: every page kept.
    age(two)
    run(src, two, jobs=2)
    assert rewritten(two) == set()
    shutil.rmtree(one)
