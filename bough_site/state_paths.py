"""The names of every file bough keeps in OUT beside the site, in one place.

What each holds, who writes it, when it is read and when it is thrown away is in
docs/state.md ("Build state"); tests/test_state_paths.py checks that a build leaves
these and no other files of its own, and that docs/state.md names each. Only the
names live here: each file is read and written by the module named beside it.

Every one starts with ``OWN_PREFIX``, so the writer refuses a page that would claim
one (write.py), and a host or a test can leave them all out at once: none of them
is published.
"""

from __future__ import annotations

# bough's own names in OUT: no page, asset or sidecar may start so.
OWN_PREFIX = ".bough-"

# The writer's (write.py).
MARKER = ".bough-site"  # OUT is bough's, and the files its builds wrote (what --prune may delete)
LOCK = ".bough-lock"  # flock: one build at a time; says "building" while one holds OUT
TMP_PREFIX = ".bough-tmp-"  # a file being written, renamed into place (a killed build's are removed)

# What an incremental build remembers.
MANIFEST = ".bough-manifest.json"  # manifest.py: units, sessions and site files of the last build
MANIFEST_PARTS = ".bough-manifest.sqlite"  # manifest.py: the parts the manifest names (its units and sessions)
QUICK_RECORD = ".bough-quick"  # quick.py: the quick check's record of the last build's inputs

# Where an incremental build keeps what it needs beside the site (state.py): bough's own,
# never published, never listed or pruned by the writer.
STATE_DIR = ".bough-state"
STATE_DB = "state.sqlite"  # in STATE_DIR: content-named values (state.StateStore)
BLOCKS_DIR = "blocks"  # in STATE_DIR, a folder of its own: the highlighted blocks' store
BLOCKS_DB = "blocks.sqlite"  # in BLOCKS_DIR (render/blockstore.py)
COMPILED_TEMPLATES = "templates"  # in STATE_DIR: the theme's compiled templates (render/env.py)
KEPT_RATES = "rates.json"  # in STATE_DIR: genai-prices' rates the last builds looked up (kept_rates.py)
