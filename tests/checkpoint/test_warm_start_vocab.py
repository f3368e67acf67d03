"""Warm-starting with vocabulary remapping (ref/checkpoint/warm_start.py,
checkpoint_ops.py, the GenerateVocabRemapping / LoadAndRemapMatrix kernels).
Oracles: the expected matrices of TF's warm_starting_util_test.py, and
tf.raw_ops for the kernels."""
import os

import numpy as np
import pytest

import ref as tf
from ref.checkpoint import warm_start as ws
from ref.ops import io as io_ops
from ref.types import errors

OLD = ["apple", "banana", "guava", "orange"]
NEW = ["orange", "guava", "banana", "apple", "raspberry"]
ROWS = [[0.5], [1.], [1.5], [2.]]
COLS = [[0.5, 0.3], [1., 0.8], [1.5, 1.2], [2., 2.3]]


def _vocab(tmp_path, words, name):
    path = os.path.join(str(tmp_path), name)
    with open(path, "w") as f:
        f.write("\n".join(words) + "\n")
    return path


def _prev(tmp_path, name, initializer, shape=None, partitioner=None):
    with tf.Graph().as_default(), tf.Session() as s:
        tf.get_variable(name, shape=shape, initializer=initializer, partitioner=partitioner)
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, os.path.join(str(tmp_path), "model"))


def _two_parts(shape, dtype):
    return [2, 1]


# (id, prev initializer, prev partitioned, old vocab, new vocab, new var shape, new partitioned, kwargs, expected)
CASES = [
    ("rows", ROWS, False, OLD, NEW, [5, 1], False, {}, [[2.], [1.5], [1.], [0.5], [0.]]),
    ("rows-old-size-2", ROWS, False, OLD, NEW, [5, 1], False, {"previous_vocab_size": 2},
     [[0.], [0.], [1.], [0.5], [0.]]),
    ("rows-prev-partitioned", ROWS, True, OLD, NEW, [5, 1], False, {}, [[2.], [1.5], [1.], [0.5], [0.]]),
    ("rows-current-partitioned-oov", ROWS, False, OLD, NEW, [6, 1], True, {"current_oov_buckets": 1},
     [[2.], [1.5], [1.], [0.5], [0.], [0.]]),
    ("rows-both-partitioned", ROWS, True, OLD, NEW + ["blueberry"], [6, 1], True, {},
     [[2.], [1.5], [1.], [0.5], [0.], [0.]]),
    ("cols", COLS, False, ["apple", "orange"], ["orange", "apple", "banana"], [4, 3], False, {"axis": 1},
     [[0.3, 0.5, 0.], [0.8, 1.0, 0.], [1.2, 1.5, 0.], [2.3, 2., 0.]]),
    ("cols-prev-partitioned", COLS, True, ["apple", "orange"], ["orange", "apple", "banana"], [4, 3], False,
     {"axis": 1}, [[0.3, 0.5, 0.], [0.8, 1.0, 0.], [1.2, 1.5, 0.], [2.3, 2., 0.]]),
    ("cols-both-partitioned", COLS, True, ["apple", "orange"], ["orange", "apple", "banana"], [4, 3], True,
     {"axis": 1}, [[0.3, 0.5, 0.], [0.8, 1.0, 0.], [1.2, 1.5, 0.], [2.3, 2., 0.]]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_warm_start_var_with_vocab(tmp_path, case):
    _, prev_init, prev_part, old, new, shape, new_part, kwargs, expected = case
    prev_shape = [len(prev_init), len(prev_init[0])]
    _prev(tmp_path, "w", prev_init, shape=prev_shape if prev_part else None,
          partitioner=_two_parts if prev_part else None)
    old_path, new_path = _vocab(tmp_path, old, "old_vocab"), _vocab(tmp_path, new, "new_vocab")
    with tf.Graph().as_default(), tf.Session() as s:
        w = tf.get_variable("w", shape=shape, initializer=tf.zeros_initializer(),
                            partitioner=_two_parts if new_part else None)
        vocab_size = len(new) if kwargs.get("axis", 0) == 0 else 3
        ws._warm_start_var_with_vocab(w, new_path, vocab_size, str(tmp_path), old_path, **kwargs)
        s.run(tf.global_variables_initializer())
        got = s.run(w.as_tensor()) if new_part else s.run(w)
    np.testing.assert_allclose(got, expected)


def test_warm_start_with_vocab_info(tmp_path):
    _prev(tmp_path, "fruit_weights", np.array(ROWS, np.float32))
    old_path, new_path = _vocab(tmp_path, OLD, "old_vocab"), _vocab(tmp_path, NEW, "new_vocab")
    with tf.Graph().as_default(), tf.Session() as s:
        w = tf.get_variable("fruit_weights", shape=[5, 1], initializer=tf.zeros_initializer())
        info = ws.VocabInfo(new_vocab=new_path, new_vocab_size=5, num_oov_buckets=0, old_vocab=old_path,
                            backup_initializer=tf.constant_initializer(7.0))
        tf.train.warm_start(str(tmp_path), var_name_to_vocab_info={"fruit_weights": info})
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(w), [[2.], [1.5], [1.], [0.5], [7.]])


def test_errors(tmp_path):
    with tf.Graph().as_default():
        x = tf.get_variable("x", shape=[4, 1], initializer=tf.ones_initializer(), partitioner=_two_parts)
        with pytest.raises(TypeError):
            ws._warm_start_var_with_vocab([x], "/tmp", 5, "/tmp", "/tmp")
        with pytest.raises(ValueError, match="Must provide all of"):
            ws._warm_start_var_with_vocab(x, "", 5, "/tmp", "/tmp")
        with pytest.raises(ValueError, match="axis"):
            ws.VocabInfo("a", 1, 0, "b", axis=2)
        with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
            tf.train.warm_start(str(tmp_path), var_name_to_vocab_info={"y": ws.VocabInfo("", 1, 0, "")})


REMAPS = [
    # (new vocab, old vocab, offset, count, old size)
    (NEW, OLD, 0, 5, -1),
    (NEW, OLD, 2, 3, -1),
    (NEW, OLD, 0, 5, 2),
    (["a", "a", "b"], ["b", "a", "c"], 0, 3, -1),  # a repeated new word maps twice
]


@pytest.mark.parametrize("new,old,offset,count,old_size", REMAPS)
def test_generate_vocab_remapping_as_tf(tmp_path, new, old, offset, count, old_size):
    raw = pytest.importorskip("tensorflow").raw_ops
    new_path, old_path = _vocab(tmp_path, new, "n"), _vocab(tmp_path, old, "o")
    ours = io_ops.generate_vocab_remapping(np.array(new_path, dtype=object), np.array(old_path, dtype=object),
                                           offset, count, old_size)
    theirs = raw.GenerateVocabRemapping(new_vocab_file=new_path, old_vocab_file=old_path, new_vocab_offset=offset,
                                        num_new_vocab=count, old_vocab_size=old_size)
    np.testing.assert_array_equal(ours[0], theirs[0].numpy())
    assert ours[0].dtype == theirs[0].numpy().dtype and int(ours[1]) == int(theirs[1].numpy())


@pytest.mark.parametrize("rows,cols", [([3, -1, 0], []), ([1, 2], [1, -1, 0]), ([-1, -1], [0, 1])])
def test_load_and_remap_matrix_as_tf(tmp_path, rows, cols):
    tf2 = pytest.importorskip("tensorflow")
    old = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.Graph().as_default(), tf.Session() as s:
        v = tf.Variable(old, name="m")
        s.run(v.initializer)
        prefix = tf.train.Saver().save(s, os.path.join(str(tmp_path), "ckpt"))
    num_cols = len(cols) or 2
    present = sum(1 for r in rows if r >= 0) * (sum(1 for c in cols if c >= 0) if cols else 2)
    init = np.arange(100, 100 + len(rows) * num_cols - present, dtype=np.float32)
    args = dict(ckpt_path=prefix, old_tensor_name="m", row_remapping=np.array(rows, np.int64),
                col_remapping=np.array(cols, np.int64), initializing_values=init, num_rows=len(rows),
                num_cols=num_cols)
    theirs = tf2.raw_ops.LoadAndRemapMatrix(**args).numpy()
    ours = io_ops.load_and_remap_matrix(**{k: (np.array(v, dtype=object) if isinstance(v, str) else v)
                                           for k, v in args.items()})
    np.testing.assert_array_equal(ours, theirs)
    one_element = dict(args, ckpt_path=[prefix], old_tensor_name=["m"])  # TF reads any 1-element string tensor
    np.testing.assert_array_equal(tf2.raw_ops.LoadAndRemapMatrix(**one_element).numpy(), theirs)
    np.testing.assert_array_equal(io_ops.load_and_remap_matrix(**{
        **args, "ckpt_path": np.array([prefix], dtype=object), "old_tensor_name": np.array(["m"], dtype=object)}),
        theirs)
    with pytest.raises(errors.InvalidArgumentError, match="initializing_values"):
        io_ops.load_and_remap_matrix(**{**args, "ckpt_path": np.array(prefix, dtype=object),
                                        "old_tensor_name": np.array("m", dtype=object),
                                        "initializing_values": np.append(init, 1.0)})


def test_repeated_old_vocabulary_word_is_tfs_error(tmp_path):
    raw = pytest.importorskip("tensorflow").raw_ops
    tf_errors = pytest.importorskip("tensorflow.python.framework.errors_impl")
    new_path, old_path = _vocab(tmp_path, ["a"], "n"), _vocab(tmp_path, ["b", "a", "a"], "o")
    with pytest.raises(tf_errors.FailedPreconditionError) as theirs:
        raw.GenerateVocabRemapping(new_vocab_file=new_path, old_vocab_file=old_path, new_vocab_offset=0,
                                   num_new_vocab=1)
    with pytest.raises(errors.FailedPreconditionError) as ours:
        io_ops.generate_vocab_remapping(np.array(new_path, dtype=object), np.array(old_path, dtype=object), 0, 1)
    assert ours.value.message in theirs.value.message


@pytest.mark.parametrize("rows,cols", [([1, 0, 0], []), ([0, 1], [1, 1])])
def test_an_old_id_mapped_twice_is_tfs_unimplemented_error(tmp_path, rows, cols):
    tf2 = pytest.importorskip("tensorflow")
    with tf.Graph().as_default(), tf.Session() as s:
        v = tf.Variable(np.ones((3, 2), np.float32), name="m")
        s.run(v.initializer)
        prefix = tf.train.Saver().save(s, os.path.join(str(tmp_path), "ckpt"))
    args = dict(ckpt_path=prefix, old_tensor_name="m", row_remapping=np.array(rows, np.int64),
                col_remapping=np.array(cols, np.int64), initializing_values=np.zeros([0], np.float32),
                num_rows=len(rows), num_cols=len(cols) or 2)
    with pytest.raises(tf2.errors.UnimplementedError):
        tf2.raw_ops.LoadAndRemapMatrix(**args)
    with pytest.raises(errors.UnimplementedError):
        io_ops.load_and_remap_matrix(**{k: (np.array(v, dtype=object) if isinstance(v, str) else v)
                                        for k, v in args.items()})
