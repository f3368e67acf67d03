"""TF1's staging areas (``data_flow_ops.StagingArea`` / ``MapStagingArea``): Python
front ends of the ``Stage`` and ``MapStage`` kernels (:mod:`ref.ops.staging`).

As TF's classes: every op of one area carries its ``shared_name`` (the graph's
unique name of the class when none is given) and is colocated with a ``NoOp``
made at construction (``<name>_root``), so they all reach one buffer; a value
read on another device scope than that op's goes through an ``Identity`` there
(TF's device transfer). ``put`` checks dtypes and static shapes against the
area's in Python (ValueError), ``get``/``peek`` set the area's shapes on their
outputs; areas with ``names`` take and give dictionaries.
"""
from __future__ import annotations

from ref.framework.graph import colocate_with, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops.control_flow_ops import identity, no_op
from ref.types.shapes import TensorShape, unknown_shape

__all__ = ["StagingArea", "MapStagingArea"]


class BaseStagingArea:
    """What both areas share: dtypes, shapes, names, capacity and memory limit, the colocation op."""

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, capacity=0, memory_limit=0):
        if shared_name is None:
            self._name = get_default_graph().unique_name(self.__class__.__name__)
        elif isinstance(shared_name, str):
            self._name = shared_name
        else:
            raise ValueError(f"shared_name must be a string, got {shared_name}")
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("StagingArea shapes must be the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None and len(names) != len(dtypes):
            raise ValueError("StagingArea names must be the same length as dtypes")
        self._names = names
        self._capacity, self._memory_limit = capacity, memory_limit
        with name_scope(f"{self._name}_root"):
            self._coloc_op = no_op()

    name = property(lambda self: self._name)
    dtypes = property(lambda self: self._dtypes)
    shapes = property(lambda self: self._shapes)
    names = property(lambda self: self._names)
    capacity = property(lambda self: self._capacity)
    memory_limit = property(lambda self: self._memory_limit)

    def _attrs(self, dtypes=None):
        return dict(shared_name=self._name, capacity=self._capacity, memory_limit=self._memory_limit,
                    dtypes=list(self._dtypes if dtypes is None else dtypes))

    def _check_put_dtypes(self, vals, indices=None):
        """(tensors, indices) for ``vals`` -- a list with ``indices``, or a dict of the area's names."""
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Staging areas must have names to enqueue a dictionary")
            if not set(vals.keys()).issubset(self._names):
                raise ValueError(f"Keys in dictionary to put do not match names of staging area. Dictionary: "
                                 f"{sorted(vals.keys())}Queue: {sorted(self._names)}")
            indices = [i for i, k in enumerate(self._names) if k in vals]
            vals = [vals[self._names[i]] for i in indices]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a staging area with names")
            if indices is None:
                raise ValueError("Indices must be supplied when inserting a list of tensors")
            if len(indices) != len(vals):
                raise ValueError(f"Number of indices {len(indices)} doesn't match number of values {len(vals)}")
            if not isinstance(vals, (list, tuple)):
                vals, indices = [vals], [0]
        if not len(vals) <= len(self._dtypes):
            raise ValueError(f"Unexpected number of inputs {len(vals)} vs {len(self._dtypes)}")
        tensors = []
        for val, i in zip(vals, indices):
            dtype, shape = self._dtypes[i], self._shapes[i]
            if val.dtype != dtype:
                raise ValueError(f"Datatypes do not match. Received val.dtype {val.dtype} and dtype {dtype}")
            val.get_shape().assert_is_compatible_with(shape)
            tensors.append(convert_to_tensor(val, dtype=dtype, name=f"component_{i}"))
        return tensors, indices

    def _create_device_transfers(self, tensors):
        """An Identity on the current device for each tensor when that is not the area's device."""
        if not isinstance(tensors, (tuple, list)):
            tensors = [tensors]
        if no_op().device != self._coloc_op.device:
            tensors = [identity(t) for t in tensors]
        return tensors

    def _get_return_value(self, tensors, indices):
        tensors = self._create_device_transfers(tensors)
        for output, i in zip(tensors, indices):
            output.set_shape(self._shapes[i])
        if self._names:
            return {self._names[i]: t for t, i in zip(tensors, indices)}
        return tensors

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return vals
        return list(vals.values()) if isinstance(vals, dict) else [vals]

    def _as_list(self, out):
        return list(out) if isinstance(out, (list, tuple)) else [out]


class StagingArea(BaseStagingArea):
    """A FIFO of tuples (``Stage``/``Unstage``): ``put`` blocks while full, ``get`` until not empty."""

    def put(self, values, name=None):
        """The ``Stage`` op of ``values`` (a list, one tensor, or a dict for an area with names)."""
        with name_scope(name, f"{self._name}_put", self._scope_vals(values)) as scope:
            if not isinstance(values, (list, tuple, dict)):
                values = [values]
            vals, _ = self._check_put_dtypes(values, list(range(len(values))))
            with colocate_with(self._coloc_op):
                attrs = self._attrs()
                del attrs["dtypes"]
                return apply_op("Stage", values=vals, name=scope, **attrs)

    def _get(self, op, name, **inputs):
        with colocate_with(self._coloc_op):
            ret = self._as_list(apply_op(op, name=name, **inputs, **self._attrs()))
        return self._get_return_value(ret, list(range(len(self._dtypes))))

    def get(self, name=None):
        """The oldest tuple, removed (``Unstage``)."""
        return self._get("Unstage", name or f"{self._name}_get")

    def peek(self, index, name=None):
        """The ``index``-th oldest tuple, left in place (``StagePeek``)."""
        return self._get("StagePeek", name or f"{self._name}_peek", index=index)

    def size(self, name=None):
        """The number of tuples (``StageSize``)."""
        return apply_op("StageSize", name=name or f"{self._name}_size", **self._attrs())

    def clear(self, name=None):
        """Drops every tuple (``StageClear``)."""
        return apply_op("StageClear", name=name or f"{self._name}_clear", **self._attrs())


class MapStagingArea(BaseStagingArea):
    """Tuples by int64 key (``MapStage`` family; ``ordered=True``: ``OrderedMap*``, smallest key first);
    components may be put and taken separately (``indices``: positions or, with names, names)."""

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, ordered=False, capacity=0,
                 memory_limit=0):
        super().__init__(dtypes, shapes, names, shared_name, capacity, memory_limit)
        self._ordered = ordered
        self._prefix = "OrderedMap" if ordered else "Map"

    def put(self, key, vals, indices=None, name=None):
        """Components ``indices`` of ``key``'s tuple (all, or a dict for an area with names)."""
        with name_scope(name, f"{self._name}_put", self._scope_vals(vals)) as scope:
            vals, indices = self._check_put_dtypes(vals, indices)
            with colocate_with(self._coloc_op):
                return apply_op(f"{self._prefix}Stage", key=key, indices=indices, values=vals, name=scope,
                                **self._attrs())

    def _get_indices_and_dtypes(self, indices=None):
        if indices is None:
            indices = list(range(len(self._dtypes)))
        if not isinstance(indices, (tuple, list)):
            raise TypeError(f"Invalid indices type {type(indices)}")
        if len(indices) == 0:
            raise ValueError("Empty indices")
        if all(isinstance(i, str) for i in indices):
            if self._names is None:
                raise ValueError(f"String indices provided {indices}, but this Staging Area was not created "
                                 f"with names.")
            try:
                indices = [self._names.index(n) for n in indices]
            except ValueError:
                raise ValueError(f"Named index not in Staging Area names {self._names}") from None
        elif not all(isinstance(i, int) for i in indices):
            raise TypeError(f"Mixed types in indices {indices}. May only be str or int")
        return indices, [self._dtypes[i] for i in indices]

    def _op(self, suffix, name, indices, **inputs):
        indices, dtypes = self._get_indices_and_dtypes(indices)
        with colocate_with(self._coloc_op):
            out = apply_op(f"{self._prefix}{suffix}", indices=indices, name=name, **inputs, **self._attrs(dtypes))
        return indices, self._as_list(out)

    def peek(self, key, indices=None, name=None):
        """Components ``indices`` of ``key``'s tuple, left in place (``MapPeek``)."""
        indices, out = self._op("Peek", name or f"{self._name}_pop", indices, key=key)
        return self._get_return_value(out, indices)

    def get(self, key=None, indices=None, name=None):
        """(key, components) removed: of ``key`` (``MapUnstage``) or of the first key (``MapUnstageNoKey``)."""
        if key is None:
            indices, out = self._op("UnstageNoKey", name or f"{self._name}_get_nokey", indices)
            return self._create_device_transfers(out[0])[0], self._get_return_value(out[1:], indices)
        indices, out = self._op("Unstage", name or f"{self._name}_get", indices, key=key)
        return key, self._get_return_value(out, indices)

    def size(self, name=None):
        """The number of complete keys."""
        return apply_op(f"{self._prefix}Size", name=name or f"{self._name}_size", **self._attrs())

    def incomplete_size(self, name=None):
        """The number of keys still missing components."""
        return apply_op(f"{self._prefix}IncompleteSize", name=name or f"{self._name}_incomplete_size",
                        **self._attrs())

    def clear(self, name=None):
        """Drops every key."""
        return apply_op(f"{self._prefix}Clear", name=name or f"{self._name}_clear", **self._attrs())
