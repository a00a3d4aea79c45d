"""``bough serve``: build, serve OUT on 127.0.0.1, and rebuild on change.

The site is served from OUT by ``http.server`` (one thread per request) on the
loopback interface only: an archive of one's sessions is nobody else's
business. With ``watch``, ``watchfiles`` follows the transcript sources and the
theme; after each burst of changes the site is built again with the same
config, which is incremental (manifest.py): only the sessions whose files
changed are read and rendered again. The writer renames every file into place,
so a page being served is always whole, old or new.

Ctrl-C (KeyboardInterrupt) stops the server and the watcher and returns; the
library prints nothing (``report`` gets a line at a time, as for a build).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

from .build import BuildResult, build
from .config import BuildConfig
from .errors import BoughError

HOST = "127.0.0.1"
# After the first change, wait this long for more before rebuilding (ms).
DEBOUNCE_MS = 200
# Transcript files (Claude sessions and sub-agents, Codex rollouts and its index)
# and Claude's sub-agent sidecars; in a theme, every file.
WATCHED_SUFFIXES = (".jsonl", ".meta.json")


class _Handler(SimpleHTTPRequestHandler):
    """Serves OUT; pages are asked for again on reload (the site changes under it)."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a local preview: no access log on the terminal


class SiteServer:
    """OUT served on 127.0.0.1 from a background thread; ``port`` 0 picks a free one."""

    def __init__(self, out: Path, port: int = 8000) -> None:
        self.httpd = ThreadingHTTPServer((HOST, port), partial(_Handler, directory=str(out)))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="bough-serve", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.httpd.server_address[1]}/"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


def watch_paths(config: BuildConfig) -> list[Path]:
    """Where a change means a rebuild: the sources given (else the agents'
    default homes), and the theme; only those that exist (one that does not
    yet exist cannot be watched)."""
    paths = [Path(p) for p in config.roots() if Path(p).exists()]
    if config.theme is not None and Path(config.theme).is_dir():
        paths.append(Path(config.theme))
    return sorted({p.resolve() for p in paths})


def is_watched(path: str, theme: Path | None) -> bool:
    """Whether a changed path can change the site: a transcript, or a theme file."""
    if theme is not None and Path(path).resolve().is_relative_to(Path(theme).resolve()):
        return True
    return path.endswith(WATCHED_SUFFIXES)


def changes(paths: list[Path], theme: Path | None, stop: threading.Event | None = None) -> Iterator[set[str]]:
    """Each burst of relevant changes under ``paths``, as the set of paths changed."""
    import watchfiles

    for batch in watchfiles.watch(*paths, watch_filter=lambda _, path: is_watched(path, theme),
                                  debounce=DEBOUNCE_MS, step=50, stop_event=stop, raise_interrupt=True):
        yield {path for _, path in batch}


def serve(
    config: BuildConfig,
    *,
    port: int = 8000,
    watch: bool = False,
    redaction_key: bytes | None = None,
    on_build: Callable[[BuildResult], None] = lambda result: None,
    on_ready: Callable[[str], None] = lambda url: None,
    stop: threading.Event | None = None,
) -> None:
    """Build, then serve until ``stop`` is set or Ctrl-C; rebuild on change with ``watch``.
    A first build that fails raises; a failed rebuild is reported and the last good
    site stays served."""
    on_build(build(config, redaction_key=redaction_key))
    stop = stop or threading.Event()
    with SiteServer(config.out, port) as server:
        on_ready(server.url)
        if not watch:
            while not stop.wait(0.5):
                pass
            return
        paths = watch_paths(config)
        if not paths:
            config.report("warning: nothing to watch (no source directory exists yet); serving without rebuilding")
            while not stop.wait(0.5):
                pass
            return
        config.report("watching " + ", ".join(str(p) for p in paths))
        for changed in changes(paths, config.theme, stop):
            config.report(f"changed: {len(changed)} file{'s' if len(changed) != 1 else ''}; rebuilding")
            try:
                on_build(build(config, redaction_key=redaction_key))
            except BoughError as err:
                config.report(f"warning: the rebuild failed, the last site stays served: {err}")
