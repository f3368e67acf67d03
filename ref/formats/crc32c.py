"""CRC32C (Castagnoli) and TensorFlow's masked form, used by TFRecord framing
and by checkpoint bundles. The checksum itself comes from the compiled
``google-crc32c`` library (hardware-accelerated where the CPU allows)."""
from __future__ import annotations

import google_crc32c

_MASK_DELTA = 0xA282EAD8


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC32C of ``data``, extending ``crc`` if given."""
    if crc:
        return google_crc32c.extend(crc, bytes(data))
    return google_crc32c.value(bytes(data))


def mask(crc: int) -> int:
    """TF's masked CRC: rotate right by 15 bits and add a constant (crc32c.h)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    return mask(crc32c(data))
