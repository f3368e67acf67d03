"""Session construction and entry as TF's: argument TypeErrors, unknown targets,
re-entry, default-session nesting, a second InteractiveSession's logged error,
fetches named by bytes. Each row runs on ref and on ``tensorflow.compat.v1``."""
import logging

import numpy as np
import pytest

from ref.session import session as _under_test  # noqa: F401
import ref


def _new(**kw):
    def run(tf):
        args = dict(kw)
        if args.pop("config_as_target", False):
            args["target"] = tf.ConfigProto()
        tf.Session(**args).close()
    return run


def _reenter(tf):
    sess = tf.Session()
    with sess:
        with sess:
            pass


def _nesting(tf):
    from_stack = __import__("tensorflow.python.framework.stack", fromlist=["x"]) if tf is not ref else \
        __import__("ref.framework.stack", fromlist=["x"])
    s1, s2 = tf.Session(), tf.Session()
    c1, c2 = s1.as_default(), s2.as_default()
    c1.__enter__()
    c2.__enter__()
    try:
        c1.__exit__(None, None, None)
    finally:
        from_stack._default_session_stack.reset()


def _bytes_names(tf):
    with tf.Graph().as_default():
        tf.constant(44.0, name=b"e")
        with tf.Session() as sess:
            return [float(sess.run(n)) for n in ("e:0", b"e:0")], tf.get_default_graph().get_operations()[0].name


def _second_interactive(tf):
    class Grab(logging.Handler):
        def __init__(self):
            super().__init__(logging.ERROR)
            self.messages = []

        def emit(self, record):
            self.messages.append(record.getMessage()[:60])
    grab = Grab()
    logging.getLogger("tensorflow").addHandler(grab)
    try:
        with tf.Graph().as_default():
            first = tf.InteractiveSession()
            first.close()
            first = tf.InteractiveSession()
            second = tf.InteractiveSession()
            second.close()
            first.close()
    finally:
        logging.getLogger("tensorflow").removeHandler(grab)
    return grab.messages


def _metadata_replaced(tf):
    with tf.Graph().as_default():
        a = tf.constant(1)
        with tf.Session() as sess:
            md = tf.RunMetadata()
            sess.run(a, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
            first = len(md.partition_graphs) > 0
            sess.run(a, run_metadata=md)
            return first, len(md.partition_graphs)


def _device_attributes(tf):
    mod = __import__("tensorflow.python.client.session", fromlist=["x"]) if tf is not ref else _under_test
    d = mod._DeviceAttributes("/job:worker/replica:0/task:3/cpu:1", "TYPE", 1337, 1000000)
    return d.name, d.device_type, d.memory_limit_bytes, d.incarnation, repr(d)


def _cpu_count(tf):
    with tf.Graph().as_default():
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2, "GPU": 0})) as sess:
            return sorted(d.name for d in sess.list_devices() if d.device_type == "CPU")


def _int_to_string_feed(tf):
    with tf.Graph().as_default():
        a = tf.placeholder(tf.string)
        with tf.Session() as sess:
            sess.run(a, {a: 1})


def _attr_scope_proto(tf):
    attr_value_pb2 = tf.AttrValue if tf is not ref else __import__("ref.protos", fromlist=["x"]).attr_value_pb2.AttrValue
    with tf.Graph().as_default() as g:
        with g._attr_scope({"_a": attr_value_pb2(b=False)}):
            tf.constant(1.0, name="c")
        return str(g.as_graph_def().node[0].attr["_a"]).strip()


def _callable_from_options(tf):
    config_pb2 = __import__("tensorflow.core.protobuf.config_pb2", fromlist=["x"]) if tf is not ref else \
        __import__("ref.protos", fromlist=["x"]).config_pb2
    with tf.Graph().as_default():
        with tf.Session() as sess:
            ph = tf.placeholder(tf.float32)
            a = tf.add(ph, 1.0)
            opts = config_pb2.CallableOptions()
            opts.feed.append(ph.name)
            opts.fetch.append(a.name)
            opts.run_options.trace_level = config_pb2.RunOptions.FULL_TRACE
            f = sess._make_callable_from_options(opts)
            md = config_pb2.RunMetadata()
            out = f(np.array(1.0, np.float32), run_metadata=md)
            return [float(x) for x in out], type(out).__name__, len(md.step_stats.dev_stats) > 0


def _original_op_chain(tf):
    with tf.Graph().as_default() as g:
        a = tf.constant(0.0, name="a")
        with g._original_op(a.op):
            b = tf.identity(a, name="b")
        with g._original_op(b.op):
            c = tf.placeholder(tf.float32, name="c")
        with tf.Session() as sess:
            try:
                sess.run(c)
            except tf.errors.InvalidArgumentError as e:
                return e.op.name, e.op._original_op.name, e.op._original_op._original_op.name, a.op._original_op


def _cost_graph_steps(tf):
    config = tf.ConfigProto(graph_options=tf.GraphOptions(build_cost_model=3))
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, shape=[])
        d = tf.multiply(tf.add(a, a), 2.0)
        with tf.Session(config=config) as sess:
            steps = []
            for step in range(7):
                md = tf.RunMetadata()
                sess.run(d, {a: 1.0}, run_metadata=md)
                steps.append(md.HasField("cost_graph") and any(n.name == d.op.name for n in md.cost_graph.node))
            return steps


def _sparse_pair_feed(tf):
    with tf.Graph().as_default():
        shape = np.array([7, 9, 2], np.int64)
        sp = tf.sparse_placeholder(tf.float32, shape=shape)
        with tf.Session() as sess:
            out = sess.run([tf.identity(sp.indices), tf.identity(sp.dense_shape)],
                           {sp: (np.array([[3, 2, 0]], np.int64), np.array([1.0], np.float32))})
            return [o.tolist() for o in out]


def _infer_shapes_graph_def(tf):
    with tf.Graph().as_default():
        tf.constant([[1, 2]], name="a")
        return [[sorted(n.attr) for n in tf.Session(config=tf.ConfigProto(
            graph_options=tf.GraphOptions(infer_shapes=flag))).graph_def.node] for flag in (True, False)]


def _device_listing(tf):
    with tf.Graph().as_default():
        with tf.Session() as sess:
            devices = [d for d in sess.list_devices() if d.device_type == "CPU"]
            return [d.name for d in devices], all(d.incarnation != 0 for d in devices)


ROWS = [
    ("list_devices_incarnations", _device_listing, None),
    ("infer_shapes_graph_def", _infer_shapes_graph_def, None),
    ("callable_from_options", _callable_from_options, None),
    ("original_op_chain", _original_op_chain, None),
    ("cost_graph_every_n_steps", _cost_graph_steps, None),
    ("sparse_pair_feed", _sparse_pair_feed, None),
    ("run_metadata_replaced", _metadata_replaced, None),
    ("device_attributes", _device_attributes, None),
    ("device_count_cpus", _cpu_count, None),
    ("int_fed_to_string", _int_to_string_feed, "TypeError"),
    ("attr_scope_proto_exported", _attr_scope_proto, None),
    ("target_int", _new(target=37), "TypeError"),
    ("target_config", _new(config_as_target=True), "TypeError"),
    ("config_int", _new(config=37), "TypeError"),
    ("graph_int", _new(graph=37), "TypeError"),
    ("invalid_target", _new(target="INVALID_TARGET"), "NotFoundError"),
    ("reentry", _reenter, "RuntimeError"),
    ("nesting_violated", _nesting, "AssertionError"),
    ("bytes_names", _bytes_names, None),
    ("second_interactive_logs", _second_interactive, None),
]


def _observe(tf, snippet):
    try:
        return "ok", snippet(tf)
    except Exception as e:  # noqa: BLE001 -- kind and message are compared
        return type(e).__name__, str(e).split("\n")[0]


@pytest.mark.parametrize("snippet, kind", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_session_as_tf(snippet, kind):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _observe(tf, snippet), _observe(ref, snippet)
    assert want[0] == (kind or "ok"), want
    if kind is None:
        assert got == want
    else:
        assert got[0] == kind
        if "INVALID_TARGET" in want[1]:  # TF prints its whole ConfigProto after the target
            want, got = [(k, m.split("INVALID_TARGET")[0]) for k, m in (want, got)]
        assert got[1].replace("<class 'ref.session.session.Session'>", "") == \
            want[1].replace("<class 'tensorflow.python.client.session.Session'>", ""), (got, want)
