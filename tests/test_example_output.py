"""example_output/ is the committed, published build of the bundled examples: it must
be exactly what a fresh build gives, and netlify.toml must publish it safely."""

from __future__ import annotations

import hashlib
import os
import re
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bough_site.discover import EXAMPLES
from bough_site.render.pages import CSP, CSP_SEARCH

from .helpers import REPO, be

EXAMPLE_OUTPUT = REPO / "example_output"
STALE = f"example_output/ is stale: regenerate it with `{be.COMMAND}` and commit the result"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return be.build_example_site(tmp_path_factory.mktemp("examples") / "site")


def test_example_output_is_current(fresh: dict[str, bytes]) -> None:
    assert EXAMPLE_OUTPUT.is_dir(), f"example_output/ is missing: {STALE}"
    committed = be.site_files(EXAMPLE_OUTPUT)
    missing = sorted(fresh.keys() - committed.keys())
    extra = sorted(committed.keys() - fresh.keys())
    assert not missing and not extra, f"{STALE}\nmissing from it: {missing}\nno longer built: {extra}"
    differing = [path for path in sorted(fresh) if fresh[path] != committed[path]]
    assert not differing, f"{STALE}\nfiles with other bytes: {differing}"


def test_example_output_holds_only_published_files() -> None:
    own = [p.relative_to(EXAMPLE_OUTPUT).as_posix() for p in EXAMPLE_OUTPUT.rglob(".bough-*")]
    assert not own, f"the writer's own files do not belong in example_output/: {own}"
    assert (EXAMPLE_OUTPUT / "index.html").is_file()


def test_rebuild_is_byte_identical_in_another_time_zone(fresh: dict[str, bytes], tmp_path: Path) -> None:
    # Pages show times in UTC; the reader's zone is applied by bough.js in the browser.
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Pacific/Chatham"
    time.tzset()
    try:
        again = be.build_example_site(tmp_path / "site")
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
    assert be.stale_paths(fresh, again) == []


def test_no_build_time_in_pages(fresh: dict[str, bytes]) -> None:
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    in_examples = any(today.encode() in p.read_bytes() for p in EXAMPLES.rglob("*") if p.is_file())
    if in_examples:
        pytest.skip(f"the examples themselves mention {today}")
    dated = [path for path, data in fresh.items() if today.encode() in data]
    assert not dated, f"today's date ({today}) is in {dated}: pages must not carry the build time"


def test_the_example_site_has_every_page_kind(fresh: dict[str, bytes]) -> None:
    pages = [p for p in fresh if p.endswith(".html")]
    assert "index.html" in pages and "index.json" in fresh
    assert any(re.fullmatch(r"projects/[^/]+/index\.html", p) for p in pages)
    assert any(re.fullmatch(r"projects/[^/]+/sessions/[^/]+\.html", p) for p in pages)
    sessions = b"".join(data for p, data in fresh.items() if "/sessions/" in p and p.endswith(".html"))
    # What the browser tests click: a collapsed tool result and a sub-agent run.
    assert b'<details class="subagent">' in sessions
    assert b'<details class="more">' in sessions


def test_assets_and_images_are_named_by_content(fresh: dict[str, bytes]) -> None:
    """netlify.toml lets browsers cache assets/ and images/ forever: a changed file must get a new name."""
    cached = [p for p in fresh if p.startswith(("assets/", "images/"))]
    assert cached
    for path in cached:
        name = path.rsplit("/", 1)[-1]
        digest = hashlib.sha256(fresh[path]).hexdigest()
        if path.startswith("assets/"):
            _stem, tag, _ext = name.rsplit(".", 2)
            assert tag == digest[:8], f"{path} is not named by its content"
        else:
            assert name.split(".")[0] == digest[:16], f"{path} is not named by its content"


# --- netlify.toml ------------------------------------------------------------------


def _netlify() -> dict:
    with (REPO / "netlify.toml").open("rb") as handle:
        return tomllib.load(handle)


def _headers(pattern: str) -> dict[str, str]:
    rules = [rule["values"] for rule in _netlify()["headers"] if rule["for"] == pattern]
    assert len(rules) == 1, f"netlify.toml needs one [[headers]] rule for {pattern}"
    return rules[0]


def test_netlify_publishes_example_output() -> None:
    publish = _netlify()["build"]["publish"]
    assert (REPO / publish).resolve() == EXAMPLE_OUTPUT


_META_CSP = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def page_policy(files: dict[str, bytes]) -> str:
    """The policy every page of the site carries in its <meta> tag (one for all)."""
    found = {path: _META_CSP.findall(data) for path, data in files.items() if path.endswith(".html")}
    missing = [path for path, policies in found.items() if len(policies) != 1]
    assert not missing, f"pages without exactly one CSP meta tag: {missing}"
    policies = {policies[0].decode() for policies in found.values()}
    assert len(policies) == 1, f"pages carry different policies: {policies}"
    return policies.pop()


def test_pages_carry_the_renderers_policy(fresh: dict[str, bytes]) -> None:
    # With search the pages also allow WebAssembly (Pagefind); nothing else differs.
    assert page_policy(fresh) in (CSP, CSP_SEARCH)
    assert "unsafe-inline" not in page_policy(fresh)


def test_netlify_headers(fresh: dict[str, bytes]) -> None:
    every = _headers("/*")
    # The pages' own policy (the two intersect, so a stricter header would break search),
    # plus what only a header can carry.
    assert every["Content-Security-Policy"] == f"{page_policy(fresh)}; frame-ancestors 'none'", (
        "netlify.toml's Content-Security-Policy must be the pages' own policy plus frame-ancestors 'none'"
    )
    assert every["X-Content-Type-Options"] == "nosniff"
    assert every["Referrer-Policy"] == "no-referrer"
    for folder in ("/assets/*", "/images/*"):
        assert _headers(folder)["Cache-Control"] == "public, max-age=31536000, immutable"
