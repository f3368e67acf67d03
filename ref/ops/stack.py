"""Stack kernels: StackV2, StackPushV2, StackPopV2, StackCloseV2 (and TF's
deprecated Stack, StackPush, StackPop, StackClose, whose handle is a string
reference instead of a resource; ref gives them a ``string`` handle, as its
Barrier and v1 queues), and
ControlTrigger, the ops TF 1.x's while-loop gradient saves forward values with
(``control_flow_state``'s accumulators: the forward loop pushes each
iteration's value, the gradient loop pops them in reverse order).

A stack lives for one run: every execution of ``StackV2`` makes a fresh one
and outputs it as the resource handle the other ops take (TF keeps it in the
step's resources).
"""
from __future__ import annotations

import itertools

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op

_IDS = itertools.count()


class Stack:
    """A run's stack of tensors of one dtype; ``max_size`` < 0: unbounded."""

    __slots__ = ("name", "elem_type", "max_size", "items", "closed")

    def __init__(self, name, elem_type, max_size):
        self.name, self.elem_type, self.max_size = name, elem_type, max_size
        self.items, self.closed = [], False

    def __repr__(self):
        return f"Stack({self.name!r}, {len(self.items)} elements)"


def _stack(handle) -> Stack:
    s = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(s, Stack):
        raise invalid_argument(f"Expected a stack handle, got {type(s).__name__}")
    if s.closed:
        raise invalid_argument(f"Stack {s.name} has already been closed.")
    return s


@register_op("StackV2", inputs=("max_size",), outputs=("handle",), attrs={"elem_type": REQUIRED, "stack_name": ""},
             shape=fixed_rule((dtypes.resource, TensorShape([]))), stateful=True)
def stack_v2(max_size, elem_type, stack_name=""):
    """A fresh empty stack holding ``elem_type`` tensors."""
    return Stack(f"{stack_name or 'stack'}_{next(_IDS)}", elem_type, int(max_size))


def _push_shape(ins, attrs):
    return [(ins["elem"].dtype, ins["elem"].shape)]


@register_op("StackPushV2", inputs=("handle", "elem"), outputs=("output",), type_attrs={"T": "elem"},
             attrs={"swap_memory": False}, shape=_push_shape, stateful=True)
def stack_push_v2(handle, elem, swap_memory=False):
    """Pushes ``elem``; outputs it."""
    s = _stack(handle)
    if s.max_size >= 0 and len(s.items) >= s.max_size:
        raise invalid_argument(f"Stack[{s.name}] overflowed its max_size ({s.max_size})")
    s.items.append(elem)
    return elem


def _pop_shape(ins, attrs):
    return [(dtypes.as_dtype(attrs["elem_type"]), TensorShape(None))]


@register_op("StackPopV2", inputs=("handle",), outputs=("elem",), attrs={"elem_type": REQUIRED},
             shape=_pop_shape, stateful=True)
def stack_pop_v2(handle, elem_type):
    """Pops the top element."""
    s = _stack(handle)
    if not s.items:
        raise invalid_argument("Stack is empty.")
    return s.items.pop()


@register_op("StackCloseV2", inputs=("handle",), outputs=(), shape=fixed_rule(), stateful=True)
def stack_close_v2(handle):
    """Closes the stack (drops its elements)."""
    s = _stack(handle)
    s.items.clear()
    s.closed = True
    return ()


# TF's deprecated reference-handle spellings: no max_size input (unbounded), the same kernels.
@register_op("Stack", inputs=(), outputs=("handle",), attrs={"elem_type": REQUIRED, "stack_name": ""},
             shape=fixed_rule((dtypes.string, TensorShape([2]))), stateful=True)
def stack_v1(elem_type, stack_name=""):
    """A fresh empty unbounded stack holding ``elem_type`` tensors (TF's deprecated ``Stack``)."""
    return stack_v2(-1, elem_type, stack_name)


register_op("StackPush", inputs=("handle", "elem"), outputs=("output",), type_attrs={"T": "elem"},
            attrs={"swap_memory": False}, shape=_push_shape, stateful=True)(stack_push_v2)
register_op("StackPop", inputs=("handle",), outputs=("elem",), attrs={"elem_type": REQUIRED},
            shape=_pop_shape, stateful=True)(stack_pop_v2)
register_op("StackClose", inputs=("handle",), outputs=(), shape=fixed_rule(), stateful=True)(stack_close_v2)


@register_op("ControlTrigger", inputs=(), outputs=(), shape=fixed_rule())
def control_trigger():
    """Does nothing; a control input that does not propagate deadness (it runs
    when its control inputs are dead too)."""
    return ()
