"""The TF1 surface the optimizer tests build programs with, for ``ref`` and for
``tensorflow.compat.v1``: ``import ref as tf`` once the namespace has
``tf.train``; until then a thin stand-in over ref's modules (same names and
signatures as TF1, nothing more)."""
from __future__ import annotations

import importlib
import types

import numpy as np


def tensorflow_v1():
    import os

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    v1 = tf.compat.v1
    return v1


def _first(*candidates):
    """The first ``module:attr`` that imports, else None."""
    for c in candidates:
        mod, attr = c.split(":")
        try:
            return getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            continue
    return None


def ref_v1():
    import ref

    if hasattr(getattr(ref, "train", None), "AdamOptimizer") and hasattr(ref, "Session"):
        return ref
    import ref.grad  # noqa: F401  (gradient rules)
    import ref.ops

    ref.ops.load_all()
    graph, training_util, variable_scope, variables = (
        importlib.import_module(f"ref.{m}") for m in ("graph", "training_util", "variable_scope", "variables"))
    from ref.graph_ops import array_ops, control_flow_ops
    from ref.framework.op_def_library import apply_op
    from ref.optimizers import (adadelta, adagrad, adagrad_da, adam, ftrl, gradient_descent, momentum,
                                proximal_adagrad, proximal_gradient_descent, rmsprop)
    from ref.optimizers.optimizer import Optimizer
    from ref.session import Session

    def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, name=None):
        return apply_op("SoftmaxCrossEntropyWithLogits", features=logits, labels=labels, name=name)[0]

    train = types.SimpleNamespace(
        Optimizer=Optimizer,
        GradientDescentOptimizer=gradient_descent.GradientDescentOptimizer,
        MomentumOptimizer=momentum.MomentumOptimizer, AdagradOptimizer=adagrad.AdagradOptimizer,
        AdagradDAOptimizer=adagrad_da.AdagradDAOptimizer, AdadeltaOptimizer=adadelta.AdadeltaOptimizer,
        AdamOptimizer=adam.AdamOptimizer, RMSPropOptimizer=rmsprop.RMSPropOptimizer,
        FtrlOptimizer=ftrl.FtrlOptimizer, ProximalAdagradOptimizer=proximal_adagrad.ProximalAdagradOptimizer,
        ProximalGradientDescentOptimizer=proximal_gradient_descent.ProximalGradientDescentOptimizer,
        get_or_create_global_step=training_util.get_or_create_global_step,
        exponential_decay=_first("ref.optimizers.schedules:exponential_decay"),
    )
    ns = types.SimpleNamespace(
        Graph=graph.Graph, Session=Session, Variable=variables.Variable, get_variable=variable_scope.get_variable,
        GraphKeys=graph.GraphKeys, IndexedSlices=graph.IndexedSlices, float32=np.float32, float64=np.float64,
        constant=graph.constant, placeholder=control_flow_ops.placeholder, gather=array_ops.gather,
        global_variables_initializer=variables.global_variables_initializer,
        global_variables=variables.global_variables, trainable_variables=variables.trainable_variables,
        get_collection=graph.get_collection, gradients=importlib.import_module("ref.grad").gradients,
        matmul=lambda a, b: apply_op("MatMul", a=a, b=b), tanh=lambda x: apply_op("Tanh", x=x),
        add=lambda x, y: apply_op("AddV2", x=x, y=y),
        reduce_mean=lambda x: apply_op("Mean", input=x, axis=np.arange(len(x.shape), dtype=np.int32)),
        reduce_sum=lambda x: apply_op("Sum", input=x, axis=np.arange(len(x.shape), dtype=np.int32)),
        nn=types.SimpleNamespace(softmax_cross_entropy_with_logits_v2=softmax_cross_entropy_with_logits_v2),
        clip_by_global_norm=_first("ref.optimizers.clipping:clip_by_global_norm",
                                   "ref.graph_ops.clip_ops:clip_by_global_norm"),
        train=train,
    )
    return ns
