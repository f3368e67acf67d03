"""``tf.random.Generator`` in a graph (TF's ``stateful_random_ops``): a counter-based
Philox RNG whose state lives in an int64 resource variable ``random_generator/StateVar``
(the 128-bit counter, low word first, then the key).

Each draw builds ``RngReadAndSkip`` (read the state, advance the counter past the
samples about to be drawn) and a stateless ``*V2`` sampler keyed by the state read, as
TF builds it, so a Generator created from a seed draws TF's numbers. ``from_seed``
chops a Python int into 64-bit words (state words filled from the left with zeros,
TF's ``create_rng_state``). ThreeFry is TF's XLA-only algorithm: its draws fail at run
time with UnimplementedError, as on TF's CPU kernels.
"""
from __future__ import annotations

from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.misc_builders import bitcast
from ref.graph_ops.random_ops import _shape_tensor
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.stateless_random_ops import _alg_int
from ref.graph_ops.variables import Variable
from ref.types import dtypes

__all__ = ["Generator", "create_rng_state"]

_MASK = 0xFFFFFFFFFFFFFFFF
_STATE_SIZE = {1: 3, 2: 2, 3: 3}    # Philox: counter (2 words) + key; ThreeFry: 1 + 1
_COUNTER_SIZE = {1: 2, 2: 1, 3: 2}


def _to_int64(n):
    return n - (1 << 64) if isinstance(n, int) and n > 0x7FFFFFFFFFFFFFFF else n


def create_rng_state(seed, alg):
    """A 1-D int64 state for ``alg`` from an int (chopped into 64-bit words, lowest first)
    or a vector (its first words); a short seed is padded with zeros on the left."""
    alg = _alg_int(alg)
    size = _STATE_SIZE[alg]
    if isinstance(seed, int):
        words = []
        for _ in range(size):
            words.append(seed & _MASK)
            seed >>= 64
        seed = words
    if isinstance(seed, (list, tuple)):
        seed = [_to_int64(int(s)) for s in seed][:size]
        return convert_to_tensor([0] * (size - len(seed)) + seed, dtype=dtypes.int64)
    seed = array_ops.reshape(math_ops.cast(seed, dtypes.int64), [-1])[0:size]
    n = seed.shape[0] if seed.shape[0] is not None else array_ops.shape(seed)[0]
    padding = array_ops.zeros([math_ops.maximum(size - n, 0)], dtypes.int64)
    out = array_ops.concat([padding, seed], axis=0)
    out.set_shape([size])
    return out


class Generator:
    """A random number generator whose state is a variable (``tf.random.Generator``).

    Build it with :meth:`from_seed`, :meth:`from_state` or ``Generator(copy_from=g)``.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("copy_from and state/alg are exclusive")
            self._state_var = self._create_variable(copy_from.state)
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("A Generator needs either copy_from, or both state and alg")
        alg = _alg_int(alg)
        if isinstance(state, Variable):
            self._check_shape(state.shape, alg)
            self._state_var = state
        else:
            if not isinstance(state, Tensor):
                state = [_to_int64(int(s)) for s in state] if isinstance(state, (list, tuple)) else state
            state = math_ops.cast(state, dtypes.int64)
            self._check_shape(state.shape, alg)
            self._state_var = self._create_variable(state)
        self._alg = alg

    @staticmethod
    def _check_shape(shape, alg):
        shape.assert_is_compatible_with([_STATE_SIZE[alg]])

    @staticmethod
    def _create_variable(initial_value):
        with name_scope("random_generator"):
            return ResourceVariable(initial_value, dtype=dtypes.int64, trainable=False, name="StateVar")

    @classmethod
    def from_state(cls, state, alg):
        """A generator whose state starts as ``state`` (a vector or a variable to reuse)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is made from ``seed`` (TF's ``create_rng_state``)."""
        alg = 1 if alg is None else _alg_int(alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @property
    def state(self):
        """The variable holding the state."""
        return self._state_var

    @property
    def algorithm(self):
        """The algorithm id (1: Philox, 2: ThreeFry, 3: auto-select)."""
        return self._alg

    @property
    def key(self):
        """The key word of the state."""
        return self._state_var[-1]

    def reset(self, state):
        """Assigns ``state`` to the state variable."""
        return self._state_var.assign(math_ops.cast(state, dtypes.int64))

    def reset_from_seed(self, seed):
        """Resets the state as :meth:`from_seed` makes it."""
        return self._state_var.assign(create_rng_state(seed, self._alg))

    def skip(self, delta):
        """Advances the counter past ``delta`` samples; returns the state before."""
        return apply_op("RngReadAndSkip", resource=self._state_var.handle,
                        alg=math_ops.cast(self._alg, dtypes.int32), delta=math_ops.cast(delta, dtypes.uint64))

    def _key_counter(self, shape):
        state = self.skip(math_ops.reduce_prod(shape))
        n = _COUNTER_SIZE[self._alg]
        counter = bitcast(state[:n], dtypes.uint64)
        key = bitcast(state[n:n + 1], dtypes.uint64)
        return key, counter

    def _draw(self, op_type, shape, dtype, name=None):
        shape = _shape_tensor(shape)
        key, counter = self._key_counter(shape)
        return apply_op(op_type, shape=shape, key=key, counter=counter, alg=self._alg, dtype=dtype, name=name)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Samples of U[minval, maxval) (floats: maxval defaults to 1; integers need both
        bounds, or neither for the full range)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                                 f"non-`None`; got minval={minval} and maxval={maxval}")
        elif maxval is None:
            maxval = 1
        with name_scope(name, "stateful_uniform", [shape, minval, maxval]) as name:
            if dtype.is_integer and minval is None:
                return self._draw("StatelessRandomUniformFullIntV2", shape, dtype, name=name)
            if dtype.is_integer:
                shape = _shape_tensor(shape)
                key, counter = self._key_counter(shape)
                return apply_op("StatelessRandomUniformIntV2", shape=shape, key=key, counter=counter, alg=self._alg,
                                minval=convert_to_tensor(minval, dtype=dtype, name="min"),
                                maxval=convert_to_tensor(maxval, dtype=dtype, name="max"), name=name)
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            rnd = self._draw("StatelessRandomUniformV2", shape, dtype)
            return math_ops.add(rnd * (maxval - minval), minval, name=name)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers over the dtype's whole range."""
        with name_scope(name, "stateful_uniform_full_int", [shape]) as name:
            return self._draw("StatelessRandomUniformFullIntV2", shape, dtypes.as_dtype(dtype), name=name)

    def _scaled(self, op_type, default, shape, mean, stddev, dtype, name):
        with name_scope(name, default, [shape, mean, stddev]) as name:
            dtype = dtypes.as_dtype(dtype)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._draw(op_type, shape, dtype)
            return math_ops.add(rnd * stddev, mean, name=name)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Samples of N(mean, stddev**2)."""
        return self._scaled("StatelessRandomNormalV2", "stateful_normal", shape, mean, stddev, dtype, name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Samples of N(mean, stddev**2) re-drawn beyond two standard deviations."""
        return self._scaled("StatelessTruncatedNormalV2", "truncated_normal", shape, mean, stddev, dtype, name)
