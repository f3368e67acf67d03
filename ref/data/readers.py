"""File datasets as TF builds them: a ``TensorSliceDataset`` of the file
names (``is_files``) and a ``FlatMapDataset`` whose function makes one
``TFRecordDatasetV2`` / ``TextLineDataset`` / ``FixedLengthRecordDatasetV2``
per file."""
from __future__ import annotations

from ref.data.dataset_ops import DatasetV1, TensorSpec
from ref.framework.graph import Tensor
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops
from ref.types import dtypes
from ref.types.shapes import TensorShape


def _file_names(filenames):
    names = convert_to_tensor(filenames, dtype=dtypes.string)
    flat = array_ops.reshape(names, [-1], name="flat_filenames")
    return DatasetV1(apply_op("TensorSliceDataset", components=[flat], Toutput_types=[dtypes.string],
                              output_shapes=[TensorShape([])], is_files=True), TensorSpec([], dtypes.string))


def _per_file(filenames, make):
    def read_one_file(filename):  # TF's name for the flat_map function
        return DatasetV1(make(filename), TensorSpec([], dtypes.string))
    return _file_names(filenames).flat_map(read_one_file)


def _compression(compression_type):
    return convert_to_tensor("" if compression_type is None else compression_type, dtype=dtypes.string,
                             name="compression_type")


def _buffer(buffer_size, default):
    return convert_to_tensor(default if buffer_size is None else buffer_size, dtype=dtypes.int64, name="buffer_size")


class TFRecordDataset(DatasetV1):
    """The records of TFRecord files, file after file (``tf.data.TFRecordDataset``)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        def make(name):
            return apply_op("TFRecordDatasetV2", filenames=name, compression_type=_compression(compression_type),
                            buffer_size=_buffer(buffer_size, 256 * 1024),
                            byte_offsets=convert_to_tensor([], dtype=dtypes.int64, name="byte_offsets"))
        ds = _per_file(filenames, make)
        super().__init__(ds._variant_tensor, ds._structure)


class TextLineDataset(DatasetV1):
    """The lines of text files, without line ends (``tf.data.TextLineDataset``)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        def make(name):
            return apply_op("TextLineDataset", filenames=name, compression_type=_compression(compression_type),
                            buffer_size=_buffer(buffer_size, 256 * 1024))
        ds = _per_file(filenames, make)
        super().__init__(ds._variant_tensor, ds._structure)


class FixedLengthRecordDataset(DatasetV1):
    """Fixed-length records between a header and a footer (``tf.data.FixedLengthRecordDataset``)."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        def make(name):
            i64 = dict(dtype=dtypes.int64)
            return apply_op("FixedLengthRecordDatasetV2", filenames=name,
                            header_bytes=convert_to_tensor(header_bytes or 0, name="header_bytes", **i64),
                            record_bytes=convert_to_tensor(record_bytes, name="record_bytes", **i64),
                            footer_bytes=convert_to_tensor(footer_bytes or 0, name="footer_bytes", **i64),
                            buffer_size=_buffer(buffer_size, 256 * 1024),
                            compression_type=_compression(compression_type))
        ds = _per_file(filenames, make)
        super().__init__(ds._variant_tensor, ds._structure)


_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


class CsvDataset(DatasetV1):
    """The records of CSV files, a tuple of scalars each, one per column of
    ``record_defaults`` (a dtype: the column is required; a value: its default)
    (``tf.data.experimental.CsvDataset``, ``CSVDatasetV2``)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None):
        names = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
        compression = _compression(compression_type)
        defaults = [constant([], dtype=d) if not isinstance(d, Tensor) and _csv_type(d) else d
                    for d in record_defaults]
        defaults = [d if isinstance(d, Tensor) else convert_to_tensor(d, name=f"record_defaults_{i}")
                    for i, d in enumerate(defaults)]
        ins = dict(filenames=names, compression_type=compression,
                   buffer_size=_buffer(buffer_size, 4 * 1024 * 1024),
                   header=convert_to_tensor(header, dtype=dtypes.bool, name="header"),
                   field_delim=convert_to_tensor(field_delim, dtype=dtypes.string, name="field_delim"),
                   use_quote_delim=convert_to_tensor(use_quote_delim, dtype=dtypes.bool, name="use_quote_delim"),
                   na_value=convert_to_tensor(na_value, dtype=dtypes.string, name="na_value"),
                   select_cols=convert_to_tensor([] if select_cols is None else select_cols, dtype=dtypes.int64,
                                                 name="select_cols"),
                   exclude_cols=convert_to_tensor([], dtype=dtypes.int64, name="exclude_cols"))
        structure = tuple(TensorSpec([], d.dtype) for d in defaults)
        variant = apply_op("CSVDatasetV2", record_defaults=defaults, output_types=[d.dtype for d in defaults],
                           output_shapes=[TensorShape([]) for _ in defaults], **ins)
        super().__init__(variant, structure)


def _csv_type(d):
    try:
        return dtypes.as_dtype(d) in _CSV_TYPES and not isinstance(d, (list, tuple, str, bytes, int, float))
    except TypeError:
        return False
