"""``interpreter.rewrite.MatMulAhead``: a product paired with a later one whose
operands are known (or one pure step away, that step moved up with it) gives the
step loop's values bit for bit, and the step loop's error naming the same op;
a variable update in between keeps the later product where it was."""
import numpy as np
import pytest

import ref
from ref.session.interpreter import executor, rewrite  # noqa: F401 -- the rewrite under test


def _graph(update_between):
    """``first = x @ w1``, ``h = tanh(first)``, ``cat = concat([y, z])``,
    ``second = cat @ w2``: ``second`` and ``cat`` move up beside ``first``."""
    rng = np.random.RandomState(3)
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [None, 256], name="x")
        y = ref.placeholder(ref.float32, [None, 128], name="y")
        z = ref.placeholder(ref.float32, [None, 128], name="z")
        w1 = ref.Variable(rng.standard_normal((256, 128)).astype(np.float32), name="w1")
        w2 = ref.Variable(rng.standard_normal((256, 96)).astype(np.float32), name="w2")
        first = ref.matmul(x, w1, name="first")
        h = ref.tanh(first, name="h")
        cat = ref.concat([y, z], axis=1, name="cat")
        if update_between:
            with ref.control_dependencies([ref.assign_add(w2, ref.ones_like(w2), name="bump")]):
                second = ref.matmul(cat, w2, name="second")
        else:
            second = ref.matmul(cat, w2, name="second")
        init = ref.global_variables_initializer()
    feeds = {x: rng.standard_normal((256, 256)).astype(np.float32),
             y: rng.standard_normal((256, 128)).astype(np.float32),
             z: rng.standard_normal((256, 128)).astype(np.float32)}
    return g, init, [h, second], feeds


def _runs(update_between, compile_after, bad_rows=None):
    """Three runs' values (and the source of the compiled plan, if any); with
    ``bad_rows`` a fourth run feeds ``z`` that many rows and its error is returned."""
    g, init, fetches, feeds = _graph(update_between)
    old = executor.COMPILE_AFTER
    executor.COMPILE_AFTER = compile_after
    try:
        with ref.Session(graph=g) as sess:
            sess.run(init)
            values = [sess.run(fetches, feeds) for _ in range(3)]
            sources = [p.compiled.source for p in sess._plans.values() if p.compiled is not None]
            error = None
            if bad_rows is not None:
                z = next(t for t in feeds if t.op.name == "z")
                with pytest.raises(ref.errors.InvalidArgumentError) as e:
                    sess.run(fetches, {**feeds, z: feeds[z][:bad_rows]})
                error = (e.value.op.name, str(e.value))
    finally:
        executor.COMPILE_AFTER = old
    return values, sources, error


CASES = [  # (update between the products, the later product moves up)
    (False, True),
    (True, False),
]


@pytest.mark.parametrize("update_between,moves", CASES)
def test_values_are_the_step_loops(update_between, moves):
    got, sources, _ = _runs(update_between, 1)
    want, loop_sources, _ = _runs(update_between, 10 ** 9)
    assert not loop_sources and len(sources) == 1
    src = sources[0]
    assert (src.count("_matmul_pair(") == 1) == moves
    assert ("= H" in src) == moves  # the concat moved up with its product
    for g_run, w_run in zip(got, want):
        for a, b in zip(g_run, w_run):
            assert a.tobytes() == b.tobytes()


def test_a_moved_step_error_names_its_op():
    _, _, compiled = _runs(False, 1, bad_rows=255)
    _, _, loop = _runs(False, 10 ** 9, bad_rows=255)
    assert compiled == loop
    assert compiled[0] == "cat"
