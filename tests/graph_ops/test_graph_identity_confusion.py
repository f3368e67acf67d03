"""``tf.confusion_matrix`` guards its inputs with check_ops' ``assert_non_negative``
and ``assert_less`` (``with_dependencies``) and casts the shape last, and
``tf.metrics.mean_iou`` takes the diagonal with ``DiagPart``, as TF builds
them: GraphDef identical, values equal, the run-time failures TF's."""
import numpy as np
import pytest

import ref
from ref.graph_ops import confusion_matrix as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1

LABELS = np.array([0, 1, 2, 2, 1, 0, 3])
PREDS = np.array([0, 2, 2, 1, 1, 0, 3])
WEIGHTS = np.linspace(0.5, 2.0, 7).astype(np.float32)

SNIPPETS = {
    "confusion_matrix": lambda t: t.confusion_matrix(t.constant(LABELS), t.constant(PREDS)),
    "confusion_matrix_num_classes": lambda t: t.math.confusion_matrix(t.constant(LABELS), t.constant(PREDS), 5),
    "confusion_matrix_weights": lambda t: t.confusion_matrix(t.constant(LABELS), t.constant(PREDS), 4,
                                                             weights=t.constant(WEIGHTS), dtype=t.float32),
    "mean_iou": lambda t: list(t.metrics.mean_iou(t.constant(LABELS), t.constant(PREDS), 4)),
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_graph_def(name):
    assert_same_graph(SNIPPETS[name])


def _values(t, name):
    with t.Graph().as_default():
        out = SNIPPETS[name](t)
        with t.Session() as s:
            s.run([t.global_variables_initializer(), t.local_variables_initializer()])
            if isinstance(out, list):
                s.run(out[1])
                return s.run(out[0])
            return s.run(out)


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_values(name):
    got = _values(ref, name)
    with tf1_behaviour():
        want = _values(tf_v1(), name)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("labels, preds, message", [
    ([0, -1], [0, 1], "`labels` contains negative values"),
    ([0, 1], [4, 1], "`predictions` out of bound"),
])
def test_bad_classes_fail_at_run_time(labels, preds, message):
    with ref.Graph().as_default():
        lab, pred = ref.placeholder(ref.int32, [None]), ref.placeholder(ref.int32, [None])
        cm = ref.confusion_matrix(lab, pred, 3)
        with ref.Session() as s, pytest.raises(ref.errors.InvalidArgumentError, match=message):
            s.run(cm, {lab: labels, pred: preds})
