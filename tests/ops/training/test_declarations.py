"""The structure behind the optimizers, one row per algorithm:

* each algorithm's defaults live once, in its kernel module's ``DEFAULTS``: the
  TF1 class's signature and the functional ``init`` / ``step`` take theirs from it;
* each class's declarations (kernel, slots, non-slot variables, hyperparameters)
  name exactly the inputs of the raw ops the base-class lifecycle calls;
* the CPU loops generated from the scalar updates: one per (file, name), compiled
  as if written in the update's file (Numba's cache locates them there), and bit
  for bit the loops they replace (hand-written here, as they were).
"""
from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

from ref.ops import registry
from ref.ops._jit import LazyKernel, SizedKernel, njit, njit_sized, prange
from ref.ops.training import ALGORITHMS
from ref.ops.training import _apply
from ref.ops.training.adam import adam_update
from ref.ops.training.ftrl import DENSE, ftrl_update
from ref.optimizers.optimizer import Optimizer

# algorithm module -> (class name, constructor arguments for an instance of each kernel variant)
CLASSES = {
    "gradient_descent": ("GradientDescentOptimizer", [dict(learning_rate=0.1)]),
    "proximal_gradient_descent": ("ProximalGradientDescentOptimizer", [dict(learning_rate=0.1)]),
    "adagrad": ("AdagradOptimizer", [dict(learning_rate=0.1)]),
    "proximal_adagrad": ("ProximalAdagradOptimizer", [dict(learning_rate=0.1)]),
    "adagrad_da": ("AdagradDAOptimizer", [dict(learning_rate=0.1, global_step=None)]),
    "adadelta": ("AdadeltaOptimizer", [{}]),
    "momentum": ("MomentumOptimizer", [dict(learning_rate=0.1, momentum=0.9)]),
    "adam": ("AdamOptimizer", [{}]),
    "rmsprop": ("RMSPropOptimizer", [dict(learning_rate=0.1), dict(learning_rate=0.1, centered=True)]),
    "ftrl": ("FtrlOptimizer", [dict(learning_rate=0.1), dict(learning_rate=0.1,
                                                               l2_shrinkage_regularization_strength=0.1)]),
}
NOT_HYPERPARAMETERS = {"use_locking", "name", "accum_name", "linear_name"}  # the class's own arguments
# the ops a class builds itself instead of calling a kernel (TF has no SparseApplyAdam; GD scatters)
OWN_SPARSE = {"adam", "gradient_descent"}


def _defaults(fn):
    return {n: p.default for n, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


@pytest.mark.parametrize("module", ALGORITHMS)
def test_defaults_are_declared_once_in_the_kernel_module(module):
    kernels = importlib.import_module(f"ref.ops.training.{module}")
    defaults = kernels.DEFAULTS
    if module in CLASSES:
        cls = getattr(importlib.import_module(f"ref.optimizers.{module}"), CLASSES[module][0])
        got = _defaults(cls.__init__)
        assert {k: v for k, v in got.items() if k not in NOT_HYPERPARAMETERS} == defaults
        for name, value in defaults.items():
            assert got[name] is value, name  # taken from DEFAULTS, not a literal of the same value
    for fn in (getattr(kernels, "init", None), getattr(kernels, "step", None)):
        if fn is None:
            continue
        got = _defaults(fn)
        for name, value in defaults.items():
            if name in inspect.signature(fn).parameters:
                assert got[name] is value, (fn.__name__, name)
        # any other default is a placeholder (a required TF argument the form does not need) or the step count
        assert all(v is None or (k, v) == ("global_step", 0) for k, v in got.items() if k not in defaults), got


def _instances():
    for module, (cls_name, variants) in CLASSES.items():
        cls = getattr(importlib.import_module(f"ref.optimizers.{module}"), cls_name)
        for kwargs in variants:
            yield pytest.param(module, cls(**kwargs), id=f"{cls_name}-{sorted(kwargs)}")


@pytest.mark.parametrize("module,opt", list(_instances()))
def test_declarations_name_the_kernels_inputs(module, opt):
    declared = {"var", "use_locking", *opt._kernel_attrs}
    declared |= {s.input for s in opt._declared(opt._slot_specs)}
    declared |= {n.name for n in opt._non_slot_specs}
    declared |= {h.input for h in opt._declared(opt._hyperparameters)}
    if module == "adagrad_da":
        declared.add("global_step")  # AdagradDAOptimizer._kernel_args adds it
    prefixes = ["Apply", "ResourceApply"] + ([] if module in OWN_SPARSE else ["SparseApply", "ResourceSparseApply"])
    for prefix in prefixes:
        op = registry.get(opt._op_type(prefix))
        grads = {"indices", "grad"} if "Sparse" in prefix else {opt._dense_grad}
        assert set(op.inputs) | set(op.attrs) >= declared | grads, op.name
        assert set(op.inputs) == (declared | grads) - {"use_locking", *opt._kernel_attrs}, op.name


def test_a_class_without_a_kernel_says_so():
    with pytest.raises(NotImplementedError, match="declares no training kernel"):
        Optimizer(False, "Base")._op_type("Apply")


# -- the loop template ----------------------------------------------------------------------

def _loops():
    for module in ALGORITHMS:
        mod = importlib.import_module(f"ref.ops.training.{module}")
        for name, obj in vars(mod).items():
            if name.endswith("_loop") and isinstance(obj, (LazyKernel, SizedKernel)):
                yield module, name, obj


def test_every_loop_is_generated_and_named_once_per_file():
    seen = {}
    for module, name, loop in _loops():
        fn = loop.py_func
        assert fn.__qualname__ == name and fn.__module__ == f"ref.ops.training.{module}"
        assert fn.__code__.co_filename.endswith(f"ref/ops/training/{module}.py")  # the update's file: Numba's cache
        assert loop.source.startswith(f"def {name}(")
        assert all(line in fn.__doc__ for line in loop.source.splitlines())  # the docstring shows the source
        key = (fn.__code__.co_filename, name)
        assert key not in seen, key
        seen[key] = loop
    assert len(seen) == 27  # 16 dense loops (serial and parallel builds) and 11 sparse ones
    assert {type(loop) for loop in seen.values()} == {SizedKernel, LazyKernel}  # dense: serial/parallel; sparse


@pytest.mark.parametrize("update,names", [
    (adam_update, ("_adam_loop", "_sparse_adam_loop")),
    (ftrl_update, ("_ftrl_loop", "_sparse_ftrl_loop")),
])
def test_loop_names_follow_the_update(update, names):
    assert (_apply._loop_name(update, sparse=False), _apply._loop_name(update, sparse=True)) == names


def test_the_template_needs_the_update_convention():
    def not_an_update(var, m, lr, T):  # no grad
        return var, m

    with pytest.raises(ValueError, match="a scalar update takes"):
        _apply.dense_loop(not_an_update)


# The loops as they were written by hand before the template (same arithmetic, same order).

@njit_sized
def _handwritten_adam_loop(var, m, v, grad, alpha, beta1, beta2, epsilon, use_nesterov, T):
    for i in prange(var.size):
        var[i], m[i], v[i] = adam_update(
            var[i], m[i], v[i], grad[i], alpha, beta1, beta2, epsilon, use_nesterov, T)


@njit_sized
def _handwritten_ftrl_loop(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, sqrt_branch,
                           has_shrinkage, multiply_linear_by_lr, form, T):
    if sqrt_branch and not multiply_linear_by_lr and not has_shrinkage:
        for i in prange(var.size):
            var[i], accum[i], linear[i] = ftrl_update(
                var[i], accum[i], linear[i], grad[i], lr, l1, l2, l2_shrinkage, lr_power, True,
                False, False, DENSE, T)
    elif sqrt_branch and not multiply_linear_by_lr:
        for i in prange(var.size):
            var[i], accum[i], linear[i] = ftrl_update(
                var[i], accum[i], linear[i], grad[i], lr, l1, l2, l2_shrinkage, lr_power, True,
                True, False, DENSE, T)
    else:
        for i in prange(var.size):
            var[i], accum[i], linear[i] = ftrl_update(
                var[i], accum[i], linear[i], grad[i], lr, l1, l2, l2_shrinkage, lr_power, sqrt_branch,
                has_shrinkage, multiply_linear_by_lr, DENSE, T)


@njit
def _handwritten_sparse_ftrl_loop(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power,
                                  sqrt_branch, has_shrinkage, multiply_linear_by_lr, form, T):
    for i in range(indices.size):
        r = indices[i]
        for j in range(var.shape[1]):
            var[r, j], accum[r, j], linear[r, j] = ftrl_update(
                var[r, j], accum[r, j], linear[r, j], grad[i, j], lr, l1, l2, l2_shrinkage, lr_power,
                sqrt_branch, has_shrinkage, multiply_linear_by_lr, form, T)


def _bits(arrays):
    return [a.view(f"u{a.dtype.itemsize}").copy() for a in arrays]


ADAM_PARAMS = [(0.01, 0.9, 0.999, 1e-7, False), (0.01, 0.9, 0.999, 1e-7, True)]
FTRL_PARAMS = [(0.1, 0.01, 0.02, 0.0, -0.5, True, False, False), (0.1, 0.01, 0.02, 0.03, -0.5, True, True, False),
               (0.1, 0.01, 0.02, 0.03, -0.6, False, True, True), (0.1, 0.0, 0.02, 0.0, -0.5, True, False, True)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [37, 300_000])  # serial, and parallel from REF_PARALLEL_MIN (2**18) on
@pytest.mark.parametrize("generated,handwritten,n_refs,params", [
    ("_adam_loop", _handwritten_adam_loop, 3, p) for p in ADAM_PARAMS] + [
    ("_ftrl_loop", _handwritten_ftrl_loop, 3, p + (DENSE,)) for p in FTRL_PARAMS])
def test_generated_dense_loops_are_bit_identical_to_the_handwritten_ones(generated, handwritten, n_refs, params,
                                                                          size, dtype):
    loop = getattr(importlib.import_module(f"ref.ops.training.{generated.strip('_').split('_')[0]}"), generated)
    rng = np.random.default_rng(size)
    refs = [np.abs(rng.standard_normal(size)).astype(dtype) + dtype(0.1) for _ in range(n_refs)]
    grad = rng.standard_normal(size).astype(dtype)
    typed = tuple(dtype(p) if isinstance(p, float) else p for p in params)
    a, b = [r.copy() for r in refs], [r.copy() for r in refs]
    loop(*a, grad, *typed, dtype)
    handwritten(*b, grad, *typed, dtype)
    for x, y in zip(_bits(a), _bits(b)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("params", [p + (form,) for p in FTRL_PARAMS for form in (1, 2)])
def test_generated_sparse_loop_is_bit_identical_to_the_handwritten_one(params, dtype):
    from ref.ops.training.ftrl import _sparse_ftrl_loop

    rng = np.random.default_rng(7)
    refs = [np.abs(rng.standard_normal((6, 3))).astype(dtype) + dtype(0.1) for _ in range(3)]
    indices = np.array([4, 0, 4, 5], np.int64)  # a duplicate: applied twice, in order
    grad = rng.standard_normal((4, 3)).astype(dtype)
    typed = tuple(dtype(p) if isinstance(p, float) else p for p in params)
    a, b = [r.copy() for r in refs], [r.copy() for r in refs]
    _sparse_ftrl_loop(*a, grad, indices, *typed, dtype)
    _handwritten_sparse_ftrl_loop(*b, grad, indices, *typed, dtype)
    for x, y in zip(_bits(a), _bits(b)):
        np.testing.assert_array_equal(x, y)
