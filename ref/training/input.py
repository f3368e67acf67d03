"""Queue-based input pipelines (``tf.train.*``): producers and batchers.

TF's API reference:

* ``tf.compat.v1.train.input_producer``: "Output the rows of input_tensor to a
  queue for an input pipeline." -- "if num_epochs is not None, this function
  creates local counter epochs. Use local_variables_initializer() to
  initialize local variables." (``string_input_producer``,
  ``range_input_producer``, ``slice_input_producer`` build on it.)
* ``tf.compat.v1.train.batch``: "This function is implemented using a queue. A
  QueueRunner for the queue is added to the current Graph's QUEUE_RUNNER
  collection." -- "If allow_smaller_final_batch is True, a smaller batch value
  than batch_size is returned when the queue is closed and there are not
  enough elements to fill the batch, otherwise the pending elements are
  discarded."
* ``shuffle_batch``: "A shuffling queue into which tensors from tensors are
  enqueued. A dequeue_many operation to create batches from the queue."

The epoch limit is a ``CountUpTo`` on a local ``epochs`` variable that gates
each ``enqueue_many`` of the (optionally shuffled) rows: after ``num_epochs``
passes it raises OutOfRangeError, the QueueRunner closes the queue, and the
consumer drains it and then sees OutOfRangeError itself.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.graph_ops import array_ops, math_ops, random_ops, sparse_ops, summary_ops
from ref.graph_ops.control_flow_ops import identity, no_op
from ref.graph_ops.logging_ops import Assert
from ref.graph_ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from ref.framework.graph import GraphKeys, Tensor, control_dependencies, name_scope
from ref.framework.op_def_library import constant, convert_n_to_tensor, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.framework.sparse_tensor import SparseTensor, SparseTensorValue
from ref.training.queue_runner import QueueRunner, add_queue_runner
from ref.types.shapes import TensorShape, as_shape
from ref.graph_ops.variables import Variable

__all__ = ["limit_epochs", "input_producer", "string_input_producer", "range_input_producer",
           "slice_input_producer", "batch", "batch_join", "shuffle_batch", "shuffle_batch_join", "maybe_batch",
           "maybe_batch_join", "maybe_shuffle_batch", "maybe_shuffle_batch_join"]


# ---------------------------------------------------------------------------
# Producers
# ---------------------------------------------------------------------------

def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, but only ``num_epochs`` times: the next evaluation raises
    OutOfRangeError (a local ``epochs`` counter; run local_variables_initializer)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as scope:
        epochs = Variable(constant(0, dtype=dtypes.int64), name="epochs", trainable=False,
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue fed with the rows of ``input_tensor`` (shuffled within each
    epoch if ``shuffle``), ``num_epochs`` times or forever; its QueueRunner goes
    to the QUEUE_RUNNERS collection."""
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(as_shape(element_shape) if element_shape is not None
                                                          else TensorShape(None))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype], shapes=[element_shape],
                      shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            summary_ops.scalar(summary_name, math_ops.cast(q.size(), dtypes.float32) * (1.0 / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                          name=None, cancel_op=None):
    """``input_producer`` for a 1-D string tensor (e.g. filenames)."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not len(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        # an empty tensor (even a constant one) fails at run time, in the queue runner, as in TF
        with control_dependencies([Assert(math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err])]):
            string_tensor = identity(string_tensor)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle, seed=seed, capacity=capacity,
                              shared_name=shared_name, name=scope, summary_name=f"fraction_of_{capacity}_full",
                              cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """A queue producing the integers ``0 .. limit-1`` (per epoch)."""
    with name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = math_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One slice (along dimension 0) of every tensor of ``tensor_list`` at a
    time, the same index for all: ``[t[i] for t in tensor_list]``."""
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = convert_n_to_tensor(tensor_list)
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# ---------------------------------------------------------------------------
# Batching helpers
# ---------------------------------------------------------------------------

def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        keys = set(tensors_list[0])
        for d in tensors_list[1:]:
            if not isinstance(d, dict) or set(d) != keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(d) for d in tensors_list]
    return tensors_list


def _as_original_type(original, tensor_list):
    if isinstance(original, dict):
        if len(original) == 1:
            tensor_list = [tensor_list]  # a one-component dequeue is a lone tensor
        return {k: tensor_list[i] for i, k in enumerate(sorted(original, key=str))}
    return tensor_list


# ---------------------------------------------------------------------------
# SparseTensors through queues. A queue holds dense tensors only, so each
# SparseTensor travels serialized: one ``[3]`` string per example
# (``serialize_sparse``; ``serialize_many_sparse`` splits an enqueue_many
# batch into its rows) and the dequeued ``[batch, 3]`` strings become one
# SparseTensor with a leading batch dimension (``deserialize_many_sparse``),
# dense_shape[0] the batch size and every other dimension the largest in the
# batch. TF stores them in a SparseTensorsMap instead and sends int64 handles;
# what comes out is the same.
# ---------------------------------------------------------------------------

class _SparseMetaData:
    """What is needed to rebuild one serialized SparseTensor: dtype and rank after batching."""

    def __init__(self, dtype, rank):
        self.dtype, self.rank = dtype, rank

    def __eq__(self, other):
        return isinstance(other, _SparseMetaData) and (self.dtype, self.rank) == (other.dtype, other.rank)


def _sparse_rank(sp):
    rank = sp.shape.ndims
    if rank is None:
        rank = sp.dense_shape.shape.as_list()[0] if sp.dense_shape.shape.ndims == 1 else None
    if rank is None and sp.indices.shape.ndims == 2:
        rank = sp.indices.shape.as_list()[1]
    return rank


def _store_sparse_tensors(tensor_list, enqueue_many):
    """``(tensor_list with each SparseTensor serialized, [metadata or None per entry])``."""
    stored, info = [], []
    for t in tensor_list:
        if isinstance(t, SparseTensorValue):
            t = SparseTensor.from_value(t)
        if not isinstance(t, SparseTensor):
            stored.append(t)
            info.append(None)
            continue
        rank = _sparse_rank(t)
        if enqueue_many:  # the first dimension is the batch (rank >= 2 is checked at run time)
            stored.append(sparse_ops.serialize_many_sparse(t))
            info.append(_SparseMetaData(t.dtype.base_dtype, rank))
        else:
            stored.append(sparse_ops.serialize_sparse(t))
            info.append(_SparseMetaData(t.dtype.base_dtype, None if rank is None else rank + 1))
    return stored, info


def _store_sparse_tensors_join(tensor_list_list, enqueue_many):
    stored_list, infos = [], None
    for i, tl in enumerate(tensor_list_list):
        stored, info = _store_sparse_tensors(tl, enqueue_many)
        if infos is not None and info != infos:
            raise ValueError(f"The SparseTensors of tensor list {i} do not match those of tensor list 0 in "
                             "position, dtype or rank.")
        infos = info
        stored_list.append(stored)
    return stored_list, infos


def _restore_sparse_tensors(dequeued, info):
    """The dequeued value(s) with each serialized SparseTensor rebuilt (a lone
    tensor stays lone, as the queue returns it)."""
    if not any(info):
        return dequeued
    lone = not isinstance(dequeued, (list, tuple))
    items = [dequeued] if lone else list(dequeued)
    out = [t if meta is None else sparse_ops.deserialize_many_sparse(t, meta.dtype, rank=meta.rank)
           for t, meta in zip(items, info)]
    return out[0] if lone else out


def _validate(tensor_list):
    tensor_list = convert_n_to_tensor(tensor_list)
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list):
    tensor_list_list = [convert_n_to_tensor(tl) for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input, dtype=dtypes.bool)
    ndims = keep_input.shape.ndims
    if ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list):
    types = [t.dtype.base_dtype for t in tensor_list_list[0]]
    for other in tensor_list_list[1:]:
        if [t.dtype.base_dtype for t in other] != types:
            raise TypeError(f"Expected types to be consistent: {', '.join(t.name for t in types)} vs. "
                            f"{', '.join(t.dtype.base_dtype.name for t in other)}.")
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    # TF checks that the lists' shapes are compatible (ValueError if not) and keeps the
    # first list's: a dimension only a later list knows stays unknown in the queue
    for s in shape_list[1:]:
        shape_list[0].merge_with(s)
    return shape_list[0].as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is None:
        n = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for t in tl[:n]:
                if t.shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {t}")
        shapes = [_merge_shapes([tl[i].shape for tl in tensor_list_list], enqueue_many) for i in range(n)]
    return shapes


def _select_which_to_enqueue(tensor_list, keep_input):
    """The rows of each tensor whose ``keep_input`` entry is True."""
    select = math_ops.cast(keep_input, dtypes.int32)
    return [array_ops.dynamic_partition(t, select, num_partitions=2)[1] for t in tensor_list]


def _enqueue_ops(queue, tensor_list, enqueue_many, keep_input):
    """The enqueue op for one list of tensors, filtered by ``keep_input``."""
    keep = constant_value(keep_input)
    if keep is not None and keep.ndim == 0:  # known at graph construction: TF's smart_cond
        return (queue.enqueue_many if enqueue_many else queue.enqueue)(tensor_list) if keep else None
    if keep_input.shape.ndims == 1:
        return queue.enqueue_many(_select_which_to_enqueue(tensor_list, keep_input))
    # A scalar decided at run time: enqueue the batch (of one row if not
    # enqueue_many) filtered by that scalar repeated along the rows.
    rows = tensor_list if enqueue_many else [array_ops.expand_dims(t, 0) for t in tensor_list]
    keep_rows = array_ops.fill(array_ops.shape(rows[0])[0:1], keep_input)
    return queue.enqueue_many(_select_which_to_enqueue(rows, keep_rows))


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    op = _enqueue_ops(queue, tensor_list, enqueue_many, keep_input)
    if op is None:
        op = _no_op()
    add_queue_runner(QueueRunner(queue, [op] * threads))


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    ops = [_enqueue_ops(queue, tl, enqueue_many, keep_input) for tl in tensor_list_list]
    ops = [_no_op() if op is None else op for op in ops]
    add_queue_runner(QueueRunner(queue, ops))


def _no_op():
    return no_op()


def _which_queue(dynamic_pad):
    return PaddingFIFOQueue if dynamic_pad else FIFOQueue


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


# ---------------------------------------------------------------------------
# Batchers
# ---------------------------------------------------------------------------

def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
           dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + [keep_input]) as name:
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many)
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        summary_ops.scalar(f"fraction_of_{capacity}_full",
                           math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _restore_sparse_tensors(_dequeue(queue, batch_size, allow_smaller_final_batch, name),
                                           sparse_info)
        return _as_original_type(tensors, dequeued)


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "batch_join", [t for tl in tensor_list_list for t in tl] + [keep_input]) as name:
        tensor_list_list, sparse_info = _store_sparse_tensors_join(tensor_list_list, enqueue_many)
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        summary_ops.scalar(f"fraction_of_{capacity}_full",
                           math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _restore_sparse_tensors(_dequeue(queue, batch_size, allow_smaller_final_batch, name),
                                           sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_summary(queue, capacity, min_after_dequeue):
    full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue))
    summary_ops.scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full)


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                   enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list) + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many)
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                                   shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        dequeued = _restore_sparse_tensors(_dequeue(queue, batch_size, allow_smaller_final_batch, name),
                                           sparse_info)
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "shuffle_batch_join",
                    [t for tl in tensor_list_list for t in tl] + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        tensor_list_list, sparse_info = _store_sparse_tensors_join(tensor_list_list, enqueue_many)
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                                   shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        dequeued = _restore_sparse_tensors(_dequeue(queue, batch_size, allow_smaller_final_batch, name),
                                           sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``batch_size`` examples from a FIFOQueue (a PaddingFIFOQueue
    with ``dynamic_pad``) fed by ``num_threads`` threads."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch``, enqueueing only the examples whose ``keep_input`` is True."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch`` with one enqueueing thread per entry of ``tensors_list``."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False, shapes=None,
                     dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch_join``, enqueueing only the examples whose ``keep_input`` is True."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches drawn at random from a RandomShuffleQueue holding at least
    ``min_after_dequeue`` examples after each dequeue (until it is closed)."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True, num_threads, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    """``shuffle_batch``, enqueueing only the examples whose ``keep_input`` is True."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch`` with one enqueueing thread per entry of ``tensors_list``."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, True, seed, enqueue_many,
                               shapes, allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                             enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    """``shuffle_batch_join``, enqueueing only the examples whose ``keep_input`` is True."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed,
                               enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)
