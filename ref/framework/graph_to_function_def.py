"""A function graph as a FunctionDef, as TensorFlow's C API writes it
(``GraphToFunctionDef``, used by TF's ``framework/graph_to_function_def`` and
``Defun``): output args named after their nodes (lower-cased, made unique),
input args after their placeholders, body nodes keep their names (made unique
against those), inputs ``node:output_arg:i``, control inputs sorted; the name
``<base>_<hash>`` from TF's ``FunctionDefHash`` (tsl's ``Hash64`` over the
signature, node_defs, ``ret``), its 8 bytes in web-safe base64.
"""
from __future__ import annotations

import base64
import struct
import types

from ref.types import errors
from ref.types.shapes import TensorShape
from ref.protos import function_pb2, tensor_pb2
from ref.formats.tensor_util import make_ndarray
from ref.framework import graph_export

__all__ = ["function_def_hash", "function_def_of", "graph_to_function_def", "hashed_name"]

# ops ref's registry marks stateful (so the Session never folds them) that TF's op defs do not
_NOT_STATEFUL_IN_TF = frozenset(("Placeholder", "PlaceholderWithDefault"))

_M64 = (1 << 64) - 1
_SEED = 0xDECAFCAFFE


# -- TF's hash of a FunctionDef (tsl Hash64, FunctionDefHash) -------------------

def _hash64(data: bytes, seed: int = _SEED) -> int:
    """tsl's ``Hash64`` (a MurmurHash64A variant) of ``data``."""
    m, r = 0xc6a4a7935bd1e995, 47
    n = len(data)
    h = (seed ^ (n * m)) & _M64
    full = n - n % 8
    for i in range(0, full, 8):
        k = struct.unpack_from("<Q", data, i)[0]
        k = (k * m) & _M64
        k ^= k >> r
        k = (k * m) & _M64
        h ^= k
        h = (h * m) & _M64
    rest = data[full:]
    if rest:
        for i in range(len(rest) - 1, -1, -1):
            h ^= rest[i] << (8 * i)
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    h ^= h >> r
    return h


def _combine(a: int, b: int) -> int:
    return (a ^ ((b + 0x9e3779b97f4a7800 + ((a << 10) & _M64) + (a >> 4)) & _M64)) & _M64


def _det(msg) -> bytes:
    return msg.SerializeToString(deterministic=True)


def _tensor_hash(tp) -> int:
    """TF's ``TensorProtoHash``: the tensor re-encoded as ``tensor_content``."""
    arr = make_ndarray(tp)
    out = tensor_pb2.TensorProto(dtype=tp.dtype)
    out.tensor_shape.SetInParent()
    for d in arr.shape:
        out.tensor_shape.dim.add().size = d
    if arr.dtype.kind in "OSU":
        out.string_val.extend(x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1))
    elif arr.size:
        out.tensor_content = arr.tobytes()
    return _hash64(_det(out))


def _attr_hash(av) -> int:
    if av.HasField("tensor"):
        return _tensor_hash(av.tensor)
    if av.HasField("func"):
        h = _hash64(av.func.name.encode())
        for k in sorted(av.func.attr):
            h = _hash64(k.encode(), h)
            h = _combine(_attr_hash(av.func.attr[k]), h)
        return h
    return _hash64(_det(av))


def _node_hash(nd) -> int:
    h = _hash64(nd.name.encode())
    h = _hash64(nd.op.encode(), h)
    h = _hash64(nd.device.encode(), h)
    inputs = list(nd.input)
    first_control = next((i for i, s in enumerate(inputs) if s.startswith("^")), len(inputs))
    for s in inputs[:first_control]:
        h = _hash64(s.encode(), h)
    for s in sorted(set(inputs[first_control:])):
        h = _hash64(s.encode(), h)
    for k in sorted(a for a in nd.attr if not a.startswith("_")):
        h = _hash64(k.encode(), h)
        h = _combine(_attr_hash(nd.attr[k]), h)
    return h


def function_def_hash(fdef) -> int:
    """TF's ``FunctionDefHash`` (the signature has no attrs or control outputs here)."""
    sig = type(fdef.signature)()
    sig.CopyFrom(fdef.signature)
    del sig.attr[:]
    del sig.control_output[:]
    h = _hash64(_det(sig), _SEED)
    for k in sorted(fdef.attr):
        if fdef.attr[k].WhichOneof("value") is not None:
            h = _hash64(k.encode(), h)
            h = _combine(_attr_hash(fdef.attr[k]), h)
    nh = _SEED
    for nd in sorted(fdef.node_def, key=lambda n: n.name):
        nh = _hash64(nd.name.encode(), nh)
        nh = _combine(_node_hash(nd), nh)
    h = _combine(nh, h)
    for k in sorted(fdef.ret):
        h = _hash64(k.encode(), h)
        h = _hash64(fdef.ret[k].encode(), h)
    for k in sorted(fdef.control_ret):
        h = _hash64(k.encode(), h)
        h = _hash64(fdef.control_ret[k].encode(), h)
    return h


def hashed_name(base, fdef) -> str:
    """``<base>_<hash>``: the hash's 8 bytes (little-endian) in web-safe base64
    without padding, ``-`` -> ``a``, ``_`` -> ``A`` (TF's ``GraphToFunctionDef``)."""
    enc = base64.urlsafe_b64encode(struct.pack("<Q", function_def_hash(fdef))).decode().rstrip("=")
    return f"{base}_{enc.replace('-', 'a').replace('_', 'A')}"



def _normalize(name):
    """TF's ``NodeNameMapping::Normalize``: lower case, non-alphanumerics -> ``_``,
    leading non-letters dropped."""
    s = "".join(c.lower() if c.isascii() and c.isalnum() else "_" for c in name)
    i = next((k for k, c in enumerate(s) if c.isascii() and c.isalpha()), None)
    return "unknown" if not s or i is None else s[i:]


class _Names:
    """TF's ``NodeNameMapping``: names made unique with ``_0``, ``_1``, ..."""

    def __init__(self):
        self.used, self.mapping = {}, {}

    def unique(self, name):
        if name not in self.used:
            self.used[name] = 0
            return name
        while True:
            cand = f"{name}_{self.used[name]}"
            self.used[name] += 1
            if cand not in self.used:
                self.used[cand] = 0
                return cand


def graph_to_function_def(graph, operations, inputs, outputs, out_names=None):
    """TF's ``graph_to_function_def``: the FunctionDef (unnamed) of ``operations``
    of ``graph`` taking ``inputs`` (tensors) and returning ``outputs``."""
    body = types.SimpleNamespace(inputs=list(inputs), outputs=list(outputs),
                                 get_operations=lambda: list(operations))
    return function_def_of(body, out_names)[0]


def function_def_of(fg, out_names=None, description=None):
    """The FunctionDef of Defun graph ``fg`` as TF's C API writes it (unnamed:
    the caller names it), and the library of the functions its ops use."""
    fdef = function_pb2.FunctionDef()
    library = graph_export.scratch_library()
    seen = {}
    if description:
        fdef.signature.description = description
    names = _Names()
    if out_names:
        if len(out_names) != len(fg.outputs):
            raise errors.InvalidArgumentError(
                None, None, f"output names must be either empty or equal in size to outputs. output names size = "
                f"{len(out_names)} outputs size = {len(fg.outputs)}")
        for n in out_names:
            if n in names.used:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot have duplicate output names. Name '{n}' appears more than once in "
                    "'output_names' array.")
            names.used[n] = 0
    out_arg_names = list(out_names) if out_names else [names.unique(_normalize(t.op.name)) for t in fg.outputs]
    for n, t in zip(out_arg_names, fg.outputs):
        fdef.signature.output_arg.add(name=n, type=t.dtype.base_dtype.as_datatype_enum)
    renamed = {}
    for i, t in enumerate(fg.inputs):
        a = names.unique(_normalize(t.op.name))
        names.mapping[t.op.name] = a
        fdef.signature.input_arg.add(name=a, type=t.dtype.base_dtype.as_datatype_enum)
        shape = t.op._attrs.get("shape")
        fdef.arg_attr[i].attr["_output_shapes"].list.shape.add().CopyFrom(TensorShape(shape).as_proto())
        renamed[id(t)] = a
    args = {id(t.op) for t in fg.inputs}
    body = [op for op in fg.get_operations() if id(op) not in args]
    for op in body:
        names.mapping[op.name] = names.unique(op.name)

    def fref(t):
        if id(t) in renamed:
            return renamed[id(t)]
        out, idx = graph_export._out_arg(t.op, t.value_index)
        return f"{names.mapping[t.op.name]}:{out}:{idx}"

    fref.local = graph_export._local_function
    stateful = False
    for op in body:
        for nd in graph_export._node_defs(op, library, seen, fref):
            controls = sorted(c.name for c in op._control_inputs if id(c) not in args)
            del nd.input[len(nd.input) - len(op._control_inputs):]
            nd.input.extend("^" + names.mapping[c] for c in controls)
            nd.name = names.mapping.get(op.name, nd.name)
            nd.attr.pop("_class", None)
            fdef.node_def.add().CopyFrom(nd)
        stateful = stateful or (op._opdef.stateful and op.type not in _NOT_STATEFUL_IN_TF)
    if stateful:
        fdef.signature.is_stateful = True
    for n, t in zip(out_arg_names, fg.outputs):
        fdef.ret[n] = fref(t)
    return fdef, library
