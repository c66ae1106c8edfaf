"""Autodiff entry points re-exported under `ops` (MindSpore keeps them in ops.function.grad)."""
from ...core.grad_api import GradOperation, grad, jvp, value_and_grad, vjp

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "GradOperation"]
