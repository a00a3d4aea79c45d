"""Regenerate example_output/: the site bough builds from its bundled example transcripts.

    python3 scripts/build_examples.py           # rewrite example_output/
    python3 scripts/build_examples.py --check   # only say whether it is current (exit 1 if not)

example_output/ is committed and published (netlify.toml); tests/test_example_output.py
fails when it differs from a fresh build. The build runs with no sources and an
empty temporary HOME, so bough finds no history and builds the bundled examples
(their redaction fingerprints use the fixed ``build.EXAMPLES_REDACTION_KEY``).

The writer's own bookkeeping (``.bough-site``, the marker listing what a build
wrote; ``.bough-lock``; the incremental build state in ``.bough-state/``) is left
out: example_output/ holds exactly the files a host publishes. So example_output/
is not a directory bough builds into; this script replaces it whole, and refuses
to replace a directory that does not look like a bough site.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_OUTPUT = REPO / "example_output"
COMMAND = "python3 scripts/build_examples.py"
# The writer's marker, lock, temporary files and build state (.bough-state/) all start with this.
_WRITER_PREFIX = ".bough-"
# Variables that tell bough where history is; all point into an empty directory.
_HOME_VARS = ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")
_UNSET_VARS = ("BOUGH_ARCHIVE",)

if str(REPO) not in sys.path:  # run as a script from a checkout that is not installed
    sys.path.insert(0, str(REPO))


@contextmanager
def _empty_home() -> Iterator[Path]:
    """Point every history location at a new empty directory, restoring the environment after."""
    saved = {name: os.environ.get(name) for name in _HOME_VARS + _UNSET_VARS}
    with tempfile.TemporaryDirectory(prefix="bough-examples-home-") as home:
        os.environ["HOME"] = home
        os.environ["CLAUDE_CONFIG_DIR"] = str(Path(home) / ".claude")
        os.environ["CODEX_HOME"] = str(Path(home) / ".codex")
        os.environ["GEMINI_CLI_HOME"] = home  # Gemini CLI's directory: $GEMINI_CLI_HOME/.gemini
        os.environ["XDG_DATA_HOME"] = str(Path(home) / ".local" / "share")
        for name in _UNSET_VARS:
            os.environ.pop(name, None)
        try:
            yield Path(home)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def site_files(root: Path) -> dict[str, bytes]:
    """Every published file under ``root`` (relpath -> bytes), without the writer's own files."""
    files = {}
    for path in sorted(root.rglob("*")):
        relpath = path.relative_to(root)
        if path.is_file() and not any(part.startswith(_WRITER_PREFIX) for part in relpath.parts):
            files[relpath.as_posix()] = path.read_bytes()
    return files


def build_example_site(dest: Path, **options: Any) -> dict[str, bytes]:
    """Build the bundled examples and write the published files into ``dest``
    (which must not exist yet). Returns them as relpath -> bytes. ``options``:
    BuildConfig's, for a variant (a test's; example_output/ is built with none)."""
    from bough_site.build import build
    from bough_site.config import BuildConfig

    dest = Path(dest)
    if dest.exists():
        raise FileExistsError(f"{dest} already exists")
    with tempfile.TemporaryDirectory(prefix="bough-examples-site-") as scratch, _empty_home():
        out = Path(scratch) / "site"
        # The key is ignored for the examples (EXAMPLES_REDACTION_KEY); passed so nothing reads a key file.
        result = build(BuildConfig(out=out, **options), redaction_key=b"unused-for-examples")
        if not result.used_examples:
            raise RuntimeError("bough did not build its bundled examples (it found history in the empty HOME?)")
        files = site_files(out)
    for relpath, data in files.items():
        target = dest / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return files


def _looks_like_our_output(path: Path) -> bool:
    if not path.exists():
        return True
    if not path.is_dir() or path.is_symlink():
        return False
    if not any(path.iterdir()):
        return True
    index = path / "index.html"
    return index.is_file() and b'<meta name="generator" content="bough' in index.read_bytes()


def regenerate(target: Path = EXAMPLE_OUTPUT) -> dict[str, bytes]:
    """Replace ``target`` with a fresh build of the examples: built beside it, then swapped in."""
    target = Path(target)
    if not _looks_like_our_output(target):
        raise SystemExit(f"refusing to replace {target}: it exists and is not a site bough built")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    old = target.parent / f".{target.name}.old-{staging.name.rsplit('-', 1)[-1]}"
    try:
        files = build_example_site(staging / "site")
        if target.exists():
            target.rename(old)
        try:
            (staging / "site").rename(target)
        except BaseException:
            if old.exists() and not target.exists():
                old.rename(target)  # put the previous tree back rather than leave none
            raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return files


def stale_paths(committed: dict[str, bytes], fresh: dict[str, bytes]) -> list[str]:
    """Paths missing from either side or holding different bytes, sorted."""
    return sorted(p for p in committed.keys() | fresh.keys() if committed.get(p) != fresh.get(p))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when example_output/ is stale")
    args = parser.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as scratch:
            fresh = build_example_site(Path(scratch) / "site")
        stale = stale_paths(site_files(EXAMPLE_OUTPUT), fresh)
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        print(f"example_output/ is {'stale' if stale else 'current'}", file=sys.stderr)
        return 1 if stale else 0
    files = regenerate()
    print(f"wrote {len(files)} files to {EXAMPLE_OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
