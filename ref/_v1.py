"""The TF 1.x namespace: every name ``import ref as tf`` gives.

``ref/__init__`` serves these names on first use (so that ``import ref.raw_ops``
loads kernels only); ``ref.compat.v1`` is the same namespace.
"""

from ref.types import errors  # noqa: F401
from ref.types.dtypes import *  # noqa: F401,F403
from ref.types.dtypes import DType, as_dtype  # noqa: F401
from ref.types.shapes import (  # noqa: F401
    Dimension, TensorShape, dimension_at_index, dimension_value, disable_v2_tensorshape, enable_v2_tensorshape)
from ref.types.device_spec import DeviceSpec  # noqa: F401
from ref.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    add_to_collections,
    colocate_with,
    container,
    control_dependencies,
    device,
    get_collection,
    get_collection_ref,
    get_default_graph,
    name_scope,
    reset_default_graph,
    init_scope,
)
from ref.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ref.framework.op_def_library import (
    constant,
    convert_n_to_tensor,
    convert_to_tensor,
    convert_to_tensor_or_indexed_slices,
    register_tensor_conversion_function,
)
from ref.framework.random_seed import get_seed, set_random_seed  # noqa: F401
from ref.framework.importer import import_graph_def  # noqa: F401
from ref.session import InteractiveSession, Session, get_default_session  # noqa: F401
from ref.graph_ops.control_flow_ops import *  # noqa: F401,F403
from ref.graph_ops.control_flow_case import case  # noqa: F401
from ref.graph_ops.math_ops import *  # noqa: F401,F403
from ref.graph_ops.math_special import *  # noqa: F401,F403
from ref.graph_ops.math_trig import (acos, acosh, asin, atan, atan2, atanh, cosh, log_sigmoid, sinh,  # noqa: F401
                                     trace, truncatemod)
from ref.graph_ops.counting_ops import *  # noqa: F401,F403
from ref.graph_ops.array_ops import *  # noqa: F401,F403
from ref.graph_ops.random_ops import *  # noqa: F401,F403
from ref.graph_ops.space_depth_ops import depth_to_space, extract_image_patches, space_to_depth  # noqa: F401
from ref.graph_ops.space_batch_ops import (batch_to_space, batch_to_space_nd, required_space_to_batch_paddings,  # noqa: F401,E501
                                           space_to_batch, space_to_batch_nd)
from ref.grad import (  # noqa: F401
    AggregationMethod, NoGradient, NotDifferentiable, RegisterGradient, UnconnectedGradients, gradients,
    hessians, stop_gradient, custom_gradient, grad_pass_through, recompute_grad,
)
from ref.grad.tape import GradientTape  # noqa: F401
from ref.graph_ops.state_ops import *  # noqa: F401,F403
from ref.graph_ops.variables import *  # noqa: F401,F403
from ref.graph_ops.resource_variable_ops import ResourceVariable  # noqa: F401
from ref.graph_ops.variable_scope import *  # noqa: F401,F403
from ref.graph_ops.template import *  # noqa: F401,F403
from ref.graph_ops.init_ops import *  # noqa: F401,F403
from ref.graph_ops.partitioned import *  # noqa: F401,F403
from ref.graph_ops.linalg_ops import matrix_band_part, matrix_transpose, matrix_triangular_solve, qr  # noqa: F401
from ref.graph_ops.linalg_ops import einsum  # noqa: F401  (tf.einsum)
from ref.graph_ops.linalg_ops import cholesky, matrix_inverse, self_adjoint_eig, self_adjoint_eigvals  # noqa: F401
from ref.graph_ops.linalg_ops import diag, diag_part, eye, matrix_diag, matrix_diag_part, matrix_set_diag, svd  # noqa: F401
from ref.graph_ops.accumulator_ops import ConditionalAccumulator, SparseConditionalAccumulator  # noqa: F401
from ref.graph_ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue  # noqa: F401
from ref.graph_ops.data_flow_ops import PriorityQueue  # noqa: F401
from ref.graph_ops.clip_ops import (clip_by_average_norm, clip_by_global_norm, clip_by_norm,  # noqa: F401
                              clip_by_value, global_norm)
from ref.graph_ops.summary_ops import (audio_summary, histogram_summary, image_summary,  # noqa: F401
                                 merge_all_summaries, merge_summary, scalar_summary)
# Assertions, printing, complex numbers, TensorArray, functional ops, py_func.
from ref.graph_ops.logging_ops import Assert, Print, print_v2 as print  # noqa: F401,A001
from ref.graph_ops.check_ops import *  # noqa: F401,F403
from ref.graph_ops.complex_ops import angle, complex, conj, imag, real  # noqa: F401,A001
from ref.graph_ops.tensor_array_ops import TensorArray  # noqa: F401
from ref.graph_ops.functional_ops import foldl, foldr, map_fn, scan  # noqa: F401
from ref.graph_ops.script_ops import numpy_function, py_func, py_function  # noqa: F401
from ref.graph_ops.io_ops import matching_files, read_file, write_file  # noqa: F401
from ref.types import nest  # noqa: F401  (tf.nest)
from ref.graph_ops.io_ops import (FixedLengthRecordReader, IdentityReader, ReaderBase, TextLineReader,  # noqa: F401
                                  TFRecordReader, WholeFileReader)
from ref.graph_ops.parsing_ops import decode_csv, decode_raw, string_to_number, parse_tensor, serialize_tensor  # noqa: F401,E501
from ref.graph_ops.parsing_ops import decode_json_example  # noqa: F401
from ref.graph_ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,  # noqa: F401
                                       SparseFeature,
                                       parse_example, parse_single_example, parse_single_sequence_example)
from ref import debugging  # noqa: F401
from ref import initializers, linalg, nn, math, test, raw_ops, summary, python_io, train  # noqa: F401
from ref import layers  # noqa: F401  (tf.layers)
from ref import distribute, mixed_precision  # noqa: F401  (tf.distribute, tf.compat.v1.mixed_precision)
from ref import keras  # noqa: F401  (tf.keras, graph mode)
from ref.graph_ops.ragged_tensor import RaggedTensor  # noqa: F401
from ref import ragged  # noqa: F401  (tf.ragged)
from ref.framework.sparse_tensor import (SparseTensor, SparseTensorValue,  # noqa: F401
                                         convert_to_tensor_or_sparse_tensor)
from ref.graph_ops.sparse_ops import (  # noqa: F401
    deserialize_many_sparse, serialize_many_sparse, serialize_sparse, sparse_add, sparse_concat, sparse_placeholder,
    sparse_reduce_sum, sparse_reduce_sum_sparse, sparse_reorder, sparse_reshape, sparse_retain,
    sparse_tensor_dense_matmul, sparse_tensor_to_dense, sparse_to_dense, sparse_fill_empty_rows, sparse_merge,
    sparse_to_indicator, sparse_transpose, sparse_reduce_max, sparse_reduce_max_sparse, sparse_slice, sparse_split,
    sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum, edit_distance,
)
from ref import sparse  # noqa: F401
from ref.python_io import TFRecordOptions  # noqa: F401

from ref.protos.config_pb2 import (ConfigProto, GPUOptions, GraphOptions, OptimizerOptions,  # noqa: F401
                                   RunMetadata, RunOptions)
# the TF 1.x top-level protos of summaries, events and graphs (tf.Summary, tf.Event, tf.GraphDef...)
from ref.protos.summary_pb2 import Summary, SummaryDescription, SummaryMetadata  # noqa: F401
from ref.protos.event_pb2 import Event, LogMessage, SessionLog  # noqa: F401
from ref.protos.histogram_pb2 import HistogramProto  # noqa: F401
from ref.protos.graph_pb2 import GraphDef  # noqa: F401
from ref.protos.node_def_pb2 import NodeDef  # noqa: F401
from ref.protos.meta_graph_pb2 import MetaGraphDef, TensorInfo  # noqa: F401
from ref.protos.attr_value_pb2 import AttrValue, NameAttrList  # noqa: F401
from ref.types import dtypes  # noqa: F401

# Process plumbing (ref/platform) and the TF 1.13+ namespaces over existing ops.
from ref.platform import app, flags, gfile, tf_logging as logging  # noqa: F401,E402
from ref.platform.tf_logging import get_logger  # noqa: F401,E402
from ref.platform.modes import *  # noqa: F401,F403,E402
from ref import io, random, losses, metrics  # noqa: F401,E402
from ref import data, image, saved_model  # noqa: F401,E402  (tf.data, tf.image, tf.saved_model)
from ref.graph_ops.image_ops import random_crop  # noqa: F401,E402  (tf.random_crop)
from ref import sets  # noqa: F401,E402  (tf.sets)
from ref import feature_column  # noqa: F401,E402  (tf.feature_column)
from ref import lookup, strings  # noqa: F401,E402  (tf.lookup, the tf.strings hash buckets)
from ref.graph_ops.lookup_ops import (as_string, initialize_all_tables, string_to_hash_bucket,  # noqa: F401,E402
                                      string_to_hash_bucket_fast, string_to_hash_bucket_strong, tables_initializer)
from ref.graph_ops.string_ops import decode_compressed, regex_replace, string_split  # noqa: F401,E402
from ref.graph_ops.string_ops import reduce_join, string_join, string_strip  # noqa: F401,E402
from ref.graph_ops.string_ops import substr_deprecated as substr  # noqa: F401,E402
from ref import tpu, user_ops  # noqa: F401,E402  (tf.tpu, tf.user_ops)
from ref.graph_ops.check_ops import Assert  # noqa: F401,E402
from ref.graph_ops.confusion_matrix import confusion_matrix  # noqa: F401,E402

from ref.version import COMPILER_VERSION, GIT_VERSION, VERSION  # noqa: F401,E402
from ref.framework.versions import (GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER,  # noqa: F401
                                    GRAPH_DEF_VERSION_MIN_PRODUCER)
from ref.graph_ops.math_extras import lin_space, linspace, norm, reduce_logsumexp  # noqa: F401
from ref.graph_ops.batch_gather_ops import batch_gather  # noqa: F401,E402
from ref.graph_ops.switch_case_ops import switch_case  # noqa: F401
from ref.formats.tensor_util import make_ndarray, make_tensor_proto  # noqa: F401
from ref.graph_ops.session_ops import delete_session_tensor, get_session_handle, get_session_tensor  # noqa: F401
from ref import graph_util  # noqa: F401
from ref.framework.tensor_predicates import get_static_value, is_tensor  # noqa: F401,E402
from ref.grad.registry import NotDifferentiable as no_gradient  # noqa: F401,E402
from ref.graph_ops.sort_ops import argsort, sort  # noqa: F401,E402
from ref.graph_ops.repeat_ops import repeat  # noqa: F401,E402
from ref.graph_ops.linalg_solve_ops import cholesky_solve, cross, matrix_determinant, matrix_solve  # noqa: F401,E402
from ref.graph_ops.linalg_impl import matrix_solve_ls  # noqa: F401,E402
from ref.graph_ops.linalg_matrix_functions import matrix_square_root  # noqa: F401,E402
from ref import queue  # noqa: F401,E402  (tf.queue)
from ref import version  # noqa: F401,E402,F811  (tf.version)
from ref import config  # noqa: F401,E402  (tf.config)
from ref import bitwise  # noqa: F401,E402  (tf.bitwise)
from ref import quantization  # noqa: F401,E402  (tf.quantization)
from ref.graph_ops.fake_quant_ops import *  # noqa: F401,F403,E402  (TF1's tf.fake_quant_with_min_max_*)
from ref.graph_ops.misc_builders import bitcast, parallel_stack, timestamp  # noqa: F401,E402
from ref.graph_ops.string_ops import decode_base64, encode_base64  # noqa: F401,E402
from ref import manip  # noqa: F401,E402  (tf.manip)
from ref.graph_ops.sparse_extras import sparse_maximum, sparse_minimum, sparse_reset_shape, sparse_softmax  # noqa: F401,E402,E501
from ref import signal, spectral  # noqa: F401,E402  (tf.signal, tf.spectral)
from ref.graph_ops.fft_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d  # noqa: F401,E402
from ref import distributions  # noqa: F401,E402  (tf.distributions)
