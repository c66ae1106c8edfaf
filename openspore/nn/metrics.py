"""`mindspore.nn.metrics` (1.x path, still importable in 2.x): the metrics of `openspore.train.metrics`."""
from ..train.metrics import *  # noqa: F401,F403
from ..train.metrics import __all__  # noqa: F401
