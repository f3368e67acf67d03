"""PowerSign has no TF1 class in ``ref`` (TF's is ``tf.contrib.opt.PowerSignOptimizer``):
its formula, the ``ApplyPowerSign`` kernel and ``DEFAULTS`` are in
:mod:`ref.ops.training.powersign`, importable from here too."""
from ref.ops.training.powersign import DEFAULTS, apply_power_sign, powersign_update  # noqa: F401
