"""tf.switch_case against TF: selected branch, out-of-range index, default,
dict/pair forms, argument errors, only the chosen branch's side effects."""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the package these tests cover)
import ref


def _build(tf, form, index, default):
    x = tf.placeholder(tf.int32, [])
    fns = [lambda: tf.constant(17), lambda: tf.constant(31), lambda: tf.constant(-1)]
    if form == "dict":
        fns = {2: fns[2], 0: fns[0], 1: fns[1]}
    elif form == "pairs":
        fns = list(enumerate(fns))
    d = (lambda: tf.constant(99)) if default else None
    return x, tf.switch_case(x, fns, default=d)


@pytest.mark.parametrize("default", [False, True])
@pytest.mark.parametrize("form", ["list", "dict", "pairs"])
@pytest.mark.parametrize("index", [0, 1, 2, 3, -1, 7])
def test_switch_case_value(form, index, default):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            x, r = _build(lib, form, index, default)
            with lib.Session() as s:
                out.append(s.run(r, {x: index}))
    assert out[0] == out[1]


def _t(lib):
    return lib.constant(1)


ERRORS = [
    ("python_index", lambda lib: (1, [lambda: _t(lib)])),
    ("float_index", lambda lib: (lib.constant(1.0), [lambda: _t(lib)])),
    ("empty", lambda lib: (lib.constant(1), [])),
    ("not_list", lambda lib: (lib.constant(1), "abc")),
    ("bad_pair", lambda lib: (lib.constant(1), [(0, lambda: _t(lib)), (1,)])),
    ("str_key", lambda lib: (lib.constant(1), {"a": lambda: _t(lib)})),
    ("not_callable", lambda lib: (lib.constant(1), [(0, lambda: _t(lib)), (1, 5)])),
    ("gap", lambda lib: (lib.constant(1), {0: lambda: _t(lib), 2: lambda: _t(lib)})),
]


@pytest.mark.parametrize("case,args", ERRORS, ids=[e[0] for e in ERRORS])
def test_switch_case_errors(case, args):
    tf = pytest.importorskip("tensorflow").compat.v1
    msgs = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            with pytest.raises((TypeError, ValueError)) as e:
                lib.switch_case(*args(lib))
            msgs.append((e.type, str(e.value).replace("tensorflow.python.framework.tensor.Tensor", "T")
                         .replace("ref.framework.graph.Tensor", "T")))
    assert msgs[0] == msgs[1]


def test_switch_case_differentiates_the_chosen_branch():
    with ref.Graph().as_default():
        i = ref.placeholder(ref.int32, [])
        w = ref.constant(3.0)
        r = ref.switch_case(i, [lambda: w * w, lambda: w * 5.0, lambda: ref.constant(1.0)])
        g = ref.gradients(r, w)[0]
        with ref.Session() as s:
            assert s.run([r, g], {i: 0}) == [9.0, 6.0]
            assert s.run([r, g], {i: 1}) == [15.0, 5.0]
            assert s.run([r, g], {i: 9}) == [1.0, 0.0]
