"""The docs stand alone: what the code relies on is written in docs/, and citations point there.

Comments and docs cite the project's own references (``docs/formats-claude.md C5``,
``docs/safety.md S4``), never notes outside the repository. These tests read the
checkout's files (git's list of them, or a walk where git is not there) and check that:

- no file cites the outside notes (``FORMATS.md``, ``SAFETY.md``, ``STYLE.md``, their
  sections such as ``FORMATS B9``, or ``../shared/docs``);
- every ``docs/<file>.md <SECTION>`` citation names a file and a section heading that exist,
  and so does every Markdown link to a heading (``formats-claude.md#c5-…``);
- every ``bough_site/<module>.py`` a comment or doc names exists.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()
# Generated (the committed build of the examples) or not ours to check.
SKIPPED_DIRS = ("example_output/", ".git/", ".venv/", "test-artifacts/")
_WALK_SKIP = {".git", ".venv", "example_output", "test-artifacts", "__pycache__", "node_modules"}

# Citations of notes that are not in the repository. Upper-case names only: docs/safety.md
# is ours, and bough.js has a variable called FORMATS.
OUTSIDE = re.compile(
    r"shared/docs\b"
    r"|\bFORMATS(?:-gemini)?\.md\b"
    r"|\b(?:SAFETY|STYLE)\.md\b"
    r"|\bFORMATS(?:-gemini)?[ \t]+(?:[Pp]art\b|[A-G]\d|[A-G]\b)"
    r"|\bSAFETY[ \t,]+rule\b"
)
# "docs/formats-claude.md C5", "docs/formats-codex.md X8, X9", "formats-claude.md C11" (in docs/).
CITATION = re.compile(
    r"(?<![\w./-])(?P<prefix>docs/)?(?P<name>[a-z0-9][a-z0-9-]*)\.md"
    r"(?P<ids>(?:[ \t]*(?:,|and)?[ \t]*\b[A-Z]\d+[a-z]?\b)+)"
)
SECTION_ID = re.compile(r"\b[A-Z]\d+[a-z]?\b")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
HEADING_ID = re.compile(r"^([A-Z]\d+[a-z]?)\.?(?:\s|$)")
LINK = re.compile(r"\]\((?P<target>[^)\s#]*)#(?P<anchor>[^)\s]+)\)")
# The module the built site names, in the comment that opens pagefind/shards.js:
# search.py, which became the search/ package (issue #38). The output stays the same
# bytes (example_output/), so the old name stays in the file that prints it, and only
# there, until that output may change (search-index.js and search.js changed since).
PRINTED_IN_THE_OUTPUT = "bough_site/" + "search.py"  # written apart: this file is checked too
PRINTING_IT = ("bough_site/search/shards.py",)
MODULE = re.compile(r"(?<![\w./-])bough_site/(?:[\w-]+/)*[A-Za-z_]\w*\.py\b")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


@cache
def checkout_files() -> tuple[str, ...]:
    """The checkout's files (tracked, and new ones not ignored), relative, POSIX style."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True, timeout=60,
        ).stdout.decode("utf-8", "surrogateescape").split("\0")
        names = [name for name in listed if name]
    except (OSError, subprocess.SubprocessError):
        names = [path.relative_to(ROOT).as_posix() for path in _walk(ROOT)]
    return tuple(sorted(name for name in set(names)
                        if not name.startswith(SKIPPED_DIRS) and (ROOT / name).is_file()))


def _walk(folder: Path) -> Iterator[Path]:
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            if entry.name not in _WALK_SKIP and not entry.name.endswith(".egg-info"):
                yield from _walk(entry)
        elif entry.is_file():
            yield entry


@cache
def text_of(name: str) -> str | None:
    """A file's text, or None for a binary file."""
    raw = (ROOT / name).read_bytes()
    if b"\0" in raw:
        return None
    return raw.decode("utf-8", "replace")


def texts() -> Iterator[tuple[str, str]]:
    for name in checkout_files():
        text = text_of(name)
        if text is not None:
            yield name, text


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def slugify(heading: str) -> str:
    """The anchor GitHub gives a heading: inline code and link markup dropped, lower
    case, punctuation removed (letters, digits, ``_``, ``-`` and spaces stay), spaces
    become ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def headings(doc: str) -> tuple[frozenset[str], frozenset[str]]:
    """A docs/ file's section ids (``C5`` of ``## C5. …``) and heading anchors."""
    text = FENCE.sub("", (DOCS / doc).read_text(encoding="utf-8"))
    ids: set[str] = set()
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for match in HEADING.finditer(text):
        title = match.group(2)
        found = HEADING_ID.match(title)
        if found:
            ids.add(found.group(1))
        anchor = slugify(title)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    return frozenset(ids), frozenset(anchors)


def outside_citations(text: str) -> list[tuple[int, str]]:
    return [(line_of(text, m.start()), m.group(0)) for m in OUTSIDE.finditer(text)]


def section_citations(name: str, text: str) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, docs file, section ids)`` for each citation of a section of docs/.
    A bare ``name.md ID`` counts only inside docs/ or when docs/name.md exists."""
    for match in CITATION.finditer(text):
        doc = f"{match.group('name')}.md"
        if not match.group("prefix") and not name.startswith("docs/") and not (DOCS / doc).is_file():
            continue
        yield line_of(text, match.start()), doc, SECTION_ID.findall(match.group("ids"))


# --- the checkers see what they must ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "The rules are in ../shared/docs/FORMATS.md Part A.",
    "# Rollout line types (FORMATS B3); anything else is ignored.",
    "not a copy (FORMATS D: uuid collisions)",
    "see FORMATS-gemini.md for the rest",
    "Safety (SAFETY.md, rule 1): autoescape",
    "SAFETY rule 5: the media type",
    "layout ideas from STYLE.md",
    "the evidence is in FORMATS A8",
])
def test_an_outside_citation_is_seen(text: str) -> None:
    assert outside_citations(text)


@pytest.mark.parametrize("text", [
    "# docs/formats-codex.md X3",
    "Safety (docs/safety.md S2): autoescape",
    "  var FORMATS = {",
    "Object.keys(FORMATS).forEach(function (key) {",
    "formatters[key] = new Intl.DateTimeFormat(undefined, FORMATS[key]);",
    "tests that use the real transcripts in `../shared/fixtures` skip when it is absent",
])
def test_our_own_citations_are_not_outside_ones(text: str) -> None:
    assert outside_citations(text) == []


def test_a_section_citation_is_read_whole() -> None:
    text = "x (docs/formats-codex.md X8, X9 and X11) y\ndocs/stats.md says\nsee docs/safety.md S4.\n"
    assert list(section_citations("bough_site/stats.py", text)) == [
        (1, "formats-codex.md", ["X8", "X9", "X11"]),
        (3, "safety.md", ["S4"]),
    ]


def test_headings_give_their_section_ids_and_github_anchors() -> None:
    ids, anchors = headings("formats-claude.md")
    assert {"C1", "C5", "C7"} <= ids
    assert "c5-replies-written-as-several-records" in anchors
    assert "c7-user-records-what-a-person-typed" in anchors
    assert slugify("The `stats` object: what [it](x.md) counts") == "the-stats-object-what-it-counts"


def test_the_file_list_holds_the_code_and_the_docs() -> None:
    files = set(checkout_files())
    assert {"bough_site/readers/claude.py", "docs/formats-claude.md", "docs/safety.md", THIS_FILE} <= files
    assert not any(name.startswith("example_output/") for name in files)


# --- the checks ---------------------------------------------------------------------------------


def test_nothing_cites_notes_outside_the_repository() -> None:
    found = [
        f"{name}:{line}: {cited}"
        for name, text in texts() if name != THIS_FILE
        for line, cited in outside_citations(text)
    ]
    assert found == [], "cite docs/ instead:\n" + "\n".join(found)


def test_every_cited_section_exists() -> None:
    wrong = []
    cited = 0
    for name, text in texts():
        if name == THIS_FILE:
            continue
        for line, doc, ids in section_citations(name, text):
            if not (DOCS / doc).is_file():
                wrong.append(f"{name}:{line}: docs/{doc} does not exist")
                continue
            known, _ = headings(doc)
            cited += len(ids)
            wrong += [f"{name}:{line}: docs/{doc} has no section {section}" for section in ids if section not in known]
    assert wrong == [], "\n".join(wrong)
    assert cited >= 30  # the readers, renderers and corpus cite these sections


def test_every_link_to_a_heading_in_the_docs_exists() -> None:
    wrong = []
    for name, text in texts():
        if not name.endswith(".md"):
            continue
        base = (ROOT / name).parent
        for match in LINK.finditer(FENCE.sub("", text)):
            target = (base / match.group("target")).resolve() if match.group("target") else ROOT / name
            if target.suffix != ".md" or target.parent != DOCS:
                continue
            if not target.is_file():
                wrong.append(f"{name}: {match.group(0)}: no such file")
            elif match.group("anchor") not in headings(target.name)[1]:
                wrong.append(f"{name}: {match.group(0)}: no such heading")
    assert wrong == [], "\n".join(wrong)


def test_a_docs_file_with_numbered_sections_refers_only_to_its_own_sections() -> None:
    """Inside docs/formats-claude.md, "(C9)" must be a section of that file."""
    wrong = []
    for doc in sorted(path.name for path in DOCS.glob("*.md")):
        ids, _ = headings(doc)
        prefixes = {section[0] for section in ids}
        text = FENCE.sub("", (DOCS / doc).read_text(encoding="utf-8"))
        for match in SECTION_ID.finditer(text):
            section = match.group(0)
            if section[0] in prefixes and section not in ids:
                wrong.append(f"docs/{doc}:{line_of(text, match.start())}: no section {section}")
    assert wrong == [], "\n".join(wrong)


def test_every_module_a_comment_names_exists() -> None:
    wrong = [
        f"{name}:{line_of(text, match.start())}: {match.group(0)}"
        for name, text in texts() if not name.startswith("bough_site/examples/")
        for match in MODULE.finditer(text)
        if not (ROOT / match.group(0)).is_file()
        and not (name in PRINTING_IT and match.group(0) == PRINTED_IN_THE_OUTPUT)
    ]
    assert wrong == [], "\n".join(wrong)
