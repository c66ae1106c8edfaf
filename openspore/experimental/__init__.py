"""`mindspore.experimental`: PyTorch-style APIs (`experimental.optim` optimizers and learning-rate schedulers)."""
from .map_parameter import MapParameter  # noqa: F401,E402
