"""Adam's update rule (ApplyAdam)."""
from ref import numpy_reference
from specs.card import SpecCard

CARD = SpecCard(
    name="ApplyAdam",
    seed="001_05ea92376fdb369e.txt",
    section="class tf.train.AdamOptimizer / tf.train.AdamOptimizer.__init__",
    quote="""t <- t + 1
lr_t <- learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)

m_t <- beta1 * m_{t-1} + (1 - beta1) * g
v_t <- beta2 * v_{t-1} + (1 - beta2) * g * g
variable <- variable - lr_t * m_t / (sqrt(v_t) + epsilon)""",
    target="raw_ops.ApplyAdam",
    defaults={"use_locking": False, "use_nesterov": False},
    kernel="ApplyAdam",
    oracle=numpy_reference.apply_adam,
    ulp=12,
    ulp64=12,
    constraints=("0.5 <= beta1 < 1", "0.5 <= beta2 < 1", "0 <= beta1_power < 0.9999", "0 <= beta2_power < 0.9999",
                 "1e-6 <= lr <= 1e3", "1e-8 <= epsilon <= 1", "0 <= v <= 1e12", "-1e12 <= grad <= 1e12",
                 "-1e12 <= m <= 1e12",
                 # m_t may cancel: keep the amplification of the kernel's roundings <= 10
                 "assume: np.abs(beta1 * m + (1 - beta1) * grad) >= "
                 "1e-1 * np.maximum(np.abs(m), np.abs(grad))",
                 # g*g must not underflow to a subnormal in the kernel's dtype (TF flushes them)
                 "assume: np.all((grad == 0) | (np.abs(grad) >= 1e-18))"),
    notes="TF computes m += (g - m)(1 - beta1) and v += (g^2 - v)(1 - beta2) (rounding differently from "
          "the quoted beta1*m + (1 - beta1)*g) and alpha = lr*sqrt(1 - beta2_power)/(1 - beta1_power) "
          "once; epsilon is the paper's 'epsilon hat' (added to the uncorrected sqrt(v_t)), exactly as "
          "quoted. Budget: a handful of roundings, each at most 1 ULP at the update's scale. "
          "TF's m + (g - m)(1 - beta1) cancels where beta1*m ~ -(1 - beta1)*g, so the property "
          "test assumes m_t is not a cancellation (TF-bit-exactness is tested separately).",
)

MATH = r"""\alpha_t = \alpha\, \frac{\sqrt{1 - \beta_2^t}}{1 - \beta_1^t} \qquad
m_t = \beta_1 m_{t-1} + (1 - \beta_1)\, g_t \qquad
v_t = \beta_2 v_{t-1} + (1 - \beta_2)\, g_t^2

\theta_{t+1} = \theta_t - \frac{\alpha_t\, m_t}{\sqrt{v_t} + \hat\epsilon}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
