"""Momentum (ApplyMomentum, SparseApplyMomentum) and the Keras form (ApplyKerasMomentum,
SparseApplyKerasMomentum)."""
from specs.card import SpecCard
from specs.gradient_descent import rows_in_order

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.MomentumOptimizer"
QUOTE = ("Computes (if use_nesterov = False): accumulation = momentum * accumulation + gradient "
         "variable -= learning_rate * accumulation")


def oracle(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False):
    """The quoted rule; Nesterov: the variable tracks theta + mu * v (the seed's 'adjusted gradient')."""
    accum = momentum * accum + grad
    if use_nesterov:
        return var - lr * (grad + momentum * accum), accum
    return var - lr * accum, accum


def keras_oracle(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False):
    """Keras' form: the learning rate inside the accumulator (velocity)."""
    accum = momentum * accum - lr * grad
    if use_nesterov:
        return var + momentum * accum - lr * grad, accum
    return var + accum, accum


def _sparse(dense):
    def sparse_oracle(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False):
        return rows_in_order(dense, ("var", "accum"), dict(var=var, accum=accum, lr=lr, grad=grad, indices=indices,
                                                           momentum=momentum, use_nesterov=use_nesterov))
    return sparse_oracle


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


def _card(name, oracle_fn, sparse, keras):
    return SpecCard(name=name, seed="" if keras else SEED, section="" if keras else SECTION,
                    quote="" if keras else QUOTE, target=f"raw_ops.{name}",
                    defaults={"use_locking": False, "use_nesterov": False}, kernel=name,
                    oracle=_sparse(oracle_fn) if sparse else oracle_fn, ulp=8 if sparse else 4,
                    ulp64=8 if sparse else 4, constraints=_KERAS_CONSTRAINTS if keras else _CONSTRAINTS,
                    notes=_KERAS_NOTES if keras else _NOTES)


CARDS = [_card("ApplyMomentum", oracle, False, False), _card("SparseApplyMomentum", oracle, True, False),
         _card("ApplyKerasMomentum", keras_oracle, False, True),
         _card("SparseApplyKerasMomentum", keras_oracle, True, True)]

MATH = r"""a_{t} = \mu\, a_{t-1} + g_t \qquad
\theta_{t+1} = \begin{cases} \theta_t - \alpha\, a_t & \text{default} \\
\theta_t - \alpha\, g_t - \alpha\, \mu\, a_t & \texttt{use\_nesterov} \end{cases}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
