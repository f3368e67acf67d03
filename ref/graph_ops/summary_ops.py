"""TF1 summary functions: graph ops producing serialized ``Summary`` protos,
collected in ``GraphKeys.SUMMARIES`` (seed: "Summary Operations").

The 1.x names (``tf.summary.scalar``...) derive the tag from the op's
de-duplicated name scope, as TF's ``summary_scope`` does; the 0.x names
(``tf.scalar_summary``...) take the tag verbatim.
"""
from __future__ import annotations

import re

from ref.types import dtypes
from ref.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.protos import summary_pb2

__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge", "merge_all",
           "scalar_summary", "histogram_summary", "image_summary", "audio_summary", "merge_summary",
           "merge_all_summaries"]

_INVALID_TAG = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    if name is None:
        return None
    return _INVALID_TAG.sub("_", name).lstrip("/")  # "" stays "": the root scope, as TF's clean_tag


class _summary_scope:
    """(tag, scope) for a summary op: tag = the unique name scope, prefixed by family."""

    def __init__(self, name, family=None, default_name=None, values=None):
        self.name = _clean_tag(name)
        self.family = _clean_tag(family)
        base = self.name if self.family is None else f"{self.family}/{self.name}"
        self._cm = name_scope(base, default_name, values)

    def __enter__(self):
        scope = self._cm.__enter__()
        tag = scope.rstrip("/")
        if self.family is not None:
            tag = f"{self.family}/{tag}"
        return tag, scope

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _collect(op, collections, default=(GraphKeys.SUMMARIES,)):
    for key in (collections if collections is not None else default):
        add_to_collection(key, op)
    return op


def scalar(name, tensor, collections=None, family=None):
    """A summary with one scalar value (``tf.summary.scalar``)."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ScalarSummary", tags=tag, values=tensor, name=scope)
    return _collect(val, collections)


def histogram(name, values, collections=None, family=None):
    """A histogram of ``values`` with TF's default buckets (``tf.summary.histogram``)."""
    with _summary_scope(name, family, values=[values], default_name="HistogramSummary") as (tag, scope):
        val = apply_op("HistogramSummary", tag=tag, values=values, name=scope)
    return _collect(val, collections)


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """Up to ``max_outputs`` images of a [batch, h, w, c] tensor (``tf.summary.image``)."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ImageSummary", tag=tag, tensor=tensor, max_images=max_outputs, name=scope)
    return _collect(val, collections)


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """Up to ``max_outputs`` clips of a [batch, frames(, channels)] tensor (``tf.summary.audio``)."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        val = apply_op("AudioSummaryV2", tag=tag, tensor=tensor, sample_rate=rate,
                       max_outputs=max_outputs, name=scope)
    return _collect(val, collections)


def _plugin_metadata(plugin_name, content=b"", display_name=None, description=None):
    md = summary_pb2.SummaryMetadata()
    md.plugin_data.plugin_name = plugin_name
    md.plugin_data.content = content
    if display_name:
        md.display_name = display_name
    if description:
        md.summary_description = description
    return md.SerializeToString()


def text(name, tensor, collections=None):
    """A string tensor shown by TensorBoard's text plugin (``tf.summary.text``)."""
    if getattr(tensor, "dtype", None) is not None and tensor.dtype.base_dtype != dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got <dtype: '{tensor.dtype.name}'>")
    return tensor_summary(name, tensor, summary_metadata=_plugin_metadata("text"), collections=collections)


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None,
                   family=None, display_name=None):
    """A summary holding a whole tensor (``tf.summary.tensor_summary``)."""
    if isinstance(summary_metadata, bytes):
        metadata = summary_pb2.SummaryMetadata.FromString(summary_metadata)
    else:
        metadata = summary_pb2.SummaryMetadata()
        if summary_metadata is not None:
            metadata.CopyFrom(summary_metadata)
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    serialized = metadata.SerializeToString()
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("TensorSummaryV2", tag=tag, tensor=tensor,
                       serialized_summary_metadata=serialized, name=scope)
    return _collect(val, collections)


def merge(inputs, collections=None, name=None):
    """The union of several summaries (``tf.summary.merge``); duplicate tags fail at run time.

    Raises:
      ValueError: if ``inputs`` is empty (MergeSummary takes at least one input)."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("List argument 'inputs' to 'MergeSummary' Op with length 0 shorter than minimum "
                         "length 1.")
    name = _clean_tag(name)
    with name_scope(name, "Merge", inputs):
        val = apply_op("MergeSummary", inputs=list(inputs), name=name or "MergeSummary")
    return _collect(val, collections, default=())


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """Merges every summary in collection ``key``; None when there are none."""
    summaries = get_collection(key, scope=scope)
    if not summaries:
        return None
    return merge(summaries, name=name)


# -- the 0.x names (tags taken verbatim) ------------------------------------------

def scalar_summary(tags, values, collections=None, name=None):
    """``tf.scalar_summary``: one value per tag (tags and values of the same shape)."""
    val = apply_op("ScalarSummary", tags=tags, values=values, name=name or "ScalarSummary")
    return _collect(val, collections)


def histogram_summary(tag, values, collections=None, name=None):
    val = apply_op("HistogramSummary", tag=tag, values=values, name=name or "HistogramSummary")
    return _collect(val, collections)


def image_summary(tag, tensor, max_images=3, collections=None, name=None):
    val = apply_op("ImageSummary", tag=tag, tensor=tensor, max_images=max_images, name=name or "ImageSummary")
    return _collect(val, collections)


def audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None):
    rate = constant(sample_rate, dtype=dtypes.float32) if not hasattr(sample_rate, "op") else sample_rate
    val = apply_op("AudioSummaryV2", tag=tag, tensor=tensor, sample_rate=rate, max_outputs=max_outputs,
                   name=name or "AudioSummary")
    return _collect(val, collections)


def merge_summary(inputs, collections=None, name=None):
    val = apply_op("MergeSummary", inputs=list(inputs), name=name or "MergeSummary")
    return _collect(val, collections, default=())


def merge_all_summaries(key=GraphKeys.SUMMARIES):
    summaries = get_collection(key)
    if not summaries:
        return None
    return merge_summary(summaries)
