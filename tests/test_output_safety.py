"""Output that cannot be misdirected, end to end: safe names for hostile ids and
cwds, projects kept apart, OUT ownership and pruning, builds killed mid-way or run
twice at once, and built HTML that keeps the CSP (no inline script or style, no
event handlers, no javascript:/data: links)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from corpus.claude import generate_claude_history
from corpus.hostile import (
    HOSTILE_SESSIONS,
    NAME_CASES,
    write_hostile_history,
)
from bough_site.errors import OutputError
from bough_site.write import SiteWriter, Staged

from .helpers import KEY, SESSION, csp_problems, file_tree, prompt, reply, text, write_jsonl

SAFE_PART = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
OWN_PREFIX = ".bough-"  # marker, lock, manifest: bough's own bookkeeping in OUT


def test_the_checker_sees_what_it_must() -> None:
    page = ('<script>x</script><script src="a.js"></script><style></style><b onclick="x">'
            '<a href=" JavaScript:alert(1)">x</a><img src="data:image/svg+xml,x"><p style="x">'
            '<meta http-equiv="refresh" content="0"><meta http-equiv="Content-Security-Policy" content="x"><br/>')
    assert csp_problems(page) == ["inline <script>", "<style>", "<b onclick=>", "<a href= JavaScript:alert(1)>",
                                  "<img src=data:image/svg+xml,x>", "<p style=>", "<meta http-equiv=refresh>"]


def files_under(out: Path) -> dict[str, bytes]:
    return file_tree(out)


def site_files(out: Path) -> dict[str, bytes]:
    """What a build wrote for the site, without bough's own bookkeeping."""
    return file_tree(out, site_only=True)


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bough_site.cli", "build", *args],
                          capture_output=True, text=True, timeout=kwargs.pop("timeout", 180), check=False, **kwargs)


# --- names ----------------------------------------------------------------------------------


def _codex_rollout(root: Path, session_id: str, cwd: str) -> None:
    """A minimal Codex rollout whose id (Codex takes it from the content) and cwd are hostile."""
    lines = [
        {"timestamp": "2026-03-09T14:18:02.941Z", "type": "session_meta",
         "payload": {"id": session_id, "timestamp": "2026-03-09T14:18:02.122Z", "cwd": cwd,
                     "originator": "codex_cli_rs", "cli_version": "0.128.0", "source": "cli"}},
        {"timestamp": "2026-03-09T14:18:03.760Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "GOOD-codex-001"}]}},
    ]
    path = root / "sessions" / "2026" / "03" / "09" / "rollout-2026-03-09T14-18-02-x.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")


def test_hostile_ids_and_cwds_become_safe_names_inside_out(tmp_path: Path) -> None:
    expected = write_hostile_history(tmp_path / "claude", cases=NAME_CASES)
    _codex_rollout(tmp_path / "codex", "../../../../tmp/evil", "/home/u/../../etc")
    out = tmp_path / "site" / "out"
    sources = [case.folder for case in expected.cases.values()] + [tmp_path / "codex" / "sessions"]
    result = build(BuildConfig(sources=sources, out=out), redaction_key=KEY)
    written = files_under(out)
    real_out = out.resolve()
    for relpath in written:
        assert (out / relpath).resolve().is_relative_to(real_out)
        parts = relpath.split("/")
        assert relpath.startswith(OWN_PREFIX) or all(SAFE_PART.match(p) and ".." not in p for p in parts), relpath
    assert sorted(os.listdir(tmp_path / "site")) == ["out"]
    # Every session got its own page and sidecar: none overwrote another.
    sessions = [(p, s) for p in result.site.projects for s in p.sessions]
    sidecars = {k: orjson.loads(v) for k, v in written.items() if "/sessions/" in k and k.endswith(".json")}
    # One session per name case, one per hostile session name, and the Codex one.
    assert len(sessions) == (len(NAME_CASES) - 1) + len(HOSTILE_SESSIONS) + 1
    assert sorted(doc["id"] for doc in sidecars.values()) == sorted(s.id for _, s in sessions)
    assert all(f"projects/{p.id}/sessions/{s.slug}.html" in written for p, s in sessions)
    data = b"".join(sidecars_bytes for k, sidecars_bytes in written.items() if k.endswith(".json"))
    assert [m for m in expected.good + ["GOOD-codex-001"] if m.encode() not in data] == []


def test_two_projects_with_the_same_short_name_stay_two(tmp_path: Path) -> None:
    for user in ("alice", "bob"):
        cwd = f"/home/{user}/app"
        write_jsonl(tmp_path / "projects" / f"-home-{user}-app" / f"{SESSION}.jsonl",
                    [prompt(f"{user}-1", f"GOOD-{user}", cwd=cwd),
                     reply(f"{user}-2", f"m-{user}", [text("ok")], cwd=cwd)])
    out = tmp_path / "out"
    result = build(BuildConfig(sources=[tmp_path / "projects"], out=out), redaction_key=KEY)
    projects = sorted((p.name, p.cwd, len(p.sessions)) for p in result.site.projects)
    assert projects == [("app", "/home/alice/app", 1), ("app", "/home/bob/app", 1)]
    ids = [p.id for p in result.site.projects]
    assert len(set(ids)) == 2 and all(i.startswith("app-") for i in ids)
    for project in result.site.projects:
        [session] = project.sessions
        page = (out / "projects" / project.id / "sessions" / f"{session.slug}.json").read_bytes()
        user = project.cwd.split("/")[2]
        assert f"GOOD-{user}".encode() in page and b"GOOD-" + (b"bob" if user == "alice" else b"alice") not in page


# --- ownership ------------------------------------------------------------------------------


def _small_history(root: Path, sessions: int = 2) -> Path:
    for n in range(sessions):
        write_jsonl(root / "projects" / "-p" / f"{n:08d}-0000-4000-8000-000000000000.jsonl",
                    [prompt(f"u{n}", f"GOOD-small-{n}", cwd="/p"), reply(f"a{n}", f"m{n}", [text("ok")], cwd="/p")])
    return root / "projects"


def test_a_foreign_non_empty_out_is_refused_without_force(tmp_path: Path) -> None:
    projects = _small_history(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    run = cli(str(projects), "-o", str(out))
    assert run.returncode == 1
    assert f"bough: the output directory {out} is not empty and was not made by bough" in run.stderr
    assert files_under(out) == {"notes.txt": b"mine"}
    forced = cli(str(projects), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert (out / "notes.txt").read_bytes() == b"mine"
    marker = orjson.loads((out / ".bough-site").read_bytes())
    assert "notes.txt" not in marker["files"]
    assert sorted(marker["files"]) == sorted(site_files(out).keys() - {"notes.txt"})


def test_prune_deletes_only_files_bough_wrote(tmp_path: Path) -> None:
    projects = _small_history(tmp_path / "in")
    out = tmp_path / "out"
    # No archive: it would bring the deleted transcript back (that is its job).
    assert cli(str(projects), "-o", str(out), "--no-archive").returncode == 0
    gone = [k for k in site_files(out) if "/00000001-0000-4000-8000-000000000000." in k]
    assert len(gone) == 2  # the session's page and sidecar
    foreign = {"notes.txt": b"mine", gone[0].rsplit("/", 1)[0] + "/extra.html": b"<p>mine</p>"}
    for relpath, data in foreign.items():
        (out / relpath).write_bytes(data)
    (projects / "-p" / "00000001-0000-4000-8000-000000000000.jsonl").unlink()
    # Without --prune the pages of a session whose transcript is gone stay; with it they go.
    assert cli(str(projects), "-o", str(out), "--no-archive").returncode == 0
    assert [k for k in gone if not (out / k).exists()] == []
    pruned = cli(str(projects), "-o", str(out), "--no-archive", "--prune")
    assert pruned.returncode == 0, pruned.stderr
    assert [k for k in gone if (out / k).exists()] == []
    assert {k: files_under(out)[k] for k in foreign} == foreign
    marker = orjson.loads((out / ".bough-site").read_bytes())
    assert sorted(marker["files"]) == sorted(site_files(out).keys() - foreign.keys())


# --- interrupted and concurrent builds --------------------------------------------------------


def _usable(out: Path) -> list[str]:
    """What is wrong with the site in OUT: files the marker lists but that are gone,
    broken JSON, pages cut short, links from the index to nothing."""
    problems = []
    marker = orjson.loads((out / ".bough-site").read_bytes())
    problems += [f"missing {f}" for f in marker["files"] if not (out / f).is_file()]
    for relpath, data in site_files(out).items():
        if relpath.endswith(".json"):
            try:
                orjson.loads(data)
            except orjson.JSONDecodeError:
                problems.append(f"broken {relpath}")
        elif relpath.endswith(".html") and not data.rstrip().endswith(b"</html>"):
            problems.append(f"cut short {relpath}")
    index = (out / "index.html").read_text("utf-8")
    for href in re.findall(r'href="([^"#?]+)', index):
        if "://" not in href and not (out / href).exists():
            problems.append(f"index links to missing {href}")
    return problems


@pytest.fixture(scope="module")
def two_histories(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same projects twice with different content, big enough to take seconds to build."""
    roots = []
    for seed in (1, 2):
        root = tmp_path_factory.mktemp(f"history{seed}")
        generate_claude_history(root, seed=seed, projects=2, sessions_per_project=3, turns_per_session=30)
        roots.append(root / "projects")
    return roots[0], roots[1]


def _clean_build(projects: Path, out: Path) -> dict[str, bytes]:
    assert cli(str(projects), "-o", str(out)).returncode == 0
    return site_files(out)


def _undisturbed(first: Path, second: Path, out: Path) -> dict[str, bytes]:
    """The site of building first, then second, into one OUT with nothing going wrong
    (a build keeps the sessions of earlier builds whose transcripts are gone)."""
    _clean_build(first, out)
    return _clean_build(second, out)


def test_a_build_failing_mid_way_leaves_the_old_site_and_the_next_repairs_it(
    two_histories: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = two_histories
    out = tmp_path / "out"
    before = _clean_build(first, out)
    real_commit = SiteWriter.commit  # session pages: staged by the workers, committed here
    calls = []

    def commit_then_die(self: SiteWriter, staged: Staged) -> bool:
        if len(calls) == 12:
            raise RuntimeError("killed")
        calls.append(staged.relpath)
        return real_commit(self, staged)

    monkeypatch.setattr(SiteWriter, "commit", commit_then_die)
    with pytest.raises(RuntimeError, match="killed"):
        build(BuildConfig(sources=[second], out=out), redaction_key=KEY)
    monkeypatch.setattr(SiteWriter, "commit", real_commit)
    assert _usable(out) == []
    after = site_files(out)
    assert [k for k in after if after[k] != before.get(k)] != []  # some files are the new build's ...
    assert set(before) <= set(after)  # ... and none of the old site is gone
    assert not [p for p in out.rglob(".bough-tmp-*")]
    repaired = cli(str(second), "-o", str(out))
    assert repaired.returncode == 0, repaired.stderr
    assert site_files(out) == _undisturbed(first, second, tmp_path / "reference")


def test_a_worker_never_writes_through_a_symlink_leading_out_of_out(
    two_histories: tuple[Path, Path], tmp_path: Path
) -> None:
    # Session pages are written by the worker processes (write.Stager): the same checks as the writer's.
    first, second = two_histories
    out = tmp_path / "out"
    _clean_build(first, out)
    sessions = sorted(out.glob("projects/*/sessions"))[0]
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(sessions)
    sessions.symlink_to(outside, target_is_directory=True)
    done = cli(str(second), "-o", str(out), "-j", "2")
    assert done.returncode == 1 and "symlink" in done.stderr, done.stderr
    assert list(outside.iterdir()) == []
    assert not list(out.rglob(".bough-tmp-*"))


def test_a_build_killed_with_sigkill_leaves_a_usable_site(two_histories: tuple[Path, Path], tmp_path: Path) -> None:
    first, second = two_histories
    out = tmp_path / "out"
    _clean_build(first, out)
    start = time.time_ns()
    # A session of its own: the build and every process it forks share one group.
    proc = subprocess.Popen([sys.executable, "-m", "bough_site.cli", "build", str(second), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # Kill the build (not its workers) as soon as it has replaced its first page.
        while proc.poll() is None and not any(
            p.stat().st_mtime_ns > start for p in (out / "projects").rglob("*.html")
        ):
            time.sleep(0.005)
        assert proc.poll() is None, "the build finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        _check_killed_build(first, second, out, tmp_path, proc.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of the build outlived it
        proc.wait(timeout=60)


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat_file.read_text().rsplit(") ", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(stat_file.parent.name))
    return found


def _check_killed_build(first: Path, second: Path, out: Path, tmp_path: Path, pgid: int) -> None:
    assert _usable(out) == []
    deadline = time.monotonic() + 10
    while _group(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    # A worker that outlives its build holds OUT's lock (the fd came with fork) forever.
    assert _group(pgid) == []
    repaired = cli(str(second), "-o", str(out))
    assert repaired.returncode == 0, repaired.stderr
    assert site_files(out) == _undisturbed(first, second, tmp_path / "reference")
    assert not list(out.rglob(".bough-tmp-*"))


def test_a_second_build_waits_for_the_first_and_never_interleaves(tmp_path: Path) -> None:
    projects = _small_history(tmp_path / "in")
    out = tmp_path / "out"
    assert cli(str(projects), "-o", str(out)).returncode == 0
    (projects / "-p" / "00000009-0000-4000-8000-000000000000.jsonl").write_bytes(
        orjson.dumps(prompt("u9", "GOOD-late", cwd="/p")) + b"\n")
    before = files_under(out)
    fd = os.open(out / ".bough-lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a first build is writing
    try:
        proc = subprocess.Popen([sys.executable, "-m", "bough_site.cli", "build", str(projects), "-o", str(out)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        assert proc.poll() is None  # still waiting ...
        assert files_under(out) == before  # ... without having touched anything
        busy = f"another bough build is writing to {re.escape(str(out))}"
        with pytest.raises(OutputError, match=busy), SiteWriter(out, lock_timeout=0.2):
            pass
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert b"GOOD-late" in b"".join(site_files(out).values())


def test_two_builds_started_at_once_both_finish_with_one_consistent_site(tmp_path: Path) -> None:
    projects = _small_history(tmp_path / "in", sessions=6)
    out = tmp_path / "out"
    procs = [subprocess.Popen([sys.executable, "-m", "bough_site.cli", "build", str(projects), "-o", str(out)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    # The second waits for the lock (both succeed) or says clearly why it gave up.
    assert [code for code, _ in results].count(0) >= 1, results
    assert all(code == 0 or "another bough build is writing to" in err for code, err in results), results
    assert _usable(out) == []
    assert site_files(out) == _clean_build(projects, tmp_path / "clean")


# --- the CSP holds ----------------------------------------------------------------------------


def test_hostile_markup_never_becomes_markup(tmp_path: Path) -> None:
    expected = write_hostile_history(tmp_path / "in", cases=["markup", "session-names", "name-img-tag"])
    out = tmp_path / "out"
    build(BuildConfig(sources=[c.folder for c in expected.cases.values()], out=out), redaction_key=KEY)
    pages = {k: v.decode("utf-8") for k, v in files_under(out).items() if k.endswith(".html")}
    assert len(pages) >= 5
    assert {k: csp_problems(v) for k, v in pages.items() if csp_problems(v)} == {}
    every = "".join(pages.values())
    for payload in ("<script>alert", "<img src=x onerror", "<svg onload", "<b onmouseover", "<iframe",
                    "<meta http-equiv=refresh"):
        assert payload not in every
    assert "&lt;script&gt;alert(&#39;hostile-1&#39;)&lt;/script&gt;" in every
    images = [k for k in files_under(out) if k.startswith("images/")]
    assert [k.rsplit(".", 1)[1] for k in images] == ["png"]  # the real PNG only; never the SVG
    data = b"".join(v for k, v in files_under(out).items() if k.endswith(".json"))
    assert [m for m in expected.good if m.encode() not in data] == []


def test_the_bundled_examples_keep_the_csp(tmp_path: Path) -> None:
    run = cli("-o", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    pages = {k: v.decode("utf-8") for k, v in files_under(tmp_path / "out").items() if k.endswith(".html")}
    assert len(pages) > 5
    assert {k: csp_problems(v) for k, v in pages.items() if csp_problems(v)} == {}
    assert all(re.search(r'<meta http-equiv="Content-Security-Policy" content="[^"]*script-src \'self\'', v)
               for v in pages.values())
    assert all("'unsafe-inline'" not in v for v in pages.values())
