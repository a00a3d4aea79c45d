"""jobs.py: what a worker keeps from one job to the next."""

from __future__ import annotations

from dataclasses import replace

from bough_site.jobs import _slug_counts
from bough_site.options import Options


def test_the_page_names_known_in_advance_become_a_dict_once_per_options() -> None:
    # Every page name of the history is in slug_counts: made a dict for each job,
    # it cost a cold build of 18,000 sessions 50-90 s of CPU.
    options = Options(theme=None, search=False, redact=True, key=b"k", slug_counts=(("a", 2), ("b", 1)))
    first = _slug_counts(options)
    assert first == {"a": 2, "b": 1}
    assert _slug_counts(options) is first

    # Other options (the final pass's, the next build's in a watching server): their own names.
    other = replace(options, slug_counts=(("a", 1),))
    assert _slug_counts(other) == {"a": 1}
    assert _slug_counts(replace(options, slug_counts=())) == {}
    assert _slug_counts(options) == {"a": 2, "b": 1}
