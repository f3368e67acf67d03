"""``tf.keras.Model`` (functional) and ``tf.keras.Sequential`` in graph mode.

A functional model is the graph of layer calls from its ``inputs`` (Keras
tensors from ``Input``) to its ``outputs``; calling the model on new tensors
calls the same layers again, in creation order, inside the model's name
scope (``sequential/dense/MatMul``), sharing their weights. A Sequential
model whose first layer knows its input shape builds that graph at once (an
``Input`` placeholder ``<first layer>_input``); otherwise the layers are
built on the first call, inside the model's scope, and that call's input and
output become the model's. Training (``compile``, ``fit``, ...) is in
:mod:`ref.keras.training`.
"""
from __future__ import annotations

from ref.types.shapes import TensorShape
from ref.keras import backend
from ref.keras.engine import Input, InputLayer, Layer, flatten, map_structure
from ref.keras import saving
from ref.keras.summary import print_summary
from ref.keras.training import Trainer

__all__ = ["Model", "Sequential"]


def _batch_input_shape(layer):
    """The input shape a layer declares (``input_shape=``), or a built model's input shape."""
    shape = getattr(layer, "_batch_input_shape", None)
    if shape is None and isinstance(layer, Model) and len(layer.inputs) == 1 and layer._is_graph_network:
        shape = tuple(layer.inputs[0].shape.as_list())
    return shape


class Model(Layer, Trainer):
    """``Model(inputs, outputs)``: the layers between Keras tensors as one layer."""

    _builds_on_call = True  # (only a subclassed model is not built at its first call)

    def __init__(self, inputs=None, outputs=None, name=None, trainable=True, **kwargs):
        Layer.__init__(self, name=name, trainable=trainable, **kwargs)
        Trainer.__init__(self)
        self.inputs, self.outputs, self._nodes, self._layers = [], [], [], []
        self._is_graph_network = False
        self.built = False
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise TypeError("Functional models need both `inputs` and `outputs`.")
            self._init_graph_network(inputs, outputs)

    def _init_graph_network(self, inputs, outputs):
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.inputs, self.outputs = flatten(inputs), flatten(outputs)
        for x in self.inputs:
            history = backend.keras_history(x)
            if history is None or not isinstance(history[0], InputLayer):
                raise ValueError(f"Input tensors to a Model must come from `tf.keras.Input`. Received: {x} "
                                 "(missing previous layer metadata).")
        nodes, seen, stack = [], set(), list(self.outputs)
        while stack:
            t = stack.pop()
            history = backend.keras_history(t)
            if history is None:
                raise ValueError(f"Output tensors of a Model must be the output of a Keras layer. Received: {t}")
            node = history[0]._inbound_nodes[history[1]]
            if id(node) in seen:
                continue
            seen.add(id(node))
            nodes.append(node)
            if not any(t is x for x in self.inputs):
                stack.extend(node.inputs)
        nodes.sort(key=lambda n: n.order)
        self._nodes = [n for n in nodes if not isinstance(n.layer, InputLayer)]
        input_layers = [backend.keras_history(x)[0] for x in self.inputs]
        layers = list(input_layers)
        for n in self._nodes:
            if not any(n.layer is lay for lay in layers):
                layers.append(n.layer)
        self._layers = layers
        self._is_graph_network = True
        self.built = True

    # -- structure ----------------------------------------------------------------
    @property
    def layers(self):
        if self._is_graph_network:
            return list(self._layers)
        return self._sublayers()  # a subclassed model: the layers its attributes hold

    def _sublayers(self):
        if self._is_graph_network:
            return self.layers
        return Layer._sublayers(self)

    @property
    def weights(self):
        """Layer by layer (each layer's trainable weights, then its others), as Keras orders them."""
        out, seen = [], set()
        for w in [w for layer in self.layers for w in layer.weights] + self._trainable_weights + \
                self._non_trainable_weights:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    variables = weights

    def get_layer(self, name=None, index=None):
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[la.name for la in self.layers]}.")

    @property
    def input(self):
        return self.inputs[0] if len(self.inputs) == 1 else self.inputs

    @property
    def output(self):
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs

    @property
    def output_names(self):
        return [backend.keras_history(t)[0].name for t in self.outputs]

    def is_sequential_like(self):
        if not self._is_graph_network:
            return True
        counts = {}
        for n in self._nodes:
            if len(n.inputs) > 1:
                return False
            counts[id(n.layer)] = counts.get(id(n.layer), 0) + 1
        return all(c == 1 for c in counts.values())

    def connections_of(self, layer):
        out = []
        for node in layer._inbound_nodes:
            if not any(node is n for n in self._nodes):
                continue
            for t in node.inputs:
                src, node_index, tensor_index = backend.keras_history(t)
                out.append(f"{src.name}[{node_index}][{tensor_index}]")
        return out

    def summary(self, line_length=None, positions=None, print_fn=None):
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by calling `build()` or by "
                             "calling the model on a batch of data.")
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn)

    def save_weights(self, filepath, overwrite=True, save_format=None):
        """The weights (and the optimizer's) as a TF object-based checkpoint (:mod:`ref.keras.saving`)."""
        saving.save_weights(self, filepath)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False):
        """Restores the weights saved by ``save_weights`` (here or by TF)."""
        saving.load_weights(self, filepath)

    # -- calling ------------------------------------------------------------------
    def call(self, inputs, training=None):
        if not self._is_graph_network:
            raise NotImplementedError("A subclassed Model must define `call`.")
        given = flatten(inputs)
        if len(given) != len(self.inputs):
            raise ValueError(f'Layer "{self.name}" expects {len(self.inputs)} input(s), but it received '
                             f"{len(given)} input tensors.")
        computed = {id(x): y for x, y in zip(self.inputs, given)}
        for node in self._nodes:
            args = map_structure(lambda t: computed[id(t)], node.call_inputs)
            kwargs = dict(node.kwargs)
            if training is not None and node.layer._call_takes("training"):
                kwargs["training"] = training
            for t, y in zip(node.outputs, flatten(node.layer(args, **kwargs))):
                computed[id(t)] = y
        return map_structure(lambda t: computed[id(t)], self._nested_outputs)

    def build(self, input_shape):
        self.built = True


class Sequential(Model):
    """A stack of layers, each called on the previous one's output."""

    _builds_on_call = False

    def __init__(self, layers=None, name=None):
        Model.__init__(self, name=name)
        self._stack = []
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return list(self._stack)

    def _sublayers(self):
        return self.layers

    def add(self, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"The added layer must be an instance of class Layer. Received: layer={layer} of type "
                            f"{type(layer)}.")
        if isinstance(layer, InputLayer):
            if self._stack or self.outputs:
                raise ValueError("An InputLayer must be the first layer of a Sequential model.")
            x = layer._inbound_nodes[0].outputs[0]
            self._init_graph_network(x, x)
            self._is_graph_network, self._nodes = True, []
            return
        self._stack.append(layer)
        if self.outputs:
            y = layer(self.outputs[0])
            if len(flatten(y)) != 1:
                raise ValueError("All layers in a Sequential model should have a single output tensor.")
            self._init_graph_network(self.inputs[0], y)
        elif len(self._stack) == 1 and _batch_input_shape(layer) is not None:
            x = Input(batch_shape=_batch_input_shape(layer), dtype=layer._dtype, name=layer.name + "_input")
            self._init_graph_network(x, layer(x))
        else:
            self.built = False

    def pop(self):
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        self._stack.pop()
        if self._is_graph_network and self._stack:
            self._init_graph_network(self.inputs[0], self._stack[-1]._inbound_nodes[-1].outputs[0])

    def call(self, inputs, training=None):
        if self._is_graph_network:
            return Model.call(self, inputs, training=training)
        x = inputs
        for layer in self._stack:
            kwargs = {"training": training} if training is not None and layer._call_takes("training") else {}
            x = layer(x, **kwargs)
        if not self.inputs:  # the deferred build: this call's tensors are the model's
            self.inputs, self.outputs = [inputs], [x]
            self._nested_inputs, self._nested_outputs = inputs, x
            self.built = True
        return x

    def build(self, input_shape=None):
        """Builds the graph from a placeholder of ``input_shape`` (``Placeholder``, as TF's v1 ``build``)."""
        self.build_from(input_shape, placeholder=True)

    def build_from(self, input_shape, placeholder=False):
        """Builds the graph from an ``Input`` of ``input_shape`` (``input_<n>``, as ``fit`` builds a model
        compiled before it knew its input), or over a bare placeholder."""
        if not self._is_graph_network and not self.inputs and input_shape is not None:
            shape = TensorShape(input_shape).as_list()
            x = Input(tensor=backend.placeholder(shape=shape)) if placeholder else Input(batch_shape=shape)
            y = x
            for layer in self._stack:
                y = layer(y)
            self._init_graph_network(x, y)
        self.built = True

    def is_sequential_like(self):
        return True
