"""tf.nn.relu_layer, tf.math.polyval, tf.parallel_stack, tf.timestamp and the
TF names that alias existing builders (tf.manip, tf.random's candidate
samplers, tf.io, tf.layers' 1-D pooling classes, tf.test's build flags and
assert_equal_graph_def) against TF 2.21 (tf.compat.v1, TF1 behaviour)."""
import time

import numpy as np
import pytest

from ref.graph_ops import misc_builders  # noqa: F401  (the builders under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_RNG = np.random.default_rng(3)
_X, _W, _B = (_RNG.standard_normal(s).astype(np.float32) for s in ((4, 3), (3, 2), (2,)))


def builders(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    outs = [tf.nn.relu_layer(x, _W, _B), tf.math.polyval([1.0, -2.0, 0.5], x), tf.math.polyval([], x),
            tf.math.polyval([3.0], x), tf.parallel_stack([x[0], x[1] * 2, x[2]]),
            tf.layers.MaxPooling1D(2, 1)(tf.expand_dims(x, -1)), tf.layers.AveragePooling1D(2, 2)(
                tf.expand_dims(x, -1)), tf.manip.roll(x, 1, 0)]
    return outs, {x: _X}


def test_graph_def_is_tensorflows():
    assert_same_graph(graph_only(builders))


def test_values_are_tensorflows():
    import ref
    got, want = fed_values(ref, builders), fed_values(tf_v1(), builders)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_timestamp_is_now_in_seconds_as_float64():
    import ref
    for lib in (ref, tf_v1()):
        before = time.time()
        (ts,) = fed_values(lib, lambda t: ([t.timestamp()], {}))
        assert np.asarray(ts).dtype == np.float64 and before - 1 <= ts <= time.time() + 1


@pytest.mark.parametrize("path", [
    "manip.roll", "manip.space_to_batch_nd", "manip.scatter_nd", "random.log_uniform_candidate_sampler",
    "random.fixed_unigram_candidate_sampler", "random.all_candidate_sampler", "io.match_filenames_once",
    "io.write_graph", "layers.InputSpec", "nn.depthwise_conv2d_backprop_filter", "nn.depthwise_conv2d_backprop_input",
    "encode_base64", "decode_base64", "test.is_built_with_rocm", "test.assert_equal_graph_def"])
def test_the_names_resolve_as_in_tf(path):
    import ref

    def resolve(lib):
        obj = lib
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    assert callable(resolve(ref)) and callable(resolve(tf_v1()))


def test_build_flags_answer_as_tf():
    """Build flags, not hardware: TF's wheel says CUDA whether or not a GPU is here. ref has no XLA."""
    import ref
    tf = tf_v1()
    for flag in ("is_built_with_cuda", "is_built_with_gpu_support", "is_built_with_rocm"):
        assert getattr(ref.test, flag)() == getattr(tf.test, flag)()
    assert ref.test.is_built_with_xla() is False


def test_assert_equal_graph_def_as_tf():
    import ref
    tf = tf_v1()

    def graphs(lib, third):
        defs = []
        for names in (("a", "b"), ("b", "a")):
            with lib.Graph().as_default() as g:
                for n in names:
                    lib.constant({"a": 1.0, "b": 2.0}[n], name=n)
            defs.append(g.as_graph_def())
        with lib.Graph().as_default() as g:
            lib.constant(1.0, name="a")
            lib.constant(third, name="b")
        return defs + [g.as_graph_def()]

    for lib in (ref, tf):
        same, reordered, different = graphs(lib, 3.0)
        lib.test.assert_equal_graph_def(same, reordered)
        with pytest.raises(AssertionError):
            lib.test.assert_equal_graph_def(same, different)
