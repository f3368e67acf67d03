"""``tf.strings.unicode_*`` and ``bytes_split`` against TensorFlow: the same
ragged values (as lists) from ref's graphs and TF's, for valid and ill-formed
UTF-8 / UTF-16-BE / UTF-32-BE under each ``errors`` mode, and TF's error kinds."""
import numpy as np
import pytest

import ref
from ref.graph_ops import ragged_string_ops as _under_test  # noqa: F401

WORDS = [b"hello", "h\u00e9llo w\u00f6rld".encode(), "\u4f60\u597d\U0001f600".encode(), b""]
BAD = [b"ab\xffcd", b"\xe4\xbd", b"x\xf0\x9f\x98", b"\xc3\x28\x01z"]
GRID = [[b"ab", "\u00e9".encode()], [b"\xff", b""]]


def _decode(lib, strings, **kw):
    return lib.strings.unicode_decode(strings, "UTF-8", **kw)


ROWS = {
    "decode": lambda lib: _decode(lib, WORDS),
    "decode_scalar": lambda lib: _decode(lib, WORDS[1]),
    "decode_grid": lambda lib: _decode(lib, GRID),
    "decode_replace": lambda lib: _decode(lib, BAD),
    "decode_ignore": lambda lib: _decode(lib, BAD, errors="ignore"),
    "decode_control": lambda lib: _decode(lib, BAD, replacement_char=63, replace_control_characters=True),
    "decode_offsets": lambda lib: list(lib.strings.unicode_decode_with_offsets(WORDS + BAD, "UTF-8")),
    "decode_utf16": lambda lib: lib.strings.unicode_decode(
        ["a\u00e9\U0001f600".encode("utf-16-be"), b"\xd8\x00\x00a"], "UTF-16-BE"),
    "decode_utf32": lambda lib: lib.strings.unicode_decode(["a\u4f60".encode("utf-32-be")], "UTF-32-BE"),
    "split": lambda lib: lib.strings.unicode_split(WORDS + BAD, "UTF-8"),
    "split_offsets": lambda lib: list(lib.strings.unicode_split_with_offsets(GRID, "UTF-8")),
    "encode_vector": lambda lib: lib.strings.unicode_encode([104, 233, 0x1F600, -5, 0xD800], "UTF-8"),
    "encode_matrix": lambda lib: lib.strings.unicode_encode([[104, 105], [20320, 22909]], "UTF-16-BE"),
    "encode_ragged": lambda lib: lib.strings.unicode_encode(
        lib.ragged.constant([[104, 105], [], [0x110000, 65]]), "UTF-8", errors="ignore"),
    "encode_3d": lambda lib: lib.strings.unicode_encode(np.full((2, 2, 3), 97, np.int32), "UTF-32-BE"),
    "roundtrip": lambda lib: lib.strings.unicode_encode(_decode(lib, WORDS), "UTF-8"),
    "transcode": lambda lib: lib.strings.unicode_transcode(WORDS + BAD, "UTF-8", "UTF-16-BE"),
    "transcode_grid": lambda lib: lib.strings.unicode_transcode(GRID, "UTF-8", "UTF-8", errors="ignore"),
    "bytes_split": lambda lib: lib.strings.bytes_split(WORDS),
    "bytes_split_grid": lambda lib: lib.strings.bytes_split(GRID),
    "bytes_split_scalar": lambda lib: lib.strings.bytes_split(b"abc"),
    "ngrams": lambda lib: lib.strings.ngrams(["a", "b", "c", "d"], 2),
    "ngrams_padded": lambda lib: lib.strings.ngrams(lib.ragged.constant([["a", "b", "c"], [], ["x"]]), [1, 3],
                                                    separator="_", pad_values=("<", ">")),
    "ngrams_width_pad": lambda lib: lib.strings.ngrams(lib.ragged.constant([["a", "b", "c"], ["x"]]), 2,
                                                       pad_values="#", padding_width=1),
    "ngrams_short": lambda lib: lib.strings.ngrams(lib.ragged.constant([["a", "b"], ["x"], []]), 3,
                                                   pad_values="#", padding_width=1, preserve_short_sequences=True),
    "ngrams_dense": lambda lib: lib.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2),
    "segment_join": lambda lib: lib.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 1], 3,
                                                                  separator=","),
    "segment_join_2d": lambda lib: lib.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [0, 0], 1),
}


def _as_list(v):
    if hasattr(v, "to_list"):
        return v.to_list()
    return np.asarray(v).tolist()


def _run(lib, build):
    import _graphdef
    is_tf = not lib.__name__.startswith("ref")
    ctx = _graphdef.tf1_behaviour() if is_tf else _graphdef.contextlib.nullcontext()
    with ctx, lib.Graph().as_default():
        out = build(lib)
        with lib.Session() as s:
            got = s.run(out)
    return [_as_list(g) for g in got] if isinstance(out, list) else _as_list(got)


@pytest.mark.parametrize("row", sorted(ROWS))
def test_values_as_tf(row):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    assert _run(ref, ROWS[row]) == _run(tf1, ROWS[row])


ERROR_ROWS = {
    "strict_decode": (lambda lib: _decode(lib, BAD, errors="strict"), ref.errors.InvalidArgumentError),
    "strict_encode": (lambda lib: lib.strings.unicode_encode([1, -1], "UTF-8", errors="strict"),
                      ref.errors.InvalidArgumentError),
    "unknown_encoding": (lambda lib: lib.strings.unicode_transcode(["a"], "NO-SUCH-CODEC-9", "UTF-8"), Exception),
    "encode_scalar": (lambda lib: lib.strings.unicode_encode(5, "UTF-8"), ValueError),
}


@pytest.mark.parametrize("row", sorted(ERROR_ROWS))
def test_errors_as_tf(row):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    build, kind = ERROR_ROWS[row]
    for lib in (ref, tf1):
        err = getattr(tf1.errors, kind.__name__) if lib is tf1 and kind is not Exception and \
            issubclass(kind, ref.errors.OpError) else kind
        with pytest.raises(err):
            _run(lib, build)


# GraphDef identity (``_graphdef.py``) for the builders that follow TF's graph.
# Values only: unicode_split (its per-character encode is built differently),
# and every row through ref's RaggedTensor.from_tensor / from_value_rowids, whose
# graphs are not TF's yet (ref/graph_ops/ragged_tensor.py: decode_grid,
# encode_matrix, encode_3d, bytes_split*; ngrams of a vector through from_row_starts).
GRAPH_ROWS = ["decode", "decode_scalar", "decode_offsets", "encode_vector", "encode_ragged", "roundtrip",
              "transcode", "ngrams_padded", "ngrams_short", "segment_join", "segment_join_2d"]


@pytest.mark.parametrize("row", GRAPH_ROWS)
def test_same_graph_as_tf(row):
    from _graphdef import assert_same_graph
    assert_same_graph(lambda lib: [ROWS[row](lib)] and None)
