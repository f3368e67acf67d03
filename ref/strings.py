"""``tf.strings`` (compat.v1), the part ref has: the hash buckets, ``as_string``,
``split`` (the v1 one, SparseTensor by default), ``substr``, ``regex_replace``."""
from ref.graph_ops.lookup_ops import as_string  # noqa: F401
from ref.graph_ops.lookup_ops import string_to_hash_bucket as to_hash_bucket  # noqa: F401
from ref.graph_ops.lookup_ops import string_to_hash_bucket_fast as to_hash_bucket_fast  # noqa: F401
from ref.graph_ops.lookup_ops import string_to_hash_bucket_strong as to_hash_bucket_strong  # noqa: F401
from ref.graph_ops.string_ops import regex_replace, substr  # noqa: F401
from ref.graph_ops.string_ops import strings_split_v1 as split  # noqa: F401

from ref import _coverage  # noqa: E402

__all__ = ["as_string", "to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong", "split", "substr",
           "regex_replace"]


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.strings", name)
