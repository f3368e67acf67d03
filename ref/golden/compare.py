"""``compare(expected, actual)``: how far another implementation's numbers are from a golden set.

``actual`` maps the golden's output keys (``c0.out.var``, ``c0.out.m``, ...) to
arrays -- a dict, a loaded ``.npz`` or its path. For every case and output
(and, for trajectories, every step) the report gives the largest absolute and
relative error, the largest plain ULP distance, and the error in ULPs at the
output's budget scale (see :mod:`ref.golden.generate`), which decides pass or
fail. It names the first step, output (slot) and element that leaves its
budget, and the first element that differs at all.

Outputs the golden marks ``required: false`` (an optimizer's slots, Adam's
``beta1_power``) are compared when ``actual`` has them and skipped otherwise;
a missing required output (``var``) fails.
"""
from __future__ import annotations

from pathlib import Path
import os
from typing import Any, Mapping, NamedTuple

import numpy as np

from ref.golden import ulp as _ulp, hexfloat
from ref.golden.generate import Golden, load


class Divergence(NamedTuple):
    case: int
    label: str
    output: str
    step: int | None       # 1-based step of a trajectory, None for a kernel case
    element: tuple
    expected: object
    actual: object
    ulp: float             # error in ULPs at the budget scale
    budget: float

    def __str__(self):
        at = f"step {self.step}, " if self.step is not None else ""
        return (f"case {self.case} ({self.label}), {at}output {self.output!r}, element {list(self.element)}: "
                f"expected {_show(self.expected)}, actual {_show(self.actual)} "
                f"({_num(self.ulp)} ULP at scale, budget {_num(self.budget)})")


class StepStats(NamedTuple):
    step: int | None
    max_abs: float
    max_rel: float
    max_ulp: float         # plain ULP distance
    max_scaled: float      # ULPs at the budget scale (what the budget bounds)
    budget: float

    @property
    def ok(self) -> bool:
        return self.max_scaled <= self.budget


class OutputResult(NamedTuple):
    name: str
    missing: bool
    steps: list            # [StepStats]; one entry (step None) for a kernel case
    first_over: Divergence | None
    first_diff: Divergence | None

    @property
    def ok(self) -> bool:
        return not self.missing and self.first_over is None

    def worst(self, field: str) -> float:
        return max((getattr(s, field) for s in self.steps), default=0.0)


class CaseResult(NamedTuple):
    index: int  # type: ignore[assignment]  # the case's index (a field named like tuple.index)
    label: str
    outputs: dict          # name -> OutputResult (absent optional outputs left out)
    skipped: tuple         # optional outputs the actual did not provide

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outputs.values())


class Report:
    """The comparison: ``ok``, ``cases``, ``first_divergence``, ``format()``;
    ``diagnosis`` (a :class:`ref.golden.variants.Diagnosis`) when one was run."""

    def __init__(self, golden: Golden, cases: list[CaseResult], source: str = "") -> None:
        self.golden = golden
        self.cases = cases
        self.source = source
        self.diagnosis: Any = None  # a ref.golden.variants.Diagnosis once diagnosed

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.cases)

    @property
    def first_divergence(self) -> Divergence | None:
        """The earliest over-budget element: lowest step first (trajectories), then case, then output."""
        found = [o.first_over for c in self.cases for o in c.outputs.values() if o.first_over is not None]
        return min(found, key=lambda d: (d.step or 0, d.case), default=None)

    @property
    def first_difference(self) -> Divergence | None:
        found = [o.first_diff for c in self.cases for o in c.outputs.values() if o.first_diff is not None]
        return min(found, key=lambda d: (d.step or 0, d.case), default=None)

    def format(self, per_step: bool = True) -> str:
        m = self.golden.manifest
        kind = f"{m['kind']}, {m['steps']} steps" if m["kind"] == "trajectory" else "kernel"
        lines = [f"golden {m['name']} {m['dtype']} seed {m['seed']} ({kind}, {len(self.cases)} cases)"
                 + (f" vs {self.source}" if self.source else "")]
        for c in self.cases:
            lines.append(f"case {c.index} ({c.label}): {'ok' if c.ok else 'OVER BUDGET'}")
            for o in c.outputs.values():
                if o.missing:
                    lines.append(f"  {o.name:<14} MISSING from the actual results")
                    continue
                b = o.steps[0].budget
                unit = "/step" if o.steps[0].step is not None else ""
                lines.append(f"  {o.name:<14} max abs {_num(o.worst('max_abs'))}  max rel {_num(o.worst('max_rel'))}"
                             f"  max ULP {_num(o.worst('max_ulp'))}  at scale {_num(o.worst('max_scaled'))}"
                             f"  budget {_num(b)}{unit}  {'ok' if o.ok else 'FAIL'}")
                if per_step and not o.ok and o.steps[0].step is not None:
                    lines.append("    per step (ULP at scale): " + ", ".join(
                        f"{s.step}:{_num(s.max_scaled)}{'' if s.ok else '!'}" for s in o.steps))
            if c.skipped:
                lines.append(f"  not provided (optional): {', '.join(c.skipped)}")
        first = self.first_divergence
        if first is None:
            lines.append("PASSED: every case within its ULP budget")
        else:
            bad = sum(not c.ok for c in self.cases)
            lines.append(f"FAILED: {bad} of {len(self.cases)} cases over budget")
            lines.append(f"first divergence: {first}")
        diff = self.first_difference
        if diff is not None:
            lines.append(f"first difference: {diff}")
        if self.diagnosis is not None:
            lines.append(self.diagnosis.format())
        return "\n".join(lines)

    __str__ = format


def _num(x) -> str:
    if isinstance(x, (int, np.integer)) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return str(int(x))
    return f"{x:.3g}"


def _show(x) -> str:
    x = np.asarray(x)
    if hexfloat.is_float(x.dtype):
        return f"{float(x):.9g} ({float(x).hex()})"
    return str(x)


def _as_arrays(actual) -> tuple:
    if isinstance(actual, (str, Path)):
        with np.load(actual, allow_pickle=False) as f:
            return {k: f[k] for k in f.files}, str(actual)
    if hasattr(actual, "arrays") and hasattr(actual, "manifest"):
        return dict(actual.arrays), actual.name
    return dict(actual), ""


def _errors(exp, act, scale_kind, old, budget_dtype):
    """(abs err, rel err, plain ULP, ULP at scale) element-wise, float64."""
    e64, a64 = exp.astype(np.float64), act.astype(np.float64)
    same = (e64 == a64) | (np.isnan(e64) & np.isnan(a64))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        abs_err = np.where(same, 0.0, np.abs(a64 - e64))
        rel_err = np.where(same, 0.0, abs_err / np.abs(e64))
    abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)
    rel_err = np.where(np.isnan(rel_err), np.inf, rel_err)
    if not hexfloat.is_float(exp.dtype):
        return abs_err, rel_err, abs_err, abs_err
    plain = _ulp.ulp_distance(act.astype(exp.dtype), exp).astype(np.float64)
    plain = np.where(plain >= _ulp.NAN_MISMATCH, np.inf, plain)
    if scale_kind == "array":
        finite = np.abs(e64[np.isfinite(e64)])
        scale = np.full(e64.shape, finite.max() if finite.size else 0.0)
    elif scale_kind == "update" and old is not None:
        scale = np.maximum(np.abs(e64), np.abs(np.asarray(old, np.float64)))
    else:
        return abs_err, rel_err, plain, plain
    scaled = _ulp.ulp_scaled(act.astype(exp.dtype), exp, scale.astype(exp.dtype))
    return abs_err, rel_err, plain, np.minimum(plain, scaled)


def compare(expected: Golden | str | os.PathLike, actual: Mapping[str, Any] | str | os.PathLike | Golden,
            source: str = "") -> Report:
    """Compares ``actual`` (dict / npz path / Golden with the golden's output keys)
    against the :class:`~ref.golden.generate.Golden` ``expected``."""
    if not isinstance(expected, Golden):  # a path
        expected = load(expected)
    arrays, src = _as_arrays(actual)
    trajectory = expected.kind == "trajectory"
    results = []
    for case in expected.cases:
        i = case["index"]
        outs, skipped = {}, []
        for name, meta in case["outputs"].items():
            key = f"c{i}.out.{name}"
            exp = expected.arrays[key]
            if key not in arrays:
                if meta.get("required", True):
                    outs[name] = OutputResult(name, True, [], None, None)
                else:
                    skipped.append(name)
                continue
            act = np.asarray(arrays[key])
            if act.shape != exp.shape:
                raise ValueError(f"{key}: actual shape {act.shape} != expected {exp.shape}")
            outs[name] = _compare_output(expected, case, name, meta, exp, act, trajectory)
        results.append(CaseResult(i, case["label"], outs, tuple(skipped)))
    return Report(expected, results, source or src)


def _old_values(golden, i, name, trajectory):
    """The value before the step: the input of the same name (kernel) or the
    previous step (trajectory; the initial value before step 1)."""
    if trajectory:
        init = golden.arrays.get(f"c{i}.init.{name}")
        out = golden.arrays[f"c{i}.out.{name}"]
        if init is None:
            return None
        return np.concatenate([init[None], out[:-1]])
    return golden.arrays.get(f"c{i}.in.{name}")


def _compare_output(golden, case, name, meta, exp, act, trajectory):
    i, label = case["index"], case["label"]
    old = _old_values(golden, i, name, trajectory) if meta.get("scale") == "update" else None
    base = float(meta.get("ulp", 0))
    steps = range(exp.shape[0]) if trajectory else [None]
    stats, first_over, first_diff = [], None, None
    for s in steps:
        e = exp if s is None else exp[s]
        a = act if s is None else act[s]
        o = None if old is None else (old if s is None else old[s])
        budget = base if s is None else base * (s + 1)
        abs_err, rel_err, plain, scaled = _errors(e, a, meta.get("scale", "element"), o, exp.dtype)
        stats.append(StepStats(None if s is None else s + 1, _max(abs_err), _max(rel_err), _max(plain),
                               _max(scaled), budget))
        step = None if s is None else s + 1
        if first_diff is None and np.any(plain > 0):
            j = np.unravel_index(int(np.argmax(plain > 0)), plain.shape) if plain.ndim else ()
            first_diff = Divergence(i, label, name, step, tuple(int(x) for x in j), e[j], a[j], float(scaled[j]),
                                    budget)
        if first_over is None and np.any(scaled > budget):
            j = np.unravel_index(int(np.argmax(scaled > budget)), scaled.shape) if scaled.ndim else ()
            first_over = Divergence(i, label, name, step, tuple(int(x) for x in j), e[j], a[j], float(scaled[j]),
                                    budget)
    return OutputResult(name, False, stats, first_over, first_diff)


def _max(x) -> float:
    x = np.asarray(x)
    return float(x.max()) if x.size else 0.0
