"""Parameters stored sliced: each rank keeps only its block of a parameter that a sharded operator splits.

A parameter is sliced in place the first time a sharded operator (or a tensor-parallel cell) takes it with a
strategy that splits it: its data becomes this rank's block, `param.sliced` turns True and `param.shard_layout`
records how the full tensor was cut (MindSpore's ParallelLayouts fields: device matrix, tensor map, slice shape).
The optimizer's state cloned from it (`Parameter.clone`: momenta, Adam moments) is sliced the same way, so
the update runs on blocks. The registry of sliced parameters feeds the strategy file and the integrated
checkpoint (`gather_full` joins the blocks again).

>>> import numpy as np, openspore as ms
>>> w = ms.Parameter(ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4)), name="w")
>>> layout = ShardLayout((2, 4), device_matrix=(1, 2), tensor_map=(-1, 0), coords=(0, 1))
>>> slice_parameter(w, layout).asnumpy().tolist()
[[2.0, 3.0], [6.0, 7.0]]
>>> w.sliced, w.shard_layout.slice_shape
(True, (2, 2))
"""
import weakref

import numpy as np

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops.defs import _comm_world as world
from ._layout import block_slices

ON_SLICE = []  # callbacks after a parameter is sliced (the strategy file writer)
_SLICED = {}  # id(Parameter) -> weakref to a sliced Parameter of this process (names change as cells nest)


class ShardLayout:
    """How a tensor of `full_shape` is cut over a device matrix (MindSpore's convention: tensor_map[d] is the
    device-matrix axis, counted from the right, that splits dimension d, or -1), and this rank's block
    coordinates (one per tensor dimension)."""

    def __init__(self, full_shape, device_matrix, tensor_map, coords):
        self.full_shape = tuple(int(s) for s in full_shape)
        self.device_matrix = tuple(int(s) for s in device_matrix)
        self.tensor_map = tuple(int(t) for t in tensor_map)
        self.coords = tuple(int(c) for c in coords)
        if len(self.tensor_map) != len(self.full_shape) or len(self.coords) != len(self.full_shape):
            raise ValueError(f"A shard layout needs one tensor_map entry and one coordinate per dimension of "
                             f"shape {self.full_shape}, got {self.tensor_map} and {self.coords}.")

    @property
    def splits(self):
        return tuple(1 if t < 0 else self.device_matrix[len(self.device_matrix) - 1 - t] for t in self.tensor_map)

    @property
    def slice_shape(self):
        return tuple(s // k for s, k in zip(self.full_shape, self.splits))

    def same_cut(self, other):
        return (self.full_shape, self.splits, self.coords) == (other.full_shape, other.splits, other.coords)

    def __repr__(self):
        return (f"ShardLayout(full_shape={self.full_shape}, device_matrix={self.device_matrix}, "
                f"tensor_map={self.tensor_map})")


def _cut(param, layout):
    block = param.asnumpy()[block_slices(layout.full_shape, layout.splits, layout.coords)]
    param.set_data(Tensor(np.ascontiguousarray(block), dtype=param.dtype), slice_shape=True)
    param.sliced = True
    param.shard_layout = layout


def slice_parameter(param, layout):
    """Keep only this rank's block of `param` (and of the optimizer state cloned from it); returns `param`.
    A parameter already cut the same way is returned as it is; cut another way, it is an error."""
    if not isinstance(param, Parameter):
        raise TypeError(f"slice_parameter takes a Parameter, got {type(param).__name__}.")
    current = getattr(param, "shard_layout", None)
    if current is not None:
        if not current.same_cut(layout):
            raise ValueError(f"Parameter '{param.name}' is already sliced as {current} (blocks "
                             f"{current.splits}); a sharded operator now asks for blocks {layout.splits}. Give every "
                             f"operator that takes it the same strategy for it.")
        return param
    if param.shape != layout.full_shape:
        raise ValueError(f"Parameter '{param.name}' has shape {param.shape}, but its layout describes a tensor of "
                         f"shape {layout.full_shape}.")
    _cut(param, layout)
    for ref in param.__dict__.get("_clones", ()):
        clone = ref()
        if clone is not None and clone.shape == layout.full_shape and getattr(clone, "shard_layout", None) is None:
            _cut(clone, layout)
            clone.__dict__["_optimizer_state"] = True  # left out of strategy files with only_trainable_params
            _SLICED[id(clone)] = weakref.ref(clone)
    _SLICED[id(param)] = weakref.ref(param)
    for callback in ON_SLICE:
        callback()
    return param


def sliced_parameters():
    """{name: Parameter} of the parameters this process holds sliced (live ones; the newest of a name wins)."""
    out = {}
    for key, ref in list(_SLICED.items()):
        p = ref()
        if p is None or getattr(p, "shard_layout", None) is None:
            _SLICED.pop(key, None)
        else:
            out[p.name] = p
    return out


def gather_full(param):
    """The full (integrated) value of a sliced parameter as a numpy array; every rank must call it, for the
    same parameters in the same order (one AllGather of the blocks). An unsliced parameter is returned as is."""
    layout = getattr(param, "shard_layout", None)
    local = param.asnumpy()
    if layout is None:
        return local
    size = world.group_size(world.state()["world"])
    blocks = world.all_gather(np.ascontiguousarray(local)[None], world.state()["world"]) if size > 1 else local[None]
    coords = world.all_gather(np.array([layout.coords], np.int64), world.state()["world"]) if size > 1 else \
        np.array([layout.coords], np.int64)
    full = np.empty(layout.full_shape, local.dtype)
    for block, c in zip(blocks, coords):
        full[block_slices(layout.full_shape, layout.splits, c)] = block
    return full


def parameter_memory(cell):
    """{'local_bytes', 'full_bytes'}: bytes of `cell`'s parameters held by this rank, and what they would take
    unsharded."""
    local = full = 0
    for p in cell.get_parameters():
        item = p.asnumpy().itemsize
        layout = getattr(p, "shard_layout", None)
        local += int(np.prod(p.shape, dtype=np.int64)) * item
        full += int(np.prod(layout.full_shape if layout else p.shape, dtype=np.int64)) * item
    return {"local_bytes": local, "full_bytes": full}
