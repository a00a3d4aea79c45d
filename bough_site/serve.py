"""``bough serve``: build, serve OUT on 127.0.0.1, and rebuild on change.

The site is served from OUT by ``http.server`` (one thread per request) on the
loopback interface only: an archive of one's sessions is nobody else's
business. With ``watch``, ``watchfiles`` follows the transcript sources and the
theme; after each burst of changes the site is built again with the same
config, which is incremental (manifest.py): only the sessions whose files
changed are read and rendered again. The writer renames every file into place,
so a page being served is always whole, old or new.

With ``watch``, an open page also reloads itself when a rebuild changed its
file: every HTML page served gets a ``<script>`` for ``/__bough__/live.js``
(bough_site/live.js, served from the package, never written into OUT) carrying
the stamp of the page's file (mtime and size) as it was served; the script asks
``/__bough__/stamp`` for the stamp again every second and reloads on a new one.
The pages' CSP (``script-src 'self'``) allows it as it is; ``bough build``'s
output never holds it.

Ctrl-C (KeyboardInterrupt) stops the server and the watcher and returns; the
library prints nothing (``report`` gets a line at a time, as for a build).
"""

from __future__ import annotations

import html
import io
import os
import threading
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Self
from urllib.parse import parse_qs, quote, urlsplit

from .build import BuildResult, build
from .config import BuildConfig
from .errors import BoughError

HOST = "127.0.0.1"
# After the first change, wait this long for more before rebuilding (ms).
DEBOUNCE_MS = 200
# Transcript files (Claude sessions and sub-agents, Codex rollouts and its index,
# Gemini CLI's sessions, .jsonl and legacy .json), Claude's sub-agent sidecars and the
# files Gemini CLI names its projects' directories in (projects.json, .project_root);
# in a theme, every file. Nothing under OUT: the build's own writes are no change.
WATCHED_SUFFIXES = (".jsonl", ".json", ".project_root")
# The live-reload script and the stamps it asks for: paths no site file has.
LIVE_PREFIX = "/__bough__/"
LIVE_SCRIPT = LIVE_PREFIX + "live.js"
LIVE_STAMP = LIVE_PREFIX + "stamp"
LIVE_JS = Path(__file__).with_name("live.js")


def stamp(path: Path) -> str:
    """What changes when a build rewrites a file (the writer renames a new file into place)."""
    return _stamp_of(path.stat())


def _stamp_of(info: os.stat_result) -> str:
    return f"{info.st_mtime_ns}-{info.st_size}"


class _Handler(SimpleHTTPRequestHandler):
    """Serves OUT; pages are asked for again on reload (the site changes under it).
    With ``live``, HTML pages get the live-reload script (see the module docstring)."""

    live = False

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a local preview: no access log on the terminal

    def send_head(self) -> BinaryIO | None:  # type: ignore[override]
        if not self.live:
            return super().send_head()
        path = urlsplit(self.path).path
        if path.startswith(LIVE_PREFIX):
            return self._live(path)
        page = self._page(path)
        return self._send_page(page, path) if page is not None else super().send_head()

    def _page(self, path: str) -> Path | None:
        """The HTML file a URL path names (a directory's index.html), if there is one."""
        found = Path(self.translate_path(path))
        if found.is_dir():
            if not path.endswith("/"):
                return None  # the base class redirects to the path with its slash
            found = found / "index.html"
        return found if found.suffix == ".html" and found.is_file() else None

    def _send_page(self, page: Path, path: str) -> BinaryIO:
        with page.open("rb") as handle:
            data = handle.read()
            # the file read, even if a build renames another into place
            served = _stamp_of(os.fstat(handle.fileno()))
        tag = (f'<script src="{LIVE_SCRIPT}" data-stamp="{served}" '
               f'data-stamp-url="{html.escape(LIVE_STAMP + "?path=" + quote(path))}" defer></script>')
        head_end = data.find(b"</head>")
        if head_end >= 0:
            data = data[:head_end] + tag.encode() + b"\n" + data[head_end:]
        return self._send(data, "text/html; charset=utf-8")

    def _live(self, path: str) -> BinaryIO | None:
        if path == LIVE_SCRIPT:
            return self._send(LIVE_JS.read_bytes(), "text/javascript; charset=utf-8")
        if path == LIVE_STAMP:
            asked = parse_qs(urlsplit(self.path).query).get("path", [""])[0]
            page = self._page(asked) if asked.startswith("/") else None
            try:
                now = stamp(page) if page is not None else ""
            except OSError:  # renamed away between the look and the stat: asked again in a second
                now = ""
            return self._send(now.encode(), "text/plain; charset=utf-8")
        self.send_error(404, "no such file")
        return None

    def _send(self, data: bytes, content_type: str) -> BinaryIO:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)


class SiteServer:
    """OUT served on 127.0.0.1 from a background thread; ``port`` 0 picks a free one.
    ``live``: pages reload themselves when a rebuild changes them (``bough serve --watch``)."""

    def __init__(self, out: Path, port: int = 8000, *, live: bool = False) -> None:
        handler = type("Handler", (_Handler,), {"live": live})
        self.httpd = ThreadingHTTPServer((HOST, port), partial(handler, directory=str(out)))
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


def is_watched(path: str, theme: Path | None, out: Path | None = None) -> bool:
    """Whether a changed path can change the site: a transcript, or a theme file
    (never a file of the site itself, when OUT lies under a watched folder)."""
    resolved = Path(path).resolve()
    if out is not None and resolved.is_relative_to(Path(out).resolve()):
        return False
    if theme is not None and resolved.is_relative_to(Path(theme).resolve()):
        return True
    return path.endswith(WATCHED_SUFFIXES)


def changes(paths: list[Path], theme: Path | None, stop: threading.Event | None = None,
            out: Path | None = None) -> Iterator[set[str]]:
    """Each burst of relevant changes under ``paths``, as the set of paths changed."""
    import watchfiles

    for batch in watchfiles.watch(*paths, watch_filter=lambda _, path: is_watched(path, theme, out),
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
    with SiteServer(config.out, port, live=watch) as server:
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
        for changed in changes(paths, config.theme, stop, config.out):
            config.report(f"changed: {len(changed)} file{'s' if len(changed) != 1 else ''}; rebuilding")
            try:
                on_build(build(config, redaction_key=redaction_key))
            except BoughError as err:
                config.report(f"warning: the rebuild failed, the last site stays served: {err}")
