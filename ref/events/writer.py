"""Event files: ``FileWriter`` (0.x name ``SummaryWriter``) and ``EventFileWriter``.

Seed ("Adding Summaries to Event Files", 001_05ea92376fdb369e.txt and
004_96791d6311aaba71.txt): "The SummaryWriter class provides a mechanism to
create an event file in a given directory and add summaries and events to it.
The class updates the file contents asynchronously." An event file is a
TFRecord file (:mod:`ref.events.tfrecord`) of serialized ``Event`` protos named
``events.out.tfevents.{seconds:010d}.{hostname}{suffix}``, whose first record is
``Event(wall_time=seconds, file_version="brain.Event:2", source_metadata)``,
written and flushed at once (TF's first event carries the whole second of the
file name as its wall time).

How the asynchrony works here. ``add_*`` frames the event in the caller's
thread and appends it to a pending list (at most ``max_queue`` long). A
background thread writes and flushes pending events to the file: at once for
the first event after a quiet spell, then at most every ``flush_secs``. When an
``add_*`` finds ``max_queue`` events pending -- the point where TF's ``add``
blocks until its writer thread catches up -- the caller writes the batch to the
file buffer itself (one ``write`` for the batch; no flush) instead of waiting
for the thread, which bounds memory the same way without a thread hand-off per
event. ``flush()`` returns once every event added before it is on disk;
``close()`` flushes and closes; writers still open at normal interpreter exit
are closed by an ``atexit`` hook, so no added event is lost.

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

from ref.events.tfrecord import TFRecordWriter, encode_record

FILE_VERSION = "brain.Event:2"
SOURCE_WRITER = "ref.events.writer"
"""``Event.source_metadata.writer`` of the first event (TF writes
``tensorflow.core.util.events_writer``; TensorBoard only reports it)."""


def _pb():
    from ref.protos import event_pb2, summary_pb2

    return event_pb2, summary_pb2


def _serialize(message) -> bytes:
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
        os.makedirs(self._logdir, exist_ok=True)
        self._max_queue = max(int(max_queue), 1)
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._closed = True
        self._initialize()

    def _initialize(self):
        event_pb2, _ = _pb()
        seconds = int(time.time())
        while True:
            path = os.path.join(self._logdir, f"events.out.tfevents.{seconds:010d}."
                                              f"{socket.gethostname()}{self._suffix}")
            try:
                self._file = TFRecordWriter(path, mode="xb")
                break
            except FileExistsError:
                seconds += 1
        self._path = path
        first = event_pb2.Event(wall_time=float(seconds), file_version=FILE_VERSION)
        if "source_metadata" in first.DESCRIPTOR.fields_by_name:
            first.source_metadata.writer = SOURCE_WRITER
        self._file.write(first.SerializeToString())
        self._file.flush()
        self._cond = threading.Condition(threading.Lock())
        self._io = threading.Lock()        # held while moving pending events into the file
        self._pending = []                 # framed records not yet handed to the file
        self._unflushed = False            # the file buffer holds records not yet flushed
        self._next_flush = 0.0             # the first event is flushed at once
        self._idle = False                 # the thread waits with no deadline
        self._closed = False
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
        self.add_serialized_event(_serialize(event))

    def add_serialized_event(self, data: bytes):
        """Adds an already serialized ``Event``."""
        record = encode_record(data)
        cond = self._cond
        with cond:
            if self._closed:
                return
            pending = self._pending
            pending.append(record)
            full = len(pending) >= self._max_queue
            if self._idle:              # the thread sleeps until told there is work
                self._idle = False
                cond.notify()
        if full:
            self._drain(flush=False)

    # writing -----------------------------------------------------------------

    def _drain(self, flush: bool):
        """Moves every pending record into the file (one write), then flushes if asked."""
        with self._io:
            with self._cond:
                batch, self._pending = self._pending, []
            f = self._file
            if f is None:
                return
            if batch:
                f.write_raw(b"".join(batch))
                self._unflushed = True
            if flush and self._unflushed:
                f.flush()
                self._unflushed = False

    def _run(self):
        cond = self._cond
        while True:
            with cond:
                while not self._closed:
                    now = time.monotonic()
                    if self._pending or self._unflushed:
                        if now >= self._next_flush:
                            break
                        cond.wait(self._next_flush - now)
                    else:
                        self._idle = True
                        cond.wait()
                if self._closed:
                    return
            self._drain(flush=True)
            with cond:
                self._next_flush = time.monotonic() + self._flush_secs

    def flush(self):
        """Flushes the event file to disk: returns once every event added so far
        has been written and flushed."""
        if not self._closed:
            self._drain(flush=True)

    def close(self):
        """Flushes the event file to disk and closes the file."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join()
        self._drain(flush=True)
        with self._io:
            self._file.close()
            self._file = None
        _OPEN_WRITERS.discard(self)

    def reopen(self):
        """Reopens a closed writer: a new event file in the same logdir."""
        if self._closed:
            self._initialize()


# -- FileWriter ---------------------------------------------------------------

def _is_graph(obj) -> bool:
    return callable(getattr(obj, "as_graph_def", None))


def _graph_def_of(graph):
    """``graph.as_graph_def(add_shapes=True)`` as TF calls it, or without the
    keyword for graph objects that do not take it."""
    try:
        return graph.as_graph_def(add_shapes=True)
    except TypeError:
        return graph.as_graph_def()


_SHARED: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()


class FileWriter:
    """Writes ``Summary`` protocol buffers to event files (``tf.summary.FileWriter``,
    ``tf.train.SummaryWriter``).

    "On construction the summary writer creates a new event file in logdir
    ... If you pass a Graph to the constructor it is added to the event file.
    (This is equivalent to calling add_graph() later)." (seed 004, "Adding
    Summaries to Event Files"). With a graph (any object with
    ``as_graph_def()``) or ``graph_def``, the file gets a graph event and a
    meta-graph event, as TF writes. Writers created with the same ``session``
    and ``logdir`` share one event file.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if session is not None:
            key = (id(session), os.path.abspath(os.fspath(logdir)))
            with _SHARED_LOCK:
                shared = _SHARED.get(key)
                if shared is None or shared._closed:
                    shared = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
                    _SHARED[key] = shared
            self.event_writer = shared
        else:
            self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        self._session_run_tags = {}
        self._seen_summary_tags = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            as_def = graph_def if graph_def is not None else (
                _graph_def_of(graph) if _is_graph(graph) else graph)
            from ref.protos import meta_graph_pb2

            meta = meta_graph_pb2.MetaGraphDef()
            meta.graph_def.ParseFromString(_serialize(as_def))
            self.add_meta_graph(meta)

    # context manager, logdir --------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get_logdir(self) -> str:
        """Returns the directory where the event file will be written."""
        return self.event_writer.get_logdir()

    def _warn_if_closed(self) -> bool:
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a noop "
                          "unless the FileWriter is explicitly reopened.")
        return self._closed

    def _add_event(self, event, step):
        if self._warn_if_closed():
            return
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    # the add_* endpoints --------------------------------------------------------

    def add_summary(self, summary, global_step=None):
        """Adds a ``Summary`` protocol buffer to the event file.

        ``summary``: a ``Summary`` proto, "optionally serialized as a string"
        (the output of any summary op). ``global_step`` becomes ``Event.step``.
        As TF does, a value's ``metadata`` is kept only the first time its tag
        is seen by this writer.
        """
        if self._warn_if_closed():
            return
        self.event_writer.add_serialized_event(summary_event_bytes(
            time.time(), 0 if global_step is None else int(global_step), self._summary_bytes(summary)))

    def _summary_bytes(self, summary) -> bytes:
        _, summary_pb2 = _pb()
        if isinstance(summary, np.ndarray):
            summary = summary[()]
        if isinstance(summary, summary_pb2.Summary):
            raw, msg = None, summary
        else:
            raw = _serialize(summary)
            msg = summary_pb2.Summary.FromString(raw)
        seen = self._seen_summary_tags
        strip = []
        for i, value in enumerate(msg.value):
            if value.tag in seen:
                if value.HasField("metadata"):
                    strip.append(i)
            else:
                seen.add(value.tag)
        if strip:
            msg = summary_pb2.Summary.FromString(raw if raw is not None else msg.SerializeToString())
            for i in strip:
                msg.value[i].ClearField("metadata")
            raw = None
        return raw if raw is not None else msg.SerializeToString()

    def add_session_log(self, session_log, global_step=None):
        """Adds a ``SessionLog`` protocol buffer to the event file."""
        event_pb2, _ = _pb()
        event = event_pb2.Event()
        event.session_log.ParseFromString(_serialize(session_log))
        self._add_event(event, global_step)

    def add_event(self, event):
        """Adds an ``Event`` protocol buffer to the event file, as is."""
        if self._warn_if_closed():
            return
        self.event_writer.add_event(event)

    def _add_graph_def(self, graph_def, global_step=None):
        event_pb2, _ = _pb()
        self._add_event(event_pb2.Event(graph_def=_serialize(graph_def)), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Adds a ``Graph`` (any object with ``as_graph_def()``) or, deprecated,
        a ``GraphDef`` to the event file. Raises ValueError if both are given."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if _is_graph(graph):
            self._add_graph_def(_graph_def_of(graph), global_step)
        elif graph is not None or graph_def is not None:
            warnings.warn("Passing a `GraphDef` to the SummaryWriter is deprecated. "
                          "Pass a `Graph` object instead, such as `sess.graph`.")
            self._add_graph_def(graph if graph is not None else graph_def, global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Adds a ``MetaGraphDef`` to the event file (TypeError for anything else)."""
        descriptor = getattr(meta_graph_def, "DESCRIPTOR", None)
        if getattr(descriptor, "name", None) != "MetaGraphDef":
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}")
        event_pb2, _ = _pb()
        self._add_event(event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString()), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Adds the ``RunMetadata`` of one ``session.run()`` call under ``tag``.

        Raises ValueError "If the provided tag was already used for this type of
        event" (seed 004, ``add_run_metadata``)."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        event_pb2, _ = _pb()
        event = event_pb2.Event()
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = _serialize(run_metadata)
        self._add_event(event, global_step)

    # flush / close / reopen -------------------------------------------------------

    def flush(self):
        """Flushes the event file to disk: every pending event is written."""
        self._warn_if_closed()
        self.event_writer.flush()

    def close(self):
        """Flushes the event file to disk and closes the file."""
        self.event_writer.close()
        self._closed = True

    def reopen(self):
        """Reopens a closed writer (a new event file in the same logdir)."""
        self.event_writer.reopen()
        self._closed = False


SummaryWriter = FileWriter


def _default_graph():
    from ref.graph import get_default_graph

    return get_default_graph()


class FileWriterCache:
    """Cache for file writers: one ``FileWriter`` per logdir (``tf.summary.FileWriterCache``)."""

    _cache: dict = {}
    _lock = threading.RLock()

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir):
        """The FileWriter for ``logdir``, created (with the default graph) on first use."""
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=_default_graph())
                FileWriterCache._cache[logdir] = writer
            return writer


__all__ = ["EventFileWriter", "FileWriter", "SummaryWriter", "FileWriterCache", "FILE_VERSION",
           "summary_event_bytes"]
