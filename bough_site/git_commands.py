"""The git commits a shell command runs, read as a shell would read the command.

work.py tells what the agents built; a commit made by a shell call (Claude ``Bash``,
Codex ``shell`` …) is known only from its command, and a command is data as much as
code: heredoc bodies, quoted text and ``echo "git commit"`` are no commit. So the
command is split on ``&&``, ``||``, ``;``, ``|`` and newlines outside quotes, and each
simple command's words are taken off their keywords, assignments and wrappers
(``sudo``, ``env``, ``timeout``) before ``git`` and ``commit`` are looked for.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Words that may stand before a command without being it.
_KEYWORDS = frozenset({"if", "then", "elif", "else", "do", "while", "until", "!", "{", "}", "time", "exec"})
# Commands that run another command, with their options that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "timeout": frozenset({"-s", "-k"}),
    "command": frozenset(),
    "nohup": frozenset(),
    "builtin": frozenset(),
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
# git options before the subcommand that take the next word as their value.
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})


# --- the shell ---------------------------------------------------------------------------


class _Shell:
    """Splits a shell script into simple commands (lists of words, quotes
    removed). Heredoc bodies, comments and the insides of quotes are data. A
    ``$(...)`` or backtick substitution stays one opaque word, except
    ``$(cat <<EOF ... EOF)``, which stands for its body (a commit message)."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.pending: list[tuple[str, bool]] = []  # heredocs waiting for their bodies: (delimiter, strip tabs)
        self.bodies: list[str] = []

    def parse(self) -> list[list[str]]:
        return self._list(closing=None)

    def _list(self, closing: str | None) -> list[list[str]]:
        s, n = self.s, len(self.s)
        commands: list[list[str]] = []
        words: list[str] = []
        word: list[str] | None = None
        skip_next = False  # the next word is a redirection's target

        def end_word() -> None:
            nonlocal word, skip_next
            if word is not None:
                if skip_next:
                    skip_next = False
                else:
                    words.append("".join(word))
                word = None

        def end_command() -> None:
            nonlocal words
            end_word()
            if words:
                commands.append(words)
            words = []

        while self.i < n:
            c = s[self.i]
            if c == "\n":
                self.i += 1
                end_command()
                self._heredoc_bodies()
            elif s.startswith("\\\n", self.i):
                self.i += 2  # a line continuation: as if it were not there
            elif c in " \t\r":
                self.i += 1
                end_word()
            elif c == "#" and word is None:
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c in ";&|()":
                self.i += 1
                end_command()
                if closing is not None and c == closing:
                    return commands
            elif c == "<" and s.startswith("<<", self.i) and not s.startswith("<<<", self.i):
                if word is not None and "".join(word).isdigit():
                    word = None
                end_word()
                self.i += 2
                strip = s.startswith("-", self.i)
                if strip:
                    self.i += 1
                while self.i < n and s[self.i] in " \t":
                    self.i += 1
                delimiter = self._delimiter()
                if delimiter:
                    self.pending.append((delimiter, strip))
            elif c in "<>":
                if word is not None and "".join(word).isdigit():
                    word = None  # "2>": the fd number is no word
                end_word()
                while self.i < n and s[self.i] in "<>&|":
                    self.i += 1
                if s[self.i - 1] == "&" and self.i < n and s[self.i].isdigit():
                    while self.i < n and s[self.i].isdigit():
                        self.i += 1  # ">&2"
                else:
                    skip_next = True
            else:
                if word is None:
                    word = []
                self._word_part(word)
        end_command()
        return commands

    def _word_part(self, word: list[str]) -> None:
        s, n = self.s, len(self.s)
        c = s[self.i]
        if c == "'":
            end = s.find("'", self.i + 1)
            end = n if end < 0 else end
            word.append(s[self.i + 1 : end])
            self.i = end + 1
        elif c == '"':
            self.i += 1
            while self.i < n and s[self.i] != '"':
                if s[self.i] == "\\" and self.i + 1 < n:
                    word.append(s[self.i + 1])
                    self.i += 2
                elif s.startswith("$(", self.i):
                    word.append(self._substitution())
                elif s[self.i] == "`":
                    word.append(self._backticks())
                else:
                    word.append(s[self.i])
                    self.i += 1
            self.i += 1
        elif c == "\\":
            if self.i + 1 < n and s[self.i + 1] != "\n":
                word.append(s[self.i + 1])
            self.i += 2
        elif s.startswith("$(", self.i):
            word.append(self._substitution())
        elif c == "`":
            word.append(self._backticks())
        else:
            word.append(c)
            self.i += 1

    def _substitution(self) -> str:
        self.i += 2
        first = len(self.bodies)
        inner = self._list(closing=")")
        bodies = self.bodies[first:]
        if len(bodies) == 1 and inner == [["cat"]]:
            return bodies[0].rstrip("\n")
        return "$(…)"

    def _backticks(self) -> str:
        end = self.s.find("`", self.i + 1)
        self.i = len(self.s) if end < 0 else end + 1
        return "`…`"

    def _delimiter(self) -> str:
        s, n = self.s, len(self.s)
        out: list[str] = []
        while self.i < n and s[self.i] not in " \t\n;&|<>()":
            c = s[self.i]
            if c in "'\"":
                end = s.find(c, self.i + 1)
                end = n if end < 0 else end
                out.append(s[self.i + 1 : end])
                self.i = end + 1
            elif c == "\\":
                out.append(s[self.i + 1 : self.i + 2])
                self.i += 2
            else:
                out.append(c)
                self.i += 1
        return "".join(out)

    def _heredoc_bodies(self) -> None:
        """After a newline: skip the bodies of the heredocs opened on that line."""
        pending, self.pending = self.pending, []
        s, n = self.s, len(self.s)
        for delimiter, strip in pending:
            lines: list[str] = []
            while self.i < n:
                end = s.find("\n", self.i)
                end = n if end < 0 else end
                line = s[self.i : end]
                self.i = min(end + 1, n)
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                lines.append(line)
            self.bodies.append("\n".join(lines) + "\n")


def shell_commands(script: str) -> list[list[str]]:
    """The simple commands a shell script runs, as word lists (data is never a command)."""
    try:
        return _Shell(script).parse()
    except RecursionError:  # substitutions nested beyond reason
        return []


@dataclass
class GitCommit:
    """One ``git commit`` invocation found in a command."""

    message: str | None = None
    amend: bool = False
    quiet: bool = False


def git_commits(script: str, *, depth: int = 0) -> list[GitCommit]:
    """Every ``git commit`` the script runs (not ``--dry-run``, not ``-h``),
    also inside ``bash -c '...'``."""
    found: list[GitCommit] = []
    for words in shell_commands(script):
        words = _command_words(words)
        if not words:
            continue
        name = posixpath.basename(words[0])
        if name in _SHELLS and depth < 3:
            for index, word in enumerate(words[1:-1], 1):
                if word.startswith("-") and not word.startswith("--") and "c" in word:
                    found += git_commits(words[index + 1], depth=depth + 1)
                    break
            continue
        if name != "git":
            continue
        rest = _git_subcommand(words[1:])
        if rest and rest[0] == "commit":
            commit = _commit_options(rest[1:])
            if commit is not None:
                found.append(commit)
    return found


def _command_words(words: list[str]) -> list[str]:
    """The command itself: keywords, variable assignments and wrappers such as
    ``sudo`` or ``env`` (with their options) taken off the front."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in _KEYWORDS or _ASSIGNMENT.match(word):
            index += 1
        elif posixpath.basename(word) in _WRAPPERS:
            takes_value = _WRAPPERS[posixpath.basename(word)]
            index += 1
            while index < len(words) and (words[index].startswith("-") or _ASSIGNMENT.match(words[index])):
                index += 2 if words[index] in takes_value else 1
            if posixpath.basename(word) == "timeout" and index < len(words):
                index += 1  # the duration
        else:
            break
    return words[index:]


def _git_subcommand(args: list[str]) -> list[str]:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in _GIT_VALUE_OPTIONS:
            index += 2
        elif arg.startswith("-"):
            index += 1
        else:
            return args[index:]
    return []


def _commit_options(args: list[str]) -> GitCommit | None:
    commit = GitCommit()
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--dry-run", "-h", "--help"):
            return None
        if arg == "--":
            break
        if arg == "--amend":
            commit.amend = True
        elif arg in ("-q", "--quiet"):
            commit.quiet = True
        elif arg in ("-m", "--message") and index + 1 < len(args):
            index += 1
            commit.message = commit.message or args[index]
        elif arg.startswith("--message="):
            commit.message = commit.message or arg.split("=", 1)[1]
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            flags = arg[1:]
            if "q" in flags.split("m", 1)[0]:
                commit.quiet = True
            if "m" in flags:
                tail = flags.split("m", 1)[1]
                if tail:
                    commit.message = commit.message or tail
                elif index + 1 < len(args):
                    index += 1
                    commit.message = commit.message or args[index]
        index += 1
    return commit
