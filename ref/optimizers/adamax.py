"""AdaMax has no TF1 class in ``ref`` (TF's is ``tf.contrib.opt.AdaMaxOptimizer``):
its formula, the ``ApplyAdaMax`` kernel and ``DEFAULTS`` are in
:mod:`ref.ops.training.adamax`, importable from here too."""
from ref.ops.training.adamax import DEFAULTS, adamax_update, apply_ada_max  # noqa: F401
