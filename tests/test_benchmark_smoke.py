"""The benchmark script runs and reports (bough only, tiny histories, no timing asserted)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def test_the_benchmark_runs_every_new_history_at_a_tiny_size(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--work", str(tmp_path / "work"), "--history", "realcode,wide",
         "--history", "many2k", "--tiny", "--rounds", "1", "--no-peers", "-j", "2", "--check-bytes",
         "--variant=--no-such-option 3", "--json", str(results)],
        capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(results.read_text())
    assert list(data["histories"]) == ["realcode", "wide", "many2k"]
    realcode, wide, many = (data["histories"][name] for name in ("realcode", "wide", "many2k"))

    # The histories: real files read (and read again) where they should be.
    assert realcode["facts"]["reads"] > 0 and realcode["facts"]["rereads"] > 0
    assert realcode["facts"]["real_files"] > 100
    assert wide["facts"]["projects"] == 6 and wide["facts"]["sessions"] == 24
    assert many["facts"]["reads"] == 0 and many["facts"]["sessions"] == 20

    # Cold builds: the floor and bough ran; the variant with an option bough does
    # not know failed, reported as such, and did not stop the benchmark.
    for history in (realcode, wide):
        runs = {run["tool"]: run for run in history["runs"]}
        assert set(runs) == {"floor", "bough", "bough --no-such-option 3"}
        assert runs["bough"]["ok"] and runs["floor"]["ok"]
        assert runs["bough"]["out_mb"] > 0 and runs["bough"]["files"] > 0
        # CPU time counts the workers (-j 2): more than one process was seen.
        assert runs["bough"]["processes"] > 1 and runs["bough"]["cpu"] > 0
        variant = runs["bough --no-such-option 3"]
        assert not variant["ok"] and "no-such-option" in variant["note"]
        assert history["incremental"]["bough --no-such-option 3"]["failed"]
    assert many["runs"] == []  # a history of many tiny sessions: the rebuild only

    # Incremental: nothing rewritten when nothing changed; an appended turn rewrites
    # that session's page; incremental and fresh builds give the same bytes.
    for history in (realcode, wide, many):
        incremental = history["incremental"]["bough"]
        assert incremental["no_change"]["ok"] and incremental["no_change"]["rewrote"] == []
        assert incremental["check"]["same"], incremental["check"]
    for history in (realcode, wide):
        incremental = history["incremental"]["bough"]
        for which in ("median", "largest", "newest", "cleanup"):
            appended = incremental[f"append_{which}"]
            assert appended["ok"] and any(appended["session"] in name for name in appended["rewrote"])
        # Claude Code's cleanup: nine in ten sessions deleted, read from the archive by the build after.
        assert incremental["cleanup"]["ok"] and incremental["cleanup"]["deleted"] > 0
    assert "append_median" not in many["incremental"]["bough"]
    assert "| one turn appended to a median session, 90% of sessions in the archive alone |" in done.stdout

    # The report: one section per history, ready for docs/performance.md.
    for name in ("realcode", "wide", "many2k"):
        assert f"### {name} (tiny: the plumbing only):" in done.stdout
    assert "| bough |" in done.stdout and "| floor |" in done.stdout
    assert "| bough --no-such-option 3 | failed: " in done.stdout
    assert "| no change | " in done.stdout and "no-change rebuild ≤ 0.5 s" in done.stdout
    # nothing read from the real home: every tool ran with HOME in the work directory
    assert (tmp_path / "work" / "home").is_dir()
    # The built sites are removed after the last run, not between runs (a deletion
    # slows the next run's file creations on ext4), so none is left.
    assert not list((tmp_path / "work").glob("runs-*"))


def test_the_old_scale_option_still_works(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--work", str(tmp_path / "work"), "--scale", "tiny", "--rounds", "1",
         "--no-peers", "--no-incremental", "-j", "1"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "### tiny: " in done.stdout and "| bough |" in done.stdout
    assert not list((tmp_path / "work").glob("runs-*"))


def test_kept_outputs_are_one_site_per_run(tmp_path: Path) -> None:
    """With --keep-outputs every cold run's site is where the run left it, one per
    round and tool: no run builds over or after the deletion of another's."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--work", str(tmp_path / "work"), "--history", "wide", "--tiny", "--rounds", "2",
         "--no-peers", "--no-incremental", "-j", "1", "--keep-outputs"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    cold = tmp_path / "work" / "runs-wide" / "cold"
    assert sorted(p.name for p in cold.iterdir()) == ["1-bough", "2-bough"]
    assert all((cold / run / "out" / "index.html").is_file() for run in ("1-bough", "2-bough"))


def test_the_profile_script_splits_a_tiny_build_by_stage(tmp_path: Path) -> None:
    profile = BENCH.parent / "profile.py"
    done = subprocess.run(
        [sys.executable, str(profile), "--work", str(tmp_path / "work"), "--history", "realcode", "--tiny",
         "--project", "my-app", "--out", str(tmp_path / "profiles"), "--top", "5"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "profiles" / "realcode-tiny-my-app.pstats").stat().st_size > 0
    assert "### top 5 by cumulative time" in done.stdout and "### top 5 by own time" in done.stdout
    split = done.stdout.split("### the split (cProfile", 1)[1]
    for stage in ("highlighting: Pygments (lexing)", "Jinja templates", "reading (readers)", "redaction", "archive"):
        assert f"| {stage} | " in split, stage


def test_the_profile_script_profiles_a_no_change_rebuild(tmp_path: Path) -> None:
    profile = BENCH.parent / "profile.py"
    done = subprocess.run(
        [sys.executable, str(profile), "--work", str(tmp_path / "work"), "--history", "many2k", "--tiny",
         "--rebuild", "--out", str(tmp_path / "profiles"), "--top", "3"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "`bough build -j 1`, the no-change rebuild, under cProfile" in done.stdout
    assert (tmp_path / "profiles" / "many2k-tiny-rebuild.pstats").stat().st_size > 0
    # Nothing was rendered again: no time in templates or highlighting to speak of.
    split = done.stdout.split("### the split (cProfile", 1)[1]
    assert "| highlighting: Pygments (lexing) |" not in split


def test_the_search_shards_script_times_a_first_search(tmp_path: Path) -> None:
    from .helpers import require_browser

    require_browser()
    script = BENCH.with_name("search_shards.py")
    done = subprocess.run([sys.executable, str(script), "--work", str(tmp_path), "--sessions", "6", "--splits", "1,3",
                           "--runs", "1"], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split(" | ")[0] for row in rows] == ["| 1", "| 3"]
    requests = [int(row.split(" | ")[3]) for row in rows]
    assert 0 < requests[0] < requests[1]  # every shard is fetched


def test_the_lexing_benchmark_compares_both_loops(tmp_path: Path) -> None:
    script = BENCH.with_name("lexing.py")
    done = subprocess.run([sys.executable, str(script), "--files", "5", "--rounds", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("5 files, ") and "ms per KB" in done.stdout
    assert done.stdout.rstrip().endswith("the same tokens")


def test_the_render_benchmark_times_pages_and_sidecars(tmp_path: Path) -> None:
    script = BENCH.with_name("render.py")
    done = subprocess.run([sys.executable, str(script), "--work", str(tmp_path), "--tiny", "--sessions", "3",
                           "--rounds", "2"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "3 sessions of wide (tiny), best of 2:"
    assert [line.split(":")[0] for line in lines[1:]] == ["pages", "sidecars"]
    assert all(re.search(r" ms \(\d+ µs a session\), digest [0-9a-f]{16}$", line) for line in lines[1:])
