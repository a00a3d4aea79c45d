"""Incremental builds: what a second build reads, renders and rewrites.

Every test compares against a fresh build of the same input, so "incremental"
can never mean "different". Rewrites are told by mtimes: before each rebuild
every output's mtime is set far in the past, so any file written again shows.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from bough_site import write as write_module
from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.errors import OutputError
from bough_site.manifest import Manifest

from .helpers import (
    OLD,
    SESSION,
    age,
    append_turn,
    link_problems,
    main_file,
    make_history,
    prompt,
    reply,
    rewritten,
    run,
    sessions_of,
    text,
    tree,
    write_jsonl,
)


@pytest.fixture()
def history(tmp_path: Path) -> Path:
    return make_history(tmp_path / "history")


def fresh(src: Path, tmp_path: Path, name: str = "fresh", **options: Any) -> dict[str, bytes]:
    out = tmp_path / name
    shutil.rmtree(out, ignore_errors=True)
    run(src, out, **options)
    return tree(out)


def test_no_change_rewrites_nothing(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = run(history, out)
    assert first.rebuilt > 0 and first.reused == 0
    age(out)
    again = run(history, out)
    assert (again.rebuilt, again.reused, again.written) == (0, first.rebuilt, 0)
    assert rewritten(out) == set()
    assert again.site.stats == first.site.stats


def test_a_touched_file_with_the_same_bytes_is_not_read_again(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(history, out)
    path = next(history.glob("*/*.jsonl"))
    os.utime(path, ns=(OLD * 10**9, OLD * 10**9))
    age(out)
    again = run(history, out)
    assert again.rebuilt == 0 and rewritten(out) == set()


def test_append_one_turn_rewrites_that_session_its_project_and_the_index(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    project_dir = summary["html"].rsplit("/sessions/", 1)[0]
    age(out)
    append_turn(path)
    result = run(history, out)
    assert result.rebuilt == 1
    # and the search index, which holds the session's text: of search-index.js's
    # parts (one per project here), the grown session's alone is made again
    search = {name for name in rewritten(out) if name.startswith(("pagefind/", "search-index"))}
    parts = sorted(name for name in tree(out) if name.startswith("search-index/"))
    assert len(parts) == 2 and len(search & set(parts)) == 1 and "search-index.js" in search
    assert rewritten(out) - search == {
        summary["html"],
        summary["json"],
        f"{project_dir}/index.html",
        f"{project_dir}/project.json",
        "index.html",
        "index.json",
    }
    grown = sessions_of(out)[path.stem]
    assert grown["stats"]["prompts"] == summary["stats"]["prompts"] + 1
    assert tree(out) == fresh(history, tmp_path)


def lexed_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Sizes of the blocks Pygments lexes from now on, in this process (-j 1),
    as a new process would (no renderer kept, nothing in memory): only the
    block store in OUT can help."""
    from bough_site import jobs
    from bough_site.render import highlight
    from bough_site.render.blockstore import BlockStore

    monkeypatch.setattr(jobs, "_RENDERERS", {})
    monkeypatch.setattr(highlight._DEFAULT, "store", BlockStore(None))
    sizes: list[int] = []
    lex = highlight._highlighted

    def counting(code: str, lexer) -> str:
        sizes.append(len(code))
        return lex(code, lexer)

    monkeypatch.setattr(highlight, "_highlighted", counting)
    return sizes


def store_of(out: Path) -> Path:
    return out / ".bough-state" / "blocks" / "blocks.sqlite"


def store_rows(out: Path, sql: str) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(store_of(out)) as conn:
        return conn.execute(sql).fetchall()


def test_a_grown_session_highlights_only_what_is_new(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    lexed = lexed_blocks(monkeypatch)
    run(history, out)
    assert lexed, "the history has blocks worth storing"
    assert store_rows(out, "SELECT count(*) FROM blocks")[0][0] > 0
    path, _ = main_file(history, out)
    append_turn(path)
    lexed = lexed_blocks(monkeypatch)
    assert run(history, out).rebuilt == 1
    assert lexed == []
    assert tree(out) == fresh(history, tmp_path)
    # without the stored blocks, the same rebuild lexes them again
    store_of(out).unlink()
    append_turn(path)
    lexed = lexed_blocks(monkeypatch)
    run(history, out)
    assert lexed


def test_a_new_version_renders_every_page_and_lexes_nothing(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bough_site import options

    out = tmp_path / "site"
    run(history, out, jobs=2)  # the store is written by worker processes
    blocks = store_rows(out, "SELECT count(*) FROM blocks")[0][0]
    monkeypatch.setattr(options, "__version__", "99.0.0")  # the options digest changes: every page again
    lexed = lexed_blocks(monkeypatch)
    result = run(history, out)
    assert result.rebuilt == len(sessions_of(out)) and result.reused == 0
    assert lexed == []
    assert store_rows(out, "SELECT count(*) FROM blocks")[0][0] == blocks  # nothing collected: all still used


def test_damaged_stored_blocks_are_ignored(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(history, out)
    store = store_of(out)
    store.write_bytes(store.read_bytes()[:4096] + b"not what was stored")
    path, _ = main_file(history, out)
    append_turn(path)
    assert run(history, out).rebuilt == 1
    assert tree(out) == fresh(history, tmp_path)


def test_stored_blocks_go_with_their_session(history: Path, tmp_path: Path) -> None:
    from bough_site.render.blockstore import session_id

    out = tmp_path / "site"
    run(history, out)
    manifest = Manifest.load(out)
    used_by = {s for (s,) in store_rows(out, "SELECT DISTINCT session FROM uses")}
    assert used_by and used_by <= {session_id(key) for key in manifest.sessions}
    unused = "SELECT count(*) FROM blocks WHERE key NOT IN (SELECT key FROM uses)"
    assert store_rows(out, unused) == [(0,)]
    path, _ = main_file(history, out)
    [mine] = [session_id(k) for k, s in manifest.sessions.items() if s.summary["id"] == path.stem]
    assert mine in used_by
    path.unlink()
    run(history, out, prune=True)
    manifest = Manifest.load(out)
    used_by = {s for (s,) in store_rows(out, "SELECT DISTINCT session FROM uses")}
    assert used_by <= {session_id(key) for key in manifest.sessions} and mine not in used_by
    # (a resume of the pruned session is rendered again, whole: it may use the same blocks)
    assert store_rows(out, unused) == [(0,)]


def test_an_append_renders_only_its_own_project_page(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bough_site.render.pages import Renderer

    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    rendered: list[str] = []
    page = Renderer.project_page
    monkeypatch.setattr(Renderer, "project_page", lambda self, project, site, **kw: rendered.append(project.id)
                        or page(self, project, site, **kw))
    append_turn(path)
    run(history, out)
    assert rendered == [summary["html"].split("/")[1]]
    assert tree(out) == fresh(history, tmp_path)


def test_an_append_digests_only_its_own_projects_sessions(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the index and project pages are made of is digested again only for the
    grown session's project: the others' signatures are the last manifest's, and
    the manifest is a fresh build's, byte for byte."""
    from bough_site import stages

    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    project_id = summary["html"].split("/")[1]
    in_project = sum(1 for s in sessions_of(out).values() if s["html"].split("/")[1] == project_id)
    assert 0 < in_project < len(sessions_of(out))
    digested: list[str] = []
    parts = stages._signature_parts
    monkeypatch.setattr(stages, "_signature_parts",
                        lambda assembled, outcome: digested.append(outcome.key) or parts(assembled, outcome))
    append_turn(path)
    run(history, out)
    assert len(digested) == in_project
    fresh_out = tmp_path / "fresh"
    run(history, fresh_out)
    assert (out / ".bough-manifest.json").read_bytes() == (fresh_out / ".bough-manifest.json").read_bytes()
    assert tree(out) == tree(fresh_out)


def test_a_resume_whose_parent_is_named_otherwise_than_foreseen_links_to_its_page(tmp_path: Path) -> None:
    """A resume's page is rendered by the first pass with its parent's page foreseen
    under the parent's own name; when the parent's name turns out otherwise (the same
    file name in another folder of its project: two sessions, one name), the final
    pass renders it again, and that page replaces the first, in a fresh build as in
    an incremental one."""
    history = make_history(tmp_path / "history")
    out = tmp_path / "site"
    run(history, out)
    summaries = sessions_of(out)
    resumes = [path for path in sorted(history.glob("*/*.jsonl"))
               if path.stem in summaries and b"copied from" in (out / summaries[path.stem]["html"]).read_bytes()]
    assert resumes
    page = out / sessions_of(out)[resumes[0].stem]["html"]
    parent = re.search(rb'copied from\s*<a href="([^"]+)"', page.read_bytes()).group(1).decode()
    parent_file = next(history.glob(f"*/{parent.removesuffix('.html')}.jsonl"))
    twin = parent_file.parent.with_name(parent_file.parent.name + "-twin")
    twin.mkdir()
    (twin / parent_file.name).write_bytes(parent_file.read_bytes())

    fresh_out = tmp_path / "fresh"
    for site in (fresh_out, out):
        run(history, site)
        html = (site / sessions_of(site)[resumes[0].stem]["html"]).read_bytes()
        link = re.search(rb'copied from\s*<a href="([^"]+)"', html).group(1).decode()
        assert link != parent and (site / sessions_of(site)[resumes[0].stem]["html"]).with_name(link).is_file()
    assert tree(out) == tree(fresh_out)


def test_a_new_session_is_added_and_nothing_else_is_read(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = run(history, out)
    path, _ = main_file(history, out)
    copy = path.with_name("bbbbbbbb-0000-4000-8000-000000000000.jsonl")
    shutil.copyfile(path, copy)
    age(out)
    result = run(history, out)
    assert (result.rebuilt, result.reused) == (1, first.rebuilt)
    assert copy.stem in sessions_of(out)
    assert not any(name.startswith("projects/") and path.stem in name for name in rewritten(out))
    assert tree(out) == fresh(history, tmp_path)


def test_a_deleted_source_keeps_its_pages_until_prune(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = run(history, out)
    path, summary = main_file(history, out)
    path.unlink()
    shutil.rmtree(path.with_suffix(""), ignore_errors=True)  # its sub-agents too
    before = tree(out)
    age(out)
    kept = run(history, out)
    assert kept.gone == 1 and kept.rebuilt == 0
    assert path.stem in sessions_of(out), "a session whose transcript is gone stays listed"
    assert (out / summary["html"]).read_bytes() == before[summary["html"]]
    assert summary["html"] not in rewritten(out)
    assert kept.site.stats == first.site.stats
    # Again: still there, still nothing to read.
    assert run(history, out).gone == 1

    pruned = run(history, out, prune=True)
    assert pruned.gone == 0 and pruned.pruned >= 2
    assert path.stem not in sessions_of(out)
    assert not (out / summary["html"]).exists() and not (out / summary["json"]).exists()
    assert tree(out) == fresh(history, tmp_path)


def test_a_theme_change_rebuilds_every_session(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = run(history, out)
    theme = tmp_path / "theme"
    (theme / "static").mkdir(parents=True)
    (theme / "static" / "extra.css").write_text("body { margin: 0 }\n")
    changed = run(history, out, theme=theme)
    assert (changed.rebuilt, changed.reused) == (first.rebuilt, 0)
    assert list((out / "assets").glob("extra.*.css"))
    again = run(history, out, theme=theme)
    assert again.rebuilt == 0
    # what the build let go of the last manifest once it had read every session again
    # (Manifest.forget) took nothing from the one it saved: a fresh build's bytes
    fresh_out = tmp_path / "fresh"
    run(history, fresh_out, theme=theme)
    assert tree(out) == tree(fresh_out)
    assert (out / ".bough-manifest.json").read_bytes() == (fresh_out / ".bough-manifest.json").read_bytes()


def test_a_build_that_reads_every_session_again_lets_go_of_each_old_entry_as_it_goes(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its options changed, a build reads every session again: the last manifest's
    entry of each is let go of as it is read, not once all are (both manifests held
    at once took such a build at 18,000 sessions over 400 MB: docs/performance.md)."""
    out = tmp_path / "site"
    first = run(history, out)
    held: list[int] = []  # the last manifest's entries still held, after each unit read
    forget = Manifest.forget

    def counting(manifest: Manifest, sessions: Iterable[str], units: Iterable[str]) -> None:
        forget(manifest, sessions, units)
        held.append(len(manifest.sessions))

    monkeypatch.setattr(Manifest, "forget", counting)
    changed = run(history, out, highlight_limit=31)
    assert changed.rebuilt == first.rebuilt == 6
    assert len(held) > 1 and held[0] > 0 and held[-1] == 0 and held == sorted(held, reverse=True)
    monkeypatch.undo()
    fresh_out = tmp_path / "fresh"
    run(history, fresh_out, highlight_limit=31)
    assert tree(out) == tree(fresh_out)
    assert (out / ".bough-manifest.json").read_bytes() == (fresh_out / ".bough-manifest.json").read_bytes()


def test_a_build_without_search_after_one_with_it_takes_back_the_search_script(
        history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(history, out)
    assert list((out / "assets").glob("search.*.js"))
    run(history, out, search=False)
    assert not list((out / "assets").glob("search.*.js")), "no page names it any more"
    assert tree(out) == fresh(history, tmp_path, search=False)


def test_a_gone_sessions_page_keeps_the_assets_it_was_built_with(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    path.unlink()
    shutil.rmtree(path.with_suffix(""), ignore_errors=True)
    page = (out / summary["html"]).read_bytes()
    for _ in range(2):  # the build that turns search off, and the next with the same options
        assert run(history, out, search=False).gone == 1
        assert (out / summary["html"]).read_bytes() == page, "the gone session's page is the search build's"
        assert link_problems(tree(out)) == []
    assert list((out / "assets").glob("search.*.js"))
    run(history, out, search=False, prune=True)
    assert not list((out / "assets").glob("search.*.js"))
    assert tree(out) == fresh(history, tmp_path, search=False)


def test_an_interrupted_build_then_a_clean_one_gives_the_fresh_bytes(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    run(history, out)
    path, _ = main_file(history, out)
    append_turn(path)
    other = next(p for p in sorted(history.glob("*/*.jsonl")) if p != path and p.read_bytes().endswith(b"\n")
                 and not p.name.startswith("agent-"))
    append_turn(other)
    # Session pages are staged by the workers and committed; the site's own pages written.
    real_commit = write_module.SiteWriter.commit
    calls = [0]

    def failing(self: write_module.SiteWriter, staged: write_module.Staged) -> bool:
        calls[0] += 1
        if calls[0] > 1:
            raise OutputError("disk full (simulated)")
        return real_commit(self, staged)

    monkeypatch.setattr(write_module.SiteWriter, "commit", failing)
    with pytest.raises(OutputError):
        run(history, out)
    monkeypatch.setattr(write_module.SiteWriter, "commit", real_commit)
    assert calls[0] == 2  # one session's page committed, the next one's failed
    assert not list(out.rglob(".bough-tmp-*")), "no half-written or staged file is left behind"
    result = run(history, out)
    assert result.rebuilt == 2
    assert tree(out) == fresh(history, tmp_path)


def test_an_output_deleted_by_hand_is_made_again(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run(history, out)
    _, summary = main_file(history, out)
    (out / summary["html"]).unlink()
    result = run(history, out)
    assert result.rebuilt == 1
    assert tree(out) == fresh(history, tmp_path)


def test_a_page_gone_from_a_folder_whose_time_was_set_back_is_made_again(
        history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan takes a session's files for there, without looking, when their folder
    has the time the last build left it with (stages._presence: looking for 36,000
    files took an append at 18,000 sessions 0.15-0.2 s). A page gone all the same
    (its folder's time set back by hand) fails the keep stage and is made again."""
    out = tmp_path / "site"
    run(history, out)
    path, summary = main_file(history, out)
    looked: list[str] = []
    has_file = write_module.SiteWriter.has_file
    monkeypatch.setattr(write_module.SiteWriter, "has_file",
                        lambda writer, relpath: looked.append(relpath) or has_file(writer, relpath))
    page = out / summary["html"]
    was = page.parent.stat()
    page.unlink()
    os.utime(page.parent, ns=(was.st_atime_ns, was.st_mtime_ns))
    os.utime(path, ns=(OLD * 10**9, OLD * 10**9))  # a change the quick check sees: the build goes the whole way
    run(history, out)
    assert summary["html"] not in looked
    assert page.is_file() and tree(out) == fresh(history, tmp_path)


def test_the_same_bytes_whatever_the_number_of_workers(history: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    run(history, one, jobs=1)
    run(history, two, jobs=2)
    assert tree(one) == tree(two)
    # and incrementally: a grown session rebuilt by two workers, the rest kept
    path, _ = main_file(history, one)
    append_turn(path)
    run(history, two, jobs=2)
    assert tree(two) == fresh(history, tmp_path)


# --- against a plain render of the whole model ----------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[1] / "bough_site" / "examples"


def plain_render(sources: list[Path], out: Path) -> None:
    """The site as the simplest build would make it: the whole model in memory,
    every page rendered in order (no workers, no manifest, no first pass)."""
    from bough_site import sidecars, urls
    from bough_site.build import load_site
    from bough_site.publish import sessions_script
    from bough_site.render.pages import Renderer
    from bough_site.write import SiteWriter, json_bytes

    site = load_site(BuildConfig(sources=sources, archive=None, search=False), redaction_key=b"k")
    from bough_site.pricing import price_table

    prices = price_table(None).version  # the build prices by default (pricing.py)
    renderer = Renderer(None, search=False, prices=prices)
    links = {s.id: urls.session_html(p.id, s.slug) for p in site.projects for s in p.sessions}
    with SiteWriter(out) as writer:
        files = list(renderer.assets())
        for project in site.projects:
            for session in project.sessions:
                files += renderer.session_pages(project, session, links)
                files.append((urls.session_json(project.id, session.slug),
                              sidecars.session_bytes(project, session, prices)))
            files.append((urls.project_html(project.id), renderer.project_page(project, site)))
            files.append((urls.project_json(project.id), json_bytes(sidecars.project_json(project, prices))))
            files.append((urls.project_sessions_js(project.id), sessions_script(project)))
        files.append((urls.INDEX_HTML, renderer.index_page(site)))
        files.append((urls.INDEX_JSON, json_bytes(sidecars.site_json(site, prices))))
        written = set()
        for path, data in files:
            if path not in written:  # an image two sessions show
                written.add(path)
                writer.write(path, data)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_build_gives_the_bytes_of_a_plain_render(tmp_path: Path, jobs: int) -> None:
    """Claude and Codex examples (Codex forks link to their parents: those pages
    wait for the second pass), built by workers from summaries, byte for byte."""
    sources = [EXAMPLES / "claude" / "projects", EXAMPLES / "codex" / "sessions"]
    plain_render(sources, tmp_path / "plain")
    config = BuildConfig(sources=sources, out=tmp_path / "built", archive=None, jobs=jobs, search=False)
    build(config, redaction_key=b"k")
    assert tree(tmp_path / "built") == tree(tmp_path / "plain")


def test_two_sessions_that_would_share_a_page_name_get_their_own(tmp_path: Path) -> None:
    """The same session file name under two roots, in one project: neither gets
    the plain name, so both wait for the second pass, which knows all names."""
    roots = []
    for n in (1, 2):
        root = tmp_path / f"root{n}" / "projects"
        write_jsonl(root / "-home-ada-src-app" / f"{SESSION}.jsonl", [
            prompt(f"0000000{n}-0000-4000-8000-000000000001", f"question {n}"),
            reply(f"0000000{n}-0000-4000-8000-000000000002", f"msg_{n}", [text(f"answer {n}")]),
        ])
        roots.append(root)
    plain_render(roots, tmp_path / "plain")
    for jobs in (1, 2):
        out = tmp_path / f"built{jobs}"
        result = build(BuildConfig(sources=roots, out=out, archive=None, jobs=jobs, search=False), redaction_key=b"k")
        assert result.rebuilt == 2
        assert tree(out) == tree(tmp_path / "plain")
        pages = sorted(p.name for p in out.glob("projects/*/sessions/*.html"))
        assert len(pages) == 2 and f"{SESSION}.html" not in pages


def test_progress_is_reported_per_session_and_the_bar_draws_it(history: Path, tmp_path: Path) -> None:
    import io

    from bough_site.build import Progress
    from bough_site.cli import ProgressBar

    seen: list[Progress] = []
    config = BuildConfig(sources=[history], out=tmp_path / "site", archive=None, jobs=2, progress=seen.append)
    result = build(config, redaction_key=b"k")
    assert [p.done for p in seen] == list(range(1, result.rebuilt + 1))
    assert seen[-1].total == result.rebuilt and seen[-1].project
    again: list[Progress] = []
    config.progress = again.append
    run_twice = build(config, redaction_key=b"k")
    assert again[-1].reused == run_twice.reused == result.rebuilt

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Tty()
    bar = ProgressBar(screen)
    bar.update(Progress(1, 4, "app", 1, 0, elapsed=0.2))  # under a second: nothing yet
    assert screen.getvalue() == ""
    bar.update(Progress(2, 4, "app", 2, 0, elapsed=1.5))
    assert "2/4 sessions" in screen.getvalue() and "app" in screen.getvalue()
    bar.around(lambda line: screen.write(line + "\n"))("warning: x")
    bar.finish()
    assert screen.getvalue().endswith("warning: x\n")
