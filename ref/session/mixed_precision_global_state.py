"""Process-wide flags of TF1's mixed precision graph rewrite (TF's
``mixed_precision_global_state``): whether the rewrite is enabled, whether a
Session was created while it was not (``enable_mixed_precision_graph_rewrite``
warns that such Sessions are unaffected), and whether a Keras mixed precision
policy is in use (the two APIs exclude each other). Sessions set the second
flag when they are created, hence this module sits with the Session."""
from __future__ import annotations

_FLAGS = {"graph_rewrite_enabled": False, "non_mixed_precision_session_created": False,
          "using_mixed_precision_policy": False}


def is_mixed_precision_graph_rewrite_enabled() -> bool:
    return _FLAGS["graph_rewrite_enabled"]


def set_mixed_precision_graph_rewrite_enabled(enabled) -> None:
    _FLAGS["graph_rewrite_enabled"] = bool(enabled)


def non_mixed_precision_session_created() -> bool:
    return _FLAGS["non_mixed_precision_session_created"]


def set_non_mixed_precision_session_created(created) -> None:
    _FLAGS["non_mixed_precision_session_created"] = bool(created)


def is_using_mixed_precision_policy() -> bool:
    return _FLAGS["using_mixed_precision_policy"]


def set_using_mixed_precision_policy(is_using) -> None:
    _FLAGS["using_mixed_precision_policy"] = bool(is_using)
