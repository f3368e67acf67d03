"""Checks every spec card under specs/ (see specs/card.py).

* the quote occurs in the cited seed file (whitespace-normalised) and the card's
  ``seed_title`` is that document's title: where the seeds are at hand
  (``../shared/seeds`` beside the checkout); a clone alone skips this check,
  since each card carries its quote and title itself;
* ``defaults`` equal the signature defaults of ``target``: ``"raw_ops.X"`` means
  the registry declaration's attrs, a dotted ``"ref.x.y"`` path a callable's
  ``inspect.signature`` defaults;
* hypothesis: the kernel agrees with the card's float64 oracle, float64 within
  ``ulp64`` and float32 within ``ulp`` of the oracle rounded to float32;
* coverage: every Apply*/SparseApply* op in the registry has a card.

Inputs are generated from the kernel's registry declaration: ref inputs and
the gradient (``grad``, or ``delta``) are arrays (var of shape [n], or
[rows, k] for sparse ops with distinct in-range ``indices``: a duplicate index
repeats the step, and a later step cancelling an earlier one has no scale the
harness could know; duplicates are tested against TensorFlow instead), the other ``T`` inputs
scalars (a Python float or a 0-d array, at random), other inputs int64 scalars,
bool attrs True or False. Elements mix zeros, tiny (1e-30..1e-20), moderate
(1e-3..1e3) and huge (1e8..1e12) magnitudes of both signs. A card narrows this
with ``constraints``, each a string in one of these forms::

    "lo <= name <= hi"   "lo < name < hi"   (either side may be <, <=, or absent)
    "name == 0.0"        a fixed value (numbers, True/False)
    "name = <expr>"      derived from the other inputs: a NumPy expression in
                         float64 (``np`` and the inputs by name), e.g.
                         "linear = -var * (1 / lr + 2 * l2)"
    "assume: <expr>"     examples where the expression (same namespace) is
                         false are discarded: the card's well-conditioned domain,
                         e.g. no cancellation in beta1*m + (1 - beta1)*grad

ULP distances are measured at the scale of the update: for each output,
``|kernel - oracle| / spacing(max(|oracle|, |old value|))`` (or the plain ULP
distance where that is smaller). A training step ``x_new = x - u`` cannot be
more accurate than the ULP of ``x``, and cancellation (x ~ u) would otherwise
turn a 1-ULP rounding of ``u`` into arbitrarily many ULPs of ``x_new``.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import specs
from ref.ops import registry
from specs.card import SEED_DOCUMENTS, SpecCard
from ref.golden.ulp import ulp_distance

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
NO_SEEDS = f"the seed documents are not beside this checkout ({SEEDS}); each card carries its quote and title"


def _load_cards():
    cards = []
    for info in pkgutil.iter_modules(specs.__path__):
        if info.name == "card":
            continue
        mod = importlib.import_module(f"specs.{info.name}")
        found = list(getattr(mod, "CARDS", []))
        if hasattr(mod, "CARD"):
            found.insert(0, mod.CARD)
        for c in found:
            assert isinstance(c, SpecCard), f"specs/{info.name}.py: {c!r} is not a SpecCard"
            cards.append((info.name, c))
    return cards


CARDS = _load_cards()
IDS = [f"{m}:{c.name}" for m, c in CARDS]
ORACLE_CARDS = [(m, c) for m, c in CARDS if c.kernel and c.oracle is not None]


def _norm(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("module,card", CARDS, ids=IDS)
def test_quote_is_in_the_cited_seed(module, card):
    if not card.seed:
        # Algorithms the seeds never mention (AdaMax, AddSign, PowerSign) cite their
        # paper and TF's kernel in the notes instead.
        assert not card.quote and "not in the seeds" in card.notes.lower(), card.name
        return
    if not SEEDS.is_dir():
        pytest.skip(NO_SEEDS)
    text = (SEEDS / card.seed).read_text(encoding="utf-8", errors="replace")
    assert _norm(card.quote) in _norm(text), f"{card.name}: quote not found in {card.seed}"
    assert card.section, card.name
    if SEED_DOCUMENTS[card.seed][0]:  # a titled document: the title heads the file
        assert card.seed_title in text[:200], f"{card.name}: {card.seed} is not titled {card.seed_title!r}"
    else:  # the API reference: one entry per symbol, each starting with its name
        assert re.search(rf"(^|\n)\"?{re.escape(card.seed_title)} ", text), (card.name, card.seed_title)


@pytest.mark.parametrize("module,card", CARDS, ids=IDS)
def test_card_carries_its_citation(module, card):
    """Without the seed files a card still says what it quotes and from which document."""
    if not card.seed:
        return
    assert card.seed in SEED_DOCUMENTS, f"{card.name}: unknown seed {card.seed}"
    assert card.quote.strip() and card.section.strip(), card.name
    assert card.seed_title and card.seed_title in card.citation, card.name


def _target_defaults(target: str) -> dict:
    if target.startswith("raw_ops."):
        op = registry.get(target[len("raw_ops."):])
        return {k: v for k, v in op.attrs.items() if v is not registry.REQUIRED}
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return {n: p.default for n, p in inspect.signature(obj).parameters.items()
                if p.default is not inspect.Parameter.empty}
    raise LookupError(target)


@pytest.mark.parametrize("module,card", [(m, c) for m, c in CARDS if c.target], ids=[
    f"{m}:{c.name}" for m, c in CARDS if c.target])
def test_defaults_match_the_signature(module, card):
    _import_kernels()
    actual = _target_defaults(card.target)
    for name, value in card.defaults.items():
        assert name in actual, f"{card.target} has no default for {name}"
        assert actual[name] == value, f"{card.target}: {name}={actual[name]!r}, card says {value!r}"


def _import_kernels():
    import ref.ops.training as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"ref.ops.training.{info.name}")


def test_every_training_op_has_a_card():
    _import_kernels()
    ops = {n for n in registry.registered() if re.match(r"^(Sparse)?Apply", n)}
    covered = {c.kernel for _, c in CARDS}
    missing = sorted(ops - covered)
    assert not missing, f"training ops without a spec card: {missing}"


# -- the oracle property test ---------------------------------------------------

_BOUND = re.compile(r"^\s*(?:(\S+)\s*(<=|<)\s*)?([A-Za-z_]\w*)\s*(?:(<=|<)\s*(\S+))?\s*$")


def parse_constraints(constraints):
    """{name: (lo, lo_strict, hi, hi_strict)}, {name: fixed}, [(name, expr)]."""
    bounds, fixed, derived = {}, {}, []
    for c in constraints:
        if c.startswith("assume:"):
            continue
        if "==" in c:
            name, value = (s.strip() for s in c.split("=="))
            fixed[name] = eval(value, {"np": np})  # card-authored literal
        elif "=" in c and not re.search(r"[<>]=", c):
            name, expr = (s.strip() for s in c.split("=", 1))
            derived.append((name, expr))
        else:
            m = _BOUND.match(c)
            if not m:
                raise ValueError(f"cannot parse constraint {c!r}")
            lo, lop, name, hop, hi = m.groups()
            b = list(bounds.get(name, (-np.inf, False, np.inf, False)))
            if lo is not None:
                b[0], b[1] = float(eval(lo, {"np": np})), lop == "<"
            if hi is not None:
                b[2], b[3] = float(eval(hi, {"np": np})), hop == "<"
            bounds[name] = tuple(b)
    return bounds, fixed, derived


def _element(lo, lo_strict, hi, hi_strict):
    mags = st.one_of(st.just(0.0), st.floats(1e-30, 1e-20), st.floats(1e-3, 1e3), st.floats(1e8, 1e12))
    x = st.tuples(st.sampled_from((1.0, -1.0)), mags).map(lambda t: t[0] * t[1])
    lo_v = np.nextafter(lo, np.inf) if lo_strict else lo
    hi_v = np.nextafter(hi, -np.inf) if hi_strict else hi
    return x.map(lambda v: float(min(max(v, lo_v), hi_v)))


@st.composite
def kernel_inputs(draw, card):
    op = registry.get(card.kernel)
    bounds, fixed, derived = parse_constraints(card.constraints)
    dtype = draw(st.sampled_from((np.float32, np.float64)))
    sparse = "indices" in op.inputs
    floats = set(op.type_attrs.get("T", ()))
    arrays = set(op.refs) | {"grad", "delta"}
    if sparse:
        rows, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        shape = (rows, k) if draw(st.booleans()) else (rows,)
        n_idx = draw(st.integers(0, rows))
        indices = np.array(draw(st.lists(st.integers(0, rows - 1), min_size=n_idx, max_size=n_idx, unique=True)),
                           dtype=draw(st.sampled_from((np.int32, np.int64))))
    else:
        shape = (draw(st.integers(1, 5)),)
    derived_names = {n for n, _ in derived}
    kw, f64 = {}, {}
    for name in op.inputs:
        if name == "indices":
            kw[name] = indices
            continue
        if name in derived_names:
            continue
        elem = _element(*bounds.get(name, (-np.inf, False, np.inf, False)))
        if name in fixed:
            elem = st.just(float(fixed[name]))
        if name in arrays:
            s = (len(indices), *shape[1:]) if sparse and name == "grad" else shape
            vals = np.array(draw(st.lists(elem, min_size=int(np.prod(s)), max_size=int(np.prod(s)))),
                            dtype=np.float64).reshape(s)
            kw[name] = vals.astype(dtype)
        elif name in floats:
            v = draw(elem)
            kw[name] = np.asarray(v, dtype) if draw(st.booleans()) else v
        else:  # e.g. AdagradDA's int64 global_step
            lo, _, hi, _ = bounds.get(name, (1, False, 1000, False))
            v = fixed.get(name, draw(st.integers(int(max(lo, -2**62)), int(min(hi, 2**62)))))
            kw[name] = np.asarray(v, np.int64)
    for name, expr in derived:
        env = {k: np.asarray(v, np.float64) if not isinstance(v, np.ndarray) or v.dtype.kind == "f"
               else v for k, v in kw.items()}
        v = eval(expr, {"np": np}, {k: (np.asarray(x, dtype).astype(np.float64) if np.asarray(x).dtype.kind == "f"
                                        else x) for k, x in env.items()})
        kw[name] = np.asarray(v).astype(dtype) if name in arrays else np.asarray(v, dtype)
    for name, default in op.attrs.items():
        if name in fixed:
            kw[name] = fixed[name]
        elif isinstance(default, bool) and name != "use_locking":
            kw[name] = draw(st.booleans())
    return dtype, kw


def _oracle_inputs(kw, dtype):
    """What the kernel sees, in float64: hyperparameters rounded to the var's dtype."""
    out = {}
    for k, v in kw.items():
        if isinstance(v, (float, np.floating)) or (isinstance(v, np.ndarray) and v.dtype.kind == "f"):
            out[k] = np.asarray(np.asarray(v, dtype), np.float64)
        else:
            out[k] = v
    return out


def scaled_ulps(actual, expected64, old, dtype):
    """ULP distance of ``actual`` from the oracle, at the scale of the update."""
    expected = np.asarray(expected64).astype(dtype)
    plain = ulp_distance(actual, expected)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(expected), np.abs(np.asarray(old, dtype)))
        err = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) / np.spacing(scale).astype(np.float64)
    finite = np.isfinite(expected) & np.isfinite(actual)
    return np.where(finite, np.minimum(plain, np.nan_to_num(err, nan=np.inf, posinf=np.inf)), plain)


@pytest.mark.parametrize("module,card", ORACLE_CARDS, ids=[f"{m}:{c.name}" for m, c in ORACLE_CARDS])
def test_kernel_agrees_with_the_oracle(module, card):
    _import_kernels()
    op = registry.get(card.kernel)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(kernel_inputs(card))
    def check(drawn):
        dtype, kw = drawn
        env = _oracle_inputs(kw, dtype)
        for c in card.constraints:
            if c.startswith("assume:"):
                with np.errstate(all="ignore"):
                    assume(bool(np.all(eval(c[len("assume:"):], {"np": np}, dict(env)))))
        got = registry.call(card.kernel, **kw)
        want = card.oracle(**env)
        budget = card.ulp if dtype == np.float32 else card.ulp64
        for name, a, e in zip(op.refs, got, want):
            assert a.dtype == dtype
            d = scaled_ulps(a, e, kw[name], dtype)
            worst = float(np.max(d)) if d.size else 0.0
            assert worst <= budget, (f"{card.name}: {name} off by {worst} ULP > {budget} "
                                     f"(kernel {a!r}, oracle {np.asarray(e)!r}, inputs {kw!r})")

    check()


def test_a_clone_with_nothing_beside_it_skips_the_seed_check(tmp_path):
    """The README's test command on a user's clone: no ../shared/seeds beside it. The
    quote check skips with its reason; the cards' own citations still pass."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True,
                            text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    clone = tmp_path / "alone" / "ref"
    for name in listed.stdout.splitlines():
        if (root / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, clone / name)
    assert not (clone.parent / "shared").exists()
    proc = subprocess.run([sys.executable, "-m", "pytest", "tests/test_specs.py", "-rs", "-p", "no:randomly",
                           "-k", "cited_seed or citation"], cwd=clone, capture_output=True, text=True, timeout=600,
                          env={k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "the seed documents are not beside this checkout" in proc.stdout
    summary = proc.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed, \d+ skipped", summary) and "failed" not in summary, summary
