"""openspore.train.callback (also re-exported by `openspore.train`): training callbacks (facts §1.14)."""
from ._callback import Callback, RunContext, CallbackList, InternalCallbackParam
from ._loss_monitor import LossMonitor
from ._time_monitor import TimeMonitor
from ._checkpoint import CheckpointConfig, ModelCheckpoint
from ._early_stop import EarlyStopping
from ._reduce_lr_on_plateau import ReduceLROnPlateau
from ._lambda_callback import LambdaCallback
from ._history import History
from ._lr_scheduler_callback import LearningRateScheduler
from ._progress import ProgressBar
from ._summary_collector import SummaryCollector
from ._on_request_exit import OnRequestExit, BackupAndRestore
from ._flops_collector import FlopsUtilizationCollector
from ._train_fault_tolerance import TrainFaultTolerance

from ._checkpoint_manager import (_CheckpointManager, _chg_ckpt_file_name_if_same_exist,  # noqa: F401
                                  _set_cur_net, _checkpoint_cb_for_save_op)

# MindSpore's private spellings, which its own tests and some training scripts import by name
_CallbackManager = CallbackList
_InternalCallbackParam = InternalCallbackParam

__all__ = ["Callback", "RunContext", "CallbackList", "LossMonitor", "TimeMonitor", "CheckpointConfig",
           "ModelCheckpoint", "EarlyStopping", "ReduceLROnPlateau", "LambdaCallback", "History",
           "LearningRateScheduler", "ProgressBar", "SummaryCollector", "OnRequestExit", "BackupAndRestore",
           "FlopsUtilizationCollector", "TrainFaultTolerance"]
