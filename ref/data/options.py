"""``tf.data.Options`` (TF1 names): the options a pipeline carries, set with
``Dataset.with_options`` and read with ``Dataset.options()``. They are
serialized as TF's ``dataset_options.proto`` ``Options`` message (field numbers
from that file; only the fields a user set, in field-number order, the nested
messages always present) into ``OptionsDataset``'s ``serialized_options``."""
from __future__ import annotations

import enum


class AutoShardPolicy(enum.IntEnum):
    OFF, AUTO, FILE, DATA, HINT = -1, 0, 1, 2, 3


class ExternalStatePolicy(enum.IntEnum):
    WARN, IGNORE, FAIL = 0, 1, 2


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(number, wire, payload):
    return _varint(number << 3 | wire) + payload


class _OptionsBase:
    """Attributes with TF's names; unknown names are refused (TF's OptionsBase)."""

    _FIELDS = {}    # python name -> (field number, "bool" | "int" | "enum" | "str"), oneof-tracked: sent when set
    _NESTED = {}    # python name -> (field number, class)
    _ALWAYS = {}    # python name -> (field number, default): proto3 scalars, sent when not the default
    _ALIASES = {}

    def __init__(self):
        for name in self._FIELDS:
            object.__setattr__(self, name, None)
        for name, (_, default) in self._ALWAYS.items():
            object.__setattr__(self, name, default)
        for name, (_, cls) in self._NESTED.items():
            object.__setattr__(self, name, cls())

    def __setattr__(self, name, value):
        name = self._ALIASES.get(name, name)
        if name not in self._FIELDS and name not in self._ALWAYS and name not in self._NESTED:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        if name in type(self)._ALIASES:
            return getattr(self, type(self)._ALIASES[name])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __eq__(self, other):
        return type(self) is type(other) and self.serialize() == other.serialize()

    __hash__ = None

    def serialize(self) -> bytes:
        parts = []
        for name, (num, kind) in self._FIELDS.items():
            v = getattr(self, name)
            if v is None:
                continue
            if kind == "str":
                data = v.encode() if isinstance(v, str) else bytes(v)
                parts.append((num, _field(num, 2, _varint(len(data)) + data)))
            else:
                parts.append((num, _field(num, 0, _varint(int(v)))))
        for name, (num, default) in self._ALWAYS.items():
            v = getattr(self, name)
            if v is not None and int(v) != default:
                parts.append((num, _field(num, 0, _varint(int(v)))))
        for name, (num, _) in self._NESTED.items():
            data = getattr(self, name).serialize()
            parts.append((num, _field(num, 2, _varint(len(data)) + data)))
        return b"".join(p for _, p in sorted(parts, key=lambda x: x[0]))

    def _merged(self, other):
        out = type(self)()
        for name in list(self._FIELDS) + list(self._ALWAYS):
            mine, theirs = getattr(self, name), getattr(other, name)
            object.__setattr__(out, name, theirs if theirs is not None else mine)
        for name in self._NESTED:
            object.__setattr__(out, name, getattr(self, name)._merged(getattr(other, name)))
        return out


class AutotuneOptions(_OptionsBase):
    _FIELDS = {"enabled": (1, "bool"), "cpu_budget": (2, "int"), "ram_budget": (3, "int"),
               "autotune_algorithm": (4, "enum"), "initial_parallelism": (5, "int"), "min_parallelism": (6, "int")}


class DistributeOptions(_OptionsBase):
    _FIELDS = {"num_devices": (2, "int")}
    _ALWAYS = {"auto_shard_policy": (1, 0)}


class OptimizationOptions(_OptionsBase):
    _FIELDS = {"apply_default_optimizations": (1, "bool"), "filter_fusion": (6, "bool"),
               "map_and_batch_fusion": (9, "bool"), "map_and_filter_fusion": (10, "bool"),
               "map_fusion": (11, "bool"), "map_parallelization": (12, "bool"), "noop_elimination": (14, "bool"),
               "parallel_batch": (15, "bool"), "shuffle_and_repeat_fusion": (17, "bool"),
               "filter_parallelization": (18, "bool"), "inject_prefetch": (19, "bool"),
               "seq_interleave_prefetch": (21, "bool")}


class ServiceOptions(_OptionsBase):
    _FIELDS = {"pinned": (1, "bool")}


class ThreadingOptions(_OptionsBase):
    _FIELDS = {"max_intra_op_parallelism": (1, "int"), "private_threadpool_size": (2, "int")}


class Options(_OptionsBase):
    """``tf.data.Options``: ``deterministic``, ``autotune``, ``experimental_distribute``,
    ``experimental_optimization``, ``experimental_slack``, ``threading``, ... ."""

    _FIELDS = {"deterministic": (1, "bool"), "experimental_slack": (4, "bool"),
               "experimental_external_state_policy": (6, "enum"), "experimental_symbolic_checkpoint": (8, "bool"),
               "experimental_warm_start": (9, "bool"), "dataset_name": (10, "str")}
    _NESTED = {"experimental_distribute": (2, DistributeOptions), "experimental_optimization": (3, OptimizationOptions),
               "threading": (5, ThreadingOptions), "autotune": (7, AutotuneOptions),
               "experimental_service": (12, ServiceOptions)}
    _ALIASES = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}

    def merge(self, options):
        """These options updated by those set in ``options`` (TF's ``Options.merge``)."""
        return self._merged(options)
