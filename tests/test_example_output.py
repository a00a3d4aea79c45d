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


# Each example session page's size at 9425abe, before issue #36 gave it an outline,
# neighbours, folding tools and a find box: the issue's budget is 15% more.
PAGE_BYTES_BEFORE_ISSUE_36 = {
    "d37beaa9-bc71-4206-a835-4dfcc256e63d": 11644,
    "4b8e1d27-a06f-4c3b-8d92-5f7a3c0e1b68": 18884,
    "0d9a4f6e-2b7c-4e18-8f35-c1a6b2d7e904": 22186,
    "8a2d6e0f-c419-4b7a-9e53-d6f1b08a4c27": 40647,
    "c7f03b91-6d2e-4a85-b4c9-1e8d2a6f5b03": 30717,
    "e45b8c13-7f2a-4c69-b1d8-3a0e5f7c2b61": 11476,
    "019cd2e7-c6b8-7368-9b86-605be5b3b792": 11453,
    "019cd2f6-5a09-7bef-82e6-80ec6336e188": 7663,
    "09667b96-ea86-404b-ae96-e92222104612": 31424,
    "6f1c2b7e-4a53-4d0e-9b8a-2f4e6c1d9a35": 29058,
    "b3e7a9d2-58c1-4f6b-a0d4-7c2e9f13b846": 40982,
}


def test_session_pages_grew_at_most_15_percent(tmp_path: Path) -> None:
    # What #36 added is held to its budget: the examples without #41's costs (each
    # reply's price and the session's), a feature since, with its own bytes.
    pages = be.build_example_site(tmp_path / "site", cost=False)
    sizes = {Path(p).stem: len(data) for p, data in pages.items()
             if "/sessions/" in p and p.endswith(".html")}
    # The pages of the agents added since (#39) had no size before #36 to hold them to.
    assert PAGE_BYTES_BEFORE_ISSUE_36.keys() <= sizes.keys()
    heavy = {sid: f"{sizes[sid] / before - 1:+.1%}" for sid, before in PAGE_BYTES_BEFORE_ISSUE_36.items()
             if sizes[sid] > before * 1.15}
    assert not heavy, f"session pages over their budget: {heavy}"
