"""Where an agent keeps its files, and how bough groups them: a ``Layout``.

Claude Code, Codex and Gemini CLI came first and are wired into discovery and
the archive by hand. Every later agent (OpenCode, Copilot CLI, Qwen Code) is
described by one ``Layout`` in its ``readers/<agent>_layout.py``, and the build
does the rest the same way for each: discovery asks ``claims`` of every folder
and file it meets and lists what ``find`` gives, the archive copies those files
under their ``label`` (or the files ``snapshot`` writes for one it cannot copy as
it is, a SQLite database), the plan reads each group ``units`` makes as one
unit, and ``registry.READERS`` reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

# (label, path) of one file of an agent's, as discovery listed it.
Listed = tuple[str, Path]


def copied_as_is(path: Path, label: str, folder: Path) -> list[Listed]:
    """The archive's default: a file is copied as it is, under its own label."""
    return [(label, path)]


def never(record: dict) -> bool:
    return False


def every(label: str) -> bool:
    return True


def appended(label: str) -> bool:
    """The default: the agent only ever appends to its files."""
    return False


@dataclass(frozen=True)
class Layout:
    kind: str  # the unit kind and the --source name: "opencode"
    name: str  # how the site names the agent: "OpenCode"
    # Where the agent keeps its files by default, the environment honoured
    # (they may not exist): what a build with no SOURCE reads.
    roots: Callable[[Mapping[str, str]], list[Path]]
    # The agent's own directory (where bough never writes), the environment honoured.
    home: Callable[[Mapping[str, str]], Path]
    # Whether a path met while walking a source (a folder at any level of the
    # agent's tree, or one file) is the agent's. Cheap: names, and a peek at most.
    claims: Callable[[Path], bool]
    # The files to read under a path ``claims`` took, each once, in a stable order:
    # transcripts and the metadata files a reader needs beside them.
    find: Callable[[Path], list[Path]]
    # How warnings, sidecars and the archive name a file: the end of its absolute
    # path the agent's layout gives it, never the part above (the same file has
    # the same label whichever source it was found under).
    label: Callable[[Path], str]
    # The files in groups, each read by one reader call: (a key stable across
    # builds, made from labels; the group's files in read order).
    units: Callable[[list[Listed]], list[tuple[str, list[Listed]]]]
    # The files the archive keeps for one listed file: the file itself, or (a
    # database) what it exports into ``folder`` (private to this build), each
    # under a label of its own that ``label``'s reader reads back.
    snapshot: Callable[[Path, str, Path], list[Listed]] = copied_as_is
    # Whether one parsed record of a file's first lines (discovery peeks at them to
    # tell the formats apart) is this agent's: asked before Claude Code's keys are,
    # for a file met outside any folder ``claims`` took (an envelope may copy them).
    sniff: Callable[[dict], bool] = never
    # The folders at the top of a root that discovery reads (the quick check walks
    # only those, and notes the others by name); None: all of them.
    reads: frozenset[str] | None = None
    # Whether the file of this label holds a session (``bough archive`` counts it),
    # rather than what a reader reads beside one (a workspace file, a sub-agent's).
    holds_session: Callable[[str], bool] = every
    # Whether a session file (its first bytes) holds a session the site shows inside
    # another's, a sub-agent's: ``bough archive`` counts it with that one.
    nested: Callable[[bytes], bool] = lambda head: False
    # Whether the agent rewrites the file of this label whole rather than appending:
    # a live copy shorter than the archived one is then not a loss.
    rewritten_whole: Callable[[str], bool] = appended
