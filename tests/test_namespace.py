"""The TF1 namespace: the names API_CONTRACT.md promises exist under
``import ref as tf`` and ``ref.compat.v1``, and a few documented argument forms."""
import numpy as np
import pytest

import ref
import ref as tf

PROMISED = [
    "Graph", "Session", "InteractiveSession", "placeholder", "constant", "Variable", "get_variable",
    "variable_scope", "global_variables_initializer", "initialize_all_variables", "matmul", "reduce_mean",
    "gradients", "stop_gradient", "clip_by_value", "clip_by_norm", "clip_by_average_norm",
    "clip_by_global_norm", "global_norm", "scalar_summary", "histogram_summary", "image_summary",
    "merge_summary", "merge_all_summaries", "while_loop", "cond", "where", "transpose", "tuple",
    "verify_tensor_all_finite", "add_to_collection", "AggregationMethod", "FIFOQueue",
    "nn.relu", "nn.softmax", "nn.zero_fraction", "nn.sparse_softmax_cross_entropy_with_logits",
    "train.GradientDescentOptimizer", "train.AdamOptimizer", "train.MomentumOptimizer", "train.FtrlOptimizer",
    "train.RMSPropOptimizer", "train.AdagradOptimizer", "train.exponential_decay", "train.piecewise_constant",
    "train.ExponentialMovingAverage", "train.Saver", "train.latest_checkpoint", "train.NewCheckpointReader",
    "train.summary_iterator", "train.SummaryWriter", "train.Coordinator", "train.QueueRunner",
    "summary.scalar", "summary.histogram", "summary.image", "summary.audio", "summary.merge",
    "summary.merge_all", "summary.FileWriter", "errors.OutOfRangeError", "raw_ops.ApplyAdam",
]


@pytest.mark.parametrize("name", PROMISED)
def test_promised_name_exists(name):
    for ns in (ref, ref.compat.v1):
        obj = ns
        for part in name.split("."):
            obj = getattr(obj, part)
        assert obj is not None


def test_compat_v1_is_the_same_namespace():
    assert ref.compat.v1 is ref


@pytest.mark.parametrize("kwargs", [dict(t="T", msg="bad"), dict(x="T", message="bad"),
                                    dict(t="T", message="bad")])
def test_verify_tensor_all_finite_argument_forms(kwargs):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        y = tf.verify_tensor_all_finite(**{k: (x if v == "T" else v) for k, v in kwargs.items()})
        with tf.Session() as s:
            assert s.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had NaN values"):
                s.run(y, {x: [np.nan, 1.0]})


def test_verify_tensor_all_finite_rejects_both_names():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        with pytest.raises(ValueError):
            tf.verify_tensor_all_finite(t=x, x=x, msg="m")


def test_string_tensors_hold_bytes_like_tensorflow():
    with tf.Graph().as_default(), tf.Session() as s:
        assert s.run(tf.constant("abc")) == b"abc"
        assert s.run(tf.constant(["a", "b"])).tolist() == [b"a", b"b"]


@pytest.mark.parametrize("form", ["positional", "graph_def", "graph_or_graph_def"])
def test_write_graph_argument_forms(tmp_path, form):
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    gd = g.as_graph_def()
    args = {"positional": ((gd, str(tmp_path), "g.pbtxt"), {}),
            "graph_def": ((), dict(graph_def=gd, logdir=str(tmp_path), name="g.pbtxt")),
            "graph_or_graph_def": ((), dict(graph_or_graph_def=g, logdir=str(tmp_path), name="g.pbtxt"))}[form]
    path = tf.train.write_graph(*args[0], **args[1])
    assert 'name: "c"' in open(path).read()
