"""A small hand-written NumPy Adam, the way most people write it from the paper.

Kingma & Ba (2015), Algorithm 1: bias-corrected moments, epsilon added to
sqrt(v_hat). TensorFlow's ApplyAdam adds epsilon to the *uncorrected* sqrt(v)
instead (the paper's "epsilon hat", Section 2), so the two differ wherever
sqrt(v) is not much larger than epsilon -- see docs/golden.md.

``adam`` follows ref.golden's trajectory protocol: it starts its own slots,
applies every gradient in ``grads`` and returns the parameter and both moments
after every step.
"""
import numpy as np


def adam_step(var, m, v, grad, t, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
    """One Adam step (t = 1, 2, ...): returns new (var, m, v)."""
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    var = var - learning_rate * m_hat / (np.sqrt(v_hat) + epsilon)
    return var, m, v


def adam(var, grads, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
    """Runs ``adam_step`` over ``grads``; {"var", "m", "v"} after every step."""
    beta1, beta2, epsilon = float(beta1), float(beta2), float(epsilon)
    m = np.zeros_like(var)
    v = np.zeros_like(var)
    out = {"var": [], "m": [], "v": []}
    for t, grad in enumerate(grads, start=1):
        lr = learning_rate[t - 1] if np.ndim(learning_rate) else float(learning_rate)
        var, m, v = adam_step(var, m, v, grad, t, lr, beta1, beta2, epsilon)
        out["var"].append(var)
        out["m"].append(m)
        out["v"].append(v)
    return {k: np.stack(x) for k, x in out.items()}
