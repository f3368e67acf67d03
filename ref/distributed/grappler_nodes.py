"""TensorFlow master partitions hold Grappler's fused nodes: spelled out as ref's ops.

A TensorFlow master runs Grappler before it partitions, and its CPU remapper puts
internal ops of TF's own kernels into the partitions it registers on every task:
``_FusedMatMul`` (MatMul, then BiasAdd, then optionally an Add and an activation)
is what ``tf.matmul(x, w) + b`` followed by ``tf.tanh`` becomes. ``ref`` registers
only public ops, so a worker expands each such node into the public ops it fuses
before importing the partition; the last of them keeps the node's name, so its
consumers and ``_Send`` nodes find it. An unknown fused op is an UnimplementedError
naming it.
"""
from __future__ import annotations

from ref.types import errors
from ref.protos import node_def_pb2

__all__ = ["expand"]

_ACTIVATIONS = ("Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Tanh", "Sigmoid")


def expand(nodes, where=""):
    """``nodes`` (NodeDefs) with each ``_FusedMatMul`` spelled out as MatMul, BiasAdd, ..."""
    out = []
    for n in nodes:
        if n.op == "_FusedMatMul":
            out.extend(_fused_matmul(n, where))
        else:
            out.append(n)
    return out


def _node(name, op, inputs, device, dtype_attr):
    nd = node_def_pb2.NodeDef(name=name, op=op, device=device)
    nd.input.extend(inputs)
    nd.attr["T"].CopyFrom(dtype_attr)
    return nd


def _fused_matmul(n, where):
    fused = [s.decode() for s in n.attr["fused_ops"].list.s]
    data = [i for i in n.input if not i.startswith("^")]
    control = [i for i in n.input if i.startswith("^")]
    a, b, args = data[0], data[1], data[2:]
    steps = list(fused)
    if not steps or steps[0] != "BiasAdd" or any(s not in ("BiasAdd", "Add", "AddV2") + _ACTIVATIONS
                                                 for s in steps) or steps.count("BiasAdd") != 1:
        raise errors.UnimplementedError(
            None, None, f"{{{{node {n.name}}}}} (_FusedMatMul with fused_ops {fused}){where}: ref's workers "
                        "expand MatMul + BiasAdd [+ Add] [+ Relu, Relu6, Elu, Selu, LeakyRelu, Tanh, Sigmoid] only")
    t = n.attr["T"]
    mm = _node(f"{n.name}/_fused/MatMul", "MatMul", [a, b] + control, n.device, t)
    for k in ("transpose_a", "transpose_b"):
        if k in n.attr:
            mm.attr[k].CopyFrom(n.attr[k])
    chain, last, arg = [mm], mm.name, 0
    for k, step in enumerate(steps):
        name = n.name if k == len(steps) - 1 else f"{n.name}/_fused/{step}"
        if step == "BiasAdd":
            nd = _node(name, "BiasAdd", [last, args[arg]], n.device, t)
            arg += 1
        elif step in ("Add", "AddV2"):
            nd = _node(name, "AddV2", [last, args[arg]], n.device, t)
            arg += 1
        else:
            nd = _node(name, step, [last], n.device, t)
            if step == "LeakyRelu" and "leakyrelu_alpha" in n.attr:
                nd.attr["alpha"].CopyFrom(n.attr["leakyrelu_alpha"])
        chain.append(nd)
        last = nd.name
    return chain
