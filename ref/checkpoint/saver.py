"""``tf.train.Saver``: save and restore variables as graph ops run by a Session.

TF docs, "Variables", "class tf.train.Saver": "The Saver class adds
ops to save and restore variables to and from checkpoints. It also provides
convenience methods to run these ops." TF's API reference,
``tf.compat.v1.train.Saver``, adds ``defer_build``, ``allow_empty``,
``write_version``, ``pad_step_number``, ``save_relative_paths``, ``filename``
and ``save(..., write_state, strip_default_attrs, save_debug_info)``.

The ops, named as TensorFlow names them, so the ``SaverDef`` of either
drives the other's graph::

    save/filename/input   Const "model"           (the default prefix)
    save/filename         PlaceholderWithDefault
    save/Const            PlaceholderWithDefault  <- SaverDef.filename_tensor_name
    save/SaveV2           SaveV2(prefix, tensor_names, shape_and_slices, tensors...)
    save/control_dependency  Identity(save/Const) after save/SaveV2  <- save_tensor_name
    save/RestoreV2        RestoreV2(prefix, names, slices) -> tensors
    save/Assign[_k]       Assign / AssignVariableOp, one per variable (slice)
    save/restore_all      NoOp after every assign  <- restore_op_name

``write_version=SaverDef.V1`` writes the deprecated V1 format instead (one
table file per shard, byte-identical to TF's; ``save/SaveSlices``, and a
sharded save returns the glob ``prefix-?????-of-0000n``), with TF's
deprecation warning.

Checkpoint keys are the variables' op names (``w``, the slots ``w/Adam``,
``w/Adam_1``); a partitioned variable is saved as slices of its full name.

Durability (ref's order, stricter than TF's): the bundle is written to
temporary files renamed into place, index last; then the meta graph (also
renamed into place); then the ``checkpoint`` state file, atomically, last of
all; only then are checkpoints beyond ``max_to_keep`` deleted. Saving again to
a prefix that already holds a checkpoint (``save(sess, "dir/model")`` without
``global_step``) saves under a staging prefix ``dir/model.tempstate<hex>/model``,
marks it committed (a ``COMMITTED`` file listing its files), links its files
onto ``dir/model`` (data, index, meta graph), writes the state file and drops
the staging directory. The state file, ``latest_checkpoint`` and
``get_checkpoint_state`` never name a staging prefix: a publish a crash
interrupted is finished by the next reader of ``dir/model``
(``checkpoint_exists``, ``latest_checkpoint``, ``get_checkpoint_state``,
``restore``). A process killed at any moment leaves ``latest_checkpoint``
naming a complete checkpoint, old or new, with its meta graph. (TF writes the state file before the meta
graph, and overwrites a fixed prefix in place: a kill between its data and
index renames leaves a checkpoint whose data and index disagree.)
"""
from __future__ import annotations

import logging
import os
import time
import warnings

import numpy as np

from ref.ops import io as io_ops
from ref.types import dtypes, errors
from ref.formats import checkpoint_state as _state
from ref.framework.graph import (
    GraphKeys,
    control_dependencies,
    device,
    get_default_graph,
    name_scope,
    register_proto_function,
)
from ref.framework.op_def_library import apply_op, constant
from ref.protos import saver_pb2, trackable_object_graph_pb2
from ref.types.shapes import TensorShape
from ref.formats.checkpoint_reader import load_checkpoint
from ref.graph_ops.control_flow_ops import group, identity, with_dependencies
from ref.graph_ops import array_ops
from ref.graph_ops.training_util import global_step as _global_step
from ref.checkpoint.meta_graph import (add_collection_def, export_meta_graph,
                                      import_scoped_meta_graph_with_return_elements, read_meta_graph_file)
from ref.platform import tf_logging as logging
from ref.checkpoint.saveable_object_util import (
    ReferenceVariableSaveable, ResourceVariableSaveable, SaveableObject, SaveSpec, _all_saveable_objects,
    _is_partitioned, op_list_to_dict, validate_and_slice_inputs)
from google.protobuf import text_format

__all__ = ["Saver", "BaseSaverBuilder", "BulkSaverBuilder", "saver_from_object_based_checkpoint",
           "object_graph_key_mapping", "import_meta_graph"]


OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_log = logging  # tf.logging


def _saver_pb2():
    return saver_pb2


# ---------------------------------------------------------------------------
# Builders: the ops
# ---------------------------------------------------------------------------

def _string_list(values):
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    return arr


def _const(value, name):
    return constant(value, dtype=dtypes.string, name=name)


class BaseSaverBuilder:
    """Builds the save and restore ops of a Saver (one RestoreV2 per tensor,
    chained when ``restore_sequentially``)."""

    SaveSpec = SaveSpec
    SaveableObject = SaveableObject
    # TF keeps the variable saveables on the builder too (saver.py's aliases)
    VariableSaveable = ReferenceVariableSaveable
    ResourceVariableSaveable = ResourceVariableSaveable

    def __init__(self, write_version=None):
        self._write_version = _saver_pb2().SaverDef.V2 if write_version is None else write_version
        self._fsync = False

    # -- save -------------------------------------------------------------------
    def save_op(self, filename_tensor, saveables):
        """A SaveV2 op writing every spec of ``saveables`` to ``filename_tensor``."""
        specs = [s for saveable in saveables for s in saveable.specs]
        if self._write_version != _saver_pb2().SaverDef.V2:  # V1: one table file (deprecated, as in TF)
            with name_scope("SaveSlices") as scope:
                names = _const(_string_list([s.name for s in specs]), "tensor_names")
                slices = _const(_string_list([s.slice_spec for s in specs]), "shapes_and_slices")
                return apply_op("SaveSlices", filename=filename_tensor, tensor_names=names,
                                shapes_and_slices=slices, data=[s.tensor for s in specs],
                                T=[s.dtype for s in specs], name=scope)
        with name_scope("SaveV2") as scope:
            names = _const(_string_list([s.name for s in specs]), "tensor_names")
            slices = _const(_string_list([s.slice_spec for s in specs]), "shape_and_slices")
            return apply_op("SaveV2", prefix=filename_tensor, tensor_names=names, shape_and_slices=slices,
                            tensors=[s.tensor for s in specs], dtypes=[s.dtype for s in specs],
                            _fsync=self._fsync, name=scope)

    def _AddSaveOps(self, filename_tensor, saveables):  # noqa: N802 - TF's name
        save = self.save_op(filename_tensor, saveables)
        return with_dependencies([save], filename_tensor)

    def _AddShardedSaveOps(self, checkpoint_prefix, per_device):  # noqa: N802
        """Each device's variables to ``<prefix>_temp/part-0000i-of-0000n``, then
        one MergeV2Checkpoints into ``<prefix>``; returns ``<prefix>`` after both.
        (V1: each device's variables to ``<prefix>-0000i-of-0000n``; returns the
        glob ``<prefix>-?????-of-0000n``.)"""
        if self._write_version != _saver_pb2().SaverDef.V2:
            return self._AddShardedSaveOpsForV1(checkpoint_prefix, per_device)
        with device("/device:CPU:*"):  # TF: ".part" next to an s3:// prefix, "_temp/part" elsewhere
            is_s3 = apply_op("StaticRegexFullMatch", input=checkpoint_prefix, pattern="^s3://.*",
                             name="StaticRegexFullMatch")
            suffix = apply_op("Select", condition=is_s3, x=_const(".part", "Const"),
                              y=_const(os.path.normpath("_temp/part"), "Const"), name="Select")
            tmp_prefix = apply_op("StringJoin", inputs=[checkpoint_prefix, suffix], name="StringJoin")
        num_shards = apply_op("Const", value=np.array(len(per_device), np.int32), dtype=dtypes.int32,
                              name="num_shards")
        saves, prefixes = [], []
        for shard, (_, saveables) in enumerate(per_device):
            with name_scope(None, "ShardedFilename") as scope:  # the op takes its scope's name, as TF's
                shard_t = apply_op("Const", value=np.array(shard, np.int32), dtype=dtypes.int32, name="shard")
                sharded = apply_op("ShardedFilename", basename=tmp_prefix, shard=shard_t, num_shards=num_shards,
                                   name=scope)
            prefixes.append(sharded)
            saves.append(self._AddSaveOps(sharded, saveables))
        with control_dependencies([s.op for s in saves]):
            with name_scope(None, "MergeV2Checkpoints") as scope:
                packed = array_ops.stack(prefixes, name="checkpoint_prefixes")
                merge = apply_op("MergeV2Checkpoints", checkpoint_prefixes=packed,
                                 destination_prefix=checkpoint_prefix, delete_old_dirs=True, name=scope)
            with control_dependencies([merge]):  # TF: a plain identity (not colocated with the prefix)
                return identity(checkpoint_prefix)

    def _AddShardedSaveOpsForV1(self, checkpoint_prefix, per_device):  # noqa: N802
        num_shards = apply_op("Const", value=np.array(len(per_device), np.int32), dtype=dtypes.int32,
                              name="num_shards")
        saves = []
        for shard, (dev, saveables) in enumerate(per_device):
            with device(dev or None):
                with name_scope("ShardedFilename"):
                    shard_t = apply_op("Const", value=np.array(shard, np.int32), dtype=dtypes.int32, name="shard")
                sharded = apply_op("ShardedFilename", basename=checkpoint_prefix, shard=shard_t,
                                   num_shards=num_shards, name="ShardedFilename")
                saves.append(self._AddSaveOps(sharded, saveables))
        with control_dependencies([s.op for s in saves]):
            return apply_op("ShardedFilespec", basename=checkpoint_prefix, num_shards=num_shards,
                            name="ShardedFilespec")

    # -- restore ----------------------------------------------------------------
    def restore_op(self, filename_tensor, saveable, preferred_shard):
        return [self._restore_v2(filename_tensor, [s])[0] for s in saveable.specs]

    def _restore_v2(self, filename_tensor, specs):
        with name_scope("RestoreV2") as scope:
            names = _const(_string_list([s.name for s in specs]), "tensor_names")
            slices = _const(_string_list([s.slice_spec for s in specs]), "shape_and_slices")
            out = apply_op("RestoreV2", prefix=filename_tensor, tensor_names=names, shape_and_slices=slices,
                           dtypes=[s.dtype for s in specs], name=scope)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        """The restored tensors of every spec, in order (one RestoreV2 per saveable,
        each after the previous one when ``restore_sequentially``)."""
        tensors, last = [], []
        for saveable in saveables:
            with control_dependencies(last if restore_sequentially else []):
                got = self.restore_op(filename_tensor, saveable, preferred_shard)
            tensors.extend(got)
            last = [got[-1].op]
        return tensors

    def _AddRestoreOps(self, filename_tensor, saveables, restore_sequentially, reshape,  # noqa: N802
                       preferred_shard=-1, name="restore_all"):
        tensors = self.bulk_restore(filename_tensor, saveables, preferred_shard, restore_sequentially)
        assigns, i = [], 0
        for saveable in saveables:
            shapes = None
            if reshape:
                shapes = []
                for spec in saveable.specs:
                    t = spec.tensor
                    shape = t.shape
                    if not shape.is_fully_defined():
                        shape = array_ops.shape(t)
                    else:
                        shape = shape.as_list()
                    shapes.append(shape)
            n = len(saveable.specs)
            assigns.append(saveable.restore(tensors[i:i + n], shapes))
            i += n
        return group(*assigns, name=name)

    def _AddShardedRestoreOps(self, filename_tensor, per_device, restore_sequentially, reshape):  # noqa: N802
        shards = []
        for shard, (_, saveables) in enumerate(per_device):
            shards.append(self._AddRestoreOps(filename_tensor, saveables, restore_sequentially, reshape,
                                              preferred_shard=shard, name="restore_shard"))
        return group(*shards, name="restore_all")

    @staticmethod
    def _GroupByDevices(saveables):  # noqa: N802
        per_device = {}
        for s in saveables:
            per_device.setdefault(s.device or "", []).append(s)
        return sorted(per_device.items(), key=lambda kv: kv[0])

    # -- the whole thing --------------------------------------------------------
    def build(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
              keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, filename="model"):
        """Adds save/restore ops for ``names_to_saveables``; returns the SaverDef."""
        return self._build_internal(names_to_saveables, reshape, sharded, max_to_keep,
                                    keep_checkpoint_every_n_hours, name, restore_sequentially, filename)

    def _build_internal(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
                        keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                        filename="model", build_save=True, build_restore=True):
        saveables = validate_and_slice_inputs(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        graph = get_default_graph()
        with graph.as_default(), control_dependencies(None), name_scope(name, "save"):
            with name_scope("filename") as filename_scope:
                default = _const(filename or "model", "input")
                filename_tensor = apply_op("PlaceholderWithDefault", input=default, shape=_scalar(),
                                           name=filename_scope)
            filename_tensor = apply_op("PlaceholderWithDefault", input=filename_tensor, shape=_scalar(),
                                       name="Const")
            save_tensor = restore_op = None
            if sharded:
                per_device = self._GroupByDevices(saveables)
                if build_save:
                    save_tensor = self._AddShardedSaveOps(filename_tensor, per_device)
                if build_restore:
                    restore_op = self._AddShardedRestoreOps(filename_tensor, per_device, restore_sequentially,
                                                            reshape)
            else:
                if build_save:
                    save_tensor = self._AddSaveOps(filename_tensor, saveables)
                if build_restore:
                    restore_op = self._AddRestoreOps(filename_tensor, saveables, restore_sequentially, reshape)
        return _saver_pb2().SaverDef(
            filename_tensor_name=filename_tensor.name,
            save_tensor_name=save_tensor.name if save_tensor is not None else "",
            restore_op_name=restore_op.name if restore_op is not None else "",
            max_to_keep=max_to_keep, sharded=sharded,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            version=self._write_version)


class BulkSaverBuilder(BaseSaverBuilder):
    """The default builder: every tensor restored by one RestoreV2 op."""

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        specs = [s for saveable in saveables for s in saveable.specs]
        with device("cpu:0"):  # as TF: the bulk restore op is placed on CPU 0 (its NodeDef says so)
            return self._restore_v2(filename_tensor, specs)


def _scalar():
    return TensorShape([])


# ---------------------------------------------------------------------------
# Saver
# ---------------------------------------------------------------------------

def _strip_scope(name, scope):
    if not scope:
        return name
    scope = scope.rstrip("/") + "/"
    if name.startswith("^" + scope):
        return "^" + name[len(scope) + 1:]
    return name[len(scope):] if name.startswith(scope) else name


def _prepend_scope(name, scope):
    if not scope:
        return name
    scope = scope.rstrip("/") + "/"
    return "^" + scope + name[1:] if name.startswith("^") else scope + name


class Saver:
    """Saves and restores variables (TF docs, "Variables", "class tf.train.Saver").

    ``var_list``: a list of Variables (keyed by op name; a PartitionedVariable
    by its full name), a dict ``{name: variable or list of slices}``, or None
    for every global variable and saveable object. ``max_to_keep`` None or 0
    keeps every checkpoint; ``keep_checkpoint_every_n_hours`` keeps, in
    addition, one checkpoint per that many hours. ``fsync`` (ref's own,
    default False as TF) flushes every file to stable storage before it is
    renamed into place, so a checkpoint also survives a power loss.

    Raises:
      TypeError: if ``var_list`` is invalid.
      ValueError: if any of the keys or values in ``var_list`` are not unique,
        or ``var_list`` is given with ``defer_build``.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=_state.V2,
                 pad_step_number=False, save_relative_paths=False, filename=None, *, fsync=False):
        saver_pb2 = _saver_pb2()
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either set "
                             "defer_build=False or var_list=None.")
        if _is_partitioned(var_list):
            var_list = [var_list]
        if write_version == saver_pb2.SaverDef.V1 and saver_def is None:
            warnings.warn("*******************************************************\n"
                          "TensorFlow's V1 checkpoint format has been deprecated.\n"
                          "Consider switching to the more efficient V2 format:\n"
                          "   `tf.train.Saver(write_version=tf.train.SaverDef.V2)`\n"
                          "now on by default.\n"
                          "*******************************************************", DeprecationWarning)
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._fsync = fsync
        self._last_checkpoints = []
        self._written = set()  # prefixes this Saver saved: rotation may delete them wherever they are
        self._checkpoints_to_be_deleted = []
        self._next_checkpoint_time = None
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths
        self._object_restore_saver = None

    # -- building -----------------------------------------------------------------
    def build(self):
        """Builds the save/restore ops (needed once, when ``defer_build=True``)."""
        self._build(self._filename, build_save=True, build_restore=True)

    def _build(self, checkpoint_path, build_save, build_restore):
        if self._is_built:
            return
        self._is_built = True
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                self._var_list = _all_saveable_objects()
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self._builder._fsync = self._fsync
            self.saver_def = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded, max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours, name=self._name,
                restore_sequentially=self._restore_sequentially, filename=checkpoint_path,
                build_save=build_save, build_restore=build_restore)
        elif self.saver_def and self._name:
            # as in TF, ``name`` doubles as the import scope of a given saver_def
            d = _saver_pb2().SaverDef()
            d.CopyFrom(self.saver_def)
            d.filename_tensor_name = _prepend_scope(d.filename_tensor_name, self._name)
            d.save_tensor_name = _prepend_scope(d.save_tensor_name, self._name)
            d.restore_op_name = _prepend_scope(d.restore_op_name, self._name)
            self.saver_def = d
        self._check_saver_def()
        self._next_checkpoint_time = time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600

    def _check_saver_def(self):
        if not isinstance(self.saver_def, _saver_pb2().SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    # -- protos ---------------------------------------------------------------------
    def as_saver_def(self):
        """Generates a ``SaverDef`` representation of this saver."""
        return self.saver_def

    def to_proto(self, export_scope=None):
        """Converts this Saver to a ``SaverDef`` (names relative to ``export_scope``;
        None when the saver's ops are outside it)."""
        if export_scope is None:
            return self.saver_def
        d = self.saver_def
        if not (d.filename_tensor_name.startswith(export_scope) and d.save_tensor_name.startswith(export_scope)
                and d.restore_op_name.startswith(export_scope)):
            return None
        out = _saver_pb2().SaverDef()
        out.CopyFrom(d)
        out.filename_tensor_name = _strip_scope(d.filename_tensor_name, export_scope)
        out.save_tensor_name = _strip_scope(d.save_tensor_name, export_scope)
        out.restore_op_name = _strip_scope(d.restore_op_name, export_scope)
        return out

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        """Returns a ``Saver`` object created from ``saver_def``."""
        return Saver(saver_def=saver_def, name=import_scope)

    @staticmethod
    def _add_collection_def(meta_graph_def, key, export_scope=None):
        """Adds collection ``key`` of the default graph to ``meta_graph_def``."""
        add_collection_def(meta_graph_def, key, export_scope=export_scope)

    # -- checkpoint bookkeeping --------------------------------------------------------
    @property
    def last_checkpoints(self):
        """List of not-yet-deleted checkpoint filenames, oldest to newest."""
        return [p[0] for p in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """DEPRECATED: use set_last_checkpoints_with_time. Sets the list of old
        checkpoint filenames (with timestamp +inf: never deleted by the hours rule)."""
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(s, np.inf) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Sets the list of old checkpoint filenames and timestamps."""
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths):
        """Recovers the internal saver state after a crash: the checkpoints of
        ``checkpoint_paths`` that exist, with their mtimes as timestamps."""
        found = []
        for path in checkpoint_paths:
            try:
                mtime = _state.get_checkpoint_mtimes([path])
            except errors.NotFoundError:
                continue
            if mtime:
                found.append((path, mtime[0]))
        self.set_last_checkpoints_with_time(found)

    def _RecordLastCheckpoint(self, latest_save_path):  # noqa: N802 - TF's name
        """TF docs, "Variables": "max_to_keep indicates the maximum number of recent checkpoint
        files to keep. As new files are created, older files are deleted. If None
        or 0, all checkpoint files are kept." (specs/saver.py)."""
        if not self.saver_def.max_to_keep:
            return
        self._written.add(latest_save_path)
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != latest_save_path]
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _MaybeDeleteOldCheckpoints(self, meta_graph_suffix="meta", save_dir=None):  # noqa: N802
        """Deletes the oldest checkpoint pushed out of ``max_to_keep`` unless it was
        saved after the next "every N hours" mark (then it is kept for good and
        the mark moves N hours on). TF docs, "Variables": "passing keep_checkpoint_every_n_hours=2
        ensures that you keep one checkpoint file for every 2 hours of training".

        Only checkpoints this Saver wrote, or that lie in ``save_dir`` (the
        directory being saved to), are deleted: a path recovered from a state
        file that points elsewhere (``../other/model``) is left with a warning."""
        if not self._checkpoints_to_be_deleted:
            return
        path, stamp = self._checkpoints_to_be_deleted.pop(0)
        if stamp > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            if path in self._written or save_dir is None:
                _state.remove_checkpoint(path, self.saver_def.version, meta_graph_suffix)
            else:
                _state.remove_checkpoint_in(save_dir or ".", path, self.saver_def.version, meta_graph_suffix)
        except OSError as e:
            logging.warning("Ignoring: %s", str(e))

    # -- save / restore -------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Saves variables; returns the checkpoint prefix (``save_path-STEP`` with
        ``global_step``), or None when the saver is empty.

        Raises:
          TypeError: if ``sess`` is not a Session.
          ValueError: if ``latest_filename`` contains path components or collides with ``save_path``.
          RuntimeError: if the ops were not built (``defer_build`` without ``build()``).
        """
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _local_path(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = _global_step(sess, global_step)
            step = int(global_step)
            checkpoint_file = "%s-%08d" % (save_path, step) if self._pad_step_number else "%s-%d" % (save_path, step)
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': '{latest_filename}' and "
                                 f"'{save_path}'")
        if not hasattr(sess, "run") or not hasattr(sess, "graph"):
            raise TypeError(f"'sess' must be a Session; {sess}")
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        # Overwriting an existing checkpoint (a fixed prefix): save under a staging
        # prefix, commit it, publish it onto the prefix; the state file only ever
        # names the prefix, which always holds a complete checkpoint (old or new).
        staging = None
        _state.recover_prefix(checkpoint_file)  # a previous publish a crash interrupted, finished first
        if not self._is_empty and write_state and _state.checkpoint_exists(checkpoint_file):
            staging = _state.staging_prefix(checkpoint_file)
        target = staging or checkpoint_file
        if not self._is_empty:
            try:
                value = sess.run(self.saver_def.save_tensor_name, {self.saver_def.filename_tensor_name: target})
            except (errors.FailedPreconditionError, errors.NotFoundError, OSError) as exc:
                if save_path_parent and not os.path.isdir(save_path_parent):
                    raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.") from exc
                raise
            model_checkpoint_path = checkpoint_file if staging is not None else io_ops.scalar_text(value)
        if write_meta_graph:
            meta_file = _state.meta_graph_filename(target, meta_graph_suffix=meta_graph_suffix)
            with sess.graph.as_default():
                self.export_meta_graph(meta_file, strip_default_attrs=strip_default_attrs,
                                       save_debug_info=save_debug_info)
        if staging is not None:
            # complete under the staging prefix: commit it, then publish it onto the prefix
            # (a crash from the commit on is finished forward by the next reader of the prefix)
            _state.commit_staging(staging, meta_graph_suffix, fsync=self._fsync)
            _state.publish_checkpoint(staging, checkpoint_file, meta_graph_suffix, fsync=self._fsync)
        if not self._is_empty and write_state:
            self._RecordLastCheckpoint(model_checkpoint_path)
            _state.crash_point("write_state")
            _write_state(save_path_parent, model_checkpoint_path, self.last_checkpoints, latest_filename,
                         self._save_relative_paths, self._fsync)
        if staging is not None:
            _state.discard_staging(staging, meta_graph_suffix)
        if not self._is_empty and write_state:
            _state.crash_point("delete_old_checkpoints")
            self._MaybeDeleteOldCheckpoints(meta_graph_suffix=meta_graph_suffix, save_dir=save_path_parent)
        return model_checkpoint_path

    def restore(self, sess, save_path):
        """Restores previously saved variables (restoring initializes them).

        Raises:
          ValueError: if ``save_path`` is None or not a valid checkpoint.
          NotFoundError: a variable missing from the checkpoint (named in the message).
          InvalidArgumentError: a shape or dtype mismatch with the checkpoint.
        """
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = _local_path(save_path)
        if not _state.checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: " + save_path)
        logging.info("Restoring parameters from %s", save_path)
        try:
            sess.run(self.saver_def.restore_op_name, {self.saver_def.filename_tensor_name: save_path})
        except errors.NotFoundError as err:
            try:
                names_to_keys = object_graph_key_mapping(save_path)
            except errors.NotFoundError:
                raise _wrap_restore_error(err, "a Variable name or other graph key that is missing") from None
            logging.warning("Restoring an object-based checkpoint using a name-based saver. This may be somewhat "
                            "fragile, and will re-build the Saver. Instead, consider loading object-based "
                            "checkpoints using tf.train.Checkpoint().")
            self._object_restore_saver = saver_from_object_based_checkpoint(
                save_path, self._var_list, self._builder, names_to_keys, self._object_restore_saver)
            self._object_restore_saver.restore(sess, save_path)
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(err, "a mismatch between the current graph and the graph") from None

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """Writes ``MetaGraphDef`` (with this saver's SaverDef) to ``filename``; returns it."""
        return export_meta_graph(filename=filename, graph_def=get_default_graph().as_graph_def(add_shapes=True),
                                 saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
                                 export_scope=export_scope, clear_devices=clear_devices,
                                 clear_extraneous_savers=clear_extraneous_savers,
                                 strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)


def _local_path(path) -> str:
    """``path`` as a str; a ``file://`` URI (the local file system, as TF's
    file_io reads it) becomes its path."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    return path[len("file://"):] if path.startswith("file://") else path


def _write_state(save_dir, model_checkpoint_path, all_paths, latest_filename, save_relative_paths, fsync):
    """The ``checkpoint`` file, written to a temporary file and renamed into place."""
    if not fsync:
        _state.update_checkpoint_state_internal(save_dir, model_checkpoint_path, all_paths, latest_filename,
                                                save_relative_paths=save_relative_paths)
        return
    if save_relative_paths:
        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p
        model_checkpoint_path = rel(model_checkpoint_path)
        all_paths = [rel(p) for p in all_paths]
    ckpt = _state.generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_paths)
    filename = os.path.join(save_dir, latest_filename or "checkpoint")
    if filename == ckpt.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint state.  "
                           "Please use a different save path.")
    _state.atomic_write_string_to_file(filename, text_format.MessageToString(ckpt), fsync=True)
    _state.fsync_dir(filename)


def _wrap_restore_error(err, extra):
    msg = (f"Restoring from checkpoint failed. This is most likely due to {extra} from the checkpoint. "
           f"Please ensure that you have not altered the graph expected based on the checkpoint. "
           f"Original error:\n\n{err.message}")
    return type(err)(None, err.op, msg)


# ---------------------------------------------------------------------------
# Name-based restore of object-based checkpoints
# ---------------------------------------------------------------------------

def object_graph_key_mapping(checkpoint_path):
    """``{variable full name: checkpoint key}`` from an object-based
    checkpoint's ``_CHECKPOINTABLE_OBJECT_GRAPH`` (NotFoundError when absent)."""
    reader = load_checkpoint(checkpoint_path)
    raw = reader.get_tensor(OBJECT_GRAPH_PROTO_KEY)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(raw)
    return {a.full_name: a.checkpoint_key for node in graph.nodes for a in node.attributes}


def saver_from_object_based_checkpoint(checkpoint_path, var_list=None, builder=None, names_to_keys=None,
                                       cached_saver=None):
    """A Saver restoring ``var_list`` (default: all) from the object-based
    checkpoint at ``checkpoint_path``, matching variables by their full names.

    Raises:
      NotFoundError: if some variables are not in the checkpoint."""
    if names_to_keys is None:
        names_to_keys = object_graph_key_mapping(checkpoint_path)
    if var_list is None:
        var_list = _all_saveable_objects()
    if not isinstance(var_list, dict):
        var_list = op_list_to_dict(var_list)
    missing = sorted(set(var_list) - set(names_to_keys))
    if missing:
        raise errors.NotFoundError(None, None, f"Existing variables not in the checkpoint: {', '.join(missing)}")
    if cached_saver is not None:
        return cached_saver
    return Saver({names_to_keys[k]: v for k, v in var_list.items()}, builder=builder, name="object_restore")


# Savers in a MetaGraphDef: the ``savers`` collection holds SaverDefs.
register_proto_function(GraphKeys.SAVERS, proto_type=saver_pb2.SaverDef,
                        to_proto=lambda s, export_scope=None: s.to_proto(export_scope=export_scope),
                        from_proto=Saver.from_proto)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Recreates a Graph saved in a MetaGraphDef proto (or file) in the default
    graph; returns the Saver of its ``saver_def`` -- or, without one, a Saver of
    all variables, or None when there are none.

    ``kwargs``: ``graph`` (default: the default graph), ``input_map``,
    ``unbound_inputs_col_name``, ``restore_collections_predicate`` (as TF's
    import_scoped_meta_graph). A file that does not import (corrupted?) is
    named in a warning before the error propagates."""
    from_file = isinstance(meta_graph_or_file, (str, os.PathLike))
    mgd = read_meta_graph_file(meta_graph_or_file) if from_file else meta_graph_or_file
    graph = kwargs.pop("graph", None) or get_default_graph()
    try:
        imported, _ = import_scoped_meta_graph_with_return_elements(
            mgd, clear_devices=clear_devices, graph=graph, import_scope=import_scope, **kwargs)
    except (ValueError, TypeError, errors.OpError) as e:
        if from_file:
            _log.warning("Meta graph file %s could not be imported (corrupted?): %s", meta_graph_or_file, e)
        raise
    with graph.as_default():
        if mgd.HasField("saver_def"):
            scope = import_scope
            if imported:
                key = next(iter(imported))
                scope = imported[key].name[:-len(key)]
            return Saver(saver_def=mgd.saver_def, name=scope)
        if _all_saveable_objects(scope=import_scope):
            return Saver()
    logging.info("Saver not created because there are no variables in the graph to restore")
    return None


def get_saver_or_default():
    """The graph's one ``SAVERS`` collection entry, or a new sharded ``Saver``
    (``allow_empty``) added to it (TF's private ``saver._get_saver_or_default``)."""
    graph = get_default_graph()
    savers = graph.get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which one "
                               f"to use by passing it to the constructor.")
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    graph.add_to_collection(GraphKeys.SAVERS, saver)
    return saver


_get_saver_or_default = get_saver_or_default  # TF's spelling
