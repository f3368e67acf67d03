"""``tf.train.Checkpoint``: object-based checkpoints of Variables and Optimizers
(graph mode), in TensorFlow's format.

TF's API reference, ``tf.compat.v1.train.Checkpoint``: "Object-based
checkpointing saves a graph of dependencies between Python objects (Layers,
Optimizers, Variables, etc.) with named edges, and this graph is used to match
variables when restoring a checkpoint."

The format (TF's ``TrackableObjectGraph``): the root is the Checkpoint; its
children are the keyword arguments (sorted by name), then ``save_counter``.
An Optimizer's children are its non-slot variables (``beta1_power``...); its
slots are ``slot_variables`` references (original variable node, slot name,
slot node). Nodes are numbered breadth first. A variable reached by the path
``a/b`` is saved under ``a/b/.ATTRIBUTES/VARIABLE_VALUE``; a slot under
``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>/.ATTRIBUTES/VARIABLE_VALUE``
(``/`` in a name is escaped ``.S``, ``.`` is ``..``). The serialized graph is
saved as the string tensor ``_CHECKPOINTABLE_OBJECT_GRAPH``.

Restoring walks the checkpoint's object graph and the Python objects side by
side, matching children by name. Matching happens when the restore ops are
built (``run_restore_ops`` / ``initialize_or_restore``), so slots and
variables created after ``restore()`` are still restored, as TF defers them.
A checkpoint without an object graph (written by ``Saver``) is restored by
variable names.
"""
from __future__ import annotations

import collections
import os

import numpy as np

from ref.types import dtypes, errors
from ref.formats import checkpoint_state as _state
from ref.checkpoint.saver import OBJECT_GRAPH_PROTO_KEY, BulkSaverBuilder
from ref.checkpoint.saveable_object_util import SaveableObject, SaveSpec, op_list_to_dict
from ref.protos import trackable_object_graph_pb2
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variables import Variable
from ref.optimizers.optimizer import Optimizer
from ref.session import get_default_session
from ref.framework.graph import control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op
from ref.types.shapes import TensorShape
from ref.ops.io import scalar_text
from ref.formats.checkpoint_reader import NewCheckpointReader

__all__ = ["Checkpoint"]

_ESCAPE = "."
_OPTIMIZER_SLOTS_NAME = _ESCAPE + "OPTIMIZER_SLOT"
_OBJECT_ATTRIBUTES_NAME = _ESCAPE + "ATTRIBUTES"
VARIABLE_VALUE_KEY = "VARIABLE_VALUE"


def _escape_local_name(name: str) -> str:
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def _pb():
    return trackable_object_graph_pb2


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_optimizer(x) -> bool:
    return isinstance(x, Optimizer)


def _is_trackable(x) -> bool:
    return (isinstance(x, Checkpoint) or _is_variable(x) or _is_optimizer(x)
            or callable(getattr(x, "_checkpoint_dependencies", None)))


def _children(obj, graph):
    """``[(local name, object)]``: the named dependencies of ``obj`` (an object naming its own
    with ``_checkpoint_dependencies(graph)``: a loss scale, a loss-scaling optimizer)."""
    if isinstance(obj, Checkpoint):
        return list(obj._dependencies.items())
    own = getattr(obj, "_checkpoint_dependencies", None)
    if callable(own):
        return list(own(graph))
    if _is_optimizer(obj):
        return [(name, v) for (name, g), v in sorted(obj._non_slot_dict.items(), key=lambda kv: kv[0][0])
                if v.graph is graph]
    return []


class _View:
    """The object graph below a root: nodes breadth first, paths, slot variables."""

    def __init__(self, root, graph):
        self.nodes = [root]
        self.ids = {id(root): 0}
        self.paths = {0: ()}
        self.children = collections.defaultdict(list)
        queue = collections.deque([root])
        while queue:
            current = queue.popleft()
            cid = self.ids[id(current)]
            for name, dep in _children(current, graph):
                if id(dep) not in self.ids:
                    self.ids[id(dep)] = len(self.nodes)
                    self.nodes.append(dep)
                    self.paths[self.ids[id(dep)]] = self.paths[cid] + (name,)
                    queue.append(dep)
                self.children[cid].append((name, self.ids[id(dep)]))
        self.names = {i: "/".join(_escape_local_name(n) for n in p) for i, p in self.paths.items()}
        self.slots = collections.defaultdict(list)  # optimizer id -> [(slot name, original id, slot id)]
        for oid, opt in list(enumerate(self.nodes)):
            if not _is_optimizer(opt):
                continue
            for slot_name in opt.get_slot_names():
                for vid, var in list(enumerate(self.nodes)):
                    if not _is_variable(var):
                        continue
                    slot = opt.get_slot(var, slot_name)
                    if slot is None:
                        continue
                    if id(slot) in self.ids:
                        raise NotImplementedError("A slot variable was re-used as a dependency of a Trackable "
                                                  f"object: {slot.name}")
                    sid = len(self.nodes)
                    self.ids[id(slot)] = sid
                    self.nodes.append(slot)
                    self.names[sid] = (self.names[vid] + "/" + _OPTIMIZER_SLOTS_NAME + "/" + self.names[oid] + "/"
                                       + _escape_local_name(slot_name))
                    self.slots[oid].append((slot_name, vid, sid))

    def key(self, node_id) -> str:
        return f"{self.names[node_id]}/{_OBJECT_ATTRIBUTES_NAME}/{VARIABLE_VALUE_KEY}"

    def variables(self):
        """``{checkpoint key: variable}`` of every variable node."""
        return {self.key(i): n for i, n in enumerate(self.nodes) if _is_variable(n)}

    def proto(self):
        pb = _pb()
        graph = pb.TrackableObjectGraph()
        for i, node in enumerate(self.nodes):
            obj = graph.nodes.add()
            for name, cid in self.children[i]:
                obj.children.add(node_id=cid, local_name=name)
            if _is_variable(node):
                obj.attributes.add(name=VARIABLE_VALUE_KEY, full_name=node.op.name, checkpoint_key=self.key(i))
            for slot_name, vid, sid in self.slots.get(i, ()):
                obj.slot_variables.add(original_variable_node_id=vid, slot_name=slot_name, slot_variable_node_id=sid)
        return graph


def _default_session(session):
    if session is not None:
        return session
    session = get_default_session()
    if session is None:
        raise ValueError("No session: pass session= or enter `with sess.as_default():` (graph mode)")
    return session


class Checkpoint:
    """Groups trackable objects (Variables, Optimizers, Checkpoints), saving
    and restoring them; keeps ``save_counter`` for numbering checkpoints.

    Raises:
      ValueError: if objects in ``kwargs`` are not trackable.
    """

    def __init__(self, **kwargs):
        object.__setattr__(self, "_dependencies", {})
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_save_assign_op", None)
        object.__setattr__(self, "_save_ops", {})
        for k, v in sorted(kwargs.items(), key=lambda kv: kv[0]):
            setattr(self, k, v)

    def __setattr__(self, name, value):
        if not name.startswith("_"):
            if not _is_trackable(value):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object derived from "
                                 f"`Trackable`), got {value}. If you believe this object should be trackable "
                                 "(i.e. it is part of the TensorFlow Python API and manages state), please open "
                                 "an issue.")
            self._dependencies[name] = value
        object.__setattr__(self, name, value)

    # -- save_counter -------------------------------------------------------------
    def _maybe_create_save_counter(self):
        if self._save_counter is None:
            with control_dependencies(None):
                v = ResourceVariable(np.int64(0), name="save_counter", trainable=False, dtype=dtypes.int64)
            object.__setattr__(self, "_save_counter", v)
            self._dependencies["save_counter"] = v

    @property
    def save_counter(self):
        """Incremented when ``save()`` is called. Used to number checkpoints."""
        self._maybe_create_save_counter()
        return self._save_counter

    # -- saving ---------------------------------------------------------------------
    def _save_op(self, view, graph):
        """The save ops for the current set of variables (rebuilt when it changes)."""
        variables = view.variables()
        signature = tuple((k, id(v)) for k, v in sorted(variables.items()))
        cached = self._save_ops.get(graph)
        if cached is not None and cached[0] == signature:
            return cached[1]
        with graph.as_default(), control_dependencies(None), name_scope(None):
            with name_scope("save_object_graph"):
                placeholder = apply_op("Placeholder", dtype=dtypes.string, shape=TensorShape([]),
                                       name="object_graph")
            saveables = dict(variables)
            saveables[OBJECT_GRAPH_PROTO_KEY] = SaveableObject(
                placeholder, [SaveSpec(placeholder, "", OBJECT_GRAPH_PROTO_KEY, dtypes.string)],
                OBJECT_GRAPH_PROTO_KEY)
            saver_def = BulkSaverBuilder()._build_internal(saveables, build_restore=False, name="save")
        ops = (saver_def.filename_tensor_name, saver_def.save_tensor_name, placeholder)
        self._save_ops[graph] = (signature, ops)
        return ops

    def write(self, file_prefix, session=None):
        """Writes a training checkpoint (no numbering, no ``checkpoint`` file);
        returns ``file_prefix``."""
        session = _default_session(session)
        graph = session.graph
        view = _View(self, graph)
        filename_t, save_t, object_graph_t = self._save_op(view, graph)
        file_prefix = os.fspath(file_prefix)
        out = session.run(save_t, {filename_t: file_prefix,
                                   object_graph_t: view.proto().SerializeToString()})
        return scalar_text(out)

    def save(self, file_prefix, session=None):
        """Saves ``file_prefix-N`` with N the incremented ``save_counter`` and
        records it in the ``checkpoint`` file; returns the path."""
        session = _default_session(session)
        if self._save_counter is None:
            self._maybe_create_save_counter()
            session.run(self._save_counter.initializer)
        if self._save_assign_op is None or self._save_assign_op.graph is not session.graph:
            with session.graph.as_default():
                object.__setattr__(self, "_save_assign_op", self._save_counter.assign_add(np.int64(1)))
        number = int(session.run(self._save_assign_op))
        path = self.write("%s-%d" % (os.fspath(file_prefix), number), session=session)
        _state.update_checkpoint_state_internal(os.path.dirname(os.fspath(file_prefix)), path,
                                                all_model_checkpoint_paths=[path], save_relative_paths=True)
        return path

    # -- restoring --------------------------------------------------------------------
    def restore(self, save_path):
        """Restores this Checkpoint and the objects it depends on (when the
        returned status runs its restore ops); ``save_path`` None gives a status
        that only initializes. Name-based (Saver) checkpoints match by variable name."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path)
        reader = NewCheckpointReader(save_path)
        self._maybe_create_save_counter()
        if not reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
            return NameBasedSaverStatus(self, save_path, reader)
        graph = _pb().TrackableObjectGraph()
        try:
            graph.ParseFromString(reader.get_tensor(OBJECT_GRAPH_PROTO_KEY))
        except Exception:
            raise errors.DataLossError(None, None, f"Unable to parse the object graph of checkpoint {save_path}") \
                from None
        return CheckpointLoadStatus(self, save_path, graph, reader)

    def read(self, save_path):
        """Restores like ``restore`` and silences the partial-restore checks
        (``expect_partial``) -- for reading a checkpoint written by ``write``."""
        return self.restore(save_path).expect_partial()


# ---------------------------------------------------------------------------
# Load statuses
# ---------------------------------------------------------------------------

def _all_variables(root, graph):
    view = _View(root, graph)
    return [n for n in view.nodes if _is_variable(n)]


def _initialize(session, variables):
    inits = [v.initializer for v in variables]
    if inits:
        session.run(inits)


class _RestoreRunner:
    """Builds (once per key set) and runs the restore ops for ``{key: variable}``."""

    def __init__(self):
        self._cache = {}

    def run(self, session, save_path, key_to_var):
        if not key_to_var:
            return
        graph = session.graph
        signature = (graph, tuple((k, id(v)) for k, v in sorted(key_to_var.items())))
        saver_def = self._cache.get(signature)
        if saver_def is None:
            with graph.as_default():
                with control_dependencies(None), name_scope(None):
                    saver_def = BulkSaverBuilder()._build_internal(dict(key_to_var), build_save=False,
                                                                   name="restore")
            self._cache[signature] = saver_def
        session.run(saver_def.restore_op_name, {saver_def.filename_tensor_name: save_path})


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns for an object-based checkpoint."""

    def __init__(self, root, save_path, object_graph, reader):
        self._root = root
        self._save_path = save_path
        self._graph = object_graph
        self._reader = reader
        self._runner = _RestoreRunner()
        self._restored = set()

    def _match(self, graph):
        """``({key: variable}, matched python ids, matched proto ids)`` for the objects that exist now."""
        view = _View(self._root, graph)
        by_node = {0: self._root}
        queue = collections.deque([0])
        while queue:
            pid = queue.popleft()
            obj = by_node[pid]
            mine = dict(_children(obj, graph))
            for child in self._graph.nodes[pid].children:
                dep = mine.get(child.local_name)
                if dep is not None and child.node_id not in by_node:
                    by_node[child.node_id] = dep
                    queue.append(child.node_id)
        for pid, obj in list(by_node.items()):
            if not _is_optimizer(obj):
                continue
            for ref in self._graph.nodes[pid].slot_variables:
                var = by_node.get(ref.original_variable_node_id)
                slot = obj.get_slot(var, ref.slot_name) if _is_variable(var) else None
                if slot is not None:
                    by_node[ref.slot_variable_node_id] = slot
        key_to_var = {}
        for pid, obj in by_node.items():
            if not _is_variable(obj):
                continue
            for attr in self._graph.nodes[pid].attributes:
                if attr.name == VARIABLE_VALUE_KEY:
                    key_to_var[attr.checkpoint_key] = obj
        return key_to_var, view, by_node

    def assert_consumed(self):
        """Raises AssertionError unless every checkpointed value has a Python
        object and every Python variable a checkpointed value."""
        graph = self._graph_for_checks(get_default_graph())
        key_to_var, view, by_node = self._match(graph)
        unused = [n for i, n in enumerate(self._graph.nodes) if n.attributes and i not in by_node]
        if unused:
            keys = [a.checkpoint_key for n in unused for a in n.attributes]
            raise AssertionError(f"Unresolved object in checkpoint: {keys}")
        self.assert_existing_objects_matched()
        return self

    def _graph_for_checks(self, default):
        for v in _all_variables(self._root, default) or [self._root.save_counter]:
            return v.graph
        return default

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a Python variable in the dependency graph has no value in the checkpoint."""
        graph = self._graph_for_checks(get_default_graph())
        key_to_var, view, _ = self._match(graph)
        matched = {id(v) for v in key_to_var.values()}
        missing = [v.name for v in view.nodes if _is_variable(v) and id(v) not in matched]
        if missing:
            raise AssertionError(f"Some Python objects were not bound to checkpointed values, likely due to "
                                 f"changes in the Python program: {missing}")
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError unless something besides the root (and its save_counter) matched."""
        key_to_var, _, _ = self._match(self._graph_for_checks(get_default_graph()))
        if not [v for v in key_to_var.values() if v is not self._root._save_counter]:
            raise AssertionError(f"Nothing except the root object matched a checkpointed value. Typically this "
                                 f"means that the checkpoint does not match the Python program. ({self._save_path})")
        return self

    def expect_partial(self):
        """Silences warnings about incomplete restores (ref prints none); returns self."""
        return self

    def run_restore_ops(self, session=None):
        """Runs the restore ops for every object matched so far."""
        session = _default_session(session)
        key_to_var, _, _ = self._match(session.graph)
        self._runner.run(session, self._save_path, key_to_var)
        self._restored = {id(v) for v in key_to_var.values()}
        return self

    def initialize_or_restore(self, session=None):
        """Restores the matched objects and runs the initializers of the others."""
        session = _default_session(session)
        self.run_restore_ops(session)
        _initialize(session, [v for v in _all_variables(self._root, session.graph) if id(v) not in self._restored])
        return self


class NameBasedSaverStatus:
    """``Checkpoint.restore`` of a checkpoint written by ``Saver``: variables
    are matched by their names."""

    def __init__(self, root, save_path, reader):
        self._root = root
        self._save_path = save_path
        self._reader = reader
        self._runner = _RestoreRunner()

    def _split(self, graph):
        names = op_list_to_dict([v for v in _all_variables(self._root, graph)])
        found = {k: v for k, v in names.items() if self._reader.has_tensor(k)}
        missing = sorted(k for k in names if k not in found)
        return found, missing

    def assert_consumed(self):
        _, missing = self._split(get_default_graph())
        if missing:
            raise AssertionError(f"Some objects had attributes which were not restored: {missing}")
        return self

    assert_existing_objects_matched = assert_consumed

    def assert_nontrivial_match(self):
        found, _ = self._split(get_default_graph())
        if not found:
            raise AssertionError(f"No variable matched a name in {self._save_path}")
        return self

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        session = _default_session(session)
        found, _ = self._split(session.graph)
        self._runner.run(session, self._save_path, found)
        return self

    def initialize_or_restore(self, session=None):
        session = _default_session(session)
        found, missing = self._split(session.graph)
        self._runner.run(session, self._save_path, found)
        names = op_list_to_dict([v for v in _all_variables(self._root, session.graph)])
        _initialize(session, [names[k] for k in missing if _is_variable(names[k])])
        return self


class InitializationOnlyStatus:
    """``Checkpoint.restore(None)``: nothing to restore; initializes on request."""

    def __init__(self, root):
        self._root = root

    def _fail(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self):
        self._fail()

    def assert_existing_objects_matched(self):
        self._fail()

    def assert_nontrivial_match(self):
        self._fail()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")

    def initialize_or_restore(self, session=None):
        """Runs the initializers of every variable in the dependency graph."""
        session = _default_session(session)
        self._root._maybe_create_save_counter()
        _initialize(session, _all_variables(self._root, session.graph))
        return self
