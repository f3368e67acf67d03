"""``tf.train``: optimizers, learning-rate schedules, moving averages, Saver
and checkpoints, summary writing, the global step."""
from ref.checkpoint import (NewCheckpointReader, checkpoint_exists, generate_checkpoint_state_proto,  # noqa: F401
                            get_checkpoint_mtimes, get_checkpoint_state, latest_checkpoint, list_variables,
                            load_checkpoint, load_variable, remove_checkpoint, update_checkpoint_state)
from ref.events import SummaryWriter, summary_iterator  # noqa: F401
from ref.protos.checkpoint_state_pb2 import CheckpointState  # noqa: F401
from ref.protos.saver_pb2 import SaverDef  # noqa: F401
from ref.protos.example_pb2 import Example, SequenceExample  # noqa: F401
from ref.protos.feature_pb2 import (BytesList, Feature, FeatureList, FeatureLists, Features,  # noqa: F401
                                    FloatList, Int64List)
from ref.graph_ops.training_util import (assert_global_step, create_global_step, get_global_step,  # noqa: F401
                               get_or_create_global_step, global_step)
from ref.optimizers.optimizer import Optimizer  # noqa: F401
from ref.optimizers.gradient_descent import GradientDescentOptimizer  # noqa: F401
from ref.optimizers.proximal_gradient_descent import ProximalGradientDescentOptimizer  # noqa: F401
from ref.optimizers.adagrad import AdagradOptimizer  # noqa: F401
from ref.optimizers.proximal_adagrad import ProximalAdagradOptimizer  # noqa: F401
from ref.optimizers.adagrad_da import AdagradDAOptimizer  # noqa: F401
from ref.optimizers.adadelta import AdadeltaOptimizer  # noqa: F401
from ref.optimizers.momentum import MomentumOptimizer  # noqa: F401
from ref.optimizers.adam import AdamOptimizer  # noqa: F401
from ref.optimizers.rmsprop import RMSPropOptimizer  # noqa: F401
from ref.optimizers.ftrl import FtrlOptimizer  # noqa: F401
from ref.optimizers.schedules import (cosine_decay, cosine_decay_restarts, exponential_decay,  # noqa: F401
                                      inverse_time_decay, linear_cosine_decay, natural_exp_decay,
                                      noisy_linear_cosine_decay, piecewise_constant, piecewise_constant_decay,
                                      polynomial_decay)
from ref.optimizers.moving_averages import ExponentialMovingAverage  # noqa: F401
from ref.checkpoint.saver import BaseSaverBuilder, BulkSaverBuilder, Saver  # noqa: F401
from ref.checkpoint.trackable import Checkpoint  # noqa: F401
from ref.checkpoint.checkpoint_management import (CheckpointManager, checkpoints_iterator,  # noqa: F401
                                                  wait_for_new_checkpoint)
from ref.checkpoint.meta_graph import export_meta_graph, write_graph  # noqa: F401
from ref.checkpoint.saver import import_meta_graph  # noqa: F401
from ref.checkpoint.warm_start import VocabInfo, init_from_checkpoint, warm_start  # noqa: F401
from ref.training.coordinator import Coordinator, LooperThread  # noqa: F401
from ref.training.queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: F401
from ref.training import queue_runner  # noqa: F401
from ref.training.input import *  # noqa: F401,F403
from ref.graph_ops.io_ops import match_filenames_once  # noqa: F401
from ref.distributed.cluster import ClusterSpec  # noqa: F401
from ref.distributed.server import Server  # noqa: F401
from ref.distributed.device_setter import replica_device_setter  # noqa: F401
from ref.distributed.sync_replicas import SyncReplicasOptimizer  # noqa: F401
from ref.protos.cluster_pb2 import ClusterDef, JobDef  # noqa: F401
from ref.protos.tensorflow_server_pb2 import ServerDef  # noqa: F401
from ref.training.monitored import (ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession,  # noqa: F401
                                   Scaffold, SessionCreator, SingularMonitoredSession, WorkerSessionCreator)
from ref.training.session_manager import SessionManager  # noqa: F401
from ref.training.supervisor import Supervisor  # noqa: F401
from ref.training.basic_loops import basic_train_loop  # noqa: F401
from ref.training.hooks import (CheckpointSaverHook, CheckpointSaverListener, FeedFnHook,  # noqa: F401
                               FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
                               NanLossDuringTrainingError, NanTensorHook, ProfilerHook, SecondOrStepTimer,
                               SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
                               StepCounterHook, StopAtStepHook, SummarySaverHook, SummaryWriterCache)
from ref.graph_ops.sdca_ops import sdca_fprint, sdca_optimizer, sdca_shrink_l1  # noqa: F401
from ref.training.quantize_training import do_quantize_training_on_graphdef  # noqa: F401
from ref.optimizers.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from ref.optimizers.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer
from ref.optimizers.mixed_precision import (disable_mixed_precision_graph_rewrite,
                                            enable_mixed_precision_graph_rewrite)
from types import SimpleNamespace as _Namespace

# tf.compat.v1.train.experimental: TF1's loss scaling (also tf.compat.v1.mixed_precision)
experimental = _Namespace(DynamicLossScale=DynamicLossScale, FixedLossScale=FixedLossScale, LossScale=LossScale,
                          MixedPrecisionLossScaleOptimizer=MixedPrecisionLossScaleOptimizer,
                          enable_mixed_precision_graph_rewrite=enable_mixed_precision_graph_rewrite,
                          disable_mixed_precision_graph_rewrite=disable_mixed_precision_graph_rewrite)
del DynamicLossScale, FixedLossScale, LossScale, MixedPrecisionLossScaleOptimizer
del disable_mixed_precision_graph_rewrite, enable_mixed_precision_graph_rewrite

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.train", name)
