"""Gradients of the logging and script ops: ``Print`` passes its input's
gradient through (TF's rule); Assert, PrintV2, StringFormat, MatchingFiles and the PyFunc
ops have none (as in TF)."""
from __future__ import annotations

from ref.grad.registry import NotDifferentiable, RegisterGradient

for _t in ("Assert", "PrintV2", "StringFormat", "PyFunc", "PyFuncStateless", "MatchingFiles", "Timestamp"):
    NotDifferentiable(_t)


@RegisterGradient("Print")
def _print_grad(op, *grads):
    return list(grads) + [None] * (len(op.inputs) - 1)
