"""`mindspore.dataset.vision`: image transforms and their enums."""
from .color import (Decode, Grayscale, HWC2CHW, Invert, Normalize, RandomColorAdjust, Rescale, ToPIL,  # noqa: F401
                    ToTensor, ToType)
from .geometry import (CenterCrop, Crop, HorizontalFlip, Pad, RandomCrop, RandomHorizontalFlip,  # noqa: F401
                       RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, Rotate, VerticalFlip)
from .utils import Border, ImageBatchFormat, Inter  # noqa: F401
from . import utils  # noqa: F401

__all__ = ["CenterCrop", "Crop", "Decode", "Grayscale", "HorizontalFlip", "HWC2CHW", "Invert", "Normalize", "Pad",
           "RandomColorAdjust", "RandomCrop", "RandomHorizontalFlip", "RandomResizedCrop", "RandomRotation",
           "RandomVerticalFlip", "Rescale", "Resize", "Rotate", "ToPIL", "ToTensor", "ToType", "VerticalFlip",
           "Border", "ImageBatchFormat", "Inter"]
