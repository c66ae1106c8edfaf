"""Functional math (MindSpore 2.x signatures): elementwise arithmetic and functions, comparisons and logic,
reductions and statistics, linear algebra. The definitions live in the `math_*_func` modules by theme."""
from . import math_elementwise_func as _elementwise
from . import math_linalg_func as _linalg
from . import math_reduce_func as _reduce
from .math_elementwise_func import *  # noqa: F401,F403
from .math_linalg_func import *  # noqa: F401,F403
from .math_reduce_func import *  # noqa: F401,F403

__all__ = list(_elementwise.__all__) + list(_reduce.__all__) + list(_linalg.__all__)
