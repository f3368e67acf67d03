"""``Session``: runs graphs; owns variable values, random generators, resources.

``run(fetches, feed_dict)`` flattens any nesting of lists, tuples, dicts and
namedtuples of Tensors, Operations, names and IndexedSlices; looks up (or
builds and caches) the plan for this signature; checks and binds the feeds;
runs the interpreter (:mod:`ref.session.interpreter`); and rebuilds the
structure with the values.
"""
from __future__ import annotations

import collections
import importlib
import os
import threading
import types
import weakref
from typing import Any, Mapping, Self

import numpy as np

from ref import protos
from ref.types import dtypes, errors
from ref.types.device_spec import DeviceSpec
from ref.platform import allocator, tf_logging
from ref.framework.graph import Graph, Operation, Tensor, get_default_graph
from ref.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ref.framework.op_def_library import as_bytes_array
from ref.framework.stack import default_session, get_default_session
from ref.framework.sparse_tensor import SparseTensor, SparseTensorValue
from ref.ops import blocking, fpenv as _fp, gemm
from ref.graph_ops.ragged_tensor import RaggedTensor, RaggedTensorValue
from ref.session.interpreter import Plan, RunState, evaluate, execute
from ref.session.devices import local_devices, place, place_plan
from ref.session import mixed_precision_global_state, runtime_config
from ref.session.tracing import fill_cost_graph, fill_step_stats
from ref.session.partial_run import PartialRun
from ref.session.session_ops import TensorHandle, handle_op
from ref.session.conversion import (expansion_for, partial_run_feeds,  # noqa: F401
                                    register_session_run_conversion_functions)

_HANDLE_OPS = frozenset({"GetSessionHandle", "GetSessionHandleV2"})
_LOCAL_SESSIONS: weakref.WeakSet[Any] = weakref.WeakSet()  # the in-process sessions Session.reset("") reaches

# REF_REFERENCE_EVALUATOR=1 runs every step through the plain reference evaluator
# (interpreter.evaluate) instead of the planned, optimised execute() -- to run a
# test suite against it. Traced runs (RunOptions.trace_level) still use execute().
_REFERENCE_EVALUATOR = os.environ.get("REF_REFERENCE_EVALUATOR", "") not in ("", "0")

# In-process servers (ref.distributed.server.Server) register their target string
# here (register_local_target), mapped to their RunState: a Session created with
# such a target runs on that state instead of its own, so every Session on the
# target shares variables, random generators and resources (queues,
# accumulators). Other targets keep a private state.
_LOCAL_TARGETS: dict[str, Any] = {}

# Targets run by a master elsewhere ("grpc://host:port"): per target prefix, a
# factory ``factory(target, graph, config)`` returning the object a Session hands
# its steps to, and a ``reset(target, containers, config)`` for ``Session.reset``.
# A higher layer registers them (register_target_handler); in-process targets
# are looked up first.
_TARGET_HANDLERS: dict[str, Any] = {}

# Where the handler of each remote scheme is registered: the module, by name,
# imported on the first Session with such a target (so ``Session("grpc://...")``
# works before anything imported ``ref.distributed``).
_TARGET_MODULES = {"grpc://": "ref.distributed.remote_session", "grpcs://": "ref.distributed.remote_session"}


def register_local_target(target, state):
    """Makes ``Session(target)`` run locally on ``state`` (a ``RunState``): an
    in-process server's target. False (nothing registered) when ``target`` is
    registered already."""
    return _LOCAL_TARGETS.setdefault(target, state) is state


def unregister_local_target(target):
    """Forgets an in-process server's target (its state is left alone)."""
    _LOCAL_TARGETS.pop(target, None)


def local_target_state(target):
    """The ``RunState`` an in-process server registered for ``target``, or None."""
    return _LOCAL_TARGETS.get(target)


def register_target_handler(prefix, factory, reset=None):
    """Makes ``Session(target)`` use ``factory(target, graph, config)`` for every
    ``target`` starting with ``prefix`` that no in-process server owns.

    The object it returns has ``run(tensors, targets, feeds, options,
    run_metadata)`` (the fetched tensors' arrays, in order), ``list_devices()``
    and ``close()``.
    """
    _TARGET_HANDLERS[prefix] = (factory, reset)


def _target_handler(target):
    """The (factory, reset) pair for a remote ``target``, its module imported on
    first use (``_TARGET_MODULES``); None for a local target."""
    for attempt in range(2):
        for prefix, handler in _TARGET_HANDLERS.items():
            if target.startswith(prefix):
                return handler
        module = next((m for prefix, m in _TARGET_MODULES.items() if target.startswith(prefix)), None)
        if module is None:
            return None
        if attempt == 0:
            importlib.import_module(module)  # registers its handler (register_target_handler)
    raise errors.UnimplementedError(None, None, f"Session target {target!r}: {module} registers no handler for it")


# -- fetch structures ---------------------------------------------------------

class _FetchMapper:
    """Flattens a fetch structure into graph elements and rebuilds it with values."""

    def __init__(self, graph, fetches):
        self.graph = graph
        self.elements = []  # unique Tensors / Operations
        self._index = {}
        self.structure = self._flatten(fetches)

    def _add(self, element):
        key = id(element)
        if key not in self._index:
            self._index[key] = len(self.elements)
            self.elements.append(element)
        return self._index[key]

    def _flatten(self, f):
        if f is None:
            raise TypeError(f'Argument `fetch` = {f} has invalid type "{type(f).__name__}". Cannot be None')
        if isinstance(f, (list, tuple)) and not isinstance(f, (IndexedSlicesValue, SparseTensorValue)):
            return (type(f), [self._flatten(x) for x in f])
        if isinstance(f, collections.abc.Mapping):
            if isinstance(f, collections.defaultdict):
                return ("defaultdict", (f.default_factory, [(k, self._flatten(v)) for k, v in f.items()]))
            return (type(f), [(k, self._flatten(v)) for k, v in f.items()])
        if getattr(type(f), "__attrs_attrs__", None) is not None:  # an attrs class: rebuilt positionally
            return ("attrs", (type(f), [self._flatten(getattr(f, a.name)) for a in type(f).__attrs_attrs__]))
        if isinstance(f, IndexedSlices):
            parts = [self._flatten(f.values), self._flatten(f.indices),
                     None if f.dense_shape is None else self._flatten(f.dense_shape)]
            return ("slices", parts)
        if isinstance(f, RaggedTensor):  # fetched as a RaggedTensorValue
            return ("ragged", [self._flatten(f.values), self._flatten(f.row_splits)])
        registered = expansion_for(f)
        if registered is not None:  # register_session_run_conversion_functions
            parts, contract = registered[1](f)
            return ("registered", (contract, [self._flatten(p) for p in parts]))
        if isinstance(f, SparseTensor):  # fetched as a SparseTensorValue
            return ("sparse", [self._flatten(f.indices), self._flatten(f.values), self._flatten(f.dense_shape)])
        return ("leaf", self._add(_fetch_element(self.graph, f)))

    def build(self, values):
        return self._build(self.structure, values)

    def _build(self, s, values):
        kind, payload = s
        if kind == "leaf":
            return values[payload]
        if kind == "slices":
            parts = [None if p is None else self._build(p, values) for p in payload]
            return IndexedSlicesValue(*parts)
        if kind == "ragged":
            return RaggedTensorValue(*(self._build(p, values) for p in payload))
        if kind == "sparse":
            return SparseTensorValue(*(self._build(p, values) for p in payload))
        if kind == "registered":
            contract, parts = payload
            return contract([self._build(p, values) for p in parts])
        if kind == "defaultdict":
            factory, items = payload
            return collections.defaultdict(factory, [(k, self._build(v, values)) for k, v in items])
        if kind == "attrs":
            cls, fields = payload
            return cls(*[self._build(x, values) for x in fields])
        if isinstance(kind, type) and issubclass(kind, collections.abc.Mapping):
            items = [(k, self._build(v, values)) for k, v in payload]
            try:
                return kind(items)
            except TypeError:
                return dict(items)
        built = [self._build(x, values) for x in payload]
        if issubclass(kind, list):  # TF returns a plain list for list subclasses too
            return built
        if kind is tuple:
            return tuple(built)
        return kind(*built)  # a namedtuple (TF builds every other tuple type this way too)


def _fetch_element(graph, fetch):
    """The Tensor or Operation ``fetch`` names or is; TF's errors for one that is
    none (TypeError) or not in ``graph`` (ValueError, also for a missing name)."""
    if hasattr(fetch, "_as_graph_element") and not isinstance(fetch, (Tensor, Operation)):
        fetch = fetch._as_graph_element()
    try:
        element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
    except TypeError as e:
        raise TypeError(f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}" must be a '
                        f'string or Tensor. ({e})') from None
    except (ValueError, KeyError) as e:
        raise ValueError(f"Argument `fetch` = {fetch} cannot be interpreted as a Tensor. ({e})") from None
    op = element if isinstance(element, Operation) else element.op
    if not graph.is_fetchable(op):
        raise errors.InaccessibleTensorError(
            f"Operation {op.name} has been marked as not fetchable. Typically this happens when it is defined "
            f"in another function or code block. Use return values, explicit Python locals or TensorFlow "
            f"collections to access it.")
    return element


class _Feeds(dict):
    """The feeds of one run (tensor -> the array the kernels see), and for a
    fed string tensor the value a fetch of it returns: TF hands back
    ``np.asarray(fed, dtype=object)`` (the very object when it is already an
    object array; str elements stay str), while kernels see bytes."""

    def __init__(self):
        super().__init__()
        self.fetch_values = {}


def _flatten_feed_dict(feed_dict):
    """``feed_dict``'s (key, value) pairs, a tuple key paired element-wise with its
    value (TF's ``nest.flatten_dict_items``)."""
    for key, value in feed_dict.items():
        if isinstance(key, tuple) and not isinstance(key, IndexedSlices):
            if not isinstance(value, (list, tuple)) or len(value) != len(key):
                raise ValueError(f"Could not flatten dictionary. Key had {len(key)} elements, but value had "
                                 f"{len(value) if isinstance(value, (list, tuple)) else 1} elements. "
                                 f"Key: {key}, value: {value}.")
            yield from _flatten_feed_dict(dict(zip(key, value)))
        else:
            yield key, value


class _DeviceAttributes:
    """One device of ``Session.list_devices()`` (TF's): the name canonical
    (``/cpu:1`` -> ``/device:CPU:1``), the type, memory limit and incarnation."""

    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        self._name = DeviceSpec.from_string(name).to_string()
        self._device_type, self._memory_limit_bytes, self._incarnation = device_type, memory_limit_bytes, incarnation

    name = property(lambda self: self._name)
    device_type = property(lambda self: self._device_type)
    memory_limit_bytes = property(lambda self: self._memory_limit_bytes)
    incarnation = property(lambda self: self._incarnation)

    def __repr__(self):
        return (f"_DeviceAttributes({self._name}, {self._device_type}, {self._memory_limit_bytes}, "
                f"{self._incarnation})")


class BaseSession:
    """The shared implementation of Session and InteractiveSession."""

    def __init__(self, target: str | bytes = "", graph: Graph | None = None, config: Any = None) -> None:
        if graph is None:
            graph = get_default_graph()
        if not isinstance(graph, Graph):
            raise TypeError(f'Argument `graph` must be a tf.Graph, but got "{type(graph).__name__}"')
        if target is not None and not isinstance(target, (str, bytes)):
            hint = (' Did you do "Session(config)" instead of "Session(config=config)"?'
                    if type(target).__name__ == "ConfigProto" else "")
            raise TypeError(f'Argument `target` must be a string, but got "{type(target).__name__}".{hint}'
                            if hint else f'Argument `target` must be a string, but got "{type(target).__name__}"')
        if config is not None and type(config).__name__ != "ConfigProto":
            raise TypeError(f'Argument `config` must be a tf.ConfigProto, but got "{type(config).__name__}"')
        target = target or ""
        if not mixed_precision_global_state.is_mixed_precision_graph_rewrite_enabled():
            mixed_precision_global_state.set_non_mixed_precision_session_created(True)
        self._graph = graph
        self._target = target
        self._config = config
        # ConfigProto.operation_timeout_in_ms: the deadline of every run's blocking kernels
        ms = getattr(config, "operation_timeout_in_ms", 0)
        self._op_timeout = ms / 1000.0 if ms > 0 else None
        # ConfigProto.intra_op_parallelism_threads: the threads one kernel may use (gemm's blocks); 0: all cores
        # (a Session without a ConfigProto takes tf.config.threading's setting, as TF 2.x's)
        self._intra_threads = max(0, getattr(config, "intra_op_parallelism_threads", 0) if config is not None
                                  else runtime_config.get_intra_op_parallelism_threads())
        self._closed = False
        self._step_count = 0  # runs so far (GraphOptions.build_cost_model counts them)
        if isinstance(target, bytes):
            target = target.decode("utf-8")
        # a ConfigProto.cluster_def (TF's ClusterSpec propagation) goes to the server's master
        # even in-process: the master runs the session over that cluster, not on its own state
        propagated = config is not None and len(config.cluster_def.job) > 0
        shared = local_target_state(target) if isinstance(target, str) and target and not propagated else None
        handler = _target_handler(target) if shared is None and isinstance(target, str) and target else None
        if target and shared is None and handler is None:  # TF: neither DirectSession's nor GrpcSession's
            raise errors.NotFoundError(None, None, "No session factory registered for the given session options: "
                                                   f"{{target: \"{target}\"}} Registered factories are "
                                                   "{GRPC_SESSION, DIRECT_SESSION}.")
        # A master elsewhere runs the steps; nothing is sent before the first run.
        self._remote = handler[0](target, graph, config) if handler is not None else None
        # the variables, generators and resources runs use; a server's belongs to it:
        # closing this session leaves it alone
        self._state = RunState() if shared is None else shared
        self._owns_state = shared is None
        allocator.keep_freed_memory()  # freed arrays' pages kept for the next step, as TF's allocator
        if self._remote is None:  # the product kernels' modules build while the program goes on
            gemm.prefetch(op.type for op in self._graph.get_operations())
        self._plans: dict[Any, Any] = {}
        self._plans_lock = threading.Lock()
        self._feed_info: dict[Any, Any] = {}
        self._fast_runs: dict[Any, Any] = {}
        self._default_ctx: list[Any] = []
        self._partial_runs: dict[Any, Any] = {}
        self._was_reset = False  # Session.reset("") closed it
        self._handle_ops: dict[Any, Any] = {}  # (kind, dtype) -> the (holder, op) TensorHandle.eval/delete run
        if not target and self._remote is None:
            _LOCAL_SESSIONS.add(self)

    # -- properties -----------------------------------------------------------
    graph = property(lambda self: self._graph)
    sess_str = property(lambda self: self._target)

    @property
    def graph_def(self):
        """The graph as a GraphDef; with ``GraphOptions.infer_shapes`` its nodes
        carry ``_output_shapes`` (TF's ``add_shapes``)."""
        opts = getattr(self._config, "graph_options", None)
        return self._graph.as_graph_def(add_shapes=bool(getattr(opts, "infer_shapes", False)))

    def list_devices(self):
        if self._remote is not None:
            return [_DeviceAttributes(*d) for d in self._remote.list_devices()]
        return [_DeviceAttributes(*d) for d in local_devices(self._config)]

    # -- lifecycle --------------------------------------------------------------
    def close(self) -> None:
        """Frees the session's state; later ``run`` calls raise RuntimeError."""
        if not self._closed:
            self._closed = True
            if self._remote is not None:
                self._remote.close()
            if self._owns_state:
                self._state.close_resources()

    def as_default(self):
        return default_session(self)

    def __enter__(self) -> Self:
        if self._default_ctx:
            raise RuntimeError("Session context managers are not re-entrant. Use `Session.as_default()` if you want "
                               "to enter a session multiple times.")
        gctx = self._graph.as_default()
        sctx = self.as_default()
        gctx.__enter__()
        sctx.__enter__()
        self._default_ctx.append((gctx, sctx))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        gctx, sctx = self._default_ctx.pop()
        sctx.__exit__(exc_type, exc, tb)
        gctx.__exit__(exc_type, exc, tb)
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # -- running ----------------------------------------------------------------
    def run(self, fetches: Any, feed_dict: Mapping[Any, Any] | None = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs the ops needed for ``fetches`` and returns their values, shaped like ``fetches``.

        Only the part of the graph that ``fetches`` depend on runs, once per call:
        each stateful op (an assign, an optimizer's update, a queue operation) at
        most once, in an order its data and control dependencies allow.

        Args:
            fetches: a graph element -- a ``Tensor``, an ``Operation``, a
                ``SparseTensor``, a ``Variable``, or the name of a tensor or op
                (``"loss:0"``, ``"train"``) -- or a list, tuple, namedtuple or dict
                of them, nested.
            feed_dict: values for tensors, by tensor (or tensor name): a NumPy
                array, a Python scalar or nested list, converted to the tensor's
                dtype and checked against its static shape. A placeholder must be
                fed; any other tensor may be, which replaces its value this call.
            options: a ``RunOptions``; ``timeout_in_ms`` (else the config's
                ``operation_timeout_in_ms``) bounds blocking kernels (queue
                dequeue, accumulator take): past it they raise
                DeadlineExceededError. ``trace_level`` asks for step stats.
            run_metadata: a ``RunMetadata`` that receives the step stats.

        Returns:
            ``fetches`` with each element replaced by its value, as TensorFlow
            returns it: a NumPy scalar (``np.float32``, ``np.int32``,
            ``np.bool_``, ...) or ``bytes`` for a 0-d tensor, an ndarray for
            higher ranks (an object array of ``bytes`` for strings), the fed value
            itself for a fed tensor, ``None`` for an Operation.

        Raises:
            RuntimeError: the session is closed, or its graph is empty.
            TypeError: a fetch is not a graph element, or a feed key not a tensor.
            ValueError: a fed value does not fit the tensor's shape or dtype, or a
                fetch belongs to another graph.
            InvalidArgumentError: a placeholder the fetches need was not fed (the
                message names it), or a kernel rejected its input.

        >>> import numpy as np, ref as tf
        >>> with tf.Graph().as_default():
        ...     x = tf.placeholder(tf.float32, [None], name="x")
        ...     y = tf.reduce_sum(x * 2.0)
        ...     with tf.Session() as sess:
        ...         print(sess.run({"y": y, "both": [x, y]}, feed_dict={x: [1.0, 2.0]}))
        {'y': np.float32(6.0), 'both': [array([1., 2.], dtype=float32), np.float32(6.0)]}

        A step's error (an ``OpError``, its message naming the op and the line that
        made it) is raised from here, as TF's ``Session.run`` raises it: a caller's
        traceback ends in this file, not in the interpreter's.
        """
        try:
            if self._intra_threads:
                with gemm.limit_threads(self._intra_threads):
                    return self._run_any(fetches, feed_dict, options, run_metadata)
            return self._run_any(fetches, feed_dict, options, run_metadata)
        except errors.OpError as e:
            raise e.with_traceback(None)  # noqa: B904 -- the same error, its frames from here up

    def _run_any(self, fetches, feed_dict, options, run_metadata):
        self._step_count += 1
        timeout = self._op_timeout
        if options is not None and getattr(options, "timeout_in_ms", 0) > 0:
            timeout = options.timeout_in_ms / 1000.0
        if timeout is not None:
            with blocking.bounded(timeout):
                return self._run(fetches, feed_dict, options, run_metadata)
        if run_metadata is None and self._remote is None and not self._closed and not self._was_reset:
            fast = self._fast_run(fetches, feed_dict)
            if fast is not _MISS:
                return fast
        return self._run(fetches, feed_dict, options, run_metadata)

    def _run(self, fetches, feed_dict, options, run_metadata):
        self._check_runnable()
        cls = fetches.__class__
        if (cls is Operation or cls is Tensor) and run_metadata is None and fetches.graph is self._graph:
            # The training loop's case, one op or tensor: no structure to flatten and rebuild.
            feeds = self._prepare_feeds(feed_dict)
            return self._run_elements([_fetch_element(self._graph, fetches)], feeds, None, options)[0]
        feeds = self._prepare_feeds(feed_dict)
        mapper = _FetchMapper(self._graph, fetches)
        return self._run_mapped(mapper, feeds, options, run_metadata)

    def _fast_run(self, fetches, feed_dict):
        """``run`` for a training loop's calls, or ``_MISS``: fetches that are a
        Tensor or Operation of this graph (or a list or tuple of them) and feeds
        that are ndarrays of their tensors' dtype and shape, keyed by Tensor. What
        the general path works out every call (the fetched elements, the plan, how
        to shape the result) is kept per fetch and per set of fed tensors."""
        cls = fetches.__class__
        if cls is Tensor or cls is Operation:
            key = fetches
        elif cls is list or cls is tuple:
            for f in fetches:
                if f.__class__ is not Tensor and f.__class__ is not Operation:
                    return _MISS
            key = (cls, *fetches)
        else:
            return _MISS
        feeds = _NO_FEEDS
        if feed_dict:
            if feed_dict.__class__ is not dict:
                return _MISS
            info = self._feed_info
            for t, value in feed_dict.items():
                i = info.get(t) if value.__class__ is np.ndarray else None
                if i is None or not i[2] or value.dtype != i[0]:
                    return _MISS
                dims = i[1]
                if dims is not None and value.shape != dims:
                    if len(dims) != value.ndim or any(d is not None and d != v for d, v in zip(dims, value.shape)):
                        return _MISS
            feeds = feed_dict  # every feed is fine as it is: only read from here on
        entry = self._fast_runs.get(key)
        if entry is None:
            if _REFERENCE_EVALUATOR:
                return _MISS
            elements = [fetches] if cls is Tensor or cls is Operation else list(fetches)
            graph = self._graph
            if graph.version == 0 or any(e.graph is not graph or not graph.is_fetchable(e) for e in elements):
                return _MISS
            if any(e.__class__ is Tensor and e.op._type in _HANDLE_OPS for e in elements):
                return _MISS  # fetched as a TensorHandle by the general path
            entry = self._fast_runs.setdefault(key, ({}, elements, len(graph._unfetchable)))
        plans, elements, unfetchable = entry
        if unfetchable != len(self._graph._unfetchable):  # prevent_fetching since: check again
            del self._fast_runs[key]
            return _MISS
        fed = tuple(feeds)
        run = plans.get(fed)
        if run is None:
            tensors = [e for e in elements if e.__class__ is Tensor and e not in feeds]
            targets = [e for e in elements if e.__class__ is Operation]
            plan = self._plan(tensors, targets, feeds) if tensors or targets else None
            # where each element's value comes from: ("op",), ("fed", tensor) or ("out", index)
            where = []
            for e in elements:
                if e.__class__ is Operation:
                    where.append(None)
                elif e in feeds:
                    where.append(e)
                else:
                    where.append(tensors.index(e))
            run = plans.setdefault(fed, (plan, tensors, where))
        plan, tensors, where = run
        if plan is None:
            results = []
        else:
            token = _fp.ignore_errors()  # np.errstate(all="ignore")'s work, without its object
            state = self._state.begin_step()
            try:
                compiled = plan.compiled
                results = (compiled(feeds, state) if compiled is not None
                           else execute(plan, feeds, state, tensors))
            finally:
                state.end_step()
                _fp.restore_errors(token)
        if cls is Operation:  # a training step's run: nothing to return
            return None
        out = [None if w is None else _to_fetch_value(results[w]) if w.__class__ is int else feeds[w]
               for w in where]
        if cls is list:
            return out
        if cls is tuple:
            return tuple(out)
        return out[0]

    def _check_runnable(self):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._was_reset:
            raise errors.CancelledError(None, None, "Session has been closed.")
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph before calling run().")

    def _run_mapped(self, mapper, feeds, options=None, run_metadata=None):
        """Runs ``mapper``'s elements. With ``run_metadata`` to fill, honours
        ``options.output_partition_graphs`` and records each op's time (and
        outputs) in ``step_stats`` as ``options.trace_level`` asks (``ref.session.tracing``)."""
        if run_metadata is not None:  # TF's run replaces the whole RunMetadata
            run_metadata.Clear()
        cost = run_metadata is not None and self._remote is None and self._cost_model_step()
        if self._remote is not None or run_metadata is None or (options is None and not cost):
            return mapper.build(self._run_elements(mapper.elements, feeds, None, options, run_metadata))
        if options is not None and options.output_partition_graphs:
            # One partition: the whole graph runs on one device.
            run_metadata.partition_graphs.add().ParseFromString(self._graph.as_graph_def().SerializeToString())
        level = options.trace_level if options is not None else 0
        if not level and not cost:
            return mapper.build(self._run_elements(mapper.elements, feeds))
        trace = []
        try:
            values = self._run_elements(mapper.elements, feeds, trace)
        finally:
            if level:
                fill_step_stats(run_metadata, trace, level)
            if cost:
                fill_cost_graph(run_metadata, trace)
        return mapper.build(values)

    def _cost_model_step(self):
        """Whether this run returns a cost graph: ``GraphOptions.build_cost_model``
        = N asks for one every N runs, counted after ``build_cost_model_after`` (TF's rule)."""
        opts = getattr(self._config, "graph_options", None)
        every = getattr(opts, "build_cost_model", 0) if opts is not None else 0
        if every <= 0:
            return False
        measured = self._step_count - 1 - opts.build_cost_model_after
        return measured >= 0 and (measured + 1) % every == 0

    def _run_elements(self, elements, feeds, trace=None, options=None, run_metadata=None):
        # A fetched tensor that is fed is not computed: TF hands back the fed array.
        tensors = [e for e in elements if isinstance(e, Tensor) and e not in feeds]
        targets = [e for e in elements if isinstance(e, Operation)]
        if not tensors and not targets:
            results = []
        elif self._remote is not None:
            results = self._remote.run(tensors, targets, feeds, options, run_metadata)
        else:
            state = self._state.begin_step()  # the run's own step container
            try:
                if _REFERENCE_EVALUATOR and trace is None:
                    with np.errstate(all="ignore"):  # TF's kernels are silent on inf/nan arithmetic
                        results = evaluate(tensors, feeds, state, targets)
                else:
                    plan = self._plan(tensors, targets, feeds)
                    with np.errstate(all="ignore"):
                        results = execute(plan, feeds, state, tensors, trace)
            finally:
                state.end_step()
        by_tensor = dict(zip(tensors, results))
        out = []
        for e in elements:
            if isinstance(e, Operation):
                out.append(None)
            elif e in feeds:
                out.append(getattr(feeds, "fetch_values", {}).get(e, feeds[e]))
            elif e.op._type in _HANDLE_OPS:  # TF hands back a TensorHandle
                out.append(TensorHandle(_to_fetch_value(by_tensor[e]), e.op.inputs[0].dtype.base_dtype, self))
            else:
                out.append(_to_fetch_value(by_tensor[e]))
        return out

    def _prepare_feeds(self, feed_dict):
        feeds = _Feeds()
        if not feed_dict:
            return feeds
        for key, value in _flatten_feed_dict(feed_dict):
            registered = expansion_for(key)
            if registered is not None and registered[2] is not None:  # register_session_run_conversion_functions
                for k, v in registered[2](key, value):
                    self._feed_one(feeds, k, v)
                continue
            if isinstance(key, IndexedSlices):
                parts = [key.values, key.indices] + ([key.dense_shape] if key.dense_shape is not None else [])
                vals = list(value)
                for k, v in zip(parts, vals):
                    self._feed_one(feeds, k, v)
                continue
            if isinstance(key, SparseTensor):
                self._prepare_sparse_feed(feeds, key, value)
                continue
            self._feed_one(feeds, key, value)
        return feeds

    def _prepare_sparse_feed(self, feeds, key, value):
        """Feeds a SparseTensor's three tensors from a SparseTensorValue or an
        ``(indices, values, dense_shape)`` triple (or its first two)."""
        if isinstance(value, SparseTensor):
            raise TypeError("The value of a feed cannot be a tf.SparseTensor object. Acceptable feed values "
                            "include a SparseTensorValue or an (indices, values, dense_shape) tuple.")
        parts = list(value) if isinstance(value, (list, tuple)) else None
        # TF zips the parts with (indices, values, dense_shape): an (indices, values)
        # pair leaves dense_shape to its default (sparse_placeholder's given shape)
        if parts is None or len(parts) not in (2, 3):
            raise TypeError(f"Cannot feed {value!r} to a SparseTensor: a SparseTensorValue or an "
                            "(indices, values, dense_shape) tuple is expected.")
        for k, v in zip((key.indices, key.values, key.dense_shape), parts):
            self._feed_one(feeds, k, v)

    def _feed_one(self, feeds, key, value):
        """Checks and converts one feed as TF does: the value becomes
        ``np.asarray(value)`` cast to the tensor's dtype (so 1.5 fed to an int32
        tensor is 1, as in TF), a Python int that the dtype cannot hold is a
        TypeError, a shape the tensor's static shape rejects a ValueError."""
        if isinstance(value, TensorHandle):  # a fed TensorHandle gives its value, as TF's
            stored = self._state.resources.get(("session_tensor", value.handle))
            if stored is None:
                raise errors.InvalidArgumentError(
                    None, None, f"The tensor with handle '{value.handle}' is not in the session store.")
            value = stored
        # Fast path: an ndarray of the right dtype and a compatible shape for a Tensor.
        if key.__class__ is Tensor and value.__class__ is np.ndarray and key.graph is self._graph:
            info = self._feed_info.get(key)
            if info is None:
                dims = None if key.shape.ndims is None else tuple(key.shape.as_list())
                info = self._feed_info.setdefault(
                    key, (key.dtype.base_dtype.np, dims, self._graph.is_feedable(key)))
            np_dtype, dims, feedable = info
            if feedable and value.dtype == np_dtype and value.dtype != object and (dims is None or (
                    len(dims) == value.ndim and all(d is None or d == v for d, v in zip(dims, value.shape)))):
                feeds[key] = value
                return
        if hasattr(key, "_as_graph_element") and not isinstance(key, (Tensor, Operation)):
            key = key._as_graph_element()
        try:
            t = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except Exception as e:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e.args[0] if e.args else e}") from None
        if isinstance(value, Tensor):
            raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                            "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, "
                            f"the tensor object was {value} which was passed to the argument `feed_dict` with "
                            f"key {key}.")
        dt = t.dtype.base_dtype
        np_dtype = dt.np
        if isinstance(value, int) and not isinstance(value, bool) and dt == dtypes.string:
            raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type "
                            f"{object}. Try explicitly setting the type of the feed tensor to a larger type "
                            f"(e.g. int64).")  # TF's check, with the string tensor's NumPy type: object
        if isinstance(value, int) and dt != dtypes.string:
            if np.array(value).astype(np_dtype) != value:
                raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with "
                                f"Tensor type {np.dtype(np_dtype).type}. Try explicitly setting the type of the feed tensor "
                                f"to a larger type (e.g. int64).")
        if dt == dtypes.string:
            arr = as_bytes_array(value)
            if hasattr(feeds, "fetch_values"):  # fetched back as TF does: np.asarray(value, dtype=object)
                feeds.fetch_values[t] = value if isinstance(value, np.ndarray) and value.dtype == object \
                    else np.asarray(value, dtype=object)
        elif np.issubdtype(np_dtype, np.number):
            arr = np.asarray(value).astype(np_dtype, copy=False)
        else:
            arr = np.asarray(value, dtype=np_dtype)
        if not t.shape.is_compatible_with(arr.shape):
            raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor {t.name}, which has "
                             f"shape {t.shape}")
        if not self._graph.is_feedable(t):
            raise ValueError(f"Tensor {t.name} may not be fed.")
        feeds[t] = arr

    def _make_callable_from_options(self, callable_options):
        """TF's callable from a ``CallableOptions``: ``f(*feed_values, run_metadata=None)``
        runs ``callable_options.fetch`` (tensor names; ``target`` ops run too) with
        its ``feed`` tensors fed and ``run_options``, and returns the fetched values as a list."""
        feeds = [self._graph.as_graph_element(n, allow_tensor=True, allow_operation=False)
                 for n in callable_options.feed]
        fetches = [self._graph.as_graph_element(n, allow_tensor=True, allow_operation=False)
                   for n in callable_options.fetch]
        targets = [self._graph.as_graph_element(n, allow_tensor=False, allow_operation=True)
                   for n in callable_options.target]
        options = callable_options.run_options if callable_options.HasField("run_options") else None
        run = self.make_callable([fetches, targets], feeds, accept_options=True)

        def callable_(*args, run_metadata=None):
            if len(args) != len(feeds):
                raise errors.InvalidArgumentError(None, None, f"Expected {len(feeds)} feed values, got {len(args)}")
            return list(run(*args, options=options, run_metadata=run_metadata)[0])
        return callable_

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function ``f(*feed_values)`` running ``fetches`` with ``feed_list`` fed,
        planned once; it returns what ``run(fetches, ...)`` would."""
        if feed_list is not None and not isinstance(feed_list, (list, tuple)):
            raise TypeError(f"Argument `feed_list` must be a list or tuple. Received: feed_list={feed_list}")
        mapper = _FetchMapper(self._graph, fetches)
        feed_list = list(feed_list or [])

        def callable_(*args, **kwargs):
            self._check_runnable()
            if kwargs:
                if not accept_options or set(kwargs) - {"options", "run_metadata"}:
                    raise TypeError(f"callable got unexpected keyword arguments {sorted(kwargs)}"
                                    + ("" if accept_options else " (make_callable(accept_options=True) takes "
                                                                 "options= and run_metadata=)"))
            if self._intra_threads:
                with gemm.limit_threads(self._intra_threads):
                    return call(args, kwargs)
            return call(args, kwargs)

        def call(args, kwargs):
            # As in TF, the values pair with ``feed_list`` in order (zip: extra values are ignored).
            if not kwargs and self._remote is None and self._op_timeout is None:
                fast = self._fast_run(fetches, dict(zip(feed_list, args)))
                if fast is not _MISS:
                    return fast
            return self._run_mapped(mapper, self._prepare_feeds(dict(zip(feed_list, args))), **kwargs)

        return callable_

    def partial_run_setup(self, fetches, feeds=None):
        """Sets up a step run in pieces by :meth:`partial_run`; returns its handle.
        ``fetches``: every Tensor/Operation the pieces will fetch; ``feeds``: every
        tensor they will feed."""
        self._check_runnable()
        elements = _FetchMapper(self._graph, fetches).elements
        feed_list = [_fetch_element(self._graph, t) for f in (feeds or []) for t in partial_run_feeds(f)]
        pr = PartialRun(self._graph, elements, feed_list)
        self._partial_runs[pr.handle] = pr
        return pr.handle

    def partial_run(self, handle, fetches, feed_dict=None):
        """Runs one piece of the step set up by :meth:`partial_run_setup`: feeds
        ``feed_dict`` and returns ``fetches`` (shaped like them), computing only
        what earlier pieces did not."""
        self._check_runnable()
        pr = self._partial_runs.get(handle)
        if pr is None:
            raise errors.InvalidArgumentError(None, None, "Must run 'setup' before performing partial runs!")
        mapper = _FetchMapper(self._graph, fetches)
        feeds = self._prepare_feeds(feed_dict)
        with pr.lock:
            pr.check(mapper.elements, list(feeds))
            tensors, targets, extra, missing = pr.needed(mapper.elements, feeds)
            if missing:
                raise errors.InvalidArgumentError(
                    None, None, f"Fetch {missing[0].name} can't be computed from the feeds that have been fed "
                                "so far.")
            all_feeds = _Feeds()
            all_feeds.update(pr.known)
            all_feeds.update(feeds)
            all_feeds.fetch_values.update(getattr(feeds, "fetch_values", {}))
            values = self._run_elements(tensors + targets + extra, all_feeds)
            computed = dict(zip(tensors + targets + extra, values))
            pr.fed.update(feeds)
            pr.known.update(feeds)
            pr.known.update((t, v) for t, v in computed.items() if isinstance(t, Tensor))
            pr.fetched.update(mapper.elements)
        return mapper.build([computed[e] if e in computed else all_feeds[e] for e in mapper.elements])

    def _reset_containers(self, containers):
        """Drops the values of the variables in ``containers`` (all when None)."""
        if self._closed or not self._owns_state:
            return
        wanted = None if containers is None else {c.decode() if isinstance(c, bytes) else c for c in containers}
        with self._state.store.lock:
            for op in self._graph.get_operations():
                if not op._opdef.creates_ref:
                    continue
                container = op._attrs.get("container") or ""
                if wanted is None or container in wanted:
                    self._state.store.values.pop(op._attrs.get("shared_name") or op.name, None)

    def _handle_op(self, kind, dtype):
        return handle_op(self, kind, dtype)

    def _place_whole_graph(self):
        """TF's DirectSession places every op of the graph before a run, not only the ones the run
        needs (unless ``GraphOptions.place_pruned_graph``, which InteractiveSession sets): an op that
        cannot be placed fails every run. Checked once per graph version, and only when an op asks
        for a GPU (nothing else can fail to place here)."""
        graph, config = self._graph, self._config
        if config is not None and config.graph_options.place_pruned_graph:
            return
        version = graph._version
        if getattr(self, "_placed_version", None) == version:
            return
        ops = graph.get_operations()
        if any("GPU" in (op.device or "").upper() for op in ops):
            place(ops, config)
        self._placed_version = version

    def _plan(self, tensors, targets, feeds):
        """The cached Plan computing ``tensors`` and running ``targets`` with ``feeds`` fed."""
        key = (tuple(id(t) for t in tensors), tuple(id(o) for o in targets), tuple(id(t) for t in feeds))
        plan = self._plans.get(key)
        if plan is None:
            self._place_whole_graph()
            plan = Plan(tensors, targets, list(feeds), values_fed=True)
            place_plan(plan, self._config)  # tf.device('/gpu:0'): GPU steps, device-resident values
            with self._plans_lock:
                self._plans[key] = plan
        return plan


_MISS = object()
_NO_FEEDS: Mapping[Any, Any] = types.MappingProxyType({})


def _to_fetch_value(value):
    """A computed value as ``Session.run`` returns it: TF's C API hands back a NumPy
    scalar for a 0-d tensor (``bytes`` for a string) and a fresh ndarray otherwise; a quantized
    type's values (held as TF's one-field structured dtype) come back as its plain integers."""
    if value.__class__ is np.ndarray:
        if value.dtype.names is not None and len(value.dtype.names) == 1:
            value = value.view(value.dtype[0])
        if value.ndim == 0:
            return value[()]
        return value if value.flags.writeable else value.copy()
    if value is None or isinstance(value, (bytes, np.generic)):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return _to_fetch_value(np.asarray(value))


class Session(BaseSession):
    """A class for running TensorFlow operations (``tf.Session``)."""

    def __init__(self, target: str | bytes = "", graph: Graph | None = None, config: Any = None) -> None:
        super().__init__(target, graph, config)

    @staticmethod
    def reset(target, containers=None, config=None):
        """Resets resource containers on ``target``: on a remote master (a
        ``grpc://`` target) its Reset RPC clears ``containers`` (all when None)
        on every task and closes the master's sessions; on the in-process target
        ("") every open local session forgets the variables created in those
        containers (``tf.container``), which are then uninitialised, as TF's
        DirectSession reset."""
        if isinstance(target, bytes):
            target = target.decode("utf-8")
        if not target:  # TF closes every in-process session: their runs raise CancelledError
            for sess in list(_LOCAL_SESSIONS):
                sess._reset_containers(containers)
                sess._was_reset = True
            return
        handler = _target_handler(target) if isinstance(target, str) and target not in _LOCAL_TARGETS else None
        if handler is None and target not in _LOCAL_TARGETS:  # TF: no session factory takes the target
            raise errors.NotFoundError(None, None, f"No session factory registered for the given session options: "
                                                   f"{{target: \"{target}\"}} Registered factories are "
                                                   f"{{DIRECT_SESSION, GRPC_SESSION}}.")
        if handler is not None and handler[1] is not None:
            handler[1](target, containers, config)


class InteractiveSession(BaseSession):
    """A Session that installs itself as the default on construction (for shells)."""

    _active_session_count = 0  # open InteractiveSessions (TF logs an error when a second opens)
    _count_lock = threading.Lock()

    def __init__(self, target="", graph=None, config=None):
        if not config:  # TF's: a config of its own, or the caller's, placing only what a run needs
            config = protos.config_pb2.ConfigProto(gpu_options=protos.config_pb2.GPUOptions(allow_growth=True))
        config.graph_options.place_pruned_graph = True
        super().__init__(target, graph, config)
        with InteractiveSession._count_lock:
            if InteractiveSession._active_session_count > 0:
                tf_logging.error(
                    "An interactive session is already active. This can cause out-of-memory errors or some other "
                    "unexpected errors (due to the unpredictable timing of garbage collection) in some cases. You "
                    "must explicitly call `InteractiveSession.close()` to release resources held by the other "
                    "session(s). Please use `tf.Session()` if you intend to productionize.")
            InteractiveSession._active_session_count += 1
        self._sess_ctx = default_session(self, enforce_nesting=False)
        self._sess_ctx.__enter__()
        # TF enters the graph as the default only when one was given (None means the default already)
        self._graph_ctx = self._graph.as_default() if graph is not None else None
        if self._graph_ctx is not None:
            self._graph_ctx.__enter__()
        self._explicitly_closed = False

    def close(self):
        super().close()
        if not self._explicitly_closed:
            with InteractiveSession._count_lock:
                InteractiveSession._active_session_count -= 1
            self._explicitly_closed = True
            try:
                if self._graph_ctx is not None:
                    self._graph_ctx.__exit__(None, None, None)
                self._sess_ctx.__exit__(None, None, None)
            except (IndexError, AssertionError, RuntimeError):
                pass
