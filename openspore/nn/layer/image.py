"""Image quality measures as Cells: PSNR, SSIM and multi-scale SSIM (MSSSIM) of image batches (N, C, H, W).

>>> import numpy as np, openspore as ms
>>> a = ms.Tensor(np.full((1, 1, 4, 4), 0.5, np.float32)); b = ms.Tensor(np.full((1, 1, 4, 4), 0.6, np.float32))
>>> PSNR()(a, b).asnumpy().round(3).tolist()
[20.0]
"""
import math

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ..cell import Cell

__all__ = ["PSNR", "SSIM", "MSSSIM"]


def _check_images(img1, img2, where):
    # MindSpore's order and messages: each image 4-D, then one dtype (TypeError), then one shape (SameTypeShape)
    for name, img in (("img1", img1), ("img2", img2)):
        if img.ndim != 4:
            raise ValueError(f"For '{where}', the dimension of '{name}' must be 4d, but got {img.ndim}.")
    if img1.dtype != img2.dtype:
        raise TypeError(f"For 'SameTypeShape', the x dtype should be = y dtype: {img2.dtype}, but got {img1.dtype}.")
    if img1.shape != img2.shape:
        raise ValueError(f"For 'SameTypeShape', the x shape should be = y shape: {tuple(img2.shape)}, but got "
                         f"{tuple(img1.shape)}.")


def _max_val(max_val, where):
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"For '{where}', the type of 'max_val' should be one of '['int', 'float']', but got type "
                        f"'{type(max_val).__name__}'.")
    if max_val <= 0:
        raise ValueError(f"For '{where}', the argument 'max_val' must > 0.0, but got {max_val}.")
    return float(max_val)


class PSNR(Cell):
    """`PSNR(max_val=1.0)(img1, img2)`: 10 * log10(max_val^2 / MSE) per image (the mean over C, H, W), shape (N,)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _max_val(max_val, "PSNR")

    def construct(self, img1, img2):
        _check_images(img1, img2, "PSNR")
        diff = ops.cast(img1, mstype.float32) - ops.cast(img2, mstype.float32)
        mse = ops.mean(diff * diff, (1, 2, 3))
        return 10.0 * ops.log(self.max_val * self.max_val / mse) / math.log(10.0)


def _gaussian(size, sigma):
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-coords ** 2 / (2.0 * sigma * sigma))
    g /= g.sum()
    return np.outer(g, g).astype(np.float32)


class SSIM(Cell):
    """`SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2)`: structural similarity
    per image (N,): local means, variances and covariance under a Gaussian window (valid positions only, per
    channel), SSIM = ((2 mu1 mu2 + c1)(2 cov + c2)) / ((mu1^2 + mu2^2 + c1)(var1 + var2 + c2)), averaged over
    channels and positions; c1 = (k1 max_val)^2, c2 = (k2 max_val)^2."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _max_val(max_val, "SSIM")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
            raise ValueError(f"For 'SSIM', 'filter_size' must be a positive int, but got {filter_size!r}.")
        if not isinstance(filter_sigma, (int, float)) or filter_sigma <= 0:
            raise ValueError(f"For 'SSIM', 'filter_sigma' must be a positive number, but got {filter_sigma!r}.")
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, float(filter_sigma), float(k1), float(k2)
        self._window = Tensor(_gaussian(filter_size, self.filter_sigma)[None, None])

    def _filter(self, x):
        n, c, h, w = x.shape
        out = ops.conv2d(ops.reshape(x, (n * c, 1, h, w)), self._window)
        return ops.reshape(out, (n, c) + tuple(out.shape[2:]))

    def construct(self, img1, img2):
        _check_images(img1, img2, "SSIM")
        if min(img1.shape[2:]) < self.filter_size:
            raise ValueError(f"For 'SSIM', the images ({img1.shape[2]}x{img1.shape[3]}) must be at least "
                             f"filter_size={self.filter_size} on each side.")
        x, y = ops.cast(img1, mstype.float32), ops.cast(img2, mstype.float32)
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        mu1, mu2 = self._filter(x), self._filter(y)
        var1 = self._filter(x * x) - mu1 * mu1
        var2 = self._filter(y * y) - mu2 * mu2
        cov = self._filter(x * y) - mu1 * mu2
        ssim = ((2 * mu1 * mu2 + c1) * (2 * cov + c2)) / ((mu1 * mu1 + mu2 * mu2 + c1) * (var1 + var2 + c2))
        return ops.mean(ssim, (1, 2, 3))


class MSSSIM(Cell):
    """`MSSSIM(max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
    filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2)`: multi-scale SSIM per image (N,).

    At each of len(power_factors) scales (halved by a 2×2 average pool between them) the per-channel mean
    contrast-structure term cs = (2 cov + c2)/(var1 + var2 + c2) is taken; the coarsest scale gives the full SSIM
    instead. Per channel, MS-SSIM = prod(relu(cs_i)^p_i for the finer scales) · relu(ssim)^p_last, then averaged
    over channels. Integer images (uint8) are scaled to [0, 1] first, `max_val` with them. Each side must stay
    at least filter_size through the last scale: (filter_size · 2^(levels−1)) pixels.
    """

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
                 filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        if not isinstance(power_factors, (tuple, list)) or not power_factors:
            raise TypeError(f"For 'MSSSIM', 'power_factors' must be a non-empty tuple or list, got {power_factors!r}.")
        for name, value in (("k1", k1), ("k2", k2)):
            if not isinstance(value, float):
                raise TypeError(f"For 'MSSSIM', '{name}' must be a float, but got {type(value).__name__}.")
        self._ssim = SSIM(max_val, filter_size, filter_sigma, k1, k2)
        self.max_val, self.filter_size = self._ssim.max_val, filter_size
        self.power_factors = Tensor(np.asarray(power_factors, np.float32))
        self.level = len(power_factors)

    def construct(self, img1, img2):
        _check_images(img1, img2, "MSSSIM")
        scale = 1.0
        if img1.dtype in (mstype.uint8, mstype.int8, mstype.int16, mstype.int32, mstype.int64):
            scale = 1.0 / float(np.iinfo(mstype.dtype_to_nptype(img1.dtype)).max)
        x, y = ops.cast(img1, mstype.float32), ops.cast(img2, mstype.float32)
        max_val = self.max_val * scale if scale != 1.0 and self.max_val > 1.0 else self.max_val
        if scale != 1.0:
            x, y = x * scale, y * scale
        c1, c2 = (self._ssim.k1 * max_val) ** 2, (self._ssim.k2 * max_val) ** 2
        terms = []
        for level in range(self.level):
            if min(x.shape[2:]) < self.filter_size:
                raise ValueError(f"For 'MSSSIM', scale {level} of the images is {x.shape[2]}x{x.shape[3]}, smaller "
                                 f"than filter_size={self.filter_size}; the images must be at least "
                                 f"{self.filter_size * 2 ** (self.level - 1)} on each side.")
            f = self._ssim._filter
            mu1, mu2 = f(x), f(y)
            var1, var2, cov = f(x * x) - mu1 * mu1, f(y * y) - mu2 * mu2, f(x * y) - mu1 * mu2
            cs_map = (2 * cov + c2) / (var1 + var2 + c2)
            if level < self.level - 1:
                terms.append(ops.relu(ops.mean(cs_map, (2, 3))))
                x, y = ops.avg_pool2d(x, 2, 2), ops.avg_pool2d(y, 2, 2)
            else:
                ssim_map = (2 * mu1 * mu2 + c1) / (mu1 * mu1 + mu2 * mu2 + c1) * cs_map
                terms.append(ops.relu(ops.mean(ssim_map, (2, 3))))
        weighted = ops.pow(ops.stack(terms, -1), self.power_factors)
        return ops.mean(ops.prod(weighted, -1), -1)
