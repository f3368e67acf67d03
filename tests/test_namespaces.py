"""The TF1 plumbing names scripts reach for exist under ``import ref as tf``,
and the TF 1.13+ aliases point at the ops ``ref`` already has."""
from __future__ import annotations

import numpy as np
import pytest

import ref as tf

NAMES = [
    "logging.set_verbosity", "logging.get_verbosity", "logging.info", "logging.warn", "logging.log_every_n",
    "logging.log_first_n", "logging.vlog", "logging.DEBUG", "logging.FATAL", "get_logger",
    "flags.FLAGS", "flags.DEFINE_string", "flags.DEFINE_integer", "flags.DEFINE_float", "flags.DEFINE_boolean",
    "flags.DEFINE_bool", "flags.DEFINE_list", "flags.DEFINE_enum", "flags.DEFINE_multi_string",
    "app.run", "app.flags.FLAGS",
    "gfile.GFile", "gfile.FastGFile", "gfile.Open", "gfile.Exists", "gfile.MakeDirs", "gfile.MkDir",
    "gfile.ListDirectory", "gfile.Glob", "gfile.Remove", "gfile.Rename", "gfile.Copy", "gfile.IsDirectory",
    "gfile.Walk", "gfile.DeleteRecursively", "gfile.Stat",
    "io.gfile.GFile", "io.gfile.exists", "io.gfile.makedirs", "io.gfile.listdir", "io.gfile.glob",
    "io.gfile.remove", "io.gfile.rename", "io.gfile.copy", "io.gfile.isdir", "io.gfile.walk", "io.gfile.rmtree",
    "io.gfile.stat", "io.gfile.join", "io.TFRecordWriter", "io.tf_record_iterator",
    "compat.as_bytes", "compat.as_text", "compat.as_str", "compat.as_str_any", "compat.path_to_str",
    "random.normal", "random.uniform", "random.truncated_normal", "random.shuffle", "random.set_random_seed",
    "random.categorical", "random.multinomial", "random.gamma",
    "losses.mean_squared_error", "losses.Reduction", "metrics.accuracy", "metrics.auc",
    "arg_min", "arg_max", "to_float", "to_double", "to_int32", "to_int64", "to_bfloat16", "Assert",
    "confusion_matrix", "math.confusion_matrix",
]


@pytest.mark.parametrize("name", NAMES)
def test_name_exists(name):
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    assert obj is not None
    t = pytest.importorskip("tensorflow").compat.v1
    obj = t
    for part in name.split("."):
        obj = getattr(obj, part)


def test_version_names_the_tensorflow_release_followed():
    assert tf.VERSION == "2.21.0" and tf.GIT_VERSION.startswith("v2.21")
    assert isinstance(tf.COMPILER_VERSION, str)
    t = pytest.importorskip("tensorflow").compat.v1
    assert t.VERSION.split(".")[:2] == tf.VERSION.split(".")[:2]


def _names(module):
    return {n for n in dir(module) if not n.startswith("_")}


@pytest.mark.parametrize("namespace", ["math", "linalg"])
def test_tf_namespace_aliases_cover_the_ops_ref_has(namespace):
    """Every tf.<namespace> name of TensorFlow that ref has at the top level or
    under tf.nn is also served under tf.<namespace>."""
    t = pytest.importorskip("tensorflow").compat.v1
    have = _names(tf) | _names(tf.nn)
    missing = sorted(n for n in _names(getattr(t, namespace)) & have if not hasattr(getattr(tf, namespace), n))
    assert missing == []


@pytest.mark.parametrize("alias,target", [
    ("math.softplus", "nn.softplus"), ("math.log_softmax", "nn.log_softmax"), ("math.in_top_k", "nn.in_top_k"),
    ("math.segment_sum", "segment_sum"), ("math.unsorted_segment_sum", "unsorted_segment_sum"),
    ("random.normal", "random_normal"), ("random.uniform", "random_uniform"), ("random.shuffle", "random_shuffle"),
    ("random.gamma", "random_gamma"), ("linalg.global_norm", "global_norm"),
    ("get_seed", "random.get_seed"), ("debugging.assert_all_finite", "verify_tensor_all_finite"),
    ("nn.approx_max_k", "math.approx_max_k"), ("nn.approx_min_k", "math.approx_min_k"),
    ("linalg.sqrtm", "matrix_square_root"),
])
def test_alias_is_the_same_function(alias, target):
    def get(path):
        obj = tf
        for p in path.split("."):
            obj = getattr(obj, p)
        return obj
    assert get(alias) is get(target)


@pytest.mark.parametrize("fn,dtype", [("to_bfloat16", "bfloat16"), ("to_complex64", "complex64"),
                                      ("to_float", "float32"), ("to_int64", "int64")])
def test_casts(fn, dtype):
    with tf.Graph().as_default():
        assert getattr(tf, fn)(tf.constant([1, 2])).dtype.name == dtype


@pytest.mark.parametrize("fn,expected", [("arg_max", [2, 2]), ("arg_min", [0, 1])])
def test_arg_max_min_take_dimension(fn, expected):
    x = np.array([[1.0, 2.0, 3.0], [5.0, 4.0, 6.0]], np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        out = getattr(tf, fn)(x, 1)
        assert out.dtype == tf.int64
        v = s.run(out).tolist()
    assert v == (np.argmax(x, 1) if fn == "arg_max" else np.argmin(x, 1)).tolist() == expected


def test_mode_switches_keep_graph_mode():
    assert tf.disable_eager_execution() is None and tf.disable_v2_behavior() is None
    assert tf.executing_eagerly() is False and tf.compat.v1.executing_eagerly() is False
    with pytest.raises(NotImplementedError, match="graph mode only.*docs/coverage.rst"):
        tf.enable_eager_execution()
    # enable_v2_behavior switches TF 2's graph behaviours (tests/platform/test_v2_behavior.py);
    # only building an op outside a graph then raises.
    tf.enable_v2_behavior()
    try:
        with pytest.raises(NotImplementedError, match="graph mode only.*enable_v2_behavior.*docs/coverage.rst"):
            tf.constant(1.0)
    finally:
        tf.disable_v2_behavior()
    assert tf.executing_eagerly() is False
