"""Function graphs: the bodies of ``while_loop`` and the branches of ``cond``.

A ``FuncGraph`` is a Graph built inside another. Its arguments are
placeholders (``inputs``); a tensor of an enclosing graph used inside it is
*captured*: a placeholder stands in for it and the outer tensor becomes an
extra input of the control-flow op, so the op's dependencies stay explicit and
the enclosing graph stays a DAG. The Session runs a FuncGraph by feeding its
inputs and fetching its ``outputs``.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import Graph, Tensor, Operation, get_default_graph
from ref.ops import registry
from ref.framework.op_def_library import apply_op
from ref.types.shapes import TensorShape


class FuncGraph(Graph):
    """A graph for a function body, with captured outer tensors."""

    def __init__(self, name, outer_graph):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self._building_function = True
        self.inputs = []        # argument placeholders, then capture placeholders
        self.outputs = []
        self.targets = []       # ops run for their effects (control outputs)
        self.captures = []      # (outer tensor, inner placeholder)
        self.control_captures = []  # outer ops named in a control_dependencies block inside
        self.foreign_captures = []  # captured tensors of graphs that do not enclose this one
        self._capture_map = {}
        self.seed = outer_graph.seed
        self._collections = outer_graph._collections  # variables created inside are the outer graph's

    def add_argument(self, dtype, shape, name):
        with self.as_default():
            t = apply_op("Placeholder", dtype=dtypes.as_dtype(dtype), shape=TensorShape(shape), name=name)
        self.inputs.append(t)
        return t

    def capture(self, tensor: Tensor) -> Tensor:
        """The placeholder standing for outer ``tensor`` inside this graph."""
        if tensor.graph is self:
            return tensor
        if not self.encloses(tensor.graph) and tensor not in self.foreign_captures:
            self.foreign_captures.append(tensor)  # e.g. one cond branch's tensor used in the other
        outer = tensor
        if isinstance(self.outer_graph, FuncGraph) and tensor.graph is not self.outer_graph:
            outer = self.outer_graph.capture(tensor)
        key = id(outer)
        if key in self._capture_map:
            return self._capture_map[key][1]
        with self.as_default(), self.name_scope(None):
            ph = apply_op("Placeholder", dtype=outer.dtype, shape=outer.shape,
                          name=outer.op.name.replace("/", "_") + "_capture")
        self._capture_map[key] = (outer, ph)
        self.captures.append((outer, ph))
        self.inputs.append(ph)
        return ph

    def encloses(self, graph) -> bool:
        """Whether ``graph`` is this graph's outer graph, or that one's, and so on."""
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def control_dependencies(self, control_inputs):
        """As Graph's, except that an op (or a tensor's op) of an enclosing
        graph is not made a control input of ops inside: it is recorded in
        ``control_captures`` and the control-flow op built from this graph
        depends on it instead (TF's FuncGraph)."""
        if control_inputs is None:
            return super().control_dependencies(None)
        kept = []
        for c in control_inputs:
            el = c._as_graph_element() if hasattr(c, "_as_graph_element") and \
                not isinstance(c, (Tensor, Operation)) else c
            op = el if isinstance(el, Operation) else getattr(el, "op", None)
            if isinstance(op, Operation) and op.graph is not self:
                if op not in self.control_captures:
                    self.control_captures.append(op)
            else:
                kept.append(c)
        return super().control_dependencies(kept)

    @property
    def external_captures(self):
        return [c[0] for c in self.captures]


def copy_ops(src: FuncGraph, mapping: dict) -> dict:
    """Rebuilds the ops of ``src`` in the default graph, with ``src``'s input
    placeholders replaced per ``mapping`` (src tensor -> tensor); returns the
    full src-tensor -> new-tensor map (used to differentiate a body by
    re-tracing it inside a gradient function)."""
    tmap = dict(mapping)
    for op in src.get_operations():
        if all(t in tmap for t in op._outputs):
            continue
        named = op.named_inputs()
        kwargs = {}
        for in_name, v in named.items():
            kwargs[in_name] = [tmap[t] for t in v] if isinstance(v, list) else tmap[v]
        for k in op._opdef.attrs:
            if k in op._attrs:
                kwargs[k] = op._attrs[k]
        try:
            registry.get(op.type)
        except LookupError:  # an op with its own declaration (a Defun call): rebuilt from it
            ins = [tmap[t] for t in op._inputs]
            new = get_default_graph().create_op(op.type, ins, op._attrs, op.name.split("/")[-1], [
                (t.dtype, t.shape) for t in op._outputs], op._opdef)
            tmap.update(zip(op._outputs, new._outputs))
            continue
        res = apply_op(op.type, name=op.name.split("/")[-1], **kwargs)
        if isinstance(res, Operation):
            continue
        outs = [res] if not isinstance(res, (list, tuple)) else list(res)
        for old, new in zip(op._outputs, outs):
            tmap[old] = new
    return tmap
