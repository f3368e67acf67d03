"""Testing another implementation against ``ref`` from its own pytest suite.

    import numpy as np
    import ref.testing

    def test_my_adam_matches_tf():
        ref.testing.assert_matches(my_adam, "adam", dtype=np.float32, steps=10)      # trajectory protocol

    def test_my_apply_adam_kernel():
        ref.testing.assert_matches(my_apply_adam, "ApplyAdam", max_ulp=8)           # kernel protocol

    from hypothesis import given
    from ref.testing import strategies

    @given(strategies.kernel_inputs("ApplyAdam", dtype=np.float32))
    def test_my_apply_adam_property(kwargs):
        ref.testing.assert_kernel_matches(my_apply_adam, "ApplyAdam", kwargs, max_ulp=8)

``fn`` follows the protocols of :mod:`ref.golden.impl`. On failure the
AssertionError carries ``ref.golden``'s report: errors per case and step, the
first diverging step, slot and element, and the ranked formula variants
("best match: paper epsilon"). hypothesis is needed only for ``strategies``.
"""
from __future__ import annotations

import numpy as np

from ref.ops.fpenv import flush_denormals  # noqa: F401 -- TF's flush-to-zero arithmetic, for users
from ref.golden.ulp import assert_ulp, max_ulp, ulp_distance  # noqa: F401 -- re-exported for users
from ref.golden import compare, run_impl, diagnose as _diagnose, generate, cases as C, trajectory
from ref.ops import registry

__all__ = ["assert_matches", "assert_kernel_matches", "strategies", "assert_ulp", "ulp_distance",
           "flush_denormals"]


def _with_budget(golden, max_ulp):
    if max_ulp is None:
        return golden
    for case in golden.cases:
        for meta in case["outputs"].values():
            if "ulp" in meta and meta["ulp"]:
                meta["ulp"] = max_ulp
    return golden


def _check(golden, fn, diagnose, source):
    actual = run_impl(golden, fn)
    report = compare(golden, actual, source)
    if not report.ok:
        if diagnose:
            report.diagnosis = _diagnose(golden, actual)
        raise AssertionError("\n" + report.format())
    return report


def assert_matches(fn, name, dtype=np.float32, max_ulp=None, steps=None, seed=0, hyper=None, cases=None,
                   diagnose=True):
    """Runs ``fn`` on ref's golden cases for kernel or optimizer ``name`` and raises
    AssertionError (with the report and diagnosis) when an output leaves its ULP
    budget. ``max_ulp`` replaces every float output's budget (per step for
    trajectories). Returns the :class:`ref.golden.Report` when it passes."""
    golden = _with_budget(generate(name, dtype=dtype, steps=steps, seed=seed, hyper=hyper, cases=cases), max_ulp)
    return _check(golden, fn, diagnose, getattr(fn, "__qualname__", repr(fn)))


def assert_kernel_matches(fn, name, kwargs, max_ulp=None, diagnose=True):
    """One kernel case (``kwargs`` as ``ref.raw_ops.<name>`` takes them, e.g. drawn
    from :func:`strategies.kernel_inputs`): ``fn(**kwargs)`` against ref."""
    golden = _with_budget(generate(name, cases=[kwargs], dtype=_dtype_of(kwargs)), max_ulp)
    if golden.manifest["skipped"]:
        raise ValueError(f"ref rejects these inputs: {golden.manifest['skipped'][0]['error']}")
    return _check(golden, fn, diagnose, getattr(fn, "__qualname__", repr(fn)))


def _dtype_of(kwargs):
    for v in kwargs.values():
        if isinstance(v, np.ndarray) and (v.dtype.kind == "f" or v.dtype.name == "bfloat16"):
            return v.dtype
    return np.dtype(np.float32)


class _Strategies:
    """hypothesis strategies for every kernel's inputs (``ref.testing.strategies``)."""

    HYPER_RANGES = dict(lr=(1e-4, 1.0), alpha=(1e-4, 1.0), beta1=(0.5, 0.99), beta2=(0.9, 0.9999),
                        epsilon=(1e-8, 1e-3), rho=(0.5, 0.99), momentum=(0.0, 0.99), l1=(0.0, 0.1), l2=(0.0, 0.1),
                        l2_shrinkage=(0.0, 0.1), sign_decay=(0.0, 1.0), beta=(0.5, 0.99), logbase=(0.0, 1.0))
    """Ranges hyperparameters are drawn from, by the kernels' input names."""

    @staticmethod
    def _st():
        try:
            from hypothesis import strategies as st
            from hypothesis.extra import numpy as hnp
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("ref.testing.strategies needs hypothesis (pip install hypothesis)") from e
        return st, hnp

    def floats(self, dtype, lo=None, hi=None, finite=True):
        """Elements of ``dtype`` in [lo, hi] (subnormals included; NaN/inf when not ``finite``)."""
        st, _ = self._st()
        dtype = np.dtype(dtype)
        width = {2: 16, 4: 32, 8: 64}.get(dtype.itemsize, 64) if dtype.kind == "f" else 32
        s = st.floats(min_value=lo, max_value=hi, width=width, allow_nan=not finite,
                      allow_infinity=not finite and lo is None and hi is None)
        return s

    def array(self, dtype, shape, lo=None, hi=None, finite=True):
        st, hnp = self._st()
        dtype = np.dtype(dtype)
        store = dtype if dtype.kind == "f" else np.dtype(np.float32)
        s = hnp.arrays(store, shape, elements=self.floats(store, lo, hi, finite))
        return s.map(lambda a: a.astype(dtype))

    def kernel_inputs(self, name, dtype=np.float32, finite=None):
        """A strategy of keyword-argument dicts for ``ref.raw_ops.<name>`` (or, for an
        optimizer name, ``{"var": ..., "grads": [steps, ...]}``).

        Training kernels: var, grad in [-10, 10], sum-of-squares slots in [0, 10],
        other slots in [-1, 1], hyperparameters in :data:`HYPER_RANGES` (Python
        floats or 0-d arrays, at random), beta powers ``beta^t`` for t in 1..100,
        sparse ``indices`` with duplicates. Element-wise ops: any floats of the
        dtype, NaN and infinities included unless ``finite=True``. Ops with
        integer inputs: the recipes of :mod:`ref.golden.cases`, seeded.
        """
        st, _ = self._st()
        dtype = np.dtype(dtype)
        spec = trajectory.lookup(name)
        if spec is not None:
            @st.composite
            def opt(draw):
                n, steps = draw(st.integers(1, 6)), draw(st.integers(1, 5))
                return {"var": draw(self.array(dtype, (n,), -10, 10)),
                        "grads": draw(self.array(dtype, (steps, n), -10, 10))}
            return opt()
        op = registry.get(name)
        if C.is_training_op(op):
            return self._training(op, dtype, st)
        if op.name not in C.RECIPES and C.float_group(op) is not None:
            fin = bool(finite)

            @st.composite
            def elementwise(draw):
                shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=2)))
                return {n: draw(self.array(dtype, shape, finite=fin)) for n in op.inputs}
            return elementwise()
        return st.integers(0, 2 ** 32 - 1).flatmap(
            lambda seed: st.sampled_from([{**c.inputs, **c.attrs}
                                          for c in C.kernel_cases(op, dtype, np.random.default_rng(seed))]))

    def _training(self, op, dtype, st):
        sparse = "indices" in op.inputs
        refs = set(op.refs)

        @st.composite
        def training(draw):
            rows, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
            shape = (rows, k)
            kw = {}
            as_array = draw(st.booleans())
            t = draw(st.integers(1, 100))
            if sparse:
                n = draw(st.integers(0, 5))
                kw["indices"] = np.array(draw(st.lists(st.integers(0, rows - 1), min_size=n, max_size=n)),
                                         draw(st.sampled_from((np.int32, np.int64))))
            gshape = (kw["indices"].size, k) if sparse else shape
            for name in op.inputs:
                if name in refs:
                    if name in C.NONNEGATIVE_SLOTS:
                        kw[name] = draw(self.array(dtype, shape, 0.0, 10.0))
                    elif name == "var":
                        kw[name] = draw(self.array(dtype, shape, -10.0, 10.0))
                    else:
                        kw[name] = draw(self.array(dtype, shape, -1.0, 1.0))
                elif name in ("grad", "delta"):
                    kw[name] = draw(self.array(dtype, gshape, -10.0, 10.0))
                elif name == "global_step":
                    kw[name] = np.int64(t)
                elif name == "lr_power":
                    kw[name] = draw(st.sampled_from((-0.5, -0.25, 0.0)))
                elif name in ("beta1_power", "beta2_power"):
                    continue
                elif name != "indices":
                    lo, hi = self.HYPER_RANGES.get(name, (0.0, 1.0))
                    if op.name == "ApplyAddSign" and name == "alpha":
                        lo, hi = 0.5, 2.0
                    kw[name] = float(draw(st.floats(lo, hi)))
            if "mg" in kw:  # centered RMSProp: keep ms - mg^2 >= 0
                kw["mg"] = (0.5 * np.sqrt(kw["ms"].astype(np.float64)) * np.sign(kw["mg"])).astype(dtype)
            for p in ("beta1_power", "beta2_power"):
                if p in op.inputs:
                    kw[p] = float(kw[p.replace("_power", "")]) ** t
            for name in op.inputs:
                if isinstance(kw[name], float) and as_array:
                    kw[name] = np.asarray(kw[name], dtype)
            for attr, default in op.attrs.items():
                if isinstance(default, bool) and attr != "use_locking":
                    kw[attr] = draw(st.booleans())
            return {n: kw[n] for n in (*op.inputs, *(a for a in op.attrs if a in kw))}

        return training()


strategies = _Strategies()
"""``ref.testing.strategies.kernel_inputs(name, dtype=...)``: hypothesis strategies per kernel."""
