"""Image augmentation inside ``Dataset.map`` (the 2018 CIFAR input pipelines): random flip, brightness,
contrast and crop with op seeds, ``per_image_standardization``; a conv/pool/dense net trained by Adagrad."""
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


def build(tf):
    tf.set_random_seed(204)

    def augment(img, lab):
        img = tf.image.random_flip_left_right(img, seed=7)
        img = tf.image.random_brightness(img, 0.2, seed=8)
        img = tf.image.random_contrast(img, 0.8, 1.2, seed=9)
        img = tf.random_crop(img, [8, 8, 3], seed=10)
        img = tf.image.per_image_standardization(img)
        return img, lab

    ds = tf.data.Dataset.from_tensor_slices((IMGS, ILAB)).map(augment).batch(3).repeat()
    x, y = ds.make_one_shot_iterator().get_next()
    c = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    c = tf.layers.max_pooling2d(c, 2, 2)
    logits = tf.layers.dense(tf.layers.flatten(c), 4)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.AdagradOptimizer(0.1).minimize(loss)
    return {"loss": loss, "train": train}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
