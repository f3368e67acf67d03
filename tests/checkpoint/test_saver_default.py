"""``saver._get_saver_or_default`` (ref.checkpoint.saver.get_saver_or_default) against
TF's: the graph's SAVERS entry, a new sharded Saver added once, RuntimeError for two."""
import pytest

from ref.checkpoint import saver as ref_saver
import ref


def _play(lib, saver_module, extra_savers):
    out = []
    with lib.Graph().as_default() as g:
        lib.Variable(1.0, name="v")
        for _ in range(extra_savers):
            g.add_to_collection(lib.GraphKeys.SAVERS, saver_module.Saver())
        try:
            first = saver_module._get_saver_or_default()
            second = saver_module._get_saver_or_default()
        except RuntimeError as e:
            return ["RuntimeError", "More than one item" in str(e)]
        out += [first is second, len(g.get_collection(lib.GraphKeys.SAVERS)), first.saver_def.sharded]
    return out


@pytest.mark.parametrize("extra_savers", [0, 1, 2])
def test_matches_tf(extra_savers):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.training import saver as tf_saver
    assert _play(ref, ref_saver, extra_savers) == _play(tf.compat.v1, tf_saver, extra_savers)
