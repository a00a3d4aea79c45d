"""Base64 images from transcripts, checked by content and named by hash.

docs/safety.md S6: the record's ``media_type`` is attacker text (one fixture's was
``image/png" onerror="alert(13)``) and is never read here.  The type comes from
the bytes: PNG, JPEG, GIF or WebP with a plausible start *and* end, so SVG (which
runs script), HTML and truncated or mislabelled data are refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct

MAX_IMAGE_BYTES = 20 * 1024 * 1024
IMAGE_EXTENSIONS = frozenset({"png", "jpg", "gif", "webp"})

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _decode(data_b64: str) -> bytes | None:
    if not isinstance(data_b64, str):
        return None
    compact = "".join(data_b64.split())  # line-wrapped base64 is common
    # Refuse before decoding: 4 base64 characters make 3 bytes.
    if not compact or len(compact) // 4 * 3 > MAX_IMAGE_BYTES + 2:
        return None
    try:
        # validate=True: characters outside the alphabet are an error instead
        # of being silently skipped (which could splice two payloads together).
        raw = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if 0 < len(raw) <= MAX_IMAGE_BYTES else None


def _is_png(raw: bytes) -> bool:
    # Signature, then the IHDR chunk first, then the IEND chunk last.
    return (
        raw.startswith(_PNG_SIGNATURE)
        and len(raw) >= len(_PNG_SIGNATURE) + 25 + len(_PNG_IEND)
        and raw[12:16] == b"IHDR"
        and raw.endswith(_PNG_IEND)
    )


def _is_jpeg(raw: bytes) -> bool:
    # SOI + the next marker's 0xFF; EOI at the end (some encoders pad with zeros).
    return len(raw) >= 6 and raw.startswith(b"\xff\xd8\xff") and raw.rstrip(b"\x00").endswith(b"\xff\xd9")


def _is_gif(raw: bytes) -> bool:
    # Header (6) + logical screen descriptor (7), trailer byte 0x3B at the end.
    return len(raw) >= 14 and raw[:6] in (b"GIF87a", b"GIF89a") and raw.endswith(b";")


def _is_webp(raw: bytes) -> bool:
    # RIFF container whose declared size fits the data, WEBP form, a VP8 chunk.
    if len(raw) < 20 or raw[:4] != b"RIFF" or raw[8:12] != b"WEBP":
        return False
    (riff_size,) = struct.unpack("<I", raw[4:8])
    return raw[12:16] in (b"VP8 ", b"VP8L", b"VP8X") and 12 <= riff_size + 8 <= len(raw)


_CHECKS = (("png", _is_png), ("jpg", _is_jpeg), ("gif", _is_gif), ("webp", _is_webp))


def sniff_image(data_b64: str) -> tuple[str, bytes] | None:
    """``(ext, raw_bytes)`` if ``data_b64`` decodes to a PNG, JPEG, GIF or WebP
    of at most 20 MB, else None (SVG, HTML, garbage, truncated, bad base64)."""
    raw = _decode(data_b64)
    if raw is None:
        return None
    for ext, check in _CHECKS:
        if check(raw):
            return ext, raw
    return None


def image_filename(raw: bytes, ext: str) -> str:
    """``<first 16 hex of sha256>.<ext>``: the same image is written once, and
    the name carries nothing from the transcript."""
    if ext not in IMAGE_EXTENSIONS:
        raise ValueError(f"not an image extension we write: {ext!r}")
    return f"{hashlib.sha256(raw).hexdigest()[:16]}.{ext}"
