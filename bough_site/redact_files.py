"""Files that are sensitive as a whole: which they are (``is_sensitive_path``) and where
their values are (``_file_value_spans``).

A ``.env`` file's ``DEBUG=true`` is no secret by its look, but a value in such a file is
redacted all the same: the file's name says what it holds.
"""

from __future__ import annotations

import re

from .redact_table import Span


# Whole text replaced: key material and one-line credential files.
_KEY_FILE_RE = re.compile(
    r"""(?:
        .*\.(?:pem|key|p12|pfx|jks|keystore|ppk|p8)
      | id_(?:rsa|dsa|ecdsa|ed25519)(?:[._-].*)?
      | \.pgpass | \.htpasswd | \.git-credentials | \.vault-token
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Every value replaced: KEY=value, key: value and JSON lines.
_VALUE_FILE_RE = re.compile(
    r"""(?:
        \.env(?:\..*)? | .*\.env | \.envrc
      | \.npmrc | \.pypirc | \.netrc | _netrc | \.yarnrc(?:\.yml)? | \.my\.cnf | \.s3cfg | \.boto
      | \.dockercfg | \.terraformrc | .*\.tfvars
      | .*credentials(?:\.json|\.toml|\.ya?ml)? | client_secret.*\.json | service[-_]account.*\.json
      | auth\.json | secrets?\.(?:json|ya?ml|toml|env|ini) | \.secrets?
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Files known by their directory.
_VALUE_FILE_TAILS = (".docker/config.json", ".kube/config", ".aws/config", ".config/gh/hosts.yml")


def _basename(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def _is_key_file(path: str) -> bool:
    return _KEY_FILE_RE.fullmatch(_basename(path)) is not None


def is_sensitive_path(path: str) -> bool:
    """True for a file whose contents are secret as a whole (``.env``, keys, credentials)."""
    if not path:
        return False
    norm = path.replace("\\", "/").rstrip("/").lower()
    name = _basename(norm)
    return (
        _KEY_FILE_RE.fullmatch(name) is not None
        or _VALUE_FILE_RE.fullmatch(name) is not None
        or any(norm == t or norm.endswith("/" + t) for t in _VALUE_FILE_TAILS)
    )


# A line as a tool showed it: an optional "   12→" or "12<tab>" line number (Claude's Read),
# indentation, an optional "export " or "- ", then the rest.
_FILE_LINE_RE = re.compile(r"^(?:[ \t]*[0-9]{1,9}(?:\u2192|\t))?[ \t]*(?:export[ \t]+|-[ \t]+)?")
_COLON_SEP_RE = re.compile(r":(?=[ \t]|$)")
_NETRC_RE = re.compile(r"\b(?:password|login|account)[ \t]+(?P<s>\S{1,500})")


def _value_span(line: str, start: int) -> Span | None:
    """The value of one ``KEY=value`` / ``key: value`` / ``"key": "value",`` line body."""
    if start >= len(line) or line[start] in "#;[":
        return None
    eq = line.find("=", start)
    colon = _COLON_SEP_RE.search(line, start)
    seps = [p for p in (eq, colon.start() if colon else -1) if p >= 0]
    if not seps:
        return None
    a, b = min(seps) + 1, len(line)
    while a < b and line[a] in " \t":
        a += 1
    while b > a and line[b - 1] in " \t\r,":
        b -= 1
    quote = line[a] if a < b and line[a] in "\"'" else ""
    close = line.find(quote, a + 1, b) if quote else -1
    if close > a:  # "value" or 'value', maybe followed by a comment
        a, b = a + 1, close
    elif line.find(" #", a, b) >= 0:  # unquoted value with a trailing comment
        b = line.find(" #", a, b)
    value = line[a:b]
    if not value or value[0] in "{[" or value == "null":  # empty, JSON structure, [redacted: …] labels
        return None
    return a, b


def _file_value_spans(path: str, s: str) -> list[Span]:
    """The value of every assignment line in a sensitive file."""
    netrc = _basename(path).lower() in (".netrc", "_netrc")
    out: list[Span] = []
    pos = 0
    for line in s.splitlines(keepends=True):
        if netrc:
            out.extend((pos + m.start("s"), pos + m.end("s")) for m in _NETRC_RE.finditer(line))
        else:
            body = _FILE_LINE_RE.match(line)
            span = _value_span(line.rstrip("\r\n"), body.end() if body else 0)
            if span:
                out.append((pos + span[0], pos + span[1]))
        pos += len(line)
    return out
