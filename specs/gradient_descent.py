"""Gradient descent (ApplyGradientDescent)."""
import numpy as np

from specs.card import SpecCard


def rows_in_order(dense, refs, kw):
    """A sparse oracle from a dense one: row ``indices[i]`` of every ref updated
    with ``grad[i]``, one index after another (duplicates apply twice)."""
    out = [np.array(kw[r], np.float64) for r in refs]
    hypers = {k: v for k, v in kw.items() if k not in (*refs, "grad", "indices")}
    for i, r in enumerate(kw["indices"]):
        new = dense(**{name: o[r] for name, o in zip(refs, out)}, grad=kw["grad"][i], **hypers)
        for o, n in zip(out, new):
            o[r] = n
    return tuple(out)


def oracle(var, alpha, delta, use_locking=False):
    """variable <- variable - learning_rate * gradient."""
    return (var - alpha * delta,)


CARD = SpecCard(
    name="ApplyGradientDescent",
    seed="002_05f9b9b98e89c771.txt",
    section="tf.compat.v1.train.GradientDescentOptimizer",
    quote="Optimizer that implements the gradient descent algorithm.",
    target="raw_ops.ApplyGradientDescent",
    defaults={"use_locking": False},
    kernel="ApplyGradientDescent",
    oracle=oracle,
    ulp=1,
    ulp64=1,
    constraints=("-1e12 <= alpha <= 1e12", "-1e12 <= delta <= 1e12"),
    notes="The seed names the algorithm; the update is the textbook step, which TF's kernel computes "
          "as var -= delta * alpha: one rounded product, one rounded difference (<= 1 ULP at the "
          "update's scale). TF has no sparse gradient-descent kernel.",
)

MATH = r"""\theta_{t+1} = \theta_t - \alpha\, g_t
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
