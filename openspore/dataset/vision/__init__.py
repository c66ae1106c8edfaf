"""`mindspore.dataset.vision`: image transforms, their enums and image I/O functions."""
from .color import (Decode, Grayscale, HWC2CHW, Invert, Normalize, RandomColorAdjust, Rescale, ToPIL,  # noqa: F401
                    ToTensor, ToType)
from .geometry import (CenterCrop, Crop, HorizontalFlip, Pad, RandomCrop, RandomHorizontalFlip,  # noqa: F401
                       RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, Rotate, VerticalFlip)
from .adjust import (AdjustBrightness, AdjustContrast, AdjustGamma, AdjustHue, AdjustSaturation,  # noqa: F401
                     AdjustSharpness, AutoContrast, ConvertColor, ConvertMode, Equalize, GaussianBlur, HsvToRgb,
                     LinearTransformation, Posterize, RandomAdjustSharpness, RandomAutoContrast, RandomColor,
                     RandomEqualize, RandomGrayscale, RandomInvert, RandomLighting, RandomPosterize, RandomSharpness,
                     RandomSolarize, RgbToHsv, Solarize, get_image_num_channels, get_image_size)
from .augment import (Affine, CutMixBatch, CutOut, Erase, FiveCrop, MixUp, MixUpBatch, NormalizePad,  # noqa: F401
                      PadToSize, Perspective, RandomAffine, RandomCropDecodeResize, RandomErasing, RandomPerspective,
                      RandomResize, RandomSelectSubpolicy, ResizedCrop, SliceMode, SlicePatches, TenCrop, ToNumpy,
                      UniformAugment)
from .image_io import (ImageReadMode, encode_jpeg, encode_png, read_file, read_image, write_file,  # noqa: F401
                       write_jpeg, write_png)
from .utils import Border, ImageBatchFormat, Inter  # noqa: F401
from . import utils  # noqa: F401
from .bbox import (RandomHorizontalFlipWithBBox, RandomResizeWithBBox, RandomVerticalFlipWithBBox,  # noqa: F401
                   ResizeWithBBox)
from ..transforms.base import not_random  # noqa: F401

__all__ = ["CenterCrop", "Crop", "Decode", "Grayscale", "HorizontalFlip", "HWC2CHW", "Invert", "Normalize", "Pad",
           "RandomColorAdjust", "RandomCrop", "RandomHorizontalFlip", "RandomResizedCrop", "RandomRotation",
           "RandomVerticalFlip", "Rescale", "Resize", "Rotate", "ToPIL", "ToTensor", "ToType", "VerticalFlip",
           "Border", "ImageBatchFormat", "Inter",
           "AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustHue", "AdjustSaturation", "AdjustSharpness",
           "AutoContrast", "ConvertColor", "ConvertMode", "Equalize", "GaussianBlur", "HsvToRgb",
           "LinearTransformation", "Posterize", "RandomAdjustSharpness", "RandomAutoContrast", "RandomColor",
           "RandomEqualize", "RandomGrayscale", "RandomInvert", "RandomLighting", "RandomPosterize", "RandomSharpness",
           "RandomSolarize", "RgbToHsv", "Solarize", "get_image_num_channels", "get_image_size",
           "Affine", "CutMixBatch", "CutOut", "Erase", "FiveCrop", "MixUp", "MixUpBatch", "NormalizePad", "PadToSize",
           "Perspective", "RandomAffine", "RandomCropDecodeResize", "RandomErasing", "RandomPerspective",
           "RandomResize", "RandomSelectSubpolicy", "ResizedCrop", "SliceMode", "SlicePatches", "TenCrop", "ToNumpy",
           "UniformAugment", "ImageReadMode", "encode_jpeg", "encode_png", "read_file", "read_image", "write_file",
           "write_jpeg", "write_png", "ResizeWithBBox", "RandomResizeWithBBox", "RandomHorizontalFlipWithBBox",
           "RandomVerticalFlipWithBBox", "not_random"]
from .policy_augment import (BoundingBoxAugment, RandAugment, RandomCropWithBBox,  # noqa: F401,E402
                             RandomResizedCropWithBBox, TrivialAugmentWide)

__all__ += ["BoundingBoxAugment", "RandAugment", "RandomCropWithBBox", "RandomResizedCropWithBBox",
            "TrivialAugmentWide"]
from .auto_augment import AutoAugment, AutoAugmentPolicy  # noqa: F401,E402

__all__ += ["AutoAugment", "AutoAugmentPolicy"]
