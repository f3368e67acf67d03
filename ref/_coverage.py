"""What ``import ref as tf`` deliberately leaves out, and the AttributeError
message a miss gets (``docs/coverage.rst`` is the full list)."""

DOCS_PAGE = "docs/coverage.rst (built: coverage.html, 'What ref covers')"

# TF 1.x names ref does not provide on purpose, with what they are.
NOT_PROVIDED = {
    "contrib": "the contributed modules, removed from TensorFlow itself in 2.0",
    "estimator": "the Estimator API",
    "lite": "TensorFlow Lite",
    "autograph": "AutoGraph",
    "function": "tf.function (ref is graph mode only)",
    "xla": "XLA",
    "audio": "tf.audio",
    "profiler": "the profiler API (ref has tf.train.ProfilerHook and RunMetadata step stats)",
    "experimental": "tf.experimental",
}


def miss(namespace, name):
    """The AttributeError for ``namespace.name`` (``namespace`` like ``tf`` or ``tf.nn``)."""
    module = "ref" if namespace == "tf" else "ref." + namespace.split(".", 1)[1]
    if name.startswith("__"):
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    if namespace == "tf" and name in NOT_PROVIDED:
        what = NOT_PROVIDED[name]
        return AttributeError(f"module 'ref' has no attribute {name!r}: ref deliberately does not provide "
                              f"tf.{name} ({what}); it implements TensorFlow 1.x's graph-mode training library. "
                              f"See {DOCS_PAGE} for what is and is not covered.")
    return AttributeError(f"module {module!r} has no attribute {name!r}: ref does not implement "
                          f"{namespace}.{name}. See {DOCS_PAGE} for what is and is not covered.")
