"""TensorFlow's GraphDef version numbers (TF 2.21's ``core/public/version.h``).

``GRAPH_DEF_VERSION`` is the producer version written into every GraphDef;
``import_graph_def`` refuses a GraphDef whose producer is below
``GRAPH_DEF_VERSION_MIN_PRODUCER``, whose ``min_consumer`` is above
``GRAPH_DEF_VERSION`` or whose ``bad_consumers`` name it.
"""

GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
CHECKPOINT_VERSION = 1
CHECKPOINT_VERSION_MIN_CONSUMER = 0
CHECKPOINT_VERSION_MIN_PRODUCER = 0
TF_VERSION = "2.21.0"
