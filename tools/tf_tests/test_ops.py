"""TF's test-only ops (``tensorflow/python/framework/test_ops.cc``) declared in
ref's registry, so tests that import GraphDefs naming them (importer_test) run.

TF builds these ops for its tests only and gives most of them no kernel; here
each kernel raises as TF's missing kernel does. Loaded by the shim as
``tensorflow.python.framework.test_ops`` (its generated wrappers too).
"""
from __future__ import annotations

from ref.ops import registry
from ref.types import dtypes
from ref.types.shapes import unknown_shape

_I, _F = dtypes.int32, dtypes.float32


def _outputs(*types):
    return lambda ins, attrs: [(d, unknown_shape()) for d in types]


def _no_kernel(op_type):
    def kernel(**kwargs):
        raise registry.invalid_argument(f"No OpKernel was registered to support Op '{op_type}' (a TF test op)")
    return kernel


def _declare(name, inputs=(), input_types=None, outputs=(), out_types=(), **kw):
    registry.register_op(name, inputs=inputs, input_types=input_types, outputs=outputs,
                         shape=kw.pop("shape", _outputs(*out_types)), **kw)(_no_kernel(name))


def _list_output_shape(ins, attrs):
    return [(d, unknown_shape()) for d in attrs["T"]]


_declare("None")
_declare("IntOutput", outputs=("a",), out_types=(_I,))
_declare("FloatOutput", outputs=("a",), out_types=(_F,))
_declare("TwoIntOutputs", outputs=("a", "b"), out_types=(_I, _I))
_declare("TwoFloatOutputs", outputs=("a", "b"), out_types=(_F, _F))
_declare("IntOutputFloatOutput", outputs=("a", "b"), out_types=(_I, _F))
_declare("RefOutput", outputs=("a",), out_types=(_I._as_ref,), stateful=True)
_declare("IntInput", inputs=("a",), input_types={"a": _I})
_declare("FloatInput", inputs=("a",), input_types={"a": _F})
_declare("IntInputIntOutput", inputs=("a",), input_types={"a": _I}, outputs=("b",), out_types=(_I,))
_declare("TwoIntInputs", inputs=("a", "b"), input_types={"a": _I, "b": _I})
_declare("TwoFloatInputs", inputs=("a", "b"), input_types={"a": _F, "b": _F})
_declare("IntInputFloatInput", inputs=("a", "b"), input_types={"a": _I, "b": _F})
_declare("RefInputIntInput", inputs=("a", "b"), input_types={"a": _I, "b": _I}, refs=("a",))
_declare("ListInput", inputs=("a",), list_inputs={"a": "N"}, attrs={"N": registry.REQUIRED, "T": registry.REQUIRED},
         type_attrs={"T": ("a",)})
_declare("ListOutput", outputs=("*a",), attrs={"T": registry.REQUIRED}, shape=_list_output_shape)
_declare("OpWithDefaultAttr", outputs=("a",), out_types=(_I,), attrs={"default_float": 123.0})
_declare("OpWithFutureDefaultAttr")
_declare("IntAttr", outputs=("out",), out_types=(dtypes.int64,), attrs={"foo": 1})
_declare("TestStringOutput", inputs=("input",), input_types={"input": _F}, outputs=("output1", "output2"),
         out_types=(_F, dtypes.string))
_declare("Namespace>TestStringOutput", inputs=("input",), input_types={"input": _F}, outputs=("output1", "output2"),
         out_types=(_F, dtypes.string))
