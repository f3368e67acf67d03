"""Proximal gradient descent, FOBOS (ApplyProximalGradientDescent, SparseApplyProximalGradientDescent)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.ProximalGradientDescentOptimizer"
QUOTE = ("Optimizer that implements the proximal gradient descent algorithm. Inherits From: Optimizer "
         "tf.compat.v1.train.ProximalGradientDescentOptimizer( learning_rate, l1_regularization_strength=0.0, "
         "l2_regularization_strength=0.0, use_locking=False, name='ProximalGradientDescent' ) References: "
         "Efficient Learning using Forward-Backward Splitting: Duchi et al., 2009")


# var is kept clear of its steps (and of lr*l1): cancellation there is inherent in
# the formula, not a kernel error; the TF comparisons cover it bit for bit.
_CONSTRAINTS = ("1 <= var <= 1e6", "1e-6 <= alpha <= 1e-3", "0 <= l1 <= 1e-3", "0 <= l2 <= 1e3",
                "-1e2 <= delta <= 1e2", "-1e2 <= grad <= 1e2")
_NOTES = ("The seed names FOBOS (Duchi et al., 2009); the oracle is its closed-form step "
          "(eq. 3 with the l1 + l2^2/2 regulariser, Section 5). TF skips the shrinkage when l1 == 0 "
          "(the same value) and, in the sparse kernel's single-element-row branch, divides in C++ "
          "double. Budget 4 at the update's scale: |v| - lr*l1 can cancel.")

CARDS = [
    SpecCard(name="ApplyProximalGradientDescent", seed=SEED, section=SECTION, quote=QUOTE,
             target="raw_ops.ApplyProximalGradientDescent", defaults={"use_locking": False},
             kernel="ApplyProximalGradientDescent", oracle=numpy_reference.apply_proximal_gradient_descent, ulp=4, ulp64=4, constraints=_CONSTRAINTS,
             notes=_NOTES),
    SpecCard(name="SparseApplyProximalGradientDescent", seed=SEED, section=SECTION, quote=QUOTE,
             target="raw_ops.SparseApplyProximalGradientDescent", defaults={"use_locking": False},
             kernel="SparseApplyProximalGradientDescent", oracle=numpy_reference.sparse_apply_proximal_gradient_descent, ulp=8, ulp64=8,
             constraints=_CONSTRAINTS, notes=_NOTES),
]

MATH = r"""v = \theta_t - \alpha\, g_t \qquad
\theta_{t+1} = \operatorname{sign}(v)\, \frac{\max(|v| - \alpha \lambda_1,\, 0)}{1 + \alpha \lambda_2}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
