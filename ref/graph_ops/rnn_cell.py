"""``tf.nn.rnn_cell``: the recurrent cells (:mod:`ref.graph_ops.rnn_cell_impl`)
and their wrappers (:mod:`ref.graph_ops.rnn_cell_wrapper_impl`)."""
from ref.graph_ops.rnn_cell_impl import *  # noqa: F401,F403
from ref.graph_ops.rnn_cell_impl import __all__ as _cells
from ref.graph_ops.rnn_cell_wrapper_impl import *  # noqa: F401,F403
from ref.graph_ops.rnn_cell_wrapper_impl import __all__ as _wrappers

__all__ = list(_cells) + list(_wrappers)
