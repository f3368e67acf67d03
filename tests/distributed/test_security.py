"""Issue 29: TLS, the shared token, servers without file ops, Reset limits.

Servers are ``python -m ref server`` processes on 127.0.0.1 (every wait bounded); the
clients are this process's ``Session("grpcs://...")`` / ``rpc.Client``. The certificates
come from ``certs.make_local_ca`` (the launcher's throwaway CA). Oracles: the numbers of
a local Session, the error classes and the names the issue asks to be named.
"""
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import ref as tf
from ref.distributed import certs, rpc, security
from ref.distributed.launcher import free_ports
from ref.distributed.server import Server
from ref.protos import graph_pb2, master_pb2
from ref.types import errors

pytest.importorskip("grpc")

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOUND = 60  # seconds: the most any server start or call here may take
TOKEN = "0123456789abcdef-test-token"


# -- settings and the file-op table (no processes) ----------------------------------------

@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return certs.make_local_ca(str(tmp_path_factory.mktemp("ca")))


SETTINGS_ERRORS = [
    # (kwargs of ServerSecurity using the CA's files, message fragment)
    ({"cert": "cert"}, "both cert and key"),
    ({"key": "key"}, "both cert and key"),
    ({"cert": "cert", "key": "key", "client_auth": True}, "client_auth=True"),
    ({"ca": "ca", "client_auth": True}, "client_auth=True"),
    ({"cert": "/nonexistent/cert.pem", "key": "key"}, "cannot read the server certificate"),
    ({"cert": b"garbage", "key": "key"}, "server certificate is not PEM"),
    ({"cert": "cert", "key": "cert"}, "server key is not PEM"),
    ({"ca": "key"}, "CA certificate is not PEM"),
]


@pytest.mark.parametrize("kwargs, fragment", SETTINGS_ERRORS)
def test_server_security_rejects_incomplete_settings(ca, kwargs, fragment):
    kwargs = {k: ca.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    with pytest.raises(ValueError, match=fragment):
        security.ServerSecurity(**kwargs)


ENV_ROWS = [
    # (environment, tls, token, client_auth, allow_file_ops, allow_global_reset); None: no ServerSecurity
    ({}, None),
    ({"REF_RPC_TOKEN": "t"}, (False, b"t", False, True, False)),
    ({"REF_TLS_CERT": "cert", "REF_TLS_KEY": "key", "REF_TLS_CA": "ca", "REF_TLS_CLIENT_AUTH": "1"},
     (True, None, True, True, False)),
    ({"REF_SERVER_NO_FILE_OPS": "1"}, (False, None, False, False, False)),
    ({"REF_SERVER_ALLOW_GLOBAL_RESET": "yes", "REF_RPC_TOKEN": "x"}, (False, b"x", False, True, True)),
]


@pytest.mark.parametrize("env, expected", ENV_ROWS)
def test_server_security_from_env(ca, env, expected):
    env = {k: ca.get(v, v) for k, v in env.items()}
    got = security.ServerSecurity.from_env(env)
    if expected is None:
        assert got is None
        return
    assert (got.tls, got.token, got.client_auth, got.allow_file_ops, got.allow_global_reset) == expected


def test_token_file_and_client_settings_from_env(ca, tmp_path):
    (tmp_path / "token").write_text(TOKEN + "\n")
    env = {"REF_RPC_TOKEN_FILE": str(tmp_path / "token"), "REF_TLS_CA": ca["ca"]}
    client = security.ClientSecurity.from_env(env)
    assert client.token == TOKEN.encode() and client.tls and client.cert is None
    assert client.ca == pathlib.Path(ca["ca"]).read_bytes()
    assert security.ServerSecurity.from_env(env).token == TOKEN.encode()


TOKEN_ROWS = [
    ((("ref-token", TOKEN),), True),
    ((("other", "x"), ("ref-token", TOKEN)), True),
    ((("ref-token", TOKEN + "x"),), False),
    ((("ref-token", ""),), False),
    ((), False),
]


@pytest.mark.parametrize("metadata, ok", TOKEN_ROWS)
def test_token_matches(metadata, ok):
    assert security.token_matches(TOKEN.encode(), metadata) is ok


def _graph(*nodes, function_nodes=()):
    g = graph_pb2.GraphDef()
    for name, op, attrs in nodes:
        n = g.node.add(name=name, op=op)
        for key, fill in attrs.items():
            fill(n.attr[key])
    if function_nodes:
        f = g.library.function.add()
        f.signature.name = "body"
        for name, op in function_nodes:
            f.node_def.add(name=name, op=op)
    return g


def _const_string(value):
    def fill(attr):
        attr.tensor.dtype = 7
        attr.tensor.string_val.append(value)
    return fill


FILE_OP_ROWS = [
    # (GraphDef, the node named in the error or None when allowed)
    (_graph(("a", "Const", {}), ("b", "AddV2", {})), None),
    (_graph(("save/SaveV2", "SaveV2", {})), "save/SaveV2"),
    (_graph(("r", "RestoreV2", {})), "r"),
    (_graph(("w", "WriteFile", {})), "w"),
    (_graph(("files", "MatchingFiles", {})), "files"),
    (_graph(("reader", "TFRecordReaderV2", {})), "reader"),
    (_graph(("sw", "CreateSummaryFileWriter", {})), "sw"),
    (_graph(("ds", "TFRecordDatasetV2", {})), "ds"),
    (_graph(("p", "PrintV2", {"output_stream": lambda a: setattr(a, "s", b"stderr")})), None),
    (_graph(("p", "PrintV2", {"output_stream": lambda a: setattr(a, "s", b"file:///tmp/x")})), "p"),
    (_graph(("name", "Const", {"value": _const_string(b"")}), ("c", "CacheDatasetV2", {})), None),
    (_graph(("name", "Const", {"value": _const_string(b"/tmp/cache")}), ("c", "CacheDatasetV2", {})), "c"),
    (_graph(("call", "PartitionedCall", {}), function_nodes=[("rf", "ReadFile")]), "rf"),
]
for _g in (FILE_OP_ROWS[-3][0], FILE_OP_ROWS[-2][0]):
    _g.node[1].input.extend(["input_dataset", "name"])


@pytest.mark.parametrize("graph_def, node", FILE_OP_ROWS)
def test_file_ops_are_refused_naming_the_node(graph_def, node):
    no_fs = security.ServerSecurity(allow_file_ops=False)
    security.check_file_ops(graph_def, security.ServerSecurity(), "/job:ps/task:0")  # allowed: nothing raised
    if node is None:
        security.check_file_ops(graph_def, no_fs, "/job:ps/task:0")
        return
    with pytest.raises(errors.PermissionDeniedError, match=r"\{\{node " + node + r"\}\}.*/job:ps/task:0"):
        security.check_file_ops(graph_def, no_fs, "/job:ps/task:0")


# -- real servers --------------------------------------------------------------------------

def start_server(*flags, env=None):
    """A `python -m ref server` process (one ps task) with ``flags``; (process, address)."""
    port, = free_ports(1)
    address = f"127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "ref", "server", "--cluster", f'{{"ps": ["{address}"]}}',
                             "--job", "ps", "--task", "0", *flags], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                                      **(env or {})})
    deadline = time.monotonic() + BOUND
    for line in proc.stdout:
        if "Started server with target" in line:
            return proc, address
        if time.monotonic() > deadline:
            break
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.communicate(timeout=10)[0]}")


def stop_server(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture()
def client_settings():
    old = security.set_client_security(None)
    yield security.set_client_security
    security.set_client_security(old)


@pytest.fixture(scope="module")
def tls_server(ca, tmp_path_factory):
    """Mutual TLS and a token."""
    token = tmp_path_factory.mktemp("token") / "token"
    token.write_text(TOKEN)
    proc, address = start_server("--tls-cert", ca["cert"], "--tls-key", ca["key"], "--tls-ca", ca["ca"],
                                 "--client-auth", "--token-file", str(token))
    yield address
    stop_server(proc)


def _local_value():
    with tf.Graph().as_default():
        v = tf.Variable(np.float32([1.5, -2.0]), name="v")
        out = tf.reduce_sum(v * 3.0)
        with tf.Session() as s:
            s.run(v.initializer)
            return s.run(out)


def _run_on(target):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32([1.5, -2.0]), name="v")
            out = tf.reduce_sum(v * 3.0)
        with tf.Session(target, config=tf.ConfigProto(operation_timeout_in_ms=BOUND * 1000)) as s:
            s.run(v.initializer)
            return s.run(out)


def test_tls_client_with_token_runs_on_the_tls_server(ca, tls_server, client_settings):
    client_settings(security.ClientSecurity(ca=ca["ca"], cert=ca["cert"], key=ca["key"], token=TOKEN))
    assert _run_on("grpcs://" + tls_server) == _local_value()


REFUSED = [
    # (client settings, scheme, error class, what the message says)
    ({"token": TOKEN}, "grpc://", errors.UnavailableError, "does it require TLS"),
    ({"ca": "ca", "token": TOKEN}, "grpcs://", errors.UnavailableError, "client certificate"),
    ({"ca": "ca", "cert": "cert", "key": "key", "token": "wrong"}, "grpcs://", errors.UnauthenticatedError,
     "missing or wrong token"),
    ({"ca": "ca", "cert": "cert", "key": "key"}, "grpcs://", errors.UnauthenticatedError, "missing or wrong token"),
]


@pytest.mark.parametrize("settings, scheme, error, fragment", REFUSED)
def test_the_tls_server_refuses_plain_and_unauthenticated_clients(ca, tls_server, client_settings, settings,
                                                                   scheme, error, fragment):
    client_settings(security.ClientSecurity(**{k: ca.get(v, v) for k, v in settings.items()}))
    start = time.monotonic()
    with pytest.raises(error, match=fragment) as info:
        _run_on(scheme + tls_server)
    assert tls_server in info.value.message  # the address is named
    assert time.monotonic() - start < 20  # refused within the handshake wait, not the 60 s connect bound


@pytest.fixture(scope="module")
def no_fs_server():
    """Refuses file ops; any security option limits Reset to the caller's sessions."""
    proc, address = start_server("--no-file-ops")
    yield address
    stop_server(proc)


def _refused_op(build, address, tmp_path):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32([1.0]), name="v")
            op = build(v, str(tmp_path / "f"))
        with tf.Session("grpc://" + address, config=tf.ConfigProto(operation_timeout_in_ms=BOUND * 1000)) as s:
            s.run(v.initializer)
            assert s.run(v * 2) == 2  # ordinary graphs run
            return s.run(op)


FS_OPS = [
    # (build(v, path) -> op or fn(session), the node named)
    (lambda v, path: tf.io.write_file(path, "x", name="write"), "write"),
    (lambda v, path: tf.io.read_file(path, name="read"), "read"),
    (lambda v, path: tf.io.matching_files(path + "*", name="match"), "match"),
]


@pytest.mark.parametrize("build, node", FS_OPS)
def test_no_fs_server_refuses_file_ops_naming_the_op(no_fs_server, tmp_path, build, node):
    with pytest.raises(errors.PermissionDeniedError, match=r"\{\{node " + node + r"\}\}.*without file-system ops"):
        _refused_op(build, no_fs_server, tmp_path)
    assert not (tmp_path / "f").exists()


def test_no_fs_server_refuses_a_savev2_graph(no_fs_server, tmp_path):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32([1.0]), name="v")
        saver = tf.train.Saver([v])
        with tf.Session("grpc://" + no_fs_server) as s:
            s.run(v.initializer)
            with pytest.raises(errors.PermissionDeniedError, match=r"SaveV2") as info:
                saver.save(s, str(tmp_path / "model"))
    assert info.value.op is not None and info.value.op.type == "SaveV2"
    assert not list(tmp_path.iterdir())


def _initialized(target, name, container):
    with tf.Graph().as_default():
        with tf.container(container), tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32([4.0]), name=name)
        with tf.Session(target) as s:
            return bool(s.run(tf.is_variable_initialized(v)))


def test_reset_is_limited_to_the_callers_sessions_containers(no_fs_server):
    target = "grpc://" + no_fs_server
    with tf.Graph().as_default():
        with tf.container("mine"), tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32([4.0]), name="mine_v")
        with tf.device("/job:ps/task:0"):
            shared = tf.Variable(np.float32([1.0]), name="shared_v")
        s = tf.Session(target)
        s.run([v.initializer, shared.initializer])
        with pytest.raises(errors.PermissionDeniedError, match="default container") as info:
            tf.Session.reset(target)  # the default container holds every client's variables
        assert no_fs_server.split(":")[1] in info.value.message
        with pytest.raises(errors.PermissionDeniedError, match="'other'"):
            tf.Session.reset(target, ["other"])
        # another client (no ref-sessions naming this session) may not reset "mine"
        client = rpc.Client(no_fs_server, rpc.MASTER_SERVICE, connect_timeout=BOUND)
        with pytest.raises(errors.PermissionDeniedError, match="'mine'"):
            client.Reset(master_pb2.ResetRequest(container=["mine"]), timeout=BOUND)
        assert _initialized(target, "mine_v", "mine")
        tf.Session.reset(target, ["mine"])  # its own session's container
        s.close()
    assert not _initialized(target, "mine_v", "mine")
    assert _initialized(target, "shared_v", "")  # the default container was left alone


def test_a_server_allowing_global_resets_resets_everything(client_settings):
    server = Server({"ps": ["127.0.0.1:0"]}, job_name="ps", task_index=0,
                    security=security.ServerSecurity(allow_global_reset=True))
    try:
        target = "grpc://" + server.target.split("://")[1]
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(np.float32([1.0]), name="g")
            with tf.Session(target) as s:
                s.run(v.initializer)
        assert _initialized(target, "g", "")
        tf.Session.reset(target)
        assert not _initialized(target, "g", "")
    finally:
        server.stop()
