"""Logging and assertion kernels: Assert, Print, PrintV2, and TF's
``Tensor::SummarizeValue`` text they use.

``SummarizeValue(t, n)``: the first ``n`` elements in row-major order, each
innermost row space-separated and every other dimension bracketed, with
``...`` where elements were left out; a scalar is its element alone. Floats
print with ``%.6g`` (``%.15g`` for doubles) unless that does not round-trip,
then ``%.9g`` (``%.17g``); bools as 1/0; strings as their bytes.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from ref.ops.registry import register_op, invalid_argument
from ref.types import dtypes
from ref.types.shapes import TensorShape


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
            ord("\\"): "\\\\"}


def c_escape(b: bytes) -> str:
    """TF's ``CEscape``: quotes, backslashes and \\n \\r \\t escaped, other
    non-printable bytes as octal ``\\ooo``."""
    return "".join(_ESCAPES.get(c) or (chr(c) if 32 <= c < 127 else "\\%03o" % c) for c in b)


def format_element(x) -> str:
    """One element as TF's ``PrintOneElement`` writes it (strings C-escaped)."""
    if isinstance(x, (bytes, np.bytes_)):
        return c_escape(bytes(x))
    if isinstance(x, str):
        return c_escape(x.encode())
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, (np.floating, float)):
        if isinstance(x, np.float16) or x.__class__.__name__ == "bfloat16":
            x = np.float32(x)
        short, long_ = (6, 9) if isinstance(x, np.float32) else (15, 17)
        if np.isnan(x):
            return "nan" if not np.signbit(x) else "-nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        s = "%.*g" % (short, float(x))
        if type(x)(float(s)) != x:
            s = "%.*g" % (long_, float(x))
        return s
    if isinstance(x, (np.complexfloating, complex)):
        return f"({format_element(x.real)},{format_element(x.imag)})"
    return str(x)


def summarize(value, limit=3) -> str:
    """TF's ``Tensor::SummarizeValue(limit)`` (``limit < 0``: every element)."""
    a = np.asarray(value)
    n = a.size
    if limit < 0 or limit > n:
        limit = n
    flat = a.reshape(-1)
    if a.ndim == 0:
        return format_element(flat[0])
    out, idx = [], [0]

    def one_dim(d):
        if idx[0] >= limit:
            return
        if d == a.ndim - 1:
            for i in range(a.shape[d]):
                if idx[0] >= limit:
                    if d != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(format_element(flat[idx[0]]))
                idx[0] += 1
            return
        for _ in range(a.shape[d]):
            opened = idx[0] < limit
            if opened:
                out.append("[")
            one_dim(d + 1)
            if idx[0] < limit or opened:
                out.append("]")

    one_dim(0)
    if limit < n:
        out.append("...")
    return "".join(out)


def _no_outputs(ins, attrs):
    return []


@register_op("Assert", inputs=("condition", "data"), outputs=(), list_inputs={"data": None},
             attrs={"summarize": 3, "T": None}, shape=_no_outputs, stateful=True)
def assert_(condition, data, summarize=3, T=None):  # noqa: N803 - TF's attr: the data's dtypes
    """Nothing when ``condition`` (a scalar bool) holds; else InvalidArgumentError
    ``"assertion failed: [d0] [d1] ..."`` with each ``data`` tensor summarized
    to its first ``summarize`` elements."""
    cond = np.asarray(condition)
    if cond.ndim != 0:
        raise invalid_argument(f"In[0] should be a scalar: {_shape_str(cond.shape)}")
    if not bool(cond):
        raise invalid_argument("assertion failed: " + " ".join(
            f"[{_summarize(d, summarize)}]" for d in data))
    return ()


_summarize = summarize


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


@register_op("Print", inputs=("input", "data"), outputs=("output",), list_inputs={"data": None},
             type_lists={"U": "data"},
             attrs={"message": "", "first_n": -1, "summarize": 3}, type_attrs={"T": "input"},
             stateful=True, ctx=True)
def print_(input, data, message="", first_n=-1, summarize=3, ctx=None):
    """``input``, after writing ``message`` followed by ``[summary]`` of each
    ``data`` tensor to stderr (the first ``first_n`` runs of this op only, when
    ``first_n >= 0``)."""
    if first_n >= 0 and ctx is not None:
        key = ("Print", getattr(ctx, "op_name", None))
        count = ctx.resources.get(key, 0)
        if count >= first_n:
            return input
        ctx.resources[key] = count + 1
    sys.stderr.write(message + "".join(f"[{_summarize(d, summarize)}]" for d in data) + "\n")
    sys.stderr.flush()
    return input


def format_v2(value, limit=3) -> str:
    """A tensor as ``tf.print`` writes it: NumPy-like nested brackets (rows on
    new lines, blank lines between blocks of rank 3 and up), strings quoted,
    the middle of any dimension longer than ``2 * limit`` elided."""
    a = np.asarray(value)

    def elem(x):
        if isinstance(x, (bytes, np.bytes_, str)):
            return '"' + format_element(x) + '"'
        return format_element(x)

    if a.ndim == 0:
        return elem(a[()])

    def rec(sub, depth):
        if sub.ndim == 1:
            items = [elem(x) for x in sub]
            if 0 <= limit and len(items) > 2 * limit:
                items = items[:limit] + ["..."] + items[-limit:]
            return "[" + " ".join(items) + "]"
        parts = [rec(sub[i], depth + 1) for i in range(sub.shape[0])]
        if 0 <= limit and len(parts) > 2 * limit:
            parts = parts[:limit] + ["..."] + parts[-limit:]
        return "[" + ("\n" * (sub.ndim - 1) + " " * (depth + 1)).join(parts) + "]"

    return rec(a, 0)


@register_op("PrintV2", inputs=("input",), outputs=(), attrs={"output_stream": "stderr", "end": "\n"},
             shape=_no_outputs, stateful=True)
def print_v2(input, output_stream="stderr", end="\n"):
    """Writes the string scalar ``input`` followed by ``end`` to ``output_stream``
    (``stdout``; ``stderr`` and the ``log(info)``/``log(warning)``/``log(error)``
    levels go to stderr; ``file://path`` appends to a file)."""
    x = np.asarray(input).reshape(-1)[0]
    text = (x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)) + end
    if output_stream.startswith("file://"):
        with open(output_stream[len("file://"):], "a") as f:
            f.write(text)
    else:
        stream = sys.stdout if output_stream == "stdout" else sys.stderr
        stream.write(text)
        stream.flush()
    return ()


@register_op("StringFormat", inputs=("inputs",), outputs=("output",), list_inputs={"inputs": None},
             type_lists={"T": "inputs"},
             attrs={"template": "%s", "placeholder": "%s", "summarize": 3},
             shape=lambda ins, attrs: [(dtypes.string, ())])
def string_format(inputs, template="%s", placeholder="%s", summarize=3):
    """``template`` with each ``placeholder`` replaced by the next input, formatted
    as ``tf.print`` does."""
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise invalid_argument(f"num placeholders in template and num inputs must match: "
                               f"{len(pieces) - 1} vs. {len(inputs)}")
    out = pieces[0]
    for x, rest in zip(inputs, pieces[1:]):
        out += format_v2(x, summarize) + rest
    return np.asarray(out.encode(), dtype=object)


@register_op("Timestamp", inputs=(), outputs=("ts",), stateful=True,
             shape=lambda ins, attrs: [(dtypes.float64, TensorShape([]))])
def timestamp():
    """Seconds since the Unix epoch, as a float64 with microseconds (``tf.timestamp``)."""
    return np.float64(time.time())
