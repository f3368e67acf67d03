"""Shared pieces of the TF1 program corpus (``_prog_*.py``).

A program module defines ``build(tf)`` -- builds its model into the default
graph and returns a dict of handles (``loss``, ``train``, optionally ``feed``:
``feed(step) -> {tensor: value}``) -- and ``train(tf, steps, workdir)`` which
builds, runs and returns ``{"initial": {name: array}, "losses": [float],
"final": {name: array}}``. ``tf`` is either ``ref`` or
``tensorflow.compat.v1``; nothing in a program knows which.
"""
import contextlib
import functools
import importlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import differences, graph_def, tf1_behaviour, tf_v1  # noqa: E402

import ref  # noqa: E402


def variable_values(tf, sess, variables=None):
    """{op name: value} of every global variable (a fresh copy)."""
    vs = list(tf.global_variables() if variables is None else variables)
    return {v.op.name: np.array(x) for v, x in zip(vs, sess.run(vs))}


def simple_train(tf, handles, steps):
    """The tutorials' loop: initialize, then run ``[train, loss]`` ``steps``
    times with the program's feeds."""
    feed = handles.get("feed", lambda step: {})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            _, loss = sess.run([handles["train"], handles["loss"]], feed_dict=feed(step))
            losses.append(float(loss))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess)}


def library_context(lib):
    """TF1 behaviour for TensorFlow, nothing for ref."""
    return contextlib.nullcontext() if lib.__name__.startswith("ref") else tf1_behaviour()


@functools.lru_cache(maxsize=None)
def program_result(name, which, steps, tmp_root):
    """``run`` of program ``_prog_<name>`` under ``which`` ("ref" or "tf"), once per
    session (every comparison of a table reads the same two runs)."""
    lib = ref if which == "ref" else tf_v1()
    return run(lib, importlib.import_module(f"_prog_{name}"), steps, f"{tmp_root}/{name}-{which}")


def run(lib, module, steps, workdir):
    """``module.train`` in a fresh default graph of ``lib``."""
    os.makedirs(workdir, exist_ok=True)
    with library_context(lib):
        with lib.Graph().as_default():
            return module.train(lib, steps, str(workdir))


# -- the comparisons every program table makes (test_tf1_corpus, test_tf1_tutorials) --------

def assert_same_graph_def(module):
    """The program's GraphDef under ref and under TF, node for node."""
    want = graph_def(tf_v1(), module.build)
    got = graph_def(ref, module.build)
    diff = differences(got, want)
    assert not diff, f"{len(got.node)} ref nodes, {len(want.node)} tf nodes\n" + "\n".join(diff)


def assert_same_initial(got, want):
    """Every initial value bit for bit, same names and dtypes."""
    assert sorted(got) == sorted(want)
    for k in want:
        assert got[k].dtype == want[k].dtype, k
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def assert_same_trajectory(got, want, steps, rtol, atol, same_final_names=False):
    """Losses over ``steps`` and the final variables within rtol/atol."""
    assert len(got["losses"]) == len(want["losses"]) == steps
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=rtol, atol=atol)
    if same_final_names:
        assert sorted(got["final"]) == sorted(want["final"])
    for k in want["final"]:
        np.testing.assert_allclose(got["final"][k], want["final"][k], rtol=rtol, atol=atol, err_msg=k)


def assert_close(got, want, rtol, atol, where="extra"):
    """Nested lists/tuples equal element by element; floats within rtol/atol."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{where}: {got!r} vs {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, rtol, atol, f"{where}[{i}]")
    elif isinstance(want, np.ndarray) and want.dtype.kind == "f" and want.size:
        # An output array (logits, samples): absolute error up to rtol of the
        # array's scale -- entries near zero come from cancellations (x - mean)
        # whose rounding is relative to the operands, not to the result.
        np.testing.assert_allclose(got, want, rtol=rtol, atol=max(atol, rtol * float(np.abs(want).max())),
                                   err_msg=where)
    elif isinstance(want, (float, np.floating, np.ndarray)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)
    else:
        assert got == want, f"{where}: {got!r} vs {want!r}"
