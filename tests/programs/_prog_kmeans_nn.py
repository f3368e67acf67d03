"""Two classic non-gradient programs (2016 "TensorFlow-Examples" / blog
style). Nearest neighbour: L1 distance with ``tf.add(xtr,
tf.negative(xte))``, ``reduce_sum(..., reduction_indices=1)``,
``tf.arg_min``, one test point fed per ``sess.run``. K-means: initial
centroids ``tf.slice(tf.random_shuffle(points), [0, 0], [K, -1])`` in a
Variable, assignments by ``argmin`` of ``reduce_sum(tf.square(expand_dims
differences), 2)``, new means by ``unsorted_segment_sum`` over
``unsorted_segment_sum`` of ones, updated with ``tf.assign``; the "loss" is
the summed squared distance to the assigned centroid."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(121)
CENTERS = np.array([[0, 0], [3, 3], [-3, 3], [0, -4]], dtype=np.float32)
POINTS = (CENTERS[RNG.randint(4, size=80)] + RNG.randn(80, 2)).astype(np.float32)
TEST = (CENTERS[RNG.randint(4, size=10)] + RNG.randn(10, 2)).astype(np.float32)
K = 4


def build(tf):
    tf.set_random_seed(122)
    xtr = tf.placeholder("float", [None, 2])
    xte = tf.placeholder("float", [2])
    distance = tf.reduce_sum(tf.abs(tf.add(xtr, tf.negative(xte))), reduction_indices=1)
    pred = tf.arg_min(distance, 0)
    points = tf.constant(POINTS)
    centroids = tf.Variable(tf.slice(tf.random_shuffle(points), [0, 0], [K, -1]), name="centroids")
    expanded_vectors = tf.expand_dims(points, 0)
    expanded_centroids = tf.expand_dims(centroids, 1)
    distances = tf.reduce_sum(tf.square(tf.subtract(expanded_vectors, expanded_centroids)), 2)
    assignments = tf.argmin(distances, 0)
    loss = tf.reduce_sum(tf.reduce_min(distances, 0))
    sums = tf.unsorted_segment_sum(points, assignments, K)
    counts = tf.unsorted_segment_sum(tf.ones_like(points), assignments, K)
    means = sums / tf.maximum(counts, 1.0)
    update_centroids = tf.assign(centroids, means)
    return {"xtr": xtr, "xte": xte, "pred": pred, "loss": loss, "train": update_centroids,
            "assignments": assignments}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        nearest = [int(sess.run(h["pred"], feed_dict={h["xtr"]: POINTS, h["xte"]: TEST[i]}))
                   for i in range(len(TEST))]
        losses = []
        for _ in range(steps):
            loss, _ = sess.run([h["loss"], h["train"]])
            losses.append(float(loss))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [nearest, sess.run(h["assignments"]).tolist()]}
