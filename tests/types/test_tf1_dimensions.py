"""TF1 programs index and iterate static shapes and compute with the dims:
``x.get_shape()[1].value``, ``x.shape[1] * x.shape[2]``, ``tf.reshape(x, [-1,
x.shape[1]])``. With v2 behaviour disabled TF gives ``Dimension`` objects (and
``Dimension(None)`` for an unknown dim); after ``enable_v2_tensorshape`` ints
and None. Oracle: TensorFlow 2.21's ``tf.compat.v1`` itself, row by row, in
both modes (ref's result and TF's, normalised to plain values; an exception
compares by its type)."""
import os

import numpy as np
import pytest

import ref
from ref.types import shapes as _under_test  # noqa: F401


def _run(tf, t):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(t)


def _x(tf):
    return tf.placeholder_with_default(np.arange(24, dtype=np.float32).reshape(2, 3, 4), [None, 3, 4])


def _ph(tf):
    return tf.placeholder(tf.float32, [None, 3, 4])


def _set_shape(tf):
    p = tf.placeholder(tf.float32)
    p.set_shape([_ph(tf).shape[0], _ph(tf).shape[1]])
    return p.shape


# (description, expression of a tf module) -- run on ref and on TF in a fresh graph.
ROWS = [
    ("index unknown", lambda tf: _ph(tf).shape[0]),
    ("index known", lambda tf: _ph(tf).shape[1]),
    ("get_shape index value", lambda tf: _ph(tf).get_shape()[0].value),
    ("negative index value", lambda tf: _ph(tf).shape[-1].value),
    ("slice", lambda tf: _ph(tf).shape[1:]),
    ("slice unknown rank", lambda tf: tf.TensorShape(None)[1:3]),
    ("slice unknown rank open", lambda tf: tf.TensorShape(None)[1:]),
    ("index unknown rank", lambda tf: tf.TensorShape(None)[0]),
    ("iterate", lambda tf: list(_ph(tf).shape)),
    ("iterate value", lambda tf: [d.value for d in _ph(tf).shape]),
    ("dims", lambda tf: _ph(tf).shape.dims),
    ("as_list", lambda tf: _ph(tf).shape.as_list()),
    ("mul known", lambda tf: _ph(tf).shape[1] * _ph(tf).shape[2]),
    ("mul unknown", lambda tf: _ph(tf).shape[0] * _ph(tf).shape[2]),
    ("add int", lambda tf: _ph(tf).shape[1] + 1),
    ("radd int", lambda tf: 1 + _ph(tf).shape[1]),
    ("rsub int", lambda tf: 10 - _ph(tf).shape[1]),
    ("sub None", lambda tf: _ph(tf).shape[1] - None),
    ("floordiv", lambda tf: _ph(tf).shape[2] // 2),
    ("rfloordiv", lambda tf: 12 // _ph(tf).shape[2]),
    ("mod", lambda tf: _ph(tf).shape[2] % 3),
    ("truediv raises", lambda tf: _ph(tf).shape[2] / 2),
    ("eq int", lambda tf: _ph(tf).shape[1] == 3),
    ("eq unknown", lambda tf: _ph(tf).shape[0] == 3),
    ("eq None", lambda tf: _ph(tf).shape[1] == None),  # noqa: E711
    ("ne int", lambda tf: _ph(tf).shape[1] != 3),
    ("eq str", lambda tf: _ph(tf).shape[1] == "3"),
    ("lt", lambda tf: _ph(tf).shape[1] < 4),
    ("ge unknown", lambda tf: _ph(tf).shape[0] >= 4),
    ("is None", lambda tf: _ph(tf).shape[0] is None),
    ("bool unknown", lambda tf: bool(_ph(tf).shape[0])),
    ("bool known", lambda tf: bool(_ph(tf).shape[1])),
    ("int known", lambda tf: int(_ph(tf).shape[1])),
    ("int unknown raises", lambda tf: int(_ph(tf).shape[0])),
    ("index unknown raises", lambda tf: [0, 1, 2][_ph(tf).shape[0]]),
    ("str known", lambda tf: str(_ph(tf).shape[1])),
    ("str unknown", lambda tf: str(_ph(tf).shape[0])),
    ("repr unknown", lambda tf: repr(_ph(tf).shape[0])),
    ("repr shape", lambda tf: repr(_ph(tf).shape)),
    ("str shape", lambda tf: str(_ph(tf).shape)),
    ("hash", lambda tf: {_ph(tf).shape[1]: "a"}[3]),
    ("merge_with", lambda tf: _ph(tf).shape[0].merge_with(5)),
    ("merge_with incompatible", lambda tf: _ph(tf).shape[1].merge_with(5)),
    ("is_compatible_with", lambda tf: _ph(tf).shape[1].is_compatible_with(tf.Dimension(None))),
    ("Dimension(-1) raises", lambda tf: tf.Dimension(-1)),
    ("Dimension(str) raises", lambda tf: tf.Dimension("a")),
    ("Dimension(np.int64)", lambda tf: tf.Dimension(np.int64(4))),
    ("TensorShape of Dimensions", lambda tf: tf.TensorShape([tf.Dimension(2), tf.Dimension(None)])),
    ("TensorShape eq", lambda tf: tf.TensorShape([tf.Dimension(2), None]) == tf.TensorShape([2, None])),
    ("range", lambda tf: list(range(_ph(tf).shape[1]))),
    ("numpy zeros", lambda tf: np.zeros([_ph(tf).shape[1], _ph(tf).shape[2]]).shape),
    ("dimension_value", lambda tf: (tf.compat.dimension_value(_ph(tf).shape[0]),
                                    tf.compat.dimension_value(_ph(tf).shape[1]), tf.compat.dimension_value(7))),
    ("dimension_at_index", lambda tf: (tf.compat.dimension_at_index(_ph(tf).shape, 1),
                                       tf.compat.dimension_at_index(tf.TensorShape(None), 3))),
    ("v1 dimension_value", lambda tf: tf.dimension_value(tf.Dimension(5))),
    ("tf.zeros with dims", lambda tf: _run(tf, tf.zeros([_ph(tf).shape[1], _ph(tf).shape[2]])).shape),
    ("tf.ones with Dimension", lambda tf: _run(tf, tf.ones(_ph(tf).shape[1])).shape),
    ("tf.reshape with product", lambda tf: _run(tf, tf.reshape(tf.range(12), [-1, _ph(tf).shape[1] * _ph(tf).shape[2]])).shape),
    ("tf.reshape static shape", lambda tf: tf.reshape(_ph(tf), [-1, _ph(tf).shape[1] * _ph(tf).shape[2]]).shape),
    ("tf.constant of Dimension", lambda tf: _run(tf, tf.constant(_ph(tf).shape[1]))),
    ("tf.constant list of dims", lambda tf: _run(tf, tf.constant([_ph(tf).shape[1], 5]))),
    ("tf.constant unknown raises", lambda tf: tf.constant(_ph(tf).shape[0])),
    ("convert_to_tensor Dimension", lambda tf: _run(tf, tf.convert_to_tensor(_ph(tf).shape[2]))),
    ("convert_to_tensor unknown raises", lambda tf: tf.convert_to_tensor(_ph(tf).shape[0])),
    ("convert_to_tensor int64", lambda tf: _run(tf, tf.convert_to_tensor(_ph(tf).shape[2], tf.int64))),
    ("convert_to_tensor float raises", lambda tf: tf.convert_to_tensor(_ph(tf).shape[2], tf.float32)),
    ("pickle", lambda tf: __import__('pickle').loads(__import__('pickle').dumps(tf.Dimension(3)))),
    ("TensorShape radd list", lambda tf: [1] + tf.TensorShape([2, None])),
    ("pickle TensorShape", lambda tf: __import__('pickle').loads(__import__('pickle').dumps(tf.TensorShape([2, None])))),
    ("is_subtype_of", lambda tf: (tf.TensorShape([2, 3]).is_subtype_of(tf.TensorShape([None, 3])),
                                  tf.TensorShape([None, 3]).is_subtype_of(tf.TensorShape([2, 3])),
                                  tf.TensorShape([2]).is_subtype_of(tf.TensorShape(None)))),
    ("most_specific_common_supertype", lambda tf: tf.TensorShape([2, 3]).most_specific_common_supertype(
        [tf.TensorShape([2, 4])])),
    ("set_shape with dims", lambda tf: _set_shape(tf)),
    ("placeholder with dims", lambda tf: tf.placeholder(tf.float32, [_ph(tf).shape[0], _ph(tf).shape[2]]).shape),
    ("variable shape index", lambda tf: tf.Variable(tf.zeros([2, 5])).shape[1].value),
    ("tensor get_shape()[1:]", lambda tf: _ph(tf).get_shape()[1:].num_elements()),
]

# Dims in TF1 programs' builder calls: shape lists of known Dimensions convert
# to int tensors (an unknown one raises TypeError), layers and RNNs read them.
BUILDER_ROWS = [
    ("get_variable shape", lambda tf: tf.get_variable("w", [_x(tf).shape[2], 5]).shape),
    ("get_variable run", lambda tf: _run(tf, tf.get_variable("w", [_x(tf).shape[2], 5], initializer=tf.ones_initializer())).shape),
    ("Variable truncated_normal", lambda tf: tf.Variable(tf.truncated_normal([_x(tf).shape[1], _x(tf).shape[2]])).shape),
    ("random_normal", lambda tf: tf.random_normal([_x(tf).shape[1]]).shape),
    ("random_uniform run", lambda tf: _run(tf, tf.random_uniform([_x(tf).shape[1], 2])).shape),
    ("fill", lambda tf: _run(tf, tf.fill([_x(tf).shape[1], 2], 1.0))),
    ("tile", lambda tf: _run(tf, tf.tile(tf.ones([1, 2]), [_x(tf).shape[1], 1])).shape),
    ("slice size", lambda tf: _run(tf, tf.slice(_x(tf), [0, 0, 0], [1, _x(tf).shape[1], 2])).shape),
    ("one_hot depth", lambda tf: tf.one_hot([0, 1], _x(tf).shape[2]).shape),
    ("range", lambda tf: _run(tf, tf.range(_x(tf).shape[1]))),
    ("unstack num", lambda tf: len(tf.unstack(_x(tf), num=_x(tf).shape[1], axis=1))),
    ("split num", lambda tf: len(tf.split(_x(tf), _x(tf).shape[2], axis=2))),
    ("reshape keep dim", lambda tf: tf.reshape(_x(tf), [-1, _x(tf).shape[2]]).shape),
    ("reshape unknown dim raises", lambda tf: tf.reshape(_x(tf), [_x(tf).shape[0], -1]).shape),
    ("zeros unknown raises", lambda tf: tf.zeros([_x(tf).shape[0], 2])),
    ("sequence_mask maxlen", lambda tf: tf.sequence_mask([1, 2], _x(tf).shape[1]).shape),
    ("layers.dense", lambda tf: tf.layers.dense(_x(tf), 7).shape),
    ("matmul via reshape", lambda tf: tf.matmul(tf.reshape(_x(tf), [-1, _x(tf).shape[2]]), tf.ones([_x(tf).shape[2], 2])).shape),
    ("conv2d filter", lambda tf: tf.nn.conv2d(_x(tf)[..., None], tf.get_variable("f", [2, 2, _x(tf)[..., None].shape[-1], 3]), [1, 1, 1, 1], "SAME").shape),
    ("expand_dims", lambda tf: tf.expand_dims(_x(tf), axis=tf.Dimension(1)).shape),
    ("transpose perm", lambda tf: tf.transpose(_x(tf), [0, 2, 1]).shape[1]),
    ("concat shapes", lambda tf: tf.TensorShape([_x(tf).shape[0]]).concatenate(_x(tf).shape[1:])),
    ("shape[1:] as_list", lambda tf: _x(tf).shape[1:].as_list()),
    ("dynamic_rnn", lambda tf: tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), _x(tf), dtype=tf.float32)[0].shape),
    ("static shape prod", lambda tf: np.prod(_x(tf).shape[1:].as_list())),
    ("sparse_softmax", lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([2], tf.int32), logits=tf.reshape(_x(tf), [2, 12])).shape),
    ("batch_norm", lambda tf: tf.layers.batch_normalization(_x(tf)).shape),
    ("stack of dims", lambda tf: _run(tf, tf.stack([_x(tf).shape[1], _x(tf).shape[2]]))),
    ("tf.shape vs static", lambda tf: _x(tf).shape[1].value * 2),
]


def _plain(v):
    """A result as plain Python values, the same for ref's and TF's classes."""
    kind = type(v).__name__
    if kind == "Dimension":
        return ("Dimension", v.value)
    if kind == "TensorShape":
        return ("TensorShape", None if v.dims is None else v.as_list())
    if hasattr(v, "op") and hasattr(v, "dtype"):
        return ("Tensor", v.dtype.name, _plain(v.shape))
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.name, v.tolist())
    if isinstance(v, np.generic):
        return ("scalar", v.dtype.name, v.item())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_plain(x) for x in v])
    return (type(v).__name__, v)


def _outcome(tf, expr):
    with tf.Graph().as_default():
        try:
            return _plain(expr(tf))
        except Exception as e:  # noqa: BLE001 -- the error kind is the result
            return ("raises", type(e).__name__)


@pytest.fixture(params=["v1", "v2"])
def tensorshape_mode(request):
    """Both libraries in the same shape mode: TF1's Dimensions, or TF 2's ints."""
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.layers / rnn_cell need tf-keras
    tf = pytest.importorskip("tensorflow").compat.v1
    v2 = request.param == "v2"
    (tf.enable_v2_tensorshape if v2 else tf.disable_v2_tensorshape)()
    (ref.enable_v2_tensorshape if v2 else ref.disable_v2_tensorshape)()
    yield tf
    tf.enable_v2_tensorshape()  # TF's eager default
    ref.disable_v2_tensorshape()  # ref's default


@pytest.mark.parametrize("expr", [r[1] for r in ROWS + BUILDER_ROWS], ids=[r[0] for r in ROWS + BUILDER_ROWS])
def test_same_as_tensorflow(tensorshape_mode, expr):
    assert _outcome(ref, expr) == _outcome(tensorshape_mode, expr)


def test_default_mode_is_tf1():
    """ref's default is TF 1.x's: what ``disable_v2_behavior`` gives."""
    x = ref.placeholder(ref.float32, [None, 3])
    assert repr(x.shape[0]) == "Dimension(None)" and x.get_shape()[0].value is None
    assert x.shape[1].value == 3 and isinstance(x.shape[1], ref.Dimension)


def test_shape_rules_read_ints():
    """Inside ``int_dims`` (where the op shape rules run) dims are ints and None
    whatever the mode, and the mode comes back after it."""
    s = ref.TensorShape([None, 3])
    with _under_test.int_dims():
        assert s[0] is None and type(s[1]) is int and list(s) == [None, 3]
    assert isinstance(s[0], ref.Dimension)
