"""``tf.ragged``: building RaggedTensors from Python lists and the ragged
functions TF1 code uses (``constant``, ``constant_value``, ``placeholder``,
``map_flat_values``, ``RaggedTensorValue``)."""
from ref.graph_ops.ragged_tensor import RaggedTensorValue  # noqa: F401
from ref.graph_ops.ragged_factory_ops import constant, constant_value, placeholder  # noqa: F401
from ref.graph_ops.ragged_functional_ops import map_flat_values  # noqa: F401
from ref.graph_ops.ragged_segment_ids import row_splits_to_segment_ids, segment_ids_to_row_splits  # noqa: F401
