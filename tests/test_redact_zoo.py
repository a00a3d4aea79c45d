"""Redaction end to end: the zoo of planted keys through a real build, and every redaction
bough makes in the real fixtures and the bundled examples, listed and justified.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import pytest

from bough_site.build import build, load_site
from bough_site.config import BuildConfig
from bough_site.redact import Redactor
from corpus.secrets import write_secret_zoo

from .helpers import KEY, deadline, fixtures_dir, forms, inflated, leaks

_LABEL = re.compile(r"\[redacted: ([a-z0-9-]+) ([0-9a-f]{8})\]")


def test_the_zoo_leaks_no_key_and_keeps_every_lookalike(tmp_path: Path) -> None:
    """Every shape bough knows, unknown vendors' keys, connection strings and signed URLs,
    each pasted in a prompt, printed by env and read from a JSON config: no byte of any
    planted value anywhere under OUT (pages, sidecars, search files, .bough-state, also
    compressed); each labelled with its kind; every look-alike still there verbatim."""
    zoo = write_secret_zoo(tmp_path / "in")
    out = tmp_path / "out"
    with deadline(300):
        result = build(BuildConfig(sources=[zoo.projects], out=out), redaction_key=KEY)
    assert leaks(out, list(zoo.secrets)) == []
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    fingerprint = Redactor(KEY).fingerprint
    unlabelled = [f"{kind}: {value[:12]}" for value, kind in zoo.secrets.items()
                  if f"[redacted: {kind} {fingerprint(value)}]".encode() not in written]
    assert unlabelled == []
    everything = b"".join(data + inflated(data) for data in (p.read_bytes() for p in out.rglob("*") if p.is_file()))
    missing = [text for text in zoo.lookalikes if not any(form in everything for form in forms(text))]
    assert missing == []
    sessions = [s for p in result.site.projects for s in p.sessions]
    kinds = {kind for s in sessions for kind in s.redactions}
    assert set(zoo.secrets.values()) <= kinds


# ---- the real fixtures -----------------------------------------------------------------------
#
# Every string of every record of every shared fixture (more than a page shows: ids, usage,
# metadata) goes through the redactor; these are all the redactions it makes, by file, kind and
# fingerprint (under the test key). Each is a real secret shape:
_SPOTTER = "claude/spotter__v2.1.39__session-with-subagents/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
EXPECTED_FIXTURE_REDACTIONS = {
    # Phoenix CSRF tokens: a failing LiveView test prints the page's
    # <meta name="csrf-token" content="..."> (a random 56-character per-session token,
    # named a token in the same markup); four different tokens across the test runs.
    (_SPOTTER, "keyword-secret", "af4ab8f4"): 1,
    (_SPOTTER, "keyword-secret", "eb882832"): 3,
    (_SPOTTER, "keyword-secret", "f7c71c42"): 3,
    # The fourth begins with three capitals and "_", so it reads as a vendor prefix and a
    # random run: the same CSRF token, told by the prefix fallback.
    (_SPOTTER, "prefixed-key", "9d23cdc0"): 3,
    # A Django settings file the agent wrote and edited: SECRET_KEY='…' (a secret by its name).
    ("gemini/aim__legacy-0.31-0.38__control_pro_run4_abandoned.json", "env-secret", "508e1ad6"): 10,
}


def _records(path: Path) -> list:
    text = path.read_text("utf-8", "replace")
    if path.suffix == ".json":
        try:
            return [json.loads(text)]
        except ValueError:
            return []
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _strings(value: object) -> list[str]:
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def test_every_redaction_in_the_real_fixtures_is_listed_and_justified() -> None:
    root = fixtures_dir("claude").parent
    redactor = Redactor(KEY)
    found: collections.Counter[tuple[str, str, str]] = collections.Counter()
    files = sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json"))
    assert len(files) > 20
    for path in files:
        for record in _records(path):
            for s in _strings(record):
                for m in _LABEL.finditer(redactor.text(s)):
                    found[(str(path.relative_to(root)), m.group(1), m.group(2))] += 1
    assert dict(found) == EXPECTED_FIXTURE_REDACTIONS


def test_the_bundled_examples_redact_only_their_planted_keys() -> None:
    """The examples (corpus/examples.py) plant fake keys on purpose: the dotfiles project's
    AWS keys and .env, the notes project's OpenAI key and its Authorization headers. The
    shapes and the fallback add nothing to them."""
    site = load_site(BuildConfig(sources=[]))
    sessions = [s for p in site.projects for s in p.sessions]
    assert len(sessions) > 3
    counts: collections.Counter[str] = collections.Counter()
    for session in sessions:
        counts.update(session.redactions)
    assert dict(counts) == {"aws-access-key": 6, "sensitive-file": 4, "openai-key": 8, "auth-header": 3}


@pytest.mark.parametrize("kind", ["prefixed-key", "keyword-secret"])
def test_the_fallback_kinds_are_named_in_the_docs(kind: str) -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "redaction.md").read_text("utf-8")
    assert f"`{kind}`" in docs
