"""``tf.GradientTape`` in graph mode (TF1's ``tf.GradientTape``, built on :func:`gradients`).

TF's tape records the operations run while it is active and differentiates through
those alone, with respect to the tensors it watches (``watch``) and the trainable
variables read while it records (``watch_accessed_variables``). In a graph "run"
means "added to the graph", so here the tape remembers which operations were
created while it recorded and builds ``tf.gradients`` ops that stop at any input
made outside the recording: a tensor computed before the tape started, or inside
``stop_recording``, passes no gradient back, as TF's tape does. A source the tape
does not watch gets no gradient (None, or zeros with ``UnconnectedGradients.ZERO``).
Targets, sources and ``output_gradients`` may be nested structures (``nest``); the
result has the structure of ``sources``.
"""
from __future__ import annotations

import contextlib

from ref.framework.graph import Tensor, get_default_graph
from ref.framework.op_def_library import convert_to_tensor
from ref.grad.gradients import UnconnectedGradients, gradients
from ref.graph_ops import array_ops
from ref.types import nest

__all__ = ["GradientTape"]

_READS = ("Identity", "ReadVariableOp")  # a variable's value as its consumers see it


def _source(x):
    """The tensor that stands for ``x`` in a gradient: a variable's handle (or ref)."""
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "_ref") and callable(x._ref):
        return x._ref()
    handle = getattr(x, "handle", None)
    if isinstance(handle, Tensor):
        return handle
    return convert_to_tensor(x)


def _is_variable(x) -> bool:
    return not isinstance(x, Tensor) and (hasattr(x, "_ref") or isinstance(getattr(x, "handle", None), Tensor))


class GradientTape:
    """Records the operations built inside its ``with`` block for differentiation.

    ``persistent``: whether ``gradient`` may be called more than once.
    ``watch_accessed_variables``: trainable variables the recorded operations read are
    watched without ``watch``.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._watched = []           # tensors and variables, in the order watched
        self._spans = []             # (graph, first op id, op id past the last) recorded
        self._open = None            # (graph, first op id) while recording
        self._used = False

    # recording -----------------------------------------------------------------

    def _start(self):
        g = get_default_graph()
        self._open = (g, len(g.get_operations()))

    def _stop(self):
        if self._open is not None:
            g, first = self._open
            self._spans.append((g, first, len(g.get_operations())))
            self._open = None

    def __enter__(self):
        if self._open is not None:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        self._start()
        return self

    def __exit__(self, typ, value, traceback):
        self._stop()
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Operations built inside are not recorded."""
        if self._open is None:
            raise ValueError("Tape must be recording when a context manager is entered. ")
        self._stop()
        try:
            yield
        finally:
            self._start()

    def reset(self):
        """Forgets everything recorded and watched so far (recording goes on inside ``with``)."""
        recording = self._open is not None
        self._stop()
        self._spans, self._watched = [], []
        if recording:
            self._start()

    def watch(self, tensor):
        """Watches ``tensor`` (a tensor, a variable, or a nested structure of them)."""
        for t in nest.flatten(tensor):
            if not (_is_variable(t) or isinstance(t, Tensor)):
                raise ValueError(f"Passed in object {t} of type {type(t).__name__!r}, not tf.Tensor or "
                                 "tf.Variable or ExtensionType.")
            if not any(t is w for w in self._watched):
                self._watched.append(t)

    def watched_variables(self):
        """The variables watched explicitly (accessed ones are found when differentiating)."""
        return tuple(w for w in self._watched if _is_variable(w))

    # differentiating -------------------------------------------------------------

    def _recorded(self, op) -> bool:
        spans = list(self._spans)
        if self._open is not None:
            g, first = self._open
            spans.append((g, first, len(g.get_operations())))
        return any(op.graph is g and first <= op._id < stop for g, first, stop in spans)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of ``target`` (summed over its flattened parts) with respect to each
        of ``sources`` through the recorded operations, in ``sources``' structure."""
        if self._open is not None and not self._persistent:
            self._stop()  # TF: a non-persistent tape stops recording when asked for a gradient
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        self._used = True
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
        flat_targets = [_source(t) for t in nest.flatten(target)]
        flat_sources_raw = nest.flatten(sources)
        flat_sources = [_source(s) for s in flat_sources_raw]
        grad_ys = None
        if output_gradients is not None:
            grad_ys = [None if g is None else convert_to_tensor(g) for g in nest.flatten(output_gradients)]
        source_set = set(flat_sources)
        watched = {_source(w) for w in self._watched}
        stops, recorded_ops = set(), []
        for op in {t.op for t in flat_targets} | self._all_recorded():
            if not self._recorded(op):
                continue
            recorded_ops.append(op)
            for t in op.inputs:
                if t in source_set or self._recorded(t.op):
                    continue
                if t.op.type in _READS and t.op.inputs and t.op.inputs[0] in source_set:
                    continue  # a variable read before the tape: TF's tape sees the variable accessed
                stops.add(t)
        accessed = set()  # what the recorded operations read: tensors, and the variables under reads
        for op in recorded_ops:
            for t in op.inputs:
                accessed.add(t)
                if t.op.type in _READS and t.op.inputs:
                    accessed.add(t.op.inputs[0])
        for y in flat_targets:
            if not self._recorded(y.op) and y not in source_set:
                stops.add(y)
        usable = [s in watched or (self._watch_accessed_variables and _is_variable(raw) and
                                   getattr(raw, "trainable", True) and s in accessed)
                  for raw, s in zip(flat_sources_raw, flat_sources)]
        grads = gradients(flat_targets, flat_sources, grad_ys=grad_ys, stop_gradients=sorted(stops, key=_order),
                          unconnected_gradients=UnconnectedGradients.NONE)
        out = []
        for s, g, ok in zip(flat_sources, grads, usable):
            if not ok:
                g = None
            if g is None and unconnected_gradients == UnconnectedGradients.ZERO:
                g = array_ops.zeros_like(s)
            out.append(g)
        return nest.pack_sequence_as(sources, out)

    def _all_recorded(self):
        ops = set()
        spans = list(self._spans) + ([(self._open[0], self._open[1], len(self._open[0].get_operations()))]
                                     if self._open is not None else [])
        for g, first, stop in spans:
            ops.update(g.get_operations()[first:stop])
        return ops


def _order(t):
    return (t.op._id, t.value_index)
