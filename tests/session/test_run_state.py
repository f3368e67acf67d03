"""The interpreter runs against a ``RunState`` (``ref.session.interpreter.state``),
never a Session: a ``ctx`` kernel reaches the variable store through its run
context (``DestroyResourceOp``), and two states sharing a store see each
other's variables while keeping their own random generators (a worker session's
view of its task). Each row runs through ``execute`` (the Session's path) and
the reference evaluator; the oracle is the variable's initial value."""
import numpy as np
import pytest

import ref as tf
from ref.framework.op_def_library import apply_op
from ref.session.interpreter import Plan, RunState, evaluate, execute


def _execute(fetches, state, targets=()):
    return execute(Plan(fetches, list(targets), []), {}, state, fetches)


RUNNERS = {"execute": _execute, "evaluate": lambda fetches, state, targets=(): evaluate(fetches, {}, state, targets)}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_destroy_resource_op_deletes_from_the_runs_store(runner):
    run = RUNNERS[runner]
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=np.float32(3.5), use_resource=True)
        read = v.read_value()
        destroy = apply_op("DestroyResourceOp", resource=v.handle, ignore_lookup_error=False)
        state = RunState()
        run([], state, [v.initializer])
        assert run([read], state) == [np.float32(3.5)]
        run([], state, [destroy])
        assert "v" not in state.store.values
        with pytest.raises(tf.errors.FailedPreconditionError):
            run([read], state)
        with pytest.raises(tf.errors.NotFoundError, match="Resource v does not exist"):
            run([], state, [destroy])


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_states_sharing_a_store_keep_their_own_generators(runner):
    run = RUNNERS[runner]
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        w = tf.Variable(np.float32(2.0), name="w")
        noise = tf.random_uniform([4], seed=3)
        first = RunState()
        second = RunState(first.store, None, first.resources)  # shared variables, own generators
        run([], first, [w.initializer])
        assert run([w.value()], second) == [np.float32(2.0)]
        a = run([noise], first)[0]
        b = run([noise], second)[0]
        np.testing.assert_array_equal(a, b)  # same seeds, each state's generator at its start
        assert not np.array_equal(run([noise], first)[0], a)  # a generator advances in its own state
