"""A CIFAR-style input pipeline end to end: fixed-length binary records (a
label byte then a 3x8x8 uint8 image) -> string_input_producer ->
FixedLengthRecordReader -> decode_raw -> reshape/cast -> shuffle_batch -> a
linear model trained by MonitoredTrainingSession with StopAtStepHook."""
import numpy as np
import pytest

import ref as tf

RECORD = 1 + 3 * 8 * 8


def _write(tmp_path, n_files=2, per_file=40, seed=0):
    """Label k in {0, 1}; the image's mean brightness tells the label apart."""
    rng = np.random.RandomState(seed)
    paths, records = [], []
    for f in range(n_files):
        blob = bytearray()
        for _ in range(per_file):
            label = rng.randint(2)
            image = rng.randint(0, 100, size=3 * 8 * 8) + 120 * label
            rec = bytes([label]) + image.astype(np.uint8).tobytes()
            records.append(rec)
            blob += rec
        p = tmp_path / f"data_batch_{f}.bin"
        p.write_bytes(bytes(blob))
        paths.append(str(p))
    return paths, records


def _decoded(value):
    raw = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(raw, [0], [1]), tf.int32)
    depth_major = tf.reshape(tf.strided_slice(raw, [1], [RECORD]), [3, 8, 8])
    image = tf.cast(tf.transpose(depth_major, [1, 2, 0]), tf.float32) / 255.0
    return tf.reshape(label, []), image


def test_records_decode_in_file_order(tmp_path):
    paths, records = _write(tmp_path)
    with tf.Graph().as_default(), tf.Session() as s:
        q = tf.train.string_input_producer(paths, shuffle=False, num_epochs=1)
        key, value = tf.FixedLengthRecordReader(record_bytes=RECORD).read(q)
        label, image = _decoded(value)
        s.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(s, coord)
        got = []
        try:
            while True:
                got.append(s.run([key, label, image]))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    assert [k for k, _, _ in got] == [f"{p}:{i}".encode() for p in paths for i in range(40)]
    for (_, lab, img), rec in zip(got, records):
        assert lab == rec[0]
        want = np.frombuffer(rec[1:], np.uint8).reshape(3, 8, 8).transpose(1, 2, 0) / np.float32(255)
        np.testing.assert_allclose(img, want, rtol=1e-6)


def test_training_loss_falls(tmp_path):
    paths, _ = _write(tmp_path)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        q = tf.train.string_input_producer(paths, seed=3)
        _, value = tf.FixedLengthRecordReader(record_bytes=RECORD).read(q)
        label, image = _decoded(value)
        images, labels = tf.train.shuffle_batch([image, label], batch_size=16, capacity=64, min_after_dequeue=16,
                                                seed=5)
        w = tf.get_variable("w", [8 * 8 * 3, 2], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.reshape(images, [16, -1]), w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        losses = []
        with tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(last_step=60)]) as sess:
            while not sess.should_stop():
                losses.append(sess.run([train, loss])[1])
    assert len(losses) == 60
    assert np.mean(losses[-10:]) < 0.6 * losses[0]  # starts at log(2); the classes separate easily
