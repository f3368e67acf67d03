"""SavedModel (TF1): ``SavedModelBuilder``, ``loader.load``, ``simple_save``
and the signature helpers, in TensorFlow's format:

* ``<export_dir>/saved_model.pb`` -- a ``SavedModel`` proto (schema version 1)
  holding one ``MetaGraphDef`` per ``add_meta_graph*`` call, each with its tags
  (``meta_info_def.tags``), ``signature_def`` map and, as TF1's builder
  writes them, its ``AssetFileDef``s in the ``saved_model_assets`` collection;
* ``<export_dir>/variables/variables.{index,data-00000-of-00001}`` -- a V2
  checkpoint written by a sharded ``Saver`` of every saveable object;
* ``<export_dir>/assets/`` -- the asset files, copied.

The main op (``main_op`` or ``legacy_init_op``) is kept in the collections
``saved_model_main_op`` / ``legacy_init_op``; ``load`` imports the meta graph
whose tags match, restores the variables and runs it, feeding each asset
tensor its file's path under ``assets/``.
"""
from __future__ import annotations

import os
import shutil

from google.protobuf import text_format

from ref.checkpoint.saver import Saver, _all_saveable_objects, import_meta_graph
from ref.framework.graph import GraphKeys, Tensor, add_to_collection, get_collection, get_default_graph
from ref.platform import gfile
from ref.protos import meta_graph_pb2, saved_model_pb2, saver_pb2

# -- constants ---------------------------------------------------------------------------

SERVING, TRAINING, GPU, TPU = "serve", "train", "gpu", "tpu"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
PREDICT_INPUTS, PREDICT_OUTPUTS = "inputs", "outputs"
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT = "saved_model.pb", "saved_model.pbtxt"
VARIABLES_DIRECTORY, VARIABLES_FILENAME = "variables", "variables"
ASSETS_DIRECTORY, ASSETS_KEY = "assets", "saved_model_assets"
MAIN_OP_KEY, LEGACY_INIT_OP_KEY, TRAIN_OP_KEY = "saved_model_main_op", "legacy_init_op", "saved_model_train_op"


# -- signatures ------------------------------------------------------------------------------

def build_tensor_info(tensor):
    """The ``TensorInfo`` (name, dtype, shape) of a Tensor."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"build_tensor_info expects a Tensor, got {type(tensor).__name__}")
    info = meta_graph_pb2.TensorInfo(name=tensor.name, dtype=tensor.dtype.base_dtype.as_datatype_enum)
    info.tensor_shape.CopyFrom(tensor.shape.as_proto())
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    graph = graph or get_default_graph()
    name = tensor_info.name
    if import_scope:
        name = f"{import_scope}/{name}"
    return graph.get_tensor_by_name(name)


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    sig = meta_graph_pb2.SignatureDef()
    for k, v in (inputs or {}).items():
        sig.inputs[k].CopyFrom(v)
    for k, v in (outputs or {}).items():
        sig.outputs[k].CopyFrom(v)
    if method_name is not None:
        sig.method_name = method_name
    return sig


def predict_signature_def(inputs, outputs):
    """A predict ``SignatureDef`` of ``{name: Tensor}`` inputs and outputs."""
    if inputs is None or not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()}, PREDICT_METHOD_NAME)


def is_valid_signature(signature_def):
    return bool(signature_def.method_name) and bool(signature_def.outputs)


# -- the builder -------------------------------------------------------------------------------

class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (which must not exist or be empty)."""

    def __init__(self, export_dir):
        self._saved_model = saved_model_pb2.SavedModel(saved_model_schema_version=SAVED_MODEL_SCHEMA_VERSION)
        self._export_dir = export_dir
        if os.path.exists(export_dir):
            if os.listdir(export_dir):
                raise AssertionError(f"Export directory already exists, and isn't empty. Please choose a different "
                                     f"export directory, or delete all the contents of the specified directory: "
                                     f"{export_dir}")
        else:
            os.makedirs(export_dir)
        self._has_saved_variables = False

    def _save_assets(self, assets_collection, meta_graph_def):
        tensors = list(assets_collection or [])
        if not tensors:
            return
        assets_dir = os.path.join(self._export_dir, ASSETS_DIRECTORY)
        os.makedirs(assets_dir, exist_ok=True)
        for t in tensors:
            path = t.op._attrs.get("value")
            path = path.item() if hasattr(path, "item") else path
            path = path.decode() if isinstance(path, bytes) else str(path)
            base = os.path.basename(path)
            dest = os.path.join(assets_dir, base)
            if not os.path.exists(dest):
                shutil.copyfile(path, dest)
            # TF1's builder keeps AssetFileDefs in the "saved_model_assets" collection (Any, TF's type URL)
            asset = meta_graph_pb2.AssetFileDef(tensor_info=build_tensor_info(t), filename=base)
            meta_graph_def.collection_def[ASSETS_KEY].any_list.value.add(
                type_url=_ASSET_TYPE_URL, value=asset.SerializeToString())

    def _tag(self, meta_graph_def, tags, signature_def_map):
        for k, sig in (signature_def_map or {}).items():
            if not is_valid_signature(sig):
                raise ValueError(f"Invalid signature_def {k!r}: it needs a method_name and outputs")
            meta_graph_def.signature_def[k].CopyFrom(sig)
        meta_graph_def.meta_info_def.tags.extend(tags or [])
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    def _add_ops(self, main_op, legacy_init_op, train_op):
        if main_op is not None and legacy_init_op is not None:
            raise ValueError("Both main_op and legacy_init_op are specified.")
        op = main_op if main_op is not None else legacy_init_op
        if op is not None:
            if isinstance(op, Tensor):
                op = op.op
            key = MAIN_OP_KEY if main_op is not None else LEGACY_INIT_OP_KEY
            if not get_collection(key):
                add_to_collection(key, op)
        if train_op is not None and not get_collection(TRAIN_OP_KEY):
            add_to_collection(TRAIN_OP_KEY, train_op.op if isinstance(train_op, Tensor) else train_op)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None, train_op=None):
        """Saves ``sess``'s variables and the current graph as the first meta graph."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please invoke "
                                 "`add_meta_graph()` instead.")
        with sess.graph.as_default():
            self._add_ops(main_op, legacy_init_op, train_op)
            if saver is None:
                saver = Saver(_all_saveable_objects(), sharded=True, write_version=saver_pb2.SaverDef.V2,
                              allow_empty=True)
            variables_dir = os.path.join(self._export_dir, VARIABLES_DIRECTORY)
            os.makedirs(variables_dir, exist_ok=True)
            saver.save(sess, os.path.join(variables_dir, VARIABLES_FILENAME), write_meta_graph=False,
                       write_state=False)
            meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                     strip_default_attrs=strip_default_attrs)
            self._save_assets(assets_collection, meta_graph_def)
        self._tag(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None, train_op=None):
        """Adds the default graph as one more meta graph (its variables are the saved ones)."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please invoke "
                                 "`add_meta_graph_and_variables()` first.")
        self._add_ops(main_op, legacy_init_op, train_op)
        if saver is None:
            saver = Saver(_all_saveable_objects(), sharded=True, write_version=saver_pb2.SaverDef.V2,
                          allow_empty=True)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices, strip_default_attrs=strip_default_attrs)
        self._save_assets(assets_collection, meta_graph_def)
        self._tag(meta_graph_def, tags, signature_def_map)

    def save(self, as_text=False):
        """Writes ``saved_model.pb`` (or ``.pbtxt``); returns its path (bytes, as TF)."""
        if as_text:
            path = os.path.join(self._export_dir, SAVED_MODEL_FILENAME_PBTXT)
            with open(path, "w") as f:
                f.write(text_format.MessageToString(self._saved_model))
        else:
            path = os.path.join(self._export_dir, SAVED_MODEL_FILENAME_PB)
            with open(path, "wb") as f:
                f.write(self._saved_model.SerializeToString(deterministic=True))
        return path.encode()


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Saves ``session``'s graph and variables for serving: tag "serve", one
    predict signature "serving_default" of ``inputs`` and ``outputs``."""
    signature_def_map = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)}
    b = SavedModelBuilder(export_dir)
    with session.graph.as_default():
        assets = get_collection(GraphKeys.ASSET_FILEPATHS)
    b.add_meta_graph_and_variables(session, tags=[SERVING], signature_def_map=signature_def_map,
                                   assets_collection=assets, main_op=legacy_init_op, clear_devices=True)
    b.save()


# -- the loader -------------------------------------------------------------------------------------

_ASSET_TYPE_URL = "type.googleapis.com/tensorflow.AssetFileDef"


def _asset_file_defs(meta_graph_def):
    """The AssetFileDefs of a meta graph: TF1's collection, then the TF2 field."""
    out = []
    if ASSETS_KEY in meta_graph_def.collection_def:
        for a in meta_graph_def.collection_def[ASSETS_KEY].any_list.value:
            out.append(meta_graph_pb2.AssetFileDef.FromString(a.value))
    return out + list(meta_graph_def.asset_file_def)


def maybe_saved_model_directory(export_dir):
    return any(os.path.isfile(os.path.join(export_dir, f)) for f in (SAVED_MODEL_FILENAME_PB,
                                                                     SAVED_MODEL_FILENAME_PBTXT))


def _read(export_dir):
    sm = saved_model_pb2.SavedModel()
    pb, txt = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB), os.path.join(export_dir, SAVED_MODEL_FILENAME_PBTXT)
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            sm.ParseFromString(f.read())
    elif os.path.isfile(txt):
        with open(txt) as f:
            text_format.Merge(f.read(), sm)
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}"
                      f"{{{SAVED_MODEL_FILENAME_PBTXT}|{SAVED_MODEL_FILENAME_PB}}}")
    return sm


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the meta graph tagged ``tags`` into ``sess``'s graph, restores its
    variables and runs its main op; returns its ``MetaGraphDef``."""
    sm = _read(export_dir)
    want = set(tags)
    found = [m for m in sm.meta_graphs if set(m.meta_info_def.tags) == want]
    if not found:
        available = [list(m.meta_info_def.tags) for m in sm.meta_graphs]
        raise RuntimeError(f"MetaGraphDef associated with tags {sorted(want)!r} could not be found in SavedModel, "
                           f"with available tags '{available}'. To inspect available tag-sets in the SavedModel, "
                           f"please use the SavedModel CLI: `saved_model_cli`.")
    meta_graph_def = found[0]
    with sess.graph.as_default():
        saver = import_meta_graph(meta_graph_def, import_scope=import_scope, **saver_kwargs)
        variables_path = os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
        if saver is not None and gfile.exists(variables_path + ".index"):
            saver.restore(sess, variables_path)
        feeds = {}
        for asset in _asset_file_defs(meta_graph_def):
            t = get_tensor_from_tensor_info(asset.tensor_info, sess.graph, import_scope)
            feeds[t] = os.path.join(export_dir, ASSETS_DIRECTORY, asset.filename)
        init = get_collection(MAIN_OP_KEY) or get_collection(LEGACY_INIT_OP_KEY)
        if init:
            sess.run(init[0], feed_dict=feeds)
    return meta_graph_def

