"""Core: Tensor, Parameter, the primitive base, dispatch (bind) and autodiff."""
from .tensor import Tensor, tensor, from_numpy  # noqa: F401
from .parameter import Parameter, ParameterTuple  # noqa: F401
from . import dispatch  # noqa: F401
from .grad_api import grad, value_and_grad, vjp, jvp, GradOperation  # noqa: F401
