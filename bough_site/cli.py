"""The command line: options become a BuildConfig, one library call, a summary.

A build's progress, warnings and summary go to stderr; ``bough archive`` prints
its report on stdout. The library itself never prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .build import BuildResult, build
from .config import (DEFAULT_HIGHLIGHT_LIMIT, DEFAULT_SEARCH_LIMIT, SOURCE_CHOICES, BuildConfig, archive_dir,
                     codex_home, redaction_key)
from .errors import BoughError, OutputError
from .cost_text import cost_facts
from .model import TOKEN_STAT_KEYS, UNKNOWN_SESSIONS_PREFIX, UNKNOWN_TOKENS_KEY
from .pricing import PricesError, load_user_prices
from .quick import unsaid_notes
from .out_place import check_outside_agent_homes


def _stderr(line: str) -> None:
    click.echo(line, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})  # the commands' too
@click.version_option(__version__, prog_name="bough")
def main() -> None:
    """bough: a static site of your Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI and Qwen Code sessions."""


@main.command("help")
@click.argument("command", required=False)
@click.pass_context
def help_command(ctx: click.Context, command: str | None) -> None:
    """Show this help, or a command's (bough help build)."""
    group = ctx.parent
    assert group is not None  # always run under main
    if command is None:
        click.echo(group.get_help())
        return
    chosen = main.get_command(group, command)
    if chosen is None:
        raise click.UsageError(f"No such command '{command}'.", ctx)
    click.echo(chosen.get_help(click.Context(chosen, info_name=command, parent=group)))


def site_options(command):
    """The options `bough build` and `bough serve` share: what to read and how to build."""
    options = [
        click.argument("sources", nargs=-1, type=click.Path(path_type=Path)),
        click.option("-o", "--out", type=click.Path(path_type=Path), default=Path("site"), show_default=True,
                     help="Where to write the site."),
        click.option("--theme", type=click.Path(path_type=Path, file_okay=False, exists=True),
                     help="A theme directory whose templates and static files override the default theme."),
        click.option("--source", "source_filter", type=click.Choice(SOURCE_CHOICES), default="all",
                     show_default=True, help="Which agents' transcripts to read."),
        click.option("--no-redact", is_flag=True, help="Do not redact secrets (API keys, tokens, passwords)."),
        click.option("--redact-paths", is_flag=True, help="Also replace your home directory and user name with ~."),
        click.option("--force", is_flag=True, help="Build into a non-empty directory bough did not create."),
        click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: all cores)."),
        click.option("--no-search", is_flag=True, help="Leave out the search index and box."),
        click.option("--highlight-limit", type=click.IntRange(min=0), default=DEFAULT_HIGHLIGHT_LIMIT,
                     show_default=True, metavar="KB",
                     help="Highlight tool output for its first KB kilobytes or KB x 25 lines, and the rest "
                          "plain (what an agent wrote: 64 KB, or KB if larger). 0: highlight everything."),
        click.option("--search-limit", type=click.IntRange(min=0), default=DEFAULT_SEARCH_LIMIT,
                     show_default=True, metavar="KB",
                     help="Search what each tool returned for its first KB kilobytes (an error: all of it). "
                          "0: all of it."),
        click.option("--no-cost", is_flag=True, help="Leave out what the model calls cost (estimated from "
                     "genai-prices' price table, and what the transcripts recorded)."),
        click.option("--prices", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
                     help="Your own price table (JSON: docs/cost.md), for negotiated or local prices; "
                          "its models take precedence over genai-prices' table."),
        click.option("-q", "--quiet", is_flag=True, help="No progress, only warnings and the summary."),
        click.option("--archive", "archive", type=click.Path(path_type=Path, file_okay=False), default=None,
                     help="Where bough keeps a copy of every transcript it reads "
                          "(default: $BOUGH_ARCHIVE, else ~/.local/share/bough/archive)."),
        click.option("--no-archive", is_flag=True,
                     help="Neither copy transcripts into the archive nor read from it."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def site_config(*, sources: tuple[Path, ...], out: Path, theme: Path | None, source_filter: str,
                no_redact: bool, redact_paths: bool, force: bool, jobs: int, no_search: bool, quiet: bool,
                archive: Path | None, no_archive: bool, prune: bool = False,
                highlight_limit: int = DEFAULT_HIGHLIGHT_LIMIT,
                search_limit: int = DEFAULT_SEARCH_LIMIT, no_cost: bool = False,
                prices: Path | None = None) -> BuildConfig:
    if archive is not None and no_archive:
        raise click.UsageError("--archive and --no-archive exclude each other")
    if prices is not None and no_cost:
        raise click.UsageError("--prices and --no-cost exclude each other")
    if prices is not None:
        try:
            load_user_prices(prices)
        except PricesError as err:
            raise click.UsageError(str(err)) from None
    return BuildConfig(
        sources=list(sources), out=out, theme=theme, source_filter=source_filter,
        redact=not no_redact, redact_paths=redact_paths, force=force, prune=prune,
        jobs=jobs, search=not no_search, highlight_limit=highlight_limit, search_limit=search_limit,
        cost=not no_cost, prices=prices,
        report=_reporter(quiet),
        archive=None if no_archive else (archive or archive_dir()),
    )


@main.command("build")
@site_options
@click.option("--prune", is_flag=True, help="Delete pages that no source backs any more.")
def build_command(**options) -> None:
    """Read transcripts from SOURCES (default: ~/.claude/projects, ~/.codex/sessions and
    ~/.gemini) and bough's archive, and write a static site to OUT."""
    config = site_config(**options)
    quiet = options["quiet"]
    bar = None if quiet else ProgressBar(sys.stderr)
    if bar is not None:
        config.report, config.progress = bar.around(config.report), bar.update
    try:
        check_outside_agent_homes(config.out)  # before anything is read or written (the archive too)
        result = build(config, redaction_key=redaction_key())
    except BoughError as err:
        if bar is not None:
            bar.finish()
        _stderr(f"bough: {_with_flags(err)}")
        sys.exit(1)
    if bar is not None:
        bar.finish()
    _stderr(summary(result, config, notes=unsaid_notes(result.out, result.notes)))


def _with_flags(err: BoughError) -> str:
    """An error as the command line says it: a refusal that forcing would overcome
    names the option that forces it."""
    message = str(err)
    if isinstance(err, OutputError) and "force" in message and "--force" not in message:
        return f"{message} (--force)"
    return message


def _reporter(quiet: bool):
    def report(line: str) -> None:
        if quiet and line.startswith("progress:"):
            return
        _stderr(line)

    return report


class ProgressBar:
    """Sessions done of total and the current project, on stderr, once a build
    has run for a second: redrawn in place on a terminal, a line every few
    seconds elsewhere (a log)."""

    WIDTH = 28
    DELAY = 1.0  # builds shorter than this show no bar

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.drawn = False  # a bar line is on screen, not yet ended
        self.last = -1.0

    def update(self, progress) -> None:
        if progress.elapsed < self.DELAY:
            return
        final = progress.done >= progress.total
        gap = 0.1 if self.tty else 5.0
        if progress.elapsed - self.last < gap and not final:
            return
        self.last = progress.elapsed
        total = max(progress.total, 1)
        filled = min(self.WIDTH, self.WIDTH * progress.done // total)
        line = (f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {progress.done}/{progress.total} sessions"
                f" ({progress.rebuilt} rebuilt, {progress.reused} reused) {progress.project}")
        if self.tty:
            self.stream.write("\r\x1b[K" + line[:200])
            self.drawn = True
        else:
            self.stream.write(f"progress: {line}\n")
        self.stream.flush()

    def around(self, report):
        """A report callback that first ends the bar's line, so a warning gets its own."""
        def wrapped(line: str) -> None:
            self.finish()
            report(line)

        return wrapped

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def summary(result: BuildResult, config: BuildConfig, notes: list[str] | None = None) -> str:
    """What a build says when it is done, in six lines at most: what the site holds,
    its tokens, what this build did, then the redaction warning and the agents'
    cleanup notice (``notes``, by default the result's: at most one) when there is
    one, and where to open the site."""
    stats = result.stats
    built = f"{_plural(result.projects, 'project')} and {_plural(result.sessions, 'session')}"
    counts = (f"{_plural(stats['prompts'], 'prompt')}, {_plural(stats['replies'], 'reply', 'replies')}, "
              f"{_plural(stats['tool_calls'], 'tool call')}")
    if result.used_examples:
        headline = (f"No history of any agent bough reads found here, so bough built its bundled examples: "
                    f"{built}, {counts}.")
    else:
        headline = f"Built {built}: {counts}."
    lines = [
        headline,
        f"Tokens: {stats['input_tokens']:,} in, {stats['output_tokens']:,} out, "
        f"{stats['cache_creation_input_tokens']:,} cache writes, {stats['cache_read_input_tokens']:,} cache reads"
        + _unknown_tokens(stats.get(UNKNOWN_TOKENS_KEY, 0)) + _unknown_sessions(stats) + _cost(stats) + ".",
        _done_line(result),
    ]
    if not config.redact:
        lines.append("Redaction is OFF (--no-redact): secrets in transcripts are in the output.")
    lines.extend(result.notes if notes is None else notes)
    lines.append(f"Open {(result.out / 'index.html').resolve().as_uri()}")
    return "\n".join(lines)


def _done_line(result: BuildResult) -> str:
    """What this build did: sessions rebuilt, reused, kept and restored; files; warnings."""
    sessions = [f"{result.rebuilt:,} rebuilt"]
    if result.reused:
        sessions.append(f"{result.reused:,} reused unchanged")
    if result.gone:
        sessions.append(f"{result.gone:,} kept whose transcript is gone")
    if result.archived_only:
        sessions.append(f"{result.archived_only:,} only in bough's archive (the original is deleted)")
    files = [f"{result.written:,} written", f"{result.unchanged + result.kept:,} unchanged"]
    if result.pruned:
        files.append(f"{result.pruned:,} pruned")
    planted = " (the examples' damage, on purpose)" if result.used_examples and result.warnings else ""
    return (f"Sessions: {', '.join(sessions)}. Files: {', '.join(files)}. "
            f"{_plural(len(result.warnings), 'warning')}{planted}.")


def _unknown_tokens(count: int) -> str:
    """What the summary adds when some replies' token counts could not be read (docs/stats.md)."""
    if not count:
        return ""
    return f" (and {count:,} {'reply' if count == 1 else 'replies'} whose tokens are unknown)"


def _unknown_sessions(stats: dict) -> str:
    """What the summary adds when some sessions' files do not hold some token figure
    (Copilot CLI's input and cache tokens without a shutdown record): the sums are
    of the sessions that do (docs/stats.md)."""
    count = max((stats.get(UNKNOWN_SESSIONS_PREFIX + key) or 0 for key in TOKEN_STAT_KEYS), default=0)
    if not count:
        return ""
    return f"; not all the tokens of {_plural(count, 'session')} are recorded, so these sums leave them out"


def _cost(stats: dict) -> str:
    """What the calls cost, on the tokens' line (pricing.py; nothing with --no-cost)."""
    facts = cost_facts(stats, "")
    return f"; estimated cost {facts.text}" if facts is not None else ""


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {words or word + 's'}"


@main.command("archive")
@click.option("--archive", "archive", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The archive to report on (default: $BOUGH_ARCHIVE, else ~/.local/share/bough/archive).")
@click.option("--verify", is_flag=True,
              help="Also check that every archived file decompresses, matches its checksum and parses.")
def archive_command(archive: Path | None, verify: bool) -> None:
    """Report what bough's archive holds: the copies of every transcript bough has read."""
    from .archive import Archive

    try:
        store = Archive.open(archive or archive_dir(), create=False)
        report = store.summary(codex_home())
        checked, problems = store.verify() if verify else (0, [])
    except BoughError as err:
        _stderr(f"bough: {err}")
        sys.exit(1)
    click.echo(archive_report(report))
    if not verify:
        return
    if not problems:
        click.echo(f"Verified {_plural(checked, 'archived file')}: every one decompresses, "
                   "matches its checksum and parses.")
        return
    click.echo(f"Verified {_plural(checked, 'archived file')}: {_plural(len(problems), 'problem')}:")
    for problem in problems:
        click.echo(f"  {problem}")
    sys.exit(1)


def archive_report(report) -> str:
    """The lines ``bough archive`` prints for an archive_report.Summary."""
    from .readers.layouts import LAYOUTS  # not imported by ``bough build`` with nothing to do (build.py)

    kinds = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}
    kinds.update((kind, layout.name) for kind, layout in LAYOUTS.items())
    by_kind = ", ".join(f"{report.by_kind[k]:,} {kinds[k]}" for k in sorted(report.by_kind))
    lines = [
        f"Archive: {report.root}",
        f"Sessions: {report.sessions:,}{f' ({by_kind})' if by_kind else ''}, in {_plural(report.files, 'file')}",
        f"Size on disk: {_size(report.disk_bytes)} compressed ({_size(report.bytes)} of transcripts)",
    ]
    if report.oldest and report.newest:
        lines.append(f"Oldest session: started {report.oldest[0][:10]} ({report.oldest[1]})")
        lines.append(f"Newest session: started {report.newest[0][:10]} ({report.newest[1]})")
    if report.kept_since:
        lines.append(f"Kept since: {report.kept_since[:10]}")
    lines.append(f"Gone from the sources (kept only here): {_plural(report.gone, 'session')}")
    lines.extend(f"Problem: {problem}" for problem in report.problems)
    return "\n".join(lines)


def _size(count: float) -> str:
    if count < 1024:
        return f"{int(count):,} bytes"
    for unit in ("KB", "MB", "GB", "TB"):
        count /= 1024
        if count < 1024 or unit == "TB":
            break
    return f"{count:,.1f} {unit}"


@main.command("serve")
@site_options
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port on 127.0.0.1 (0: any free one).")
@click.option("--watch", is_flag=True, help="Rebuild when a transcript or theme file changes.")
def serve_command(port: int, watch: bool, **options) -> None:
    """Build the site as `bough build` does and serve OUT on http://127.0.0.1:PORT/
    (this machine only); with --watch, rebuild (incrementally) whenever a
    transcript or theme file changes. Ctrl-C stops it."""
    from .serve import serve

    config = site_config(**options)
    out = config.out

    def ready(url: str) -> None:
        _stderr(f"Serving {out} at {url} (this machine only). " +
                ("Watching for changes; " if watch else "") + "Ctrl-C to stop.")

    try:
        check_outside_agent_homes(config.out)
        serve(config, port=port, watch=watch, redaction_key=redaction_key(),
              on_build=lambda result: _stderr(summary(result, config, notes=unsaid_notes(result.out, result.notes))),
              on_ready=ready)
    except KeyboardInterrupt:
        _stderr("Stopped.")
    except (BoughError, OSError) as err:  # OSError: the port is taken
        _stderr(f"bough: {_with_flags(err) if isinstance(err, BoughError) else err}")
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
