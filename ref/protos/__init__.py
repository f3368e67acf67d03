"""TensorFlow's protocol buffers, mirrored for ``ref``.

Each ``ref/protos/<name>.proto`` declares TensorFlow's messages with TensorFlow's
field numbers, names and types, so the bytes are interchangeable: a ``GraphDef``,
``Event`` or ``BundleEntryProto`` serialized here parses with TensorFlow's class and
vice versa. The proto package is ``ref_tf`` (not ``tensorflow``), so ``ref`` and
``tensorflow`` can be imported in one process without clashing in protobuf's
descriptor pool. ``config.proto`` is a wire-compatible subset (omitted fields are
marked in the file).

The ``*_pb2.py`` modules are generated and checked in; regenerate them after editing
a ``.proto`` with ``python tools/gen_protos.py``. Import them as
``from ref.protos import graph_pb2``, or -- below the graph layer, where protobuf
loads only on use -- ``from ref import protos`` and then ``protos.graph_pb2``.
"""
import importlib as _importlib


def __getattr__(name):
    """``protos.<name>_pb2``: each generated module is imported on first use, so
    that the layers below the graph can name protos without loading protobuf
    until a file is actually read or written (TF's ``LazyLoader`` idea)."""
    if name in ("text_format", "json_format", "message", "any_pb2"):  # protobuf's own helpers, also on use
        return _importlib.import_module(f"google.protobuf.{name}")
    if name.endswith("_pb2"):
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
