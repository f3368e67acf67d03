"""``tf.map_fn``, ``tf.scan``, ``tf.foldl``, ``tf.foldr``: a ``while_loop`` over
the first dimension of ``elems``, reading elements from TensorArrays and (map,
scan) writing results into TensorArrays that are stacked at the end -- the
same construction as TensorFlow's, so values, static shapes and gradients
agree with it."""
from __future__ import annotations

from ref.types import dtypes, nest
from ref.platform import modes
from ref.types.shapes import Dimension, TensorShape, dimension_value
from ref.framework.graph import Tensor, get_default_graph, name_scope
from ref.framework.tensor_util import constant_value
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops
from ref.graph_ops.variable_scope import get_variable_scope
from ref.graph_ops.control_flow_ops import while_loop
from ref.graph_ops.tensor_array_ops import TensorArray

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _same_structure(a, b):
    """nest.assert_same_structure, with sequence types checked (TF's
    ``check_types=True``): a tuple is not a list. TypeError when types differ."""
    nest.assert_same_structure(a, b)

    def kinds(s):
        if not nest.is_nested(s):
            return None
        children = s.values() if isinstance(s, dict) else s
        return (type(s), tuple(kinds(c) for c in children))

    if kinds(a) != kinds(b):
        raise TypeError(f"The two structures don't have the same nested structure.\n\nFirst structure: {a}\n\n"
                        f"Second structure: {b}\n\nMore specifically: the sequence types differ")


def _length(elems_flat):
    """(static length or None, length tensor-or-int) of the first dimension."""
    for e in elems_flat:
        if e.shape.ndims is not None and e.shape.ndims < 1:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = Dimension(dimension_value(elems_flat[0].shape.with_rank_at_least(1)[0]))
    for e in elems_flat[1:]:
        n_static.assert_is_compatible_with(Dimension(dimension_value(e.shape.with_rank_at_least(1)[0])))
    n = n_static.value if n_static.value is not None else array_ops.shape(elems_flat[0])[0]
    return n_static, n


def _unstacked(elems_flat, n, element_shape=False, one_by_one=False):
    """TensorArrays holding each of ``elems_flat`` unstacked (``scan`` gives
    them the elements' static shape, ``map_fn`` and the folds do not); TF's
    map_fn and scan make every array before unstacking into them, its folds
    make and fill one after the other (``one_by_one``)."""
    def make(e):
        return TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True,
                           element_shape=e.shape[1:] if element_shape else None)

    if one_by_one:
        return [make(e).unstack(e) for e in elems_flat]
    arrays = [make(e) for e in elems_flat]
    return [ta.unstack(e) for ta, e in zip(arrays, elems_flat)]


def loop_bound(n, back_prop=True):
    """``maximum_iterations=n`` as TF passes it (the length, a tensor when
    only known at run time) for a TF 1.x dataflow loop; the functional
    ``While`` (control flow v2) takes it only when it is known statically,
    the loop's condition bounding it otherwise."""
    if not isinstance(n, Tensor) or constant_value(n) is not None:
        return n
    if (not back_prop or not modes.control_flow_v2_enabled()) and not get_default_graph()._building_function:
        return n
    return None


class _CachingDevice:
    """TF's functional ops read the variables ``fn`` creates on the device of
    the op using them (``caching_device`` set to ``lambda op: op.device``
    while the loop is built, when the scope had none)."""

    def __enter__(self):
        self._scope = get_variable_scope()
        self._was_none = self._scope.caching_device is None
        if self._was_none:
            self._scope.set_caching_device(lambda op: op.device)

    def __exit__(self, *exc):
        if self._was_none:
            self._scope.set_caching_device(None)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``fn`` applied to each element of ``elems`` unpacked along dimension 0,
    the results stacked: ``stack([fn(elems[i]) for i in range(n)])``.

    ``elems`` may be a nested structure of tensors with the same first
    dimension; ``fn`` then gets that structure of slices. ``dtype`` (or
    ``fn_output_signature``) gives the structure and dtypes of ``fn``'s result
    when they differ from ``elems``'.
    """
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {getattr(fn, '__name__', fn)} is not callable.fn must be callable.")
    parallel_iterations = parallel_iterations or 10
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}, which "
                         "does not contain any Tensors.")
    with name_scope(name, "map", elems_flat), _CachingDevice():
        elems_flat = [convert_to_tensor(t, name="elem") for t in elems_flat]
        n_static, n = _length(elems_flat)  # one Shape op when the length is unknown (TF's)
        if n_static.value == 0:  # TF: ``static or shape(...)[0]``, so a static 0 reads the shape too
            n = array_ops.shape(elems_flat[0])[0]
        elems_ta = _unstacked(elems_flat, n)
        i0 = constant(0)
        if fn_output_signature is None:
            out_dtypes = [e.dtype.base_dtype for e in elems_flat]
            structure = elems
        else:
            out_dtypes = [dtypes.as_dtype(d) for d in nest.flatten(fn_output_signature)]
            structure = fn_output_signature
        result_ta = [TensorArray(dtype=d, size=n, dynamic_size=False, infer_shape=infer_shape)
                     for d in out_dtypes]

        def compute(i, tas):
            value = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
            result = fn(value)
            _same_structure(structure, result)
            flat = nest.flatten(result)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat)]
            return i + 1, tas

        _, r_a = while_loop(lambda i, _: i < n, compute, (i0, result_ta),
                            parallel_iterations=parallel_iterations, back_prop=back_prop, swap_memory=swap_memory,
                            maximum_iterations=loop_bound(n, back_prop))
        results = [r.stack() for r in r_a]
        for r in results:
            r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))
        return nest.pack_sequence_as(structure, results)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running results of ``a = fn(a, x)`` over the elements ``x`` of
    ``elems`` (from the last to the first with ``reverse``), stacked.

    Without ``initializer``, ``a`` starts as the first element (the last with
    ``reverse``), which is also the first output.
    """
    if not callable(fn):
        raise TypeError(f"{getattr(fn, '__name__', fn)} is not callable. Please provide a callable function.")
    in_seq = nest.is_nested(elems)
    in_flat = (lambda x: nest.flatten(x)) if in_seq else (lambda x: [x])
    in_pack = (lambda x: nest.pack_sequence_as(elems, x)) if in_seq else (lambda x: x[0])
    if initializer is None:
        out_flat, out_pack = in_flat, in_pack
    else:
        out_seq = nest.is_nested(initializer)
        out_flat = (lambda x: nest.flatten(x)) if out_seq else (lambda x: [x])
        out_pack = (lambda x: nest.pack_sequence_as(initializer, x)) if out_seq else (lambda x: x[0])
    elems_flat = in_flat(elems)
    with name_scope(name, "scan", elems_flat), _CachingDevice():
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n_static, n = _length(elems_flat)
        elems_ta = _unstacked(elems_flat, n, element_shape=True)
        if initializer is None:  # (n - 1 only built when read: TF's graph has no Sub otherwise)
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            i = 1
        else:
            a_flat = [convert_to_tensor(x) for x in out_flat(initializer)]
            i = 0
        accs_ta = [TensorArray(dtype=a.dtype, size=n, element_shape=a.shape if infer_shape else None,
                               dynamic_size=False, infer_shape=infer_shape) for a in a_flat]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = in_pack([ta.read(i) for ta in elems_ta])
            a_out = fn(out_pack(a_flat), packed_elems)
            _same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = out_flat(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1), flat_a_out, tas

        if reverse:
            initial_i, condition = n - 1 - i, (lambda i, _1, _2: i >= 0)
        else:
            initial_i, condition = i, (lambda i, _1, _2: i < n)
        _, _, r_a = while_loop(condition, compute, (initial_i, a_flat, accs_ta),
                               parallel_iterations=parallel_iterations, back_prop=back_prop,
                               swap_memory=swap_memory, maximum_iterations=loop_bound(n, back_prop))
        results = [r.stack() for r in r_a]
        for r in results:
            r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))
        return out_pack(results)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, default, reverse):
    if not callable(fn):
        raise TypeError(f"{getattr(fn, '__name__', fn)} is not callable. Please provide a callable function.")
    with name_scope(name, default, [elems]), _CachingDevice():
        elems_flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        n = dimension_value(elems_flat[0].shape[0]) or array_ops.shape(elems_flat[0])[0]
        elems_ta = nest.pack_sequence_as(elems, _unstacked(nest.flatten(elems), n, one_by_one=True))
        if reverse:  # TF's foldr counts i down from n and reads element i - 1
            i = n - 1 if initializer is None else n
            a = initializer if initializer is not None else nest.map_structure(lambda ta: ta.read(i), elems_ta)

            def compute(i, a):
                i -= 1
                elem = nest.map_structure(lambda ta: ta.read(i), elems_ta)
                return [i, fn(a, elem)]

            cond = lambda i, a: i > 0  # noqa: E731
        else:
            if initializer is None:
                a = nest.map_structure(lambda ta: ta.read(0), elems_ta)
                i = constant(1)
            else:
                a, i = initializer, constant(0)

            def compute(i, a):
                elem_i = nest.map_structure(lambda ta: ta.read(i), elems_ta)
                a = fn(a, elem_i)
                return [i + 1, a]

            cond = lambda i, a: i < n  # noqa: E731
        _, r_a = while_loop(cond, compute, [i, a], parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=loop_bound(n, back_prop))
        return r_a


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, x)`` over the elements of ``elems`` from first to last;
    returns the final ``a`` (``a`` starts as ``initializer`` or the first element)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldl", False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, x)`` over the elements of ``elems`` from last to first;
    returns the final ``a`` (``a`` starts as ``initializer`` or the last element)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldr", True)
