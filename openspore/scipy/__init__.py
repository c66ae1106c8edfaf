"""`mindspore.scipy`: SciPy-style linear algebra and optimisation on openspore ops (a subset: see
`linalg.__all__` and `optimize.__all__`)."""
from . import fft, linalg, optimize  # noqa: F401

__all__ = []
