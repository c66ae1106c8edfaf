"""openspore.train: checkpoints now; Model, callbacks and metrics as they arrive."""
from .serialization import (save_checkpoint, load_checkpoint, load_param_into_net,  # noqa: F401
                            ckpt_to_safetensors, safetensors_to_ckpt)
from . import metrics  # noqa: F401
from .metrics import *  # noqa: F401,F403
from . import callback  # noqa: F401
from .callback import *  # noqa: F401,F403
from . import loss_scale_manager  # noqa: F401
from .loss_scale_manager import LossScaleManager, FixedLossScaleManager, DynamicLossScaleManager  # noqa: F401
