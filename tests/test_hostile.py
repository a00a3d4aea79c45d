"""The hostile corpus (corpus.hostile): each case alone, then all at once
through the real command line, plus redaction end to end.

Each case is read alone with ``load_site`` and must give exactly the warnings the
corpus booked (``file:line`` and how the reason starts), keep every good marker
in the session sidecars, and never raise or hang.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from bough_site import sidecars
from bough_site.build import build, load_site
from bough_site.config import BuildConfig
from corpus.hostile import (
    FS_CASES,
    HOSTILE_SESSIONS,
    LINE_CASES,
    NAME_CASES,
    HostileCase,
    HostileExpected,
    write_hostile_history,
)
from bough_site.model import Prompt, Reply, Site, Text, ToolCall
from bough_site.readers.lines import CUT_TEXT, MAX_DEPTH
from bough_site.redact import Redactor
from bough_site.slugs import slug

from .helpers import (
    KEY,
    SESSION,
    csp_problems,
    deadline,
    leaks,
    prompt,
    reply,
    text,
    tool_result,
    tool_use,
    write_jsonl,
)

SAFE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
MAX_RSS_KB = 600 * 1024


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> HostileExpected:
    """Every case but the 50 MB line, written once for the module."""
    return write_hostile_history(tmp_path_factory.mktemp("hostile"), huge=False)


def load(folder: Path) -> tuple[Site, bytes]:
    """The model of one folder and its session sidecars as written (orjson must take them)."""
    with deadline(60):
        site = load_site(BuildConfig(sources=[folder]), redaction_key=KEY)
    data = b"".join(sidecars.session_bytes(p, s) for p in site.projects for s in p.sessions)
    return site, data


def assert_case(case: HostileCase, site: Site, data: bytes) -> None:
    lines = sorted((w.file, w.line, w.reason) for w in site.warnings if w.line)
    expected = sorted(case.warn_lines)
    assert [(f, n) for f, n, _ in lines] == [(f, n) for f, n, _ in expected]
    for (_, _, reason), (_, _, start) in zip(lines, expected):
        assert reason.startswith(start), (reason, start)
    whole = sorted((w.file, w.reason) for w in site.warnings if not w.line)
    assert len(whole) == len(case.file_warnings), whole
    for (file, reason), (want_file, start) in zip(whole, sorted(case.file_warnings)):
        assert file == want_file and reason.startswith(start), (file, reason)
    missing = [m for m in case.good if m.encode() not in data]
    assert missing == []


def sessions(site: Site) -> list:
    return [s for p in site.projects for s in p.sessions]


def texts(site: Site) -> list[str]:
    """Every Text of every prompt and reply, in timeline order."""
    out = []
    for session in sessions(site):
        for item in session.timeline:
            blocks = item.content if isinstance(item, Prompt) else item.blocks if isinstance(item, Reply) else []
            out += [b.text for b in blocks if isinstance(b, Text)]
    return out


# --- one case at a time -------------------------------------------------------------------

ALONE = [name for name in LINE_CASES if name != "huge-line"] + ["uuid-collision"]


@pytest.mark.parametrize("name", ALONE)
def test_each_input_case_warns_exactly_and_keeps_every_good_record(hostile: HostileExpected, name: str) -> None:
    case = hostile.cases[name]
    site, data = load(case.folder)
    assert_case(case, site, data)


def test_the_bad_cases_do_warn(hostile: HostileExpected) -> None:
    # The table above must not pass because a case booked nothing.
    counts = {name: len(hostile.cases[name].warn_lines) for name in ALONE}
    assert counts == {
        "truncated-middle": 1, "truncated-end": 1, "appending": 1, "not-objects": 8, "invalid-utf8": 3,
        "lone-surrogates": 3, "nul-bytes": 2, "bom": 0, "crlf": 1, "blank-lines": 0, "deep-nesting": 3,
        "duplicate-keys": 0, "content-shapes": 0, "record-types": 0, "timestamps": 7, "parent-cycles": 0,
        "empty-file": 0, "markup": 0, "uuid-collision": 0,
    }


def test_a_bom_on_the_first_line_keeps_the_first_record(hostile: HostileExpected) -> None:
    site, _ = load(hostile.cases["bom"].folder)
    assert texts(site)[:2] == ["GOOD-bom-001", "GOOD-bom-002"]
    assert site.warnings == []


def test_lone_surrogates_become_replacement_characters_and_valid_pairs_stay(hostile: HostileExpected) -> None:
    site, data = load(hostile.cases["lone-surrogates"].folder)
    # The reader's rule: a lone surrogate's three UTF-8 bytes each become U+FFFD.
    lost = "\ufffd" * 3
    assert [f"GOOD-lone-surrogates-003 {lost}", f"GOOD-lone-surrogates-006 {lost} tail"] == [
        t for t in texts(site) if t.startswith(("GOOD-lone-surrogates-003", "GOOD-lone-surrogates-006"))]
    [call] = [b for s in sessions(site) for r in s.timeline if isinstance(r, Reply) for b in r.blocks
              if isinstance(b, ToolCall)]
    assert call.input == {lost: f"\U0001f600 {lost}"}
    assert b"\\ud8" not in data and b"\\udc" not in data


def test_nul_bytes_raw_and_escaped(hostile: HostileExpected) -> None:
    site, _ = load(hostile.cases["nul-bytes"].folder)
    shown = texts(site)
    assert "GOOD-nul-bytes-003 raw\x00nul" in shown
    assert "GOOD-nul-bytes-006 escaped\x00nul" in shown


def test_deep_nesting_is_cut_not_lost(hostile: HostileExpected) -> None:
    site, data = load(hostile.cases["deep-nesting"].folder)
    [call] = [b for s in sessions(site) for r in s.timeline if isinstance(r, Reply) for b in r.blocks
              if isinstance(b, ToolCall)]
    depth, node = 0, call.input
    while isinstance(node, (dict, list)):
        node = node["k"] if isinstance(node, dict) else node[0]
        depth += 1
    # The record is depth 1, message 2, content 3, the block 4, its input 5.
    assert (node, depth) == (CUT_TEXT, MAX_DEPTH - 4)
    assert CUT_TEXT.encode() in data


def test_duplicate_keys_take_the_last_value(hostile: HostileExpected) -> None:
    site, data = load(hostile.cases["duplicate-keys"].folder)
    assert b"shadowed by the later key" not in data
    assert [t for t in texts(site) if t in ("GOOD-duplicate-keys-003", "GOOD-duplicate-keys-004")] == [
        "GOOD-duplicate-keys-003", "GOOD-duplicate-keys-004"]


def test_unknown_and_odd_record_types_are_skipped_quietly(hostile: HostileExpected) -> None:
    site, data = load(hostile.cases["record-types"].folder)
    assert b"unknown type: not shown" not in data
    assert site.warnings == []


def test_timestamps_missing_zoneless_and_unparsable(hostile: HostileExpected) -> None:
    site, _ = load(hostile.cases["timestamps"].folder)
    [session] = sessions(site)
    times = {item.content[0].text: item.timestamp for item in session.timeline if isinstance(item, Prompt)}
    assert times["GOOD-timestamps-003"] is None  # absent
    assert times["GOOD-timestamps-004"] is None  # null
    assert times["GOOD-timestamps-005"] == "2026-03-01T11:00:00.000Z"  # no zone: UTC
    # Year 1 at +01:00 and 9999 at -01:00 are outside what UTC can hold: no time, no crash.
    assert times["GOOD-timestamps-026"] is None and times["GOOD-timestamps-029"] is None
    assert times["GOOD-timestamps-008"] is None  # "yesterday"
    assert (session.started, session.ended) == ("2026-03-01T10:00:01.000Z", "2026-03-01T11:00:00.000Z")


def test_uuid_collisions_across_files_keep_both_sessions(hostile: HostileExpected) -> None:
    site, _ = load(hostile.cases["uuid-collision"].folder)
    found = sorted((s.id, tuple(t.text for i in s.timeline for t in getattr(i, "content", getattr(i, "blocks", []))
                                if isinstance(t, Text))) for s in sessions(site))
    assert found == [
        ("c0111111-0000-4000-8000-000000000001",
         ("GOOD-uuid-collision-001", "GOOD-uuid-collision-002", "GOOD-uuid-collision-003", "GOOD-uuid-collision-004")),
        ("c0222222-0000-4000-8000-000000000002",
         ("GOOD-uuid-collision-005", "GOOD-uuid-collision-006", "GOOD-uuid-collision-007", "GOOD-uuid-collision-008")),
    ]


def test_an_empty_file_warns_and_its_neighbour_is_read(hostile: HostileExpected) -> None:
    site, _ = load(hostile.cases["empty-file"].folder)
    assert [str(w) for w in site.warnings] == [
        f"{hostile.cases['empty-file'].file_warnings[0][0]}: empty file"]
    assert texts(site) == ["GOOD-empty-file-001", "GOOD-empty-file-002"]


def test_the_fifty_megabyte_line(tmp_path: Path) -> None:
    expected = write_hostile_history(tmp_path, cases=["huge-line"])
    case = expected.cases["huge-line"]
    site, data = load(case.folder)
    assert_case(case, site, data)
    [call] = [b for s in sessions(site) for r in s.timeline if isinstance(r, Reply) for b in r.blocks
              if isinstance(b, ToolCall)]
    [output] = call.result.content
    assert output.text.startswith("GOOD-huge-line-004\n") and len(output.text) > 50 * 1024 * 1024


def test_a_session_appended_to_while_it_is_read(tmp_path: Path) -> None:
    """The agent keeps writing: what was there when reading began is all kept, and at
    most the one line the snapshot cut in half warns."""
    folder = tmp_path / "projects" / "-live"
    path = write_jsonl(folder / f"{SESSION}.jsonl", [prompt(f"u{i}", f"GOOD-live-{i:04d}") for i in range(2000)])
    stop = threading.Event()

    def agent() -> None:
        with path.open("ab", buffering=0) as handle:
            number = 0
            while not stop.is_set():
                line = orjson.dumps(prompt(f"late{number}", f"LATE-{number}"))
                handle.write(line[:25])  # half a line, then the rest: a reader may see either
                handle.write(line[25:] + b"\n")
                number += 1

    writer = threading.Thread(target=agent, daemon=True)
    writer.start()
    try:
        site, data = load(folder)
    finally:
        stop.set()
        writer.join()
    assert [m for m in (f"GOOD-live-{i:04d}" for i in range(2000)) if m.encode() not in data] == []
    assert len(site.warnings) <= 1
    assert all(w.reason.startswith("truncated last line") for w in site.warnings)


# --- the file system ---------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in FS_CASES if n != "unreadable"])
def test_each_odd_entry_is_one_warning_and_never_a_session(hostile: HostileExpected, name: str) -> None:
    case = hostile.cases[name]
    site, data = load(case.folder)  # under a deadline: a FIFO must never be opened
    assert_case(case, site, data)
    assert len(sessions(site)) == 1


def test_an_unreadable_file_warns(hostile: HostileExpected, monkeypatch: pytest.MonkeyPatch) -> None:
    case = hostile.cases["unreadable"]
    [(label, _)] = case.file_warnings
    real_open = os.open

    def refuse(path, *args, **kwargs):  # root reads anything: refuse the way a user is refused
        if str(path).endswith(label.split("/")[-1]):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    site, data = load(case.folder)
    case_without_records = HostileCase(case.name, case.folder, [], [], case.file_warnings)
    assert_case(case_without_records, site, data)
    assert sessions(site) == []


@pytest.mark.parametrize("name", NAME_CASES)
def test_hostile_directory_and_session_names(hostile: HostileExpected, name: str) -> None:
    case = hostile.cases[name]
    site, data = load(case.folder)
    assert_case(case, site, data)
    [project] = site.projects
    assert project.cwd == case.cwd
    assert SAFE_NAME.match(project.id) and ".." not in project.id and len(project.id) <= 49
    slugs = [s.slug for s in project.sessions]
    assert all(SAFE_NAME.match(s) and ".." not in s for s in slugs)
    assert len({s.casefold() for s in slugs}) == len(slugs)
    count = len(HOSTILE_SESSIONS) if name == "session-names" else 1
    assert len(slugs) == count


def test_a_name_that_is_not_utf8_is_shown_with_replacement_characters(hostile: HostileExpected) -> None:
    site, data = load(hostile.cases["name-bytes"].folder)
    [session] = sessions(site)
    assert session.files == ["-home-u-bytes-\ufffd\ufffd/\ufffd\ufffd-session.jsonl"]
    assert session.id == "\ufffd\ufffd-session"
    assert session.slug == slug("\ufffd\ufffd-session") and SAFE_NAME.match(session.slug)
    assert b"\xef\xbf\xbd\xef\xbf\xbd-session" in data


# --- secrets -----------------------------------------------------------------------------------


def test_compressed_state_is_searched_too(tmp_path: Path) -> None:
    from bough_site.render.blockstore import BlockStore, store_path
    from bough_site.render.highlight import highlight, highlighting
    from bough_site.render.highlight_budget import WRITTEN

    store = BlockStore(store_path(tmp_path))
    with highlighting(store=store) as used:
        highlight("token = 'planted-in-the-cache'\n" * 40, kind=WRITTEN, filename="x.py")
    store.record("s", used)
    store.close()
    stored = store_path(tmp_path).read_bytes()
    assert b"planted" not in stored  # only the decompressed bytes hold it
    assert set(leaks(tmp_path, ["planted-in-the-cache"])) == {
        (".bough-state/blocks/blocks.sqlite", "planted-in-t")
    }


def test_a_warning_about_the_secrets_project_does_not_name_its_secret(hostile: HostileExpected) -> None:
    case = hostile.cases["secrets"]
    site, data = load(case.folder)
    assert [m for m in case.good if m.encode() not in data] == []
    [(label, line, start)] = case.warn_lines
    [warning] = site.warnings
    assert (warning.line, warning.reason.startswith(start)) == (line, True)
    # The label holds the project directory's name, the mangled cwd with its token.
    assert warning.file == Redactor(KEY).text(label) != label


def test_the_planted_secrets_never_reach_an_output_byte(hostile: HostileExpected, tmp_path: Path) -> None:
    case = hostile.cases["secrets"]
    out = tmp_path / "out"
    with deadline(60):
        result = build(BuildConfig(sources=[case.folder], out=out), redaction_key=KEY)
    assert leaks(out, list(hostile.secrets)) == []
    [session] = sessions(result.site)
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    kinds = sorted({kind for kind in hostile.secrets.values()})
    assert [k for k in kinds if f"[redacted: {k} ".encode() not in written] == []
    assert set(session.redactions) == set(kinds)


def test_secrets_in_ids_versions_models_and_file_names_are_redacted(tmp_path: Path) -> None:
    token = "gh" + "p_" + "Z" * 30 + "abc123"
    aws = "AK" + "IA" + "ZXCVBNMASDFGHJKL"
    folder = tmp_path / "projects" / "-p"
    write_jsonl(folder / f"{token}.jsonl", [
        prompt(f"id-{token}", "GOOD-ids-1", version=token),
        reply("a1", f"msg-{token}", [text("GOOD-ids-2"), tool_use(f"toolu-{token}", "Task", prompt="p")],
              model=f"claude-{aws}"),
        tool_result("r1", f"toolu-{token}", "GOOD-ids-3", detail={"agentId": "abc"}),
    ])
    write_jsonl(folder / token / "subagents" / "agent-abc.jsonl", [
        prompt("s1", "p", isSidechain=True, agentId="abc", version=token),
        reply("s2", "sm1", [text("GOOD-ids-4")], isSidechain=True, agentId="abc", model=f"claude-{aws}"),
    ])
    out = tmp_path / "out"
    result = build(BuildConfig(sources=[tmp_path / "projects"], out=out), redaction_key=KEY)
    fingerprint = Redactor(KEY).fingerprint
    [session] = sessions(result.site)
    assert session.id == f"[redacted: github-token {fingerprint(token)}]"
    assert session.versions == [session.id, "2.1.80"]
    assert session.models == [f"claude-[redacted: aws-access-key {fingerprint(aws)}]"]
    data = b"".join(p.read_bytes() for p in out.rglob("*.json"))
    assert [m for m in ("GOOD-ids-1", "GOOD-ids-2", "GOOD-ids-3", "GOOD-ids-4") if m.encode() not in data] == []
    assert leaks(out, [token, aws]) == []


# --- all at once, through the command line --------------------------------------------------


def snapshot(folder: Path, skip: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under folder (not following links), but skip: mode, size, mtime."""
    seen = {}
    for top, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if Path(top, d) != skip]
        for name in dirs + files:
            info = os.lstat(Path(top, name))
            seen[os.path.relpath(Path(top, name), folder)] = (info.st_mode, info.st_size, info.st_mtime_ns)
    return seen


def test_bough_build_over_the_whole_hostile_corpus(tmp_path: Path) -> None:
    base = tmp_path / "base"  # holds the input and OUT: nothing else may appear or change here
    expected = write_hostile_history(base / "root")
    out = base / "out"
    before = snapshot(base, out)
    returncode, stderr, max_rss_kb = run_measured(
        [sys.executable, "-m", "bough_site.cli", "build", str(expected.projects), "-o", str(out)], cwd=base)
    assert returncode == 0, stderr[-3000:]
    assert [f"{f}:{n}" for f, n in expected.warnings if f"warning: {f}:{n}: " not in stderr] == []
    assert [f for f, r in expected.file_warnings if f"warning: {f}: {r}" not in stderr] == []
    data = b"".join(p.read_bytes() for p in (out / "projects").rglob("*.json"))
    assert [m for m in expected.good if m.encode() not in data] == []
    assert leaks(out, list(expected.secrets)) == []
    assert snapshot(base, out) == before
    assert sorted(os.listdir(base)) == ["out", "root"]
    assert [p for page in out.rglob("*.html") for p in csp_problems(page.read_text("utf-8"))] == []
    assert 0 < max_rss_kb < MAX_RSS_KB


# Runs the command in a process forked from this small one: wait4 on a process that
# the test run started (vfork and exec: subprocess's way) reports the test run's own
# peak too, since exec keeps the largest resident size of the memory it replaced.
_MEASURED = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_pid, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(args: list[str], cwd: Path) -> tuple[int, str, int]:
    """Run a command to its end: its exit code, its stderr, and the largest resident
    size (KB) of it and of the processes it waited for (its workers), from wait4 in
    a process of its own, not from what the test run itself or its other children used."""
    rss = cwd.parent / "max-rss.txt"
    with open(cwd.parent / "stderr.txt", "w+b") as err:
        proc = subprocess.Popen([sys.executable, "-c", _MEASURED, str(rss), *args], cwd=cwd,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        timer = threading.Timer(300, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        try:
            proc.wait()
        finally:
            timer.cancel()
        err.seek(0)
        return proc.returncode, err.read().decode("utf-8", "replace"), int(rss.read_text()) if rss.is_file() else 0


# --- redaction end to end -------------------------------------------------------------------


def _secret_history(root: Path, home: Path) -> dict[str, str]:
    """One session with three kinds of fake secret, one of them in two places."""
    github = "gh" + "p_" + "Q7w2E9r4T1y6U3i8O5p0A2s7D4f9G1h6J3k8"
    aws = "AK" + "IA" + "QWERTYUIOPASDFGH"
    password = "horse-" + "battery-staple-93"
    cwd = f"{home}/src/app"
    write_jsonl(root / "projects" / "-app" / f"{SESSION}.jsonl", [
        {"type": "custom-title", "customTitle": "Deploy"},  # else the first prompt, secret and all, is the title
        prompt("u1", f"deploy with {github} from {home}/src/app/deploy.sh", cwd=cwd),
        reply("a1", "m1", [text(f"Using AWS key {aws}"),
                           tool_use("t1", "Bash", command=f"export DB_PASSWORD={password}")], cwd=cwd),
        tool_result("r1", "t1", f"token was {github}", cwd=cwd),
    ])
    return {"github": github, "aws": aws, "password": password}


def cli_build(root: Path, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bough_site.cli", "build", str(root / "projects"), "-o", str(out),
                           *flags], capture_output=True, text=True, timeout=120, check=False)


def session_sidecar(out: Path) -> dict:
    [path] = (out / "projects").glob("*/sessions/*.json")
    return orjson.loads(path.read_bytes())


def test_redaction_counts_by_kind_and_labels_a_secret_the_same_everywhere(tmp_path: Path, isolated_home: Path) -> None:
    secrets = _secret_history(tmp_path, isolated_home)
    run = cli_build(tmp_path, tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert "Redaction is OFF" not in run.stderr
    doc = session_sidecar(tmp_path / "out")
    assert doc["redactions"] == {"aws-access-key": 1, "env-secret": 1, "github-token": 2}
    fingerprint = Redactor(KEY).fingerprint
    label = f"[redacted: github-token {fingerprint(secrets['github'])}]"
    raw = orjson.dumps(doc).decode()
    assert raw.count(label) == 2
    assert f"[redacted: aws-access-key {fingerprint(secrets['aws'])}]" in raw
    assert f"DB_PASSWORD=[redacted: env-secret {fingerprint(secrets['password'])}]" in raw
    assert leaks(tmp_path / "out", list(secrets.values())) == []


def test_no_redact_puts_the_secrets_back_and_says_so(tmp_path: Path, isolated_home: Path) -> None:
    secrets = _secret_history(tmp_path, isolated_home)
    run = cli_build(tmp_path, tmp_path / "out", "--no-redact")
    assert run.returncode == 0, run.stderr
    assert "Redaction is OFF (--no-redact): secrets in transcripts are in the output." in run.stderr
    doc = session_sidecar(tmp_path / "out")
    assert doc["redactions"] == {}
    raw = orjson.dumps(doc).decode()
    assert raw.count(secrets["github"]) == 2 and secrets["aws"] in raw and secrets["password"] in raw


def test_redact_paths_replaces_the_home_directory(tmp_path: Path, isolated_home: Path) -> None:
    _secret_history(tmp_path, isolated_home)
    plain = cli_build(tmp_path, tmp_path / "plain")
    hidden = cli_build(tmp_path, tmp_path / "hidden", "--redact-paths")
    assert plain.returncode == 0 and hidden.returncode == 0, hidden.stderr
    assert str(isolated_home).encode() in b"".join(p.read_bytes() for p in (tmp_path / "plain").rglob("*.json"))
    doc = session_sidecar(tmp_path / "hidden")
    assert doc["cwd"] == "~/src/app"
    assert doc["timeline"][0]["content"][0]["text"].endswith(" from ~/src/app/deploy.sh")
    everything = b"".join(p.read_bytes() for p in (tmp_path / "hidden").rglob("*") if p.is_file())
    assert str(isolated_home).encode() not in everything
