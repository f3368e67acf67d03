"""Lookup-table kernels (TF's lookup_table_op / lookup_table_init_op); the
string hash buckets vocabulary tables use are in :mod:`ref.ops.strings`.

A table is a Session resource, like a queue (:mod:`ref.ops.data_flow`): the
table op (``HashTableV2``, ``MutableHashTableV2``,
``MutableHashTableOfTensorsV2``, ``MutableDenseHashTableV2``) looks it up in
``ctx.resources`` by ``container`` and ``shared_name`` (empty: the op's own
name) and outputs it as the handle the other ops take.

* ``HashTableV2`` is initialised once (``InitializeTableV2``,
  ``InitializeTableFromTextFileV2`` or ``LookupTableImportV2``); before that
  ``LookupTableFindV2`` fails with FailedPreconditionError "Table not
  initialized."; initialising again with the same number of entries is a
  no-op, with another number "Table was already initialized with different
  data."; a key given two different values fails.
* the mutable tables take ``LookupTableInsertV2`` (overwrites),
  ``LookupTableRemoveV2`` and ``LookupTableImportV2`` (replaces everything).
* ``LookupTableFindV2``: ``values[i...] = table[keys[i...]]`` or the default
  (``default_value`` has the value shape, or the full output shape for a
  per-key default); values have shape ``keys.shape + value_shape``.
* ``LookupTableExportV2``: every key and its value. ``MutableDenseHashTableV2``
  exports its bucket arrays, the empty key in unused buckets,
  laid out as TF lays them out (hash = the key, quadratic probing, doubling
  above ``max_load_factor``).
* ``InitializeTableFromTextFileV2``: one entry per line of ``filename`` (the
  first ``vocab_size`` lines when not -1, which must exist); key and value
  are column ``key_index``/``value_index`` of the line split on ``delimiter``,
  -1 the line number (plus ``offset``), -2 the whole line; empty lines fail.
"""
from __future__ import annotations

import threading

import numpy as np

from ref.types import dtypes, errors
from ref.ops import farmhash
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_LOCK = threading.Lock()
_KEY_LINE_NUMBER, _KEY_WHOLE_LINE = -1, -2


def _shape_str(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _np_dtype(dtype):
    return object if dtype == dtypes.string else dtype.np


def _dtype_of(x) -> dtypes.DType:
    x = np.asarray(x)
    return dtypes.string if x.dtype == object or x.dtype.kind in "SU" else dtypes.as_dtype(x.dtype)


def _key(v):
    return v if isinstance(v, (bytes, str)) else v.item()


def _bytes(v):
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def _failed(message):
    return errors.FailedPreconditionError(None, None, message)


class LookupTable:
    """A key -> value map of fixed dtypes; values have shape ``value_shape``."""

    kind = "LookupTable"

    def __init__(self, name, key_dtype, value_dtype, value_shape=()):
        self.name = name
        self.key_dtype = dtypes.as_dtype(key_dtype)
        self.value_dtype = dtypes.as_dtype(value_dtype)
        self.value_shape = tuple(int(d) for d in value_shape)
        self.lock = threading.Lock()
        self.data = {}

    # -- checks shared by the ops (TF's LookupInterface) --
    def check_types(self, keys, values=None):
        if _dtype_of(keys) != self.key_dtype:
            raise invalid_argument(f"Key must be type {self.key_dtype.name} but got {_dtype_of(keys).name}")
        if values is not None and _dtype_of(values) != self.value_dtype:
            raise invalid_argument(f"Value must be type {self.value_dtype.name} but got {_dtype_of(values).name}")

    def check_key_values(self, keys, values):
        self.check_types(keys, values)
        want = tuple(keys.shape) + self.value_shape
        if tuple(values.shape) != want:
            raise invalid_argument(f"Expected shape {_shape_str(want)} for value, got {_shape_str(values.shape)}")

    def rows(self, keys, values):
        flat_keys = keys.reshape(-1)
        flat_values = values.reshape((len(flat_keys),) + self.value_shape)
        return [(_key(k), flat_values[i]) for i, k in enumerate(flat_keys)]

    # -- the operations --
    def find(self, keys, default_value):
        self.check_types(keys, default_value)
        full = tuple(keys.shape) + self.value_shape
        if tuple(default_value.shape) not in (self.value_shape, full):
            raise invalid_argument(f"Expected shape {_shape_str(self.value_shape)} or {_shape_str(full)} for "
                                   f"default value, got {_shape_str(default_value.shape)}")
        per_key = tuple(default_value.shape) == full and full != self.value_shape
        flat = keys.reshape(-1)
        defaults = default_value.reshape((len(flat),) + self.value_shape) if per_key else None
        default = default_value if self.value_shape else default_value[()]
        out = np.empty((len(flat),) + self.value_shape, dtype=_np_dtype(self.value_dtype))
        with self.lock:
            for i, k in enumerate(flat):
                v = self.data.get(_key(k))
                out[i] = v if v is not None else (defaults[i] if per_key else default)
        return out.reshape(full)

    def size(self):
        with self.lock:
            return len(self.data)

    def export(self):
        with self.lock:
            items = list(self.data.items())
        keys = np.empty(len(items), dtype=_np_dtype(self.key_dtype))
        values = np.empty((len(items),) + self.value_shape, dtype=_np_dtype(self.value_dtype))
        for i, (k, v) in enumerate(items):
            keys[i] = k
            values[i] = v
        return keys, values

    def insert(self, keys, values):
        self.check_key_values(keys, values)
        rows = self.rows(keys, values)
        with self.lock:
            for k, v in rows:
                self.data[k] = v.copy() if isinstance(v, np.ndarray) else v

    def remove(self, keys):
        if _dtype_of(keys) != self.key_dtype:
            raise invalid_argument(f"Key must be type {self.key_dtype.name} but got {_dtype_of(keys).name}")
        with self.lock:
            for k in keys.reshape(-1):
                self.data.pop(_key(k), None)

    def import_values(self, keys, values):
        self.check_key_values(keys, values)
        rows = self.rows(keys, values)
        with self.lock:
            self.data = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in rows}

    def initialize(self, keys, values):
        raise errors.UnimplementedError(None, None, f"Table {self.name} cannot be initialized: it is mutable")


class HashTable(LookupTable):
    """TF's HashTable: initialised once, read-only after."""

    kind = "HashTable"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initialized = False

    def find(self, keys, default_value):
        if not self.initialized:
            raise _failed("Table not initialized.")
        return super().find(keys, default_value)

    def insert(self, keys, values):
        raise errors.UnimplementedError(None, None, "HashTable is read-only: it takes an initializer, not inserts")

    def remove(self, keys):
        raise errors.UnimplementedError(None, None, "HashTable is read-only: it takes an initializer, not removes")

    def initialize(self, rows):
        """``rows``: (key, value) pairs; FailedPrecondition on a key with two values."""
        with self.lock:
            if self.initialized:
                if len(rows) != len(self.data):
                    raise _failed("Table was already initialized with different data.")
                return
            data = {}
            for k, v in rows:
                old = data.get(k)
                if old is not None and not np.array_equal(old, v):
                    raise _failed(f"HashTable has different value for same key. Key {_text(k)} has "
                                  f"{_text(old)} and trying to add value {_text(v)}")
                data[k] = v
            self.data = data
            self.initialized = True

    def import_values(self, keys, values):
        self.check_key_values(keys, values)
        if keys.size == 0:
            raise invalid_argument("keys and values cannot be empty tensors.")
        self.initialize(self.rows(keys, values))


def _text(v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


class DenseHashTable(LookupTable):
    """TF's MutableDenseHashTable over integer keys: open addressing in bucket
    arrays (``num_buckets`` a power of 2 >= 4), bucket = key mod num_buckets,
    quadratic probing, the empty key marking free and the deleted key removed
    buckets; the arrays double when ``size > num_buckets * max_load_factor``."""

    kind = "MutableDenseHashTable"

    def __init__(self, name, key_dtype, value_dtype, value_shape, empty_key, deleted_key, initial_num_buckets,
                 max_load_factor):
        super().__init__(name, key_dtype, value_dtype, value_shape)
        if not 0 < max_load_factor < 1:
            raise invalid_argument(f"max_load_factor must be between 0 and 1, got: {max_load_factor}")
        if len(self.value_shape) > 1:
            raise invalid_argument(f"Empty value must be a scalar or a vector, got shape "
                                   f"{_shape_str(self.value_shape)}")
        empty_key, deleted_key = np.asarray(empty_key), np.asarray(deleted_key)
        if empty_key.ndim > 1:
            raise invalid_argument(f"Empty key must be a scalar or a vector, got shape {_shape_str(empty_key.shape)}")
        if empty_key.shape != deleted_key.shape:
            raise invalid_argument(f"Empty and deleted keys must have same shape, got shapes: "
                                   f"{_shape_str(empty_key.shape)} and {_shape_str(deleted_key.shape)}")
        if np.array_equal(empty_key, deleted_key):
            raise invalid_argument("Empty and deleted keys cannot be equal")
        if not (self.key_dtype.is_integer or self.key_dtype == dtypes.string):
            raise errors.UnimplementedError(None, None, f"ref's MutableDenseHashTable takes integer or string "
                                                        f"keys, not {self.key_dtype.name}")
        self.key_shape = tuple(empty_key.shape)
        self.key_size = int(np.prod(self.key_shape, dtype=np.int64))
        self.value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self.empty = empty_key.reshape(-1).astype(_np_dtype(self.key_dtype))
        self.deleted = deleted_key.reshape(-1).astype(_np_dtype(self.key_dtype))
        self.max_load_factor = max_load_factor
        self.allocate(initial_num_buckets)

    def allocate(self, n):
        if n < 4 or n & (n - 1):
            raise invalid_argument(f"Number of buckets must be at least 4 and a power of 2, got: {n}")
        self.num_buckets, self.count = n, 0
        self.keys = np.tile(self.empty, (n, 1))
        self.values = np.zeros((n, self.value_size), dtype=_np_dtype(self.value_dtype))
        if self.value_dtype == dtypes.string:
            self.values[...] = b""

    def _scalar_hash(self, x):
        return farmhash.tf_hash64(_bytes(x)) if self.key_dtype == dtypes.string else int(x) & farmhash.M

    def _hash(self, k):
        if self.key_size == 1:
            return self._scalar_hash(k[0])
        h = 0
        for x in k:  # TF's Hash64Combine
            h = (h ^ ((self._scalar_hash(x) + 0x9e3779b97f4a7800 + ((h << 10) & farmhash.M) + (h >> 4))
                      & farmhash.M)) & farmhash.M
        return h

    def _matrix(self, keys):
        n = 1 if keys.ndim == 0 else keys.shape[0]
        if keys.size != n * self.key_size:
            raise invalid_argument(f"Expected key shape {_shape_str((n,) + self.key_shape)} got "
                                   f"{_shape_str(keys.shape)}")
        return keys.reshape(n, self.key_size)

    def _check_special(self, k):
        if np.array_equal(k, self.empty):
            raise invalid_argument("Using the empty_key as a table key is not allowed")
        if np.array_equal(k, self.deleted):
            raise invalid_argument("Using the deleted_key as a table key is not allowed")

    def _probe(self, k):
        """Bucket holding k, else the first empty bucket on k's probe path (as (index, found))."""
        mask, b, probes = self.num_buckets - 1, self._hash(k) & (self.num_buckets - 1), 0
        while True:
            yield b
            probes += 1
            b = (b + probes) & mask
            if probes >= self.num_buckets:
                raise errors.InternalError(None, None, "Internal error in MutableDenseHashTable")

    def find(self, keys, default_value):
        self.check_types(keys, default_value)
        km = self._matrix(keys)
        n = km.shape[0]
        full = (n,) + self.value_shape if keys.ndim else self.value_shape
        if tuple(default_value.shape) not in (self.value_shape, tuple(keys.shape[:1]) + self.value_shape):
            raise invalid_argument(f"Expected shape {_shape_str(self.value_shape)} or {_shape_str(full)} for "
                                   f"default value, got {_shape_str(default_value.shape)}")
        default = np.asarray(default_value).reshape(-1)[:self.value_size]
        out = np.empty((n, self.value_size), dtype=_np_dtype(self.value_dtype))
        with self.lock:
            for i in range(n):
                self._check_special(km[i])
                for b in self._probe(km[i]):
                    if np.array_equal(self.keys[b], km[i]):
                        out[i] = self.values[b]
                        break
                    if np.array_equal(self.keys[b], self.empty):
                        out[i] = default
                        break
        return out.reshape(tuple(keys.shape[:len(keys.shape) - len(self.key_shape)]) + self.value_shape)

    def size(self):
        with self.lock:
            return self.count

    def _insert(self, km, vm, skip_special):
        for i in range(km.shape[0]):
            if np.array_equal(km[i], self.empty) or np.array_equal(km[i], self.deleted):
                if skip_special:
                    continue
                self._check_special(km[i])
            for b in self._probe(km[i]):
                if np.array_equal(self.keys[b], km[i]):
                    self.values[b] = vm[i]
                    break
                if np.array_equal(self.keys[b], self.empty) or np.array_equal(self.keys[b], self.deleted):
                    self.count += 1
                    self.keys[b] = km[i]
                    self.values[b] = vm[i]
                    break

    def insert(self, keys, values):
        self.check_types(keys, values)
        km = self._matrix(keys)
        vm = np.asarray(values).reshape(km.shape[0], self.value_size)
        with self.lock:
            pending = self.count + km.shape[0]
            if pending > self.num_buckets * self.max_load_factor:
                n = self.num_buckets
                while pending > n * self.max_load_factor:
                    n <<= 1
                old_keys, old_values = self.keys, self.values
                self.allocate(n)
                self._insert(old_keys, old_values, True)
            self._insert(km, vm, False)

    def remove(self, keys):
        if _dtype_of(keys) != self.key_dtype:
            raise invalid_argument(f"Key must be type {self.key_dtype.name} but got {_dtype_of(keys).name}")
        km = self._matrix(keys)
        with self.lock:
            for i in range(km.shape[0]):
                self._check_special(km[i])
                for b in self._probe(km[i]):
                    if np.array_equal(self.keys[b], km[i]):
                        self.count -= 1
                        self.keys[b] = self.deleted
                        break
                    if np.array_equal(self.keys[b], self.empty):
                        break

    def export(self):
        with self.lock:
            return self.keys.copy(), self.values.reshape((self.num_buckets,) + (self.value_shape or (1,))).copy()

    def import_values(self, keys, values):
        self.check_types(keys, values)
        keys, values = np.asarray(keys), np.asarray(values)
        with self.lock:
            self.num_buckets = keys.shape[0]
            self.keys = keys.reshape(self.num_buckets, self.key_size).copy()
            self.values = values.reshape(self.num_buckets, self.value_size).copy()
            self.count = sum(1 for k in self.keys
                             if not np.array_equal(k, self.empty) and not np.array_equal(k, self.deleted))


# ---------------------------------------------------------------------------
# Table ops: look the table up (or create it) in the session's resources
# ---------------------------------------------------------------------------

_I32, _I64, _F32, _F64, _STR, _BOOL = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string,
                                       dtypes.bool)
# The (key dtype -> value dtypes) TF registers CPU kernels for.
KERNEL_TYPES = {
    "HashTableV2": {_I32: (_F64, _F32, _I32, _STR), _I64: (_F64, _F32, _I32, _I64, _STR),
                    _STR: (_BOOL, _F64, _F32, _I32, _I64, _STR)},
    "MutableHashTableV2": {_I32: (_F64, _F32, _I32), _I64: (_F64, _F32, _I32, _I64, _STR),
                           _STR: (_BOOL, _F64, _F32, _I32, _I64)},
    "MutableHashTableOfTensorsV2": {_I32: (_F64, _F32, _I32), _I64: (_F64, _F32, _I32, _I64, _STR),
                                    _STR: (_BOOL, _F64, _F32, _I32, _I64)},
    "MutableDenseHashTableV2": {_I32: (_F64, _F32, _I32), _I64: (_BOOL, _F64, _F32, _I32, _I64),
                                _STR: (_BOOL, _F64, _F32, _I32, _I64)},
}


def _check_kernel(op_type, key_dtype, value_dtype):
    k, v = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
    if v not in KERNEL_TYPES[op_type].get(k, ()):
        raise invalid_argument(f"No OpKernel was registered to support Op '{op_type}' with these attrs: "
                               f"[key_dtype=DT_{k.name.upper()}, value_dtype=DT_{v.name.upper()}]")


def _lookup_or_create(ctx, container, shared_name, make):
    op_name = getattr(ctx, "op_name", None)
    if op_name is None:  # a raw-op call: a fresh private table
        return make(shared_name or "table")
    key = ("lookup_table", container, shared_name or op_name)
    with _LOCK:
        table = ctx.resources.get(key)
        if table is None:
            table = ctx.resources[key] = make(shared_name or op_name)
    return table


_HANDLE = fixed_rule((dtypes.resource, TensorShape([])))
_TABLE_ATTRS = {"container": "", "shared_name": "", "use_node_name_sharing": False, "key_dtype": REQUIRED,
                "value_dtype": REQUIRED}


@register_op("HashTableV2", outputs=("table_handle",), attrs=dict(_TABLE_ATTRS), shape=_HANDLE, stateful=True,
             ctx=True)
def hash_table_v2(key_dtype, value_dtype, container="", shared_name="", use_node_name_sharing=False, ctx=None):
    """The handle of a read-only hash table, filled once by an initializer op."""
    _check_kernel("HashTableV2", key_dtype, value_dtype)
    return _lookup_or_create(ctx, container, shared_name, lambda name: HashTable(name, key_dtype, value_dtype))


@register_op("MutableHashTableV2", outputs=("table_handle",), attrs=dict(_TABLE_ATTRS), shape=_HANDLE,
             stateful=True, ctx=True)
def mutable_hash_table_v2(key_dtype, value_dtype, container="", shared_name="", use_node_name_sharing=False,
                          ctx=None):
    """The handle of a mutable hash table of scalar values."""
    _check_kernel("MutableHashTableV2", key_dtype, value_dtype)
    return _lookup_or_create(ctx, container, shared_name, lambda name: LookupTable(name, key_dtype, value_dtype))


@register_op("MutableHashTableOfTensorsV2", outputs=("table_handle",),
             attrs={**_TABLE_ATTRS, "value_shape": []}, shape=_HANDLE, stateful=True, ctx=True)
def mutable_hash_table_of_tensors_v2(key_dtype, value_dtype, container="", shared_name="",
                                     use_node_name_sharing=False, value_shape=(), ctx=None):
    """The handle of a mutable hash table whose values are vectors of shape ``value_shape``."""
    _check_kernel("MutableHashTableOfTensorsV2", key_dtype, value_dtype)
    value_shape = TensorShape(value_shape).as_list()
    if len(value_shape) != 1:
        raise invalid_argument(f"Default value must be a vector, got shape {_shape_str(value_shape)}")
    return _lookup_or_create(ctx, container, shared_name,
                             lambda name: LookupTable(name, key_dtype, value_dtype, value_shape))


@register_op("MutableDenseHashTableV2", inputs=("empty_key", "deleted_key"), outputs=("table_handle",),
             attrs={**{k: v for k, v in _TABLE_ATTRS.items() if k != "key_dtype"}, "value_shape": [],
                    "initial_num_buckets": 131072, "max_load_factor": 0.8},
             type_attrs={"key_dtype": ("empty_key", "deleted_key")}, shape=_HANDLE, stateful=True, ctx=True)
def mutable_dense_hash_table_v2(empty_key, deleted_key, value_dtype, container="", shared_name="",
                                use_node_name_sharing=False, value_shape=(), initial_num_buckets=131072,
                                max_load_factor=0.8, key_dtype=None, ctx=None):
    """The handle of an open-addressing table whose free buckets hold ``empty_key``."""
    key_dtype = key_dtype or _dtype_of(empty_key)
    _check_kernel("MutableDenseHashTableV2", key_dtype, value_dtype)
    return _lookup_or_create(ctx, container, shared_name, lambda name: DenseHashTable(
        name, key_dtype, value_dtype, TensorShape(value_shape).as_list(), empty_key, deleted_key,
        initial_num_buckets, max_load_factor))


def _table(handle) -> LookupTable:
    t = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(t, LookupTable):
        raise invalid_argument(f"Expected a lookup table handle, got {type(t).__name__}")
    return t


@register_op("LookupTableFindV2", inputs=("table_handle", "keys", "default_value"), outputs=("values",),
             type_attrs={"Tin": "keys", "Tout": "default_value"},
             shape=lambda ins, attrs: [(ins["default_value"].dtype, unknown_shape())], stateful=True)
def lookup_table_find_v2(table_handle, keys, default_value, Tin=None, Tout=None):
    """values[i...] = table[keys[i...]], or the default value where the key is absent."""
    return _table(table_handle).find(np.asarray(keys), np.asarray(default_value))


@register_op("LookupTableInsertV2", inputs=("table_handle", "keys", "values"), outputs=(),
             type_attrs={"Tin": "keys", "Tout": "values"}, shape=fixed_rule(), stateful=True)
def lookup_table_insert_v2(table_handle, keys, values, Tin=None, Tout=None):
    """table[keys[i]] = values[i] (existing keys are overwritten)."""
    _table(table_handle).insert(np.asarray(keys), np.asarray(values))
    return ()


@register_op("LookupTableRemoveV2", inputs=("table_handle", "keys"), outputs=(), type_attrs={"Tin": "keys"},
             shape=fixed_rule(), stateful=True)
def lookup_table_remove_v2(table_handle, keys, Tin=None):
    """Removes ``keys`` (absent keys are ignored)."""
    _table(table_handle).remove(np.asarray(keys))
    return ()


@register_op("LookupTableSizeV2", inputs=("table_handle",), outputs=("size",),
             shape=fixed_rule((dtypes.int64, TensorShape([]))), stateful=True)
def lookup_table_size_v2(table_handle):
    """The number of entries (int64)."""
    return np.int64(_table(table_handle).size())


@register_op("LookupTableExportV2", inputs=("table_handle",), outputs=("keys", "values"),
             attrs={"Tkeys": REQUIRED, "Tvalues": REQUIRED},
             shape=lambda ins, attrs: [(dtypes.as_dtype(attrs["Tkeys"]), unknown_shape()),
                                       (dtypes.as_dtype(attrs["Tvalues"]), unknown_shape())],
             stateful=True)
def lookup_table_export_v2(table_handle, Tkeys, Tvalues):
    """Every key and its value (in the table's order)."""
    return _table(table_handle).export()


def _import_rule(ins, attrs):
    """TF's shape function: keys a vector, values rank >= 1, the same first dimension."""
    k, v = ins["keys"].shape, ins["values"].shape
    if k.ndims is not None and k.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {k.ndims} for '{attrs['_op_name']}' (keys {k})")
    if v.ndims is not None and v.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs['_op_name']}' (values {v})")
    if k.ndims and v.ndims and not k.dims[0].is_compatible_with(v.dims[0]):
        raise ValueError(f"Dimensions must be equal, but are {k.dims[0]} and {v.dims[0]} for "
                         f"'{attrs['_op_name']}' with input shapes: [], {k}, {v}.")
    return []


@register_op("LookupTableImportV2", inputs=("table_handle", "keys", "values"), outputs=(),
             type_attrs={"Tin": "keys", "Tout": "values"}, shape=_import_rule, stateful=True)
def lookup_table_import_v2(table_handle, keys, values, Tin=None, Tout=None):
    """Replaces the content with ``keys`` -> ``values`` (initialises a HashTable)."""
    _table(table_handle).import_values(np.asarray(keys), np.asarray(values))
    return ()


@register_op("InitializeTableV2", inputs=("table_handle", "keys", "values"), outputs=(),
             type_attrs={"Tkey": "keys", "Tval": "values"}, shape=_import_rule, stateful=True)
def initialize_table_v2(table_handle, keys, values, Tkey=None, Tval=None):
    """Initialises a HashTable with ``keys`` -> ``values``."""
    table = _table(table_handle)
    keys, values = np.asarray(keys), np.asarray(values)
    if not isinstance(table, HashTable):
        raise errors.UnimplementedError(None, None, f"Table {table.name} is not initializable")
    table.import_values(keys, values)
    return ()


def _scalar_filename(ins, attrs):
    f = ins["filename"].shape
    if f.ndims is not None and f.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {f.ndims} for '{attrs['_op_name']}' (filename {f})")
    return []


def _parse(token, dtype, line_no, offset):
    try:
        if dtype == dtypes.string:
            return token
        text = token.decode("utf-8", "surrogateescape").strip() if isinstance(token, bytes) else token
        if dtype.is_integer:
            v = int(text)
            info = np.iinfo(dtype.np)
            if not info.min <= v <= info.max:
                raise ValueError
            return v + offset if dtype == dtypes.int32 else v  # TF adds the offset to int32 fields only
        if dtype in (dtypes.float32, dtypes.float64):
            return float(text)
    except ValueError:
        raise invalid_argument(f"Field {_text(token)} in line {line_no} is not a valid {dtype.name}.") from None
    raise invalid_argument(f"Data type {dtype.name} not supported.")


def text_file_rows(filename, key_index, value_index, vocab_size, delimiter, offset, key_dtype, value_dtype):
    """The (key, value) pairs of TF's TextFileLineIterator."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{filename}; No such file or directory") from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    sep = delimiter.encode() if isinstance(delimiter, str) else delimiter
    need = max(key_index, value_index) + 1
    rows = []
    for i, line in enumerate(lines):
        if vocab_size != -1 and i >= vocab_size:
            break
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            raise invalid_argument(f"Invalid content in {filename}: empty line found at position "
                                   f"{sum(len(x) + 1 for x in lines[:i + 1])}.")
        tokens = line.split(sep) if need > 0 else []
        if need > 0 and len(tokens) < need:
            raise invalid_argument(f"Invalid number of columns in {filename} line {i} ({_text(line)}) : expected "
                                   f"at least {need} got {len(tokens)}")

        def field(index, dtype):
            if index == _KEY_LINE_NUMBER:
                return i + offset
            return _parse(line if index == _KEY_WHOLE_LINE else tokens[index], dtype, i, offset)
        rows.append((field(key_index, key_dtype), field(value_index, value_dtype)))
    if vocab_size != -1 and len(rows) < vocab_size:
        raise invalid_argument(f"Invalid vocab_size in {filename}: expected {vocab_size} but got {len(rows)}")
    return rows


@register_op("InitializeTableFromTextFileV2", inputs=("table_handle", "filename"), outputs=(),
             attrs={"key_index": REQUIRED, "value_index": REQUIRED, "vocab_size": -1, "delimiter": "\t",
                    "offset": 0},
             shape=lambda ins, attrs: _scalar_filename(ins, attrs), stateful=True)
def initialize_table_from_text_file_v2(table_handle, filename, key_index, value_index, vocab_size=-1,
                                       delimiter="\t", offset=0):
    """Initialises a HashTable from the lines of a text file (see the module docstring)."""
    table = _table(table_handle)
    name = np.asarray(filename).item()
    name = name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else str(name)
    if key_index < -2 or value_index < -2:
        raise invalid_argument(f"key_index and value_index must be >= -2, got {key_index} and {value_index}")
    if not isinstance(table, HashTable):
        raise errors.UnimplementedError(None, None, f"Table {table.name} is not initializable")
    if key_index == _KEY_LINE_NUMBER and table.key_dtype != dtypes.int64:
        raise invalid_argument(f"Key index for line number requires table key dtype of int64, got "
                               f"{table.key_dtype.name}")
    if value_index == _KEY_LINE_NUMBER and table.value_dtype != dtypes.int64:
        raise invalid_argument(f"Value index for line number requires table value dtype of int64, got "
                               f"{table.value_dtype.name}")
    table.initialize(text_file_rows(name, key_index, value_index, vocab_size, delimiter, offset,
                                    table.key_dtype, table.value_dtype))
    return ()
