"""TF1 iterators over datasets: ``make_one_shot_iterator``,
``make_initializable_iterator``, ``Iterator.from_structure`` /
``make_initializer`` and ``from_string_handle`` / ``string_handle``.

A one-shot iterator's ``dataset_factory`` is a function graph holding copies
of the dataset's ops (TF's ``capture_by_value`` Defun), so the iterator
depends on no tensor of the main graph; a dataset built on a placeholder or
a variable needs an initializable iterator.
"""
from __future__ import annotations

import base64
import hashlib
import itertools

from ref.data import dataset_ops
from ref.data.dataset_ops import TensorSpec
from ref.framework.func_graph import FuncGraph
from ref.framework.graph import Tensor, colocate_with, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.saveable_object import SaveableObject, SaveSpec
from ref.framework.random_seed import get_seed
from ref.types import dtypes, nest
from ref.types.shapes import TensorShape

_UIDS = itertools.count(1)
_NOT_BY_VALUE = ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "VariableV2", "Variable",
                 "VarHandleOp", "ReadVariableOp")


class Iterator(dataset_ops.StructureProperties):
    """A TF1 iterator: a resource handle, its initializer and the element structure."""

    def __init__(self, iterator_resource, initializer, output_types, output_shapes, output_classes=None,
                 structure=None):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        flat_t, flat_s = nest.flatten(output_types), nest.flatten(output_shapes)
        self._structure = structure if structure is not None else nest.pack_sequence_as(
            output_types, [TensorSpec(s, t) for t, s in zip(flat_t, flat_s)])
        # colocated only where the caller colocates (TF's one-shot and initializable iterators: with the dataset)
        self._string_handle = apply_op("IteratorToStringHandle", resource_handle=iterator_resource)
        self._get_next_calls = 0

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        if output_shapes is None:
            output_shapes = nest.map_structure(lambda _: TensorShape(None), output_types)
        types = [dtypes.as_dtype(t) for t in nest.flatten(output_types)]
        shapes = [TensorShape(s) for s in _flat_shapes(output_types, output_shapes)]
        res = apply_op("IteratorV2", shared_name=shared_name or "", container="", output_types=types,
                       output_shapes=shapes)
        return Iterator(res, None, output_types, _pack_shapes(output_types, shapes))

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        if output_shapes is None:
            output_shapes = nest.map_structure(lambda _: TensorShape(None), output_types)
        types = [dtypes.as_dtype(t) for t in nest.flatten(output_types)]
        shapes = [TensorShape(s) for s in _flat_shapes(output_types, output_shapes)]
        handle = convert_to_tensor(string_handle, dtype=dtypes.string)
        res = apply_op("IteratorFromStringHandleV2", string_handle=handle, output_types=types, output_shapes=shapes)
        return Iterator(res, None, output_types, _pack_shapes(output_types, shapes))

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("The iterator does not have an initializer. This means it was likely created using "
                             "`tf.data.Dataset.make_one_shot_iterator()`. For an initializable iterator, use "
                             "`tf.data.Dataset.make_initializable_iterator()` instead.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        flat_want = nest.flatten(self._structure)
        flat_have = nest.flatten(dataset._structure)
        if [s.dtype for s in flat_want] != [s.dtype for s in flat_have]:
            raise TypeError(f"Expected output types {self.output_types} but got dataset with output types "
                            f"{dataset.output_types}.")
        for w, h in zip(flat_want, flat_have):
            if not w.shape.is_compatible_with(h.shape):
                raise TypeError(f"Expected output shapes compatible with {self.output_shapes} but got dataset "
                                f"with output shapes {dataset.output_shapes}.")
        with name_scope(name, "make_initializer") as scope, colocate_with(self._iterator_resource.op):
            return apply_op("MakeIterator", dataset=dataset._variant_tensor, iterator=self._iterator_resource,
                            name=scope)

    def get_next(self, name=None):
        self._get_next_calls += 1
        specs = nest.flatten(self._structure)
        with colocate_with(self._iterator_resource.op):  # as TF: the iterator's colocation group
            out = apply_op("IteratorGetNext", iterator=self._iterator_resource,
                           output_types=[s.op_dtype for s in specs], output_shapes=[s.op_shape for s in specs],
                           name=name)
            out = [out] if isinstance(out, Tensor) else list(out)
            out = [dataset_ops._from_component(s, t) for s, t in zip(specs, out)]  # TF: in the colocation group
        return nest.pack_sequence_as(self._structure, out)

    def string_handle(self, name=None):
        if name is None:
            return self._string_handle
        return apply_op("IteratorToStringHandle", resource_handle=self._iterator_resource, name=name)


    @property
    def element_spec(self):
        return self._structure


def _flat_shapes(types, shapes):
    """``shapes`` flattened up to ``types``' structure (a shape may be a list)."""
    if not nest.is_nested(types):
        return [TensorShape(shapes)]
    if isinstance(types, dict):
        return [s for k in sorted(types) for s in _flat_shapes(types[k], shapes[k])]
    return [s for t, sh in zip(types, shapes) for s in _flat_shapes(t, sh)]


def _pack_shapes(types, flat_shapes):
    return nest.pack_sequence_as(types, flat_shapes)


def _copy_by_value(fg, tensor, memo):
    """``tensor`` rebuilt inside ``fg`` from copies of the ops it depends on."""
    if tensor in memo:
        return memo[tensor]
    op = tensor.op
    if op.type in _NOT_BY_VALUE:
        raise ValueError(f"Failed to create a one-shot iterator for a dataset. `Dataset.make_one_shot_iterator()` "
                         f"does not support datasets that capture stateful objects, such as a `Variable` or a "
                         f"placeholder ('{op.name}'). Consider using `Dataset.make_initializable_iterator()`.")
    kwargs = {}
    for in_name, v in op.named_inputs().items():
        kwargs[in_name] = [_copy_by_value(fg, t, memo) for t in v] if isinstance(v, list) \
            else _copy_by_value(fg, v, memo)
    for k in op._opdef.attrs:
        if k in op._attrs:
            kwargs[k] = op._attrs[k]
    with fg.as_default():
        res = apply_op(op.type, name=op.name, **kwargs)
    outs = [res] if isinstance(res, Tensor) else list(res)
    for old, new in zip(op._outputs, outs):
        memo[old] = new
    return memo[tensor]


def _defun_name(base, fg):
    """TF's name for a ``Defun``'s function: ``<base>_<hash>``, the hash 8 bytes of a
    fingerprint of the body in URL-safe base64 (11 characters). TF's fingerprint covers
    the serialized FunctionDef (whose nested functions carry process-wide uids, so it
    differs between runs); ref's covers the body's op names, types and inputs."""
    body = "\n".join(f"{op.name} {op.type} {' '.join(t.name for t in op.inputs)}" for op in fg.get_operations())
    digest = hashlib.sha1(body.encode()).digest()[:8]
    return f"{base}_{base64.urlsafe_b64encode(digest).decode().rstrip('=')}"


def make_one_shot(dataset):
    # TF takes (graph seed, op seed) here for the factory function's graph seed:
    # with a graph seed set that uses up one op-seed slot of the graph's counter
    get_seed(None)
    outer = get_default_graph()
    fg = FuncGraph(f"_make_dataset_{next(_UIDS)}", outer)
    variant = _copy_by_value(fg, dataset._variant_tensor, {})
    fg.outputs = [variant]
    fg.name = _defun_name("_make_dataset", fg)
    specs = nest.flatten(dataset._structure)
    with colocate_with(dataset._variant_tensor.op):
        res = apply_op("OneShotIterator", dataset_factory=fg, output_types=[s.op_dtype for s in specs],
                       output_shapes=[s.op_shape for s in specs], container="", shared_name="")
        return Iterator(res, None, dataset.output_types, dataset.output_shapes, structure=dataset._structure)


def make_initializable(dataset, shared_name=None):
    specs = nest.flatten(dataset._structure)
    with colocate_with(dataset._variant_tensor.op):
        res = apply_op("IteratorV2", shared_name=shared_name or "", container="",
                       output_types=[s.op_dtype for s in specs], output_shapes=[s.op_shape for s in specs])
        init = apply_op("MakeIterator", dataset=dataset._variant_tensor, iterator=res)
        return Iterator(res, init, dataset.output_types, dataset.output_shapes, structure=dataset._structure)


dataset_ops._iterators.make_one_shot = make_one_shot
dataset_ops._iterators.make_initializable = make_initializable


def make_one_shot_iterator(dataset):
    """``tf.compat.v1.data.make_one_shot_iterator``."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """``tf.compat.v1.data.make_initializable_iterator``."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


class _IteratorSaveable(SaveableObject):
    """What a Saver saves of an iterator: ``SerializeIterator``'s state under
    ``<handle name>_STATE``; restoring runs ``DeserializeIterator``."""

    def __init__(self, iterator_resource, name, external_state_policy=2):
        serialized = apply_op("SerializeIterator", resource_handle=iterator_resource,
                              external_state_policy=int(external_state_policy))
        super().__init__(iterator_resource, [SaveSpec(serialized, "", name + "_STATE",
                                                      device=iterator_resource.device)], name)

    def restore(self, restored_tensors, restored_shapes):
        with colocate_with(self.op.op):
            return apply_op("DeserializeIterator", resource_handle=self.op, serialized=restored_tensors[0])


_POLICIES = {"warn": 0, "ignore": 1, "fail": 2}


def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A SaveableObject saving and restoring ``iterator``'s position with a
    ``Saver`` (``tf.data.experimental.make_saveable_from_iterator``): add it to
    the ``SAVEABLE_OBJECTS`` collection (or a Saver's ``var_list``). Restore
    after running the iterator's initializer. ``external_state_policy``
    (``'warn'``, ``'ignore'``, ``'fail'``, default ``'fail'``) decides what
    a stateful op in a dataset function does to the save."""
    policy = "fail" if external_state_policy is None else external_state_policy
    if policy not in _POLICIES:
        raise ValueError("Invalid `ExternalStatePolicy.` Supported values include 'warn', 'ignore', and 'fail.'")
    res = iterator._iterator_resource
    return _IteratorSaveable(res, res.name, _POLICIES[policy])
