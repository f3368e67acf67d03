"""``tf.saved_model`` (TF1): ``simple_save``, ``builder.SavedModelBuilder``,
``loader.load``, the tag and signature constants and helpers."""
import types as _types

from ref.checkpoint import saved_model as _sm
from ref.checkpoint.saved_model import (  # noqa: F401
    ASSETS_DIRECTORY, ASSETS_KEY, CLASSIFY_METHOD_NAME, DEFAULT_SERVING_SIGNATURE_DEF_KEY, GPU, LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY, PREDICT_INPUTS, PREDICT_METHOD_NAME, PREDICT_OUTPUTS, REGRESS_METHOD_NAME, SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT, SAVED_MODEL_SCHEMA_VERSION, SERVING, TPU, TRAINING, VARIABLES_DIRECTORY,
    VARIABLES_FILENAME, SavedModelBuilder, build_signature_def, build_tensor_info, get_tensor_from_tensor_info,
    is_valid_signature, load, maybe_saved_model_directory, predict_signature_def, simple_save,
)

Builder = SavedModelBuilder
contains_saved_model = maybe_saved_model_directory

builder = _types.SimpleNamespace(SavedModelBuilder=SavedModelBuilder)
loader = _types.SimpleNamespace(load=load, maybe_saved_model_directory=maybe_saved_model_directory)
tag_constants = _types.SimpleNamespace(SERVING=SERVING, TRAINING=TRAINING, GPU=GPU, TPU=TPU)
signature_constants = _types.SimpleNamespace(
    DEFAULT_SERVING_SIGNATURE_DEF_KEY=DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_METHOD_NAME=PREDICT_METHOD_NAME,
    CLASSIFY_METHOD_NAME=CLASSIFY_METHOD_NAME, REGRESS_METHOD_NAME=REGRESS_METHOD_NAME,
    PREDICT_INPUTS=PREDICT_INPUTS, PREDICT_OUTPUTS=PREDICT_OUTPUTS)
signature_def_utils = _types.SimpleNamespace(build_signature_def=build_signature_def,
                                             predict_signature_def=predict_signature_def,
                                             is_valid_signature=is_valid_signature)
utils = _types.SimpleNamespace(build_tensor_info=build_tensor_info,
                               get_tensor_from_tensor_info=get_tensor_from_tensor_info)
constants = _types.SimpleNamespace(**{k: getattr(_sm, k) for k in (
    "ASSETS_DIRECTORY", "ASSETS_KEY", "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME")})

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.saved_model", name)
