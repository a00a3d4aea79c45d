"""Image sniffing: only real PNG/JPEG/GIF/WebP bytes get through, named by hash."""

from __future__ import annotations

import base64
import hashlib
import struct
import zlib

import pytest

from bough_site.render import images
from bough_site.render.images import MAX_IMAGE_BYTES, image_filename, sniff_image


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def tiny_png() -> bytes:
    """A 1x1 red RGB PNG (decodes in Chromium)."""
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + _png_chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + _png_chunk(b"IEND", b"")
    )


def _jpeg_segment(marker: int, data: bytes) -> bytes:
    return b"\xff" + bytes([marker]) + struct.pack(">H", len(data) + 2) + data


def tiny_jpeg() -> bytes:
    """A 1x1 grey baseline JPEG: one DC and one AC Huffman code, both "0"."""
    return (
        b"\xff\xd8"
        + _jpeg_segment(0xDB, b"\x00" + b"\x01" * 64)  # quantisation table 0
        + _jpeg_segment(0xC0, b"\x08\x00\x01\x00\x01\x01\x01\x11\x00")  # 8-bit, 1x1, 1 component
        + _jpeg_segment(0xC4, b"\x00\x01" + b"\x00" * 15 + b"\x00")  # DC table: symbol 0
        + _jpeg_segment(0xC4, b"\x10\x01" + b"\x00" * 15 + b"\x00")  # AC table: EOB
        + _jpeg_segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
        + b"\x3f"  # DC diff 0, EOB, padded with ones
        + b"\xff\xd9"
    )


# The classic 1x1 transparent GIF89a and the two 1x1 WebP images feature tests use.
TINY_GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")
TINY_WEBP_LOSSLESS = base64.b64decode("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
TINY_WEBP_LOSSY = base64.b64decode("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA")


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


VALID = [
    ("png", tiny_png()),
    ("jpg", tiny_jpeg()),
    ("gif", TINY_GIF),
    ("webp", TINY_WEBP_LOSSLESS),
    ("webp", TINY_WEBP_LOSSY),
]


@pytest.mark.parametrize(("ext", "raw"), VALID)
def test_real_images_are_recognised(ext: str, raw: bytes) -> None:
    assert sniff_image(b64(raw)) == (ext, raw)


@pytest.mark.parametrize(("ext", "raw"), VALID)
def test_whitespace_in_base64_is_tolerated(ext: str, raw: bytes) -> None:
    encoded = b64(raw)
    wrapped = "\n".join(encoded[i : i + 8] for i in range(0, len(encoded), 8))
    assert sniff_image(f"  {wrapped}\r\n\t") == (ext, raw)


def _svg() -> bytes:
    return b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'


REFUSED = [
    ("svg", b64(_svg())),
    ("svg with xml prolog", b64(b'<?xml version="1.0"?>' + _svg())),
    ("html", b64(b"<!doctype html><script>alert(1)</script>")),
    ("garbage", b64(b"\x00\x01\x02 not an image at all \xff\xfe")),
    ("empty", ""),
    ("whitespace only", " \n\t "),
    ("png signature only", b64(b"\x89PNG\r\n\x1a\n")),
    ("png truncated before IEND", b64(tiny_png()[:-12])),
    ("png cut in half", b64(tiny_png()[: len(tiny_png()) // 2])),
    ("png signature then html", b64(b"\x89PNG\r\n\x1a\n<script>alert(1)</script>" + b"\x00" * 40)),
    ("png missing IHDR", b64(tiny_png()[:12] + b"XXXX" + tiny_png()[16:])),
    ("jpeg without end marker", b64(tiny_jpeg()[:-2])),
    ("jpeg soi only", b64(b"\xff\xd8\xff")),
    ("gif without trailer", b64(TINY_GIF[:-1])),
    ("gif header only", b64(b"GIF89a")),
    ("webp riff size beyond data", b64(TINY_WEBP_LOSSY[:-4])),
    ("riff but wave", b64(b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 28)),
    ("webp unknown chunk", b64(TINY_WEBP_LOSSY[:12] + b"ABCD" + TINY_WEBP_LOSSY[16:])),
    # A lenient decoder would skip the "!" and find a valid PNG.
    ("invalid base64 characters", b64(tiny_png())[:20] + "!" + b64(tiny_png())[20:]),
    ("html instead of base64", "<img src=x onerror=alert(1)>"),
    ("bad padding", b64(tiny_png())[:-1]),
    ("data url prefix", "data:image/png;base64," + b64(tiny_png())),
    # Valid in the URL-safe alphabet only ("-" and "_"): not what transcripts use.
    ("urlsafe alphabet", base64.urlsafe_b64encode(tiny_jpeg()).decode()),
]


@pytest.mark.parametrize(("case", "data"), REFUSED, ids=[case for case, _ in REFUSED])
def test_refused(case: str, data: str) -> None:
    assert sniff_image(data) is None


@pytest.mark.parametrize("data", [None, 123, b"iVBORw0KGgo="])
def test_non_string_input_is_refused(data: object) -> None:
    assert sniff_image(data) is None  # type: ignore[arg-type]


def test_over_the_size_limit_is_refused_without_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    png = tiny_png()
    padding = MAX_IMAGE_BYTES  # a PNG with a 20 MB ancillary chunk: valid, too big
    big = png[:33] + _png_chunk(b"tEXt", b"k\x00" + b"a" * padding) + png[33:]
    encoded = b64(big)

    def refuse(*_args: object, **_kwargs: object) -> bytes:
        raise AssertionError("decoded an oversized payload")

    monkeypatch.setattr(images.base64, "b64decode", refuse)
    assert sniff_image(encoded) is None


def test_at_the_size_limit_is_accepted() -> None:
    png = tiny_png()
    filler = MAX_IMAGE_BYTES - len(png) - 12  # 12 bytes of chunk framing
    big = png[:33] + _png_chunk(b"tEXt", b"k\x00" + b"a" * (filler - 2)) + png[33:]
    assert len(big) == MAX_IMAGE_BYTES
    result = sniff_image(b64(big))
    assert result is not None and result[0] == "png" and len(result[1]) == MAX_IMAGE_BYTES


def test_media_type_is_never_consulted() -> None:
    # The API takes only the data: a hostile media_type has nowhere to go.
    import inspect

    assert list(inspect.signature(sniff_image).parameters) == ["data_b64"]


def test_image_filename_is_content_addressed() -> None:
    raw = tiny_png()
    expected = hashlib.sha256(raw).hexdigest()[:16] + ".png"
    assert image_filename(raw, "png") == expected
    assert image_filename(raw, "png") == image_filename(bytes(raw), "png")
    assert image_filename(TINY_GIF, "gif") != image_filename(raw, "gif")
    assert len(image_filename(raw, "webp")) == 16 + len(".webp")


@pytest.mark.parametrize("ext", ["svg", "html", "png/../x", "", "PNG", "jpeg"])
def test_image_filename_refuses_other_extensions(ext: str) -> None:
    with pytest.raises(ValueError):
        image_filename(b"x", ext)
