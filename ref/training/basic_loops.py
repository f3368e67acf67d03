"""``tf.train.basic_train_loop`` (TF's API reference): "Calls
train_step_fn in a loop to train a model. The function is called as:
``train_step_fn(session, *args, **kwargs)``" inside ``supervisor.managed_session(master)``
until ``supervisor.should_stop()``; an AbortedError starts a new managed session."""
from __future__ import annotations

from ref.types import errors

__all__ = ["basic_train_loop"]


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Runs ``train_step_fn(session, *args, **kwargs)`` until the supervisor stops."""
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
