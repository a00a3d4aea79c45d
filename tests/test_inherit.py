"""A resumed Claude session that begins with a copy of its parent's records shows
that history once: in the parent, with an ``inherited`` marker in the resume
(bough_site/inherit.py decides, resumes.py remembers, the reader leaves it out).

Hand-written records first (the decision, then the reader), then the generated
history (whose resumes are known), then builds: pages, links, STATS, and the
incremental cases.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from bough_site.build import build, load_site
from bough_site.config import BuildConfig
from corpus.claude import generate_claude_history
from bough_site.inherit import FileSummary, Inheritance, decide
from bough_site.model import Marker, Session
from bough_site.manifest import Manifest
from bough_site.plan.lineage import ALONE
from bough_site.readers import claude_records
from bough_site.readers.claude import ClaudeSource, read_claude_session
from bough_site.readers.claude_records import scan_main_file
from bough_site.redact import Redactor
from bough_site.scrub import scrub_session
from bough_site.work import summarize_work
from bough_site.state import StateStore

from .helpers import age, prompt, reply, rewritten, text, tool_result, tool_use, tree, uncosted, write_jsonl

A = "aaaaaaaa-0000-4000-8000-00000000000a"
B = "bbbbbbbb-0000-4000-8000-00000000000b"
C = "cccccccc-0000-4000-8000-00000000000c"
D = "dddddddd-0000-4000-8000-00000000000d"


def turns(tag: str, session: str, count: int = 2) -> list[dict[str, Any]]:
    """``count`` turns of one session: a prompt and a reply each (times go up as records are made)."""
    out: list[dict[str, Any]] = []
    for n in range(count):
        out.append(prompt(f"{tag}-u{n}", f"{tag}: step {n}", sessionId=session))
        out.append(reply(f"{tag}-a{n}", f"msg_{tag}{n}", [text(f"{tag}: done {n}")], sessionId=session))
    return out


def copies(records: list[dict[str, Any]], session: str | None = None) -> list[dict[str, Any]]:
    """What a resume writes first: the records again, same uuids and times; with
    ``session`` the copies carry the new session's id (some versions do that)."""
    return [dict(r, sessionId=session) if session else dict(r) for r in records]


def folder_of(root: Path, files: dict[str, list[dict[str, Any]]]) -> Path:
    folder = root / "projects" / "-home-ada-src-app"
    for session, records in files.items():
        write_jsonl(folder / f"{session}.jsonl", records)
    return folder


def decided(folder: Path) -> dict[str, tuple[str, int]]:
    """session -> (the session its marker names, how many records it inherits)."""
    paths = sorted(p for p in folder.glob("*.jsonl"))
    summaries = [scan_main_file(p, p.name) for p in paths]
    return {summaries[i].session: (found.parent, len(found.records)) for i, found in decide(summaries).items()}


def read(folder: Path, session: str, inherited: Inheritance | None = None) -> Session:
    return read_claude_session(ClaudeSource(folder / f"{session}.jsonl"), lambda w: None, lambda p: p.name, inherited)


def inheritance(folder: Path, session: str) -> Inheritance | None:
    paths = sorted(folder.glob("*.jsonl"))
    summaries = [scan_main_file(p, p.name) for p in paths]
    found = decide(summaries)
    return next((v for i, v in found.items() if summaries[i].session == session), None)


def kinds(session: Session) -> list[str]:
    return [f"marker:{i.type}:{i.count}" if isinstance(i, Marker) else i.kind for i in session.timeline]


# --- the decision ------------------------------------------------------------------------------------


@pytest.mark.parametrize("new_id", [False, True], ids=["copies-keep-the-old-id", "copies-take-the-new-id"])
def test_a_resume_inherits_its_parents_records(tmp_path: Path, new_id: bool) -> None:
    parent = turns("a", A, 3)
    folder = folder_of(tmp_path, {A: parent, B: copies(parent, B if new_id else None) + turns("b", B)})
    assert decided(folder) == {B: (A, len(parent))}


@pytest.mark.parametrize("new_id", [False, True], ids=["copies-keep-the-old-id", "copies-take-the-new-id"])
def test_a_parent_that_went_on_after_the_resume_stays_the_parent(tmp_path: Path, new_id: bool) -> None:
    before = turns("a", A, 2)
    resumed = copies(before, B if new_id else None) + turns("b", B, 1)
    later = turns("a2", A, 3)  # the parent went on after the resume, and ends after it
    folder = folder_of(tmp_path, {A: before + later, B: resumed})
    assert decided(folder) == {B: (A, len(before))}


def test_a_chain_names_the_session_it_resumed(tmp_path: Path) -> None:
    a = turns("a", A)
    b = copies(a, B) + turns("b", B)
    c = copies(b, C) + turns("c", C)
    folder = folder_of(tmp_path, {A: a, B: b, C: c})
    assert decided(folder) == {B: (A, len(a)), C: (B, len(b))}


def test_unrelated_files_inherit_nothing(tmp_path: Path) -> None:
    folder = folder_of(tmp_path, {A: turns("a", A), B: turns("b", B), C: turns("c", C)})
    assert decided(folder) == {}


def test_a_uuid_another_file_uses_for_something_else_is_not_inherited(tmp_path: Path) -> None:
    # Same uuid, same time, another text: not a copy (docs/formats-claude.md C4).
    a = turns("a", A, 1)
    b = [dict(a[0], sessionId=B, message={"role": "user", "content": "something else"}), *turns("b", B, 1)]
    folder = folder_of(tmp_path, {A: a, B: b})
    assert decided(folder) == {}


def test_the_decision_does_not_depend_on_the_order_files_are_given(tmp_path: Path) -> None:
    a = turns("a", A)
    b = copies(a, B) + turns("b", B)
    c = copies(a) + turns("c", C)
    folder = folder_of(tmp_path, {A: a, B: b, C: c, D: turns("d", D)})
    summaries = [scan_main_file(p, p.name) for p in sorted(folder.glob("*.jsonl"))]
    expected = {summaries[i].session: v for i, v in decide(summaries).items()}
    for seed in range(5):
        shuffled = list(summaries)
        random.Random(seed).shuffle(shuffled)
        assert {shuffled[i].session: v for i, v in decide(shuffled).items()} == expected


def summary(session: str, label: str, records: list[str], start: str = "2026-01-01T00:00:00.000Z") -> FileSummary:
    return FileSummary(session, label, start, start, start, tuple(records), tuple(start for _ in records))


def test_two_copies_of_one_file_are_one_session_not_a_resume_of_itself() -> None:
    # The same file read from its source and from bough's archive: the same label.
    live, kept = summary(A, "L", ["r1", "r2"]), summary(A, "L", ["r1", "r2"])
    assert decide([live, kept]) == {}
    resumed = summary(B, "M", ["r1", "r2", "r3"])
    found = decide([live, kept, resumed])
    assert list(found) == [2] and found[2].parent == A and found[2].records == {"r1", "r2"}


def test_ties_go_to_the_latest_file_sharing_the_most() -> None:
    first = summary(A, "1", ["r1"], "2026-01-01T00:00:00.000Z")
    second = summary(B, "2", ["r1", "r2"], "2026-01-01T00:00:01.000Z")
    third = summary(C, "3", ["r1", "r9"], "2026-01-01T00:00:02.000Z")
    found = decide([third, first, second])
    assert found[0].parent == B and found[0].records == {"r1"}  # A and B share r1 alike: the later, B
    assert found[2].parent == A and found[2].records == {"r1"}


def test_a_summary_is_stored_and_read_back() -> None:
    one = FileSummary(A, "L", "2026-01-01T00:00:00.000Z", None, "2026-01-02T00:00:00.000Z", ("r1", "r2"),
                      ("2026-01-01T00:00:00.000Z", None))
    assert FileSummary.from_json(orjson.loads(orjson.dumps(one.to_json()))) == one
    for junk in ([], {"session": A}, {**one.to_json(), "times": [None]}, {**one.to_json(), "records": [1, 2]}):
        with pytest.raises(ValueError):
            FileSummary.from_json(junk)
    digest = Inheritance(A, frozenset({"r1", "r2"})).digest()
    assert digest == Inheritance(A, frozenset({"r2", "r1"})).digest()
    assert digest != Inheritance(B, frozenset({"r1", "r2"})).digest()
    assert digest != Inheritance(A, frozenset({"r1"})).digest()


# --- the reader ---------------------------------------------------------------------------------------


def test_the_resume_shows_a_marker_for_what_it_inherited(tmp_path: Path) -> None:
    parent = turns("a", A, 3)
    folder = folder_of(tmp_path, {A: parent, B: copies(parent, B) + turns("b", B)})
    found = inheritance(folder, B)
    session = read(folder, B, found)
    assert kinds(session) == ["marker:inherited:6", "prompt", "reply", "prompt", "reply"]
    marker = session.timeline[0]
    assert (marker.ref_session, marker.text) == (A, f"6 items of history inherited from session {A}")
    # the own items keep their anchors (a link to them stays valid whether or not the parent is there)
    assert [i.anchor for i in session.timeline[1:]] == ["p4", "r4", "p5", "r5"]
    assert [i.id for i in session.inherited_items] == [i.id for i in read(folder, A).timeline]


def test_without_an_inherited_set_nothing_changes(tmp_path: Path) -> None:
    parent = turns("a", A, 2)
    folder = folder_of(tmp_path, {A: parent, B: copies(parent, B) + turns("b", B)})
    whole = read(folder, B)
    assert read(folder, B, Inheritance(A, frozenset())).timeline == whole.timeline
    assert kinds(whole) == ["prompt", "reply"] * 4 and whole.inherited_items == []


def test_a_copied_reply_whose_tool_result_is_new_stays_whole(tmp_path: Path) -> None:
    parent = [prompt("a-u0", "run the tests", sessionId=A),
              reply("a-a0", "msg_a0", [tool_use("toolu_1", "Bash", command="pytest")], sessionId=A)]
    own = [tool_result("b-u0", "toolu_1", "3 passed", sessionId=B),
           reply("b-a0", "msg_b0", [text("All green.")], sessionId=B)]
    folder = folder_of(tmp_path, {A: parent, B: copies(parent, B) + own})
    session = read(folder, B, inheritance(folder, B))
    assert kinds(session) == ["marker:inherited:1", "reply", "reply"]
    call = session.timeline[1].blocks[0]
    assert call.id == "toolu_1" and call.result is not None and call.result.content[0].text == "3 passed"


def test_runs_of_inherited_items_each_get_a_marker(tmp_path: Path) -> None:
    # The resume's own records come between copied ones (a replay the harness wrote late).
    a = turns("a", A, 2)
    b = copies(a[:2], B) + turns("b", B, 1) + copies(a[2:], B) + turns("c", B, 1)
    folder = folder_of(tmp_path, {A: a, B: b})
    session = read(folder, B, inheritance(folder, B))
    assert kinds(session) == ["marker:inherited:2", "prompt", "reply", "marker:inherited:2", "prompt", "reply"]


def test_a_subagent_run_under_an_inherited_call_goes_with_it(tmp_path: Path) -> None:
    parent = [prompt("a-u0", "explore", sessionId=A),
              reply("a-a0", "msg_a0", [tool_use("toolu_t", "Task", description="Map", prompt="Map it")], sessionId=A),
              tool_result("a-u1", "toolu_t", "mapped", sessionId=A, detail={"agentId": "abc123", "status": "completed"})]
    folder = folder_of(tmp_path, {A: parent, B: copies(parent, B) + turns("b", B, 1)})
    agent = write_jsonl(folder / B / "subagents" / "agent-abc123.jsonl", [
        prompt("s-u0", "Map it", sessionId=B, isSidechain=True, agentId="abc123"),
        reply("s-a0", "msg_s0", [text("mapped")], sessionId=B, isSidechain=True, agentId="abc123")])
    source = ClaudeSource(folder / f"{B}.jsonl", [agent])
    session = read_claude_session(source, lambda w: None, lambda p: p.name, inheritance(folder, B))
    assert kinds(session) == ["marker:inherited:2", "prompt", "reply"] and session.orphan_subagents == []
    assert session.inherited_items[1].blocks[0].subagent.agent_id == "abc123"
    assert session.stats["subagents"] == 1


def test_stats_count_the_whole_file(tmp_path: Path) -> None:
    parent = [prompt("a-u0", "add a file and commit", sessionId=A),
              reply("a-a0", "msg_a0", [tool_use("toolu_w", "Write", file_path="/home/ada/src/app/x.py",
                                                content="x = 1\n")], sessionId=A),
              tool_result("a-u1", "toolu_w", "File created", sessionId=A, detail={"type": "create"}),
              reply("a-a1", "msg_a1", [tool_use("toolu_c", "Bash", command='git commit -am "x"')], sessionId=A),
              tool_result("a-u2", "toolu_c", "[main 1f2e3d4] x\n 1 file changed", sessionId=A)]
    folder = folder_of(tmp_path, {A: parent, B: copies(parent, B) + turns("b", B, 1)})

    def summarized(found: Inheritance | None) -> Session:
        session = read(folder, B, found)
        scrub_session(session, Redactor(b"k"))
        summarize_work(session)
        return session

    whole, deduped = summarized(None), summarized(inheritance(folder, B))
    assert deduped.stats == whole.stats and (deduped.stats["commits"], deduped.stats["files_changed"]) == (1, 1)
    assert deduped.redactions == whole.redactions
    assert (len(whole.commits), len(deduped.commits)) == (1, 0)  # the commit is shown, and listed, in A


# --- the generated history: its resumes are known ----------------------------------------------------------


def test_every_generated_resume_leaves_out_exactly_what_it_copied(tmp_path: Path) -> None:
    expected = generate_claude_history(tmp_path, seed=5, projects=4, sessions_per_project=3, turns_per_session=4)
    site = load_site(BuildConfig(sources=[tmp_path / "projects"]))
    sessions = {s.id: s for p in site.projects for s in p.sessions}
    assert len(expected.resumes) == 4 and {kept for _, _, kept in expected.resumes.values()} == {True, False}
    for resumed, (parent, copied, _) in expected.resumes.items():
        session, source = sessions[resumed], sessions[parent]
        marker = session.timeline[0]
        assert isinstance(marker, Marker) and (marker.type, marker.ref_session) == ("inherited", parent)
        # the parent's whole timeline, no more, no less; and nothing else is left out
        assert marker.count == len(source.timeline) == len(session.inherited_items)
        assert [(i.kind, i.id) for i in session.inherited_items] == [(i.kind, i.id) for i in source.timeline]
        assert not any(isinstance(i, Marker) and i.type == "inherited" for i in session.timeline[1:])
        assert uncosted(session.stats) == expected.sessions[resumed]
        summaries = [scan_main_file(p, p.name) for p in sorted((tmp_path / "projects").glob("*/*.jsonl"))
                     if p.stem in (resumed, parent)]
        (found,) = decide(summaries).values()
        assert len(found.records) == len(copied)
    assert uncosted(site.stats) == expected.site
    assert {p.cwd: uncosted(p.stats) for p in site.projects} == expected.projects


# --- builds -------------------------------------------------------------------------------------------------


def history(root: Path) -> tuple[Path, Any]:
    expected = generate_claude_history(root, seed=11, projects=2, sessions_per_project=3, turns_per_session=3,
                                       output_kb=1)
    return root / "projects", expected


def run(src: Path | list[Path], out: Path, **options: Any) -> Any:
    sources = src if isinstance(src, list) else [src]
    config = BuildConfig(sources=sources, out=out, archive=options.pop("archive", None), search=False,
                         jobs=options.pop("jobs", 1), **options)
    return build(config, redaction_key=b"k")


def sidecars(out: Path) -> dict[str, dict[str, Any]]:
    """session id -> its sidecar, as written."""
    found = {}
    for path in (out / "projects").glob("*/sessions/*.json"):
        doc = orjson.loads(path.read_bytes())
        found[doc["id"]] = doc
    return found


def fresh(src: Path | list[Path], tmp_path: Path, name: str = "fresh") -> dict[str, bytes]:
    out = tmp_path / name
    shutil.rmtree(out, ignore_errors=True)
    run(src, out)
    return tree(out)


def a_resume(src: Path, expected: Any) -> tuple[str, str, Path, Path]:
    """A generated resume whose copies took the new session id (the harder case) and its parent."""
    resumed, (parent, _, _) = next((k, v) for k, v in expected.resumes.items() if not v[2])
    return resumed, parent, next(src.glob(f"*/{resumed}.jsonl")), next(src.glob(f"*/{parent}.jsonl"))


def inherited_marker(doc: dict[str, Any]) -> dict[str, Any] | None:
    return next((i for i in doc["timeline"] if i["kind"] == "marker" and i["type"] == "inherited"), None)


def test_the_resume_page_links_to_its_parents_page(tmp_path: Path) -> None:
    src, expected = history(tmp_path / "history")
    out = tmp_path / "site"
    run(src, out)
    docs = sidecars(out)
    for resumed, (parent, _, _) in expected.resumes.items():
        marker = inherited_marker(docs[resumed])
        assert marker is not None and marker["ref_session"] == parent and marker["count"] > 0
        page = out / docs[resumed]["html"]
        html = page.read_text()
        start = html.index('class="item marker marker-inherited"')
        href = html[html.index('href="', start) + 6: html.index('"', html.index('href="', start) + 6)]
        assert (page.parent / href).resolve() == (out / docs[parent]["html"]).resolve()
        # the parent's page shows every item left out of the resume
        parent_ids = set(html_ids(out / docs[parent]["html"]))
        shown = {i["anchor"] for i in docs[parent]["timeline"] if i["kind"] in ("prompt", "reply")}
        assert shown and shown <= parent_ids
        assert inherited_marker(docs[parent]) is None


def html_ids(page: Path) -> list[str]:
    import re

    return re.findall(r'\bid="([^"]+)"', page.read_text())


def test_the_parent_page_is_what_it_would_be_alone(tmp_path: Path) -> None:
    src, expected = history(tmp_path / "history")
    _, parent, _, parent_path = a_resume(src, expected)
    run(src, tmp_path / "site")
    alone = tmp_path / "alone" / "projects" / parent_path.parent.name
    alone.mkdir(parents=True)
    shutil.copyfile(parent_path, alone / parent_path.name)
    if parent_path.with_suffix("").is_dir():
        shutil.copytree(parent_path.with_suffix(""), alone / parent_path.stem)
    run(alone, tmp_path / "site-alone")
    html = sidecars(tmp_path / "site")[parent]["html"]
    assert (tmp_path / "site" / html).read_bytes() == (tmp_path / "site-alone" / html).read_bytes()


def test_stats_are_those_of_a_build_that_shows_every_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src, _ = history(tmp_path / "history")
    run(src, tmp_path / "deduped")
    with monkeypatch.context() as patch:
        patch.setattr("bough_site.plan.lineage.decide", lambda files: {})  # nobody resumes anybody
        run(src, tmp_path / "whole")
    deduped, whole = sidecars(tmp_path / "deduped"), sidecars(tmp_path / "whole")
    assert {k: v["stats"] for k, v in deduped.items()} == {k: v["stats"] for k, v in whole.items()}
    assert all(inherited_marker(doc) is None for doc in whole.values())
    for name in ("index.json",):
        one = orjson.loads((tmp_path / "deduped" / name).read_bytes())
        two = orjson.loads((tmp_path / "whole" / name).read_bytes())
        assert one["stats"] == two["stats"] and [p["stats"] for p in one["projects"]] == [
            p["stats"] for p in two["projects"]]
    # and the output is smaller by what the resumes no longer repeat
    size = {name: sum(len(b) for b in tree(tmp_path / name).values()) for name in ("deduped", "whole")}
    assert size["deduped"] < size["whole"]


def test_no_change_rewrites_nothing(tmp_path: Path) -> None:
    src, _ = history(tmp_path / "history")
    out = tmp_path / "site"
    first = run(src, out)
    with StateStore(out) as state:
        assert any(name.endswith(".records") for name in state.names())
    age(out)
    again = run(src, out)
    assert (again.rebuilt, again.written) == (0, 0) and rewritten(out) == set()
    assert again.reused == first.rebuilt


def test_only_files_sharing_a_uuid_are_scanned_and_a_new_resume_finds_its_lone_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = turns("a", A, 3)
    folder = folder_of(tmp_path / "history", {A: parent, C: turns("c", C)})
    scanned: list[str] = []
    probed: list[str] = []
    scan, probe = claude_records.scan_main_file, claude_records.record_uuids
    monkeypatch.setattr(claude_records, "scan_main_file", lambda path, label: scanned.append(path.stem) or scan(path, label))
    monkeypatch.setattr(claude_records, "record_uuids", lambda path: probed.append(path.stem) or probe(path))
    out = tmp_path / "site"
    run(folder.parent, out)
    assert sorted(probed) == [A, C]
    assert scanned == []  # A and C share no uuid: neither is scanned, nor its summary kept
    assert sorted(s.scan[: len(ALONE)] for s in Manifest.load(out).sessions.values()) == [ALONE, ALONE]
    with StateStore(out) as state:
        assert not any(name.endswith(".records") for name in state.names())

    probed.clear()
    write_jsonl(folder / f"{B}.jsonl", copies(parent, B) + turns("b", B))  # A is resumed
    run(folder.parent, out)
    assert probed == [B]  # what the probe found in A and C is kept in the state
    assert sorted(scanned) == [A, B]  # A, alone before, shares now; C still does not
    marker = inherited_marker(sidecars(out)[B])
    assert marker is not None and (marker["ref_session"], marker["count"]) == (A, len(parent))
    with StateStore(out) as state:
        assert sum(name.endswith(".records") for name in state.names()) == 2
    assert tree(out) == fresh(folder.parent, tmp_path)

    scanned.clear()
    probed.clear()
    append(folder / f"{C}.jsonl", C)  # C changes: A's and B's kept summaries serve, C is probed again
    run(folder.parent, out)
    assert scanned == [] and probed == [C]
    with StateStore(out) as state:  # one value of uuids per file, none left over from C's earlier bytes
        assert sum(name.endswith(".uuids") for name in state.names()) == 3
    assert tree(out) == fresh(folder.parent, tmp_path)


def test_an_append_to_the_resume_rewrites_only_it(tmp_path: Path) -> None:
    src, expected = history(tmp_path / "history")
    resumed, _, resumed_path, _ = a_resume(src, expected)
    out = tmp_path / "site"
    run(src, out)
    before = sidecars(out)[resumed]
    age(out)
    append(resumed_path, resumed)
    result = run(src, out)
    assert result.rebuilt == 1
    project = before["html"].rsplit("/sessions/", 1)[0]
    sidecar = before["html"].removesuffix(".html") + ".json"
    assert rewritten(out) == {before["html"], sidecar, f"{project}/index.html", f"{project}/project.json",
                              "index.html", "index.json"}
    assert inherited_marker(sidecars(out)[resumed])["count"] == inherited_marker(before)["count"]
    assert tree(out) == fresh(src, tmp_path)


def test_an_append_to_the_parent_keeps_the_resume(tmp_path: Path) -> None:
    src, expected = history(tmp_path / "history")
    resumed, parent, _, parent_path = a_resume(src, expected)
    out = tmp_path / "site"
    run(src, out)
    resume_page = sidecars(out)[resumed]["html"]
    age(out)
    append(parent_path, parent)  # the parent goes on, and now ends after its resume
    assert run(src, out).rebuilt == 1
    assert resume_page not in rewritten(out)
    assert tree(out) == fresh(src, tmp_path)


def append(path: Path, session: str) -> None:
    last = next(orjson.loads(line) for line in reversed(path.read_bytes().splitlines())
                if line.strip().startswith(b"{") and b'"cwd"' in line)
    fields = {"cwd": last["cwd"], "sessionId": session}
    records = [prompt(f"{session}-more", "one more thing", timestamp="2027-01-01T00:00:00.000Z", **fields),
               reply(f"{session}-done", f"msg_{session}", [text("Done.")], timestamp="2027-01-01T00:00:01.000Z",
                     **fields)]
    data = path.read_bytes()
    if not data.endswith(b"\n"):  # a truncated last line: the resume was killed mid-write
        data += b"\n"
    path.write_bytes(data + b"".join(orjson.dumps(r) + b"\n" for r in records))


def test_a_deleted_parent_is_kept_and_the_resume_stays_deduped(tmp_path: Path) -> None:
    src, expected = history(tmp_path / "history")
    resumed, parent, _, parent_path = a_resume(src, expected)
    out = tmp_path / "site"
    run(src, out)
    before = tree(out)
    docs = sidecars(out)
    age(out)
    parent_path.unlink()
    shutil.rmtree(parent_path.with_suffix(""), ignore_errors=True)
    kept = run(src, out)
    assert (kept.gone, kept.rebuilt) == (1, 0)
    pages = {docs[s]["html"] for s in (parent, resumed)}
    assert not pages & rewritten(out) and all(tree(out)[page] == before[page] for page in pages)
    assert inherited_marker(sidecars(out)[resumed]) is not None
    assert run(src, out).rebuilt == 0  # and again: its summary is still there

    pruned = run(src, out, prune=True)  # now the resume is the only copy of that history: shown whole
    assert pruned.rebuilt == 1 and parent not in sidecars(out)
    after = sidecars(out)[resumed]
    assert inherited_marker(after) is None
    assert after["stats"] == docs[resumed]["stats"]
    assert tree(out) == fresh(src, tmp_path)


def test_a_parent_added_later_makes_the_resume_leave_its_history_out(tmp_path: Path) -> None:
    src, expected = history(tmp_path / "history")
    resumed, parent, _, parent_path = a_resume(src, expected)
    aside = tmp_path / "aside"
    aside.mkdir()
    shutil.move(parent_path, aside / parent_path.name)
    out = tmp_path / "site"
    run(src, out)
    assert inherited_marker(sidecars(out)[resumed]) is None
    shutil.move(aside / parent_path.name, parent_path)
    result = run(src, out)
    assert result.rebuilt == 2  # the parent, new; and the resume, whose history it now shows
    assert inherited_marker(sidecars(out)[resumed])["ref_session"] == parent
    assert tree(out) == fresh(src, tmp_path)


def test_the_same_bytes_whatever_the_number_of_workers(tmp_path: Path) -> None:
    src, _ = history(tmp_path / "history")
    run(src, tmp_path / "one", jobs=1)
    run(src, tmp_path / "two", jobs=2)
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


def test_a_resume_of_a_session_kept_only_by_the_archive(tmp_path: Path) -> None:
    # The parent is archived, then deleted by the agent: read back from the archive
    # (a file of the same label: one session), it is still the parent.
    src, expected = history(tmp_path / "history")
    resumed, parent, _, parent_path = a_resume(src, expected)
    archive = tmp_path / "archive"
    out = tmp_path / "site"
    run(src, out, archive=archive)
    first = sidecars(out)
    parent_path.unlink()
    shutil.rmtree(parent_path.with_suffix(""), ignore_errors=True)
    again = run(src, out, archive=archive)
    docs = sidecars(out)
    assert docs[parent]["kept_since"] and inherited_marker(docs[parent]) is None
    assert inherited_marker(docs[resumed]) == inherited_marker(first[resumed])
    assert again.rebuilt == 1  # the parent: now read from the archive
    run(src, tmp_path / "fresh", archive=archive)
    assert tree(out) == tree(tmp_path / "fresh")
