"""``tf.case``: nested ``cond``s, as TF's control_flow_case builds them, with
the Asserts that check how many predicates hold (``exclusive``, no default)."""
from __future__ import annotations

import collections
import functools

from ref.types import dtypes
from ref.framework.graph import Tensor, control_dependencies, name_scope
from ref.framework.op_def_library import constant
from ref.platform import tf_logging as logging
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import cond
from ref.graph_ops.logging_ops import Assert

__all__ = ["case"]


def _assert_at_most_n_true(predicates, n, msg):
    """An Assert that at most ``n`` of ``predicates`` hold."""
    preds_c = array_ops.stack(predicates, name="preds_c")
    num_true = math_ops.reduce_sum(math_ops.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true, constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    return Assert(condition, data=[f"{msg}: more than {n} conditions ({names}) evaluated as True:", preds_c],
                  summarize=len(predicates))


def _default_action(predicates, actions):
    """The last pair becomes the default, guarded by Asserts that no other
    predicate and its own predicate hold."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    others_p, others_a = predicates[:k], actions[:k]

    def default_action():
        others_msg = ("Implementation error: selected default action #%d was called, but some of other "
                      "predicates are True: " % k)
        default_msg = ("Input error: None of conditions evaluated as True:",
                       array_ops.stack(predicates, name="preds_c"))
        with control_dependencies([_assert_at_most_n_true(others_p, n=0, msg=others_msg),
                                   Assert(predicate, data=list(default_msg))]):
            return action()
    return default_action, others_p, others_a


def _canonical_pairs(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
        if not exclusive:
            logging.warning("%s: An unordered dictionary of predicate/fn pairs was provided, but exclusive=False. "
                            "The order of conditional tests is deterministic but not guaranteed.", name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype != dtypes.bool:
                raise TypeError("pred must be Tensor of type bool: %s" % pred.name)
        else:
            raise TypeError("pred must be a Tensor, got: %s" % pred)
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
    if not pred_fn_pairs:
        return (), ()
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first ``fn`` whose ``pred`` holds, else ``default()``
    (``tf.case``). Without ``default`` the last pair is the default and an
    Assert fails the run when no predicate holds; with ``exclusive`` an Assert
    fails it when more than one does."""
    predicates, actions = _canonical_pairs(pred_fn_pairs, exclusive, name)
    with name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with control_dependencies([_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]):
                return fn()
        return fn()
