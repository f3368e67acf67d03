"""Adagrad (ApplyAdagrad, ApplyAdagradV2 and the sparse twins)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.AdagradOptimizer"
QUOTE = ("tf.compat.v1.train.AdagradOptimizer( learning_rate, initial_accumulator_value=0.1, use_locking=False, "
         "name='Adagrad' ) References: Adaptive Subgradient Methods for Online Learning and Stochastic "
         "Optimization :Duchi et al., 2011")


# var is kept clear of its steps: var - step cancelling (also across duplicate
# indices) is inherent in the formula; the TF comparisons cover it.
_CONSTRAINTS = ("1 <= var <= 1e6", "1e-6 <= lr <= 1e-4", "1e-3 <= accum <= 1e12", "-10 <= grad <= 10",
                "1e-8 <= epsilon <= 1")
_NOTES = ("The seed cites the paper; the oracle is its diagonal update with TF's update_slots flag "
          "(False: accum is read, not updated) and, for the V2 ops, epsilon added to sqrt(accum) "
          "(V1 has none). TF: var -= grad * lr * rsqrt(accum) (sparse, single-element rows: "
          "lr * grad / sqrt(accum)); ref's rsqrt is 1/sqrt. Budget 4: five roundings at the update's scale; "
          "8 for the sparse ops, whose duplicate indices repeat the step.")


def _card(name, sparse):
    return SpecCard(name=name, seed=SEED, section=SECTION, quote=QUOTE, target=f"raw_ops.{name}",
                    defaults={"use_locking": False, "update_slots": True}, kernel=name,
                    oracle=numpy_reference.sparse_apply_adagrad if sparse else numpy_reference.apply_adagrad, ulp=8 if sparse else 4, ulp64=8 if sparse else 4,
                    constraints=_CONSTRAINTS, notes=_NOTES)


CARDS = [_card("ApplyAdagrad", False), _card("ApplyAdagradV2", False),
         _card("SparseApplyAdagrad", True), _card("SparseApplyAdagradV2", True)]

MATH = r"""n_t = n_{t-1} + g_t^2 \quad (n_0 = \texttt{initial\_accumulator\_value}) \qquad
\theta_{t+1} = \theta_t - \frac{\alpha\, g_t}{\sqrt{n_t}}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
