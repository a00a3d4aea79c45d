"""Secrets in what a build wrote (in every form, also inside compressed files and
bough's sqlite3 state), redaction labels computed apart from redact.py, long texts
without secrets, and a deadline for what could hang."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import hmac
import html
import random
import re
import signal
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path

import markupsafe
import orjson


KEY = b"test-key"  # the redaction key: conftest sets BOUGH_REDACTION_KEY to it for every test


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a FIFO opened for reading blocks forever)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"took more than {seconds}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def fingerprint(secret: str, key: bytes = KEY) -> str:
    """A secret's fingerprint in its redaction label, computed apart from redact.py."""
    return hmac.new(key, secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]


def redaction_label(kind: str, secret: str) -> str:
    return f"[redacted: {kind} {fingerprint(secret)}]"


def random_chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def forms(secret: str) -> list[bytes]:
    """The ways a secret could sit in an output file: raw, JSON-escaped, HTML-escaped
    (as the standard library and as markupsafe, which the templates and highlighter use)."""
    return sorted({secret.encode(), orjson.dumps(secret)[1:-1], html.escape(secret).encode(),
                   str(markupsafe.escape(secret)).encode()})


def leaks(out: Path, secrets: list[str]) -> list[tuple[str, str]]:
    """(file, secret start) for every secret in any form in any file under out,
    also inside compressed files (the search index, bough's state)."""
    pattern = re.compile(b"|".join(re.escape(f) for s in secrets for f in forms(s)))
    found = []
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            data += stored_values(path) if data.startswith(SQLITE) else inflated(data)
            found += [(str(path.relative_to(out)), m.group().decode()[:12]) for m in pattern.finditer(data)]
    return found


SQLITE = b"SQLite format 3\x00"


def stored_values(path: Path) -> bytes:
    """Everything in one of OUT's sqlite3 files: every highlighted block of a block
    store (render/blockstore.py), inflated; every value of the state (state.py),
    as stored and inflated."""
    conn = sqlite3.connect(path)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables in ({"blocks", "uses"}, {"state"}), f"{path}: tables {sorted(tables)}"
        if "blocks" in tables:
            return b"".join(zlib.decompress(html) for (html,) in conn.execute("SELECT html FROM blocks"))
        return b"".join(data + inflated(data) for (data,) in conn.execute("SELECT data FROM state"))
    finally:
        conn.close()


def inflated(data: bytes) -> bytes:
    """What a compressed file holds: gzip (the search index), zlib after an
    optional header line (.bough-state's highlighted blocks and record summaries)."""
    if data.startswith(b"\x1f\x8b"):
        return gzip.decompress(data)
    for start in (0, data.find(b"\n") + 1):
        try:
            return zlib.decompressobj().decompress(data[start:])
        except zlib.error:
            continue
    return b""


# --- long texts without secrets ---------------------------------------------------------------

# Lines dense with the rules' keywords and gate characters, none of them a secret.
FILLER = [
    "    for key, value in sorted(mapping.items(), key=lambda kv: kv[0]):",
    "        tokens = tokenizer.encode(text)  # count tokens before the request",
    "    if not auth.is_valid(): raise AuthError('bad secret or token')",
    "x" * 3000 + " key token secret password auth " + "y" * 3000,
    '    "usage": {"input_tokens": 1200, "output_tokens": 85, "cache_read_input_tokens": 0},',
    f"commit {hashlib.sha1(b'filler').hexdigest()} Merge branch 'fix/auth-token-refresh'",
]


# Long texts without secrets: prose with no "=", ":", "_" or "-" (every rule's gate shut, as in
# most transcript prose), and code dense with keywords (every gate open).
_WORDS = "the token session café 日本語 key auth pass secret cookie login value ✓ naïve".split()  # noqa: SIM905
_prose_rng = random.Random(20261130)
PROSE = "\n".join(" ".join(_prose_rng.choice(_WORDS) for _ in range(12)) for _ in range(400))
CODE = "\n".join(FILLER * 3)
