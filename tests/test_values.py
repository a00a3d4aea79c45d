"""The readers' shared accessors (bough_site/readers/values.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bough_site.readers.values import normalize_timestamp


def reference(value: str) -> str | None:
    """The general path: parse, to UTC, written with milliseconds."""
    try:
        moment = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        return None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return written(moment)


def written(moment: datetime) -> str:
    # Field by field: strftime's %Y gives "1", not "0001", for year 1 on glibc.
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:"
            f"{moment.second:02d}.{moment.microsecond // 1000:03d}Z")


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_a_time_already_in_our_form_comes_back_as_it_is(moment: datetime) -> None:
    text = written(moment)
    assert normalize_timestamp(text) == text == reference(text)


@given(st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z", fullmatch=True))
def test_the_quick_path_refuses_what_is_no_date(text: str) -> None:
    assert normalize_timestamp(text) == reference(text)  # "2026-13-45T…" is None by either path


def test_other_forms_are_normalized() -> None:
    assert normalize_timestamp("2026-03-01T10:00:00Z") == "2026-03-01T10:00:00.000Z"
    assert normalize_timestamp("2026-03-01T10:00:00.123456+02:00") == "2026-03-01T08:00:00.123Z"
    assert normalize_timestamp("2026-03-01 10:00:00") == "2026-03-01T10:00:00.000Z"
    assert normalize_timestamp("٢٠٢٦-03-01T10:00:00.000Z") == reference("٢٠٢٦-03-01T10:00:00.000Z")
    assert normalize_timestamp("yesterday") is None and normalize_timestamp(None) is None
    assert normalize_timestamp("0001-01-01T00:00:00Z") == "0001-01-01T00:00:00.000Z"  # four digits, as sorted
    assert normalize_timestamp("0999-12-31T23:00:00-02:00") == "1000-01-01T01:00:00.000Z"
