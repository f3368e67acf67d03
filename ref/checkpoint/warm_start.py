"""``tf.train.init_from_checkpoint`` and ``tf.train.warm_start``: variable
initializers that load from a checkpoint.

TF's API reference, ``tf.compat.v1.train.init_from_checkpoint``:
"Replaces tf.Variable initializers so they load from a checkpoint file. Values
are not loaded immediately, but when the initializer is run (typically by
running a tf.compat.v1.global_variables_initializer op)." Each chosen variable
gets ``checkpoint_initializer`` (a RestoreV2 of its tensor, or slice) and an
assign of it as its ``initializer``.

Assignment map forms (keys are checkpoint names):

* ``'ckpt_scope/': 'scope/'`` -- every variable of the store under ``scope/``
  from the same name under ``ckpt_scope/``;
* ``'/': 'scope/'`` -- ``scope/x`` from the checkpoint's root ``x``;
* ``'ckpt_scope/v': 'scope/v'`` -- one variable by name (a partitioned one's
  parts ``scope/v/part_i`` are found by its name);
* ``'v': variable`` or ``'v': [slices]`` / a PartitionedVariable.

Names are looked up in the ``get_variable`` store, as TF does.

``warm_start(ckpt, vars_to_warm_start='.*', var_name_to_vocab_info=None,
var_name_to_prev_var_name=None)`` (``tf.compat.v1.train.warm_start``) picks
the variables -- a regex over TRAINABLE_VARIABLES, a list of regexes over
GLOBAL_VARIABLES, or a list of Variables -- and initializes each from its own
name (or ``var_name_to_prev_var_name[name]``) in the checkpoint. Vocabulary
remapping (``var_name_to_vocab_info``, ``VocabInfo``) loads a vocabulary-indexed
matrix through ``GenerateVocabRemapping`` / ``LoadAndRemapMatrix``
(ref/checkpoint/checkpoint_ops.py).
"""
from __future__ import annotations

import collections

from ref.formats.checkpoint_reader import checkpoint_filename, load_checkpoint
from ref.framework.graph import GraphKeys, device, get_collection, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops.variables import Variable
from ref.graph_ops.partitioned import PartitionedVariable, PartitionInfo
from ref.graph_ops.variable_scope import default_variable_store
from ref.checkpoint.saver import object_graph_key_mapping
from ref.checkpoint.saveable_object_util import op_list_to_dict, saveable_objects_for_op
from ref.checkpoint.checkpoint_ops import _load_and_remap_matrix_initializer
from ref.types import errors
import numpy as np

__all__ = ["init_from_checkpoint", "warm_start"]


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_partitioned(x) -> bool:
    return isinstance(x, PartitionedVariable)


def _store_vars():
    return default_variable_store().variables


def _collect_partitioned_variable(name, all_vars):
    if name + "/part_0" not in all_vars:
        return None
    out, i = [], 0
    while f"{name}/part_{i}" in all_vars:
        out.append(all_vars[f"{name}/part_{i}"])
        i += 1
    return out


def _set_checkpoint_initializer(variable, ckpt_file, tensor_name, slice_spec, name="checkpoint_initializer"):
    """``variable``'s initializer becomes: restore ``tensor_name`` (``slice_spec``) and assign it."""
    base = variable.dtype.base_dtype
    with device(variable.device):
        with name_scope(name) as scope:
            names = np.empty(1, dtype=object)
            names[0] = tensor_name
            slices = np.empty(1, dtype=object)
            slices[0] = slice_spec
            restored = apply_op("RestoreV2", prefix=constant(ckpt_file, name="prefix"),
                                tensor_names=constant(names, name="tensor_names"),
                                shape_and_slices=constant(slices, name="shape_and_slices"),
                                dtypes=[base], name=scope)[0]
        saveables = [s for n, op in op_list_to_dict([variable]).items() for s in saveable_objects_for_op(op, n)]
        assert len(saveables) == 1
    restored.set_shape(variable.shape)  # the shapes were checked against the checkpoint's
    init_op = saveables[0].restore([restored], None)
    variable._initializer_op = init_op
    variable._initial_value = restored


def _set_variable_or_list_initializer(var_or_list, ckpt_file, tensor_name):
    if isinstance(var_or_list, (list, tuple)):
        slice_name = None
        for v in var_or_list:
            info = v._get_save_slice_info()
            if slice_name is None:
                slice_name = info.full_name
            elif slice_name != info.full_name:
                raise ValueError(f"Slices must all be from the same tensor: {slice_name} != {info.full_name}")
            _set_checkpoint_initializer(v, ckpt_file, tensor_name, info.spec)
    else:
        _set_checkpoint_initializer(var_or_list, ckpt_file, tensor_name, "")


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Replaces the initializers of the variables ``assignment_map`` names so
    that they load from ``ckpt_dir_or_file`` (a checkpoint prefix, or a directory
    with a ``checkpoint`` file).

    Raises:
      ValueError: if a tensor is missing from the checkpoint, a shape differs,
        or a scope maps to a non-scope.
    """
    ckpt_file = checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    variable_map = reader.get_variable_to_shape_map()
    items = assignment_map.items() if hasattr(assignment_map, "items") else assignment_map
    store_vars = _store_vars()
    for tensor_name, current in sorted(items, key=lambda pair: pair[0]):
        var = None
        if _is_partitioned(current):
            current = list(current)
        if _is_variable(current) or (isinstance(current, list) and current and all(_is_variable(v) for v in current)):
            var = current
        else:
            var = store_vars.get(current)
            if var is None:
                var = _collect_partitioned_variable(current, store_vars)
        if var is not None:
            if tensor_name not in variable_map:
                raise ValueError(f"Tensor {tensor_name} is not found in {ckpt_dir_or_file} checkpoint {variable_map}")
            if _is_variable(var) and not var.shape.is_compatible_with(variable_map[tensor_name]):
                raise ValueError(f"Shape of variable {var.name} ({var.shape}) doesn't match with shape of tensor "
                                 f"{tensor_name} ({variable_map[tensor_name]}) from checkpoint reader.")
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name)
            continue
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not tensor_name.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to scope only "
                             f"{tensor_name}. Should be 'scope/': 'other_scope/'.")
        scope_variables = set()
        for var_name in store_vars:
            if not scopes or var_name.startswith(scopes + "/"):
                if "/part_" in var_name:
                    var_name = var_name[:var_name.index("/part_")]
                scope_variables.add(var_name)
        for var_name in sorted(scope_variables):
            full = var_name[len(scopes):]
            if current != "/":
                full = full[1:]
            if tensor_name != "/":
                full = tensor_name + full
            if full.endswith("/"):
                full = full[:-1]
            if full not in variable_map:
                raise ValueError(f"Tensor {full} ({var_name[len(scopes) + 1:]} in {tensor_name}) is not found in "
                                 f"{ckpt_dir_or_file} checkpoint")
            var = store_vars.get(var_name)
            if var is None:
                var = _collect_partitioned_variable(var_name, store_vars)
            _set_variable_or_list_initializer(var, ckpt_file, full)


# ---------------------------------------------------------------------------
# warm_start
# ---------------------------------------------------------------------------

def _infer_var_name(var):
    names = op_list_to_dict(var)
    if len(names) > 1:
        raise TypeError(f"`var` = {var} passed as arg violates the constraints.  name_to_var_dict = {names}")
    return next(iter(names))


def _get_var_info(var, prev_tensor_name=None):
    """``(checkpoint tensor name, variable or list of partitions)`` of ``var`` (a
    Variable, a list of partitions, or a PartitionedVariable); the tensor name
    defaults to the variable's own.

    Raises:
      TypeError: for anything else."""
    if _is_variable(var):
        name = _infer_var_name([var])
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        name = _infer_var_name(var)
    elif _is_partitioned(var):
        name = _infer_var_name([var])
        var = var._get_variable_list()
    else:
        raise TypeError("var MUST be one of the following: a Variable, list of Variable or PartitionedVariable, "
                        f"but is {type(var)}")
    return prev_tensor_name or name, var


class VocabInfo(collections.namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab",
                                                     "old_vocab_size", "backup_initializer", "axis"])):
    """Vocabulary information for warm-starting (``tf.estimator.VocabInfo``):
    the new vocabulary file and size, its OOV buckets, the old vocabulary file
    (and size, -1 for all of it), the initializer of rows with no old
    counterpart, and the axis the vocabulary indexes (0 or 1)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


def _warm_start_var_with_vocab(var, current_vocab_path, current_vocab_size, prev_ckpt, prev_vocab_path,
                               previous_vocab_size=-1, current_oov_buckets=0, prev_tensor_name=None,
                               initializer=None, axis=0):
    """Replaces the initializer of ``var`` (a Variable, a list of partitions or a
    PartitionedVariable; a matrix indexed by a vocabulary along ``axis``) by one
    loading ``prev_tensor_name`` from ``prev_ckpt`` remapped from the vocabulary
    file ``prev_vocab_path`` to ``current_vocab_path``.

    Raises:
      ValueError: if an argument is missing, or ``axis`` is not 0 or 1.
      TypeError: if ``var`` is none of the three."""
    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, current_vocab_size, prev_ckpt, "
                         "prev_vocab_path}.")
    if _is_variable(var):
        var = [var]
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        pass
    elif _is_partitioned(var):
        var = var._get_variable_list()
    else:
        raise TypeError("var MUST be one of the following: a Variable, list of Variable or PartitionedVariable, "
                        f"but is {type(var)}")
    if not prev_tensor_name:
        prev_tensor_name = _infer_var_name(var)
    total_rows = sum(v.get_shape().as_list()[0] for v in var)
    for v in var:
        shape = v.get_shape().as_list()
        info = v._get_save_slice_info()
        partition_info = PartitionInfo(full_shape=info.full_shape, var_offset=info.var_offset) if info else None
        if axis == 0:
            rows = dict(new_row_vocab_size=current_vocab_size, new_col_vocab_size=shape[1],
                        old_row_vocab_size=previous_vocab_size, old_row_vocab_file=prev_vocab_path,
                        new_row_vocab_file=current_vocab_path, old_col_vocab_file=None, new_col_vocab_file=None,
                        num_row_oov_buckets=current_oov_buckets, num_col_oov_buckets=0)
        elif axis == 1:
            rows = dict(new_row_vocab_size=total_rows, new_col_vocab_size=current_vocab_size,
                        old_row_vocab_size=-1, old_row_vocab_file=None, new_row_vocab_file=None,
                        old_col_vocab_file=prev_vocab_path, new_col_vocab_file=current_vocab_path,
                        num_row_oov_buckets=0, num_col_oov_buckets=current_oov_buckets)
        else:
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        init = _load_and_remap_matrix_initializer(ckpt_path=checkpoint_filename(prev_ckpt),
                                                  old_tensor_name=prev_tensor_name, initializer=initializer, **rows)
        value = convert_to_tensor(init(shape=shape, partition_info=partition_info))
        assign = v.assign(value)
        v._initializer_op = getattr(assign, "op", assign)


def _get_grouped_variables(vars_to_warm_start):
    if isinstance(vars_to_warm_start, str):
        found = get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for v in vars_to_warm_start:
                found += get_collection(GraphKeys.GLOBAL_VARIABLES, scope=v)
        elif all(_is_variable(v) for v in vars_to_warm_start):
            found = vars_to_warm_start
        else:
            raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  Given "
                             f"types are {[type(v) for v in vars_to_warm_start]}")
    elif vars_to_warm_start is None:
        found = get_collection(GraphKeys.TRAINABLE_VARIABLES)
    else:
        raise ValueError(f"`vars_to_warm_start must be a `list` or `str`.  Given type is {type(vars_to_warm_start)}")
    grouped = {}
    for v in found:
        grouped.setdefault(_infer_var_name([v]), []).append(v)
    return grouped


def _get_object_checkpoint_renames(path, variable_names):
    try:
        names_to_keys = object_graph_key_mapping(checkpoint_filename(path))
    except errors.NotFoundError:
        return {}
    missing = set(variable_names) - set(names_to_keys)
    if missing:
        raise ValueError("Attempting to warm-start from an object-based checkpoint, but found that the checkpoint "
                         f"did not contain values for all variables. The following variables were missing: {missing}")
    return {name: names_to_keys[name] for name in variable_names}


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Warm-starts a model: the chosen variables' initializers load them from
    ``ckpt_to_initialize_from``.

    Raises:
      ValueError: if ``var_name_to_prev_var_name`` or ``var_name_to_vocab_info`` name
        variables that were not warm-started.
    """
    var_name_to_vocab_info = var_name_to_vocab_info or {}
    grouped = _get_grouped_variables(vars_to_warm_start)
    unused_vocab = set(var_name_to_vocab_info) - set(grouped)
    if unused_vocab:
        raise ValueError("You provided the following variables in var_name_to_vocab_info that were not used: "
                         f"{unused_vocab}.  Perhaps you misspelled them?  Here is the list of viable variable "
                         f"names: {list(grouped)}")

    if not var_name_to_prev_var_name:
        var_name_to_prev_var_name = _get_object_checkpoint_renames(ckpt_to_initialize_from, grouped.keys())
    used = set()
    pending = {}
    for var_name, variable in grouped.items():
        prev = var_name_to_prev_var_name.get(var_name)
        if prev:
            used.add(var_name)
        vocab_info = var_name_to_vocab_info.get(var_name)
        if vocab_info:
            _warm_start_var_with_vocab(
                variable if len(variable) > 1 else variable[0], current_vocab_path=vocab_info.new_vocab,
                current_vocab_size=vocab_info.new_vocab_size, prev_ckpt=ckpt_to_initialize_from,
                prev_vocab_path=vocab_info.old_vocab, previous_vocab_size=vocab_info.old_vocab_size,
                current_oov_buckets=vocab_info.num_oov_buckets, prev_tensor_name=prev,
                initializer=vocab_info.backup_initializer, axis=vocab_info.axis)
            continue
        if not vars_to_warm_start:
            continue
        if len(variable) == 1:
            variable = variable[0]
        if _is_partitioned(variable):
            variable = list(variable)
        tensor = prev or var_name
        if tensor in pending:
            init_from_checkpoint(ckpt_to_initialize_from, pending)
            pending = {}
        pending[tensor] = variable
    init_from_checkpoint(ckpt_to_initialize_from, pending)
    unused = set(var_name_to_prev_var_name) - used
    if unused:
        raise ValueError(f"You provided the following variables in var_name_to_prev_var_name that were not used: "
                         f"{unused}.  Perhaps you misspelled them?  Here is the list of viable variable names: "
                         f"{list(grouped)}")
