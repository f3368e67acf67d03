"""Variable lists given as dict views, tuples or lists (issue 26):
``opt.minimize(loss, var_list=params.values())`` works in TF, whose optimizers
flatten ``var_list`` with ``nest`` (a dict view is nested there). One row per
API taking variables; each row states TF's outcome (``None``: accepted, else
the exception class), checked against TF itself where it is installed.
"""
from __future__ import annotations

import numpy as np
import pytest

import ref.optimizers  # noqa: F401  (the package these tests cover)
import ref


def _params(tf):
    return {"w": tf.Variable(1.5, name="w"), "b": tf.Variable(-2.0, name="b")}


def _loss(params):
    return params["w"] * params["w"] * params["b"]


def _views(params):
    return {"values": params.values(), "tuple": tuple(params.values()), "list": list(params.values())}


# (api, form of the variables, build(tf, params, vars), TF's outcome)
ROWS = []
for form in ("values", "tuple", "list"):
    ROWS += [
        ("minimize", form, lambda tf, p, v: tf.train.GradientDescentOptimizer(0.1).minimize(_loss(p), var_list=v),
         None),
        ("compute_gradients", form,
         lambda tf, p, v: tf.train.AdamOptimizer(0.1).compute_gradients(_loss(p), var_list=v), None),
        ("variables_initializer", form, lambda tf, p, v: tf.variables_initializer(v), None),
        ("report_uninitialized_variables", form, lambda tf, p, v: tf.report_uninitialized_variables(v), None),
        ("gradients_ys", form, lambda tf, p, v: tf.gradients({"l": _loss(p)}.values(), list(p.values())), None),
    ]
ROWS += [
    # TF's Saver takes a dict or a list/tuple only; its gradients' xs and hessians' xs are not flattened.
    ("Saver", "values", lambda tf, p, v: tf.train.Saver(v), TypeError),
    ("Saver", "tuple", lambda tf, p, v: tf.train.Saver(v), None),
    ("Saver", "list", lambda tf, p, v: tf.train.Saver(v), None),
    ("gradients_xs", "values", lambda tf, p, v: tf.gradients(_loss(p), v), TypeError),
    ("gradients_xs", "tuple", lambda tf, p, v: tf.gradients(_loss(p), v), None),
    ("hessians", "values", lambda tf, p, v: tf.hessians(_loss(p), v), TypeError),
]
IDS = [f"{r[0]}-{r[1]}" for r in ROWS]


def _outcome(tf, build, form):
    params = _params(tf)
    try:
        build(tf, params, _views(params)[form])
    except Exception as e:  # noqa: BLE001 - the outcome is the class
        return type(e)
    return None


@pytest.mark.parametrize("api,form,build,tf_outcome", ROWS, ids=IDS)
def test_ref_accepts_what_tf_accepts(api, form, build, tf_outcome):
    with ref.Graph().as_default():
        got = _outcome(ref, build, form)
    assert got is tf_outcome or (tf_outcome is not None and got is not None and issubclass(got, tf_outcome))


@pytest.mark.parametrize("api,form,build,tf_outcome", ROWS, ids=IDS)
def test_rows_state_tf_outcome(api, form, build, tf_outcome):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        assert _outcome(tf, build, form) is tf_outcome


def test_minimize_over_dict_values_updates_every_variable():
    """One step of SGD on w*w*b over ``params.values()``: w -= 0.1*2wb, b -= 0.1*w*w."""
    with ref.Graph().as_default():
        params = _params(ref)
        train = ref.train.GradientDescentOptimizer(0.1).minimize(_loss(params), var_list=params.values())
        with ref.Session() as sess:
            sess.run(ref.global_variables_initializer())
            sess.run(train)
            w, b = sess.run([params["w"], params["b"]])
    w0, b0 = np.float32(1.5), np.float32(-2.0)
    assert w == np.float32(w0 - np.float32(0.1) * (2 * w0 * b0))
    assert b == np.float32(b0 - np.float32(0.1) * (w0 * w0))
