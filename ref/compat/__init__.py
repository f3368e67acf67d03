"""``ref.compat.v1`` is the TF 1.x namespace itself (``import ref as tf``)."""
import ref as v1  # noqa: F401
