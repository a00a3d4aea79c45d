"""The exceptions bough raises.

The library never prints or exits: it raises one of these, and the CLI turns a
``BoughError`` into a message on stderr and a non-zero exit status. Anything
else escaping the library is a bug in bough, not in the user's setup.
"""

from __future__ import annotations


class BoughError(Exception):
    """A problem the user must fix; the CLI prints the message and exits non-zero."""


class OutputError(BoughError):
    """OUT cannot be used or written."""
