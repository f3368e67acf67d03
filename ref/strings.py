"""``tf.strings`` (compat.v1), the part ref has: the hash buckets, ``as_string``,
``split`` (the v1 one, SparseTensor by default), ``substr``, ``regex_replace``,
``to_number``, ``length``, ``lower``, ``upper``, ``strip``, ``join``,
``reduce_join``, ``regex_full_match``, ``format``; ``bytes_split`` and the Unicode
functions (``unicode_decode``, ``unicode_encode``, ``unicode_split``, ``unicode_transcode``)."""
from ref.graph_ops.lookup_ops import as_string  # noqa: F401
from ref.graph_ops.lookup_ops import string_to_hash_bucket as to_hash_bucket  # noqa: F401
from ref.graph_ops.lookup_ops import string_to_hash_bucket_fast as to_hash_bucket_fast  # noqa: F401
from ref.graph_ops.lookup_ops import string_to_hash_bucket_strong as to_hash_bucket_strong  # noqa: F401
from ref.graph_ops.string_ops import regex_replace, substr  # noqa: F401
from ref.graph_ops.string_ops import strings_split_v1 as split  # noqa: F401
from ref.graph_ops.string_ops import reduce_join, regex_full_match  # noqa: F401
from ref.graph_ops.string_ops import string_format as format  # noqa: F401,A001  (TF's name)
from ref.graph_ops.string_ops import string_join as join  # noqa: F401
from ref.graph_ops.string_ops import string_length as length  # noqa: F401
from ref.graph_ops.string_ops import string_lower as lower  # noqa: F401
from ref.graph_ops.string_ops import string_strip as strip  # noqa: F401
from ref.graph_ops.string_ops import string_upper as upper  # noqa: F401
from ref.graph_ops.parsing_ops import string_to_number as to_number  # noqa: F401
from ref.graph_ops.ragged_string_ops import (bytes_split, unicode_decode, unicode_decode_with_offsets,  # noqa: F401
                                             unicode_encode, unicode_split, unicode_split_with_offsets,
                                             unicode_transcode, ngrams, unsorted_segment_join)

from ref import _coverage  # noqa: E402

__all__ = ["as_string", "to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong", "split", "substr",
           "regex_replace", "reduce_join", "regex_full_match", "format", "join", "length", "lower", "strip", "upper",
           "to_number", "bytes_split", "unicode_decode", "unicode_decode_with_offsets", "unicode_encode", "unicode_split",
           "unicode_split_with_offsets", "unicode_transcode", "ngrams", "unsorted_segment_join"]


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.strings", name)
