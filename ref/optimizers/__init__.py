"""The TF1 optimizer classes (``tf.train.*Optimizer``), one module per algorithm,
and what builds graphs around them: the base :class:`~ref.optimizers.optimizer.Optimizer`
(the lifecycle, written once), slot variables, learning-rate schedules, moving averages.

Each algorithm module (``adam.py``, ``momentum.py``, ...) is a short declaration
of its class: the kernel it runs, its slots, non-slot variables and
hyperparameters, and only what is its own. The formulas, the kernels and the
pure ``init`` / ``step`` forms live in :mod:`ref.ops.training` (one module per
algorithm, with the same names); each class module re-exports its kernel
module's public names, so ``from ref.optimizers.adam import AdamOptimizer,
apply_adam, init, step, DEFAULTS`` works. ``adamax``, ``addsign`` and
``powersign`` have no class here (TF's are in ``tf.contrib``): their modules
only re-export the kernels.

This package imports nothing at import time.
"""
