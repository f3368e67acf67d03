"""Pure kernels by family, each declared once with ``ref.registry.register_op``.

``ref.ops.load_all()`` imports every family (and the training kernels in
``ref.optimizers``) so that ``ref.raw_ops`` and the graph builder can find
every op; ``import ref`` calls it.
"""
import importlib as _importlib

FAMILIES = ("core", "control", "math", "array", "nn", "random", "state", "summary", "linalg", "io", "data_flow")
OPTIMIZERS = ("gradient_descent", "proximal_gradient_descent", "adagrad", "proximal_adagrad", "adagrad_da",
              "adadelta", "momentum", "adam", "adamax", "rmsprop", "ftrl", "addsign", "powersign")


def load_all():
    for name in FAMILIES:
        _importlib.import_module(f"ref.ops.{name}")
    for name in OPTIMIZERS:
        _importlib.import_module(f"ref.optimizers.{name}")
