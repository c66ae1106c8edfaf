"""numpy values ↔ `ms_service.Tensor` messages, with MindSpore Serving's validation rules and texts.

Numeric tensors travel as raw little-endian C-order bytes in `data`; `str` values as MS_STRING and `bytes` values
as MS_BYTES, each with exactly one `bytes_val` item.
"""
import numpy as np

from ..proto import ms_service_pb2 as pb

_NUMERIC = [
    (pb.MS_BOOL, np.dtype(np.bool_)), (pb.MS_INT8, np.dtype(np.int8)), (pb.MS_UINT8, np.dtype(np.uint8)),
    (pb.MS_INT16, np.dtype(np.int16)), (pb.MS_UINT16, np.dtype(np.uint16)), (pb.MS_INT32, np.dtype(np.int32)),
    (pb.MS_UINT32, np.dtype(np.uint32)), (pb.MS_INT64, np.dtype(np.int64)), (pb.MS_UINT64, np.dtype(np.uint64)),
    (pb.MS_FLOAT16, np.dtype(np.float16)), (pb.MS_FLOAT32, np.dtype(np.float32)),
    (pb.MS_FLOAT64, np.dtype(np.float64)),
]
PROTO_TO_NUMPY = dict(_NUMERIC)
NUMPY_TO_PROTO = {dt: code for code, dt in _NUMERIC}
DTYPE_NAMES = {code: pb.DataType.Name(code) for code in pb.DataType.values()}


class TensorError(ValueError):
    """A tensor that cannot be decoded or encoded; the message says what is wrong."""


def dtype_name(code):
    """'float32' for MS_FLOAT32, 'str'/'bytes' for the string kinds."""
    if code in PROTO_TO_NUMPY:
        return PROTO_TO_NUMPY[code].name
    return {pb.MS_STRING: "str", pb.MS_BYTES: "bytes"}.get(code, DTYPE_NAMES.get(code, f"unknown({code})"))


def _little_endian(array):
    if array.dtype.byteorder == ">":
        return array.astype(array.dtype.newbyteorder("<"))
    return array


def encode(value, tensor, scalar_shape=()):
    """Fill the `Tensor` message `tensor` from `value`.

    numpy arrays and numpy scalars keep dtype and shape; Python bool/int/float become bool/int64/float64 with
    `scalar_shape` (the client sends `[1]`, workers return `[]`); `str` → MS_STRING and `bytes` → MS_BYTES;
    objects with `.asnumpy()` (openspore/MindSpore Tensors) are converted.
    """
    if hasattr(value, "asnumpy") and not isinstance(value, np.ndarray):
        value = value.asnumpy()
    if isinstance(value, str):
        tensor.dtype = pb.MS_STRING
        tensor.shape.dims[:] = list(scalar_shape)
        tensor.bytes_val.append(value.encode("utf-8"))
        return tensor
    if isinstance(value, (bytes, bytearray, memoryview)):
        tensor.dtype = pb.MS_BYTES
        tensor.shape.dims[:] = list(scalar_shape)
        tensor.bytes_val.append(bytes(value))
        return tensor
    if isinstance(value, (bool, np.bool_)) and not isinstance(value, np.ndarray):
        array = np.full(scalar_shape, bool(value), np.bool_)
    elif isinstance(value, int):
        array = np.full(scalar_shape, value, np.int64)
    elif isinstance(value, float):
        array = np.full(scalar_shape, value, np.float64)
    elif isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
    else:
        raise TensorError(f"Not support value type {type(value).__name__}: expected a numpy array, a numpy scalar, "
                          "bool, int, float, str or bytes.")
    code = NUMPY_TO_PROTO.get(array.dtype.newbyteorder("=") if array.dtype.byteorder != "|" else array.dtype)
    if code is None:
        raise TensorError(f"Unknown data type {array.dtype}: serving supports bool, int8-64, uint8-64, float16, "
                          "float32 and float64 tensors.")
    tensor.dtype = code
    tensor.shape.dims[:] = list(array.shape)
    tensor.data = np.ascontiguousarray(_little_endian(array)).tobytes()
    return tensor


def decode(tensor, where="", bytes_as="bytes"):
    """The value of a `Tensor` message: a read-only numpy array for numeric tensors, `str` for MS_STRING and, for
    MS_BYTES, `bytes` (`bytes_as="bytes"`) or a 1-D uint8 array (`bytes_as="uint8"`, what stage functions get).
    Raises TensorError with MindSpore Serving's text (prefixed by `where`) when the message is inconsistent."""
    dims = list(tensor.shape.dims)
    code = tensor.dtype
    if code in (pb.MS_STRING, pb.MS_BYTES):
        if len(tensor.bytes_val) != 1:
            raise TensorError(f"{where}string or bytes tensor should have exactly one 'bytes_val' item, but got "
                              f"{len(tensor.bytes_val)}")
        if dims not in ([], [1]):
            raise TensorError(f"{where}string or bytes tensor should have shape [] or [1], but got {dims}")
        raw = tensor.bytes_val[0]
        if code == pb.MS_STRING:
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TensorError(f"{where}string tensor is not valid UTF-8: {exc}") from None
        return np.frombuffer(raw, np.uint8) if bytes_as == "uint8" else bytes(raw)
    dtype = PROTO_TO_NUMPY.get(code)
    if dtype is None:
        raise TensorError(f"{where}unknown data type {DTYPE_NAMES.get(code, code)}")
    if any(d < 0 for d in dims):
        raise TensorError(f"{where}the shape {dims} has a negative dim")
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if len(tensor.data) != count * dtype.itemsize:
        raise TensorError(f"{where}data size {len(tensor.data)} does not match the shape {dims} and type "
                          f"{dtype.name}, which need {count * dtype.itemsize} bytes")
    return np.frombuffer(tensor.data, dtype.newbyteorder("<")).astype(dtype, copy=False).reshape(dims)


def describe(value):
    """A short text for error messages: 'float32[2, 3]', 'str', 'bytes'."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    array = np.asarray(value)
    return f"{array.dtype.name}{list(array.shape)}"
