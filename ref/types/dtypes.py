"""TensorFlow's data types: names, DataType enum numbers, NumPy equivalents.

The enum numbers are those of TensorFlow's ``types.proto`` (``DT_FLOAT = 1``,
...); a ``_ref`` type is its base type plus 100, as in TensorFlow.
"""
from __future__ import annotations

import builtins as _builtins

import numpy as np

from ref import protos
from ref.types import trace_type

builtins_bool = _builtins.bool

# bfloat16, the float8 types and int4/uint4 have no NumPy types of their own: as
# TF, ref takes them from the ``ml_dtypes`` package (a dependency).
import ml_dtypes as _ml_dtypes

_BFLOAT16_NP = np.dtype(_ml_dtypes.bfloat16)
# TF's module-level names for the NumPy scalar types of the types NumPy lacks.
_np_bfloat16 = _ml_dtypes.bfloat16
_np_float8_e5m2, _np_float8_e4m3fn = _ml_dtypes.float8_e5m2, _ml_dtypes.float8_e4m3fn
_np_float8_e4m3fnuz, _np_float8_e4m3b11fnuz = _ml_dtypes.float8_e4m3fnuz, _ml_dtypes.float8_e4m3b11fnuz
_np_float8_e5m2fnuz, _np_float4_e2m1fn = _ml_dtypes.float8_e5m2fnuz, _ml_dtypes.float4_e2m1fn
_np_int4, _np_uint4, _np_int2, _np_uint2 = _ml_dtypes.int4, _ml_dtypes.uint4, _ml_dtypes.int2, _ml_dtypes.uint2
# The quantized types are, as in TF, one-field structured NumPy dtypes named after the type.
_np_qint8 = np.dtype([("qint8", np.int8)])
_np_quint8 = np.dtype([("quint8", np.uint8)])
_np_qint16 = np.dtype([("qint16", np.int16)])
_np_quint16 = np.dtype([("quint16", np.uint16)])
_np_qint32 = np.dtype([("qint32", np.int32)])
_QUANTIZED_ENUMS = frozenset({11, 12, 13, 15, 16})


class DType:
    """A TensorFlow element type (``tf.float32``, ``tf.int64_ref``, ...)."""

    __slots__ = ("_name", "_enum", "_np")

    def __init__(self, name, enum=None, np_dtype=None):
        if enum is None:  # TF's constructor: ``DType(type_enum)``, equal to the interned type
            known = _BY_ENUM.get(name) if isinstance(name, int) and not isinstance(name, builtins_bool) else None
            if known is None:
                raise TypeError(f"Cannot convert value {name!r} to a TensorFlow DType.")
            name, enum, np_dtype = known._name, known._enum, known._np
        self._name = name
        self._enum = enum
        self._np = np_dtype

    # -- identity -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (``np.float32``); ``object`` for strings; a quantized type's
        one-field structured NumPy dtype (TF's ``_np_qint8``, ...)."""
        b = self.base_dtype
        if b._np is None:
            return None
        return b._np if b.is_quantized else b._np.type

    @property
    def np(self) -> np.dtype:
        """The NumPy dtype object used for arrays of this type."""
        return self.base_dtype._np

    # -- ref types ------------------------------------------------------------
    @property
    def is_ref_dtype(self) -> bool:
        return self._enum > 100

    @property
    def base_dtype(self) -> "DType":
        return _BY_ENUM[self._enum - 100] if self._enum > 100 else self

    @property
    def real_dtype(self) -> "DType":
        b = self.base_dtype
        return {complex64: float32, complex128: float64}.get(b, b)

    @property
    def _as_ref(self) -> "DType":
        return self if self.is_ref_dtype else _BY_ENUM[self._enum + 100]

    # -- classification -------------------------------------------------------
    @property
    def is_floating(self) -> bool:
        return self.base_dtype._enum in _FLOAT_ENUMS

    @property
    def is_complex(self) -> bool:
        return self.base_dtype in (complex64, complex128)

    @property
    def is_integer(self) -> bool:
        return self.base_dtype in _INTEGERS or self.base_dtype._enum in _NARROW_INT_ENUMS

    @property
    def is_unsigned(self) -> bool:
        return self.base_dtype in (uint8, uint16, uint32, uint64) or self.base_dtype._enum in (30, 32)

    @property
    def is_bool(self) -> bool:
        return self.base_dtype == bool

    @property
    def is_numpy_compatible(self) -> bool:
        return self.base_dtype._np is not None

    @property
    def is_quantized(self) -> bool:
        return self.base_dtype._enum in _QUANTIZED_ENUMS

    @property
    def min(self):
        b = self.base_dtype
        if b.is_floating:
            return float(_ml_dtypes.finfo(b.np).min)
        if b.is_integer:
            return int(_ml_dtypes.iinfo(b.np).min)
        if b.is_quantized:
            raise TypeError(f"Cannot find minimum value of {b.name} with quantized type {b.name}.")
        raise TypeError(f"Cannot find minimum value of {b.name}.")

    @property
    def max(self):
        b = self.base_dtype
        if b.is_floating:
            return float(_ml_dtypes.finfo(b.np).max)
        if b.is_integer:
            return int(_ml_dtypes.iinfo(b.np).max)
        if b.is_quantized:
            raise TypeError(f"Cannot find maximum value of {b.name} with quantized type {b.name}.")
        raise TypeError(f"Cannot find maximum value of {b.name}.")

    @property
    def limits(self):
        """TF's image intensity range ``(0, max)``: a property, so its ``clip_negative`` stays True.

        Defined for bool, the integers and float32/float64 (whose range is (-1, 1)); any other
        dtype raises ValueError, as TF.
        """
        b = self.base_dtype
        if b.is_bool:
            return 0, True
        if b in _INTEGERS:
            return 0, self.max
        if b in (float32, float64):
            return 0, 1
        raise ValueError(f"<dtype: {self.name!r}> does not have defined limits.")

    @property
    def size(self) -> int:
        """Bytes per element (TF's ``DataTypeSize``): 0 for string, resource and variant."""
        b = self.base_dtype
        return 0 if b._np is None or b._enum == 7 else b._np.itemsize

    def is_compatible_with(self, other) -> bool:
        other = as_dtype(other)
        return self._enum in (other._enum, other.base_dtype._enum)

    # -- TF's TraceType relations: a dtype is a subtype only of itself ------------
    def is_subtype_of(self, other) -> bool:
        return self == other

    def most_specific_common_supertype(self, others):
        """``self`` when every one of ``others`` equals it, else None."""
        return self if all(self == o for o in others) else None

    # -- TF's serialization of a trace type (``trace_type.serialize``) --------------
    @classmethod
    def experimental_type_proto(cls):
        return protos.types_pb2.SerializedDType

    @classmethod
    def experimental_from_proto(cls, proto) -> "DType":
        return as_dtype(proto.datatype)

    def experimental_as_proto(self):
        return protos.types_pb2.SerializedDType(datatype=self._enum)

    # -- protocol -------------------------------------------------------------
    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self._enum == other._enum
        if isinstance(other, type) and other in (int, str, bytes, complex):
            return False  # Python types TF's as_dtype does not take (ref's as_dtype maps them for convenience)
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __reduce__(self):
        return as_dtype, (self._name,)


trace_type.register_serializable(DType)

_SPECS = [
    ("float32", 1, np.dtype(np.float32)),
    ("float64", 2, np.dtype(np.float64)),
    ("int32", 3, np.dtype(np.int32)),
    ("uint8", 4, np.dtype(np.uint8)),
    ("int16", 5, np.dtype(np.int16)),
    ("int8", 6, np.dtype(np.int8)),
    ("string", 7, np.dtype(object)),
    ("complex64", 8, np.dtype(np.complex64)),
    ("int64", 9, np.dtype(np.int64)),
    ("bool", 10, np.dtype(np.bool_)),
    ("qint8", 11, _np_qint8),
    ("quint8", 12, _np_quint8),
    ("qint32", 13, _np_qint32),
    ("bfloat16", 14, _BFLOAT16_NP),
    ("qint16", 15, _np_qint16),
    ("quint16", 16, _np_quint16),
    ("uint16", 17, np.dtype(np.uint16)),
    ("complex128", 18, np.dtype(np.complex128)),
    ("float16", 19, np.dtype(np.float16)),
    ("resource", 20, None),
    ("variant", 21, None),
    ("uint32", 22, np.dtype(np.uint32)),
    ("uint64", 23, np.dtype(np.uint64)),
    ("float8_e5m2", 24, np.dtype(_ml_dtypes.float8_e5m2)),
    ("float8_e4m3fn", 25, np.dtype(_ml_dtypes.float8_e4m3fn)),
    ("float8_e4m3fnuz", 26, np.dtype(_ml_dtypes.float8_e4m3fnuz)),
    ("float8_e4m3b11fnuz", 27, np.dtype(_ml_dtypes.float8_e4m3b11fnuz)),
    ("float8_e5m2fnuz", 28, np.dtype(_ml_dtypes.float8_e5m2fnuz)),
    ("int4", 29, np.dtype(_ml_dtypes.int4)),
    ("uint4", 30, np.dtype(_ml_dtypes.uint4)),
    ("int2", 31, np.dtype(_ml_dtypes.int2)),
    ("uint2", 32, np.dtype(_ml_dtypes.uint2)),
    ("float4_e2m1fn", 33, np.dtype(_ml_dtypes.float4_e2m1fn)),
]
_FLOAT_ENUMS = frozenset({19, 14, 1, 2, 24, 25, 26, 27, 28, 33})  # float16, bfloat16, float32/64, float8s, float4
_NARROW_INT_ENUMS = frozenset({29, 30, 31, 32})  # int4, uint4, int2, uint2

_BY_ENUM: dict = {}
_BY_NAME: dict[str, DType] = {}
for _name, _enum, _np in _SPECS:
    for _n, _e in ((_name, _enum), (_name + "_ref", _enum + 100)):
        _d = DType(_n, _e, _np)
        _BY_ENUM[_e] = _d
        _BY_NAME[_n] = _d
        globals()[_n] = _d

# Spelled out for readers and linters (the loop above defines them).
float16 = _BY_NAME["float16"]
half = float16
float32 = _BY_NAME["float32"]
float64 = _BY_NAME["float64"]
double = float64
bfloat16 = _BY_NAME["bfloat16"]
int8 = _BY_NAME["int8"]
int16 = _BY_NAME["int16"]
int32 = _BY_NAME["int32"]
int64 = _BY_NAME["int64"]
uint8 = _BY_NAME["uint8"]
uint16 = _BY_NAME["uint16"]
uint32 = _BY_NAME["uint32"]
uint64 = _BY_NAME["uint64"]
bool = _BY_NAME["bool"]  # noqa: A001 - TF's name
string = _BY_NAME["string"]
complex64 = _BY_NAME["complex64"]
complex128 = _BY_NAME["complex128"]
resource = _BY_NAME["resource"]
variant = _BY_NAME["variant"]
float8_e5m2, float8_e4m3fn = _BY_NAME["float8_e5m2"], _BY_NAME["float8_e4m3fn"]
float8_e4m3fnuz, float8_e4m3b11fnuz = _BY_NAME["float8_e4m3fnuz"], _BY_NAME["float8_e4m3b11fnuz"]
float8_e5m2fnuz, float4_e2m1fn = _BY_NAME["float8_e5m2fnuz"], _BY_NAME["float4_e2m1fn"]
int4, uint4, int2, uint2 = (_BY_NAME[n] for n in ("int4", "uint4", "int2", "uint2"))
qint8, quint8, qint16, quint16, qint32 = (_BY_NAME[n] for n in ("qint8", "quint8", "qint16", "quint16", "qint32"))

_INTEGERS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
FLOATS = (float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
INTEGERS = _INTEGERS
REALS = FLOATS + _INTEGERS
NUMBERS = REALS + COMPLEX
# TF's set of the dtypes whose values NumPy holds (every one but resource, variant and the references).
TF_VALUE_DTYPES = frozenset(d for d in _BY_ENUM.values() if not d.is_ref_dtype and d not in (resource, variant))

# TF's table of every DataType enum number (the references too) to its name.
_TYPE_TO_STRING = {e: d.name for e, d in sorted(_BY_ENUM.items())}

_NP_TO_DTYPE = {}
for _d in list(_BY_ENUM.values()):
    if not _d.is_ref_dtype and _d._np is not None and _d._np != np.dtype(object):
        _NP_TO_DTYPE.setdefault(_d._np, _d)


def as_dtype(type_value) -> DType:
    """Converts a DType, name, enum number, NumPy type or Python type to a DType."""
    if isinstance(type_value, DType):
        return _BY_ENUM.get(type_value._enum, type_value)  # the interned one
    if isinstance(type_value, str):
        name = {"float": "float32", "double": "float64", "half": "float16"}.get(type_value, type_value)
        if name in _BY_NAME:
            return _BY_NAME[name]
    elif isinstance(type_value, (int, np.integer)) and not isinstance(type_value, (builtins_bool, np.bool_)):
        if int(type_value) in _BY_ENUM:
            return _BY_ENUM[int(type_value)]
    elif type_value is builtins_bool:
        return _BY_NAME["bool"]
    elif type_value is int:
        return int32
    elif type_value is float:
        return float32
    elif type_value in (str, bytes, object):
        return string
    elif type_value is complex:
        return complex128
    else:
        try:
            npd = np.dtype(type_value)
        except (TypeError, ValueError):
            npd = None
        if npd is None and hasattr(type_value, "dtype"):  # TF: an object with a NumPy ``dtype``
            try:
                npd = np.dtype(type_value.dtype)
            except (TypeError, ValueError):
                npd = None
        if npd is not None:
            if npd in _NP_TO_DTYPE:
                return _NP_TO_DTYPE[npd]
            if npd.kind in "OSU":
                return string
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")



def from_numpy(array) -> DType:
    """The DType of a NumPy array (strings and bytes map to ``string``)."""
    return as_dtype(np.asarray(array).dtype)


__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "bfloat16",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bool", "string", "complex64", "complex128", "resource", "variant",
    "qint8", "quint8", "qint16", "quint16", "qint32",
]
