"""Nested structures (lists, tuples, namedtuples, dicts, dict views) flattened and
rebuilt, as ``tf.nest`` does for while_loop/cond loop variables and Session
fetches. A dict view (``d.values()``, ``d.keys()``, ``d.items()``) is nested in
its iteration order and rebuilds as a list, as in TF (views cannot be built)."""
from __future__ import annotations

import collections.abc


def is_nested(s) -> bool:
    return isinstance(s, (list, tuple, collections.abc.Mapping, collections.abc.MappingView))


def _children(s):
    if isinstance(s, collections.abc.Mapping):
        return [s[k] for k in sorted(s)]
    return list(s)


def flatten(structure) -> list:
    """Leaves in order (dict values sorted by key, as TF)."""
    if not is_nested(structure):
        return [structure]
    out = []
    for c in _children(structure):
        out.extend(flatten(c))
    return out


def _rebuild(s, children):
    if isinstance(s, collections.abc.Mapping):
        keys = sorted(s)
        d = dict(zip(keys, children))
        return type(s)((k, d[k]) for k in s) if type(s) is not dict else {k: d[k] for k in s}
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*children)
    if isinstance(s, collections.abc.MappingView):
        return list(children)
    return type(s)(children)


def pack_sequence_as(structure, flat_sequence):
    """Rebuilds ``structure`` with the leaves of ``flat_sequence``."""
    flat = list(flat_sequence)
    n = len(flatten(structure))
    if len(flat) != n:
        raise ValueError(f"Could not pack sequence. Structure had {n} elements, but flat_sequence had "
                         f"{len(flat)} elements.")
    it = iter(flat)

    def build(s):
        if not is_nested(s):
            return next(it)
        return _rebuild(s, [build(c) for c in _children(s)])

    return build(structure)


def map_structure(fn, *structures):
    assert_same_structure(*structures) if len(structures) > 1 else None
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])


def assert_same_structure(a, *others, check_types=False):
    """ValueError unless ``a`` and each of ``others`` nest alike; with
    ``check_types`` (TF's default), TypeError where two sequences at the same
    place differ in type (a list against a tuple; namedtuples with the same
    name and fields count as one type)."""
    def kind(s):
        t = type(s)
        return (t.__name__, tuple(t._fields)) if hasattr(t, "_fields") else t

    def check(x, y):
        if not is_nested(x):
            return
        if kind(x) != kind(y):
            raise TypeError(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                            f"type={type(x).__name__} str={x}\n\nSecond structure: type={type(y).__name__} str={y}")
        for cx, cy in zip(_children(x), _children(y)):
            check(cx, cy)

    for b in others:
        detail = _mismatch(a, b, check_types)
        if detail is not None:
            raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                             f"{_described(a)}\n\nSecond structure: {_described(b)}\n\nMore specifically: "
                             f"{detail}\nEntire first structure:\n{_dotted(a)}\nEntire second structure:\n"
                             f"{_dotted(b)}")
        if check_types:
            check(a, b)


def _described(s):
    return f"type={type(s).__name__} str={s}"


class _Dot:
    def __repr__(self):
        return "."


def _dotted(s):
    """``s`` with each leaf printed as ``.`` (TF's "Entire ... structure")."""
    return str(pack_sequence_as(s, [_Dot()] * len(flatten(s)))) if is_nested(s) else "."


def _mismatch(x, y, keys=False):
    """What first differs between the nestings of ``x`` and ``y`` (TF's wording), or None;
    with ``keys`` (TF's check_types), also the key sets of two dicts."""
    if is_nested(x) != is_nested(y):
        nested, other = (x, y) if is_nested(x) else (y, x)
        return f'Substructure "{_described(nested)}" is a sequence, while substructure "{_described(other)}" is not'
    if not is_nested(x):
        return None
    if isinstance(x, collections.abc.Mapping) != isinstance(y, collections.abc.Mapping):
        return f"The two structures don't have the same sequence type: {_described(x)} and {_described(y)}"
    if keys and isinstance(x, collections.abc.Mapping) and set(x) != set(y):
        return (f"The two dictionaries don't have the same set of keys. First structure has keys "
                f"{_described(sorted(x))}, while second structure has keys {_described(sorted(y))}")
    if len(x) != len(y):
        return (f"The two structures don't have the same number of elements. First structure: {_described(x)}. "
                f"Second structure: {_described(y)}")
    for cx, cy in zip(_children(x), _children(y)):
        detail = _mismatch(cx, cy, keys)
        if detail is not None:
            return detail
    return None
