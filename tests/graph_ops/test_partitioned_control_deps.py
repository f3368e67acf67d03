"""Reading a PartitionedVariable under ``control_dependencies`` (lead's note:
"a PartitionedVariable.assign under control_dependencies read through
convert_to_tensor gave stale values"). TF's own semantics: ``as_tensor`` (and
so ``convert_to_tensor`` and every op taking the variable) reads the parts
*outside* the surrounding control dependencies, like reading a variable
(TF's partitioned_variables_test testControlDepsNone), while ``_concat`` and
the parts' own reads take them. So a read through ``convert_to_tensor`` after
an assign in the same ``control_dependencies`` block is not ordered after the
assign in TF either. Each row builds one read under
``control_dependencies(v.assign(...))`` in ref and in TF 2.21 (compat.v1,
TF1 behaviour) and compares, per new op, its type and the types of its
control inputs -- and the fetched value where TF's is deterministic (the read
is ordered after the assign)."""
import numpy as np
import pytest

from ref.graph_ops import partitioned as _under_test  # noqa: F401
import ref
from _graphdef import tf1_behaviour, tf_v1

READS = {
    "convert_to_tensor": (lambda tf, v: tf.convert_to_tensor(v), False),
    "identity": (lambda tf, v: tf.identity(v), False),
    "as_tensor": (lambda tf, v: v.as_tensor(), False),
    "matmul": (lambda tf, v: tf.matmul(v, tf.ones([2, 1])), False),
    "concat": (lambda tf, v: v._concat(), True),
    "parts_read_value": (lambda tf, v: tf.concat([p.read_value() for p in v], 0), True),
    "parts_identity": (lambda tf, v: tf.concat([tf.identity(p) for p in v], 0), True),
    "parts_value": (lambda tf, v: tf.concat([p.value() for p in v], 0), True),
}

# Resource variables: an update returns TF's _UnreadVariable, whose op (for
# control_dependencies) is the update itself, not a read.
ROWS = [(r, res) for r in READS for res in (False, True)]


def _build(tf, read, use_resource):
    build, ordered = READS[read]
    with tf.Graph().as_default() as g:
        v = tf.get_variable("v", [4, 2], initializer=tf.zeros_initializer(),
                            partitioner=tf.fixed_size_partitioner(2), use_resource=use_resource)
        assigns = v.assign(np.arange(8, dtype=np.float32).reshape(4, 2))
        before = len(g.get_operations())
        with tf.control_dependencies(assigns):
            out = build(tf, v)
        ops = [(op.type, sorted(c.type for c in op.control_inputs)) for op in g.get_operations()[before:]]
        if not ordered:
            return ops, None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return ops, sess.run(out).tolist()


@pytest.mark.parametrize("read,use_resource", ROWS)
def test_read_under_assign_dependencies_as_tf(read, use_resource):
    tf = tf_v1()
    with tf1_behaviour():
        want = _build(tf, read, use_resource)
    assert _build(ref, read, use_resource) == want
