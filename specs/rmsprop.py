"""RMSProp and centered RMSProp (ApplyRMSProp, ApplyCenteredRMSProp and the sparse twins)."""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
SECTION = "tf.compat.v1.train.RMSPropOptimizer"
SIGNATURE = ("tf.compat.v1.train.RMSPropOptimizer( learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, "
             "use_locking=False, centered=False, name='RMSProp' )")
CENTERED = ("centered If True, gradients are normalized by the estimated variance of the gradient; if False, "
            "by the uncentered second moment.")


_COMMON = ("1e-6 <= lr <= 1e3", "0.5 <= rho < 1", "momentum == 0.0", "1e-10 <= epsilon <= 1", "0 <= ms <= 1e12")
_CENTERED = ("1e-6 <= lr <= 1e3", "0.5 <= rho < 1", "momentum == 0.0", "1e-10 <= epsilon <= 1",
             "1e-3 <= ms <= 1e12", "mg = 0.5 * np.sqrt(ms)")
_NOTES = ("The seed gives the defaults and what 'centered' means; the update is the optimizer's "
          "documented rule (Hinton 2012 slide 29, epsilon inside the sqrt as in TF). TF's dense kernel "
          "computes ms += (g^2 - ms)(1 - rho); its sparse kernel ms*rho + g^2*(1 - rho) and "
          "rsqrt(ms + eps)*lr*g. Centered inputs keep mean_square >= mean_grad^2 (mg = sqrt(ms)/2, "
          "rho >= 0.5) so the variance estimate is not a cancellation; momentum = 0 keeps mom_t from cancelling "
          "against the step (momentum is tested against TF).")

CARDS = [
    SpecCard(name="ApplyRMSProp", seed=SEED, section=SECTION, quote=SIGNATURE, target="raw_ops.ApplyRMSProp",
             defaults={"use_locking": False}, kernel="ApplyRMSProp", oracle=numpy_reference.apply_rms_prop, ulp=6, ulp64=6,
             constraints=_COMMON, notes=_NOTES),
    SpecCard(name="SparseApplyRMSProp", seed=SEED, section=SECTION, quote=SIGNATURE,
             target="raw_ops.SparseApplyRMSProp", defaults={"use_locking": False}, kernel="SparseApplyRMSProp",
             oracle=numpy_reference.sparse_apply_rms_prop, ulp=16, ulp64=16, constraints=_COMMON, notes=_NOTES),
    SpecCard(name="ApplyCenteredRMSProp", seed=SEED, section=SECTION, quote=CENTERED,
             target="raw_ops.ApplyCenteredRMSProp", defaults={"use_locking": False},
             kernel="ApplyCenteredRMSProp",
             oracle=numpy_reference.apply_centered_rms_prop, ulp=8, ulp64=8, constraints=_CENTERED,
             notes=_NOTES),
    SpecCard(name="SparseApplyCenteredRMSProp", seed=SEED, section=SECTION, quote=CENTERED,
             target="raw_ops.SparseApplyCenteredRMSProp", defaults={"use_locking": False},
             kernel="SparseApplyCenteredRMSProp",
             oracle=numpy_reference.sparse_apply_centered_rms_prop, ulp=16, ulp64=16,
             constraints=_CENTERED, notes=_NOTES),
]

MATH = r"""s_t = \rho\, s_{t-1} + (1 - \rho)\, g_t^2 \qquad
\bar g_t = \rho\, \bar g_{t-1} + (1 - \rho)\, g_t \ \ (\texttt{centered})

m_t = \mu\, m_{t-1} + \frac{\alpha\, g_t}{\sqrt{s_t + \epsilon}}
\ \ \text{or, centered,}\ \ \frac{\alpha\, g_t}{\sqrt{s_t - \bar g_t^2 + \epsilon}} \qquad
\theta_{t+1} = \theta_t - m_t
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
