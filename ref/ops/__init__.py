"""Pure kernels by family, each declared once with ``ref.ops.registry.register_op``.

``ref.ops.load_all()`` imports every family (and the training kernels in
``ref.ops.training``) so that ``ref.raw_ops`` and the graph builder can find
every op; ``import ref`` calls it.
"""
import importlib as _importlib
import threading as _threading

from ref.ops.training import ALGORITHMS as OPTIMIZERS  # noqa: F401  (ref/ops/training/<name>.py)

FAMILIES = ("core", "control", "math", "reduction", "sequence", "array", "slicing", "gather_scatter",
            "concat_split", "pad_tile", "space_depth", "segment_reduction", "special_math", "special_incomplete", "trig", "linalg_solve", "linalg_factor", "bitwise", "fake_quant", "sparse_softmax", "nms", "fft", "search", "edit_distance", "ctc",
            "nn", "random", "stateless_random", "state",
            "summary", "linalg", "matrix_diag",
            "io", "data_flow", "barrier", "staging", "accumulator", "logging", "complex", "list_ops", "script", "files", "conv",
            "depthwise_conv", "conv3d", "morphology",
            "pooling", "normalization", "top_k", "candidate_sampling", "sparse", "sparse_serialization", "sparse_reduction",
            "sparse_segment", "sparse_cross", "ragged", "readers", "parsing", "user_ops", "sdca", "quantize", "sets", "lookup",
            "strings", "unicode", "string_ngrams", "optional_ops", "dataset", "image", "image_resize", "image_color", "grad_helpers", "stack",
            "tensor_array",
            "session_tensor")


_loaded = False
_LOAD_LOCK = _threading.RLock()


def load_all():
    """Imports every kernel family once (each registers its ops)."""
    global _loaded
    if _loaded:
        return
    with _LOAD_LOCK:  # threads (a server's RPC handlers) may miss at once: all wait for the full load
        if _loaded:
            return
        for name in FAMILIES:
            _importlib.import_module(f"ref.ops.{name}")
        for name in OPTIMIZERS:
            _importlib.import_module(f"ref.ops.training.{name}")
        _loaded = True
