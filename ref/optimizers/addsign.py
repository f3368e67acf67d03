"""AddSign has no TF1 class in ``ref`` (TF's is ``tf.contrib.opt.AddSignOptimizer``):
its formula, the ``ApplyAddSign`` kernel and ``DEFAULTS`` are in
:mod:`ref.ops.training.addsign`, importable from here too."""
from ref.ops.training.addsign import DEFAULTS, addsign_update, apply_add_sign  # noqa: F401
