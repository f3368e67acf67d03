"""TF1's ``VariableAggregation`` and TF2's ``VariableAggregationV2`` (equal and
hashed alike member for member; either accepted by a Variable), iterating over
a Variable in a graph (TF's OperatorNotAllowedInGraphError, a TypeError) and
``_distribute_strategy`` -- against TensorFlow's ``variables`` module."""
import pytest

import ref
from ref.graph_ops import variables
from ref.types import errors

MEMBERS = ["NONE", "SUM", "MEAN", "ONLY_FIRST_REPLICA"]


def _tf_variables():
    pytest.importorskip("tensorflow")
    from tensorflow.python.ops import variables as tf_variables
    return tf_variables


@pytest.mark.parametrize("member", MEMBERS + ["ONLY_FIRST_TOWER"])
def test_aggregation_v1_v2_equal_as_tf(member):
    tfv = _tf_variables()
    v2_member = "ONLY_FIRST_REPLICA" if member == "ONLY_FIRST_TOWER" else member
    for lib in (tfv, variables):
        v1, v2 = getattr(lib.VariableAggregation, member), getattr(lib.VariableAggregationV2, v2_member)
        assert v1 == v2 and v2 == v1 and hash(v1) == hash(v2)
    assert [m.value for m in variables.VariableAggregationV2] == [m.value for m in tfv.VariableAggregationV2]
    assert [m.name for m in variables.VariableAggregationV2] == [m.name for m in tfv.VariableAggregationV2]


@pytest.mark.parametrize("member", MEMBERS)
def test_variable_takes_v2_aggregation(member):
    with ref.Graph().as_default():
        v = variables.Variable(1.0, synchronization=variables.VariableSynchronization.NONE,
                               aggregation=getattr(variables.VariableAggregationV2, member))
        assert v.aggregation == getattr(variables.VariableAggregation, member)
        assert v.aggregation == getattr(variables.VariableAggregationV2, member)
        laundered = variables.Variable(variable_def=v.to_proto())
        assert laundered.aggregation == getattr(variables.VariableAggregationV2, member)
        assert v._distribute_strategy is None


@pytest.mark.parametrize("value", [0.0, [0.0, 1.0]])
def test_iterating_a_variable_as_tf(value):
    tf = pytest.importorskip("tensorflow").compat.v1
    import os
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from _graphdef import tf1_behaviour
    from tensorflow.python.framework import errors_impl
    with tf1_behaviour(), tf.Graph().as_default():
        with pytest.raises(errors_impl.OperatorNotAllowedInGraphError, match="not allowed.*Graph mode"):
            iter(tf.Variable(value))
    with ref.Graph().as_default():
        with pytest.raises(errors.OperatorNotAllowedInGraphError, match="not allowed.*Graph mode"):
            iter(ref.Variable(value))
    assert issubclass(errors.OperatorNotAllowedInGraphError, TypeError)
