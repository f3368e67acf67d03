"""Iterator state saved and restored by a ``Saver``
(``tf.data.experimental.make_saveable_from_iterator``), against TensorFlow.

Each pipeline is drawn ``k`` elements, saved, drawn on; a new Session runs the
initializer, restores, and must give the elements that followed the save.
The elements themselves are compared with TensorFlow's (same program under
``tensorflow.compat.v1``), and TF's error kinds for what cannot be saved.
"""
import os
import re
import sys

import numpy as np
import pytest

import ref
from ref.data import iterator_ops as _under_test  # noqa: F401  (the module these tests cover)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "graph_ops"))
from _graphdef import differences, graph_def, tf1_behaviour, tf_v1  # noqa: E402

PIPELINES = {
    "range": lambda tf: tf.data.Dataset.range(7),
    "shuffle_seeded": lambda tf: tf.data.Dataset.range(12).shuffle(5, seed=3),
    "shuffle_repeat_reshuffle": lambda tf: tf.data.Dataset.range(5).shuffle(5, seed=7).repeat(3),
    "map_batch": lambda tf: tf.data.Dataset.range(10).map(lambda x: x * 3 + 1).batch(3),
    "filter_take_skip": lambda tf: tf.data.Dataset.range(30).filter(lambda x: x % 3 > 0).skip(2).take(9),
    "zip_slices": lambda tf: tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices(np.arange(8.0)),
                                                  tf.data.Dataset.range(8))),
    "interleave": lambda tf: tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3), cycle_length=2),
    "padded_batch": lambda tf: tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x)).padded_batch(2, [None]),
    "prefetch_cache": lambda tf: tf.data.Dataset.range(6).cache().prefetch(2).repeat(2),
}
DRAWN = (0, 1, 4)


def _run(tf, pipeline, drawn, path, after=4):
    """(elements drawn after saving, elements drawn after restoring in a new Session)."""
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(PIPELINES[pipeline](tf))
        nxt = it.get_next()
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, tf.data.experimental.make_saveable_from_iterator(it))
        saver = tf.train.Saver()

        def draw(sess):
            out = []
            for _ in range(after):
                try:
                    out.append(tf.nest.map_structure(lambda a: np.asarray(a).tolist(), sess.run(nxt)))
                except tf.errors.OutOfRangeError:
                    out.append("end")
                    break
            return out

        with tf.Session() as sess:
            sess.run(it.initializer)
            for _ in range(drawn):
                try:
                    sess.run(nxt)
                except tf.errors.OutOfRangeError:
                    break
            saver.save(sess, path)
            continued = draw(sess)
        with tf.Session() as sess:
            sess.run(it.initializer)
            saver.restore(sess, path)
            restored = draw(sess)
    return continued, restored


@pytest.mark.parametrize("drawn", DRAWN)
@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_restore_continues_where_saved(pipeline, drawn, tmp_path):
    continued, restored = _run(ref, pipeline, drawn, str(tmp_path / "m"))
    assert restored == continued


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_elements_after_restore_are_tensorflows(pipeline, tmp_path):
    tf = pytest.importorskip("tensorflow").compat.v1
    ours = _run(ref, pipeline, 3, str(tmp_path / "ref"))
    with tf1_behaviour():
        theirs = _run(tf, pipeline, 3, str(tmp_path / "tf"))
    assert ours == theirs


def test_checkpoint_key_and_dtype_are_tensorflows(tmp_path):
    with ref.Graph().as_default():
        it = ref.data.make_initializable_iterator(ref.data.Dataset.range(3))
        saveable = ref.data.experimental.make_saveable_from_iterator(it)
        assert saveable.name == "IteratorV2:0" and saveable.specs[0].name == "IteratorV2:0_STATE"
        assert saveable.specs[0].tensor.op.type == "SerializeIterator"
        saver = ref.train.Saver([saveable])
        with ref.Session() as sess:
            sess.run(it.initializer)
            path = saver.save(sess, str(tmp_path / "m"))
    assert ref.train.list_variables(path) == [("IteratorV2:0_STATE", [1])]


def _pipeline_fails(dataset_fn, policy, tmp_path):
    with ref.Graph().as_default():
        it = ref.data.make_initializable_iterator(dataset_fn())
        nxt = it.get_next()
        saveable = ref.data.experimental.make_saveable_from_iterator(it, policy)
        with ref.Session() as sess:
            sess.run(it.initializer)
            sess.run(nxt)
            sess.run(saveable.specs[0].tensor)


# (dataset, policy, TF's error kind and message) -- measured on TF 2.21
UNSAVEABLE = [
    (lambda: ref.data.Dataset.from_generator(lambda: iter(range(5)), ref.int64), None,
     ref.errors.FailedPreconditionError, "PyFunc is stateful."),
    (lambda: ref.data.Dataset.range(5).map(lambda x: ref.cast(x, ref.float32) + ref.random_uniform([])), "fail",
     ref.errors.FailedPreconditionError, "RandomUniform is stateful."),
    (lambda: ref.data.Dataset.from_generator(lambda: iter(range(5)), ref.int64), "ignore",
     ref.errors.UnimplementedError, "GeneratorDataset does not support checkpointing."),
]


@pytest.mark.parametrize("dataset_fn,policy,kind,message", UNSAVEABLE)
def test_unsaveable_pipelines_fail_as_tensorflow(dataset_fn, policy, kind, message, tmp_path):
    with pytest.raises(kind, match=message):
        _pipeline_fails(dataset_fn, policy, tmp_path)


def test_stateful_map_is_saved_under_ignore(tmp_path):
    with ref.Graph().as_default():
        ds = ref.data.Dataset.range(5).map(lambda x: ref.cast(x, ref.float32) + ref.random_uniform([]))
        it = ref.data.make_initializable_iterator(ds)
        saveable = ref.data.experimental.make_saveable_from_iterator(it, "ignore")
        with ref.Session() as sess:
            sess.run(it.initializer)
            assert sess.run(saveable.specs[0].tensor).shape == (1,)


def test_restore_needs_an_initialized_iterator(tmp_path):
    path = str(tmp_path / "m")
    with ref.Graph().as_default():
        it = ref.data.make_initializable_iterator(ref.data.Dataset.range(3))
        saver = ref.train.Saver([ref.data.experimental.make_saveable_from_iterator(it)])
        with ref.Session() as sess:
            with pytest.raises(ref.errors.FailedPreconditionError, match="has not been initialized"):
                saver.save(sess, path)
            sess.run(it.initializer)
            saver.save(sess, path)
        with ref.Session() as sess:
            with pytest.raises(ref.errors.FailedPreconditionError, match="has not been initialized"):
                saver.restore(sess, path)


def test_restore_into_a_shorter_dataset_fails(tmp_path):
    path = str(tmp_path / "m")
    with ref.Graph().as_default():
        it = ref.data.Iterator.from_structure(ref.int64, [])
        nxt = it.get_next()
        long_init = it.make_initializer(ref.data.Dataset.range(10))
        short_init = it.make_initializer(ref.data.Dataset.range(2))
        saver = ref.train.Saver([ref.data.experimental.make_saveable_from_iterator(it)])
        with ref.Session() as sess:
            sess.run(long_init)
            for _ in range(5):
                sess.run(nxt)
            saver.save(sess, path)
            sess.run(short_init)
            with pytest.raises(ref.errors.FailedPreconditionError, match="dataset definition has not changed"):
                saver.restore(sess, path)


def test_bad_policy_is_a_value_error():
    with ref.Graph().as_default():
        it = ref.data.make_initializable_iterator(ref.data.Dataset.range(3))
        with pytest.raises(ValueError, match="ExternalStatePolicy"):
            ref.data.experimental.make_saveable_from_iterator(it, "sometimes")


def test_one_shot_iterator_state(tmp_path):
    path = str(tmp_path / "m")
    with ref.Graph().as_default():
        it = ref.data.make_one_shot_iterator(ref.data.Dataset.range(6).shuffle(6, seed=1))
        nxt = it.get_next()
        saver = ref.train.Saver([ref.data.experimental.make_saveable_from_iterator(it)])
        with ref.Session() as sess:
            first = [sess.run(nxt) for _ in range(2)]
            saver.save(sess, path)
            rest = [sess.run(nxt) for _ in range(4)]
        with ref.Session() as sess:
            saver.restore(sess, path)
            assert [sess.run(nxt) for _ in range(4)] == rest
    assert sorted(first + rest) == list(range(6))


def test_graph_is_tensorflows():
    def snippet(tf):
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(10).map(lambda x: x * 2).batch(2))
        it.get_next()
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, tf.data.experimental.make_saveable_from_iterator(it))
        tf.train.Saver()

    def numbered_alike(gd):
        """Function names end in a process-wide counter (TF's uid): number them alike."""
        for node in gd.node:
            for attr in node.attr.values():
                if attr.func.name:
                    attr.func.name = re.sub(r"_\d+$", "_N", attr.func.name)
        return gd

    tf = tf_v1()
    diff = differences(numbered_alike(graph_def(ref, snippet)), numbered_alike(graph_def(tf, snippet)))
    assert not diff, "\n".join(diff)


def _stop_at_three(tf):
    def f(x):
        if x == 3:
            raise StopIteration
        return x * 10
    ds = tf.data.Dataset.range(6).map(lambda x: tf.py_func(f, [x], tf.int64, stateful=False))
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(int(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                return out


def test_tf1_map_ends_the_dataset_when_its_function_runs_out():
    """TF1's ``map`` builds ``preserve_cardinality=False``: an OutOfRangeError
    from the function ends the dataset (TF2's map would fail instead)."""
    with ref.Graph().as_default():
        assert _stop_at_three(ref) == [0, 10, 20]
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf1_behaviour(), tf.Graph().as_default():
        assert _stop_at_three(tf) == [0, 10, 20]
