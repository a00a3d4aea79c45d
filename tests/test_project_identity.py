"""A project's name and id (plan/units.project_identity): the id is part of every
page's URL, so it changes only where it was wrong (issue #36): a Gemini CLI folder
named by a hash is named for what it is, and no id repeats its hash."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.plan.units import project_identity
from bough_site.readers.gemini_files import project_hash
from bough_site.slugs import slug

HASH = project_hash("/home/ada/src/moved-away")


def old_identity(cwd: str) -> dict[str, str]:
    """The id and name bough gave every project before issue #36."""
    name = posixpath.basename(cwd.rstrip("/")) or cwd or "(unknown directory)"
    project_id = f"{slug(name, max_len=40)}-{hashlib.sha256(cwd.encode('utf-8', 'replace')).hexdigest()[:8]}"
    return {"id": project_id, "name": name, "cwd": cwd}


def test_a_gemini_hash_folder_is_named_for_what_it_is() -> None:
    digest = hashlib.sha256(HASH.encode()).hexdigest()[:8]
    assert project_identity(HASH) == {"id": f"gemini-{HASH[:8]}-{digest}", "name": f"Gemini CLI project {HASH[:8]}",
                                      "cwd": HASH}
    assert old_identity(HASH)["id"].endswith(f"-{digest}-{digest}")  # the defect: the hash said twice


def test_a_long_folder_name_standing_for_its_directory_has_its_hash_once() -> None:
    folder = "a-gemini-slug-folder-whose-name-runs-past-forty-characters"
    digest = hashlib.sha256(folder.encode()).hexdigest()[:8]
    assert project_identity(folder) == {"id": f"a-gemini-slug-folder-whose-name-{digest}", "name": folder,
                                        "cwd": folder}
    assert project_identity("kiln") == old_identity("kiln")  # a short slug folder's is unchanged


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30).filter(lambda part: "/" not in part), min_size=1, max_size=4))
def test_a_real_directorys_project_keeps_its_id_and_name(parts: list[str]) -> None:
    # An absolute path (every Claude Code and Codex cwd, every Gemini root found): URLs do not move.
    cwd = "/" + "/".join(parts)
    assert project_identity(cwd) == old_identity(cwd)


def test_a_gemini_project_whose_directory_is_unknown_gets_a_short_path(isolated_home: Path, tmp_path: Path) -> None:
    # A pre-0.29 hash folder, no projects.json, no path in the session: the root cannot be found.
    chats = isolated_home / ".gemini" / "tmp" / HASH / "chats"
    chats.mkdir(parents=True)
    lines = [{"sessionId": "s-1", "projectHash": HASH, "startTime": "2026-05-04T10:00:00.000Z"},
             {"id": "u1", "timestamp": "2026-05-04T10:00:01.000Z", "type": "user", "content": "Tidy up."}]
    (chats / "session-2026-05-04T10-00-s1.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    out = tmp_path / "site"
    result = build(BuildConfig(out=out, source_filter="gemini"), redaction_key=b"test")
    [project] = result.site.projects
    assert (project.id, project.name) == (project_identity(HASH)["id"], f"Gemini CLI project {HASH[:8]}")
    assert (out / "projects" / project.id / "index.html").is_file()
    assert HASH not in project.id
