"""``OUT/.bough-state/``: the small files an incremental build keeps beside the site.

Each is named by its content (:func:`state_name`), so unchanged state keeps its
file: a session's counting identities (``<digest>.json``) and a Claude file's
summary for resumes (``<digest>.records``). The highlighted code blocks of every
page are in one store in the subfolder ``blocks/`` (render/blockstore.py), the
theme's compiled templates in ``templates/`` (render/env.py).
The folder's name starts with ``.bough-``: the SiteWriter never writes, lists or
prunes it. Only names without a slash or a leading dot are ever read or deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

from .write import regular_names, replace_file

STATE_DIR = ".bough-state"
MAX_STATE = 1 << 30
COMPILED_TEMPLATES = "templates"


def compiled_templates(out: Path | str) -> Path:
    """Where the templates' compiled code is kept between builds (one file per template)."""
    return Path(out) / STATE_DIR / COMPILED_TEMPLATES


def state_name(data: bytes, suffix: str) -> str:
    """State files are named by their content: unchanged state keeps its file."""
    return hashlib.sha256(data).hexdigest()[:32] + suffix


def read_state(out: Path, name: str) -> bytes | None:
    """A state file's bytes, or None when it is missing, odd or not a plain name."""
    if not _safe_name(name):
        return None
    return read_regular(Path(out) / STATE_DIR / name, MAX_STATE)


def save_state(out: Path, name: str, data: bytes) -> None:
    folder = Path(out) / STATE_DIR
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o755)
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise OSError(f"{folder} is not a directory")
    atomic_write(folder, name, data)


def remove_states(out: Path, keep: set[str]) -> None:
    """Delete state files no session of the manifest names any more."""
    folder = Path(out) / STATE_DIR
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name not in keep and _safe_name(name):
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(folder / name).st_mode):
                    os.unlink(folder / name)


def state_names(out: Path) -> set[str]:
    """The regular files of OUT's state folder now (one listing, not a stat each)."""
    return regular_names(Path(out) / STATE_DIR)


def atomic_write(folder: Path, name: str, data: bytes, *, durable: bool = False) -> None:
    """Write folder/name atomically; identical bytes are not rewritten."""
    if read_regular(folder / name, len(data) + 1) != data:
        replace_file(folder, name, data, durable=durable, mode=0o644)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes (no symlink followed), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with open(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return handle.read()


def _safe_name(name: str) -> bool:
    return bool(name) and "/" not in name and "\0" not in name and not name.startswith(".")
