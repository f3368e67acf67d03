"""``tf.train.SyncReplicasOptimizer``: aggregate the gradients of several replicas
before one update.

TF's API reference, ``tf.compat.v1.train.SyncReplicasOptimizer``:
"For the Parameter Server job: An accumulator is created for each variable, and
each replica pushes the gradients into the accumulators instead of directly
applying them to the variables. Each accumulator averages once enough gradients
(replicas_to_aggregate) have been accumulated. Apply the averaged gradients to
the variables. Only after all variables have been updated, increment the global
step. Only after step 4, pushes global_step in the token_queue, once for each
worker replica." "For the replicas: ... push them into gradient accumulators.
Each accumulator will check the staleness and drop the stale. After pushing all
the gradients, dequeue an updated value of global_step from the token queue and
record that step to its local_step variable."

A dense gradient goes through a ``ConditionalAccumulator`` (averaged over the
replicas); an ``IndexedSlices`` one (``tf.gather``, embeddings) through a
``SparseConditionalAccumulator``, which averages each row over the replicas
that sent it, as TF does.

The end of a run (ref's quicker end, within TF's semantics): when training stops, the
chief's queue runner is blocked in the gradient take for a step no replica will push,
and TensorFlow's ``MonitoredSession`` waits ``stop_grace_period_secs`` (120 s by default)
for it before closing the session, which cancels the take. On a remote (``grpc://``)
session ref runs the chief queue runner in a session of its own on the same master
(the variables, accumulators and token queue live on the tasks, shared by every session,
so the same ops run on the same state); on the coordinator's stop it closes the token
queue, cancelling the replicas' pending dequeues as TF's queue runner does, and then
closes that session, which cancels its blocked take (CancelledError, the cancellation
TF's session close gives) at once. The runner ends within a round trip instead of the
grace period. A session with ``isolate_session_state`` keeps TF's behaviour.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.graph_ops import array_ops, control_flow_ops, state_ops
from ref.graph_ops.data_flow_ops import FIFOQueue
from ref.graph_ops.accumulator_ops import ConditionalAccumulator, SparseConditionalAccumulator
from ref.framework.graph import GraphKeys, Tensor, colocate_with, control_dependencies, device, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.optimizers.optimizer import Optimizer
from ref.training.hooks import SessionRunHook
from ref.training.queue_runner import QueueRunner
from ref.graph_ops.variables import VariableV1, global_variables, report_uninitialized_variables
from ref.platform import tf_logging as logging
from ref.session.session import Session

__all__ = ["SyncReplicasOptimizer"]


class SyncReplicasOptimizer(Optimizer):
    """Class to synchronize, aggregate gradients and pass them to the optimizer."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._gradients_applied = False
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's ``compute_gradients``."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Pushes the gradients into per-variable accumulators and returns the
        replica's train op: dequeue a token (the global step to work on next)
        into ``local_step``. The chief's queue runner (``get_chief_queue_runner``)
        takes the averaged gradients, applies them with the wrapped optimizer,
        increments ``global_step`` and enqueues the next tokens."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops, aggregated_grad, var_list = [], [], []

        local_anchor = control_flow_ops.no_op()  # on this worker's device
        with colocate_with(local_anchor):
            self._local_step = VariableV1(initial_value=0, trainable=False,
                                          collections=[GraphKeys.LOCAL_VARIABLES],
                                          dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())

        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)
                        continue
                    if isinstance(grad, Tensor):
                        accum = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                       shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_grad(self._replicas_to_aggregate))
                    elif isinstance(grad, IndexedSlices):
                        accum = SparseConditionalAccumulator(grad.dtype, shape=(),
                                                             shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_indexed_slices_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_indexed_slices_grad(self._replicas_to_aggregate))
                    else:
                        raise ValueError("Unknown grad type!")
                    self._accumulator_list.append((accum, var.device))

            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(list(zip(aggregated_grad, var_list)), global_step)
                self._sync_token_queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                                                   name="sync_token_q", shared_name="sync_token_q")
                with control_dependencies(train_ops):
                    token = self._sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = self._sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = _ChiefQueueRunner(self._sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The QueueRunner running the chief's sync op (after ``apply_gradients``)."""
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables (not the local step)."""
        return self._opt.variables()

    def get_init_tokens_op(self, num_tokens=-1):
        """An op enqueueing ``num_tokens`` tokens (-1: ``replicas_to_aggregate``)
        holding the global step, so that replicas can start."""
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) vs "
                             f"{tokens_needed} (needed)")
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return control_flow_ops.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A SessionRunHook running the local init, and on the chief the init
        tokens and the chief queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None
        self._ready_for_local_init_op = opt.ready_for_local_init_op

    def after_create_session(self, session, coord):
        """Runs the local init op (and, on the chief, the init tokens) and starts the chief queue runner."""
        uninitialized = session.run(self._ready_for_local_init_op)
        if len(uninitialized):
            names = [n.decode() if isinstance(n, bytes) else str(n) for n in uninitialized]
            raise RuntimeError(f"Init operations did not make model ready for local_init. Init op: "
                               f"{self._local_init_op.name}, error: Variables not initialized: "
                               f"{', '.join(names)}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)


class _ChiefQueueRunner(QueueRunner):
    """The chief's queue runner: with a coordinator on a remote session, it runs in a session
    of its own that the stop closes, cancelling the take it blocks in (module docstring)."""

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        with self._lock:  # threads for ``sess`` still running in its own session: none more (TF's rule)
            if any(n > 0 and getattr(s, "_ref_chief_runner_parent", None) is sess
                   for s, n in self._runs_per_session.items()):
                return []
        own = _own_session(sess) if coord is not None else None
        return super().create_threads(own or sess, coord=coord, daemon=daemon, start=start)

    def _close_on_stop(self, sess, cancel_op, coord):
        super()._close_on_stop(sess, cancel_op, coord)  # the token queue: replicas' dequeues end
        if getattr(sess, "_ref_chief_runner_session", False):
            try:
                sess.close()  # cancels this runner's blocked step on the tasks
            except Exception as e:  # noqa: BLE001 -- the master may be gone already
                logging.debug("Ignored exception closing the chief queue runner's session: %s", e)


def _own_session(sess):
    """A new Session on ``sess``'s remote target, graph and config; None when ``sess`` is
    local, isolates its state, or is not a plain Session."""
    target = getattr(sess, "sess_str", "")
    if isinstance(target, bytes):
        target = target.decode("utf-8", "replace")
    config = getattr(sess, "_config", None)
    if not isinstance(target, str) or not target.startswith(("grpc://", "grpcs://")) or \
            (config is not None and config.isolate_session_state) or getattr(sess, "graph", None) is None:
        return None
    own = Session(target, graph=sess.graph, config=config)
    own._ref_chief_runner_session = True
    own._ref_chief_runner_parent = sess
    return own
