"""``tf.debugging.assert_*`` (TF1 graph mode): ops that raise
InvalidArgumentError at run time when a condition fails, built on ``Assert``.

When both sides are constants the condition is checked at graph construction
and a failure raises InvalidArgumentError right away, its message the ``data``
lines joined by newlines (as compat.v1 does). Rank and dtype checks that the
static shapes decide raise ValueError/TypeError and return a ``NoOp``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, errors
from ref.framework.graph import Tensor, control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import cond, group, no_op, with_dependencies
from ref.graph_ops.logging_ops import Assert

__all__ = ["assert_equal", "assert_none_equal", "assert_near", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_negative", "assert_positive", "assert_non_negative",
           "assert_non_positive", "assert_rank", "assert_rank_at_least", "assert_rank_in", "assert_integer",
           "assert_type", "assert_scalar", "assert_proper_iterable", "assert_same_float_dtype",
           "is_numeric_tensor", "is_non_decreasing", "is_strictly_increasing", "add_check_numerics_ops"]


def _prefix(message):
    return f"{message}.  " if message else ""


def _static_string(t):
    if not isinstance(t, Tensor):
        return str(t)
    v = constant_value(t)
    if v is None:
        return t
    if isinstance(v, np.ndarray) and v.dtype == object:
        v = np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else s, otypes=[object])(v)
        return str(v.item()) if v.ndim == 0 else str(v)
    return str(v)


def _assert_static(condition, data):
    if not condition:
        raise errors.InvalidArgumentError(None, None, "\n".join(str(_static_string(x)) for x in data))


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x,
                    f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = math_ops.reduce_all(op_func(x, y))
        xs, ys = constant_value(x), constant_value(y)
        if xs is not None and ys is not None:
            _assert_static(bool(np.all(static_func(xs, ys))), data)
        return Assert(condition, data, summarize=summarize)


def _binary(sym, opname, op_func, static_func, doc):
    def fn(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name)
    fn.__name__ = opname
    fn.__doc__ = (f"An op raising InvalidArgumentError unless ``x {sym} y`` holds element-wise "
                  f"(broadcasting); {doc}")
    return fn


_SEE = "``data`` (default: the condition and the first ``summarize`` entries of x and y) makes the message."
_assert_equal = _binary("==", "assert_equal", math_ops.equal, np.equal, _SEE)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op raising InvalidArgumentError unless ``x == y`` holds element-wise
    (broadcasting); ``x is y``: a no_op. As TF, a first ``assert_equal`` scope
    is opened for that short cut, so the assertion's ops live in the next
    (``assert_equal_1``)."""
    with name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return no_op()
    return _assert_equal(x, y, data, summarize, message, name)
assert_none_equal = _binary("!=", "assert_none_equal", math_ops.not_equal, np.not_equal, _SEE)
assert_less = _binary("<", "assert_less", math_ops.less, np.less, _SEE)
assert_less_equal = _binary("<=", "assert_less_equal", math_ops.less_equal, np.less_equal, _SEE)
assert_greater = _binary(">", "assert_greater", math_ops.greater, np.greater, _SEE)
assert_greater_equal = _binary(">=", "assert_greater_equal", math_ops.greater_equal, np.greater_equal, _SEE)


def _unary(opname, sym, build):
    def fn(x, data=None, summarize=None, message=None, name=None):
        message = _prefix(message)
        with name_scope(name, opname, [x, data]):
            x = convert_to_tensor(x, name="x")
            if data is None:
                data = [message, f"Condition x {sym} 0 did not hold element-wise:", f"x ({x.name}) = ", x]
                if sym == "<=":  # TF's assert_non_positive runs these two lines together
                    data[1:3] = [data[1] + data[2]]
            zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
            return build(x, zero, data, summarize)
    fn.__name__ = opname
    fn.__doc__ = f"An op raising InvalidArgumentError unless ``x {sym} 0`` everywhere."
    return fn


assert_negative = _unary("assert_negative", "<", lambda x, z, d, s: assert_less(x, z, data=d, summarize=s))
assert_positive = _unary("assert_positive", ">", lambda x, z, d, s: assert_less(z, x, data=d, summarize=s))
assert_non_negative = _unary("assert_non_negative", ">=",
                             lambda x, z, d, s: assert_less_equal(z, x, data=d, summarize=s))
assert_non_positive = _unary("assert_non_positive", "<=",
                             lambda x, z, d, s: assert_less_equal(x, z, data=d, summarize=s))


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An op raising InvalidArgumentError unless ``|x - y| <= atol + rtol * |y|``
    element-wise; ``rtol`` and ``atol`` default to ``10 * eps`` of x's dtype."""
    message = _prefix(message)
    with name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        dtype = x.dtype.base_dtype
        if dtype.is_complex:
            dtype = dtype.real_dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {_tensor_str(rtol)}, atol = {_tensor_str(atol)}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)  # TF's operators: nodes add, mul, sub
        diff = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(diff, tol))
        return Assert(condition, data, summarize=summarize)


def _tensor_str(t):
    """``str(tensor)`` as TensorFlow writes it."""
    dims = "" if t.shape.ndims is None else "(" + ", ".join(str(d) for d in t.shape.as_list()) + \
        ("," if t.shape.ndims == 1 else "") + ")"
    return f'Tensor("{t.name}", shape={dims or "<unknown>"}, dtype={t.dtype.name})'


def _rank_condition(x, ranks, static_condition, dynamic_condition, data, summarize):
    for r in ranks:
        assert_type(r, dtypes.int32)
    statics = [constant_value(r) for r in ranks]
    if all(s is not None for s in statics):
        for s in statics:
            if np.ndim(s) != 0:
                raise ValueError("Rank must be a scalar.")
        if x.shape.ndims is not None:
            given = int(statics[0]) if len(statics) == 1 else tuple(int(v) for v in statics)
            if not static_condition(x.shape.ndims, given):
                raise ValueError("Static rank condition failed", x.shape.ndims, given)
            return no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(array_ops.rank(x), ranks)
    for r, s in zip(ranks, statics):
        if s is None:
            check = assert_rank(r, 0, data=["Rank must be a scalar. Received rank: ", r])
            condition = with_dependencies([check], condition)
    return Assert(condition, data, summarize=summarize)


def _rank_assert(opname, phrase, x, ranks, static_condition, dynamic_condition, data, summarize, message, name,
                 single=True, sparse_ok=True):
    with name_scope(name, opname, [x] + list(ranks) + list(data or [])):
        # assert_rank and assert_rank_in check a SparseTensor's dense shape (naming it ''), as TF's
        sparse = sparse_ok and isinstance(x, SparseTensor)
        if not sparse:
            x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        message = _prefix(message)
        x_name = "" if sparse else x.name
        if data is None:
            data = [message, f"Tensor {x_name} must have rank{phrase}"] + list(ranks) + \
                ["Received shape: ", x.dense_shape if sparse else array_ops.shape(x)]
        try:
            return _rank_condition(x, ranks, static_condition, dynamic_condition, data, summarize)
        except ValueError as e:
            if e.args[0] == "Static rank condition failed":
                want = "%d" % e.args[2] if single else str(e.args[2])
                raise ValueError(f"{message}Tensor {x_name} must have rank{phrase} {want}.  Received rank "
                                 f"{e.args[1]}, shape {x.shape}") from None
            raise


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """ValueError now if ``x``'s static rank is not ``rank`` (then a NoOp); else an
    op raising InvalidArgumentError at run time when the rank differs."""
    return _rank_assert("assert_rank", "", x, [rank], lambda a, g: a == g,
                        lambda r, rs: math_ops.equal(r, rs[0]), data, summarize, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """As :func:`assert_rank`, for ``rank(x) >= rank``."""
    return _rank_assert("assert_rank_at_least", " at least", x, [rank], lambda a, g: a >= g,
                        lambda r, rs: math_ops.greater_equal(r, rs[0]), data, summarize, message, name,
                        sparse_ok=False)


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """As :func:`assert_rank`, for ``rank(x)`` being one of ``ranks``."""
    def dynamic(r, rs):  # TF's: an Equal per rank, or-ed (a rank that is not a scalar fails its own check)
        result = math_ops.equal(rs[0], r)
        for given in rs[1:]:
            result = math_ops.logical_or(result, math_ops.equal(given, r))
        return result
    return _rank_assert("assert_rank_in", " in", x, list(ranks), lambda a, g: a in g, dynamic, data, summarize,
                        message, name, single=False)


def assert_integer(x, message=None, name=None):
    """TypeError unless ``x`` has an integer dtype; returns a NoOp."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: {x.name} of dtype '
                            f"<dtype: '{x.dtype.name}'>")
        return no_op("statically_determined_was_integer")


# composite tensor class -> its component checked by assert_type (registered from above:
# ragged_tensor registers RaggedTensor -> flat_values, as TF's ragged dispatch of assert_type)
ASSERT_TYPE_COMPONENT = {}


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless ``tensor`` has dtype ``tf_type``; returns a NoOp."""
    component = ASSERT_TYPE_COMPONENT.get(type(tensor))
    if component is not None:
        return assert_type(component(tensor), tf_type, message=message, name=name)
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        if not isinstance(tensor, SparseTensor):
            tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype.base_dtype != tf_type:
            raise TypeError(f"{_prefix(message)}{getattr(tensor, 'name', 'tensor')} must be of type {tf_type!r}; "
                            f"got {tensor.dtype!r}")
        return no_op("statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    """``tensor`` if its static shape is a scalar, else ValueError."""
    with name_scope(name, "assert_scalar", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.shape.ndims != 0:
            raise ValueError(f"{_prefix(message)}Expected scalar shape for {tensor.name}, saw shape: "
                             f"{tensor.shape}.")
        return tensor


def assert_proper_iterable(values):
    """TypeError unless ``values`` is an iterable that is not a Tensor, array or string."""
    if isinstance(values, (Tensor, SparseTensor, np.ndarray, str, bytes)) or hasattr(values, "_as_graph_element"):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def _dtype_str(dtype):
    """TF's ``str`` of a DType (``<dtype: 'float32'>``), as its messages print it."""
    return f"<dtype: '{dtypes.as_dtype(dtype).name}'>"


def _assert_same_base_type(items, expected_type=None):
    """The base dtype all non-None ``items`` share (and ``expected_type``, when
    given); ValueError naming the first item that differs (TF's wording)."""
    first_name = None
    for item in items:
        if item is None:
            continue
        item_type = item.dtype.base_dtype
        if not expected_type:
            expected_type = item_type
            first_name = item.name if hasattr(item, "name") else str(item)
        elif expected_type != item_type:
            name = item.name if hasattr(item, "name") else str(item)
            raise ValueError(f"{name}, type={_dtype_str(item_type)}, must be of the same type "
                             f"({_dtype_str(expected_type)}){f' as {first_name}' if first_name else ''}.")
    return expected_type


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (None items ignored; Tensors,
    SparseTensors, Variables) and ``dtype``; ValueError when they differ or the
    type is not floating; float32 when there is none."""
    if tensors:
        dtype = _assert_same_base_type(tensors, dtype)
    if not dtype:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {_dtype_str(dtype)}.")
    return dtype


def is_numeric_tensor(tensor):
    """Whether ``tensor`` is a Tensor of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.base_dtype in dtypes.NUMBERS


def _monotone(x, name, default, compare):
    """compare(x[1:], x[:-1]) of x flattened, reduced with all; TF's graph: a cond
    on size(x) < 2 whose short branch is an empty bool vector."""
    with name_scope(name, default, [x]):
        x = array_ops.reshape(x, [-1])
        if not is_numeric_tensor(x):
            raise TypeError(f"Expected x to be numeric, instead found: {x}")
        is_shorter_than_two = math_ops.less(array_ops.size(x), 2)
        s_len = array_ops.shape(x) - 1
        diff = cond(is_shorter_than_two, lambda: convert_to_tensor([], dtype=dtypes.bool),
                    lambda: compare(array_ops.strided_slice(x, [1], [1] + s_len),
                                    array_ops.strided_slice(x, [0], s_len)))
        return math_ops.reduce_all(diff)


def is_non_decreasing(x, name=None):
    """True when ``x`` flattened never decreases (empty and 1-element: True)."""
    return _monotone(x, name, "is_non_decreasing", math_ops.greater_equal)


def is_strictly_increasing(x, name=None):
    """True when ``x`` flattened always increases (empty and 1-element: True)."""
    return _monotone(x, name, "is_strictly_increasing", math_ops.greater)


def add_check_numerics_ops():
    """One ``CheckNumerics`` per float16/float32/float64 output of every op in
    the default graph (message ``"<op name>:<output index>"``), chained by
    control dependencies in creation order; returns the group running them all.
    Ops added afterwards are not checked."""
    from_graph = get_default_graph()
    check = []
    for op in from_graph.get_operations():
        for i, output in enumerate(op.outputs):
            if output.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
                with control_dependencies(check):
                    check = [apply_op("CheckNumerics", tensor=output, message=f"{op.name}:{i}",
                                      name="CheckNumerics")]
    return group(*check)
