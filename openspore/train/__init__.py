"""openspore.train: Model, callbacks, metrics, loss-scale managers and checkpoints."""
from .serialization import (save_checkpoint, load_checkpoint, load_param_into_net,  # noqa: F401
                            ckpt_to_safetensors, safetensors_to_ckpt)
from . import metrics  # noqa: F401
from .metrics import *  # noqa: F401,F403
from . import callback  # noqa: F401
from .callback import *  # noqa: F401,F403
from . import loss_scale_manager  # noqa: F401
from .loss_scale_manager import LossScaleManager, FixedLossScaleManager, DynamicLossScaleManager  # noqa: F401
from . import model  # noqa: F401
from .model import Model  # noqa: F401
from . import summary  # noqa: F401
from .summary import SummaryRecord  # noqa: F401
from .dataset_helper import DatasetHelper, connect_network_with_dataset, data_sink  # noqa: F401
from .checkpoint_extras import merge_sliced_parameter, load_checkpoint_async, async_ckpt_thread_status  # noqa: F401
from ..amp import build_train_network  # noqa: F401
from ..parallel import (build_searched_strategy, load_distributed_checkpoint, get_ckpt_path_with_strategy,  # noqa: F401,E501
                        restore_group_info_list)
__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "ckpt_to_safetensors",  # noqa: F405, PLE0604
           "safetensors_to_ckpt", "Model", "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager",
           "SummaryRecord", "DatasetHelper", "connect_network_with_dataset", "data_sink", "merge_sliced_parameter",
           "load_checkpoint_async", "async_ckpt_thread_status", "build_train_network", "build_searched_strategy",
           "load_distributed_checkpoint", "get_ckpt_path_with_strategy", "restore_group_info_list",
           *metrics.__all__, *callback.__all__]


def __getattr__(name):
    """`mindspore.train.export` / `.load`: the MindIR functions of `openspore.serialization` (looked up on first
    use: serialization reads networks built from this package)."""
    if name in ("export", "load"):
        from .. import serialization
        return getattr(serialization, name)
    raise AttributeError(f"module 'openspore.train' has no attribute {name!r}")
