"""``bough serve`` is safe to leave running: what it answers to raw requests.

A real server on 127.0.0.1 (port 0) over raw sockets: only requests for this
machine are answered (``Host:``: DNS rebinding), a malformed or overlong request
gets 400 or 414 with a status line (never no answer, never a traceback), an idle
connection is closed after a few seconds and no more than ``MAX_CONNECTIONS`` are
served at once, and nothing is served through a symlink planted in OUT. Then a
Hypothesis property test sends generated requests (random bytes, percent-escapes,
NULs, overlong lines, ``..``, odd Host values) to the plain and the live server
and checks every answer.

The property test runs the loaded Hypothesis profile's number of examples (100 by
default, a second or two), or ``BOUGH_FUZZ_EXAMPLES`` when set (a long run:
``BOUGH_FUZZ_EXAMPLES=20000``).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bough_site.serve as serve_module
from bough_site.serve import SiteServer

INDEX = b"<!DOCTYPE html><html><head><title>in</title></head><body>INSIDE-INDEX</body></html>\n"
PAGE = b"<!DOCTYPE html><html><head><title>p</title></head><body>INSIDE-PAGE</body></html>\n"
SECRET = b"OUTSIDE-SECRET-5f2c"  # in files next to OUT, never to be served
LINE_LIMIT = 8192  # the longest request line answered (bough_site/serve.py MAX_REQUEST_LINE)
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5][0-9][0-9]) [^\r\n]*\r\n")


def make_site(root: Path) -> Path:
    """OUT with a page, a folder, and what someone planted: symlinks to files and a
    folder outside, a symlink inside, a FIFO, a folder without index.html; secrets
    beside OUT."""
    out = root / "site"
    (out / "projects" / "p").mkdir(parents=True)
    (out / "empty").mkdir()
    (out / "index.html").write_bytes(INDEX)
    (out / "projects" / "p" / "index.html").write_bytes(PAGE)
    (out / "data.json").write_bytes(b'{"ok": true}')
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    (outside / "index.html").write_bytes(b"<html><head></head>" + SECRET + b"</html>")
    (root / "secret.txt").write_bytes(SECRET)
    (out / "leak.txt").symlink_to(outside / "secret.txt")
    (out / "leak.html").symlink_to(outside / "index.html")
    (out / "leakdir").symlink_to(outside, target_is_directory=True)
    (out / "projects" / "up").symlink_to("../..", target_is_directory=True)  # resolves to OUT's parent
    (out / "inner.html").symlink_to("index.html")  # inside OUT: refused too (bough writes no link)
    os.mkfifo(out / "fifo.html")  # opening it for reading would wait for a writer forever
    return out


def exchange(port: int, data: bytes, timeout: float = 15.0) -> bytes:
    """Send ``data`` on a new connection and read everything until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        try:
            conn.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered and closed before all was sent: the answer is still to read
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    return received


def status_of(response: bytes) -> int:
    match = STATUS_LINE.match(response)
    assert match, f"no status line in {response[:200]!r}"
    return int(match.group(1))


def body_of(response: bytes) -> bytes:
    return response.partition(b"\r\n\r\n")[2]


def header_of(response: bytes, name: bytes) -> bytes | None:
    head = response.partition(b"\r\n\r\n")[0]
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


def get(port: int, path: str = "/", host: bytes | None = b"localhost") -> bytes:
    lines = [f"GET {path} HTTP/1.1".encode()] + ([b"Host: " + host] if host is not None else [])
    return exchange(port, b"\r\n".join(lines) + b"\r\n\r\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_site(tmp_path_factory.mktemp("serve"))


# What the module's servers report (a bug while answering): checked empty by each test.
REPORTED: list[str] = []


@pytest.fixture(scope="module")
def servers(site: Path) -> Iterator[dict[bool, SiteServer]]:
    """A plain and a live server (``--watch``) on the same OUT, for the whole module."""
    with SiteServer(site, 0, report=REPORTED.append) as plain, \
            SiteServer(site, 0, live=True, report=REPORTED.append) as live:
        yield {False: plain, True: live}


@pytest.fixture(params=[False, True], ids=["plain", "live"])
def server(request: pytest.FixtureRequest, servers: dict[bool, SiteServer]) -> Iterator[SiteServer]:
    yield servers[request.param]
    assert REPORTED == []


def port_of(server: SiteServer) -> int:
    return server.httpd.server_address[1]


# --- Host: only this machine ----------------------------------------------------------------


def test_only_requests_for_this_machine_are_answered(server: SiteServer) -> None:
    port = port_of(server)
    for host in [b"localhost", b"127.0.0.1", b"[::1]", b"LocalHost", f"localhost:{port}".encode(),
                 f"127.0.0.1:{port}".encode(), f"[::1]:{port}".encode(), b"localhost:8000"]:
        response = get(port, "/", host)
        assert status_of(response) == 200, host
        assert b"INSIDE-INDEX" in body_of(response)
    refused = (b"421 Misdirected Request: bough serve answers only requests for localhost, "
               b"127.0.0.1 or [::1]\n")
    for host in [b"attacker.example", f"attacker.example:{port}".encode(), b"localhost.attacker.example",
                 b"127.0.0.1.nip.io", b"127.0.0.2", b"0.0.0.0", b"[::2]", b"localhost.", b"user@localhost",
                 b"localhost:port", b"localhost:", b"localhost:8000:1", b"[::1", b"", b"local host",
                 b"xn--localhost", b"::1"]:
        response = get(port, "/", host)
        assert status_of(response) == 421, host
        assert header_of(response, b"Content-Type") == b"text/plain; charset=utf-8"
        assert body_of(response) == refused, host
    twice = exchange(port, b"GET / HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n")
    assert status_of(twice) == 400 and body_of(twice) == b"400 Bad Request: more than one Host header\n"
    no_host = get(port, "/", None)
    assert status_of(no_host) == 400
    assert body_of(no_host) == b"400 Bad Request: an HTTP/1.1 request needs a Host header\n"
    # An HTTP/1.0 request without Host cannot come from a browser (a local tool): served.
    assert status_of(exchange(port, b"GET / HTTP/1.0\r\n\r\n")) == 200


def test_a_rebinding_page_reads_nothing(server: SiteServer) -> None:
    """What a browser sends for a page on attacker.example whose name now resolves to
    127.0.0.1: its own name in Host. Nothing of the site comes back, whatever the path."""
    for path in ["/", "/index.html", "/projects/p/", "/data.json", "/__bough__/live.js",
                 "/__bough__/stamp?path=/"]:
        request = urllib.request.Request(server.url.rstrip("/") + path, headers={"Host": "attacker.example:8000"})
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(request, timeout=10)
        assert raised.value.code == 421
        assert b"INSIDE" not in raised.value.read()


# --- malformed and overlong requests ----------------------------------------------------------


MALFORMED = [
    # (request, status, body)
    (b"GET /%00 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, b"the path holds a control character"),
    (b"GET /index.html%00.txt HTTP/1.0\r\n\r\n", 400, b"the path holds a control character"),
    (b"GET /%0d%0aSet-Cookie:x HTTP/1.0\r\n\r\n", 400, b"the path holds a control character"),
    (b"GET /%zz HTTP/1.0\r\n\r\n", 400, b"the path holds a % that is not an escape"),
    (b"GET /% HTTP/1.0\r\n\r\n", 400, b"the path holds a % that is not an escape"),
    (b"GET /%ff%fe HTTP/1.0\r\n\r\n", 400, b"the path is not UTF-8"),
    (b"GET /%c0%ae%c0%ae/secret.txt HTTP/1.0\r\n\r\n", 400, b"the path is not UTF-8"),
    (b"GET /../secret.txt HTTP/1.0\r\n\r\n", 400, b"the path holds a .. segment"),
    (b"GET /%2e%2e/secret.txt HTTP/1.0\r\n\r\n", 400, b"the path holds a .. segment"),
    (b"GET /projects/..%2f..%2fsecret.txt HTTP/1.0\r\n\r\n", 400, b"the path holds a .. segment"),
    (b"GET /\xc3\xa9 HTTP/1.0\r\n\r\n", 400, b"the target holds a character that is not printable ASCII"),
    (b"GET http://attacker.example/ HTTP/1.0\r\n\r\n", 400, b"the target must be a path starting with /"),
    (b"GET * HTTP/1.0\r\n\r\n", 400, b"the target must be a path starting with /"),
    (b"GET / FOO\r\n\r\n", 400, b"Bad request version ('FOO')"),
    (b"GET /\r\n\r\n", 400, b"the request line must be METHOD PATH HTTP/1.x"),
    (b"\r\n\r\n", 400, b"the request line must be METHOD PATH HTTP/1.x"),
    (b"GET / HTTP/1.0 extra\r\n\r\n", 400, b"the request line must be METHOD PATH HTTP/1.x"),
    (b"GET / HTTP/0.9\r\n\r\n", 505, b"only HTTP/1.0 and HTTP/1.1 are served"),
    (b"GET / HTTP/2.0\r\n\r\n", 505, b"Invalid HTTP version (2.0)"),
    (b"DELETE / HTTP/1.0\r\n\r\n", 501, b"only GET and HEAD are served"),
    (b"POST / HTTP/1.0\r\nContent-Length: 70000\r\n\r\n" + b"x" * 70000, 501, b"only GET and HEAD are served"),
    (b"GET /" + b"a" * 60_000 + b" HTTP/1.0\r\n\r\n", 414, b"the request line is over 8192 bytes"),
    (b"GET /" + b"%41" * 40_000 + b" HTTP/1.0\r\n\r\n", 414, b"the request line is over 8192 bytes"),
    (b"GET /" + b"a" * 300_000 + b" HTTP/1.0\r\n\r\n", 414, b"the request line is over 8192 bytes"),
    (b"GET / HTTP/1.0\r\n" + b"X-A: b\r\n" * 150 + b"\r\n", 431, b"got more than 100 headers"),
]


@pytest.mark.parametrize("request_bytes,status,explain", MALFORMED, ids=[f"{i}" for i in range(len(MALFORMED))])
def test_malformed_and_overlong_requests_get_a_status_and_a_short_reason(
        server: SiteServer, request_bytes: bytes, status: int, explain: bytes,
        capfd: pytest.CaptureFixture[str]) -> None:
    response = exchange(port_of(server), request_bytes)
    assert status_of(response) == status, response[:300]
    phrase = {400: b"Bad Request", 414: b"Request-URI Too Long", 431: b"Request Header Fields Too Large",
              501: b"Not Implemented", 505: b"HTTP Version Not Supported"}[status]
    assert header_of(response, b"Content-Type") == b"text/plain; charset=utf-8"
    assert body_of(response) == b"%d %s: %s\n" % (status, phrase, explain)
    assert status_of(get(port_of(server))) == 200  # still answering
    assert "Traceback" not in capfd.readouterr().err


def test_a_folder_without_its_slash_is_redirected_and_no_folder_is_listed(server: SiteServer) -> None:
    port = port_of(server)
    moved = get(port, "/projects/p?x=1")
    assert status_of(moved) == 301 and header_of(moved, b"Location") == b"/projects/p/?x=1"
    assert b"INSIDE-PAGE" in body_of(get(port, "/projects/p/"))
    assert status_of(get(port, "/projects/")) == 404  # a folder without index.html: no listing
    assert status_of(get(port, "/empty/")) == 404
    assert body_of(get(port, "/data.json")) == b'{"ok": true}'
    assert body_of(get(port, "/./data.json")) == b'{"ok": true}'
    head = exchange(port, b"HEAD /data.json HTTP/1.0\r\n\r\n")
    assert status_of(head) == 200 and header_of(head, b"Content-Length") == b"12" and body_of(head) == b""


# --- symlinks in OUT ---------------------------------------------------------------------------


def test_no_symlink_in_out_is_followed(server: SiteServer) -> None:
    port = port_of(server)
    for path in ["/leak.txt", "/leak.html", "/leakdir/secret.txt", "/leakdir/", "/leakdir/index.html",
                 "/projects/up/secret.txt", "/projects/up/outside/secret.txt", "/inner.html", "/fifo.html"]:
        response = get(port, path)
        assert status_of(response) == 404, path
        assert body_of(response) == b"404 Not Found: no such file\n", path
    if status_of(get(port, "/__bough__/live.js")) == 200:  # the live server's stamps say nothing of them either
        for path in ["/leak.html", "/inner.html", "/leakdir/", "/fifo.html"]:
            stamp = get(port, "/__bough__/stamp?path=" + path)
            assert status_of(stamp) == 200 and body_of(stamp) == b"", path
    assert b"INSIDE-INDEX" in body_of(get(port, "/index.html"))


def test_out_given_as_a_symlink_is_served(site: Path, tmp_path: Path) -> None:
    link = tmp_path / "link-to-site"
    link.symlink_to(site, target_is_directory=True)
    with SiteServer(link, 0) as server:
        assert body_of(get(port_of(server), "/")) == INDEX
        assert status_of(get(port_of(server), "/leak.txt")) == 404


# --- idle connections and how many at once -----------------------------------------------------


def test_idle_connections_are_closed(site: Path) -> None:
    """A connection that says nothing is closed after IDLE_TIMEOUT_S with no answer; one
    that began a request and stopped gets 408. Neither holds its thread longer."""

    def handler_threads() -> int:
        return sum(thread.name.endswith("(process_request_thread)") for thread in threading.enumerate())

    timeout = serve_module.IDLE_TIMEOUT_S
    assert 1 <= timeout <= 10
    with SiteServer(site, 0) as server:
        silent = socket.create_connection(("127.0.0.1", port_of(server)), timeout=timeout + 10)
        begun = socket.create_connection(("127.0.0.1", port_of(server)), timeout=timeout + 10)
        begun.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
        started = time.monotonic()
        assert silent.recv(1024) == b""
        waited = time.monotonic() - started
        answer = b""
        while chunk := begun.recv(65536):
            answer += chunk
        # The clients keep their ends open: the server lets go of both threads anyway.
        deadline = time.monotonic() + serve_module.LINGER_S + 2
        while handler_threads() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert handler_threads() == 0
        silent.close()
        begun.close()
        assert timeout - 0.5 <= waited <= timeout + 3
        assert status_of(answer) == 408
        assert body_of(answer) == b"408 Request Timeout: the request was not finished in time\n"
        assert status_of(get(port_of(server))) == 200


def test_connections_beyond_the_cap_get_503_and_free_slots_are_used_again(site: Path) -> None:
    cap = serve_module.MAX_CONNECTIONS
    assert 8 <= cap <= 1024
    with SiteServer(site, 0) as server:
        port = port_of(server)
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(cap)]
        try:
            deadline = time.monotonic() + 3  # until the server has accepted every one
            while status_of(busy := get(port)) != 503 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert status_of(busy) == 503
            assert body_of(busy) == b"503 Service Unavailable: too many connections open\n"
            assert header_of(busy, b"Retry-After") == b"1"
        finally:
            for conn in held:
                conn.close()
        deadline = time.monotonic() + 5
        while status_of(response := get(port)) == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status_of(response) == 200


# --- the property test -------------------------------------------------------------------------

_ENV_EXAMPLES = os.environ.get("BOUGH_FUZZ_EXAMPLES")
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                **({"max_examples": int(_ENV_EXAMPLES)} if _ENV_EXAMPLES else {}))

ALLOWED_HOST = re.compile(r"(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?")
NO_CRLF = st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


def mostly(common: st.SearchStrategy[bytes], rare: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """``common`` four times in five: most requests get as far as the file lookup."""
    return st.integers(0, 4).flatmap(lambda roll: rare if roll == 0 else common)


SEGMENTS = st.one_of(
    st.sampled_from(["", ".", "..", "%2e%2e", "%2E.", ".%2e", "index.html", "projects", "p", "up", "empty",
                     "data.json", "leak.txt", "leak.html", "leakdir", "secret.txt", "outside", "inner.html",
                     "fifo.html", "__bough__", "live.js", "stamp", "%00", "%2f", "%2F..%2F", "%5c..%5c", "%c0%ae",
                     "%ff", "%", "%g0", "%0a", "%0d%0a", "~", "\\..\\", "..;", "%252e%252e", "%u002e", "?", "#",
                     "?path=/leak.html", "?path=/../secret.txt", "?path=%2Fleakdir%2F", "?path=/projects/up/"]),
    st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=12),
    st.text(max_size=6).map(lambda text: "".join(f"%{byte:02x}" for byte in text.encode("utf-8", "surrogatepass"))),
)
PATHS = st.one_of(
    st.lists(SEGMENTS, max_size=6).map(lambda parts: "/" + "/".join(parts)),
    st.lists(SEGMENTS, max_size=4).map(lambda parts: "/__bough__/stamp?path=/" + "/".join(parts)),
).map(lambda path: path.encode("utf-8", "surrogatepass"))
OVERLONG = st.one_of(
    st.integers(LINE_LIMIT - 40, LINE_LIMIT + 40).map(lambda n: b"/" + b"a" * n),
    st.integers(20_000, 70_000).map(lambda n: b"/" + b"%2e" * (n // 3)),
)
TARGETS = mostly(PATHS, st.one_of(OVERLONG, NO_CRLF, st.sampled_from([b"*", b"http://localhost/",
                                                                      b"//attacker.example/"])))
METHODS = mostly(st.sampled_from([b"GET", b"GET", b"HEAD"]),
                 st.one_of(st.sampled_from([b"POST", b"OPTIONS", b"get", b"PUT", b"CONNECT"]), NO_CRLF))
VERSIONS = mostly(st.sampled_from([b"HTTP/1.1", b"HTTP/1.0"]),
                  st.one_of(st.sampled_from([b"HTTP/0.9", b"HTTP/2.0", b"HTTP/1.01", b"HTTP/1", b"http/1.1",
                                             b"HTTP/9.9", b"HTTP/1.1 x", b""]), NO_CRLF))
HOST_VALUES = mostly(
    st.sampled_from([b"localhost", b"127.0.0.1", b"[::1]", b"localhost:8000", b"LOCALHOST", b" localhost ",
                     b"attacker.example", b"attacker.example:8000"]),
    st.one_of(st.sampled_from([b"localhost.attacker.example", b"127.0.0.1.nip.io", b"localhost.",
                               b"user@localhost", b"[::1", b"localhost:abc", b"", b"\x00localhost", b"localhost\x00",
                               b"127.0.0.1:", b"0x7f.1", b"2130706433", b"[::ffff:127.0.0.1]", b"localhost\tx"]),
              NO_CRLF),
)
HEADER_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-ABCXYZ", min_size=1, max_size=12).filter(
    lambda name: name.lower() != "host").map(str.encode)


@st.composite
def requests(draw: st.DrawFn) -> tuple[bytes, bool | None]:
    """A request as bytes, and whether its Host lets it be answered with content (the
    test's own rule: exactly one allowed Host, or none in an HTTP/1.0 request; None for
    bytes with no structure, which say what they say)."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.binary(max_size=400)) + b"\r\n\r\n", None
    method, target, version = draw(METHODS), draw(TARGETS), draw(VERSIONS)
    hosts = draw(mostly(st.lists(HOST_VALUES, min_size=1, max_size=1), st.lists(HOST_VALUES, max_size=3)))
    extra = draw(st.lists(st.tuples(HEADER_NAMES, NO_CRLF), max_size=3))
    newline = draw(mostly(st.just(b"\r\n"), st.just(b"\n")))
    lines = [method + b" " + target + (b" " + version if version else b"")]
    lines += [b"Host: " + host for host in hosts] + [name + b": " + value for name, value in extra]
    if len(hosts) == 1:
        value = hosts[0].decode("latin-1").strip().lower()
        host_ok = ALLOWED_HOST.fullmatch(value) is not None
    else:
        host_ok = not hosts and version == b"HTTP/1.0"
    return newline.join(lines) + newline + newline, host_ok


def test_any_request_gets_a_status_and_never_what_it_must_not(
        servers: dict[bool, SiteServer], capfd: pytest.CaptureFixture[str]) -> None:
    ports = [port_of(servers[False]), port_of(servers[True])]

    @FUZZ
    @given(request=requests(), which=st.sampled_from(ports))
    def answers(request: tuple[bytes, bool | None], which: int) -> None:
        data, host_ok = request
        response = exchange(which, data)
        status = status_of(response)  # never a dropped connection, never a missing status line
        assert SECRET not in response  # never a file from outside OUT
        assert b"Traceback" not in response
        if status < 400:
            assert host_ok is not False, (data[:300], response[:300])  # never content for another Host
            assert status in (200, 301), response[:300]

    answers()
    for port in ports:  # still answering afterwards
        assert b"INSIDE-INDEX" in body_of(get(port))
    assert REPORTED == []
    assert "Traceback" not in capfd.readouterr().err
