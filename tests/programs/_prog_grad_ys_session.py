"""An aymericdamien-era script with a default session: ``sess = tf.Session()``
then ``with sess.as_default():``, ``tf.initialize_all_variables().run()``,
``loss.eval(feed_dict=...)``, ``train_op.run(feed_dict=...)``; placeholders
of dtype ``"float"`` fed Python scalars; ``reduce_mean(..., keep_dims=True)``,
``reduction_indices=[1]``; ``tf.gradients`` with ``grad_ys`` and
``aggregation_method=EXPERIMENTAL_ACCUMULATE_N`` gated by ``tf.tuple``, ``stop_gradient`` targets, a
``tf.Print`` passthrough; the gradients applied by ``apply_gradients`` with a
``var_list`` given as a ``dict.values()`` view."""
import numpy as np

from _corpus import variable_values

R = np.random.RandomState(9)
XS = R.randn(20, 3).astype(np.float32)
YS = (XS @ np.array([[1.0], [2.0], [-1.0]], np.float32)).astype(np.float32)


def build(tf):
    tf.set_random_seed(99)
    X = tf.placeholder("float", [None, 3])
    Y = tf.placeholder("float", [None, 1])
    scale = tf.placeholder("float")
    weights = {"h": tf.Variable(tf.random_normal([3, 4]), name="h"),
               "out": tf.Variable(tf.random_normal([4, 1]), name="out")}
    biases = {"b": tf.Variable(tf.zeros([4]), name="b")}
    h = tf.nn.tanh(tf.add(tf.matmul(X, weights["h"]), biases["b"]))
    h = tf.Print(h, [tf.reduce_sum(h)], message="h sum: ", first_n=0)
    pred = tf.matmul(h, weights["out"])
    err = tf.reduce_mean(tf.square(pred - tf.stop_gradient(Y)), reduction_indices=[1], keep_dims=True)
    loss = tf.reduce_mean(err) * scale
    params = list(weights.values()) + list(biases.values())
    # tf.tuple gates the update on every gradient (ungated, TF applies ``out``'s
    # step while ``h``'s gradient still reads ``out/read``: a race in TF itself)
    grads = tf.tuple(tf.gradients(err, params, grad_ys=tf.ones_like(err) * scale / 20.0,
                                  aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N))
    opt = tf.train.GradientDescentOptimizer(learning_rate=0.05)
    train_op = opt.apply_gradients(zip(grads, params))
    other = tf.train.GradientDescentOptimizer(0.01).minimize(loss, var_list=weights.values())
    return {"X": X, "Y": Y, "scale": scale, "loss": loss, "train": train_op, "other": other, "grads": grads}


def train(tf, steps, workdir):
    h = build(tf)
    sess = tf.Session()
    with sess.as_default():
        tf.initialize_all_variables().run()
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            fd = {h["X"]: XS, h["Y"]: YS, h["scale"]: 1.5}
            losses.append(float(h["loss"].eval(feed_dict=fd)))
            h["train"].run(feed_dict=fd)
            if step % 3 == 2:
                h["other"].run(feed_dict=fd)
        extra = [g.eval(feed_dict={h["X"]: XS, h["Y"]: YS, h["scale"]: 2}) for g in h["grads"]]
        final = variable_values(tf, sess)
    sess.close()
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
