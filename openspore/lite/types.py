"""The enums of `mindspore_lite` (values as MindSpore Lite numbers them) and their numpy meaning.

>>> from openspore.lite import DataType
>>> DataType.FLOAT32.value, to_numpy_dtype(DataType.INT8)
(43, dtype('int8'))
"""
import enum

import numpy as np


class DataType(enum.Enum):
    UNKNOWN = 0
    BOOL = 30
    INT8 = 32
    INT16 = 33
    INT32 = 34
    INT64 = 35
    UINT8 = 37
    UINT16 = 38
    UINT32 = 39
    UINT64 = 40
    FLOAT16 = 42
    FLOAT32 = 43
    FLOAT64 = 44
    INVALID = 2147483647


class Format(enum.Enum):
    DEFAULT = -1
    NCHW = 0
    NHWC = 1
    NHWC4 = 2
    HWKC = 3
    HWCK = 4
    KCHW = 5
    CKHW = 6
    KHWC = 7
    CHWK = 8
    HW = 9
    HW4 = 10
    NC = 11
    NC4 = 12
    NC4HW4 = 13
    NCDHW = 15
    NWC = 16
    NCW = 17
    NDHWC = 18
    NC8HW8 = 19


class ModelType(enum.Enum):
    MINDIR = 0       # a .mindir file (converted in memory when built)
    MINDIR_LITE = 4  # a .ms file written by the converter


class FmkType(enum.Enum):
    TF = 0
    CAFFE = 1
    ONNX = 2
    MINDIR = 3
    TFLITE = 4
    PYTORCH = 5


class QuantizationType(enum.Enum):
    NO_QUANT = 0
    WEIGHT_QUANT = 1
    FULL_QUANT = 2


class OptimizationLevel(enum.Enum):
    O0 = 0    # float32 everywhere
    O2 = 2    # float16 compute, BatchNorm kept float32, loss scaling
    O3 = 3    # float16 everywhere, loss scaling
    AUTO = 4  # O2 (this runtime has no device to ask)


_NUMPY = {DataType.BOOL: np.bool_, DataType.INT8: np.int8, DataType.INT16: np.int16, DataType.INT32: np.int32,
          DataType.INT64: np.int64, DataType.UINT8: np.uint8, DataType.UINT16: np.uint16,
          DataType.UINT32: np.uint32, DataType.UINT64: np.uint64, DataType.FLOAT16: np.float16,
          DataType.FLOAT32: np.float32, DataType.FLOAT64: np.float64}
_FROM_NUMPY = {np.dtype(v): k for k, v in _NUMPY.items()}


def to_numpy_dtype(data_type):
    """numpy dtype of a DataType (ValueError for UNKNOWN/INVALID)."""
    if data_type not in _NUMPY:
        raise ValueError(f"DataType {data_type} has no numpy equivalent; expected one of "
                         f"{[d.name for d in _NUMPY]}.")
    return np.dtype(_NUMPY[data_type])


def from_numpy_dtype(dtype):
    """DataType of a numpy dtype (UNKNOWN when it has none)."""
    return _FROM_NUMPY.get(np.dtype(dtype), DataType.UNKNOWN)
