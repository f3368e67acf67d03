"""Who may talk to a ref server, and what it will run: TLS, a shared token, limits.

TensorFlow's servers use insecure gRPC credentials: anyone who reaches the port
may run any graph. ref keeps that the default (so ref and TensorFlow processes
interoperate), and adds, as opt-in (ref only, not in TensorFlow):

* :class:`ServerSecurity` for ``tf.train.Server(..., security=...)`` (or the
  environment, below): the task's TLS certificate and key; ``ca``, the cluster's
  CA, which verifies the other tasks this server's master calls and, with
  ``client_auth=True``, the certificate every client must present (mutual TLS);
  ``token``, a shared secret every RPC must carry in its metadata (checked in
  constant time; a missing or wrong one is an UnauthenticatedError naming the
  server); ``allow_file_ops=False``, refusing to run ops that touch this
  machine's files (:data:`FILE_OPS`, PermissionDeniedError naming the op); and
  ``allow_global_reset``: a server with a ``ServerSecurity`` lets ``Reset`` clear
  only containers the caller's own sessions use, unless this is True.
* :class:`ClientSecurity` for the client side: the CA that verifies servers, an
  optional client certificate and key, the token. ``Session("grpcs://host:port")``
  uses TLS with :func:`client_security` (set by :func:`set_client_security`, else
  the environment); ``grpc://`` stays plain, as TensorFlow's. The token is sent
  whenever one is configured (TensorFlow's servers ignore it).

Environment (read when no keyword is given, so an unchanged TF1 script is secured
by how it is started -- ``python -m ref cluster run --tls`` sets them):
``REF_TLS_CERT``, ``REF_TLS_KEY`` (this task's certificate and key: served, and
presented as client certificate), ``REF_TLS_CA`` (the CA verifying peers),
``REF_TLS_CLIENT_AUTH=1`` (servers require client certificates), ``REF_RPC_TOKEN``
or ``REF_RPC_TOKEN_FILE`` (the shared token), ``REF_SERVER_NO_FILE_OPS=1``,
``REF_SERVER_ALLOW_GLOBAL_RESET=1``. Values in files are PEM; keyword arguments
take a path or the PEM bytes.
"""
from __future__ import annotations

import hmac
import os

from ref.types import errors

__all__ = ["ServerSecurity", "ClientSecurity", "client_security", "set_client_security", "FILE_OPS",
           "check_file_ops", "TOKEN_KEY", "SESSIONS_KEY", "token_matches"]

TOKEN_KEY = "ref-token"  # gRPC metadata carrying the shared token
SESSIONS_KEY = "ref-sessions"  # metadata of a Reset: the caller's own session handles, comma separated

_TRUE = ("1", "true", "yes", "on")


def _pem(value, what):
    """PEM bytes from a path or bytes (None stays None); ValueError when they hold no PEM
    block of the kind ``what`` names (a certificate or a private key)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str) and value.lstrip().startswith("-----BEGIN"):
        data = value.encode()
    else:
        try:
            with open(os.fspath(value), "rb") as f:
                data = f.read()
        except OSError as e:
            raise ValueError(f"cannot read the {what} from {value!r}: {e.strerror}") from None
    label = b"PRIVATE KEY-----" if what.endswith("key") else b"CERTIFICATE-----"
    if b"-----BEGIN" not in data or label not in data:
        raise ValueError(f"the {what} is not PEM (no '-----BEGIN ...{label.decode()}' block)")
    return data


def _token(value):
    if value is None or value == "":
        return None
    return value.encode() if isinstance(value, str) else bytes(value)


def _env_token(env):
    if env.get("REF_RPC_TOKEN"):
        return env["REF_RPC_TOKEN"]
    path = env.get("REF_RPC_TOKEN_FILE")
    if path:
        with open(path) as f:
            return f.read().strip()
    return None


def token_matches(expected, metadata):
    """Whether ``metadata`` (pairs) carries ``expected`` under TOKEN_KEY (constant-time compare)."""
    got = next((v for k, v in metadata if k == TOKEN_KEY), None)
    if got is None:
        return False
    got = got.encode() if isinstance(got, str) else bytes(got)
    return hmac.compare_digest(got, expected)


class ClientSecurity:
    """How this process calls servers: ``ca`` (verifies them; TLS when given), ``cert`` and
    ``key`` (presented to servers requiring client certificates), ``token``, and
    ``target_name`` (the name the servers' certificates carry, when it differs from the
    host in the address)."""

    def __init__(self, ca=None, cert=None, key=None, token=None, target_name=None):
        self.ca = _pem(ca, "CA certificate")
        self.cert = _pem(cert, "client certificate")
        self.key = _pem(key, "client key")
        if (self.cert is None) != (self.key is None):
            raise ValueError("ClientSecurity: give both cert and key, or neither")
        self.token = _token(token)
        self.target_name = target_name

    @property
    def tls(self):
        return self.ca is not None or self.cert is not None

    @classmethod
    def from_env(cls, env=None):
        env = os.environ if env is None else env
        cert, key = env.get("REF_TLS_CERT"), env.get("REF_TLS_KEY")
        return cls(ca=env.get("REF_TLS_CA") or None, cert=cert if cert and key else None,
                   key=key if cert and key else None, token=_env_token(env))

    def key_id(self):
        """What distinguishes channels opened with these settings."""
        return (self.ca, self.cert, self.target_name) if self.tls else None

    def channel_credentials(self, grpc):
        return grpc.ssl_channel_credentials(root_certificates=self.ca, private_key=self.key,
                                            certificate_chain=self.cert)

    def metadata(self):
        return ((TOKEN_KEY, self.token.decode("latin-1")),) if self.token else ()


class ServerSecurity:
    """A server's credentials and limits (see the module docstring)."""

    def __init__(self, cert=None, key=None, ca=None, token=None, client_auth=False, allow_file_ops=True,
                 allow_global_reset=False):
        self.cert = _pem(cert, "server certificate")
        self.key = _pem(key, "server key")
        if (self.cert is None) != (self.key is None):
            raise ValueError("ServerSecurity: give both cert and key, or neither")
        self.ca = _pem(ca, "CA certificate")
        self.client_auth = bool(client_auth)
        if self.client_auth and (self.ca is None or self.cert is None):
            raise ValueError("ServerSecurity(client_auth=True) needs cert, key and the ca that signs client "
                             "certificates")
        self.token = _token(token)
        self.allow_file_ops = bool(allow_file_ops)
        self.allow_global_reset = bool(allow_global_reset)

    @property
    def tls(self):
        return self.cert is not None

    @property
    def scheme(self):
        """The target scheme clients use: ``grpcs://`` with TLS, else TF's ``grpc://``."""
        return "grpcs" if self.tls else "grpc"

    @classmethod
    def from_env(cls, env=None):
        """The settings the environment gives, or None when it sets none of them."""
        env = os.environ if env is None else env
        names = ("REF_TLS_CERT", "REF_TLS_KEY", "REF_TLS_CA", "REF_RPC_TOKEN", "REF_RPC_TOKEN_FILE",
                 "REF_SERVER_NO_FILE_OPS", "REF_SERVER_ALLOW_GLOBAL_RESET")
        if not any(env.get(n) for n in names):
            return None
        return cls(cert=env.get("REF_TLS_CERT") or None, key=env.get("REF_TLS_KEY") or None,
                   ca=env.get("REF_TLS_CA") or None, token=_env_token(env),
                   client_auth=env.get("REF_TLS_CLIENT_AUTH", "").lower() in _TRUE,
                   allow_file_ops=env.get("REF_SERVER_NO_FILE_OPS", "").lower() not in _TRUE,
                   allow_global_reset=env.get("REF_SERVER_ALLOW_GLOBAL_RESET", "").lower() in _TRUE)

    def server_credentials(self, grpc):
        return grpc.ssl_server_credentials([(self.key, self.cert)], root_certificates=self.ca,
                                           require_client_auth=self.client_auth)

    def outgoing(self):
        """How this server's master calls the other tasks: the cluster's CA, this task's
        certificate as client certificate, the same token."""
        return ClientSecurity(ca=self.ca, cert=self.cert if self.tls else None, key=self.key if self.tls else None,
                              token=self.token)


_CLIENT = None


def set_client_security(security):
    """Sets how this process calls ``grpcs://`` targets and which token it sends
    (a :class:`ClientSecurity`; None: read the environment again). Returns the previous."""
    global _CLIENT
    old, _CLIENT = _CLIENT, security
    return old


def client_security():
    """The process's :class:`ClientSecurity`: :func:`set_client_security`'s, else the environment's."""
    return _CLIENT if _CLIENT is not None else ClientSecurity.from_env()


# -- ops that touch files ------------------------------------------------------------

FILE_OPS = {
    **dict.fromkeys(("TFRecordReader", "TFRecordReaderV2", "TextLineReader", "TextLineReaderV2", "WholeFileReader",
                     "WholeFileReaderV2", "FixedLengthRecordReader", "FixedLengthRecordReaderV2", "LMDBReader"),
                    "a reader opens files"),
    "MatchingFiles": "lists files", "MatchingFilesDataset": "lists files",
    **dict.fromkeys(("Save", "SaveV2", "SaveSlices", "MergeV2Checkpoints"), "writes a checkpoint"),
    **dict.fromkeys(("Restore", "RestoreV2", "RestoreSlice", "LoadAndRemapMatrix"), "reads a checkpoint"),
    "ReadFile": "reads a file", "WriteFile": "writes a file", "ImmutableConst": "maps a file",
    **dict.fromkeys(("CreateSummaryFileWriter", "CreateSummaryDbWriter"), "opens a summary file"),
    **dict.fromkeys(("TFRecordDataset", "TFRecordDatasetV2", "TextLineDataset", "FixedLengthRecordDataset",
                     "FixedLengthRecordDatasetV2", "SnapshotDataset", "SnapshotDatasetV2", "LoadDataset",
                     "SaveDataset", "SaveDatasetV2", "DatasetToTFRecord"), "a dataset reads or writes files"),
    **dict.fromkeys(("InitializeTableFromTextFile", "InitializeTableFromTextFileV2"), "reads a vocabulary file"),
}
# Ops that touch files only with some inputs or attrs: refused unless the check says no file.
_MAYBE = {"CacheDataset": "caches to a file", "CacheDatasetV2": "caches to a file",
          "PrintV2": "prints to a file"}


def _const_string(node):
    t = node.attr["value"].tensor if "value" in node.attr else None
    if t is None or t.tensor_shape.dim:
        return None
    return t.string_val[0] if t.string_val else (b"" if t.dtype == 7 else None)


def _touches_files(node, nodes):
    if node.op in FILE_OPS:
        return FILE_OPS[node.op]
    if node.op in ("CacheDataset", "CacheDatasetV2"):  # filename "" (a constant) caches in memory
        src = nodes.get(node.input[1].split(":")[0]) if len(node.input) > 1 else None
        return None if src is not None and src.op == "Const" and _const_string(src) == b"" else _MAYBE[node.op]
    if node.op == "PrintV2" and node.attr["output_stream"].s.startswith(b"file://"):
        return _MAYBE[node.op]
    return None


def check_file_ops(graph_def, security, where):
    """PermissionDeniedError naming the first node (of the graph or a function of its
    library) whose op touches files, when ``security`` forbids file ops."""
    if security is None or security.allow_file_ops:
        return
    bodies = [("", graph_def.node)] + [(f" in function {f.signature.name}", f.node_def)
                                       for f in graph_def.library.function]
    for inside, nodes in bodies:
        by_name = {n.name: n for n in nodes}
        for n in nodes:
            why = _touches_files(n, by_name)
            if why:
                raise errors.PermissionDeniedError(
                    None, None, f"{{{{node {n.name}}}}} ({n.op}{inside}) {why}: the server {where} was started "
                    "without file-system ops (ServerSecurity(allow_file_ops=False), REF_SERVER_NO_FILE_OPS)")
