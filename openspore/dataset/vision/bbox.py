"""Vision transforms that move bounding boxes with the image (`ResizeWithBBox`, the random flips and resize).

A bbox column is a float (N, 4+) array of [x, y, width, height, ...] in pixels of the image it goes with; the
columns after the fourth (labels, flags) pass through unchanged.

>>> import numpy as np
>>> from openspore.dataset import vision
>>> image = np.zeros((4, 6, 3), np.uint8)
>>> boxes = np.array([[1, 0, 2, 3]], np.float32)
>>> vision.RandomHorizontalFlipWithBBox(1.0)(image, boxes)[1].tolist()
[[3.0, 0.0, 2.0, 3.0]]
"""
import numpy as np

from ..transforms.base import TensorOperation, check_prob, rng
from ._common import _back, _to_array
from .geometry import Resize
from .utils import Inter


def check_bboxes(img, bboxes, where):
    """The (H, W) of the image, after checking that the boxes are float (N, 4+) rows inside it."""
    img, _ = _to_array(img, where)
    bboxes = np.asarray(bboxes)
    if bboxes.ndim != 2 or bboxes.shape[1] < 4:
        raise ValueError(f"For '{where}', the bounding boxes must have shape (N, 4+) of [x, y, width, height, ...], "
                         f"but got {bboxes.shape}.")
    if bboxes.dtype.kind != "f":
        raise TypeError(f"For '{where}', the bounding boxes must be float32, but got {bboxes.dtype}.")
    h, w = img.shape[:2]
    x, y, bw, bh = (bboxes[:, k] for k in range(4))
    bad = (x < 0) | (y < 0) | (bw <= 0) | (bh <= 0) | (x + bw > w) | (y + bh > h)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"For '{where}', bounding box {row} {bboxes[row, :4].tolist()} is not inside the "
                         f"{w}x{h} image (x, y >= 0, width, height > 0, x + width <= {w}, y + height <= {h}).")
    return h, w


class ResizeWithBBox(TensorOperation):
    """`ResizeWithBBox(size, interpolation=Inter.BILINEAR)`: Resize(size, interpolation) on the image, the boxes
    scaled by the same factors."""

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self._resize = Resize(size, interpolation)
        self.size, self.interpolation = size, interpolation

    def _execute(self, img, bboxes):
        h, w = check_bboxes(img, bboxes, type(self).__name__)
        out = self._resize(img)
        nh, nw = _to_array(out, type(self).__name__)[0].shape[:2]
        boxes = np.array(bboxes, dtype=np.asarray(bboxes).dtype)
        boxes[:, [0, 2]] *= nw / w
        boxes[:, [1, 3]] *= nh / h
        return out, boxes


class RandomResizeWithBBox(TensorOperation):
    """`RandomResizeWithBBox(size)`: ResizeWithBBox with an interpolation drawn from nearest, bilinear, bicubic
    and area."""

    def __init__(self, size):
        Resize(size)  # validates the size
        self.size = size

    def _execute(self, img, bboxes):
        choice = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)[int(rng().integers(4))]
        return ResizeWithBBox(self.size, choice)(img, bboxes)


class _RandomFlipWithBBox(TensorOperation):
    def __init__(self, prob=0.5):
        self.prob = check_prob(prob, type(self).__name__)

    def _execute(self, img, bboxes):
        h, w = check_bboxes(img, bboxes, type(self).__name__)
        boxes = np.array(bboxes, dtype=np.asarray(bboxes).dtype)
        if rng().random() >= self.prob:
            return img, boxes
        arr, was_pil = _to_array(img, type(self).__name__)
        if self._axis == 1:
            boxes[:, 0] = w - boxes[:, 0] - boxes[:, 2]
        else:
            boxes[:, 1] = h - boxes[:, 1] - boxes[:, 3]
        return _back(np.ascontiguousarray(np.flip(arr, self._axis)), was_pil), boxes


class RandomHorizontalFlipWithBBox(_RandomFlipWithBBox):
    """`RandomHorizontalFlipWithBBox(prob=0.5)`: with probability prob, mirror the image left-right and each box
    (x → width − x − box width)."""

    _axis = 1


class RandomVerticalFlipWithBBox(_RandomFlipWithBBox):
    """`RandomVerticalFlipWithBBox(prob=0.5)`: with probability prob, mirror the image top-bottom and each box
    (y → height − y − box height)."""

    _axis = 0
