"""Shared pieces of the TF1 program corpus (``_prog_*.py``).

A program module defines ``build(tf)`` -- builds its model into the default
graph and returns a dict of handles (``loss``, ``train``, optionally ``feed``:
``feed(step) -> {tensor: value}``) -- and ``train(tf, steps, workdir)`` which
builds, runs and returns ``{"initial": {name: array}, "losses": [float],
"final": {name: array}}``. ``tf`` is either ``ref`` or
``tensorflow.compat.v1``; nothing in a program knows which.
"""
import contextlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import tf1_behaviour  # noqa: E402


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


def run(lib, module, steps, workdir):
    """``module.train`` in a fresh default graph of ``lib``."""
    os.makedirs(workdir, exist_ok=True)
    with library_context(lib):
        with lib.Graph().as_default():
            return module.train(lib, steps, str(workdir))
