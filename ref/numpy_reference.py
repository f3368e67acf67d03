"""NumPy reference implementations of ref's element-wise kernels: the oracles
the tests check the kernels against, importable by users (as JAX's
``lax_reference``). Each function transcribes the formula quoted in its
docstring -- TF's op documentation -- as a plain NumPy expression, computing
in the input's precision unless the docstring says float64; none of them calls
a ref kernel. ``UNARY``, ``BINARY`` and ``ACTIVATIONS`` map TF op names to them,
e.g. ``ref.numpy_reference.UNARY["Asinh"](x)``.

The training oracles follow, float64 transcriptions of the formulas the spec
cards (``specs/``) quote: the optimizer updates, named after their raw op
(``apply_adam(var, m, v, beta1_power, ...)`` returns the new ``(var, m, v)``;
``sparse_apply_*`` take ``grad`` rows and ``indices`` and update those rows one
index after another), the learning-rate schedules (``exponential_decay``, ...,
the arguments of ``ref.optimizers.schedules.<name>_value``), gradient clipping
(``clip_by_norm``, ...) and moving averages.
"""
from __future__ import annotations

import math

import numpy as np

SELU_SCALE = 1.0507009873554805
SELU_ALPHA = 1.6732632423543772


# -- math: unary ---------------------------------------------------------------

def neg(x):
    """Neg: ``y = -x``."""
    return -x


def abs_(x):
    """Abs: ``y = |x|``."""
    return np.abs(x)


def square(x):
    """Square: ``y = x * x``."""
    return x * x


def sign(x):
    """Sign: ``y = sign(x) = -1 if x < 0; 0 if x == 0; 1 if x > 0``."""
    return np.sign(x)


def floor(x):
    """Floor: ``y = largest integer not greater than x``."""
    return np.floor(x)


def ceil(x):
    """Ceil: ``y = smallest integer not less than x``."""
    return np.ceil(x)


def sqrt(x):
    """Sqrt: ``y = sqrt(x) = x^(1/2)`` (the oracle takes ``|x|``: tests feed x >= 0)."""
    return np.sqrt(np.abs(x))


def asinh(x):
    """Asinh: ``y = asinh(x) = log(x + sqrt(x^2 + 1))``, in float64, for |x| (asinh
    is odd, so negative x does not cancel) and as ``log1p(a + a^2 / (1 + sqrt(a^2 + 1)))``
    (the same number: ``sqrt(a^2 + 1) - 1 = a^2 / (sqrt(a^2 + 1) + 1)``), so small x keeps its digits."""
    a = np.abs(np.asarray(x, np.float64))
    with np.errstate(over="ignore"):
        a2 = a * a
        small = np.log1p(a + a2 / (1.0 + np.sqrt(a2 + 1.0)))
    big = np.log(2.0) + np.log(np.where(a > 0, a, 1.0))  # a^2 + 1 == a^2: log(2a)
    return np.copysign(np.where(a > 1e8, big, small), x)


# -- math: binary --------------------------------------------------------------

def add(x, y):
    """AddV2: ``z = x + y``."""
    return x + y


def sub(x, y):
    """Sub: ``z = x - y``."""
    return x - y


def mul(x, y):
    """Mul: ``z = x * y``."""
    return x * y


def squared_difference(x, y):
    """SquaredDifference: ``z = (x - y)(x - y)``."""
    return (x - y) * (x - y)


def less(x, y):
    """Less: ``z = x < y``."""
    return x < y


def greater_equal(x, y):
    """GreaterEqual: ``z = x >= y``."""
    return x >= y


def equal(x, y):
    """Equal: ``z = x == y``."""
    return x == y


# -- nn activations (float64) ----------------------------------------------------

def relu(x):
    """Relu: ``max(features, 0)``."""
    return np.maximum(x, 0)


def relu6(x):
    """Relu6: ``min(max(features, 0), 6)``."""
    return np.clip(x, 0, 6)


def elu(x):
    """Elu: ``exp(features) - 1 if < 0, features otherwise``."""
    return np.where(x < 0, np.exp(x) - 1, x)


def selu(x):
    """Selu: ``scale * alpha * (exp(features) - 1) if < 0, scale * features otherwise``
    (scale = 1.0507009873554805, alpha = 1.6732632423543772)."""
    return SELU_SCALE * np.where(x < 0, SELU_ALPHA * (np.exp(x) - 1), x)


def softplus(x):
    """Softplus: ``log(exp(features) + 1)``."""
    return np.log1p(np.exp(x))


def softsign(x):
    """Softsign: ``features / (abs(features) + 1)``."""
    return x / (1 + np.abs(x))


def leaky_relu(x, alpha=0.2):
    """LeakyRelu: ``features if features > 0, alpha * features otherwise``
    (alpha, a float attr, rounded to float32 first as TF stores it)."""
    return np.where(x > 0, x, np.float64(np.float32(alpha)) * x)


def softmax(x):
    """Softmax: ``softmax[i, j] = exp(logits[i, j]) / sum_j(exp(logits[i, j]))`` (last axis)."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(x):
    """LogSoftmax: ``logsoftmax[i, j] = logits[i, j] - log(sum(exp(logits[i])))``."""
    return np.log(softmax(x))


UNARY = {"Neg": neg, "Abs": abs_, "Square": square, "Sign": sign, "Floor": floor, "Ceil": ceil, "Sqrt": sqrt,
         "Asinh": asinh}
BINARY = {"AddV2": add, "Sub": sub, "Mul": mul, "Maximum": np.maximum, "Minimum": np.minimum,
          "SquaredDifference": squared_difference, "Less": less, "GreaterEqual": greater_equal, "Equal": equal}
ACTIVATIONS = {"Relu": relu, "Relu6": relu6, "Elu": elu, "Selu": selu, "Softplus": softplus, "Softsign": softsign,
               "LeakyRelu": leaky_relu, "Softmax": softmax, "LogSoftmax": log_softmax}


# -- training: optimizer updates (float64; each returns the updated refs) -------

def rows_in_order(dense, refs, kw):
    """A sparse update from a dense one: row ``indices[i]`` of every ref in ``refs``
    (names of entries of ``kw``) updated with ``grad[i]``, one index after another
    (a duplicate index applies twice)."""
    out = [np.array(kw[r], np.float64) for r in refs]
    hypers = {k: v for k, v in kw.items() if k not in (*refs, "grad", "indices")}
    for i, r in enumerate(kw["indices"]):
        new = dense(**{name: o[r] for name, o in zip(refs, out)}, grad=kw["grad"][i], **hypers)
        for o, n in zip(out, new):
            o[r] = n
    return tuple(out)


def apply_gradient_descent(var, alpha, delta, use_locking=False):
    """ApplyGradientDescent: ``variable <- variable - learning_rate * gradient``."""
    return (var - alpha * delta,)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False):
    """ApplyMomentum: ``accumulation = momentum * accumulation + gradient;
    variable -= learning_rate * accumulation``; Nesterov: the variable tracks
    theta + mu * v, ``variable -= learning_rate * (gradient + momentum * accumulation)``."""
    accum = momentum * accum + grad
    if use_nesterov:
        return var - lr * (grad + momentum * accum), accum
    return var - lr * accum, accum


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False):
    """SparseApplyMomentum: ``apply_momentum`` on rows ``indices``, in order."""
    return rows_in_order(apply_momentum, ("var", "accum"), dict(
        var=var, accum=accum, lr=lr, grad=grad, indices=indices, momentum=momentum, use_nesterov=use_nesterov))


def apply_keras_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False):
    """ApplyKerasMomentum (Keras' form, the learning rate inside the velocity):
    ``accum = momentum * accum - lr * grad; var += accum`` (Nesterov:
    ``var += momentum * accum - lr * grad``)."""
    accum = momentum * accum - lr * grad
    if use_nesterov:
        return var + momentum * accum - lr * grad, accum
    return var + accum, accum


def sparse_apply_keras_momentum(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False):
    """SparseApplyKerasMomentum: ``apply_keras_momentum`` on rows ``indices``, in order."""
    return rows_in_order(apply_keras_momentum, ("var", "accum"), dict(
        var=var, accum=accum, lr=lr, grad=grad, indices=indices, momentum=momentum, use_nesterov=use_nesterov))


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking=False,
               use_nesterov=False):
    """ApplyAdam, with beta1^t = beta1_power and beta2^t = beta2_power::

        lr_t <- learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)
        m_t <- beta1 * m_{t-1} + (1 - beta1) * g
        v_t <- beta2 * v_{t-1} + (1 - beta2) * g * g
        variable <- variable - lr_t * m_t / (sqrt(v_t) + epsilon)

    ``use_nesterov`` (not in the quote): TF's Nesterov variant (Dozat, 2016), the
    step ``beta1 * m_t + (1 - beta1) * g`` in place of ``m_t``."""
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m_t = beta1 * m + (1 - beta1) * grad
    v_t = beta2 * v + (1 - beta2) * grad * grad
    if use_nesterov:
        step = (beta1 * m_t + (1 - beta1) * grad)
    else:
        step = m_t
    return var - lr_t * step / (np.sqrt(v_t) + epsilon), m_t, v_t


def apply_ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad, use_locking=False):
    """ApplyAdaMax: Kingma & Ba (2015), Section 7.1, with TF's epsilon added to u_t:
    ``m_t = beta1 * m + (1 - beta1) * g; u_t = max(beta2 * v, |g|);
    var -= lr / (1 - beta1^t) * m_t / (u_t + epsilon)``."""
    m_t = beta1 * m + (1 - beta1) * grad
    u_t = np.maximum(beta2 * v, np.abs(grad))
    return var - (lr / (1 - beta1_power)) * m_t / (u_t + epsilon), m_t, u_t


def apply_add_sign(var, m, lr, alpha, sign_decay, beta, grad, use_locking=False):
    """ApplyAddSign: Bello et al. (2017), Section 5: ``m_t = beta * m + (1 - beta) * g;
    var -= lr * (alpha + sign_decay * sign(g) * sign(m_t)) * g``."""
    m_t = beta * m + (1 - beta) * grad
    return var - lr * (alpha + sign_decay * np.sign(grad) * np.sign(m_t)) * grad, m_t


def apply_power_sign(var, m, lr, logbase, sign_decay, beta, grad, use_locking=False):
    """ApplyPowerSign: Bello et al. (2017), Section 5: ``m_t = beta * m + (1 - beta) * g;
    var -= lr * exp(logbase * sign_decay * sign(g) * sign(m_t)) * g``."""
    m_t = beta * m + (1 - beta) * grad
    return var - lr * np.exp(logbase * sign_decay * np.sign(grad) * np.sign(m_t)) * grad, m_t


def apply_adagrad(var, accum, lr, grad, epsilon=0.0, use_locking=False, update_slots=True):
    """ApplyAdagrad / ApplyAdagradV2: Duchi et al. 2011, diagonal form:
    ``accum += g^2; var -= lr * g / sqrt(accum)`` (V2: ``/ (sqrt(accum) + epsilon)``;
    ``update_slots=False``: accum is read, not updated)."""
    if update_slots:
        accum = accum + grad * grad
    return var - lr * grad / (np.sqrt(accum) + epsilon), accum


def sparse_apply_adagrad(var, accum, lr, grad, indices, epsilon=0.0, use_locking=False, update_slots=True):
    """SparseApplyAdagrad / SparseApplyAdagradV2: ``apply_adagrad`` on rows ``indices``, in order."""
    return rows_in_order(apply_adagrad, ("var", "accum"), dict(
        var=var, accum=accum, lr=lr, grad=grad, indices=indices, epsilon=epsilon, update_slots=update_slots))


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step,
                     use_locking=False):
    """ApplyAdagradDA: dual averaging's closed form (Duchi et al. 2011, Section 3; Xiao 2010)
    with g = sum of gradients, gg = sum of squares, t = global_step:
    ``w = sign(-g) * lr * max(|g| - l1 t, 0) / (l2 t lr + sqrt(gg))``."""
    g = gradient_accumulator + grad
    gg = gradient_squared_accumulator + grad * grad
    t = float(global_step)
    w = np.sign(-g) * lr * np.maximum(np.abs(g) - l1 * t, 0.0) / (l2 * t * lr + np.sqrt(gg))
    return w, g, gg


def sparse_apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr, l1, l2,
                            global_step, use_locking=False):
    """SparseApplyAdagradDA: ``apply_adagrad_da`` on rows ``indices``, in order."""
    return rows_in_order(apply_adagrad_da, ("var", "gradient_accumulator", "gradient_squared_accumulator"), dict(
        var=var, gradient_accumulator=gradient_accumulator,
        gradient_squared_accumulator=gradient_squared_accumulator, grad=grad, indices=indices, lr=lr, l1=l1, l2=l2,
        global_step=global_step))


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False):
    """ApplyAdadelta: Zeiler 2012, Algorithm 1, with the learning rate in front of the step:
    ``accum = rho * accum + (1 - rho) * g^2;
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g;
    accum_update = rho * accum_update + (1 - rho) * update^2; var -= lr * update``."""
    accum = rho * accum + (1 - rho) * grad * grad
    update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
    accum_update = rho * accum_update + (1 - rho) * update * update
    return var - lr * update, accum, accum_update


def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices, use_locking=False):
    """SparseApplyAdadelta: ``apply_adadelta`` on rows ``indices``, in order."""
    return rows_in_order(apply_adadelta, ("var", "accum", "accum_update"), dict(
        var=var, accum=accum, accum_update=accum_update, lr=lr, rho=rho, epsilon=epsilon, grad=grad,
        indices=indices))


def fobos(var, lr, l1, l2, grad):
    """FOBOS (Duchi & Singer 2009): a gradient step, then the prox of l1|w| + (l2/2) w^2:
    ``v = var - lr * g; var = sign(v) * max(|v| - lr * l1, 0) / (1 + lr * l2)``."""
    v = var - lr * grad
    return np.sign(v) * np.maximum(np.abs(v) - lr * l1, 0.0) / (1.0 + lr * l2)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False):
    """ApplyProximalGradientDescent: ``fobos`` with learning rate ``alpha``."""
    return (fobos(var, alpha, l1, l2, delta),)


def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices, use_locking=False):
    """SparseApplyProximalGradientDescent: ``fobos`` on rows ``indices``, in order."""
    return rows_in_order(lambda var, grad, **h: apply_proximal_gradient_descent(var, delta=grad, **h), ("var",),
                         dict(var=var, alpha=alpha, l1=l1, l2=l2, grad=grad, indices=indices))


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False):
    """ApplyProximalAdagrad: ``fobos`` with Adagrad's per-coordinate step:
    ``accum += g^2; var = fobos(var, lr / sqrt(accum), l1, l2, g)``."""
    accum = accum + grad * grad
    return fobos(var, lr / np.sqrt(accum), l1, l2, grad), accum


def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False):
    """SparseApplyProximalAdagrad: ``apply_proximal_adagrad`` on rows ``indices``, in order."""
    return rows_in_order(apply_proximal_adagrad, ("var", "accum"),
                         dict(var=var, accum=accum, lr=lr, l1=l1, l2=l2, grad=grad, indices=indices))


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, l2_shrinkage=0.0, use_locking=False,
               multiply_linear_by_lr=False):
    """ApplyFtrl / ApplyFtrlV2 where the quoted rule holds (l1 = 0, lr_power = 0, so
    beta = accum^(-lr_power) = 1, and FTRL's own state linear = -w (1/lr + 2 L2)):
    ``w_{t+1} = w_t - lr_t / (beta + 2L2lr_t) * g_t - 2L2_shrinkagelr_t / (beta + 2L2lr_t) * w_t``;
    also the state FTRL keeps: ``accum += g^2; linear += g + 2 L2_shrinkage w``."""
    beta = 1.0
    w = var - lr / (beta + 2 * l2 * lr) * grad - 2 * l2_shrinkage * lr / (beta + 2 * l2 * lr) * var
    return w, accum + grad * grad, linear + grad + 2 * l2_shrinkage * var


def sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, l2_shrinkage=0.0,
                      use_locking=False, multiply_linear_by_lr=False):
    """SparseApplyFtrl / SparseApplyFtrlV2: ``apply_ftrl`` on rows ``indices``, in order."""
    return rows_in_order(apply_ftrl, ("var", "accum", "linear"), dict(
        var=var, accum=accum, linear=linear, grad=grad, indices=indices, lr=lr, l1=l1, l2=l2, lr_power=lr_power,
        l2_shrinkage=l2_shrinkage))


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False):
    """ApplyRMSProp: ``mean_square = decay * mean_square + (1 - decay) * g^2;
    mom = momentum * mom + lr * g / sqrt(mean_square + epsilon); var -= mom``."""
    ms_t = rho * ms + (1 - rho) * grad ** 2
    mom_t = momentum * mom + lr * grad / np.sqrt(ms_t + epsilon)
    return var - mom_t, ms_t, mom_t


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False):
    """SparseApplyRMSProp: ``apply_rms_prop`` on rows ``indices``, in order."""
    return rows_in_order(apply_rms_prop, ("var", "ms", "mom"), dict(
        var=var, ms=ms, mom=mom, lr=lr, rho=rho, momentum=momentum, epsilon=epsilon, grad=grad, indices=indices))


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False):
    """ApplyCenteredRMSProp: as ``apply_rms_prop``, normalised by the variance estimate
    (centered: 'gradients are normalized by the estimated variance of the gradient'):
    ``mean_grad = decay * mean_grad + (1 - decay) * g;
    mom = momentum * mom + lr * g / sqrt(mean_square - mean_grad^2 + epsilon)``."""
    mg_t = rho * mg + (1 - rho) * grad
    ms_t = rho * ms + (1 - rho) * grad ** 2
    mom_t = momentum * mom + lr * grad / np.sqrt(ms_t - mg_t ** 2 + epsilon)
    return var - mom_t, mg_t, ms_t, mom_t


def sparse_apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False):
    """SparseApplyCenteredRMSProp: ``apply_centered_rms_prop`` on rows ``indices``, in order."""
    return rows_in_order(apply_centered_rms_prop, ("var", "mg", "ms", "mom"), dict(
        var=var, mg=mg, ms=ms, mom=mom, lr=lr, rho=rho, momentum=momentum, epsilon=epsilon, grad=grad,
        indices=indices))


# -- training: learning-rate schedules (float64; ``_value`` arguments) -----------

def _steps(global_step):
    return np.asarray(global_step, np.float64)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    """exponential_decay: ``decayed_learning_rate = learning_rate * decay_rate ^ (global_step / decay_steps)``
    (staircase: an integer division)."""
    p = _steps(global_step) / decay_steps
    if staircase:
        p = np.floor(p)
    return learning_rate * decay_rate ** p


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    """natural_exp_decay: ``decayed_learning_rate = learning_rate * exp(-decay_rate * global_step / decay_step)``
    (staircase: ``floor(global_step / decay_step)``)."""
    p = _steps(global_step) / decay_steps
    if staircase:
        p = np.floor(p)
    return learning_rate * np.exp(-decay_rate * p)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    """inverse_time_decay: ``decayed_learning_rate = learning_rate / (1 + decay_rate * global_step / decay_step)``
    (staircase: ``floor(global_step / decay_step)``)."""
    p = _steps(global_step) / decay_steps
    if staircase:
        p = np.floor(p)
    return learning_rate / (1 + decay_rate * p)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    """polynomial_decay: ``global_step = min(global_step, decay_steps); decayed_learning_rate =
    (learning_rate - end_learning_rate) * (1 - global_step / decay_steps) ^ (power) + end_learning_rate``;
    cycle: ``decay_steps = decay_steps * ceil(global_step / decay_steps)`` (1 at step 0)."""
    step = _steps(global_step)
    if cycle:
        decay_steps = decay_steps * np.where(step == 0, 1.0, np.ceil(step / decay_steps))
    else:
        step = np.minimum(step, decay_steps)
    return (learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power + end_learning_rate


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0):
    """cosine_decay: ``global_step = min(global_step, decay_steps); cosine_decay = 0.5 * (1 + cos(pi *
    global_step / decay_steps)); decayed = (1 - alpha) * cosine_decay + alpha``; times learning_rate."""
    step = np.minimum(_steps(global_step), decay_steps)
    cosine = 0.5 * (1 + np.cos(np.pi * step / decay_steps))
    return learning_rate * ((1 - alpha) * cosine + alpha)


def restart_period(step, first_decay_steps, t_mul):
    """(i, fraction of period i done): periods of first_decay_steps * t_mul^i steps, walked one by one."""
    start, length, i = 0.0, float(first_decay_steps), 0
    while step >= start + length:
        start += length
        length *= t_mul
        i += 1
    return i, (step - start) / length


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0):
    """cosine_decay_restarts: 'The learning rate multiplier first decays from 1 to alpha for
    first_decay_steps steps. Then, a warm restart is performed. Each new warm restart runs for t_mul
    times more steps and with m_mul times smaller initial learning rate.'"""
    out = []
    for s in np.atleast_1d(_steps(global_step)):
        i, frac = restart_period(float(s), first_decay_steps, t_mul)
        cosine = 0.5 * m_mul ** i * (1 + math.cos(math.pi * frac))
        out.append(learning_rate * ((1 - alpha) * cosine + alpha))
    return np.asarray(out).reshape(np.shape(global_step))


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001):
    """linear_cosine_decay: ``global_step = min(global_step, decay_steps); linear_decay = (decay_steps -
    global_step) / decay_steps; cosine_decay = 0.5 * (1 + cos(pi * 2 * num_periods * global_step /
    decay_steps)); decayed = (alpha + linear_decay) * cosine_decay + beta``; times learning_rate."""
    step = np.minimum(_steps(global_step), decay_steps)
    linear = (decay_steps - step) / decay_steps
    cosine = 0.5 * (1 + np.cos(np.pi * 2 * num_periods * step / decay_steps))
    return learning_rate * ((alpha + linear) * cosine + beta)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, noise=0.0):
    """noisy_linear_cosine_decay: ``decayed = (alpha + linear_decay + eps_t) * cosine_decay + beta``,
    eps_t gaussian noise with variance ``initial_variance / (1 + global_step) ** variance_decay``;
    ``noise`` is the N(0, 1) draw: eps_t = noise * sqrt(variance)."""
    step = np.minimum(_steps(global_step), decay_steps)
    linear = (decay_steps - step) / decay_steps
    eps = noise * np.sqrt(initial_variance / (1 + step) ** variance_decay)
    cosine = 0.5 * (1 + np.cos(np.pi * 2 * num_periods * step / decay_steps))
    return learning_rate * ((alpha + linear + eps) * cosine + beta)


def piecewise_constant(x, boundaries, values):
    """piecewise_constant: 'values[0] when x <= boundaries[0], values[1] when x > boundaries[0] and
    x <= boundaries[1], ..., and values[-1] when x > boundaries[-1]'."""
    x = np.asarray(x)
    out = np.full(x.shape, values[-1], dtype=np.float64)
    for b, v in reversed(list(zip(boundaries, values))):
        out = np.where(x <= b, v, out)
    return out


# -- training: gradient clipping (float64) ---------------------------------------

def _l2norm(t):
    return np.sqrt(np.sum(np.square(t)))


def clip_by_value(t, clip_value_min, clip_value_max):
    """clip_by_value: 'Any values less than clip_value_min are set to clip_value_min. Any values
    greater than clip_value_max are set to clip_value_max.'"""
    t = np.asarray(t, np.float64)
    return np.where(t < clip_value_min, clip_value_min, np.where(t > clip_value_max, clip_value_max, t))


def clip_by_norm(t, clip_norm):
    """clip_by_norm: ``t * clip_norm / l2norm(t)`` where l2norm(t) > clip_norm, else t."""
    t = np.asarray(t, np.float64)
    norm = _l2norm(t)
    return t if norm <= clip_norm else t * clip_norm / norm


def clip_by_average_norm(t, clip_norm):
    """clip_by_average_norm: ``t * clip_norm / l2norm_avg(t)`` where l2norm_avg(t) (the L2-norm divided
    by the number of elements) > clip_norm, else t."""
    t = np.asarray(t, np.float64)
    avg = _l2norm(t) / t.size
    return t if avg <= clip_norm else t * clip_norm / avg


def global_norm(t_list):
    """global_norm: ``global_norm = sqrt(sum([l2norm(t)**2 for t in t_list]))``; None entries are ignored."""
    return np.sqrt(sum(_l2norm(np.asarray(t, np.float64)) ** 2 for t in t_list if t is not None))


def clip_by_global_norm(t_list, clip_norm, use_norm=None):
    """clip_by_global_norm: ``t_list[i] * clip_norm / max(global_norm, clip_norm)`` (None stays None)."""
    norm = global_norm(t_list) if use_norm is None else use_norm
    return [None if t is None else np.asarray(t, np.float64) * clip_norm / max(norm, clip_norm) for t in t_list]


# -- training: moving averages (float64) ------------------------------------------

def moving_average_update(shadow_variable, variable, decay):
    """ExponentialMovingAverage: ``shadow_variable -= (1 - decay) * (shadow_variable - variable)``."""
    return shadow_variable - (1 - decay) * (shadow_variable - variable)


def moving_average_decay(decay, num_updates):
    """ExponentialMovingAverage with num_updates: ``min(decay, (1 + num_updates) / (10 + num_updates))``."""
    return min(decay, (1 + num_updates) / (10 + num_updates))


def zero_debiased_averages(values, decay):
    """assign_moving_average(zero_debias=True): the debiased averages after each value,
    ``biased / (1 - decay^t)``, biased started at 0 (Kingma & Ba 2015, section 3)."""
    biased, out = 0.0, []
    for t, value in enumerate(values, start=1):
        biased = decay * biased + (1 - decay) * np.asarray(value, np.float64)
        out.append(biased / (1 - decay ** t))
    return out
