"""convert_to_tensor packs nested lists holding Variables (as TF's autopacking)."""
import pytest

import ref.framework  # noqa: F401  (the package these tests cover)
import ref

CASES = [
    ("matrix", lambda tf, v: [[0.0, v, 0.0], [1.0, 2.0, 3.0]]),
    ("vector", lambda tf, v: [v, 2.0]),
    ("tensor_and_var", lambda tf, v: [v, tf.constant(3.0)]),
    ("deep", lambda tf, v: [[[v]], [[4.0]]]),
]


@pytest.mark.parametrize("case,build", CASES, ids=[c[0] for c in CASES])
def test_lists_with_variables_pack_like_tf(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            v = lib.Variable(7.0, use_resource=False)
            t = lib.convert_to_tensor(build(lib, v))
            with lib.Session() as s:
                s.run(v.initializer)
                out.append((t.dtype.name, t.shape.as_list(), s.run(t).tolist()))
    assert out[0] == out[1]
