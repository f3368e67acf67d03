"""``PyFunc`` / ``PyFuncStateless``: run a Python function inside a graph.

The function lives in this process's callback registry under a string
``token`` (``pyfunc_0``, ``pyfunc_1``, ...), which is all a GraphDef keeps of
it: a graph imported in another process names a token nobody registered, and
running it raises TF's InvalidArgumentError "Could not find callback with
key=... in the registry." The function gets NumPy arrays and returns an array
(or a list of them) whose dtypes must be exactly ``Tout`` -- no casting, as in
TF. An exception inside the function becomes TF's error class for it
(ValueError/TypeError: InvalidArgumentError; StopIteration: OutOfRangeError;
MemoryError: ResourceExhaustedError; NotImplementedError: UnimplementedError;
anything else: UnknownError) with its traceback in the message.
"""
from __future__ import annotations

import itertools
import threading
import traceback

import numpy as np

from ref.ops.registry import REQUIRED, register_op
from ref.types import dtypes, errors
from ref.types.shapes import unknown_shape

_CALLBACKS: dict = {}
_COUNTER = itertools.count()
_LOCK = threading.Lock()


def register_callback(func) -> str:
    """Keeps ``func`` under a fresh token (``pyfunc_N``) and returns the token."""
    with _LOCK:
        token = f"pyfunc_{next(_COUNTER)}"
        _CALLBACKS[token] = func
    return token


_ERRORS = ((ValueError, errors.InvalidArgumentError), (TypeError, errors.InvalidArgumentError),
           (StopIteration, errors.OutOfRangeError), (MemoryError, errors.ResourceExhaustedError),
           (NotImplementedError, errors.UnimplementedError))


def _error(e: BaseException, message: str):
    cls = next((c for exc, c in _ERRORS if isinstance(e, exc)), errors.UnknownError)
    return cls(None, None, message)


def _convert(value):
    """The function's result as an array: str/unicode to bytes (object arrays),
    Fortran order to C order; InternalError for what TF cannot take."""
    result = np.asarray(value, order="C")
    if result.dtype.kind == "V":
        raise errors.InternalError(None, None, f"Unsupported numpy data type {result.dtype}")
    if result.dtype.kind in "SUO":
        out = np.empty(result.shape, dtype=object)
        for idx, x in np.ndenumerate(result):
            if isinstance(x, str):
                x = x.encode("utf-8")
            elif not isinstance(x, bytes):
                raise errors.InternalError(None, None, f"Unsupported object type {type(x).__name__}")
            out[idx] = x
        return out
    return result


def _shapes(ins, attrs):
    return [(d, unknown_shape()) for d in attrs["Tout"]]


class EagerValue(np.ndarray):
    """An input of an ``EagerPyFunc``'s function: the value as NumPy computes with
    it, and ``.numpy()`` as on TF's eager tensors (a NumPy scalar, or ``bytes``,
    for a 0-d value)."""

    def numpy(self):
        v = self.view(np.ndarray)
        return v[()] if v.ndim == 0 else v.copy()


# How an EagerPyFunc's function runs: TF runs it eagerly, so TF ops it calls compute values.
# ref.session registers the runner (a scratch graph run at once); without one the function
# is called as it is.
_EAGER_RUNNER: list = [None]
# TF's tape_cache: the EagerPyFunc tokens whose gradient a graph asks for keep the inputs of
# their latest run here, until the gradient's own function takes them.
RECORDING: set = set()
RECORDED: dict = {}


def set_eager_runner(runner) -> None:
    """``runner(func, args)`` runs an EagerPyFunc's function from now on."""
    _EAGER_RUNNER[0] = runner


def take_recorded(token: str):
    """The inputs the EagerPyFunc ``token`` kept of its latest run (None if none), no longer kept."""
    with _LOCK:
        return RECORDED.pop(token, None)


def callback(token: str):
    """The function registered under ``token`` (None if there is none)."""
    return _CALLBACKS.get(token)


def _call(input, token, Tout, eager=False):
    func = _CALLBACKS.get(token)
    if func is None:
        message = f"ValueError: Could not find callback with key={token} in the registry."
        raise errors.InvalidArgumentError(None, None, message)
    try:
        args = [np.asarray(x) for x in input]
        if eager:
            if token in RECORDING:
                with _LOCK:
                    RECORDED[token] = args
            runner = _EAGER_RUNNER[0]
            args = [a.view(EagerValue) for a in args]
            ret = runner(func, args) if runner is not None else func(*args)
        else:
            ret = func(*args)
    except Exception as e:  # noqa: BLE001 - every Python error becomes TF's class for it
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise _error(e, f"{type(e).__name__}: {e}\n{tb}") from e
    tout = [dtypes.as_dtype(d) for d in Tout]
    if not tout:
        return ()
    values = [_convert(x) for x in ret] if isinstance(ret, (list, tuple)) else [_convert(ret)]
    if len(values) != len(tout):
        raise errors.InvalidArgumentError(None, None, f"pyfunc returned {len(values)} values, but expects to see "
                                                      f"{len(tout)} values.")
    out = []
    for i, (v, d) in enumerate(zip(values, tout)):
        got = dtypes.string if v.dtype == object else dtypes.as_dtype(v.dtype)
        if got != d and eager and v.dtype != object and d != dtypes.string and (
                np.can_cast(v.dtype, d.as_numpy_dtype, "same_kind") or v.dtype.kind in "biu"):
            v, got = v.astype(d.as_numpy_dtype), d  # TF converts what the function returns to Tout
        if got != d:
            raise errors.InvalidArgumentError(None, None, f"{i}-th value returned by {token} is "
                                                          f"{_C_NAMES.get(got.name, got.name)}, but expects "
                                                          f"{_C_NAMES.get(d.name, d.name)}")
        out.append(v)
    return tuple(out)


_C_NAMES = {"float32": "float", "float64": "double", "string": "string", "bool": "bool"}


@register_op("PyFunc", inputs=("input",), outputs=("*output",), list_inputs={"input": None},
             type_lists={"Tin": "input"},
             attrs={"token": REQUIRED, "Tout": REQUIRED}, shape=_shapes, stateful=True)
def py_func(input, token, Tout):
    """output = the registered Python function ``token`` called on ``input`` (stateful)."""
    return _call(input, token, Tout)


@register_op("PyFuncStateless", inputs=("input",), outputs=("*output",), list_inputs={"input": None},
             type_lists={"Tin": "input"},
             attrs={"token": REQUIRED, "Tout": REQUIRED}, shape=_shapes)
def py_func_stateless(input, token, Tout):
    """As PyFunc, for a function declared free of side effects: like TF's
    constant folding, a Session may compute it once for constant inputs and
    reuse the value."""
    return _call(input, token, Tout)


@register_op("EagerPyFunc", inputs=("input",), outputs=("*output",), list_inputs={"input": None},
             type_lists={"Tin": "input"},
             attrs={"token": REQUIRED, "is_async": False, "Tout": REQUIRED}, shape=_shapes, stateful=True)
def eager_py_func(input, token, Tout, is_async=False):
    """output = the registered Python function ``token`` called on ``input`` given as
    :class:`EagerValue` (``x.numpy()`` works as in TF's ``tf.py_function``)."""
    return _call(input, token, Tout, eager=True)
