"""Process plumbing every TF1 script uses: ``tf.logging``, ``tf.flags`` /
``tf.app``, ``tf.gfile`` and ``tf.compat``'s string helpers (TF's
``python/platform`` and ``python/util/compat``). Pure Python, no ``ref``
imports above the value types."""
