"""``bough serve``: build, serve OUT on 127.0.0.1, and rebuild on change.

The site is served from OUT by ``http.server`` (one thread per connection, one
request per connection) on the loopback interface only: an archive of one's
sessions is nobody else's business. With ``watch``, ``watchfiles`` follows the
transcript sources and the theme; after each burst of changes the site is built
again with the same config, which is incremental (manifest.py): only the
sessions whose files changed are read and rendered again. The writer renames
every file into place, so a page being served is always whole, old or new.

Being safe to leave running (the ``bough serve`` rules in docs/safety.md):

- Only requests *for* this machine are answered: the ``Host:`` header must name
  ``localhost``, ``127.0.0.1``, ``[::1]`` or the bound address (any port, or
  none). Anything else gets 421 Misdirected Request (the request names another
  server, which this is not): a web page that points its own domain name at
  127.0.0.1 (DNS rebinding) reaches this server with its own name in ``Host:``,
  and must not read the site through it.
- A request line that is not ``METHOD TARGET HTTP/1.x`` gets 400, one over
  ``MAX_REQUEST_LINE`` bytes gets 414, a target that is not a plain path (NULs
  and other control characters, bad percent-encoding, text that is not UTF-8,
  ``..``) gets 400: every request gets a status line, none a traceback.
- A connection that stays idle ``IDLE_TIMEOUT_S`` is closed (with 408 when a
  request was begun), and at most ``MAX_CONNECTIONS`` are served at once (503
  beyond): a client can hold a thread only for a few seconds at a time.
- A file is opened one path component at a time, relative to the folder before
  it, never through a symlink, and only if it is a regular file (a directory
  gives its ``index.html``; there are no listings): nothing outside OUT is ever
  served, whatever was planted in it. Links that stay inside OUT are refused
  too: bough writes none (the writer refuses any path through one), so a link in
  OUT was put there by someone else, and "no link at all" is one rule that needs
  no resolving and leaves no time between a check and the open for a link to be
  swapped in. OUT itself may be a link.

With ``watch``, an open page also reloads itself when a rebuild changed its
file: every HTML page served gets a ``<script>`` for ``/__bough__/live.js``
(bough_site/live.js, served from the package, never written into OUT) carrying
the stamp of the page's file (mtime and size) as it was served; the script asks
``/__bough__/stamp`` for the stamp again every second and reloads on a new one.
The pages' CSP (``script-src 'self'``) allows it as it is; ``bough build``'s
output never holds it. A rebuild that fails, for whatever reason, is reported
as one block of lines and the last good site stays served and watched.

Ctrl-C (KeyboardInterrupt) stops the server and the watcher and returns; the
library prints nothing (``report`` gets a line at a time, as for a build).
"""

from __future__ import annotations

import html
import io
import os
import re
import socket
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Self
from urllib.parse import parse_qs, quote, unquote_to_bytes

from .build import BuildResult, build
from .config import BuildConfig
from .errors import BoughError

HOST = "127.0.0.1"
# The names a request may give in Host: (with the bound address, see SiteServer).
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
# How long a connection may stay silent (no byte read or written) before it is closed.
# A browser sends its request at once and reads at once; 5 s is far more than that needs
# on one machine, and short enough that a client that connects and says nothing frees its
# thread soon. (Each request has its own connection, so there is no keep-alive to cut.)
IDLE_TIMEOUT_S = 5.0
# Connections served at once; more wait for none, they get 503. A browser opens at most
# six per host, a few tabs with the live-reload script a few more: 64 is ample for one
# person, and 64 threads are cheap. It bounds what a local process trickling bytes (never
# idle, so never timed out) can hold.
MAX_CONNECTIONS = 64
# The longest request line answered (method, target, version): 8 KiB, as common servers
# allow. bough's own URLs are a few hundred bytes at most (names are cut, docs/safety.md S7).
MAX_REQUEST_LINE = 8192
# Once answered, the client may still be sending (the rest of a long line, a body no one
# reads): read and drop up to this much for up to this long before closing, or the kernel
# would reset the connection and the client could lose the answer. A client that closes
# when it has read the answer, as every browser does, is not waited for.
LINGER_BYTES = 1 << 20
LINGER_S = 2.0
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

_HOST_VALUE = re.compile(r"(\[[0-9a-f:.]+\]|[^\[\]:@\s]+)(?::[0-9]{1,5})?")
_PERCENT_ENCODED = re.compile(r"(?:[^%]|%[0-9A-Fa-f]{2})*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Opening OUT's files: never through a symlink (O_NOFOLLOW: ELOOP), never blocking on a
# FIFO or claiming a terminal, and every name below OUT relative to its folder's descriptor.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def stamp(path: Path) -> str:
    """What changes when a build rewrites a file (the writer renames a new file into place)."""
    return _stamp_of(path.stat())


def _stamp_of(info: os.stat_result) -> str:
    return f"{info.st_mtime_ns}-{info.st_size}"


# --- what a request may ask --------------------------------------------------------------


class Refused(Exception):
    """A request answered with an error status and a short plain explanation."""

    def __init__(self, status: HTTPStatus, explain: str) -> None:
        super().__init__(explain)
        self.status = status
        self.explain = explain


def host_name(value: str) -> str | None:
    """The name a ``Host:`` value gives (lower case, without its port), or None when the
    value is not ``name[:port]``."""
    match = _HOST_VALUE.fullmatch(value.strip().lower())
    return match.group(1) if match else None


def request_path(target: str) -> tuple[str, str]:
    """The decoded path and the raw query of a request target, which must be an
    absolute path of printable ASCII whose percent-escapes decode to UTF-8 with no
    control character and no ``..`` segment; else ``Refused`` (400)."""
    if not target.startswith("/"):
        raise Refused(HTTPStatus.BAD_REQUEST, "the target must be a path starting with /")
    if any(not 0x21 <= ord(char) <= 0x7E for char in target):
        raise Refused(HTTPStatus.BAD_REQUEST, "the target holds a character that is not printable ASCII")
    path, _, query = target.partition("?")
    path = path.partition("#")[0]
    if not _PERCENT_ENCODED.fullmatch(path):
        raise Refused(HTTPStatus.BAD_REQUEST, "the path holds a % that is not an escape")
    try:
        decoded = unquote_to_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(HTTPStatus.BAD_REQUEST, "the path is not UTF-8") from None
    if _CONTROL.search(decoded):
        raise Refused(HTTPStatus.BAD_REQUEST, "the path holds a control character")
    if ".." in decoded.split("/"):
        raise Refused(HTTPStatus.BAD_REQUEST, "the path holds a .. segment")
    return decoded, query


def path_parts(decoded: str) -> list[str]:
    """The names a decoded path goes through below OUT (empty and ``.`` ones dropped)."""
    return [part for part in decoded.split("/") if part not in ("", ".")]


# --- OUT's files, never through a symlink ------------------------------------------------


def _open_name(folder: int, name: str) -> int:
    """``name`` in the folder open as ``folder``, if it is a regular file or a folder
    (checked before opening: opening a device can have effects); OSError otherwise."""
    mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise FileNotFoundError(name)
    return os.open(name, _FILE_FLAGS, dir_fd=folder)


def open_inside(root: str, parts: Sequence[str]) -> int:
    """A descriptor for ``root/parts...``: each folder opened relative to the one
    before it, with no symlink followed anywhere below ``root`` (OSError: ELOOP,
    ENOTDIR, ENOENT ...). Nothing outside ``root`` can be reached, even if links are
    swapped in while it looks. ``root`` itself may be a link (OUT given as one)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            folder = fd
            fd = os.open(part, _DIR_FLAGS, dir_fd=folder)
            os.close(folder)
        if parts:
            folder = fd
            fd = _open_name(folder, parts[-1])
            os.close(folder)
        return fd
    except BaseException:
        os.close(fd)
        raise


class _Found:
    """A regular file of OUT, open, with what fstat said of it and its name."""

    def __init__(self, handle: BinaryIO, info: os.stat_result, name: str) -> None:
        self.handle, self.info, self.name = handle, info, name


class _Redirect(Exception):
    """A folder asked for without its slash: the browser is sent to it with one."""


def find_file(root: str, decoded: str) -> _Found | None:
    """The regular file a decoded path names in OUT (a folder's ``index.html``, if the
    path ends in ``/``), or None. ``_Redirect`` for a folder without its slash."""
    parts = path_parts(decoded)
    try:
        fd = open_inside(root, parts)
    except (OSError, ValueError):  # ValueError: no NUL reaches here, but never a traceback
        return None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            if not decoded.endswith("/"):
                raise _Redirect()
            folder, fd = fd, -1
            try:
                fd = _open_name(folder, "index.html")
            except OSError:
                return None
            finally:
                os.close(folder)
            info = os.fstat(fd)
            parts = [*parts, "index.html"]
        if not stat.S_ISREG(info.st_mode):
            return None
        handle, fd = os.fdopen(fd, "rb"), -1
        return _Found(handle, info, parts[-1] if parts else "index.html")
    finally:
        if fd >= 0:
            os.close(fd)


# --- the handler -------------------------------------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    """Serves OUT's files; pages are asked for again on reload (the site changes under
    it). With ``live``, HTML pages get the live-reload script (see the module docstring).
    One request per connection (HTTP/1.0): nothing is kept open between requests."""

    live = False
    timeout = IDLE_TIMEOUT_S  # set on the socket: every read and write waits at most this
    default_request_version = "HTTP/1.0"  # never "HTTP/0.9": its answers have no status line
    error_content_type = "text/plain; charset=utf-8"
    error_message_format = "%(code)d %(message)s: %(explain)s\n"
    server: SiteHTTPServer
    decoded = "/"
    query = ""
    _started = False

    # Reading the request

    def handle_one_request(self) -> None:
        self.close_connection = True
        try:
            if not self.rfile.peek(1):
                return  # closed before asking anything: nobody to answer
        except TimeoutError:
            return  # connected and said nothing (a browser's spare connection): closed, no answer
        try:
            self._answer_one()
        except TimeoutError:
            if not self._started:  # a request begun and never finished
                self.send_error(HTTPStatus.REQUEST_TIMEOUT, "the request was not finished in time")

    def _answer_one(self) -> None:
        # What an error answer looks at, before the request line says otherwise.
        self.requestline, self.command, self.request_version = "", "", self.default_request_version
        self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE + 1)
        if len(self.raw_requestline) > MAX_REQUEST_LINE:
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG, f"the request line is over {MAX_REQUEST_LINE} bytes")
            return
        if not self.parse_request():
            return
        method = getattr(self, "do_" + self.command, None)
        if method is None:
            self.send_error(HTTPStatus.NOT_IMPLEMENTED, "only GET and HEAD are served")
            return
        method()
        self.wfile.flush()

    def parse_request(self) -> bool:
        # The base class sends no answer at all for a blank line, and takes two words as
        # HTTP/0.9 (answered without a status line): both are refused here first.
        if len(str(self.raw_requestline, "iso-8859-1").split()) != 3:
            self.send_error(HTTPStatus.BAD_REQUEST, "the request line must be METHOD PATH HTTP/1.x")
            return False
        if not super().parse_request():
            return False
        try:
            self._check_version()
            self._check_host()
            self.decoded, self.query = request_path(self.path)
        except Refused as refused:
            self.send_error(refused.status, refused.explain)
            return False
        return True

    def _check_version(self) -> None:
        if self.request_version not in ("HTTP/1.0", "HTTP/1.1"):
            raise Refused(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, "only HTTP/1.0 and HTTP/1.1 are served")

    def _check_host(self) -> None:
        """DNS rebinding: see the module docstring."""
        given = self.headers.get_all("Host") or []
        if len(given) > 1:
            raise Refused(HTTPStatus.BAD_REQUEST, "more than one Host header")
        if not given:
            if self.request_version == "HTTP/1.0":
                return  # no browser sends a request without Host: a local tool
            raise Refused(HTTPStatus.BAD_REQUEST, "an HTTP/1.1 request needs a Host header")
        if host_name(given[0]) not in self.server.local_names:
            raise Refused(HTTPStatus.MISDIRECTED_REQUEST,
                          "bough serve answers only requests for localhost, 127.0.0.1 or [::1]")

    # Answering

    def send_response_only(self, code: int, message: str | None = None) -> None:
        self._started = True
        if self.request_version == "HTTP/0.9":  # "GET / HTTP/0.9": answered as 1.0, with a status line
            self.request_version = "HTTP/1.0"
        super().send_response_only(code, message)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if self._started:
            return  # headers already gone: the connection is closed, nothing more to say
        # The reason phrase is always the standard one; the explanation (never the
        # request's own text at length) goes in the plain body.
        super().send_error(code, None, (explain or message or HTTPStatus(code).description)[:200])

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a local preview: no access log on the terminal

    def send_head(self) -> BinaryIO | None:  # type: ignore[override]
        try:
            return self._send_head()
        except (ConnectionError, TimeoutError):
            raise
        except Exception as err:  # a bug: one line on the terminal, a 500 to the browser
            self.server.report_bug(err)
            self.send_error(HTTPStatus.INTERNAL_SERVER_ERROR, "bough serve could not answer this request")
            return None

    def _send_head(self) -> BinaryIO | None:
        if self.live and self.decoded.startswith(LIVE_PREFIX):
            return self._live()
        try:
            found = find_file(self.server.root, self.decoded)
        except _Redirect:
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", self.path.partition("?")[0].partition("#")[0] + "/"
                             + ("?" + self.query if self.query else ""))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if found is None:
            self.send_error(HTTPStatus.NOT_FOUND, "no such file")
            return None
        if self.live and found.name.endswith(".html"):
            with found.handle:
                return self._send_page(found.handle.read(), found.info)
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(found.name))
        self.send_header("Content-Length", str(found.info.st_size))
        self.send_header("Last-Modified", self.date_time_string(int(found.info.st_mtime)))
        self.end_headers()
        return found.handle

    def _send_page(self, data: bytes, info: os.stat_result) -> BinaryIO:
        # the stamp of the file read, even if a build renames another into place
        tag = (f'<script src="{LIVE_SCRIPT}" data-stamp="{_stamp_of(info)}" '
               f'data-stamp-url="{html.escape(LIVE_STAMP + "?path=" + quote(self.path.partition("?")[0]))}" '
               'defer></script>')
        head_end = data.find(b"</head>")
        if head_end >= 0:
            data = data[:head_end] + tag.encode() + b"\n" + data[head_end:]
        return self._send(data, "text/html; charset=utf-8")

    def _live(self) -> BinaryIO | None:
        if self.decoded == LIVE_SCRIPT:
            return self._send(LIVE_JS.read_bytes(), "text/javascript; charset=utf-8")
        if self.decoded == LIVE_STAMP:
            asked = parse_qs(self.query).get("path", [""])[0]
            return self._send(self._page_stamp(asked).encode(), "text/plain; charset=utf-8")
        self.send_error(HTTPStatus.NOT_FOUND, "no such file")
        return None

    def _page_stamp(self, asked: str) -> str:
        """The stamp of the page a path names now, or "" (no such page: asked again in a second)."""
        try:
            decoded, _ = request_path(asked)
            found = find_file(self.server.root, decoded)
        except (Refused, _Redirect):
            return ""
        if found is None:
            return ""
        with found.handle:
            return _stamp_of(found.info) if found.name.endswith(".html") else ""

    def _send(self, data: bytes, content_type: str) -> BinaryIO:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)

    def finish(self) -> None:
        super().finish()
        _drain(self.connection)


def _drain(connection: socket.socket) -> None:
    """Say we are done, then read and drop what the client still sends (bounded), so
    that closing does not reset the connection before the client read the answer."""
    try:
        connection.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + LINGER_S
        dropped = 0
        while dropped < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
            connection.settimeout(left)
            chunk = connection.recv(65536)
            if not chunk:
                return
            dropped += len(chunk)
    except OSError:  # reset, timed out: the client is gone or silent, nothing to save
        pass


# --- the server --------------------------------------------------------------------------

_BUSY_BODY = b"503 Service Unavailable: too many connections open\n"
_BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
         b"Content-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" % len(_BUSY_BODY)) + _BUSY_BODY


class SiteHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server with at most ``max_connections`` connections served at
    once, that turns a bug while answering into one line for ``report`` (never a
    traceback) and says nothing of a client that went away."""

    daemon_threads = True
    # The kernel's queue of connections not yet accepted: a burst (a page and its assets,
    # several tabs) waits there instead of being retried by the client a second later.
    request_queue_size = MAX_CONNECTIONS

    def __init__(self, address: tuple[str, int], handler: Callable[..., _Handler], *, root: str,
                 max_connections: int, report: Callable[[str], None]) -> None:
        self.root = root
        self.report = report
        self.slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, handler)
        bound = str(self.server_address[0])
        self.local_names = LOCAL_NAMES | {f"[{bound}]" if ":" in bound else bound}

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            _refuse(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)) or error is None:
            return  # the client went away or stalled: nothing to report
        self.report_bug(error)

    def report_bug(self, error: BaseException) -> None:
        self.report(f"warning: bough serve could not answer a request: {type(error).__name__}: {error}"
                    f"{_where(error)}; please report")


def _refuse(request: socket.socket) -> None:
    """503 from the accepting thread, without waiting on the client."""
    try:
        request.setblocking(False)
        try:
            request.recv(65536)  # what already came: closing on unread bytes resets the connection
        except OSError:
            pass
        request.settimeout(1.0)
        request.sendall(_BUSY)
    except OSError:
        pass


class SiteServer:
    """OUT served on 127.0.0.1 from a background thread; ``port`` 0 picks a free one.
    ``live``: pages reload themselves when a rebuild changes them (``bough serve --watch``).
    ``report`` gets a line for a bug met while answering."""

    def __init__(self, out: Path, port: int = 8000, *, live: bool = False,
                 report: Callable[[str], None] = lambda line: None,
                 idle_timeout: float = IDLE_TIMEOUT_S, max_connections: int = MAX_CONNECTIONS) -> None:
        handler = type("Handler", (_Handler,), {"live": live, "timeout": idle_timeout})
        root = os.path.realpath(out)  # OUT may be a link; below it, none is followed
        self.httpd = SiteHTTPServer((HOST, port), partial(handler, directory=root), root=root,
                                    max_connections=max_connections, report=report)
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


# --- watching ----------------------------------------------------------------------------


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


def rebuild_failure(error: Exception) -> str:
    """The block of lines a failed rebuild shows: what failed and that serving goes on.
    bough's own errors are the user's to fix and say so themselves; anything else is
    named by its type and where it was raised, to be reported."""
    lines = ["error: the rebuild failed; the last good site stays served, still watching for changes"]
    if isinstance(error, BoughError):
        lines.append(f"  {error}")
    else:
        lines.append(f"  {type(error).__name__}: {error}{_where(error)}")
        lines.append("  (if a theme or input of yours did not cause this, it is a bug in bough: please report it)")
    return "\n".join(lines)


def _where(error: BaseException) -> str:
    """`` (at file:line)``: the innermost frame the error was raised in, if known."""
    frames = traceback.extract_tb(error.__traceback__)
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


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
    A first build that fails raises (there is no site to serve); a rebuild that fails,
    whatever the error, is reported and the last good site stays served and watched."""
    on_build(build(config, redaction_key=redaction_key))
    stop = stop or threading.Event()
    with SiteServer(config.out, port, live=watch, report=config.report) as server:
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
            except Exception as error:  # not KeyboardInterrupt: Ctrl-C still stops
                config.report(rebuild_failure(error))
