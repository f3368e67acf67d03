"""Meta graphs: ``export_meta_graph``, ``import_meta_graph``, ``write_graph``.

TF's API reference, ``tf.compat.v1.train.export_meta_graph``: "This
function exports the graph, saver, and collection objects into MetaGraphDef
protocol buffer with the intention of it being imported at a later time or
location to restart training, run inference, or be a subgraph." and
``import_meta_graph``: "adds all the nodes from the graph_def field to the
current graph, recreates all the collections, and returns a saver constructed
from the saver_def field."

A ``MetaGraphDef`` holds the ``GraphDef`` (with ``_output_shapes``), the
``SaverDef`` and one ``CollectionDef`` per string-keyed collection:

* collections with a registered proto (:func:`register_proto_function`) --
  the variable collections (``VariableDef``), ``savers`` (``SaverDef``), and
  ``queue_runners`` (``QueueRunnerDef``) once a QueueRunner class registers
  itself -- go to ``bytes_list`` as serialized protos;
* otherwise the kind follows the first item: str/bytes -> ``bytes_list``, int
  -> ``int64_list``, float -> ``float_list``, anything with a name (Tensor,
  Operation) -> ``node_list``. A collection that cannot be serialized is left
  out with a warning, as TF does.

``meta_info_def.tensorflow_version`` is the TensorFlow version ref follows
(``TENSORFLOW_VERSION``, parsed by TF's importer as a version number) and
``tensorflow_git_version`` names ref's build of it, as TF fills both in.
"""
from __future__ import annotations

import copy
import numbers
import os
import re
import warnings

from ref.platform import tf_logging as _tf_logging
from ref.framework.graph import (Graph, GraphKeys, get_collection_proto_functions, get_default_graph,
                                 prepend_name_scope, strip_name_scope)
from ref.protos import meta_graph_pb2, saver_pb2, variable_pb2, graph_pb2, graph_debug_info_pb2, op_def_pb2
from ref.ops import registry
from ref.framework.graph_export import attr_value_proto, scratch_library
from ref.framework.importer import import_graph_def
from ref.formats.checkpoint_state import atomic_write_string_to_file
from google.protobuf import any_pb2, message, text_format

_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
TENSORFLOW_VERSION = "2.21.0"  # the TensorFlow release whose behaviour ref follows
TENSORFLOW_GIT_VERSION = "v2.21.0-ref"
SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlice", "LegacySave", "LegacySaveSlice", "RestoreV2", "Restore",
                        "RestoreSlice", "LegacyRestore", "LegacyRestoreSlice")

__all__ = ["stripped_op_list_for_graph", "export_meta_graph", "write_graph", "read_meta_graph_file", "create_meta_graph_def", "add_collection_def", "export_scoped_meta_graph",
           "import_scoped_meta_graph", "import_scoped_meta_graph_with_return_elements", "copy_scoped_meta_graph"]


def _pb():
    return meta_graph_pb2


def _should_include_node(node_or_name, export_scope, exclude_nodes):
    if isinstance(node_or_name, str):
        name = node_or_name
    else:
        try:
            name = node_or_name.name
        except AttributeError:
            return True  # keep what we do not know how to filter
    if exclude_nodes and name.split(":")[0] in exclude_nodes:
        return False
    return name.startswith(_UNBOUND_INPUT_PREFIX) or not export_scope or name.startswith(export_scope)


def _op_name(tensor_name: str) -> str:
    return tensor_name.lstrip("^").split(":")[0]


def _scope_of(name: str) -> str:
    return name.rsplit("/", 1)[0] if "/" in name else ""


def _find_extraneous_saver_nodes(graph_def, saver_def):
    """Names of the nodes under the scopes of save/restore ops other than ``saver_def``'s."""
    keep = set()
    if saver_def is not None:
        keep = {_scope_of(_op_name(saver_def.save_tensor_name)) + "/",
                _scope_of(_op_name(saver_def.restore_op_name)) + "/"}
    saver_nodes = {n.name for n in graph_def.node if n.op in SAVE_AND_RESTORE_OPS}
    scopes = {_scope_of(x) + "/" for x in saver_nodes if _scope_of(x) not in saver_nodes} - keep
    return {n.name for n in graph_def.node if any(n.name.startswith(s) for s in scopes)}


def _node_def(from_node_def, export_scope, unbound_inputs, clear_devices=False):
    node_def = copy.deepcopy(from_node_def)
    for i, v in enumerate(node_def.input):
        if export_scope and not v.lstrip("^").startswith(export_scope):
            node_def.input[i] = re.sub(r"([\^]|^)(.*)", lambda m: m.group(1) + _UNBOUND_INPUT_PREFIX + m.group(2),
                                       v, count=1)
            unbound_inputs.append(node_def.input[i])
        else:
            node_def.input[i] = strip_name_scope(v, export_scope)
    node_def.name = strip_name_scope(from_node_def.name, export_scope)
    if "_class" in from_node_def.attr:
        keep = [s for s in from_node_def.attr["_class"].list.s
                if not export_scope or s.decode().split("@")[1].startswith(export_scope)]
        del node_def.attr["_class"].list.s[:]
        node_def.attr["_class"].list.s.extend(strip_name_scope(s.decode(), export_scope).encode() for s in keep)
    if node_def.op in ("Enter", "RefEnter") and "frame_name" in from_node_def.attr and export_scope:
        frame = from_node_def.attr["frame_name"].s.decode()  # TF: the frame is named in the scope too
        if frame.startswith(export_scope):
            node_def.attr["frame_name"].s = strip_name_scope(frame, export_scope).encode()
    if clear_devices:
        node_def.device = ""
    return node_def


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------

def _get_kind_name(item) -> str:
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, int):
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    if isinstance(item, any_pb2.Any):
        return "any_list"
    return "node_list"


def add_collection_def(meta_graph_def, key, graph=None, export_scope=None, exclude_nodes=None,
                       override_contents=None):
    """Adds collection ``key`` of ``graph`` to ``meta_graph_def`` (left out, with
    a warning, when its items cannot be serialized)."""
    if not isinstance(key, (str, bytes)):
        warnings.warn(f"Only collections with string type keys will be serialized. This key has {type(key)}")
        return
    graph = graph or get_default_graph()
    items = override_contents if override_contents else graph.get_collection(key)
    items = [x for x in items if _should_include_node(x, export_scope, exclude_nodes)]
    if not items:
        return
    col_def = meta_graph_def.collection_def[key]
    proto_type, to_proto, _ = get_collection_proto_functions(key)
    try:
        if to_proto is not None:
            for x in items:
                proto = to_proto(x, export_scope=export_scope)
                if proto is not None:
                    if not isinstance(proto, proto_type):
                        raise TypeError(f"{key} item converted to {type(proto).__name__}, not {proto_type.__name__}")
                    col_def.bytes_list.value.append(proto.SerializeToString())
            return
        kind = _get_kind_name(items[0])
        if kind == "node_list":
            for x in items:
                if not export_scope or x.name.startswith(export_scope):
                    col_def.node_list.value.append(strip_name_scope(x.name, export_scope))
        elif kind == "bytes_list":
            col_def.bytes_list.value.extend(x.encode() if isinstance(x, str) else bytes(x) for x in items)
        elif kind == "int64_list":
            for x in items:  # a float among ints drops the collection, as TF's proto does
                if not isinstance(x, numbers.Integral):
                    raise TypeError(f"{x!r} has type {type(x).__name__}, but expected one of: int")
                col_def.int64_list.value.append(int(x))
        elif kind == "any_list":
            col_def.any_list.value.extend(items)
        else:
            for x in items:
                if not isinstance(x, numbers.Real):
                    raise TypeError(f"{x!r} has type {type(x).__name__}, but expected one of: int, float")
                col_def.float_list.value.append(float(x))
    except Exception as e:  # TF: "Issue encountered when serializing" -- the collection is dropped
        warnings.warn(f"Issue encountered when serializing: {key}.\n{e}")
        del meta_graph_def.collection_def[key]


def _strip_default_attrs(graph_def):
    """Removes attrs whose value equals the default of their op (its declared
    attrs' and its type attrs' defaults, as TF's op definition gives them)."""
    lib = scratch_library()
    nodes = list(graph_def.node) + [n for f in graph_def.library.function for n in f.node_def]
    for node in nodes:
        try:
            opdef = registry.get(node.op)
        except LookupError:
            continue
        defaults = {**registry.type_defaults(node.op), **opdef.attrs}
        for name, default in defaults.items():
            if name in node.attr and default is not registry.REQUIRED and default is not None:
                try:
                    want = attr_value_proto(default, lib, {})
                except TypeError:
                    continue
                if want is not None and node.attr[name] == want:
                    del node.attr[name]


def stripped_op_list_for_graph(graph_def):
    """An ``OpList`` naming, sorted, the ops ``graph_def`` uses (in its nodes and
    its library's functions; calls of the library's functions are not ops).
    ref's OpDefs carry only their names (TF fills in the whole OpDef)."""
    functions = {f.signature.name for f in graph_def.library.function}
    used = {n.op for n in graph_def.node} | {n.op for f in graph_def.library.function for n in f.node_def}
    op_list = op_def_pb2.OpList()
    for name in sorted(used - functions):
        op_list.op.add(name=name)
    return op_list


def create_meta_graph_def(meta_info_def=None, graph_def=None, saver_def=None, collection_list=None, graph=None,
                          export_scope=None, exclude_nodes=None, clear_extraneous_savers=False,
                          strip_default_attrs=False):
    """A MetaGraphDef of ``graph_def`` (default: ``graph``'s, with shapes), the
    SaverDef and the collections ``collection_list`` (default: all)."""
    pb = _pb()
    graph = graph or get_default_graph()
    mgd = pb.MetaGraphDef()
    if meta_info_def is not None:
        mgd.meta_info_def.MergeFrom(meta_info_def)
    mgd.meta_info_def.tensorflow_version = TENSORFLOW_VERSION
    mgd.meta_info_def.tensorflow_git_version = TENSORFLOW_GIT_VERSION
    mgd.graph_def.MergeFrom(graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True))
    if not len(mgd.meta_info_def.stripped_op_list.op):
        mgd.meta_info_def.stripped_op_list.MergeFrom(stripped_op_list_for_graph(mgd.graph_def))
    if strip_default_attrs:
        _strip_default_attrs(mgd.graph_def)
        mgd.meta_info_def.stripped_default_attrs = True
    if saver_def:
        mgd.saver_def.MergeFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        if clear_extraneous_savers and key == GraphKeys.SAVERS and saver_def:
            add_collection_def(mgd, key, graph, export_scope, exclude_nodes,
                               override_contents=[get_collection_proto_functions(GraphKeys.SAVERS)[2](saver_def)])
        else:
            add_collection_def(mgd, key, graph, export_scope, exclude_nodes)
    return mgd


def export_scoped_meta_graph(filename=None, graph_def=None, graph=None, export_scope=None, as_text=False,
                             unbound_inputs_col_name="unbound_inputs", clear_devices=False, saver_def=None,
                             clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False,
                             meta_info_def=None, collection_list=None):
    """``(MetaGraphDef, {name: variable})`` of ``graph`` (or ``graph_def``) below ``export_scope``."""
    graph = graph or get_default_graph()
    exclude_nodes = None
    unbound_inputs = []
    if export_scope or clear_extraneous_savers or clear_devices:
        source = graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True)
        new = graph_pb2.GraphDef()
        new.versions.CopyFrom(source.versions)
        new.library.CopyFrom(source.library)
        if clear_extraneous_savers:
            exclude_nodes = _find_extraneous_saver_nodes(source, saver_def)
        for node in source.node:
            if _should_include_node(node.name, export_scope, exclude_nodes):
                new.node.add().CopyFrom(_node_def(node, export_scope, unbound_inputs, clear_devices))
        graph_def = new
        if unbound_inputs_col_name:
            graph.clear_collection(unbound_inputs_col_name)
            for k in unbound_inputs:
                graph.add_to_collection(unbound_inputs_col_name, k)
    var_list = {}
    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=export_scope):
        if _should_include_node(v, export_scope, exclude_nodes):
            var_list[strip_name_scope(v.name, export_scope)] = v
    mgd = create_meta_graph_def(meta_info_def=meta_info_def, graph_def=graph_def, saver_def=saver_def,
                                collection_list=collection_list, graph=graph, export_scope=export_scope,
                                exclude_nodes=exclude_nodes, clear_extraneous_savers=clear_extraneous_savers,
                                strip_default_attrs=strip_default_attrs)
    if filename:
        write_graph(mgd, os.path.dirname(filename), os.path.basename(filename), as_text=as_text)
        if save_debug_info:
            _write_debug_info(graph, filename)
    return mgd, var_list


def _write_debug_info(graph, filename):
    """``<name>_debug<ext>``: a GraphDebugInfo with each op's creation site."""
    info = graph_debug_info_pb2.GraphDebugInfo()
    files = {}
    for op in graph.get_operations():
        tb = op._traceback
        if not tb:
            continue
        idx = files.setdefault(tb[0], len(files))
        trace = info.traces[op.name]
        trace.file_line_cols.add(file_index=idx, line=int(tb[1]), func=tb[2])
    info.files.extend(sorted(files, key=files.get))
    base, ext = os.path.splitext(os.path.basename(filename))
    write_graph(info, os.path.dirname(filename), base + "_debug" + ext, as_text=False)


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Returns the ``MetaGraphDef`` of ``graph`` (default graph), optionally
    written to ``filename`` (binary, or text with ``as_text``).

    ``kwargs`` may hold ``unbound_inputs_col_name`` (default
    ``"unbound_inputs"``): the collection listing inputs from outside ``export_scope``.
    """
    unknown = set(kwargs) - {"unbound_inputs_col_name"}
    if unknown:
        raise TypeError(f"export_meta_graph() got unexpected keyword arguments {sorted(unknown)}")
    mgd, _ = export_scoped_meta_graph(
        filename=filename, graph_def=graph_def, graph=graph, export_scope=export_scope, as_text=as_text,
        clear_devices=clear_devices, saver_def=saver_def, clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info, meta_info_def=meta_info_def,
        collection_list=collection_list, **kwargs)
    return mgd


# ---------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------

def read_meta_graph_file(filename):
    """The MetaGraphDef in ``filename``, binary or text.

    Raises:
      IOError: if the file does not exist or parses as neither."""
    mgd = _pb().MetaGraphDef()
    if not os.path.exists(filename):
        raise IOError(f"File does not exist. Received: {filename}.")
    with open(filename, "rb") as f:
        content = f.read()
    try:
        mgd.ParseFromString(content)
    except message.DecodeError:
        pass
    else:
        # The format has no checksum; bytes that do not re-encode as they were
        # written (an unknown field, a changed length) betray damage.
        known = _pb().MetaGraphDef()
        known.CopyFrom(mgd)
        known.DiscardUnknownFields()
        if known.SerializeToString(deterministic=True) != content and known.SerializeToString() != content:
            _tf_logging.warning(
                "Meta graph file %s may be corrupted: its bytes are not the encoding of the MetaGraphDef "
                "they parse as; the imported graph may differ from the saved one", filename)
        return mgd
    try:
        text_format.Merge(content.decode("utf-8"), mgd)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise IOError(f"Cannot parse file {filename}: {e}.") from None
    return mgd


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None, import_scope=None,
                             input_map=None, unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=(lambda key: True)):
    """Recreates the graph and collections of a MetaGraphDef (proto or file)
    below ``import_scope``; returns ``{name relative to the scope: variable}``.

    Raises:
      ValueError: if the graph has unbound inputs that ``input_map`` does not bind."""
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, graph, import_scope, input_map, unbound_inputs_col_name,
        restore_collections_predicate)[0]


def copy_scoped_meta_graph(from_scope, to_scope, from_graph=None, to_graph=None):
    """Copies the subgraph below ``from_scope`` of ``from_graph`` (its
    variables and collections) to ``to_scope`` of ``to_graph``; returns
    ``{name relative to the scope: variable}`` of the copy.

    Raises:
      ValueError: if ``from_scope`` and ``to_scope`` are the same in the same graph."""
    from_graph = from_graph or get_default_graph()
    to_graph = to_graph or get_default_graph()
    if from_graph is to_graph and from_scope == to_scope:
        raise ValueError("'from_scope' and 'to_scope' need to be different when performing copy in the same "
                         f"graph. Received: 'from_graph': {from_graph}, 'to_graph': {to_graph}, "
                         f"'from_scope': {from_scope}, 'to_scope': {to_scope}.")
    mgd, _ = export_scoped_meta_graph(export_scope=from_scope, graph=from_graph)
    return import_scoped_meta_graph(mgd, graph=to_graph, import_scope=to_scope)


def import_scoped_meta_graph_with_return_elements(meta_graph_or_file, clear_devices=False, graph=None,
                                                  import_scope=None, input_map=None,
                                                  unbound_inputs_col_name="unbound_inputs",
                                                  restore_collections_predicate=(lambda key: True),
                                                  return_elements=None):
    """``import_scoped_meta_graph`` that also returns the graph elements named by
    ``return_elements``: ``({name: variable}, elements)``."""
    mgd = read_meta_graph_file(meta_graph_or_file) if isinstance(meta_graph_or_file, (str, os.PathLike)) \
        else meta_graph_or_file
    graph = graph or get_default_graph()
    if unbound_inputs_col_name and unbound_inputs_col_name in mgd.collection_def:
        col = mgd.collection_def[unbound_inputs_col_name]
        kind = col.WhichOneof("kind")
        values = [v.decode() if isinstance(v, bytes) else v for v in getattr(col, kind).value] if kind else []
        if values and (not input_map or sorted(values) != sorted(input_map)):
            raise ValueError("Graph contains unbound inputs: %s. Must provide these inputs through input_map."
                             % ",".join(v for v in values if not input_map or v not in input_map))
    with graph.as_default():
        graph_def = mgd.graph_def
        if clear_devices:
            graph_def = graph_pb2.GraphDef()
            graph_def.CopyFrom(mgd.graph_def)
            for node in graph_def.node:
                node.device = ""
        # Inside a name scope the import goes below it (TF: graph.unique_name("") is "scope/").
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        returned = import_graph_def(graph_def, name=import_scope or scope, input_map=input_map,
                                    return_elements=return_elements)
        scope = scope.rstrip("/")
        ordered = []
        if GraphKeys.TRAINABLE_VARIABLES in mgd.collection_def:
            ordered.append((GraphKeys.TRAINABLE_VARIABLES, mgd.collection_def[GraphKeys.TRAINABLE_VARIABLES]))
        ordered += [(k, v) for k, v in sorted(mgd.collection_def.items()) if k != GraphKeys.TRAINABLE_VARIABLES]
        variables = {}
        for key, col_def in ordered:
            if key == unbound_inputs_col_name or not restore_collections_predicate(key):
                continue
            kind = col_def.WhichOneof("kind")
            if kind is None:
                continue
            proto_type, _, from_proto = get_collection_proto_functions(key)
            if key == GraphKeys.QUEUE_RUNNERS and from_proto is None:
                continue  # no QueueRunner class has registered itself: nothing to rebuild them as
            if from_proto is not None and kind == "bytes_list":
                for value in col_def.bytes_list.value:
                    if key in GraphKeys._VARIABLE_COLLECTIONS:
                        item = variables.get(value)
                        if item is None:
                            proto = proto_type()
                            proto.ParseFromString(value)
                            item = variables[value] = from_proto(proto, import_scope=scope)
                    else:
                        proto = proto_type()
                        proto.ParseFromString(value)
                        item = from_proto(proto, import_scope=scope)
                    graph.add_to_collection(key, item)
            elif kind == "node_list":
                for value in col_def.node_list.value:
                    graph.add_to_collection(key, graph.as_graph_element(prepend_name_scope(value, scope)))
            elif kind == "int64_list":
                for value in col_def.int64_list.value:
                    graph.add_to_collection(key, int(value))
            elif kind == "float_list":
                for value in col_def.float_list.value:
                    graph.add_to_collection(key, float(value))
            elif kind == "any_list":
                for value in col_def.any_list.value:
                    graph.add_to_collection(key, value)
            elif kind == "bytes_list":
                for value in col_def.bytes_list.value:
                    graph.add_to_collection(key, prepend_name_scope(value.decode("utf-8", "surrogateescape"), scope)
                                            if scope else value)
        var_list = {}
        for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope or None):
            var_list[strip_name_scope(v.name, scope)] = v
    return var_list, returned


# ---------------------------------------------------------------------------
# write_graph
# ---------------------------------------------------------------------------

def write_graph(graph_or_graph_def=None, logdir=None, name=None, as_text=True, graph_def=None):
    """Writes a graph proto (a Graph is written as its GraphDef) to
    ``logdir/name``, text or binary, atomically; returns the path.

    ``graph_def`` is the 0.x name of the first argument (TF 1.x docs, "Training",
    ``tf.train.write_graph(graph_def, logdir, name, as_text=True)``).
    """
    if graph_def is not None:
        if graph_or_graph_def is not None:
            raise ValueError("Pass the graph either as graph_or_graph_def or as graph_def, not both.")
        graph_or_graph_def = graph_def
    if graph_or_graph_def is None or logdir is None or name is None:
        raise TypeError("write_graph() needs a graph (or graph_def), a logdir and a name")

    proto = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, Graph) else graph_or_graph_def
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        atomic_write_string_to_file(path, text_format.MessageToString(proto))
    else:
        atomic_write_string_to_file(path, proto.SerializeToString(deterministic=True))
    return path
