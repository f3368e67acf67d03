"""``python -m ref golden ...`` and ``python -m ref check ...``.

    python -m ref golden adam --dtype float32 --steps 10 --seed 0 --out golden/
    python -m ref golden Softmax --dtype float64 --out golden/
    python -m ref golden momentum --hyper use_nesterov=true --schedule exponential_decay:decay_steps=5,decay_rate=0.5 \\
        --clip-norm 1.0
    python -m ref check golden/adam_float32_seed0.json --impl examples/numpy_adam.py:adam
    python -m ref check golden/adam_float32_seed0.json --actual mine.npz

``check`` exits 0 when every case is within its ULP budget, 1 when one is not
(after printing the report and, for known formulas, the variant diagnosis),
2 on usage errors.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
from typing import Any

import numpy as np
from ref.types import cli
from ref.ops import registry
from ref.optimizers import schedules
from ref.golden import generate, trajectory, compare, diagnose, load, run_impl
from ref.golden import plot
from ref.golden.generate import GoldenExistsError
from ref.golden.impl import ProtocolError, load_callable

DTYPES = ("float16", "bfloat16", "float32", "float64")
"""The float dtypes golden vectors are written in."""


def _dtype_arg(text):
    if text not in DTYPES:
        raise argparse.ArgumentTypeError(f"invalid dtype {text!r}; one of: {', '.join(DTYPES)}")
    return text


def _unknown(kind, names, valid, owner):
    bad = sorted(set(names) - set(valid))
    if bad:
        return (f"unknown {kind} {', '.join(map(repr, bad))} for {owner}; "
                f"valid: {', '.join(sorted(valid)) or '(none)'}")
    return None


def _value(text):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _pairs(items):
    out = {}
    for item in items or []:
        for part in item.split(","):
            if part:
                k, _, v = part.partition("=")
                out[k.strip()] = _value(v.strip())
    return out


def _schedule(text, learning_rate):
    """``NAME[:k=v,...]`` -> ``global_step -> lr`` from ref.optimizers.schedules (``<NAME>_value``)."""
    name, _, args = text.partition(":")
    fn = getattr(schedules, f"{name}_value", None)
    if fn is None:
        raise ValueError(f"unknown schedule {name!r}; one of: " + ", ".join(
            n[:-6] for n in schedules.__all__ if n.endswith("_value")))
    kw = _pairs([args])
    base = kw.pop("learning_rate", learning_rate)
    if name == "piecewise_constant":
        raise ValueError("piecewise_constant needs lists; use ref.golden.generate(..., schedule=...) from Python")
    return functools.partial(fn, base, **kw), {"name": name, "learning_rate": base, **kw}


def golden_main(argv) -> int:
    p = cli.Parser(prog="python -m ref golden",
                                description="write golden vectors (.npz + .json manifest) for a kernel or optimizer")
    p.add_argument("name", help="a ref.raw_ops kernel (ApplyAdam, Softmax, ...) or an optimizer (adam, ftrl, ...)")
    p.add_argument("--dtype", default="float32", type=_dtype_arg, help=f"one of {', '.join(DTYPES)}")
    p.add_argument("--steps", type=int, default=None, help="trajectory length (optimizers; default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default: 0)")
    p.add_argument("--out", default="golden", help="directory to write the .npz and .json into (default: golden)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files of the same name that hold a different golden")
    p.add_argument("--hyper", action="append", help="optimizer hyperparameters: name=value[,name=value]")
    p.add_argument("--attr", action="append", help="kernel attrs for every case: name=value[,...]")
    p.add_argument("--schedule", help="learning-rate schedule in the loop: NAME[:k=v,...], e.g. "
                                      "exponential_decay:decay_steps=5,decay_rate=0.5")
    p.add_argument("--clip-norm", type=float, help="clip each gradient by global norm inside the loop")
    p.add_argument("--flush-denormals", action="store_true",
                   help="TF's flush-to-zero arithmetic: subnormal inputs and results are 0, as in TF's kernels")
    a = p.parse_args(argv)
    spec = trajectory.lookup(a.name)
    hyper, attrs = _pairs(a.hyper), _pairs(a.attr)
    schedule = clip = None
    loop: dict[str, Any] = {"schedule": None, "clip": None}
    if spec is None:
        try:
            op = registry.get(a.name)
        except LookupError:
            p.error(f"unknown kernel or optimizer {a.name!r} (a ref.raw_ops name such as ApplyAdam, "
                    f"or an optimizer: {', '.join(sorted(trajectory.OPTIMIZERS))})")
        message = _unknown("attr", attrs, [k for k in op.attrs if k not in op.type_attrs], a.name)
        if message:
            p.error(message)
        if a.schedule or a.clip_norm is not None or hyper:
            p.error("--schedule, --clip-norm and --hyper apply to optimizers; use --attr for a kernel")
    else:
        message = _unknown("hyperparameter", hyper, spec.hyper, a.name)
        if message:
            p.error(message)
        if attrs:
            p.error("--attr applies to kernels; use --hyper for an optimizer")
        lr = {**spec.hyper, **hyper}["learning_rate"]
        if a.schedule:
            try:
                schedule, loop["schedule"] = _schedule(a.schedule, lr)
            except (ValueError, TypeError) as e:
                p.error(f"--schedule {a.schedule}: {e}")
        if a.clip_norm is not None:
            clip = trajectory.clip_by_global_norm(a.clip_norm)
            loop["clip"] = {"name": "clip_by_global_norm", "clip_norm": a.clip_norm}
    try:
        g = generate(a.name, dtype=a.dtype, steps=a.steps, seed=a.seed, hyper=hyper or None,
                     attrs=attrs or None, schedule=schedule, clip=clip, loop_description=loop,
                     flush_denormals=a.flush_denormals)
    except (LookupError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        npz, js = g.save(a.out, force=a.force)
    except GoldenExistsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: cannot write to --out {a.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"{g}: wrote {npz} and {js}")
    if g.manifest.get("skipped"):
        print(f"skipped {len(g.manifest['skipped'])} case(s) the kernel rejects: "
              + "; ".join(s["label"] for s in g.manifest["skipped"]))
    return 0


def check_main(argv) -> int:
    p = cli.Parser(prog="python -m ref check",
                                description="compare an implementation against golden vectors")
    p.add_argument("golden", help="the golden .json / .npz (or their common path stem)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--actual", help="an .npz holding the golden's output keys (c0.out.var, ...)")
    src.add_argument("--impl", help="module:function or path/file.py:function (see docs/golden.md: protocols)")
    p.add_argument("--no-diagnosis", action="store_true", help="skip ranking the known formula variants")
    p.add_argument("--json", help="also write the summary as JSON to this file")
    p.add_argument("--plot", help="also draw the ULP error per step and slot, the budget and the first "
                                  "diverging step into this .png or .svg file (needs matplotlib)")
    a = p.parse_args(argv)
    if a.plot:
        try:
            plot.plot_format(a.plot)
        except ValueError as e:
            p.error(str(e))
        try:
            plot.pyplot()
        except plot.PlotUnavailable as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    try:
        golden = load(a.golden)
    except (OSError, ValueError, KeyError) as e:
        print(f"error: cannot read golden {a.golden}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 2
    if a.actual:
        try:
            with np.load(a.actual, allow_pickle=False) as f:
                actual = {k: f[k] for k in f.files}
        except Exception as e:  # noqa: BLE001 -- any unreadable file is the same user mistake
            print(f"error: --actual {a.actual}: not a readable .npz file "
                  f"({getattr(e, 'strerror', None) or e})", file=sys.stderr)
            return 2
        if not isinstance(actual, dict):
            print(f"error: --actual {a.actual}: an .npz archive is needed, not a single .npy array", file=sys.stderr)
            return 2
        source = a.actual
    else:
        try:
            impl = load_callable(a.impl)
        except (ImportError, OSError, AttributeError, ValueError) as e:
            print(f"error: --impl {a.impl}: {e}", file=sys.stderr)
            return 2
        try:
            actual = run_impl(golden, impl)
        except ProtocolError as e:
            print(f"error: --impl {a.impl}: {e}", file=sys.stderr)
            return 2
        source = a.impl
    report = compare(golden, actual, source)
    if not report.ok and not a.no_diagnosis:
        report.diagnosis = diagnose(golden, actual)
    print(report.format())
    if a.plot:
        try:
            plot.write_plot(report, a.plot)
        except OSError as e:
            print(f"error: cannot write --plot {a.plot}: {e.strerror or e}", file=sys.stderr)
            return 2
        print(f"plot: {a.plot}")
    if a.json:
        first = report.first_divergence
        summary = {"ok": report.ok, "first_divergence": None if first is None else first._asdict(),
                   "best_variant": None if report.diagnosis is None or report.diagnosis.best is None
                   else report.diagnosis.best.name}
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1, default=lambda x: np.asarray(x).tolist())
    return 0 if report.ok else 1
