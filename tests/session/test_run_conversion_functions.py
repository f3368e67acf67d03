"""``register_session_run_conversion_functions`` (TF's ``client/session.py``): a user
type's fetch function (tensors to run and how to contract their values), feed
function (tensor/value pairs) and partial-run feed function, and TF's ValueError for
a type already covered. Each row runs on ref and on TensorFlow (same program, each
library's own registry) and compares the values."""
import numpy as np
import pytest

import ref
from ref.session import conversion as _under_test  # noqa: F401  (the module these tests cover)
from ref.session.conversion import register_session_run_conversion_functions

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1
from tensorflow.python.client import session as tf_session  # noqa: E402


class _Squared:
    """A user type standing for ``square(tensor)`` and, as a feed, for that square."""

    def __init__(self, t, x):
        self.sq = t.square(x)


class _Pair:
    """A user type standing for two tensors, fetched as their sum and fed together."""

    def __init__(self, a, b):
        self.a, self.b = a, b


def _register(register):
    register(_Squared, lambda s: ([s.sq], lambda vals: vals[0]), lambda s, v: [(s.sq, v)], lambda s: [s.sq])
    register(_Pair, lambda p: ([p.a, p.b], lambda vals: vals[0] + vals[1]),
             lambda p, v: [(p.a, v[0]), (p.b, v[1])], lambda p: [p.a, p.b])


_register(register_session_run_conversion_functions)
_register(tf_session.register_session_run_conversion_functions)

_X = np.array([3.0, 3.5, 4.0], np.float32)


def _programs():
    def fetch(t, s):
        return s.run(_Squared(t, _X))

    def feed(t, s):
        sq = _Squared(t, _X)
        return s.run(sq, {sq: np.ones(3, np.float32) * 7})

    def nested(t, s):
        return s.run({"sq": [_Squared(t, _X)], "pair": _Pair(t.constant(1.0), t.constant(2.0))})

    def feed_pair(t, s):
        p = _Pair(t.placeholder(t.float32, []), t.placeholder(t.float32, []))
        return s.run(p, {p: (4.0, 5.0)})

    def partial(t, s):
        sq = _Squared(t, _X)
        h = s.partial_run_setup([sq], [])
        return s.partial_run(h, sq)

    def partial_fed(t, s):
        p = _Pair(t.placeholder(t.float32, []), t.placeholder(t.float32, []))
        total = p.a * p.b
        h = s.partial_run_setup([total], [p])
        return s.partial_run(h, total, {p.a: 3.0, p.b: 6.0})
    return {f.__name__: f for f in (fetch, feed, nested, feed_pair, partial, partial_fed)}


PROGRAMS = _programs()


def _run(t, name):
    with t.Graph().as_default(), t.Session() as s:
        return PROGRAMS[name](t, s)


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return np.asarray(x).tolist()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conversion_functions_match_tf(name):
    assert _plain(_run(ref, name)) == _plain(_run(tf1, name))


@pytest.mark.parametrize("kind", ["again", "sparse_tensor", "object"])
def test_registering_a_covered_type_is_a_value_error_as_tf(kind):
    for register, lib in ((register_session_run_conversion_functions, ref),
                          (tf_session.register_session_run_conversion_functions, tf)):
        cls = {"again": _Squared, "sparse_tensor": lib.SparseTensor, "object": object}[kind]
        with pytest.raises(ValueError, match="has already been registered"):
            register(cls, lambda x: ([x], lambda v: v[0]))
