"""Gradient descent (ApplyGradientDescent)."""
from ref import numpy_reference
from specs.card import SpecCard

CARD = SpecCard(
    name="ApplyGradientDescent",
    seed="002_05f9b9b98e89c771.txt",
    section="tf.compat.v1.train.GradientDescentOptimizer",
    quote="Optimizer that implements the gradient descent algorithm.",
    target="raw_ops.ApplyGradientDescent",
    defaults={"use_locking": False},
    kernel="ApplyGradientDescent",
    oracle=numpy_reference.apply_gradient_descent,
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
