"""Moving averages (ref.optimizers.moving_averages): TF 1.x docs, "Training",
"Moving Averages". Graph behaviour, not a raw op: ``kernel`` is empty and
tests/optimizers/test_moving_averages.py checks shadow trajectories against
these float64 oracles and against TensorFlow.
"""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "001_05ea92376fdb369e.txt"
SECTION = "Moving Averages"


CARDS = [
    SpecCard(name="ExponentialMovingAverage update", seed=SEED, section=SECTION,
             quote="`shadow_variable -= (1 - decay) * (shadow_variable - variable)`",
             target="ref.optimizers.moving_averages.ExponentialMovingAverage.__init__",
             defaults={"num_updates": None, "name": "ExponentialMovingAverage", "zero_debias": False},
             oracle=numpy_reference.moving_average_update, ulp=2, ulp64=2,
             notes="TF: AssignSub(shadow, (shadow - value) * (1 - decay)), 1 - decay computed in float32 (the "
                   "decay is a float32 tensor) and cast to the variable's dtype, so a float64 average carries "
                   "float32 precision in 1 - decay. Shadows of Variables start at the variable's initial value "
                   "(initialized_value()), shadows of Tensors at 0. zero_debias (TF, later than the seed) "
                   "applies to Tensors only.",
             errors=("TypeError: The variables must be half, float, or double (TF 2.21 also accepts half and "
                     "bfloat16; the seed lists float32 and float64)",
                     "ValueError: If the moving average of one of the variables is already being computed "
                     "(TF 2.21 silently skips a repeat; ref raises as the seed documents)")),
    SpecCard(name="ExponentialMovingAverage num_updates", seed=SEED, section=SECTION,
             quote="`min(decay, (1 + num_updates) / (10 + num_updates))`",
             target="ref.optimizers.moving_averages.ExponentialMovingAverage.__init__",
             defaults={"num_updates": None}, oracle=numpy_reference.moving_average_decay, ulp=1, ulp64=1,
             notes="TF: Minimum(decay, (1.0 + n) / (10.0 + n)) in float32, n = Cast(num_updates, float32)."),
    SpecCard(name="ExponentialMovingAverage variables_to_restore", seed=SEED, section=SECTION,
             quote="If a variable has a moving average, use the moving average variable name as the restore "
                   "name; otherwise, use the variable name.",
             target="ref.optimizers.moving_averages.ExponentialMovingAverage.variables_to_restore",
             defaults={"moving_avg_variables": None},
             notes="TF (and ref): every variable of moving_avg_variables (default: the trainable variables and "
                   "MOVING_AVERAGE_VARIABLES) maps from its average name whether or not it is averaged; every "
                   "other global variable from its own op name (global_step: global_step)."),
    SpecCard(name="assign_moving_average zero_debias", seed="", section="", quote="",
             target="ref.optimizers.moving_averages.assign_moving_average",
             defaults={"zero_debias": True, "name": None}, oracle=numpy_reference.zero_debiased_averages,
             notes="Not in the seeds: TF's moving_averages.assign_moving_average. biased -= (biased - value) * "
                   "(1 - decay); local_step += 1; variable = biased / (1 - (1 - (1 - decay)) ** local_step), "
                   "with <variable>/biased and <variable>/local_step created next to the variable (Adam's "
                   "bias correction, Kingma & Ba 2015, section 3)."),
]

MATH = r"""d = \min\!\left(\texttt{decay},\ \frac{1 + n}{10 + n}\right) \ \ (\text{with } \texttt{num\_updates} = n) \qquad
\bar\theta \leftarrow \bar\theta - (1 - d)(\bar\theta - \theta)
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
