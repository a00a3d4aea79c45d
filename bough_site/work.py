"""What the agents built: the commits they made and the files they changed.

Computed from the model, whatever reader made it: a session's timeline is
walked with its sub-agents' runs nested in it (their work is the session's),
in the order the session page renders them, so each commit and edit can link
to the reply that made it (``anchor``: the id the page gives that reply).

Commits (docs/stats.md):

* ``toolUseResult.gitOperation`` (Claude Code) where present;
* a shell call (Claude ``Bash``, Codex ``shell``/``exec_command`` …) whose
  command runs ``git commit``, found by parsing the command as a shell would:
  split on ``&&``, ``||``, ``;``, ``|`` and newlines outside quotes, with
  heredoc bodies and quoted text taken as data, never as commands. It made a
  commit when git printed its summary line (``[main abc1234] subject``), or,
  for a quiet commit (``-q``) that prints nothing, when the call came back
  without an error (Codex: exit code 0) and without "nothing to commit".
  (The command's reading is git_commands.py.)

A commit's identity is its hash (first 7 hex digits) when known, else the tool
call's id, so a call replayed into another session (a resumed transcript
copies its parent's records) is one commit.

Files: Write, Edit, MultiEdit, NotebookEdit and ``apply_patch`` calls whose
result is not an error, paths made absolute against the session's directory.
Lines added and removed come from the result's ``structuredPatch`` (or a
created file's content), and for ``apply_patch`` from the patch itself.

Everything is kept on the Session as JSON data (a session summary carries it
without the timeline); the shapes are in docs/sidecars.md.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from .git_commands import GitCommit, _command_words, _git_subcommand, git_commits, shell_commands
from .hidden import hide
from .model import Prompt, Reply, Session, SubagentRun, Text, TimelineItem, ToolCall

SHELL_TOOLS = frozenset({
    "Bash", "bash", "shell", "exec_command", "local_shell", "container.exec", "shell_command", "unified_exec",
    "run_shell_command",
})
# Gemini CLI's file tools (docs/formats-gemini.md §8): their result detail holds the diff.
GEMINI_FILE_TOOLS = frozenset({"write_file", "replace"})
# OpenCode's file tools (docs/formats-opencode.md §5), told by their camelCase ``filePath``:
# the result's detail holds the diff OpenCode recorded.
OPENCODE_FILE_TOOLS = frozenset({"write", "edit", "multiedit"})

# Copilot CLI's (docs/formats-copilot.md §5), told by their ``path`` argument: the result's
# ``detailedContent`` holds the diff.
COPILOT_FILE_TOOLS = frozenset({"create", "edit", "str_replace_editor"})
# The later agents' tools share names (``edit``): their arguments tell whose a call is (_shared_edit).
SHARED_FILE_TOOLS = OPENCODE_FILE_TOOLS | COPILOT_FILE_TOOLS
FILE_TOOLS = (frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"}) | GEMINI_FILE_TOOLS
              | SHARED_FILE_TOOLS)

# git's summary line after a commit: "[main abc1234] subject",
# "[main (root-commit) abc1234] subject", "[detached HEAD abc1234] subject"
# (Gemini CLI's shell output puts "Output: " before the first line).
COMMIT_LINE = re.compile(
    r"^(?:Output: )?\[(?P<branch>[^\]\n]+?)(?: \(root-commit\))? (?P<hash>[0-9a-f]{7,40})\] (?P<message>[^\n]*)$",
    re.MULTILINE,
)
_NOTHING = re.compile(r"nothing to commit|nothing added to commit|no changes added to commit")
_HEX = re.compile(r"^[0-9a-fA-F]{7,64}$")


# --- commits of one call -------------------------------------------------------------------


def _result_text(call: ToolCall) -> str:
    if call.result is None:
        return ""
    return "\n".join(part.text for part in call.result.content if isinstance(part, Text))


def _command(call: ToolCall) -> str:
    args = call.input if isinstance(call.input, dict) else {}
    command = args.get("command", args.get("cmd"))
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[1] in ("-c", "-lc", "-lic", "-ic"):
            return command[2]
        return " ".join(_quote(part) for part in command)
    return ""


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9_./=:@%+,-]+", word) else "'" + word.replace("'", "'\\''") + "'"


_HASH_KEYS = ("sha", "hash", "commit", "commitSha", "commit_sha", "commitHash", "commit_hash", "oid")
_BRANCH_KEYS = ("branch", "branchName", "branch_name", "ref")
_MESSAGE_KEYS = ("message", "subject", "title", "commitMessage", "commit_message")
_KIND_KEYS = ("type", "operation", "kind", "action", "command")


def _git_operations(detail: Any) -> list[dict[str, Any]]:
    """The commits a ``toolUseResult.gitOperation`` reports (an object, or a list
    of them): those whose kind names a commit, or that carry a commit hash."""
    if not isinstance(detail, dict):
        return []
    value = detail.get("gitOperation")
    out = []
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, dict):
            continue
        kind = next((item[k] for k in _KIND_KEYS if isinstance(item.get(k), str)), "")
        if kind and "commit" not in kind.lower():
            continue
        if not kind and _first_str(item, _HASH_KEYS) is None:
            continue
        out.append(item)
    return out


def _first_str(item: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, dict):  # {"commit": {"sha": ...}}
            nested = _first_str(value, keys)
            if nested:
                return nested
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _subject(message: str | None) -> str | None:
    for line in (message or "").splitlines():
        if line.strip():
            return line.strip()
    return None


@dataclass
class CallCommit:
    id: str  # "sha:<7 hex>" or "call:<tool call id>[#n]"
    hash: str | None
    branch: str | None
    message: str | None
    amend: bool


def commits_of(call: ToolCall) -> list[CallCommit]:
    """The commits one tool call made."""
    out: list[CallCommit] = []
    seen: set[str] = set()
    result = call.result
    invocations = git_commits(_command(call)) if call.name in SHELL_TOOLS else []
    amend = any(c.amend for c in invocations)
    lines = list(COMMIT_LINE.finditer(_result_text(call))) if invocations else []
    by_hash = {m["hash"].lower()[:7]: (m["branch"], m["message"]) for m in lines}
    for op in _git_operations(result.detail if result is not None else None):
        sha = _first_str(op, _HASH_KEYS)
        sha = sha.lower() if sha and _HEX.match(sha) else None
        if sha is None and lines:
            continue  # git's own summary lines, below, name the commit
        line = by_hash.get(sha[:7]) if sha else None
        key = f"sha:{sha[:7]}" if sha else f"call:{call.id}"
        if key not in seen:
            seen.add(key)
            branch = _first_str(op, _BRANCH_KEYS) or (line[0] if line else None)
            message = _subject(_first_str(op, _MESSAGE_KEYS)) or (line[1] if line else None)
            out.append(CallCommit(key, sha, branch, message, amend))
    for match in lines:
        key = f"sha:{match['hash'].lower()[:7]}"
        if key not in seen:
            seen.add(key)
            out.append(CallCommit(key, match["hash"].lower(), match["branch"], match["message"], amend))
    if invocations and not out and _succeeded(call):
        # A quiet commit prints no summary line: one commit per invocation, its
        # hash known when the same command then printed it (git log -1, rev-parse).
        shown = _shown_head(call, invocations)
        for index, invocation in enumerate(invocations):
            subject = _subject(invocation.message)
            if shown is not None and len(invocations) == 1 and (shown[1] is None or shown[1] == subject):
                out.append(CallCommit(f"sha:{shown[0][:7]}", shown[0], None, subject or shown[1], invocation.amend))
                continue
            key = f"call:{call.id}" + (f"#{index + 1}" if index else "")
            out.append(CallCommit(key, None, None, subject, invocation.amend))
    return out


_HEAD_LINE = re.compile(r"^(?:commit )?(?P<hash>[0-9a-f]{7,40})(?: (?P<message>[^\n]*))?$", re.MULTILINE)


def _shown_head(call: ToolCall, invocations: list[GitCommit]) -> tuple[str, str | None] | None:
    """The hash (and subject) of HEAD when the command printed it after committing:
    ``git log -1 [--oneline]`` or ``git rev-parse [--short] HEAD``."""
    shows = False
    for words in shell_commands(_command(call)):
        words = _command_words(words)
        rest = _git_subcommand(words[1:]) if words and posixpath.basename(words[0]) == "git" else []
        if rest[:1] == ["log"] and any(a in ("-1", "-n1", "--max-count=1") for a in rest) or (
            rest[:1] == ["rev-parse"] and "HEAD" in rest
        ):
            shows = True
    if not shows:
        return None
    match = _HEAD_LINE.search(_result_text(call))
    if match is None:
        return None
    message = match["message"].strip() if match["message"] else None
    return match["hash"].lower(), message


def _succeeded(call: ToolCall) -> bool:
    result = call.result
    if result is None or result.is_error:
        return False
    detail = result.detail if isinstance(result.detail, dict) else {}
    if detail.get("interrupted") is True or detail.get("backgroundTaskId") or detail.get("status") == "cancelled":
        return False  # stopped, or still running in the background: nothing is known
    code = detail.get("exit_code", detail.get("exitCode"))
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return False
    return not _NOTHING.search(_result_text(call))


# --- files of one call --------------------------------------------------------------------------


_PATCH_HEADER = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def patch_changes(patch: str) -> list[tuple[str, str, int | None, int | None]]:
    """(path as written, action, lines added, lines removed) for each file of an
    ``apply_patch`` body (or of a unified diff)."""
    out: list[list[Any]] = []
    current: list[Any] | None = None
    unified = "*** Begin Patch" not in patch and "\n+++ " in "\n" + patch
    for line in patch.splitlines():
        if unified:
            if line.startswith("+++ "):
                name = line[4:].split("\t", 1)[0].strip()
                name = name.removeprefix("b/")
                current = None if name == "/dev/null" else [name, "update", 0, 0]
                if current is not None:
                    out.append(current)
                continue
            if line.startswith("--- "):
                continue
        else:
            header = _PATCH_HEADER.match(line)
            if header:
                action = {"Add": "create", "Update": "update", "Delete": "delete"}[header.group(1)]
                # A deleted file's lines are not in the patch: unknown.
                current = [header.group(2).strip(), action, 0 if action != "delete" else None,
                           0 if action != "delete" else None]
                out.append(current)
                continue
            move = _PATCH_MOVE.match(line)
            if move and current is not None:
                current[0] = move.group(1).strip()
                continue
            if line.startswith("***"):
                continue
        if current is None or current[2] is None:
            continue
        if line.startswith("+"):
            current[2] += 1
        elif line.startswith("-"):
            current[3] += 1
    return [(path, action, added, removed) for path, action, added, removed in out]


def _hunk_lines(hunks: Any) -> tuple[int, int] | None:
    if not isinstance(hunks, list):
        return None
    added = removed = 0
    for hunk in hunks:
        lines = hunk.get("lines") if isinstance(hunk, dict) else None
        for line in lines if isinstance(lines, list) else ():
            if isinstance(line, str) and line.startswith("+"):
                added += 1
            elif isinstance(line, str) and line.startswith("-"):
                removed += 1
    return added, removed


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0


def file_edits(call: ToolCall) -> list[tuple[str, str, int | None, int | None]]:
    """(path as written, action, lines added, lines removed) for a file tool's
    call that succeeded; [] for any other call. Lines are None where unknown."""
    if call.name not in FILE_TOOLS or call.result is None or call.result.is_error:
        return []
    args = call.input if isinstance(call.input, dict) else {}
    if call.name == "apply_patch":
        patch = args.get("patch", args.get("input", args.get("patchText")))  # patchText: OpenCode's
        return patch_changes(patch) if isinstance(patch, str) else []
    if call.name in GEMINI_FILE_TOOLS:
        return _gemini_edit(call, args)
    if call.name in SHARED_FILE_TOOLS:
        return _shared_edit(call, args)
    path = args.get("notebook_path") if call.name == "NotebookEdit" else args.get("file_path")
    if not isinstance(path, str) or not path.strip():
        return []
    detail = call.result.detail if isinstance(call.result.detail, dict) else {}
    action = "update"
    lines = _hunk_lines(detail.get("structuredPatch"))
    if call.name == "Write" and detail.get("type") == "create":
        action = "create"
        content = detail.get("content", args.get("content"))
        lines = (_line_count(content), 0) if isinstance(content, str) else lines
    if call.name == "NotebookEdit" or lines is None:
        return [(path.strip(), action, None, None)]
    return [(path.strip(), action, lines[0], lines[1])]


def _gemini_edit(call: ToolCall, args: dict[str, Any]) -> list[tuple[str, str, int | None, int | None]]:
    """A Gemini ``write_file`` or ``replace``: the path it names; created when the
    result says the file is new (``isNewFile``, or before that the tool's own words);
    lines from the result's ``fileDiff``, or a created file's content."""
    path = next((args[key] for key in ("file_path", "absolute_path", "path") if isinstance(args.get(key), str)), "")
    if not path.strip():
        return []
    detail = call.result.detail if call.result is not None and isinstance(call.result.detail, dict) else {}
    if detail.get("status") == "cancelled":
        return []  # stopped before it wrote anything
    new = detail.get("isNewFile")
    if new is None and call.name == "write_file":
        new = _result_text(call).startswith("Successfully created and wrote to new file")
    action = "create" if new is True else "update"
    diff, content = detail.get("fileDiff"), args.get("content")
    if isinstance(diff, str):
        return [(path.strip(), action, *unified_counts(diff))]
    if action == "create" and isinstance(content, str):
        return [(path.strip(), action, _line_count(content), 0)]
    return [(path.strip(), action, None, None)]


def _shared_edit(call: ToolCall, args: dict[str, Any]) -> list[tuple[str, str, int | None, int | None]]:
    """A file tool whose name several agents use: OpenCode's by its camelCase
    ``filePath``, Copilot CLI's by its ``path``, Qwen Code's ``edit`` by Gemini's
    ``file_path`` (and Gemini's fileDiff: docs/formats-qwen.md); [] for any other."""
    if isinstance(args.get("filePath"), str):
        return _opencode_edit(call, args)
    if isinstance(args.get("path"), str) and call.name in COPILOT_FILE_TOOLS:
        return _copilot_edit(call, args)
    if call.name == "edit" and isinstance(args.get("file_path"), str):
        return _gemini_edit(call, args)
    return []


def _opencode_edit(call: ToolCall, args: dict[str, Any]) -> list[tuple[str, str, int | None, int | None]]:
    """An OpenCode ``write``, ``edit`` or ``multiedit``: the ``filePath`` it names;
    created when its result says the file did not exist; lines from the diff
    OpenCode recorded, or a created file's content."""
    path = args["filePath"]
    if not path.strip():
        return []
    detail = call.result.detail if call.result is not None and isinstance(call.result.detail, dict) else {}
    action = "create" if call.name == "write" and detail.get("exists") is False else "update"
    diff, content = detail.get("diff"), args.get("content")
    if isinstance(diff, str):
        return [(path.strip(), action, *unified_counts(diff))]
    if action == "create" and isinstance(content, str):
        return [(path.strip(), action, _line_count(content), 0)]
    return [(path.strip(), action, None, None)]


def _copilot_edit(call: ToolCall, args: dict[str, Any]) -> list[tuple[str, str, int | None, int | None]]:
    """A Copilot CLI ``create`` or ``edit`` (or the 2025 ``str_replace_editor``, its
    ``command`` saying which): the path; lines from the recorded diff, or the new file's text."""
    path = args["path"].strip()
    command = args.get("command") if call.name == "str_replace_editor" else call.name
    if not path or command not in ("create", "edit", "str_replace", "insert"):
        return []  # a view reads
    action = "create" if command == "create" else "update"
    detail = call.result.detail if call.result is not None and isinstance(call.result.detail, dict) else {}
    diff, content = detail.get("detailedContent"), args.get("file_text")
    if isinstance(diff, str) and "\n@@ " in diff:
        return [(path, action, *unified_counts(diff))]
    if action == "create" and isinstance(content, str):
        return [(path, action, _line_count(content), 0)]
    return [(path, action, None, None)]


def unified_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed by a one-file unified diff (headers before the first hunk left out)."""
    added = removed = 0
    in_hunk = False
    for line in diff.splitlines():
        if line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            added += 1
        elif in_hunk and line.startswith("-"):
            removed += 1
    return added, removed


def absolute(path: str, cwd: str | None) -> str:
    """``path`` made absolute against ``cwd`` and normalized, where it can be."""
    if path.startswith("/"):
        return posixpath.normpath(path)
    if path.startswith("~") or not cwd:
        return path
    return posixpath.normpath(posixpath.join(cwd, path))


# --- walking a session ------------------------------------------------------------------------


@dataclass
class _Call:
    call: ToolCall
    anchor: str
    timestamp: str | None
    agent: SubagentRun | None


@dataclass
class _Walk:
    calls: list[_Call] = field(default_factory=list)
    runs: list[tuple[SubagentRun, str | None, str | None]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    prefixes: set[str] = field(default_factory=set)
    run_calls: dict[int, list[_Call]] = field(default_factory=dict)  # id(run) -> its calls, nested runs' too


def subagent_prefix(run: SubagentRun, parent: str, taken: set[str]) -> str:
    """The anchor prefix the session page gives a sub-agent's items: the rule of
    render.pages.PageState.subagent_prefix, applied in page order (``taken``
    grows as on the page)."""
    agent = re.sub(r"[^A-Za-z0-9_-]", "", str(run.agent_id))[:40] or "agent"
    base = f"{parent}a-{agent}-"
    prefix, n = base, 1
    while prefix in taken:
        n += 1
        prefix = f"{base}{n}-"
    taken.add(prefix)
    return prefix


def _walk(items: list[TimelineItem], prefix: str, agent: SubagentRun | None, walk: _Walk, stack: list[int]) -> None:
    for item in items:
        if not isinstance(item, Reply):
            continue
        walk.replies.append(item)
        anchor = prefix + item.anchor
        for block in item.blocks:
            if not isinstance(block, ToolCall):
                continue
            entry = _Call(block, anchor, block.timestamp or item.timestamp, agent)
            walk.calls.append(entry)
            for run_id in stack:
                walk.run_calls[run_id].append(entry)
            if block.subagent is not None:
                _run(block.subagent, prefix, anchor, entry.timestamp, walk, stack)


def _run(run: SubagentRun, prefix: str, anchor: str | None, timestamp: str | None, walk: _Walk,
         stack: list[int]) -> None:
    sub = subagent_prefix(run, prefix, walk.prefixes)
    walk.runs.append((run, anchor, timestamp))
    walk.run_calls[id(run)] = []
    _walk(run.timeline, sub, run, walk, [*stack, id(run)])


def _session_walk(session: Session) -> _Walk:
    walk = _Walk()
    _walk(session.timeline, "", None, walk, [])
    for run in session.orphan_subagents:  # rendered after the timeline, without a prefix
        _run(run, "", None, None, walk, [])
    return walk


def agent_label(run: SubagentRun | None) -> str | None:
    """A sub-agent named as its launcher described it: ``Explore: Map how notes are listed``."""
    if run is None:
        return None
    parts = [part for part in (run.agent_type, run.description) if part]
    return ": ".join(parts) if parts else f"sub-agent {run.agent_id}"


# --- the session ---------------------------------------------------------------------------------


def summarize_work(session: Session) -> None:
    """Fill the session's commits, file changes, sub-agent runs, prompt times and
    per-reply usage (what pages other than its own need of its timeline), and put the commit and file identities into its Tally and
    STATS (and each sub-agent run's STATS). Idempotent: all is recomputed from
    the timeline. Run it after redaction, so paths and messages are redacted."""
    walk = _session_walk(session)
    session.commits = _commits(walk.calls)
    session.file_changes = _files(walk.calls, session.cwd)
    session.agents = []
    for run, anchor, timestamp in walk.runs:
        calls = walk.run_calls[id(run)]
        commits, files = len(_commits(calls)), len(_files(calls, session.cwd))
        if isinstance(run.stats, dict):
            run.stats["commits"], run.stats["files_changed"] = commits, files
        session.agents.append({
            "agent_id": str(run.agent_id),
            "agent_type": run.agent_type,
            "description": run.description,
            "anchor": anchor,
            "timestamp": timestamp or next((i.timestamp for i in run.timeline if getattr(i, "timestamp", None)), None),
            "tool_calls": len(calls),
            "commits": commits,
            "files_changed": files,
        })
    session.prompt_times = [i.timestamp for i in session.timeline if isinstance(i, Prompt) and i.timestamp]
    replies = session.tally.replies if session.tally is not None else {}
    usage: dict[str, list[Any]] = {}
    for reply in walk.replies:
        if reply.id in usage:
            continue
        u = replies.get(reply.id) or reply.usage  # the reply's most complete copy, where the tally has it
        day = reply.timestamp[:10] if reply.timestamp else None
        usage[reply.id] = [reply.id, day, u.input_tokens, u.output_tokens, u.cache_read_input_tokens]
        if reply.cost is not None:  # pricing.py: the estimate, in nano-dollars (the cost per day)
            usage[reply.id].append(round(reply.cost * 1_000_000_000))
    # Tokens the files give for the session as a whole, not per reply (Copilot CLI's
    # shutdown totals: stats.Tally.totals), on the day the session ended: the chart's
    # only place for them. Keyed by a digest (the key holds the file's label).
    ended = (session.ended or session.started or "")[:10] or None
    for key, total in (session.tally.totals.items() if session.tally is not None else ()):
        usage[key] = [f"totals:{hide(key)}", ended, total.input_tokens, total.output_tokens,
                      total.cache_read_input_tokens]
    session.reply_usage = list(usage.values())
    # The lists above are what the page shows (a resumed session's inherited items
    # are its parent's to show); STATS count the whole file, those items included.
    commits, files = session.commits, session.file_changes
    if session.inherited_items:
        hidden = _Walk()
        _walk(session.inherited_items, "", None, hidden, [])
        calls = walk.calls + hidden.calls
        commits, files = _commits(calls), _files(calls, session.cwd)
    if session.tally is not None:
        session.tally.commits = {c["id"] for c in commits}
        session.tally.files_changed = {file_identity(session.cwd, f["path"]) for f in files}
        session.stats = session.tally.stats()
    else:
        session.stats = {**session.stats, "commits": len(commits), "files_changed": len(files)}


def file_identity(cwd: str | None, path: str) -> str:
    """A changed file's identity in a Tally: a project (one cwd) counts distinct
    paths; the site, the union over projects, adds the projects' counts up."""
    return f"{cwd or ''}\0{path}"


def _commits(calls: list[_Call]) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for entry in calls:
        for commit in commits_of(entry.call):
            out.setdefault(commit.id, {
                "id": commit.id,
                "hash": commit.hash,
                "branch": commit.branch,
                "message": commit.message,
                "amend": commit.amend,
                "call_id": entry.call.id,
                "anchor": entry.anchor,
                "timestamp": entry.timestamp,
                "agent": agent_label(entry.agent),
            })
    return list(out.values())


def _files(calls: list[_Call], cwd: str | None) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for entry in calls:
        for path, action, added, removed in file_edits(entry.call):
            full = absolute(path, _workdir(entry.call) or cwd)
            change = out.setdefault(full, {"path": full, "edits": []})
            change["edits"].append({
                "call_id": entry.call.id,
                "tool": entry.call.name,
                "action": action,
                "anchor": entry.anchor,
                "timestamp": entry.timestamp,
                "lines_added": added,
                "lines_removed": removed,
                "agent": agent_label(entry.agent),
            })
    for change in out.values():
        change["lines_added"] = _total(e["lines_added"] for e in change["edits"])
        change["lines_removed"] = _total(e["lines_removed"] for e in change["edits"])
    return [out[path] for path in sorted(out)]


def _total(values: Any) -> int | None:
    known = [v for v in values if isinstance(v, int)]
    return sum(known) if known else None


def _workdir(call: ToolCall) -> str | None:
    args = call.input if isinstance(call.input, dict) else {}
    workdir = args.get("workdir")
    return workdir if isinstance(workdir, str) and workdir.startswith("/") else None


# --- projects ------------------------------------------------------------------------------------


def project_files(sessions: list[Session]) -> list[dict[str, Any]]:
    """Every file a project's sessions changed, edits counted once per tool call
    (a resumed session holds its parent's calls too), most edited first. Each:
    path, edits, lines_added, lines_removed (None: unknown), created, deleted,
    sessions: [(session, its edits of the file)] in the order given."""
    calls: dict[str, dict[str, dict[str, Any]]] = {}
    where: dict[str, list[tuple[Session, list[dict[str, Any]]]]] = {}
    for session in sessions:
        for change in session.file_changes or ():
            mine = calls.setdefault(change["path"], {})
            for edit in change["edits"]:
                mine.setdefault(edit["call_id"], edit)
            where.setdefault(change["path"], []).append((session, change["edits"]))
    out = []
    for path, edits in calls.items():
        values = list(edits.values())
        out.append({
            "path": path,
            "edits": len(values),
            "lines_added": _total(e["lines_added"] for e in values),
            "lines_removed": _total(e["lines_removed"] for e in values),
            "created": any(e["action"] == "create" for e in values),
            "deleted": any(e["action"] == "delete" for e in values),
            "sessions": where[path],
        })
    out.sort(key=lambda f: (-f["edits"], f["path"]))
    return out


def project_commits(sessions: list[Session]) -> list[tuple[dict[str, Any], Session]]:
    """Every commit a project's sessions made, once each (with the first session,
    in the order given, that holds it), oldest first."""
    seen: dict[str, tuple[dict[str, Any], Session]] = {}
    for session in sessions:
        for commit in session.commits or ():
            seen.setdefault(commit["id"], (commit, session))
    return sorted(seen.values(), key=lambda pair: (pair[0]["timestamp"] or "", pair[0]["id"]))
