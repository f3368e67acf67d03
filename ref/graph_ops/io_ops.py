"""``tf.matching_files`` and ``tf.train.match_filenames_once``."""
from __future__ import annotations

from ref.framework.graph import GraphKeys, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.types import dtypes
from ref.graph_ops import variables
from ref.formats.tfrecord import TFRecordOptions

__all__ = ["read_file", "write_file", "matching_files", "match_filenames_once", "ReaderBase", "WholeFileReader", "IdentityReader",
           "TextLineReader", "FixedLengthRecordReader", "TFRecordReader"]


def matching_files(pattern, name=None):
    """The sorted file names matching the glob ``pattern`` (``MatchingFiles``);
    a Python pattern converts inside the op's scope ("MatchingFiles/pattern"), as
    TF's generated wrapper converts it."""
    return apply_op("MatchingFiles", pattern=pattern, name=name or "MatchingFiles")


def read_file(filename, name=None):
    """The bytes of file ``filename`` as a string scalar (``ReadFile``)."""
    return apply_op("ReadFile", filename=filename, name=name or "ReadFile")


def write_file(filename, contents, name=None):
    """An op writing ``contents`` to ``filename`` (``WriteFile``)."""
    return apply_op("WriteFile", filename=filename, contents=contents, name=name or "WriteFile")


def match_filenames_once(pattern, name=None):
    """A local variable (not trainable, any length) initialised to the files
    matching ``pattern``: the glob runs once, when the local variables are
    initialised (``tf.local_variables_initializer()``)."""
    with name_scope(name, "matching_filenames", [pattern]) as scope:
        return variables.VariableV1(initial_value=matching_files(pattern), trainable=False, validate_shape=False,
                                    collections=[GraphKeys.LOCAL_VARIABLES], name=scope)


# -- TF1 readers ------------------------------------------------------------------------

class ReaderBase:
    """Base class for the TF1 readers (``tf.ReaderBase``): a reader produces a
    sequence of records from work units (file names) it dequeues from a queue.
    ``read`` builds ReaderReadV2, whose key is ``b"<file>:<record>"``; at the
    end of a closed, empty queue it raises OutOfRangeError. The reader state
    lives in the Session (:mod:`ref.ops.readers`)."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    reader_ref = property(lambda self: self._reader_ref, doc="Op that implements the reader.")
    supports_serialize = property(lambda self: self._supports_serialize,
                                  doc="Whether the Reader implementation can serialize its state.")

    @staticmethod
    def _queue_ref(queue):
        return queue if hasattr(queue, "op") else queue.queue_ref

    def read(self, queue, name=None):
        """The next record (key, value) as scalar string tensors."""
        key, value = apply_op("ReaderReadV2", reader_handle=self._reader_ref, queue_handle=self._queue_ref(queue),
                              name=name or "ReaderReadV2")
        return key, value

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` (key, value) pairs as two string vectors."""
        keys, values = apply_op("ReaderReadUpToV2", reader_handle=self._reader_ref,
                                queue_handle=self._queue_ref(queue),
                                num_records=num_records,
                                name=name or "ReaderReadUpToV2")
        return keys, values

    def num_records_produced(self, name=None):
        """The number of records this reader has produced (int64)."""
        return apply_op("ReaderNumRecordsProducedV2", reader_handle=self._reader_ref,
                        name=name or "ReaderNumRecordsProducedV2")

    def num_work_units_completed(self, name=None):
        """The number of work units this reader has finished (int64)."""
        return apply_op("ReaderNumWorkUnitsCompletedV2", reader_handle=self._reader_ref,
                        name=name or "ReaderNumWorkUnitsCompletedV2")

    def serialize_state(self, name=None):
        """The reader's state as a string tensor."""
        return apply_op("ReaderSerializeStateV2", reader_handle=self._reader_ref,
                        name=name or "ReaderSerializeStateV2")

    def restore_state(self, state, name=None):
        """Restores the reader to a previously serialized ``state``."""
        return apply_op("ReaderRestoreStateV2", reader_handle=self._reader_ref,
                        state=convert_to_tensor(state, dtype=dtypes.string), name=name or "ReaderRestoreStateV2")

    def reset(self, name=None):
        """Restores the reader to its initial clean state."""
        return apply_op("ReaderResetV2", reader_handle=self._reader_ref, name=name or "ReaderResetV2")


class WholeFileReader(ReaderBase):
    """A reader whose records are whole files: key the file name, value its contents."""

    def __init__(self, name=None):
        super().__init__(apply_op("WholeFileReaderV2", name=name or "WholeFileReaderV2"))


class IdentityReader(ReaderBase):
    """A reader that outputs each work unit as both key and value."""

    def __init__(self, name=None):
        super().__init__(apply_op("IdentityReaderV2", name=name or "IdentityReaderV2"))


class TextLineReader(ReaderBase):
    """A reader of lines (newline removed); keys ``file:line`` count lines from 1."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(apply_op("TextLineReaderV2", skip_header_lines=skip_header_lines or 0,
                                  name=name or "TextLineReaderV2"))


class FixedLengthRecordReader(ReaderBase):
    """A reader of fixed-length records (after ``header_bytes``, before
    ``footer_bytes``, each ``hop_bytes`` after the last; ``encoding`` "ZLIB" or
    "GZIP" for compressed files)."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None,
                 encoding=None):
        super().__init__(apply_op("FixedLengthRecordReaderV2", record_bytes=record_bytes,
                                  header_bytes=header_bytes or 0, footer_bytes=footer_bytes or 0,
                                  hop_bytes=hop_bytes or 0, encoding=encoding or "",
                                  name=name or "FixedLengthRecordReaderV2"))


class TFRecordReader(ReaderBase):
    """A reader of TFRecord files (``options``: a ``tf.io.TFRecordOptions`` or a
    compression type string)."""

    def __init__(self, name=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options) if options is not None else ""
        super().__init__(apply_op("TFRecordReaderV2", compression_type=compression or "",
                                  name=name or "TFRecordReaderV2"))
