"""The bundled example history: regenerated exactly, shaped as intended, counted as
docs/stats.md says.

The expected STATS below (and the Gemini examples' GEMINI_SESSION_STATS in
helpers.py, which other test modules check too) were derived by hand from the
stories in corpus/examples.py and corpus/gemini_examples.py (the derivation is in
the comments), not by running a reader over the files.
"""

from __future__ import annotations

import json
import struct
import zlib
from base64 import b64decode
from pathlib import Path

from corpus import examples as ex
from corpus import gemini_examples as gx

from .helpers import BAD_LINES, DOTFILES, GEMINI_SESSION_STATS, NOTES, example_stats, uncosted

BUNDLED = ex.bundled_root() / "projects"
TIDEPOOL = "-home-ada-src-tidepool"


# Per session: (records, replies, prompts, commands, calls, results, errors, subagents,
#               input, output, cache_creation, cache_read, lines, skipped_lines,
#               commits, files_changed)
# Commits and files (docs/stats.md): T2's `git commit -q` is the only commit of the
# history (quiet, so no summary line; its hash 4c1e2a9 comes from the `git log -1`
# run in the same command). Files are the paths Write/Edit changed successfully:
# a rejected or failed edit changed nothing.
SESSION_STATS = {
    # T1 (1.0.113), 33 lines, all chain records: caveat + /model + stdout (3), 1 prompt,
    # 9 main replies over 19 records, 10 tool results, and the inline sidechain (its
    # prompt, 2 replies over 3 records, 1 result). The /model user record is the command;
    # the failing pytest run is the error. Inline sidechains are no sub-agent *files*.
    # Edits: tidepool/noaa.py, tidepool/format.py, tests/test_noaa.py.
    ex.T1: example_stats(33, 11, 1, 1, 10, 10, 1, 0, 63, 1681, 17657, 167243, 33, 0, 0, 3),
    # T2 (2.0.69): main file 37 lines = summary + 4 snapshots + 32 records (2 prompts,
    # 13 replies over 19 records, 11 results); agent-5e1d0c7a.jsonl 5 records (prompt,
    # 2 replies over 3 records, 1 result). The Edit that missed is the error.
    # Write cache.py; Edit noaa.py (twice; the miss changed nothing) and cli.py; the commit.
    ex.T2: example_stats(37, 15, 2, 0, 12, 12, 1, 1, 82, 2742, 19152, 228517, 42, 0, 1, 3),
    # N1 (2.1.42): 34 lines = progress + snapshot + 32 records. Prompts: the question,
    # "don't touch .env", the README request, "try again?" (the interruption marker and
    # the caveat do not count). 8 replies; the <synthetic> record is a record but no
    # reply. The command is the system/local_command /model; the rejected edit the error.
    # app/settings.py and README.md (the rejected .env edit changed nothing).
    ex.N1: example_stats(32, 8, 4, 1, 7, 7, 1, 0, 42, 1374, 13476, 139191, 34, 0, 0, 2),
    # N2 (2.1.51): the 32 records copied from N1 (same uuids, so they count here too),
    # then 1 prompt, 4 replies over 5 records, 3 results; 2 snapshots.
    # N1's two files (copied) and tests/test_settings.py.
    ex.N2: example_stats(41, 12, 5, 1, 10, 10, 1, 0, 63, 1922, 35619, 203899, 43, 0, 0, 3),
    # N3 (2.1.196): main 36 lines = 2 progress + 3 snapshots + ai-title + 30 records
    # (2 prompts, 10 replies over 12 records, 8 results, compact boundary, summary,
    # /compact and its output, 2 turn_durations); explorer 8 records (4 replies, 3
    # results); compaction agent 2 records (1 reply). /compact is the command.
    # app/db.py, app/routes/notes.py (three edits), Write tests/test_pagination.py.
    ex.N3: example_stats(40, 15, 2, 1, 11, 11, 0, 2, 77, 3662, 29843, 251887, 46, 0, 0, 3),
    # N4 (2.1.228/229): 37 lines = 3 snapshots + 1 cut-off line + 30 distinct records +
    # 3 replayed copies (same uuids; the prompt's copy has another promptId, and the
    # first copy's wins). 13 replies, 12 calls, 11 results (the cut-off Bash has none).
    # Write app/ratelimit.py and tests/test_ratelimit.py; Edit app/main.py, app/routes/notes.py, tests/conftest.py.
    ex.N4: example_stats(30, 13, 2, 0, 12, 11, 1, 0, 72, 2883, 21546, 274028, 37, 1, 0, 5),
    # D1 (2.1.118): 22 lines = 2 snapshots + 19 records + the cut-off last line.
    # zsh/exports.zsh and zsh/prompt.zsh.
    ex.D1: example_stats(19, 8, 2, 0, 6, 6, 0, 0, 80, 1299, 12896, 75133, 22, 1, 0, 2),
}

PROJECT_STATS = {
    # tidepool: T1 + T2, nothing shared.
    # Files: T1's three and T2's three share tidepool/noaa.py: 5 paths.
    f"{ex.HOME}/src/tidepool": example_stats(70, 26, 3, 1, 22, 22, 2, 1, 145, 4423, 36809, 395760, 75, 0, 1, 5),
    # notes-api: N2 holds every identity of N1, so the union is N2 + N3 + N4;
    # lines, skipped_lines and subagents add up over all four files' sessions.
    # Files: N2's 3 (N1's inside them) + N3's 3 + N4's 5, app/routes/notes.py in both N3 and N4: 10.
    f"{ex.HOME}/src/notes-api": example_stats(111, 40, 9, 2, 33, 32, 2, 2, 212, 8467, 87008, 729814, 160, 1, 0, 10),
    f"{ex.HOME}/dotfiles": example_stats(19, 8, 2, 0, 6, 6, 0, 0, 80, 1299, 12896, 75133, 22, 1, 0, 2),
}

# files_changed: the projects' counts added up (5 + 10 + 2).
SITE_STATS = example_stats(200, 74, 14, 3, 61, 60, 4, 3, 437, 14189, 136713, 1200707, 257, 2, 1, 17)


def bundled_files() -> dict[str, bytes]:
    return {path.relative_to(BUNDLED).as_posix(): path.read_bytes() for path in sorted(BUNDLED.rglob("*")) if path.is_file()}


# --- the files -------------------------------------------------------------------


def test_regenerates_byte_identical(tmp_path: Path) -> None:
    ex.write_claude_examples(tmp_path)
    written = {p.relative_to(tmp_path / "projects").as_posix(): p.read_bytes() for p in sorted((tmp_path / "projects").rglob("*")) if p.is_file()}
    bundled = bundled_files()
    assert sorted(written) == sorted(bundled), "run `python -m corpus.examples` to regenerate"
    for rel in bundled:
        assert written[rel] == bundled[rel], f"{rel} differs; run `python -m corpus.examples`"


def test_rewriting_removes_stale_files(tmp_path: Path) -> None:
    stale = tmp_path / "projects" / TIDEPOOL / "agent-deadbeef.jsonl"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}\n")
    ex.write_claude_examples(tmp_path)
    assert not stale.exists()


def test_every_line_is_a_json_object_except_the_planted_ones() -> None:
    bad = set()
    for rel, data in bundled_files().items():
        if rel.endswith(".meta.json"):
            assert isinstance(json.loads(data), dict)
            continue
        assert rel.endswith(".jsonl"), rel
        for number, line in enumerate(data.decode("utf-8").split("\n"), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError:
                bad.add((rel, number))
                continue
            assert isinstance(value, dict), (rel, number)
    assert bad == BAD_LINES


def test_only_the_dotfiles_session_ends_without_a_newline() -> None:
    unterminated = {rel for rel, data in bundled_files().items() if rel.endswith(".jsonl") and not data.endswith(b"\n")}
    assert unterminated == {f"{DOTFILES}/{ex.D1}.jsonl"}


def test_the_tree_stays_small() -> None:
    assert sum(len(data) for data in bundled_files().values()) < 300_000


def test_fake_secrets_are_planted_for_the_redaction_demo() -> None:
    notes = bundled_files()[f"{NOTES}/{ex.N1}.jsonl"].decode()
    dotfiles = bundled_files()[f"{DOTFILES}/{ex.D1}.jsonl"].decode()
    assert ex.FAKE_OPENAI_KEY.startswith("sk-proj-EXAMPLE") and ex.FAKE_OPENAI_KEY in notes
    assert ex.FAKE_AWS_KEY_ID == "AKIAIOSFODNN7EXAMPLE" and ex.FAKE_AWS_KEY_ID in dotfiles
    # The AWS key id is in a Bash output (stdout and the tool_result text).
    bash = [json.loads(line) for line in dotfiles.splitlines()[:-1] if '"stdout"' in line]
    assert any(ex.FAKE_AWS_KEY_ID in record["toolUseResult"]["stdout"] for record in bash)


def test_pasted_image_is_a_valid_png() -> None:
    records = [json.loads(line) for line in bundled_files()[f"{DOTFILES}/{ex.D1}.jsonl"].decode().splitlines()[:-1]]
    images = [
        block for record in records if record.get("type") == "user" and isinstance(record["message"]["content"], list)
        for block in record["message"]["content"] if block.get("type") == "image"
    ]  # fmt: skip
    assert len(images) == 1
    png = b64decode(images[0]["source"]["data"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, pos = {}, 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + data), kind
        chunks[kind] = data
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (width, height, depth, colour) == (8, 8, 8, 2)
    pixels = zlib.decompress(chunks[b"IDAT"])
    assert pixels == (b"\x00" + bytes(ex.SEA_GREEN) * 8) * 8


def test_sessions_are_where_claude_code_puts_them() -> None:
    files = bundled_files()
    for project, session in [(TIDEPOOL, ex.T1), (TIDEPOOL, ex.T2), (NOTES, ex.N1), (NOTES, ex.N2), (NOTES, ex.N3), (NOTES, ex.N4), (DOTFILES, ex.D1)]:
        assert f"{project}/{session}.jsonl" in files
    assert f"{TIDEPOOL}/agent-{ex.T2_AGENT}.jsonl" in files  # 2.0.x layout
    assert f"{NOTES}/{ex.N3}/subagents/agent-{ex.N3_AGENT}.jsonl" in files  # 2.1.x layout
    assert f"{NOTES}/{ex.N3}/subagents/agent-{ex.N3_AGENT}.meta.json" in files
    assert f"{NOTES}/{ex.N3}/subagents/agent-{ex.N3_COMPACT}.jsonl" in files


# --- what a reader should make of them ------------------------------------------------


def _load_site():
    from bough_site.build import load_site
    from bough_site.config import BuildConfig

    return load_site(BuildConfig(sources=[BUNDLED]))


def test_session_stats() -> None:
    site = _load_site()
    sessions = {session.id: session for project in site.projects for session in project.sessions}
    assert sorted(sessions) == sorted(SESSION_STATS)
    for session_id, expected in SESSION_STATS.items():
        assert uncosted(sessions[session_id].stats) == expected, session_id


def test_project_and_site_stats() -> None:
    site = _load_site()
    projects = {project.cwd: project for project in site.projects}
    assert sorted(projects) == sorted(PROJECT_STATS)
    for cwd, expected in PROJECT_STATS.items():
        assert uncosted(projects[cwd].stats) == expected, cwd
    assert uncosted(site.stats) == SITE_STATS


def test_planted_bad_lines_are_reported() -> None:
    site = _load_site()
    warnings = list(site.warnings) + [w for p in site.projects for s in p.sessions for w in s.warnings]
    for rel, line in BAD_LINES:
        name = rel.rsplit("/", 1)[1]
        assert any(w.line == line and w.file.endswith(name) for w in warnings), (rel, line)


# --- the Gemini CLI examples (corpus/gemini_examples.py) -------------------------------------

GEMINI = gx.bundled_root()
# Each example project holds one Gemini session: its project counts are the session's.
GEMINI_PROJECT_STATS = {gx.TIDEPOOL: GEMINI_SESSION_STATS[gx.G1], gx.ALMANAC: GEMINI_SESSION_STATS[gx.A1]}


def gemini_files() -> dict[str, bytes]:
    return {p.relative_to(GEMINI).as_posix(): p.read_bytes() for p in sorted(GEMINI.rglob("*")) if p.is_file()}


def test_gemini_examples_regenerate_byte_identical(tmp_path: Path) -> None:
    written = gx.write_gemini_examples(tmp_path / "gemini")
    assert len(written) == 4
    regenerated = {p.relative_to(tmp_path / "gemini").as_posix(): p.read_bytes()
                   for p in sorted((tmp_path / "gemini").rglob("*")) if p.is_file()}
    assert regenerated == gemini_files(), "run `python -m corpus.gemini_examples` to regenerate"
    assert sorted(regenerated) == sorted(["projects.json", gx.G1_FILE, gx.G1_AGENT_FILE, gx.A1_FILE])


def test_gemini_examples_are_where_gemini_cli_puts_them() -> None:
    files = gemini_files()
    assert json.loads(files["projects.json"]) == {"projects": {gx.TIDEPOOL: "tidepool"}}  # almanac: no entry
    assert gx.A1_FILE.startswith(f"tmp/{gx.ALMANAC_HASH}/chats/")  # a hash folder, before 0.29
    assert gx.G1_AGENT_FILE == f"tmp/tidepool/chats/{gx.G1}/{gx.G1_AGENT}.jsonl"
    assert not any(part.startswith(".") for rel in files for part in rel.split("/"))  # all shipped in the wheel


def _gemini_site():
    from bough_site.build import load_site
    from bough_site.config import BuildConfig

    return load_site(BuildConfig(sources=[GEMINI]))


def test_gemini_session_and_project_stats() -> None:
    site = _gemini_site()
    assert site.warnings == []
    assert {s.id: uncosted(s.stats) for p in site.projects for s in p.sessions} == GEMINI_SESSION_STATS
    assert {p.cwd: uncosted(p.stats) for p in site.projects} == GEMINI_PROJECT_STATS
    # tidepool's root is written in projects.json; almanac's is found by hashing the paths it reads.
    assert all(s.cwd == p.cwd for p in site.projects for s in p.sessions)


def test_a_bare_build_shows_every_agent_in_tidepool() -> None:
    from bough_site.build import load_site
    from bough_site.config import BuildConfig

    site = load_site(BuildConfig())  # no history in the isolated HOME: the bundled examples
    by_cwd = {p.cwd: p for p in site.projects}
    from bough_site.plan.units import SOURCE_OF_KIND
    from bough_site.readers.registry import READERS

    assert sorted({s.source for s in by_cwd[gx.TIDEPOOL].sessions}) == sorted(SOURCE_OF_KIND[k] for k in READERS)
    assert [s.source for s in by_cwd[gx.ALMANAC].sessions] == ["gemini-cli"]
    gemini = {s.id: uncosted(s.stats) for p in site.projects for s in p.sessions if s.source == "gemini-cli"}
    assert gemini == GEMINI_SESSION_STATS
