"""options.py: what the options make once for every job that asks."""

from __future__ import annotations

from dataclasses import replace

from bough_site.options import Options


def test_the_page_names_known_in_advance_become_a_dict_once_per_options() -> None:
    # Every page name of the history is in slug_counts: made a dict for each job,
    # it cost a cold build of 18,000 sessions 50-90 s of CPU.
    options = Options(theme=None, search=False, redact=True, key=b"k", slug_counts=(("a", 2), ("b", 1)))
    first = options.slug_count_map
    assert first == {"a": 2, "b": 1}
    assert options.slug_count_map is first

    # Other options (the final pass's, the next build's in a watching server): their own names.
    other = replace(options, slug_counts=(("a", 1),))
    assert other.slug_count_map == {"a": 1}
    assert replace(options, slug_counts=()).slug_count_map == {}
    assert options.slug_count_map == {"a": 2, "b": 1}
    # Not a field: options that were copied, compared or hashed stay as they were.
    assert other == replace(options, slug_counts=(("a", 1),)) and hash(other) == hash(replace(other))
