"""Event files and TFRecords: TF's ``tf.io``/``tf.python_io`` record files,
``tf.summary.FileWriter`` (``tf.train.SummaryWriter``) and
``tf.train.summary_iterator``. The summary op kernels live in
:mod:`ref.ops.summary`."""
from ref.formats.event_reader import EventFileReader, summary_iterator
from ref.formats.tfrecord import (RecordFollower, TFRecordCompressionType, TFRecordOptions,
                                 TFRecordWriter, tf_record_iterator)
from ref.events.writer import EventFileWriter, FileWriter, FileWriterCache, SummaryWriter

__all__ = ["EventFileReader", "summary_iterator", "RecordFollower", "TFRecordCompressionType",
           "TFRecordOptions", "TFRecordWriter", "tf_record_iterator", "EventFileWriter",
           "FileWriter", "FileWriterCache", "SummaryWriter"]
