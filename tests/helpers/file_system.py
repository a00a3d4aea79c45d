"""What a test asks of the file system underneath a build: the folders it lists, and
a FIFO that takes a file's place once the file was looked at (a reader that looks,
then opens by name, would wait on it for ever)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest


def scandir_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each folder os.scandir lists from now on, normalized (a descriptor as it is)."""
    listed: list[object] = []
    real_scandir = os.scandir

    def listing(path: object = ".") -> os.ScandirIterator:
        listed.append(path if isinstance(path, int) else os.path.normpath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", listing)
    return listed


def swapped_for_a_fifo_once_looked_at(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """The first os.lstat of ``target`` sees its file; a FIFO stands there from then on."""
    real_lstat = os.lstat

    def look_then_swap(path: object, *args: object, **kwargs: object) -> os.stat_result:
        info = real_lstat(path, *args, **kwargs)  # type: ignore[arg-type]
        if Path(path) == target and not target.is_fifo():  # type: ignore[arg-type]
            target.unlink()
            os.mkfifo(target)
        return info

    monkeypatch.setattr(os, "lstat", look_then_swap)


def finished_within(seconds: float, work: Callable[[], object], fifo: Path) -> BaseException | None:
    """What ``work`` raised (None: nothing), run in a thread; the test fails when it is
    still running after ``seconds``, once the FIFO it waits on is let go."""
    raised: list[BaseException | None] = []

    def run() -> None:
        try:
            work()
            raised.append(None)
        except BaseException as err:  # noqa: BLE001 - handed to the test
            raised.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a writer come and gone: the read ends
        thread.join()
        pytest.fail(f"waited on the FIFO at {fifo}")
    return raised[0]
