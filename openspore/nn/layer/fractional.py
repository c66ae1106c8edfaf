"""Fractional max pooling layers: `FractionalMaxPool2d` and `FractionalMaxPool3d` (the Cells over
`ops.fractional_max_pool2d` / `ops.fractional_max_pool3d`).

Each output cell takes the maximum over a pooling window placed at pseudo-random, increasing offsets, so the
output size (`output_size`, or `output_ratio` × the input size) need not divide the input. `_random_samples`
(N, C, 2) or (N, C, 3) in [0, 1) fixes the offsets; without it they are drawn from openspore's generator.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
>>> pool = ms.nn.FractionalMaxPool2d(2, output_size=(2, 2), _random_samples=ms.Tensor([[[0.5, 0.5]]]))
>>> pool(x).shape
(1, 1, 2, 2)
"""
from ... import ops
from ..cell import Cell

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPool(Cell):
    _function = None
    _dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        if output_size is None and output_ratio is None:
            raise ValueError(f"For '{type(self).__name__}', 'output_size' or 'output_ratio' must be given.")
        if not isinstance(return_indices, bool):
            raise TypeError(f"For '{type(self).__name__}', 'return_indices' must be a bool, got "
                            f"{type(return_indices).__name__}.")
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, x):
        return type(self)._function(x, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                                    self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """`FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)(x (N, C, H, W) or (C, H, W))`; see the module text."""
    _function = staticmethod(ops.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """`FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)(x (N, C, D, H, W) or (C, D, H, W))`; see the module text."""
    _function = staticmethod(ops.fractional_max_pool3d)
