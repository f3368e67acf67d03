"""The spec-card format.

A card ties a documented formula to the code: where the seeds state it
(``seed`` file and ``section``), the ``quote`` itself (checked to occur in that
file, whitespace-normalised), the documented ``defaults`` (checked against the
signature of ``target``), and a float64 NumPy ``oracle`` transcribing the quote,
against which the kernel (``kernel``: a raw-op name) is property-tested with
hypothesis within ``ulp`` units in the last place (float32; float64 gets
``ulp64``).
"""
from __future__ import annotations

from typing import Callable

import attrs


@attrs.frozen
class SpecCard:
    name: str
    seed: str
    section: str
    quote: str
    target: str = ""                    # dotted path, e.g. "ref.train.AdamOptimizer.__init__"
    defaults: dict = attrs.field(factory=dict)
    kernel: str = ""                    # raw-op name the oracle checks, e.g. "ApplyAdam"
    oracle: Callable | None = None      # float64 NumPy transcription: oracle(**kernel_kwargs) -> outputs
    ulp: int = 4                        # float32 budget against the float64 oracle rounded to float32
    ulp64: int = 4                      # float64 budget
    notes: str = ""                     # where TF's kernel differs from the quote, and why the budget
    constraints: tuple = ()
    errors: tuple = ()
