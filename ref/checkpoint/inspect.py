"""``python -m ref inspect-checkpoint PATH [--tensor NAME] [--all] [--all_tensor_names]``

Lists the tensors of a checkpoint like TF's ``inspect_checkpoint`` tool
(tensorflow/python/tools/inspect_checkpoint.py): with no flag, one line per
tensor ``name (DT_FLOAT) [2,3]``; ``--tensor NAME`` prints that tensor's
dtype, shape and value; ``--all`` prints every tensor's value;
``--all_tensor_names`` lists ``tensor: name (dtype) shape`` without values.
Then the total number of parameters. PATH is a checkpoint prefix (V2), a V1
file, or a directory (its latest checkpoint).
"""
from __future__ import annotations

import argparse
import os
import re
import sys

import numpy as np

from ref.types import cli, errors
from ref.formats import checkpoint_reader as _reader, checkpoint_state as state


def count_total_params(reader, count_exclude_pattern: str = "") -> int:
    """Sum of the element counts of every variable whose name does not match
    ``count_exclude_pattern``."""
    shapes = reader.get_variable_to_shape_map()
    if count_exclude_pattern:
        regex = re.compile(count_exclude_pattern)
        shapes = {k: v for k, v in shapes.items() if not regex.search(k)}
    return int(sum(int(np.prod(s, dtype=np.int64)) for s in shapes.values()))


def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors, all_tensor_names=False,
                                     count_exclude_pattern="", out=print, err=None) -> bool:
    """Prints tensors in a checkpoint file; returns False on error (after
    printing the error and, for a V2 file name given instead of its prefix,
    the prefix to try) -- through ``err(lines)`` when given, else ``out``."""
    def fail(*lines):
        if err is not None:
            err(lines)
        else:
            for line in lines:
                out(line)
        return False

    try:
        reader = _reader.NewCheckpointReader(file_name)
        if all_tensors or all_tensor_names:
            shapes = reader.get_variable_to_shape_map()
            types = reader.get_variable_to_dtype_map()
            for key in sorted(shapes):
                out(f"tensor: {key} ({types[key].name}) {shapes[key]}")
                if all_tensors:
                    out(str(reader.get_tensor(key)))
        elif not tensor_name:
            out(reader.debug_string().decode("utf-8", errors="ignore"))
        else:
            if not reader.has_tensor(tensor_name):
                return fail(f"Tensor {tensor_name} not found in checkpoint")
            shapes = reader.get_variable_to_shape_map()
            types = reader.get_variable_to_dtype_map()
            out(f"tensor: {tensor_name} ({types[tensor_name].name}) {shapes[tensor_name]}")
            out(str(reader.get_tensor(tensor_name)))
        out(f"# Total number of params: {count_total_params(reader, count_exclude_pattern)}")
        return True
    except (errors.OpError, ValueError, OSError) as e:
        lines = [getattr(e, "message", None) or str(e)]
        if isinstance(e, errors.DataLossError) and any(s in file_name for s in (".index", ".meta", ".data")):
            proposed = ".".join(file_name.split(".")[:-1])
            lines.append("It's likely that this is a V2 checkpoint and you need to provide the filename *prefix*.  "
                         f"Try removing the '.' and all following characters from the file name, and try again: "
                         f"{proposed}")
        return fail(*lines)


def _regex(text):
    try:
        re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"invalid regular expression {text!r}: {e}") from None
    return text


def main(argv=None) -> int:
    parser = cli.Parser(prog="python -m ref inspect-checkpoint",
                                     description="List (and print) the tensors of a checkpoint.")
    parser.add_argument("path", help="checkpoint prefix, V1 file, or directory with a 'checkpoint' file")
    parser.add_argument("--tensor", "--tensor_name", dest="tensor", default="", help="print this tensor")
    parser.add_argument("--all", "--all_tensors", dest="all", action="store_true", help="print every tensor")
    parser.add_argument("--all_tensor_names", action="store_true", help="list names, dtypes and shapes")
    parser.add_argument("--count_exclude_pattern", default="", type=_regex,
                        help="regex of variables not counted")
    args = parser.parse_args(argv)
    path = args.path
    if os.path.isdir(path):
        latest = state.latest_checkpoint(path)
        if latest is None:
            print(f"error: no checkpoint found in directory {path}", file=sys.stderr)
            return 1
        path = latest
    np.set_printoptions(threshold=1000)
    def err(lines):
        text = "; ".join(" ".join(line.split()) for line in lines)
        print(f"error: {text}", file=sys.stderr)

    ok = print_tensors_in_checkpoint_file(path, args.tensor, args.all, args.all_tensor_names,
                                          args.count_exclude_pattern, err=err)
    return 0 if ok else 1
