"""``tf.train``: optimizers, learning-rate schedules, moving averages, Saver
and checkpoints, summary writing, the global step."""
from ref.checkpoint import (NewCheckpointReader, checkpoint_exists, generate_checkpoint_state_proto,  # noqa: F401
                            get_checkpoint_mtimes, get_checkpoint_state, latest_checkpoint, list_variables,
                            load_checkpoint, load_variable, remove_checkpoint, update_checkpoint_state)
from ref.events import SummaryWriter, summary_iterator  # noqa: F401
from ref.protos.checkpoint_state_pb2 import CheckpointState  # noqa: F401
from ref.protos.saver_pb2 import SaverDef  # noqa: F401
from ref.training_util import (assert_global_step, create_global_step, get_global_step,  # noqa: F401
                               get_or_create_global_step, global_step)
