"""Training algorithms, one module per algorithm (``adam.py``, ``momentum.py``, ...).

Each module holds, in this order: the documented formula with its seed
citation, TensorFlow's exact kernel form and the paper's form; defaults; the
scalar update; the dense and sparse kernels (registered under TF's raw-op
names, ``Apply*`` / ``SparseApply*`` and their ``Resource*`` twins); the
Optimizer class and a pure ``init`` / ``step`` form. ``_apply.py`` holds what
every kernel does around its arithmetic (checks, dispatch, ``out=`` buffers).

This package imports nothing at import time: ``ref.ops.load_all()`` imports
the algorithm modules when the registry is needed.
"""
