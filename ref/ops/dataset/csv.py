"""``CSVDatasetV2`` (``tf.data.experimental.CsvDataset``): the records of CSV
files, one scalar per selected column, as TF's CSVDatasetOp parses them.

* A record ends at ``\\n``, ``\\r`` or ``\\r\\n`` (or the end of the file; a
  final line end adds no record); ``header`` skips each file's first line.
* With ``use_quote_delim`` a field that starts with ``"`` runs to the next lone
  ``"`` (``""`` is a quote; delimiters and line ends inside are text); a quote
  inside an unquoted field is an error.
* An empty field or one equal to ``na_value`` takes its column's default; a
  column whose default is empty is required.
* ``select_cols`` keeps the listed columns, ``exclude_cols`` drops them; the
  record must then yield exactly one field per output.
"""
from __future__ import annotations

import re

import numpy as np

from ref.ops.dataset.base import Dataset, dataset_shape, scalar
from ref.ops.dataset.files import _compression, _names, _read
from ref.ops.registry import invalid_argument, register_op
from ref.types import dtypes

_INT = re.compile(rb"^\s*[+-]?\d+\s*$")
_LIMITS = {dtypes.int32: (-2 ** 31, 2 ** 31 - 1), dtypes.int64: (-2 ** 63, 2 ** 63 - 1)}


def _records(data, delim, quote):
    """Each record of ``data``: (its fields as bytes, the first format error or None)."""
    pos, n = 0, len(data)
    while pos < n:
        fields, error, end = [], None, False
        while not end:
            if pos >= n:  # the file ends right after a delimiter: one more, empty, field
                fields.append(b"")
                break
            if quote and data[pos:pos + 1] == b'"':
                pos += 1
                buf = bytearray()
                while True:
                    if pos >= n:
                        raise invalid_argument("Reached end of file without closing quoted field in record")
                    c = data[pos:pos + 1]
                    pos += 1
                    if c != b'"':
                        buf += c
                        continue
                    nxt = data[pos:pos + 1]
                    pos += 1
                    if nxt == b'"':
                        buf += b'"'
                    elif nxt == b"" or nxt == delim:
                        end = nxt == b""
                        break
                    elif nxt in (b"\n", b"\r"):
                        end = True
                        if nxt == b"\r" and data[pos:pos + 1] == b"\n":
                            pos += 1
                        break
                    else:
                        error = error or "Quote inside a string has to be escaped by another quote"
                        buf += nxt
                fields.append(bytes(buf))
                continue
            start = pos
            while pos < n and data[pos:pos + 1] not in (delim, b"\n", b"\r"):
                pos += 1
            field = data[start:pos]
            if quote and b'"' in field:
                error = error or "Unquoted fields cannot have quotes inside"
            fields.append(field)
            stop = data[pos:pos + 1]
            pos += 1
            if stop != delim:
                end = True
                if stop == b"\r" and data[pos:pos + 1] == b"\n":
                    pos += 1
        yield fields, error


def _value(field, index, dtype, default, na_value):
    if field == b"" or field == na_value:
        if default.size != 1:
            raise invalid_argument(f"Field {index} is required but missing in record!")
        return np.asarray(default.reshape(()), dtype=object if dtype == dtypes.string else dtype.as_numpy_dtype)
    if dtype == dtypes.string:
        return np.asarray(field, dtype=object)
    if dtype in _LIMITS:
        lo, hi = _LIMITS[dtype]
        if not _INT.match(field) or not lo <= int(field) <= hi:
            raise invalid_argument(f"Field {index} in record is not a valid {dtype.name}: {field.decode('utf-8', 'replace')}")
        return np.asarray(int(field), dtype.as_numpy_dtype)
    try:
        if b"_" in field:
            raise ValueError(field)
        return np.asarray(float(field), dtype.as_numpy_dtype)
    except ValueError:
        raise invalid_argument(f"Field {index} in record is not a valid {dtype.name}: "
                               f"{field.decode('utf-8', 'replace')}") from None


class CsvDS(Dataset):
    op_type = "CSVDatasetV2"

    def __init__(self, filenames, compression, header, delim, quote, na_value, select, exclude, defaults,
                 output_types):
        super().__init__(output_types, [[]] * len(output_types))
        self.files, self.compression = _names(filenames), _compression(compression)
        self.header, self.delim, self.quote, self.na_value = header, delim, quote, na_value
        self.select, self.exclude, self.defaults = select, exclude, defaults

    def _keep(self, i):
        if not self.select and not self.exclude:
            return True
        return i in self.select if self.select else i not in self.exclude

    def _element(self, fields, error):
        out = []
        for i, field in enumerate(fields):
            if not self._keep(i):
                continue
            k = len(out)
            if k >= len(self.output_types):
                raise invalid_argument(f"Expect {len(self.output_types)} fields but have more in record")
            out.append(_value(field, k, self.output_types[k], self.defaults[k], self.na_value))
        if error:
            raise invalid_argument(error)
        if len(out) != len(self.output_types):
            raise invalid_argument(f"Expect {len(self.output_types)} fields but have {len(out)} in record")
        return tuple(out)

    def elements(self, env):
        for path in self.files:
            data = _read(path, self.compression)
            if self.header:
                cut = min((i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0), default=-1)
                if cut < 0 and not data:
                    raise invalid_argument("Can't read header of file")
                data = b"" if cut < 0 else data[cut + 1 + (data[cut:cut + 2] == b"\r\n"):]
            for fields, error in _records(data, self.delim, self.quote):
                yield self._element(fields, error)


def _bytes(x, what):
    v = np.asarray(scalar(x, what, lambda v: v)).item()
    return v if isinstance(v, bytes) else str(v).encode()


def _cols(x, what):
    a = np.asarray(x, np.int64)
    if a.ndim != 1:
        raise invalid_argument(f"`{what}` must be a vector." if what == "select_cols" else f"`{what}` must be a vector")
    cols = [int(c) for c in a]
    if any(b <= a_ for a_, b in zip(cols, cols[1:])):
        raise invalid_argument(f"{what} should be strictly increasing indices")
    if cols and cols[0] < 0:
        raise invalid_argument(f"{what} should be non-negative indices")
    return cols


@register_op("CSVDatasetV2", inputs=("filenames", "compression_type", "buffer_size", "header", "field_delim",
                                     "use_quote_delim", "na_value", "select_cols", "record_defaults",
                                     "exclude_cols"), outputs=("handle",), list_inputs={"record_defaults": None},
             attrs={"output_types": None, "output_shapes": None}, shape=dataset_shape)
def csv_dataset_v2(filenames, compression_type, buffer_size, header, field_delim, use_quote_delim, na_value,
                   select_cols, record_defaults, exclude_cols, output_types=None, output_shapes=None):
    """handle = one tuple of scalars per CSV record of ``filenames`` (see the module docstring)."""
    if scalar(buffer_size, "buffer_size") <= 0:
        raise invalid_argument("buffer_size should be positive")
    delim = _bytes(field_delim, "field_delim")
    if len(delim) != 1:
        raise invalid_argument("field_delim should be only 1 char")
    select, exclude = _cols(select_cols, "select_cols"), _cols(exclude_cols, "exclude_cols")
    defaults = [np.asarray(d) for d in record_defaults]
    if select and len(select) != len(defaults):
        raise invalid_argument("select_cols should match output size")
    if select and exclude:
        raise invalid_argument("Either select_cols or exclude_cols should be empty")
    for i, d in enumerate(defaults):
        if d.ndim > 1 or d.size > 1:
            raise invalid_argument(f"Each record default should be at most rank 1, got {list(d.shape)}"
                                   if d.ndim > 1 else "There should only be 1 default per field but field "
                                   f"{i} has {d.size}")
    types = [dtypes.as_dtype(t) for t in output_types] if output_types else [
        dtypes.string if d.dtype == object else dtypes.as_dtype(d.dtype) for d in defaults]
    return CsvDS(filenames, compression_type, bool(header), delim, bool(use_quote_delim),
                 _bytes(na_value, "na_value"), select, exclude, defaults, types)
