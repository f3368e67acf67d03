"""Cell wrappers (``tf.nn.rnn_cell.DropoutWrapper``, ``ResidualWrapper``,
``DeviceWrapper``): a wrapper calls the wrapped cell's ``__call__``, so the
variables keep the wrapped cell's names, and adds dropout, a residual
connection or a device around it (TF's legacy ``rnn_cell_wrapper_impl``)."""
from __future__ import annotations

import hashlib
import numbers

from ref.types import nest
from ref.types.shapes import TensorShape
from ref.framework.graph import device, name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops, nn_ops, random_ops
from ref.graph_ops.rnn_cell_impl import LSTMStateTuple, RNNCell, assert_like_rnncell

__all__ = ["DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]


class _RNNCellWrapper(RNNCell):
    """A cell around another: calls the wrapped cell's ``__call__`` (so its
    variables keep the wrapped cell's names) and adds its own logic."""

    def __init__(self, cell, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    @property
    def wrapped_cell(self):
        return self.cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def variables(self):
        return getattr(self.cell, "variables", [])

    @variables.setter
    def variables(self, value):
        pass

    @property
    def trainable_variables(self):
        return getattr(self.cell, "trainable_variables", [])

    trainable_weights = trainable_variables

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)


def _enumerated_map_structure_up_to(shallow, fn, *structures):
    """``fn(i, *leaves)`` over the leaves of ``shallow`` (index ``i`` counts
    them); a leaf of ``shallow`` that is a structure in ``structures`` is
    passed whole."""
    count = [0]

    def walk(s, *xs):
        if nest.is_nested(s):
            children = [walk(c, *cx) for c, *cx in zip(s, *xs)]
            return type(s)(*children) if hasattr(s, "_fields") else type(s)(children)
        count[0] += 1
        return fn(count[0] - 1, *xs)

    return walk(shallow, *structures)


def _default_dropout_state_filter_visitor(substate):
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _shallow_filter(visitor, structure):
    """TF's ``nest.get_traverse_shallow_structure``: a bool per leaf of the
    structure ``visitor`` keeps, descending where it returns a structure."""
    result = visitor(structure)
    if isinstance(result, bool):
        if result and nest.is_nested(structure):
            children = [_shallow_filter(visitor, c) for c in structure]
            return type(structure)(*children) if hasattr(structure, "_fields") else type(structure)(children)
        return result
    return result


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and new state (Zaremba et al. 2014;
    Gal & Ghahramani 2016 with ``variational_recurrent=True``).

    Each keep probability is a float in [0, 1] or a scalar tensor; a float
    1.0 adds no op. With ``seed``, the i-th dropped tensor of each kind gets
    the op seed ``md5(f"{seed}{kind}_{i}")[:8] & 0x7fffffff`` (kind
    ``input``/``state``/``output``), as TF, so the masks match TF's under the
    same graph seed. The default state filter drops only ``h`` of an
    ``LSTMStateTuple``. Under ``dynamic_rnn`` the per-step masks are drawn in
    time order (TF draws them in scheduling order unless
    ``parallel_iterations=1``), and the gradient reuses each step's mask.
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        with name_scope("DropoutWrapperInit"):
            for prob, attr in ((input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")):
                tensor = convert_to_tensor(prob)
                value = constant_value(tensor)
                if value is not None:
                    if value < 0 or value > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1: {int(value)}")
                    setattr(self, "_" + attr, float(value))
                else:
                    setattr(self, "_" + attr, tensor)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = self._recurrent_state_noise = self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(s, inner_seed):
                shape = array_ops.concat(([1], TensorShape(s).as_list()), 0)
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._recurrent_input_noise = _enumerated_map_structure_up_to(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)), input_size)
            self._recurrent_state_noise = _enumerated_map_structure_up_to(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)), cell.state_size)
            self._recurrent_output_noise = _enumerated_map_structure_up_to(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)), cell.output_size)

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        digest = hashlib.md5((str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, shallow=None):
        shallow = values if shallow is None else shallow
        if not self._variational_recurrent:
            def drop(i, do_dropout, v):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_ops.dropout(v, rate=1. - keep_prob, seed=self._gen_seed(salt_prefix, i))
                return v
            return _enumerated_map_structure_up_to(shallow, drop, shallow, values)

        def drop_variational(i, do_dropout, v, noise):
            if not isinstance(do_dropout, bool) or do_dropout:
                binary = math_ops.floor(keep_prob + noise)  # TF: the mask first, then divide and multiply
                ret = math_ops.divide(v, keep_prob) * binary
                ret.set_shape(v.shape)
                return ret
            return v
        return _enumerated_map_structure_up_to(shallow, drop_variational, shallow, values, recurrent_noise)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise, self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            shallow = _shallow_filter(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise, self._state_keep_prob,
                                      shallow)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise, self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_RNNCellWrapper):
    """``output = residual_fn(inputs, cell_output)`` (default ``inputs +
    output``, shapes checked); the state passes through unchanged."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)

            def add(inp, out):
                inp.shape.assert_is_compatible_with(out.shape)
                return inp + out
            return nest.map_structure(add, inputs, outputs)

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """Runs the wrapped cell (and its zero state) under ``tf.device(device)``."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)

