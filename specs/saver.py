"""The Saver's checkpoint-keeping rules (ref/checkpoint/saver.py,
``Saver._RecordLastCheckpoint`` / ``_MaybeDeleteOldCheckpoints``).

No formula, so no oracle: tests/checkpoint/test_saver.py checks the rules row
by row (max_to_keep 5 / 2 / 1 / 0 / None; keep_checkpoint_every_n_hours tiny
and default) against the files left on disk and the ``checkpoint`` state file.
"""
from specs.card import SpecCard

_DEFAULTS = {"var_list": None, "reshape": False, "sharded": False, "max_to_keep": 5,
             "keep_checkpoint_every_n_hours": 10000.0, "name": None, "restore_sequentially": False,
             "saver_def": None, "builder": None, "defer_build": False, "allow_empty": False, "write_version": 2,
             "pad_step_number": False, "save_relative_paths": False, "filename": None}

CARD = SpecCard(
    name="Saver.max_to_keep",
    seed="003_d053aea9ab04ac36.txt",
    section="class tf.train.Saver",
    quote="max_to_keep indicates the maximum number of recent checkpoint files to keep. As new files are "
          "created, older files are deleted. If None or 0, all checkpoint files are kept. Defaults to 5 (that "
          "is, the 5 most recent checkpoint files are kept.)",
    target="ref.checkpoint.saver.Saver.__init__",
    defaults=_DEFAULTS,
    notes="A checkpoint saved again under the same path moves to the newest position instead of counting "
          "twice (TF's _RecordLastCheckpoint). With 0 or None the state file lists only the latest checkpoint "
          "and nothing is deleted. Deletion runs after the state file is written, so the state file never "
          "names a deleted checkpoint.",
)

CARDS = [SpecCard(
    name="Saver.keep_checkpoint_every_n_hours",
    seed="003_d053aea9ab04ac36.txt",
    section="class tf.train.Saver",
    quote="ensures that you keep one checkpoint file for every 2 hours of training. The default value of "
          "10,000 hours effectively disables the feature.",
    target="ref.checkpoint.saver.Saver.__init__",
    defaults={"keep_checkpoint_every_n_hours": 10000.0},
    notes="TF's rule, kept exactly: the first mark is build time + N hours; a checkpoint pushed out of "
          "max_to_keep whose save time is after the mark is kept for good (never listed again) and the mark "
          "moves N hours on; otherwise it is deleted. set_last_checkpoints gives its paths timestamp +inf, "
          "so they are kept when pushed out.",
)]
