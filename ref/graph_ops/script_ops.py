"""``tf.py_func`` and ``tf.numpy_function``: a Python function as a graph op
(``PyFunc``, or ``PyFuncStateless`` with ``stateful=False``) run in this
interpreter with NumPy arrays. Its outputs have unknown static shapes. A graph
exported with such an op keeps only the function's token; see
``ref/ops/script.py``."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.ops.script import register_callback

__all__ = ["py_func", "numpy_function", "eager_py_func", "py_function"]


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's name
    """``func(*inp_values)`` computed when the op runs; ``Tout`` is a dtype (one
    output) or a list of dtypes. Returns a Tensor or a list of Tensors."""
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type {type(func)}.")
    single = not isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(Tout)] if single else [dtypes.as_dtype(t) for t in Tout]
    token = register_callback(func)
    inputs = [convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp])]
    op_type = "PyFunc" if stateful else "PyFuncStateless"
    result = apply_op(op_type, input=inputs, token=token, Tout=tout, name=name or op_type)
    if not tout:  # the op itself (stateful) or its empty output list (stateless), as TF returns
        return result if stateful else []
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    return result[0] if single else result


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's name
    """``tf.numpy_function``: :func:`py_func` (the same ``PyFunc`` op in a TF1 graph)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def eager_py_func(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TF's name
    """``tf.py_function``: ``func(*inputs)`` computed when the op runs
    (``EagerPyFunc``), each input given with ``.numpy()`` as TF's eager tensors; a
    list ``Tout`` gives a list of Tensors, a single dtype one Tensor. Without
    ``func``, a decorator."""
    if func is None:
        return lambda f: (lambda *args: eager_py_func(f, list(args) if inp is None else inp, Tout, name))
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type {type(func)}.")
    is_list = isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    token = register_callback(func)
    inputs = [convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp])]
    result = apply_op("EagerPyFunc", input=inputs, token=token, is_async=False, Tout=tout, name=name)
    if not tout:  # the op itself (EagerPyFunc is stateful), as TF returns: running it calls func
        return result
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    return result if is_list else result[0]


py_function = eager_py_func
