"""The command line: options become a BuildConfig, one library call, a summary.

Everything a person reads goes to stderr; the library itself never prints.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import __version__
from .build import BuildResult, build
from .config import SOURCE_CHOICES, BuildConfig, redaction_key
from .errors import BoughError


def _stderr(line: str) -> None:
    click.echo(line, err=True)


@click.group()
@click.version_option(__version__, prog_name="bough")
def main() -> None:
    """bough: a static site of your Claude Code and Codex sessions."""


@main.command("build")
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path))
@click.option("-o", "--out", type=click.Path(path_type=Path), default=Path("site"), show_default=True,
              help="Where to write the site.")
@click.option("--theme", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="A theme directory whose templates and static files override the default theme.")
@click.option("--source", "source_filter", type=click.Choice(SOURCE_CHOICES), default="all", show_default=True,
              help="Which agents' transcripts to read.")
@click.option("--no-redact", is_flag=True, help="Do not redact secrets (API keys, tokens, passwords).")
@click.option("--redact-paths", is_flag=True, help="Also replace your home directory and user name with ~.")
@click.option("--force", is_flag=True, help="Build into a non-empty directory bough did not create.")
@click.option("--prune", is_flag=True, help="Delete pages that no source backs any more.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: all cores).")
@click.option("--no-search", is_flag=True, help="Leave out the search index and box.")
@click.option("-q", "--quiet", is_flag=True, help="No progress, only warnings and the summary.")
def build_command(sources: tuple[Path, ...], out: Path, theme: Path | None, source_filter: str,
                  no_redact: bool, redact_paths: bool, force: bool, prune: bool, jobs: int,
                  no_search: bool, quiet: bool) -> None:
    """Read transcripts from SOURCES (default: ~/.claude/projects and ~/.codex/sessions)
    and write a static site to OUT."""
    config = BuildConfig(
        sources=list(sources), out=out, theme=theme, source_filter=source_filter,
        redact=not no_redact, redact_paths=redact_paths, force=force, prune=prune,
        jobs=jobs, search=not no_search, report=_reporter(quiet),
    )
    try:
        result = build(config, redaction_key=redaction_key())
    except BoughError as err:
        _stderr(f"bough: {err}")
        sys.exit(1)
    _stderr(summary(result, config))


def _reporter(quiet: bool):
    def report(line: str) -> None:
        if quiet and line.startswith("progress:"):
            return
        _stderr(line)

    return report


def summary(result: BuildResult, config: BuildConfig) -> str:
    stats = result.site.stats
    sessions = sum(len(p.sessions) for p in result.site.projects)
    parts = []
    if result.used_examples:
        parts.append("No Claude Code or Codex history found here, so bough built its bundled examples.")
    parts.append(
        f"Built {len(result.site.projects)} projects and {sessions} sessions: "
        f"{stats['prompts']:,} prompts, {stats['replies']:,} replies, {stats['tool_calls']:,} tool calls; "
        f"tokens {stats['input_tokens']:,} in, {stats['output_tokens']:,} out, "
        f"{stats['cache_creation_input_tokens']:,} cache writes, {stats['cache_read_input_tokens']:,} cache reads."
    )
    parts.append(f"{len(result.warnings)} warnings; {result.written} files written, {result.unchanged} unchanged.")
    if not config.redact:
        parts.append("Redaction is OFF (--no-redact): secrets in transcripts are in the output.")
    index = (result.out / "index.html").resolve()
    parts.append(f"Open {index} (file://{index}).")
    return " ".join(parts)


if __name__ == "__main__":  # pragma: no cover
    main()
