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
``from ref.protos import graph_pb2``.
"""
