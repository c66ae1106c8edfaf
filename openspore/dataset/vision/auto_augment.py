"""`vision.AutoAugment` and `vision.AutoAugmentPolicy`: the augmentation policies learned by AutoAugment (Cubuk
et al., 2018) on ImageNet, CIFAR-10 and SVHN, as MindSpore's documentation lists them.

A policy is 25 pairs of (operation, probability, magnitude bin of 10). Each image gets one pair drawn uniformly;
each operation of the pair runs with its probability. Bins map onto: shear 0..0.3, translation 0..150/331 of the
side, rotation 0..30 degrees, colour/brightness/contrast/sharpness factor 1 ± 0..0.9 (these and the geometric
ones take a random sign), posterize 8..4 bits, solarize threshold 255..0; AutoContrast, Equalize and Invert have
no magnitude.

>>> import numpy as np
>>> from openspore.dataset import vision
>>> out = vision.AutoAugment(vision.AutoAugmentPolicy.SVHN)(np.full((8, 8, 3), 100, np.uint8))
>>> out.shape, out.dtype
((8, 8, 3), dtype('uint8'))
"""
from enum import Enum

import numpy as np

from ..transforms.base import rng
from ._common import _back, _to_array
from .augment import _warp_inter
from .policy_augment import _SIGNED, _PolicyAugment, _apply
from .utils import Inter

__all__ = ["AutoAugment", "AutoAugmentPolicy"]


class AutoAugmentPolicy(str, Enum):
    """The dataset an AutoAugment policy was learned on: IMAGENET, CIFAR10 or SVHN."""
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


_POLICIES = {
    AutoAugmentPolicy.IMAGENET: (
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))),
    AutoAugmentPolicy.CIFAR10: (
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None))),
    AutoAugmentPolicy.SVHN: (
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))),
}

_BINS = 10


def magnitude(name, level, height, width):
    """The unsigned magnitude of bin `level` (0..9) of an operation on an image of (height, width)."""
    if level is None:
        return 0.0
    frac = level / (_BINS - 1)
    if name in ("ShearX", "ShearY"):
        return 0.3 * frac
    if name == "TranslateX":
        return 150.0 / 331.0 * width * frac
    if name == "TranslateY":
        return 150.0 / 331.0 * height * frac
    if name == "Rotate":
        return 30.0 * frac
    if name in ("Color", "Brightness", "Contrast", "Sharpness"):
        return 0.9 * frac
    if name == "Posterize":
        return float(8 - round(level / ((_BINS - 1) / 4)))
    if name == "Solarize":
        return 255.0 * (1 - frac)
    raise ValueError(f"AutoAugment: unknown operation {name!r}")


def apply_operation(name, img, value, inter, fill):
    """One policy operation on a uint8 HWC array at a signed magnitude."""
    if name == "Invert":
        return 255 - img
    return _apply(name, img, value, inter, fill)


class AutoAugment(_PolicyAugment):
    """`AutoAugment(policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0)` on uint8 RGB
    images (H, W, 3)."""

    _where = "AutoAugment"

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0):
        if not isinstance(policy, AutoAugmentPolicy):
            raise TypeError(f"For 'AutoAugment', 'policy' must be an AutoAugmentPolicy, but got {policy!r}.")
        if not isinstance(interpolation, Inter):
            raise TypeError(f"For 'AutoAugment', 'interpolation' must be an Inter, but got {interpolation!r}.")
        if isinstance(fill_value, tuple):
            if len(fill_value) != 3 or not all(isinstance(v, int) and 0 <= v <= 255 for v in fill_value):
                raise TypeError(f"For 'AutoAugment', a tuple 'fill_value' must hold 3 ints in [0, 255], "
                                f"but got {fill_value!r}.")
        elif isinstance(fill_value, bool) or not isinstance(fill_value, int) or not 0 <= fill_value <= 255:
            raise TypeError(f"For 'AutoAugment', 'fill_value' must be an int in [0, 255] or a 3-tuple, "
                            f"but got {fill_value!r}.")
        self.policy, self.interpolation, self.fill_value = policy, interpolation, fill_value
        self._inter = _warp_inter(interpolation, self._where)

    def _execute(self, img):
        arr, was_pil = _to_array(img, self._where)
        if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
            raise RuntimeError(f"For 'AutoAugment', the image must be uint8 RGB <H, W, C=3>, but got {arr.dtype} "
                               f"of shape {arr.shape}.")
        h, w = arr.shape[:2]
        pair = _POLICIES[self.policy][int(rng().integers(len(_POLICIES[self.policy])))]
        for name, prob, level in pair:
            if rng().random() >= prob:
                continue
            value = magnitude(name, level, h, w)
            if name in _SIGNED and rng().random() < 0.5:
                value = -value
            arr = apply_operation(name, arr, value, self._inter, self.fill_value)
        return _back(arr, was_pil)
