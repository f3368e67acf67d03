"""``tf.switch_case``: the branch numbered ``branch_index`` (out of range: the
default, or the last branch without one), as a chain of ``cond``s on
``branch_index == i``; TF's argument checks and messages."""
from __future__ import annotations

from ref.framework.graph import Tensor, get_default_graph, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import math_ops
from ref.graph_ops.control_flow_ops import cond, cond_v2
from ref.graph_ops.control_flow_util import GraphOrParentsInXlaContext

__all__ = ["switch_case", "execute_fn_for_device", "indexed_case"]


def _branches(branch_fns, default, branch_index):
    """The branch callables in index order, ``default`` last (TF's checks)."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got <dtype: '{branch_index.dtype.name}'>")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(f) for f in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
                         "{" + ",".join(map(str, sorted(keys))) + "}")
    actions = [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The outputs of ``branch_fns[branch_index]()`` (only that branch runs)."""
    actions = _branches(branch_fns, default, branch_index)
    with name_scope(name, "case", [branch_index]):
        fn = actions[-1]
        for i in reversed(range(len(actions) - 1)):
            fn = (lambda i=i, f=actions[i], rest=fn:
                  cond(math_ops.equal(branch_index, i), f, rest))
        return fn()


def execute_fn_for_device(device_branch_fns, default_fn, name="execute_fn"):
    """The outputs of the callable in ``device_branch_fns`` (device type ->
    callable, e.g. ``{"CPU": f, "GPU": g}``) for the type of the device the
    graph runs it on (a ``DeviceIndex`` op picks the branch), else of
    ``default_fn``; under XLA always ``default_fn`` (TF's rule)."""
    if GraphOrParentsInXlaContext(get_default_graph()):
        return default_fn()
    branches = {k.upper(): v for k, v in device_branch_fns.items()}
    index = apply_op("DeviceIndex", device_names=list(branches))
    return switch_case(index, list(branches.values()), default=default_fn, name=name)


def indexed_case(branch_index, branch_fns, name="indexed_case", lower_using_switch_merge=None):
    """TF's ``cond_v2.indexed_case``: the outputs of ``branch_fns[branch_index]()``
    (an index out of range: the last branch), built from functional ``If`` ops
    (a chain of :func:`~ref.graph_ops.control_flow_ops.cond_v2` on
    ``branch_index == i``) in any mode; ``lower_using_switch_merge`` is TF's
    lowering hint and changes nothing here."""
    fns = list(branch_fns)
    with name_scope(name, "indexed_case", [branch_index]):
        branch_index = convert_to_tensor(branch_index, name="branch_index")
        fn = fns[-1]
        for i in reversed(range(len(fns) - 1)):
            fn = (lambda i=i, f=fns[i], rest=fn:
                  cond_v2(math_ops.equal(branch_index, i), f, rest, name="cond"))
        return fn()
