"""``tf.graph_util`` (TF1): GraphDef helpers."""
from ref.framework.graph_util_impl import (convert_variables_to_constants, extract_sub_graph,  # noqa: F401
                                           must_run_on_cpu, remove_training_nodes, tensor_shape_from_node_def_name)
from ref.framework.importer import import_graph_def

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "import_graph_def", "must_run_on_cpu",
           "remove_training_nodes", "tensor_shape_from_node_def_name"]
