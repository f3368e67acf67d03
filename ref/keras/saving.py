"""``Model.save_weights`` / ``load_weights`` in TF's checkpoint format (the
object-based checkpoint tf_keras writes for a path without ``.h5``).

The object graph, as tf_keras builds it for a model: the root's children are,
per layer in ``model.layers`` order, ``layer_with_weights-<k>`` (the k-th
layer that has weights) and ``layer-<i>``, then ``optimizer`` (once it has
variables), then ``root`` (the model itself). A layer's children are its
weights by short name (``kernel``, ``bias``, ``gamma``, ...; a nested model's
are its own layers, the same way). The optimizer's children are ``iter`` and
its hyperparameters by name; its slots are slot-variable references, grouped
by slot name. Nodes are numbered breadth first; a variable is saved under
``<path>/.ATTRIBUTES/VARIABLE_VALUE`` and a slot under
``<variable path>/.OPTIMIZER_SLOT/optimizer/<slot>/.ATTRIBUTES/VARIABLE_VALUE``.
``load_weights`` restores every variable whose key the checkpoint holds
(slots that do not exist yet are skipped).
"""
from __future__ import annotations

import os

from ref.types import dtypes, errors
from ref.types.shapes import TensorShape
from ref.formats import checkpoint_state
from ref.formats.checkpoint_reader import NewCheckpointReader
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import apply_op
from ref.protos import trackable_object_graph_pb2
from ref.checkpoint.saver import OBJECT_GRAPH_PROTO_KEY, BulkSaverBuilder
from ref.checkpoint.saveable_object_util import SaveableObject, SaveSpec
from ref.keras import backend
from ref.keras.optimizers import Optimizer, TFOptimizer

__all__ = ["save_weights", "load_weights"]

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _escape(name):
    return name.replace(".", "..").replace("/", ".S")


def _is_model(obj):
    return hasattr(obj, "layers") and hasattr(obj, "inputs")


def _children(obj, root):
    if obj is root or (_is_model(obj) and not isinstance(obj, Optimizer)):
        out, k = [], 0
        for i, layer in enumerate(obj.layers):
            if layer.weights:
                out.append((f"layer_with_weights-{k}", layer))
                k += 1
            out.append((f"layer-{i}", layer))
        if obj is root:
            opt = getattr(obj, "optimizer", None)
            if isinstance(opt, Optimizer) and not isinstance(opt, TFOptimizer) and opt.variables():
                out.append(("optimizer", opt))
            out.append(("root", obj))
        return out
    if isinstance(obj, Optimizer):
        return list(obj.non_slot_items())
    if hasattr(obj, "weights") and not hasattr(obj, "handle"):
        # list attributes Keras tracks come first as empty nodes (BatchNormalization's ``axis``)
        lists = [(name, obj.__dict__.setdefault("_checkpoint_" + name, _ListNode()))
                 for name in getattr(obj, "_checkpointed_lists", ())]
        return lists + [(w.op.name.split("/")[-1], w) for w in obj.weights]
    return []


class _ListNode:
    """A tracked Python list (Keras' ListWrapper): a node with no children and no value."""


def _view(model):
    """(nodes, {node id: [(local name, child id)]}, {node id: key path}) breadth first."""
    nodes, ids, children, paths = [model], {id(model): 0}, {}, {0: ""}
    i = 0
    while i < len(nodes):
        obj = nodes[i]
        edges = []
        for name, child in ([] if hasattr(obj, "handle") else _children(obj, model)):
            if id(child) not in ids:
                ids[id(child)] = len(nodes)
                nodes.append(child)
                paths[ids[id(child)]] = (paths[i] + "/" if paths[i] else "") + _escape(name)
            edges.append((name, ids[id(child)]))
        children[i] = edges
        i += 1
    return nodes, ids, children, paths


def _keys(model):
    """({checkpoint key: variable}, TrackableObjectGraph) of the model."""
    nodes, ids, children, paths = _view(model)
    keys, slot_refs = {}, {}
    for i, obj in enumerate(nodes):
        if hasattr(obj, "handle"):
            keys[paths[i] + _SUFFIX] = obj
    opt = next((n for n in nodes if isinstance(n, Optimizer)), None)
    extra = []
    if opt is not None:
        by_slot = {}
        for slot_name, var, slot in opt.slot_items():
            if id(var) in ids:
                by_slot.setdefault(slot_name, []).append((ids[id(var)], var, slot))
        for slot_name, entries in by_slot.items():
            for var_id, var, slot in sorted(entries, key=lambda e: e[0]):
                slot_id = len(nodes) + len(extra)
                extra.append(slot)
                key = f"{paths[var_id]}/.OPTIMIZER_SLOT/optimizer/{_escape(slot_name)}{_SUFFIX}"
                keys[key] = slot
                slot_refs.setdefault(ids[id(opt)], []).append((var_id, slot_name, slot_id, key))
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    key_of = {id(v): k for k, v in keys.items()}
    for i, obj in enumerate(nodes + extra):
        node = graph.nodes.add()
        for name, child in children.get(i, []):
            node.children.add(node_id=child, local_name=name)
        if hasattr(obj, "handle"):
            node.attributes.add(name="VARIABLE_VALUE", full_name=obj.op.name, checkpoint_key=key_of[id(obj)])
        for var_id, slot_name, slot_id, _ in slot_refs.get(i, []):
            node.slot_variables.add(original_variable_node_id=var_id, slot_name=slot_name,
                                    slot_variable_node_id=slot_id)
    return keys, graph


def save_weights(model, filepath):
    """Writes the model's (and its optimizer's) variables to ``filepath``
    (``.index`` + ``.data-00000-of-00001``) and records it in the ``checkpoint`` file."""
    filepath = os.fspath(filepath)
    if filepath.endswith((".h5", ".keras")):
        raise NotImplementedError("ref.keras saves weights in TF's checkpoint format only (no HDF5)")
    session = backend.get_session()
    keys, object_graph = _keys(model)
    with session.graph.as_default(), control_dependencies(None), name_scope(None):
        with name_scope("save_object_graph"):
            placeholder = apply_op("Placeholder", dtype=dtypes.string, shape=TensorShape([]), name="object_graph")
        saveables = dict(keys)
        saveables[OBJECT_GRAPH_PROTO_KEY] = SaveableObject(
            placeholder, [SaveSpec(placeholder, "", OBJECT_GRAPH_PROTO_KEY, dtypes.string)], OBJECT_GRAPH_PROTO_KEY)
        saver_def = BulkSaverBuilder()._build_internal(saveables, build_restore=False, name="save")
    session.run(saver_def.save_tensor_name, {saver_def.filename_tensor_name: filepath,
                                             placeholder: object_graph.SerializeToString()})
    checkpoint_state.update_checkpoint_state_internal(os.path.dirname(filepath) or ".", filepath,
                                                      all_model_checkpoint_paths=[filepath],
                                                      save_relative_paths=True)


def load_weights(model, filepath):
    """Assigns every variable of the model whose key ``filepath`` holds (a
    directory: its latest checkpoint); NotFoundError when none matches."""
    filepath = os.fspath(filepath)
    if os.path.isdir(filepath):
        state = checkpoint_state.get_checkpoint_state(filepath)
        if state is None:
            raise errors.NotFoundError(None, None, f"No checkpoint found in {filepath}")
        filepath = state.model_checkpoint_path
    reader = NewCheckpointReader(filepath)
    keys, _ = _keys(model)
    found = {k: v for k, v in keys.items() if reader.has_tensor(k)}
    if not found:
        raise errors.NotFoundError(None, None, f"No weights of the model found in the checkpoint {filepath}")
    session = backend.get_session()
    with session.graph.as_default(), control_dependencies(None), name_scope(None):
        saver_def = BulkSaverBuilder()._build_internal(found, build_save=False, name="restore")
    session.run(saver_def.restore_op_name, {saver_def.filename_tensor_name: filepath})
