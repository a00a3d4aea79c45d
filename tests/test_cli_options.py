"""Every option of the command line is documented twice: in README.md, where a reader
looks before installing, and in its command's ``--help``, where a user looks after.
The options are read from the click commands themselves (bough_site/cli.py), so an
option added without a word in either place fails here."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from bough_site.cli import main

from .helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def long_options(command: click.Command) -> list[str]:
    """The long names (``--out``, ``--no-search``) of a command's own options, without
    click's ``--help``, which every command has and the README names once."""
    names = []
    for param in command.params:
        if isinstance(param, click.Option):
            names += [name for name in param.opts + param.secondary_opts if name.startswith("--")]
    return sorted(set(names))


def commands() -> dict[str, click.Command]:
    """bough's commands by name, and the group itself under "" (its ``--version``)."""
    return {"": main, **{name: command for name, command in main.commands.items()}}


def undocumented(names: list[str], text: str) -> list[str]:
    """The names ``text`` never mentions as a whole option (``--archive`` is not in
    ``--no-archive``, nor ``--out`` in ``--output``)."""
    return [name for name in names if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)]


def help_text(name: str) -> str:
    result = CliRunner().invoke(main, [name, "--help"] if name else ["--help"])
    assert result.exit_code == 0, result.output
    return result.output


# --- the checker sees what it must -------------------------------------------------------------


def test_the_walk_finds_each_commands_options() -> None:
    found = {name: long_options(command) for name, command in commands().items()}
    assert set(found) == {"", "build", "serve", "archive", "help"}
    assert found[""] == ["--version"]
    assert found["archive"] == ["--archive", "--verify"]
    assert found["help"] == []
    shared = {"--out", "--theme", "--source", "--no-redact", "--redact-paths", "--force", "--jobs", "--no-search",
              "--highlight-limit", "--search-limit", "--no-cost", "--prices", "--quiet", "--archive",
              "--no-archive"}
    assert set(found["build"]) == shared | {"--prune"}
    assert set(found["serve"]) == shared | {"--port", "--watch"}


def test_an_option_named_only_as_part_of_another_is_undocumented() -> None:
    text = "Use `--no-archive`, `--output DIR`, `-o OUT` or --jobs; --quiet."
    assert undocumented(["--archive", "--out", "--jobs", "--quiet", "--no-archive"], text) == ["--archive", "--out"]


# --- the checks --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_option_is_in_the_readme(name: str) -> None:
    assert undocumented(long_options(commands()[name]), README) == []


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_option_is_in_its_commands_help(name: str) -> None:
    assert undocumented(long_options(commands()[name]), help_text(name)) == []
