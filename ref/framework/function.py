"""TF1 graph functions: ``Defun`` (TF's ``framework/function.py``).

``@Defun(tf.float32, ...)`` turns a Python function into a function of the
graph: the first call traces it into a function graph (its arguments are
placeholders named after the Python arguments; a tensor of another graph it
uses is captured as an extra argument the caller passes), encodes it as a
FunctionDef the way TensorFlow's C API does (``GraphToFunctionDef``: output
args named after their nodes, lower-cased; ``node:output_arg:i`` inputs; the
name ``<func_name>_<hash>`` from TF's ``FunctionDefHash``), adds it to the
graph's function library and adds a call node whose op type is the function's
name. The Session runs a call by running the function graph on its inputs.

Gradients (``ref.grad``): ``python_grad_func(op, *grads)``, else a call of
``grad_func``, else a ``SymbolicGradient`` node.
"""
from __future__ import annotations

import collections
import contextlib
import inspect

from ref.types import dtypes, errors
from ref.types.shapes import TensorShape
from ref.ops import registry
from ref.framework.func_graph import FuncGraph
from ref.framework.graph import Graph, get_default_graph
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework import graph_export, importer
from ref.framework.graph_to_function_def import (
    _NOT_STATEFUL_IN_TF, function_def_of, hashed_name)

__all__ = ["Defun", "from_library", "get_extra_args", "get_extra_inputs", "get_extra_vars"]

# Context managers ``scope(defun_graph)`` entered while a body is traced, registered
# from above (ref.graph_ops.defun_variables: TF's variable getter of a Defun body)
TRACE_SCOPES = []

# -- the function graph -----------------------------------------------------------

class DefunGraph(FuncGraph):
    """A Defun's body: an outer tensor becomes a placeholder (named in the scope of
    the op that uses it, as TF's) and an extra argument the caller passes."""

    def __init__(self, name, outer_graph, capture_by_value=False, allowlisted_stateful_ops=(),
                 capture_resource_var_by_value=True):
        super().__init__(name, outer_graph)
        self.capture_resource_var_by_value = capture_resource_var_by_value
        self.extra_inputs, self.extra_args, self.extra_vars = [], [], []
        self._by_value = capture_by_value
        self._allowlisted = set(allowlisted_stateful_ops or ())

    def capture(self, tensor):
        if tensor.graph is self:
            return tensor
        key = id(tensor)
        if key in self._capture_map:
            return self._capture_map[key][1]
        if self._by_value:
            return self._copy_op(tensor.op)[tensor.value_index]
        with self.as_default(), self.control_dependencies(None):
            ph = apply_op("Placeholder", dtype=tensor.dtype.base_dtype, shape=tensor.shape)
        self._capture_map[key] = (tensor, ph)
        self.captures.append((tensor, ph))
        self.inputs.append(ph)
        self.extra_inputs.append(tensor)
        self.extra_args.append(ph)
        if _is_guaranteed_const(tensor):
            with self.as_default(), self.control_dependencies(None):
                return apply_op("GuaranteeConst", input=ph)
        return ph


def _is_guaranteed_const(tensor):
    """TF's rule: made by ``GuaranteeConst``, or by an op all of whose (one or
    more) inputs are guaranteed constants."""
    memo = {}

    def const(op):
        if id(op) not in memo:
            memo[id(op)] = False
            memo[id(op)] = op.type == "GuaranteeConst" or (bool(op._inputs) and all(
                const(t.op) for t in op._inputs))
        return memo[id(op)]

    return const(tensor.op)




def _copy_op_by_value(g, op):
    """Copies ``op`` and the ops it reads into Defun graph ``g`` (capture by value)."""
    if op.type in ("Placeholder", "PlaceholderV2"):
        raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value.")
    if op._opdef.stateful and op not in g._allowlisted and op.type not in _NOT_STATEFUL_IN_TF:
        raise ValueError(f"Cannot capture a stateful node (name:{op.name}, type:{op.type}) by value.")
    ins = [g.capture(t) for t in op._inputs]
    kwargs, i = {}, 0
    for in_name, v in op.named_inputs().items():
        n = len(v) if isinstance(v, list) else 1
        kwargs[in_name] = ins[i:i + n] if isinstance(v, list) else ins[i]
        i += n
    for k in op._opdef.attrs:
        if k in op._attrs:
            kwargs[k] = op._attrs[k]
    with g.as_default(), g.name_scope(None), g.control_dependencies(None):
        res = apply_op(op.type, name=op.name, **kwargs)
    outs = [] if not op._outputs else [res] if len(op._outputs) == 1 and not isinstance(res, (list, tuple)) \
        else list(res)
    for old, new in zip(op._outputs, outs):
        g._capture_map[id(old)] = (old, new)
    return outs


DefunGraph._copy_op = _copy_op_by_value


# -- Defun -----------------------------------------------------------------------

def _parse_kwargs_as_attrs(func_name, **kwargs):
    """The call-site / definition attrs TF derives from Defun's keyword arguments."""
    attrs = {}
    noinline = kwargs.pop("noinline", None)
    if noinline is not None:
        attrs["_noinline"] = bool(noinline)
    attrs["_disable_call_shape_inference"] = True
    compiled = kwargs.pop("compiled", None)
    separate = kwargs.pop("separate_compiled_gradients", None)
    if compiled is not None:
        attrs["_XlaCompile"] = bool(compiled)
        attrs["_XlaSeparateCompiledGradients"] = bool(separate)
        attrs["_XlaScope"] = f"function_{func_name}"
    for key in list(kwargs):
        value = kwargs[key]
        if key.startswith("experimental_"):
            if not isinstance(value, (bool, int, float, str)):
                raise ValueError(f"Attribute {key} must be bool, int, float, or str. Got {type(value)}.")
            attrs[key] = value
            del kwargs[key]
        elif key in ("_implements", "_reference"):
            if not isinstance(value, str):
                raise ValueError(f"Attribute {key} must be str. Got {type(value)}.")
            attrs[key] = value
            del kwargs[key]
    if kwargs:
        raise ValueError(f"Unknown keyword arguments: {kwargs.keys()}.")
    return attrs


def _attr_proto(v):
    return graph_export.attr_value_proto(v, graph_export.scratch_library(), {})


class Defun:
    """``@Defun(*input_types, func_name=None, grad_func=None, python_grad_func=None,
    out_names=None, **kwargs)``: the decorated Python function becomes a graph
    function (``shape_func``, ``noinline``, ``experimental_*`` pass through)."""

    def __init__(self, *input_types, **kwargs):
        self._input_types = input_types
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._extra_kwargs = kwargs

    def __call__(self, func):
        if not callable(func):
            raise ValueError(f"Function {func} must be a callable.")  # noqa: TRY004 -- TF's kind
        spec = inspect.getfullargspec(func)
        if spec.varkw or spec.defaults:
            raise ValueError("Functions with argument defaults or keywords arguments are not supported. "
                             f"{func} has defaults {spec.defaults} and keywords {spec.varkw}.")
        min_args = len(spec.args)
        max_args = 1000000 if spec.varargs else min_args
        argnames = spec.args
        if inspect.ismethod(func):
            min_args -= 1
            argnames = argnames[1:]
        common = dict(func_name=self._func_name, grad_func=self._grad_func,
                      python_grad_func=self._python_grad_func, out_names=self._out_names, **self._extra_kwargs)
        if self._input_types:
            num = len(self._input_types)
            if num < min_args or num > max_args:
                raise ValueError("The number of tf.function input types is not compatible with the allowed "
                                 f"arguments of {func}. The tf.function have {num} input types, while the python "
                                 f"function allows minimum {min_args} and maximum {max_args} arguments.")
            return _DefinedFunction(func, argnames, self._input_types, **common)
        if min_args == 0 and max_args == 0:
            return _DefinedFunction(func, [], [], **common)
        return _OverloadedFunction(func, argnames, **common)


class _DefinedFunction:
    """A function definition and its properties (TF's ``_DefinedFunction``)."""

    def __init__(self, func, argnames, input_types, func_name=None, grad_func=None, python_grad_func=None,
                 out_names=None, shape_func=None, capture_by_value=False, allowlisted_stateful_ops=None,
                 capture_resource_var_by_value=True, **kwargs):
        self._func = func
        self._input_types = input_types
        self._func_name = func_name
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._shape_func = shape_func
        self._capture_by_value = capture_by_value
        self._allowlisted_stateful_ops = allowlisted_stateful_ops
        self._capture_resource_var_by_value = capture_resource_var_by_value
        self._extra_kwargs = kwargs
        self._definition = None
        self._library = None
        self._library_defs = None
        self._outer = None
        self._graph = None
        self._sub_functions = {}
        self._extra_inputs = []
        self._stateful_ops = []
        self._op_def = None
        self._call_opdef = None
        stack = get_default_graph()._tls().device_stack
        self._caller_device = stack[-1] if stack else None  # TF: the body runs on the defining scope's device
        self._arg_types = input_types
        self._arg_names = [argnames[i] if i < len(argnames) else f"arg{i}" for i in range(len(input_types))]

    @property
    def name(self):
        self._create_definition_if_needed()
        return self._func_name

    @property
    def definition(self):
        self._create_definition_if_needed()
        return self._definition

    cached_definition = definition

    @property
    def _signature(self):
        self._create_definition_if_needed()
        return self._op_def

    def set_grad_func(self, grad_func):
        assert not self._grad_func
        assert isinstance(grad_func, _DefinedFunction)
        self._grad_func = grad_func

    @property
    def grad_func_name(self):
        return self._grad_func.name if self._grad_func else None

    @property
    def python_grad_func(self):
        return self._python_grad_func

    @property
    def declared_input_types(self):
        return self._input_types

    @property
    def captured_inputs(self):
        self._create_definition_if_needed()
        return self._extra_inputs

    @property
    def stateful_ops(self):
        self._create_definition_if_needed()
        return self._stateful_ops

    @property
    def graph(self):
        """The function graph the Session runs for a call (a function read from a
        FunctionDef gets it on first use, its calls resolved in ``library``)."""
        self._create_definition_if_needed()
        if self._graph is None:
            library = {self._definition.signature.name: self._definition, **(self._library_defs or {})}
            self._graph = importer._build_function(self._outer or get_default_graph(), self._definition, library)
        return self._graph

    def _create_definition_if_needed(self):
        if self._definition is not None:
            return
        outer = get_default_graph()
        name = self._func_name or getattr(self._func, "__name__", "function")
        fg = DefunGraph(name, outer, self._capture_by_value, self._allowlisted_stateful_ops,
                        self._capture_resource_var_by_value)
        with fg.as_default(), fg.device(self._caller_device):
            for argname, argtype in zip(self._arg_names, self._arg_types):
                fg.inputs.append(apply_op("Placeholder", dtype=dtypes.as_dtype(argtype), shape=TensorShape(None),
                                          name=argname))
            with contextlib.ExitStack() as scopes:
                for scope in TRACE_SCOPES:
                    scopes.enter_context(scope(fg))
                outputs = self._func(*fg.inputs)
            if outputs is None:
                outputs = []
            else:
                if not isinstance(outputs, (list, tuple)):
                    outputs = (outputs,)
                if any(o is None for o in outputs):
                    raise ValueError(f"Function {name} can not return None.")
            outputs = [convert_to_tensor(t) for t in outputs]
            outputs = [fg.capture(t) if t.graph is not fg else t for t in outputs]
            fg.outputs = outputs
        self._graph = fg
        self._extra_inputs = list(fg.extra_inputs)
        self._sub_functions = dict(_functions_of(fg))
        if self._func_name:
            base = self._func_name
        else:
            base = getattr(self._func, "__name__", "function")
            if self._grad_func:
                base += f"_{self._grad_func.name}"
        kwargs_attr = _parse_kwargs_as_attrs(base, **dict(self._extra_kwargs))
        fdef, self._library = function_def_of(fg, self._out_names, self._func.__doc__)
        fdef.signature.name = base if self._func_name else hashed_name(base, fdef)
        for k, v in kwargs_attr.items():
            fdef.attr[k].CopyFrom(_attr_proto(v))
        self._func_name = fdef.signature.name
        self._definition = fdef
        self._op_def = fdef.signature
        self._stateful_ops = [(op.name, op.type) for op in fg.get_operations()
                              if op._opdef.stateful and op.type not in _NOT_STATEFUL_IN_TF]
        self._call_opdef = _call_opdef(self, fdef.signature, bool(self._stateful_ops))

    def add_to_graph(self, g):
        """Adds this function (its sub-functions, its gradient function) to graph ``g``."""
        self._create_definition_if_needed()
        _add_function(g, self)
        for f in self._sub_functions.values():
            _add_function(g, f)
        if self._grad_func:
            self._grad_func.add_to_graph(g)

    def __call__(self, *args, **kwargs):
        self.add_to_graph(get_default_graph())
        args = [convert_to_tensor(a) for a in args] + self._extra_inputs
        ret, op = _call(self, *args, **kwargs)
        if self._shape_func is not None:
            shapes = self._shape_func(op)
            if len(shapes) != len(op.outputs):
                raise ValueError(f"shape_func {self._shape_func} produced {len(shapes):d} shapes, which does not "
                                 f"match {len(op.outputs)} outputs.")
            for t, shape in zip(op.outputs, shapes):
                t.set_shape(shape)
        return ret


_BY_OPDEF = {}  # id(call OpDef) -> its _DefinedFunction


def function_of(op):
    """The Defun function call ``op`` calls, or None for any other op."""
    return _BY_OPDEF.get(id(op._opdef))


def _call_opdef(fn, sig, stateful):
    """The declaration of the call op: ``input`` (a list) in, the signature's
    output args out; its kernel runs ``fg``."""
    outs = tuple(a.name for a in sig.output_arg)
    single = len(outs) == 1

    def kernel(input, ctx):
        res = ctx.run_subgraph(fn.graph, list(input))
        return res[0] if single else tuple(res)

    kernel.__name__ = sig.name
    opdef = registry.OpDef(
        name=sig.name, inputs=("input",), outputs=outs, attrs={}, type_attrs={}, allowed={},
        list_inputs={"input": None}, shape=None, kernel=kernel, gpu_kernel=None, stateful=stateful, refs=(),
        ref_outputs={}, allow_uninitialized=(), ctx=True, creates_ref=False, raw_inputs=("input",))
    _BY_OPDEF[id(opdef)] = fn
    return opdef


def _call(fn, *inputs, **kwargs):
    """Adds a call node of ``fn`` (op type = its name); (result, op)."""
    sig = fn._signature
    if len(inputs) != len(sig.input_arg):
        raise ValueError(f"Expected {len(sig.input_arg):d} arguments, got {len(inputs):d}.")
    name = kwargs.pop("name", None)
    g = get_default_graph()
    func_name = sig.name
    attrs = _parse_kwargs_as_attrs(func_name, **kwargs)
    inputs = list(inputs)
    for i, (t, arg) in enumerate(zip(inputs, sig.input_arg)):
        if t.graph is not g:
            if not g._building_function:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the call of {func_name}.")
            inputs[i] = t = g.capture(t)
        want = dtypes.as_dtype(arg.type)
        if t.dtype.base_dtype != want:
            raise ValueError(f"Input {i} of node {name or func_name} was passed {t.dtype.base_dtype.name} from "
                             f"{t.name} incompatible with expected {want.name}.")
    attrs["_list_sizes"] = {"input": len(inputs)}
    specs = [(dtypes.as_dtype(a.type), TensorShape(None)) for a in sig.output_arg]
    op = g.create_op(func_name, inputs, attrs, name or func_name, specs, fn._call_opdef)
    outs = op.outputs
    ret = op if not outs else outs[0] if len(outs) == 1 else tuple(outs)
    return ret, op


class _OverloadedFunction:
    """A Defun without input types: instantiated per list of argument dtypes."""

    def __init__(self, func, argnames, func_name=None, grad_func=None, python_grad_func=None, out_names=None,
                 **kwargs):
        self._func = func
        self._argnames = argnames
        self._func_name = func_name
        assert grad_func is None or isinstance(grad_func, _OverloadedFunction)
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._extra_kwargs = kwargs
        self._overload = {}

    def instantiate(self, input_types):
        key = _type_list_to_str(input_types)
        defined = self._overload.get(key)
        if not defined:
            name = self._func_name
            if name is not None:
                name = f"{name}_{key}"
            defined = _DefinedFunction(self._func, self._argnames, input_types, name, None,
                                       self._python_grad_func, out_names=self._out_names, **self._extra_kwargs)
            _ = defined.name
            if self._grad_func:
                output_types = [dtypes.as_dtype(a.type) for a in defined._signature.output_arg]
                defined._grad_func = self._grad_func.instantiate(list(input_types) + output_types)
            self._overload[key] = defined
        return defined

    def __call__(self, *args, **kwargs):
        input_types, args = [], list(args)
        for i, x in enumerate(args):
            x = convert_to_tensor(x)
            input_types.append(x.dtype.base_dtype)
            args[i] = x
        return self.instantiate(input_types)(*args, **kwargs)


_DTYPE_TO_STR = {
    dtypes.float16: "f16", dtypes.float32: "f32", dtypes.float64: "f64", dtypes.int32: "i32",
    dtypes.uint8: "i8", dtypes.uint16: "u16", dtypes.uint32: "u32", dtypes.uint64: "u64", dtypes.int16: "i16",
    dtypes.int8: "i8", dtypes.string: "s", dtypes.complex64: "c64", dtypes.complex128: "c128",
    dtypes.int64: "i64", dtypes.bool: "b", dtypes.qint8: "qi8", dtypes.quint8: "qu8", dtypes.qint16: "qi16",
    dtypes.quint16: "qu16", dtypes.qint32: "qi32", dtypes.bfloat16: "b16",
}


def _type_list_to_str(types):
    bad = [t for t in types if t not in _DTYPE_TO_STR]
    if bad:
        raise ValueError(f"Unsupported dtypes {bad} in `types`. Supported dtypes are {_DTYPE_TO_STR.keys()}.")
    return "".join(_DTYPE_TO_STR[t] for t in types)


# -- the graph's function library ------------------------------------------------

def _functions_of(g):
    fns = g.__dict__.get("_functions")
    if fns is None:
        fns = g.__dict__["_functions"] = collections.OrderedDict()
    return fns


def _add_function(g, fn):
    """Adds ``fn`` to ``g``'s library (and, inside a function body, to the graphs it nests in)."""
    if fn.grad_func_name is not None and fn.python_grad_func is not None:
        raise ValueError(f"Gradient defined twice for function {fn.name}")
    while g is not None:
        fns = _functions_of(g)
        prev = fns.get(fn.name)
        if prev is not None and prev is not fn and prev.definition != fn.definition:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot add function '{fn.name}' because a different function with the same name "
                "already exists.")
        fns.setdefault(fn.name, fn)
        g = getattr(g, "outer_graph", None) if g._building_function else None


Graph._functions = property(_functions_of)
Graph._add_function = _add_function
Graph._add_function_recursive = _add_function
Graph._is_function = lambda self, name: name in _functions_of(self)
Graph._get_function = lambda self, name: _functions_of(self).get(name)


def _library_of(g, library):
    """Adds the functions of ``g``'s library (with their gradient pairs) to a FunctionDefLibrary."""
    have = {f.signature.name for f in library.function}
    for fn in _functions_of(g).values():
        for fdef in [fn.definition] + list(fn._library.function if fn._library is not None else ()):
            if fdef.signature.name not in have:
                have.add(fdef.signature.name)
                library.function.add().CopyFrom(fdef)
        if fn.grad_func_name:
            library.gradient.add(function_name=fn.name, gradient_func=fn.grad_func_name)


graph_export.LIBRARY_SOURCES.append(_library_of)


# -- helpers TF exports ----------------------------------------------------------

def get_extra_vars():
    g = get_default_graph()
    return g.extra_vars if isinstance(g, DefunGraph) else []


def get_extra_inputs():
    g = get_default_graph()
    return g.extra_inputs if isinstance(g, DefunGraph) else []


def get_extra_args():
    g = get_default_graph()
    return g.extra_args if isinstance(g, DefunGraph) else []


def from_library(lib):
    """_DefinedFunctions of a FunctionDefLibrary (TF's checks of its gradient pairs)."""
    if not lib.function and not lib.gradient:
        return []
    funcs = {f.signature.name: f for f in lib.function}
    for gd in lib.gradient:
        if gd.function_name not in funcs:
            raise ValueError(f"FunctionDefLibrary missing '{gd.function_name}' FunctionDef\n{lib}")
        if gd.gradient_func not in funcs:
            raise ValueError(f"FunctionDefLibrary missing '{gd.gradient_func}' FunctionDef\n{lib}")
    func_to_grad = {gd.function_name: gd.gradient_func for gd in lib.gradient}
    grad_to_funcs = collections.defaultdict(list)
    for gd in lib.gradient:
        grad_to_funcs[gd.gradient_func].append(gd.function_name)
    ready = [f for f in lib.function if func_to_grad.get(f.signature.name) is None]
    if not ready:
        raise ValueError(f"FunctionDefLibrary contains cyclic gradient functions!\n{lib}")
    initialized = {}
    while ready:
        fdef = ready.pop()
        name = fdef.signature.name
        grad = initialized.get(func_to_grad.get(name))
        initialized[name] = _from_definition(fdef, grad)
        ready.extend(funcs[f] for f in grad_to_funcs[name])
    return initialized.values()


def _from_definition(fdef, grad_func=None, library=None):
    """A _DefinedFunction of a FunctionDef (its body rebuilt by the importer)."""
    fn = _DefinedFunction(None, [a.name for a in fdef.signature.input_arg],
                          tuple(dtypes.as_dtype(a.type) for a in fdef.signature.input_arg), fdef.signature.name,
                          grad_func, None, [a.name for a in fdef.signature.output_arg])
    fn._definition = fdef
    fn._op_def = fdef.signature
    fn._library_defs = dict(library or {})
    fn._call_opdef = _call_opdef(fn, fdef.signature, fdef.signature.is_stateful)
    return fn


def _import_call(g, functions, nd, inputs, name):
    """The call node ``nd`` of an imported GraphDef (its function from ``functions``)."""
    fn = _imported(g, functions, nd.op)
    fn.add_to_graph(g)
    attrs = {k: graph_export_value(v) for k, v in nd.attr.items() if k.startswith("_") and k != "_output_shapes"}
    attrs["_list_sizes"] = {"input": len(inputs)}
    specs = [(dtypes.as_dtype(a.type), TensorShape(None)) for a in fn._signature.output_arg]
    return g.create_op(nd.op, list(inputs), attrs, name + "/", specs, fn._call_opdef)


def _imported(g, functions, name):
    """The function ``name`` of ``g``'s library, else read from ``functions`` (with
    its gradient function, as the GraphDef's library pairs them)."""
    fn = _lookup(g, name)
    if fn is None:
        grad_name = getattr(functions, "gradients", {}).get(name)
        grad = _imported(g, functions, grad_name) if grad_name in functions else None
        fn = _from_definition(functions[name], grad, library=functions)
        fn._outer = g
    return fn


def graph_export_value(av):
    """A private attr's Python value (bool, int, float, string)."""
    kind = av.WhichOneof("value")
    return av.s.decode() if kind == "s" else getattr(av, kind) if kind in ("b", "i", "f") else av


def _lookup(g, name):
    while g is not None:
        fn = _functions_of(g).get(name)
        if fn is not None:
            return fn
        g = g.outer_graph if g._building_function else None
    return None


importer.FUNCTION_CALLS.append(_import_call)

