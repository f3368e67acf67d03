"""TFRecord input (the 2018 'Importing Data' guide's style): tf.train.Example records written by
``tf.python_io.TFRecordWriter``, ``TFRecordDataset`` mapped by ``parse_single_example`` (FixedLenFeature
float/int64/string with a default) with ``num_parallel_calls``, batch, repeat, a one-shot iterator and a
softmax layer trained by SGD."""
import os
import tempfile
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(51)
FEAT = R.rand(12, 4).astype(np.float32)
LABS = R.randint(0, 3, 12).astype(np.int64)
TEXT = ["the cat sat on the mat", "a dog", "dogs and cats are friends", "hello world again",
        "tensorflow graphs", "the end of the line is near"]
TLAB = np.array([0, 1, 1, 0, 1, 0], np.int64)
IMGS = R.rand(6, 10, 10, 3).astype(np.float32)
ILAB = R.randint(0, 4, 6).astype(np.int32)


def _write_records(tf, path):
    with tf.python_io.TFRecordWriter(path) as w:
        for f, l in zip(FEAT, LABS):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=f.tolist())),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(l)])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"rec"]))}))
            w.write(ex.SerializeToString())


def build(tf):
    tf.set_random_seed(201)
    path = os.path.join(tempfile.gettempdir(), "tf1_programs3_%d.tfrecord" % os.getpid())
    _write_records(tf, path)

    def parse(serialized):
        feats = tf.parse_single_example(serialized, features={
            "x": tf.FixedLenFeature([4], tf.float32),
            "y": tf.FixedLenFeature([], tf.int64),
            "name": tf.FixedLenFeature([], tf.string, default_value="")})
        return feats["x"], tf.cast(feats["y"], tf.int32)

    ds = tf.data.TFRecordDataset([path]).map(parse, num_parallel_calls=2).batch(4).repeat()
    x, y = ds.make_one_shot_iterator().get_next()
    logits = tf.layers.dense(x, 3, name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return {"loss": loss, "train": train}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
