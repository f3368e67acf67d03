"""The namedtuple an op of several outputs returns: TF's generated wrappers' type
name and fields (a namespaced op ``Namespace>Op`` names it ``Namespace_Op``)."""
import pytest

from ref.framework import op_def_library
from ref.framework.op_def_library import _output_tuple

ROWS = [  # (op type, output names, TF's wrapper module, wrapper name, its arguments)
    ("Namespace>TestStringOutput", ["output1", "output2"], "tensorflow.python.framework.test_ops",
     "namespace_test_string_output", lambda tf: [tf.constant(1.0)]),
    ("TestStringOutput", ["output1", "output2"], "tensorflow.python.framework.test_ops",
     "test_string_output", lambda tf: [tf.constant(1.0)]),
    ("TopKV2", ["values", "indices"], "tensorflow.python.ops.gen_nn_ops", "top_kv2",
     lambda tf: [tf.constant([1.0, 2.0]), 1]),
]


@pytest.mark.parametrize("op_type,names,module,wrapper,args", ROWS, ids=[r[0] for r in ROWS])
def test_output_tuple_as_tf(op_type, names, module, wrapper, args):
    tf = pytest.importorskip("tensorflow").compat.v1
    import importlib
    with tf.Graph().as_default():
        theirs = getattr(importlib.import_module(module), wrapper)(*args(tf))
    ours = _output_tuple(op_type, names)
    assert ours.__name__ == type(theirs).__name__ and ours._fields == theirs._fields
    assert op_def_library._OUTPUT_TUPLES[op_type] is ours
