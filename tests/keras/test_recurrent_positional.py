"""``ref.keras`` recurrent layers and cells take Keras' positional parameters in
Keras' order (``LSTM(units, activation, recurrent_activation, use_bias, ...)``;
``SimpleRNN`` has no ``recurrent_activation``), checked against tf-keras's own
signatures and by building each layer positionally under both libraries."""
import inspect
import types

import pytest

from ref.keras import layers_recurrent as _under_test  # noqa: F401
import ref

CLASSES = ["LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell"]


def _tf_layers():
    """The classes ``tf.compat.v1.keras.layers`` gives with v2 behaviour disabled (tf-keras's v1
    LSTM/GRU), imported from tf-keras directly (whatever ``tf.keras`` resolved to)."""
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_keras")
    from tf_keras.src.layers.rnn import gru_v1, lstm_v1, simple_rnn

    return types.SimpleNamespace(LSTM=lstm_v1.LSTM, LSTMCell=lstm_v1.LSTMCell, GRU=gru_v1.GRU,
                                 GRUCell=gru_v1.GRUCell, SimpleRNN=simple_rnn.SimpleRNN,
                                 SimpleRNNCell=simple_rnn.SimpleRNNCell)


@pytest.mark.parametrize("name", CLASSES)
def test_positional_order_is_keras(name):
    tk = getattr(_tf_layers(), name)
    params = [p.name for p in inspect.signature(tk.__init__).parameters.values()
              if p.kind == p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "units")]
    assert list(getattr(ref.keras.layers, name)._POSITIONAL) == params


# (class, positional arguments after units, attributes to compare)
BUILT = [
    ("LSTM", ("relu", "sigmoid", False), ("activation", "recurrent_activation", "use_bias")),
    ("GRU", ("relu", "sigmoid", False), ("activation", "recurrent_activation", "use_bias")),
    ("SimpleRNN", ("relu", False), ("activation", "use_bias")),
    ("SimpleRNNCell", ("relu", False), ("activation", "use_bias")),
    ("LSTMCell", ("relu", "tanh", True, "zeros"), ("activation", "recurrent_activation", "use_bias")),
]


@pytest.mark.parametrize("name, args, attrs", BUILT, ids=[b[0] for b in BUILT])
def test_positional_arguments_land_where_keras_puts_them(name, args, attrs):
    tk = _tf_layers()
    theirs = getattr(tk, name)(3, *args)
    ours = getattr(ref.keras.layers, name)(3, *args)
    t_cell, r_cell = getattr(theirs, "cell", theirs), getattr(ours, "cell", ours)
    for a in attrs:
        tv, rv = getattr(t_cell, a), getattr(r_cell, a)
        if callable(tv):
            assert tv.__name__ == rv.__name__, a
        else:
            assert tv == rv, a


def test_one_argument_twice_is_a_type_error():
    with pytest.raises(TypeError, match="multiple values for argument 'activation'"):
        ref.keras.layers.LSTM(3, "relu", activation="tanh")
