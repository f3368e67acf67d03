"""``tf.user_ops``: TF's example user op."""
from ref.framework.op_def_library import apply_op

__all__ = ["my_fact"]


def my_fact():
    """Example of overriding the generated code for an Op: a 0-d string
    tensor holding ``b"0! == 1"`` (TF's ``Fact`` op)."""
    return apply_op("Fact")


from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.user_ops", name)
