"""``tf.io``: TFRecord files (as ``tf.python_io``) and ``tf.io.gfile``."""
from ref.python_io import *  # noqa: F401,F403
from ref.python_io import __all__ as _records
from ref.platform import gfile  # noqa: F401
from ref.graph_ops.string_ops import decode_compressed  # noqa: F401
from ref.graph_ops.io_ops import matching_files, read_file, write_file  # noqa: F401
from ref.graph_ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,  # noqa: F401
                                       RaggedFeature, SparseFeature,
                                       decode_csv, decode_raw, parse_example, parse_single_example,
                                       parse_single_sequence_example, parse_sequence_example, parse_tensor,
                                       serialize_tensor, decode_json_example)

__all__ = list(_records) + ["gfile", "matching_files", "read_file", "write_file", "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature",
                            "RaggedFeature", "SparseFeature", "decode_csv",
                            "decode_raw", "parse_example", "parse_single_example",
                            "parse_single_sequence_example", "parse_sequence_example", "parse_tensor",
                            "serialize_tensor", "decode_json_example", "decode_compressed"]

from ref.graph_ops.string_ops import decode_base64, encode_base64  # noqa: F401,E402
from ref.graph_ops.image_ops import (decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,  # noqa: F401,E402
                                     encode_jpeg, encode_png)
from ref.graph_ops.data_flow_ops import PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue  # noqa: F401,E402,E501
from ref.graph_ops.sparse_ops import deserialize_many_sparse, serialize_many_sparse, serialize_sparse  # noqa: F401,E402

__all__ += ["decode_base64", "encode_base64", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
            "encode_jpeg", "encode_png", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
            "RandomShuffleQueue", "deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse"]

from ref.graph_ops.io_ops import match_filenames_once  # noqa: F401,E402
from ref.checkpoint.meta_graph import write_graph  # noqa: F401,E402

__all__ += ["match_filenames_once", "write_graph"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.io", name)
