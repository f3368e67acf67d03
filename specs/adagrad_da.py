"""Adagrad Dual Averaging (ApplyAdagradDA, SparseApplyAdagradDA)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.AdagradDAOptimizer"
QUOTE = ("Adagrad Dual Averaging algorithm for sparse linear models. Inherits From: Optimizer "
         "tf.compat.v1.train.AdagradDAOptimizer( learning_rate, global_step, "
         "initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0, "
         "l2_regularization_strength=0.0, use_locking=False, name='AdagradDA' )")


# |g| - l1*t and the sum of gradients are kept clear of cancellation (g >= 1 > l1*t).
_CONSTRAINTS = ("1e-6 <= lr <= 1e3", "0 <= l1 <= 1e-6", "0 <= l2 <= 1e3", "1 <= global_step <= 100000",
                "1 <= gradient_accumulator <= 1e6", "1e-3 <= gradient_squared_accumulator <= 1e12",
                "0 <= grad <= 1e3")
_NOTES = ("The closed form is TF's own comment in training_ops.cc (the seed describes the 'closed form "
          "update rule'). The dense kernel casts global_step to float32 even for float64 (so t above 2^24 "
          "is rounded; the constraints keep t exact); the sparse kernel divides numerator and denominator "
          "by t*lr, and its single-element-row branch computes in C++ double. The property test keeps |g| "
          "clear of l1 t and the gradients of one sign: cancellation there is unbounded in relative "
          "terms (TF comparisons in tests/ops/training/test_update_kernels.py cover it exactly). Budget 8: "
          "the var is computed afresh, so its error is relative to itself; duplicate indices accumulate.")

CARDS = [
    SpecCard(name="ApplyAdagradDA", seed=SEED, section=SECTION, quote=QUOTE, target="raw_ops.ApplyAdagradDA",
             defaults={"use_locking": False}, kernel="ApplyAdagradDA", oracle=numpy_reference.apply_adagrad_da, ulp=8, ulp64=8,
             constraints=_CONSTRAINTS, notes=_NOTES),
    SpecCard(name="SparseApplyAdagradDA", seed=SEED, section=SECTION, quote=QUOTE,
             target="raw_ops.SparseApplyAdagradDA", defaults={"use_locking": False}, kernel="SparseApplyAdagradDA",
             oracle=numpy_reference.sparse_apply_adagrad_da, ulp=8, ulp64=8, constraints=_CONSTRAINTS, notes=_NOTES),
]

MATH = r"""G_t = \sum_{s \le t} g_s \qquad
H_t = H_0 + \sum_{s \le t} g_s^2 \qquad
\theta_{t+1} = \operatorname{sign}(-G_t)\,
  \frac{\alpha \max(|G_t| - \lambda_1 t,\, 0)}{\lambda_2\, t\, \alpha + \sqrt{H_t}}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
