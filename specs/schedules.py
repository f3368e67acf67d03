"""Learning-rate schedules (ref.optimizers.schedules): seed 002's
``tf.compat.v1.train.*_decay`` / ``piecewise_constant`` entries and seed 001's
"Decaying the learning rate".

The schedules are compositions of graph ops, not raw ops: ``kernel`` is empty
and tests/optimizers/test_schedules.py property-tests each pure form
(``ref.optimizers.schedules.<name>_value``, same arguments as the graph
function) against the oracle here. Oracles take the ``_value`` arguments and
compute in float64 straight from the quote. Budgets (``ulp``, float32;
``ulp64``) are in units in the last place of ``max(|learning_rate|, |result|)``
-- the scale at which a schedule's error matters (cos(pi * x) near x = 1 and pow with a large
exponent make relative error near zero meaningless).
"""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"
_SECTION = "tf.compat.v1.train.{}"
_DTYPE_NOTE = (" Every hyperparameter is cast to learning_rate's dtype (a Python float becomes float32 first, "
               "as TF's math_ops.cast does) and global_step is cast to that dtype (steps above 2**24 round in "
               "float32).")
_F64_NOTE = (" TF 2.21 cannot build this schedule for a float64 learning_rate (it mixes float32 constants, "
             "e.g. constant(math.pi), into float64 ops); ref supports float64 and computes in float64.")


def _card(name, quote, oracle, defaults, ulp=4, ulp64=4, notes="", section=None, errors=()):
    return SpecCard(name=name, seed=SEED, section=section or _SECTION.format(name), quote=quote,
                    target=f"ref.optimizers.schedules.{name}", defaults=defaults, oracle=oracle, ulp=ulp,
                    ulp64=ulp64, notes=notes,
                    errors=errors or ("ValueError if global_step is not supplied",))


_REQUIRED = "Raises ValueError if global_step is not supplied."

CARDS = [
    SpecCard(name="exponential_decay (seed 001)", seed="001_05ea92376fdb369e.txt",
             section="Decaying the learning rate",
             quote="decayed_learning_rate = learning_rate * decay_rate ^ (global_step / decay_steps)",
             target="ref.optimizers.schedules.exponential_decay", defaults={"staircase": False, "name": None},
             oracle=numpy_reference.exponential_decay, ulp=8, ulp64=8,
             notes="TF: Mul(lr, Pow(decay_rate, [Floor](step / decay_steps)))." + _DTYPE_NOTE),
    _card("exponential_decay",
          "decayed_learning_rate = learning_rate * decay_rate ^ (global_step / decay_steps) If the argument "
          "staircase is True, then global_step / decay_steps is an integer division",
          numpy_reference.exponential_decay, {"staircase": False, "name": None}, ulp=8, ulp64=8,
          notes="TF: Mul(lr, Pow(decay_rate, [Floor](step / decay_steps))). Pow's error grows with "
                "|p * log(decay_rate)|: the budget holds for |p * log(decay_rate)| <= 8." + _DTYPE_NOTE),
    _card("natural_exp_decay",
          "decayed_learning_rate = learning_rate * exp(-decay_rate * global_step / decay_step) or, if staircase "
          "is True, as: decayed_learning_rate = learning_rate * exp(-decay_rate * floor(global_step / "
          "decay_step))",
          numpy_reference.natural_exp_decay, {"staircase": False, "name": None}, ulp=8, ulp64=8,
          notes="TF computes exponential_decay with base exp(-decay_rate), built in decay_rate's own dtype "
                "(float32 for a Python number, even for a float64 learning rate: float32 precision then)."
                + _DTYPE_NOTE),
    _card("inverse_time_decay",
          "decayed_learning_rate = learning_rate / (1 + decay_rate * global_step / decay_step) or, if staircase "
          "is True, as: decayed_learning_rate = learning_rate / (1 + decay_rate * floor(global_step / "
          "decay_step))",
          numpy_reference.inverse_time_decay, {"staircase": False, "name": None},
          notes="TF: RealDiv(lr, AddV2(Cast(1), Mul(decay_rate, [Floor](step / decay_steps)))." + _DTYPE_NOTE),
    _card("polynomial_decay",
          "global_step = min(global_step, decay_steps) decayed_learning_rate = (learning_rate - end_learning_rate)"
          " * (1 - global_step / decay_steps) ^ (power) + end_learning_rate If cycle is True then a multiple of "
          "decay_steps is used, the first one that is bigger than global_steps. decay_steps = decay_steps * "
          "ceil(global_step / decay_steps)",
          numpy_reference.polynomial_decay, {"end_learning_rate": 0.0001, "power": 1.0, "cycle": False, "name": None},
          ulp=8, ulp64=8,
          notes="At global_step 0 the cycle multiplier is 1 (TF: where(step == 0, 1, ceil(step / decay_steps)))."
                " Budget in ULPs of learning_rate; (1 - p) ** power cancels as p -> 1." + _DTYPE_NOTE
                + " TF 2.21 cannot build cycle=True for a float64 learning_rate (a float32 1.0 in SelectV2); "
                  "ref supports it."),
    _card("cosine_decay",
          "global_step = min(global_step, decay_steps) cosine_decay = 0.5 * (1 + cos(pi * global_step / "
          "decay_steps)) decayed = (1 - alpha) * cosine_decay + alpha decayed_learning_rate = learning_rate * "
          "decayed",
          numpy_reference.cosine_decay, {"alpha": 0.0, "name": None}, ulp=4, ulp64=4,
          notes="(1 - alpha) is Python arithmetic for a Python alpha, as in TF." + _DTYPE_NOTE + _F64_NOTE),
    _card("cosine_decay_restarts",
          "The learning rate multiplier first decays from 1 to alpha for first_decay_steps steps. Then, a warm "
          "restart is performed. Each new warm restart runs for t_mul times more steps and with m_mul times "
          "smaller initial learning rate.",
          numpy_reference.cosine_decay_restarts, {"t_mul": 2.0, "m_mul": 1.0, "alpha": 0.0, "name": None}, ulp=16, ulp64=16,
          notes="TF finds the period in closed form: i = floor(log(1 - f * (1 - t_mul)) / log(t_mul)), "
                "f = step / first_decay_steps (i = floor(f) when t_mul == 1), then the fraction "
                "(f - (1 - t_mul^i) / (1 - t_mul)) / t_mul^i; the oracle walks the periods one by one. "
                "Within 1e-4 of a period boundary the closed form may pick the neighbouring period (TF does "
                "too): the budget holds away from boundaries." + _DTYPE_NOTE + _F64_NOTE),
    _card("linear_cosine_decay",
          "global_step = min(global_step, decay_steps) linear_decay = (decay_steps - global_step) / decay_steps) "
          "cosine_decay = 0.5 * ( 1 + cos(pi * 2 * num_periods * global_step / decay_steps)) decayed = (alpha + "
          "linear_decay) * cosine_decay + beta decayed_learning_rate = learning_rate * decayed",
          numpy_reference.linear_cosine_decay, {"num_periods": 0.5, "alpha": 0.0, "beta": 0.001, "name": None}, ulp=16,
          ulp64=16, notes="TF: fraction = (2 * num_periods) * (step / decay_steps). The rounding of cos's "
                          "argument (up to 2 * pi * num_periods) grows with num_periods: the budget holds for "
                          "num_periods <= 4." + _DTYPE_NOTE + _F64_NOTE),
    _card("noisy_linear_cosine_decay",
          "decayed = (alpha + linear_decay + eps_t) * cosine_decay + beta decayed_learning_rate = learning_rate "
          "* decayed where eps_t is 0-centered gaussian noise with variance initial_variance / (1 + global_step)"
          " ** variance_decay",
          numpy_reference.noisy_linear_cosine_decay,
          {"initial_variance": 1.0, "variance_decay": 0.55, "num_periods": 0.5, "alpha": 0.0, "beta": 0.001,
           "name": None}, ulp=16, ulp64=16,
          notes="eps_t = RandomStandardNormal() * sqrt(variance) + 0, one draw per evaluation (in a graph, TF's "
                "Philox stream: the same seeds give TF's draws; the pure form takes the N(0, 1) draw as "
                "`noise`). global_step is "
                "clipped to decay_steps before the variance too, as in TF." + _DTYPE_NOTE + _F64_NOTE),
    SpecCard(name="piecewise_constant", seed=SEED, section="tf.compat.v1.train.piecewise_constant",
             quote="Its value is values[0] when x <= boundaries[0], values[1] when x > boundaries[0] and x <= "
                   "boundaries[1], ..., and values[-1] when x > boundaries[-1].",
             target="ref.optimizers.schedules.piecewise_constant", defaults={"name": None},
             oracle=numpy_reference.piecewise_constant, ulp=0, ulp64=0,
             notes="piecewise_constant_decay is the same function. The value is one of `values` exactly.",
             errors=("ValueError if types of x and boundaries do not match (an int64 x accepts int32 "
                     "boundaries), or types of all values do not match",
                     "ValueError: The length of boundaries should be 1 less than the length of values")),
    SpecCard(name="global_step is required", seed=SEED, section="tf.compat.v1.train.exponential_decay",
             quote=_REQUIRED, target="ref.optimizers.schedules.exponential_decay",
             notes="ValueError('global_step is required for <fn>.') from every *_decay function "
                   "(TF 2.21 raises ValueError('None values not supported.'))."),
]

MATH = r"""\text{exponential\_decay:}\quad \alpha\, r^{\,s / S} \qquad
\text{natural\_exp\_decay:}\quad \alpha\, e^{-r\, s / S} \qquad
\text{inverse\_time\_decay:}\quad \frac{\alpha}{1 + r\, s / S}

\text{polynomial\_decay:}\quad (\alpha - \alpha_{\text{end}}) \left(1 - \frac{\min(s, S)}{S}\right)^{p} + \alpha_{\text{end}} \qquad
\text{cosine\_decay:}\quad \alpha \left((1 - a)\, \tfrac12 \left(1 + \cos\frac{\pi \min(s, S)}{S}\right) + a\right)

(s = \texttt{global\_step},\ S = \texttt{decay\_steps},\ r = \texttt{decay\_rate};\ \texttt{staircase}:\ s / S \to \lfloor s / S \rfloor)
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
