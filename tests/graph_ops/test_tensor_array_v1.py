"""tf.TensorArray with control flow v2 disabled (TF 1.x, TF's
``_GraphTensorArray``): TensorArrayV3 ops on a resource handle plus a float
flow, their gradients (``TensorArrayGradV3``) and the TF1 while loops of
``map_fn``/``scan``/``foldl``/``foldr``/``dynamic_rnn``/
``bidirectional_dynamic_rnn`` that carry the flows -- each snippet's
GraphDef node for node and its values (gradients included) against
``tensorflow.compat.v1`` with TF1 behaviour; run-time errors of TF's class
and message. The value cases of ``test_tensor_array.py`` (from TF's
tensor_array_ops_test.py) run here again in TF1 form."""
import re

import numpy as np
import pytest

import ref
from ref.graph_ops import tensor_array_ops as _under_test  # noqa: F401  (the module these tests cover)
from tests.graph_ops._graphdef import assert_same_graph, tf1_behaviour, tf_v1
from tests.graph_ops._interop import assert_same
from tests.graph_ops.test_tensor_array import CASES as V2_CASES


@pytest.fixture(autouse=True)
def _tf1_loops():
    """TF 1.x loops (the default) even after a test elsewhere enabled control
    flow v2; the previous mode restored after."""
    was = ref.control_flow_v2_enabled()
    ref.disable_control_flow_v2()
    yield
    if was:
        ref.enable_control_flow_v2()


def _x(tf):
    return tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], name="x")


def _attrs_and_colocation(tf):
    ta = tf.TensorArray(tf.float32, size=3).write(0, tf.constant([1.0, 2.0])).write(1, tf.constant([3.0, 4.0]))
    other = tf.TensorArray(tf.float32, size=2, element_shape=[2], dynamic_size=True, clear_after_read=False,
                           tensor_array_name="foo", infer_shape=False)
    other = other.split(tf.constant([1.0, 2.0, 3.0, 4.0]), [2, 2])
    nocoloc = tf.TensorArray(tf.float32, size=1, colocate_with_first_write_call=False).write(0, 1.0)
    return [ta.read(1), ta.identity().size(), other.size(), other.concat(), other.read(0), other.read(0),
            nocoloc.stack(), tf.TensorArray(tf.float32, size=2).size()]


def _grad_chain(tf):
    x = _x(tf)[:2]
    ta = tf.TensorArray(tf.float32, size=2).unstack(x)
    y = ta.read(0) * ta.read(1)
    z = tf.TensorArray(tf.float32, size=2).write(0, y).write(1, y * 2.0).stack()
    c = tf.TensorArray(tf.float32, size=2).split(tf.reshape(z, [4]) * [1.0, 2.0, 3.0, 4.0], [2, 2]).concat()
    return [z, c] + tf.gradients(c * [1.0, 2.0, 3.0, 5.0], x) + tf.gradients(z, x)


def _two_gradient_calls(tf):
    """Each tf.gradients call writes its own gradient array (``source``)."""
    x = _x(tf)
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    y = ta.read(0) * ta.read(2)
    return tf.gradients(y, x) + tf.gradients(3.0 * y, x)


def _loop(tf):
    x = _x(tf)
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)

    def body(i, acc, out):
        acc = acc * ta.read(i) + 1.0
        return i + 1, acc, out.write(i, acc)

    _, acc, out = tf.while_loop(lambda i, a, o: i < 3, body, [0, tf.ones([2]), tf.TensorArray(tf.float32, size=3)])
    y = out.stack()
    return [y, acc] + tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(acc), x)


def _map_fn(tf):
    x = _x(tf)
    y = tf.map_fn(lambda r: tf.sin(r) * 2.0, x)
    z = tf.map_fn(lambda r: (r[0] * 2.0, tf.cast(r[1], tf.int32)), (x, x), dtype=(tf.float32, tf.int32))
    return [y, z[0], z[1]] + tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(z[0]), x)


def _scan(tf):
    x = _x(tf)
    y = tf.scan(lambda a, r: a * r + 1.0, x)
    z = tf.scan(lambda a, r: a + r, x, initializer=tf.zeros([2]), reverse=True)
    return [y, z] + tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(z), x)


def _folds(tf):
    x = _x(tf)
    a = tf.foldl(lambda a, r: a * r + 1.0, x)
    b = tf.foldr(lambda a, r: a * r - 1.0, x, initializer=tf.ones([2]))
    c = tf.foldr(lambda a, r: a + r, x)
    return [a, b, c] + tf.gradients(tf.reduce_sum(a) + tf.reduce_sum(b * b) + tf.reduce_sum(c), x)


def _nested_map(tf):
    x = _x(tf)
    y = tf.map_fn(lambda r: tf.map_fn(lambda e: e * e + r[0], r), x)
    return [y] + tf.gradients(tf.reduce_sum(y), x)


def _rnn_inputs(tf):
    tf.set_random_seed(7)
    return tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 4, 3), name="inputs")


def _dynamic_rnn_lstm(tf):
    x = _rnn_inputs(tf)
    out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    loss = tf.reduce_sum(out * out) + tf.reduce_sum(st.c)
    return [out, st.c, st.h] + tf.gradients(loss, [x] + tf.trainable_variables())


def _dynamic_rnn_gru_sequence_length(tf):
    x = _rnn_inputs(tf)
    out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), x, sequence_length=tf.constant([4, 2]),
                                dtype=tf.float32, time_major=False)
    return [out, st] + tf.gradients(tf.reduce_sum(out) + tf.reduce_sum(st * st), [x] + tf.trainable_variables())


def _bidirectional(tf):
    x = _rnn_inputs(tf)
    (of, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2), x, sequence_length=tf.constant([3, 4]),
        dtype=tf.float32)
    loss = tf.reduce_sum(of) + tf.reduce_sum(ob * ob) + tf.reduce_sum(sf.h)
    return [of, ob, sb] + tf.gradients(loss, [x] + tf.trainable_variables())


def _raw_rnn(read_in_cond):
    def build(tf):
        tf.set_random_seed(3)
        inputs = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 2, 3), name="inputs")
        lengths = tf.constant([4, 2])
        inputs_ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(inputs)
        cell = tf.nn.rnn_cell.BasicLSTMCell(5) if read_in_cond else tf.nn.rnn_cell.GRUCell(5)

        def loop_fn(time, cell_output, cell_state, loop_state):
            state = cell.zero_state(2, tf.float32) if cell_output is None else cell_state
            finished = time >= lengths
            if read_in_cond:  # the tf.nn.raw_rnn docstring's loop_fn
                next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([2, 3]),
                                     lambda: inputs_ta.read(time))
            else:
                next_input = inputs_ta.read(tf.minimum(time, 3))
            counter = tf.constant(0.0) if loop_state is None else loop_state + 1.0
            return finished, next_input, state, cell_output, counter

        outputs_ta, final_state, counter = tf.nn.raw_rnn(cell, loop_fn)
        out = outputs_ta.stack()
        h = final_state.h if read_in_cond else final_state
        return [out, h, counter] + tf.gradients(tf.reduce_sum(out * out) + tf.reduce_sum(h),
                                                [inputs] + tf.trainable_variables())

    build.__name__ = "_raw_rnn_read_in_cond" if read_in_cond else "_raw_rnn"
    return build


SNIPPETS = {f.__name__.strip("_"): f for f in [
    _attrs_and_colocation, _grad_chain, _two_gradient_calls, _loop, _map_fn, _scan, _folds, _nested_map,
    _dynamic_rnn_lstm, _dynamic_rnn_gru_sequence_length, _bidirectional, _raw_rnn(False), _raw_rnn(True)]}
ALL = {**SNIPPETS, **{f"v2case_{k}": v for k, v in V2_CASES.items()}}


def run(lib, build):
    """``build(lib)`` in a fresh graph, its variables initialized: the fetched
    values, or the error the run raised."""
    with lib.Graph().as_default(), lib.Session() as sess:
        fetches = build(lib)
        sess.run(lib.global_variables_initializer())
        try:
            return sess.run(fetches)
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            return e


def _tf_run(build):
    with tf1_behaviour():
        return run(tf_v1(), build)


@pytest.mark.parametrize("case", sorted(ALL))
def test_graph_def_matches_tensorflow(case):
    assert_same_graph(ALL[case])


@pytest.mark.parametrize("case", sorted(ALL))
def test_values_match_tensorflow(case):
    """Values, or (the TF2 cases reading an element twice) the same error."""
    assert_same_outcome(run(ref, ALL[case]), _tf_run(ALL[case]))


def test_arrays_are_tensor_array_v3_with_float_flows():
    with ref.Graph().as_default() as g:
        ta = ref.TensorArray(ref.float32, size=2).write(0, 1.0)
        assert ta.flow.dtype == ref.float32 and ta.handle.dtype == ref.resource
        assert {op.type for op in g.get_operations()} >= {"TensorArrayV3", "TensorArrayWriteV3"}
    ref.enable_control_flow_v2()
    with ref.Graph().as_default():
        assert ref.TensorArray(ref.float32, size=2).flow.dtype == ref.variant  # TensorLists with v2 on, as TF


def _ta(tf, size=3, **kw):
    return tf.TensorArray(dtype=kw.pop("dtype", tf.float32), size=size, **kw)


def _vec(tf):
    return tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=None)


def _read_after_close(tf):
    ta = _ta(tf).write(0, 1.0)
    with tf.control_dependencies([ta.close()]):
        return ta.read(0)


# Run-time errors (tensor_array.h's rules): the same class and message as TF
# (the array's run-time name, which holds a process-wide counter, aside).
ERRORS = {
    "read_unwritten_unknown_shape": lambda tf: _ta(tf, infer_shape=False).write(0, [1.0]).read(1),
    "read_twice_cleared": lambda tf: tf.tuple([(lambda t: t.read(0) + t.read(0))(_ta(tf).write(0, 1.0))])[0],
    "write_twice": lambda tf: _ta(tf).write(0, 1.0).write(0, 2.0).read(0),
    "write_past_end": lambda tf: _ta(tf).write(3, 1.0).read(0),
    "write_negative": lambda tf: _ta(tf).write(-1, 1.0).read(0),
    "read_past_end": lambda tf: _ta(tf).write(0, 1.0).read(3),
    "write_after_read": lambda tf: (lambda t: t.write(0, 2.0 + t.read(0)).read(1))(
        _ta(tf, clear_after_read=False).write(0, 1.0).write(1, 1.0)),
    "split_size_mismatch": lambda tf: _ta(tf).split([1.0, 2.0, 3.0], [1, 2]).read(0),
    "split_lengths_sum": lambda tf: _ta(tf).split([1.0, 2.0, 3.0], [1, 1, 2]).read(0),
    "scatter_out_of_range": lambda tf: _ta(tf).scatter([0, 3], tf.constant([1.0, 2.0])).read(0),
    "scatter_length_mismatch": lambda tf: _ta(tf).scatter(tf.placeholder_with_default([0, 1, 2], None),
                                                          tf.constant([1.0, 2.0])).read(0),
    "stack_empty_unknown": lambda tf: _ta(tf, 0).stack(),
    "concat_empty_unknown": lambda tf: _ta(tf, 0).concat(),
    "concat_scalars": lambda tf: _ta(tf, 2, infer_shape=False).write(0, 3.0).write(1, 4.0).concat(),
    "stack_inconsistent": lambda tf: _ta(tf, 2, infer_shape=False).write(0, [3.0]).write(1, [4.0, 5.0]).stack(),
    "write_inconsistent_shape": lambda tf: _ta(tf, 2).write(0, _vec(tf)).write(1, [[4.0, 5.0]]).stack(),
    "read_after_close": lambda tf: _read_after_close(tf),
    "dynamic_stack_unwritten_unknown": lambda tf: _ta(tf, 0, dynamic_size=True, infer_shape=False)
    .write(2, [1.0]).stack(),
}


def _normalized(line):
    """A message line without what depends on the run: the array's run-time
    name (a process-wide counter) and, for a cleared element, which of two
    unordered reads came second (its index)."""
    line = re.sub(r"TensorArray (\S+?)(:| has)", r"TensorArray <name>\2", line.strip())
    return re.sub(r"Could not read index \d+ twice", "Could not read index <i> twice", line)


def assert_same_outcome(got, want):
    """Equal values, or errors of one class whose messages agree: ref's (its
    first line) is a line of TF's (which TF wraps in "Graph execution error")."""
    if isinstance(want, Exception):
        assert isinstance(got, ref.errors.OpError), f"TF raised {want!r}; ref returned {got}"
        assert type(got).__name__ == type(want).__name__, (got, want)
        assert _normalized(got.message.splitlines()[0]) in {_normalized(x) for x in want.message.splitlines()}, \
            (got.message, want.message)
        return
    assert_same(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_runtime_errors_match_tensorflow(case):
    want = _tf_run(ERRORS[case])
    assert isinstance(want, tf_v1().errors.OpError), want
    assert_same_outcome(run(ref, ERRORS[case]), want)


def test_unwritten_elements_read_as_zeros_when_the_shape_is_known():
    """tensor_array.h: an unwritten element of a fully defined shape reads as zeros."""
    def build(tf):
        return [_ta(tf, 3, element_shape=[2]).read(1), _ta(tf, 3, element_shape=[2]).write(0, [1.0, 2.0]).stack()]

    got = run(ref, build)
    np.testing.assert_array_equal(got[0], np.zeros(2, np.float32))
    np.testing.assert_array_equal(got[1], np.array([[1.0, 2.0], [0, 0], [0, 0]], np.float32))
    assert_same(got, _tf_run(build))


def test_scatter_length_mismatch_raises_at_construction():
    """TF's shape function merges ``value``'s first dimension with ``indices``'."""
    for lib, ctx in ((tf_v1(), tf1_behaviour), (ref, None)):
        with (ctx() if ctx else ref.Graph().as_default()), lib.Graph().as_default():
            with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
                _ta(lib).scatter([0, 1, 2], lib.constant([1.0, 2.0]))
