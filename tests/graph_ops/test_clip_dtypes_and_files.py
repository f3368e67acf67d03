"""clip_by_* keep their input dtypes (float16, bfloat16, float32, float64) as
TF computes them; tf.train.match_filenames_once and tf.matching_files."""
import numpy as np
import pytest

import ref
from tests.graph_ops._interop import compare
from ref.graph_ops import clip_ops as _under_test  # noqa: F401  (the module these tests cover)

DTYPES = ["float16", "bfloat16", "float32", "float64"]


def _ab(tf, dt):
    d = getattr(tf, dt)
    return tf.cast(tf.constant([[3., 4.], [1., 2.]]), d), tf.cast(tf.constant([5., 12.]), d)


CLIPS = {
    "clip_by_global_norm": lambda tf, a, b: tf.clip_by_global_norm([a, b], 2.0),
    "clip_by_global_norm_use_norm": lambda tf, a, b: tf.clip_by_global_norm([a, None, b], 2.0,
                                                                            use_norm=tf.global_norm([a, b])),
    "global_norm": lambda tf, a, b: tf.global_norm([a, b]),
    "clip_by_norm": lambda tf, a, b: tf.clip_by_norm(a, 2.0),
    "clip_by_norm_axes": lambda tf, a, b: tf.clip_by_norm(a, 1.0, axes=[1]),
    "clip_by_value": lambda tf, a, b: tf.clip_by_value(a, 1.5, 3.5),
}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("clip", sorted(CLIPS))
def test_clip_dtype_and_value_match_tensorflow(clip, dt):
    def build(tf):
        a, b = _ab(tf, dt)
        out = CLIPS[clip](tf, a, b)
        return [x for x in (out if isinstance(out, (list, tuple)) else [out])]
    compare(build, rtol=1e-2 if dt in ("float16", "bfloat16") else 1e-6)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float64"])
def test_clip_by_average_norm_keeps_dtype(dt):
    """TF fails here (a float32 constant meets the input's dtype); ref keeps
    the input's dtype and TF's float32 value (see TF_NOTES)."""
    with ref.Graph().as_default(), ref.Session() as s:
        a, _ = _ab(ref, dt)
        got = s.run(ref.clip_by_average_norm(a, 1.0))
    assert got.dtype == getattr(ref, dt).as_numpy_dtype
    want = np.array([[3., 4.], [1., 2.]]) * 4 / np.sqrt(30.0)  # t * clip_norm * n / l2norm(t) with n = 4
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-2)


@pytest.fixture
def files(tmp_path):
    for n in ["b.txt", "a.txt", "c.csv"]:
        (tmp_path / n).write_text("")
    return tmp_path


def test_match_filenames_once(files):
    tf = ref
    with tf.Graph().as_default(), tf.Session() as s:
        v = tf.train.match_filenames_once(str(files / "*.txt"))
        w = tf.train.match_filenames_once([str(files / "*.csv"), str(files / "a*")])
        e = tf.train.match_filenames_once(str(files / "*.zzz"))
        assert v.name == "matching_filenames:0" and v.initial_value.op.type == "MatchingFiles"
        assert tf.local_variables() == [v, w, e] and tf.trainable_variables() == []
        with pytest.raises(tf.errors.FailedPreconditionError):
            s.run(v)
        s.run(tf.local_variables_initializer())
        got = s.run([v, w, e])
    assert got[0].tolist() == [str(files / "a.txt").encode(), str(files / "b.txt").encode()]
    assert got[1].tolist() == [str(files / "a.txt").encode(), str(files / "c.csv").encode()]
    assert got[2].tolist() == []


def test_matching_files_matches_tensorflow(files):
    compare(lambda tf: [tf.matching_files(str(files / "*.txt")),
                        tf.matching_files([str(files / "*.csv"), str(files / "*.txt")]),
                        tf.matching_files(str(files / "nothing*"))])
