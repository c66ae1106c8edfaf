"""1.x path `mindspore.ops.composite` (C.GradOperation, …)."""
from ..core.grad_api import GradOperation  # noqa: F401
