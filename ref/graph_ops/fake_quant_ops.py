"""``tf.quantization.fake_quant_with_min_max_*`` (and their TF1 top-level names):
the raw ops of ``ref/ops/fake_quant.py`` under TF's builder names."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient", "fake_quant_with_min_max_vars",
           "fake_quant_with_min_max_vars_gradient", "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """``inputs`` rounded onto ``2**num_bits`` levels over the nudged [min, max] (``FakeQuantWithMinMaxArgs``)."""
    return apply_op("FakeQuantWithMinMaxArgs", inputs=inputs, min=min, max=max, num_bits=num_bits,
                    narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None):
    """``gradients`` where ``inputs`` lies in the nudged range (``FakeQuantWithMinMaxArgsGradient``)."""
    return apply_op("FakeQuantWithMinMaxArgsGradient", gradients=gradients, inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """As ``..._args`` with ``min``/``max`` scalar tensors (``FakeQuantWithMinMaxVars``)."""
    return apply_op("FakeQuantWithMinMaxVars", inputs=inputs, min=min, max=max, num_bits=num_bits,
                    narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                          name=None):
    """(d inputs, d min, d max) of ``FakeQuantWithMinMaxVars`` (``FakeQuantWithMinMaxVarsGradient``)."""
    return apply_op("FakeQuantWithMinMaxVarsGradient", gradients=gradients, inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                             name=None):
    """Per last-dimension channel ``c``, fake quantization over [min[c], max[c]]."""
    return apply_op("FakeQuantWithMinMaxVarsPerChannel", inputs=inputs, min=min, max=max, num_bits=num_bits,
                    narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False, name=None):
    """(d inputs, d min, d max) of the per-channel form."""
    return apply_op("FakeQuantWithMinMaxVarsPerChannelGradient", gradients=gradients, inputs=inputs, min=min,
                    max=max, num_bits=num_bits, narrow_range=narrow_range, name=name)
