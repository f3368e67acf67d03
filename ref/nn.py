"""``tf.nn``: activations, losses and helpers."""
from ref.graph_ops.nn_ops import *  # noqa: F401,F403
from ref.graph_ops.nn_ops import __all__ as _nn_all
from ref.graph_ops.math_ops import sigmoid, tanh  # noqa: F401
from ref.graph_ops.embedding_ops import embedding_lookup  # noqa: F401
# convolution, pooling, normalization, top_k (issue 14 item 3)
from ref.graph_ops.conv_ops import *  # noqa: F401,F403
from ref.graph_ops.conv_ops import __all__ as _conv_all
from ref.graph_ops.space_depth_ops import *  # noqa: F401,F403
from ref.graph_ops.conv3d_ops import *  # noqa: F401,F403
from ref.graph_ops.conv3d_ops import __all__ as _conv3d_all
from ref.graph_ops.morphology_ops import *  # noqa: F401,F403
from ref.graph_ops.morphology_ops import __all__ as _morphology_all
from ref.graph_ops.space_depth_ops import __all__ as _space_depth_all
from ref.graph_ops.space_batch_ops import space_to_batch  # noqa: F401  (tf.nn.space_to_batch, v1)
from ref.graph_ops.normalization_ops import *  # noqa: F401,F403
from ref.graph_ops.normalization_ops import __all__ as _norm_all
from ref.graph_ops.candidate_sampling_ops import *  # noqa: F401,F403
from ref.graph_ops.candidate_sampling_ops import __all__ as _sampling_all
from ref.graph_ops.embedding_ops import embedding_lookup_sparse, safe_embedding_lookup_sparse  # noqa: F401,E402
# recurrent networks: tf.nn.rnn_cell.*, dynamic_rnn, static_rnn, bidirectional_*
from ref.graph_ops import rnn_cell  # noqa: E402
from ref.graph_ops.rnn import *  # noqa: F401,F403,E402
from ref.graph_ops.rnn import __all__ as _rnn_all  # noqa: E402
from ref.graph_ops.ctc_ops import *  # noqa: F401,F403,E402
from ref.graph_ops.ctc_ops import __all__ as _ctc_all  # noqa: E402
from ref.grad.custom_activations import silu, swish  # noqa: F401,E402  (TF's custom-gradient graph)
from ref.graph_ops.misc_builders import relu_layer  # noqa: F401,E402
from ref.graph_ops.conv_ops import depthwise_conv2d_native_backprop_filter as depthwise_conv2d_backprop_filter  # noqa: F401,E402,E501
from ref.graph_ops.conv_ops import depthwise_conv2d_native_backprop_input as depthwise_conv2d_backprop_input  # noqa: F401,E402,E501

__all__ = (list(_nn_all) + ["sigmoid", "tanh", "embedding_lookup"] + list(_conv_all) + list(_space_depth_all) + ["space_to_batch"] + list(_conv3d_all) + list(_morphology_all) + list(_norm_all)
           + list(_sampling_all) + ["rnn_cell"] + list(_rnn_all) + list(_ctc_all)
           + ["relu_layer", "depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input"])

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.nn", name)
