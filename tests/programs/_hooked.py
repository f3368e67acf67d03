"""The training loop of the fourth program set (``test_tf1_user_programs2.py``):
the tutorials' loop of :func:`_corpus.simple_train` with the hooks those
programs' scripts have -- an initializer to run first (an initializable
iterator's), an op run after every step (a target-network copy, a clip of the
optimized image, the generator's step of a GAN) and an ``extra`` fetched at
the end (predictions, samples, metrics)."""
from _corpus import variable_values


def hooked_train(tf, handles, steps):
    """``handles`` as a program's ``build`` returns them: ``loss``, ``train`` and
    optionally ``feed(step)``, ``init``, ``after``, ``extra``."""
    feed = handles.get("feed", lambda step: {})
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        if handles.get("init") is not None:
            sess.run(handles["init"], feed_dict=feed(0))
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            _, loss = sess.run([handles["train"], handles["loss"]], feed_dict=feed(step))
            losses.append(float(loss))
            if handles.get("after") is not None:
                sess.run(handles["after"], feed_dict=feed(step))
        extra = sess.run(handles["extra"], feed_dict=feed(0)) if handles.get("extra") is not None else None
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": extra}
