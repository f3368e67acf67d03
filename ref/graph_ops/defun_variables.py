"""Variables of a TF1 ``Defun`` body (TF's ``_FuncGraph.getvar``): registered
with :mod:`ref.framework.function`, entered while a body is traced.

A variable the body asks for is made in the graph the function is defined in
(named in the variable scope of the caller) and recorded in the body's
``extra_vars`` (``function.get_extra_vars()``); the body reads it through a
captured argument: a reference variable itself, a resource variable's value
(``capture_resource_var_by_value``, TF's default).
"""
from __future__ import annotations

from ref.framework import function
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variable_scope import get_variable_scope, variable_scope

__all__ = []


def _body_variable_scope(fg):
    def getvar(getter, name, *args, **kwargs):
        outer = fg.outer_graph
        with outer.as_default(), outer.name_scope(None):  # the variable's own name is its full name
            var = getter(name, *args, **kwargs)
            fg.extra_vars.append(var)
            if isinstance(var, ResourceVariable) and fg.capture_resource_var_by_value:
                return var.value()
        return var

    # the scope in force (the graph's variable scopes are the defining graph's), with the getter
    return variable_scope(get_variable_scope(), custom_getter=getvar, auxiliary_name_scope=False)


function.TRACE_SCOPES.append(_body_variable_scope)
