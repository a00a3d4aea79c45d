"""aside.SetAside: values kept in an anonymous temporary file come back whole, in
the order added or by key, largest first, once."""

from __future__ import annotations

import pytest

from bough_site.aside import SetAside


def test_values_come_back_whole_in_order_then_the_file_is_closed() -> None:
    aside = SetAside([("b", b"two"), ("a", b"")])
    aside.add("c", b"\x00three\n" * 1000)
    assert list(aside) == [("b", b"two"), ("a", b""), ("c", b"\x00three\n" * 1000)]
    with pytest.raises(ValueError):  # read once: the file is gone
        list(aside)


def test_newest_first_sorts_by_key_largest_first_ties_in_the_order_added() -> None:
    aside = SetAside()
    for key, data in [(("2026-01", "x"), b"1"), (("2026-03", "a"), b"2"), (("2026-01", "x"), b"3"), (("", "z"), b"4")]:
        aside.add(key, data)
    assert [data for _key, data in aside.read(newest_first=True)] == [b"2", b"1", b"3", b"4"]
