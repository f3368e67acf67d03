"""``ref.compat.v1`` is the TF 1.x namespace itself (``import ref as tf``); ``ref/__init__`` binds it."""
