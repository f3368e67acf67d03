"""Training kernels, one module per algorithm (``adam.py``, ``momentum.py``, ...).

Each module holds, in this order: the documented formula with its seed
citation, TensorFlow's exact kernel form and the paper's form; ``DEFAULTS``;
the scalar update; the dense and sparse CPU loops generated from it; the
kernels, registered under TF's raw-op names (``Apply*`` / ``SparseApply*`` and
their ``Resource*`` twins); and the pure functional form (``State`` / ``init``
/ ``step``). ``_apply.py`` holds what every kernel does around its arithmetic
(checks, the loop template, dispatch, ``out=`` buffers, shape rules);
``functional.py`` what the functional forms share.

These are kernels: they import value types, ``ref.ops`` and NumPy, never the
graph. The ``tf.train.*Optimizer`` classes that build graphs over them live in
``ref.optimizers``. ``ref.ops.load_all()`` imports the modules below.
"""

ALGORITHMS = ("gradient_descent", "proximal_gradient_descent", "adagrad", "proximal_adagrad", "adagrad_da",
              "adadelta", "momentum", "adam", "adamax", "rmsprop", "ftrl", "addsign", "powersign")
"""The algorithm modules, each registering its training ops on import."""
