"""TF's ``trace_type`` serialization: a value type to a protobuf and back.

TensorFlow serializes the types of traced function arguments (``tf.DType``,
...) through their ``experimental_as_proto`` / ``experimental_from_proto``
methods; ``serialize`` packs that proto into a ``google.protobuf.Any`` (TF wraps
the same ``Any`` in its ``SerializedTraceType``), ``deserialize`` finds the
class whose ``experimental_type_proto()`` the ``Any`` holds and rebuilds the
value. Classes register themselves with :func:`register_serializable`.
"""
from __future__ import annotations

from ref import protos

_CLASSES: list = []


def register_serializable(cls):
    """Makes ``deserialize`` rebuild ``cls`` from its ``experimental_type_proto()`` (asked on use, so
    that registering loads no protobuf)."""
    _CLASSES.append(cls)
    return cls


def serialize(to_serialize):
    """``to_serialize``'s proto packed into a ``google.protobuf.Any``.

    ValueError (TF's) when the value is not serializable or its proto is not of
    the class it declares."""
    if not (hasattr(to_serialize, "experimental_as_proto") and hasattr(to_serialize, "experimental_type_proto")):
        raise ValueError(f"Can not serialize {to_serialize!r} since it is not Serializable.")
    proto = to_serialize.experimental_as_proto()
    if not isinstance(proto, to_serialize.experimental_type_proto()):
        raise ValueError(f"{to_serialize!r} returned different type proto than specified by experimental_type_proto()")
    packed = protos.any_pb2.Any()
    packed.Pack(proto)
    return packed


def deserialize(proto):
    """The value a :func:`serialize` result holds (ValueError for an unregistered proto)."""
    for cls in _CLASSES:
        proto_class = cls.experimental_type_proto()
        if proto.Is(proto_class.DESCRIPTOR):
            actual = proto_class()
            proto.Unpack(actual)
            return cls.experimental_from_proto(actual)
    raise ValueError(f"Can not deserialize proto of url {proto.type_url!r} since no matching Python class could "
                     "be found.")
