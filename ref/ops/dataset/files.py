"""File dataset kernels: TFRecordDatasetV2, TextLineDataset,
FixedLengthRecordDatasetV2. Each reads its ``filenames`` one after another;
``compression_type`` is "", "ZLIB" or "GZIP" (TF's zlib streams).

``tf.data.TFRecordDataset(files)`` builds TF's form: a ``FlatMapDataset``
over the file names whose function makes one of these per file.
"""
from __future__ import annotations

import zlib

import numpy as np

from ref.formats.tfrecord import tf_record_iterator
from ref.ops.dataset.base import Dataset, dataset_shape, scalar
from ref.ops.registry import invalid_argument, register_op
from ref.platform import gfile
from ref.types import dtypes, errors


def _text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def _compression(c):
    c = _text(np.asarray(scalar(c, "compression_type", lambda v: v)).item())
    if c not in ("", "ZLIB", "GZIP"):
        raise invalid_argument(f"Unsupported compression_type: {c}.")
    return c


def _names(filenames):
    a = np.asarray(filenames, dtype=object)
    if a.ndim > 1:
        raise invalid_argument("`filenames` must be a scalar or a vector.")
    return [_text(f) for f in a.reshape(-1)]


def _read(path, compression):
    with gfile.GFile(path, "rb") as f:
        data = f.read()
    if compression:
        try:
            data = zlib.decompress(data, zlib.MAX_WBITS + (16 if compression == "GZIP" else 0))
        except zlib.error as e:
            raise errors.DataLossError(None, None, f"{path}: {e}") from e
    return data


class _FilesDS(Dataset):
    def __init__(self, filenames, compression):
        super().__init__([dtypes.string], [[]])
        self.files, self.compression = _names(filenames), _compression(compression)

    def elements(self, env):
        for path in self.files:
            for rec in self.records(path):
                yield (np.asarray(rec, dtype=object),)


class TFRecordDS(_FilesDS):
    op_type = "TFRecordDatasetV2"

    def records(self, path):
        return tf_record_iterator(path, self.compression)


class TextLineDS(_FilesDS):
    op_type = "TextLineDataset"

    def records(self, path):
        data = _read(path, self.compression)
        for line in data.split(b"\n")[: -1 if data.endswith(b"\n") else None]:
            yield line[:-1] if line.endswith(b"\r") else line


class FixedLengthDS(_FilesDS):
    op_type = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames, header, record, footer, compression):
        super().__init__(filenames, compression)
        if record <= 0:
            raise invalid_argument("record_bytes must be greater than zero.")
        self.header, self.record, self.footer = int(header), int(record), int(footer)

    def records(self, path):
        data = _read(path, self.compression)
        body = data[self.header:len(data) - self.footer]
        for i in range(len(body) // self.record):
            yield body[i * self.record:(i + 1) * self.record]


_FILE_ATTRS = {"metadata": ""}


@register_op("TFRecordDatasetV2", inputs=("filenames", "compression_type", "buffer_size", "byte_offsets"),
             outputs=("handle",), attrs=_FILE_ATTRS, shape=dataset_shape)
def tf_record_dataset_v2(filenames, compression_type, buffer_size, byte_offsets, metadata=""):
    """handle = the records of the TFRecord files ``filenames``, in order."""
    return TFRecordDS(filenames, compression_type)


@register_op("TextLineDataset", inputs=("filenames", "compression_type", "buffer_size"), outputs=("handle",),
             attrs=_FILE_ATTRS, shape=dataset_shape)
def text_line_dataset(filenames, compression_type, buffer_size, metadata=""):
    """handle = the lines of the files ``filenames`` (without their line ends)."""
    return TextLineDS(filenames, compression_type)


@register_op("FixedLengthRecordDatasetV2", inputs=("filenames", "header_bytes", "record_bytes", "footer_bytes",
                                                   "buffer_size", "compression_type"), outputs=("handle",),
             attrs=_FILE_ATTRS, shape=dataset_shape)
def fixed_length_record_dataset_v2(filenames, header_bytes, record_bytes, footer_bytes, buffer_size,
                                   compression_type, metadata=""):
    """handle = the ``record_bytes``-long records between each file's header and footer."""
    return FixedLengthDS(filenames, scalar(header_bytes, "header_bytes"), scalar(record_bytes, "record_bytes"),
                         scalar(footer_bytes, "footer_bytes"), compression_type)
