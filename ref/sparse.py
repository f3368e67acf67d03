"""``tf.sparse``: SparseTensor and the sparse functions under their tf.sparse names
(TF 1.13+; ``tf.compat.v1.sparse`` keeps the v1 signatures, e.g. ``add``'s
``threshold``/``thresh`` and ``reduce_sum``'s ``reduction_axes``/``keep_dims``)."""
from ref.framework.sparse_tensor import SparseTensor  # noqa: F401
from ref.graph_ops.sparse_ops import (  # noqa: F401
    deserialize_many_sparse as deserialize_many, from_dense, serialize_many_sparse as serialize_many,
    serialize_sparse as serialize, sparse_add as add, sparse_concat as concat, sparse_placeholder as placeholder,
    sparse_reduce_sum as reduce_sum, sparse_reduce_sum_sparse as reduce_sum_sparse, sparse_reorder as reorder,
    sparse_reshape as reshape, sparse_retain as retain, sparse_tensor_dense_matmul as matmul,
    sparse_tensor_dense_matmul as sparse_dense_matmul, sparse_tensor_to_dense as to_dense,
    sparse_fill_empty_rows as fill_empty_rows, sparse_merge as merge, sparse_to_indicator as to_indicator,
    sparse_transpose as transpose, sparse_reduce_max as reduce_max, sparse_reduce_max_sparse as reduce_max_sparse,
    sparse_slice as slice, sparse_split as split, sparse_segment_mean as segment_mean,
    sparse_segment_sqrt_n as segment_sqrt_n, sparse_segment_sum as segment_sum, sparse_cross as cross,
    sparse_cross_hashed as cross_hashed,
)
from ref.graph_ops.variables import sparse_mask as mask  # noqa: F401
from ref.graph_ops.sparse_extras import (sparse_expand_dims as expand_dims, sparse_eye as eye,  # noqa: F401
                                         sparse_maximum as maximum, sparse_minimum as minimum,
                                         sparse_reset_shape as reset_shape, sparse_softmax as softmax)
