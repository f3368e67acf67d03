"""The interpreter: run the ops a ``Session.run`` needs against a :class:`RunState`.

Read it in this order; each module is short and says what it is:

* ``reference``: :func:`evaluate`, the whole idea in a few lines -- walk the
  ops in plan order, read each op's inputs, call its kernel, bind its outputs;
* ``state``: :class:`RunState` (variable store, random generators,
  resources -- the one definition a Session, an in-process server and a
  distributed worker share) and the :class:`RunContext` a ``ctx`` kernel sees;
* ``plan``: :func:`needed_ops` and the :class:`Plan` built once per (fetches,
  feeds, targets): pruning, slots, constant folding, drops;
* ``steps``: one planned op (``Step``) and the one stateful commit path
  (``steps.commit``): how a variable update reads, donates and stores;
* ``executor``: :func:`execute`, the step loop over a plan, and function
  graphs (while/cond bodies);
* ``rewrite``: the table of rewrites a compiled plan makes (fusions, paired
  products, the shape memo) -- the only place that names op types for them;
* ``codegen``: a plan as one Python function, asking ``rewrite``;
* ``failures``: how a failing op is reported (TF's ``OpError`` messages).

:func:`evaluate` and :func:`execute` give the same bits
(``tests/session/test_reference_evaluator.py``).
"""
from ref.ops.control import DEAD
from ref.session.interpreter.state import Ref, RunContext, RunState, StateStore
from ref.session.interpreter.steps import is_pure
from ref.session.interpreter.plan import Plan, needed_ops
from ref.session.interpreter.reference import evaluate
from ref.session.interpreter.executor import execute, run_function
from ref.session.interpreter.codegen import compile_plan
from ref.session.interpreter.rewrite import MEMO_ELEMENTS, MEMO_SHAPES

__all__ = ["DEAD", "Ref", "RunContext", "RunState", "StateStore", "is_pure", "Plan", "needed_ops", "evaluate",
           "execute", "run_function", "compile_plan", "MEMO_ELEMENTS", "MEMO_SHAPES"]
