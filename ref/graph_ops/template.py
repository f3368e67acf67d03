"""``tf.make_template``: a function that creates its variables on the first call
and reuses them afterwards (TF's ``template.py``).

The first call opens a fresh variable scope (unique name, or ``unique_name_``);
every later call re-enters it with ``reuse=True``, so ``tf.get_variable`` inside
the function returns the variables the first call made. A later call that
would create a new trainable variable raises ValueError.
"""
from __future__ import annotations

import functools
import traceback

from ref.framework.graph import GraphKeys, get_collection
from ref.graph_ops.variable_scope import _get_unique_variable_scope, _pure_variable_scope, variable_scope

__all__ = ["Template", "make_template"]



class Template:
    """A function that creates its variables on the first call and reuses them
    on every later call (``make_template``)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._stacktrace = traceback.format_stack()[:-2]
        if create_scope_now:
            with _pure_variable_scope(unique_name or _get_unique_variable_scope(name),
                                      custom_getter=custom_getter) as vs:
                self._variable_scope = vs
        else:
            self._variable_scope = None
        self._variables_created = False
        self._first_call = True

    name = property(lambda self: self._name)
    func = property(lambda self: self._func)
    variable_scope = property(lambda self: self._variable_scope)

    @property
    def variable_scope_name(self):
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        if not name or name[-1] == "/":
            return name
        return name + "/"

    def _collection(self, key):
        if not self._variables_created:
            return []
        return get_collection(key, self.variable_scope_name)

    @property
    def variables(self):
        return self.global_variables + self.local_variables

    trainable_variables = property(lambda self: self._collection(GraphKeys.TRAINABLE_VARIABLES))
    global_variables = property(lambda self: self._collection(GraphKeys.GLOBAL_VARIABLES))
    local_variables = property(lambda self: self._collection(GraphKeys.LOCAL_VARIABLES))

    @property
    def non_trainable_variables(self):
        trainable = set(id(v) for v in self.trainable_variables)
        return [v for v in self.global_variables if id(v) not in trainable]

    def _call_func(self, args, kwargs):
        try:
            if self._variables_created:
                trainable_at_start = len(get_collection(GraphKeys.TRAINABLE_VARIABLES))
                result = self._func(*args, **kwargs)
                trainable = get_collection(GraphKeys.TRAINABLE_VARIABLES)
                if trainable_at_start != len(trainable):
                    raise ValueError("Trainable variable created when calling a template after the first time, "
                                     "perhaps you used tf.Variable when you meant tf.get_variable: "
                                     f"{trainable[trainable_at_start:]}")
                return result
            self._first_call = False
            try:
                result = self._func(*args, **kwargs)
            except BaseException:
                self._first_call = True
                raise
            self._variables_created = True
            return result
        except Exception as exc:
            trace = "".join(self._stacktrace)
            first = exc.args[0] if exc.args else ""
            if isinstance(first, str) and "originally defined at:" not in first:
                exc.args = (f"{first}\n\noriginally defined at:\n{trace}",) + tuple(exc.args[1:])
            raise

    def __call__(self, *args, **kwargs):
        if self._variable_scope:
            with variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, self._name, custom_getter=self._custom_getter) as vs:
            self._variable_scope = vs
            return self._call_func(args, kwargs)


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """Wraps ``func_`` so that it creates variables on its first call and shares
    them afterwards (TF docs, "Variables" ``tf.make_template``); ``kwargs`` are bound to it."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)
