"""PowerSign's update rule (ApplyPowerSign)."""
from ref import numpy_reference
from specs.card import SpecCard

CARD = SpecCard(
    name="ApplyPowerSign",
    seed="",
    section="",
    quote="",
    target="raw_ops.ApplyPowerSign",
    defaults={"use_locking": False},
    kernel="ApplyPowerSign",
    oracle=numpy_reference.apply_power_sign,
    ulp=4,
    ulp64=4,
    constraints=("0 <= beta <= 1", "1e-6 <= lr <= 1e3", "0 <= logbase <= 2", "0 <= sign_decay <= 1"),
    notes="Not in the seeds: the rule is Bello et al. 2017 ('Neural Optimizer Search with "
          "Reinforcement Learning', PowerSign, base e^logbase); TF's kernel (training_ops.cc "
          "ApplyPowerSign) does the same arithmetic, with Eigen's approximate float32 exp.",
)

MATH = r"""m_t = \beta\, m_{t-1} + (1 - \beta)\, g_t \qquad
\theta_{t+1} = \theta_t - \alpha\, \exp\!\left(\ln(b)\, d_t \operatorname{sign}(g_t) \operatorname{sign}(m_t)\right) g_t
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
