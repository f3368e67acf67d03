"""``tf.summary`` (TF 1.x): summary ops, FileWriter, and the summary protos."""
from ref.graph_ops.summary_ops import (audio, histogram, image, merge, merge_all, scalar,  # noqa: F401
                                 tensor_summary, text)
from ref.events import FileWriter, FileWriterCache, summary_iterator  # noqa: F401
from ref.protos.event_pb2 import Event, SessionLog, TaggedRunMetadata  # noqa: F401
from ref.protos.summary_pb2 import Summary, SummaryDescription, SummaryMetadata  # noqa: F401
from google.protobuf import json_format


def get_summary_description(node_def):
    """The SummaryDescription stored in a TensorSummary node's ``description`` attr."""
    if node_def.op != "TensorSummary":
        raise ValueError("Can't get_summary_description on %s" % node_def.op)
    desc = SummaryDescription()
    json_format.Parse(node_def.attr["description"].s.decode() or "{}", desc)
    return desc


__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge", "merge_all",
           "FileWriter", "FileWriterCache", "summary_iterator", "Event", "SessionLog", "TaggedRunMetadata",
           "Summary", "SummaryDescription", "SummaryMetadata", "get_summary_description"]
