"""Keras' recurrent layers in graph mode (``unroll=False``): ``SimpleRNN``,
``LSTM`` and ``GRU`` as tf_keras' v1 classes define them (LSTM and GRU with
``hard_sigmoid`` recurrent activation and ``implementation=1``, GRU with
``reset_after=False``), building tf_keras' graph node for node.

The cell's weights are ``<layer>/<cell>/kernel``, ``recurrent_kernel``,
``bias`` (kernel ``glorot_uniform``, recurrent kernel ``orthogonal``, bias
zeros; LSTM's forget-gate bias ones). ``backend.rnn``: zero states, the
time-major input in a ``TensorArray``, the cell once on step 0 outside the
loop (for the output's shape), then a TF1 ``while_loop`` over ``(time,
output TensorArray, *states)``; ``return_sequences`` gives every step's
output, else the last one; ``return_state`` adds the final states;
``go_backwards`` reverses the time axis first. ``dropout`` /
``recurrent_dropout``: masks of ones dropped once per layer call (a ``cond``
on the learning phase), the same on every step.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.types.shapes import TensorShape, dimension_value
from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant
from ref.graph_ops import array_ops, control_flow_ops, math_ops, nn_ops, tensor_array_ops
from ref.keras import activations, backend, initializers
from ref.keras.engine import InputSpec, Layer

__all__ = ["SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell"]


_REGULARIZED = ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer")
_CONSTRAINED = ("kernel_constraint", "recurrent_constraint", "bias_constraint")
_LSTM_CELL_ARGS = ("activation", "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                   "bias_initializer", "unit_forget_bias") + _REGULARIZED + _CONSTRAINED + ("dropout",
                                                                                           "recurrent_dropout")
"""Keras' positional parameters after ``units``, in its order (``LSTMCell``; the other cells
drop what they lack, ``GRUCell`` ends with ``reset_after``)."""


def _without(names, *drop):
    return tuple(n for n in names if n not in drop)


def _by_name(cls, args, kwargs):
    """``kwargs`` with the positional ``args`` named by ``cls._POSITIONAL`` (Keras' order)."""
    if len(args) > len(cls._POSITIONAL):
        raise TypeError(f"{cls.__name__}() takes at most {len(cls._POSITIONAL) + 1} positional arguments")
    for name, value in zip(cls._POSITIONAL, args):
        if name in kwargs:
            raise TypeError(f"{cls.__name__}() got multiple values for argument '{name}'")
        kwargs[name] = value
    return kwargs


class _Cell(Layer):
    _gates = 1
    _POSITIONAL = _LSTM_CELL_ARGS

    def __init__(self, units, *args, **kwargs):
        kwargs = _by_name(type(self), args, kwargs)
        self._init(units, **kwargs)

    def _init(self, units, activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
              kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
              unit_forget_bias=True, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        unsupported = [k for k in _REGULARIZED + _CONSTRAINED + ("reset_after",) if kwargs.pop(k, None)]
        if unsupported:
            raise NotImplementedError(f"ref.keras {type(self).__name__}: {', '.join(unsupported)} not implemented")
        super().__init__(**kwargs)
        self.units = int(units)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.reset_dropout_mask()
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    @property
    def state_size(self):
        return [self.units]

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape):
        last = dimension_value(TensorShape(input_shape)[-1])
        n = self.units * self._gates
        self.kernel = self.add_weight("kernel", shape=(last, n), initializer=self.kernel_initializer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=(self.units, n),
                                                initializer=self.recurrent_initializer)
        self.bias = self.add_weight("bias", shape=(n,), initializer=self._bias_initializer()) \
            if self.use_bias else None
        self.built = True

    def reset_dropout_mask(self):
        """Forget the masks: the next call makes new ones (the layer does at each of its calls)."""
        self._masks = {}

    def _dropout_mask(self, kind, like, training, count):
        """Keras' ``DropoutRNNCellMixin``: ``count`` masks made on the cell's first step of a layer call and
        reused on every step: ``ones_like`` dropped through ``tf.nn.dropout`` in a ``cond`` on the
        learning phase (or directly for a Python ``training``); None at rate 0."""
        rate = self.dropout if kind == "input" else self.recurrent_dropout
        if rate == 0:
            return None
        if kind not in self._masks:
            ones = array_ops.ones_like_v2(like)
            masks = [_in_train_phase(lambda: nn_ops.dropout(ones, rate=rate), ones, training) for _ in range(count)]
            self._masks[kind] = masks[0] if count == 1 else masks
        return self._masks[kind]


class SimpleRNNCell(_Cell):
    _POSITIONAL = _without(_LSTM_CELL_ARGS, "recurrent_activation", "unit_forget_bias")

    def step(self, inputs, states, training=None):
        prev = states[0]
        dp_mask = self._dropout_mask("input", inputs, training, 1)
        rec_dp_mask = self._dropout_mask("recurrent", prev, training, 1)
        h = math_ops.matmul(inputs * dp_mask if dp_mask is not None else inputs, self.kernel)
        if self.use_bias:
            h = nn_ops.bias_add(h, self.bias)
        if rec_dp_mask is not None:
            prev = prev * rec_dp_mask
        h = h + math_ops.matmul(prev, self.recurrent_kernel)
        h = self.activation(h) if self.activation is not None else h
        return h, [h]


class LSTMCell(_Cell):
    _gates = 4

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_initializer(self):
        if not (self.use_bias and self.unit_forget_bias):
            return self.bias_initializer
        base = self.bias_initializer

        def init(shape, dtype=None, **kwargs):
            u = self.units
            return array_ops.concat([base((u,), dtype=dtype), initializers.get("ones")((u,), dtype=dtype),
                                     base((2 * u,), dtype=dtype)], axis=0)
        return init

    def step(self, inputs, states, training=None):
        """Keras' ``implementation=1``: the kernel and bias split in four, one product per gate; the
        recurrent kernel sliced per gate."""
        h_tm1, c_tm1 = states
        u = self.units
        dp_mask = self._dropout_mask("input", inputs, training, 4)
        rec_dp_mask = self._dropout_mask("recurrent", h_tm1, training, 4)
        xs = [inputs * m for m in dp_mask] if 0 < self.dropout < 1 else [inputs] * 4
        k_i, k_f, k_c, k_o = array_ops.split(self.kernel, 4, axis=1)
        x_i, x_f = math_ops.matmul(xs[0], k_i), math_ops.matmul(xs[1], k_f)
        x_c, x_o = math_ops.matmul(xs[2], k_c), math_ops.matmul(xs[3], k_o)
        if self.use_bias:
            b_i, b_f, b_c, b_o = array_ops.split(self.bias, 4, axis=0)
            x_i, x_f = nn_ops.bias_add(x_i, b_i), nn_ops.bias_add(x_f, b_f)
            x_c, x_o = nn_ops.bias_add(x_c, b_c), nn_ops.bias_add(x_o, b_o)
        hs = [h_tm1 * m for m in rec_dp_mask] if 0 < self.recurrent_dropout < 1 else [h_tm1] * 4
        rk = self.recurrent_kernel
        i = self.recurrent_activation(x_i + math_ops.matmul(hs[0], rk[:, :u]))
        f = self.recurrent_activation(x_f + math_ops.matmul(hs[1], rk[:, u:2 * u]))
        c = f * c_tm1 + i * self.activation(x_c + math_ops.matmul(hs[2], rk[:, 2 * u:3 * u]))
        o = self.recurrent_activation(x_o + math_ops.matmul(hs[3], rk[:, 3 * u:]))
        h = o * self.activation(c)
        return h, [h, c]


class GRUCell(_Cell):
    _gates = 3
    _POSITIONAL = _without(_LSTM_CELL_ARGS, "unit_forget_bias") + ("reset_after",)

    def step(self, inputs, states, training=None):
        """Keras' ``implementation=1`` with ``reset_after=False``: kernel, bias and recurrent kernel
        sliced per gate."""
        h_tm1 = states[0]
        u = self.units
        dp_mask = self._dropout_mask("input", inputs, training, 3)
        rec_dp_mask = self._dropout_mask("recurrent", h_tm1, training, 3)
        xs = [inputs * m for m in dp_mask] if 0 < self.dropout < 1 else [inputs] * 3
        k = self.kernel
        x_z, x_r, x_h = (math_ops.matmul(xs[0], k[:, :u]), math_ops.matmul(xs[1], k[:, u:2 * u]),
                         math_ops.matmul(xs[2], k[:, 2 * u:]))
        if self.use_bias:
            b = self.bias
            x_z = nn_ops.bias_add(x_z, b[:u])
            x_r = nn_ops.bias_add(x_r, b[u:2 * u])
            x_h = nn_ops.bias_add(x_h, b[2 * u:])
        hs = [h_tm1 * m for m in rec_dp_mask] if 0 < self.recurrent_dropout < 1 else [h_tm1] * 3
        rk = self.recurrent_kernel
        recurrent_z = math_ops.matmul(hs[0], rk[:, :u])
        recurrent_r = math_ops.matmul(hs[1], rk[:, u:2 * u])
        z = self.recurrent_activation(x_z + recurrent_z)
        r = self.recurrent_activation(x_r + recurrent_r)
        hh = self.activation(x_h + math_ops.matmul(r * hs[2], rk[:, 2 * u:]))
        h = z * h_tm1 + (1 - z) * hh
        return h, [h]


def _in_train_phase(dropped, alternative, training):
    """Keras' ``in_train_phase``: ``dropped()`` when training, else ``alternative``; the learning phase
    when ``training`` is None; a Python value picks one, a tensor builds a ``cond``."""
    if training is None:
        training = backend.learning_phase()
    if isinstance(training, (bool, int)):
        return dropped() if training else alternative
    return control_flow_ops.cond(training, dropped, lambda: alternative)


_LSTM_ARGS = _LSTM_CELL_ARGS[:10] + ("activity_regularizer",) + _CONSTRAINED + (
    "dropout", "recurrent_dropout", "return_sequences", "return_state", "go_backwards", "stateful", "unroll")
"""``LSTM``'s positional parameters after ``units``, in Keras' order."""


class _RNN(Layer):
    _cell_class = None
    _POSITIONAL = _LSTM_ARGS

    def __init__(self, units, *args, **kwargs):
        self._init(units, **_by_name(type(self), args, kwargs))

    def _init(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
              recurrent_initializer="orthogonal", bias_initializer="zeros", return_sequences=False,
              return_state=False, go_backwards=False, unroll=False, name=None, **kwargs):
        cell_kwargs = {k: kwargs.pop(k) for k in ("recurrent_activation", "unit_forget_bias", "dropout",
                                                  "recurrent_dropout") if k in kwargs}
        unsupported = [k for k in ("stateful", "time_major", "reset_after", "activity_regularizer")
                       + _REGULARIZED + _CONSTRAINED if kwargs.pop(k, None)] + (["unroll"] if unroll else [])
        if unsupported:
            raise NotImplementedError(f"ref.keras {type(self).__name__}: {', '.join(unsupported)} not implemented")
        super().__init__(name=name, **kwargs)
        self.cell = self._cell_class(units, activation=activation, use_bias=use_bias,
                                     kernel_initializer=kernel_initializer,
                                     recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                                     name=backend.to_snake_case(self._cell_class.__name__), **cell_kwargs)
        self.units = int(units)
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        with name_scope(self.cell.name):
            if self.cell._dtype is None:
                self.cell._dtype = self._dtype
            self.cell.build(TensorShape([shape[0], shape[-1]]))
            self.cell.built = True
        self.built = True

    def _cell_step(self, inputs, states, training=None):
        with name_scope(self.cell._name_scope()):  # (the cell called as a layer: its name, made unique)
            return self.cell.step(inputs, list(states), training=training)

    def call(self, inputs, mask=None, initial_state=None, training=None):
        """tf_keras' ``RNN.call`` through ``backend.rnn`` (graph mode, not unrolled): zero states from the
        batch size, the time-major input unstacked into a ``TensorArray`` (``input_ta_0``), the cell called
        once on step 0 for the output's shape, then a TF1 ``while_loop`` over ``(time, output_ta, *states)``
        writing ``output_ta_0``; its stack, the last step, back to batch-major. With a mask (one bool per
        sample and step), a masked step keeps the previous output and states (``mask_ta``, a ``SelectV2``
        per output and state; the previous output starts at zeros)."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if initial_state is None:
            batch = array_ops.shape(inputs)[0]
            states = [array_ops.zeros([batch, n], dtype=inputs.dtype.base_dtype) for n in self.cell.state_size]
        else:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        x = array_ops.transpose(inputs, [1, 0, 2])
        time_steps, batch_dim = x.shape[0], x.shape[1]
        steps = array_ops.shape(x)[0]
        if mask is not None:
            if mask.dtype.base_dtype != dtypes.bool:
                mask = math_ops.cast(mask, dtypes.bool)
            if mask.shape.ndims == 2:
                mask = array_ops.expand_dims(mask, -1)
            mask = array_ops.transpose(mask, [1, 0, 2])
        source = tensor_array_ops.TensorArray(x.dtype.base_dtype, size=steps, tensor_array_name="input_ta_0")
        source = source.unstack(x if not self.go_backwards else array_ops.reverse(x, [0]))
        self.cell.reset_dropout_mask()
        out_zero, _ = self._cell_step(x[0], states, training)
        outputs = tensor_array_ops.TensorArray(out_zero.dtype.base_dtype, size=steps, element_shape=out_zero.shape,
                                               tensor_array_name="output_ta_0")
        time = constant(0, dtype=dtypes.int32, name="time")
        if mask is None:
            def body(t, out, *state):
                h, new_states = self._cell_step(source.read(t), state, training)
                for new, old in zip(new_states, state):
                    new.set_shape(old.shape)
                out = out.write(t, h)
                return [t + 1, out] + list(new_states)

            loop_vars = [time, outputs] + states
        else:
            if self.go_backwards:
                mask = array_ops.reverse(mask, [0])
            mask_ta = tensor_array_ops.TensorArray(dtypes.bool, size=steps, tensor_array_name="mask_ta").unstack(mask)
            zero_output = array_ops.zeros_like(out_zero)

            def masked(mask_t, new_values, old_values):
                tiled = [_expand_mask(mask_t, new) for new in new_values]
                return [array_ops.where_v2(m, new, old) for m, new, old in zip(tiled, new_values, old_values)]

            def body(t, out, prev_output, *state):
                current = source.read(t)
                mask_t = mask_ta.read(t)
                h, new_states = self._cell_step(current, state, training)
                (h,) = masked(mask_t, [h], [prev_output])
                for new, old in zip(new_states, state):
                    new.set_shape(old.shape)
                new_states = masked(mask_t, new_states, state)
                out = out.write(t, h)
                return [t + 1, out, h] + list(new_states)

            loop_vars = [time, outputs, zero_output] + states
        result = control_flow_ops.while_loop(lambda t, *_: t < steps, body, loop_vars,
                                             parallel_iterations=32, swap_memory=True)
        final_states = list(result[2 if mask is None else 3:])
        seq = result[1].stack()
        last = seq[-1]
        seq.set_shape([time_steps, batch_dim] + seq.shape.as_list()[2:])
        seq = array_ops.transpose(seq, [1, 0, 2])
        out = seq if self.return_sequences else last
        return [out] + final_states if self.return_state else out

    def compute_mask(self, inputs, mask=None):
        """The input mask on the sequence output (none on the last output and on the states)."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        return [output_mask] + [None] * len(self.cell.state_size) if self.return_state else output_mask


def _expand_mask(mask_t, values):
    """Keras' ``_expand_mask`` with ``fixed_dim`` the mask's rank: a ``Tile`` to the values' trailing axes."""
    rank = mask_t.shape.ndims
    for _ in range(values.shape.ndims - rank):
        mask_t = array_ops.expand_dims(mask_t, -1)
    multiples = [1] * rank + values.shape.as_list()[rank:]
    return array_ops.tile(mask_t, multiples)


class SimpleRNN(_RNN):
    """``h_t = activation(x_t . kernel + bias + h_{t-1} . recurrent_kernel)``."""

    _cell_class = SimpleRNNCell
    _POSITIONAL = _without(_LSTM_ARGS, "recurrent_activation", "unit_forget_bias")


class LSTM(_RNN):
    """Gates i, f, c, o from ``x . kernel + h . recurrent_kernel + bias``; ``c = f c + i tanh(g)``,
    ``h = o tanh(c)`` (gates through ``recurrent_activation``, ``hard_sigmoid`` by default)."""

    _cell_class = LSTMCell


class GRU(_RNN):
    """Update z, reset r; ``h = z h + (1 - z) tanh(x_h + (r h) . U_h)`` (``reset_after=False``)."""

    _cell_class = GRUCell
    _POSITIONAL = _without(_LSTM_ARGS, "unit_forget_bias") + ("reset_after",)
