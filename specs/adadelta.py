"""Adadelta (ApplyAdadelta, SparseApplyAdadelta)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.AdadeltaOptimizer"
QUOTE = ("tf.compat.v1.train.AdadeltaOptimizer( learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking=False, "
         "name='Adadelta' ) References: ADADELTA - An Adaptive Learning Rate Method: Zeiler, 2012 (pdf) Args "
         "learning_rate A Tensor or a floating point value. The learning rate. To match the exact form in the "
         "original paper use 1.0.")


# var is kept clear of its steps (cancellation is inherent in the formula; TF_NOTES.md).
_CONSTRAINTS = ("1 <= var <= 1e6", "1e-6 <= lr <= 1e-5", "0 <= rho <= 0.999", "1e-8 <= epsilon <= 1",
                "1e-3 <= accum <= 1e12", "0 <= accum_update <= 1", "-1e3 <= grad <= 1e3")
_NOTES = ("The seed cites Zeiler's paper; the oracle is its Algorithm 1 with lr scaling the step "
          "(lr = 1.0 is the paper's form). TF: update = sqrt(accum_update + eps) * rsqrt(accum + eps) * grad, "
          "accum = accum*rho + g*g*(1 - rho) -- the same expression order dense and sparse; ref's rsqrt "
          "is 1/sqrt. Budget 8 (16 sparse): the slots' two terms and the update's seven roundings, "
          "and duplicate indices repeat the step.")

CARDS = [
    SpecCard(name="ApplyAdadelta", seed=SEED, section=SECTION, quote=QUOTE, target="raw_ops.ApplyAdadelta",
             defaults={"use_locking": False}, kernel="ApplyAdadelta", oracle=numpy_reference.apply_adadelta, ulp=8, ulp64=8,
             constraints=_CONSTRAINTS, notes=_NOTES),
    SpecCard(name="SparseApplyAdadelta", seed=SEED, section=SECTION, quote=QUOTE,
             target="raw_ops.SparseApplyAdadelta", defaults={"use_locking": False}, kernel="SparseApplyAdadelta",
             oracle=numpy_reference.sparse_apply_adadelta, ulp=16, ulp64=16, constraints=_CONSTRAINTS, notes=_NOTES),
]

MATH = r"""E[g^2]_t = \rho\, E[g^2]_{t-1} + (1 - \rho)\, g_t^2 \qquad
\Delta_t = \frac{\sqrt{E[\Delta^2]_{t-1} + \epsilon}}{\sqrt{E[g^2]_t + \epsilon}}\, g_t

\theta_{t+1} = \theta_t - \alpha\, \Delta_t \qquad
E[\Delta^2]_t = \rho\, E[\Delta^2]_{t-1} + (1 - \rho)\, \Delta_t^2
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
