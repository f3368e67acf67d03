"""Layer 4, the graph, along TensorFlow's own file boundaries:

* ``graph`` (TF's ``ops.py``): ``Graph``/``Operation``, scopes, collections,
  the default graph, proto-function registration, name-scope helpers;
  ``tensor`` (``Tensor``), ``indexed_slices``, ``stack`` (the default session);
* ``op_def_library``: the graph builder ``apply_op`` and tensor conversion
  (``convert_to_tensor``, its registry, ``constant``);
* ``tensor_util``: constant folding (``constant_value``);
* ``random_seed``: graph- and op-level seeds;
* ``graph_export`` (attaches ``Graph.as_graph_def`` and ``Operation.node_def``)
  and ``importer`` (``import_graph_def``);
* ``func_graph``, ``sparse_tensor``.

Importing any module of this package imports all of them, so a Graph always has
its GraphDef methods. Nothing here imports the layers above: Tensor operators,
``__getitem__``, ``eval``'s session are registered from above, as TF's
``framework/ops.py`` is completed by ``math_ops`` and ``session.py``.
"""
from ref.framework import (  # noqa: F401
    graph, tensor_util, op_def_library, random_seed, func_graph, graph_export, importer, sparse_tensor, graph_to_function_def, function)
