"""``tf.data.Dataset`` in TF1 graph mode: each dataset is a ``variant``
tensor made by one of TF's dataset ops (:mod:`ref.ops.dataset`), and a
function passed to ``map``/``filter``/``flat_map``/``interleave`` is traced
once into a function graph (an attr of the op, a FunctionDef of the GraphDef's
library, as TF's ``StructuredFunctionWrapper`` makes it); the tensors it
captures become the op's ``other_arguments``.

An element is a nested structure (tuples, lists, dicts) of tensors; the ops
see its flattened components, :attr:`Dataset.output_types` /
``output_shapes`` / ``output_classes`` give it back in its structure.
"""
from __future__ import annotations

import itertools

import numpy as np

from ref.data.options import Options
from ref.framework.func_graph import FuncGraph
from ref.framework.graph import Tensor, colocate_with, control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.random_seed import get_seed
from ref.framework.sparse_tensor import SparseTensor, SparseTensorValue, is_sparse
from ref.framework.tensor_util import constant_value_as_shape
from ref.graph_ops import array_ops, check_ops, io_ops, math_ops
from ref.graph_ops.control_flow_ops import identity
from ref.types import dtypes, nest
from ref.types.shapes import Dimension, TensorShape, as_shape

AUTOTUNE = -1
_UIDS = itertools.count(1)


class TensorSpec:
    """The dtype and shape of one component of an element (TF's ``tf.TensorSpec``;
    also a ``while_loop`` shape invariant)."""

    __slots__ = ("dtype", "shape", "name")
    value_type = Tensor  # TF's TypeSpec.value_type: the kind of value the spec describes

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape, self.dtype, self.name = TensorShape(shape), dtypes.as_dtype(dtype), name

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r})"

    @property
    def op_dtype(self):  # the component's dtype and shape in the dataset ops' attrs
        return self.dtype

    @property
    def op_shape(self):
        return self.shape

    def __eq__(self, other):
        if not isinstance(other, TensorSpec) or self.dtype != other.dtype:
            return False
        if self.shape.ndims is None or other.shape.ndims is None:
            return self.shape.ndims == other.shape.ndims
        return self.shape.as_list() == other.shape.as_list()

    __hash__ = None


class SparseTensorSpec:
    """A ``SparseTensor`` component: in the dataset ops one ``variant`` tensor of
    unknown shape (TF's ``SerializeSparse``/``SerializeManySparse`` with
    ``out_type=variant``), given back by ``DeserializeSparse``."""

    __slots__ = ("dtype", "shape")
    op_dtype, op_shape = dtypes.variant, TensorShape(None)
    value_type = SparseTensor

    def __init__(self, shape=None, dtype=dtypes.float32):
        self.shape, self.dtype = TensorShape(shape), dtypes.as_dtype(dtype)

    def __repr__(self):
        return f"SparseTensorSpec(shape={self.shape}, dtype={self.dtype!r})"

    def __eq__(self, other):
        return (isinstance(other, SparseTensorSpec) and self.dtype == other.dtype
                and TensorSpec(self.shape, self.dtype) == TensorSpec(other.shape, other.dtype))

    __hash__ = None

    # TF's BatchableTypeSpec protocol (framework/sparse_tensor.py), which tf.data and nest use.
    def _serialize(self):
        return (self.shape, self.dtype)

    @property
    def _component_specs(self):
        rank = self.shape.ndims
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self.dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value):
        value = SparseTensor.from_value(value) if isinstance(value, SparseTensorValue) else value
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components):
        """A ``SparseTensorValue`` of NumPy components (TF1's run result), else a
        ``SparseTensor`` whose static shape also takes this spec's."""
        if all(isinstance(c, np.ndarray) for c in components):
            return SparseTensorValue(*components)
        result = SparseTensor(*components)
        result.set_shape(self.shape)
        return result

    @property
    def _flat_tensor_specs(self):
        return [TensorSpec(None, dtypes.variant)]

    def _to_tensor_list(self, value):
        return [self.to_tensor(SparseTensor.from_value(value))]

    def _to_batched_tensor_list(self, value):
        if self.shape.merge_with(constant_value_as_shape(value.dense_shape)).ndims == 0:
            raise ValueError(f"Unbatching a sparse tensor is only supported for rank >= 1. Obtained input: {value}.")
        return [self.to_tensor(value, batched=True)]

    def _from_tensor_list(self, tensor_list):
        return self.from_tensor(tensor_list[0])

    _from_compatible_tensor_list = _from_tensor_list

    def _batch(self, batch_size):
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self.shape), self.dtype)

    def _unbatch(self):
        if self.shape.ndims == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(self.shape[1:], self.dtype)

    def _to_legacy_output_types(self):
        return self.dtype

    def _to_legacy_output_shapes(self):
        return self.shape

    def _to_legacy_output_classes(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        """The spec of a ``SparseTensor`` or ``SparseTensorValue`` (TypeError otherwise)."""
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        if isinstance(value, SparseTensorValue):
            if isinstance(value.values, np.ndarray):
                return cls(value.dense_shape, value.values.dtype)
            return cls.from_value(SparseTensor.from_value(value))
        raise TypeError("Expected SparseTensor or SparseTensorValue. Received: "
                        f"{value} of type {type(value).__name__}.")

    def to_tensor(self, value, batched=False):
        """The variant component of a SparseTensor (a batch of its rows if ``batched``)."""
        return apply_op("SerializeManySparse" if batched else "SerializeSparse", sparse_indices=value.indices,
                        sparse_values=value.values, sparse_shape=value.dense_shape, out_type=dtypes.variant)

    def from_tensor(self, tensor):
        """TF's ``SparseTensorSpec._from_compatible_tensor_list``."""
        indices, values, dense_shape = apply_op("DeserializeSparse", serialized_sparse=tensor, dtype=self.dtype)
        rank = self.shape.ndims
        indices.set_shape([None, rank])
        if self.shape.is_fully_defined():
            dense_shape = convert_to_tensor(self.shape.as_list(), dtype=dtypes.int64, name="shape")
        elif rank is not None and any(d is not None for d in self.shape.as_list()):
            pieces = array_ops.unstack(dense_shape, num=rank)
            for i, d in enumerate(self.shape.as_list()):
                if d is not None:
                    pieces[i] = constant(d, dense_shape.dtype)
            dense_shape = array_ops.stack(pieces)
        else:
            dense_shape.set_shape([rank])
        return SparseTensor(indices, values, dense_shape)


def _spec_of(t):
    return SparseTensorSpec(t.shape, t.dtype) if is_sparse(t) else TensorSpec(t.shape, t.dtype)


def _from_component(spec, tensor):
    return spec.from_tensor(tensor) if isinstance(spec, SparseTensorSpec) else tensor


def _to_component(value, batched=False):
    return _spec_of(value).to_tensor(value, batched) if is_sparse(value) else value


class DatasetSpec:
    """A component that is itself a dataset (a ``variant`` scalar): the window
    ``group_by_window``'s ``reduce_func`` receives."""

    __slots__ = ("element_spec",)
    dtype, shape = dtypes.variant, TensorShape([])
    op_dtype, op_shape = dtype, shape

    def __init__(self, element_spec):
        self.element_spec = element_spec

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r})"


def _flat_specs(structure):
    return nest.flatten(structure)


def _unflatten(structure, flat):
    return nest.pack_sequence_as(structure, flat)


def _fn_name(fn):
    name = getattr(fn, "__name__", type(fn).__name__)
    return "lambda" if name == "<lambda>" else name.strip("<>")


def _as_element(value, name_prefix="component"):
    """(structure of tensors, flat tensors) of an element value: tuples, dicts and
    namedtuples are structure, anything else (a list too) is one tensor."""
    counter = itertools.count()

    def norm(v):
        if isinstance(v, dict):
            return type(v)((k, norm(v[k])) for k in v)
        if is_sparse(v):
            next(counter)
            return SparseTensor.from_value(v)
        if isinstance(v, tuple):
            kids = [norm(x) for x in v]
            return type(v)(*kids) if hasattr(v, "_fields") else tuple(kids)
        return convert_to_tensor(v, name=f"{name_prefix}_{next(counter)}")

    structure = norm(value)
    return structure, nest.flatten(structure)


class _Traced:
    """A function traced for a dataset op: its graph, captured tensors and output structure."""

    def __init__(self, fn, structure, kind, want_dataset=False, prefix="Dataset_"):
        outer = get_default_graph()
        self.graph = FuncGraph(f"__inference_{prefix}{kind}_{_fn_name(fn)}_{next(_UIDS)}", outer)
        self.graph.name_attrs = {"_tf_data_function": True}  # TF marks the function attr of a dataset op
        specs = _flat_specs(structure)
        with self.graph.as_default():
            args = [self.graph.add_argument(s.op_dtype, s.op_shape, f"args_{i}") for i, s in enumerate(specs)]
            args = [DatasetV1(a, s.element_spec) if isinstance(s, DatasetSpec) else _from_component(s, a)
                    for a, s in zip(args, specs)]
            element = _unflatten(structure, args)
            if isinstance(structure, tuple):
                result = fn(*element)
            else:
                result = fn(element)
            if want_dataset:
                if not isinstance(result, DatasetV1):
                    raise TypeError(f"The function passed to `{kind}()` must return a `tf.data.Dataset` object, "
                                    f"got {type(result).__name__}.")
                self.result_dataset = result
                outs = [identity(result._variant_tensor, name="Identity")]
                self.structure = result._structure
            else:
                if isinstance(result, list):  # TF: a list result is a tuple of components
                    result = tuple(result)
                flat = nest.flatten(result)
                flat = [t if is_sparse(t) else convert_to_tensor(t) for t in flat]
                self.structure = _unflatten(result, [_spec_of(t) for t in flat])
                outs = [identity(_to_component(t), name="Identity" if i == 0 else f"Identity_{i}")
                        for i, t in enumerate(flat)]
        self.graph.outputs = outs
        self.captures = list(self.graph.external_captures)

    @property
    def targuments(self):
        return [t.dtype.base_dtype for t in self.captures]


class StructureProperties:
    """TF1's ``output_types``/``output_shapes``/``output_classes`` of an element
    structure (``self._structure``, TensorSpecs), shared by datasets and iterators."""

    # A DatasetSpec component (``Dataset.window``) is its own legacy type, shape and class, as in TF.
    @property
    def output_types(self):
        return nest.map_structure(lambda s: s if isinstance(s, DatasetSpec) else s.dtype, self._structure)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda s: s if isinstance(s, DatasetSpec) else s.shape, self._structure)

    @property
    def output_classes(self):
        return nest.map_structure(lambda s: s if isinstance(s, DatasetSpec) else
                                  SparseTensor if isinstance(s, SparseTensorSpec) else Tensor, self._structure)


class DatasetV1(StructureProperties):
    """A dataset: a variant tensor and the structure of its elements."""

    def __init__(self, variant, structure):
        self._variant_tensor = variant
        self._structure = structure
        self._options_attr = None  # the Options set by with_options, here or upstream (unary chains)

    # -- structure ----------------------------------------------------------------
    @property
    def element_spec(self):
        return self._structure


    def _flat_types(self):
        return [s.dtype for s in _flat_specs(self._structure)]

    def _flat_shapes(self):
        return [s.shape for s in _flat_specs(self._structure)]

    def _attrs(self, structure=None):
        specs = _flat_specs(self._structure if structure is None else structure)
        return {"output_types": [s.op_dtype for s in specs], "output_shapes": [s.op_shape for s in specs]}

    def _unary(self, op_type, structure=None, **kwargs):
        structure = self._structure if structure is None else structure
        v = apply_op(op_type, input_dataset=self._variant_tensor, **kwargs, **self._attrs(structure))
        out = DatasetV1(v, structure)
        out._options_attr = self._options_attr
        return out

    def with_options(self, options):
        """This dataset with ``options`` (a ``tf.data.Options``) merged into its
        options (``OptionsDataset``; ref runs the pipeline the same either way)."""
        with colocate_with(self._variant_tensor):  # as TF's _OptionsDataset
            out = self._unary("OptionsDataset", serialized_options=options.serialize())
        out._options_attr = self.options().merge(options)
        return out

    def options(self):
        """The ``tf.data.Options`` set on this dataset's unary chain (defaults if none)."""
        return self._options_attr if self._options_attr is not None else Options()

    # -- sources ----------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors):
        with name_scope("normalize_element"):
            structure, flat = _as_element(tensors)
        specs = [_spec_of(t) for t in flat]
        comps = [_to_component(t) for t in flat]
        v = apply_op("TensorDataset", components=comps, Toutput_types=[s.op_dtype for s in specs],
                     output_shapes=[s.op_shape for s in specs])
        return DatasetV1(v, _unflatten(structure, specs))

    @staticmethod
    def from_tensor_slices(tensors):
        with name_scope("normalize_element"):
            structure, flat = _as_element(tensors)
        if not flat:
            raise ValueError("Unbatching a dataset is only supported for rank >= 1")
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, got {t.shape}")
        specs = [(SparseTensorSpec if is_sparse(t) else TensorSpec)(
            t.shape[1:] if t.shape.ndims is not None else TensorShape(None), t.dtype) for t in flat]
        comps = [_to_component(t, batched=True) for t in flat]
        v = apply_op("TensorSliceDataset", components=comps, Toutput_types=[s.op_dtype for s in specs],
                     output_shapes=[s.op_shape for s in specs])
        return DatasetV1(v, _unflatten(structure, specs))

    @staticmethod
    def range(*args, output_type=dtypes.int64):
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        ins = {k: convert_to_tensor(v, dtype=dtypes.int64, name=k)
               for k, v in (("start", start), ("stop", stop), ("step", step))}
        v = apply_op("RangeDataset", **ins, output_types=[dtypes.as_dtype(output_type)], output_shapes=[TensorShape([])])
        return DatasetV1(v, TensorSpec([], output_type))

    @staticmethod
    def zip(datasets):
        flat = nest.flatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV1):
                raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a (nested) structure of "
                                f"`tf.data.Dataset` objects, got {type(d).__name__}.")
        structure = _unflatten(datasets, [d._structure for d in flat])
        v = apply_op("ZipDataset", input_datasets=[d._variant_tensor for d in flat], **DatasetV1(None, structure)._attrs())
        return DatasetV1(v, structure)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        with name_scope("list_files"):
            pattern = convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
            matching = io_ops.matching_files(pattern)
            names = DatasetV1.from_tensor_slices(matching)
            if shuffle is None or shuffle:
                buffer = math_ops.maximum(array_ops.shape(matching, out_type=dtypes.int64)[0], 1)
                names = names.shuffle(buffer, seed=seed)
        return names

    # -- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None):
        fn = _Traced(map_func, self._structure, "map")
        common = dict(other_arguments=fn.captures, f=fn.graph, Targuments=fn.targuments)
        if num_parallel_calls is None:
            # TF1's map (DatasetV1) does not preserve cardinality: an OutOfRangeError
            # raised by map_func ends the dataset rather than failing it.
            return self._unary("MapDataset", fn.structure, preserve_cardinality=False, **common)
        n = convert_to_tensor(num_parallel_calls, dtype=dtypes.int64, name="num_parallel_calls")
        det = "default" if deterministic is None else ("true" if deterministic else "false")
        return self._unary("ParallelMapDatasetV2", fn.structure, num_parallel_calls=n, deterministic=det,
                           preserve_cardinality=False, **common)

    def flat_map(self, map_func):
        fn = _Traced(map_func, self._structure, "flat_map", want_dataset=True)
        return self._unary("FlatMapDataset", fn.structure, other_arguments=fn.captures, f=fn.graph,
                           Targuments=fn.targuments)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None):
        fn = _Traced(map_func, self._structure, "interleave", want_dataset=True)
        cycle = convert_to_tensor(AUTOTUNE if cycle_length is None else cycle_length, dtype=dtypes.int64,
                                  name="cycle_length")
        block = convert_to_tensor(1 if block_length is None else block_length, dtype=dtypes.int64,
                                  name="block_length")
        common = dict(other_arguments=fn.captures, f=fn.graph, Targuments=fn.targuments)
        if num_parallel_calls is None:
            return self._unary("InterleaveDataset", fn.structure, cycle_length=cycle, block_length=block, **common)
        det = "default" if deterministic is None else ("true" if deterministic else "false")
        return self._unary(
            "ParallelInterleaveDatasetV4", fn.structure, cycle_length=cycle, block_length=block,
            buffer_output_elements=convert_to_tensor(AUTOTUNE, dtype=dtypes.int64, name="buffer_output_elements"),
            prefetch_input_elements=convert_to_tensor(AUTOTUNE, dtype=dtypes.int64, name="prefetch_input_elements"),
            num_parallel_calls=convert_to_tensor(num_parallel_calls, dtype=dtypes.int64, name="num_parallel_calls"),
            deterministic=det, **common)

    def filter(self, predicate):
        fn = _Traced(predicate, self._structure, "filter")
        out = _flat_specs(fn.structure)
        if len(out) != 1 or out[0].dtype != dtypes.bool or out[0].shape.ndims not in (None, 0):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                             f"but its return type is {fn.structure}.")
        return self._unary("FilterDataset", other_arguments=fn.captures, predicate=fn.graph,
                           Targuments=fn.targuments)

    def take_while(self, predicate):
        """The elements up to (without) the first for which ``predicate`` is false (``TakeWhileDataset``)."""
        fn = _Traced(predicate, self._structure, "take_while")
        out = _flat_specs(fn.structure)
        if len(out) != 1 or out[0].dtype != dtypes.bool or out[0].shape.ndims not in (None, 0):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its "
                             f"return type is{fn.structure}.")
        return self._unary("TakeWhileDataset", other_arguments=fn.captures, predicate=fn.graph,
                           Targuments=fn.targuments)

    def unique(self):
        """The elements not seen before, in order (``UniqueDataset``; int32, int64 or string components)."""
        for s in _flat_specs(self._structure):
            if s.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
                raise TypeError(f"`tf.data.Dataset.unique` does not support type {s.dtype} -- only `tf.int32`, "
                                f"`tf.int64`, and `tf.string` are supported.")
        return self._unary("UniqueDataset")

    def enumerate(self, start=0):
        """(index, element) pairs, the index counting from ``start`` (int64): TF's zip
        with ``range(start, int64 max)`` under a ``replicate_on_split`` rewrite."""
        counter = DatasetV1.range(start, np.iinfo(np.int64).max)
        counter = DatasetV1(apply_op("RewriteDataset", input_dataset=counter._variant_tensor,
                                     rewrite_name="replicate_on_split", **counter._attrs()), counter._structure)
        return DatasetV1.zip((counter, self))

    def _batched(self, batch_size, drop_remainder):
        dim = None
        if drop_remainder:
            try:
                dim = int(np.asarray(batch_size))
            except TypeError:
                dim = None
        return nest.map_structure(lambda s: type(s)(TensorShape([dim]).concatenate(s.shape), s.dtype),
                                  self._structure)

    def batch(self, batch_size, drop_remainder=False):
        bs = convert_to_tensor(batch_size, dtype=dtypes.int64, name="batch_size")
        dr = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        return self._unary("BatchDatasetV2", self._batched(batch_size, drop_remainder), batch_size=bs,
                           drop_remainder=dr)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
        specs = _flat_specs(self._structure)
        for spec in specs:
            if isinstance(spec, DatasetSpec):
                raise TypeError("`padded_batch` is not supported for datasets of datasets")
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce tensor elements but "
                                f"type spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{spec}`.")
        given = [s.shape for s in specs] if padded_shapes is None else _flatten_shapes(padded_shapes)
        if padding_values is None:
            values = [b"" if s.dtype == dtypes.string else 0 for s in specs]
        else:
            values = nest.flatten(padding_values)
        bs = convert_to_tensor(batch_size, dtype=dtypes.int64, name="batch_size")
        shapes, shape_ts = [], []
        for p in given:
            if isinstance(p, list) and any(isinstance(d, Tensor) for d in p):  # dims computed in the graph
                shape_ts.append(convert_to_tensor(p, dtype=dtypes.int64))
                shapes.append(TensorShape([None if isinstance(d, Tensor) or d == -1 else d for d in p]))
            else:
                shapes.append(as_shape(p))
                shape_ts.append(convert_to_tensor(np.asarray([-1 if d is None else d for d in shapes[-1].as_list()],
                                                             np.int64), dtype=dtypes.int64))
        value_ts = [convert_to_tensor(v, dtype=s.dtype, name="padding_value") for v, s in zip(values, specs)]
        dr = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        dim = int(batch_size) if drop_remainder and isinstance(batch_size, (int, np.integer)) else None
        out = _unflatten(self._structure, [TensorSpec(TensorShape([dim]).concatenate(sh), s.dtype)
                                           for sh, s in zip(shapes, specs)])
        v = apply_op("PaddedBatchDatasetV2", input_dataset=self._variant_tensor, batch_size=bs, padded_shapes=shape_ts,
                     padding_values=value_ts, drop_remainder=dr, Toutput_types=[s.dtype for s in specs],
                     output_shapes=[TensorShape([dim]).concatenate(sh) for sh in shapes])
        return DatasetV1(v, out)

    def cardinality(self):
        """The number of elements, as an int64 scalar tensor: -1 infinite, -2
        unknown (``DatasetCardinality``)."""
        return apply_op("DatasetCardinality", input_dataset=self._variant_tensor)

    def unbatch(self):
        if any(s.shape.ndims == 0 for s in _flat_specs(self._structure)):
            raise ValueError("Cannot unbatch an input with scalar components.")
        out = nest.map_structure(lambda s: TensorSpec(s.shape[1:] if s.shape.ndims else TensorShape(None), s.dtype),
                                 self._structure)
        # TF first maps the elements to dense tensors (normalize_to_dense): a MapDataset
        def normalize(*x):  # TF's normalize_to_dense: the function's name shows in the GraphDef
            return x if isinstance(self._structure, tuple) else x[0]

        dense = self.map(normalize)
        return dense._unary("UnbatchDataset", out)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        bs = convert_to_tensor(buffer_size, dtype=dtypes.int64, name="buffer_size")
        s, s2 = data_seeds(seed)
        return self._unary("ShuffleDataset", buffer_size=bs, seed=s, seed2=s2,
                           reshuffle_each_iteration=True if reshuffle_each_iteration is None
                           else bool(reshuffle_each_iteration))

    def repeat(self, count=None):
        c = convert_to_tensor(-1 if count is None else count, dtype=dtypes.int64, name="count")
        return self._unary("RepeatDataset", count=c)

    def take(self, count):
        return self._unary("TakeDataset", count=convert_to_tensor(count, dtype=dtypes.int64, name="count"))

    def skip(self, count):
        return self._unary("SkipDataset", count=convert_to_tensor(count, dtype=dtypes.int64, name="count"))

    def cache(self, filename=""):
        return self._unary("CacheDataset", filename=convert_to_tensor(filename, dtype=dtypes.string, name="filename"))

    def prefetch(self, buffer_size):
        bs = convert_to_tensor(AUTOTUNE if buffer_size is None else buffer_size, dtype=dtypes.int64,
                               name="buffer_size")
        with colocate_with(self._variant_tensor.op):  # TF colocates a prefetch with its input
            return self._unary("PrefetchDataset", buffer_size=bs,
                               legacy_autotune=buffer_size is None or (isinstance(buffer_size, int)
                                                                       and buffer_size == AUTOTUNE))

    def concatenate(self, dataset):
        a, b = _flat_specs(self._structure), _flat_specs(dataset._structure)
        if [s.dtype for s in a] != [s.dtype for s in b]:
            raise TypeError(f"Incompatible dataset elements:\n  {self._structure} vs.\n  {dataset._structure}")
        structure = _unflatten(self._structure, [TensorSpec(x.shape.most_specific_compatible_shape(y.shape)
                                                            if hasattr(x.shape, "most_specific_compatible_shape")
                                                            else x.shape, x.dtype) for x, y in zip(a, b)])
        v = apply_op("ConcatenateDataset", input_dataset=self._variant_tensor, another_dataset=dataset._variant_tensor,
                     **self._attrs(structure))
        return DatasetV1(v, structure)

    def apply(self, transformation_func):
        out = transformation_func(self)
        if not isinstance(out, DatasetV1):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object, got {type(out).__name__}.")
        return out

    # -- scan, grouping, errors, whole-dataset reductions -----------------------------------
    def ignore_errors(self, log_warning=False):
        """The elements whose computation did not fail (``IgnoreErrorsDataset``)."""
        return self._unary("IgnoreErrorsDataset", log_warning=bool(log_warning))

    def _stateful_fn(self, fn, initial_state, kind, prefix="Dataset_"):
        """``fn(state, element) -> state'`` (or ``(state', output)``) traced until
        the state's shapes reach TF's fixed point; (traced, flat initial state)."""
        with name_scope("normalize_element"):
            state, flat = _as_element(initial_state)
        specs = [TensorSpec(t.shape, t.dtype) for t in flat]
        while True:
            traced = _Traced(fn, (_unflatten(state, specs), self._structure), kind, prefix=prefix)
            result = traced.structure
            new_state = result[0] if kind != "reduce" else result
            new_specs = _flat_specs(new_state)
            if len(new_specs) != len(specs) or any(a.dtype != b.dtype for a, b in zip(specs, new_specs)):
                raise TypeError(f"Invalid `{kind}_func`. The element types for the new state must match the "
                                f"initial state. Expected {[s.dtype for s in specs]}, got "
                                f"{[s.dtype for s in new_specs]}.")
            weaker = [TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
                      for a, b in zip(specs, new_specs)]
            if all(w == a for w, a in zip(weaker, specs)):
                return traced, state, flat, specs
            specs = weaker

    def scan(self, initial_state, scan_func):
        """``scan_func(state, element) -> (new_state, output)`` along the dataset (``ScanDataset``)."""
        traced, _, flat, specs = self._stateful_fn(scan_func, initial_state, "scan")
        if not isinstance(traced.structure, tuple) or len(traced.structure) != 2:
            raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of new state and "
                            f"the output value but its return type is {traced.structure}.")
        out = traced.structure[1]
        v = apply_op("ScanDataset", input_dataset=self._variant_tensor, initial_state=flat,
                     other_arguments=traced.captures, f=traced.graph, Tstate=[s.dtype for s in specs],
                     Targuments=traced.targuments, preserve_cardinality=True, **self._attrs(out))
        return DatasetV1(v, out)

    def reduce(self, initial_state, reduce_func):
        """The state after ``reduce_func(state, element)`` over all elements (``ReduceDataset``)."""
        with name_scope("initial_state"):
            traced, state, flat, specs = self._stateful_fn(reduce_func, initial_state, "reduce", prefix="")
        outs = apply_op("ReduceDataset", input_dataset=self._variant_tensor, initial_state=flat,
                        other_arguments=traced.captures, f=traced.graph, Tstate=[s.dtype for s in specs],
                        Targuments=traced.targuments, output_types=[s.dtype for s in specs],
                        output_shapes=[s.shape for s in specs])
        return _unflatten(state, list(outs) if isinstance(outs, (list, tuple)) else [outs])

    def get_single_element(self):
        """The dataset's only element (``DatasetToSingleElement``)."""
        outs = apply_op("DatasetToSingleElement", dataset=self._variant_tensor, **self._attrs())
        return _unflatten(self._structure, list(outs) if isinstance(outs, (list, tuple)) else [outs])

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None):
        """``reduce_func(key, window)`` of each window of ``window_size`` elements with one key
        (``GroupByWindowDataset``)."""
        if (window_size is not None and window_size_func) or not (window_size is not None or window_size_func):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified.")
        if window_size is not None:
            def window_size_func(unused_key):
                return convert_to_tensor(window_size, dtype=dtypes.int64)

        def key_func_wrapper(*args):
            return convert_to_tensor(key_func(*args), dtype=dtypes.int64)

        def window_size_func_wrapper(key):
            return convert_to_tensor(window_size_func(key), dtype=dtypes.int64)

        scalar64 = TensorSpec([], dtypes.int64)
        key = _Traced(key_func_wrapper, self._structure, "group_by_window")
        if key.structure != scalar64:
            raise ValueError(f"Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but "
                             f"its return type is {key.structure}.")
        reduce = _Traced(reduce_func, (scalar64, DatasetSpec(self._structure)), "group_by_window",
                         want_dataset=True)
        size = _Traced(window_size_func_wrapper, scalar64, "group_by_window")
        if size.structure != scalar64:
            raise ValueError(f"Invalid `window_size_func`. `window_size_func` must return a single `tf.int64` "
                             f"scalar tensor but its return type is {size.structure}.")
        return self._unary("GroupByWindowDataset", reduce.structure, key_func_other_arguments=key.captures,
                           reduce_func_other_arguments=reduce.captures,
                           window_size_func_other_arguments=size.captures, key_func=key.graph,
                           reduce_func=reduce.graph, window_size_func=size.graph,
                           Tkey_func_other_arguments=key.targuments, Treduce_func_other_arguments=reduce.targuments,
                           Twindow_size_func_other_arguments=size.targuments)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """Windows of ``size`` elements ``stride`` apart, one every ``shift``
        (default ``size``) elements; each element is the element's structure with
        a dataset in place of each component (``WindowDataset``)."""
        if shift is None:
            shift = size
        args = dict(size=convert_to_tensor(size, dtype=dtypes.int64, name="size"),
                    shift=convert_to_tensor(shift, dtype=dtypes.int64, name="shift"),
                    stride=convert_to_tensor(stride, dtype=dtypes.int64, name="stride"),
                    drop_remainder=convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder"))
        structure = _unflatten(self._structure, [DatasetSpec(s) for s in _flat_specs(self._structure)])
        return self._unary("WindowDataset", structure, **args)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False):
        """Batches of elements of similar length, padded per batch, as TF builds it
        (``group_by_window`` keyed by the bucket of ``element_length_func``)."""
        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                             f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                             f"`len(bucket_boundaries)={len(bucket_boundaries)}`.")
        batch_sizes = constant(bucket_batch_sizes, dtype=dtypes.int64)

        def element_to_bucket_id(*args):
            seq_length = element_length_func(*args)
            boundaries = list(bucket_boundaries)
            buckets_min = [np.iinfo(np.int32).min] + boundaries
            buckets_max = boundaries + [np.iinfo(np.int32).max]
            conditions_c = math_ops.logical_and(math_ops.less_equal(buckets_min, seq_length),
                                                math_ops.less(seq_length, buckets_max))
            return math_ops.reduce_min(array_ops.where(conditions_c))

        def window_size_fn(bucket_id):
            return batch_sizes[bucket_id]

        def padded(shapes, filler):
            return nest.pack_sequence_as(shapes, [[filler if d is None else d for d in TensorShape(sh).as_list()]
                                                  for sh in _flatten_shapes(shapes)])

        def batching_fn(bucket_id, grouped_dataset):
            batch_size = window_size_fn(bucket_id)
            if no_padding:
                return grouped_dataset.batch(batch_size, drop_remainder=drop_remainder)
            filler = None
            if pad_to_bucket_boundary:
                check = check_ops.assert_less(
                    bucket_id, constant(len(bucket_batch_sizes) - 1, dtype=dtypes.int64),
                    message="When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries).")
                with control_dependencies([check]):
                    boundaries = constant(bucket_boundaries, dtype=dtypes.int64)
                    filler = boundaries[bucket_id] - 1
            return grouped_dataset.padded_batch(batch_size, padded(padded_shapes or grouped_dataset.output_shapes,
                                                                   filler),
                                                padding_values, drop_remainder=drop_remainder)

        return self.group_by_window(element_to_bucket_id, batching_fn, window_size_func=window_size_fn)

    # -- iterators (TF1) --------------------------------------------------------------------
    def make_one_shot_iterator(self):
        return _iterators.make_one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        return _iterators.make_initializable(self, shared_name)


Dataset = DatasetV1


def _flatten_shapes(shapes):
    if isinstance(shapes, TensorShape) or (isinstance(shapes, list) and all(
            isinstance(d, (int, np.integer, type(None), Tensor, Dimension)) for d in shapes)):
        return [shapes]
    if isinstance(shapes, dict):  # flattened as nest orders a dict (by key), each value a shape or a structure
        return [s for k in sorted(shapes) for s in _flatten_shapes(shapes[k])]
    return [s for x in (shapes if isinstance(shapes, (tuple, list)) else nest.flatten(shapes))
            for s in _flatten_shapes(x)]


def data_seeds(seed):
    """TF's ``tf.data`` seeds: int64 tensors ``seed`` and ``seed2`` (0, 0 if none;
    seed2 2**31 - 1 where both would be 0)."""
    s, s2 = get_seed(seed)
    seed_t = convert_to_tensor(0 if s is None else s, dtype=dtypes.int64, name="seed")
    if s2 is None:
        return seed_t, convert_to_tensor(0, dtype=dtypes.int64, name="seed2")
    with name_scope("seed2") as scope:
        s2_t = convert_to_tensor(s2, dtype=dtypes.int64)
        both = math_ops.logical_and(math_ops.equal(seed_t, np.int64(0)), math_ops.equal(s2_t, np.int64(0)))
        s2_t = array_ops.where_v2(both, convert_to_tensor(2 ** 31 - 1, dtype=dtypes.int64), s2_t,
                                  name=scope)
    return seed_t, s2_t


class _IteratorHooks:
    """Filled in by :mod:`ref.data.iterator_ops` (which imports this module)."""
    make_one_shot = make_initializable = None


_iterators = _IteratorHooks()
