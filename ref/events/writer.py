"""``tf.summary.FileWriter`` (0.x name ``tf.train.SummaryWriter``) and its cache:
summaries, graphs and meta graphs into an event file written by
:class:`ref.formats.event_writer.EventFileWriter`.

The documentation ("Adding Summaries to Event Files", TF 1.x docs, "Training" and
TF docs, "Training" (Korean edition)): "The SummaryWriter class provides a mechanism to
create an event file in a given directory and add summaries and events to it."
"""
from __future__ import annotations

import os
import threading
import time
import warnings
import weakref

import numpy as np

from ref.formats.event_writer import FILE_VERSION, EventFileWriter, proto_modules, serialize, summary_event_bytes
from ref.framework.graph import get_default_graph
from ref.protos import graph_pb2
from ref.checkpoint.meta_graph import create_meta_graph_def
from ref.events import plugin_asset

_PLUGINS_DIR = "plugins"

def _is_graph(obj) -> bool:
    return callable(getattr(obj, "as_graph_def", None))


def _is_graph_def(obj) -> bool:
    """A GraphDef proto (ref's or TensorFlow's)."""
    return getattr(getattr(obj, "DESCRIPTOR", None), "full_name", "").endswith(".GraphDef")


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
    (This is equivalent to calling add_graph() later)." (TF docs, "Training" (Korean edition), "Adding
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
            # and the meta graph, as TF's create_meta_graph_def makes it: meta_info_def
            # (versions, stripped op list) and the default graph's collections
            as_def = graph_def if graph_def is not None else (
                _graph_def_of(graph) if _is_graph(graph) else graph)
            graph_def_proto = graph_pb2.GraphDef()
            graph_def_proto.ParseFromString(serialize(as_def))
            self.add_meta_graph(create_meta_graph_def(graph_def=graph_def_proto))

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
        is seen by this writer (a first value without metadata counts too:
        TF tests the message's truth, which is always true).
        """
        if self._warn_if_closed():
            return
        self.event_writer.add_serialized_event(summary_event_bytes(
            time.time(), 0 if global_step is None else int(global_step), self._summary_bytes(summary)))

    def _summary_bytes(self, summary) -> bytes:
        _, summary_pb2 = proto_modules()
        if isinstance(summary, np.ndarray):
            summary = summary[()]
        if isinstance(summary, summary_pb2.Summary):
            raw, msg = None, summary
        else:
            raw = serialize(summary)
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
        event_pb2, _ = proto_modules()
        event = event_pb2.Event()
        event.session_log.ParseFromString(serialize(session_log))
        self._add_event(event, global_step)

    def add_event(self, event):
        """Adds an ``Event`` protocol buffer to the event file, as is."""
        if self._warn_if_closed():
            return
        self.event_writer.add_event(event)

    def _add_graph_def(self, graph_def, global_step=None):
        event_pb2, _ = proto_modules()
        self._add_event(event_pb2.Event(graph_def=serialize(graph_def)), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Adds a ``Graph`` (any object with ``as_graph_def()``) or, deprecated,
        a ``GraphDef`` to the event file.

        Raises:
          ValueError: if both ``graph`` and ``graph_def`` are given.
          TypeError: if neither is a Graph or a GraphDef."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if _is_graph(graph) or _is_graph(graph_def):
            graph = graph if _is_graph(graph) else graph_def
            true_graph_def = _graph_def_of(graph)
            self._write_plugin_assets(graph)
            self._add_graph_def(true_graph_def, global_step)
        elif _is_graph_def(graph) or _is_graph_def(graph_def):
            warnings.warn("Passing a `GraphDef` to the SummaryWriter is deprecated. "
                          "Pass a `Graph` object instead, such as `sess.graph`.")
            self._add_graph_def(graph if _is_graph_def(graph) else graph_def, global_step)
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated `GraphDef`")

    def _write_plugin_assets(self, graph):
        """Each plugin asset of ``graph`` to ``<logdir>/plugins/<plugin>/<asset>``."""
        if not hasattr(graph, "get_collection"):
            return
        for container in plugin_asset.get_all_plugin_assets(graph):
            plugin_dir = os.path.join(self.get_logdir(), _PLUGINS_DIR, container.plugin_name)
            os.makedirs(plugin_dir, exist_ok=True)
            for asset_name, content in container.assets().items():
                with open(os.path.join(plugin_dir, asset_name), "wb") as f:
                    f.write(content.encode() if isinstance(content, str) else bytes(content))

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Adds a ``MetaGraphDef`` to the event file (TypeError for anything else)."""
        descriptor = getattr(meta_graph_def, "DESCRIPTOR", None)
        if getattr(descriptor, "name", None) != "MetaGraphDef":
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}")
        event_pb2, _ = proto_modules()
        self._add_event(event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString()), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Adds the ``RunMetadata`` of one ``session.run()`` call under ``tag``.

        Raises ValueError "If the provided tag was already used for this type of
        event" (TF docs, "Training" (Korean edition), ``add_run_metadata``)."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        event_pb2, _ = proto_modules()
        event = event_pb2.Event()
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = serialize(run_metadata)
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
