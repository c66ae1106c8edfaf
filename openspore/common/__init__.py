"""openspore.common: dtypes, errors, initializers; re-exports Tensor and Parameter like mindspore.common."""
from . import dtype  # noqa: F401
from .dtype import *  # noqa: F401,F403
