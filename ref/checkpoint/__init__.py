"""TensorFlow's checkpoint file formats, read and written without TensorFlow.

* ``table``   the sorted string table (LevelDB format) checkpoints index with
* ``bundle``  the V2 bundle: ``BundleWriter`` / ``BundleReader``, ``merge_bundles``
* ``v1``      the V1 format reader (``TensorSliceReader``)
* ``slices``  tensor slices (partitioned variables) and their checkpoint keys
* ``reader``  ``NewCheckpointReader``, ``load_checkpoint``, ``list_variables``, ``load_variable``
* ``state``   the ``checkpoint`` state file and the ``tf.compat.v1.train`` checkpoint helpers
* ``inspect`` ``python -m ref inspect-checkpoint``
"""
from ref.formats.bundle import BundleReader, BundleWriter, data_filename, merge_bundles, meta_filename
from ref.formats.checkpoint_reader import (CheckpointReader, NewCheckpointReader, list_variables, load_checkpoint,
                                   load_variable)
from ref.formats.slices import TensorSlice
from ref.formats.checkpoint_state import (V1, V2, checkpoint_exists, generate_checkpoint_state_proto,
                                  get_checkpoint_mtimes, get_checkpoint_state, latest_checkpoint,
                                  meta_graph_filename, remove_checkpoint, update_checkpoint_state)

__all__ = [
    "BundleReader", "BundleWriter", "data_filename", "merge_bundles", "meta_filename",
    "CheckpointReader", "NewCheckpointReader", "list_variables", "load_checkpoint", "load_variable",
    "TensorSlice", "V1", "V2", "checkpoint_exists", "generate_checkpoint_state_proto", "get_checkpoint_mtimes",
    "get_checkpoint_state", "latest_checkpoint", "meta_graph_filename", "remove_checkpoint",
    "update_checkpoint_state",
]
