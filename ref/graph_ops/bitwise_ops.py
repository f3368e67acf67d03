"""``tf.bitwise``: the raw bitwise ops under TF's names (``ref/ops/bitwise.py``)."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _binary(op_type, fname):
    def fn(x, y, name=None):
        return apply_op(op_type, x=x, y=y, name=name)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"Element-wise ``{op_type}`` of two integer tensors of one dtype."
    return fn


bitwise_and = _binary("BitwiseAnd", "bitwise_and")
bitwise_or = _binary("BitwiseOr", "bitwise_or")
bitwise_xor = _binary("BitwiseXor", "bitwise_xor")
left_shift = _binary("LeftShift", "left_shift")
right_shift = _binary("RightShift", "right_shift")


def invert(x, name=None):
    """Every bit of each integer flipped (``Invert``)."""
    return apply_op("Invert", x=x, name=name)


def population_count(x, name=None):
    """The number of set bits of each element, uint8 (``PopulationCount``)."""
    return apply_op("PopulationCount", x=x, name=name)
