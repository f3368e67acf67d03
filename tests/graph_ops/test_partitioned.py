"""Partitioners and PartitionedVariable (ref/graph_ops/partitioned.py) against
TensorFlow's partitioners and partitioned get_variable."""
import numpy as np
import pytest

from ref.graph_ops import partitioned
from ref.types.shapes import TensorShape

PARTITIONERS = [
    ("variable_axis_size_partitioner", dict(max_shard_bytes=1000), [100, 10], "float32"),
    ("variable_axis_size_partitioner", dict(max_shard_bytes=1000, max_shards=3), [100, 10], "float32"),
    ("variable_axis_size_partitioner", dict(max_shard_bytes=64, axis=1), [4, 100], "float64"),
    ("variable_axis_size_partitioner", dict(max_shard_bytes=1, bytes_per_string_element=8), [7, 3], "string"),
    ("min_max_variable_partitioner", dict(max_partitions=4, min_slice_size=1024), [1000, 2], "float32"),
    ("min_max_variable_partitioner", dict(max_partitions=100, min_slice_size=100, axis=1), [5, 3], "int64"),
    ("min_max_variable_partitioner", dict(max_partitions=2, bytes_per_string_element=4096), [1000], "string"),
    ("fixed_size_partitioner", dict(num_shards=3), [7, 2], "float32"),
    ("fixed_size_partitioner", dict(num_shards=10), [4], "float32"),
    ("fixed_size_partitioner", dict(num_shards=2, axis=1), [4, 6, 2], "float32"),
]


@pytest.mark.parametrize("name,kwargs,shape,dtype", PARTITIONERS, ids=[f"{p[0]}{i}" for i, p in enumerate(PARTITIONERS)])
def test_partitioner_matches_tensorflow(tf1, name, kwargs, shape, dtype):
    want = getattr(tf1, name)(**kwargs)(shape=tf1.TensorShape(shape), dtype=getattr(tf1, dtype))
    got = getattr(partitioned, name)(**kwargs)(shape=TensorShape(shape), dtype=dtype)
    assert got == want


@pytest.mark.parametrize("name,kwargs", [
    ("variable_axis_size_partitioner", dict(max_shard_bytes=0)),
    ("variable_axis_size_partitioner", dict(max_shard_bytes=10, bytes_per_string_element=0)),
    ("variable_axis_size_partitioner", dict(max_shard_bytes=10, max_shards=-1)),
])
def test_partitioner_argument_errors(tf1, name, kwargs):
    with pytest.raises(ValueError) as want:
        getattr(tf1, name)(**kwargs)
    with pytest.raises(ValueError) as got:
        getattr(partitioned, name)(**kwargs)
    assert str(got.value) == str(want.value)


def _partitioned_program(tf, make_initializer):
    with tf.Graph().as_default():
        with tf.variable_scope("s"):
            pv = tf.get_variable("w", [5, 2], initializer=make_initializer(tf),
                                 partitioner=tf.fixed_size_partitioner(2))
        full = pv.as_tensor()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(full)
        ops = sorted(op.name for op in full.graph.get_operations()
                     if op.name in ("s/w", "s/w/ConcatPartitions/concat") or op.name.startswith("s/w/part_")
                     and op.type in ("VariableV2", "Assign", "Identity", "Slice", "RandomUniform"))
        return ([v.name for v in pv], [v._get_save_slice_info().spec for v in pv],
                [v._get_save_slice_info().full_name for v in pv], value.tolist(), ops, pv.get_shape().as_list(),
                len(pv), [v.name for v in tf.global_variables()])


VALUE = np.arange(10, dtype=np.float32).reshape(5, 2)


@pytest.mark.parametrize("make", [lambda tf: tf.constant(VALUE), lambda tf: VALUE.tolist()],
                         ids=["tensor", "python_value"])
def test_partitioned_variable_matches_tensorflow(rtf, tf1, make):
    got = _partitioned_program(rtf, make)
    assert got == _partitioned_program(tf1, make)
    assert got[1] == ["5 2 0,3:0,2", "5 2 3,2:0,2"] and got[3] == VALUE.tolist()


def test_partitioned_default_initializer_uses_full_shape(rtf, tf1):
    """glorot_uniform of a partition draws with the FULL shape's fans."""
    got = _partitioned_program(rtf, lambda tf: None)
    assert got[0] == ["s/w/part_0:0", "s/w/part_1:0"]
    assert np.abs(np.asarray(got[3])).max() <= np.sqrt(6 / 7)
    assert got[4] == _partitioned_program(tf1, lambda tf: None)[4]


def test_partitioned_variable_validation(rtf):
    with rtf.Graph().as_default():
        v = rtf.Variable([1.0, 2.0])
        with pytest.raises(ValueError, match="All variables must have a save_slice_info available"):
            partitioned.PartitionedVariable("p", [2], "float32", [v], [1])
        with pytest.raises(ValueError, match="variable_list may not be empty"):
            partitioned.PartitionedVariable("p", [2], "float32", [], [1])
        with pytest.raises(TypeError, match="variable_list is not a list or tuple"):
            partitioned.PartitionedVariable("p", [2], "float32", v, [1])


@pytest.mark.parametrize("full_shape,offset,shape,dim", [([10, 4], [5, 0], [5, 4], 0), ([10, 4], [0, 2], [10, 2], 1),
                                                         ([10, 4], [0, 0], [10, 4], None)])
def test_partition_info(full_shape, offset, shape, dim):
    info = partitioned.PartitionInfo(full_shape=full_shape, var_offset=offset)
    assert info.single_slice_dim(shape) == dim
    assert info.single_offset(shape) == (0 if dim is None else offset[dim])


PARTITION_INFO_ERRORS = [  # (full_shape, var_offset, query shape or None to only construct) -> TF's error kind
    (None, [0, 1], None),
    ([0, 1], None, None),
    ("foo", [0, 1], None),
    ([0, 1], "foo", None),
    ([0, 1], [0], None),
    ([1, 1], [0, 1], None),
    ([9, 3], [4, 0], "none"),
    ([9, 3], [4, 0], [1, 2, 3]),
    ([9, 3], [4, 0], [6, 3]),
    ([9, 3], [4, 0], [1, 1]),
]


@pytest.mark.parametrize("full_shape, offset, query", PARTITION_INFO_ERRORS)
def test_partition_info_errors_as_tensorflow(full_shape, offset, query):
    """variable_scope._PartitionInfo's checks: the same error kinds as TF's."""
    pytest.importorskip("tensorflow")
    from tensorflow.python.ops import variable_scope as tf_vs
    from ref.graph_ops import variable_scope as ref_vs

    def kind(mod):
        try:
            info = mod._PartitionInfo(full_shape=full_shape, var_offset=offset)
            if query is not None:
                info.single_slice_dim(None if query == "none" else query)
        except (TypeError, ValueError) as e:
            return type(e).__name__
        return None
    assert kind(ref_vs) == kind(tf_vs) is not None
