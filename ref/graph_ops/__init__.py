"""Layer 5, the TF1 graph builders (TF's ``python/ops``): the functions a TF1
program calls to add ops to the graph -- ``array_ops``, ``math_ops``,
``control_flow_ops``, ``nn_ops``, ``random_ops``, ``state_ops``, ... -- and the
variables built from them (``variables``, ``variable_scope``, ``init_ops``,
``partitioned``, ``training_util`` for the global step).

Some of these complete the framework from above, as TF's do: ``math_ops``
registers the Tensor operators, ``array_ops`` ``Tensor.__getitem__``,
``variable_scope`` the default variable creator. Importing any module of this
package imports them all, so those registrations are always in place.
"""
from ref.graph_ops import (control_flow_ops, array_ops, clip_ops, math_ops, state_ops, random_ops,  # noqa: F401
                           nn_ops, linalg_ops, embedding_ops, data_flow_ops, summary_ops, accumulator_ops,
                           init_ops, variables, resource_variable_ops, partitioned, variable_scope, template,
                           training_util, tensor_array_ops, functional_ops, logging_ops, check_ops, complex_ops, script_ops, io_ops,
                           defun_variables)
