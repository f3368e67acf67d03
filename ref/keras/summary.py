"""``Model.summary()``: Keras 2's table (``layer_utils.print_summary``): one
row per layer (name and class, output shape, parameter count; for a
non-sequential graph also the inbound layers), then the totals with their
memory size."""
from __future__ import annotations

import numpy as np

__all__ = ["print_summary"]


def _memory(weights):
    return sum(int(np.prod(w.shape.as_list())) * w.dtype.base_dtype.size for w in {id(w): w for w in weights}.values()
               if None not in w.shape.as_list())


def _readable(size):
    for unit in ("Byte", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _count(weights):
    return int(sum(np.prod(w.shape.as_list()) for w in {id(w): w for w in weights}.values()))


def _print_row(print_fn, fields, positions):
    left = [str(x) for x in fields]
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col > 0 else 0
            space = 2 if col != len(positions) - 1 else 0
            cutoff = positions[col] - start - space - (1 if col != len(positions) - 1 else 0)
            fit = left[col][:cutoff]
            breaks = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if fit.find(x) >= 0]
            if breaks:
                cutoff = min(breaks)
                fit = fit[:cutoff]
            if col == 0:
                line += " "
            line += fit + (" " * space if space else "")
            left[col] = left[col][cutoff:]
            line += " " * (positions[col] - len(line))
        print_fn(line)


def _output_shape(layer):
    try:
        return layer.output_shape
    except AttributeError:
        return "multiple"


def print_summary(model, line_length=None, positions=None, print_fn=None):
    print_fn = print_fn or print
    sequential_like = model.is_sequential_like()
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.70, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    _print_row(print_fn, header, positions)
    print_fn("=" * line_length)
    layers = model.layers
    for layer in layers:
        fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer), layer.count_params()]
        if not sequential_like:
            fields.append(model.connections_of(layer))
        _print_row(print_fn, fields, positions)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable, frozen = model.trainable_weights, model.non_trainable_weights
    t_mem, n_mem = _memory(trainable), _memory(frozen)
    print_fn(f"Total params: {_count(trainable) + _count(frozen)} ({_readable(t_mem + n_mem)})")
    print_fn(f"Trainable params: {_count(trainable)} ({_readable(t_mem)})")
    print_fn(f"Non-trainable params: {_count(frozen)} ({_readable(n_mem)})")
    print_fn("_" * line_length)
