"""get_session_handle / get_session_tensor / delete_session_tensor and
TensorHandle against TF: keep a value between runs, read it, feed it to another
tensor, delete it."""
import numpy as np
import pytest

import ref.session  # noqa: F401  (the package these tests cover)
import ref


def _script(lib, case):
    out = []
    with lib.Graph().as_default(), lib.Session() as s:
        a = lib.constant(10.0)
        b = lib.constant(5.0)
        c = a * b
        h = s.run(lib.get_session_handle(c))
        out.append(type(h).__name__)
        if case == "eval":
            out.append(float(h.eval()))
        elif case == "read":
            holder, t = lib.get_session_tensor(h.handle, lib.float32)
            out.append(float(s.run(t * 2.0, {holder: h.handle})))
        elif case == "feed_into_tensor":
            p = lib.placeholder(lib.float32)
            out.append(float(s.run(p * 3.0, {p: h})))
        elif case == "chain":
            holder, t = lib.get_session_tensor(h.handle, lib.float32)
            h2 = s.run(lib.get_session_handle(t * 4.0), {holder: h.handle})
            out.append(float(h2.eval()))
        elif case == "delete":
            holder, deleter = lib.delete_session_tensor(h.handle)
            s.run(deleter, {holder: h.handle})
            rh, t = lib.get_session_tensor(h.handle, lib.float32)
            try:
                s.run(t, {rh: h.handle})
            except lib.errors.OpError as e:
                out.append(type(e).__name__)
        elif case == "handle_delete_method":
            h.delete()
            rh, t = lib.get_session_tensor(h.handle, lib.float32)
            try:
                s.run(t, {rh: h.handle})
            except lib.errors.OpError as e:
                out.append(type(e).__name__)
        elif case == "int_value":
            hi = s.run(lib.get_session_handle(lib.constant(np.arange(6).reshape(2, 3))))
            out.append(hi.eval().tolist())
    return out


@pytest.mark.parametrize("case", ["eval", "read", "feed_into_tensor", "chain", "delete",
                                  "handle_delete_method", "int_value"])
def test_session_handles_match_tf(case):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _script(ref, case) == _script(tf, case)


def test_get_session_handle_needs_a_tensor():
    with ref.Graph().as_default():
        with pytest.raises(TypeError, match="`data` must be of type Tensor."):
            ref.get_session_handle(5.0)
