"""Core-count limits per device and per stream (`mindspore.runtime.set_device_limit`, `set_stream_limit`,
`StreamLimitCtx`, ... also at the top level).

The limits are Ascend's: how many cube (matrix) and vector cores the kernels of a device, or of one stream, may
use. openspore runs its kernels on the CPU (or through torch on CUDA), where no launch takes a core count, so
the limits are checked and kept, and `get_*_limit` reports them — `-1` meaning "not set", as in the setters'
defaults — while the kernels run as before. MindSpore's CPU target accepts the same calls with no effect on its
kernels either.

>>> import openspore as ms
>>> s = ms.runtime.Stream()
>>> ms.runtime.get_stream_limit(s)
{'cube_core_num': -1, 'vector_core_num': -1}
>>> with ms.runtime.StreamLimitCtx(s, 8, 4):
...     ms.runtime.get_stream_limit(s)
{'cube_core_num': 8, 'vector_core_num': 4}
>>> ms.runtime.get_stream_limit(s)["cube_core_num"]
-1
"""
from .streams import Stream

__all__ = ["set_device_limit", "get_device_limit", "set_stream_limit", "get_stream_limit", "reset_stream_limit",
           "StreamLimitCtx"]

_UNSET = (-1, -1)
_device_limits = {}   # device id -> (cube_num, vector_num)
_stream_limits = {}   # Stream.id -> (cube_num, vector_num)


def _int(where, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{where}', the argument '{name}' should be int, but got {type(value).__name__}.")
    return value


def _check_stream(where, stream):
    if not isinstance(stream, Stream):
        raise TypeError(f"For '{where}', the argument 'stream' should be Stream, but got {type(stream)}.")


def _as_dict(pair):
    return {"cube_core_num": pair[0], "vector_core_num": pair[1]}


def set_device_limit(device, cube_num=-1, vector_num=-1):
    """Limit the cube and vector cores kernels on device `device` (an int id) may use; -1 leaves one unset."""
    _int("set_device_limit", "device", device)
    _device_limits[device] = (_int("set_device_limit", "cube_num", cube_num),
                              _int("set_device_limit", "vector_num", vector_num))


def get_device_limit(device):
    """{'cube_core_num': n, 'vector_core_num': m} as set for device `device` (-1: not set)."""
    return _as_dict(_device_limits.get(_int("get_device_limit", "device", device), _UNSET))


def set_stream_limit(stream, cube_num=-1, vector_num=-1):
    """Limit the cores of the kernels launched on `stream` (a `Stream`); -1 leaves one unset."""
    _check_stream("set_stream_limit", stream)
    _stream_limits[stream.id] = (_int("set_stream_limit", "cube_num", cube_num),
                                 _int("set_stream_limit", "vector_num", vector_num))


def get_stream_limit(stream):
    """{'cube_core_num': n, 'vector_core_num': m} as set for `stream` (-1: not set)."""
    _check_stream("get_stream_limit", stream)
    return _as_dict(_stream_limits.get(stream.id, _UNSET))


def reset_stream_limit(stream):
    """Drop `stream`'s limits (both back to -1)."""
    _check_stream("reset_stream_limit", stream)
    _stream_limits.pop(stream.id, None)


class StreamLimitCtx:
    """`with StreamLimitCtx(stream, cube_num=-1, vector_num=-1):` the limits hold for the block; the stream's
    previous limits come back at its end."""

    def __init__(self, stream, cube_num=-1, vector_num=-1):
        _check_stream("StreamLimitCtx", stream)
        self.stream = stream
        self.cube_num = _int("StreamLimitCtx", "cube_num", cube_num)
        self.vector_num = _int("StreamLimitCtx", "vector_num", vector_num)
        self._previous = _UNSET

    def __enter__(self):
        self._previous = _stream_limits.get(self.stream.id, _UNSET)
        set_stream_limit(self.stream, self.cube_num, self.vector_num)

    def __exit__(self, *exc):
        set_stream_limit(self.stream, *self._previous)
        return False
