"""The global step helpers (seed 002 ``tf.compat.v1.train.*global_step``),
compared with tensorflow.compat.v1 where TF is installed."""
import pytest
from ref.graph_ops import training_util as _under_test  # noqa: F401  (the module these tests cover)


def create_and_get(tf):
    assert tf.train.get_global_step() is None
    step = tf.train.create_global_step()
    again = tf.train.get_or_create_global_step()
    with tf.Session() as sess:
        sess.run(step.initializer)
        value = tf.train.global_step(sess, step)
    return (step.name, step.op.name, again is step, str(step.dtype.base_dtype.name), step.get_shape().as_list(),
            step.trainable, [v.name for v in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)], value,
            [v.name for v in tf.trainable_variables()])


def create_twice(tf):
    tf.train.create_global_step()
    with pytest.raises(ValueError) as e:
        tf.train.create_global_step()
    return str(e.value)


def found_by_name(tf):
    v = tf.Variable(3, name="global_step", trainable=False)
    return tf.train.get_global_step() is v or tf.train.get_global_step().name


def _type_error(tf, value_fn):
    with pytest.raises(TypeError) as e:
        tf.train.assert_global_step(value_fn(tf))
    return str(e.value).split(":")[0]


def float_step(tf):
    return _type_error(tf, lambda t: t.Variable(1.0, name="gs"))


def vector_step(tf):
    return _type_error(tf, lambda t: t.Variable([1, 2], name="gs"))


def not_a_tensor(tf):
    return _type_error(tf, lambda t: 5)


def float_found_by_name(tf):
    tf.Variable(1.0, name="global_step")
    with pytest.raises(TypeError) as e:
        tf.train.get_global_step()
    return str(e.value).split(":")[0]


def scope_does_not_matter(tf):
    with tf.variable_scope("outer"), tf.name_scope("ns"):
        step = tf.train.get_or_create_global_step()
    return step.name


PROGRAMS = [create_and_get, create_twice, found_by_name, float_step, vector_step, not_a_tensor, float_found_by_name,
            scope_does_not_matter]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_same_as_tensorflow(prog, rtf, tf1):
    with rtf.Graph().as_default():
        got = prog(rtf)
    with tf1.Graph().as_default():
        want = prog(tf1)
    assert got == want


def test_documented_values(rtf):
    with rtf.Graph().as_default():
        got = create_and_get(rtf)
    assert got == ("global_step:0", "global_step", True, "int64", [], False, ["global_step:0"], 0, [])
    with rtf.Graph().as_default():
        assert create_twice(rtf) == '"global_step" already exists.'


def _training_util(lib):
    if lib.__name__ == "ref":
        return _under_test
    from tensorflow.python.training import training_util
    return training_util


@pytest.mark.parametrize("case", ["no_step", "cached", "read_before_increment"])
def test_private_global_step_read_as_tensorflow(case):
    """TF's private ``_get_or_create_global_step_read`` (TF's own tests call it):
    None without a global step, one cached tensor per graph, and a read fetched
    in the same run as an increment built after it gives the value before it."""
    import ref

    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        tu = _training_util(lib)
        with lib.Graph().as_default():
            if case == "no_step":
                out.append(tu._get_or_create_global_step_read() is None)
                continue
            step = lib.train.get_or_create_global_step()
            read = tu._get_or_create_global_step_read()
            if case == "cached":
                out.append((read is tu._get_or_create_global_step_read(), read.name, read.op.type))
                continue
            inc = lib.assign_add(step, 1)
            with lib.Session() as s:
                s.run(step.initializer)
                out.append([[int(v) for v in s.run([read, inc])] for _ in range(3)])
    if case != "read_before_increment":
        assert out[1] == out[0]
        return
    # ref reads before the increment built after the read; TF's executor runs the read and the
    # increment at once (no control edge between them), so TF gives that or, under load, the
    # value after: each of TF's rows is one of the two orders.
    assert out[1] == [[0, 1], [1, 2], [2, 3]]
    assert all(r[1] == i + 1 and r[0] in (i, i + 1) for i, r in enumerate(out[0])), out[0]
