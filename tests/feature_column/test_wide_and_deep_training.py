"""A short wide-and-deep training program on feature columns, under ``ref``
and under TF 2.21 (TF1 behaviour): ``linear_model`` over categorical and
crossed columns plus a DNN over ``input_layer`` (embedding, indicator,
bucketized, numeric columns), trained with GradientDescent / Adagrad; the
losses of every step and the final variables equal TF's."""
import contextlib

import numpy as np
import pytest

from ref.feature_column import models as _under_test  # noqa: F401
from tests.feature_column._fc import feeds_for, tf1_behaviour, tf_v1

RNG = np.random.RandomState(26)
N = 16
WORDS = np.array([b"x", b"y", b"z", b"w", b""], object)
VALUES = {
    "price": RNG.uniform(-1, 1, (N, 2)).astype(np.float32),
    "age": RNG.uniform(0, 60, N).astype(np.float32),
    "word": WORDS[RNG.randint(0, 5, (N, 2))],
    "ids": RNG.randint(-1, 6, (N, 1)).astype(np.int64),
    "label": RNG.randint(0, 2, (N, 1)).astype(np.float32),
}


def _program(tf, optimizer):
    fc = tf.feature_column
    feats = {"price": tf.placeholder(tf.float32, [None, 2], name="price"),
             "age": tf.placeholder(tf.float32, [None], name="age"),
             "word": tf.placeholder(tf.string, [None, 2], name="word"),
             "ids": tf.placeholder(tf.int64, [None, 1], name="ids")}
    label = tf.placeholder(tf.float32, [None, 1], name="label")
    word = fc.categorical_column_with_vocabulary_list("word", ["x", "y", "z"], num_oov_buckets=1)
    age = fc.bucketized_column(fc.numeric_column("age"), [18., 30., 45.])
    ids = fc.categorical_column_with_identity("ids", 6)
    deep = fc.input_layer(feats, [fc.numeric_column("price", shape=2), fc.embedding_column(word, 3),
                                  fc.indicator_column(ids), age])
    hidden = tf.layers.dense(deep, 5, activation=tf.nn.relu)
    deep_logits = tf.layers.dense(hidden, 1)
    wide_logits = fc.linear_model(feats, [word, ids, age, fc.crossed_column(["word", age], 13)])
    loss = tf.losses.sigmoid_cross_entropy(label, deep_logits + wide_logits)
    opt = tf.train.GradientDescentOptimizer(0.5) if optimizer == "sgd" else tf.train.AdagradOptimizer(0.3)
    train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return loss, train


def _train(lib, optimizer, steps=6):
    is_ref = lib.__name__.startswith("ref")
    with (contextlib.nullcontext() if is_ref else tf1_behaviour()), lib.Graph().as_default() as g:
        lib.set_random_seed(26)
        loss, train = _program(lib, optimizer)
        losses = []
        with lib.Session(graph=g) as s:
            s.run([lib.global_variables_initializer(), lib.tables_initializer()])
            feeds = feeds_for(g, VALUES)
            for _ in range(steps):
                losses.append(s.run([loss, train], feeds)[0])
            final = {v.op.name: s.run(v) for v in lib.trainable_variables()}
        return np.array(losses), final


@pytest.mark.parametrize("optimizer", ["sgd", "adagrad"])
def test_wide_and_deep_training_equals_tfs(optimizer):
    import ref
    tf_v1()
    got_losses, got_vars = _train(ref, optimizer)
    want_losses, want_vars = _train(tf_v1(), optimizer)
    np.testing.assert_allclose(got_losses, want_losses, rtol=2e-6)
    assert want_losses[-1] < want_losses[0]
    assert sorted(got_vars) == sorted(want_vars)
    for name in want_vars:
        np.testing.assert_allclose(got_vars[name], want_vars[name], rtol=1e-5, atol=1e-6, err_msg=name)
