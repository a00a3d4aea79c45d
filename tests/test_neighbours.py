"""The next and previous session (issue #36, point 3) as the build writes them: each
project's ``sessions.js`` lists its sessions oldest first, written with the project
page, so a session page depends on no other session's title. A new session rewrites
the project's files and its own page, never its neighbours' pages; the incremental
build gives the bytes of a fresh one, with one worker or two. (What the page's script
does with it: tests/test_session_browser.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bough_site import urls

from .helpers import age, prompt, reply, rewritten, run, text, tree, write_jsonl

FOLDER = "-home-ada-src-app"
HEAD = b"/* bough: this project's sessions, oldest first: [page, title, date] (bough_site/publish.py) */\n" \
    b"window.BOUGH_SESSIONS = "


def add_session(src: Path, n: int, asked: str, day: str) -> str:
    sid = f"{n:08d}-0000-4000-8000-000000000000"
    fields = {"sessionId": sid, "timestamp": f"{day}T10:00:00.000Z"}
    write_jsonl(src / FOLDER / f"{sid}.jsonl", [
        prompt(f"{n:08d}-0000-4000-8000-000000000001", asked, **fields),
        reply(f"{n:08d}-0000-4000-8000-000000000002", f"msg_{n}", [text(f"answer {n}")], **fields),
    ])
    return sid


def sessions_js(out: Path) -> tuple[str, list[list[str]]]:
    [path] = out.glob("projects/*/sessions.js")
    data = path.read_bytes()
    assert data.startswith(HEAD) and data.endswith(b";\n")
    return path.relative_to(out).as_posix(), json.loads(data[len(HEAD):-2])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_new_session_rewrites_its_project_files_never_its_neighbours(tmp_path: Path, jobs: int) -> None:
    src, out = tmp_path / "projects", tmp_path / "site"
    first = add_session(src, 1, "the first question", "2026-01-05")
    # Written out of order: the list is in the order of time, not of files.
    third = add_session(src, 3, "the third question", "2026-01-20")
    run(src, out, jobs=jobs)
    path, listed = sessions_js(out)
    project = path.split("/")[1]
    assert listed == [[f"sessions/{first}.html", "the first question", "2026-01-05"],
                      [f"sessions/{third}.html", "the third question", "2026-01-20"]]
    for sid in (first, third):  # each page names itself as the list does
        page = (out / urls.session_html(project, sid)).read_text()
        assert f'data-bough-neighbours="sessions/{sid}.html"' in page and '<script src="../sessions.js" defer>' in page

    age(out)
    second = add_session(src, 2, "the second question", "2026-01-12")
    run(src, out, jobs=jobs)
    assert sessions_js(out)[1] == [[f"sessions/{first}.html", "the first question", "2026-01-05"],
                                   [f"sessions/{second}.html", "the second question", "2026-01-12"],
                                   [f"sessions/{third}.html", "the third question", "2026-01-20"]]
    again = rewritten(out)
    assert urls.session_html(project, first) not in again and urls.session_html(project, third) not in again
    assert {path, urls.project_html(project), urls.project_json(project), urls.session_html(project, second),
            urls.INDEX_HTML} <= again

    fresh = tmp_path / "fresh"
    run(src, fresh, jobs=jobs)
    assert tree(fresh) == tree(out)


def test_a_build_with_nothing_new_keeps_sessions_js(tmp_path: Path) -> None:
    src, out = tmp_path / "projects", tmp_path / "site"
    add_session(src, 1, "a question", "2026-01-05")
    run(src, out)
    age(out)
    run(src, out)
    assert rewritten(out) == set()
    assert sessions_js(out)[1][0][1] == "a question"
    # Gone by hand: made again.
    (out / sessions_js(out)[0]).unlink()
    run(src, out)
    assert sessions_js(out)[1][0][1] == "a question"
