"""Saveables: what one variable, slice or tensor contributes to a checkpoint
(TF's ``training/saving/saveable_object_util.py``): ``SaveSpec``,
``SaveableObject`` and its variable kinds, ``op_list_to_dict`` (the
``var_list`` of a ``Saver`` as checkpoint names) and
``validate_and_slice_inputs``.
"""
from __future__ import annotations

from ref.framework.graph import GraphKeys, Tensor, device, get_collection
from ref.framework.saveable_object import SaveableObject, SaveSpec
from ref.framework.op_def_library import apply_op
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variables import Variable
from ref.graph_ops.partitioned import PartitionedVariable
from ref.checkpoint.trackable_base import Trackable

__all__ = ["SaveSpec", "SaveableObject", "op_list_to_dict", "saveable_objects_for_op", "validate_and_slice_inputs",
           "trackable_has_serialize_to_tensor", "saveable_objects_from_trackable", "TrackableSaveable",
           "SaveableCompatibilityConverter", "saveable_object_to_tensor_dict", "saveable_object_to_restore_fn"]

_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp")


# ---------------------------------------------------------------------------
# Saveables: what one variable (or slice) contributes to a checkpoint
# ---------------------------------------------------------------------------

class ReferenceVariableSaveable(SaveableObject):
    """A ``VariableV2`` (ref variable): saved from its ref tensor, restored with
    ``Assign`` (``validate_shape`` unless reshaping). TF's Assign knows an
    uninitialized variable's declared shape; ref's Assign is told it through its
    ``_ref_shape`` attr, so a wrong-shaped checkpoint value is TF's
    InvalidArgumentError "Assign requires shapes of both tensors to match"."""

    def __init__(self, var, slice_spec, name):
        super().__init__(var, [SaveSpec(var, slice_spec, name, dtype=var.dtype.base_dtype)], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        if restored_shapes is not None:
            restored = apply_op("Reshape", tensor=restored, shape=restored_shapes[0])
        validate = restored_shapes is None and self.op.shape.is_fully_defined()
        return apply_op("Assign", ref=self.op, value=restored, validate_shape=validate, use_locking=True,
                        _ref_shape=self.op.shape if validate else None, name="Assign").op


class ResourceVariableSaveable(SaveableObject):
    """A resource variable: saved from a ``ReadVariableOp``, restored with
    ``AssignVariableOp``. A restored value of unknown static shape passes
    ``EnsureShape`` first, so a wrong-shaped value is an InvalidArgumentError
    (TF's AssignVariableOp would take it silently); a known static shape is
    checked at construction, as TF's shape-safe assign does."""

    def __init__(self, var, slice_spec, name):
        self.handle_op = var.handle
        self._var_shape = var.shape
        read = var._graph_element
        if slice_spec:  # a partition: read where the variable lives, copied to that machine's CPU (as TF)
            read = _read_on_cpu(var)
        super().__init__(var, [SaveSpec(read, slice_spec, name, dtype=var.dtype, device=var.device)], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        if restored_shapes is not None:
            restored = apply_op("Reshape", tensor=restored, shape=restored_shapes[0])
        restored = apply_op("Identity", input=restored)
        if not self._var_shape.is_compatible_with(restored.shape):
            raise ValueError(f"Shapes {self._var_shape} and {restored.shape} are incompatible")
        if self._var_shape.is_fully_defined() and not restored.shape.is_fully_defined():
            restored = apply_op("EnsureShape", input=restored, shape=self._var_shape)
        return apply_op("AssignVariableOp", resource=self.handle_op, value=restored, name="AssignVariableOp")


def _read_on_cpu(var):
    """A callable building (when the save op is built) ``var``'s value read on its
    device and copied to ``/device:CPU:0`` of the same job and task."""
    def read():
        with device(var.device):
            value = apply_op("ReadVariableOp", resource=var.handle, dtype=var.dtype.base_dtype)
            with device("/device:CPU:0"):
                return apply_op("Identity", input=value)
    return read


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_partitioned(x) -> bool:
    return isinstance(x, PartitionedVariable)


def _is_resource(x) -> bool:
    return isinstance(x, ResourceVariable)


def _variable_saveable(var, slice_spec, name):
    return (ResourceVariableSaveable if _is_resource(var) else ReferenceVariableSaveable)(
        var if _is_resource(var) else var._ref(), slice_spec, name)


def _tensor_saveable(t, name):
    """A Tensor that is a variable's output (``v:0`` of VariableV2, or a read of a resource variable)."""
    if not isinstance(t, Tensor) or t.op.type not in _VARIABLE_OPS:
        raise TypeError("names_to_saveables must be a dict mapping string names to Tensors/Variables. "
                        f"Not a variable: {t}")
    if t.op.type in ("VarHandleOp", "ReadVariableOp"):
        var = _resource_variable_of(t)
        if var is None:
            raise TypeError(f"Cannot save {t}: no tf.Variable owns this resource handle")
        return ResourceVariableSaveable(var, "", name)
    return ReferenceVariableSaveable(t, "", name)


def _resource_variable_of(t):
    handle = t if t.op.type == "VarHandleOp" else t.op.inputs[0]
    for v in t.graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + t.graph.get_collection(GraphKeys.LOCAL_VARIABLES):
        if _is_resource(v) and v.handle is handle:
            return v
    return None


def _is_saveable(x) -> bool:
    """A SaveableObject, or an object with its interface (a lookup table's saveable)."""
    return isinstance(x, SaveableObject) or (hasattr(x, "specs") and callable(getattr(x, "restore", None)))


_VARIABLE_VALUE_KEY = "VARIABLE_VALUE"  # trackable.VARIABLE_VALUE_KEY


def _is_trackable(x) -> bool:
    """An object that names its own saveables (TF's Trackable protocol), not a variable."""
    return callable(getattr(x, "_gather_saveables_for_checkpoint", None)) and not _is_variable(x)


def _trackable_saveables(obj, name=None):
    """The variables/SaveableObjects ``obj`` gathers; a factory is called with
    ``name`` (``name_<attr>`` for attributes other than the variable value) or
    with its own default name when ``name`` is None (TF's tf1 Saver rules)."""
    out = []
    for attr, factory in obj._gather_saveables_for_checkpoint().items():
        if callable(factory) and not _is_variable(factory):
            if name is None:
                factory = factory()
            else:
                factory = factory(name if attr == _VARIABLE_VALUE_KEY else f"{name}_{attr}")
        out.append(factory)
    return out


def saveable_objects_for_op(op, name):
    """The SaveableObjects for one entry ``name: op`` of a Saver's var_list
    (a mutable lookup table gives its ``<name>-keys``/``<name>-values`` saveable;
    a trackable object, the saveables it gathers)."""
    if _is_saveable(op):
        yield op
        return
    if _is_trackable(op):
        for item in _trackable_saveables(op, name):
            yield from saveable_objects_for_op(item, item.name)  # TF: under the item's own name
        return
    if callable(getattr(op, "_saveable", None)):
        yield op._saveable(name)
        return
    if isinstance(op, (list, tuple)) or _is_partitioned(op):
        slice_name = None
        for variable in list(op):
            if _is_saveable(variable):
                yield variable
                continue
            if not _is_variable(variable):
                raise ValueError(f"Slices must all be Variables: {variable}")
            info = variable._get_save_slice_info()
            if info is None:
                raise ValueError(f"Slices must all be slices: {variable}")
            if slice_name is None:
                slice_name = info.full_name
            elif slice_name != info.full_name:
                raise ValueError(f"Slices must all be from the same tensor: {slice_name} != {info.full_name}")
            # TF: a slice's spec holds the Variable itself, which SaveV2 reads as its
            # value (``part_0/read``), where a whole variable is saved from its ref
            yield (ResourceVariableSaveable(variable, info.spec, name) if _is_resource(variable)
                   else ReferenceVariableSaveable(variable, info.spec, name))
        return
    if _is_variable(op):
        yield _variable_saveable(op, "", name)
        return
    yield _tensor_saveable(op, name)


def op_list_to_dict(op_list, convert_variable_to_tensor=True):
    """``{checkpoint key: variable}`` for a list of variables: the op name of
    each variable, the full name (a list of slices) of partitioned ones.

    Raises:
      TypeError: if ``op_list`` is not a list, tuple or set.
      ValueError: if two variables have the same name.
    """
    if not isinstance(op_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list. Got {op_list}")
    flat = []
    for x in op_list:
        flat.extend(x if isinstance(x, (list, tuple)) else [x])
    flat = sorted(flat, key=lambda x: x.name)
    out = {}
    for var in flat:
        if _is_trackable(var):  # its gathered saveables, each under its own name
            for key, value in op_list_to_dict(_trackable_saveables(var)).items():
                if key in out:
                    raise ValueError(f"At least two variables have the same name: {key}")
                out[key] = value
            continue
        if callable(getattr(var, "_saveable", None)):  # a mutable lookup table: under its name
            var = var._saveable(var._name)
        if _is_saveable(var) or _is_partitioned(var):
            if var.name in out:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            out[var.name] = var
        elif _is_variable(var) and var._get_save_slice_info() is not None:
            name = var._get_save_slice_info().full_name
            if name in out:
                if not isinstance(out[name], list):
                    raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
                out[name].append(var)
            else:
                out[name] = [var]
        else:
            if _is_variable(var):
                name = var.op.name
            elif isinstance(var, Tensor):
                if var.op.type not in _VARIABLE_OPS:
                    raise TypeError(f"Variable to save is not a Variable: {var}")
                name = var.op.inputs[0].op.name if var.op.type == "ReadVariableOp" else var.op.name
            else:
                raise TypeError(f"Variable to save is not a Variable: {var}")
            if name in out:
                raise ValueError(f"At least two variables have the same name: {name}")
            out[name] = var
    return out


def validate_and_slice_inputs(names_to_saveables):
    """The SaveableObjects of a var_list (list or dict), sorted by checkpoint key.

    Raises:
      ValueError: if the same variable is listed under two names.
    """
    if not isinstance(names_to_saveables, dict):
        names_to_saveables = op_list_to_dict(names_to_saveables)
    saveables, seen = [], set()
    for name, op in sorted(names_to_saveables.items(), key=lambda x: x[0]):
        for s in saveable_objects_for_op(op, name):
            key = id(s.op)
            if key in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(key)
            saveables.append(s)
    return saveables


def _all_saveable_objects(scope=None):
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope) + get_collection(GraphKeys.SAVEABLE_OBJECTS, scope)


# ---------------------------------------------------------------------------
# Trackables: TF2's _serialize_to_tensors and TF1's saveables, each from the other
# ---------------------------------------------------------------------------

SERIALIZE_TO_TENSORS_NAME = ".TENSORS"  # the local name of a converted _serialize_to_tensors
_OBJECT_ATTRIBUTES = ".ATTRIBUTES/"


def _escape_local_name(name):
    return name.replace(".", "..").replace("/", ".S")


def _extract_local_name(key):
    """The part of a checkpoint key after ``.ATTRIBUTES/`` (the whole key if none)."""
    i = key.find(_OBJECT_ATTRIBUTES)
    return key if i < 0 else key[i + len(_OBJECT_ATTRIBUTES):]


def _as_str(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def trackable_has_serialize_to_tensor(obj):
    """Whether ``obj``'s class (or the object itself) defines ``_serialize_to_tensors``
    nearer than a ``_gather_saveables_for_checkpoint`` or the Trackable base."""
    if "_serialize_to_tensors" in getattr(obj, "__dict__", {}):
        return True
    for t in type(obj).mro():
        if t is Trackable:
            return False
        if "_serialize_to_tensors" in t.__dict__:
            return True
        if "_gather_saveables_for_checkpoint" in t.__dict__:
            return False
    return False


class TrackableSaveable(SaveableObject):
    """The saveable of a Trackable's ``_serialize_to_tensors`` / ``_restore_from_tensors``."""

    def __init__(self, obj, specs, name, local_names, prefix=""):
        self._prefix = prefix
        self._local_names = local_names
        self._trackable = obj
        super().__init__(obj, specs, name)

    def restore(self, restored_tensors, restored_shapes):
        ret = self._trackable._restore_from_tensors(dict(zip(self._local_names, restored_tensors)))
        return ret if ret is not None else apply_op("NoOp")

    def get_proto_names_and_checkpoint_keys(self):
        return [(self._prefix + n, spec.name) for n, spec in zip(self._local_names, self.specs)]


def saveable_objects_from_trackable(obj, tf1_saver=False):
    """``{local name: factory(name) -> SaveableObject}`` of a Trackable: its
    ``_serialize_to_tensors`` as one ``TrackableSaveable`` (unless ``tf1_saver`` and
    it gathers saveables itself), else its ``_gather_saveables_for_checkpoint()``."""
    if tf1_saver:
        factories = obj._gather_saveables_for_checkpoint()
        if factories:
            return factories
    if not trackable_has_serialize_to_tensor(obj):
        return obj._gather_saveables_for_checkpoint()

    def create_saveable(name=""):
        specs, local_names = [], []
        for tensor_name, maybe in obj._serialize_to_tensors().items():
            local_names.append(tensor_name)
            spec_name = name + _escape_local_name(tensor_name)
            for slice_spec, tensor in (maybe if isinstance(maybe, dict) else {"": maybe}).items():
                if isinstance(tensor, SaveSpec):
                    tensor.name, tensor.slice_spec = spec_name, slice_spec
                    specs.append(tensor)
                else:
                    specs.append(SaveSpec(tensor, slice_spec, spec_name))
        return TrackableSaveable(obj, specs, name, local_names)

    return {SERIALIZE_TO_TENSORS_NAME: create_saveable}


def saveable_object_to_tensor_dict(saveables):
    """``{spec name: tensor}`` (``{name: {slice spec: tensor}}`` for slices) of the saveables;
    a spec whose tensor is built lazily is given as the spec."""
    out = {}
    for saveable in saveables:
        for spec in saveable.specs:
            name, slice_spec = _as_str(spec.name), _as_str(spec.slice_spec)
            tensor = spec if callable(spec._tensor) else spec._tensor
            if slice_spec:
                out.setdefault(name, {})[slice_spec] = tensor
            else:
                out[name] = tensor
    return out


def saveable_object_to_restore_fn(saveables):
    """A ``_restore_from_tensors`` restoring each saveable from its specs' tensors."""
    def restore_from_tensors(restored_tensors):
        ops = {}
        for saveable in saveables:
            tensors = []
            for spec in saveable.specs:
                name = _extract_local_name(_as_str(spec.name))
                slice_spec = _as_str(spec.slice_spec)
                value = restored_tensors[name]
                tensors.append(value[slice_spec] if slice_spec else value)
            ops[saveable.name] = saveable.restore(tensors, None)
        return ops
    return restore_from_tensors


class SaveableCompatibilityConverter(Trackable):
    """A Trackable's TF1 saveables as ``_serialize_to_tensors``/``_restore_from_tensors``."""

    def __init__(self, obj, saveables):
        self._obj = obj
        self._saveables = saveables

    @property
    def obj(self):
        return self._obj

    @property
    def saveables(self):
        return self._saveables

    def _serialize_to_tensors(self):
        return saveable_object_to_tensor_dict(self._saveables)

    def _restore_from_tensors(self, restored_tensors):
        """The restore ops; ValueError unless the tensors are exactly the specs' local names."""
        expected = [_extract_local_name(_as_str(spec.name)) for s in self._saveables for spec in s.specs]
        if set(expected) != set(restored_tensors.keys()):
            raise ValueError(f"Could not restore object {self._obj} because not all expected tensors were in the "
                             f"checkpoint.\n\tExpected: {expected}\n\tGot: {list(restored_tensors.keys())}")
        return saveable_object_to_restore_fn(self._saveables)(restored_tensors)
