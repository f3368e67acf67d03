"""Momentum (ApplyMomentum, SparseApplyMomentum) and the Keras form (ApplyKerasMomentum,
SparseApplyKerasMomentum)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.MomentumOptimizer"
QUOTE = ("Computes (if use_nesterov = False): accumulation = momentum * accumulation + gradient "
         "variable -= learning_rate * accumulation")


# var is kept clear of its steps (cancellation is inherent in the formula).
_CONSTRAINTS = ("1 <= var <= 1e6", "1e-6 <= lr <= 1e-4", "0 <= momentum <= 1", "-1e2 <= grad <= 1e2",
                "-1e2 <= accum <= 1e2")
_KERAS_CONSTRAINTS = ("1 <= var <= 1e6", "1e-6 <= lr <= 1e-4", "0 <= momentum <= 1", "-1e2 <= grad <= 1e2",
                      "-1e-2 <= accum <= 1e-2")
_NOTES = ("TF: accum = accum * momentum + grad; var -= accum * lr; Nesterov var -= grad * lr + accum * "
          "momentum * lr (sparse: lr * grad + (lr * momentum) * accum). Budget 4 (8 sparse: duplicate "
          "indices repeat the step); the terms of the Nesterov step can cancel.")
_KERAS_NOTES = ("Not in the seeds: Keras' SGD-with-momentum form, TF's ResourceApplyKerasMomentum "
                "(training_ops.cc): accum = accum * momentum - grad * lr; var += accum (Nesterov: var += "
                "accum * momentum - grad * lr). TF registers only the Resource* names; ref exposes both.")


def _card(name, oracle_fn, keras):
    sparse = name.startswith("Sparse")
    return SpecCard(name=name, seed="" if keras else SEED, section="" if keras else SECTION,
                    quote="" if keras else QUOTE, target=f"raw_ops.{name}",
                    defaults={"use_locking": False, "use_nesterov": False}, kernel=name,
                    oracle=oracle_fn, ulp=8 if sparse else 4,
                    ulp64=8 if sparse else 4, constraints=_KERAS_CONSTRAINTS if keras else _CONSTRAINTS,
                    notes=_KERAS_NOTES if keras else _NOTES)


CARDS = [_card("ApplyMomentum", numpy_reference.apply_momentum, False),
         _card("SparseApplyMomentum", numpy_reference.sparse_apply_momentum, False),
         _card("ApplyKerasMomentum", numpy_reference.apply_keras_momentum, True),
         _card("SparseApplyKerasMomentum", numpy_reference.sparse_apply_keras_momentum, True)]

MATH = r"""a_{t} = \mu\, a_{t-1} + g_t \qquad
\theta_{t+1} = \begin{cases} \theta_t - \alpha\, a_t & \text{default} \\
\theta_t - \alpha\, g_t - \alpha\, \mu\, a_t & \texttt{use\_nesterov} \end{cases}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
