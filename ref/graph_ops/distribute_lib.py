"""``tf.distribute`` in a TF1 graph: the strategy and replica contexts, the
default strategy, and ``MirroredStrategy`` over one local device.

TF's ``distribute_lib`` (API reference ``tf.distribute.Strategy``,
``tf.distribute.ReplicaContext``, ``tf.distribute.get_strategy``): code runs
either in a *cross-replica context* (inside ``strategy.scope()``, or inside a
``merge_call``) or in a *replica context* (inside ``call_for_each_replica`` /
``run``). Outside any scope the thread is in the default replica context of the
default strategy, so library code can call ``get_replica_context().merge_call``
without knowing whether a strategy is in use. As in TF, the current mode is a
stack kept on the default graph (each graph starts in the default mode).

``MirroredStrategy`` here mirrors onto exactly one local device: its replica
runs under that device, ``num_replicas_in_sync`` is 1, and a reduction over
the replicas is the replica's own value. More than one device needs TF's
per-device variables and replica threads, which ref does not have: the
constructor raises ValueError for them.
"""
from __future__ import annotations

import contextlib
import enum
import threading

from ref.types import dtypes, nest
from ref.types.device_spec import DeviceSpec
from ref.framework.graph import device as _device_scope, get_default_graph
from ref.framework.op_def_library import constant
from ref.graph_ops import control_flow_ops, math_ops

__all__ = ["ReduceOp", "Strategy", "StrategyExtended", "ReplicaContext", "MirroredStrategy", "get_strategy",
           "has_strategy", "get_replica_context", "get_cross_replica_context", "in_cross_replica_context",
           "get_loss_reduction"]


class ReduceOp(enum.Enum):
    """How values of the replicas are combined: ``SUM`` or ``MEAN`` (TF's ``tf.distribute.ReduceOp``)."""
    SUM = "SUM"
    MEAN = "MEAN"


# -- the per-graph mode stack ----------------------------------------------------------------
class _ThreadMode:
    """The strategy, and which of the two contexts is current (the other is None)."""

    def __init__(self, strategy, cross_replica, replica):
        self.strategy = strategy
        self.cross_replica_context = cross_replica
        self.replica_context = replica


_STACKS = {}  # id(graph) -> (graph, [mode, ...]); the graph is kept so that its id is never reused


def _stack():
    graph = get_default_graph()
    entry = _STACKS.get(id(graph))
    if entry is None or entry[0] is not graph:
        entry = _STACKS[id(graph)] = (graph, [])
    return entry[1]


@contextlib.contextmanager
def _mode(mode):
    stack = _stack()
    stack.append(mode)
    try:
        yield
    finally:
        stack.pop()


def _current():
    stack = _stack()
    if stack:
        return stack[-1]
    default = _default_strategy()
    return _ThreadMode(default, None, default._default_replica_context)


def get_strategy():
    """The strategy of the current context; the default strategy outside any ``scope()``."""
    return _current().strategy


def has_strategy():
    """Whether a strategy other than the default one is in use."""
    return get_strategy() is not _default_strategy()


def get_replica_context():
    """The current ReplicaContext, or None in a cross-replica context."""
    return _current().replica_context


def get_cross_replica_context():
    """The strategy when in a cross-replica context, else None."""
    return _current().cross_replica_context


def in_cross_replica_context():
    """True inside ``strategy.scope()`` (not the default strategy's) or a ``merge_call``."""
    return _current().cross_replica_context is not None


def get_loss_reduction():
    """The reduction a TF1 optimizer applies to a loss over the replicas: ``SUM`` (TF scales
    the loss only for an Estimator's, which ref does not have)."""
    return ReduceOp.SUM


# -- contexts ---------------------------------------------------------------------------------
class ReplicaContext:
    """The context of one replica: its id and ``merge_call`` into the cross-replica context."""

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self._replica_id_in_sync_group = replica_id_in_sync_group

    def __enter__(self):
        self._cm = _mode(_ThreadMode(self._strategy, None, self))
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """The replica's id as an int32 scalar Tensor (made in the graph where it is asked for)."""
        return constant(self._replica_id_in_sync_group, dtypes.int32, name="replica_id_in_sync_group")

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` in the cross-replica context; with one
        replica the arguments are that replica's values."""
        with _mode(_ThreadMode(self._strategy, self._strategy, None)):
            return merge_fn(self._strategy, *args, **(kwargs or {}))

    def all_reduce(self, reduce_op, value):
        """The reduction over the replicas of each tensor in ``value`` (one replica: the value)."""
        reduce_op = ReduceOp(reduce_op.upper()) if isinstance(reduce_op, str) else reduce_op
        return nest.map_structure(lambda v: self._strategy.extended._reduce(reduce_op, v), value)


class StrategyExtended:
    """The strategy's lower-level API (``strategy.extended``)."""

    def __init__(self, container_strategy, devices):
        self._container_strategy = container_strategy
        self._devices = tuple(devices)

    @property
    def _num_replicas_in_sync(self):
        return max(len(self._devices), 1)

    @property
    def worker_devices(self):
        return self._devices

    @property
    def parameter_devices(self):
        return self._devices

    def _device_scope(self):
        return _device_scope(self._devices[0]) if self._devices else contextlib.nullcontext()

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        """``fn(*args, **kwargs)`` run once per replica in its replica context and device; the
        results regrouped (one replica: its result)."""
        strategy = self._container_strategy
        with ReplicaContext(strategy, 0), self._device_scope():
            return fn(*args, **(kwargs or {}))

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """``fn(var, *args, **kwargs)`` on the variable's device, from the cross-replica context."""
        with _device_scope(var.device) if getattr(var, "device", None) else contextlib.nullcontext():
            result = fn(var, *args, **(kwargs or {}))
        return self._group(result) if group else result

    def reduce_to(self, reduce_op, value, destinations):
        return self._reduce(reduce_op, value)

    def _reduce(self, reduce_op, value):
        # one replica: SUM and MEAN of a single value are the value
        return value

    def _group(self, value, name=None):
        flat = [v for v in nest.flatten(value) if v is not None]
        return control_flow_ops.group(*flat, name=name)


class Strategy:
    """A way of running a computation on replicas (TF's ``tf.compat.v1.distribute.Strategy``)."""

    def __init__(self, extended):
        self._extended = extended
        self._default_replica_context = ReplicaContext(self, 0)

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        return self._extended._num_replicas_in_sync

    @contextlib.contextmanager
    def scope(self):
        """Makes this strategy current, in the cross-replica context; yields the strategy."""
        if has_strategy() and get_strategy() is not self:
            raise RuntimeError("Mixing different tf.distribute.Strategy objects: %s is not %s"
                               % (self, get_strategy()))
        with _mode(_ThreadMode(self, self, None)):
            yield self

    def run(self, fn, args=(), kwargs=None):
        """``fn`` in each replica's context (``Strategy.run``)."""
        with self.scope():
            return self._extended.call_for_each_replica(fn, args=args, kwargs=kwargs)

    def experimental_run(self, fn, input_iterator=None):
        """TF1's ``experimental_run``: ``fn(next element)`` (or ``fn()``) in each replica."""
        with self.scope():
            args = (input_iterator.get_next(),) if input_iterator is not None else ()
        return self.run(fn, args=args)

    def reduce(self, reduce_op, value, axis=None):
        """The replicas' values reduced to one; ``axis`` also reduces within each value."""
        reduce_op = ReduceOp(reduce_op.upper()) if isinstance(reduce_op, str) else reduce_op
        if axis is not None:
            fn = math_ops.reduce_sum if reduce_op is ReduceOp.SUM else math_ops.reduce_mean
            value = fn(value, axis=axis)
        return self._extended._reduce(reduce_op, value)

    def group(self, value, name=None):
        """``tf.group`` of the local results of ``value``."""
        return self._extended._group(value, name)

    def experimental_local_results(self, value):
        return (value,)


class _DefaultStrategy(Strategy):
    """The strategy in use when none is: one replica, no device of its own; its ``scope()``
    changes nothing (TF's ``_DefaultDistributionStrategy``)."""

    @contextlib.contextmanager
    def scope(self):
        if has_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        yield self


_DEFAULT = []


def _default_strategy():
    if not _DEFAULT:
        strategy = _DefaultStrategy.__new__(_DefaultStrategy)
        Strategy.__init__(strategy, StrategyExtended(strategy, ()))
        _DEFAULT.append(strategy)
    return _DEFAULT[0]


def _canonical_device(name):
    spec = DeviceSpec.from_string(name if "/" in name or ":" not in name else "/" + name)
    if spec.device_type is None:
        raise ValueError("Device %r names no device type" % (name,))
    return spec.replace(device_type=spec.device_type.upper(), device_index=spec.device_index or 0).to_string()


class MirroredStrategy(Strategy):
    """Synchronous replicas, one per device (``tf.distribute.MirroredStrategy``); ref runs the
    one-device case: ``devices`` names a single local device (default ``/CPU:0``)."""

    def __init__(self, devices=None, cross_device_ops=None):
        devices = ["/CPU:0"] if devices is None else list(devices)
        if not devices:
            raise ValueError("Must specify at least one device.")
        canonical = [_canonical_device(d) for d in devices]
        if len(set(canonical)) != len(canonical):
            raise ValueError("No duplicates allowed in `devices` argument: %s" % (devices,))
        if len(canonical) > 1:
            raise ValueError("ref's MirroredStrategy mirrors onto one device; got %s" % (devices,))
        self._cross_device_ops = cross_device_ops
        super().__init__(StrategyExtended(self, canonical))


# -- the distribute coordinator's current worker context (TF's distribute_coordinator_context) --------
_WORKER_CONTEXT = threading.local()


def get_current_worker_context():
    """The worker context this thread runs in (``ref.training.distribute_coordinator``), or None."""
    return getattr(_WORKER_CONTEXT, "current", None)


def set_current_worker_context(context):
    """Makes ``context`` (or None) this thread's worker context (``_WorkerContext.__enter__``)."""
    _WORKER_CONTEXT.current = context
