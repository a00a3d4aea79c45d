"""The words `bough` prints (issue #36, point 10): plurals, a short summary, the agents'
cleanup notice said once per OUT, `--force` named where forcing helps, `-h` and `help`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bough_site.build import BuildResult
from bough_site.cli import main, summary
from bough_site.config import BuildConfig
from bough_site.model import STAT_KEYS, UNKNOWN_TOKENS_KEY, InputWarning
from bough_site.quick import RECORD, unsaid_notes

from .helpers import SESSION, prompt, reply, text, write_jsonl


def bough(*args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, list(args))
    return outcome.exit_code, outcome.output


# --- help -------------------------------------------------------------------------------------------------


def test_dash_h_and_help_show_the_help_and_succeed() -> None:
    code, long = bough("--help")
    assert code == 0 and long.startswith("Usage: ")
    assert bough("-h") == (0, long)
    assert bough("help") == (0, long)
    code, build_help = bough("build", "--help")
    assert code == 0 and "--force" in build_help
    assert bough("build", "-h") == (0, build_help)
    assert bough("help", "build") == (0, build_help)
    code, said = bough("help", "nothing")
    assert code == 2 and "No such command 'nothing'." in said


# --- the summary --------------------------------------------------------------------------------------------


def stats(**values: int) -> dict[str, int]:
    return {key: values.get(key, 0) for key in STAT_KEYS}


def test_one_of_each_is_said_in_the_singular(tmp_path: Path) -> None:
    result = BuildResult(tmp_path, projects=1, sessions=1, rebuilt=1, written=1,
                         stats=stats(prompts=1, replies=1, tool_calls=1, input_tokens=1, output_tokens=1),
                         warnings=[InputWarning("f", 1, "x")])
    assert summary(result, BuildConfig(out=tmp_path)).splitlines() == [
        "Built 1 project and 1 session: 1 prompt, 1 reply, 1 tool call.",
        "Tokens: 1 in, 1 out, 0 cache writes, 0 cache reads.",
        "Sessions: 1 rebuilt. Files: 1 written, 0 unchanged. 1 warning.",
        f"Open {(tmp_path / 'index.html').resolve().as_uri()}",
    ]


def test_the_longest_summary_is_six_lines(tmp_path: Path) -> None:
    # Everything a summary can say at once: the examples, replies of unknown tokens,
    # sessions of every kind, pruned files, redaction off, the cleanup notice.
    result = BuildResult(tmp_path, projects=2, sessions=1_234, used_examples=True, rebuilt=3, reused=1_200,
                         gone=20, archived_only=11, written=40, unchanged=5, kept=7, pruned=2,
                         stats=stats(prompts=5, replies=2_000, tool_calls=0) | {UNKNOWN_TOKENS_KEY: 2}
                         | {"sessions_with_unknown_input_tokens": 3, "sessions_with_unknown_reasoning_output_tokens": 4},
                         warnings=[InputWarning("f", 1, "x"), InputWarning("f", 2, "y")],
                         notes=["Claude Code deletes transcripts after 30 days (its default) and Gemini CLI "
                                "deletes sessions after 30 days (its default); bough's archive keeps them."])
    lines = summary(result, BuildConfig(out=tmp_path, redact=False)).splitlines()
    assert lines == [
        "No history of any agent bough reads found here, so bough built its bundled examples: "
        "2 projects and 1,234 sessions, 5 prompts, 2,000 replies, 0 tool calls.",
        "Tokens: 0 in, 0 out, 0 cache writes, 0 cache reads (and 2 replies whose tokens are unknown); "
        "not all the tokens of 4 sessions are recorded, so these sums leave them out.",
        "Sessions: 3 rebuilt, 1,200 reused unchanged, 20 kept whose transcript is gone, 11 only in bough's archive "
        "(the original is deleted). Files: 40 written, 12 unchanged, 2 pruned. "
        "2 warnings (the examples' damage, on purpose).",
        "Redaction is OFF (--no-redact): secrets in transcripts are in the output.",
        result.notes[0],
        f"Open {(tmp_path / 'index.html').resolve().as_uri()}",
    ]


# --- the cleanup notice, once per OUT -----------------------------------------------------------------------


def claude_history(home: Path) -> None:
    write_jsonl(home / ".claude" / "projects" / "-home-ada-app" / f"{SESSION}.jsonl",
                [prompt("u1", "hello"), reply("a1", "m1", [text("hi")])])


def test_the_cleanup_notice_is_said_once_per_out_and_again_when_it_changes(isolated_home: Path,
                                                                             tmp_path: Path) -> None:
    claude_history(isolated_home)
    out, other = tmp_path / "site", tmp_path / "other"
    deletes = "Claude Code deletes transcripts after 30 days (its default: there is no"
    first = bough("build", "-q", "-o", str(out))
    assert first[0] == 0 and first[1].count(deletes) == 1, first[1]
    assert len(json.loads((out / RECORD).read_bytes())["notes"]) == 1
    again = bough("build", "-q", "-o", str(out))
    assert again[0] == 0 and "deletes" not in again[1] and again[1].startswith("Built 1 project and 1 session")
    assert bough("build", "-q", "-o", str(other))[1].count(deletes) == 1  # another OUT is told too
    settings = isolated_home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"cleanupPeriodDays": 1}))
    changed = bough("build", "-q", "-o", str(out))  # a notice that says something new is said
    assert changed[0] == 0 and changed[1].count("Claude Code deletes transcripts after 1 day (cleanupPeriodDays") == 1
    assert "deletes" not in bough("build", "-q", "-o", str(out))[1]


def test_notes_said_are_remembered_in_outs_record_and_a_damaged_record_says_them_again(tmp_path: Path) -> None:
    notes = ["A.", "B."]
    assert unsaid_notes(tmp_path, []) == []
    assert unsaid_notes(tmp_path, notes) == notes
    assert unsaid_notes(tmp_path, notes) == []
    assert unsaid_notes(tmp_path, ["B.", "C."]) == ["C."]
    record = tmp_path / RECORD
    assert len(json.loads(record.read_bytes())["notes"]) == 3
    record.write_bytes(b"{not json")
    assert unsaid_notes(tmp_path, notes) == notes


def test_a_record_that_is_a_link_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"mine")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / RECORD).symlink_to(target)
    assert unsaid_notes(tmp_path / "out", ["A."]) == ["A."]
    assert target.read_bytes() == b"mine"


def test_a_whole_build_keeps_the_notes_said_and_the_quick_way_stays_open(isolated_home: Path,
                                                                         tmp_path: Path) -> None:
    # The notice, once said, stays said through builds that go the whole way (a new
    # session) and quick ones; saying it rewrites only the record, in place.
    claude_history(isolated_home)
    out = tmp_path / "site"
    assert "Claude Code deletes" in bough("build", "-q", "-o", str(out))[1]
    before = json.loads((out / RECORD).read_bytes())
    write_jsonl(isolated_home / ".claude" / "projects" / "-home-ada-app" / "22222222-2222-4222-8222-222222222222.jsonl",
                [prompt("u9", "more"), reply("a9", "m9", [text("ok")])])
    grown = bough("build", "-q", "-o", str(out))
    assert grown[1].startswith("Built 1 project and 2 sessions") and "deletes" not in grown[1]
    after = json.loads((out / RECORD).read_bytes())
    assert after["notes"] == before["notes"] and after["inputs"] != before["inputs"]


# --- --force ------------------------------------------------------------------------------------------------


def test_a_refused_out_names_force(isolated_home: Path, tmp_path: Path) -> None:
    claude_history(isolated_home)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("not bough's")
    code, said = bough("build", "-q", "--no-archive", "-o", str(out))
    assert code == 1
    assert said == (f"bough: the output directory {out} is not empty and was not made by bough (it has no "
                    ".bough-site file); choose an empty or new directory, or force bough to write into it (--force)\n")
    assert bough("build", "-q", "--no-archive", "--force", "-o", str(out))[0] == 0
