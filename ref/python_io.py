"""``tf.python_io`` / ``tf.io``: TFRecord files."""
from ref.formats.tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter,  # noqa: F401
                                 tf_record_iterator)

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
