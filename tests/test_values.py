"""The readers' shared accessors (bough_site/readers/values.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bough_site.readers.values import MAX_COUNT, any_unknown, as_count, as_int, normalize_timestamp


def reference(value: str) -> str | None:
    """The general path: parse, to UTC, written with milliseconds; None outside 1970 to 2999."""
    try:
        moment = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return written(moment) if 1970 <= moment.year <= 2999 else None


def written(moment: datetime) -> str:
    # Field by field: strftime's %Y gives "1", not "0001", for year 1 on glibc.
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:"
            f"{moment.second:02d}.{moment.microsecond // 1000:03d}Z")


@given(st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2999, 12, 31, 23, 59, 59)))
def test_a_time_already_in_our_form_comes_back_as_it_is(moment: datetime) -> None:
    text = written(moment)
    assert normalize_timestamp(text) == text == reference(text)


@given(st.one_of(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(1969, 12, 31, 23, 59, 59)),
                 st.datetimes(min_value=datetime(3000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59))))
def test_a_time_no_page_can_draw_is_unknown(moment: datetime) -> None:
    # Year 1 and year 9999 crashed the project page's charts (their date arithmetic
    # stepped out of datetime's range): such a time is no time at all.
    assert normalize_timestamp(written(moment)) is None
    assert normalize_timestamp(moment.isoformat() + "+00:00") is None


@given(st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z", fullmatch=True))
def test_the_quick_path_refuses_what_is_no_date(text: str) -> None:
    assert normalize_timestamp(text) == reference(text)  # "2026-13-45T…" is None by either path


def test_other_forms_are_normalized() -> None:
    assert normalize_timestamp("2026-03-01T10:00:00Z") == "2026-03-01T10:00:00.000Z"
    assert normalize_timestamp("2026-03-01T10:00:00.123456+02:00") == "2026-03-01T08:00:00.123Z"
    assert normalize_timestamp("2026-03-01 10:00:00") == "2026-03-01T10:00:00.000Z"
    assert normalize_timestamp("٢٠٢٦-03-01T10:00:00.000Z") == reference("٢٠٢٦-03-01T10:00:00.000Z")
    assert normalize_timestamp("yesterday") is None and normalize_timestamp(None) is None
    assert normalize_timestamp("1970-01-01T00:00:00Z") == "1970-01-01T00:00:00.000Z"
    assert normalize_timestamp("1969-12-31T23:00:00-02:00") == "1970-01-01T01:00:00.000Z"  # in range once in UTC
    assert normalize_timestamp("2999-12-31T23:59:59.999Z") == "2999-12-31T23:59:59.999Z"
    assert normalize_timestamp("3000-01-01T00:30:00+01:00") == "2999-12-31T23:30:00.000Z"
    assert normalize_timestamp("0001-01-01T00:00:00+01:00") is None  # before year 1 in UTC: no OverflowError
    assert normalize_timestamp("9999-12-31T23:59:59-01:00") is None


def test_a_count_is_a_plain_number_or_unknown() -> None:
    assert [as_count(v) for v in (None, 0, 7, 7.9, MAX_COUNT, float(MAX_COUNT))] == [0, 0, 7, 7, MAX_COUNT, MAX_COUNT]
    unknown = [float("inf"), float("-inf"), float("nan"), 1e400, 2**64, 1 << 70, MAX_COUNT + 1, -1, -0.5,
               True, False, "12", "Infinity", [], {}]
    assert [as_count(v) for v in unknown] == [None] * len(unknown)
    assert [as_int(v) for v in unknown] == [0] * len(unknown)  # where only shown in passing
    assert any_unknown(None, 3, 4.0) is False and any_unknown(None, 3, "x") is True
