"""`mindspore.dataset.vision`: image transforms and their enums."""
from .transforms import (CenterCrop, Crop, Decode, Grayscale, HorizontalFlip, HWC2CHW, Invert, Normalize, Pad,  # noqa: F401
                         RandomColorAdjust, RandomCrop, RandomHorizontalFlip, RandomResizedCrop, RandomRotation,
                         RandomVerticalFlip, Rescale, Resize, Rotate, ToPIL, ToTensor, ToType, VerticalFlip)
from .utils import Border, ImageBatchFormat, Inter  # noqa: F401
from . import utils  # noqa: F401

__all__ = ["CenterCrop", "Crop", "Decode", "Grayscale", "HorizontalFlip", "HWC2CHW", "Invert", "Normalize", "Pad",
           "RandomColorAdjust", "RandomCrop", "RandomHorizontalFlip", "RandomResizedCrop", "RandomRotation",
           "RandomVerticalFlip", "Rescale", "Resize", "Rotate", "ToPIL", "ToTensor", "ToType", "VerticalFlip",
           "Border", "ImageBatchFormat", "Inter"]
