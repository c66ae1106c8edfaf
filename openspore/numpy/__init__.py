"""`mindspore.numpy`: NumPy-style functions that compute with openspore ops and return Tensors (a subset of
MindSpore's module; `tools/api_coverage.py` lists what is missing).

>>> import openspore.numpy as mnp
>>> x = mnp.array([[1.0, 2.0], [3.0, 4.0]])
>>> mnp.mean(x, axis=1).asnumpy().tolist(), mnp.dot(x, x).asnumpy().tolist()
([1.5, 3.5], [[7.0, 10.0], [15.0, 22.0]])
"""
from ..common.dtype import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,  # noqa: F401
                            float16, float32, float64)
from .array_creations import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .bitwise_ops import *  # noqa: F401,F403
from .nan_ops import *  # noqa: F401,F403
from .polynomial import *  # noqa: F401,F403
from .index_ops import *  # noqa: F401,F403
from .apply_ops import *  # noqa: F401,F403
from .histograms import *  # noqa: F401,F403
from . import math_ops as _math_ops

int_, float_ = int64, float64
pi, e, inf, nan = 3.141592653589793, 2.718281828459045, float("inf"), float("nan")

for _name in list(_math_ops._UNARY) + list(_math_ops._BINARY):
    globals()[_name] = getattr(_math_ops, _name)
del _name
from . import fft  # noqa: E402,F401  (mindspore.numpy.fft)
