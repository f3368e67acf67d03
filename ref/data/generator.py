"""``Dataset.from_generator`` as TF builds it: ``from_tensors(0).flat_map(f)``
where ``f`` makes a ``GeneratorDataset`` whose init, next and finalize
functions are ``PyFunc`` ops: init starts a fresh Python iterator of the
generator (under an int64 id), next calls ``next`` on it (StopIteration is
OutOfRangeError, the end of the dataset), finalize forgets it."""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ref.data.dataset_ops import DatasetV1, TensorSpec, _Traced
from ref.framework.op_def_library import apply_op
from ref.graph_ops.script_ops import py_func
from ref.types import dtypes, nest
from ref.types.shapes import TensorShape


class _GeneratorState:
    def __init__(self, generator):
        self._generator, self._ids, self._args, self._iterators = generator, itertools.count(), {}, {}
        self._lock = threading.Lock()

    def get_next_id(self, *args):
        with self._lock:
            i = next(self._ids)
            self._args[i] = args
        return np.int64(i)

    def get_iterator(self, i):
        with self._lock:
            it = self._iterators.get(i)
            if it is None:
                it = self._iterators[i] = iter(self._generator(*self._args.pop(i, ())))
        return it

    def finalize(self, i):
        with self._lock:
            self._iterators.pop(i, None)
            self._args.pop(i, None)
        return np.int64(0)


def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None):
    """A dataset of the values ``generator()`` (or ``generator(*args)``) yields."""
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
        output_types = nest.map_structure(lambda s: s.dtype, output_signature)
        output_shapes = nest.map_structure(lambda s: s.shape, output_signature)
    if output_types is None:
        raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                        "argument or the `output_types` argument.")
    flat_types = [dtypes.as_dtype(t) for t in nest.flatten(output_types)]
    if output_shapes is None:
        flat_shapes = [TensorShape(None)] * len(flat_types)
    elif not nest.is_nested(output_types):
        flat_shapes = [TensorShape(output_shapes)]
    else:
        flat_shapes = [TensorShape(s) if not isinstance(s, TensorShape) else s
                       for s in _flat_up_to(output_types, output_shapes)]
    structure = nest.pack_sequence_as(output_types, [TensorSpec(s, t) for t, s in zip(flat_types, flat_shapes)])
    state = _GeneratorState(generator)
    arg_list = list(args) if args is not None else []

    def next_values(i):
        values = next(state.get_iterator(int(i)))
        flat = nest.flatten(values) if nest.is_nested(output_types) else [values]
        if len(flat) != len(flat_types):
            raise TypeError(f"`generator` yielded an element that did not match the expected structure. "
                            f"The expected structure was {output_types}, but the yielded element was {values}.")
        out = []
        for v, t, s in zip(flat, flat_types, flat_shapes):
            a = np.asarray(v, dtype=object if t == dtypes.string else t.as_numpy_dtype)
            if not s.is_compatible_with(TensorShape(a.shape)):
                raise TypeError(f"`generator` yielded an element of shape {list(a.shape)} where an element of "
                                f"shape {s} was expected.")
            out.append(a)
        return out

    def get_iterator_id_fn(unused_dummy):
        return py_func(state.get_next_id, arg_list, dtypes.int64)

    def generator_next_fn(iterator_id):
        outs = py_func(next_values, [iterator_id], flat_types)
        for t, s in zip(outs, flat_shapes):
            t.set_shape(s)
        return tuple(outs) if nest.is_nested(output_types) or len(outs) > 1 else outs[0]

    def finalize_fn(iterator_id):
        return py_func(state.finalize, [iterator_id], dtypes.int64)

    def flat_map_fn(dummy):
        init = _Traced(get_iterator_id_fn, TensorSpec([], dtypes.int32), "from_generator")
        nxt = _Traced(generator_next_fn, TensorSpec([], dtypes.int64), "from_generator")
        fin = _Traced(finalize_fn, TensorSpec([], dtypes.int64), "from_generator")
        v = apply_op("GeneratorDataset", init_func_other_args=[dummy] + init.captures,
                     next_func_other_args=nxt.captures, finalize_func_other_args=fin.captures,
                     init_func=init.graph, next_func=nxt.graph, finalize_func=fin.graph,
                     Tinit_func_args=[dtypes.int32] + init.targuments, Tnext_func_args=nxt.targuments,
                     Tfinalize_func_args=fin.targuments, output_types=flat_types, output_shapes=flat_shapes)
        return DatasetV1(v, structure)

    # TF's dummy element is the Python 0 (an int32), each iterator's id an int64
    return DatasetV1.from_tensors(0).flat_map(flat_map_fn)


def _flat_up_to(types, shapes):
    if not nest.is_nested(types):
        return [shapes]
    if isinstance(types, dict):
        return [s for k in sorted(types) for s in _flat_up_to(types[k], shapes[k])]
    return [s for t, sh in zip(types, shapes) for s in _flat_up_to(t, sh)]


DatasetV1.from_generator = staticmethod(from_generator)
