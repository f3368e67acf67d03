"""A minimal test-only WorkerService for the master's tests (the real one is
ref.distributed.worker.Worker): a partition GraphDef is imported into a ref Graph with
each client-terminated ``_Recv`` as a Placeholder and each ``_Send`` as a fetch, and run
with one ref Session state (variables, RNGs, resources) per fake task."""
import itertools

from ref.types import dtypes, errors
import ref as _tf
from ref.framework import importer
from ref.framework.graph import Graph
from ref.formats.tensor_util import make_ndarray, make_tensor_proto
from ref.protos import graph_pb2, worker_pb2
from ref.session.interpreter import RunState, StateStore
from ref.session.session import Session


class FakeWorker:
    def __init__(self, task_name, incarnation=1):
        self.task_name = task_name
        self.device_name = task_name + "/device:CPU:0"
        self.incarnation = incarnation
        self.store, self.rngs, self.resources = StateStore(), {}, {}
        self.graphs, self.sessions, self.calls = {}, set(), []
        self._handles = itertools.count(1)

    def _log(self, method, request):
        self.calls.append((method, request))

    def GetStatus(self, request, timeout=None):
        self._log("GetStatus", request)
        r = worker_pb2.GetStatusResponse()
        r.device_attributes.add(name=self.device_name, device_type="CPU", incarnation=self.incarnation)
        return r

    def CreateWorkerSession(self, request, timeout=None):
        self._log("CreateWorkerSession", request)
        self.sessions.add(request.session_handle)
        return worker_pb2.CreateWorkerSessionResponse()

    def DeleteWorkerSession(self, request, timeout=None):
        self._log("DeleteWorkerSession", request)
        self.sessions.discard(request.session_handle)
        return worker_pb2.DeleteWorkerSessionResponse()

    def RegisterGraph(self, request, timeout=None):
        self._log("RegisterGraph", request)
        if request.session_handle not in self.sessions:
            raise errors.AbortedError(None, None, f"Session handle is not found: {request.session_handle}")
        gd, recvs, sends = graph_pb2.GraphDef(), {}, {}
        for n in request.graph_def.node:
            assert n.device.startswith(self.task_name + "/device:"), (n.name, n.device)
            key = "{0};{1:016x};{0};{2};0:0".format(
                n.attr["send_device"].s.decode(), n.attr["send_device_incarnation"].i % (1 << 64),
                n.attr["tensor_name"].s.decode())
            if n.op == "_Recv":
                recvs[key] = (n.name, n.attr["tensor_type"].type)
            elif n.op == "_Send":
                sends[key] = n.input[0] if ":" in n.input[0] else n.input[0] + ":0"
            else:
                gd.node.add().CopyFrom(n)
        g = Graph()
        with g.as_default():
            placeholders = {k: _tf.placeholder(dtypes.as_dtype(t), name=f"recv{i}") for i, (k, (_, t))
                            in enumerate(sorted(recvs.items()))}
            importer.import_nodes(g, list(gd.node), {recvs[k][0]: p for k, p in placeholders.items()}, {}, "")
        recvs = {k: p.name for k, p in placeholders.items()}
        sess = Session(graph=g)
        sess._state = RunState(self.store, self.rngs, self.resources)
        ops = [op for op in g.get_operations() if op.type != "Placeholder"]
        handle = f"{next(self._handles):016x}"
        self.graphs[handle] = (sess, {k: g.get_tensor_by_name(v) for k, v in recvs.items()},
                               {k: g.get_tensor_by_name(v) for k, v in sends.items()}, ops, request.graph_def)
        return worker_pb2.RegisterGraphResponse(graph_handle=handle)

    def DeregisterGraph(self, request, timeout=None):
        self._log("DeregisterGraph", request)
        self.graphs.pop(request.graph_handle, None)
        return worker_pb2.DeregisterGraphResponse()

    def RunGraph(self, request, timeout=None):
        self._log("RunGraph", request)
        if request.graph_handle not in self.graphs:
            raise errors.AbortedError(None, None, f"Graph handle is not found: {request.graph_handle}")
        sess, recvs, sends, ops, _ = self.graphs[request.graph_handle]
        given = {nt.name: nt.tensor for nt in request.send}
        missing = [k for k in recvs if k not in given]
        if missing:
            raise errors.InvalidArgumentError(None, None, f"RunGraph: no value sent for key {missing[0]}")
        feed = {recvs[k]: make_ndarray(v) for k, v in given.items()}
        keys = list(request.recv_key)
        values = sess.run([sends[k] for k in keys] + ops, feed)
        r = worker_pb2.RunGraphResponse()
        for k, v in zip(keys, values):
            r.recv.add(name=k, tensor=make_tensor_proto(v))
        return r

    def CleanupGraph(self, request, timeout=None):
        return worker_pb2.CleanupGraphResponse()

    def CleanupAll(self, request, timeout=None):
        self._log("CleanupAll", request)
        self.store, self.rngs, self.resources = StateStore(), {}, {}
        return worker_pb2.CleanupAllResponse()
