"""``tf.GradientTape`` in graph mode (``ref/grad/tape.py``) against TensorFlow's own tape
in a TF1 graph: which sources get a gradient (watched tensors, accessed trainable
variables, nothing through operations built before the tape or in ``stop_recording``),
the values, nested sources and output gradients, ``UnconnectedGradients.ZERO``,
persistence. One row per case; each builds the same program with ``lib``."""
import numpy as np
import pytest

from ref.grad import tape as _under_test  # noqa: F401
import ref


def watched_constant(lib):
    x = lib.constant([1.0, 2.0])
    with lib.GradientTape() as t:
        t.watch(x)
        y = x * x
    return t.gradient(y, x)


def unwatched_constant(lib):
    x = lib.constant([1.0, 2.0])
    with lib.GradientTape() as t:
        y = x * x
    return [t.gradient(y, x)]


def resource_variable_accessed(lib):
    v = lib.Variable([3.0, -1.0], use_resource=True)
    with lib.GradientTape() as t:
        y = lib.reduce_sum(v * v)
    return t.gradient(y, v)


def variable_not_auto_watched(lib):
    v = lib.Variable([3.0, -1.0], use_resource=True)
    with lib.GradientTape(watch_accessed_variables=False) as t:
        y = lib.reduce_sum(v * v)
    return [t.gradient(y, v)]


def non_trainable_variable(lib):
    v = lib.Variable([3.0, -1.0], use_resource=True, trainable=False)
    with lib.GradientTape() as t:
        y = lib.reduce_sum(v * v)
    return [t.gradient(y, v)]


def intermediate_before_tape(lib):
    x = lib.constant(2.0)
    z = x * 3.0
    with lib.GradientTape() as t:
        t.watch(x)
        y = z * x
    return t.gradient(y, x)  # only the recorded product: d(z * x)/dx with z held


def stop_recording(lib):
    x = lib.constant(2.0)
    with lib.GradientTape() as t:
        t.watch(x)
        with t.stop_recording():
            z = x * 5.0
        y = x * x + z
    return t.gradient(y, x)


def nested_sources_and_output_gradients(lib):
    a, b = lib.constant([1.0, 2.0]), lib.constant(3.0)
    with lib.GradientTape() as t:
        t.watch([a, b])
        y1, y2 = a * b, b * b
    g = t.gradient({"p": y1, "q": [y2]}, {"a": a, "b": (b,)},
                   output_gradients={"p": lib.constant([1.0, 10.0]), "q": [lib.constant(2.0)]})
    return [g["a"], g["b"][0]]


def unconnected_zero(lib):
    x, w = lib.constant([1.0, 2.0]), lib.constant(4.0)
    with lib.GradientTape() as t:
        t.watch([x, w])
        y = x * 2.0
    return t.gradient(y, [x, w], unconnected_gradients="zero")


def persistent_twice(lib):
    x = lib.constant(3.0)
    with lib.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * x
    return [t.gradient(y, x), t.gradient(z, x)]


ROWS = [watched_constant, unwatched_constant, resource_variable_accessed,
        variable_not_auto_watched, non_trainable_variable, intermediate_before_tape, stop_recording,
        nested_sources_and_output_gradients, unconnected_zero, persistent_twice]


def _run(lib, f):
    with lib.Graph().as_default():
        out = f(lib)
        out = out if isinstance(out, list) else [out]
        nones = [g is None for g in out]
        with lib.Session() as s:
            s.run(lib.global_variables_initializer())
            return nones, s.run([g for g in out if g is not None])


@pytest.mark.parametrize("f", ROWS, ids=[f.__name__ for f in ROWS])
def test_matches_tf(f):
    tf = pytest.importorskip("tensorflow").compat.v1
    want_nones, want = _run(tf, f)
    got_nones, got = _run(ref, f)
    assert got_nones == want_nones
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("lib_name", ["tf", "ref"])
def test_non_persistent_second_gradient_raises(lib_name):
    lib = pytest.importorskip("tensorflow").compat.v1 if lib_name == "tf" else ref
    with lib.Graph().as_default():
        x = lib.constant(1.0)
        with lib.GradientTape() as t:
            t.watch(x)
            y = x * x
        t.gradient(y, x)
        with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
            t.gradient(y, x)
