"""``tf.lookup``: lookup tables (TF's ``ops/lookup_ops.py``).

* ``StaticHashTable(initializer, default_value)``: a read-only table filled by
  ``KeyValueTensorInitializer`` or ``TextFileInitializer``; the initializer
  op is added to ``GraphKeys.TABLE_INITIALIZERS`` (run it with
  ``tf.tables_initializer()``), as compat.v1's ``StaticHashTableV1`` does
  (``table.initializer`` is that op).
* ``StaticVocabularyTable(initializer, num_oov_buckets)``: ids of a
  vocabulary; a key outside it gets ``size + Fingerprint64(key) mod
  num_oov_buckets`` (integer keys are hashed as their decimal text).
* ``experimental.MutableHashTable`` / ``DenseHashTable``: insert, remove,
  lookup, export; checkpointed by the Saver as ``<name>-keys`` and
  ``<name>-values`` (the ``SAVEABLE_OBJECTS`` collection), as TF does.
* ``tables_initializer()`` groups every ``TABLE_INITIALIZERS`` op.
"""
from __future__ import annotations

import numbers
import uuid

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import GraphKeys, Tensor, add_to_collection, get_collection, init_scope, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.framework.saveable_object import SaveableObject, SaveSpec
from ref.framework.sparse_tensor import SparseTensor
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import group, no_op

__all__ = ["DenseHashTable", "KeyValueTensorInitializer", "MutableHashTable", "StaticHashTable",
           "StaticVocabularyTable", "TextFileIndex", "TextFileInitializer", "initialize_all_tables",
           "tables_initializer", "string_to_hash_bucket", "IdTableWithHashBuckets", "index_table_from_file",
           "index_table_from_tensor", "index_to_string_table_from_file", "index_to_string_table_from_tensor",
           "TextFileIdTableInitializer", "TextFileStringTableInitializer", "HasherSpec", "FastHashSpec",
           "StrongHashSpec", "string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "as_string"]


def tables_initializer(name="init_all_tables"):
    """An op running every table initializer of the graph (``TABLE_INITIALIZERS``); a no-op if none."""
    initializers = get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


def initialize_all_tables(name="init_all_tables"):
    """Deprecated alias of :func:`tables_initializer`."""
    return tables_initializer(name)


def string_to_hash_bucket_fast(input, num_buckets, name=None):
    """``Fingerprint64(input) mod num_buckets`` per string (int64; ``tf.strings.to_hash_bucket_fast``)."""
    return apply_op("StringToHashBucketFast", input=convert_to_tensor(input, dtypes.string), num_buckets=num_buckets,
                    name=name)


def string_to_hash_bucket(string_tensor, num_buckets, name=None, input=None):
    """``Hash64(string) mod num_buckets`` (TF's legacy hash; prefer the fast one)."""
    string_tensor = input if input is not None else string_tensor
    return apply_op("StringToHashBucket", string_tensor=convert_to_tensor(string_tensor, dtypes.string),
                    num_buckets=num_buckets, name=name)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):
    """``SipHash-2-4(key, input) mod num_buckets`` per string (``key``: two integers)."""
    return apply_op("StringToHashBucketStrong", input=convert_to_tensor(input, dtypes.string),
                    num_buckets=num_buckets, key=list(key), name=name)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Each element of a numeric or bool tensor as text (``tf.strings.as_string``)."""
    return apply_op("AsString", input=input, precision=precision, scientific=scientific, shortest=shortest,
                    width=width, fill=fill, name=name)


def check_table_dtypes(table, key_dtype, value_dtype):
    """TypeError unless the dtypes are the table's."""
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got {key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but got {value_dtype}.")


class _KeyValueTypes:
    """``key_dtype`` and ``value_dtype``, as the constructor was given them."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype


class LookupInterface(_KeyValueTypes):
    """A table of ``key_dtype`` keys and ``value_dtype`` values; ``table[keys]`` is ``lookup``."""

    @property
    def resource_handle(self):
        return self._resource_handle

    def __getitem__(self, keys):
        return self.lookup(keys)


# -- initializers --------------------------------------------------------------------

class TableInitializerBase(_KeyValueTypes):
    """What fills a static table: ``initialize(table)`` returns the op."""

    @property
    def _shared_name(self):
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table with ``keys[i] -> values[i]`` (``LookupTableImportV2``)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with name_scope(self._name, values=(table.resource_handle, self._keys, self._values)):
            init_op = apply_op("LookupTableImportV2", table_handle=table.resource_handle, keys=self._keys,
                               values=self._values)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


class TextFileIndex:
    """Special column indices of :class:`TextFileInitializer`."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file, one entry per line: the key is column
    ``key_index`` of the line split on ``delimiter`` (``TextFileIndex.LINE_NUMBER``
    -1: the line number; ``WHOLE_LINE`` -2: the line), the value column
    ``value_index``; only the first ``vocab_size`` lines when given."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype = dtypes.as_dtype(key_dtype)
        value_dtype = dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != dtypes.int64:
            raise ValueError(f"`key_dtype` must be int64 if `key_index` is {TextFileIndex.LINE_NUMBER}, received: "
                             f"{key_dtype}")
        if key_index == TextFileIndex.WHOLE_LINE and not key_dtype.is_integer and key_dtype != dtypes.string:
            raise ValueError(f"`key_dtype` should be either integer or string for `key_index` "
                             f"{TextFileIndex.WHOLE_LINE}, received: {key_dtype}")
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}")
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != dtypes.int64:
            raise ValueError(f"`value_dtype` must be int64 for `value_index` {TextFileIndex.LINE_NUMBER}, "
                             f"received: {value_dtype}")
        if value_index == TextFileIndex.WHOLE_LINE and not value_dtype.is_integer and value_dtype != dtypes.string:
            raise ValueError(f"`value_dtype` should be either integer or string for `value_index` "
                             f"{TextFileIndex.WHOLE_LINE}, received: {value_dtype}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter, self._name = vocab_size, delimiter, name
        if not isinstance(filename, Tensor):  # TF: an Asset, its path a Const "asset_path" made here
            with init_scope():
                filename = convert_to_tensor(filename, dtypes.string, name="asset_path")
        self._filename = filename
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            init_op = apply_op("InitializeTableFromTextFileV2", table_handle=table.resource_handle,
                               filename=filename, key_index=self._key_index, value_index=self._value_index,
                               vocab_size=-1 if self._vocab_size is None else self._vocab_size,
                               delimiter=self._delimiter, offset=self._offset)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if filename.op.type == "Const":
            add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self):
        parts = [f"hash_table_{self._filename_arg}"]
        if self._vocab_size:
            parts.append(f"{self._vocab_size:d}")
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "_".join(parts)


# -- static tables ----------------------------------------------------------------------

class StaticHashTable(LookupInterface):
    """A read-only hash table filled once by ``initializer`` (compat.v1's
    ``StaticHashTableV1``: the initializer op is ``table.initializer`` and sits
    in ``TABLE_INITIALIZERS``); absent keys give ``default_value``."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._is_anonymous = experimental_is_anonymous
        self._shared_name = initializer._shared_name or f"hash_table_{uuid.uuid4()}"
        self._name = name or "hash_table"
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.shape.merge_with(TensorShape([]))
        self._resource_handle = apply_op("HashTableV2", shared_name=self._shared_name,
                                         key_dtype=initializer.key_dtype, value_dtype=initializer.value_dtype,
                                         name=self._name)
        self._table_name = self._resource_handle.op.name.split("/")[-1]
        self._init_op = initializer.initialize(self)
        self._value_shape = self._default_value.shape

    @property
    def name(self):
        return self._table_name

    @property
    def default_value(self):
        return self._default_value

    @property
    def initializer(self):
        return self._init_op

    init = initializer

    def size(self, name=None):
        """The number of entries (int64)."""
        with name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return apply_op("LookupTableSizeV2", table_handle=self.resource_handle)

    def lookup(self, keys, name=None):
        """The values of ``keys`` (a Tensor or SparseTensor), ``default_value`` where absent."""
        key_tensor = keys.values if isinstance(keys, SparseTensor) else keys
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        with name_scope(name, f"{self.name}_Lookup", (self.resource_handle, key_tensor, self._default_value)):
            values = apply_op("LookupTableFindV2", table_handle=self.resource_handle, keys=key_tensor,
                              default_value=self._default_value)
        values.set_shape(key_tensor.shape)
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, values, keys.dense_shape)
        return values

    def export(self, name=None):
        """(keys, values) of every entry."""
        with name_scope(name, f"{self.name}_Export", [self.resource_handle]):
            keys, values = apply_op("LookupTableExportV2", table_handle=self.resource_handle,
                                    Tkeys=self._key_dtype, Tvalues=self._value_dtype)
        keys.set_shape([None])
        values.set_shape(keys.shape.concatenate(self._value_shape))
        return keys, values


HashTable = StaticHashTable
StaticHashTableV1 = StaticHashTable


class TextFileStringTableInitializer(TextFileInitializer):
    """Line number (int64) -> the line (string), by default."""

    def __init__(self, filename, key_column_index=TextFileIndex.LINE_NUMBER,
                 value_column_index=TextFileIndex.WHOLE_LINE, vocab_size=None, delimiter="\t",
                 name="text_file_string_table_init"):
        super().__init__(filename, dtypes.int64, key_column_index, dtypes.string, value_column_index,
                         vocab_size=vocab_size, delimiter=delimiter, name=name)


class TextFileIdTableInitializer(TextFileInitializer):
    """The line (string) -> its line number (int64), by default."""

    def __init__(self, filename, key_column_index=TextFileIndex.WHOLE_LINE,
                 value_column_index=TextFileIndex.LINE_NUMBER, vocab_size=None, delimiter="\t",
                 name="text_file_id_table_init", key_dtype=dtypes.string):
        super().__init__(filename, key_dtype, key_column_index, dtypes.int64, value_column_index,
                         vocab_size=vocab_size, delimiter=delimiter, name=name)


def _as_string(tensor):
    return tensor if tensor.dtype.base_dtype == dtypes.string else as_string(tensor)


class StaticVocabularyTable(LookupInterface):
    """Ids for a vocabulary (``initializer``: string or int64 keys, int64
    values) plus ``num_oov_buckets`` out-of-vocabulary buckets: an absent key
    gets ``size + Fingerprint64(key) mod num_oov_buckets``."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            supported = (dtypes.int64, dtypes.string)
            if initializer.key_dtype not in supported:
                raise TypeError(f"Invalid `key_dtype`, expected one of {supported}, but got "
                                f"{initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if lookup_key_dtype.is_integer else 'non-integer'} but got "
                                f"{initializer.key_dtype}.")
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got "
                                f"{initializer.value_dtype}.")
            self._table = StaticHashTable(initializer, default_value=-1)
            name = name or self._table.name
        else:
            lookup_key_dtype = dtypes.string
            self._table = None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._is_anonymous = experimental_is_anonymous
        self._table_name = name.split("/")[-1] if name is not None else None
        super().__init__(lookup_key_dtype, dtypes.int64)

    @property
    def resource_handle(self):
        return self._table.resource_handle if self._table is not None else None

    @property
    def name(self):
        return self._table_name

    @property
    def initializer(self):
        if self._table is not None:
            return self._table._init_op
        with name_scope(None, "init"):
            return no_op()

    def size(self, name=None):
        """Vocabulary size plus ``num_oov_buckets`` (int64)."""
        with name_scope(name, f"{self.name}_Size"):
            tsize = self._table.size() if self._table else convert_to_tensor(0, dtype=dtypes.int64)
            return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """The id of each key (a Tensor or SparseTensor)."""
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        values = keys.values if isinstance(keys, SparseTensor) else keys
        if self._table and self._table.key_dtype.base_dtype == dtypes.int64:
            values = math_ops.cast(values, dtypes.int64)
        with name_scope(name, f"{self.name}_Lookup"):
            buckets = string_to_hash_bucket_fast(_as_string(values), num_buckets=self._num_oov_buckets,
                                                 name="hash_bucket")
            if self._table:
                ids = self._table.lookup(values)
                buckets = math_ops.add(buckets, self._table.size())
                is_id_non_default = math_ops.not_equal(ids, self._table.default_value)
                ids = array_ops.where_v2(is_id_non_default, ids, buckets)
            else:
                ids = buckets
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, ids, keys.dense_shape)
        return ids


StaticVocabularyTableV1 = StaticVocabularyTable


class HasherSpec(tuple):
    """(hasher, key): ``"fasthash"`` (Fingerprint64), ``"legacy"`` (Hash64) or ``"stronghash"`` (SipHash, key)."""

    def __new__(cls, hasher, key):
        return tuple.__new__(cls, (hasher, key))

    hasher = property(lambda self: self[0])
    key = property(lambda self: self[1])


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """SipHash-2-4 with ``key`` (two integers)."""

    def __new__(cls, key):
        if len(key) != 2:
            raise ValueError(f"`key` must have size 2, received {len(key)}")
        if not all(isinstance(k, numbers.Integral) for k in key):
            raise TypeError(f"Invalid key {key}. Must be unsigned integer values.")
        return HasherSpec.__new__(cls, "stronghash", key)


def _hash_bucket_fn(hasher_spec):
    if not isinstance(hasher_spec, HasherSpec):
        raise TypeError(f"`hasher_spec` must be of type HasherSpec, got {type(hasher_spec)}.")
    if hasher_spec.hasher == "fasthash":
        return string_to_hash_bucket_fast
    if hasher_spec.hasher == "legacy":
        return string_to_hash_bucket
    if hasher_spec.hasher == "stronghash":
        return lambda x, num_buckets, name=None: string_to_hash_bucket_strong(x, num_buckets, hasher_spec.key, name)
    raise ValueError(f"Found unknown hasher {hasher_spec.hasher} in `hasher_spec`")


class IdTableWithHashBuckets(LookupInterface):
    """``table``'s ids, and ``table.size() + hash(key) mod num_oov_buckets`` for
    keys it lacks (TF's lookup_ops.IdTableWithHashBuckets; ``table`` None: buckets only)."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):
        if name:
            name = name.rstrip("/")
        if table:
            key_dtype = table.key_dtype if key_dtype is None else dtypes.as_dtype(key_dtype)
            if table.key_dtype not in (dtypes.int64, dtypes.string):
                raise TypeError(f"Invalid `key_dtype`, expected one of {(dtypes.int64, dtypes.string)}, received "
                                f"{key_dtype}.")
            if table.key_dtype.is_integer != key_dtype.is_integer:
                raise TypeError(f"Invalid `key dtype`, expected {'integer' if key_dtype.is_integer else 'non-integer'}"
                                f" but got {table.key_dtype}.")
            if table.value_dtype != dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`: expected int64 but got {table.value_dtype}.")
            self._table = table
            name = name or table.name
        else:
            if num_oov_buckets <= 0:
                raise ValueError("`oov_buckets` must be > 0 if no `table` is supplied.")
            key_dtype = dtypes.string if key_dtype is None else dtypes.as_dtype(key_dtype)
            self._table = None
            name = name or "hash_bucket"
        if not key_dtype.is_integer and key_dtype != dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {key_dtype}.")
        if not isinstance(hasher_spec, HasherSpec):
            raise TypeError(f"`hasher_spec` must be of type HasherSpec, got {type(hasher_spec)}.")
        self._num_oov_buckets, self._hasher_spec = num_oov_buckets, hasher_spec
        self._table_name = name.split("/")[-1] if name else None
        super().__init__(key_dtype, dtypes.int64)

    @property
    def initializer(self):
        if self._table is not None:
            return self._table._init_op
        with name_scope(None, "init"):
            return no_op()

    init = initializer

    @property
    def resource_handle(self):
        return self._table.resource_handle if self._table is not None else None

    @property
    def name(self):
        return self._table_name

    def size(self, name=None):
        """Table size plus ``num_oov_buckets`` (int64)."""
        with name_scope(name, f"{self.name}_Size"):
            tsize = self._table.size() if self._table else convert_to_tensor(0, dtype=dtypes.int64)
            return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """The id of each key (a Tensor or SparseTensor)."""
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        values = keys.values if isinstance(keys, SparseTensor) else keys
        if self._table and self._table.key_dtype.base_dtype == dtypes.int64:
            values = math_ops.cast(values, dtypes.int64)
        if self._num_oov_buckets == 0:
            ids = self._table.lookup(values, name=name)
        else:
            with name_scope(name, f"{self.name}_Lookup"):
                buckets = _hash_bucket_fn(self._hasher_spec)(_as_string(values), num_buckets=self._num_oov_buckets,
                                                             name="hash_bucket")
                if self._table:
                    ids = self._table.lookup(values)
                    buckets = math_ops.add(buckets, self._table.size())
                    ids = array_ops.where_v2(math_ops.not_equal(ids, self._table.default_value), ids, buckets)
                else:
                    ids = buckets
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, ids, keys.dense_shape)
        return ids


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                          hasher_spec=FastHashSpec, key_dtype=dtypes.string, name=None,
                          key_column_index=TextFileIndex.WHOLE_LINE, value_column_index=TextFileIndex.LINE_NUMBER,
                          delimiter="\t"):
    """A table mapping each line (or column) of ``vocabulary_file`` to its line number."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    if vocab_size is not None and vocab_size < 1:
        shown = vocabulary_file
        if isinstance(vocabulary_file, Tensor):
            value = constant_value(vocabulary_file)
            shown = (value.item() if hasattr(value, "item") else value) if value is not None else "?"
            shown = shown.decode() if isinstance(shown, bytes) else shown
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size} for vocabulary_file: {shown}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype.base_dtype != dtypes.string:
        raise TypeError("Dtype for `keys` should be either integer or string.")
    with name_scope(name, "string_to_index"):
        with name_scope(None, "hash_table"):
            init = TextFileIdTableInitializer(vocabulary_file, vocab_size=vocab_size,
                                              key_dtype=dtypes.int64 if key_dtype.is_integer else key_dtype,
                                              name="table_init", key_column_index=key_column_index,
                                              value_column_index=value_column_index, delimiter=delimiter)
            table = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets=num_oov_buckets, hasher_spec=hasher_spec,
                                           key_dtype=key_dtype)
        return table


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                            dtype=dtypes.string, name=None):
    """A table mapping each element of ``vocabulary_list`` to its position."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater or equal than 0, got {num_oov_buckets}.")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer and dtype.base_dtype != dtypes.string:
        raise TypeError("`dtype` must either be integer or string.")
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Invalid `dtype`: Expected {'integer' if dtype.is_integer else 'non-integer'}, got "
                             f"{keys.dtype}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Invalid `dtype`: Expected {dtype}, got {keys.dtype}.")
        values = math_ops.cast(math_ops.range(array_ops.size(keys)), dtypes.int64)
        with name_scope(None, "hash_table"):
            table_keys = math_ops.cast(keys, dtypes.int64) if keys.dtype.is_integer else keys
            init = KeyValueTensorInitializer(table_keys, values, table_keys.dtype.base_dtype, dtypes.int64,
                                             name="table_init")
            table = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets=num_oov_buckets, hasher_spec=hasher_spec,
                                           key_dtype=dtype)
        return table


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK", name=None,
                                    key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE, delimiter="\t"):
    """A table mapping line numbers of ``vocabulary_file`` to the lines (or a column)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    with name_scope(name, "index_to_string"):
        init = TextFileStringTableInitializer(vocabulary_file, vocab_size=vocab_size, name="table_init",
                                              key_column_index=key_column_index,
                                              value_column_index=value_column_index, delimiter=delimiter)
        return StaticHashTable(init, default_value)


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table mapping positions in ``vocabulary_list`` to its elements."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` argument must be specified.")
    with name_scope(name, "index_to_string"):
        vocabulary_list = convert_to_tensor(vocabulary_list, dtypes.string)
        keys = math_ops.cast(math_ops.range(array_ops.size(vocabulary_list)), dtypes.int64)
        init = KeyValueTensorInitializer(keys, vocabulary_list, dtypes.int64, dtypes.string, name="table_init")
        return StaticHashTable(init, default_value)


# -- mutable tables ---------------------------------------------------------------------------

class _TableSaveable(SaveableObject):
    """What the Saver saves of a mutable table: its export as ``<name>-keys``
    and ``<name>-values``; restoring imports them (TF's ``_Saveable``)."""

    def __init__(self, table, name, table_name=None):
        keys, values = table.export()
        super().__init__(table, [SaveSpec(keys, "", name + "-keys"), SaveSpec(values, "", name + "-values")], name)
        self.table_name = table_name or name

    def restore(self, restored_tensors, restored_shapes):
        with name_scope(f"{self.table_name}_table_restore"):
            return apply_op("LookupTableImportV2", table_handle=self.op.resource_handle, keys=restored_tensors[0],
                            values=restored_tensors[1])


class _MutableBase(LookupInterface):
    _saveable_class = _TableSaveable

    def _finish(self, handle, name, checkpoint):
        self._resource_handle = handle
        self._table_name = handle.op.name.split("/")[-1]
        if checkpoint:
            add_to_collection(GraphKeys.SAVEABLE_OBJECTS, self._saveable_class(self, name))

    def _saveable(self, name):
        """The Saver's entry for this table under checkpoint name ``name``."""
        return self._saveable_class(self, name)

    @property
    def name(self):
        return self._table_name

    def size(self, name=None):
        """The number of entries (int64)."""
        with name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return apply_op("LookupTableSizeV2", table_handle=self.resource_handle)

    def _insert(self, keys, values, name):
        with name_scope(name, f"{self.name}_lookup_table_insert", [self.resource_handle, keys, values]):
            keys = convert_to_tensor(keys, self._key_dtype, name="keys")
            values = convert_to_tensor(values, self._value_dtype, name="values")
            return apply_op("LookupTableInsertV2", table_handle=self.resource_handle, keys=keys, values=values)

    def _remove(self, keys, name):
        with name_scope(name, f"{self.name}_lookup_table_remove", (self.resource_handle, keys)):
            return apply_op("LookupTableRemoveV2", table_handle=self.resource_handle, keys=keys)

    def export(self, name=None):
        """(keys, values) of every entry."""
        with name_scope(name, f"{self.name}_lookup_table_export_values", [self.resource_handle]):
            return apply_op("LookupTableExportV2", table_handle=self.resource_handle, Tkeys=self._key_dtype,
                            Tvalues=self._value_dtype)


class MutableHashTable(_MutableBase):
    """A mutable hash table (``tf.lookup.experimental.MutableHashTable``):
    ``insert`` overwrites, ``remove`` deletes, ``lookup`` gives
    ``default_value`` (whose shape is the value shape) for absent keys."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.shape
        self._checkpoint, self._name = checkpoint, name
        self._is_anonymous = experimental_is_anonymous
        super().__init__(key_dtype, value_dtype)
        common = dict(shared_name="", use_node_name_sharing=checkpoint, key_dtype=self._key_dtype,
                      value_dtype=self._value_dtype, name=name)
        if self._value_shape.ndims == 0:
            handle = apply_op("MutableHashTableV2", **common)
        else:
            handle = apply_op("MutableHashTableOfTensorsV2", value_shape=self._value_shape, **common)
        self._finish(handle, name, checkpoint)

    def remove(self, keys, name=None):
        """Removes ``keys``; absent keys are ignored."""
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        return self._remove(keys, name)

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of ``keys``; ``dynamic_default_values`` (per key) replaces the default."""
        with name_scope(name, f"{self.name}_lookup_table_find", (self.resource_handle, keys, self._default_value)):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            values = apply_op("LookupTableFindV2", table_handle=self.resource_handle, keys=keys,
                              default_value=dynamic_default_values if dynamic_default_values is not None
                              else self._default_value)
        values.set_shape(keys.shape.concatenate(self._value_shape))
        return values

    def insert(self, keys, values, name=None):
        """Sets ``table[keys[i]] = values[i]``."""
        return self._insert(keys, values, name)


class DenseHashTable(_MutableBase):
    """A mutable hash table in open-addressing bucket arrays
    (``tf.lookup.experimental.DenseHashTable``): ``empty_key`` and
    ``deleted_key`` mark free and removed buckets and may not be used as keys
    (integer or string keys; the export is TF's bucket layout)."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True, experimental_is_anonymous=False):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype, name="default_value")
        self._value_shape = self._default_value.shape
        self._checkpoint, self._name = checkpoint, name
        self._is_anonymous = experimental_is_anonymous
        super().__init__(key_dtype, value_dtype)
        empty_key = convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
        deleted_key = convert_to_tensor(deleted_key, dtype=self._key_dtype, name="deleted_key")
        attrs = {} if initial_num_buckets is None else {"initial_num_buckets": initial_num_buckets}
        handle = apply_op("MutableDenseHashTableV2", empty_key=empty_key, deleted_key=deleted_key, shared_name="",
                          use_node_name_sharing=checkpoint, value_dtype=self._value_dtype,
                          value_shape=self._value_shape, name=name, **attrs)
        self._finish(handle, name, checkpoint)

    def lookup(self, keys, name=None):
        """The values of ``keys``, ``default_value`` where absent."""
        with name_scope(name, f"{self.name}_lookup_table_find", [self.resource_handle, keys]):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            values = apply_op("LookupTableFindV2", table_handle=self.resource_handle, keys=keys,
                              default_value=self._default_value)
        if keys.shape.ndims is not None and keys.shape.ndims > 0:
            values.set_shape(keys.shape[:1].concatenate(self._value_shape))
        return values

    def insert_or_assign(self, keys, values, name=None):
        """Sets ``table[keys[i]] = values[i]``."""
        return self._insert(keys, values, name)

    insert = insert_or_assign

    def erase(self, keys, name=None):
        """Removes ``keys``; absent keys are ignored."""
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}.")
        return self._remove(keys, name)

    remove = erase
