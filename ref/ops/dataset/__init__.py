"""``tf.data`` kernels: dataset ops whose outputs are ``variant`` dataset values
(:mod:`.datasets`, :mod:`.files`, :mod:`.grouping`) and the iterator ops that walk them
(:mod:`.iterators`)."""
from ref.ops.dataset import cardinality, csv, datasets, files, grouping, iterators, options  # noqa: F401
