"""Static shapes: ``Dimension`` and ``TensorShape``, with unknown dims and ranks.

As in TensorFlow, a shape may be fully unknown (unknown rank), partially known
(some dims ``None``) or fully defined. ``merge_with`` combines two pieces of
information about one shape; ``is_compatible_with`` asks whether they could
describe the same shape.
"""
from __future__ import annotations
from ref import protos


class Dimension:
    """One dimension of a ``TensorShape``: a non-negative int, or unknown (None)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            try:
                int_value = int(value.__index__())
            except AttributeError:
                raise TypeError(f"Dimension value must be integer or None, got {value!r}") from None
            if int_value < 0:
                raise ValueError(f"Dimension {int_value} must be >= 0")
            value = int_value
        self._value = value

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        other = as_dimension(other) if not isinstance(other, Dimension) else other
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other) -> "Dimension":
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    def _arith(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __mod__(self, other):
        return self._arith(other, lambda a, b: a % b)

    def __lt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value < other._value

    def __le__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value <= other._value

    def __gt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value > other._value

    def __ge__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value >= other._value


class KnownDimension(int):
    """A known dimension as ``TensorShape`` indexing and iteration give it: an
    ``int`` (what ref's own code computes with, as TF 2's shapes give), which
    also answers TF1's ``Dimension`` API -- ``.value``, ``is_compatible_with``,
    ``assert_is_compatible_with``, ``merge_with`` -- so that TF1 programs'
    ``x.get_shape()[1].value`` and ``[d.value for d in shape]`` run. Arithmetic
    gives plain ints. (An unknown dimension stays ``None``, as in TF 2.)"""

    __slots__ = ()

    @property
    def value(self):
        return int(self)

    def is_compatible_with(self, other) -> bool:
        return Dimension(int(self)).is_compatible_with(other)

    def assert_is_compatible_with(self, other):
        Dimension(int(self)).assert_is_compatible_with(other)

    def merge_with(self, other) -> Dimension:
        return Dimension(int(self)).merge_with(other)


def _known(value):
    return None if value is None else KnownDimension(value)


def as_dimension(value) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dim):
    return dim.value if isinstance(dim, (Dimension, KnownDimension)) else dim


class TensorShape:
    """The static shape of a tensor: a list of Dimensions, or unknown rank (None)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif hasattr(dims, "dim") and hasattr(dims, "unknown_rank"):  # TensorShapeProto
            self._dims = None if dims.unknown_rank else tuple(
                Dimension(None if d.size == -1 else d.size) for d in dims.dim)
        elif isinstance(dims, (str, bytes)):
            raise TypeError(f"A string has no shape: {dims!r}")
        else:
            try:
                it = iter(dims)
            except TypeError:  # a scalar means a rank-1 shape of that size
                self._dims = (as_dimension(dims),)
            else:
                self._dims = tuple(as_dimension(None if d is None else d) for d in it)

    # -- queries --------------------------------------------------------------
    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(_known(d.value) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return unknown_shape()
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return _known(self._dims[key].value)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def as_proto(self):
        if self._dims is None:
            return protos.tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        return protos.tensor_shape_pb2.TensorShapeProto(
            dim=[protos.tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d.value is None else d.value)
                 for d in self._dims])

    # -- combining ------------------------------------------------------------
    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank) -> "TensorShape":
        try:
            return self.merge_with(unknown_shape(rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank) -> "TensorShape":
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank) -> "TensorShape":
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def most_specific_compatible_shape(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape([a.value if a.value == b.value else None for a, b in zip(self._dims, other._dims)])

    # -- protocol -------------------------------------------------------------
    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._dims is None or other._dims is None:
            return self._dims is None and other._dims is None
        return [d.value for d in self._dims] == [d.value for d in other._dims]

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(None if self._dims is None else tuple(d.value for d in self._dims))

    def __add__(self, other):
        return self.concatenate(other)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({[d.value for d in self._dims]})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, **kwargs) -> TensorShape:
    rank = kwargs.pop("ndims", rank)
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape([])


def vector(length) -> TensorShape:
    return TensorShape([length])


def matrix(rows, cols) -> TensorShape:
    return TensorShape([rows, cols])
