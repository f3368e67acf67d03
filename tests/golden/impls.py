"""Hand-written NumPy optimizers for the golden tests, in TF's form and in the
common variants (written here from the formulas, independently of ref)."""
import numpy as np


def tf_adam(var, grads, learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8):
    """TF's ApplyAdam in float32 (training_ops.cc): beta powers as float32 running
    products, m += (g - m) * (1 - beta1), epsilon added to the uncorrected sqrt(v)."""
    t = var.dtype.type
    b1, b2, eps, lr = t(np.float32(beta1)), t(np.float32(beta2)), t(np.float32(epsilon)), t(np.float32(learning_rate))
    b1p, b2p = np.float32(beta1), np.float32(beta2)
    m, v = np.zeros_like(var), np.zeros_like(var)
    out = []
    for g in grads:
        alpha = lr * np.sqrt(t(1) - t(b2p)) / (t(1) - t(b1p))
        m = m + (g - m) * (t(1) - b1)
        v = v + (g * g - v) * (t(1) - b2)
        var = var - (m * alpha) / (np.sqrt(v) + eps)
        out.append(var)
        b1p, b2p = b1p * np.float32(beta1), b2p * np.float32(beta2)
    return np.stack(out)


def tf_apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking=False,
                  use_nesterov=False):
    """The kernel protocol: one TF ApplyAdam step in var's dtype."""
    t = var.dtype.type
    beta1_power, beta2_power, lr, beta1, beta2, epsilon = (t(x) for x in (beta1_power, beta2_power, lr, beta1,
                                                                           beta2, epsilon))
    alpha = lr * np.sqrt(t(1) - beta2_power) / (t(1) - beta1_power)
    with np.errstate(all="ignore"):
        m = m + (grad - m) * (t(1) - beta1)
        v = v + (grad * grad - v) * (t(1) - beta2)
        step = (grad * (t(1) - beta1) + beta1 * m) if use_nesterov else m
        return var - (step * alpha) / (np.sqrt(v) + epsilon), m, v


def paper_apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, **attrs):
    """Kernel protocol with the paper's epsilon (added to sqrt(v_hat))."""
    t = var.dtype.type
    with np.errstate(all="ignore"):
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        m_hat, v_hat = m / t(1 - beta1_power), v / t(1 - beta2_power)
        return (var - t(lr) * m_hat / (np.sqrt(v_hat) + t(epsilon))).astype(var.dtype), m, v


def torch_rmsprop(var, grads, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, **_):
    """PyTorch's RMSprop: square average starts at zero, epsilon outside the sqrt."""
    sq = np.zeros_like(var)
    out = []
    for g in grads:
        sq = decay * sq + (1 - decay) * g * g
        var = var - learning_rate * g / (np.sqrt(sq) + epsilon)
        out.append(var)
    return np.stack(out)


def torch_adagrad(var, grads, learning_rate, **_):
    """PyTorch's Adagrad: accumulator starts at 0, epsilon 1e-10 outside the sqrt."""
    acc = np.zeros_like(var)
    out = []
    for g in grads:
        acc = acc + g * g
        var = var - learning_rate * g / (np.sqrt(acc) + np.float32(1e-10))
        out.append(var)
    return np.stack(out)


def keras_momentum(var, grads, learning_rate, momentum=0.9, use_nesterov=False, **_):
    """Keras' SGD momentum: the velocity holds the learning rate (v = mu v - lr g; var += v)."""
    v = np.zeros_like(var)
    lr, mu = np.float32(learning_rate), np.float32(momentum)
    out = []
    for g in grads:
        v = mu * v - lr * g
        var = var + v
        out.append(var)
    return np.stack(out)
