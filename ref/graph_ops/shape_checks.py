"""``tf.debugging.assert_shapes``: shape relations between tensors.

A specified shape is a sequence of dimension symbols: an int (that size), a
string (a size shared by every dimension using that name), ``None`` or ``"."``
(any size), and a leading ``...``/``"*"`` (any number of outer dimensions). A
scalar counts as rank 1 of size 1. Constraints that static shapes decide raise
ValueError now; the others become ``Assert`` ops, grouped behind the rank checks.
"""
from __future__ import annotations

from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.check_ops import _prefix, assert_rank, assert_rank_at_least, assert_rank_in
from ref.graph_ops.control_flow_ops import cond, group
from ref.graph_ops.logging_ops import Assert

__all__ = ["assert_shapes"]


def _sizes(x):
    """The size of each dimension: an int when static, else a scalar Tensor."""
    dynamic = x.dense_shape if isinstance(x, SparseTensor) else array_ops.shape(x)
    static = x.get_shape()
    if static.ndims == 0:
        return (1,)
    if static.ndims is not None:
        return [int(d) if d is not None else dynamic[i] for i, d in enumerate(static.as_list())]
    return cond(math_ops.equal(array_ops.rank(x), 0), lambda: convert_to_tensor([1]), lambda: dynamic)


def _known(size):
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return size is not None


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """An op that checks ``shapes`` (a dict or a list of ``(tensor, shape)`` pairs).

    Raises:
      ValueError: a shape that is not iterable, a ``...`` not in first place, or
        a static size that breaks a constraint.
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _prefix(message)
    with name_scope(name, "assert_shapes", [shapes, data]):
        pairs = [(x if isinstance(x, SparseTensor) else convert_to_tensor(x), s) for x, s in shapes if s is not None]

        def label(x):
            return f"shape={x.get_shape()} dtype={x.dtype.name}" if isinstance(x, SparseTensor) else x.name

        specs = []
        for x, shape in pairs:
            if not (hasattr(shape, "__iter__") or hasattr(shape, "__getitem__")):
                raise ValueError(f"{prefix}Tensor {label(x)}.  Specified shape must be an iterable.  An iterable has "
                                 f"the attribute `__iter__` or `__getitem__`.  Received specified shape: {shape}")
            shape = tuple(shape)
            outer = False
            for i, sym in enumerate(shape):
                if sym is Ellipsis or (isinstance(sym, str) and sym == "*"):
                    if i != 0:
                        raise ValueError(f"{prefix}Tensor {label(x)} specified shape index {i}.  Symbol `...` or `*` "
                                         "for a variable number of unspecified dimensions is only allowed as the "
                                         "first entry")
                    outer = True
            symbols = shape[1:] if outer else shape
            specs.append((x, outer, _sizes(x), symbols or (1,)))

        rank_checks = []
        for x, outer, _, symbols in specs:
            rank, small = len(symbols), len(symbols) in (0, 1)
            if outer and small:
                continue
            check = assert_rank_at_least if outer else (assert_rank_in if small else assert_rank)
            arg = [0, 1] if (small and not outer) else rank
            rank_checks.append(check(x, arg, data=data, summarize=summarize, message=message, name=name))

        size_checks, named = [], {}
        for x, outer, actual, symbols in specs:
            for i, sym in enumerate(symbols):
                if sym is None or (isinstance(sym, str) and sym == "."):
                    continue
                dim = i - len(symbols) if outer else i
                if not _known(sym) and sym not in named:
                    with control_dependencies(rank_checks):
                        named[sym] = (actual[dim], x, dim)
                    continue
                if _known(sym):
                    want, how = int(sym), "Specified explicitly"
                else:
                    want, by, at = named[sym]
                    how = f"Specified by tensor {label(by)} dimension {at}"
                with control_dependencies(rank_checks):
                    got = actual[dim]
                if _known(got) and _known(want):
                    if int(got) != int(want):
                        raise ValueError(f"{prefix}{how}.  Tensor {label(x)} dimension {dim} must have size "
                                         f"{int(want)}.  Received size {int(got)}, shape {x.get_shape()}")
                    continue
                condition = math_ops.equal(convert_to_tensor(got), convert_to_tensor(want))
                data_ = data if data is not None else [
                    prefix, how, f"Tensor {label(x)} dimension", dim, "must have size", want,
                    "Received shape: ", array_ops.shape(x)]
                size_checks.append(Assert(condition, data_, summarize=summarize))
    with control_dependencies(rank_checks):
        return group(size_checks)
