"""``tf.data.experimental.make_csv_dataset`` (TF1): batches of CSV records as
(features dict, label) pairs, built as TF builds it -- file names (sorted glob
matches, shuffled when ``shuffle``), one ``CsvDataset`` per file through a
parallel interleave, shuffle and repeat, ``batch``, a map to the features
dict, ``prefetch``. Column names and (when not given) column types are read
from the files at graph-construction time with Python's ``csv`` module,
inferring the least permissive of int32, int64, float32, float64, string."""
from __future__ import annotations

import collections
import csv
import gzip

import numpy as np

from ref.data.dataset_ops import AUTOTUNE, DatasetV1, _Traced
from ref.data.options import Options
from ref.data.readers import CsvDataset, _csv_type
from ref.framework.graph import Tensor
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.platform import gfile
from ref.types import dtypes


def _file_names(file_pattern):
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if isinstance(file_pattern, list) and not file_pattern:
        raise ValueError("Argument `file_pattern` should not be empty.")
    names = [n for p in patterns for n in gfile.glob(p)]
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _reader(delim, quote):
    return dict(delimiter=delim, quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)


def _column_names(filenames, opener, kw):
    first = None
    for name in filenames:
        with opener(name) as f:
            try:
                row = next(csv.reader(f, **kw))
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it an empty file?") from None
        if first is None:
            first = row
        elif row != first:
            raise ValueError(f"All input CSV files should have the same column names in the header row. File {name} "
                             f"has different column names.")
    return first


def _fits(value, dtype):
    try:
        if dtype == dtypes.int32:
            return np.int32(value) == np.int64(value)
        if dtype == dtypes.int64:
            np.int64(value)
            return True
        return dtype.as_numpy_dtype(value) < np.inf
    except (ValueError, OverflowError):
        return False


def _infer_type(value, na_value, prev):
    if value in ("", na_value):
        return prev
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]
    for i, t in enumerate(order):
        if (t == dtypes.string or _fits(value, t)) and (prev is None or prev in order[:i + 1]):
            return t


def _infer_defaults(filenames, num_cols, opener, kw, na_value, header, limit, select):
    select = range(num_cols) if select is None else select
    types, seen = [None] * len(select), 0
    for name in filenames:
        with opener(name) as f:
            rows = csv.reader(f, **kw)
            row_num = 1
            if header:
                next(rows)
                row_num += 1
            for row in rows:
                if limit is not None and seen >= limit:
                    break
                if len(row) != num_cols:
                    raise ValueError(f"Problem inferring types: CSV row {row_num} has {len(row)} number of fields. "
                                     f"Expected: {num_cols}.")
                for j, c in enumerate(select):
                    types[j] = _infer_type(row[c], na_value, types[j])
                row_num += 1
                seen += 1
    types = [t or dtypes.string for t in types]
    return [constant([0 if t != dtypes.string else ""], dtype=t) for t in types]


def _sorted_columns(select, names):
    index = {n: i for i, n in enumerate(names)}
    out = []
    for v in select:
        if isinstance(v, int):
            if v < 0 or v >= len(names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > 0  and <= {len(names)}, "
                                 f"which is the number of columns.")
            out.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the columns: "
                             f"{index.keys()}.")
        else:
            out.append(index[v])
    out = sorted(set(out))
    if len(out) != len(select):
        raise ValueError("The `select_columns` argument contains duplicate columns.")
    return out


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of ``batch_size`` CSV records of the files ``file_pattern`` matches,
    each ``features`` (an OrderedDict by column name) or ``(features, label)``."""
    num_parallel_reads = 1 if num_parallel_reads is None else num_parallel_reads
    prefetch_buffer_size = AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size
    filenames = _file_names(file_pattern)
    dataset = DatasetV1.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    kw = _reader(field_delim, use_quote_delim)
    opener = lambda n: open(n, "r", encoding=encoding, newline="")  # noqa: E731
    if compression_type == "GZIP":
        opener = lambda n: gzip.open(n, "rt", encoding=encoding, newline="")  # noqa: E731
    elif compression_type == "ZLIB" and (column_names is None or column_defaults is None):
        raise ValueError(f"`compression_type` {compression_type} is not supported for probing columns.")
    elif compression_type not in (None, "", "GZIP", "ZLIB"):
        raise ValueError(f"Received unknown `compression_type` {compression_type}. Expected: GZIP, ZLIB or  "
                         f"(empty string).")
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _column_names(filenames, opener, kw)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Either `column_names` argument or CSV header row contains duplicate column names.")
    if select_columns is not None:
        select_columns = _sorted_columns(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [constant([], dtype=d) if not isinstance(d, Tensor) and _csv_type(d) else d
                           for d in column_defaults]
    else:
        column_defaults = _infer_defaults(filenames, len(column_names), opener, kw, na_value, header,
                                          num_rows_for_inference, select_columns)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(f"If specified, `column_defaults` and `select_columns` must have the same length: "
                         f"`column_defaults` has length {len(column_defaults)}, `select_columns` has length "
                         f"{len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: {label_name}.")

    def filename_to_dataset(filename):
        ds = CsvDataset(filename, record_defaults=column_defaults, field_delim=field_delim,
                        use_quote_delim=use_quote_delim, na_value=na_value, select_cols=select_columns, header=header,
                        compression_type=compression_type)
        return ds.ignore_errors() if ignore_errors else ds

    def map_fn(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            return features, features.pop(label_name)
        return features

    if num_parallel_reads == AUTOTUNE:
        options = Options()
        options.deterministic = not sloppy
        dataset = dataset.interleave(filename_to_dataset, num_parallel_calls=num_parallel_reads).with_options(options)
    else:
        dataset = _parallel_interleave(dataset, filename_to_dataset, num_parallel_reads, sloppy)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size=batch_size, drop_remainder=num_epochs is None)
    return dataset.map(map_fn).prefetch(prefetch_buffer_size)



def _parallel_interleave(ds, fn, cycle_length, sloppy):
    """TF's ``core_readers.ParallelInterleaveDataset`` (``LegacyParallelInterleaveDatasetV2``), block length 1."""
    def i64(v, name):
        return convert_to_tensor(v, dtype=dtypes.int64, name=name)
    traced = _Traced(fn, ds._structure, "interleave", want_dataset=True)
    return ds._unary("LegacyParallelInterleaveDatasetV2", traced.structure, other_arguments=traced.captures,
                     cycle_length=i64(cycle_length, "cycle_length"), block_length=i64(1, "block_length"),
                     buffer_output_elements=i64(2, "buffer_output_elements"),  # TF's defaults: 2 * block_length,
                     prefetch_input_elements=i64(2 * cycle_length, "prefetch_input_elements"),  # 2 * cycle_length
                     f=traced.graph,
                     Targuments=traced.targuments, deterministic="false" if sloppy else "default")
