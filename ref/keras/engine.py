"""Keras' ``Layer`` in graph mode (tf_keras' ``base_layer_v1``) and its inputs
(``InputLayer``, ``Input``).

A layer is named once, at construction, by its class in snake case made
unique in the graph (``dense``, ``dense_1``; ``name=`` as given). Each call
opens ``name_scope(layer.name)`` (so a second call builds in ``dense_1/``),
builds the weights on the first call (``add_weight``: a resource variable
``<scope>/<weight>`` whose initial value is built in
``<weight>/Initializer``), then runs ``call``. A layer whose ``call`` takes
``training`` and gets none leaves it None; the layers that need it then use
:func:`backend.learning_phase`. Calls on Keras tensors (from ``Input`` or
other layers) are recorded for the functional ``Model``: output tensor ->
(layer, node index, tensor index).
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import array_ops, math_ops, variables
from ref.keras import backend, initializers, regularizers

__all__ = ["Layer", "InputLayer", "Input", "InputSpec", "Node", "flatten", "map_structure"]


class InputSpec:
    """What a layer accepts: ``ndim``, ``min_ndim``, ``max_ndim``, ``axes``
    ({axis: size}); checked at each call (ValueError, Keras' message)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype, self.shape, self.max_ndim, self.min_ndim = dtype, shape, max_ndim, min_ndim
        self.ndim = len(shape) if shape is not None else ndim
        self.axes = dict(axes or {})

    def check(self, x, layer_name):
        ndim = x.shape.ndims
        if ndim is None:
            return
        if self.ndim is not None and ndim != self.ndim:
            raise ValueError(f'Input 0 of layer "{layer_name}" is incompatible with the layer: expected '
                             f"ndim={self.ndim}, found ndim={ndim}. Full shape received: {tuple(x.shape.as_list())}")
        if self.min_ndim is not None and ndim < self.min_ndim:
            raise ValueError(f"Input 0 of layer \"{layer_name}\" is incompatible with the layer: expected "
                             f"min_ndim={self.min_ndim}, found ndim={ndim}. Full shape received: "
                             f"{tuple(x.shape.as_list())}")
        for axis, size in self.axes.items():
            got = x.shape.as_list()[axis]
            if size is not None and got is not None and got != size:
                raise ValueError(f'Input 0 of layer "{layer_name}" is incompatible with the layer: expected '
                                 f"axis {axis} of input shape to have value {size}, but received input with "
                                 f"shape {tuple(x.shape.as_list())}")


class Node:
    """One call of a layer on Keras tensors: its inputs and outputs (flat
    lists), the inputs as passed (``call_inputs``), and a creation number (a
    topological order of the calls)."""

    _created = [0]

    def __init__(self, layer, inputs, outputs, kwargs, call_inputs=None):
        self.layer, self.inputs, self.outputs, self.kwargs = layer, inputs, outputs, kwargs
        self.input_tensors, self.output_tensors = inputs, outputs
        self.call_inputs = call_inputs
        Node._created[0] += 1
        self.order = Node._created[0]


def flatten(x):
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in flatten(item)]
    return [x]


class Layer:
    """The base of every Keras layer (graph mode)."""

    _expects_training = False
    _builds_on_call = True  # a model is built by its layers' calls instead

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, input_shape=None,
                 batch_input_shape=None, batch_size=None, input_dim=None, **kwargs):
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]}")
        if "_tracked_layers" not in self.__dict__:
            object.__setattr__(self, "_tracked_layers", [])
        self._name = name or backend.unique_object_name(backend.to_snake_case(type(self).__name__),
                                                        zero_based=True)
        self.trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).name
        self.built = False
        self.supports_masking = False
        self.input_spec = None
        self._trainable_weights, self._non_trainable_weights = [], []
        self._updates, self._losses, self._callable_losses = [], [], []
        self._inbound_nodes = []
        self._activity_regularizer = None
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            self._batch_input_shape = tuple(batch_input_shape)
        elif input_shape is not None:
            self._batch_input_shape = (batch_size,) + tuple(input_shape)

    # -- properties ---------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype or backend.floatx()

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return _dedup(list(self._trainable_weights) +
                      [w for layer in self._sublayers() for w in layer.trainable_weights])

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return _dedup(list(self._non_trainable_weights) +
                          [w for layer in self._sublayers() for w in layer.non_trainable_weights])
        return _dedup(list(self._trainable_weights) + list(self._non_trainable_weights) +
                      [w for layer in self._sublayers() for w in layer.weights])

    @property
    def weights(self):
        return _dedup(self.trainable_weights + self.non_trainable_weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        if not self.trainable:
            return []
        return list(self._updates) + [u for layer in self._sublayers() for u in layer.updates]

    @property
    def losses(self):
        """The losses added by the calls, and the weight regularizers' penalties (built anew at each read)."""
        out = list(self._losses)
        for fn in self._callable_losses:
            loss = fn()
            if loss is not None:
                out.append(loss)
        return out + [x for layer in self._sublayers() for x in layer.losses]

    def _sublayers(self):
        return list(self.__dict__.get("_tracked_layers", []))

    def __setattr__(self, name, value):
        """Layers held by public attributes (or lists of them) are this layer's
        sublayers: their weights, updates and losses count as its own."""
        object.__setattr__(self, name, value)
        if name.startswith("_"):
            return
        tracked = self.__dict__.setdefault("_tracked_layers", [])
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, Layer) and v is not self and not any(v is t for t in tracked):
                tracked.append(v)

    @property
    def input(self):
        return self._inbound_nodes[0].inputs[0] if self._inbound_nodes else None

    @property
    def output_shape(self):
        """The output shape of every call on Keras tensors (a tuple; a list for several outputs)."""
        if not self._inbound_nodes:
            raise AttributeError("The layer has never been called and thus has no defined output shape.")
        shapes = {tuple(tuple(t.shape.as_list()) for t in node.outputs) for node in self._inbound_nodes}
        if len(shapes) != 1:
            raise AttributeError(f'The layer "{self.name}" has multiple inbound nodes, with different output '
                                 "shapes. Hence the notion of \"output shape\" is ill-defined for the layer.")
        (shape,) = shapes
        return shape[0] if len(shape) == 1 else list(shape)

    @property
    def output(self):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        outs = self._inbound_nodes[0].outputs
        return outs[0] if len(outs) == 1 else outs

    # -- weights ------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, **kwargs):
        """A resource variable ``<scope>/<name>`` (tf_keras' ``make_variable``), tracked by the layer."""
        shape = () if shape is None else shape
        dtype = dtypes.as_dtype(dtype or self.dtype)
        initializer = initializers.get(initializer)
        if initializer is None:
            initializer = initializers.get("glorot_uniform") if dtype.is_floating else initializers.Zeros()
        trainable = True if trainable is None else trainable
        if callable(initializer):
            initial_value = functools.partial(initializer, shape, dtype=dtype)
            var_dtype = dtype.base_dtype
        else:
            initial_value, var_dtype = initializer, None
        var = variables.Variable(initial_value=initial_value, name=name, trainable=trainable, dtype=var_dtype,
                                 constraint=constraint, use_resource=True, shape=TensorShape(shape))
        backend.track_variable(var)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            def penalty(v=var, reg=regularizer, scope=var.op.name):
                with name_scope(scope + "/Regularizer"):
                    return reg(v)
            self._callable_losses.append(penalty)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(var)
        return var

    def get_weights(self):
        """The weights' values (NumPy arrays), through Keras' session."""
        return backend.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f'You called `set_weights(weights)` on layer "{self.name}" with a weight list of length '
                             f"{len(weights)}, but the layer was expecting {len(params)} weights. Provided weights: "
                             f"{str(weights)[:50]}...")
        for p, w in zip(params, weights):
            if not p.shape.is_compatible_with(TensorShape(np.shape(w))):
                raise ValueError(f"Layer weight shape {p.shape} not compatible with provided weight shape "
                                 f"{np.shape(w)}")
        backend.batch_set_value(list(zip(params, weights)))

    def count_params(self):
        return int(sum(np.prod(w.shape.as_list(), dtype=np.int64) for w in self.weights))

    # -- updates and losses -------------------------------------------------------
    def add_update(self, updates):
        for u in updates if isinstance(updates, (list, tuple)) else [updates]:
            if callable(u):
                u = u()
            if isinstance(u, Tensor):  # TF's assign on a resource variable: its update op, not the read after it
                op = u.op
                u = op.control_inputs[0] if op.type == "ReadVariableOp" and len(op.control_inputs) == 1 else op
            self._updates.append(u)

    def add_loss(self, losses, inputs=None):
        for x in losses if isinstance(losses, (list, tuple)) else [losses]:
            if callable(x):
                self._callable_losses.append(x)
            else:
                self._losses.append(convert_to_tensor(x, dtype=backend.floatx()))

    # -- building and calling -----------------------------------------------------
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement compute_output_shape.")

    def _call_takes(self, arg):
        return arg in inspect.signature(self.call).parameters

    def __call__(self, inputs, *args, **kwargs):
        flat = flatten(inputs)
        if any(isinstance(x, (np.ndarray, float, int)) for x in flat):
            inputs = map_structure(lambda x: convert_to_tensor(x) if isinstance(x, (np.ndarray, float, int)) else x, inputs)
            flat = flatten(inputs)
        if "training" in kwargs and not self._call_takes("training"):
            kwargs.pop("training")
        if self.input_spec is not None:
            for spec, x in zip(flatten(self.input_spec), flat):
                spec.check(x, self.name)
        input_masks = [backend.keras_mask(x) for x in flat]
        previous_mask = None if all(m is None for m in input_masks) else \
            (input_masks if isinstance(inputs, (list, tuple)) else input_masks[0])
        if "mask" in kwargs:
            previous_mask = kwargs["mask"]
        elif self._call_takes("mask"):
            kwargs["mask"] = previous_mask
        with name_scope(self._name_scope()):
            if not self.built and self._builds_on_call:
                if self._dtype is None and flat and isinstance(flat[0], Tensor):
                    self._dtype = flat[0].dtype.base_dtype.name
                shapes = map_structure(lambda x: x.shape, inputs)
                self.build(shapes)
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            if all(backend.is_keras_tensor(x) for x in flat):
                outputs = self._record_node(inputs, outputs, kwargs)
            if self._activity_regularizer is not None:
                self._activity_loss(outputs)
            self._set_mask_metadata(inputs, outputs, previous_mask)
        return outputs

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        """Keras' output masks: kept when the call attached them, else ``compute_mask`` (only when the layer
        supports masking or defines its own ``compute_mask``)."""
        flat_outputs = flatten(outputs)
        if all(backend.keras_mask(x) is not None for x in flat_outputs):
            return
        if not (self.supports_masking or type(self).compute_mask is not Layer.compute_mask):
            masks = [None] * len(flat_outputs)
        else:
            computed = self.compute_mask(inputs, previous_mask)
            masks = [None] * len(flat_outputs) if computed is None else flatten(computed)
        for x, m in zip(flat_outputs, masks):
            backend.set_keras_mask(x, m)

    def compute_mask(self, inputs, mask=None):
        """The output mask: the input's when the layer supports masking, else None (a mask given to a
        layer that does not support masking is a TypeError)."""
        if not self.supports_masking:
            if any(m is not None for m in flatten(mask)):
                raise TypeError("Layer " + self.name + " does not support masking, but was passed an input_mask: "
                                + str(mask))
            return None
        return mask

    def _name_scope(self):
        return self.name

    def _activity_loss(self, outputs):
        for out in flatten(outputs):
            with name_scope("ActivityRegularizer"):
                loss = self._activity_regularizer(out)
                batch = math_ops.cast(array_ops.shape(out)[0], loss.dtype)
                self._losses.append(math_ops.truediv(loss, batch))

    def _record_node(self, inputs, outputs, kwargs):
        flat_in = flatten(inputs)
        seen = {id(x) for x in flat_in}

        def copy(x):  # an output that is an input is copied, so that it gets its own history
            if id(x) in seen:
                with name_scope(self.name):
                    from_identity = array_ops.identity(x)
                return from_identity
            return x

        outputs = map_structure(copy, outputs)
        node = Node(self, flat_in, flatten(outputs), kwargs, inputs)
        self._inbound_nodes.append(node)
        for i, x in enumerate(node.outputs):
            backend.set_keras_history(x, (self, len(self._inbound_nodes) - 1, i))
        return outputs

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}


def _dedup(items):
    seen, out = set(), []
    for x in items:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


def map_structure(fn, x):
    if isinstance(x, (list, tuple)):
        return type(x)(map_structure(fn, item) for item in x)
    return fn(x)


class InputLayer(Layer):
    """The placeholder a functional model starts from (``input_1``, ...)."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=False, name=None,
                 batch_input_shape=None, **kwargs):
        if name is None:
            name = "input_" + str(backend.get_uid("input"))
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.built = True
        if input_tensor is None:
            input_tensor = backend.placeholder(shape=batch_input_shape, dtype=self.dtype, name=self.name)
        else:
            self._dtype = input_tensor.dtype.base_dtype.name
        self._batch_input_shape = tuple(input_tensor.shape.as_list()) if input_tensor.shape.ndims is not None \
            else None
        node = Node(self, [], [input_tensor], {}, [])
        self._inbound_nodes.append(node)
        backend.set_keras_history(input_tensor, (self, 0, 0))


    @property
    def output_shape(self):
        return [tuple(self._inbound_nodes[0].outputs[0].shape.as_list())]


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,  # noqa: N802
          batch_shape=None, **kwargs):
    """A Keras tensor: the placeholder of a new :class:`InputLayer` (or ``tensor``)."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` argument. Note that "
                         "`shape` does not include the batch dimension.")
    if shape is not None and not isinstance(shape, (list, tuple)):
        shape = tuple(shape.as_list()) if hasattr(shape, "as_list") else (shape,)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, input_tensor=tensor,
                       sparse=sparse, name=name, batch_input_shape=batch_shape, **kwargs)
    return layer._inbound_nodes[0].outputs[0]
