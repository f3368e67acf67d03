"""``tf.Assert``, ``tf.Print`` and ``tf.print`` (graph mode, TF1)."""
from __future__ import annotations

import sys

from ref.types import dtypes, nest
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import control_flow_ops

__all__ = ["Assert", "Print", "print_v2"]


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Asserts that ``condition`` is true: an op raising InvalidArgumentError
    ``"assertion failed: [d0] [d1] ..."`` when it runs and ``condition`` is
    false; ``data`` tensors are summarized to their first ``summarize``
    (default 3) elements.

    When every ``data`` tensor is int32 or string, returns the ``Assert``
    Operation (``<name>/Assert``). Otherwise, as in compat.v1, the Assert sits
    in the false branch of a cond named ``AssertGuard`` (so ``data`` is only
    summarized when the condition fails) and the returned Operation is
    ``<name>/AssertGuard/Identity``. Either way: run it, or make it a control
    dependency (``with tf.control_dependencies([tf.Assert(...)])``).
    """
    with name_scope(name, "Assert", [condition, data]) as scope:
        xs = [convert_to_tensor(x) for x in data]
        if not xs:
            raise ValueError("Attr 'T' of 'Assert' Op passed list of length 0 less than minimum 1.")
        summarize = 3 if summarize is None else summarize
        if all(x.dtype.base_dtype in (dtypes.string, dtypes.int32) for x in xs):
            _check_condition(convert_to_tensor(condition), scope)
            return apply_op("Assert", condition=condition, data=list(data), summarize=summarize, name="Assert",
                            T=[x.dtype.base_dtype for x in xs])
        condition = _check_condition(convert_to_tensor(condition, name="Condition"), scope)

        def true_assert():
            return apply_op("Assert", condition=condition, data=list(data), summarize=summarize, name="Assert",
                            T=[x.dtype.base_dtype for x in xs])

        guarded = control_flow_ops.cond(condition, control_flow_ops.no_op, true_assert, name="AssertGuard")
        if guarded.op.type == "Merge":  # TF 1.x cond (outside function bodies): the Merge is the guard
            return guarded.op
        with name_scope(scope + "AssertGuard/"):
            return control_flow_ops.identity(guarded, name="Identity").op


def _check_condition(condition, scope):
    """``condition`` if it is a scalar bool; else the errors of TF's op builder."""
    if condition.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"Input 'condition' of 'Assert' Op has type {condition.dtype.base_dtype.name} that "
                        f"does not match expected type of bool.")
    if condition.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {condition.shape.ndims} for '{scope}Assert' "
                         f"(op: 'Assert') with input shapes: {condition.shape}.")
    return condition


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TF's name
    """``input_``, printing ``message`` and ``[summary]`` of each of ``data`` to
    stderr whenever it is evaluated (deprecated in TF: use ``tf.print``)."""
    return apply_op("Print", input=input_, data=list(data), message=message or "",
                    first_n=-1 if first_n is None else first_n, summarize=3 if summarize is None else summarize,
                    name=name or "Print")


def print_v2(*inputs, **kwargs):
    """``tf.print``: an op that prints ``inputs`` (tensors and Python values,
    nested structures flattened as TF formats them) separated by ``sep`` and
    followed by ``end`` to ``output_stream`` (sys.stderr by default) when run."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    summarize = kwargs.pop("summarize", 3)
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    streams = {sys.stderr: "stderr", sys.stdout: "stdout"}
    stream = streams.get(output_stream, output_stream)
    if callable(stream) and getattr(stream, "__name__", "") in ("info", "warning", "warn", "error", "fatal"):
        stream = f"log({'warning' if stream.__name__ == 'warn' else stream.__name__})"  # tf.logging.*
    if not isinstance(stream, str):
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. Supported streams "
                         f"are sys.stdout, sys.stderr, tf.logging.*, or a string of the form `file://<filename>`")
    # TF: no name scope; StringFormat is "<name>_format" (default "StringFormat"), PrintV2 is ``name``
    placeholder = "{}"
    tensors, parts = [], []
    for x in inputs:
        if isinstance(x, Tensor):
            tensors.append(x)
            parts.append(placeholder)
        elif nest.is_nested(x) and any(isinstance(t, Tensor) for t in nest.flatten(x)):
            flat = nest.flatten(x)
            tensors.extend(t for t in flat if isinstance(t, Tensor))
            fmt = nest.pack_sequence_as(x, [placeholder if isinstance(t, Tensor) else t for t in flat])
            parts.append(str(fmt).replace("'{}'", "{}"))
        else:
            parts.append(str(x))
    template = sep.join(parts)
    formatted = apply_op("StringFormat", inputs=tensors, template=template, placeholder=placeholder,
                         summarize=summarize,
                         name=f"{name}_format" if name else "StringFormat")
    return apply_op("PrintV2", input=formatted, output_stream=stream, end=end,
                    name=name or "PrintV2")
