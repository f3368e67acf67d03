"""NumPy reference implementations of ref's element-wise kernels: the oracles
the tests check the kernels against, importable by users (as JAX's
``lax_reference``). Each function transcribes the formula quoted in its
docstring -- TF's op documentation -- as a plain NumPy expression, computing
in the input's precision unless the docstring says float64; none of them calls
a ref kernel. ``UNARY``, ``BINARY`` and ``ACTIVATIONS`` map TF op names to them,
e.g. ``ref.numpy_reference.UNARY["Asinh"](x)``.
"""
from __future__ import annotations

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
