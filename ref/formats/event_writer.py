"""Event files: ``EventFileWriter`` writes ``Event`` protos into TF's event-file format
(the graph-level ``FileWriter`` on top of it is :mod:`ref.events.writer`).

The documentation ("Adding Summaries to Event Files", TF 1.x docs, "Training" and
TF docs, "Training" (Korean edition)): "The SummaryWriter class provides a mechanism to
create an event file in a given directory and add summaries and events to it.
The class updates the file contents asynchronously." An event file is a
TFRecord file (:mod:`ref.formats.tfrecord`) of serialized ``Event`` protos named
``events.out.tfevents.{seconds:010d}.{hostname}{suffix}``, whose first record is
``Event(wall_time=seconds, file_version="brain.Event:2", source_metadata)``,
written and flushed at once (TF's first event carries the whole second of the
file name as its wall time).

How events reach the disk (as TF's ``EventFileWriter``, whose writer thread
hands each event to a stdio-buffered file at once): ``add_*`` frames the event
and writes it straight into the file's buffer, which is the file system's
block size, as C stdio's is, so whatever spills over is with the operating
system just as in TF. The buffer is flushed: for the first event after a quiet
spell, then by a background thread at most every ``flush_secs``; whenever
``max_queue`` events have been written since the last flush (TF's queue
bound: never more than that many events wait in user space); on every
``flush()``; and on ``close()``. So a process that dies with ``os._exit``
without closing the writer leaves at least as many whole events on disk as
TF's writer would, and a reader (:mod:`ref.formats.event_reader`) stops
cleanly at the torn tail. Writers still open at normal interpreter exit are
closed by an ``atexit`` hook, so no added event is lost.

Two writers in one ``logdir`` within one second would get the same file name;
TF truncates the older file. Here the newer writer takes the next free second
in its name instead (its events keep their true ``wall_time``).
"""
from __future__ import annotations

import atexit
import os
import socket
import struct
import threading
import time
import warnings
import weakref

import numpy as np

from ref.formats.tfrecord import TFRecordWriter, encode_record
from ref import protos
from ref.platform import tf_logging

FILE_VERSION = "brain.Event:2"
SOURCE_WRITER = "ref.events.writer"
"""``Event.source_metadata.writer`` of the first event (TF writes
``tensorflow.core.util.events_writer``; TensorBoard only reports it)."""


def proto_modules():
    return protos.event_pb2, protos.summary_pb2


def serialize(message) -> bytes:
    """Bytes of any protobuf message (ours, TensorFlow's) or of bytes given as such."""
    if isinstance(message, (bytes, bytearray, memoryview)):
        return bytes(message)
    return message.SerializeToString()


# -- the Event wire format for the add_summary fast path ---------------------

_DOUBLE = struct.Struct("<d")


def _varint(n: int) -> bytes:
    n &= 0xFFFFFFFFFFFFFFFF  # int64 as protobuf writes it: two's complement, 10 bytes if negative
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def summary_event_bytes(wall_time: float, step: int, summary: bytes) -> bytes:
    """``Event(wall_time=wall_time, step=step, summary=Summary(summary))``
    serialized: field 1 (double), field 2 (varint, omitted when 0 as proto3
    does), field 5 (length-delimited). The same bytes the Event proto
    serializes to; built directly because add_summary is the hot path."""
    parts = [b"\x09", _DOUBLE.pack(wall_time)]
    if step:
        parts += [b"\x10", _varint(step)]
    parts += [b"\x2a", _varint(len(summary)), summary]
    return b"".join(parts)


# -- EventFileWriter ----------------------------------------------------------

_OPEN_WRITERS: "weakref.WeakSet[EventFileWriter]" = weakref.WeakSet()


@atexit.register
def _close_open_writers():
    for w in list(_OPEN_WRITERS):
        w.close()


class EventFileWriter:
    """Writes ``Event`` protos to an event file in ``logdir``, asynchronously.

    ``max_queue``: events pending before an ``add`` writes them itself (see the
    module docstring). ``flush_secs``: how often, in seconds, pending events
    are flushed to disk. ``filename_suffix``: appended to the file name.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = os.fspath(logdir)
        if self._logdir:  # "" is the current directory, as TF's writer takes it
            os.makedirs(self._logdir, exist_ok=True)
        self._max_queue = max(int(max_queue), 1)
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._closed = True
        self._initialize()

    def _initialize(self):
        protos.event_pb2, _ = proto_modules()
        seconds = int(time.time())
        while True:
            path = os.path.join(self._logdir, f"events.out.tfevents.{seconds:010d}."
                                              f"{socket.gethostname()}{self._suffix}")
            try:
                self._file = TFRecordWriter(path, mode="xb", buffering=-1)
                break
            except FileExistsError:
                seconds += 1
        self._path = path
        first = protos.event_pb2.Event(wall_time=float(seconds), file_version=FILE_VERSION)
        if "source_metadata" in first.DESCRIPTOR.fields_by_name:
            first.source_metadata.writer = SOURCE_WRITER
        self._file.write(first.SerializeToString())
        self._file.flush()
        self._cond = threading.Condition(threading.Lock())  # guards the file and the counters
        self._unflushed = 0                # events written to the buffer since the last flush
        self._next_flush = 0.0             # the first event is flushed at once
        self._idle = False                 # the thread waits with no deadline
        self._closed = False
        self._failure = None               # an error writing or flushing: raised by the next add/flush/close
        self._thread = threading.Thread(target=self._run, name=f"EventFileWriter({path})", daemon=True)
        self._thread.start()
        _OPEN_WRITERS.add(self)

    @property
    def path(self) -> str:
        """The event file being written."""
        return self._path

    def get_logdir(self) -> str:
        """Returns the directory where the event file will be written."""
        return self._logdir

    # adding ------------------------------------------------------------------

    def add_event(self, event):
        """Adds an ``Event`` protocol buffer (ours or TF's) to the event file."""
        self.add_serialized_event(serialize(event))

    def add_serialized_event(self, data: bytes):
        """Adds an already serialized ``Event``."""
        record = encode_record(data)
        cond = self._cond
        with cond:
            if self._closed:
                return
            if self._failure is not None:  # an earlier write failed: this add reports it, as TF's
                self._surface_locked()
            try:
                self._file.write_raw(record)
                self._unflushed += 1
                if self._unflushed >= self._max_queue or time.monotonic() >= self._next_flush:
                    self._flush_locked()
                elif self._idle:            # the thread sleeps until told there is work
                    self._idle = False
                    cond.notify()
            except Exception as e:  # noqa: BLE001 -- any writing error is kept for the next call
                self._fail_locked(e)

    # failures ----------------------------------------------------------------
    # TF writes in a thread: an error there is logged, ends the thread, and is
    # raised by the next add_event/flush/close, which closes the writer; later
    # calls do nothing. Here the add that meets the error keeps it the same way.

    def _fail_locked(self, error):
        tf_logging.error("EventFileWriter writer thread error: %s", error)
        self._failure = error
        self._cond.notify_all()

    def _surface_locked(self):
        error = self._failure
        self._closed = True
        self._cond.notify_all()
        try:
            self._file.close()
        except Exception:  # noqa: BLE001 -- the first error is the one reported
            pass
        self._file = None
        _OPEN_WRITERS.discard(self)
        raise error from None

    # writing -----------------------------------------------------------------

    def _flush_locked(self):
        self._file.flush()
        self._unflushed = 0
        self._next_flush = time.monotonic() + self._flush_secs

    def _run(self):
        cond = self._cond
        with cond:
            while not self._closed and self._failure is None:
                now = time.monotonic()
                if self._unflushed:
                    if now >= self._next_flush:
                        try:
                            self._flush_locked()
                        except Exception as e:  # noqa: BLE001 -- kept for the next call
                            self._fail_locked(e)
                        continue
                    cond.wait(self._next_flush - now)
                else:
                    self._idle = True
                    cond.wait()

    def flush(self):
        """Flushes the event file to disk: returns once every event added so far
        has been written and flushed."""
        with self._cond:
            if self._closed:
                return
            if self._failure is None and self._unflushed:
                try:
                    self._flush_locked()
                except Exception as e:  # noqa: BLE001
                    self._fail_locked(e)
            if self._failure is not None:
                self._surface_locked()

    def close(self):
        """Flushes the event file to disk and closes the file (raising an error
        met writing, as ``flush``)."""
        self.flush()
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
            self._file.close()
            self._file = None
        if self._thread is not threading.current_thread():
            self._thread.join()
        _OPEN_WRITERS.discard(self)

    def reopen(self):
        """Reopens a closed writer: a new event file in the same logdir."""
        if self._closed:
            self._initialize()
