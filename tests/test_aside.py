"""aside.SetAside: values kept in an anonymous temporary file come back whole, in
the order added, once."""

from __future__ import annotations

import pytest

from bough_site.aside import SetAside


def test_values_come_back_whole_in_order_then_the_file_is_closed() -> None:
    aside = SetAside([("b", b"two"), ("a", b"")])
    aside.add("c", b"\x00three\n" * 1000)
    assert list(aside) == [("b", b"two"), ("a", b""), ("c", b"\x00three\n" * 1000)]
    with pytest.raises(ValueError):  # read once: the file is gone
        list(aside)

