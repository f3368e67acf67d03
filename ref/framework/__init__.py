"""Layer 4, the graph: ``Graph``/``Operation``/``Tensor``, scopes, collections,
the default graph and default session stacks, proto-function registration,
function graphs (``func_graph``) and GraphDef import/export (``graph_io``, which
attaches ``Graph.as_graph_def`` and ``Operation.node_def``).

Importing any module of this package imports all three, so a Graph always has
its GraphDef methods. Nothing here imports the layers above: Tensor operators,
``__getitem__``, ``eval``'s session are registered from above, as TF's
``framework/ops.py`` is completed by ``math_ops`` and ``session.py``.
"""
from ref.framework import graph, func_graph, graph_io, sparse_tensor  # noqa: F401
