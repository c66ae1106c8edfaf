"""Checkpoint helpers of `mindspore.train` beyond save/load: merging parameter slices, loading in the background,
asking whether background saves are still writing.

>>> import numpy as np, openspore as ms
>>> parts = [ms.Parameter(ms.Tensor(np.ones((1, 2), np.float32) * i), name="w") for i in range(2)]
>>> merge_sliced_parameter(parts).asnumpy().tolist()
[[0.0, 0.0], [1.0, 1.0]]
"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from . import serialization

__all__ = ["merge_sliced_parameter", "load_checkpoint_async", "async_ckpt_thread_status"]


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """`merge_sliced_parameter(sliced_parameters, strategy=None)`: one Parameter from its slices (in rank order).

    Without a strategy the slices are concatenated along axis 0. A strategy {name: layout} gives, per axis, how
    many slices it was cut into (a list such as [2, 1]): slices are laid out row-major over that grid."""
    if not isinstance(sliced_parameters, (list, tuple)) or not sliced_parameters or not all(
            isinstance(p, Parameter) for p in sliced_parameters):
        raise TypeError("For 'merge_sliced_parameter', 'sliced_parameters' must be a non-empty list of Parameters, "
                        f"but got {sliced_parameters!r}.")
    name = sliced_parameters[0].name
    if any(p.name != name for p in sliced_parameters):
        raise ValueError(f"For 'merge_sliced_parameter', all slices must have the same name, but got "
                         f"{[p.name for p in sliced_parameters]}.")
    arrays = [p.asnumpy() for p in sliced_parameters]
    if strategy is None:
        merged = np.concatenate(arrays, axis=0)
    else:
        if not isinstance(strategy, dict) or name not in strategy:
            raise KeyError(f"For 'merge_sliced_parameter', 'strategy' must be a dict with an entry for '{name}', "
                           f"but got {strategy!r}.")
        layout = [int(n) for n in strategy[name]]
        if int(np.prod(layout)) != len(arrays) or len(layout) != arrays[0].ndim:
            raise ValueError(f"For 'merge_sliced_parameter', the layout {layout} of '{name}' does not match "
                             f"{len(arrays)} slices of rank {arrays[0].ndim}.")
        grid = np.empty(layout, dtype=object)
        for index, array in zip(np.ndindex(*layout), arrays):
            grid[index] = array
        merged = np.block(grid.tolist())
    return Parameter(Tensor(merged), name=name, requires_grad=sliced_parameters[0].requires_grad)


_LOADER = {"pool": None}


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Start reading a checkpoint in a background thread; returns a Future whose `result()` is the parameter
    dict that `load_checkpoint` returns (loaded into `net` too when given), or raises its error."""
    if _LOADER["pool"] is None:
        _LOADER["pool"] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="load_checkpoint_async")
    return _LOADER["pool"].submit(serialization.load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix,
                                  dec_key, dec_mode, specify_prefix, choice_func)


def async_ckpt_thread_status():
    """True while a `save_checkpoint(..., async_save=True)` is still writing a file."""
    with serialization._pending_lock:
        return any(thread.is_alive() for thread in serialization._pending.values())
