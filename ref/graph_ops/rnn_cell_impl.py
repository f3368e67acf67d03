"""TF1 recurrent cells (``tf.nn.rnn_cell``, ``tf.compat.v1.nn.rnn_cell``).

A cell maps ``(inputs [batch, input_depth], state)`` to ``(output, new_state)``
for one time step; ``tf.nn.dynamic_rnn`` and ``tf.nn.static_rnn`` run it over a
sequence. As in TF 1.x:

* a cell is a ``tf.layers`` Layer: its first call opens
  ``variable_scope(scope, default_name=<snake_case class name>)`` (so under
  ``dynamic_rnn`` the variables are ``rnn/basic_lstm_cell/kernel``, ...), builds
  the variables there, and later calls reuse them;
* kernels use the variable scope's initializer (``glorot_uniform`` by default),
  biases start at zero (``GRUCell``'s ``gates/bias`` at 1.0);
* ``BasicLSTMCell``/``LSTMCell`` split the pre-activations in the order
  ``i, j, f, o`` (input gate, new input, forget gate, output gate):
  ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``,
  ``h' = tanh(c') * sigmoid(o)``; the state is ``LSTMStateTuple(c, h)``;
* ``GRUCell``: ``r, u = split(sigmoid([x, h] . W_g + b_g))``,
  ``c = tanh([x, r * h] . W_c + b_c)``, ``h' = u * h + (1 - u) * c``.

TF 2.21 keeps these classes only in the legacy ``tf_keras`` copy
(``tensorflow/python/keras/layers/legacy_rnn``); ``ref`` follows it.
"""
from __future__ import annotations

import collections
import re

from ref.types import dtypes, nest
from ref.types.shapes import TensorShape, dimension_value
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, clip_ops, init_ops, math_ops, nn_ops
from ref.graph_ops.partitioned import fixed_size_partitioner
from ref.graph_ops.layers import Layer
from ref.graph_ops.variable_scope import get_variable, variable_scope

__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "LSTMStateTuple"]

_WEIGHTS_VARIABLE_NAME = "kernel"
_BIAS_VARIABLE_NAME = "bias"

_ACTIVATIONS = {"tanh": math_ops.tanh, "sigmoid": math_ops.sigmoid, "relu": nn_ops.relu, "linear": lambda x: x}


def _activation(activation):
    if not activation:
        return math_ops.tanh
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"Unknown activation function: {activation}")
        return _ACTIVATIONS[activation]
    return activation


def _check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but saw dtype: {dtype}")


def _snake_case(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def assert_like_rnncell(cell_name, cell):
    """Raises TypeError unless ``cell`` has ``output_size``, ``state_size``,
    ``zero_state`` and is callable (TF's duck-typed check)."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"), hasattr(cell, "zero_state"),
                  callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    if not all(conditions):
        errors = [e for e, c in zip(errors, conditions) if not c]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(errors)}.")


def _concat(prefix, suffix, static=False):
    """``prefix`` + ``suffix`` (ints, TensorShapes or int32 vectors/scalars) as
    an int32 shape tensor, or with ``static`` as a list with None for unknowns."""
    def parts(x):
        if isinstance(x, Tensor):
            value = constant_value(x)
            static_part = None if value is None else [int(v) for v in
                                                      (value.reshape(-1) if hasattr(value, "reshape") else [value])]
            if x.shape.ndims == 0:
                x = array_ops.expand_dims(x, 0)
            elif x.shape.ndims != 1:
                raise ValueError(f"prefix tensor must be either a scalar or vector, but saw tensor: {x}")
            return x, (static_part if static_part is not None else [None] * (dimension_value(x.shape[0]) or 0))
        shape = TensorShape(x)
        listed = shape.as_list() if shape.ndims is not None else None
        return (constant(listed, dtype=dtypes.int32) if shape.is_fully_defined() else None), listed

    p, p_static = parts(prefix)
    s, s_static = parts(suffix)
    if static:
        if p_static is None or s_static is None:
            return None
        return list(p_static) + list(s_static)
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    def zeros(s):
        z = array_ops.zeros(_concat(batch_size, s), dtype=dtype)
        static = _concat(batch_size, s, static=True)
        if static is not None:
            z.set_shape(static)
        return z

    return nest.map_structure(zeros, state_size)


class RNNCell(Layer):
    """Abstract recurrent cell: ``(output, new_state) = cell(inputs, state)``.

    Subclasses define ``state_size``, ``output_size`` and either ``call``
    (with ``build`` creating variables through :meth:`add_variable`) or
    ``__call__`` itself. ``state_size`` may be an int, a TensorShape or a
    nested tuple of them; the state then has matching ``[batch] + size`` parts.
    """

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, **kwargs):
        super().__init__(name=name, trainable=trainable)
        self._base_name = name or _snake_case(type(self).__name__)
        self._reuse = _reuse
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        self._trainable_weights = []

    @property
    def dtype(self):
        return self._dtype

    @property
    def state_size(self):
        """Size(s) of the state: an int, a TensorShape or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """Size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, _):
        pass

    def call(self, inputs, state):
        raise NotImplementedError("Abstract method")

    def add_variable(self, name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                     partitioner=None, **kwargs):
        """``get_variable(name, ...)`` in the cell's scope, recorded in ``variables``."""
        trainable = self.trainable if trainable is None else trainable
        self._set_scope(None)
        reuse = True if (self.built or self._reuse) else None
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
            var = get_variable(name, shape=shape, dtype=dtype or self._dtype or dtypes.float32,
                               initializer=initializer, regularizer=regularizer, trainable=trainable,
                               partitioner=partitioner)
        if not any(var is v for v in self.variables):
            self.variables.append(var)
        return var

    add_weight = add_variable

    def _set_scope(self, scope):
        if self._scope is None:
            if self._reuse:
                ctx = variable_scope(scope if scope is not None else self._base_name)
            else:
                ctx = variable_scope(scope, default_name=self._base_name)
            with ctx as captured:
                self._scope = captured

    def __call__(self, inputs, state, scope=None):
        """Runs the cell on ``inputs`` [batch, depth] from ``state``; the first
        call creates the variables under ``scope`` (default: the snake-case
        class name, uniquified), later calls reuse them."""
        self._set_scope(scope)
        reuse = True if (self.built or self._reuse) else None
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
            with name_scope(self._scope.original_name_scope):
                inputs = nest.map_structure(lambda x: convert_to_tensor(x, name="inputs"), inputs)
                if isinstance(self, LayerRNNCell):
                    for x in nest.flatten(inputs) + nest.flatten(state):
                        if isinstance(x, Tensor):
                            _check_supported_dtypes(x.dtype)
                if not self.built:
                    first = nest.flatten(inputs)[0]
                    if self._dtype is None:
                        self._dtype = first.dtype.base_dtype
                    self.build(first.shape if not nest.is_nested(inputs) else
                               nest.map_structure(lambda x: x.shape, inputs))
                    self.built = True
                return self.call(inputs, state)

    def apply(self, inputs, state, scope=None):
        return self.__call__(inputs, state, scope=scope)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """``zero_state`` for ``inputs``' batch size and dtype (or the ones given)."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            static = dimension_value(inputs.shape[0]) if inputs.shape.ndims else None
            if batch_size is not None:
                given = constant_value(batch_size) if isinstance(batch_size, Tensor) else batch_size
                if static != given:
                    raise ValueError(f"batch size from input tensor is different from the input param. Input "
                                     f"tensor batch: {static}, batch_size: {batch_size}")
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError(f"dtype from input tensor is different from the input param. Input tensor "
                                 f"dtype: {inputs.dtype}, dtype: {dtype}")
            batch_size = static or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(f"batch_size and dtype cannot be None while constructing initial state: "
                             f"batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros shaped ``[batch_size] + s`` for each ``s`` in ``state_size``."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An RNNCell whose variables are made in ``build`` (TF's LayerRNNCell)."""


def _input_depth(inputs_shape):
    shape = TensorShape(inputs_shape)
    depth = dimension_value(shape[-1]) if shape.ndims else None
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {shape}")
    return depth


class BasicRNNCell(LayerRNNCell):
    """``output = new_state = activation([inputs, state] . kernel + bias)``:
    kernel [input_depth + num_units, num_units], bias [num_units] (zeros)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                       initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn_ops.bias_add(gate_inputs, self._bias))
        return output, output


class GRUCell(LayerRNNCell):
    """Gated recurrent unit (Cho et al. 2014): variables ``gates/kernel``
    [depth + units, 2 units], ``gates/bias`` (1.0 unless ``bias_initializer``),
    ``candidate/kernel`` [depth + units, units], ``candidate/bias`` (zeros)."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        n = self._num_units
        self._gate_kernel = self.add_variable("gates/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + n, 2 * n],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable("gates/" + _BIAS_VARIABLE_NAME, shape=[2 * n],
                                            initializer=self._bias_initializer or init_ops.constant_initializer(1.0))
        self._candidate_kernel = self.add_variable("candidate/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + n, n],
                                                   initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable("candidate/" + _BIAS_VARIABLE_NAME, shape=[n],
                                                 initializer=self._bias_initializer or init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        gate_inputs = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel),
                                      self._gate_bias)
        r, u = array_ops.split(math_ops.sigmoid(gate_inputs), 2, axis=1)
        candidate = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, r * state], 1),
                                                    self._candidate_kernel), self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """``(c, h)``: the LSTM memory cell and hidden (output) state."""
    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """LSTM without peepholes, clipping or projection (Zaremba et al. 2014):
    ``i, j, f, o = split([inputs, h] . kernel + bias, 4)``,
    ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * activation(j)``,
    ``h' = activation(c') * sigmoid(o)``; kernel [depth + units, 4 units],
    bias [4 units] (zeros)."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        n = self._num_units
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME, shape=[depth + n, 4 * n])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * n], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        one = constant(1, dtype=dtypes.int32)  # TF's split axis: one Const shared by the splits
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(state, 2, axis=one)
        gate_inputs = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = array_ops.split(gate_inputs, 4, axis=one)
        forget_bias = constant(self._forget_bias, dtype=f.dtype)
        sigmoid = math_ops.sigmoid
        new_c = math_ops.add(math_ops.multiply(c, sigmoid(math_ops.add(f, forget_bias))),
                             math_ops.multiply(sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


def _shards(num_shards):
    return fixed_size_partitioner(num_shards) if num_shards is not None else None


class _SliceGlorotUniform(init_ops.GlorotUniform):
    """glorot_uniform with the fans of each slice of a partitioned variable,
    not of the whole: what TF 2.21's legacy cells get from Keras' default
    initializer for ``num_unit_shards``/``num_proj_shards`` kernels."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return super().__call__(shape, dtype)


def _sharded_initializer(initializer, num_shards):
    return _SliceGlorotUniform() if initializer is None and num_shards is not None else initializer


class LSTMCell(LayerRNNCell):
    """LSTM with optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``),
    cell clipping, and a projection ``projection/kernel`` [units, num_proj]
    with optional ``proj_clip`` (Hochreiter & Schmidhuber 1997; Sak et al.
    2014). ``initializer`` is for the kernels and peepholes; bias starts at
    zeros. ``num_unit_shards``/``num_proj_shards`` (deprecated in TF) split
    the kernel / projection kernel with ``fixed_size_partitioner``."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        h = num_proj or num_units
        self._state_size = LSTMStateTuple(num_units, h) if state_is_tuple else num_units + h
        self._output_size = h

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME, shape=[depth + h_depth, 4 * n],
                                         initializer=_sharded_initializer(self._initializer, self._num_unit_shards),
                                         partitioner=_shards(self._num_unit_shards))
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * n], initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable("projection/" + _WEIGHTS_VARIABLE_NAME, shape=[n, self._num_proj],
                                                  initializer=_sharded_initializer(self._initializer,
                                                                                   self._num_proj_shards),
                                                  partitioner=_shards(self._num_proj_shards))
        self.built = True

    def call(self, inputs, state):
        n = self._num_units
        num_proj = n if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, n])
            m_prev = array_ops.slice(state, [0, n], [-1, num_proj])
        if dimension_value(inputs.shape.with_rank(2)[1]) is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel),
                                      self._bias)
        i, j, f, o = array_ops.split(lstm_matrix, 4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked in order: cell ``i`` runs under ``cell_<i>/`` on the output
    of cell ``i - 1``; the state is the tuple of the cells' states (or, with
    ``state_is_tuple=False``, their concatenation)."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set.  "
                             f"State sizes are: {[c.state_size for c in cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zero_state_tensors(self.state_size, batch_size, dtype)

    @property
    def variables(self):
        return [v for cell in self._cells if isinstance(cell, Layer) for v in cell.variables]

    @variables.setter
    def variables(self, value):  # the cells' variables are the only ones
        pass

    @property
    def trainable_variables(self):
        return [v for cell in self._cells if isinstance(cell, Layer) for v in cell.trainable_variables]

    trainable_weights = trainable_variables

    @property
    def weights(self):
        return self.variables

    def call(self, inputs, state):
        pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, but "
                                         f"received: {state}")
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, pos], [-1, cell.state_size])
                    pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        return cur_inp, (tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1))
