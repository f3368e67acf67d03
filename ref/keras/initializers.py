"""``tf.keras.initializers`` under TF1 behaviour: tf_keras serves TF's v1
initializer classes (``init_ops``), with Keras' own defaults for the random
ones (``RandomNormal(stddev=0.05)``, ``RandomUniform(-0.05, 0.05)``,
``TruncatedNormal(stddev=0.05)``); a string names one (``"glorot_uniform"``)."""
from __future__ import annotations

from ref.graph_ops import init_ops
from ref.graph_ops.init_ops import (Constant, GlorotNormal, GlorotUniform, Identity, Initializer, Ones,  # noqa: F401
                                    Orthogonal, VarianceScaling, Zeros)

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform", "TruncatedNormal",
           "VarianceScaling", "GlorotUniform", "GlorotNormal", "Orthogonal", "Identity", "LecunNormal",
           "LecunUniform", "HeNormal", "HeUniform", "zeros", "ones", "constant", "random_normal", "random_uniform",
           "truncated_normal", "glorot_uniform", "glorot_normal", "orthogonal", "identity", "lecun_normal",
           "lecun_uniform", "he_normal", "he_uniform", "get", "serialize"]


class RandomNormal(init_ops.RandomNormal):
    """Normal values, mean 0 and stddev 0.05 unless given."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=None):
        super().__init__(mean=mean, stddev=stddev, seed=seed, **({} if dtype is None else {"dtype": dtype}))


class RandomUniform(init_ops.RandomUniform):
    """Uniform values in [-0.05, 0.05) unless given."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=None):
        super().__init__(minval=minval, maxval=maxval, seed=seed, **({} if dtype is None else {"dtype": dtype}))


class TruncatedNormal(init_ops.TruncatedNormal):
    """Truncated normal values, mean 0 and stddev 0.05 unless given."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=None):
        super().__init__(mean=mean, stddev=stddev, seed=seed, **({} if dtype is None else {"dtype": dtype}))


def _scaling(cls_name, scale, mode, distribution):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale=scale, mode=mode, distribution=distribution, seed=seed)

    doc = f"``VarianceScaling(scale={scale}, mode={mode!r}, distribution={distribution!r})``."
    return type(cls_name, (VarianceScaling,), {"__init__": __init__, "__doc__": doc})


LecunNormal = _scaling("LecunNormal", 1.0, "fan_in", "truncated_normal")
LecunUniform = _scaling("LecunUniform", 1.0, "fan_in", "uniform")
HeNormal = _scaling("HeNormal", 2.0, "fan_in", "truncated_normal")
HeUniform = _scaling("HeUniform", 2.0, "fan_in", "uniform")

zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
glorot_uniform, glorot_normal, orthogonal, identity = GlorotUniform, GlorotNormal, Orthogonal, Identity
lecun_normal, lecun_uniform, he_normal, he_uniform = LecunNormal, LecunUniform, HeNormal, HeUniform

_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
            "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal, "glorot_uniform": GlorotUniform,
            "glorot_normal": GlorotNormal, "orthogonal": Orthogonal, "identity": Identity,
            "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform, "he_normal": HeNormal,
            "he_uniform": HeUniform, "variance_scaling": VarianceScaling}
_BY_NAME.update({cls.__name__: cls for cls in list(_BY_NAME.values())})


def get(identifier):
    """An initializer from a name, a ``{"class_name", "config"}`` dict, a class or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return _BY_NAME[identifier["class_name"]](**identifier.get("config", {}))
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown initializer: '{identifier}'. Please ensure you are using a "
                             f"`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return _BY_NAME[identifier]()
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def serialize(initializer):
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}
