"""What the agent built (bough_site/work.py): the commit detector, changed files,
sub-agents' work, replays counted once, and the pinned numbers of the bundled
example history."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bough_site.build import build, load_site
from bough_site.config import BuildConfig
from corpus import examples as ex
from corpus import gemini_examples as gx
from bough_site.model import (
    Reply,
    Session,
    SubagentRun,
    Text,
    ToolCall,
    ToolResult,
    Usage,
)
from bough_site.git_commands import git_commits, shell_commands
from bough_site.work import (
    commits_of,
    file_edits,
    patch_changes,
    project_files,
    summarize_work,
)

from .helpers import (
    CWD,
    SESSION,
    base,
    prompt,
    reply,
    text,
    tool_result,
    tool_use,
    write_jsonl,
)


def bash(command: str, output: str = "", *, error: bool = False, detail: object = None, name: str = "Bash",
         call_id: str = "toolu_1") -> ToolCall:
    result = ToolResult([Text(output)] if output else [], error, None, detail)
    key = "command"
    return ToolCall(call_id, name, {key: command}, None, result)


# --- the shell parser -----------------------------------------------------------------------


def test_commands_split_outside_quotes_and_heredocs() -> None:
    script = "cd app && make test; git add -A || true\necho 'a && b' | tee x.log\ncat <<EOF > notes\ngit commit\nEOF\nls"
    assert shell_commands(script) == [
        ["cd", "app"], ["make", "test"], ["git", "add", "-A"], ["true"], ["echo", "a && b"], ["tee", "x.log"], ["cat"], ["ls"],
    ]


COMMIT_TABLE = [
    # (command, number of git commits it runs)
    ('git add . && git commit -m "Add hello"', 1),
    ("git commit -q -m fix", 1),
    ("git commit --amend --no-edit", 1),
    ("cat > NOTES.md <<'EOF'\nnext: git commit -m 'later'\nEOF", 0),
    ("cat <<-EOF\n\tgit commit\n\tEOF\ngit status", 0),
    ('echo "git commit"', 0),
    ("echo git commit", 0),
    ("grep -rn 'git commit' docs/", 0),
    ("# git commit -m x\nls", 0),
    ("git commit --dry-run -m x", 0),
    ("git log --grep 'commit'", 0),
    ("git -C repo -c user.name=ada commit -qam wip 2>&1 | tail -1", 1),
    ("GIT_AUTHOR_DATE=now env -i git --no-pager commit -m x", 1),
    ("sudo -u ada git commit -m x", 1),
    ("bash -lc \"git commit -m 'inner'\"", 1),
    ("if git diff --quiet; then echo clean; else git commit -am auto; fi", 1),
    ("git commit -m one && git commit -m two", 2),
    ("git \\\n  commit \\\n  -m 'continued lines'", 1),
    ('printf "%s" "$(git commit -m x)"', 0),  # a substitution's output is data here
]


@pytest.mark.parametrize(("command", "count"), COMMIT_TABLE, ids=[c for c, _ in COMMIT_TABLE])
def test_git_commit_detector(command: str, count: int) -> None:
    assert len(git_commits(command)) == count


def test_heredoc_commit_message_is_read() -> None:
    command = (
        "git add src && git commit -m \"$(cat <<'EOF'\nfeat: don't (ever) break the loader\n\n"
        "Longer body with git commit in it.\nEOF\n)\" && git log --oneline -1"
    )
    (commit,) = git_commits(command)
    assert commit.message.splitlines()[0] == "feat: don't (ever) break the loader"


# --- commits of one call --------------------------------------------------------------------


def test_commit_with_summary_line() -> None:
    (c,) = commits_of(bash('git commit -m "Add cache"', "[main 4c1e2a9] Add cache\n 2 files changed, 40 insertions(+)"))
    assert (c.id, c.hash, c.branch, c.message, c.amend) == ("sha:4c1e2a9", "4c1e2a9", "main", "Add cache", False)


def test_root_commit_and_detached_head_lines() -> None:
    (c,) = commits_of(bash("git commit -m init", "[main (root-commit) 0a1b2c3] init"))
    assert (c.branch, c.hash) == ("main", "0a1b2c3")
    (c,) = commits_of(bash("git commit -m x", "[detached HEAD 7f7f7f7] x"))
    assert c.branch == "detached HEAD"


def test_quiet_commit_has_no_output_and_counts_by_call() -> None:
    (c,) = commits_of(bash('git commit -q -m "wip: loader"', call_id="toolu_quiet"))
    assert (c.id, c.hash, c.message) == ("call:toolu_quiet", None, "wip: loader")


def test_quiet_commit_takes_the_hash_a_following_git_log_printed() -> None:
    call = bash('git commit -q -m "Add cache" && git log --oneline -1 --stat', "4c1e2a9 Add cache\n cache.py | 3 +++")
    (c,) = commits_of(call)
    assert (c.id, c.hash, c.message) == ("sha:4c1e2a9", "4c1e2a9", "Add cache")


@pytest.mark.parametrize(("output", "error", "detail"), [
    ("On branch main\nnothing to commit, working tree clean", True, None),  # the failed commit
    ("On branch main\nnothing to commit, working tree clean", False, None),  # `|| true` hid the failure
    ("error: pathspec 'x' did not match", True, None),
    ("", False, {"stdout": "", "interrupted": True}),
    ("Command running in background with ID: b2f8", False, {"backgroundTaskId": "b2f8"}),
])
def test_a_commit_that_failed_or_is_unknown_is_not_one(output: str, error: bool, detail: object) -> None:
    assert commits_of(bash('git commit -m "x"', output, error=error, detail=detail)) == []


def test_no_result_no_commit() -> None:
    call = ToolCall("toolu_1", "Bash", {"command": "git commit -qm x"}, None, None)
    assert commits_of(call) == []


def test_an_error_after_a_commit_that_printed_its_line_is_still_a_commit() -> None:
    # `git commit && npm test`: the tests failed, the commit happened.
    call = bash("git commit -m x && npm test", "[main 1234567] x\n 1 file changed\nnpm ERR! Test failed", error=True)
    assert [c.id for c in commits_of(call)] == ["sha:1234567"]


def test_amend_is_a_commit_and_says_so() -> None:
    (c,) = commits_of(bash("git commit --amend --no-edit", "[main 89abcde] Add cache\n Date: ..."))
    assert c.amend and c.hash == "89abcde"


def test_mentions_are_no_commits() -> None:
    assert commits_of(bash("cat > NOTES.md <<'EOF'\ngit commit -m later\nEOF")) == []
    assert commits_of(bash('echo "git commit"', "git commit")) == []
    # A summary-like line in the output of a command that commits nothing.
    assert commits_of(bash("cat log.txt", "[main 1234567] from a log")) == []


def test_git_operation_alone_is_a_commit() -> None:
    detail = {"stdout": "", "gitOperation": {"type": "commit", "sha": "a" * 40, "branch": "feat", "message": "Tidy\n\nbody"}}
    (c,) = commits_of(bash("git ci -m Tidy", detail=detail))  # an alias: only gitOperation tells
    assert (c.id, c.hash, c.branch, c.message) == ("sha:aaaaaaa", "a" * 40, "feat", "Tidy")


def test_git_operation_and_summary_line_are_one_commit() -> None:
    detail = {"gitOperation": {"type": "commit", "sha": "b" * 40}}
    (c,) = commits_of(bash("git commit -m Tidy", "[main bbbbbbb] Tidy", detail=detail))
    assert (c.id, c.branch, c.message) == ("sha:bbbbbbb", "main", "Tidy")


def test_other_git_operations_are_not_commits() -> None:
    assert commits_of(bash("git push", detail={"gitOperation": {"type": "push", "branch": "main"}})) == []


def test_codex_shell_calls() -> None:
    ok = bash("git commit -am 'Cap retries'", "Exit code: 0\nWall time: 0.2 seconds\nOutput:\n[main 0c0ffee] Cap retries",
              name="shell")
    assert [c.id for c in commits_of(ok)] == ["sha:0c0ffee"]
    failed = bash("git commit -am x", "Process exited with code 1\nOutput:\nnothing to commit", error=True,
                  name="exec_command")
    assert commits_of(failed) == []
    quiet = ToolCall("call_9", "exec_command", {"command": ["git", "commit", "-qm", "wip"]}, None,
                     ToolResult([Text("Process exited with code 0\nOutput:\n")], False, None, {"exit_code": 0}))
    assert [c.id for c in commits_of(quiet)] == ["call:call_9"]


def test_only_shell_tools_commit() -> None:
    assert commits_of(bash("git commit -qm x", name="Write")) == []


# --- files ------------------------------------------------------------------------------------


def call(name: str, args: dict, *, error: bool = False, detail: object = None, result: bool = True) -> ToolCall:
    return ToolCall("toolu_f", name, args, None, ToolResult([Text("ok")], error, None, detail) if result else None)


def test_file_tools() -> None:
    path = f"{CWD}/src/a.py"
    write = call("Write", {"file_path": path, "content": "x\ny\n"}, detail={"type": "create", "content": "x\ny\n"})
    assert file_edits(write) == [(path, "create", 2, 0)]
    hunks = [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 3, "lines": [" a", "-b", "+c", "+d"]}]
    assert file_edits(call("Edit", {"file_path": path}, detail={"structuredPatch": hunks})) == [(path, "update", 2, 1)]
    assert file_edits(call("MultiEdit", {"file_path": path, "edits": []}, detail={"structuredPatch": hunks})) == [
        (path, "update", 2, 1)]
    assert file_edits(call("NotebookEdit", {"notebook_path": f"{CWD}/n.ipynb"})) == [(f"{CWD}/n.ipynb", "update", None, None)]
    # A nested sub-agent result carries no toolUseResult: changed, lines unknown.
    assert file_edits(call("Edit", {"file_path": path})) == [(path, "update", None, None)]


def test_errored_or_unanswered_edits_changed_nothing() -> None:
    assert file_edits(call("Edit", {"file_path": "/a"}, error=True, detail="Error: File does not exist.")) == []
    assert file_edits(call("Write", {"file_path": "/a"}, result=False)) == []
    assert file_edits(call("Read", {"file_path": "/a"})) == []


def test_apply_patch() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+text\n"
        "*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n-    retries = None\n+    retries = 5\n"
        "*** Delete File: old.txt\n*** End Patch\n"
    )
    assert patch_changes(patch) == [
        ("docs/new.md", "create", 2, 0), ("src/main.py", "update", 1, 1), ("old.txt", "delete", None, None),
    ]
    unified = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert patch_changes(unified) == [("x.py", "update", 1, 1)]


def _session(timeline: list, cwd: str = CWD, orphans: list | None = None) -> Session:
    return Session("s1", "codex", cwd, "t", None, None, [], [], None, [], timeline, {}, orphan_subagents=orphans or [])


def test_session_paths_are_absolute_and_counted_once() -> None:
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** End Patch\n"
    first = ToolCall("c1", "apply_patch", {"patch": patch}, None, ToolResult([Text("Success")], False))
    second = ToolCall("c2", "Edit", {"file_path": f"{CWD}/src/../src/app.py"}, None, ToolResult([Text("ok")], False))
    failed = ToolCall("c3", "apply_patch", {"patch": patch.replace("app.py", "bad.py")}, None,
                      ToolResult([Text("error")], True))
    session = _session([Reply("m1", "r1", None, None, [first, second, failed], Usage())])
    summarize_work(session)
    (change,) = session.file_changes
    assert change["path"] == f"{CWD}/src/app.py"
    assert [e["call_id"] for e in change["edits"]] == ["c1", "c2"]
    assert (change["lines_added"], change["lines_removed"]) == (1, 1)
    assert session.stats["files_changed"] == 1


def test_subagent_work_counts_for_its_session_and_is_labelled() -> None:
    edit = ToolCall("c9", "Write", {"file_path": "/x/y.py"}, None, ToolResult([Text("ok")], False))
    commit = bash("git commit -qm agent", call_id="c10")
    run = SubagentRun("agent-1", "Explore", "Map the loader", "f", [Reply("m2", "r1", None, None, [edit, commit], Usage())], {})
    launch = ToolCall("c8", "Task", {"subagent_type": "Explore"}, None, ToolResult([Text("done")], False), run)
    orphan = SubagentRun("agent:2", None, None, "g", [Reply("m3", "r1", None, None, [
        ToolCall("c11", "Edit", {"file_path": "/x/z.py"}, None, ToolResult([Text("ok")], False))], Usage())], {})
    session = _session([Reply("m1", "r3", None, None, [launch], Usage())], orphans=[orphan])
    summarize_work(session)
    assert session.stats["commits"] == 1 and session.stats["files_changed"] == 2
    edits = {f["path"]: f["edits"][0] for f in session.file_changes}
    assert edits["/x/y.py"]["anchor"] == "a-agent-1-r1"
    assert edits["/x/y.py"]["agent"] == "Explore: Map the loader"
    assert edits["/x/z.py"]["anchor"] == "a-agent2-r1" and edits["/x/z.py"]["agent"] == "sub-agent agent:2"
    assert session.commits[0]["agent"] == "Explore: Map the loader"
    assert run.stats == {"commits": 1, "files_changed": 1}
    assert [a["agent_id"] for a in session.agents] == ["agent-1", "agent:2"]
    assert session.agents[0]["anchor"] == "r3" and session.agents[0]["files_changed"] == 1


# --- whole histories: replays, projects, pages ------------------------------------------------------


def _history(root: Path) -> Path:
    """Two sessions of one project: B resumes A (a copy of A's records, same uuids
    and tool call ids, as Claude Code writes a resume), then commits again."""
    project = root / "projects" / "-home-ada-src-app"
    records = [
        prompt("u1", "add a cache and commit"),
        reply("a1", "msg_1", [tool_use("toolu_w", "Write", file_path=f"{CWD}/cache.py", content="x = 1\n")]),
        tool_result("u2", "toolu_w", "File created", detail={"type": "create", "content": "x = 1\n"}),
        reply("a2", "msg_2", [tool_use("toolu_e", "Edit", file_path=f"{CWD}/missing.py", old_string="a", new_string="b")]),
        tool_result("u3", "toolu_e", "File does not exist.", error=True, detail="Error: File does not exist."),
        reply("a3", "msg_3", [tool_use("toolu_c", "Bash", command='git add -A && git commit -q -m "Add cache"')]),
        tool_result("u4", "toolu_c", "", detail={"stdout": "", "stderr": "", "interrupted": False}),
        reply("a4", "msg_4", [text("Committed.")]),
    ]
    write_jsonl(project / f"{SESSION}.jsonl", records)
    other = "22222222-2222-4222-8222-222222222222"
    resumed = [dict(r, sessionId=other) for r in records] + [
        base("user", "u5", sessionId=other, message={"role": "user", "content": "and the docs"}),
        reply("a5", "msg_5", [tool_use("toolu_d", "Bash", command='git commit -am "Docs"')], sessionId=other),
        tool_result("u6", "toolu_d", "[main 1f2e3d4] Docs\n 1 file changed", sessionId=other,
                    detail={"stdout": "[main 1f2e3d4] Docs\n 1 file changed", "stderr": "", "interrupted": False}),
    ]
    write_jsonl(project / f"{other}.jsonl", resumed)
    return root / "projects"


def test_a_replayed_commit_counts_once_per_project(tmp_path: Path) -> None:
    site = load_site(BuildConfig(sources=[_history(tmp_path)]))
    (project,) = site.projects
    by_id = {s.id: s for s in project.sessions}
    assert by_id[SESSION].stats["commits"] == 1 and by_id[SESSION].stats["files_changed"] == 1
    resumed = by_id["22222222-2222-4222-8222-222222222222"]
    assert resumed.stats["commits"] == 2 and resumed.stats["files_changed"] == 1
    assert project.stats["commits"] == 2 and project.stats["files_changed"] == 1
    assert site.stats["commits"] == 2 and site.stats["files_changed"] == 1
    (cache,) = project_files(project.sessions)
    # The replayed Write is one edit, shown (and listed) only where it was made: the
    # resumed session leaves its parent's history out (inherit.py).
    assert cache["edits"] == 1 and [s.id for s, _ in cache["sessions"]] == [SESSION]


@pytest.fixture(scope="module")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("work") / "site"
    result = build(BuildConfig(out=out, search=False))  # the bundled examples (HOME is empty)
    assert result.used_examples
    return out, result


def with_details(out: Path, site: Any) -> Any:
    """``site`` (a build's result, its sessions without their summaries' details) with
    the details the build kept for each session in OUT's state."""
    from bough_site.manifest import Manifest
    from bough_site.state import StateStore
    from bough_site.summaries import add_details

    kept = {(s.summary["source"], s.summary["id"]): s.details for s in Manifest.load(out).sessions.values()}
    with StateStore(out) as state:
        values = state.get_many(kept.values())
    for project in site.projects:
        for session in project.sessions:
            assert session.commits == session.file_changes == session.agents == []
            add_details(session, values[kept[(session.source, session.id)]])
    return site


def test_every_moment_links_to_an_element_of_the_session_page(example_site: tuple[Path, Any]) -> None:
    out, result = example_site
    checked = 0
    for project in with_details(out, result.site).projects:
        for session in project.sessions:
            page = (out / "projects" / project.id / "sessions" / f"{session.slug}.html").read_text()
            ids = set(re.findall(r'\bid="([^"]+)"', page))
            anchors = [c["anchor"] for c in session.commits]
            anchors += [e["anchor"] for f in session.file_changes for e in f["edits"]]
            anchors += [a["anchor"] for a in session.agents if a["anchor"]]
            for anchor in anchors:
                assert anchor in ids, (session.id, anchor)
                checked += 1
    assert checked > 20


def test_project_page_shows_what_was_built(example_site: tuple[Path, Any]) -> None:
    out, result = example_site
    (tidepool,) = [p for p in result.site.projects if p.name == "tidepool"]
    page = (out / "projects" / tidepool.id / "index.html").read_text()
    built = page[page.index('<section class="built"'):page.index("</main>")]
    # The commits, newest first, linked to their moments; the quiet one's hash from the git log that followed it.
    t2 = next(s for s in tidepool.sessions if s.id == ex.T2)
    assert f'href="sessions/{t2.slug}.html#r12"><code class="hash">4c1e2a9</code></a>' in built
    assert "9c3e1f4" in built and '<code class="branch">main</code>' in built
    listed = built[built.index('<ol class="commits">'):]
    assert listed.index("9c3e1f4") < listed.index("4c1e2a9")
    assert "The latest" not in built  # four commits: all shown
    # Files: relative to the project, with edits and lines, and the latest edit's moment.
    assert '<code class="file-path" title="/home/ada/src/tidepool/tidepool/noaa.py">tidepool/noaa.py</code>' in built
    assert "3 edits" in built and built.count('<li class="file">') == 8  # EXAMPLE_FILES["tidepool"]
    assert '<span class="badge">created</span>' in built  # tidepool/cache.py
    # Sub-agent runs, by their own type and description.
    assert '<span class="agent-type">general-purpose</span>' in built and "Check NOAA API limits" in built
    # The timeline: a row per day, a bar per session (a link), prompts as ticks, commits as dots.
    timeline = re.search(r'<div class="timeline-chart".*?</figure>', built, re.DOTALL).group(0)
    # 2025-09-16 (T1), 2025-12-10 (T2), 2026-03-09 (Codex, its fork), 2026-03-11 (Gemini, Copilot's two),
    # 2026-03-12 (Qwen Code), 2026-03-13 (OpenCode; its sub-agent's child session is no bar of its own)
    assert timeline.count('<div class="tl-row">') == 6
    assert timeline.count('class="tl-session') == 9 and timeline.count('class="tl-commit"') == 4
    assert sum(len(re.findall(r"M[\d.]+ 2v12", d)) for d in re.findall(r'class="tl-prompt" d="([^"]*)"', timeline)) \
        == tidepool.stats["prompts"]
    assert re.search(r'<div class="tokens-chart".*?</figure>', built, re.DOTALL)
    # No inline style, no script: the CSP holds.
    assert not re.search(r"\sstyle=|<script|\son[a-z]+=", built)


def test_session_page_lists_its_commits_and_files(example_site: tuple[Path, Any]) -> None:
    out, result = example_site
    (tidepool,) = [p for p in result.site.projects if p.name == "tidepool"]
    t2 = next(s for s in tidepool.sessions if s.id == ex.T2)
    page = (out / "projects" / tidepool.id / "sessions" / f"{t2.slug}.html").read_text()
    assert "What was built: 1 commit, 3 files changed" in page
    assert '<a class="commit-link" href="#r12"><code class="hash">4c1e2a9</code></a>' in page
    sidecar = json.loads((out / "projects" / tidepool.id / "sessions" / f"{t2.slug}.json").read_text())
    assert sidecar["schema"] == "bough.session/4"
    assert [c["hash"] for c in sidecar["commits"]] == ["4c1e2a9"]
    assert [f["path"].rsplit("/", 1)[1] for f in sidecar["files_changed"]] == ["cache.py", "cli.py", "noaa.py"]
    project = json.loads((out / "projects" / tidepool.id / "project.json").read_text())
    assert project["schema"] == "bough.project/4"
    assert [(c["hash"], c["html"]) for c in project["commits"]] == [
        ("4c1e2a9", f"projects/{tidepool.id}/sessions/{t2.slug}.html#r12"),
        ("9c3e1f4", project["commits"][1]["html"]),
        # Gemini's commit: made by its 11th reply (the rewound turn's two replies count in the anchors too).
        ("5d2a8c4", f"projects/{tidepool.id}/sessions/{gx.G1}.html#r11"),
        # Qwen Code's `git commit -am`, by its 8th reply (corpus/qwen_examples.py).
        ("7e41c0a", project["commits"][3]["html"]),
    ]
    # Most edited first, then by path: cli.py (T2, Gemini, OpenCode twice, Qwen Code), then
    # format.py (T1, and Gemini twice) before noaa.py (T1, T2 twice).
    first, second, third = project["files_changed"][:3]
    assert first["path"].endswith("tidepool/cli.py") and first["edits"] == 5 and len(first["sessions"]) == 4
    assert second["path"].endswith("tidepool/format.py") and third["path"].endswith("tidepool/noaa.py")
    assert second["edits"] == third["edits"] == 3
    assert len(second["sessions"]) == len(third["sessions"]) == 2


# --- the bundled example history, pinned --------------------------------------------------------

# Derived from the stories in corpus/examples.py, corpus/codex.py (write_codex_examples),
# corpus/gemini_examples.py, corpus/copilot_examples.py, corpus/opencode_examples.py and
# corpus/qwen_examples.py, not from running the code: per project, the commits
# (hash, branch, subject) and every changed file with its number of edits.
EXAMPLE_COMMITS = {
    "tidepool": [
        # T2: `git commit -q ... && git log --oneline -1 --stat`: quiet, the hash from git log.
        ("4c1e2a9", None, "Add --days and an on-disk response cache"),
        # The Codex session: `git commit -am ...`, git's summary line.
        ("9c3e1f4", "main", "Skip readings without a predecessor in next_high_tide"),
        # The Gemini session (G1): `git add ... && git commit -m ...`, git's summary line.
        ("5d2a8c4", "main", "Add --units to tidepool today"),
        # The Qwen Code session (Q1): `git commit -am ...`, git's summary line.
        ("7e41c0a", "main", "week: two decimals, like today"),
    ],
    "notes-api": [],
    "dotfiles": [],
    "almanac": [],
}
EXAMPLE_FILES = {
    "tidepool": {
        "tidepool/noaa.py": 3,  # T1 once, T2 twice (its missed Edit changed nothing)
        "tidepool/format.py": 3,  # T1 once; Gemini's replace, and the one of its rewound turn (still made)
        "tests/test_noaa.py": 1,
        "tidepool/cache.py": 1,  # T2's Write (create)
        "tidepool/cli.py": 5,  # T2; Gemini's replace; OpenCode's two edits; Qwen Code's edit
        "tidepool/tides.py": 1,  # the Codex apply_patch (the fork changed nothing of its own)
        "tidepool/units.py": 1,  # Gemini's write_file (create; the failed read_file of main.py is no change)
        "tidepool/export.py": 2,  # Copilot CLI's create, then its edit (C1)
    },
    "notes-api": {
        "app/settings.py": 1,  # N1 (N2's copy of the same call is the same edit); the .env edit was rejected
        "README.md": 1,
        "tests/test_settings.py": 1,  # N2
        "app/db.py": 1,  # N3
        "app/routes/notes.py": 5,  # N3 three times, N4 twice
        "tests/test_pagination.py": 1,
        "app/ratelimit.py": 1,  # N4
        "tests/test_ratelimit.py": 1,
        "app/main.py": 1,
        "tests/conftest.py": 1,
    },
    "dotfiles": {"zsh/exports.zsh": 1, "zsh/prompt.zsh": 1},
    "almanac": {"almanac/moon.py": 1},  # A1's replace
}


def test_example_history_commits_and_files() -> None:
    site = load_site(BuildConfig())  # no history in the isolated HOME: the bundled examples
    projects = {p.name: p for p in site.projects}
    assert sorted(projects) == sorted(EXAMPLE_FILES)
    from bough_site.work import project_commits

    for name, project in projects.items():
        commits = [(c["hash"], c["branch"], c["message"]) for c, _ in project_commits(project.sessions)]
        assert commits == EXAMPLE_COMMITS[name], name
        files = {f["path"].removeprefix(project.cwd + "/"): f["edits"] for f in project_files(project.sessions)}
        assert files == EXAMPLE_FILES[name], name
        assert project.stats["commits"] == len(EXAMPLE_COMMITS[name])
        assert project.stats["files_changed"] == len(EXAMPLE_FILES[name])
    assert site.stats["commits"] == 4
    assert site.stats["files_changed"] == sum(len(files) for files in EXAMPLE_FILES.values()) == 21
