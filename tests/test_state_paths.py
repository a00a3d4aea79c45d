"""bough's own files in OUT (bough_site/state_paths.py): a build leaves exactly the
files named there and no other of its own, their names are OUT's layout (a name that
changed would strand every existing OUT's state), and docs/state.md, linked from the
README, describes each."""

from __future__ import annotations

import re
from pathlib import Path

from bough_site import state_paths
from bough_site.state_paths import (
    BLOCKS_DB,
    BLOCKS_DIR,
    COMPILED_TEMPLATES,
    KEPT_RATES,
    LOCK,
    MANIFEST,
    MANIFEST_PARTS,
    MARKER,
    OWN_PREFIX,
    QUICK_RECORD,
    STATE_DB,
    STATE_DIR,
    TMP_PREFIX,
)

from .helpers import REPO, prompt, reply, run, text, write_jsonl

DOC = REPO / "docs" / "state.md"


def names() -> dict[str, str]:
    """Every name state_paths.py holds, by its constant."""
    return {key: value for key, value in vars(state_paths).items() if key.isupper() and isinstance(value, str)}


def own_files(out: Path) -> list[str]:
    """Every file and folder under OUT that is bough's own, not the site's."""
    found = []
    for path in sorted(out.rglob("*")):
        relative = path.relative_to(out)
        if any(part.startswith(OWN_PREFIX) for part in relative.parts):
            found.append(relative.as_posix() + ("/" if path.is_dir() else ""))
    return found


def test_the_names_are_outs_layout() -> None:
    assert names() == {
        "OWN_PREFIX": ".bough-", "MARKER": ".bough-site", "LOCK": ".bough-lock", "TMP_PREFIX": ".bough-tmp-",
        "MANIFEST": ".bough-manifest.json", "MANIFEST_PARTS": ".bough-manifest.sqlite", "QUICK_RECORD": ".bough-quick", "STATE_DIR": ".bough-state",
        "STATE_DB": "state.sqlite", "BLOCKS_DIR": "blocks", "BLOCKS_DB": "blocks.sqlite",
        "COMPILED_TEMPLATES": "templates", "KEPT_RATES": "rates.json",
    }
    top = [MARKER, LOCK, TMP_PREFIX, MANIFEST, MANIFEST_PARTS, QUICK_RECORD, STATE_DIR]
    assert all(name.startswith(OWN_PREFIX) for name in top)


def test_a_build_leaves_these_files_of_its_own_and_no_other(tmp_path: Path) -> None:
    src = tmp_path / "projects"
    fields = {"sessionId": "a3000000-0000-4000-8000-000000000001", "cwd": "/home/ada/app"}
    code = text("```python\nprint('hello')\n```")  # a highlighted block, for the block store
    write_jsonl(src / "-home-ada-app" / "a3000000-0000-4000-8000-000000000001.jsonl",
                [prompt("u1", "say hello", **fields), reply("a1", "m1", [code], **fields)])
    out = tmp_path / "site"
    run(src, out, search=False)
    found = own_files(out)
    templates = f"{STATE_DIR}/{COMPILED_TEMPLATES}/"
    compiled = [f for f in found if f.startswith(templates) and f != templates]
    assert [f for f in found if f not in compiled] == sorted([
        LOCK, MANIFEST, MANIFEST_PARTS, QUICK_RECORD, MARKER, f"{STATE_DIR}/", f"{STATE_DIR}/{BLOCKS_DIR}/",
        f"{STATE_DIR}/{BLOCKS_DIR}/{BLOCKS_DB}", f"{STATE_DIR}/{STATE_DB}", templates, f"{STATE_DIR}/{KEPT_RATES}",
    ])
    assert compiled and all(re.fullmatch(rf"{re.escape(templates)}__jinja2_[0-9a-f]{{40}}\.cache", f) for f in compiled)
    assert not any(part.startswith(TMP_PREFIX) for f in found for part in f.split("/"))
    assert (out / QUICK_RECORD).stat().st_size > 0 and (out / LOCK).read_bytes() == b""


def test_docs_state_md_describes_every_file_and_the_readme_links_it() -> None:
    doc = DOC.read_text(encoding="utf-8")
    unnamed = {key: value for key, value in names().items() if f"`{value}" not in doc and f"/{value}" not in doc}
    assert unnamed == {}
    headings = re.findall(r"^## (.+)$", doc, flags=re.MULTILINE)
    for name in (MARKER, LOCK, MANIFEST, MANIFEST_PARTS, QUICK_RECORD, f"{STATE_DIR}/{STATE_DB}",
                 f"{STATE_DIR}/{BLOCKS_DIR}/{BLOCKS_DB}", f"{STATE_DIR}/{COMPILED_TEMPLATES}/"):
        assert any(f"`{name}`" in heading for heading in headings), name
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    output = readme.split("\n## Output\n", 1)[1].split("\n## ", 1)[0]
    assert "(docs/state.md)" in output
