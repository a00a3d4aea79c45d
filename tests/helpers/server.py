"""The site served over HTTP under a sub-path, with netlify.toml's headers, remembering
every error it answered."""

from __future__ import annotations

import contextlib
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from .repo import REPO


SUBPATH = "/archive/"


def netlify_headers() -> list[tuple[str, dict[str, str]]]:
    with (REPO / "netlify.toml").open("rb") as handle:
        rules = tomllib.load(handle)["headers"]
    return [(rule["for"], rule["values"]) for rule in rules]


def _matches(pattern: str, path: str) -> bool:
    return path.startswith(pattern[:-1]) if pattern.endswith("*") else path == pattern


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site under SUBPATH only, with netlify.toml's headers; remembers every 4xx/5xx."""

    rules: ClassVar[list[tuple[str, dict[str, str]]]] = []
    errors: ClassVar[list[str]] = []

    def send_head(self):  # type: ignore[no-untyped-def]
        if not urlsplit(self.path).path.startswith(SUBPATH):
            self.send_error(404, "outside the site's sub-path")
            return None
        return super().send_head()

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        return super().translate_path("/" + path[len(SUBPATH) :] if path.startswith(SUBPATH) else path)

    def end_headers(self) -> None:
        site_path = "/" + urlsplit(self.path).path[len(SUBPATH) :]
        for pattern, values in self.rules:
            if _matches(pattern, site_path):
                for name, value in values.items():
                    self.send_header(name, value)
        super().end_headers()

    def send_response(self, code: int, message: str | None = None) -> None:
        if code >= 400:
            self.errors.append(f"HTTP {code} for {self.path}")
        super().send_response(code, message)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Server:
    base: str  # http://127.0.0.1:PORT/archive/
    errors: list[str]


@contextlib.contextmanager
def serving(root: Path) -> Iterator[Server]:
    """The site in ``root`` served over HTTP on 127.0.0.1 under SUBPATH, until the block ends."""
    errors: list[str] = []
    handler = type("Handler", (_SiteHandler,), {"rules": netlify_headers(), "errors": errors})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, name="bough-test-http", daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}{SUBPATH}", errors)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
