"""``tf.image`` (TF1 names)."""
from ref.graph_ops.image_ops import *  # noqa: F401,F403
from ref.graph_ops.image_color_ops import *  # noqa: F401,F403
from ref.graph_ops.image_metrics_ops import *  # noqa: F401,F403
from ref.graph_ops import image_color_ops as _color, image_metrics_ops as _metrics, image_ops as _base

__all__ = (list(_base.__all__) + list(_color.__all__) + list(_metrics.__all__)
           + ["extract_image_patches", "extract_patches"])

from ref.graph_ops.space_depth_ops import extract_image_patches, extract_patches  # noqa: F401,E402
from ref.graph_ops.nms_ops import (combined_non_max_suppression, non_max_suppression_overlaps,  # noqa: F401,E402
                                   non_max_suppression_with_scores)

__all__ += ["combined_non_max_suppression", "non_max_suppression_overlaps", "non_max_suppression_with_scores"]

resize_with_crop_or_pad = resize_image_with_crop_or_pad  # noqa: F405  (the TF 2 name, also in compat.v1)

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.image", name)
