"""A tf.data image pipeline (2018 style): tf.train.Example records written
with tf.python_io.TFRecordWriter -> TFRecordDataset -> seeded shuffle ->
repeat -> batch -> parse_example -> per-image tf.image augmentation
(resize_images with preserve_aspect_ratio, resize_image_with_pad,
flip_left_right, per_image_standardization) -> prefetch, on an
initializable iterator; a small CNN (conv2d, max_pooling2d, dense) trained
by Adam."""
import os

import numpy as np

RNG = np.random.RandomState(21)
N, H, W = 32, 6, 10
IMAGES = RNG.rand(N, H, W, 1).astype(np.float32)
LABELS = (IMAGES.mean(axis=(1, 2, 3)) > 0.5).astype(np.int64) + (IMAGES[:, :, :5].mean(axis=(1, 2, 3)) > 0.5)


def _write(tf, workdir):
    files = []
    for f in range(2):
        path = os.path.join(workdir, f"images-{f}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(f * N // 2, (f + 1) * N // 2):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "image": tf.train.Feature(float_list=tf.train.FloatList(value=IMAGES[i].ravel().tolist())),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(LABELS[i])]))}))
                w.write(ex.SerializeToString())
        files.append(path)
    return files


def _augment(tf, image):
    image = tf.image.resize_images(image, [12, 12], preserve_aspect_ratio=True)
    image = tf.image.resize_image_with_pad(image, 8, 8)
    image = tf.image.flip_left_right(image)
    return tf.image.per_image_standardization(image)


def build(tf, files=("a.tfrecord", "b.tfrecord")):
    tf.set_random_seed(31)

    def parse(serialized):
        feats = tf.parse_example(serialized, {"image": tf.FixedLenFeature([H, W, 1], tf.float32),
                                              "label": tf.FixedLenFeature([], tf.int64)})
        return feats["image"], feats["label"]

    dataset = (tf.data.TFRecordDataset(list(files)).shuffle(16, seed=7).repeat().batch(4).map(parse)
               .map(lambda images, labels: (tf.map_fn(lambda im: _augment(tf, im), images), labels))
               .prefetch(2))
    iterator = dataset.make_initializable_iterator()
    images, labels = iterator.get_next()
    conv = tf.layers.conv2d(images, 4, 3, padding="same", activation=tf.nn.relu, name="conv")
    pool = tf.layers.max_pooling2d(conv, 2, 2, name="pool")
    logits = tf.layers.dense(tf.layers.flatten(pool), 3, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {"loss": loss, "train": train_op, "init": iterator.initializer}


def train(tf, steps, workdir):
    h = build(tf, _write(tf, workdir))
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), h["init"]])
        initial = {v.op.name: np.array(x) for v, x in zip(tf.global_variables(), sess.run(tf.global_variables()))}
        losses = [float(sess.run([h["train"], h["loss"]])[1]) for _ in range(steps)]
        final = {v.op.name: np.array(x) for v, x in zip(tf.global_variables(), sess.run(tf.global_variables()))}
    return {"initial": initial, "losses": losses, "final": final}
