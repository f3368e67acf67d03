"""Static shapes: ``Dimension`` and ``TensorShape``, with unknown dims and ranks.

As in TensorFlow, a shape may be fully unknown (unknown rank), partially known
(some dims ``None``) or fully defined. ``merge_with`` combines two pieces of
information about one shape; ``is_compatible_with`` asks whether they could
describe the same shape.

Indexing and iterating a shape give what TF 1.x gives with v2 behaviour
disabled: ``Dimension`` objects (``x.shape[0].value`` is None for an unknown
dim). :func:`enable_v2_tensorshape` switches to TF 2's plain ints and None;
:func:`disable_v2_tensorshape` switches back. Code that must work either way
reads a dim through :func:`dimension_value` (or ``as_list()``), as TF's own does.
"""
from __future__ import annotations
from ref import protos

# None: the default (TF 1.x Dimensions, as TF with v2 behaviour disabled).
_V2_TENSORSHAPE = [None]


def enable_v2_tensorshape():
    """Indexing and iterating a ``TensorShape`` give ints and None (TF 2)."""
    _V2_TENSORSHAPE[0] = True


def disable_v2_tensorshape():
    """Indexing and iterating a ``TensorShape`` give ``Dimension`` objects (TF 1.x)."""
    _V2_TENSORSHAPE[0] = False


def v2_tensorshape_enabled() -> bool:
    """Whether shapes index to ints/None (TF 2) rather than ``Dimension`` (TF 1.x)."""
    return bool(_V2_TENSORSHAPE[0])


class int_dims:
    """Within the block, shapes index and iterate to ints and None (TF 2's
    form) whatever the mode: ref's own shape arithmetic (the op shape rules)
    runs in it, so that it reads sizes as TF's C++ shape functions do."""

    __slots__ = ("_was",)

    def __enter__(self):
        self._was = _V2_TENSORSHAPE[0]
        _V2_TENSORSHAPE[0] = True
        return self

    def __exit__(self, *exc):
        _V2_TENSORSHAPE[0] = self._was


def _other(value):
    """``value`` as a Dimension, or None where TF's operators return NotImplemented."""
    try:
        return as_dimension(value)
    except (TypeError, ValueError):
        return None


def _slash(left, right):
    return TypeError(f"unsupported operand type(s) for /: '{left}' and '{right}', please use // instead")


class Dimension:
    """One dimension of a ``TensorShape``: a non-negative int, or unknown (None).

    Arithmetic with ints or Dimensions gives a Dimension (unknown when either
    side is); comparisons give None when either side is unknown; ``int()`` and
    ``__index__`` of an unknown Dimension raise TypeError."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value._value
        elif value is not None:
            try:
                value = int(value.__index__())
            except AttributeError:
                raise TypeError(f"Dimension value must be integer or None or have an __index__ method, "
                                f"got value '{value!r}' with type '{type(value)!r}'") from None
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self):
        """The dim's size, or None when unknown."""
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __reduce__(self):
        return Dimension, (self._value,)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    __hash__ = None  # unhashable, as TF's (it defines __eq__ only)

    def __eq__(self, other):
        other = _other(other)
        if other is None:
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        other = _other(other)
        if other is None:
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value != other._value

    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other) -> "Dimension":
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    # -- arithmetic: TF's operators (NotImplemented for non-dims on the left-hand forms) --
    def _arith(self, other, fn, strict=False):
        other = as_dimension(other) if strict else _other(other)
        if other is None:
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return self._arith(other, lambda a, b: b - a, strict=True)

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    def __rmul__(self, other):
        return self * other

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return self._arith(other, lambda a, b: b // a, strict=True)

    def __truediv__(self, other):
        raise _slash("Dimension", type(other).__name__)

    def __rtruediv__(self, other):
        raise _slash(type(other).__name__, "Dimension")

    def __mod__(self, other):
        return self._arith(other, lambda a, b: a % b, strict=True)

    def __rmod__(self, other):
        return as_dimension(other) % self

    def _compare(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return None
        return fn(self._value, other._value)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)


def as_dimension(value) -> Dimension:
    """``value`` itself when a Dimension, else ``Dimension(value)``."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """A dim as a plain int or None, whichever mode gave it (TF's ``tf.compat.dimension_value``)."""
    return dimension._value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index) -> Dimension:
    """The ``Dimension`` at ``index`` in either mode; ``Dimension(None)`` for an
    unknown rank (TF's ``tf.compat.dimension_at_index``)."""
    if not isinstance(shape, TensorShape):
        raise AssertionError(f"dimension_at_index needs a TensorShape, got {type(shape).__name__}")
    if shape._dims is None:
        return Dimension(None)
    return shape._dims[index]


class TensorShape:
    """The static shape of a tensor: a list of Dimensions, or unknown rank (None)."""

    __slots__ = ("_dims",)

    @property
    def _v2_behavior(self) -> bool:
        """Whether shapes index to ints/None (TF 2) rather than Dimensions (TF's attribute)."""
        return bool(_V2_TENSORSHAPE[0])

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
        elif hasattr(dims, "op") and hasattr(dims, "graph"):  # a graph Tensor: not iterated (no ops built)
            raise TypeError(f"Iterating over a symbolic `tf.Tensor` is not allowed: a TensorShape "
                            f"cannot be made from {dims.name!r}")
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
        if _V2_TENSORSHAPE[0]:
            return iter([d._value for d in self._dims])
        return iter(self._dims)

    def __getitem__(self, key):
        """The dim at an int index (a ``Dimension``; int or None in TF 2 mode),
        or a ``TensorShape`` for a slice."""
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]._value if _V2_TENSORSHAPE[0] else self._dims[key]
        if not isinstance(key, slice):
            return None if _V2_TENSORSHAPE[0] else Dimension(None)
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        if key.stop is None or start < 0 or key.stop < 0:
            return unknown_shape()
        return unknown_shape(rank=key.stop - start)

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

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __reduce__(self):
        return TensorShape, (self.dims,)

    def is_subtype_of(self, other) -> bool:
        """Whether every shape this one describes is also described by ``other``
        (TF's trace-type relation: ``other``'s unknown dims and rank admit anything)."""
        if not isinstance(other, TensorShape):
            return False
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(o._value is None or s._value == o._value for s, o in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others):
        """The most specific shape that ``self`` and every shape in ``others`` are
        subtypes of (dims that differ become unknown; None if one is not a shape)."""
        if any(not isinstance(o, TensorShape) for o in others):
            return None
        if self._dims is None or any(o._dims is None or len(o._dims) != len(self._dims) for o in others):
            return unknown_shape()
        return TensorShape([d._value if all(o._dims[i]._value == d._value for o in others) else None
                            for i, d in enumerate(self._dims)])

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        if _V2_TENSORSHAPE[0]:
            return f"TensorShape({[d._value for d in self._dims]})"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        dims = [d._value for d in self._dims] if _V2_TENSORSHAPE[0] else self._dims
        if len(dims) == 1:
            return f"({dims[0]},)"
        return "(" + ", ".join(str(d) for d in dims) + ")"


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
