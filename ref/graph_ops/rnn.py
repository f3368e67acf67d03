"""Running a recurrent cell over a sequence (``tf.nn.dynamic_rnn``,
``static_rnn``, ``bidirectional_dynamic_rnn``, ``static_bidirectional_rnn``,
``raw_rnn``).

``dynamic_rnn`` builds one ``while_loop`` over time: the inputs are unstacked
into a TensorArray, the cell's first call (inside the loop body) creates its
variables under ``variable_scope(scope or "rnn")``, and the outputs are written
to a TensorArray and stacked. With ``sequence_length``, batch entry ``b``
outputs zeros from step ``sequence_length[b]`` on and its state is copied
through, so the final state is the state at its last valid step; the loop
stops after ``max(sequence_length)`` steps (at least one), the outputs past it
being zeros. Gradients flow through the loop (``ref.grad``). With control
flow v2 disabled the loop is TF 1.x's dataflow loop carrying TensorArrayV3
flows, node for node as TF builds it. ``raw_rnn`` runs the cell in a loop
its ``loop_fn`` drives, emitting into dynamically sized TensorArrays.
"""
from __future__ import annotations

from ref.types import dtypes, nest
from ref.types.shapes import Dimension, TensorShape, dimension_value
from ref.framework.graph import Tensor, colocate_with, control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value_as_shape
from ref.graph_ops import array_ops, control_flow_ops, logging_ops, math_ops
from ref.graph_ops.functional_ops import loop_bound as _maximum_iterations
from ref.graph_ops.rnn_cell_impl import _concat, assert_like_rnncell
from ref.graph_ops.tensor_array_ops import TensorArray
from ref.graph_ops.variable_scope import variable_scope

__all__ = ["dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn", "raw_rnn"]


def _cache_variables(varscope):
    """TF's ``_should_cache``: outside a while loop, an RNN's scope reads its
    variables on the device of the op that uses them (``caching_device`` set
    to ``lambda op: op.device`` unless the parent scope set one), so the
    variables' ``read`` snapshots carry no colocation attr."""
    ctxt = get_default_graph()._get_control_flow_context()
    while ctxt is not None:
        if ctxt.IsWhileContext():
            return
        ctxt = ctxt.outer_context
    if varscope.caching_device is None:
        varscope.set_caching_device(lambda op: op.device)


def _transpose_batch_time(x):
    """Swaps the first two dimensions of ``x`` (rank >= 2)."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    perm = array_ops.concat(([1, 0], math_ops.range(2, array_ops.rank(x))), axis=0)
    x_t = array_ops.transpose(x, perm)
    if static.ndims is not None:
        x_t.set_shape(TensorShape([static[1], static[0]]).concatenate(static[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The static batch size (dimension 1 of time-major inputs), else a tensor."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={input_} of rank {shape.ndims}")
        batch_size = dimension_value(shape[1])
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_nested(state):
        inferred = [e.dtype for e in nest.flatten(state)]
        if not inferred:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if not all(d == inferred[0] for d in inferred):
            raise ValueError(f"Argument state={state} has tensors of different inferred dtypes. Unable to infer a "
                             f"single representative dtype. Dtypes received: {inferred}")
        return inferred[0]
    return state.dtype


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output, state, call_cell,
              skip_conditionals=False):
    """One step with ``sequence_length``: rows with ``time >= sequence_length``
    get ``zero_output`` and keep ``state``. ``skip_conditionals`` (the
    ``dynamic_rnn`` path) always runs the cell; otherwise ``tf.cond`` skips it
    past the longest sequence and skips the copying before the shortest."""
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    # Python operators as TF writes them: with ``time`` a Python int (static_rnn)
    # ``time >= t`` is t's reflected ``<=`` (LessEqual(t, time)), ``time < t`` is
    # Greater(t, time); with a Tensor time (dynamic_rnn) GreaterEqual / Less.
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, TensorArray) or output.shape.ndims == 0:
            return new_output
        with colocate_with(new_output):
            return array_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(z, o) for z, o in zip(flat_zero_output, flat_new_output)]
                + [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def call_and_flatten():
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    if skip_conditionals:
        final = copy_some_through(*call_and_flatten())
    else:
        def maybe_copy_some_through():
            flat_new_output, flat_new_state = call_and_flatten()
            return control_flow_ops.cond(time < min_sequence_length,
                                         lambda: flat_new_output + flat_new_state,
                                         lambda: copy_some_through(flat_new_output, flat_new_state))

        final = control_flow_ops.cond(time >= max_sequence_length,
                                      lambda: flat_zero_output + flat_state, maybe_copy_some_through)
    final = list(final)
    final_output, final_state = final[:len(flat_zero_output)], final[len(flat_zero_output):]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.shape)
    for sub, old in zip(final_state, flat_state):
        if not isinstance(sub, TensorArray):
            sub.set_shape(old.shape)
    return (nest.pack_sequence_as(zero_output, final_output), nest.pack_sequence_as(state, final_state))


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over ``inputs`` with a ``while_loop``.

    Args:
      cell: an RNNCell.
      inputs: ``[batch, time, ...]`` (``[time, batch, ...]`` when
        ``time_major``), or a nested structure of such tensors.
      sequence_length: optional int32/int64 vector [batch]: outputs past it
        are zeros and the state is copied through.
      initial_state: the initial state; else ``cell.zero_state`` of ``dtype``.
      scope: the variable scope (default ``"rnn"``).

    Returns:
      ``(outputs, state)``: outputs shaped like the inputs with the cell's
      ``output_size`` as the depth; the final state.
    """
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn") as varscope:
        _cache_variables(varscope)
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(x) for x in flat_input]
            flat_input = tuple(_transpose_batch_time(x) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument sequence_length must be a vector of length batch_size. Received "
                                 f"sequence_length={sequence_length} of shape: {sequence_length.shape}")
            sequence_length = control_flow_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            x_shape = array_ops.shape(sequence_length)
            packed = array_ops.stack([batch_size])
            check = logging_ops.Assert(math_ops.reduce_all(math_ops.equal(x_shape, packed)),
                                       [f"Expected shape for Tensor {sequence_length.name} is ", packed,
                                        " but saw shape: ", x_shape])
            with control_dependencies([check]):
                sequence_length = control_flow_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory,
                                                 sequence_length, dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory, sequence_length=None,
                      dtype=None):
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    got_shapes = tuple(x.shape.with_rank_at_least(3) for x in flat_input)
    const_time_steps, const_batch_size = got_shapes[0].as_list()[:2]
    for x, shape in zip(flat_input, got_shapes):
        if not shape[2:].is_fully_defined():
            raise ValueError(f"Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             f"None for input={x}.")
        if dimension_value(shape[0]) != const_time_steps:
            raise ValueError(f"Time steps is not the same for all the elements in the input in a batch. Received "
                             f"time steps={dimension_value(shape[0])} for input={x}.")
        if dimension_value(shape[1]) != const_batch_size:
            raise ValueError(f"Batch_size is not the same for all the elements in the input. Received batch "
                             f"size={dimension_value(shape[1])} for input={x}.")
    state_dtype = _infer_state_dtype(dtype, state)
    zero_output = nest.pack_sequence_as(
        cell.output_size,
        tuple(array_ops.zeros(_concat(batch_size, s), state_dtype) for s in flat_output_size))
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = convert_to_tensor(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass
    output_ta = tuple(TensorArray(dtype=state_dtype, size=time_steps,
                                  element_shape=TensorShape([const_batch_size]).concatenate(
                                      _static_size(size)),
                                  tensor_array_name=base_name + f"output_{i}")
                      for i, size in enumerate(flat_output_size))
    input_ta = tuple(TensorArray(dtype=x.dtype.base_dtype, size=time_steps, element_shape=x.shape[1:],
                                 tensor_array_name=base_name + f"input_{i}").unstack(x)
                     for i, x in enumerate(flat_input))

    def _time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for x, shape in zip(input_t, got_shapes):
            x.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, input_t)

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell, skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output = nest.flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: math_ops.less(time, loop_bound), body=_time_step,
        loop_vars=(time, output_ta, state), parallel_iterations=parallel_iterations,
        maximum_iterations=_maximum_iterations(time_steps), swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, size in zip(final_outputs, flat_output_size):
        static = _concat([const_time_steps, const_batch_size], size, static=True)
        if static is not None:
            output.set_shape(static)
    return nest.pack_sequence_as(cell.output_size, final_outputs), final_state


def _static_size(size):
    if isinstance(size, Tensor):
        raise ValueError(f"dynamic_rnn needs a static output_size, got the tensor {size}")
    return TensorShape(size)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs ``cell`` over the Python list ``inputs`` (each ``[batch, depth]``),
    unrolled: one copy of the cell's ops per step, the variables shared.
    Returns ``(outputs, state)`` with ``outputs`` a list like ``inputs``."""
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        _cache_variables(varscope)
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        first_input = convert_to_tensor(first_input)
        if first_input.shape.ndims != 1:
            static_batch = dimension_value(first_input.shape.with_rank_at_least(2)[0])
            for x in nest.flatten(inputs):
                shape = convert_to_tensor(x).shape.with_rank_at_least(2)
                other = dimension_value(shape[0])
                if static_batch is not None and other is not None and other != static_batch:
                    raise ValueError(f"Dimensions {static_batch} and {other} are not compatible")
                for i, size in enumerate(shape[1:].as_list()):
                    if size is None:
                        raise ValueError(f"Input size (dimension {i} of input {x}) must be accessible via shape "
                                         f"inference, but saw value None.")
        else:
            static_batch = dimension_value(first_input.shape.with_rank_at_least(1)[0])
        batch_size = static_batch if static_batch else array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument `sequence_length` must be a vector of length {batch_size}. Received "
                                 f"sequence_length={sequence_length}.")
            state_dtype = _infer_state_dtype(dtype, state)

            def zero(size):
                z = array_ops.zeros(_concat(batch_size, size), state_dtype)
                static = _concat(static_batch, size, static=True)
                if static is not None:
                    z.set_shape(static)
                return z

            zero_output = nest.pack_sequence_as(cell.output_size,
                                                tuple(zero(s) for s in nest.flatten(cell.output_size)))
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def _reverse(input_, seq_lengths, seq_axis, batch_axis):
    if seq_lengths is not None:
        return array_ops.reverse_sequence(input_, seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis)
    return array_ops.reverse(input_, axis=[seq_axis])


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """A forward ``dynamic_rnn`` (scope ``<scope>/fw``) and a backward one over
    the inputs reversed within each ``sequence_length`` (``<scope>/bw``,
    default scope ``bidirectional_rnn``). Returns ``((output_fw, output_bw),
    (state_fw, state_bw))``, ``output_bw`` reversed back into input order."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length=sequence_length,
                                              initial_state=initial_state_fw, dtype=dtype,
                                              parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                                              time_major=time_major, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(
                lambda x: _reverse(x, sequence_length, time_axis, batch_axis), inputs)
            tmp, state_bw = dynamic_rnn(cell_bw, inputs_reverse, sequence_length=sequence_length,
                                        initial_state=initial_state_bw, dtype=dtype,
                                        parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                                        time_major=time_major, scope=bw_scope)
    output_bw = _reverse(tmp, sequence_length, time_axis, batch_axis)
    return (output_fw, output_bw), (state_fw, state_bw)


def _reverse_seq(input_seq, lengths):
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(x) for x in input_seq)
    flat_results = [[] for _ in input_seq]
    for sequence in zip(*flat_input_seq):
        s_reversed = array_ops.reverse_sequence(array_ops.stack(sequence), lengths, seq_axis=0, batch_axis=1)
        for r, flat_result in zip(array_ops.unstack(s_reversed), flat_results):
            r.set_shape(sequence[0].shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(x, r) for x, r in zip(input_seq, flat_results)]


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """``static_rnn`` forward (``fw``) and over the reversed inputs (``bw``);
    the outputs are the two concatenated along depth. Returns ``(outputs,
    state_fw, state_bw)``."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                             scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            tmp, state_bw = static_rnn(cell_bw, _reverse_seq(inputs, sequence_length), initial_state_bw, dtype,
                                       sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_ops.concat([fw, bw], 1)
                         for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    return nest.pack_sequence_as(output_fw, flat_outputs), state_fw, state_bw


def _shape_from(size):
    """An output size as a static shape (TF's ``_maybe_tensor_shape_from_tensor``)."""
    return constant_value_as_shape(size) if isinstance(size, Tensor) else TensorShape(size)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """Runs ``cell`` in a while loop driven by ``loop_fn`` (``tf.nn.raw_rnn``).

    ``loop_fn(time, cell_output, cell_state, loop_state)`` returns
    ``(finished, next_input, next_cell_state, emit_output, next_loop_state)``;
    at time 0 it is called with None for the last three and gives the initial
    state (and, optionally, the emit structure and loop state). The loop runs
    while any batch entry is unfinished; finished entries emit zeros and keep
    their state. Returns ``(emit_ta, final_state, final_loop_state)``: the
    emitted outputs as TensorArrays (time-major when stacked).
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with variable_scope(scope or "rnn") as varscope:
        _cache_variables(varscope)
        time = constant(0, dtype=dtypes.int32)
        elements_finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)
        flat_input = nest.flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None else constant(0, dtype=dtypes.int32)
        input_shape = [x.shape for x in flat_input]
        static_batch_size = Dimension(input_shape[0][0] if input_shape[0].ndims else None)
        for shape in input_shape:
            static_batch_size.assert_is_compatible_with(Dimension(shape[0] if shape.ndims else None))
        batch_size = const_batch_size = dimension_value(static_batch_size)
        if batch_size is None:
            batch_size = array_ops.shape(flat_input[0])[0]
        nest.assert_same_structure(initial_state, cell.state_size)
        flat_state = [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        state = nest.pack_sequence_as(initial_state, flat_state)
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [e.shape if e.shape.is_fully_defined() else array_ops.shape(e)
                              for e in flat_emit_structure]
            flat_emit_dtypes = [e.dtype for e in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [TensorArray(dtype=d, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                                    element_shape=TensorShape([const_batch_size]).concatenate(_shape_from(size)))
                        for i, (d, size) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = nest.pack_sequence_as(emit_structure, flat_emit_ta)
        zero_emit = nest.pack_sequence_as(emit_structure, [array_ops.zeros(_concat(batch_size, size), d)
                                                           for size, d in zip(flat_emit_size, flat_emit_dtypes)])

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_fn(cur, cand):
                if isinstance(cur, TensorArray) or cur.shape.ndims == 0:
                    return cand
                with colocate_with(cand):
                    return array_ops.where(elements_finished, cur, cand)

            emit_output = nest.map_structure(copy_fn, zero_emit, emit_output)
            next_state = nest.map_structure(copy_fn, state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta, emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = control_flow_ops.while_loop(
            condition, body, loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        return emit_ta, final_state, (None if init_loop_state is None else final_loop_state)
