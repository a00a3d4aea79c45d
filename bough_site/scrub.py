"""Redaction applied to the model, before anything is rendered or written.

Pages, sidecars and the search index are all made from the model, so passing
every transcript string of a Session through the Redactor here is what keeps
secrets out of every output. Ids, versions, model names and file labels are
transcript strings too (a page shows the session id, a sidecar every id, and a
label holds the project directory's name), so they pass through it as well; the
reader has joined everything on them already, and the fingerprint is the same
in every session, so links between sessions still meet.
"""

from __future__ import annotations

from typing import Any

from .model import (
    Command,
    Marker,
    Prompt,
    Reply,
    Session,
    SubagentRun,
    Text,
    Thinking,
    TimelineItem,
    ToolCall,
    InputWarning,
)
from .redact import Redactor

# Tools whose input names a file whose text the input or result holds (Claude Code's, then Gemini CLI's).
_FILE_TOOLS = ("Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "read_file", "write_file",
               "replace")


def scrub_session(session: Session, redactor: Redactor) -> None:
    """Redact every transcript string of ``session`` in place and record the counts."""
    text = redactor.text
    session.id = text(session.id)
    session.parent_id = _maybe(redactor, session.parent_id)
    session.title = text(session.title)
    session.cwd = _maybe(redactor, session.cwd)
    session.versions = [text(v) for v in session.versions]
    session.models = [text(m) for m in session.models]
    session.git_branch = _maybe(redactor, session.git_branch)
    session.files = [text(name) for name in session.files]
    session.warnings = scrub_warnings(session.warnings, redactor)
    _timeline(session.timeline, redactor)
    _timeline(session.inherited_items, redactor)  # not shown, but their commits and files are counted
    for run in session.orphan_subagents:
        _subagent(run, redactor)
    session.redactions = dict(sorted(redactor.counts.items()))


def scrub_warnings(warnings: list[InputWarning], redactor: Redactor) -> list[InputWarning]:
    """Warnings name files, and a file's label holds its project directory's name
    (the mangled cwd): the site's list of warnings needs this as much as a session's."""
    return [InputWarning(redactor.text(w.file), w.line, redactor.text(w.reason)) for w in warnings]


def _maybe(redactor: Redactor, value: str | None) -> str | None:
    return redactor.text(value) if value else value


def _timeline(items: list[TimelineItem], redactor: Redactor) -> None:
    for item in items:
        item.id = redactor.text(item.id)
        if isinstance(item, Prompt):
            _contents(item.content, redactor)
        elif isinstance(item, Reply):
            _reply(item, redactor)
        elif isinstance(item, Command):
            item.name, item.args = redactor.text(item.name), redactor.text(item.args)
            item.output = redactor.text(item.output)
        elif isinstance(item, Marker):
            item.text = redactor.text(item.text)
            item.ref_session = _maybe(redactor, item.ref_session)


def _reply(reply: Reply, redactor: Redactor) -> None:
    reply.model = _maybe(redactor, reply.model)
    for block in reply.blocks:
        if isinstance(block, (Text, Thinking)):
            block.text = redactor.text(block.text)
        elif isinstance(block, ToolCall):
            _call(block, redactor)


def _call(call: ToolCall, redactor: Redactor) -> None:
    call.id, call.name = redactor.text(call.id), redactor.text(call.name)
    path = _file_path(call.input)
    if path and call.name in _FILE_TOOLS:
        call.input = _file_input(call.input, path, redactor)
    else:
        call.input = redactor.value(call.input)
    if call.result is not None:
        if path and call.name in _FILE_TOOLS:
            for block in call.result.content:
                if isinstance(block, Text):
                    block.text = redactor.file_text(path, block.text)
            call.result.detail = _file_detail(call.result.detail, path, redactor)
        else:
            _contents(call.result.content, redactor)
            call.result.detail = redactor.value(call.result.detail)
    if call.subagent is not None:
        _subagent(call.subagent, redactor)


def _file_input(value: Any, path: str, redactor: Redactor) -> Any:
    # Write's content / Edit's strings are the file's text: a sensitive file
    # (.env, a key) is redacted as a whole.
    if not isinstance(value, dict):
        return redactor.value(value)
    out = {}
    for key, item in value.items():
        name = redactor.text(key) if isinstance(key, str) else key  # a key can be a secret too
        if isinstance(item, str) and key in ("content", "old_string", "new_string"):
            out[name] = redactor.file_text(path, item)
        else:
            out[name] = redactor.value(item)
    return out


def _file_detail(detail: Any, path: str, redactor: Redactor) -> Any:
    if not isinstance(detail, dict):
        return redactor.value(detail)
    out = {}
    for key, item in detail.items():
        name = redactor.text(key) if isinstance(key, str) else key  # a key can be a secret too
        if isinstance(item, str) and key in ("content", "oldString", "newString", "originalFile", "fileDiff"):
            out[name] = redactor.file_text(path, item)
        elif key == "file" and isinstance(item, dict):
            out[name] = _file_detail(item, path, redactor)
        else:
            out[name] = redactor.value(item)
    return out


def _file_path(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("file_path", "path", "notebook_path", "absolute_path"):
            if isinstance(value.get(key), str):
                return value[key]
    return ""


def _contents(blocks: list, redactor: Redactor) -> None:
    # Image data is base64 pixels, shown only after its bytes are checked: left as is.
    for block in blocks:
        if isinstance(block, Text):
            block.text = redactor.text(block.text)


def _subagent(run: SubagentRun, redactor: Redactor) -> None:
    run.description = _maybe(redactor, run.description)
    run.agent_type = _maybe(redactor, run.agent_type)
    run.agent_id, run.file = redactor.text(run.agent_id), redactor.text(run.file)
    run.models = [redactor.text(m) for m in run.models]
    _timeline(run.timeline, redactor)
