"""The example Gemini CLI history bundled with bough (written here, by hand).

``write_gemini_examples`` writes a Gemini directory (as ``~/.gemini`` is laid out)
under ``bough_site/examples/gemini/``; ``python -m corpus.gemini_examples``
regenerates it and tests/test_examples.py checks that the bundled files are
exactly what this module writes. Ids and call ids come from hashes of fixed
names, times from a clock the story advances by hand, tokens are written out.

The sessions (docs/formats-gemini.md names each shape):

tidepool  (/home/ada/src/tidepool: the project a Claude Code and a Codex example
          work in too, so its page shows all three agents)
  G1 0.44 log  ``--units feet|metres`` for ``tidepool today``. Session context
              injected as a user record, a ``warning`` notice, thoughts, two
              reads at once (one of a file that is not there: an error), a
              ``replace`` and a ``write_file`` with their recorded diffs, a
              failing pytest (``Exit Code: 1``) then the fix, tool results
              stored as user records, each model record written again once its
              calls finished, a turn taken back with ``/rewind``, an ``error``
              notice, a sub-agent (``invoke_agent``, its own file in
              ``chats/<sessionId>/``), a commit, a ``git push`` the user
              cancelled and its ``info`` notice, a ``$set`` title. The root is
              written down in ``projects.json``.

almanac   (/home/ada/src/almanac: Gemini CLI only)
  A1 0.22 legacy ``.json``  The full moon a day early. String contents, an
              ``info`` notice, ``read_file`` by ``absolute_path``, a failing then
              passing test run, a ``replace``. It sits in a hash folder (before
              0.29) that ``projects.json`` does not name: its root is found by
              hashing the paths it mentions.
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

HOME = "/home/ada"
TIDEPOOL = f"{HOME}/src/tidepool"
ALMANAC = f"{HOME}/src/almanac"


def _name_uuid(name: str) -> str:
    text = hashlib.sha256(f"bough gemini example {name}".encode()).hexdigest()
    return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-a{text[17:20]}-{text[20:32]}"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


G1 = _name_uuid("G1 session")
G1_AGENT = _name_uuid("G1 investigator")
A1 = _name_uuid("A1 session")
TIDEPOOL_HASH = _sha(TIDEPOOL)
ALMANAC_HASH = _sha(ALMANAC)
G1_FILE = f"tmp/tidepool/chats/session-2026-03-11T09-30-{G1[:8]}.jsonl"
G1_AGENT_FILE = f"tmp/tidepool/chats/{G1}/{G1_AGENT}.jsonl"
A1_FILE = f"tmp/{ALMANAC_HASH}/chats/session-2025-12-02T20-14-{A1[:8]}.json"
G1_MODEL = "gemini-3-flash-preview"
A1_MODEL = "gemini-2.5-pro"
COMMIT = "5d2a8c4"


def _call_id(name: str) -> str:
    """0.39 on: eight lower-case letters and digits."""
    digest = hashlib.sha256(f"bough gemini example call {name}".encode()).digest()
    return "".join("abcdefghijklmnopqrstuvwxyz0123456789"[b % 36] for b in digest[:8])


def _old_call_id(name: str, moment: str) -> str:
    """Before 0.31: the tool's name, the time in milliseconds and random hex."""
    millis = int(datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp() * 1000)
    return f"{name}-{millis}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"


class _Clock:
    def __init__(self, start: datetime):
        self.now = start

    def __call__(self, seconds: float) -> str:
        """The moment ``seconds`` after the last one, as Gemini CLI writes it."""
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


def _tokens(given: int, cached: int, output: int, thoughts: int) -> dict[str, int]:
    return {"input": given, "output": output, "cached": cached, "thoughts": thoughts, "tool": 0,
            "total": given + output + thoughts}


def _thought(subject: str, description: str, at: str) -> list[dict[str, str]]:
    return [{"subject": subject, "description": description, "timestamp": at}]


def _file_diff(name: str, before: str, after: str) -> str:
    """A unified diff as Gemini CLI records it for an edit (``resultDisplay.fileDiff``)."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 f"{name}\tCurrent", f"{name}\tProposed")
    return f"Index: {name}\n{'=' * 67}\n" + "".join(lines)


def _edit_display(path: str, before: str, after: str, *, new: bool = False) -> dict[str, Any]:
    diff = _file_diff(path.rsplit("/", 1)[-1], before, after)
    added = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---"))
    return {"fileDiff": diff, "fileName": path.rsplit("/", 1)[-1], "filePath": path, "originalContent": before,
            "newContent": after, "diffStat": {"model_added_lines": added, "model_removed_lines": removed},
            "isNewFile": new}


def _call(cid: str, name: str, args: dict[str, Any], at: str, *, output: str | None = None,
          error: str | None = None, status: str = "success", display: Any = None, **extra: Any) -> dict[str, Any]:
    response = {"error": error} if error is not None else {"output": output}
    call = {"id": cid, "name": name, "args": args,
            "result": [{"functionResponse": {"id": cid, "name": name, "response": response}}],
            "status": status, "timestamp": at}
    if display is not None:
        call["resultDisplay"] = display
    call.update(extra)
    return call


class _Log:
    """A ``.jsonl`` log written as Gemini CLI 0.44 writes one: the metadata line, then
    each record when it first appears followed by a ``$set`` of ``lastUpdated``, and a
    model record written again, whole, once its tool calls finished."""

    def __init__(self, sid: str, project_hash: str, start: str, kind: str):
        self.lines: list[dict[str, Any]] = [{"sessionId": sid, "projectHash": project_hash, "startTime": start,
                                             "lastUpdated": start, "kind": kind}]

    def add(self, record: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(record)
        self.lines.append({"$set": {"lastUpdated": record["timestamp"]}})
        return record

    def again(self, record: dict[str, Any]) -> None:
        self.lines.append(record)

    def answered(self, reply: dict[str, Any], calls: list[dict[str, Any]], rid: str, at: str) -> None:
        """A model record, written again with its calls once they finished, then their
        results sent back (0.44: one user record)."""
        self.add(reply)
        self.again({**reply, "toolCalls": calls})
        self.add(_user(rid, at, [part for call in calls for part in call["result"]]))

    def raw(self, line: dict[str, Any]) -> None:
        self.lines.append(line)

    def bytes(self) -> bytes:
        return b"".join(orjson.dumps(line) + b"\n" for line in self.lines)


def _user(rid: str, at: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"id": rid, "timestamp": at, "type": "user", "content": content, **extra}


def _typed(rid: str, at: str, text: str) -> dict[str, Any]:
    """What the person typed (0.28 on: a list of parts)."""
    return _user(rid, at, [{"text": text}])


def _notice(rid: str, at: str, kind: str, text: str) -> dict[str, Any]:
    """One of the CLI's own notices: ``info``, ``warning`` or ``error``."""
    return {"id": rid, "timestamp": at, "type": kind, "content": text}


def _gemini(rid: str, at: str, text: str, tokens: dict[str, int], model: str,
            thoughts: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"id": rid, "timestamp": at, "type": "gemini", "content": text, "thoughts": thoughts or [],
            "tokens": tokens, "model": model}


def _replace(name: str, path: str, instruction: str, before: str, after: str, at: str) -> dict[str, Any]:
    return _call(_call_id(name), "replace", {"file_path": path, "instruction": instruction, "old_string": before,
                                             "new_string": after}, at,
                 output=f"Successfully modified file: {path} (1 replacements).",
                 display=_edit_display(path, before, after))


# --- tidepool: G1 -----------------------------------------------------------------------------

CLI_BEFORE = '''def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tidepool")
    sub = parser.add_subparsers(dest="command", required=True)
    today = sub.add_parser("today", help="high and low tides for today")
    today.add_argument("--station", default=DEFAULT_STATION)
    today.add_argument("--days", type=int, default=1)
    args = parser.parse_args(argv)

    tides = noaa.predictions(args.station, date.today(), days=args.days)
    print(table(tides))
    return 0
'''
CLI_AFTER = CLI_BEFORE.replace("default=1)\n", 'default=1)\n    today.add_argument("--units", choices=UNITS, default="metres")\n').replace(
    "print(table(tides))", "print(table(tides, units=args.units))")
UNITS_PY = '''"""Tide heights in the unit the user asked for (NOAA gives metres)."""

UNITS = ("metres", "feet")
FEET_PER_METRE = 3.28084


def height(metres: float, units: str) -> float:
    return metres * FEET_PER_METRE if units == "feet" else metres
'''
FORMAT_BEFORE = '''def table(tides: list[Tide]) -> str:
    rows = [f"{t.time:%H:%M}  {t.kind}  {t.height:5.2f} m" for t in tides]
    return "\\n".join(rows)
'''
FORMAT_AFTER = '''def table(tides: list[Tide], units: str = "metres") -> str:
    suffix = "ft" if units == "feet" else "m"
    rows = [f"{t.time:%H:%M}  {t.kind}  {height(t.height, units):5.2f} {suffix}" for t in tides]
    return "\\n".join(rows)
'''
FORMAT_ROUNDED = FORMAT_AFTER.replace("{height(t.height, units):5.2f}", "{height(t.height, units):5.1f}")
SESSION_CONTEXT = (
    "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
    f"Today's date is Wednesday, March 11, 2026.\nMy operating system is: linux\n"
    f"I'm currently working in the directory: {TIDEPOOL}\n</session_context>"
)


def _tidepool() -> tuple[_Log, _Log]:
    at = _Clock(datetime(2026, 3, 11, 9, 30, 12, 408000, tzinfo=timezone.utc))
    start = at(0)
    log = _Log(G1, TIDEPOOL_HASH, start, "main")
    ids = {name: _name_uuid(f"G1 {name}") for name in (
        "context", "warning", "ask", "r1", "out1", "r2", "out2", "r3", "out3", "r4", "out4", "r5", "out5", "r6",
        "round", "r7", "out7", "r8", "overload", "investigate", "r9", "out9", "r10", "commit", "r11", "out11",
        "r12", "cancelled")}
    log.add(_typed(ids["context"], at(0.3), SESSION_CONTEXT))
    log.add(_notice(ids["warning"], at(0.1), "warning",
                    "Skipped .gemini/settings.json in this project: it is not valid JSON."))
    log.add(_typed(ids["ask"], at(21.6), "Add a --units option to `tidepool today` so heights can be shown in feet "
                                         "or metres. Metres stay the default."))
    # r1: two reads at once; main.py is not there.
    r1 = _gemini(ids["r1"], at(3.2), "", _tokens(9120, 0, 64, 210), G1_MODEL,
                 _thought("Finding the command line", "I'm looking for where `today` parses its options.", at(0)))
    read_cli = _call(_call_id("read cli"), "read_file", {"file_path": f"{TIDEPOOL}/tidepool/cli.py"}, at(0.4),
                     output=CLI_BEFORE, display="")
    read_main = _call(_call_id("read main"), "read_file", {"file_path": f"{TIDEPOOL}/tidepool/main.py"}, at(0.1),
                      error=f"File not found: {TIDEPOOL}/tidepool/main.py", status="error",
                      display=f"File not found: {TIDEPOOL}/tidepool/main.py")
    log.answered(r1, [read_cli, read_main], ids["out1"], at(0.2))
    # r2: the option, and a module for the conversion.
    r2 = _gemini(ids["r2"], at(6.8), "I'll add the option in `cli.py` and keep the conversion in a module of its own.",
                 _tokens(11876, 8900, 612, 340), G1_MODEL,
                 _thought("Planning the change", "The table is built in format.py; the option belongs in cli.py.",
                          at(0)))
    edit_cli = _replace("edit cli", f"{TIDEPOOL}/tidepool/cli.py", "Add a --units option to the today command.",
                        CLI_BEFORE, CLI_AFTER, at(1.9))
    write_units = _call(_call_id("write units"), "write_file", {
        "file_path": f"{TIDEPOOL}/tidepool/units.py", "content": UNITS_PY}, at(0.6),
        output=f"Successfully created and wrote to new file: {TIDEPOOL}/tidepool/units.py.",
        display=_edit_display(f"{TIDEPOOL}/tidepool/units.py", "", UNITS_PY, new=True))
    log.answered(r2, [edit_cli, write_units], ids["out2"], at(0.2))
    # r3: the tests fail: table() does not take units yet.
    r3 = _gemini(ids["r3"], at(2.7), "", _tokens(13410, 11700, 38, 95), G1_MODEL)
    failing = _call(_call_id("pytest 1"), "run_shell_command", {
        "command": "python -m pytest -q", "description": "Run the test suite."}, at(2.4),
        output="Output: ....F....................\nFAILED tests/test_cli.py::test_today_prints_a_table - TypeError: "
               "table() got an unexpected keyword argument 'units'\n1 failed, 22 passed in 0.61s\n"
               "Exit Code: 1\nProcess Group PGID: 48213",
        display="....F....................\nFAILED tests/test_cli.py::test_today_prints_a_table - TypeError: "
                "table() got an unexpected keyword argument 'units'\n1 failed, 22 passed in 0.61s")
    log.answered(r3, [failing], ids["out3"], at(0.2))
    # r4: format.py takes the units.
    r4 = _gemini(ids["r4"], at(5.1), "`table()` has to take the units too.", _tokens(14702, 13300, 240, 180),
                 G1_MODEL, _thought("Reading the failure", "The CLI passes units= but table() has no such "
                                                           "parameter yet.", at(0)))
    edit_format = _replace("edit format", f"{TIDEPOOL}/tidepool/format.py", "Let table() show heights in either unit.",
                           FORMAT_BEFORE, FORMAT_AFTER, at(1.4))
    log.answered(r4, [edit_format], ids["out4"], at(0.2))
    # r5: the tests pass.
    r5 = _gemini(ids["r5"], at(2.2), "", _tokens(15380, 14600, 31, 42), G1_MODEL)
    passing = _call(_call_id("pytest 2"), "run_shell_command", {
        "command": "python -m pytest -q", "description": "Run the test suite again."}, at(2.0),
        output="Output: .......................\n23 passed in 0.58s\nProcess Group PGID: 48240",
        display=".......................\n23 passed in 0.58s")
    log.answered(r5, [passing], ids["out5"], at(0.2))
    log.add(_gemini(ids["r6"], at(4.0), "Done. `tidepool today --units feet` now shows heights in feet:\n\n"
                                        "- `tidepool/units.py`: the units and the conversion\n"
                                        "- `tidepool/cli.py`: the `--units` option (metres by default)\n"
                                        "- `tidepool/format.py`: `table()` shows the unit it was given\n\n"
                                        "All 23 tests pass.", _tokens(15690, 15200, 156, 60), G1_MODEL))
    # A turn taken back with /rewind: its edit was made and its calls billed.
    log.add(_typed(ids["round"], at(48.3), "Round feet to one decimal place."))
    r7 = _gemini(ids["r7"], at(3.9), "", _tokens(15960, 15500, 190, 75), G1_MODEL)
    edit_round = _replace("edit round", f"{TIDEPOOL}/tidepool/format.py", "Show one decimal place.",
                          FORMAT_AFTER, FORMAT_ROUNDED, at(1.1))
    log.answered(r7, [edit_round], ids["out7"], at(0.2))
    log.add(_gemini(ids["r8"], at(2.5), "Heights now show one decimal place.", _tokens(16330, 15800, 48, 0),
                    G1_MODEL))
    log.raw({"$rewindTo": ids["round"]})
    # The investigator: a sub-agent with its own file, linked by agentId.
    log.add(_notice(ids["overload"], at(35.0), "error", "The model is overloaded (503); retried after 2 s."))
    log.add(_typed(ids["investigate"], at(6.4), "Keep two decimals after all. Does the on-disk cache need the units "
                                                "in its key? Ask the investigator."))
    r9 = _gemini(ids["r9"], at(3.3), "", _tokens(16010, 15500, 120, 130), G1_MODEL,
                 _thought("Delegating", "The cache code is in another module; the investigator can map it.", at(0)))
    task = "How does tidepool/cache.py build its keys, and are the heights it stores in metres?"
    agent_start = at(0.5)
    report = ("The cache key is the station id and the date (`cache.py:14`); readings are stored as NOAA "
              "returns them, in metres, before any formatting. The units are applied after the cache is read, "
              "so they need not be part of the key.")
    investigate = _call(_call_id("investigate"), "invoke_agent", {"agent_name": "codebase_investigator",
                                                                  "prompt": task}, agent_start,
                        output=report, display=report, agentId=G1_AGENT, displayName="Codebase Investigator",
                        description=task)
    agent = _Log(G1_AGENT, TIDEPOOL_HASH, agent_start, "subagent")
    agent_ids = {name: _name_uuid(f"G1 agent {name}") for name in ("task", "s1", "out1", "s2", "out2", "s3")}
    agent.add(_typed(agent_ids["task"], at(0.2), task))
    s1 = _gemini(agent_ids["s1"], at(2.1), "", _tokens(5230, 0, 45, 120), G1_MODEL)
    grep = _call(_call_id("grep key"), "grep_search", {"pattern": "def cache_key|cache_key\\(",
                                                       "dir_path": f"{TIDEPOOL}/tidepool"}, at(0.7),
                 output="Found 2 matches:\ncache.py:14: def cache_key(station: str, day: date) -> str:\n"
                        "cache.py:31:     path = CACHE_DIR / cache_key(station, day)",
                 display="Found 2 matches")
    agent.answered(s1, [grep], agent_ids["out1"], at(0.1))
    s2 = _gemini(agent_ids["s2"], at(1.8), "", _tokens(6110, 5100, 40, 60), G1_MODEL)
    read_cache = _call(_call_id("read cache"), "read_file", {"file_path": f"{TIDEPOOL}/tidepool/cache.py",
                                                             "start_line": 10, "end_line": 40}, at(0.3),
                       output="def cache_key(station: str, day: date) -> str:\n"
                              "    return f\"{station}-{day:%Y%m%d}.json\"\n", display="")
    agent.answered(s2, [read_cache], agent_ids["out2"], at(0.1))
    agent.add(_gemini(agent_ids["s3"], at(3.6), report, _tokens(7480, 6000, 210, 150), G1_MODEL))
    log.answered(r9, [investigate], ids["out9"], at(0.2))
    log.add(_gemini(ids["r10"], at(3.0), "No change needed: the cache keeps NOAA's metres, keyed by station and "
                                         "day, and `--units` only changes how the table shows them.",
                    _tokens(17240, 15900, 88, 70), G1_MODEL))
    # The commit, then a push nobody asked for, cancelled.
    log.add(_typed(ids["commit"], at(26.7), "Commit it."))
    r11 = _gemini(ids["r11"], at(2.4), "", _tokens(17520, 17100, 52, 40), G1_MODEL)
    commit = _call(_call_id("commit"), "run_shell_command", {
        "command": "git add tidepool/units.py tidepool/cli.py tidepool/format.py && "
                   "git commit -m 'Add --units to tidepool today'", "description": "Commit the change."}, at(1.3),
        output=f"Output: [main {COMMIT}] Add --units to tidepool today\n 3 files changed, 14 insertions(+), "
               "3 deletions(-)\n create mode 100644 tidepool/units.py\nProcess Group PGID: 48377",
        display=f"[main {COMMIT}] Add --units to tidepool today")
    log.answered(r11, [commit], ids["out11"], at(0.2))
    r12 = _gemini(ids["r12"], at(2.0), "Committed. I'll push it as well.", _tokens(17790, 17300, 30, 25), G1_MODEL)
    log.add(r12)
    push = _call(_call_id("push"), "run_shell_command", {"command": "git push", "description": "Push the commit."},
                 at(4.8), error="[Operation Cancelled] Reason: User cancelled the operation.", status="cancelled")
    log.again({**r12, "toolCalls": [push]})
    log.add(_notice(ids["cancelled"], at(0.1), "info", "Request cancelled."))
    log.raw({"$set": {"summary": "Add a --units option to tidepool today", "lastUpdated": at(0.2)}})
    return log, agent


# --- almanac: A1 ----------------------------------------------------------------------------------

MOON_BEFORE = '''def moon_phase(day: date) -> str:
    age = (day - KNOWN_NEW_MOON).days % SYNODIC_MONTH
    return PHASES[round(age / SYNODIC_MONTH * 8) % 8]
'''
MOON_AFTER = '''def moon_phase(day: date) -> str:
    # The age at noon: a phase changes during the day, not at midnight.
    age = ((day - KNOWN_NEW_MOON).days + 0.5) % SYNODIC_MONTH
    return PHASES[int(age / SYNODIC_MONTH * 8 + 0.5) % 8]
'''


def _old_pytest(reply_at: str, at: str, output: str, *, exit_code: int, group: int) -> dict[str, Any]:
    """The moon tests run by ``run_shell_command``, its output as 0.22 words it."""
    command = "python -m pytest tests/test_moon.py -q"
    text = (f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\nExit Code: {exit_code}\n"
            f"Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: {group}")
    return _call(_old_call_id("run_shell_command", reply_at), "run_shell_command",
                 {"command": command, "description": "Run the moon tests."}, at, output=text,
                 display=output.split("\n", 1)[0] + "\n" + output.rsplit("\n", 1)[-1])


def _almanac() -> dict[str, Any]:
    at = _Clock(datetime(2025, 12, 2, 20, 14, 37, 902000, tzinfo=timezone.utc))
    start = at(0)
    ids = {name: _name_uuid(f"A1 {name}") for name in ("update", "ask", "r1", "r2", "r3", "r4", "r5")}
    messages: list[dict[str, Any]] = [
        _notice(ids["update"], at(0.4), "info", "Gemini CLI 0.22.0 is available (you have 0.21.3)."),
        _user(ids["ask"], at(14.9), "moon_phase() says full moon on 2025-12-03, but it is on the 4th. Why?"),
    ]
    r1_at = at(3.6)
    read = _call(_old_call_id("read_file", r1_at), "read_file",
                 {"absolute_path": f"{ALMANAC}/almanac/moon.py"}, at(0.3), output=MOON_BEFORE, display="")
    messages.append({**_gemini(ids["r1"], r1_at, "", _tokens(6240, 0, 52, 310), A1_MODEL,
                               _thought("Reading the phase code", "I'm looking at how the moon's age is "
                                                                  "turned into a phase.", r1_at)),
                     "toolCalls": [read]})
    r2_at = at(4.1)
    failing = _old_pytest(r2_at, at(1.9), "F..\nFAILED tests/test_moon.py::test_full_moon_december - "
                                          "AssertionError: assert 'waning gibbous' == 'full'\n"
                                          "1 failed, 2 passed in 0.08s", exit_code=1, group=9921)
    messages.append({**_gemini(ids["r2"], r2_at, "The age is taken at midnight and rounded, so a phase flips up to "
                                                 "half a day early.", _tokens(7105, 5900, 40, 120), A1_MODEL),
                     "toolCalls": [failing]})
    r3_at = at(5.3)
    edit = _call(_old_call_id("replace", r3_at), "replace", {
        "file_path": f"{ALMANAC}/almanac/moon.py", "old_string": MOON_BEFORE, "new_string": MOON_AFTER},
        at(1.2), output=f"Successfully modified file: {ALMANAC}/almanac/moon.py (1 replacements).",
        display=_edit_display(f"{ALMANAC}/almanac/moon.py", MOON_BEFORE, MOON_AFTER))
    messages.append({**_gemini(ids["r3"], r3_at, "", _tokens(8020, 6800, 185, 260), A1_MODEL,
                               _thought("Fixing the rounding", "Taking the age at noon keeps each day on "
                                                               "one phase.", r3_at)),
                     "toolCalls": [edit]})
    r4_at = at(2.6)
    passing = _old_pytest(r4_at, at(1.7), "...\n3 passed in 0.07s", exit_code=0, group=9954)
    messages.append({**_gemini(ids["r4"], r4_at, "", _tokens(8390, 7900, 35, 30), A1_MODEL),
                     "toolCalls": [passing]})
    messages.append(_gemini(ids["r5"], at(3.4), "Fixed: `moon_phase()` now takes the moon's age at noon, so "
                                                "2025-12-04 is the full moon and the three tests pass.",
                            _tokens(8610, 8200, 142, 45), A1_MODEL))
    return {"sessionId": A1, "projectHash": ALMANAC_HASH, "startTime": start, "lastUpdated": at(0.1),
            "messages": messages}


# --- writing ----------------------------------------------------------------------------------


def example_files() -> dict[str, bytes]:
    """Every file of the example Gemini directory, by its path in it."""
    tidepool, agent = _tidepool()
    return {
        "projects.json": orjson.dumps({"projects": {TIDEPOOL: "tidepool"}}, option=orjson.OPT_INDENT_2) + b"\n",
        G1_FILE: tidepool.bytes(),
        G1_AGENT_FILE: agent.bytes(),
        A1_FILE: orjson.dumps(_almanac(), option=orjson.OPT_INDENT_2) + b"\n",
    }


def write_gemini_examples(root: Path) -> list[Path]:
    """Write the examples as the Gemini directory ``root`` (replacing what was there:
    regenerating gives exactly this set of files)."""
    root = Path(root)
    if root.exists():
        shutil.rmtree(root)
    written = []
    for rel, data in example_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def bundled_root() -> Path:
    """Where the example Gemini directory lives inside the package."""
    return Path(__file__).resolve().parents[1] / "bough_site" / "examples" / "gemini"


if __name__ == "__main__":
    files = write_gemini_examples(bundled_root())
    print(f"wrote {len(files)} files under {bundled_root()}", file=sys.stderr)
