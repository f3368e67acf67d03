"""FTRL-Proximal (ApplyFtrl, ApplyFtrlV2 and the sparse twins)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.FtrlOptimizer"
QUOTE = ("in the absence of L1 regularization, it is equivalent to the following update rule: "
         "w_{t+1} = w_t - lr_t / (beta + 2L2lr_t) * g_t - 2L2_shrinkagelr_t / (beta + 2L2lr_t) * w_t")


_CONSTRAINTS = ("l1 == 0.0", "lr_power == 0.0", "multiply_linear_by_lr == False", "1e-6 <= lr <= 1e3",
                "0 <= l2 <= 1e3", "0 <= l2_shrinkage <= 1e3", "0 <= accum <= 1e12",
                "linear = -var * (1 / lr + 2 * l2)")
_NOTES = ("The quote holds for FTRL's own state, linear = -w (1/lr + 2 L2), which the constraints "
          "derive; with lr_power = 0 the raw kernel's beta (accum^-lr_power) is 1. TF's kernels "
          "(and the TF comparison tests) cover l1 > 0, lr_power = -0.5 (sqrt branch) and other "
          "powers, and multiply_linear_by_lr. The accumulator adds grad^2 without shrinkage. Budget 16: linear "
          "+ g + 2 L2_shrinkage w can cancel between its terms,.")

CARDS = [
    SpecCard(name=name, seed=SEED, section=SECTION, quote=QUOTE, target=f"raw_ops.{name}",
             defaults={"use_locking": False, "multiply_linear_by_lr": False}, kernel=name,
             oracle=numpy_reference.sparse_apply_ftrl if name.startswith("Sparse") else numpy_reference.apply_ftrl,
             ulp=16, ulp64=16, constraints=_CONSTRAINTS, notes=_NOTES)
    for name in ("ApplyFtrl", "ApplyFtrlV2", "SparseApplyFtrl", "SparseApplyFtrlV2")
]

MATH = r"""\hat g_t = g_t + 2 \lambda_{\text{shrink}}\, \theta_t \qquad
n_t = n_{t-1} + g_t^2 \qquad
z_t = z_{t-1} + \hat g_t - \frac{n_t^{-p} - n_{t-1}^{-p}}{\alpha}\, \theta_t

\theta_{t+1} = \begin{cases}
\dfrac{\lambda_1 \operatorname{sign}(z_t) - z_t}{n_t^{-p} / \alpha + 2 \lambda_2} & |z_t| > \lambda_1 \\
0 & \text{otherwise} \end{cases}
\qquad (p = \texttt{learning\_rate\_power})
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
