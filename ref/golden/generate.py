"""Golden vectors: ``generate(op_or_optimizer, ...)`` -> :class:`Golden`, saved as
``.npz`` + JSON manifest.

Two kinds:

* **kernel** (any ``ref.raw_ops`` name): one call per case; ``c<i>.in.<input>``
  holds each input (a list input ``inputs`` as ``c<i>.in.inputs.0``, ...),
  ``c<i>.out.<output>`` each result (a training op's results are named after
  its ref inputs: ``var``, ``m``, ``v``).
* **trajectory** (an optimizer name, see :data:`ref.golden.trajectory.OPTIMIZERS`):
  ``c<i>.init.var`` the starting parameter, ``c<i>.init.<slot>`` its TF-initialised
  slots, ``c<i>.grad`` the gradients ``[steps, ...]`` as the optimizer applied
  them (after clipping), ``c<i>.raw_grad`` the gradients before clipping,
  ``c<i>.lr`` the learning rate each step used, and ``c<i>.out.var`` /
  ``c<i>.out.<slot>`` the values after every step ``[steps, ...]``.

The manifest (JSON) repeats every array exactly (``hex`` and ``bits``, see
:mod:`ref.golden.hexfloat`) next to op, attrs, hyperparameters, dtypes, shapes,
seed, ref's version, per-output ULP budgets and a ``content_sha256`` of the
arrays (key, dtype, shape and bytes, keys sorted), checked by :func:`load`.

Budgets: each output carries ``ulp`` and ``scale``. An actual value passes when
its error, in ULPs at that scale (``element``: the value itself; ``array``: the
largest magnitude in the expected output; ``update``: max(|new|, |old|), the old
value being the input -- or the previous step -- of the same name), is at most
``ulp`` -- times the step number for trajectories (rounding errors of earlier
steps carry forward).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from numpy.typing import DTypeLike

from ref.ops import registry
from ref.golden import cases as _cases, hexfloat, trajectory
from ref.ops.fpenv import flush_denormals as _flush
from importlib.metadata import version

FORMAT = "ref-golden/1"
DEFAULT_STEPS = 10
TRAJECTORY_ULP = 8


def _version():
    try:
        return version("ref-tf1")  # the distribution's name (import name: ref)
    except Exception:  # noqa: BLE001 -- running from a source tree that is not installed
        return "0.1.0"


class Golden:
    """A set of golden cases: ``manifest`` (JSON-able dict) and ``arrays`` (name -> ndarray)."""

    def __init__(self, manifest: dict, arrays: dict):
        self.manifest = manifest
        self.arrays = arrays

    kind = property(lambda self: self.manifest["kind"])
    name = property(lambda self: self.manifest["name"])
    dtype = property(lambda self: np.dtype(hexfloat._dtype(self.manifest["dtype"])))
    cases = property(lambda self: self.manifest["cases"])

    def __repr__(self):
        return (f"<Golden {self.kind} {self.name} {self.manifest['dtype']} seed={self.manifest['seed']} "
                f"cases={len(self.cases)}>")

    def case_arrays(self, i: int, part: str) -> dict:
        """``{name: array}`` of case ``i``'s ``part`` ("in", "init", "out")."""
        prefix = f"c{i}.{part}."
        return {k[len(prefix):]: v for k, v in self.arrays.items() if k.startswith(prefix)}

    def expected(self, i: int) -> dict:
        return self.case_arrays(i, "out")

    def kernel_kwargs(self, i: int) -> dict:
        """Case ``i`` of a kernel golden as ``ref.raw_ops.<op>`` keyword arguments."""
        case = self.cases[i]
        op = registry.get(self.manifest["op"])
        ins = self.case_arrays(i, "in")
        kw = {}
        for name in op.inputs:
            if name in op.list_inputs:
                n = case["list_lengths"][name]
                kw[name] = [ins[f"{name}.{k}"] for k in range(n)]
            else:
                kw[name] = ins[name]
                if case.get("python_scalars") and name in case["python_scalars"]:
                    kw[name] = ins[name].item()
        kw.update(case["attrs"])
        return kw

    def trajectory_inputs(self, i: int) -> dict:
        """Case ``i`` of a trajectory golden: var, grads, raw_grads, lr and the hyperparameters."""
        case = self.cases[i]
        p = f"c{i}."
        return dict(var=self.arrays[p + "init.var"], grads=self.arrays[p + "grad"],
                    raw_grads=self.arrays[p + "raw_grad"], lr=self.arrays[p + "lr"], hyper=hyper_values(case))

    def content_hash(self) -> str:
        return content_hash(self.arrays)

    def save(self, out_dir: str | os.PathLike, stem: str | None = None, force: bool = False) -> tuple[Path, Path]:
        """Writes ``<stem>.npz`` and ``<stem>.json`` into ``out_dir``; returns both paths.

        The stem (``manifest["stem"]``) names everything that distinguishes one
        golden from another. Where those files already hold a different golden
        (other numbers), :class:`GoldenExistsError` unless ``force``; the same
        golden is rewritten."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = stem or self.manifest["stem"]
        npz, js = out / f"{stem}.npz", out / f"{stem}.json"
        if not force and js.exists():
            try:
                old = json.loads(js.read_text()).get("content_sha256")
            except (ValueError, OSError, AttributeError):
                old = None
            if old != self.manifest["content_sha256"]:
                raise GoldenExistsError(f"{js} holds a different golden; --force overwrites it "
                                        f"(or write to another --out)")
        write_npz(npz, self.arrays)
        js.write_text(json.dumps(self.manifest, indent=1, sort_keys=False) + "\n")
        return npz, js


class GoldenExistsError(FileExistsError):
    """A save would overwrite a different golden (see :meth:`Golden.save`)."""


def _token(value) -> str:
    """A value as it appears in a golden's file name (``0.001``, ``true``, ``-0.5``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "-".join(_token(v) for v in value)
    return "".join(c if c.isalnum() or c in ".-+" else "-" for c in str(value))


def _differences(values: dict, defaults: dict) -> list:
    """``name`` for a boolean flag turned on, ``no_name`` off, ``name<value>`` otherwise:
    the entries of ``values`` that differ from ``defaults``, in sorted order."""
    parts = []
    for k in sorted(values):
        v = values[k]
        if k in defaults and _same(v, defaults[k]):
            continue
        if isinstance(v, bool):
            parts.append(k if v else f"no_{k}")
        else:
            parts.append(f"{k}{_token(v)}")
    return parts


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


def stem_of(name: str, dtype: DTypeLike, seed: int, variants: Sequence[str] = (),
            flush_denormals: bool = False) -> str:
    """The file stem: ``<name>[_<variant>...]_<dtype>_seed<seed>[_ftz]``."""
    return "_".join([name, *variants, np.dtype(dtype).name, f"seed{int(seed)}"]) + ("_ftz" if flush_denormals else "")


def hyper_values(case: Mapping[str, Any]) -> dict:
    """A trajectory case's hyperparameters as the optimizer was given them
    (Python floats, or 0-d arrays where the case says so)."""
    out: dict[str, object] = {}
    for k, e in case["hyper"].items():
        if e["form"] == "0-d array":
            out[k] = hexfloat.array_from_entry(e)
        elif "hex" in e:
            out[k] = float.fromhex(e["hex"][0])
        else:
            out[k] = e["values"][0]
    return out


# -- deterministic .npz ----------------------------------------------------------------

def _storable(a):
    a = np.asarray(a)
    return a.view(np.uint16) if a.dtype.name == "bfloat16" else a


def write_npz(path: str | os.PathLike, arrays: dict) -> None:
    """``np.savez`` layout with fixed timestamps, keys sorted: same arrays, same bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for key in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.array(_storable(arrays[key]), order="C"), allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())


def content_hash(arrays: dict) -> str:
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.array(arrays[key], order="C")
        h.update(f"{key}|{a.dtype.name}|{list(a.shape)}|".encode())
        h.update(_storable(a).tobytes())
    return h.hexdigest()


def _paths(path):
    p = Path(path)  # stems hold dots (adam_epsilon0.001_...): only .npz / .json is a suffix
    stem = p.name[:-len(p.suffix)] if p.suffix in (".npz", ".json") else p.name
    return p.with_name(stem + ".npz"), p.with_name(stem + ".json")


def load(path: str | os.PathLike) -> Golden:
    """A saved golden set (``path`` = the .npz, the .json, or their common stem);
    ValueError when the arrays do not match the manifest's content hash."""
    npz, js = _paths(path)
    manifest = json.loads(js.read_text())
    with np.load(npz, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    for k in manifest.get("bfloat16_keys", []):
        arrays[k] = arrays[k].view(hexfloat._dtype("bfloat16"))
    g = Golden(manifest, arrays)
    if g.content_hash() != manifest["content_sha256"]:
        raise ValueError(f"{npz}: arrays do not match the manifest's content_sha256")
    return g


# -- generation --------------------------------------------------------------------------

def _entry(a, **extra):
    return {**hexfloat.describe(a), **extra}


def generate(name: str, dtype: DTypeLike = np.float32, steps: int | None = None, seed: int = 0,
             cases: Sequence[Mapping[str, Any]] | None = None, hyper: Mapping[str, Any] | None = None,
             attrs: Mapping[str, Any] | None = None, schedule: Callable[[int], Any] | None = None,
             clip: Callable[[np.ndarray], np.ndarray] | None = None, loop_description: Mapping[str, Any] | None = None,
             flush_denormals: bool = False) -> Golden:
    """Golden cases for kernel or optimizer ``name``.

    ``name``: a ``ref.raw_ops`` op (``"ApplyAdam"``, ``"Softmax"``...) or an
    optimizer (``"adam"``, ``"ftrl"``, ``"momentum"``...). ``steps`` (optimizers;
    default 10) is the trajectory length. ``cases`` replaces a kernel's automatic
    inputs (a list of dicts of keyword arguments). ``hyper`` overrides an
    optimizer's hyperparameters, ``attrs`` a kernel's attrs in every case.
    ``schedule(global_step) -> lr`` and ``clip(grad) -> grad`` run inside the
    optimizer loop; ``loop_description`` (JSON-able) records them in the manifest.
    ``flush_denormals`` computes every output with TF's flush-to-zero arithmetic
    (:mod:`ref.ops.fpenv`): TF's numbers on the subnormal cases too (the
    manifest records it; by default the outputs are IEEE's).
    """
    if flush_denormals:
        with _flush():
            golden = generate(name, dtype, steps, seed, cases, hyper, attrs, schedule, clip, loop_description)
        golden.manifest["flush_denormals"] = True
        golden.manifest["stem"] += "_ftz"
        return golden
    dtype = np.dtype(hexfloat._dtype(dtype) if isinstance(dtype, str) else dtype)
    spec = trajectory.lookup(name)
    if spec is not None:
        return _trajectory_golden(spec, dtype, DEFAULT_STEPS if steps is None else int(steps), seed, hyper,
                                  schedule, clip, loop_description)
    if steps not in (None, 1):
        raise ValueError(f"steps={steps} applies to optimizers (e.g. 'adam'); {name} is a kernel")
    return _kernel_golden(name, dtype, seed, cases, attrs)


def _header(kind, name, dtype, seed, steps):
    return {"format": FORMAT, "kind": kind, "name": name, "dtype": dtype.name, "seed": int(seed),
            "flush_denormals": False,
            "steps": steps, "ref_version": _version(), "numpy_version": np.__version__,
            "stem": f"{name}_{dtype.name}_seed{seed}"}


def _finish(manifest, arrays):
    manifest["content_sha256"] = content_hash(arrays)
    manifest["bfloat16_keys"] = sorted(k for k, v in arrays.items() if np.asarray(v).dtype.name == "bfloat16")
    return Golden(manifest, arrays)


def _kernel_golden(name, dtype, seed, user, attrs):
    op = registry.get(name)
    if op.kernel is None:
        raise LookupError(f"{name} has no pure kernel")
    rng = np.random.default_rng(seed)
    todo = _cases.user_cases(op, user) if user is not None else _cases.kernel_cases(op, dtype, rng)
    ulp, scale = _cases.budget(op)
    training = _cases.is_training_op(op)
    manifest = _header("kernel", name, dtype, seed, 1)
    manifest.update(op=name, ulp_rule="error in ULPs at `scale` <= `ulp` for every element")
    arrays, entries, skipped = {}, [], []
    for case in todo:
        kw = {**case.inputs, **case.attrs, **(attrs or {})}
        try:
            with np.errstate(all="ignore"):  # the edge cases overflow and divide by zero on purpose
                result = registry.call(name, **kw)
        except (registry.errors.OpError, ValueError, TypeError) as e:
            skipped.append({"label": case.label, "error": f"{type(e).__name__}: {e}"})
            continue
        i = len(entries)
        results = result if isinstance(result, tuple) else (result,)
        out_names = list(op.refs) if training else _output_names(op, results)
        entry = {"index": i, "label": case.label, "attrs": _jsonable({**case.attrs, **(attrs or {})}),
                 "inputs": {}, "outputs": {}, "list_lengths": {}, "python_scalars": []}
        for k, v in case.inputs.items():
            if isinstance(v, (list, tuple)) and k in op.list_inputs:
                entry["list_lengths"][k] = len(v)
                for j, x in enumerate(v):
                    arrays[f"c{i}.in.{k}.{j}"] = np.asarray(x)
                    entry["inputs"][f"{k}.{j}"] = _entry(x)
                continue
            if isinstance(v, (float, int)) and not isinstance(v, bool):
                entry["python_scalars"].append(k)
                v = np.asarray(v, dtype if isinstance(v, float) else np.int64)
            arrays[f"c{i}.in.{k}"] = np.asarray(v)
            entry["inputs"][k] = _entry(v, form="python scalar" if k in entry["python_scalars"] else "array")
        for k, v in zip(out_names, results):
            v = np.asarray(v)
            arrays[f"c{i}.out.{k}"] = v
            entry["outputs"][k] = _entry(v, ulp=ulp if hexfloat.is_float(v.dtype) else 0,
                                         scale=scale if hexfloat.is_float(v.dtype) else "element")
        entries.append(entry)
    manifest["cases"] = entries
    manifest["skipped"] = skipped
    defaults = {k: v for k, v in op.attrs.items() if v is not registry.REQUIRED}
    variants = _differences(_jsonable(attrs or {}), defaults)
    golden = _finish(manifest, arrays)
    if user is not None:  # the caller's own inputs: named by their numbers
        variants.append("cases" + golden.manifest["content_sha256"][:8])
    manifest["stem"] = stem_of(name, dtype, seed, variants)
    return golden


def _output_names(op, results):
    if len(op.outputs) == len(results):
        return list(op.outputs)
    base = op.outputs[0] if op.outputs else "output"
    return [f"{base}.{j}" for j in range(len(results))]


def _jsonable(d):
    out = {}
    for k, v in d.items():
        if isinstance(v, np.generic):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        elif not isinstance(v, (bool, int, float, str, list, type(None))):
            v = repr(v)
        out[k] = v
    return out


TRAJECTORY_CASES = (
    ("random gradients", 1.0, 0.0, False),
    ("small gradients (epsilon matters)", 1e-8, 0.0, False),
    ("gradients with zero elements", 1.0, 0.5, False),
    ("large gradients", 1e3, 0.0, False),
    ("0-d array hyperparameters", 1.0, 0.0, True),
)
"""(label, gradient scale, fraction of elements whose gradient is always zero, hyper as 0-d arrays)."""


def _trajectory_golden(spec, dtype, steps, seed, hyper, schedule, clip, loop_description):
    rng = np.random.default_rng(seed)
    hyper_all = {**spec.hyper, **(hyper or {})}
    manifest = _header("trajectory", spec.name, dtype, seed, steps)
    manifest.update(optimizer=spec.name, kernel=spec.kernel, hyper_defaults=_jsonable(hyper_all),
                    loop=loop_description or {"schedule": None, "clip": None},
                    ulp_rule="at step t (1-based): error in ULPs at `scale` <= `ulp` * t")
    n = 6
    arrays, entries = {}, []
    for i, (label, gscale, zero_frac, as_array) in enumerate(TRAJECTORY_CASES):
        var = rng.standard_normal(n).astype(dtype)
        raw_grads = rng.standard_normal((steps, n)) * gscale
        raw_grads[:, rng.uniform(size=n) < zero_frac] = 0.0
        raw_grads = raw_grads.astype(dtype)
        h = {k: (np.asarray(v, dtype) if as_array and isinstance(v, float) else v) for k, v in hyper_all.items()}
        with np.errstate(all="ignore"):
            rec = trajectory.run(spec, var, raw_grads, h, schedule=schedule, clip=clip)
        init = trajectory.initial_state(spec, var, h)
        p = f"c{i}."
        arrays[p + "init.var"] = var
        for k, v in init.items():
            arrays[p + f"init.{k}"] = np.asarray(v)
        arrays[p + "raw_grad"] = raw_grads
        arrays[p + "grad"] = rec.pop("grad")
        arrays[p + "lr"] = rec.pop("lr")
        entry = {"index": i, "label": label, "steps": steps, "hyper": {}, "inputs": {}, "outputs": {}}
        for k, v in h.items():
            form = "0-d array" if isinstance(v, np.ndarray) else "python"
            entry["hyper"][k] = _entry(np.asarray(v), form=form)
        for k in ("init.var", *(f"init.{s}" for s in init), "grad", "raw_grad", "lr"):
            entry["inputs"][k] = _entry(arrays[p + k])
        for k, v in rec.items():
            arrays[p + f"out.{k}"] = v
            is_slot = v.shape == (steps, n) and hexfloat.is_float(v.dtype)
            entry["outputs"][k] = _entry(v, ulp=TRAJECTORY_ULP if is_slot else 0,
                                         scale="update" if is_slot else "element",
                                         required=k == "var")
        entries.append(entry)
    manifest["cases"] = entries
    manifest["skipped"] = []
    golden = _finish(manifest, arrays)
    variants = _loop_variants(spec, hyper_all, schedule, clip, loop_description, manifest)
    if steps != DEFAULT_STEPS:
        variants.append(f"steps{steps}")
    manifest["stem"] = stem_of(spec.name, dtype, seed, variants)
    return golden


def _loop_variants(spec, hyper_all, schedule, clip, loop, manifest):
    """The stem's parts after the optimizer's name: hyperparameters and flags
    that differ from the optimizer's defaults, the schedule, the clipping."""
    base = trajectory.OPTIMIZERS[spec.name].hyper
    parts = _differences(_jsonable(hyper_all), base)
    loop = loop or {}
    described = loop.get("schedule")
    if isinstance(described, Mapping) and "name" in described:
        args = {k: v for k, v in described.items() if k not in ("name", "learning_rate")}
        parts.append("-".join([described["name"], *(f"{k}{_token(v)}" for k, v in sorted(args.items()))]))
    elif schedule is not None:  # a Python schedule: named by the rates it gave
        parts.append("schedule" + manifest["content_sha256"][:8])
    clip_d = loop.get("clip")
    if isinstance(clip_d, Mapping) and "clip_norm" in clip_d:
        parts.append(f"clip_norm{_token(clip_d['clip_norm'])}")
    elif clip is not None:
        parts.append("clipped" + manifest["content_sha256"][:8])
    return parts
