"""``tf.RaggedTensor``: rows of different lengths as flat values and row splits.

TF's ``ops/ragged/ragged_tensor.py`` reduced to what TF1 graph code meets (a
parsed ``RaggedFeature``, ``from_row_splits``, ``to_tensor``): a RaggedTensor
is ``values`` (a Tensor, or a RaggedTensor for more ragged dimensions) and an
int32/int64 ``row_splits`` vector; row r is ``values[row_splits[r]:row_splits[r + 1]]``.
``Session.run`` fetches one as a :class:`RaggedTensorValue`.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, math_ops
from ref.graph_ops.control_flow_ops import with_dependencies
from ref.types.shapes import TensorShape, as_shape

__all__ = ["RaggedTensor", "RaggedTensorValue"]


class RaggedTensorValue:
    """The value of a RaggedTensor: NumPy ``values`` (or a nested RaggedTensorValue) and ``row_splits``."""

    def __init__(self, values, row_splits):
        self._values, self._row_splits = values, np.asarray(row_splits)

    values = property(lambda self: self._values)
    row_splits = property(lambda self: self._row_splits)
    dtype = property(lambda self: self.flat_values.dtype)

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensorValue):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self._row_splits], self._values
        while isinstance(v, RaggedTensorValue):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    def to_list(self):
        """The rows as nested Python lists."""
        inner = self._values.to_list() if isinstance(self._values, RaggedTensorValue) else self._values.tolist()
        s = self._row_splits
        return [inner[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def __repr__(self):
        return f"<tf.RaggedTensorValue {self.to_list()}>"


class RaggedTensor:
    """A tensor with ragged (variable-length) dimensions (``tf.RaggedTensor``).
    Build one with :meth:`from_row_splits`."""

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values, self._row_splits = values, row_splits

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """The RaggedTensor whose row r is ``values[row_splits[r]:row_splits[r + 1]]``;
        ``validate`` adds TF's run-time checks (splits of rank 1, starting at
        0, non-decreasing, ending at the number of values)."""
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must have type bool. Received {validate}.")
        with name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            with name_scope(None, "RowPartitionFromRowSplits", [row_splits]):
                if isinstance(row_splits, (list, tuple)) and not row_splits:
                    raise ValueError("row_splits tensor may not be empty.")
                hint = values.row_splits.dtype if isinstance(values, RaggedTensor) else dtypes.int64
                row_splits = _convert_splits(row_splits, hint)
                row_splits.shape.assert_has_rank(1)
                if validate:
                    msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
                    checks = [check_ops.assert_rank(row_splits, 1, message=msg + "rank"),
                              check_ops.assert_equal(row_splits[0], constant(0, row_splits.dtype),
                                                     message=msg + "zero"),
                              check_ops.assert_non_negative(row_splits[1:] - row_splits[:-1],
                                                            message=msg + "monotonic")]
                    row_splits = with_dependencies(checks, row_splits)
            if not isinstance(values, RaggedTensor):
                values = convert_to_tensor(values, name="values")
                if values.shape.ndims == 0:
                    raise ValueError("partition must have rank at least 1")
            elif values.row_splits.dtype != row_splits.dtype:
                raise ValueError("dtype mismatch: values.row_splits.dtype and partition.dtype differ")
            if validate:
                msg = "Arguments to _from_row_partition do not form a valid RaggedTensor"
                if isinstance(values, RaggedTensor):
                    nvals = values.nrows(out_type=row_splits.dtype)
                else:
                    nvals = array_ops.shape(values, out_type=row_splits.dtype)[0]
                checks = [check_ops.assert_equal(row_splits[-1], nvals, message=msg)]
                if not isinstance(values, RaggedTensor):
                    checks.append(check_ops.assert_rank_at_least(values, 1))
                row_splits = with_dependencies(checks, row_splits)
            return cls(values, row_splits, internal=True)

    values = property(lambda self: self._values, doc="The concatenated rows (a Tensor or a RaggedTensor).")
    row_splits = property(lambda self: self._row_splits, doc="The [nrows + 1] row boundaries.")
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._row_splits.graph)

    @property
    def flat_values(self) -> Tensor:
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        """The row splits of every ragged dimension, outermost first."""
        out, v = [self._row_splits], self._values
        while isinstance(v, RaggedTensor):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def shape(self) -> TensorShape:
        """[nrows (known when row_splits' length is), None per ragged dimension] + the values' inner shape."""
        n = self._row_splits.shape.dims[0].value if self._row_splits.shape.ndims else None
        inner = self.flat_values.shape
        tail = TensorShape(None) if inner.ndims is None else TensorShape(inner.as_list()[1:])
        return TensorShape([None if n is None else n - 1] + [None] * self.ragged_rank).concatenate(tail)

    def get_shape(self) -> TensorShape:
        return self.shape

    def nrows(self, out_type=None, name=None):
        """The number of rows: a constant when row_splits' length is known, else ``shape(row_splits)[0] - 1``."""
        with name_scope(name, "RaggedNRows", [self]):
            n = self._row_splits.shape.dims[0].value if self._row_splits.shape.ndims else None
            if n is None:
                rows = array_ops.shape(self._row_splits, out_type=self._row_splits.dtype)[0] - 1
            else:
                rows = constant(n - 1, dtype=self._row_splits.dtype)
            return rows if out_type is None else math_ops.cast(rows, dtype=out_type)

    def to_tensor(self, default_value=None, name=None, shape=None):
        """The dense tensor, rows padded with ``default_value`` (zero) to the longest,
        or cut/padded to ``shape`` (``RaggedTensorToTensor``)."""
        with name_scope(name, "RaggedToTensor", [self, default_value, shape]):
            if default_value is not None:
                default_value = convert_to_tensor(default_value, name="default_value", dtype=self.dtype)
            splits = list(self.nested_row_splits)
            if default_value is None:
                default_value = array_ops.zeros((), self.dtype)
            if isinstance(shape, Tensor):
                shape_t = shape
            elif shape is None or as_shape(shape).ndims is None:
                shape_t = constant(-1, splits[0].dtype)
            else:
                shape_t = constant([-1 if d is None else d for d in as_shape(shape).as_list()], splits[0].dtype)
            out = apply_op("RaggedTensorToTensor", shape=shape_t, values=self.flat_values,
                           default_value=default_value, row_partition_tensors=splits,
                           row_partition_types=["ROW_SPLITS"] * len(splits), name="RaggedTensorToTensor")
            if not isinstance(shape, Tensor):
                given = as_shape(shape)
                mine = self.shape
                if given.ndims is not None and mine.ndims is not None:
                    out.set_shape([a if a is not None else b for a, b in zip(given.as_list(), mine.as_list())])
                else:
                    out.set_shape(mine)
            return out

    def __repr__(self):
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")


def _convert_splits(row_splits, hint):
    if isinstance(row_splits, Tensor):
        t = row_splits
    else:
        arr = np.asarray(row_splits)
        t = convert_to_tensor(row_splits, name="row_splits",
                              dtype=hint if arr.dtype.kind in "iu" or arr.size == 0 else None)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"row_splits must have dtype int32 or int64, got {t.dtype.name}")
    return t

