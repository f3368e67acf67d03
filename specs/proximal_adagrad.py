"""Proximal Adagrad (ApplyProximalAdagrad, SparseApplyProximalAdagrad)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.ProximalAdagradOptimizer"
QUOTE = ("References: Adaptive Subgradient Methods for Online Learning and Stochastic Optimization: "
         "Duchi et al., 2011 (pdf) Efficient Learning using Forward-Backward Splitting: Duchi et al., 2009")


# var is kept clear of its steps and of lr_t*l1 (cancellation is inherent in the formula).
_CONSTRAINTS = ("1 <= var <= 1e6", "1e-6 <= lr <= 1e-4", "0 <= l1 <= 1e-3", "0 <= l2 <= 1e3",
                "1e-3 <= accum <= 1e12", "-10 <= grad <= 10")
_NOTES = ("The seed cites Adagrad and FOBOS; the oracle composes them (Adagrad's learning rate in "
          "FOBOS's closed-form step). TF: learning_rate = lr * rsqrt(accum) (sparse single-element rows: "
          "lr / sqrt(accum), then the denominator in double); ref's rsqrt is 1/sqrt. Budget 8 "
          "(16 sparse): |v| - lr_t*l1 can cancel, and duplicate indices repeat the step.")

CARDS = [
    SpecCard(name="ApplyProximalAdagrad", seed=SEED, section=SECTION, quote=QUOTE,
             target="raw_ops.ApplyProximalAdagrad", defaults={"use_locking": False},
             kernel="ApplyProximalAdagrad", oracle=numpy_reference.apply_proximal_adagrad, ulp=8, ulp64=8, constraints=_CONSTRAINTS, notes=_NOTES,
             errors=("lr <= 0, l1 < 0 or l2 < 0: InvalidArgumentError",)),
    SpecCard(name="SparseApplyProximalAdagrad", seed=SEED, section=SECTION, quote=QUOTE,
             target="raw_ops.SparseApplyProximalAdagrad", defaults={"use_locking": False},
             kernel="SparseApplyProximalAdagrad", oracle=numpy_reference.sparse_apply_proximal_adagrad, ulp=16, ulp64=16,
             constraints=_CONSTRAINTS, notes=_NOTES, errors=("lr <= 0, l1 < 0 or l2 < 0: InvalidArgumentError",)),
]

MATH = r"""n_t = n_{t-1} + g_t^2 \qquad \alpha_t = \frac{\alpha}{\sqrt{n_t}} \qquad
v = \theta_t - \alpha_t\, g_t \qquad
\theta_{t+1} = \operatorname{sign}(v)\, \frac{\max(|v| - \alpha_t \lambda_1,\, 0)}{1 + \alpha_t \lambda_2}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
