"""Improperly nested ``variable_scope`` / ``variable_creator_scope`` exits raise
TF's RuntimeError (and the scopes still close properly afterwards); the creator
stack lives on the graph (``Graph._variable_creator_stack``). Compared with
TensorFlow's ``variable_scope`` module in ``tensorflow.compat.v1`` graphs."""
import pytest

import ref
from ref.graph_ops import variable_scope as _under_test  # noqa: F401


def _var_scope_nesting(lib, vs):
    out = []
    with lib.Graph().as_default():
        with vs.variable_scope("aa"):
            scope = vs.variable_scope("bb")
            scope.__enter__()
            with vs.variable_scope("cc"):
                try:
                    scope.__exit__(None, None, None)
                    out.append("no error")
                except RuntimeError as e:
                    out.append(str(e))
                out.append(vs.get_variable_scope().name)
            scope.__exit__(None, None, None)
            out.append(vs.get_variable_scope().name)
            out.append(lib.get_variable("v", [1]).name)
    return out


def _creator_nesting(lib, vs):
    out = []

    def creator(next_creator, **kwargs):
        out.append("creator")
        return next_creator(**kwargs)

    with lib.Graph().as_default() as g:
        old = g._variable_creator_stack
        out.append(len(old))
        scope = vs.variable_creator_scope(creator)
        scope.__enter__()
        with vs.variable_creator_scope(creator):
            out.append(len(g._variable_creator_stack))
            try:
                scope.__exit__(None, None, None)
                out.append("no error")
            except RuntimeError as e:
                out.append(str(e))
        g._variable_creator_stack = old
        with vs.variable_creator_scope(creator):
            lib.Variable(1.0)
        out.append(len(g._variable_creator_stack))
    return out


ROWS = [("variable_scope", _var_scope_nesting), ("variable_creator_scope", _creator_nesting)]


@pytest.mark.parametrize("case,fn", ROWS, ids=[r[0] for r in ROWS])
def test_scope_nesting_as_tf(case, fn):
    tf = pytest.importorskip("tensorflow").compat.v1
    import os
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from _graphdef import tf1_behaviour
    from tensorflow.python.ops import variable_scope as tf_vs
    with tf1_behaviour():
        want = fn(tf, tf_vs)
    assert fn(ref, _under_test) == want
