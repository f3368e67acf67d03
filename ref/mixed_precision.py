"""``tf.compat.v1.mixed_precision``: TF1's loss scales, the loss-scaling
optimizer and the graph rewrite switch (``ref/optimizers/loss_scale*.py``,
``ref/optimizers/mixed_precision.py``); ``experimental`` holds the loss scales
under their older names."""
from types import SimpleNamespace as _Namespace

from ref.optimizers.loss_scale import DynamicLossScale, FixedLossScale, LossScale  # noqa: F401
from ref.optimizers.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer  # noqa: F401
from ref.optimizers.mixed_precision import (disable_mixed_precision_graph_rewrite,  # noqa: F401
                                            enable_mixed_precision_graph_rewrite)

__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale", "MixedPrecisionLossScaleOptimizer",
           "disable_mixed_precision_graph_rewrite", "enable_mixed_precision_graph_rewrite", "experimental"]

experimental = _Namespace(DynamicLossScale=DynamicLossScale, FixedLossScale=FixedLossScale, LossScale=LossScale)

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.mixed_precision", name)
