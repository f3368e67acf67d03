"""List inputs sharing one length attr (``DynamicStitch``'s ``indices``/``data`` under ``N``) of
different lengths: TF's generated wrapper raises ValueError naming itself (the op type in snake
case) and both arguments; a table of ops, ref against TF."""
import pytest

from ref.framework import op_def_library as _under_test  # noqa: F401

CASES = [  # (builder(tf), message)
    (lambda tf: tf.dynamic_stitch([[0, 1], [2]], [[1.0, 2.0]]),
     "List argument 'data' to 'dynamic_stitch' Op with length 1 must match length 2 of argument 'indices'."),
    (lambda tf: tf.raw_ops.ParallelDynamicStitch(indices=[[0, 1], [2]], data=[[1.0, 2.0]]),
     "List argument 'data' to 'parallel_dynamic_stitch' Op with length 1 must match length 2 of argument 'indices'."),
    (lambda tf: tf.dynamic_stitch([[0]], [[1.0], [2.0], [3.0]]),
     "List argument 'data' to 'dynamic_stitch' Op with length 3 must match length 1 of argument 'indices'."),
]


@pytest.mark.parametrize("build,message", CASES)
def test_mismatched_list_lengths_as_tf(build, message):
    import re
    import ref
    libs = [ref.compat.v1]
    try:
        libs.append(pytest.importorskip("tensorflow").compat.v1)
    except pytest.skip.Exception:
        pass
    for tf in libs:
        raw = tf.raw_ops if tf is not ref.compat.v1 else _RefRaw()
        with tf.Graph().as_default(), pytest.raises(ValueError, match=re.escape(message)):
            build(_With(tf, raw))


class _RefRaw:
    """ref's raw ops run eagerly; in a graph the op is added through ``apply_op``."""

    def __getattr__(self, op_type):
        return lambda **kw: _under_test.apply_op(op_type, **kw)


class _With:
    def __init__(self, tf, raw):
        self._tf, self.raw_ops = tf, raw

    def __getattr__(self, name):
        return getattr(self._tf, name)


@pytest.mark.parametrize("op_type,snake", [("DynamicStitch", "dynamic_stitch"), ("BatchMatMulV2", "batch_mat_mul_v2"),
                                           ("Conv2DBackpropInput", "conv2d_backprop_input"), ("LRNGrad", "lrn_grad"),
                                           ("MatMul", "mat_mul")])
def test_wrapper_names_as_tf(op_type, snake):
    assert _under_test._snake(op_type) == snake
    try:
        from tensorflow.python.ops import gen_array_ops, gen_math_ops, gen_nn_ops, gen_data_flow_ops
    except ImportError:
        return
    assert any(hasattr(m, snake) for m in (gen_array_ops, gen_math_ops, gen_nn_ops, gen_data_flow_ops))
