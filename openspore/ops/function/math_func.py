"""Functional math (MindSpore 2.x signatures): elementwise arithmetic and functions, comparisons and logic,
reductions and statistics, linear algebra. The definitions live in the `math_*_func` modules by theme."""
from . import math_elementwise_func as _elementwise
from . import math_linalg_func as _linalg
from . import math_reduce_func as _reduce
from .math_elementwise_func import *  # noqa: F401,F403
from .math_linalg_func import *  # noqa: F401,F403
from .math_reduce_func import *  # noqa: F401,F403

__all__ = list(_elementwise.__all__) + list(_reduce.__all__) + list(_linalg.__all__)

# MindSpore's math_func also holds these names, which live in math_more_func here; imported after __all__
# because math_more_func's helpers read this module's __all__ while it loads.
from .math_more_func import (  # noqa: F401
    bitwise_left_shift, bitwise_right_shift, truncate_div, truncate_mod, floordiv, floormod, einsum, cummax, cummin,
    matrix_exp, matrix_solve, vector_norm, matrix_norm, kaiser_window, approximate_equal, eps)
