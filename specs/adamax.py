"""AdaMax's update rule (ApplyAdaMax)."""
from ref import numpy_reference
from specs.card import SpecCard

CARD = SpecCard(
    name="ApplyAdaMax",
    seed="",
    section="",
    quote="",
    target="raw_ops.ApplyAdaMax",
    defaults={"use_locking": False},
    kernel="ApplyAdaMax",
    oracle=numpy_reference.apply_ada_max,
    ulp=12,
    ulp64=12,
    constraints=("0.5 <= beta1 < 1", "0.5 <= beta2 < 1", "0 <= beta1_power < 0.9999", "1e-6 <= lr <= 1e3",
                 "1e-8 <= epsilon <= 1", "0 <= v",
                 # m_t = beta1*m + (1-beta1)*g may cancel: keep the amplification of the
                 # kernel's roundings (1/ratio) at most 10, covered by the 12-ULP budget
                 "assume: np.abs(beta1 * m + (1 - beta1) * grad) >= "
                 "1e-1 * np.maximum(np.abs(m), np.abs(grad))"),
    notes="Not in the seeds: the formula is the paper's Section 7.1 (arXiv:1412.6980), "
          "theta -= lr/(1 - beta1^t) * m_t/u_t with u_t = max(beta2*u, |g|); TF's kernel "
          "(training_ops.cc ApplyAdaMaxNonCuda) adds epsilon to u_t and rearranges the m update.",
)

MATH = r"""m_t = \beta_1 m_{t-1} + (1 - \beta_1)\, g_t \qquad
u_t = \max(\beta_2 u_{t-1},\, |g_t|) \qquad
\theta_{t+1} = \theta_t - \frac{\alpha}{1 - \beta_1^t}\, \frac{m_t}{u_t + \epsilon}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
