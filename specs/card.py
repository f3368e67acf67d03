"""The spec-card format.

A card ties a documented formula to the code: where the seeds state it
(``seed`` file and ``section``), the ``quote`` itself (checked to occur in that
file, whitespace-normalised), the documented ``defaults`` (checked against the
signature of ``target``), and a float64 NumPy ``oracle`` transcribing the quote,
against which the kernel (``kernel``: a raw-op name) is property-tested with
hypothesis within ``ulp`` units in the last place (float32; float64 gets
``ulp64``).

A card carries what a reader needs without the seed files: the quote, and the
title of the TensorFlow document it comes from (``seed_title``; ``SEED_DOCUMENTS``
names each seed file's document). The seed file name is kept so that, where the
seeds are at hand (``../shared/seeds``), tests/test_specs.py checks the quote and
the title against the file itself.
"""
from __future__ import annotations

from typing import Callable

import attrs

SEED_DOCUMENTS = {
    # file name: (the document's title as its header states it, where it comes from)
    "000_a3806c59bb068aca.txt": ("Training", "TensorFlow 0.x Python API, tf.train"),
    "001_05ea92376fdb369e.txt": ("Training", "TensorFlow 1.x Python API, tf.train"),
    "002_05f9b9b98e89c771.txt": ("", "TensorFlow API reference, tf.compat.v1"),
    "003_d053aea9ab04ac36.txt": ("Variables", "TensorFlow 0.x Python API, Korean translation"),
    "004_96791d6311aaba71.txt": ("학습", "TensorFlow 0.x Python API, tf.train, Korean translation"),
}
"""The seed documents. The API reference (002) is one entry per symbol with no
title of its own: a card citing it is titled by its entry (the section's first
part, e.g. ``tf.compat.v1.train.MomentumOptimizer``)."""


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

    @property
    def seed_title(self) -> str:
        """The cited TensorFlow document's title (``""`` for a card that cites no seed)."""
        if not self.seed:
            return ""
        title, _ = SEED_DOCUMENTS[self.seed]
        return title or self.section.split(" / ")[0].strip()

    @property
    def citation(self) -> str:
        """How the docs cite the seed: ``"Training" (TensorFlow 1.x Python API, tf.train)``."""
        if not self.seed:
            return ""
        return f'"{self.seed_title}" ({SEED_DOCUMENTS[self.seed][1]})'
