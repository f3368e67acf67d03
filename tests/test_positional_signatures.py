"""Old tutorials call the compat.v1 builders by position (``confusion_matrix(y, p,
10, tf.int32)``, ``softmax_cross_entropy_with_logits(y, logits)``): for every
public function of the namespaces below that both TF 2.21's ``tf.compat.v1`` and
``ref`` provide, ref's positional-or-keyword parameters begin with TF's, in TF's
order and under TF's names (ref may accept more after them). ``EXTRA_IN_TF``
names TF parameters ref does not take, with the reason."""
import inspect
import os

import pytest

import ref

NAMESPACES = ["", "nn", "layers", "train", "losses", "math", "image", "metrics", "random", "initializers",
              "summary", "sparse", "strings", "linalg"]

# TF parameters that ref leaves out, each for a reason: TF's list is compared up to them.
_SCATTER = "TF 2.21's attr for out-of-range indices on GPU; ref checks on CPU only"
EXTRA_IN_TF = {
    **{f".{n}": ("layout", "DTensor layouts: no DTensor in ref") for n in ("ones", "zeros", "fill")},
    **{f".tensor_scatter_{k}": ("bad_indices_policy", _SCATTER)
       for k in ("add", "sub", "nd_add", "nd_sub", "nd_max", "nd_min")},
    "nn.conv2d_backprop_input": ("filters", "TF 2.21's alias of `filter`, after `name`"),
}


def _positional(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind in kinds]


def _pairs():
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    tf = pytest.importorskip("tensorflow").compat.v1
    for ns in NAMESPACES:
        theirs, ours = (getattr(tf, ns), getattr(ref, ns, None)) if ns else (tf, ref)
        if ours is None:
            continue
        try:
            names = dir(theirs)
        except Exception:  # a lazily loaded TF module that does not import (keras internals)
            continue
        for name in names:
            fn = getattr(theirs, name, None)
            if name.startswith("_") or not inspect.isfunction(inspect.unwrap(fn) if callable(fn) else None):
                continue
            try:
                mine = getattr(ours, name)
            except AttributeError:
                continue
            if inspect.isclass(mine) or not callable(mine):
                continue
            want, got = _positional(inspect.unwrap(fn)), _positional(mine)
            if want is not None and got is not None:
                yield f"{ns}.{name}", want, got


def test_positional_parameters_are_tfs():
    bad = []
    for where, want, got in _pairs():
        if where in EXTRA_IN_TF:
            want = want[:want.index(EXTRA_IN_TF[where][0])]
        if got[:len(want)] != want:
            bad.append(f"{where}: TF {want}, ref {got}")
    assert not bad, "\n".join(bad)
