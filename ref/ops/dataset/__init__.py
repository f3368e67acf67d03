"""``tf.data`` kernels: dataset ops whose outputs are ``variant`` dataset values
(:mod:`.datasets`, :mod:`.files`) and the iterator ops that walk them
(:mod:`.iterators`)."""
from ref.ops.dataset import datasets, files, iterators  # noqa: F401
