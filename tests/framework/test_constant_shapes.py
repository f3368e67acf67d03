"""TF1's constant/make_tensor_proto shape rules (pad with the last value, too many
values, verify_shape, allow_broadcast) against TF, and the class "no large
constant is materialised while the graph is built"."""
import resource

import numpy as np
import pytest

import ref.framework  # noqa: F401  (the package these tests cover)
import ref

CASES = [
    ("exact", [1, 2, 3, 4], [2, 2], {}),
    ("scalar_fill", 5, [2, 3], {}),
    ("pad_last", [1, 2], [2, 3], {}),
    ("too_many", [1, 2, 3, 4], [3], {}),
    ("verify_bad", [1, 2], [2, 2], dict(verify_shape=True)),
    ("verify_scalar", 5, [2, 2], dict(verify_shape=True)),
    ("float_into_int", [1.5], None, dict(dtype="int32")),
    ("broadcast_scalar", 7, [2, 2], dict(allow_broadcast=True)),
    ("broadcast_bad", [1, 2], [2, 2], dict(allow_broadcast=True)),
    ("both_flags", 1, [1], dict(allow_broadcast=True, verify_shape=True)),
]


def _proto(lib, values, shape, kw):
    try:
        return lib.make_ndarray(lib.make_tensor_proto(values, shape=shape, **kw)).tolist()
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("case,values,shape,kw", CASES, ids=[c[0] for c in CASES])
def test_make_tensor_proto(case, values, shape, kw):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _proto(ref, values, shape, kw) == _proto(tf, values, shape, kw)


def _const(lib, values, shape, kw):
    kw = {k: v for k, v in kw.items() if k in ("verify_shape", "dtype")}
    with lib.Graph().as_default():
        try:
            t = lib.constant(values, shape=shape, **kw)
        except (TypeError, ValueError) as e:
            return type(e).__name__
        with lib.Session() as s:
            return s.run(t).tolist()


@pytest.mark.parametrize("case,values,shape,kw", CASES[:6], ids=[c[0] for c in CASES[:6]])
def test_constant_shape_rules(case, values, shape, kw):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _const(ref, values, shape, kw) == _const(tf, values, shape, kw)


@pytest.mark.parametrize("values", [[1.0, 2.0], [[1.0], [2.0], [3.0]], 4.0])
def test_constant_initializer_pads_like_tf(values):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            with lib.Session() as s:
                out.append(s.run(lib.constant_initializer(values)([2, 2])).tolist())
    assert out[0] == out[1]


_BIG = [2 ** 33, 1]  # 32 GiB of float32
BUILDERS = [
    ("zeros", lambda: ref.zeros(_BIG)),
    ("ones", lambda: ref.ones(_BIG)),
    ("fill", lambda: ref.fill(_BIG, 1.0)),
    ("constant_broadcast", lambda: ref.constant(0.0, shape=_BIG)),
    ("zeros_like", lambda: ref.zeros_like(ref.placeholder(ref.float32, _BIG))),
    ("ones_like", lambda: ref.ones_like(ref.placeholder(ref.float32, _BIG))),
    ("zeros_plus_one", lambda: ref.zeros(_BIG) + 1.0),
    ("cast_of_fill", lambda: ref.cast(ref.ones(_BIG), ref.float64) * 2.0),
    ("zeros_initializer", lambda: ref.get_variable("v", _BIG, initializer=ref.zeros_initializer())),
    ("constant_initializer", lambda: ref.get_variable("c", _BIG, initializer=ref.constant_initializer(3.0))),
    ("variable_of_zeros", lambda: ref.Variable(ref.zeros(_BIG))),
]


@pytest.mark.parametrize("case,build", BUILDERS, ids=[b[0] for b in BUILDERS])
def test_no_large_constant_at_graph_construction(case, build):
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (8 * 2 ** 30, hard))  # far below 32 GiB
    try:
        with ref.Graph().as_default():
            out = build()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    shape = out.get_shape() if hasattr(out, "get_shape") else out.shape
    assert shape.as_list() == [d for d in _BIG[:len(shape.as_list())]]


# Static shapes TF's shape refiner infers by evaluating small constant subgraphs
# (comparisons and selects folded too: linspace's axis is a SelectV2 of constants).
def _ph_int(tf):
    return tf.placeholder(tf.int32, [])


STATIC_SHAPE_ROWS = [
    ("linspace", lambda tf: tf.linspace(1.0, 5.0, 4)),
    ("linspace_one", lambda tf: tf.linspace(1.0, 5.0, 1)),
    ("linspace_axis1", lambda tf: tf.linspace([0.0, 1.0], [2.0, 5.0], 3, axis=1)),
    ("linspace_axis_neg", lambda tf: tf.linspace([[0.0], [1.0]], [[2.0], [5.0]], 3, axis=-1)),
    ("linspace_fed_num", lambda tf: tf.linspace(1.0, 5.0, _ph_int(tf))),
    ("slice_select_size", lambda tf: tf.slice(tf.zeros([5, 4]), [0, 0],
                                              tf.where_v2(tf.constant([True, False]), [2, 2], [-1, 3]))),
    ("slice_compare_size", lambda tf: tf.slice(tf.zeros([5, 4]), [0, 0],
                                               tf.cast(tf.greater_equal([3, 1], 2), tf.int32) + 1)),
]


@pytest.mark.parametrize("case,build", STATIC_SHAPE_ROWS, ids=[r[0] for r in STATIC_SHAPE_ROWS])
def test_static_shapes_as_tf(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    shapes = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            shapes.append(build(lib).shape.as_list())
    assert shapes[1] == shapes[0]
