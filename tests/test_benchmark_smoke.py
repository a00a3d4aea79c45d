"""The benchmark script runs and reports (bough only, a tiny history, no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def test_the_benchmark_runs_on_a_tiny_history(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--work", str(tmp_path / "work"), "--scale", "tiny", "--rounds", "1",
         "--no-peers", "-j", "2", "--json", str(results)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| bough |" in done.stdout and "| floor |" in done.stdout
    assert "bough / floor" in done.stdout and "no-change rebuild" in done.stdout
    data = json.loads(results.read_text())
    assert {run["tool"] for run in data["runs"]} == {"floor", "bough"}
    assert data["history"]["projects"] == 2
    incremental = data["incremental"]
    assert incremental["no_change_rewrote"] == []
    for which in ("largest", "median"):
        appended = incremental[f"append_{which}_session"]["id"]
        assert any(appended in name for name in incremental[f"append_{which}_rewrote"])
    # nothing read from the real home: every tool ran with HOME in the work directory
    assert (tmp_path / "work" / "home").is_dir()
