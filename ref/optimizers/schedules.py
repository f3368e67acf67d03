"""Learning-rate decay: ``tf.train.exponential_decay`` and its relatives.

TF docs, "Training", "Decaying the
learning rate"; TF's API reference, ``tf.compat.v1.train.*_decay``
and ``tf.compat.v1.train.piecewise_constant``::

    exponential_decay:   learning_rate * decay_rate ^ (global_step / decay_steps)
    natural_exp_decay:   learning_rate * exp(-decay_rate * global_step / decay_step)
    inverse_time_decay:  learning_rate / (1 + decay_rate * global_step / decay_step)
        (staircase: floor(global_step / decay_steps) in all three)
    polynomial_decay:    global_step = min(global_step, decay_steps)
                         (learning_rate - end_learning_rate) *
                         (1 - global_step / decay_steps) ^ (power) + end_learning_rate
                         cycle: decay_steps = decay_steps * ceil(global_step / decay_steps)
    cosine_decay:        global_step = min(global_step, decay_steps)
                         cosine_decay = 0.5 * (1 + cos(pi * global_step / decay_steps))
                         learning_rate * ((1 - alpha) * cosine_decay + alpha)
    cosine_decay_restarts  SGDR (Loshchilov & Hutter): period i lasts
                         first_decay_steps * t_mul^i steps and starts at m_mul^i
    linear_cosine_decay: learning_rate * ((alpha + linear_decay) * cosine_decay + beta)
    noisy_linear_cosine_decay: the same with eps_t ~ N(0, initial_variance /
                         (1 + global_step) ** variance_decay) added to linear_decay
    piecewise_constant:  values[i] for boundaries[i-1] < x <= boundaries[i]

TensorFlow's arithmetic, in TensorFlow's order: every hyperparameter is cast
to ``learning_rate``'s dtype (a Python float becomes a float32 first, so a
float64 schedule sees ``float64(float32(0.96))``, as TF does), ``global_step``
is cast to that dtype (steps beyond 2**24 round in float32), and the ops
follow TF's ``learning_rate_schedule`` expressions term by term.

Every schedule is written once, against a small backend ``o``:

* ``exponential_decay(learning_rate, global_step, ...)`` -- the TF1 graph
  function: builds the ops in the default graph and returns a scalar Tensor
  of ``learning_rate``'s dtype.
* ``exponential_decay_value(learning_rate, global_step, ...)`` -- the pure
  function: the same arguments (no ``name``) as NumPy values, the same kernels
  (``ref.raw_ops``) on NumPy; ``global_step`` may be an array of steps, giving
  the whole schedule at once. Bit-identical to running the graph.

Where ``ref`` differs from TF 2.21: TF fails to build the cosine family,
``noisy_linear_cosine_decay`` and ``polynomial_decay(cycle=True)`` for a
float64 ``learning_rate`` (it mixes float32 constants in); ``ref`` computes
them in float64. ``global_step=None`` raises ``ValueError("global_step is
required for <fn>.")`` as the seeds document (TF 2.21: "None values not
supported.").
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ref.types import dtypes, nest

from ref import ops
from ref.ops import registry
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import control_flow_case, control_flow_ops, random_ops, math_ops

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay", "cosine_decay",
           "cosine_decay_restarts", "linear_cosine_decay", "noisy_linear_cosine_decay", "piecewise_constant",
           "piecewise_constant_decay",
           "exponential_decay_value", "natural_exp_decay_value", "inverse_time_decay_value",
           "polynomial_decay_value", "cosine_decay_value", "cosine_decay_restarts_value",
           "linear_cosine_decay_value", "noisy_linear_cosine_decay_value", "piecewise_constant_value"]


# ---------------------------------------------------------------------------
# Backends: the same expression as graph ops or as NumPy kernel calls
# ---------------------------------------------------------------------------

class _Graph:
    """Builds ops in the default graph."""

    @staticmethod
    def convert(x, name=None):
        return convert_to_tensor(x, name=name)

    @staticmethod
    def dtype(x):
        return x.dtype.base_dtype

    @staticmethod
    def cast(x, dtype):
        """TF's ``math_ops.cast``: no op when ``x`` already has ``dtype``; a Python
        value becomes ``Cast/x`` inside the cast's scope."""
        return math_ops.cast(x, dtype)

    @staticmethod
    def const(value, dtype):
        return constant(value, dtype=dtype)

    @staticmethod
    def op(op_type, name=None, **inputs):
        return apply_op(op_type, name=name, **inputs)

    @staticmethod
    def cond(pred, true_fn, false_fn):
        return control_flow_ops.cond(pred, true_fn, false_fn)

    @staticmethod
    def standard_normal_times(std, dtype):
        return random_ops.random_normal([], stddev=std, dtype=dtype)


class _NumPy:
    """Calls the same kernels on NumPy values (``ref.raw_ops``)."""

    def __init__(self, noise=None):
        self.noise = noise

    @staticmethod
    def convert(x, name=None):
        return registry.to_array(x)

    @staticmethod
    def dtype(x):
        return dtypes.as_dtype(x.dtype)

    @staticmethod
    def cast(x, dtype):
        x = registry.to_array(x)
        if x.dtype == dtype.np:
            return x
        return registry.call("Cast", x=x, DstT=dtype)

    @staticmethod
    def const(value, dtype):
        return np.asarray(value, dtype.np)

    @staticmethod
    def op(op_type, name=None, **inputs):
        _load_kernels()
        return registry.call(op_type, **inputs)

    @staticmethod
    def cond(pred, true_fn, false_fn):
        return true_fn() if bool(pred) else false_fn()

    def standard_normal_times(self, std, dtype):
        """``noise * std + 0`` (random_normal's Mul then AddV2) with the caller's N(0, 1) sample."""
        noise = np.random.standard_normal() if self.noise is None else self.noise
        mul = self.op("Mul", x=np.asarray(noise, dtype.np), y=std)
        return self.op("AddV2", x=mul, y=np.asarray(0, dtype.np))


def _load_kernels():
    ops.load_all()


def _result(x):
    """A NumPy scalar for a 0-d result, else the array."""
    return np.asarray(x)[()]


def _require_step(global_step, fn):
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def _one_minus(o, x, dtype):
    """``1 - x``: Python arithmetic for a Python number (TF: ``(1 - self.alpha) * t``), else a Sub op."""
    if isinstance(x, numbers.Number):
        return 1 - x
    return o.op("Sub", x=o.const(1, dtype), y=o.cast(x, dtype))


# ---------------------------------------------------------------------------
# The schedules, each written once
# ---------------------------------------------------------------------------

def _exponential(o, learning_rate, global_step, decay_steps, decay_rate, staircase, name=None):
    lr = o.convert(learning_rate, name="initial_learning_rate")
    dtype = o.dtype(lr)
    decay_steps = o.cast(decay_steps, dtype)
    decay_rate = o.cast(decay_rate, dtype)
    p = o.op("RealDiv", x=o.cast(global_step, dtype), y=decay_steps, name="truediv")
    if staircase:
        p = o.op("Floor", x=p)
    return o.op("Mul", x=lr, y=o.op("Pow", x=decay_rate, y=p), name=name)


def _natural_exp_rate(o, decay_rate):
    """exp(-decay_rate), built before (and outside) the decay's name scope as TF does:
    a Python ``decay_rate`` is a float32 here, whatever the learning rate's dtype."""
    # a Python number is converted by Neg itself (``Neg/x``), as float32
    # (a Python number as float32, a NumPy value keeps its dtype)
    if type(decay_rate) in (int, float):
        rate = np.float32(decay_rate)
    elif isinstance(decay_rate, (np.generic, np.ndarray)):
        rate = np.asarray(decay_rate)
    else:
        rate = o.convert(decay_rate)
    return o.op("Exp", x=o.op("Neg", x=rate))


def _inverse_time(o, learning_rate, global_step, decay_steps, decay_rate, staircase, name=None):
    lr = o.convert(learning_rate, name="initial_learning_rate")
    dtype = o.dtype(lr)
    decay_steps = o.cast(decay_steps, dtype)
    decay_rate = o.cast(decay_rate, dtype)
    p = o.op("RealDiv", x=o.cast(global_step, dtype), y=decay_steps, name="truediv")
    if staircase:
        p = o.op("Floor", x=p)
    denom = o.op("AddV2", x=o.cast(o.convert(1), dtype), y=o.op("Mul", x=decay_rate, y=p), name="Add")
    return o.op("RealDiv", x=lr, y=denom, name=name)


def _polynomial(o, learning_rate, global_step, decay_steps, end_learning_rate, power, cycle, name=None):
    lr = o.convert(learning_rate, name="initial_learning_rate")
    dtype = o.dtype(lr)
    end_lr = o.cast(end_learning_rate, dtype)
    power = o.cast(power, dtype)
    step = o.cast(global_step, dtype)
    steps = o.cast(decay_steps, dtype)
    if cycle:
        # the first multiple of decay_steps above global_step; 1 at step 0
        # (TF's where_v2(equal(step, 0), 1.0, ceil(step / decay_steps)): the Python
        # numbers become Equal/y, SelectV2/t and truediv/y in the ops' scopes; a tensor
        # decay_steps is divided as it is: an integer one is a TypeError, as in TF)
        horizon = (np.asarray(decay_steps, dtype.np) if isinstance(decay_steps, (int, float, np.number))
                   else decay_steps)
        multiplier = o.op("SelectV2", condition=o.op("Equal", x=step, y=np.asarray(0, dtype.np)),
                          t=np.asarray(1.0, dtype.np),
                          e=o.op("Ceil", x=o.op("RealDiv", x=step, y=horizon, name="truediv")))
        steps = o.op("Mul", x=steps, y=multiplier)
    else:
        step = o.op("Minimum", x=step, y=steps)
    p = o.op("RealDiv", x=step, y=steps, name="truediv")
    # TF writes ``lr - end_lr`` and ``1 - p`` (operators: ``sub``, ``sub_1/x``)
    scaled = o.op("Mul", x=o.op("Sub", x=lr, y=end_lr, name="sub"),
                  y=o.op("Pow", x=o.op("Sub", x=np.asarray(1, dtype.np), y=p, name="sub"), y=power))
    return o.op("AddV2", x=scaled, y=end_lr, name=name)


def _half_cosine(o, fraction, dtype):
    """0.5 * (1 + cos(pi * fraction))"""
    c = o.op("Cos", x=o.op("Mul", x=o.const(math.pi, dtype), y=fraction))
    return o.op("Mul", x=o.const(0.5, dtype), y=o.op("AddV2", x=o.const(1.0, dtype), y=c))


def _cosine(o, learning_rate, global_step, decay_steps, alpha, name=None):
    lr = o.convert(learning_rate, name="initial_learning_rate")
    dtype = o.dtype(lr)
    steps = o.cast(decay_steps, dtype)
    step = o.op("Minimum", x=o.cast(global_step, dtype), y=steps)
    fraction = o.op("RealDiv", x=step, y=steps, name="truediv")
    if not isinstance(alpha, numbers.Number):
        cosine_decayed = _half_cosine(o, fraction, dtype)
        decayed = o.op("AddV2", x=o.op("Mul", x=_one_minus(o, alpha, dtype), y=cosine_decayed), y=alpha)
        return o.op("Mul", x=lr, y=decayed, name=name)
    # TF's operators: 0.5 * (1.0 + cos(Const(pi) * fraction)), then
    # (1 - alpha) * that + alpha -- the numbers converted under each op.
    c = o.op("Cos", x=o.op("Mul", x=o.const(math.pi, dtype), y=fraction, name="mul"))
    half = o.op("Mul", x=np.asarray(0.5, dtype.np), y=o.op("AddV2", x=np.asarray(1.0, dtype.np), y=c, name="add"),
                name="mul")
    decayed = o.op("AddV2", x=o.op("Mul", x=np.asarray(1 - alpha, dtype.np), y=half, name="mul"),
                   y=np.asarray(alpha, dtype.np), name="add")
    return o.op("Mul", x=lr, y=decayed, name=name)


def _cosine_restarts(o, learning_rate, global_step, first_decay_steps, t_mul, m_mul, alpha, name=None):
    lr = o.convert(learning_rate, name="initial_learning_rate")
    dtype = o.dtype(lr)
    first = o.cast(first_decay_steps, dtype)
    alpha = o.cast(alpha, dtype)
    t_mul = o.cast(t_mul, dtype)
    m_mul = o.cast(m_mul, dtype)
    fraction = o.op("RealDiv", x=o.cast(global_step, dtype), y=first, name="truediv")

    def c(value):  # a Python number in the expression: a Const named after its op (TF's "sub/x")
        return np.asarray(value, dtype.np)

    # Op for op in TF's expression order (names "sub_1", "pow", ... follow it).
    def geometric():
        # period i starts at sum_r = (1 - t_mul^i) / (1 - t_mul) first-periods
        i_restart = o.op("Floor", x=o.op("RealDiv", name="truediv", x=o.op("Log", x=o.op(
            "Sub", name="sub", x=c(1.0), y=o.op("Mul", name="mul", x=fraction, y=o.op(
                "Sub", name="sub", x=c(1.0), y=t_mul)))), y=o.op("Log", x=t_mul)))
        sum_r = o.op("RealDiv", name="truediv", x=o.op("Sub", name="sub", x=c(1.0), y=o.op(
            "Pow", name="pow", x=t_mul, y=i_restart)), y=o.op("Sub", name="sub", x=c(1.0), y=t_mul))
        within = o.op("RealDiv", name="truediv", x=o.op("Sub", name="sub", x=fraction, y=sum_r),
                      y=o.op("Pow", name="pow", x=t_mul, y=i_restart))
        return i_restart, within

    def periodic():
        i_restart = o.op("Floor", x=fraction)
        return i_restart, o.op("Sub", name="sub", x=fraction, y=i_restart)

    i_restart, within = o.cond(o.op("Equal", name="Equal", x=t_mul, y=c(1.0)), periodic, geometric)
    m_fac = o.op("Pow", name="pow", x=m_mul, y=i_restart)
    half_m = o.op("Mul", name="mul", x=c(0.5), y=m_fac)
    # (TF: a float32 pi, so a float64 schedule fails there; ref takes the schedule's dtype)
    cos = o.op("Cos", x=o.op("Mul", name="mul", x=o.const(math.pi, dtype), y=within))
    cosine_decayed = o.op("Mul", name="mul", x=half_m, y=o.op("AddV2", name="add", x=c(1.0), y=cos))
    decayed = o.op("AddV2", name="add", x=o.op("Mul", name="mul", x=o.op("Sub", name="sub", x=c(1), y=alpha),
                                               y=cosine_decayed), y=alpha)
    return o.op("Mul", x=lr, y=decayed, name=name)


def _linear_cosine(o, learning_rate, global_step, decay_steps, num_periods, alpha, beta, name=None,
                   initial_variance=None, variance_decay=None):
    lr = o.convert(learning_rate, name="initial_learning_rate")
    dtype = o.dtype(lr)
    steps = o.cast(decay_steps, dtype)
    if initial_variance is not None:
        initial_variance = o.cast(initial_variance, dtype)
        variance_decay = o.cast(variance_decay, dtype)
    num_periods = o.cast(num_periods, dtype)
    alpha = o.cast(alpha, dtype)
    beta = o.cast(beta, dtype)
    step = o.op("Minimum", x=o.cast(global_step, dtype), y=steps)
    linear_decayed = o.op("RealDiv", x=o.op("Sub", x=steps, y=step, name="sub"), y=steps, name="truediv")
    if initial_variance is not None:
        # eps_t ~ N(0, initial_variance / (1 + global_step) ** variance_decay)
        variance = o.op("RealDiv", x=initial_variance,
                        y=o.op("Pow", x=o.op("AddV2", x=o.const(1.0, dtype), y=step), y=variance_decay))
        linear_decayed = o.op("AddV2", x=linear_decayed,
                              y=o.standard_normal_times(o.op("Sqrt", x=variance), dtype))
    fraction = o.op("Mul", x=o.op("Mul", x=o.const(2.0, dtype), y=num_periods),
                    y=o.op("RealDiv", x=step, y=steps, name="truediv"))
    cosine_decayed = _half_cosine(o, fraction, dtype)
    decayed = o.op("AddV2", x=o.op("Mul", x=o.op("AddV2", x=alpha, y=linear_decayed), y=cosine_decayed), y=beta)
    return o.op("Mul", x=lr, y=decayed, name=name)


# ---------------------------------------------------------------------------
# TF1 graph functions (tf.train.*)
# ---------------------------------------------------------------------------

def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate * decay_rate ^ (global_step / decay_steps)`` (the exponent
    floored when ``staircase``): a scalar Tensor of ``learning_rate``'s dtype.

    TF: ``Mul(lr, Pow(decay_rate, [Floor](Cast(step) / Cast(decay_steps))))``."""
    _require_step(global_step, "exponential_decay")
    with name_scope(name, "ExponentialDecay", [learning_rate, global_step, decay_steps, decay_rate]) as scope:
        return _exponential(_Graph, learning_rate, global_step, decay_steps, decay_rate, staircase, scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``: TF computes
    ``exponential_decay`` with base ``exp(-decay_rate)`` (in ``decay_rate``'s
    dtype, float32 for a Python number)."""
    _require_step(global_step, "natural_exp_decay")
    rate = _natural_exp_rate(_Graph, decay_rate)
    with name_scope(name, "ExponentialDecay", [learning_rate, global_step, decay_steps, rate]) as scope:
        return _exponential(_Graph, learning_rate, global_step, decay_steps, rate, staircase, scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)`` (``floor`` of
    the ratio when ``staircase``)."""
    _require_step(global_step, "inverse_time_decay")
    with name_scope(name, "InverseTimeDecay", [learning_rate, global_step, decay_rate]) as scope:
        return _inverse_time(_Graph, learning_rate, global_step, decay_steps, decay_rate, staircase, scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    """``(learning_rate - end_learning_rate) * (1 - min(step, decay_steps) /
    decay_steps) ^ power + end_learning_rate``; with ``cycle`` the horizon is
    ``decay_steps * ceil(step / decay_steps)`` (``decay_steps`` at step 0)."""
    _require_step(global_step, "polynomial_decay")
    with name_scope(name, "PolynomialDecay", [learning_rate, global_step, decay_steps, end_learning_rate,
                                              power]) as scope:
        return _polynomial(_Graph, learning_rate, global_step, decay_steps, end_learning_rate, power, cycle, scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) /
    decay_steps)) + alpha)`` (Loshchilov & Hutter, SGDR, without restarts)."""
    _require_step(global_step, "cosine_decay")
    with name_scope(name, "CosineDecay", [learning_rate, global_step]):
        return _cosine(_Graph, learning_rate, global_step, decay_steps, alpha)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None):
    """Cosine decay with warm restarts (SGDR): the multiplier decays from 1 to
    ``alpha`` over ``first_decay_steps``; period ``i`` lasts ``t_mul^i`` times
    as long and starts at ``m_mul^i``."""
    _require_step(global_step, "cosine_decay_restarts")
    with name_scope(name, "SGDRDecay", [learning_rate, global_step]) as scope:
        return _cosine_restarts(_Graph, learning_rate, global_step, first_decay_steps, t_mul, m_mul, alpha,
                                scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001,
                        name=None):
    """``learning_rate * ((alpha + linear_decay) * cosine_decay + beta)`` with
    ``linear_decay = (decay_steps - step) / decay_steps`` and ``cosine_decay =
    0.5 * (1 + cos(pi * 2 * num_periods * step / decay_steps))``,
    ``step = min(global_step, decay_steps)`` (Bello et al., 2017)."""
    _require_step(global_step, "linear_cosine_decay")
    with name_scope(name, "LinearCosineDecay", [learning_rate, global_step]) as scope:
        return _linear_cosine_graph(learning_rate, global_step, decay_steps, num_periods, alpha, beta, scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """``linear_cosine_decay`` with Gaussian noise ``eps_t`` of variance
    ``initial_variance / (1 + step) ** variance_decay`` added to ``linear_decay``
    (one ``RandomStandardNormal`` draw per evaluation)."""
    _require_step(global_step, "noisy_linear_cosine_decay")
    with name_scope(name, "NoisyLinearCosineDecay", [learning_rate, global_step]) as scope:
        return _linear_cosine_graph(learning_rate, global_step, decay_steps, num_periods, alpha, beta, scope,
                                    initial_variance=initial_variance, variance_decay=variance_decay)


def _linear_cosine_graph(learning_rate, global_step, decay_steps, num_periods, alpha, beta, name,
                         initial_variance=None, variance_decay=None):
    """``_linear_cosine``'s arithmetic (same order, same rounding) built with TF's
    operators, so the nodes are named as TF's schedule names them (sub, truediv,
    mul, add, Const for pi)."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = lr.dtype.base_dtype
    steps = math_ops.cast(decay_steps, dtype)
    if initial_variance is not None:
        initial_variance = math_ops.cast(initial_variance, dtype)
        variance_decay = math_ops.cast(variance_decay, dtype)
    num_periods = math_ops.cast(num_periods, dtype)
    alpha = math_ops.cast(alpha, dtype)
    beta = math_ops.cast(beta, dtype)
    step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
    linear_decayed = (steps - step) / steps
    if initial_variance is not None:
        variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
        linear_decayed = linear_decayed + random_ops.random_normal(linear_decayed.shape,
                                                                   stddev=math_ops.sqrt(variance))
    completed_fraction = step / steps
    fraction = 2.0 * num_periods * completed_fraction
    cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant(math.pi, dtype=dtype) * fraction))  # float64 too (TF: float32 only)
    return math_ops.multiply(lr, (alpha + linear_decayed) * cosine_decayed + beta, name=name)


def _check_piecewise(o, x, boundaries, values):
    """TF's checks: boundaries take x's dtype (int32 boundaries widen to an int64
    x), values share one dtype, one more value than boundaries."""
    bs = [o.convert(b) for b in nest.flatten(boundaries)]
    vs = [o.convert(v) for v in nest.flatten(values)]
    x = o.convert(x)
    xd = o.dtype(x)
    for i, b in enumerate(bs):
        if o.dtype(b) != xd:
            if o.dtype(b) == dtypes.int32 and xd == dtypes.int64:
                bs[i] = o.cast(b, xd)
            else:
                raise ValueError(f"Boundaries ({o.dtype(b).name}) must have the same dtype as x ({xd.name}).")
    for v in vs[1:]:
        if o.dtype(v) != o.dtype(vs[0]):
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({o.dtype(vs[0]).name} vs {o.dtype(v).name}).")
    if len(bs) != len(vs) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    return x, bs, vs


def _pieces(o, x, bs, vs):
    """(predicate, value) pairs: x <= b[0]; x > b[-1]; b[i-1] < x <= b[i]."""
    pairs = [(o.op("LessEqual", x=x, y=bs[0]), vs[0]), (o.op("Greater", x=x, y=bs[-1]), vs[-1])]
    for low, high, v in zip(bs[:-1], bs[1:], vs[1:-1]):
        pairs.append((o.op("LogicalAnd", x=o.op("Greater", x=x, y=low), y=o.op("LessEqual", x=x, y=high), name="and"),
                      v))
    return pairs


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` when ``x <= boundaries[0]``, ``values[i]`` when
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` when ``x >
    boundaries[-1]`` (TF: ``tf.case`` over those predicates).

    ValueError when the dtypes of ``x`` and ``boundaries`` differ (an int64
    ``x`` accepts int32 boundaries), when the values' dtypes differ, or when
    ``len(boundaries) != len(values) - 1``."""
    # TF's TF1 wrapper converts (and casts) boundaries and values before the
    # schedule opens its scope: those Consts sit in the caller's scope.
    x, bs, vs = _check_piecewise(_Graph, x, boundaries, values)
    with name_scope(name, "PiecewiseConstant", [x, bs, vs]):
        pairs = [(p, (lambda v=v: v)) for p, v in _pieces(_Graph, x, bs, vs)]
        return control_flow_case.case(pairs, lambda: vs[0], exclusive=True)


piecewise_constant_decay = piecewise_constant


# ---------------------------------------------------------------------------
# Pure functions of the step (same arguments, NumPy in and out)
# ---------------------------------------------------------------------------

def exponential_decay_value(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    """``exponential_decay`` on NumPy values; ``global_step`` may be an array of steps."""
    _require_step(global_step, "exponential_decay")
    return _result(_exponential(_NumPy(), learning_rate, global_step, decay_steps, decay_rate, staircase))


def natural_exp_decay_value(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    """``natural_exp_decay`` on NumPy values."""
    _require_step(global_step, "natural_exp_decay")
    o = _NumPy()
    return _result(_exponential(o, learning_rate, global_step, decay_steps, _natural_exp_rate(o, decay_rate),
                                staircase))


def inverse_time_decay_value(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    """``inverse_time_decay`` on NumPy values."""
    _require_step(global_step, "inverse_time_decay")
    return _result(_inverse_time(_NumPy(), learning_rate, global_step, decay_steps, decay_rate, staircase))


def polynomial_decay_value(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0,
                           cycle=False):
    """``polynomial_decay`` on NumPy values."""
    _require_step(global_step, "polynomial_decay")
    return _result(_polynomial(_NumPy(), learning_rate, global_step, decay_steps, end_learning_rate, power, cycle))


def cosine_decay_value(learning_rate, global_step, decay_steps, alpha=0.0):
    """``cosine_decay`` on NumPy values."""
    _require_step(global_step, "cosine_decay")
    return _result(_cosine(_NumPy(), learning_rate, global_step, decay_steps, alpha))


def cosine_decay_restarts_value(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0):
    """``cosine_decay_restarts`` on NumPy values."""
    _require_step(global_step, "cosine_decay_restarts")
    return _result(_cosine_restarts(_NumPy(), learning_rate, global_step, first_decay_steps, t_mul, m_mul, alpha))


def linear_cosine_decay_value(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001):
    """``linear_cosine_decay`` on NumPy values."""
    _require_step(global_step, "linear_cosine_decay")
    return _result(_linear_cosine(_NumPy(), learning_rate, global_step, decay_steps, num_periods, alpha, beta))


def noisy_linear_cosine_decay_value(learning_rate, global_step, decay_steps, initial_variance=1.0,
                                    variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001, noise=None):
    """``noisy_linear_cosine_decay`` on NumPy values. ``noise`` is the N(0, 1)
    sample the graph's ``RandomStandardNormal`` would draw (scaled here by the
    schedule's standard deviation); None draws one from ``np.random``."""
    _require_step(global_step, "noisy_linear_cosine_decay")
    return _result(_linear_cosine(_NumPy(noise), learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                                  initial_variance=initial_variance, variance_decay=variance_decay))


def piecewise_constant_value(x, boundaries, values):
    """``piecewise_constant`` on NumPy values; ``x`` may be an array of steps."""
    o = _NumPy()
    x, bs, vs = _check_piecewise(o, x, boundaries, values)
    out = vs[0]
    for pred, v in reversed(_pieces(o, x, bs, vs)):
        out = o.op("SelectV2", condition=pred, t=v, e=out)
    return _result(out)
