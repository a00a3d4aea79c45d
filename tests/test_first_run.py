"""A first run that reads right: with no history, `bough build` says first that it
builds its bundled examples and that the warnings after come from damage they
carry on purpose; a real history's warnings keep their plain form."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bough_site.discover import EXAMPLES_NOTICE

from .helpers import BAD_LINES, SESSION, prompt, reply, text, write_jsonl


def bough(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "bough_site.cli", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "BOUGH_ARCHIVE": ""}, check=True)
    return done.stderr.splitlines()


def test_the_examples_are_announced_before_their_warnings(tmp_path: Path) -> None:
    lines = bough("build", "-o", str(tmp_path / "site"), "-q", "--no-archive")  # HOME is empty (conftest)
    assert lines[0] == EXAMPLES_NOTICE
    # Every agent is named (issue #36: Gemini CLI was not; #39 added three).
    assert EXAMPLES_NOTICE.startswith("No Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI or Qwen Code "
                                      "history found here: "
                                      "building bough's bundled examples")
    assert "the warnings that follow are expected" in EXAMPLES_NOTICE
    summary = [line for line in lines[1:] if not line.startswith("warning: ")]
    warnings = lines[1:-len(summary)]
    assert warnings and all(line.startswith("warning: ") for line in warnings)
    for path, line in BAD_LINES:  # the damage planted in them, each said once
        assert sum(w.startswith(f"warning: {path}:{line}: ") for w in warnings) == 1, (path, line)
    assert summary[0].startswith("No history of any agent bough reads found here, so bough built its "
                                 "bundled examples: 4 projects and 15 sessions, ")
    assert f"{len(warnings)} warnings (the examples' damage, on purpose)." in summary[2]
    assert summary[-1] == f"Open {(tmp_path / 'site' / 'index.html').resolve().as_uri()}"


def test_a_real_historys_warnings_keep_their_form(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "projects" / "-home-ada-app" / f"{SESSION}.jsonl",
                       [prompt("u1", "hello"), b"{not json", reply("a1", "m1", [text("hi")])])
    lines = bough("build", str(tmp_path / "projects"), "-o", str(tmp_path / "site"), "-q", "--no-archive")
    assert lines[0] == f"warning: -home-ada-app/{path.name}:2: not valid JSON (Expecting property name enclosed in double quotes)"
    assert not any("examples" in line for line in lines)
    assert lines[1:3] == ["Built 1 project and 1 session: 1 prompt, 1 reply, 0 tool calls.",
                          "Tokens: 5 in, 10 out, 0 cache writes, 0 cache reads; estimated cost $0.0003."]
    assert lines[3] == "Sessions: 1 rebuilt. Files: " + lines[3].split("Files: ")[1]
    assert lines[3].endswith(" 1 warning.")
