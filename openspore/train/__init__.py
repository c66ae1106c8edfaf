"""openspore.train: checkpoints now; Model, callbacks and metrics as they arrive."""
from .serialization import (save_checkpoint, load_checkpoint, load_param_into_net,  # noqa: F401
                            ckpt_to_safetensors, safetensors_to_ckpt)
