"""An ``EagerPyFunc``'s function run as TF runs it: eagerly. TF calls the
function with eager tensors, so the TF ops it calls compute values at once;
ref has no eager runtime, so the function's ops go into a scratch graph of
their own (never the caller's), which a scratch Session runs as soon as the
function returns (its variables initialized first, as eager variables are on
creation); the values replace the Tensors in what the function returned.
Python's ``if t:`` and ``np.asarray(t)`` on a Tensor of that graph compute it
then (``Tensor._eager_value``). Returning a variable is TF's RuntimeError (UnknownError from the op). Importing
:mod:`ref.session` registers this runner with the kernel (``ref/ops/script.py``)."""
from __future__ import annotations

import numpy as np

from ref.framework.graph import Graph, Operation, Tensor
from ref.graph_ops.variables import Variable, global_variables_initializer, local_variables_initializer
from ref.ops import script
from ref.session.session import Session
from ref.types import nest

__all__ = ["call_eagerly"]


def _evaluator(graph):
    """The value of a Tensor of ``graph`` now: Python's ``if t:`` and ``np.asarray(t)`` on it work, as on
    TF's eager tensors."""
    def evaluate(tensor):
        with graph.as_default():
            init = [global_variables_initializer(), local_variables_initializer()]
        with Session(graph=graph) as sess:
            sess.run(init)
            return np.asarray(sess.run(tensor))
    return evaluate


def call_eagerly(func, args):
    """``func(*args)`` with the TF ops it builds run at once (see the module docstring)."""
    graph = Graph()
    graph._eager_evaluate = _evaluator(graph)
    with graph.as_default():
        ret = func(*args)
        flat = nest.flatten(ret) if ret is not None else []
        for value in flat:
            if isinstance(value, Variable):
                raise RuntimeError(
                    "Attempting to return a variable from an eagerly executed py_func. Only numeric data "
                    "structures like Tensors or NumPy arrays should be returned; to return the value of a "
                    "variable, make sure to obtain the Tensor backing it by calling `.read_value()` on the "
                    f"variable in question: {value}")
        symbolic = [i for i, v in enumerate(flat) if isinstance(v, (Tensor, Operation))]
        if not symbolic:
            return ret
        init = [global_variables_initializer(), local_variables_initializer()]
    with Session(graph=graph) as sess:
        sess.run(init)
        values = sess.run([flat[i] for i in symbolic])
    for i, v in zip(symbolic, values):
        flat[i] = v
    return nest.pack_sequence_as(ret, flat) if nest.is_nested(ret) else flat[0]


script.set_eager_runner(call_eagerly)
