"""AddSign's update rule (ApplyAddSign)."""
from ref import numpy_reference
from specs.card import SpecCard

CARD = SpecCard(
    name="ApplyAddSign",
    seed="",
    section="",
    quote="",
    target="raw_ops.ApplyAddSign",
    defaults={"use_locking": False},
    kernel="ApplyAddSign",
    oracle=numpy_reference.apply_add_sign,
    ulp=4,
    ulp64=4,
    constraints=("0 <= beta <= 1", "1e-6 <= lr <= 1e3", "0 <= alpha <= 10", "0 <= sign_decay <= 1"),
    notes="Not in the seeds: the rule is Bello et al. 2017 ('Neural Optimizer Search with "
          "Reinforcement Learning', AddSign); TF's kernel (training_ops.cc ApplyAddSign) does the "
          "same arithmetic. sign(m_t) is taken of the rounded m_t, as TF does.",
)

MATH = r"""m_t = \beta\, m_{t-1} + (1 - \beta)\, g_t \qquad
\theta_{t+1} = \theta_t - \alpha \left(a + d_t \operatorname{sign}(g_t) \operatorname{sign}(m_t)\right) g_t
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
