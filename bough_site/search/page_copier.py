"""The copies of session pages Pagefind reads, made in a process of their own
(``pagefind_run.PreparedPages``): the build's main process goes on assembling and
publishing meanwhile, instead of spending on them some 0.75 ms a page (an append
to a 571-page shard: 0.4 s). It imports only what copying needs.

Its :func:`main` (``pagefind_run._copy_apart`` starts it; ``python -m
bough_site.search.page_copier`` runs it too) reads one JSON object on stdin,
``{"out": OUT, "site": the temporary site, "pages": [paths under OUT], "chars":
the characters of each tool result kept, or null, "max_page": the largest page
indexed, in bytes}``, copies each page small enough to index into the site as
``page_copy.pagefind_copy`` makes it, and writes the pages left out as a JSON
list on stdout. A page it cannot read or write ends it with status PAGE_FAILED
and the reason on stderr. It imports the standard library alone: its process starts
without site-packages (``python -I -S``), a third quicker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .page_copy import pagefind_copy

# The copier's status when a page could not be copied (any other failure is its
# process's: the caller then copies in its own).
PAGE_FAILED = 3


def copy_stripped(out: Path, pages: list[str], site: Path, chars: int | None, max_page: int) -> list[str]:
    """Each page of ``max_page`` bytes or fewer, stripped, into ``site``; the others."""
    too_large = []
    # In reverse: a tmpfs lists the last made first, and Pagefind numbers pages in
    # the order it finds them, so its numbers are then already canonical_bundle's.
    for page in sorted(pages, reverse=True):
        data = (out / page).read_bytes()
        if len(data) > max_page:
            too_large.insert(0, page)
            continue
        target = site / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pagefind_copy(data, chars))
    return too_large


def main() -> int:
    job = json.loads(sys.stdin.buffer.read())
    try:
        too_large = copy_stripped(Path(job["out"]), job["pages"], Path(job["site"]), job["chars"], job["max_page"])
    except OSError as err:
        sys.stderr.write(f"{err.filename or ''}: {err.strerror or err}\n")
        return PAGE_FAILED
    sys.stdout.write(json.dumps(too_large))
    return 0


if __name__ == "__main__":
    sys.exit(main())
