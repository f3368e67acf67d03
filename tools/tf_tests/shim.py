"""A ``tensorflow`` package made of ref's modules, so that TensorFlow's own unit
tests (which import TF's internal modules: ``tensorflow.python.ops.array_ops``,
``tensorflow.python.framework.test_util``, ...) run against ref.

``install()`` puts an import hook first on ``sys.meta_path``. A module name
under ``tensorflow`` becomes a :class:`ShimModule` whose attributes are looked
up, in order, in the ref modules listed for it in :data:`SOURCES` (or the ref
module of the same name under ``ref.graph_ops``/``ref.optimizers``/...), then
in ref's public namespaces (:data:`POOL`). ``gen_*_ops`` modules add TF's
generated op wrappers: ``gen_array_ops.reshape(tensor, shape)`` adds the op
``Reshape`` from ref's registry. Test helpers that ship next to the tests
(``kernel_tests/**``, ``*_test_base``, ``saver_test_utils``) load from the TF
source mirror. ``test_util`` and ``platform.test`` are written here: TF's
decorators for graph mode (``run_deprecated_v1`` runs, ``run_v2_only``
skips), and ``TestCase`` = ``ref.test.TestCase`` with absl's assertions.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.abc
import importlib.util
import inspect
import re
import subprocess
import sys
import types
import unittest

MIRROR = "/work/.mirror/theIArchitecture+tensorflow/repo"

# Public ref namespaces searched after a module's own sources.
POOL = ("ref", "ref.nn", "ref.math", "ref.train", "ref.summary", "ref.io", "ref.random", "ref.sparse",
        "ref.linalg", "ref.losses", "ref.initializers", "ref.strings", "ref.debugging", "ref.image",
        "ref.compat", "ref.test", "ref.lookup", "ref.metrics", "ref.sets", "ref.layers", "ref.python_io")

_G, _T = "ref.graph_ops.", "ref.training."
SOURCES = {
    "tensorflow": ("ref",),
    "tensorflow.compat.v1": ("ref",),
    "tensorflow.python.framework.ops": ("ref.framework.graph", "ref.framework.tensor", "ref.framework.indexed_slices",
                                        "ref.framework.stack", "ref.framework.op_def_library", "ref.grad.registry"),
    "tensorflow.python.framework.constant_op": ("ref.framework.op_def_library",),
    "tensorflow.python.framework.dtypes": ("ref.types.dtypes",),
    "tensorflow.core.function.trace_type": ("ref.types.trace_type",),
    "tensorflow.python.framework.tensor_shape": ("ref.types.shapes",),
    "tensorflow.python.framework.errors": ("ref.types.errors",),
    "tensorflow.python.framework.errors_impl": ("ref.types.errors",),
    "tensorflow.python.framework.tensor": ("ref.framework.tensor", "ref.data.dataset_ops"),
    "tensorflow.python.framework.tensor_spec": ("ref.data.dataset_ops",),
    "tensorflow.python.framework.indexed_slices": ("ref.framework.indexed_slices",),
    "tensorflow.python.framework.sparse_tensor": ("ref.framework.sparse_tensor", "ref.data.dataset_ops"),
    "tensorflow.python.framework.random_seed": ("ref.framework.random_seed",),
    "tensorflow.python.framework.tensor_util": ("ref.framework.tensor_util", "ref.formats.tensor_util"),
    "tensorflow.python.framework.importer": ("ref.framework.importer",),
    "tensorflow.python.framework.graph_util": ("ref.framework.graph_util_impl",),
    "tensorflow.python.framework.graph_util_impl": ("ref.framework.graph_util_impl",),
    "tensorflow.python.framework.versions": ("ref.framework.versions",),
    "tensorflow.python.framework.meta_graph": ("ref.checkpoint.meta_graph",),
    "tensorflow.python.framework.graph_io": ("ref.train",),
    "tensorflow.python.framework.device": ("ref.types.device_spec",),
    "tensorflow.python.framework.stack": ("ref.framework.stack",),
    "tensorflow.python.client.session": ("ref.session.session", "ref.session"),
    "tensorflow.python.client.device_lib": ("ref.session.device_lib",),
    "tensorflow.python.ops.array_ops_stack": (_G + "array_ops",),
    "tensorflow.python.ops.list_ops": (_G + "tensor_array_ops",),  # ref keeps the TensorList builders there
    "tensorflow.python.ops.math_ops": (_G + "math_ops", _G + "math_extras"),
    "tensorflow.python.ops.data_flow_ops": (_G + "data_flow_ops", _G + "staging_ops"),  # TF: one module
    "tensorflow.python.ops.metrics": (_G + "metrics_impl",),  # TF's tf.metrics module (not tf.losses')
    "tensorflow.python.ops.metrics_impl": (_G + "metrics_impl",),
    "tensorflow.python.ops.cond": (_G + "control_flow_ops", _G + "control_flow_v1"),
    "tensorflow.python.ops.while_loop": (_G + "while_v1", _G + "control_flow_ops"),
    "tensorflow.python.ops.control_flow_ops": (_G + "control_flow_ops", _G + "control_flow_v1", _G + "while_v1"),
    "tensorflow.python.ops.control_flow_assert": (_G + "control_flow_ops", _G + "check_ops"),
    "tensorflow.python.ops.control_flow_switch_case": (_G + "switch_case_ops",),
    "tensorflow.python.ops.cond_v2": (_G + "control_flow_ops", _G + "switch_case_ops"),
    "tensorflow.python.ops.while_v2": (_G + "control_flow_ops",),
    "tensorflow.python.ops.variable_v1": (_G + "variables",),
    "tensorflow.python.ops.ref_variable": (_G + "variables",),
    "tensorflow.python.ops.gradients_impl": ("ref.grad", "ref.grad.gradients"),
    "tensorflow.python.ops.custom_gradient": ("ref.grad.custom_gradient", "ref.grad"),
    "tensorflow.python.ops.gradients": ("ref.grad",),
    "tensorflow.python.ops.gradients_util": ("ref.grad", "ref.grad.gradients"),
    "tensorflow.python.ops.gradient_checker": ("ref.test",),
    "tensorflow.python.ops.nn": ("ref.nn",),
    "tensorflow.python.ops.nn_impl": ("ref.nn", _G + "nn_ops", _G + "candidate_sampling_ops", _G + "normalization_ops"),
    "tensorflow.python.ops.losses.losses": ("ref.losses", _G + "losses_impl"),
    "tensorflow.python.ops.losses.util": ("ref.losses", _G + "losses_impl"),
    "tensorflow.python.ops.partitioned_variables": (_G + "partitioned",),
    "tensorflow.python.ops.image_ops": ("ref.image", _G + "image_geometry_ops", _G + "image_metrics_ops"),
    "tensorflow.python.ops.image_ops_impl": ("ref.image", _G + "image_geometry_ops", _G + "image_metrics_ops"),
    "tensorflow.python.ops.random_crop_ops": ("ref.random", "ref.image", _G + "image_ops"),
    "tensorflow.python.ops.stateless_random_ops": (_G + "stateless_random_ops",),
    "tensorflow.python.ops.summary_ops_v2": ("ref.summary",),
    "tensorflow.python.summary.summary": ("ref.summary",),
    "tensorflow.python.summary.writer.writer": ("ref.summary", "ref.events.writer"),
    "tensorflow.python.training.saver": ("ref.checkpoint.saver", "ref.train"),
    "tensorflow.python.training.queue_runner_impl": (_T + "queue_runner",),
    "tensorflow.python.training.queue_runner": (_T + "queue_runner",),
    "tensorflow.python.training.input": (_T + "input",),
    "tensorflow.python.training.py_checkpoint_reader": ("ref.formats.checkpoint_reader", "ref.train"),
    "tensorflow.python.training.checkpoint_ops": ("ref.checkpoint.checkpoint_ops",),
    "tensorflow.python.training.checkpoint_utils": ("ref.train",),
    "tensorflow.python.training.server_lib": ("ref.distributed.server", "ref.distributed.cluster", "ref.train"),
    "tensorflow.python.training.monitored_session": (_T + "monitored", _T + "hooks"),
    "tensorflow.python.training.basic_session_run_hooks": (_T + "hooks",),
    "tensorflow.python.training.training_util": (_G + "training_util",),
    "tensorflow.python.training.slot_creator": ("ref.optimizers.slots",),
    "tensorflow.python.training.training": ("ref.train",),
    "tensorflow.python.training.device_setter": ("ref.distributed.device_setter",),
    "tensorflow.python.data.ops.dataset_ops": ("ref.data.dataset_ops", "ref.data"),
    "tensorflow.python.data.ops.iterator_ops": ("ref.data.iterator_ops", "ref.data"),
    "tensorflow.python.util.compat": ("ref.compat",),
    "tensorflow.python.compat.compat": ("ref.compat",),
    "tensorflow.python.ops.init_ops": ("ref.graph_ops.init_ops", "ref.graph_ops.init_ops_conv"),
    "tensorflow.python.util.nest": ("ref.types.nest",),
    "tensorflow.python.util.tf_inspect": ("inspect",),
    "tensorflow.python.platform.gfile": ("ref.platform.gfile",),
    "tensorflow.python.platform.flags": ("ref.platform.flags",),
    "tensorflow.python.platform.app": ("ref.platform.app",),
    "tensorflow.python.lib.io.file_io": ("ref.platform.file_io", "ref.platform.gfile"),
    "tensorflow.python.lib.io.tf_record": ("ref.python_io",),
}
SOURCES.update({
    "tensorflow.python.training.warm_starting_util": ("ref.checkpoint.warm_start",),
    "tensorflow.python.distribute.distribute_lib": (_G + "distribute_lib",),
    "tensorflow.python.distribute.mirrored_strategy": (_G + "distribute_lib",),
    "tensorflow.python.distribute.reduce_util": (_G + "distribute_lib",),
    "tensorflow.python.framework.tensor_conversion": ("ref.framework.op_def_library",),
    "tensorflow.python.trackable.resource": ("ref.checkpoint.trackable_base",),
    "tensorflow.python.distribute.distribute_coordinator": ("ref.training.distribute_coordinator",),
    "tensorflow.python.distribute.distribute_coordinator_context": (_G + "distribute_lib",),
    "tensorflow.python.training.saving.saveable_object": ("ref.framework.saveable_object",),
    "tensorflow.python.training.saving.saveable_object_util": ("ref.checkpoint.saveable_object_util",),
    "tensorflow.python.checkpoint.checkpoint": ("ref.checkpoint.trackable",),
    "tensorflow.python.ops.nn_ops": (_G + "nn_ops", _G + "conv_ops"),
    "tensorflow.python.ops.functional_ops": (_G + "functional_ops", "ref.grad.function_grad"),
    "tensorflow.python.ops.tensor_array_grad": ("ref.grad.tensor_array_grad",),
    "tensorflow.python.summary.plugin_asset": ("ref.events.plugin_asset",),
    "tensorflow.python.feature_column.feature_column": ("ref.feature_column.feature_column",
                                                        "ref.feature_column.columns"),
    "tensorflow.python.feature_column.feature_column_v2": ("ref.feature_column", "ref.feature_column.columns",
                                                           "ref.feature_column.base"),
    "tensorflow.python.feature_column.feature_column_lib": ("ref.feature_column",),
    "tensorflow.python.feature_column.utils": ("ref.feature_column.utils",),
})
# TF modules served by the ref module itself (not a ShimModule over it): a test that
# patches one of their names (``tf_logging.info = mock``, ``FakeSummaryWriter.install()``
# setting ``writer_cache.FileWriter``) reaches the code in ref that looks the name up.
SHARED = {
    "tensorflow.python.platform.tf_logging": "ref.platform.tf_logging",
    "tensorflow.python.summary.writer.writer_cache": "ref.events.writer",
    "tensorflow.python.checkpoint.checkpoint_management": "ref.checkpoint.checkpoint_management",
}
# The folder of ref where a TF module of the same name lives, by TF package.
SAME_NAME = {
    "tensorflow.python.ops": ("ref.graph_ops",),
    "tensorflow.python.ops.ragged": ("ref.graph_ops",),  # ragged_tensor, ragged_factory_ops, ...
    "tensorflow.python.training": ("ref.optimizers", "ref.training", "ref.checkpoint"),
    "tensorflow.python.framework": ("ref.framework",),
    "tensorflow.python.training.experimental": ("ref.optimizers", "ref.session"),  # loss scaling
}
# Helper modules that ship with the tests: loaded from the TF source mirror.
FROM_MIRROR = re.compile(r"tensorflow\.python\.kernel_tests(\..*)?$|.*_test_base$|.*_test_utils?$"
                         r"|.*\.fake_summary_writer$")


def _snake(camel):
    """TF's generated-wrapper name of an op: ``ResourceApplyAdam`` -> ``resource_apply_adam``."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", camel.replace(">", ""))  # "Namespace>Op": namespace_op
    return re.sub(r"([A-Z])([A-Z][a-z])", r"\1_\2", s).lower()


@functools.lru_cache(maxsize=None)
def _gen_names():
    from ref.ops import registry
    names = {_snake(name): name for name in registry.registered()}
    # TF spells the wrappers of hidden ops (and keywords: ``_assert``, ``_exit``) with a leading underscore
    return {**{"_" + k: v for k, v in names.items()}, **names}


@functools.lru_cache(maxsize=None)
def _tf_modules():
    """Every module and package name in TF's source tree."""
    out = subprocess.run(["git", "-C", MIRROR, "ls-tree", "-r", "--name-only", "HEAD", "tensorflow/"],
                         capture_output=True, text=True, check=True).stdout.split()
    names = set()
    for path in out:
        if path.endswith(".py") or path.endswith(".proto"):
            parts = path.rsplit(".", 1)[0].split("/")
            if path.endswith(".proto"):
                parts[-1] += "_pb2"
            if parts[-1] == "__init__":
                parts.pop()
            for i in range(1, len(parts) + 1):
                names.add(".".join(parts[:i]))
    return frozenset(names)


def _gen_wrapper(op_type):
    """``gen_*_ops.<snake name>(*inputs_then_attrs, name=None, **kw)``: adds the op."""
    from ref.framework.op_def_library import apply_op
    from ref.ops import registry
    opdef = registry.get(op_type)
    order = list(opdef.inputs) + [a for a in opdef.attrs if a not in opdef.list_inputs.values()]

    def wrapper(*args, name=None, **kwargs):
        kwargs.update(zip(order, args))
        return apply_op(op_type, name=name, **kwargs)

    wrapper.__name__ = _snake(op_type)
    return wrapper


def _set_control_flow_v2(on):
    from ref.platform import modes
    (modes.enable_control_flow_v2 if on else modes.disable_control_flow_v2)()


# Module globals TF's tests read and assign that are ref's global modes: read live, never cached
# (control_flow_util.ENABLE_CONTROL_FLOW_V2 follows ref.platform.modes), an assignment sets the mode.
def _set_resource_variables(on):
    from ref.platform import modes
    modes.set_resource_variables_by_default(on)


def _resource_variables_enabled():
    from ref.platform import modes
    return modes.resource_variables_by_default()


_LIVE = {"ENABLE_CONTROL_FLOW_V2": _set_control_flow_v2, "_DEFAULT_USE_RESOURCE": _set_resource_variables}
# module globals read live from ref's modes (no ref module holds them under TF's name)
_LIVE_GET = {"_DEFAULT_USE_RESOURCE": _resource_variables_enabled}
_PATCHED = {}  # (ref module, global) -> its own value while a test patches it through a shim module


class ShimModule(types.ModuleType):
    """A TF module whose names come from ref modules (see :data:`SOURCES`)."""

    def __setattr__(self, attr, value):
        if attr in _LIVE:
            _LIVE[attr](value)
            return
        src = self._module_global_source(attr)
        if src is not None:  # a test patches a module ref's module uses (mock.patch.object(saver, "time"))
            _PATCHED.setdefault((src.__name__, attr), getattr(src, attr))
            setattr(src, attr, value)
        super().__setattr__(attr, value)

    def __delattr__(self, attr):
        src = self._module_global_source(attr)
        if src is not None and (src.__name__, attr) in _PATCHED:  # the patch ends: ref's module gets its own back
            setattr(src, attr, _PATCHED.pop((src.__name__, attr)))
        if attr in self.__dict__:
            super().__delattr__(attr)

    def _module_global_source(self, attr):
        """The ref module (of this one's sources) whose global ``attr`` is a module (``time``, ``os``)."""
        if attr.startswith("_") or "_sources" not in self.__dict__:
            return None
        for name in self._sources:
            mod = sys.modules.get(name)
            if mod is not None and isinstance(mod.__dict__.get(attr), types.ModuleType) or \
                    (mod is not None and (mod.__name__, attr) in _PATCHED):
                return mod
        return None

    def __init__(self, name, sources, gen=False, extra=None):
        super().__init__(name)
        self.__path__ = []  # a package: `import tensorflow.python.ops.nn_grad` finds its children
        self._sources, self._gen = tuple(sources), gen
        self.__dict__.update(extra or {})

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in _LIVE_GET:
            return _LIVE_GET[attr]()
        alias = ALIASES.get(self.__name__, {}).get(attr)
        if alias is not None:
            return getattr(self, alias)
        child = f"{self.__name__}.{attr}"
        if attr.startswith("gen_") and attr.endswith("_ops") and self.__name__.startswith("tensorflow.python.ops."):
            value = importlib.import_module(f"tensorflow.python.ops.{attr}")  # TF's ops modules hold their gen module
            setattr(self, attr, value)
            return value
        if child in _tf_modules():  # a TF module under this package: import it (a shim too)
            value = importlib.import_module(child)
            setattr(self, attr, value)
            return value
        # gen_*_ops: the generated wrappers first; another ops module: its Python names
        # (ref's module, then the tf namespaces), then the wrappers it re-exports
        order = (("<gen>",) + self._sources + POOL if self.__name__.rpartition(".")[2].startswith("gen_")
                 else self._sources + POOL + ("<gen>",))
        for src in order:
            if src == "<gen>":
                if self._gen and attr in _gen_names():
                    value = _gen_wrapper(_gen_names()[attr])
                    setattr(self, attr, value)
                    return value
                if self._gen and attr[:1].isupper() and attr in _gen_names().values():
                    # TF's gen modules also hold the keyword-only raw op (``gen_nn_ops.AvgPool3DGrad``),
                    # which in a graph adds the op
                    value = _gen_wrapper(attr)
                    setattr(self, attr, value)
                    return value
                continue
            try:
                mod = importlib.import_module(src)
            except ImportError:
                continue
            try:
                value = getattr(mod, attr)
            except Exception:  # noqa: BLE001 -- ref's namespaces raise their own error for a missing TF name
                continue
            if attr not in _LIVE:
                setattr(self, attr, value)
            return value
        if self._gen and "_" in attr:
            raise AttributeError(f"ref has no op for {self.__name__}.{attr}")
        raise AttributeError(f"module {self.__name__!r} (ref shim) has no attribute {attr!r}")


ALIASES = {  # TF-internal names of functions ref has under their public name
    "tensorflow.python.ops.math_ops": {"linspace_nd": "linspace"},
    "tensorflow.python.ops.control_flow_ops": {"_Enter": "enter_frame", "_Identity": "identity_or_ref",
                                               "_NextIteration": "next_iteration", "exit": "exit_",
                                               "_SwitchRefOrTensor": "switch_ref_or_tensor"},
    "tensorflow.python.ops.tensor_array_grad": {"_GetGradSource": "_grad_source"},
    "tensorflow.python.framework.constant_op": {"constant": "constant_v2"},
    "tensorflow.python.framework.tensor_conversion": {"convert_to_tensor_v2": "convert_to_tensor",
                                                      "convert_to_tensor_v2_with_dispatch": "convert_to_tensor"},
}


def _sources_for(name):
    if name in SOURCES:
        return SOURCES[name]
    package, _, leaf = name.rpartition(".")
    found = []
    for folder in SAME_NAME.get(package, ()):
        if importlib.util.find_spec(f"{folder}.{leaf}") is not None:
            found.append(f"{folder}.{leaf}")
    return tuple(found)


def _mirror_source(name):
    path = name.replace(".", "/")
    for candidate in (path + ".py", path + "/__init__.py"):
        out = subprocess.run(["git", "-C", MIRROR, "show", f"HEAD:{candidate}"], capture_output=True)
        if out.returncode == 0:
            return candidate, out.stdout.decode()
    return None, None


class _MirrorLoader(importlib.abc.Loader):
    def __init__(self, path, source):
        self.path, self.source = path, source

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if self.path.endswith("__init__.py"):
            module.__path__ = []
        exec(compile(self.source, self.path, "exec"), module.__dict__)


class _ShimLoader(importlib.abc.Loader):
    def create_module(self, spec):
        name = spec.name
        if name in SPECIAL:
            return SPECIAL[name]()
        # TF's ops modules re-export their generated wrappers (`from gen_io_ops import *`)
        return ShimModule(name, _sources_for(name), gen=name.startswith("tensorflow.python.ops."))

    def exec_module(self, module):
        pass


class _Anything:
    """A stand-in for a name from a module ref does not have (a proto ref lacks, TF's
    XLA bindings): usable at import time; a test that really uses it fails there."""

    def __init__(self, name="?"):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self._name}: not available in ref (a stand-in made by the test shim)")


class _StubModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything(f"{self.__name__}.{attr}")


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


# Bazel-only module paths of TF's tests: (the real TF module, the ref module) serving them.
RENAMED = {
    "xla.tsl.protobuf.rpc_options_pb2": ("tensorflow.core.protobuf.rpc_options_pb2", "ref.protos.config_pb2"),
}


class _RenamedLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        if self.target is None:  # a package on the way to a renamed module
            m = types.ModuleType(spec.name)
            m.__path__ = []
            return m
        if self.target.startswith("ref.protos."):
            from ref import protos
            return getattr(protos, self.target.rpartition(".")[2])
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class ShimFinder(importlib.abc.MetaPathFinder):
    """Serves ``tensorflow`` and every module under it."""

    def __init__(self, tf_backend=False):
        self.tf_backend = tf_backend  # real TF: only the test helpers come from the mirror

    def find_spec(self, fullname, path=None, target=None):
        if fullname in RENAMED:
            return importlib.util.spec_from_loader(fullname, _RenamedLoader(RENAMED[fullname][0 if self.tf_backend
                                                                                              else 1]))
        if any(name.startswith(fullname + ".") for name in RENAMED):
            return importlib.util.spec_from_loader(fullname, _RenamedLoader(None), is_package=True)
        if fullname == "local_xla" or fullname.startswith("local_xla."):  # TF's bazel-only XLA protos
            return None if self.tf_backend else importlib.util.spec_from_loader(fullname, _StubLoader(),
                                                                                 is_package=True)
        if fullname != "tensorflow" and not fullname.startswith("tensorflow."):
            return None
        if FROM_MIRROR.match(fullname) and fullname.count(".") >= 2:
            src_path, source = _mirror_source(fullname)
            if source is not None:
                return importlib.util.spec_from_loader(fullname, _MirrorLoader(src_path, source),
                                                       is_package=src_path.endswith("__init__.py"))
        if self.tf_backend:
            return None
        if fullname.startswith("tensorflow.core.") and fullname.endswith("_pb2"):
            leaf = fullname.rpartition(".")[2]
            if importlib.util.find_spec(f"ref.protos.{leaf}") is None:
                return importlib.util.spec_from_loader(fullname, _StubLoader())
            return importlib.util.spec_from_loader(fullname, _ProtoLoader())
        return importlib.util.spec_from_loader(fullname, _ShimLoader(), is_package=True)


class _ProtoLoader(importlib.abc.Loader):
    def create_module(self, spec):
        from ref import protos
        leaf = spec.name.rpartition(".")[2]
        try:
            return getattr(protos, leaf)
        except AttributeError:
            raise ImportError(f"ref has no {leaf}") from None

    def exec_module(self, module):
        pass


# -- modules written here ------------------------------------------------------

def _passthrough(*args, **kwargs):
    """A TF test decorator that changes nothing in graph mode: usable bare or called."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


def _in_test_session(*args, **kwargs):
    """TF's run_in_graph_and_eager_modes, graph half: the body runs with a test
    session as the default (``op.run()``/``t.eval()`` work without one)."""
    def apply(f):
        @functools.wraps(f)
        def wrapped(self, *a, **k):
            with self.test_session():
                return f(self, *a, **k)
        return wrapped
    if len(args) == 1 and not kwargs and callable(args[0]):
        return apply(args[0])
    return apply


def _skipping(reason):
    def deco(*args, **kwargs):
        def apply(f):
            if inspect.isclass(f):
                return unittest.skip(reason)(f)

            @functools.wraps(f)
            def skipped(self, *a, **k):
                self.skipTest(reason)
            return skipped
        if len(args) == 1 and not kwargs and callable(args[0]):
            return apply(args[0])
        return apply
    return deco


def _test_case_class():
    from absl.testing import absltest
    import ref.test

    class TensorFlowTestCase(ref.test.TestCase, absltest.TestCase):
        """ref's TestCase with absl's assertions (TF's base class derives from absltest)."""

    return TensorFlowTestCase


@contextlib.contextmanager
def _device_cm(use_gpu):
    import ref
    with ref.get_default_graph().device("/device:GPU:0" if use_gpu else "/device:CPU:0"):
        yield


def _ref_tape():
    from ref.grad.tape import GradientTape
    return GradientTape


class GraphGradientTape:
    """``tf.GradientTape`` as it acts on a graph: ``gradient`` adds ``tf.gradients``
    ops (TF's tape records the same ops in graph mode)."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent, self._used = persistent, False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def watch(self, x):
        pass

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None):
        import ref
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        self._used = True
        flat = list(sources) if isinstance(sources, (list, tuple)) else [sources]
        targets = target if isinstance(target, (list, tuple)) else [target]
        grads = ref.gradients(targets, flat, output_gradients)
        if unconnected_gradients is not None and str(unconnected_gradients).lower().endswith("zero"):
            grads = [ref.zeros_like(s) if g is None else g for g, s in zip(grads, flat)]
        if isinstance(sources, dict):
            return dict(zip(sources, grads))
        return grads if isinstance(sources, (list, tuple)) else grads[0]


def _make_test_util():
    import ref
    import ref.test
    m = ShimModule("tensorflow.python.framework.test_util", ("ref.test", "ref.test_util"))
    case = _test_case_class()
    m.TensorFlowTestCase = case
    for name in ("run_deprecated_v1", "run_v1_only", "deprecated_graph_mode_only",
                 "run_all_in_deprecated_graph_mode_only",
                 "disable_xla", "disable_tfrt", "disable_mlir_bridge",
                 "xla_allow_fallback", "with_eager_op_as_function",
                 "also_run_as_tf_function", "with_forward_compatibility_horizons", "run_without_tensor_float_32",
                 "run_all_without_tensor_float_32", "disable_cudnn_autotune",
                 "disable_asan", "disable_msan", "disable_tsan", "disable_ubsan", "no_xla_auto_jit",
                 "run_in_v1_v2", "run_class_in_v1_v2", "enable_eager_op_as_function", "assert_no_new_pyobjects_executing_eagerly",
                 "assert_no_new_tensors", "assert_no_garbage_created",
                 "enable_output_all_intermediates", "add_graph_building_optimization_tests",
                 "run_in_async_and_sync_mode", "py_func_if_in_function", "enable_quantized_dtypes_training",
                 "matmul_without_tf32", "disable_eager_op_as_function", "enable_graph_building_optimization",
                 "run_functions_eagerly", "enable_tf_xla_constant_folding"):
        setattr(m, name, _passthrough)
    m.run_in_graph_and_eager_modes = _in_test_session

    def run_all_in_graph_and_eager_modes(cls):
        """TF's class decorator: every test method runs as ``run_in_graph_and_eager_modes`` runs it."""
        for name, value in list(cls.__dict__.items()):
            if callable(value) and name.startswith("test"):
                setattr(cls, name, _in_test_session(value))
        return cls
    m.run_all_in_graph_and_eager_modes = run_all_in_graph_and_eager_modes
    m.run_v2_only = _skipping("run_v2_only: TF runs it only with v2 behaviour")
    gpu = ref.test.is_gpu_available()
    for name in ("run_gpu_only", "run_cuda_only", "run_gpu_or_tpu"):
        setattr(m, name, _passthrough if gpu else _skipping(f"{name}: no GPU"))

    def skip_if(condition):
        def deco(f):
            @functools.wraps(f)
            def wrapper(self, *a, **k):
                c = condition() if callable(condition) else condition
                if c:
                    self.skipTest("skip_if")
                return f(self, *a, **k)
            return wrapper
        return deco

    def for_all_test_methods(decorator, *args, **kwargs):
        def all_methods(cls):
            for name, value in list(cls.__dict__.items()):
                if callable(value) and name.startswith("test"):
                    setattr(cls, name, decorator(*args, **kwargs)(value))
            return cls
        return all_methods

    def build_as_function_and_v1_graph(func):
        """TF's: the test twice, ``_v1_graph`` (in a new Graph) and ``_function``
        (traced in a function body: a FuncGraph, where cond/while_loop build If/While)."""
        from absl.testing import parameterized
        from ref.framework.func_graph import FuncGraph

        @parameterized.named_parameters(("_v1_graph", "v1_graph"), ("_function", "function"))
        @functools.wraps(func)
        def decorated(self, run_mode, *args, **kwargs):
            with ref.Graph().as_default() as g:
                if run_mode == "v1_graph":
                    return func(self, *args, **kwargs)
                with FuncGraph("function_in_eager", g).as_default():
                    return func(self, *args, **kwargs)
        return decorated

    m.build_as_function_and_v1_graph = build_as_function_and_v1_graph
    m.skip_if = skip_if
    m.for_all_test_methods = for_all_test_methods
    for name in ("IsGoogleCudaEnabled", "IsBuiltWithROCm", "IsBuiltWithXLA", "IsBuiltWithNvcc", "IsMklEnabled",
                 "is_xla_enabled", "is_mlir_bridge_enabled", "is_asan_enabled", "is_msan_enabled",
                 "is_tsan_enabled", "is_ubsan_enabled", "GpuSupportsHalfMatMulAndConv"):
        setattr(m, name, lambda *a, **k: False)
    m.IsCPUTargetAvailable = lambda *a, **k: True
    m.is_gpu_available = ref.test.is_gpu_available
    m.gpu_device_name = ref.test.gpu_device_name
    m.use_gpu = lambda: _device_cm(True)
    m.force_gpu = lambda: _device_cm(True)
    m.force_cpu = lambda: _device_cm(False)
    m.device = _device_cm

    def generate_combinations_with_testcase_name(**kwargs):
        import itertools
        keys = sorted(kwargs)
        out = []
        for values in itertools.product(*(kwargs[k] for k in keys)):
            combo = dict(zip(keys, values))
            combo["testcase_name"] = "_" + "_".join(f"{k}_{re.sub('[^A-Za-z0-9]', '', str(v))}"
                                                    for k, v in combo.items())
            out.append(combo)
        return out
    m.generate_combinations_with_testcase_name = generate_combinations_with_testcase_name

    class AbstractGradientTape(GraphGradientTape):
        """TF's helper: a tape or ``tf.gradients``; in a graph both are ``tf.gradients``."""

        def __init__(self, use_tape, persistent=False):
            super().__init__(persistent=persistent)
    m.AbstractGradientTape = AbstractGradientTape

    def assert_ops_in_graph(expected_ops, graph):
        actual = {op.name: op for op in graph.get_operations()}
        for name, op_type in expected_ops.items():
            if name not in actual:
                raise ValueError(f"Expected op {name} not in graph")
            if actual[name].type != op_type:
                raise ValueError(f"Expected op {name} of type {op_type}, got {actual[name].type}")
        return actual
    m.assert_ops_in_graph = assert_ops_in_graph
    return m


def _make_test():
    import ref.test
    m = ShimModule("tensorflow.python.platform.test", ("ref.test",))
    m.TestCase = _test_case_class()
    m.main = ref.test.main
    for name in ("is_built_with_cuda", "is_built_with_rocm", "is_built_with_xla", "is_built_with_gpu_support"):
        setattr(m, name, lambda: False)

    class Benchmark:
        def report_benchmark(self, **kwargs):
            pass

        def run_op_benchmark(self, *args, **kwargs):
            return {}
    m.Benchmark = Benchmark
    m.test_src_dir_path = _test_src_dir_path
    return m


_SRC_DIR = {}


def _test_src_dir_path(relative_path):
    """TF's ``test.test_src_dir_path``: ``relative_path`` under tensorflow/, as files
    written out of the source mirror (a file, or every file of its folder whose name
    starts with it: a checkpoint prefix)."""
    import os
    import tempfile
    root = _SRC_DIR.setdefault("root", tempfile.mkdtemp(prefix="tf_src_"))
    target = os.path.join(root, relative_path)
    folder, base = os.path.split("tensorflow/" + relative_path)
    names = subprocess.run(["git", "-C", MIRROR, "ls-tree", "--name-only", "HEAD", folder + "/"],
                           capture_output=True, text=True).stdout.split()
    for name in names:
        if os.path.basename(name).startswith(base):
            out = os.path.join(root, os.path.relpath(name, "tensorflow"))
            if not os.path.exists(out):
                os.makedirs(os.path.dirname(out), exist_ok=True)
                blob = subprocess.run(["git", "-C", MIRROR, "show", f"HEAD:{name}"], capture_output=True).stdout
                with open(out, "wb") as f:
                    f.write(blob)
    return target


def _make_context():
    def eager_mode():
        raise unittest.SkipTest("eager mode: TF's graph-mode (v1) run has no eager context")

    def function(func=None, **kwargs):  # graph mode: the Python function builds its ops in place
        if func is None:
            return lambda f: f
        return func

    m = ShimModule("tensorflow.python.eager.context", ())
    m.executing_eagerly = lambda: False
    m.eager_mode = eager_mode
    m.graph_mode = contextlib.nullcontext
    m.in_eager_mode = lambda: False
    # ref's cond/case gradients never wrap intermediates in optionals: nothing to disable
    m.temporarily_disable_optionals_in_gradients = contextlib.nullcontext
    m.function = function
    # TF resets its eager runtime's global context; ref has none (graph mode only), so nothing to reset
    m._reset_context = lambda: None
    m.num_gpus = lambda: 0  # ref runs every kernel on the host (see _make_config)
    return m


def _make_def_function():
    m = _make_context()
    m.__name__ = "tensorflow.python.eager.def_function"
    return m


def _make_config():
    m = ShimModule("tensorflow.python.framework.config", ("ref.session.runtime_config",))
    # ref's kernels are deterministic; TF's switches for it change nothing here
    for name in ("enable_tensor_float_32_execution", "set_soft_device_placement", "set_log_device_placement"):
        setattr(m, name, lambda *a, **k: None)
    from ref.platform import modes  # TF's op-determinism switch is ref's
    m.enable_op_determinism = modes.enable_op_determinism
    m.disable_op_determinism = modes.disable_op_determinism
    m.is_op_determinism_enabled = modes.is_op_determinism_enabled
    import collections
    logical = collections.namedtuple("LogicalDevice", ["name", "device_type"])
    physical = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
    # ref runs every kernel on the host: one CPU, as TF lists it
    m.list_physical_devices = lambda device_type=None: (
        [physical("/physical_device:CPU:0", "CPU")] if device_type in (None, "CPU") else [])
    m.list_logical_devices = lambda device_type=None: (
        [logical("/device:CPU:0", "CPU")] if device_type in (None, "CPU") else [])
    return m


def _make_gradient_checker_v2():
    """TF2's ``compute_gradient(f, x, delta)`` as TF runs it in graph mode: ``f`` on
    placeholders, Jacobians ``[y_size, x_size]`` from ref's v1 checker (``[x_size, y_size]``)."""
    import numpy as np
    import ref
    import ref.test

    def to_numpy(a):
        if hasattr(a, "graph") and hasattr(a, "op"):
            return ref.get_default_session().run(a)
        if hasattr(a, "indices") and hasattr(a, "dense_shape") and not hasattr(a, "graph"):
            arr = np.zeros(a.dense_shape)
            for v, i in zip(a.values, a.indices):
                arr[i] += v
            return arr
        return a

    def compute_gradient(f, x, delta=None):
        if not isinstance(x, (list, tuple)):
            raise ValueError("`x` must be a list or tuple of values convertible to a Tensor (arguments to `f`), "
                             f"not a {type(x)}")
        delta = 1.0 / 1024 if delta is None else delta
        values = [np.asarray(to_numpy(ref.convert_to_tensor(xi) if not hasattr(xi, "op") else xi)) for xi in x]
        phs = [ref.placeholder(ref.as_dtype(v.dtype), v.shape) for v in values]
        y = f(*phs)
        y_shape = ref.get_default_session().run(y, dict(zip(phs, values))).shape
        theoretical, numerical = [], []
        for i, (ph, v) in enumerate(zip(phs, values)):
            others = {p: w for j, (p, w) in enumerate(zip(phs, values)) if j != i}
            t, n = ref.test.compute_gradient(ph, v.shape, y, y_shape, x_init_value=v, delta=delta,
                                             extra_feed_dict=others)
            theoretical.append(t.T.astype(v.dtype if v.dtype.kind in "fc" else np.float64))
            numerical.append(n.T.astype(v.dtype if v.dtype.kind in "fc" else np.float64))
        return tuple(theoretical), tuple(numerical)

    def max_error(grad1, grad2):
        error = 0
        for j_t, j_n in zip(grad1, grad2):
            if j_t.size or j_n.size:
                error = np.maximum(error, np.fabs(j_t - j_n).max())
        return error

    m = ShimModule("tensorflow.python.ops.gradient_checker_v2", ())
    m.compute_gradient, m.max_error, m._to_numpy = compute_gradient, max_error, to_numpy
    return m


def _make_numpy_compat():
    import numpy as np

    def np_where(condition, x=None, y=None):
        if x is None and y is None:
            return np.where(np.atleast_1d(condition) if np.ndim(condition) == 0 else condition)
        return np.where(condition, x, y)
    return ShimModule("tensorflow.python.util.numpy_compat", (), extra={"np_where": np_where, "np_asarray": np.asarray,
                                                                        "np_array": np.array})


def _make_test_ops():
    """TF's test-only ops, declared in ref's registry (``tools/tf_tests/test_ops.py``)."""
    importlib.import_module("test_ops")
    _gen_names.cache_clear()
    return ShimModule("tensorflow.python.framework.test_ops", (), gen=True)


SPECIAL = {
    "tensorflow.python.framework.test_ops": _make_test_ops,
    "tensorflow.python.trackable.base": lambda: ShimModule(
        "tensorflow.python.trackable.base", ("ref.checkpoint.trackable_base",),
        extra={"VARIABLE_VALUE_KEY": "VARIABLE_VALUE"}),
    "tensorflow.python.util.numpy_compat": _make_numpy_compat,
    "tensorflow.python.eager.backprop": lambda: ShimModule("tensorflow.python.eager.backprop", (),
                                                           extra={"GradientTape": _ref_tape()}),
    "tensorflow.python.ops.gradient_checker_v2": _make_gradient_checker_v2,
    "tensorflow.python.framework.config": _make_config,
    "tensorflow.python.framework.test_util": _make_test_util,
    "tensorflow.python.platform.test": _make_test,
    "tensorflow.python.platform.googletest": _make_test,
    "tensorflow.python.eager.test": _make_test,
    "tensorflow.python.eager.context": _make_context,
    "tensorflow.python.eager.def_function": _make_def_function,
    "tensorflow.python.tf2": lambda: ShimModule("tensorflow.python.tf2", (), extra={"enabled": lambda: False}),
    # TF's switch for lowering If/Case to Switch/Merge in its graph optimizer; ref's interpreter runs
    # the functional ops as they are, so either setting computes the same values
    "tensorflow.python.ops.control_flow_util_v2": lambda: ShimModule(
        "tensorflow.python.ops.control_flow_util_v2", ("ref.graph_ops.control_flow_util",),
        extra={"_DISABLE_LOWER_USING_SWITCH_MERGE": False}),
}


def install(tf_backend=False):
    """Puts the hook first on ``sys.meta_path`` (``tf_backend``: only the mirror's test helpers)."""
    sys.meta_path.insert(0, ShimFinder(tf_backend))
    if not tf_backend:
        for tf_name, ref_name in SHARED.items():
            sys.modules[tf_name] = importlib.import_module(ref_name)
