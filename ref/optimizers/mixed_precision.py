"""TF1's mixed precision graph rewrite switch:
``tf.compat.v1.mixed_precision.enable_mixed_precision_graph_rewrite(opt, loss_scale)``
and ``disable_mixed_precision_graph_rewrite()`` (also under
``tf.compat.v1.train.experimental``).

TF's API reference: enabling "returns an `Optimizer` (`opt`) wrapped with a
`LossScaleOptimizer`" and turns on Grappler's ``auto_mixed_precision`` option
for Sessions created afterwards. That rewrite only changes ops placed on NVIDIA
Tensor Core GPUs ("The parts of the graph on CPUs and TPUs are untouched by the
graph rewrite"); ref's Sessions run on the CPU, so the option is recorded
(``tf.config.optimizer.get_experimental_options()``) and the graph runs as
built. The optimizer wrapping and its errors are TF's.
"""
from __future__ import annotations

from ref.platform import tf_logging
from ref.session import mixed_precision_global_state
from ref.session.runtime_config import set_optimizer_experimental_options
from ref.optimizers.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer
from ref.optimizers.optimizer import Optimizer

__all__ = ["enable_mixed_precision_graph_rewrite", "disable_mixed_precision_graph_rewrite",
           "register_loss_scale_wrapper"]

# optimizer class -> (function making the wrapper, the wrapper's class)
_REGISTERED_WRAPPER_OPTIMIZER_CLS = {Optimizer: (MixedPrecisionLossScaleOptimizer,) * 2}


def register_loss_scale_wrapper(optimizer_cls, wrapper_fn, wrapper_cls=None):
    """Makes ``enable_mixed_precision_graph_rewrite`` wrap an ``optimizer_cls`` instance with
    ``wrapper_fn(optimizer, loss_scale)``, an instance of ``wrapper_cls`` (default: ``wrapper_fn``)."""
    _REGISTERED_WRAPPER_OPTIMIZER_CLS[optimizer_cls] = (wrapper_fn, wrapper_cls or wrapper_fn)


def _wrap_optimizer(opt, loss_scale):
    for _, wrapper_cls in _REGISTERED_WRAPPER_OPTIMIZER_CLS.values():
        if isinstance(opt, wrapper_cls):
            raise ValueError('"opt" must not already be an instance of a {cls}. '
                             '`enable_mixed_precision_graph_rewrite` will automatically wrap the optimizer with a '
                             '{cls}.'.format(cls=wrapper_cls.__name__))
    for optimizer_cls, (wrapper_fn, _) in _REGISTERED_WRAPPER_OPTIMIZER_CLS.items():
        if isinstance(opt, optimizer_cls):
            return wrapper_fn(opt, loss_scale)
    raise ValueError('"opt" must be an instance of a tf.train.Optimizer or a tf.keras.optimizers.Optimizer, '
                     'but got: %s' % opt)


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """``opt`` wrapped with loss scaling; turns the rewrite on for new Sessions. ValueError if a
    Keras mixed precision policy is in use, or ``opt`` is no optimizer or already wrapped."""
    if mixed_precision_global_state.is_using_mixed_precision_policy():
        raise ValueError(
            "The mixed precision graph rewrite cannot be enabled, because the global Keras dtype Policy has been "
            "set to a mixed precision policy. At most, one of the following can be called:\n\n"
            "  1. tf.keras.mixed_precision.set_global_policy() with a mixed precision policy (You called this "
            "first)\n\n"
            "  2. tf.train.experimental.enable_mixed_precision_graph_rewrite() (You called this second)\n"
            "You called both functions, which is an error, because both functions enable you to use mixed "
            "precision. If in doubt which function to use, use the first, as it supports Eager execution and is "
            "more customizable.")
    if mixed_precision_global_state.non_mixed_precision_session_created():
        tf_logging.warn("You already have existing Sessions that do not use mixed precision. "
                        "enable_mixed_precision_graph_rewrite() will not affect these Sessions.")
    opt = _wrap_optimizer(opt, loss_scale)
    set_optimizer_experimental_options({"auto_mixed_precision": True})
    mixed_precision_global_state.set_mixed_precision_graph_rewrite_enabled(True)
    return opt


def disable_mixed_precision_graph_rewrite():
    """Turns the rewrite off for Sessions created afterwards (warns if it was off)."""
    if not mixed_precision_global_state.is_mixed_precision_graph_rewrite_enabled():
        tf_logging.warn("disable_mixed_precision_graph_rewrite() called when mixed precision is already disabled.")
    set_optimizer_experimental_options({"auto_mixed_precision": False})
    mixed_precision_global_state.set_mixed_precision_graph_rewrite_enabled(False)


# TF's module names them with a _v1 suffix
enable_mixed_precision_graph_rewrite_v1 = enable_mixed_precision_graph_rewrite
disable_mixed_precision_graph_rewrite_v1 = disable_mixed_precision_graph_rewrite
