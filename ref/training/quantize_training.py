"""``tf.train.do_quantize_training_on_graphdef``: the GraphDef rewrite of TF's
``core/common_runtime/quantize_training.cc`` (TF 1.x quantized training).

Every float input of a ``MatMul`` or ``Conv2D`` (nodes whose name starts with
``gradients`` are left alone) is routed through a ``QuantizeAndDequantizeV2``
(``range_given=True``) named ``<input>/QuantizeAndDequantizeV2``. Its range:

* constants for a producer of known range (``Relu6`` [0, 6], ``Sigmoid``
  [0, 1], ``Tanh`` [-1, 1]): ``<input>/InputMin``, ``<input>/InputMax``;
* otherwise a moving average of the input's min and max, in two new scalar
  ``VariableV2`` s (``<input>/Min/Variable``, ``<input>/Max/Variable``) that
  initialize themselves on the first run::

      v <- input_min                        if v is not initialized
      v <- v - (v - input_min) * (1 - 0.999)  otherwise

  built from ``IsVariableInitialized``, ``Switch``, ``Merge`` and ``Assign``.

``signed_input`` is False under ``Relu``, ``Relu6`` and ``Sigmoid``; through
``Identity``, pooling, ``Reshape`` and ``ConcatV2`` (first input) the producer
further up decides. More than two inputs of any other kind (``Placeholder``,
``Sin``, ...) is ``NotImplementedError``, as TF. When the graph has a
``SaveV2`` (a ``Saver``), the new variables are added to it and each gets a
``RestoreV2`` + ``Assign`` under ``<save>/restore_all``.

The result lists the input's nodes (in a topological order, the input's order
where it is one) then the new ones, each node's control inputs sorted, as TF's
``Graph.ToGraphDef``. Unlike TF, the input's nodes do not gain the default
values of attrs they omit (TF adds them when it imports the GraphDef), and
string constants are written as ``string_val`` (TF packs several into
``tensor_content``; both read back the same).
"""
from __future__ import annotations

import heapq

import numpy as np

from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.protos import graph_pb2, node_def_pb2
from ref.types import dtypes

__all__ = ["do_quantize_training_on_graphdef"]

_REWRITE = ("MatMul", "Conv2D")
_ALLOWED_INPUTS = 2
_EMA_DECAY = 0.999


class _Node:
    """A node being rewritten: its NodeDef plus parsed data and control inputs."""

    def __init__(self, node_def):
        self.nd = node_def
        self.data = []  # [(src name, port)]
        self.control = []  # [src name]
        for s in node_def.input:
            if s.startswith("^"):
                self.control.append(s[1:])
            else:
                name, _, port = s.partition(":")
                self.data.append((name, int(port) if port else 0))

    @property
    def name(self):
        return self.nd.name

    @property
    def op(self):
        return self.nd.op


class _Graph:
    """Nodes by creation order (TF's node ids) and by name."""

    def __init__(self, graph_def):
        nodes = [_Node(n) for n in graph_def.node]
        self.nodes = []
        self.by_name = {}
        for n in _topological(nodes):
            self._add(n)
        self.name_counter = 0

    def _add(self, node):
        self.nodes.append(node)
        self.by_name[node.name] = node
        return node

    def new_name(self, prefix):
        """TF's Graph::NewName: ``prefix/_<counter>``."""
        name = f"{prefix}/_{self.name_counter}"
        self.name_counter += 1
        return name

    def add(self, name, op, data=(), attrs=None):
        nd = node_def_pb2.NodeDef(name=name, op=op)
        for key, value in (attrs or {}).items():
            _set_attr(nd.attr[key], value)
        node = _Node(nd)
        node.data = [(d, 0) if isinstance(d, str) else d for d in data]
        return self._add(node)

    def remove(self, node):
        self.nodes.remove(node)
        del self.by_name[node.name]

    def to_graph_def(self, source):
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(source.versions)
        out.library.CopyFrom(source.library)
        for node in self.nodes:
            nd = out.node.add()
            nd.CopyFrom(node.nd)
            del nd.input[:]
            nd.input.extend(name if port == 0 else f"{name}:{port}" for name, port in node.data)
            nd.input.extend("^" + c for c in sorted(set(node.control)))
        return out


def _topological(nodes):
    """Kahn's algorithm taking the lowest original index first (TF's GraphConstructor)."""
    index = {n.name: i for i, n in enumerate(nodes)}
    pending = [0] * len(nodes)
    users = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        for src in [s for s, _ in n.data] + n.control:
            j = index.get(src)
            if j is None:
                raise ValueError(f"Node '{n.name}': Unknown input node '{src}'")
            pending[i] += 1
            users[j].append(i)
    ready = [i for i, p in enumerate(pending) if p == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(nodes[i])
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(ready, u)
    if len(order) != len(nodes):
        names = sorted(n.name for i, n in enumerate(nodes) if pending[i] > 0)
        raise ValueError(f"GraphDef has a cycle or an unresolved dependency through: {', '.join(names)}")
    return order


def _set_attr(attr, value):
    if isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        attr.i = value
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, dtypes.DType):
        attr.type = value.as_datatype_enum
    elif isinstance(value, np.ndarray):
        attr.tensor.CopyFrom(make_tensor_proto(value))
    elif isinstance(value, list):  # a list of dtypes
        attr.list.SetInParent()
        attr.list.type.extend(d.as_datatype_enum for d in value)
    elif value == ():  # a scalar shape
        attr.shape.SetInParent()
    else:
        raise TypeError(f"no AttrValue for {value!r}")


def _find_type(graph, node):
    """(known, signed_input, range_given, input_min, input_max) of a producer (TF's FindType)."""
    op = node.op
    if op in ("Const", "Variable", "VariableV2"):
        return True, True, False, 0.0, 0.0
    if op == "Relu":
        return True, False, False, 0.0, 0.0
    if op == "Relu6":
        return True, False, True, 0.0, 6.0
    if op == "Sigmoid":
        return True, False, True, 0.0, 1.0
    if op == "Tanh":
        return True, True, True, -1.0, 1.0
    found = (False, False, 0.0, 0.0)
    if op in ("Reshape", "ConcatV2"):
        if node.data:  # the first input decides
            found = _find_type(graph, graph.by_name[node.data[0][0]])[1:]
        return (True,) + found
    if op in ("Identity", "MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D"):
        for src, _ in node.data:
            found = _find_type(graph, graph.by_name[src])[1:]
        return (True,) + found
    return False, True, False, 0.0, 0.0  # unknown: a model input


def _const(graph, name, value, dtype):
    arr = np.asarray(value, dtype=object if dtype == dtypes.string else dtype.np)
    return graph.add(name, "Const", attrs={"value": arr, "dtype": dtype})


def _ema_variable(graph, name, decay, init_val, added):
    """An EMA variable that takes ``init_val`` on its first run (TF's
    MakeInitializedEMAVariable); returns its ``Assign``."""
    var = graph.add(f"{name}/Variable", "VariableV2",
                    attrs={"shape": (), "dtype": dtypes.float32, "container": "", "shared_name": ""})
    added.append(var)
    is_init = graph.add(f"{name}/IsInitialized", "IsVariableInitialized", [var.name], {"dtype": dtypes.float32})
    switch = graph.add(f"{name}/Switch", "Switch", [init_val.name, is_init.name], {"T": dtypes.float32})
    one = _const(graph, f"{name}/EMA/OneConst", 1.0, dtypes.float32)
    complement = graph.add(f"{name}/EMA/DecayComplement", "Sub", [one.name, decay.name], {"T": dtypes.float32})
    diff = graph.add(f"{name}/EMA/ValueDiff", "Sub", [var.name, (switch.name, 1)], {"T": dtypes.float32})
    update = graph.add(f"{name}/EMA/UpdateValue", "Mul", [diff.name, complement.name], {"T": dtypes.float32})
    ema = graph.add(f"{name}/EMA/EMAValue", "Sub", [var.name, update.name], {"T": dtypes.float32})
    merge = graph.add(f"{name}/Merge", "Merge", [switch.name, ema.name], {"T": dtypes.float32, "N": 2})
    return graph.add(f"{name}/AssignValue", "Assign", [var.name, merge.name],
                     {"T": dtypes.float32, "validate_shape": True, "use_locking": True})


def _input_min_max(graph, prefix, src, dtype, range_given, lo, hi, added):
    if range_given:
        return (_const(graph, f"{prefix}/InputMin", lo, dtypes.float32),
                _const(graph, f"{prefix}/InputMax", hi, dtypes.float32))
    decay = _const(graph, f"{prefix}/Decay", _EMA_DECAY, dtypes.float32)
    axes = f"{prefix}/ReductionAxes"
    start = _const(graph, f"{axes}/RangeStart", 0, dtypes.int32)
    delta = _const(graph, f"{axes}/RangeDelta", 1, dtypes.int32)
    rank = graph.add(f"{axes}/InputRank", "Rank", [src.name], {"T": dtype})
    rng = graph.add(f"{axes}/ReductionAxes", "Range", [start.name, rank.name, delta.name], {"Tidx": dtypes.int32})
    reduced = {}
    for red in ("Min", "Max"):
        reduced[red] = graph.add(f"{prefix}/{red}", red, [src.name, rng.name],
                                 {"keep_dims": False, "T": dtype, "Tidx": dtypes.int32})
    return tuple(_ema_variable(graph, f"{prefix}/{red}", decay, reduced[red], added) for red in ("Min", "Max"))


def _add_save_and_restore(graph, added):
    """Adds the new variables to the graph's SaveV2 and restore_all (TF's AddSaveAndRestore)."""
    saves = [n for n in graph.nodes if n.op == "SaveV2"]
    if len(saves) > 1:
        raise ValueError("Input graph has multiple SaveV2 ops.")
    if not saves:
        return
    save = saves[0]
    prefix = save.name[:save.name.rfind("/")] if "/" in save.name else save.name
    restore_all = graph.by_name.get(f"{prefix}/restore_all")
    if restore_all is None:
        raise ValueError("graph has SaveOp, but no restore_all NoOp")
    file_prefix = save.data[0][0]
    for var in added:
        restore_name = graph.new_name(f"{prefix}/RestoreV2") + "_qt"
        assign_name = graph.new_name(f"{prefix}/Assign") + "_qt"
        names = _const(graph, f"{restore_name}/tensor_names", [var.name], dtypes.string)
        slices = _const(graph, f"{restore_name}/shape_and_slices", [""], dtypes.string)
        restore = graph.add(restore_name, "RestoreV2", [file_prefix, names.name, slices.name],
                            {"dtypes": [dtypes.float32]})
        graph.add(assign_name, "Assign", [var.name, restore.name],
                  {"T": dtypes.float32, "validate_shape": True, "use_locking": True})
        restore_all.control.append(assign_name)
    # The SaveV2 is rebuilt with the variables appended (and its tensor_names / shape_and_slices extended).
    names_node, slices_node = graph.by_name[save.data[1][0]], graph.by_name[save.data[2][0]]
    for node, extra in ((names_node, [v.name for v in added]), (slices_node, [""] * len(added))):
        old = [x.decode() if isinstance(x, bytes) else str(x)
               for x in make_ndarray(node.nd.attr["value"].tensor).reshape(-1).tolist()]
        node.nd.attr["value"].tensor.CopyFrom(make_tensor_proto(np.array(old + extra, dtype=object),
                                                                dtype=dtypes.string))
    old_types = list(save.nd.attr["dtypes"].list.type)
    graph.remove(save)
    new_save = graph.add(save.name, "SaveV2", [s for s, _ in save.data] + [v.name for v in added])
    new_save.nd.attr["dtypes"].list.type.extend(old_types + [dtypes.float32.as_datatype_enum] * len(added))


def do_quantize_training_on_graphdef(input_graph, num_bits):
    """A general quantization scheme is being developed in `tf.contrib.quantize`.

    Consider using that instead, though since it is in the tf.contrib namespace,
    it is not subject to backward compatibility guarantees.

    (Deprecated in TF: "GraphDef quantized training rewriter is deprecated in
    the long term.")

    Args:
      input_graph: A `GraphDef`.
      num_bits: The number of bits for quantize training.

    Returns:
      The graph with quantize training done.

    Raises:
      IndexError: ``num_bits`` outside [1, 63] (TF's OutOfRange status).
      NotImplementedError: more than two inputs of the rewritten ops come from
        ops of unknown range (TF's Unimplemented status).
      ValueError: several ``SaveV2`` ops, or one without ``restore_all``.
    """
    source = graph_pb2.GraphDef()
    source.ParseFromString(input_graph.SerializeToString())
    num_bits = int(num_bits)
    if num_bits < 1 or num_bits > 63:
        raise IndexError(f"num_bits should be in range [1, 63] but is: {num_bits}")
    graph = _Graph(source)
    targets = []  # (consumer, input index, source node, signed, range_given, min, max)
    potential_inputs = 0
    for node in list(graph.nodes):
        if node.op not in _REWRITE or node.name.startswith("gradients"):
            continue
        for i, (src, _) in enumerate(node.data):
            producer = graph.by_name[src]
            known, signed, given, lo, hi = _find_type(graph, producer)
            if not known:
                potential_inputs += 1
                if potential_inputs > _ALLOWED_INPUTS:
                    raise NotImplementedError(
                        f"Found an unknown op: {producer.name} with type: {producer.op}; Unknown ops are "
                        f"considered as model input for now and only {_ALLOWED_INPUTS} inputs are supported "
                        "currently.")
            targets.append((node, i, producer, signed, given, lo, hi))
    converted = {}
    added = []
    for node, i, producer, signed, given, lo, hi in targets:
        prefix = producer.name
        quant = converted.get(prefix)
        if quant is None:
            dtype = dtypes.as_dtype(node.nd.attr["T"].type) if "T" in node.nd.attr else dtypes.float32
            lo_node, hi_node = _input_min_max(graph, prefix, producer, dtype, given, lo, hi, added)
            quant = graph.add(f"{prefix}/QuantizeAndDequantizeV2", "QuantizeAndDequantizeV2",
                              [producer.name, lo_node.name, hi_node.name],
                              {"signed_input": signed, "num_bits": num_bits, "range_given": True,
                               "round_mode": "HALF_TO_EVEN", "narrow_range": False, "axis": -1, "T": dtype})
            converted[prefix] = quant
        node.data[i] = (quant.name, 0)
    _add_save_and_restore(graph, added)
    return graph.to_graph_def(source)
