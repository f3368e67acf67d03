"""A queue input pipeline trained by MonitoredTrainingSession (2017 style):
tf.train.Example records in TFRecord files -> string_input_producer (files
shuffled by seed) -> TFRecordReader -> parse_single_example -> batch; a dense softmax
classifier; ExponentialMovingAverage of the weights applied after each
step; a StopAtStepHook and a hook of our own that records the loss and the
final weights; the checkpoint MonitoredTrainingSession writes is then
restored, moving averages in place of the weights, into a fresh graph.

Not shuffle_batch: TF's RandomShuffleQueue removes elements one at a time
as soon as more than min_after_dequeue are queued, so which elements a
batch draws depends on thread timing -- two TF runs of the same program
part after two steps (measured). A FIFO batch of one reader thread is
repeatable, and the file order still comes from a seeded RandomShuffle."""
import os

import numpy as np

RNG = np.random.RandomState(10)
X = RNG.rand(48, 4).astype(np.float32)
Y = (X[:, 0] * 3).astype(np.int64) % 3
BATCH, MIN_AFTER = 8, 16


def _write(tf, workdir):
    files = []
    for f in range(2):
        path = os.path.join(workdir, f"train-{f}.tfrecords")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(f * 24, f * 24 + 24):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=X[i].tolist())),
                    "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(Y[i])]))}))
                w.write(ex.SerializeToString())
        files.append(path)
    return files


def _model(tf, x):
    with tf.variable_scope("model"):
        return tf.layers.dense(x, 3, kernel_initializer=tf.glorot_uniform_initializer(), name="logits")


def build(tf, files=("a.tfrecords", "b.tfrecords")):
    tf.set_random_seed(9)
    queue = tf.train.string_input_producer(list(files), shuffle=True, seed=2)
    _, serialized = tf.TFRecordReader().read(queue)
    features = tf.parse_single_example(serialized, {"x": tf.FixedLenFeature([4], tf.float32),
                                                    "y": tf.FixedLenFeature([], tf.int64)})
    xb, yb = tf.train.batch([features["x"], features["y"]], batch_size=BATCH, capacity=MIN_AFTER + BATCH,
                            num_threads=1)
    global_step = tf.train.get_or_create_global_step()
    loss = tf.losses.sparse_softmax_cross_entropy(labels=yb, logits=_model(tf, xb))
    opt_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=global_step)
    with tf.control_dependencies([opt_op]):
        train_op = ema.apply(tf.trainable_variables())
    return {"loss": loss, "train": train_op, "ema": ema}


def train(tf, steps, workdir):
    files = _write(tf, workdir)
    h = build(tf, files)
    record = {"losses": []}

    class Recorder(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            record["initial"] = {v.op.name: np.array(x) for v, x in
                                 zip(tf.global_variables(), session.run(tf.global_variables()))}

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(h["loss"])

        def after_run(self, run_context, run_values):
            record["losses"].append(float(run_values.results))

        def end(self, session):
            record["final"] = {v.op.name: np.array(x) for v, x in
                               zip(tf.global_variables(), session.run(tf.global_variables()))}

    ckpt = os.path.join(workdir, "ckpt")
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_summaries_steps=None,
                                           save_checkpoint_secs=None, save_checkpoint_steps=steps,
                                           log_step_count_steps=None,
                                           hooks=[tf.train.StopAtStepHook(last_step=steps), Recorder()]) as sess:
        while not sess.should_stop():
            sess.run(h["train"])
    # a fresh graph: the model's variables restored from their moving averages
    with tf.Graph().as_default():
        x = tf.constant(X[:4])
        logits = _model(tf, x)
        ema = tf.train.ExponentialMovingAverage(0.9)
        saver = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as s:
            saver.restore(s, tf.train.latest_checkpoint(ckpt))
            record["final"]["restored_logits"] = s.run(logits)
    return record
